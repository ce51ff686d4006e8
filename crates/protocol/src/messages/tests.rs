use serde_json::{json, Value};

use super::*;
use crate::answer::pieces::{call, done, golden, golden_pair, text, thought};
use crate::answer::{parse_sse, Failure, Piece};
use crate::codes::{ErrorCode, FinishReason};
use crate::cost::UsdOfCredits;
use crate::parse::{parse_chat_request, InvalidRequest};
use crate::worker::JobRequest;

const PNG_DATA: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";

fn with(extra: Value) -> Value {
    let mut body =
        json!({"model": "m", "max_tokens": 64, "messages": [{"role": "user", "content": "hi"}]});
    for (k, v) in extra.as_object().unwrap() {
        body[k] = v.clone();
    }
    body
}

fn turns(messages: Value) -> Value {
    with(json!({ "messages": messages }))
}

fn parse(body: &Value) -> Result<MessagesRequest, InvalidRequest> {
    parse_messages_request(body.to_string().as_bytes())
}

fn verdict(body: &Value) -> Result<(), Option<String>> {
    parse(body).map(|_| ()).map_err(|e| e.param)
}

fn tool(name: &str) -> Value {
    json!({"name": name, "description": "d", "input_schema": {"type": "object", "properties": {"city": {"type": "string"}}}})
}

fn image() -> Value {
    json!({"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": PNG_DATA}})
}

#[test]
fn accepted_bodies() {
    let ok = [
        with(json!({})),
        with(
            json!({"system": "be brief", "stop_sequences": ["END"], "temperature": 1, "top_p": 0.9,
                    "metadata": {"user_id": "u"}, "stream": true, "service_tier": "auto",
                    "thinking": {"type": "enabled", "budget_tokens": 1024}, "mcp_servers": [],
                    "output_config": {"effort": "low", "format": {"type": "json_schema", "schema": {"type": "object"}}}}),
        ),
        with(
            json!({"system": [{"type": "text", "text": "be brief", "cache_control": {"type": "ephemeral"}}]}),
        ),
        with(json!({"thinking": {"type": "adaptive"}})),
        with(
            json!({"tools": [tool("get"), {"type": "custom", "name": "put", "input_schema": {"type": "object"}}],
                    "tool_choice": {"type": "tool", "name": "get", "disable_parallel_tool_use": true}}),
        ),
        with(json!({"tools": [tool("get")], "tool_choice": {"type": "any"}})),
        with(json!({"tool_choice": {"type": "none"}})),
        turns(json!([
            {"role": "user", "content": [{"type": "text", "text": "what is it?"}, image()]},
            {"role": "assistant", "content": [
                {"type": "thinking", "thinking": "hm", "signature": "sig"},
                {"type": "redacted_thinking", "data": "xx"},
                {"type": "text", "text": "checking"},
                {"type": "tool_use", "id": "toolu_1", "name": "get", "input": {"city": "Paris"}}]},
            {"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": "toolu_1", "content": "sunny"},
                {"type": "tool_result", "tool_use_id": "toolu_2", "content": [{"type": "text", "text": "x"}], "is_error": true},
                {"type": "tool_result", "tool_use_id": "toolu_3"},
                {"type": "text", "text": "thanks"}]}
        ])),
    ];
    for body in ok {
        assert_eq!(verdict(&body), Ok(()), "{body}");
    }
}

#[test]
fn refused_bodies_name_their_field() {
    let cases = [
        (
            json!({"max_tokens": 5, "messages": [{"role": "user", "content": "hi"}]}),
            "model",
        ),
        (
            json!({"model": "m", "messages": [{"role": "user", "content": "hi"}]}),
            "max_tokens",
        ),
        (with(json!({"max_tokens": 0})), "max_tokens"),
        // serde would read a struct from an array; an object field must be an object.
        (with(json!({"thinking": ["enabled", 1024]})), "thinking"),
        (with(json!({"metadata": ["someone"]})), "metadata"),
        (json!({"model": "m", "max_tokens": 5}), "messages"),
        (turns(json!([])), "messages"),
        (
            turns(json!([{"role": "tool", "content": "hi"}])),
            "messages[0].role",
        ),
        (
            turns(json!([{"role": "system", "content": [image()]}])),
            "messages[0].content[0]",
        ),
        (
            turns(json!([{"role": "user", "content": []}])),
            "messages[0].content",
        ),
        (
            turns(json!([{"role": "user", "content": 5}])),
            "messages[0].content",
        ),
        (
            turns(json!([{"role": "user", "content": [{"type": "text"}]}])),
            "messages[0].content[0].text",
        ),
        (
            turns(json!([{"role": "user", "content": [{"type": "document", "source": {}}]}])),
            "messages[0].content[0]",
        ),
        (
            turns(
                json!([{"role": "user", "content": [{"type": "image", "source": {"type": "url", "url": "https://x.example/a.png"}}]}]),
            ),
            "messages[0].content[0].source",
        ),
        (
            turns(
                json!([{"role": "user", "content": [{"type": "image", "source": {"type": "base64", "media_type": "image/svg+xml", "data": "PHN2Zz4="}}]}]),
            ),
            "messages[0].content[0].source",
        ),
        (
            turns(
                json!([{"role": "user", "content": [{"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "not base64!"}}]}]),
            ),
            "messages[0].content[0].source",
        ),
        (
            turns(
                json!([{"role": "user", "content": [{"type": "image", "source": {"type": "base64", "data": PNG_DATA}}]}]),
            ),
            "messages[0].content[0].source.media_type",
        ),
        (
            turns(json!([{"role": "assistant", "content": [image()]}])),
            "messages[0].content[0]",
        ),
        (
            turns(
                json!([{"role": "user", "content": [{"type": "tool_use", "id": "t", "name": "n", "input": {}}]}]),
            ),
            "messages[0].content[0]",
        ),
        (
            turns(
                json!([{"role": "assistant", "content": [{"type": "tool_use", "id": "t", "name": "n", "input": "{}"}]}]),
            ),
            "messages[0].content[0].input",
        ),
        (
            turns(
                json!([{"role": "assistant", "content": [{"type": "tool_use", "id": "", "name": "n", "input": {}}]}]),
            ),
            "messages[0].content[0].id",
        ),
        (
            turns(
                json!([{"role": "assistant", "content": [{"type": "tool_use", "name": "n", "input": {}}]}]),
            ),
            "messages[0].content[0].id",
        ),
        (
            turns(json!([{"role": "user", "content": [{"type": "tool_result", "content": "x"}]}])),
            "messages[0].content[0].tool_use_id",
        ),
        (
            turns(
                json!([{"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t", "content": [image()]}]}]),
            ),
            "messages[0].content[0].content[0]",
        ),
        (
            with(
                json!({"system": [{"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": PNG_DATA}}]}),
            ),
            "system[0]",
        ),
        (with(json!({"top_k": 40})), "top_k"),
        (with(json!({"temperature": 1.5})), "temperature"),
        (with(json!({"top_p": 0})), "top_p"),
        (
            with(json!({"stop_sequences": ["a", "b", "c", "d", "e"]})),
            "stop_sequences",
        ),
        (
            with(json!({"stop_sequences": ["a", ""]})),
            "stop_sequences[1]",
        ),
        (
            with(json!({"tools": [{"type": "web_search_20250305", "name": "web_search"}]})),
            "tools[0]",
        ),
        (
            with(json!({"tools": [{"name": "get"}]})),
            "tools[0].input_schema",
        ),
        (with(json!({"tools": [tool("a b")]})), "tools[0].name"),
        (
            with(json!({"tools": [tool("a"), tool("a")]})),
            "tools[1].name",
        ),
        (
            with(json!({"tools": [tool("a")], "tool_choice": {"type": "tool", "name": "b"}})),
            "tool_choice.name",
        ),
        (
            with(json!({"tools": [tool("a")], "tool_choice": {"type": "tool"}})),
            "tool_choice.name",
        ),
        (with(json!({"tool_choice": {"type": "any"}})), "tool_choice"),
        (
            with(json!({"tool_choice": {"type": "sometimes"}})),
            "tool_choice.type",
        ),
        (
            with(json!({"thinking": {"type": "maybe"}})),
            "thinking.type",
        ),
        (
            with(json!({"output_config": {"format": {"type": "json_schema"}}})),
            "output_config.format.schema",
        ),
        (with(json!({"container": "c"})), "container"),
        (
            with(json!({"mcp_servers": [{"type": "url", "url": "https://x", "name": "n"}]})),
            "mcp_servers",
        ),
    ];
    for (body, param) in cases {
        assert_eq!(verdict(&body), Err(Some(param.to_owned())), "{body}");
    }
}

#[test]
fn count_tokens_needs_no_max_tokens() {
    let body = json!({"model": "m", "messages": [{"role": "user", "content": "hi"}]});
    assert!(parse_count_tokens_request(body.to_string().as_bytes()).is_ok());
    assert_eq!(
        parse_count_tokens_request(b"{\"model\":\"m\"}")
            .unwrap_err()
            .param
            .as_deref(),
        Some("messages")
    );
}

#[test]
fn messages_say_why_without_echoing_values() {
    let err = parse(&with(
        json!({"tools": [{"type": "SECRET_20250101", "name": "SECRET"}]}),
    ))
    .unwrap_err();
    assert!(err.message.contains("server tool"), "{}", err.message);
    assert!(!err.message.contains("SECRET"));
    let err = parse(&turns(json!([{"role": "user", "content": [{"type": "image", "source": {"type": "url", "url": "https://SECRET.example"}}]}]))).unwrap_err();
    assert!(err.message.contains("never fetched"), "{}", err.message);
    assert!(!err.message.contains("SECRET"));
    let err = parse(&with(json!({"top_k": "SECRET"}))).unwrap_err();
    assert!(!err.message.contains("SECRET"), "{}", err.message);
}

#[test]
fn every_field_name_has_a_described_path() {
    crate::parse::json_error::assert_described(
        &validate::VOCABULARY,
        &[
            "model",
            "messages",
            "system",
            "max_tokens",
            "stop_sequences",
            "temperature",
            "top_p",
            "top_k",
            "tools[].description",
            "tools[].input_schema",
            "tool_choice.type",
            "tool_choice.disable_parallel_tool_use",
            "thinking.budget_tokens",
            "output_config.effort",
            "output_config.format.schema",
            "metadata.user_id",
            "stream",
            "mcp_servers",
            "messages[].role",
            "messages[].content",
            "messages[].content[].type",
            "messages[].content[].text",
            "messages[].content[].source.media_type",
            "messages[].content[].source.data",
            "messages[].content[].id",
            "messages[].content[].name",
            "messages[].content[].input",
            "messages[].content[].tool_use_id",
            "messages[].content[].is_error",
        ],
    );
}

fn chat_job(chat: Value) -> JobRequest {
    let req = parse_chat_request(chat.to_string().as_bytes()).expect("valid chat body");
    JobRequest::from_chat(req, 100)
}

fn messages_job(body: Value) -> JobRequest {
    let chat = parse(&body).expect("valid messages body").into_chat();
    chat.validate()
        .expect("a translated request is a valid chat request");
    JobRequest::from_chat(chat, 100)
}

#[test]
fn a_plain_conversation_is_the_chat_one() {
    assert_eq!(
        messages_job(with(
            json!({"system": "be brief", "temperature": 0.5, "top_p": 0.9,
            "stop_sequences": ["END"], "metadata": {"user_id": "alice"}})
        )),
        chat_job(
            json!({"model": "m", "max_completion_tokens": 64, "temperature": 0.5, "top_p": 0.9,
            "stop": ["END"], "messages": [{"role": "system", "content": "be brief"}, {"role": "user", "content": "hi"}]})
        )
    );
}

#[test]
fn a_tool_round_trip_is_the_chat_one() {
    let messages = with(json!({
    "system": [{"type": "text", "text": "use tools"}],
    "tools": [tool("get_weather")],
    "tool_choice": {"type": "auto", "disable_parallel_tool_use": true},
    "thinking": {"type": "enabled", "budget_tokens": 2048},
    "messages": [
        {"role": "user", "content": [{"type": "text", "text": "weather here?"}, image()]},
        {"role": "assistant", "content": [
            {"type": "thinking", "thinking": "hm", "signature": ""},
            {"type": "text", "text": "checking"},
            {"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": {"city": "Paris"}},
            {"type": "tool_use", "id": "toolu_2", "name": "get_weather", "input": {}}]},
        {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "toolu_1", "content": "sunny"},
            {"type": "tool_result", "tool_use_id": "toolu_2", "content": [{"type": "text", "text": "no city"}], "is_error": true},
            {"type": "text", "text": "and tomorrow?"}]},
        {"role": "assistant", "content": [{"type": "thinking", "thinking": "only thinking", "signature": ""}]},
        {"role": "system", "content": [{"type": "text", "text": "be brief now"}]},
        {"role": "assistant", "content": "Rain."}
    ]}));
    let chat = json!({"model": "m", "max_completion_tokens": 64, "tool_choice": "auto", "parallel_tool_calls": false,
    "tools": [{"type": "function", "function": {"name": "get_weather", "description": "d",
               "parameters": {"type": "object", "properties": {"city": {"type": "string"}}}}}],
    "messages": [
        {"role": "system", "content": [{"type": "text", "text": "use tools"}]},
        {"role": "user", "content": [{"type": "text", "text": "weather here?"},
            {"type": "image_url", "image_url": {"url": format!("data:image/png;base64,{PNG_DATA}")}}]},
        {"role": "assistant", "content": [{"type": "text", "text": "checking"}], "tool_calls": [
            {"id": "toolu_1", "type": "function", "function": {"name": "get_weather", "arguments": "{\"city\":\"Paris\"}"}},
            {"id": "toolu_2", "type": "function", "function": {"name": "get_weather", "arguments": "{}"}}]},
        {"role": "tool", "tool_call_id": "toolu_1", "content": "sunny"},
        {"role": "tool", "tool_call_id": "toolu_2", "content": [{"type": "text", "text": "Error:"}, {"type": "text", "text": "no city"}]},
        {"role": "user", "content": [{"type": "text", "text": "and tomorrow?"}]},
        {"role": "system", "content": [{"type": "text", "text": "be brief now"}]},
        {"role": "assistant", "content": "Rain."}
    ]});
    assert_eq!(messages_job(messages), chat_job(chat));
}

#[test]
fn choices_formats_and_errors_map_to_chat_fields() {
    let job = messages_job(with(
        json!({"tools": [tool("a")], "tool_choice": {"type": "any"},
        "output_config": {"effort": "high", "format": {"type": "json_schema", "schema": {"type": "object"}}},
        "messages": [{"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t", "content": "boom", "is_error": true}]}]}),
    ));
    assert_eq!(serde_json::to_value(&job.tool_choice).unwrap(), "required");
    assert_eq!(job.parallel_tool_calls, None);
    assert_eq!(job.reasoning_effort.as_deref(), Some("high"));
    assert_eq!(
        serde_json::to_value(&job.response_format).unwrap(),
        json!({"type": "json_schema", "json_schema": {"name": "output", "schema": {"type": "object"}}})
    );
    assert_eq!(
        serde_json::to_value(&job.messages[0].content).unwrap(),
        json!(format!("{TOOL_ERROR_PREFIX}boom"))
    );
    let job = messages_job(with(
        json!({"tools": [tool("a")], "tool_choice": {"type": "tool", "name": "a"}}),
    ));
    assert_eq!(
        serde_json::to_value(&job.tool_choice).unwrap(),
        json!({"type": "function", "function": {"name": "a"}})
    );
    let job = messages_job(with(json!({"tool_choice": {"type": "none"}})));
    assert_eq!(serde_json::to_value(&job.tool_choice).unwrap(), "none");
}

#[test]
fn the_caller_identity_never_reaches_the_job() {
    let job = messages_job(with(json!({"metadata": {"user_id": "USER-CANARY"}})));
    assert!(!serde_json::to_string(&job).unwrap().contains("CANARY"));
}

#[test]
fn error_types_follow_the_status() {
    for (status, kind) in [
        (400, "invalid_request_error"),
        (401, "authentication_error"),
        (402, "billing_error"),
        (403, "permission_error"),
        (404, "not_found_error"),
        (405, "invalid_request_error"),
        (413, "invalid_request_error"),
        (415, "invalid_request_error"),
        (429, "rate_limit_error"),
        (500, "api_error"),
        (502, "api_error"),
        (503, "overloaded_error"),
        (504, "timeout_error"),
    ] {
        let body = MessagesErrorBody::new(MessagesErrorType::for_status(status), "m");
        assert_eq!(
            serde_json::to_value(&body).unwrap(),
            json!({"type": "error", "error": {"type": kind, "message": "m"}}),
            "{status}"
        );
    }
}

// ---- rendering -------------------------------------------------------------------------------

/// The SSE bytes of a whole stream, and the final message; the same pieces rendered whole
/// give the same message.
fn stream(pieces: Vec<Piece>) -> (Vec<u8>, Message) {
    let mut r = MessageRenderer::new("msg_0001".into(), "large-27b-uncensored".into(), true);
    let mut whole = MessageRenderer::new("msg_0001".into(), "large-27b-uncensored".into(), false);
    let mut out = r.start();
    assert!(whole.start().is_empty());
    for p in pieces {
        assert!(whole.push(p.clone()).is_empty());
        out.extend(r.push(p));
    }
    assert_eq!(whole.message(), r.message(), "streamed and whole agree");
    (out, r.message().clone())
}

/// What every stream must satisfy: message_start then ping first; blocks numbered in order,
/// each started before its deltas and stopped after them, one open at a time; the deltas add
/// up to the final blocks; a complete stream ends with message_delta and message_stop, a
/// failed one with one error event.
fn check_stream(bytes: &[u8], message: &Message) -> Vec<(String, Value)> {
    let events = parse_sse(bytes);
    for (name, data) in &events {
        assert_eq!(&data["type"], name, "event name = type");
    }
    assert_eq!(events[0].0, "message_start");
    assert_eq!(events[0].1["message"]["content"], json!([]));
    assert_eq!(events[0].1["message"]["stop_reason"], Value::Null);
    assert_eq!(events[1].0, "ping");
    let mut open: Option<u64> = None;
    let mut blocks: Vec<Value> = Vec::new();
    let mut args: Vec<String> = Vec::new();
    let mut end = events.len();
    for (k, (name, data)) in events.iter().enumerate().skip(2) {
        match name.as_str() {
            "content_block_start" => {
                assert_eq!(open, None, "one block at a time");
                assert_eq!(data["index"], blocks.len() as u64);
                open = Some(blocks.len() as u64);
                blocks.push(data["content_block"].clone());
                args.push(String::new());
            }
            "content_block_delta" => {
                let i = data["index"].as_u64().unwrap();
                assert_eq!(open, Some(i));
                let block = &mut blocks[i as usize];
                let d = &data["delta"];
                match d["type"].as_str().unwrap() {
                    "text_delta" => {
                        block["text"] = json!(format!(
                            "{}{}",
                            block["text"].as_str().unwrap(),
                            d["text"].as_str().unwrap()
                        ))
                    }
                    "thinking_delta" => {
                        block["thinking"] = json!(format!(
                            "{}{}",
                            block["thinking"].as_str().unwrap(),
                            d["thinking"].as_str().unwrap()
                        ))
                    }
                    "input_json_delta" => {
                        args[i as usize].push_str(d["partial_json"].as_str().unwrap())
                    }
                    other => panic!("unexpected delta {other}"),
                }
            }
            "content_block_stop" => {
                assert_eq!(open, data["index"].as_u64());
                open = None;
            }
            _ => {
                end = k;
                break;
            }
        }
    }
    let failed = events.last().is_some_and(|(n, _)| n == "error");
    assert!(open.is_none() || failed, "every block is stopped");
    for (i, block) in blocks.iter_mut().enumerate() {
        if block["type"] == "tool_use" && !args[i].is_empty() {
            block["input"] = serde_json::from_str(&args[i]).unwrap_or(json!({}));
        }
    }
    assert_eq!(
        json!(blocks),
        serde_json::to_value(&message.content).unwrap(),
        "deltas add up"
    );
    let tail: Vec<&str> = events[end..].iter().map(|(n, _)| n.as_str()).collect();
    if tail == ["error"] {
        assert_eq!(events[end].1["type"], "error");
    } else {
        assert_eq!(tail, ["message_delta", "message_stop"]);
        let delta = &events[end].1;
        assert_eq!(
            delta["delta"]["stop_reason"],
            serde_json::to_value(message.stop_reason).unwrap()
        );
        assert_eq!(delta["usage"]["output_tokens"], message.usage.output_tokens);
        assert_eq!(delta["usage"]["input_tokens"], message.usage.input_tokens);
    }
    events
}

#[test]
fn a_text_answer_streams_as_one_text_block() {
    let (bytes, message) = stream(vec![
        text("Hello"),
        text(" world"),
        done(FinishReason::Stop, 7, 2, 0),
    ]);
    let events = check_stream(&bytes, &message);
    assert_eq!(events.len(), 8);
    assert_eq!(
        message.content,
        [ContentBlock::Text {
            text: "Hello world".into()
        }]
    );
    assert_eq!(message.stop_reason, Some(StopReason::EndTurn));
    assert_eq!(
        message.usage,
        MessageUsage {
            input_tokens: 7,
            output_tokens: 2,
            cost: Some(2),
            cost_usd: Some(UsdOfCredits(2)),
            ..Default::default()
        }
    );
    golden_pair("messages_text", &bytes, &message);
}

#[test]
fn thinking_then_text_then_tool_use() {
    let (bytes, message) = stream(vec![
        thought("Need the"),
        thought(" weather."),
        text("Checking."),
        call(0, Some("call_1"), Some("get_weather"), ""),
        call(0, None, None, "{\"city\":"),
        call(0, None, None, "\"Paris\"}"),
        call(1, None, Some("get_weather"), ""),
        done(FinishReason::ToolCalls, 30, 12, 0),
    ]);
    check_stream(&bytes, &message);
    assert_eq!(
        message.content,
        [
            ContentBlock::Thinking {
                thinking: "Need the weather.".into(),
                signature: String::new()
            },
            ContentBlock::Text {
                text: "Checking.".into()
            },
            ContentBlock::ToolUse {
                id: "call_1".into(),
                name: "get_weather".into(),
                input: json!({"city": "Paris"})
            },
            ContentBlock::ToolUse {
                id: "toolu_0001_1".into(),
                name: "get_weather".into(),
                input: json!({})
            },
        ]
    );
    assert_eq!(message.stop_reason, Some(StopReason::ToolUse));
    golden_pair("messages_tool_use", &bytes, &message);
}

#[test]
fn stop_reasons() {
    for (pieces, want) in [
        (
            vec![text("a"), done(FinishReason::Length, 1, 1, 0)],
            StopReason::MaxTokens,
        ),
        (
            vec![text("a"), done(FinishReason::ContentFilter, 1, 1, 0)],
            StopReason::Refusal,
        ),
        (
            vec![
                call(0, Some("c"), Some("f"), "{}"),
                done(FinishReason::Stop, 1, 1, 0),
            ],
            StopReason::ToolUse,
        ),
        (vec![done(FinishReason::Stop, 1, 0, 0)], StopReason::EndTurn),
    ] {
        let (bytes, message) = stream(pieces);
        check_stream(&bytes, &message);
        assert_eq!(message.stop_reason, Some(want));
    }
    let (bytes, message) = stream(vec![text("Once"), done(FinishReason::Length, 3, 1, 0)]);
    golden_pair("messages_max_tokens", &bytes, &message);
}

#[test]
fn a_lost_worker_ends_the_stream_with_an_error_event() {
    let (bytes, message) = stream(vec![
        text("Half"),
        Piece::Failed(Failure::Worker(ErrorCode::WorkerLost)),
        text("ignored"),
    ]);
    let events = check_stream(&bytes, &message);
    let (name, data) = events.last().unwrap();
    assert_eq!(name, "error");
    assert_eq!(data["error"]["type"], "api_error");
    assert!(data["error"]["message"]
        .as_str()
        .unwrap()
        .contains("worker_lost"));
    let (timeout, _) = stream(vec![text("x"), Piece::Failed(Failure::Timeout)]);
    assert_eq!(
        parse_sse(&timeout).last().unwrap().1["error"]["type"],
        "timeout_error"
    );
    golden("messages_error.sse", &bytes);
}

#[test]
fn a_whole_message_writes_no_events() {
    let mut r = MessageRenderer::new("msg_0001".into(), "large-27b-uncensored".into(), false);
    assert!(r.start().is_empty());
    assert!(r.push(thought("hm")).is_empty());
    assert!(r.push(text("Hi")).is_empty());
    assert!(r
        .push(call(0, Some("c1"), Some("f"), "not json"))
        .is_empty());
    assert!(r.push(done(FinishReason::ToolCalls, 4, 3, 0)).is_empty());
    let object = serde_json::to_value(r.message()).unwrap();
    assert_eq!(
        object,
        json!({"id": "msg_0001", "type": "message", "role": "assistant", "model": "large-27b-uncensored",
               "content": [{"type": "thinking", "thinking": "hm", "signature": ""}, {"type": "text", "text": "Hi"},
                           {"type": "tool_use", "id": "c1", "name": "f", "input": {}}],
               "stop_reason": "tool_use", "stop_sequence": null,
               "usage": {"input_tokens": 4, "output_tokens": 3, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0,
                         "cost": 2, "cost_usd": "0.002"}})
    );
    golden(
        "messages_whole.json",
        &serde_json::to_vec_pretty(r.message()).unwrap(),
    );
}

/// The goldens the SDK checks (tests/e2e/test_api_shapes.py) answer a tool round trip with:
/// one `get_weather` call, streamed and whole.
#[test]
fn one_call_goldens() {
    let pieces = || {
        vec![
            call(0, Some("toolu_a"), Some("get_weather"), "{\"city\":"),
            call(0, None, None, "\"Paris\"}"),
            done(FinishReason::ToolCalls, 12, 5, 0),
        ]
    };
    let (bytes, message) = stream(pieces());
    check_stream(&bytes, &message);
    golden_pair("messages_one_call", &bytes, &message);
}

#[test]
fn a_keep_alive_ping_only_on_a_stream() {
    let mut r = MessageRenderer::new("msg_0001".into(), "m".into(), true);
    r.start();
    assert_eq!(
        r.ping(),
        b"event: ping\ndata: {\"type\":\"ping\"}\n\n".to_vec()
    );
    let mut whole = MessageRenderer::new("msg_0001".into(), "m".into(), false);
    assert!(whole.ping().is_empty());
}
