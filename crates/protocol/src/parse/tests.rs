//! The validation rules, one table row each. To add a case, add a row.

use serde_json::{json, Value};

use super::parse_chat_request;

/// What a body should give.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Expect {
    Ok,
    /// Refused as a whole: no `param`.
    Body,
    /// Refused, naming this field.
    Param(&'static str),
}
use Expect::{Body, Ok as Valid, Param};

const PNG: &str = "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";

fn user(content: Value) -> Value {
    json!({"role": "user", "content": content})
}

/// A valid request with these messages and extra top-level fields.
fn req(messages: Value, extra: Value) -> Value {
    let mut body = json!({"model": "m", "messages": messages});
    for (k, v) in extra.as_object().expect("extra is an object") {
        body[k] = v.clone();
    }
    body
}

/// A valid request with one user message and extra top-level fields.
fn with(extra: Value) -> Value {
    req(json!([user(json!("hi"))]), extra)
}

fn tool(name: &str) -> Value {
    json!({"type": "function", "function": {"name": name, "parameters": {"type": "object", "properties": {}}}})
}

fn image(url: &str) -> Value {
    json!([{"type": "text", "text": "what is this?"}, {"type": "image_url", "image_url": {"url": url}}])
}

fn tool_call(id: &str, name: &str) -> Value {
    json!({"id": id, "type": "function", "function": {"name": name, "arguments": "{\"a\":1}"}})
}

fn json_cases() -> Vec<(&'static str, Value, Expect)> {
    vec![
        // --- the minimum
        ("minimal", with(json!({})), Valid),
        (
            "model missing",
            json!({"messages": [user(json!("hi"))]}),
            Param("model"),
        ),
        ("model empty", with(json!({"model": ""})), Param("model")),
        ("model blank", with(json!({"model": "  "})), Param("model")),
        (
            "model not a string",
            with(json!({"model": 5})),
            Param("model"),
        ),
        ("model null", with(json!({"model": null})), Param("model")),
        ("messages missing", json!({"model": "m"}), Param("messages")),
        (
            "messages empty",
            req(json!([]), json!({})),
            Param("messages"),
        ),
        (
            "messages not an array",
            req(json!("hi"), json!({})),
            Param("messages"),
        ),
        (
            "message not an object",
            req(json!(["hi"]), json!({})),
            Param("messages[0]"),
        ),
        (
            "unknown fields ignored",
            with(json!({"logprobs": false, "metadata": {"a": 1}, "store": true})),
            Valid,
        ),
        // --- roles
        (
            "system",
            req(
                json!([{"role": "system", "content": "be brief"}, user(json!("hi"))]),
                json!({}),
            ),
            Valid,
        ),
        (
            "developer",
            req(
                json!([{"role": "developer", "content": "be brief"}, user(json!("hi"))]),
                json!({}),
            ),
            Valid,
        ),
        (
            "role missing",
            req(json!([{"content": "hi"}]), json!({})),
            Param("messages[0].role"),
        ),
        (
            "role unknown",
            req(json!([{"role": "wizard", "content": "hi"}]), json!({})),
            Param("messages[0].role"),
        ),
        (
            "role not a string",
            req(json!([{"role": 1, "content": "hi"}]), json!({})),
            Param("messages[0].role"),
        ),
        (
            "role uppercase",
            req(json!([{"role": "User", "content": "hi"}]), json!({})),
            Param("messages[0].role"),
        ),
        (
            "name",
            req(
                json!([{"role": "user", "name": "alice", "content": "hi"}]),
                json!({}),
            ),
            Valid,
        ),
        (
            "name not a string",
            req(
                json!([{"role": "user", "name": 3, "content": "hi"}]),
                json!({}),
            ),
            Param("messages[0].name"),
        ),
        // --- content
        (
            "content missing",
            req(json!([{"role": "user"}]), json!({})),
            Param("messages[0].content"),
        ),
        (
            "content null on user",
            req(json!([user(json!(null))]), json!({})),
            Param("messages[0].content"),
        ),
        (
            "content empty string",
            req(json!([user(json!(""))]), json!({})),
            Valid,
        ),
        (
            "content number",
            req(json!([user(json!(42))]), json!({})),
            Param("messages[0].content"),
        ),
        (
            "content object",
            req(json!([user(json!({"text": "hi"}))]), json!({})),
            Param("messages[0].content"),
        ),
        (
            "content empty array",
            req(json!([user(json!([]))]), json!({})),
            Param("messages[0].content"),
        ),
        (
            "text parts",
            req(
                json!([user(
                    json!([{"type": "text", "text": "a"}, {"type": "text", "text": "b"}])
                )]),
                json!({}),
            ),
            Valid,
        ),
        (
            "part not an object",
            req(json!([user(json!(["hi"]))]), json!({})),
            Param("messages[0].content[0]"),
        ),
        (
            "part type missing",
            req(json!([user(json!([{"text": "hi"}]))]), json!({})),
            Param("messages[0].content[0].type"),
        ),
        (
            "part type unknown",
            req(
                json!([user(json!([{"type": "input_audio", "input_audio": {}}]))]),
                json!({}),
            ),
            Param("messages[0].content[0].type"),
        ),
        (
            "text part without text",
            req(json!([user(json!([{"type": "text"}]))]), json!({})),
            Param("messages[0].content[0].text"),
        ),
        (
            "text part text not a string",
            req(
                json!([user(json!([{"type": "text", "text": 1}]))]),
                json!({}),
            ),
            Param("messages[0].content[0].text"),
        ),
        (
            "image part without image_url",
            req(json!([user(json!([{"type": "image_url"}]))]), json!({})),
            Param("messages[0].content[0].image_url"),
        ),
        (
            "image_url a string",
            req(
                json!([user(json!([{"type": "image_url", "image_url": PNG}]))]),
                json!({}),
            ),
            Param("messages[0].content[0].image_url"),
        ),
        (
            "image_url without url",
            req(
                json!([user(json!([{"type": "image_url", "image_url": {}}]))]),
                json!({}),
            ),
            Param("messages[0].content[0].image_url.url"),
        ),
        (
            "second message bad",
            req(json!([user(json!("a")), user(json!(1))]), json!({})),
            Param("messages[1].content"),
        ),
        // --- images
        (
            "image data url",
            req(json!([user(image(PNG))]), json!({})),
            Valid,
        ),
        (
            "image detail",
            req(
                json!([user(
                    json!([{"type": "image_url", "image_url": {"url": PNG, "detail": "low"}}])
                )]),
                json!({}),
            ),
            Valid,
        ),
        (
            "image jpeg",
            req(
                json!([user(image("data:image/jpeg;base64,/9j/4AAQSkZJRg=="))]),
                json!({}),
            ),
            Valid,
        ),
        (
            "image https",
            req(
                json!([user(image("https://example.com/cat.png"))]),
                json!({}),
            ),
            Param("messages[0].content[1].image_url.url"),
        ),
        (
            "image http",
            req(
                json!([user(image("http://example.com/cat.png"))]),
                json!({}),
            ),
            Param("messages[0].content[1].image_url.url"),
        ),
        (
            "image ftp",
            req(json!([user(image("ftp://example.com/cat.png"))]), json!({})),
            Param("messages[0].content[1].image_url.url"),
        ),
        (
            "image bad base64",
            req(json!([user(image("data:image/png;base64,%%%"))]), json!({})),
            Param("messages[0].content[1].image_url.url"),
        ),
        (
            "image not base64",
            req(json!([user(image("data:image/png,rawbytes"))]), json!({})),
            Param("messages[0].content[1].image_url.url"),
        ),
        (
            "image svg",
            req(
                json!([user(image("data:image/svg+xml;base64,PHN2Zz4="))]),
                json!({}),
            ),
            Param("messages[0].content[1].image_url.url"),
        ),
        (
            "image empty",
            req(json!([user(image("data:image/png;base64,"))]), json!({})),
            Param("messages[0].content[1].image_url.url"),
        ),
        (
            "image in system message",
            req(
                json!([{"role": "system", "content": image(PNG)}, user(json!("hi"))]),
                json!({}),
            ),
            Param("messages[0].content[1]"),
        ),
        (
            "image in assistant message",
            req(
                json!([user(json!("hi")), {"role": "assistant", "content": image(PNG)}]),
                json!({}),
            ),
            Param("messages[1].content[1]"),
        ),
        // --- tool round trip
        (
            "tool round trip",
            req(
                json!([
                    user(json!("weather?")),
                    {"role": "assistant", "content": null, "tool_calls": [tool_call("call_1", "get_weather")]},
                    {"role": "tool", "tool_call_id": "call_1", "content": "{\"temp\":21}"},
                ]),
                json!({"tools": [tool("get_weather")]}),
            ),
            Valid,
        ),
        (
            "assistant tool_calls without content key",
            req(
                json!([
                    user(json!("weather?")),
                    {"role": "assistant", "tool_calls": [tool_call("call_1", "get_weather")]},
                ]),
                json!({}),
            ),
            Valid,
        ),
        (
            "assistant tool_calls with empty content",
            req(
                json!([
                    user(json!("weather?")),
                    {"role": "assistant", "content": "", "tool_calls": [tool_call("call_1", "get_weather")]},
                ]),
                json!({}),
            ),
            Valid,
        ),
        (
            "assistant null content no tool_calls",
            req(
                json!([user(json!("a")), {"role": "assistant", "content": null}]),
                json!({}),
            ),
            Param("messages[1].content"),
        ),
        (
            "assistant null content empty tool_calls",
            req(
                json!([user(json!("a")), {"role": "assistant", "content": null, "tool_calls": []}]),
                json!({}),
            ),
            Param("messages[1].content"),
        ),
        (
            "tool_calls type omitted",
            req(
                json!([user(json!("a")), {"role": "assistant", "tool_calls": [{"id": "c", "function": {"name": "f", "arguments": "{}"}}]}]),
                json!({}),
            ),
            Valid,
        ),
        (
            "tool_calls type wrong",
            req(
                json!([user(json!("a")), {"role": "assistant", "tool_calls": [{"id": "c", "type": "code", "function": {"name": "f", "arguments": "{}"}}]}]),
                json!({}),
            ),
            Param("messages[1].tool_calls[0].type"),
        ),
        (
            "tool_calls id missing",
            req(
                json!([user(json!("a")), {"role": "assistant", "tool_calls": [{"type": "function", "function": {"name": "f", "arguments": "{}"}}]}]),
                json!({}),
            ),
            Param("messages[1].tool_calls[0].id"),
        ),
        (
            "tool_calls id empty",
            req(
                json!([user(json!("a")), {"role": "assistant", "tool_calls": [tool_call("", "f")]}]),
                json!({}),
            ),
            Param("messages[1].tool_calls[0].id"),
        ),
        (
            "tool_calls name empty",
            req(
                json!([user(json!("a")), {"role": "assistant", "tool_calls": [tool_call("c", "")]}]),
                json!({}),
            ),
            Param("messages[1].tool_calls[0].function.name"),
        ),
        (
            "tool_calls arguments object",
            req(
                json!([user(json!("a")), {"role": "assistant", "tool_calls": [{"id": "c", "type": "function", "function": {"name": "f", "arguments": {}}}]}]),
                json!({}),
            ),
            Param("messages[1].tool_calls[0].function.arguments"),
        ),
        (
            "tool_calls arguments missing",
            req(
                json!([user(json!("a")), {"role": "assistant", "tool_calls": [{"id": "c", "type": "function", "function": {"name": "f"}}]}]),
                json!({}),
            ),
            Param("messages[1].tool_calls[0].function.arguments"),
        ),
        (
            "tool_calls not an array",
            req(
                json!([user(json!("a")), {"role": "assistant", "tool_calls": {}}]),
                json!({}),
            ),
            Param("messages[1].tool_calls"),
        ),
        (
            "tool_calls on user",
            req(
                json!([{"role": "user", "content": "a", "tool_calls": [tool_call("c", "f")]}]),
                json!({}),
            ),
            Param("messages[0].tool_calls"),
        ),
        (
            "tool message without tool_call_id",
            req(
                json!([user(json!("a")), {"role": "tool", "content": "r"}]),
                json!({}),
            ),
            Param("messages[1].tool_call_id"),
        ),
        (
            "tool message empty tool_call_id",
            req(
                json!([user(json!("a")), {"role": "tool", "tool_call_id": "", "content": "r"}]),
                json!({}),
            ),
            Param("messages[1].tool_call_id"),
        ),
        (
            "tool message null tool_call_id",
            req(
                json!([user(json!("a")), {"role": "tool", "tool_call_id": null, "content": "r"}]),
                json!({}),
            ),
            Param("messages[1].tool_call_id"),
        ),
        (
            "tool message tool_call_id number",
            req(
                json!([user(json!("a")), {"role": "tool", "tool_call_id": 7, "content": "r"}]),
                json!({}),
            ),
            Param("messages[1].tool_call_id"),
        ),
        (
            "tool message without content",
            req(
                json!([user(json!("a")), {"role": "tool", "tool_call_id": "c"}]),
                json!({}),
            ),
            Param("messages[1].content"),
        ),
        (
            "tool message text parts",
            req(
                json!([user(json!("a")), {"role": "tool", "tool_call_id": "c", "content": [{"type": "text", "text": "r"}]}]),
                json!({}),
            ),
            Valid,
        ),
        (
            "tool_call_id on user",
            req(
                json!([{"role": "user", "content": "a", "tool_call_id": "c"}]),
                json!({}),
            ),
            Param("messages[0].tool_call_id"),
        ),
        // --- tools
        (
            "tools",
            with(json!({"tools": [tool("a"), tool("b-2_C")]})),
            Valid,
        ),
        ("tools empty", with(json!({"tools": []})), Valid),
        (
            "tool without parameters",
            with(json!({"tools": [{"type": "function", "function": {"name": "f"}}]})),
            Valid,
        ),
        (
            "tool with description and strict",
            with(
                json!({"tools": [{"type": "function", "function": {"name": "f", "description": "d", "strict": true, "parameters": {"type": "object"}}}]}),
            ),
            Valid,
        ),
        (
            "tools not an array",
            with(json!({"tools": tool("a")})),
            Param("tools"),
        ),
        (
            "tool type missing",
            with(json!({"tools": [{"function": {"name": "f"}}]})),
            Param("tools[0].type"),
        ),
        (
            "tool type wrong",
            with(json!({"tools": [{"type": "retrieval", "function": {"name": "f"}}]})),
            Param("tools[0].type"),
        ),
        (
            "tool function missing",
            with(json!({"tools": [{"type": "function"}]})),
            Param("tools[0].function"),
        ),
        (
            "tool name missing",
            with(json!({"tools": [{"type": "function", "function": {}}]})),
            Param("tools[0].function.name"),
        ),
        (
            "tool name empty",
            with(json!({"tools": [tool("")]})),
            Param("tools[0].function.name"),
        ),
        (
            "tool name space",
            with(json!({"tools": [tool("ok"), tool("get weather")]})),
            Param("tools[1].function.name"),
        ),
        (
            "tool name dot",
            with(json!({"tools": [tool("a.b")]})),
            Param("tools[0].function.name"),
        ),
        (
            "tool name 64",
            with(json!({"tools": [tool(&"x".repeat(64))]})),
            Valid,
        ),
        (
            "tool name 65",
            with(json!({"tools": [tool(&"x".repeat(65))]})),
            Param("tools[0].function.name"),
        ),
        (
            "tool name duplicate",
            with(json!({"tools": [tool("a"), tool("a")]})),
            Param("tools[1].function.name"),
        ),
        (
            "tool parameters array",
            with(
                json!({"tools": [{"type": "function", "function": {"name": "f", "parameters": []}}]}),
            ),
            Param("tools[0].function.parameters"),
        ),
        (
            "tool parameters string",
            with(
                json!({"tools": [{"type": "function", "function": {"name": "f", "parameters": "{}"}}]}),
            ),
            Param("tools[0].function.parameters"),
        ),
        (
            "tool description number",
            with(
                json!({"tools": [{"type": "function", "function": {"name": "f", "description": 1}}]}),
            ),
            Param("tools[0].function.description"),
        ),
        // --- tool_choice
        (
            "tool_choice none",
            with(json!({"tool_choice": "none"})),
            Valid,
        ),
        (
            "tool_choice auto",
            with(json!({"tool_choice": "auto", "tools": [tool("a")]})),
            Valid,
        ),
        (
            "tool_choice auto without tools",
            with(json!({"tool_choice": "auto"})),
            Valid,
        ),
        (
            "tool_choice required",
            with(json!({"tool_choice": "required", "tools": [tool("a")]})),
            Valid,
        ),
        (
            "tool_choice required without tools",
            with(json!({"tool_choice": "required"})),
            Param("tool_choice"),
        ),
        (
            "tool_choice unknown mode",
            with(json!({"tool_choice": "always"})),
            Param("tool_choice"),
        ),
        (
            "tool_choice number",
            with(json!({"tool_choice": 1})),
            Param("tool_choice"),
        ),
        (
            "tool_choice named",
            with(
                json!({"tools": [tool("a"), tool("b")], "tool_choice": {"type": "function", "function": {"name": "b"}}}),
            ),
            Valid,
        ),
        (
            "tool_choice named undefined",
            with(
                json!({"tools": [tool("a")], "tool_choice": {"type": "function", "function": {"name": "b"}}}),
            ),
            Param("tool_choice.function.name"),
        ),
        (
            "tool_choice named without tools",
            with(json!({"tool_choice": {"type": "function", "function": {"name": "b"}}})),
            Param("tool_choice.function.name"),
        ),
        (
            "tool_choice named no function",
            with(json!({"tools": [tool("a")], "tool_choice": {"type": "function"}})),
            Param("tool_choice.function"),
        ),
        (
            "tool_choice named wrong type",
            with(
                json!({"tools": [tool("a")], "tool_choice": {"type": "tool", "function": {"name": "a"}}}),
            ),
            Param("tool_choice.type"),
        ),
        (
            "tool_choice named name number",
            with(
                json!({"tools": [tool("a")], "tool_choice": {"type": "function", "function": {"name": 1}}}),
            ),
            Param("tool_choice.function.name"),
        ),
        (
            "parallel_tool_calls",
            with(json!({"parallel_tool_calls": false})),
            Valid,
        ),
        (
            "parallel_tool_calls string",
            with(json!({"parallel_tool_calls": "no"})),
            Param("parallel_tool_calls"),
        ),
        // --- streaming
        (
            "stream",
            with(json!({"stream": true, "stream_options": {"include_usage": true}})),
            Valid,
        ),
        (
            "stream string",
            with(json!({"stream": "yes"})),
            Param("stream"),
        ),
        (
            "stream_options not an object",
            with(json!({"stream": true, "stream_options": true})),
            Param("stream_options"),
        ),
        (
            "include_usage string",
            with(json!({"stream": true, "stream_options": {"include_usage": "yes"}})),
            Param("stream_options.include_usage"),
        ),
        // --- sampling and limits
        (
            "all sampling fields",
            with(json!({
                "temperature": 0.7, "top_p": 0.9, "max_tokens": 100, "max_completion_tokens": 50,
                "stop": ["\n\n", "END"], "seed": -3, "n": 1, "presence_penalty": -2, "frequency_penalty": 2,
                "response_format": {"type": "json_object"}, "reasoning_effort": "high", "user": "u-1"
            })),
            Valid,
        ),
        (
            "nulls are absent",
            with(
                json!({"temperature": null, "tools": null, "tool_choice": null, "stop": null, "n": null}),
            ),
            Valid,
        ),
        ("temperature 0", with(json!({"temperature": 0})), Valid),
        ("temperature 2", with(json!({"temperature": 2})), Valid),
        (
            "temperature above",
            with(json!({"temperature": 2.01})),
            Param("temperature"),
        ),
        (
            "temperature below",
            with(json!({"temperature": -0.1})),
            Param("temperature"),
        ),
        (
            "temperature string",
            with(json!({"temperature": "0.5"})),
            Param("temperature"),
        ),
        ("top_p 1", with(json!({"top_p": 1})), Valid),
        ("top_p 0", with(json!({"top_p": 0})), Param("top_p")),
        ("top_p above", with(json!({"top_p": 1.5})), Param("top_p")),
        ("max_tokens 1", with(json!({"max_tokens": 1})), Valid),
        (
            "max_tokens 0",
            with(json!({"max_tokens": 0})),
            Param("max_tokens"),
        ),
        (
            "max_tokens negative",
            with(json!({"max_tokens": -5})),
            Param("max_tokens"),
        ),
        (
            "max_tokens float",
            with(json!({"max_tokens": 10.5})),
            Param("max_tokens"),
        ),
        (
            "max_tokens huge",
            with(json!({"max_tokens": 1u64 << 40})),
            Param("max_tokens"),
        ),
        (
            "max_completion_tokens 0",
            with(json!({"max_completion_tokens": 0})),
            Param("max_completion_tokens"),
        ),
        ("stop string", with(json!({"stop": "END"})), Valid),
        ("stop 4", with(json!({"stop": ["a", "b", "c", "d"]})), Valid),
        (
            "stop 5",
            with(json!({"stop": ["a", "b", "c", "d", "e"]})),
            Param("stop"),
        ),
        ("stop empty array", with(json!({"stop": []})), Valid),
        (
            "stop empty string",
            with(json!({"stop": ""})),
            Param("stop"),
        ),
        (
            "stop empty element",
            with(json!({"stop": ["a", ""]})),
            Param("stop[1]"),
        ),
        (
            "stop element number",
            with(json!({"stop": ["a", 1]})),
            Param("stop[1]"),
        ),
        (
            "stop object",
            with(json!({"stop": {"a": 1}})),
            Param("stop"),
        ),
        ("seed string", with(json!({"seed": "1"})), Param("seed")),
        ("n 2", with(json!({"n": 2})), Param("n")),
        ("n 0", with(json!({"n": 0})), Param("n")),
        (
            "presence_penalty above",
            with(json!({"presence_penalty": 2.5})),
            Param("presence_penalty"),
        ),
        (
            "frequency_penalty below",
            with(json!({"frequency_penalty": -2.5})),
            Param("frequency_penalty"),
        ),
        (
            "response_format json_schema",
            with(
                json!({"response_format": {"type": "json_schema", "json_schema": {"name": "x", "schema": {"type": "object"}}}}),
            ),
            Valid,
        ),
        (
            "response_format string",
            with(json!({"response_format": "json"})),
            Param("response_format"),
        ),
        (
            "response_format type unknown",
            with(json!({"response_format": {"type": "xml"}})),
            Param("response_format.type"),
        ),
        (
            "response_format type missing",
            with(json!({"response_format": {}})),
            Param("response_format.type"),
        ),
        (
            "response_format json_schema without json_schema",
            with(json!({"response_format": {"type": "json_schema"}})),
            Param("response_format.json_schema"),
        ),
        (
            "response_format json_schema without name",
            with(
                json!({"response_format": {"type": "json_schema", "json_schema": {"schema": {}}}}),
            ),
            Param("response_format.json_schema.name"),
        ),
        (
            "response_format json_schema bad name",
            with(
                json!({"response_format": {"type": "json_schema", "json_schema": {"name": "a b"}}}),
            ),
            Param("response_format.json_schema.name"),
        ),
        (
            "response_format json_schema schema not an object",
            with(
                json!({"response_format": {"type": "json_schema", "json_schema": {"name": "a", "schema": true}}}),
            ),
            Param("response_format.json_schema.schema"),
        ),
        (
            "response_format json_schema strict false, no schema",
            with(
                json!({"response_format": {"type": "json_schema", "json_schema": {"name": "a", "strict": false}}}),
            ),
            Valid,
        ),
        (
            "response_format json_schema unsupported keyword",
            with(
                json!({"response_format": {"type": "json_schema", "json_schema": {"name": "a", "strict": true,
                "schema": {"type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "string", "pattern": "^x"}}}}}}),
            ),
            Param("response_format.json_schema.schema.properties[1].pattern"),
        ),
        (
            "response_format text",
            with(json!({"response_format": {"type": "text"}})),
            Valid,
        ),
        (
            "strict tool with an unsupported keyword",
            with(
                json!({"tools": [tool("a"), {"type": "function", "function": {"name": "b", "strict": true,
                "parameters": {"type": "object", "properties": {"n": {"type": "integer", "multipleOf": 5}}}}}]}),
            ),
            Param("tools[1].function.parameters.properties[0].multipleOf"),
        ),
        (
            "strict tool whose arguments are not an object",
            with(
                json!({"tools": [{"type": "function", "function": {"name": "b", "strict": true,
                "parameters": {"type": "string"}}}]}),
            ),
            Param("tools[0].function.parameters"),
        ),
        (
            "tool without strict keeps any schema",
            with(
                json!({"tools": [{"type": "function", "function": {"name": "b",
                "parameters": {"type": "object", "properties": {"n": {"type": "integer", "multipleOf": 5}}}}}]}),
            ),
            Valid,
        ),
        ("user number", with(json!({"user": 5})), Param("user")),
        (
            "reasoning_effort number",
            with(json!({"reasoning_effort": 5})),
            Param("reasoning_effort"),
        ),
        // --- the body as a whole
        ("body array", json!([]), Body),
        ("body string", json!("hi"), Body),
        ("body null", json!(null), Body),
    ]
}

fn raw_cases() -> Vec<(&'static str, &'static str, Expect)> {
    vec![
        ("empty", "", Body),
        ("whitespace", "  \n", Body),
        (
            "truncated",
            r#"{"model":"m","messages":[{"role":"user""#,
            Body,
        ),
        ("not json", "model=m", Body),
        (
            "trailing garbage",
            r#"{"model":"m","messages":[{"role":"user","content":"hi"}]} x"#,
            Body,
        ),
        (
            "trailing comma",
            r#"{"model":"m","messages":[{"role":"user","content":"hi"},]}"#,
            Body,
        ),
        ("single quotes", r#"{'model':'m'}"#, Body),
        (
            "bom",
            "\u{feff}{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}",
            Valid,
        ),
        (
            "duplicate field",
            r#"{"model":"m","model":"n","messages":[{"role":"user","content":"hi"}]}"#,
            Param("model"),
        ),
        (
            "invalid utf-8 escape",
            r#"{"model":"m","messages":[{"role":"user","content":"\ud800"}]}"#,
            Body,
        ),
    ]
}

fn check(name: &str, body: &[u8], expect: Expect) {
    let got = parse_chat_request(body);
    match (expect, &got) {
        (Valid, Ok(_)) => {}
        (Body, Err(e)) if e.param.is_none() => {}
        (Param(p), Err(e)) if e.param.as_deref() == Some(p) => {}
        _ => panic!("case `{name}`: expected {expect:?}, got {got:?}"),
    }
    if let Err(e) = got {
        assert!(!e.message.is_empty(), "case `{name}`: empty message");
        if let Some(p) = &e.param {
            assert!(
                e.message.contains(p.as_str()),
                "case `{name}`: message does not name `{p}`: {}",
                e.message
            );
        }
    }
}

#[test]
fn json_bodies() {
    for (name, body, expect) in json_cases() {
        check(name, &serde_json::to_vec(&body).unwrap(), expect);
    }
}

#[test]
fn raw_bodies() {
    for (name, body, expect) in raw_cases() {
        check(name, body.as_bytes(), expect);
    }
}

#[test]
fn messages_read_well() {
    let msg = |body: &str| parse_chat_request(body.as_bytes()).unwrap_err().message;
    assert_eq!(
        msg(r#"{"model":"m","messages":[{"role":"user","content":5}]}"#),
        "invalid `messages[0].content`: expected a string, an array of content parts, or null"
    );
    assert_eq!(
        msg(r#"{"model":"m","messages":[{"content":"hi"}]}"#),
        "missing required field `messages[0].role`"
    );
    assert_eq!(
        msg(r#"{"model":"m","messages":[{"role":"user","content":"hi"}"#),
        "request body is not valid JSON: EOF while parsing a list (line 1, column 55)"
    );
    assert_eq!(
        msg("{\n  \"model\": }"),
        "request body is not valid JSON: expected value (line 2, column 12)"
    );
    assert_eq!(
        msg(r#"{"model":"m","messages":[{"role":"user","content":"a"},{"role":"tool","content":"r"}]}"#),
        "`messages[1].tool_call_id` is required on tool messages: the `id` of the tool call it answers"
    );
    let remote = msg(
        r#"{"model":"m","messages":[{"role":"user","content":[{"type":"image_url","image_url":{"url":"https://x.test/a.png"}}]}]}"#,
    );
    assert!(
        remote.starts_with(
            "`messages[0].content[0].image_url.url`: remote image URLs are never fetched"
        ),
        "{remote}"
    );
    assert_eq!(
        msg(
            r#"{"model":"m","messages":[{"role":"user","content":"a"}],"response_format":{"type":"json_schema","json_schema":{"name":"n","schema":{"type":"object","properties":{"secret":{"type":"string","pattern":"^s"}}}}}}"#
        ),
        "`response_format.json_schema.schema.properties[0].pattern`: the JSON Schema keyword \
         `pattern` is not supported here: regular expressions are not enforced"
    );
}

#[test]
fn deep_nesting_is_refused_not_overflowed() {
    let messages = r#"[{"role":"user","content":"hi"}]"#;
    // Into a field that is parsed as a JSON value (a schema), and into one that is skipped.
    let schema = r#"{"type":"json_schema","json_schema":{"name":"n","schema":{"a":"#;
    for (field, open, close) in [("response_format", schema, "}}}"), ("x", "{\"a\":", "}")] {
        let deep = format!(
            "{{\"model\":\"m\",\"messages\":{messages},\"{field}\":{open}{}{}{close}}}",
            "[".repeat(100_000),
            "]".repeat(100_000)
        );
        match parse_chat_request(deep.as_bytes()) {
            Err(err) => {
                assert_eq!(err.param, None);
                assert!(err.message.contains("nests too deeply"), "{}", err.message);
            }
            Ok(_) => assert_eq!(field, "x", "a skipped field is skipped without recursion"),
        }
    }
}
