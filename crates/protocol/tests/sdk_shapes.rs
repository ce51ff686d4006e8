//! Requests as the official SDKs and common agent frameworks send them, byte for byte, and the
//! responses they expect back.

use serde_json::{json, Value};
use shoal_protocol::chat::{
    ChatCompletion, ChatCompletionChunk, ContentPart, MessageContent, Role, Stop, ToolChoice,
    ToolChoiceMode, Usage,
};
use shoal_protocol::parse_chat_request;

/// Parses, checks re-serialization gives back the same messages and tools, returns the request.
fn accept(body: &str) -> shoal_protocol::chat::ChatCompletionRequest {
    let req = parse_chat_request(body.as_bytes()).unwrap_or_else(|e| panic!("{e:?}"));
    let sent: Value = serde_json::from_str(body).unwrap();
    let again = serde_json::to_value(&req).unwrap();
    assert_eq!(again["messages"], normalize_messages(&sent["messages"]));
    assert_eq!(again.get("tools"), sent.get("tools"));
    req
}

/// What re-serialization is allowed to change: an explicit `content: null` stays, a missing
/// `content` on a tool-calling assistant message becomes `null`, and `type` is written on tool
/// calls.
fn normalize_messages(messages: &Value) -> Value {
    let mut messages = messages.clone();
    for m in messages.as_array_mut().unwrap() {
        let m = m.as_object_mut().unwrap();
        m.entry("content").or_insert(Value::Null);
        if let Some(Value::Array(calls)) = m.get_mut("tool_calls") {
            for c in calls {
                c.as_object_mut()
                    .unwrap()
                    .entry("type")
                    .or_insert(json!("function"));
            }
        }
    }
    messages
}

#[test]
fn python_sdk_plain() {
    // client.chat.completions.create(model=..., messages=[...])
    let req = accept(
        r#"{"messages":[{"role":"system","content":"You are a helpful assistant."},{"role":"user","content":"Hello!"}],"model":"service-pro"}"#,
    );
    assert_eq!(req.model, "service-pro");
    assert_eq!(req.messages[1].role, Role::User);
    assert!(!req.is_stream());
}

#[test]
fn python_sdk_stream_with_usage() {
    let req = accept(
        r#"{"messages":[{"role":"user","content":"Count to 3"}],"model":"large-27b-uncensored","max_completion_tokens":64,"stream":true,"stream_options":{"include_usage":true},"temperature":0.2}"#,
    );
    assert!(req.wants_usage_in_stream());
    assert_eq!(req.max_output_tokens(), Some(64));
}

#[test]
fn tool_round_trip() {
    // The second request of a tool loop, as the Python SDK serializes the assistant message it
    // got back (`message.model_dump(exclude_none=True)`-style) plus the tool result.
    let req = accept(
        r#"{
          "model": "large-27b-uncensored",
          "messages": [
            {"role": "user", "content": "What's the weather in Paris?"},
            {"role": "assistant", "content": null, "tool_calls": [
              {"id": "call_9f2", "type": "function", "function": {"name": "get_weather", "arguments": "{\"city\": \"Paris\"}"}}
            ]},
            {"role": "tool", "tool_call_id": "call_9f2", "content": "{\"temp_c\": 21, \"sky\": \"clear\"}"}
          ],
          "tools": [{
            "type": "function",
            "function": {
              "name": "get_weather",
              "description": "Get the current weather for a city",
              "parameters": {"type": "object", "properties": {"city": {"type": "string", "description": "City name"}}, "required": ["city"]}
            }
          }],
          "tool_choice": "auto",
          "parallel_tool_calls": false
        }"#,
    );
    assert_eq!(req.messages[1].tool_calls()[0].function.name, "get_weather");
    assert_eq!(req.messages[2].tool_call_id.as_deref(), Some("call_9f2"));
    assert_eq!(
        req.tool_choice,
        Some(ToolChoice::Mode(ToolChoiceMode::Auto))
    );
}

#[test]
fn langchain_style_tool_history() {
    // LangChain writes `content: ""` next to tool calls and sends n/stream/temperature always.
    let req = accept(
        r#"{"messages":[{"content":"Use the tool.","role":"user"},{"content":"","role":"assistant","tool_calls":[{"type":"function","id":"call_1","function":{"name":"multiply","arguments":"{\"a\": 2, \"b\": 3}"}}]},{"content":"6","role":"tool","tool_call_id":"call_1"}],"model":"large-27b-uncensored","stream":false,"n":1,"temperature":0.7,"tools":[{"type":"function","function":{"name":"multiply","description":"Multiply two integers.","parameters":{"properties":{"a":{"type":"integer"},"b":{"type":"integer"}},"required":["a","b"],"type":"object"}}}]}"#,
    );
    assert_eq!(req.n, Some(1));
}

#[test]
fn vision_with_data_url() {
    let req = accept(
        r#"{"model":"large-27b-uncensored","messages":[{"role":"user","content":[{"type":"text","text":"What's in this image?"},{"type":"image_url","image_url":{"url":"data:image/jpeg;base64,/9j/4AAQSkZJRgABAQAAAQABAAD/2wBDAAgGBgcGBQgHBwcJCQgKDBQNDAsLDBkSEw8UHRofHh0aHBwgJC4nICIsIxwcKDcpLDAxNDQ0Hyc5PTgyPC4zNDL/wAALCAABAAEBAREA/8QAFAABAAAAAAAAAAAAAAAAAAAACf/EABQQAQAAAAAAAAAAAAAAAAAAAAD/2gAIAQEAAD8AKp//2Q==","detail":"low"}}]}],"max_tokens":300}"#,
    );
    assert!(req.has_image_parts());
    let Some(MessageContent::Parts(parts)) = &req.messages[0].content else {
        panic!()
    };
    assert!(
        matches!(&parts[1], ContentPart::ImageUrl { image_url } if image_url.detail.as_deref() == Some("low"))
    );
}

#[test]
fn vision_with_remote_url_is_refused_saying_why() {
    let err = parse_chat_request(
        br#"{"model":"large-27b-uncensored","messages":[{"role":"user","content":[{"type":"text","text":"What's in this image?"},{"type":"image_url","image_url":{"url":"https://upload.wikimedia.org/cat.jpg"}}]}]}"#,
    )
    .unwrap_err();
    assert_eq!(
        err.param.as_deref(),
        Some("messages[0].content[1].image_url.url")
    );
    assert!(err.message.contains("remote image URLs are never fetched"));
    assert!(err.message.contains("data:image/"));
}

#[test]
fn js_sdk_extras_are_ignored() {
    // Fields this gateway does not use must not make a request fail, when they leave what
    // the caller receives unchanged (a non-empty `logit_bias` would not: tests/conformance.rs).
    let req = accept(
        r#"{"model":"service-swarm","messages":[{"role":"developer","content":"terse"},{"role":"user","content":"hi"}],"stop":"\n","logprobs":false,"top_logprobs":null,"logit_bias":{},"metadata":{"k":"v"},"store":false,"service_tier":"auto","modalities":["text"],"user":"abc","seed":7}"#,
    );
    assert_eq!(req.stop, Some(Stop::One("\n".into())));
    assert_eq!(req.user.as_deref(), Some("abc"));
    assert!(req.messages[0].role.is_system());
}

#[test]
fn responses_parse_in_the_sdk_shape() {
    // The OpenAI reference response, read back through our types and written out again.
    let completion = json!({
        "id": "chatcmpl-123", "object": "chat.completion", "created": 1677652288, "model": "large-27b-uncensored",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": "Hello there, how may I assist you today?"},
                     "logprobs": null, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 9, "completion_tokens": 12, "total_tokens": 21}
    });
    let parsed: ChatCompletion = serde_json::from_value(completion.clone()).unwrap();
    assert_eq!(serde_json::to_value(&parsed).unwrap(), completion);
    assert_eq!(parsed.usage, Usage::new(9, 12, None));

    let chunk = json!({"id": "chatcmpl-123", "object": "chat.completion.chunk", "created": 1694268190,
                       "model": "m", "choices": [{"index": 0, "delta": {"content": "Hello"}, "logprobs": null, "finish_reason": null}]});
    let parsed: ChatCompletionChunk = serde_json::from_value(chunk.clone()).unwrap();
    assert_eq!(serde_json::to_value(&parsed).unwrap(), chunk);
}
