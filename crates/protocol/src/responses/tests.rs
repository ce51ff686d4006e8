use serde_json::{json, Value};

use super::*;
use crate::answer::pieces::{call, done, golden, golden_pair, text, thought};
use crate::answer::{parse_sse, Failure, Piece};
use crate::codes::{ErrorCode, FinishReason};
use crate::parse::parse_chat_request;
use crate::worker::JobRequest;

const PNG: &str = "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";

fn with(extra: Value) -> Value {
    let mut body = json!({"model": "m", "input": "hi"});
    for (k, v) in extra.as_object().unwrap() {
        body[k] = v.clone();
    }
    body
}

fn items(items: Value) -> Value {
    with(json!({ "input": items }))
}

fn parse(body: &Value) -> Result<ResponsesRequest, crate::parse::InvalidRequest> {
    parse_responses_request(body.to_string().as_bytes())
}

/// `Ok(())` for a valid body, else the `param` it names.
fn verdict(body: &Value) -> Result<(), Option<String>> {
    parse(body).map(|_| ()).map_err(|e| e.param)
}

fn fn_tool(name: &str) -> Value {
    json!({"type": "function", "name": name, "parameters": {"type": "object", "properties": {"city": {"type": "string"}}}})
}

#[test]
fn accepted_bodies() {
    let ok = [
        with(json!({})),
        items(json!([{"role": "user", "content": "hi"}])),
        items(
            json!([{"type": "message", "role": "developer", "content": [{"type": "input_text", "text": "be brief"}]}]),
        ),
        items(
            json!([{"role": "user", "content": [{"type": "input_text", "text": "what is it?"}, {"type": "input_image", "image_url": PNG, "detail": "auto"}]}]),
        ),
        items(json!([
            {"role": "user", "content": "weather?"},
            {"type": "message", "role": "assistant", "id": "msg_1", "status": "completed", "content": [{"type": "output_text", "text": "checking", "annotations": []}]},
            {"type": "reasoning", "id": "rs_1", "summary": [], "content": [{"type": "reasoning_text", "text": "hm"}]},
            {"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "get", "arguments": "{}", "status": "completed"},
            {"type": "function_call_output", "call_id": "call_1", "output": "sunny"},
            {"type": "item_reference", "id": "msg_0"}
        ])),
        with(
            json!({"tools": [fn_tool("get")], "tool_choice": {"type": "function", "name": "get"}}),
        ),
        with(
            json!({"tools": [fn_tool("get")], "tool_choice": "required", "parallel_tool_calls": false}),
        ),
        with(
            json!({"text": {"format": {"type": "json_schema", "name": "person", "schema": {"type": "object"}, "strict": true}, "verbosity": "low"}}),
        ),
        with(json!({"text": {"format": {"type": "json_object"}}})),
        with(
            json!({"tools": [fn_tool("a"), {"type": "namespace", "name": "ns", "description": "d", "tools": [fn_tool("b")]}],
                    "tool_choice": {"type": "function", "name": "b"}}),
        ),
        with(
            json!({"store": true, "include": ["reasoning.encrypted_content"], "truncation": "auto",
                    "metadata": {"a": "b"}, "user": "u", "safety_identifier": "s", "prompt_cache_key": "k",
                    "reasoning": {"effort": "low", "summary": "auto"}, "max_output_tokens": 16,
                    "temperature": 0.5, "top_p": 1, "stream": true, "background": false, "top_logprobs": 0,
                    "previous_response_id": null, "unknown_field": {"x": 1}}),
        ),
    ];
    for body in ok {
        assert_eq!(verdict(&body), Ok(()), "{body}");
    }
}

#[test]
fn refused_bodies_name_their_field() {
    let cases = [
        (json!({"input": "hi"}), "model"),
        (json!({"model": "m"}), "input"),
        (items(json!([])), "input"),
        (with(json!({"input": 5})), "input"),
        (
            with(json!({"previous_response_id": "resp_1"})),
            "previous_response_id",
        ),
        (with(json!({"conversation": "conv_1"})), "conversation"),
        // serde would read a struct from an array; an object field must be an object.
        (with(json!({"text": [null, null]})), "text"),
        (
            items(json!([{"type": null, "role": "user", "content": "hi"}])),
            "input[0].type",
        ),
        (with(json!({"reasoning": ["low"]})), "reasoning"),
        (with(json!({"background": true})), "background"),
        (with(json!({"prompt": {"id": "pmpt_1"}})), "prompt"),
        (with(json!({"top_logprobs": 2})), "top_logprobs"),
        (
            with(json!({"include": ["file_search_call.results", "message.output_text.logprobs"]})),
            "include[1]",
        ),
        (
            with(json!({"tools": [fn_tool("get"), {"type": "web_search"}]})),
            "tools[1]",
        ),
        (
            with(json!({"tools": [{"type": "function"}]})),
            "tools[0].name",
        ),
        (with(json!({"tools": [fn_tool("a b")]})), "tools[0].name"),
        (
            with(json!({"tools": [fn_tool("a"), fn_tool("a")]})),
            "tools[1].name",
        ),
        (
            with(
                json!({"tools": [fn_tool("a")], "tool_choice": {"type": "function", "name": "b"}}),
            ),
            "tool_choice.name",
        ),
        (with(json!({"tool_choice": "required"})), "tool_choice"),
        (
            with(json!({"tools": [fn_tool("a")], "tool_choice": {"type": "web_search"}})),
            "tool_choice",
        ),
        (with(json!({"tool_choice": "sometimes"})), "tool_choice"),
        (with(json!({"temperature": 3})), "temperature"),
        (with(json!({"top_p": 0})), "top_p"),
        (with(json!({"max_output_tokens": 0})), "max_output_tokens"),
        (with(json!({"max_output_tokens": -1})), "max_output_tokens"),
        (with(json!({"truncation": "middle"})), "truncation"),
        (
            with(json!({"text": {"format": {"type": "json_schema", "schema": {}}}})),
            "text.format.name",
        ),
        (
            with(json!({"text": {"format": {"type": "json_schema", "name": "x"}}})),
            "text.format.schema",
        ),
        (
            with(json!({"text": {"format": {"type": "json_schema", "name": "a.b", "schema": {}}}})),
            "text.format.name",
        ),
        (
            with(json!({"text": {"format": {"type": "yaml"}}})),
            "text.format.type",
        ),
        (items(json!([{"content": "hi"}])), "input[0].role"),
        (
            items(json!([{"role": "tool", "content": "hi"}])),
            "input[0].role",
        ),
        (items(json!([{"role": "user"}])), "input[0].content"),
        (
            items(json!([{"role": "user", "content": []}])),
            "input[0].content",
        ),
        (
            items(json!([{"role": "user", "content": [{"type": "input_file", "file_id": "f"}]}])),
            "input[0].content[0]",
        ),
        (
            items(json!([{"role": "user", "content": [{"type": "input_image", "file_id": "f"}]}])),
            "input[0].content[0].image_url",
        ),
        (
            items(
                json!([{"role": "user", "content": [{"type": "input_image", "image_url": "https://x.example/a.png"}]}]),
            ),
            "input[0].content[0].image_url",
        ),
        (
            items(
                json!([{"role": "system", "content": [{"type": "input_image", "image_url": PNG}]}]),
            ),
            "input[0].content[0]",
        ),
        (
            items(json!([{"role": "user", "content": [{"type": "refusal", "refusal": "no"}]}])),
            "input[0].content[0]",
        ),
        (
            items(json!([{"role": "user", "content": [{"type": "input_text"}]}])),
            "input[0].content[0].text",
        ),
        (
            items(json!([{"type": "function_call", "call_id": "c", "arguments": "{}"}])),
            "input[0].name",
        ),
        (
            items(
                json!([{"type": "function_call", "call_id": "", "name": "n", "arguments": "{}"}]),
            ),
            "input[0].call_id",
        ),
        (
            items(json!([{"type": "function_call_output", "output": "x"}])),
            "input[0].call_id",
        ),
        (
            items(
                json!([{"type": "function_call_output", "call_id": "c", "output": [{"type": "input_image", "image_url": PNG}]}]),
            ),
            "input[0].output[0]",
        ),
        (
            items(json!([{"type": "web_search_call", "id": "ws_1", "status": "completed"}])),
            "input[0]",
        ),
        (items(json!(["hi"])), "input[0]"),
    ];
    for (body, param) in cases {
        assert_eq!(verdict(&body), Err(Some(param.to_owned())), "{body}");
    }
}

#[test]
fn messages_say_why_without_echoing_values() {
    let err = parse(&with(json!({"previous_response_id": "resp_SECRET"}))).unwrap_err();
    assert!(err.message.contains("stateless"), "{}", err.message);
    assert!(!err.message.contains("SECRET"));
    let err = parse(&with(json!({"tools": [{"type": "web_search_SECRET"}]}))).unwrap_err();
    assert!(err.message.contains("function tools"), "{}", err.message);
    assert!(!err.message.contains("SECRET"));
    let err = parse(&items(json!([{"type": "SECRET_call"}]))).unwrap_err();
    assert!(!err.message.contains("SECRET"), "{}", err.message);
    let err = parse(&with(json!({"temperature": "SECRET"}))).unwrap_err();
    assert_eq!(
        err.message,
        "invalid `temperature`: expected a number from 0 to 2"
    );
}

#[test]
fn every_field_name_has_a_described_path() {
    crate::parse::json_error::assert_described(
        &validate::VOCABULARY,
        &[
            "model",
            "input",
            "input[].type",
            "input[].role",
            "input[].content",
            "input[].content[].image_url",
            "input[].content[].detail",
            "input[].content[].text",
            "input[].content[].refusal",
            "input[].call_id",
            "input[].name",
            "input[].arguments",
            "input[].output",
            "instructions",
            "tools[].description",
            "tools[].parameters",
            "tools[].strict",
            "tool_choice",
            "parallel_tool_calls",
            "max_output_tokens",
            "temperature",
            "top_p",
            "text.format.schema",
            "text.verbosity",
            "reasoning.effort",
            "reasoning.summary",
            "metadata",
            "user",
            "safety_identifier",
            "prompt_cache_key",
            "store",
            "stream",
            "include",
            "truncation",
            "previous_response_id",
            "background",
            "top_logprobs",
        ],
    );
}

/// The job a chat client sending `chat` would get.
fn chat_job(chat: Value) -> JobRequest {
    let req = parse_chat_request(chat.to_string().as_bytes()).expect("valid chat body");
    JobRequest::from_chat(req, 100)
}

/// The job the Responses body runs as, checking its chat request passes chat validation.
fn responses_job(body: Value) -> JobRequest {
    let chat = parse(&body).expect("valid responses body").into_chat();
    chat.validate()
        .expect("a translated request is a valid chat request");
    JobRequest::from_chat(chat, 100)
}

#[test]
fn a_string_input_is_one_user_message_after_the_instructions() {
    assert_eq!(
        responses_job(json!({"model": "m", "input": "hi", "instructions": "be brief"})),
        chat_job(json!({"model": "m", "messages": [
            {"role": "system", "content": "be brief"}, {"role": "user", "content": "hi"}]}))
    );
}

#[test]
fn a_tool_round_trip_is_the_chat_one() {
    let tools = json!([{"type": "function", "name": "get_weather", "description": "d",
                        "parameters": {"type": "object", "properties": {"city": {"type": "string"}}}, "strict": true}]);
    let responses = json!({"model": "m", "tools": tools, "tool_choice": "auto", "parallel_tool_calls": true,
    "max_output_tokens": 50, "temperature": 0.2, "top_p": 0.9, "user": "alice", "metadata": {"k": "v"},
    "input": [
        {"role": "developer", "content": "use tools"},
        {"role": "user", "content": [{"type": "input_text", "text": "weather?"}, {"type": "input_image", "image_url": PNG, "detail": "low"}]},
        {"type": "reasoning", "id": "rs_1", "summary": []},
        {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "checking", "annotations": []}]},
        {"type": "function_call", "call_id": "call_1", "name": "get_weather", "arguments": "{\"city\":\"Paris\"}"},
        {"type": "function_call", "call_id": "call_2", "name": "get_weather", "arguments": "{\"city\":\"Rome\"}"},
        {"type": "function_call_output", "call_id": "call_1", "output": "sunny"},
        {"type": "function_call_output", "call_id": "call_2", "output": [{"type": "input_text", "text": "rain"}]},
        {"type": "item_reference", "id": "msg_9"},
        {"type": "function_call", "call_id": "call_3", "name": "get_weather", "arguments": "{}"}
    ]});
    let chat = json!({"model": "m", "tool_choice": "auto", "parallel_tool_calls": true,
    "max_completion_tokens": 50, "temperature": 0.2, "top_p": 0.9,
    "tools": [{"type": "function", "function": {"name": "get_weather", "description": "d",
               "parameters": {"type": "object", "properties": {"city": {"type": "string"}}}, "strict": true}}],
    "messages": [
        {"role": "developer", "content": "use tools"},
        {"role": "user", "content": [{"type": "text", "text": "weather?"}, {"type": "image_url", "image_url": {"url": PNG, "detail": "low"}}]},
        {"role": "assistant", "content": [{"type": "text", "text": "checking"}], "tool_calls": [
            {"id": "call_1", "type": "function", "function": {"name": "get_weather", "arguments": "{\"city\":\"Paris\"}"}},
            {"id": "call_2", "type": "function", "function": {"name": "get_weather", "arguments": "{\"city\":\"Rome\"}"}}]},
        {"role": "tool", "tool_call_id": "call_1", "content": "sunny"},
        {"role": "tool", "tool_call_id": "call_2", "content": [{"type": "text", "text": "rain"}]},
        {"role": "assistant", "content": null, "tool_calls": [
            {"id": "call_3", "type": "function", "function": {"name": "get_weather", "arguments": "{}"}}]}
    ]});
    assert_eq!(responses_job(responses), chat_job(chat));
}

#[test]
fn text_format_and_reasoning_map_to_chat_fields() {
    let schema =
        json!({"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]});
    assert_eq!(
        responses_job(with(json!({"reasoning": {"effort": "high"},
            "text": {"format": {"type": "json_schema", "name": "person", "description": "d", "schema": schema, "strict": true}}}))),
        chat_job(
            json!({"model": "m", "messages": [{"role": "user", "content": "hi"}], "reasoning_effort": "high",
            "response_format": {"type": "json_schema", "json_schema": {"name": "person", "description": "d", "schema": schema, "strict": true}}})
        )
    );
    assert_eq!(
        responses_job(with(json!({"text": {"format": {"type": "json_object"}}}))),
        chat_job(
            json!({"model": "m", "messages": [{"role": "user", "content": "hi"}], "response_format": {"type": "json_object"}})
        )
    );
    // Plain text is chat's default: no field.
    assert_eq!(
        responses_job(with(json!({"text": {"format": {"type": "text"}}}))),
        chat_job(json!({"model": "m", "messages": [{"role": "user", "content": "hi"}]}))
    );
}

#[test]
fn the_caller_identity_never_reaches_the_job() {
    let body = with(
        json!({"user": "USER-CANARY", "safety_identifier": "SAFETY-CANARY",
        "prompt_cache_key": "CACHE-CANARY", "metadata": {"who": "META-CANARY"}}),
    );
    let job = serde_json::to_string(&responses_job(body)).unwrap();
    assert!(!job.contains("CANARY"), "{job}");
}

// ---- rendering -------------------------------------------------------------------------------

fn renderer(body: Value, stream: bool) -> ResponseRenderer {
    let req = parse(&body).unwrap();
    ResponseRenderer::new(
        ResponseEcho::of(&req),
        "resp_0001".into(),
        1_700_000_000,
        "large-27b-uncensored".into(),
        stream,
    )
}

/// The SSE bytes of a whole stream, and the final object; the same pieces rendered whole
/// give the same object.
fn stream(body: Value, pieces: Vec<Piece>) -> (Vec<u8>, Response) {
    let mut r = renderer(body.clone(), true);
    let mut whole = renderer(body, false);
    let mut out = r.start();
    assert!(whole.start().is_empty());
    for p in pieces {
        assert!(whole.push(p.clone()).is_empty());
        out.extend(r.push(p));
    }
    assert_eq!(whole.response(), r.response(), "streamed and whole agree");
    (out, r.response().clone())
}

/// What every stream must satisfy, whatever the answer: numbered from 0 in order, created
/// then in_progress first, one terminal event last, every item added before its content and
/// done after it, deltas that add up to the final item, the terminal response equal to the
/// object.
fn check_stream(bytes: &[u8], object: &Response) -> Vec<(String, Value)> {
    let events = parse_sse(bytes);
    for (i, (name, data)) in events.iter().enumerate() {
        assert_eq!(&data["type"], name, "event name = type");
        assert_eq!(data["sequence_number"], i as u64, "{name}");
    }
    assert_eq!(events[0].0, "response.created");
    assert_eq!(events[1].0, "response.in_progress");
    let (last, data) = events.last().unwrap();
    assert!([
        "response.completed",
        "response.incomplete",
        "response.failed"
    ]
    .contains(&last.as_str()));
    assert_eq!(data["response"], serde_json::to_value(object).unwrap());
    let mut added = std::collections::BTreeMap::new();
    let mut finished = std::collections::BTreeSet::new();
    for (name, data) in &events[2..events.len() - 1] {
        let index = data["output_index"].as_u64().unwrap();
        match name.as_str() {
            "response.output_item.added" => {
                assert_eq!(index as usize, added.len(), "items are added in order");
                assert!(added.insert(index, String::new()).is_none());
            }
            "response.output_item.done" => {
                assert!(finished.insert(index));
                let item = &object.output[index as usize];
                assert_eq!(data["item"], serde_json::to_value(item).unwrap());
                let whole = match item {
                    OutputItem::Message { content, .. } => content[0].text.clone(),
                    OutputItem::Reasoning { content, .. } => content[0].text.clone(),
                    OutputItem::FunctionCall { arguments, .. } => arguments.clone(),
                };
                assert_eq!(added[&index], whole, "deltas add up to the item");
            }
            _ => {
                assert!(
                    added.contains_key(&index) && !finished.contains(&index),
                    "{name}"
                );
                if let Some(delta) = data["delta"].as_str() {
                    added.get_mut(&index).unwrap().push_str(delta);
                }
            }
        }
    }
    events
}

fn names(events: &[(String, Value)]) -> Vec<&str> {
    events.iter().map(|(n, _)| n.as_str()).collect()
}

#[test]
fn a_text_answer_streams_as_one_message() {
    let (bytes, object) = stream(
        with(json!({"stream": true})),
        vec![
            text("Hello"),
            text(""),
            text(" world"),
            done(FinishReason::Stop, 7, 2, 0),
        ],
    );
    let events = check_stream(&bytes, &object);
    assert_eq!(
        names(&events),
        [
            "response.created",
            "response.in_progress",
            "response.output_item.added",
            "response.content_part.added",
            "response.output_text.delta",
            "response.output_text.delta",
            "response.output_text.done",
            "response.content_part.done",
            "response.output_item.done",
            "response.completed",
        ]
    );
    assert_eq!(events[0].1["response"]["status"], "in_progress");
    assert_eq!(events[0].1["response"]["output"], json!([]));
    assert_eq!(events[0].1["response"]["usage"], Value::Null);
    assert_eq!(object.status, ResponseStatus::Completed);
    assert_eq!(object.output_text(), "Hello world");
    assert_eq!(
        serde_json::to_value(object.usage).unwrap(),
        json!({"input_tokens": 7, "input_tokens_details": {"cached_tokens": 0}, "output_tokens": 2,
               "output_tokens_details": {"reasoning_tokens": 0}, "total_tokens": 9,
               "cost": 2, "cost_usd": "0.002"})
    );
    golden_pair("responses_text", &bytes, &object);
}

#[test]
fn reasoning_then_text_are_two_items() {
    let (bytes, object) = stream(
        with(json!({"stream": true, "reasoning": {"effort": "low"}})),
        vec![
            thought("Thinking"),
            thought(" hard."),
            text("42"),
            done(FinishReason::Stop, 5, 4, 2),
        ],
    );
    let events = check_stream(&bytes, &object);
    assert_eq!(
        names(&events)[2..9],
        [
            "response.output_item.added",
            "response.content_part.added",
            "response.reasoning_text.delta",
            "response.reasoning_text.delta",
            "response.reasoning_text.done",
            "response.content_part.done",
            "response.output_item.done",
        ]
    );
    assert!(
        matches!(&object.output[0], OutputItem::Reasoning { content, summary, .. }
        if content[0].text == "Thinking hard." && summary.is_empty())
    );
    assert_eq!(object.output_text(), "42");
    assert_eq!(
        object.usage.unwrap().output_tokens_details.reasoning_tokens,
        2
    );
    golden_pair("responses_reasoning", &bytes, &object);
}

#[test]
fn tool_calls_stream_as_function_call_items() {
    let body = with(json!({"stream": true, "tools": [fn_tool("get_weather"),
        {"type": "namespace", "name": "agents", "tools": [fn_tool("spawn")]}]}));
    let (bytes, object) = stream(
        body,
        vec![
            text("Let me check."),
            call(0, Some("call_a"), Some("get_weather"), ""),
            call(0, None, None, "{\"city\":"),
            call(0, None, None, "\"Paris\"}"),
            call(
                1,
                Some("call_b"),
                Some("get_weather"),
                "{\"city\":\"Rome\"}",
            ),
            // A call that never got arguments is announced at the end.
            call(2, None, Some("get_weather"), ""),
            call(3, Some("call_d"), Some("spawn"), "{}"),
            done(FinishReason::ToolCalls, 20, 9, 0),
        ],
    );
    let events = check_stream(&bytes, &object);
    let calls: Vec<_> = object
        .output
        .iter()
        .filter_map(|i| match i {
            OutputItem::FunctionCall {
                call_id,
                name,
                arguments,
                namespace,
                ..
            } => Some(format!(
                "{call_id} {name} {arguments} {}",
                namespace.as_deref().unwrap_or("-")
            )),
            _ => None,
        })
        .collect();
    assert_eq!(
        calls,
        [
            "call_a get_weather {\"city\":\"Paris\"} -",
            "call_b get_weather {\"city\":\"Rome\"} -",
            "call_d spawn {} agents",
            "call_0001_2 get_weather  -",
        ]
    );
    assert!(object.output[1..].iter().all(|i| matches!(
        i,
        OutputItem::FunctionCall {
            status: ItemStatus::Completed,
            ..
        }
    )));
    assert_eq!(object.output.len(), 5);
    let added_call = events
        .iter()
        .find(|(n, d)| n == "response.output_item.added" && d["item"]["type"] == "function_call")
        .unwrap();
    assert_eq!(added_call.1["item"]["arguments"], "");
    assert_eq!(added_call.1["item"]["name"], "get_weather");
    assert_eq!(object.status, ResponseStatus::Completed);
    golden_pair("responses_tool_calls", &bytes, &object);
}

#[test]
fn a_length_stop_is_incomplete() {
    let (bytes, object) = stream(
        with(json!({"stream": true, "max_output_tokens": 2})),
        vec![
            text("Once"),
            text(" upon"),
            done(FinishReason::Length, 3, 2, 0),
        ],
    );
    let events = check_stream(&bytes, &object);
    assert_eq!(events.last().unwrap().0, "response.incomplete");
    assert_eq!(object.status, ResponseStatus::Incomplete);
    assert_eq!(
        object.incomplete_details,
        Some(IncompleteDetails {
            reason: IncompleteReason::MaxOutputTokens
        })
    );
    assert!(matches!(
        object.output[0],
        OutputItem::Message {
            status: ItemStatus::Incomplete,
            ..
        }
    ));
    assert_eq!(object.max_output_tokens, Some(2));
    golden_pair("responses_length", &bytes, &object);
}

#[test]
fn a_lost_worker_fails_the_response() {
    let (bytes, object) = stream(
        with(json!({"stream": true})),
        vec![
            text("Half an"),
            Piece::Failed(Failure::Worker(ErrorCode::WorkerLost)),
            text("ignored"),
        ],
    );
    let events = check_stream(&bytes, &object);
    assert_eq!(events.last().unwrap().0, "response.failed");
    assert_eq!(object.status, ResponseStatus::Failed);
    let error = object.error.as_ref().unwrap();
    assert_eq!(error.code, "server_error");
    assert!(error.message.contains("worker_lost"), "{}", error.message);
    assert_eq!(object.usage, None);
    assert_eq!(object.output_text(), "Half an");
    golden("responses_failed.sse", &bytes);
}

#[test]
fn an_empty_answer_is_an_empty_message() {
    let (bytes, object) = stream(with(json!({})), vec![done(FinishReason::Stop, 1, 0, 0)]);
    check_stream(&bytes, &object);
    assert!(
        matches!(&object.output[..], [OutputItem::Message { content, .. }] if content[0].text.is_empty())
    );
}

#[test]
fn a_whole_response_writes_no_events_and_echoes_the_request() {
    let body = with(
        json!({"tools": [fn_tool("get")], "tool_choice": "required", "temperature": 0.3,
        "metadata": {"k": "v"}, "store": true, "text": {"format": {"type": "json_object"}}, "user": "u"}),
    );
    let mut r = renderer(body, false);
    assert!(r.start().is_empty());
    assert!(r.push(thought("hm")).is_empty());
    assert!(r.push(text("{}")).is_empty());
    assert!(r.push(done(FinishReason::Stop, 4, 3, 1)).is_empty());
    let object = serde_json::to_value(r.response()).unwrap();
    assert_eq!(object["id"], "resp_0001");
    assert_eq!(object["object"], "response");
    assert_eq!(object["created_at"], 1_700_000_000);
    assert_eq!(object["model"], "large-27b-uncensored");
    assert_eq!(object["status"], "completed");
    assert_eq!(object["store"], false);
    assert_eq!(object["tool_choice"], "required");
    assert_eq!(object["tools"][0]["name"], "get");
    assert_eq!(object["tools"][0]["type"], "function");
    assert_eq!(object["temperature"], 0.3);
    assert_eq!(object["metadata"], json!({"k": "v"}));
    assert_eq!(object["text"], json!({"format": {"type": "json_object"}}));
    assert_eq!(object["parallel_tool_calls"], true);
    assert_eq!(object["error"], Value::Null);
    assert_eq!(object["incomplete_details"], Value::Null);
    assert!(object.get("user").is_none());
    assert_eq!(object["output"][0]["type"], "reasoning");
    assert_eq!(object["output"][0]["id"], "rs_0001_0");
    assert_eq!(
        object["output"][1]["content"][0],
        json!({"type": "output_text", "text": "{}", "annotations": [], "logprobs": []})
    );
    assert_eq!(object["output"][1]["id"], "msg_0001_1");
    assert_eq!(object["usage"]["total_tokens"], 7);
    golden(
        "responses_whole.json",
        &serde_json::to_vec_pretty(r.response()).unwrap(),
    );
}

#[test]
fn a_call_resumed_after_another_item_is_dropped_alike_in_stream_and_object() {
    let (bytes, object) = stream(
        with(json!({"tools": [fn_tool("get")]})),
        vec![
            call(0, Some("c0"), Some("get"), "{\"a\":"),
            text("interlude"),
            call(0, None, None, "1}"),
            done(FinishReason::ToolCalls, 1, 3, 0),
        ],
    );
    check_stream(&bytes, &object);
    assert!(
        matches!(&object.output[0], OutputItem::FunctionCall { arguments, .. } if arguments == "{\"a\":")
    );
}

#[test]
fn namespaced_functions_are_offered_side_by_side() {
    let f =
        |name: &str| json!({"type": "function", "name": name, "parameters": {"type": "object"}});
    let chat_f = |name: &str| json!({"type": "function", "function": {"name": name, "parameters": {"type": "object"}}});
    assert_eq!(
        responses_job(with(
            json!({"tools": [f("a"), {"type": "namespace", "name": "ns", "tools": [f("b"), f("c")]}]})
        )),
        chat_job(
            json!({"model": "m", "messages": [{"role": "user", "content": "hi"}],
            "tools": [chat_f("a"), chat_f("b"), chat_f("c")]})
        )
    );
}

/// The goldens the SDK checks (tests/e2e/test_api_shapes.py) answer a tool round trip with:
/// one `get_weather` call, streamed and whole.
#[test]
fn one_call_goldens() {
    let body = with(json!({"tools": [fn_tool("get_weather")]}));
    let pieces = || {
        vec![
            call(0, Some("call_a"), Some("get_weather"), "{\"city\":"),
            call(0, None, None, "\"Paris\"}"),
            done(FinishReason::ToolCalls, 12, 5, 0),
        ]
    };
    let (bytes, object) = stream(body, pieces());
    check_stream(&bytes, &object);
    golden_pair("responses_one_call", &bytes, &object);
}

/// A `text.format` answer, for `responses.parse`.
#[test]
fn json_answer_goldens() {
    let body = with(
        json!({"text": {"format": {"type": "json_schema", "name": "person",
        "schema": {"type": "object", "properties": {"name": {"type": "string"}, "age": {"type": "integer"}},
                   "required": ["name", "age"], "additionalProperties": false}, "strict": true}}}),
    );
    let (bytes, object) = stream(
        body,
        vec![
            text("{\"name\":\"Ada\","),
            text("\"age\":36}"),
            done(FinishReason::Stop, 9, 8, 0),
        ],
    );
    check_stream(&bytes, &object);
    assert_eq!(object.output_text(), "{\"name\":\"Ada\",\"age\":36}");
    golden_pair("responses_json", &bytes, &object);
}
