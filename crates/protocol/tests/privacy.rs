//! No validation message echoes a value from the request.
//!
//! A canary string is put in every position of several valid requests (in place of every
//! value, as a new key of every object, inside malformed JSON around it), and no resulting
//! `message` or `param` may contain it.

use serde_json::{json, Value};
use shoal_protocol::messages::{parse_count_tokens_request, parse_messages_request};
use shoal_protocol::responses::parse_responses_request;
use shoal_protocol::{parse_chat_request, InvalidRequest};

const CANARY: &str = "CANARY-7f3a";

fn bases() -> Vec<Value> {
    let png = "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";
    vec![
        json!({
            "model": "large-27b-uncensored",
            "messages": [
                {"role": "system", "content": "secret system prompt"},
                {"role": "user", "name": "alice", "content": [
                    {"type": "text", "text": "secret question"},
                    {"type": "image_url", "image_url": {"url": png, "detail": "auto"}}
                ]},
                {"role": "assistant", "content": null, "tool_calls": [
                    {"id": "call_1", "type": "function", "function": {"name": "lookup", "arguments": "{\"q\":\"x\"}"}}
                ]},
                {"role": "tool", "tool_call_id": "call_1", "content": "secret result"}
            ],
            "tools": [{"type": "function", "function": {"name": "lookup", "description": "d",
                       "parameters": {"type": "object", "properties": {"q": {"type": "string"}}}, "strict": false}}],
            "tool_choice": {"type": "function", "function": {"name": "lookup"}},
            "stream": true,
            "stream_options": {"include_usage": true},
            "temperature": 1,
            "top_p": 0.5,
            "max_tokens": 10,
            "max_completion_tokens": 10,
            "stop": ["a", "b"],
            "seed": 1,
            "n": 1,
            "presence_penalty": 0,
            "frequency_penalty": 0,
            "response_format": {"type": "json_object"},
            "parallel_tool_calls": true,
            "reasoning_effort": "low",
            "user": "u"
        }),
        json!({"model": "m", "messages": [{"role": "user", "content": "hi"}], "tool_choice": "auto", "stop": "x"}),
    ]
}

/// Values that carry the canary and are wrong in most places.
fn poisons() -> Vec<Value> {
    vec![
        json!(CANARY),
        json!(format!("{CANARY}`, expected a string")),
        json!(format!("https://{CANARY}.example/a.png")),
        json!(format!("ftp://{CANARY}/a.png")),
        json!(format!("data:image/{CANARY};base64,AAAA")),
        json!(format!("data:image/png;base64,{CANARY}")),
        json!(format!("data:image/png;{CANARY},AAAA")),
        json!(format!("{CANARY} with spaces.and.dots")),
        json!([CANARY]),
        json!([CANARY, CANARY, CANARY, CANARY, CANARY]),
        json!({CANARY: CANARY}),
        json!({"type": CANARY, "function": {"name": CANARY}}),
        json!({"role": CANARY, "content": CANARY}),
        json!({"type": "image_url", "image_url": {"url": format!("http://{CANARY}")}}),
        json!({"type": "function", "function": {"name": format!("{CANARY}!")}}),
        json!([{CANARY: 1}]),
        json!(""),
        json!(null),
        json!(-1),
        json!(1e300),
        json!(true),
    ]
}

/// Every position in `v`, as JSON pointers.
fn pointers(v: &Value, at: String, out: &mut Vec<String>) {
    out.push(at.clone());
    match v {
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                pointers(item, format!("{at}/{i}"), out);
            }
        }
        Value::Object(map) => {
            for (k, item) in map {
                pointers(
                    item,
                    format!("{at}/{}", k.replace('~', "~0").replace('/', "~1")),
                    out,
                );
            }
        }
        _ => {}
    }
}

/// A request parser: chat's or another route's.
type Parser = fn(&[u8]) -> Result<(), InvalidRequest>;

fn chat(body: &[u8]) -> Result<(), InvalidRequest> {
    parse_chat_request(body).map(drop)
}

fn responses(body: &[u8]) -> Result<(), InvalidRequest> {
    parse_responses_request(body).map(drop)
}

fn messages(body: &[u8]) -> Result<(), InvalidRequest> {
    parse_messages_request(body).map(drop)
}

fn count_tokens(body: &[u8]) -> Result<(), InvalidRequest> {
    parse_count_tokens_request(body).map(drop)
}

/// Valid requests of the Responses and Messages routes with a value in every position.
fn other_bases() -> Vec<(Parser, Value)> {
    let png = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";
    let responses_body = json!({
        "model": "large-27b-uncensored",
        "instructions": "secret instructions",
        "input": [
            {"role": "user", "content": [
                {"type": "input_text", "text": "secret question"},
                {"type": "input_image", "image_url": format!("data:image/png;base64,{png}"), "detail": "auto"}]},
            {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "secret answer"}]},
            {"type": "function_call", "call_id": "call_1", "name": "lookup", "arguments": "{\"q\":\"x\"}"},
            {"type": "function_call_output", "call_id": "call_1", "output": "secret result"}
        ],
        "tools": [{"type": "function", "name": "lookup", "description": "d", "strict": false,
                   "parameters": {"type": "object", "properties": {"q": {"type": "string"}}}}],
        "tool_choice": {"type": "function", "name": "lookup"},
        "text": {"format": {"type": "json_schema", "name": "out", "schema": {"type": "object"}}},
        "reasoning": {"effort": "low"},
        "max_output_tokens": 10, "temperature": 1, "top_p": 0.5, "parallel_tool_calls": true,
        "stream": true, "store": false, "include": ["reasoning.encrypted_content"],
        "truncation": "disabled", "metadata": {"k": "v"}, "user": "u"
    });
    let messages_body = json!({
        "model": "large-27b-uncensored",
        "max_tokens": 10,
        "system": [{"type": "text", "text": "secret system"}],
        "messages": [
            {"role": "user", "content": [
                {"type": "text", "text": "secret question"},
                {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": png}}]},
            {"role": "assistant", "content": [
                {"type": "thinking", "thinking": "secret thought", "signature": "s"},
                {"type": "tool_use", "id": "toolu_1", "name": "lookup", "input": {"q": "x"}}]},
            {"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": "toolu_1", "content": [{"type": "text", "text": "secret result"}], "is_error": false}]}
        ],
        "tools": [{"name": "lookup", "description": "d", "input_schema": {"type": "object"}}],
        "tool_choice": {"type": "tool", "name": "lookup", "disable_parallel_tool_use": true},
        "thinking": {"type": "enabled", "budget_tokens": 1024},
        "output_config": {"effort": "low", "format": {"type": "json_schema", "schema": {"type": "object"}}},
        "stop_sequences": ["a"], "temperature": 1, "top_p": 0.5, "stream": true,
        "metadata": {"user_id": "u"}
    });
    let mut count_body = messages_body.clone();
    count_body.as_object_mut().unwrap().remove("max_tokens");
    vec![
        (responses as Parser, responses_body),
        (
            responses,
            json!({"model": "m", "input": "hi", "tool_choice": "auto"}),
        ),
        (messages, messages_body),
        (
            messages,
            json!({"model": "m", "max_tokens": 1, "system": "s", "messages": [{"role": "user", "content": "hi"}]}),
        ),
        (count_tokens, count_body),
    ]
}

/// Every base request, with the parser it goes to.
fn all_bases() -> Vec<(Parser, Value)> {
    let mut all: Vec<(Parser, Value)> = bases().into_iter().map(|b| (chat as Parser, b)).collect();
    all.extend(other_bases());
    all
}

fn assert_clean(parse: Parser, body: &[u8], counts: &mut (usize, usize)) {
    match parse(body) {
        Ok(()) => counts.0 += 1,
        Err(e) => {
            counts.1 += 1;
            for text in [
                Some(e.message.as_str()),
                e.param.as_deref(),
                Some(&e.to_string()),
            ]
            .into_iter()
            .flatten()
            {
                assert!(
                    !text.contains(CANARY) && !text.contains("7f3a"),
                    "echoed a request value: {text:?}\nbody: {}",
                    String::from_utf8_lossy(body)
                );
            }
        }
    }
}

#[test]
fn canary_in_every_value_position_is_never_echoed() {
    let mut counts = (0, 0);
    for (parse, base) in all_bases() {
        assert_eq!(
            parse(&serde_json::to_vec(&base).unwrap()).map_err(|e| e.message),
            Ok(())
        );
        let mut all = Vec::new();
        pointers(&base, String::new(), &mut all);
        for pointer in &all {
            for poison in poisons() {
                let mut body = base.clone();
                if pointer.is_empty() {
                    body = poison.clone();
                } else {
                    *body.pointer_mut(pointer).unwrap() = poison.clone();
                }
                assert_clean(parse, &serde_json::to_vec(&body).unwrap(), &mut counts);

                // The same poison as an extra key of the object at this position.
                let mut body = base.clone();
                if let Some(Value::Object(map)) = body.pointer_mut(pointer) {
                    map.insert(CANARY.into(), poison.clone());
                    assert_clean(parse, &serde_json::to_vec(&body).unwrap(), &mut counts);
                }
            }
        }
    }
    let (ok, refused) = counts;
    assert!(refused > 500 && ok > 50, "ok {ok}, refused {refused}");
}

#[test]
fn canary_around_json_syntax_errors_is_never_echoed() {
    let mut counts = (0, 0);
    for (parse, base) in all_bases() {
        // The canary in every string, then the text cut or corrupted at every position.
        let text = serde_json::to_string(&base)
            .unwrap()
            .replace("\"secret", &format!("\"{CANARY}"));
        let text = text
            .replace("\"lookup\"", &format!("\"{CANARY}\""))
            .replace("\"call_1\"", &format!("\"{CANARY}\""));
        for cut in (0..text.len()).filter(|i| text.is_char_boundary(*i)) {
            assert_clean(parse, &text.as_bytes()[..cut], &mut counts);
            for insert in ["\"", "}", "]", ",", ":", "\\", "\u{1}", "nul", " 1 "] {
                let corrupted = format!("{}{insert}{}", &text[..cut], &text[cut..]);
                assert_clean(parse, corrupted.as_bytes(), &mut counts);
            }
        }
    }
    assert!(counts.1 > 1_000);
}

#[test]
fn canary_in_named_rules_is_never_echoed() {
    let bodies = [
        json!({"model": "m", "messages": [{"role": CANARY, "content": "x"}]}),
        json!({"model": "m", "messages": [{"role": "user", "content": [{"type": CANARY, "text": "x"}]}]}),
        json!({"model": "m", "messages": [{"role": "user", "content": "x"}], "tool_choice": CANARY}),
        json!({"model": "m", "messages": [{"role": "user", "content": "x"}],
               "tools": [{"type": "function", "function": {"name": "ok"}}],
               "tool_choice": {"type": "function", "function": {"name": CANARY}}}),
        json!({"model": "m", "messages": [{"role": "user", "content": "x"}],
               "tools": [{"type": "function", "function": {"name": format!("{CANARY}.x")}}]}),
        json!({"model": "m", "messages": [{"role": "user", "content": "x"}],
               "tools": [{"type": CANARY, "function": {"name": "f"}}]}),
        json!({"model": "m", "messages": [{"role": "user", "content": "x"}], "response_format": {"type": CANARY}}),
        json!({"model": "m", "messages": [{"role": "user", "content": "x"}], "stop": [CANARY, CANARY, CANARY, CANARY, CANARY]}),
        json!({"model": "m", "messages": [{"role": "user", "content": [
            {"type": "image_url", "image_url": {"url": format!("https://{CANARY}.test/x.png")}}]}]}),
        json!({"model": "m", "messages": [{"role": "user", "content": [
            {"type": "image_url", "image_url": {"url": format!("data:image/png;base64,{CANARY}")}}]}]}),
        json!({"model": "m", "messages": [{"role": "user", "content": [
            {"type": "image_url", "image_url": {"url": format!("{CANARY}:foo")}}]}]}),
        json!({"model": "m", "messages": [{"role": "system", "content": [
            {"type": "image_url", "image_url": {"url": format!("data:image/png;base64,{CANARY}")}}]}]}),
        json!({"model": "m", "messages": [{"role": "assistant", "content": null, "tool_calls": [
            {"id": CANARY, "type": CANARY, "function": {"name": CANARY, "arguments": CANARY}}]}]}),
        json!({"model": CANARY, "messages": []}),
        json!({"model": CANARY, "messages": CANARY}),
        json!({"model": "m", "messages": [{"role": "user", "content": CANARY, "tool_call_id": CANARY}]}),
        json!({"model": "m", "messages": [{"role": "tool", "content": CANARY, "name": CANARY}]}),
    ];
    let mut counts = (0, 0);
    for body in bodies {
        assert_clean(chat, &serde_json::to_vec(&body).unwrap(), &mut counts);
    }
    assert_eq!(counts.0, 0, "every body above is invalid");
}
