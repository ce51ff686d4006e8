use serde_json::{json, Value};

use super::token_bound::{json_render_bound, string_render_bound};
use super::*;
use crate::parse::parse_chat_request;

const PNG: &str = "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";

fn parse(body: &Value) -> ChatCompletionRequest {
    parse_chat_request(&serde_json::to_vec(body).unwrap()).unwrap()
}

/// A request using every field, in the shapes the official SDKs send.
fn full_request() -> Value {
    json!({
        "model": "large-27b-uncensored",
        "messages": [
            {"role": "system", "content": "You are terse."},
            {"role": "developer", "content": [{"type": "text", "text": "Answer in English."}]},
            {"role": "user", "name": "alice", "content": [
                {"type": "text", "text": "What is in this image, and what's the weather?"},
                {"type": "image_url", "image_url": {"url": PNG, "detail": "high"}}
            ]},
            {"role": "assistant", "content": null, "tool_calls": [
                {"id": "call_abc", "type": "function",
                 "function": {"name": "get_weather", "arguments": "{\"city\":\"Paris\",\"unit\":\"c\"}"}}
            ]},
            {"role": "tool", "tool_call_id": "call_abc", "content": "{\"temp\": 21}"},
            {"role": "assistant", "content": "A cat; 21 °C in Paris."}
        ],
        "tools": [{"type": "function", "function": {
            "name": "get_weather", "description": "Current weather", "strict": true,
            "parameters": {"type": "object",
                           "properties": {"zeta": {"type": "string"}, "city": {"type": "string"},
                                          "unit": {"type": "string", "enum": ["c", "f"]}},
                           "required": ["city"], "additionalProperties": false}
        }}],
        "tool_choice": {"type": "function", "function": {"name": "get_weather"}},
        "parallel_tool_calls": true,
        "stream": true,
        "stream_options": {"include_usage": true},
        "temperature": 0.7,
        "top_p": 0.95,
        "max_tokens": 256,
        "max_completion_tokens": 128,
        "stop": ["\n\nUser:"],
        "seed": 42,
        "n": 1,
        "presence_penalty": 0.5,
        "frequency_penalty": -0.5,
        "response_format": {"type": "json_schema", "json_schema": {"name": "w", "schema": {"type": "object", "properties": {"b": {}, "a": {}}}}},
        "reasoning_effort": "medium",
        "user": "end-user-1"
    })
}

#[test]
fn round_trip_keeps_every_field() {
    let body = full_request();
    let parsed = parse(&body);
    let again = serde_json::to_value(&parsed).unwrap();
    assert_eq!(again, body);
    // Key order inside schemas is kept (it steers generation).
    let text = serde_json::to_string(&parsed).unwrap();
    assert!(text.find("\"zeta\"").unwrap() < text.find("\"city\"").unwrap());
    assert!(text.find("\"b\":{}").unwrap() < text.find("\"a\":{}").unwrap());
    assert_eq!(parse(&again), parsed);
}

#[test]
fn round_trip_leaves_out_what_was_absent() {
    let body = json!({"model": "m", "messages": [{"role": "user", "content": "hi"}]});
    assert_eq!(serde_json::to_value(parse(&body)).unwrap(), body);
    // Unknown fields are dropped, explicit nulls read as absent.
    let body = json!({"model": "m", "messages": [{"role": "user", "content": "hi", "refusal": null}],
                      "store": true, "metadata": {"k": "v"}, "temperature": null});
    assert_eq!(
        serde_json::to_value(parse(&body)).unwrap(),
        json!({"model": "m", "messages": [{"role": "user", "content": "hi"}]})
    );
    // An empty `tool_calls` is not written back.
    let body = json!({"model": "m", "messages": [{"role": "assistant", "content": "x", "tool_calls": []}]});
    assert_eq!(
        serde_json::to_value(parse(&body)).unwrap(),
        json!({"model": "m", "messages": [{"role": "assistant", "content": "x"}]})
    );
}

#[test]
fn assistant_tool_call_message_without_content_writes_null() {
    let body = json!({"model": "m", "messages": [
        {"role": "user", "content": "hi"},
        {"role": "assistant", "tool_calls": [{"id": "c", "function": {"name": "f", "arguments": "{}"}}]}
    ]});
    assert_eq!(
        serde_json::to_value(parse(&body)).unwrap()["messages"][1],
        json!({"role": "assistant", "content": null,
               "tool_calls": [{"id": "c", "type": "function", "function": {"name": "f", "arguments": "{}"}}]})
    );
}

#[test]
fn helpers() {
    let full = parse(&full_request());
    assert!(full.has_image_parts());
    assert_eq!(full.max_output_tokens(), Some(128));
    assert!(full.wants_usage_in_stream());
    assert!(full.is_stream());

    let plain = parse(
        &json!({"model": "m", "messages": [{"role": "user", "content": "hi"}], "max_tokens": 9}),
    );
    assert!(!plain.has_image_parts());
    assert_eq!(plain.max_output_tokens(), Some(9));
    assert!(!plain.wants_usage_in_stream());

    let no_stream = parse(
        &json!({"model": "m", "messages": [{"role": "user", "content": "hi"}],
                                  "stream": false, "stream_options": {"include_usage": true}}),
    );
    assert!(!no_stream.wants_usage_in_stream());
    assert_eq!(no_stream.max_output_tokens(), None);

    let mut dev = parse(
        &json!({"model": "m", "messages": [{"role": "developer", "content": "x"},
                                                          {"role": "user", "content": "y"}]}),
    );
    assert!(dev.messages[0].role.is_system());
    dev.developer_as_system();
    assert_eq!(dev.messages[0].role, Role::System);
    assert_eq!(dev.messages[1].role, Role::User);
}

// ---- the prompt token bound

#[test]
fn bound_covers_every_text_byte_plus_allowances() {
    let text = "héllo wörld ✓ ".repeat(100);
    let req = parse(&json!({"model": "m", "messages": [
        {"role": "system", "content": text},
        {"role": "user", "content": [{"type": "text", "text": text}, {"type": "image_url", "image_url": {"url": PNG}}]}
    ]}));
    let bytes = 2 * text.len() as u64;
    let expected = TEMPLATE_TOKEN_ALLOWANCE
        + 2 * MESSAGE_TOKEN_ALLOWANCE
        + 3 * CONTENT_PART_TOKEN_ALLOWANCE
        + bytes
        + IMAGE_TOKEN_ALLOWANCE;
    assert_eq!(req.prompt_token_upper_bound(), expected);
}

#[test]
fn bound_counts_the_image_not_its_data_url() {
    let big = format!("data:image/png;base64,{}", "A".repeat(400_000));
    let req = parse(&json!({"model": "m", "messages": [
        {"role": "user", "content": [{"type": "image_url", "image_url": {"url": big}}]}]}));
    assert!(req.prompt_token_upper_bound() < IMAGE_TOKEN_ALLOWANCE + 1_000);
}

#[test]
fn bound_covers_tools_rendered_by_any_template() {
    let full = parse(&full_request());
    let tools = full.tools.as_ref().unwrap();
    let compact = serde_json::to_string(&tools[0]).unwrap().len() as u64;
    let pretty = {
        let mut out = Vec::new();
        let fmt = serde_json::ser::PrettyFormatter::with_indent(b"    ");
        let mut ser = serde_json::Serializer::with_formatter(&mut out, fmt);
        serde::Serialize::serialize(&tools[0], &mut ser).unwrap();
        out.len() as u64
    };
    let rendered = json_render_bound(&serde_json::to_value(&tools[0]).unwrap(), 0);
    assert!(
        rendered >= pretty && pretty > compact,
        "{rendered} {pretty} {compact}"
    );
    assert!(full.prompt_token_upper_bound() > TOOLS_PREAMBLE_TOKEN_ALLOWANCE + rendered);

    let without = {
        let mut r = full.clone();
        r.tools = None;
        r
    };
    assert!(
        full.prompt_token_upper_bound()
            >= without.prompt_token_upper_bound() + compact + TOOL_TOKEN_ALLOWANCE
    );
}

#[test]
fn bound_never_below_byte_length_of_any_rendering() {
    // Escaping renderings of the strings templates print through `tojson`.
    let samples = [
        "plain",
        "quote \" and \\",
        "<b>&'</b>",
        "tab\tnew\nline\u{1}",
        "é ✓ 😀",
        "",
    ];
    for s in samples {
        let bound = string_render_bound(s);
        let utf8 = serde_json::to_string(s).unwrap().len() as u64;
        let ascii: u64 = 2 + s
            .encode_utf16()
            .map(|u| match u {
                0x22 | 0x5c => 2,
                0x20..0x80 => 1,
                _ => 6,
            })
            .sum::<u64>();
        assert!(
            bound >= utf8 && bound >= ascii && bound >= s.len() as u64,
            "{s:?}"
        );
    }
}

#[test]
fn bound_covers_tool_calls_and_tool_results() {
    let args = "{\"query\": \"<div class='x'>\", \"n\": [1, 2, 3]}";
    let result = "<html>".repeat(50);
    let req = parse(&json!({"model": "m", "messages": [
        {"role": "user", "content": "go"},
        {"role": "assistant", "tool_calls": [{"id": "call_1", "function": {"name": "search", "arguments": args}}]},
        {"role": "tool", "tool_call_id": "call_1", "content": result}
    ]}));
    let bound = req.prompt_token_upper_bound();
    assert!(
        bound
            >= string_render_bound(args)
                + string_render_bound(&result)
                + 2 * TOOL_CALL_TOKEN_ALLOWANCE.min(1)
    );
    // `<` escapes to 6 bytes in HTML-safe encoders.
    assert_eq!(string_render_bound(&result), 2 + 50 * (6 + 4 + 6));
}

#[test]
fn bound_saturates_instead_of_overflowing() {
    let v = json!({"a": [[[[["x"]]]]]});
    assert!(json_render_bound(&v, u64::MAX / 8) > 0);
}

// ---- responses

#[test]
fn completion_shape() {
    let c = ChatCompletion::new(
        "chatcmpl-1",
        1_700_000_000,
        "large-27b-uncensored",
        ResponseMessage::assistant(
            None,
            Some(vec![ToolCall {
                id: "call_1".into(),
                r#type: ToolType::Function,
                function: FunctionCall {
                    name: "f".into(),
                    arguments: "{}".into(),
                },
            }]),
            None,
        ),
        FinishReason::ToolCalls,
        Usage::new(10, 5, Some(2)),
    );
    let v = serde_json::to_value(&c).unwrap();
    assert_eq!(
        v,
        json!({
            "id": "chatcmpl-1", "object": "chat.completion", "created": 1_700_000_000,
            "model": "large-27b-uncensored",
            "choices": [{"index": 0, "finish_reason": "tool_calls", "logprobs": null, "message": {
                "role": "assistant", "content": null,
                "tool_calls": [{"id": "call_1", "type": "function", "function": {"name": "f", "arguments": "{}"}}]
            }}],
            "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15,
                      "completion_tokens_details": {"reasoning_tokens": 2}}
        })
    );
    assert_eq!(serde_json::from_value::<ChatCompletion>(v).unwrap(), c);

    let thought = ResponseMessage::assistant(Some("4".into()), None, Some("2+2".into()));
    assert_eq!(
        serde_json::to_value(&thought).unwrap(),
        json!({"role": "assistant", "content": "4", "reasoning_content": "2+2"})
    );
}

#[test]
fn chunk_shapes() {
    let first = ChatCompletionChunk::delta(
        "chatcmpl-1",
        1,
        "m",
        Delta {
            role: Some(Role::Assistant),
            content: Some(String::new()),
            ..Default::default()
        },
        None,
    );
    assert_eq!(
        serde_json::to_value(&first).unwrap(),
        json!({"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1, "model": "m",
               "choices": [{"index": 0, "delta": {"role": "assistant", "content": ""},
                            "finish_reason": null, "logprobs": null}]})
    );

    let tool_piece = Delta {
        tool_calls: Some(vec![ToolCallDelta {
            index: 1,
            id: Some("call_2".into()),
            r#type: Some(ToolType::Function),
            function: Some(FunctionCallDelta {
                name: Some("f".into()),
                arguments: Some("{\"a\"".into()),
            }),
        }]),
        ..Default::default()
    };
    let v =
        serde_json::to_value(ChatCompletionChunk::delta("c", 1, "m", tool_piece, None)).unwrap();
    assert_eq!(
        v["choices"][0]["delta"],
        json!({"tool_calls": [{"index": 1, "id": "call_2", "type": "function",
                               "function": {"name": "f", "arguments": "{\"a\""}}]})
    );
    // Later pieces carry only the index and more arguments.
    let later: ToolCallDelta =
        serde_json::from_value(json!({"index": 1, "function": {"arguments": "}"}})).unwrap();
    assert_eq!(later.id, None);
    assert_eq!(later.function.unwrap().arguments.as_deref(), Some("}"));
    let bare: ToolCallDelta = serde_json::from_value(json!({"index": 0})).unwrap();
    assert_eq!(bare.function, None);

    let last = ChatCompletionChunk::usage_only("chatcmpl-1", 1, "m", Usage::new(3, 4, None));
    assert_eq!(
        serde_json::to_value(&last).unwrap(),
        json!({"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1, "model": "m",
               "choices": [], "usage": {"prompt_tokens": 3, "completion_tokens": 4, "total_tokens": 7}})
    );
}

#[test]
fn parses_upstream_chunks() {
    // What an OpenAI-compatible server streams (extra fields and nulls included).
    let chunk: ChatCompletionChunk = serde_json::from_value(json!({
        "id": "x", "object": "chat.completion.chunk", "created": 5, "model": "qwen", "system_fingerprint": null,
        "choices": [{"index": 0, "delta": {"content": "Hi", "reasoning_content": null}, "logprobs": null, "finish_reason": null}],
        "usage": null
    }))
    .unwrap();
    assert_eq!(chunk.choices[0].delta.content.as_deref(), Some("Hi"));
    assert_eq!(chunk.usage, None);
}

#[test]
fn cached_prompt_tokens_show_in_the_usage_block() {
    use crate::answer::Billed;
    use crate::worker::JobUsage;
    let report: JobUsage =
        serde_json::from_value(json!({"prompt_tokens": 9, "completion_tokens": 2})).unwrap();
    assert_eq!(report.cached_tokens, 0, "older workers send none");
    let report = JobUsage {
        cached_tokens: 12,
        ..report
    };
    let billed = Billed::new(report, 3);
    assert_eq!(billed.cached_tokens, 9, "never more than the prompt");
    let v = serde_json::to_value(Usage::billed(billed)).unwrap();
    assert_eq!(v["prompt_tokens_details"], json!({"cached_tokens": 9}));
    assert_eq!(v["prompt_tokens"], 9);
    let none = serde_json::to_value(Usage::billed(Billed::new(JobUsage::default(), 1))).unwrap();
    assert!(none.get("prompt_tokens_details").is_none(), "{none}");
    let wire = serde_json::to_value(JobUsage::default()).unwrap();
    assert!(wire.get("cached_tokens").is_none(), "{wire}");
}
