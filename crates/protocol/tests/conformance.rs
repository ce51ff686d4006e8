//! What OpenAI accepts and Shoal must too (refusal parts, the legacy `function` role), and the
//! parameters Shoal cannot honour, refused by name rather than ignored.

use serde_json::{json, Value};
use shoal_protocol::chat::{ContentPart, MessageContent, Role};
use shoal_protocol::parse_chat_request;

fn parse(
    body: Value,
) -> Result<shoal_protocol::chat::ChatCompletionRequest, (Option<String>, String)> {
    parse_chat_request(body.to_string().as_bytes()).map_err(|e| (e.param, e.message))
}

fn request(messages: Value) -> Value {
    json!({"model": "m", "messages": messages})
}

#[test]
fn an_assistant_refusal_part_is_accepted_and_reaches_workers_as_text() {
    let mut req = parse(request(json!([
        {"role": "user", "content": "Do the thing"},
        {"role": "assistant", "content": [{"type": "refusal", "refusal": "I can't help with that."}], "refusal": null},
        {"role": "user", "content": "Why not?"},
    ])))
    .unwrap();
    let before = req.prompt_token_upper_bound();
    assert!(before >= "I can't help with that.".len() as u64);
    req.normalize_for_workers();
    let Some(MessageContent::Parts(parts)) = &req.messages[1].content else {
        panic!("parts expected");
    };
    assert_eq!(
        parts[0],
        ContentPart::Text {
            text: "I can't help with that.".into()
        }
    );
}

#[test]
fn refusal_parts_only_from_the_assistant_and_with_their_text() {
    let err = parse(request(json!([
        {"role": "user", "content": [{"type": "refusal", "refusal": "no"}]},
    ])))
    .unwrap_err();
    assert_eq!(err.0.as_deref(), Some("messages[0].content[0]"));
    assert!(err.1.contains("refusal parts"), "{}", err.1);
    let err = parse(request(json!([
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": [{"type": "refusal"}]},
    ])))
    .unwrap_err();
    assert_eq!(err.0.as_deref(), Some("messages[1].content[0].refusal"));
}

#[test]
fn legacy_function_calling_is_accepted_and_becomes_tool_calling() {
    let mut req = parse(request(json!([
        {"role": "user", "content": "Weather in Paris?"},
        {"role": "assistant", "content": null,
         "function_call": {"name": "get_weather", "arguments": "{\"city\":\"Paris\"}"}},
        {"role": "function", "name": "get_weather", "content": "sunny"},
        {"role": "function", "name": "get_time", "content": null},
    ])))
    .unwrap();
    let with_calls = req.prompt_token_upper_bound();
    req.normalize_for_workers();
    let call = &req.messages[1].tool_calls()[0];
    assert_eq!(call.id, "call_legacy_1");
    assert_eq!(call.function.name, "get_weather");
    assert!(req.messages[1].function_call.is_none());
    for m in &req.messages[2..] {
        assert_eq!(m.role, Role::Tool);
        assert_eq!(m.tool_call_id.as_deref(), Some("call_legacy_1"));
        assert!(m.content.is_some());
    }
    // The bound was taken before the rewrite and covers what the workers get.
    assert!(with_calls >= req.prompt_token_upper_bound());
}

#[test]
fn a_function_message_names_its_function() {
    let err = parse(request(json!([
        {"role": "user", "content": "hi"},
        {"role": "function", "content": "sunny"},
    ])))
    .unwrap_err();
    assert_eq!(err.0.as_deref(), Some("messages[1].name"));
    let err = parse(request(json!([
        {"role": "user", "content": "hi", "function_call": {"name": "f", "arguments": "{}"}},
    ])))
    .unwrap_err();
    assert_eq!(err.0.as_deref(), Some("messages[0].function_call"));
}

#[test]
fn parameters_that_cannot_be_honoured_are_refused_by_name() {
    let base = || request(json!([{"role": "user", "content": "hi"}]));
    let refused = [
        ("logprobs", json!(true)),
        ("top_logprobs", json!(3)),
        ("logit_bias", json!({"50256": -100})),
        ("modalities", json!(["text", "audio"])),
        ("audio", json!({"voice": "alloy", "format": "wav"})),
        ("functions", json!([{"name": "f", "parameters": {}}])),
        ("function_call", json!("auto")),
        ("web_search_options", json!({})),
    ];
    for (param, value) in refused {
        let mut body = base();
        body[param] = value;
        let (at, message) = parse(body).unwrap_err();
        assert_eq!(at.as_deref(), Some(param));
        assert!(message.starts_with(&format!("`{param}`")), "{message}");
        assert!(!message.contains("alloy"), "{message}");
    }
    let neutral = [
        ("logprobs", json!(false)),
        ("logprobs", json!(null)),
        ("top_logprobs", json!(0)),
        ("logit_bias", json!({})),
        ("logit_bias", json!(null)),
        ("modalities", json!(["text"])),
        ("audio", json!(null)),
        ("functions", json!(null)),
    ];
    for (param, value) in neutral {
        let mut body = base();
        body[param] = value.clone();
        assert!(parse(body).is_ok(), "{param}: {value}");
    }
}
