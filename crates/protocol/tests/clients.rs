//! Requests as real clients sent them to a stand-in of the Responses and Messages routes
//! (tests/e2e/golden_server.py with SHOAL_GOLDEN_RECORD), their free text elided: each parses,
//! and runs as a valid chat request. Refreshed by rerunning tests/e2e/test_api_shapes.py with
//! the recorder on when a client changes what it sends.

use serde_json::{json, Value};
use shoal_protocol::chat::{ChatCompletionRequest, Role};
use shoal_protocol::messages::{parse_count_tokens_request, parse_messages_request};
use shoal_protocol::responses::parse_responses_request;

fn fixture(name: &str) -> Vec<u8> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/clients")
        .join(format!("{name}.json"));
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn responses(name: &str) -> ChatCompletionRequest {
    let req = parse_responses_request(&fixture(name)).unwrap_or_else(|e| panic!("{name}: {e:?}"));
    let chat = req.into_chat();
    chat.validate()
        .unwrap_or_else(|e| panic!("{name} as chat: {e:?}"));
    chat
}

fn messages(name: &str) -> ChatCompletionRequest {
    let req = parse_messages_request(&fixture(name)).unwrap_or_else(|e| panic!("{name}: {e:?}"));
    let chat = req.into_chat();
    chat.validate()
        .unwrap_or_else(|e| panic!("{name} as chat: {e:?}"));
    chat
}

fn roles(chat: &ChatCompletionRequest) -> Vec<Role> {
    chat.messages.iter().map(|m| m.role).collect()
}

#[test]
fn openai_python() {
    let chat = responses("responses_openai_python_tool_round_trip");
    assert_eq!(roles(&chat), [Role::User, Role::Assistant, Role::Tool]);
    assert_eq!(chat.messages[1].tool_calls()[0].id, "call_a");
    let chat = responses("responses_openai_python_parse");
    let format = serde_json::to_value(chat.response_format.expect("text.format")).unwrap();
    assert_eq!(format["type"], "json_schema");
    assert_eq!(format["json_schema"]["name"], "Person");
    assert_eq!(format["json_schema"]["strict"], true);
}

#[test]
fn agents_sdk_default_provider() {
    for name in [
        "responses_agents_sdk_tool_round_trip",
        "responses_agents_sdk_streamed",
    ] {
        let chat = responses(name);
        assert_eq!(
            roles(&chat),
            [Role::System, Role::User, Role::Assistant, Role::Tool],
            "{name}"
        );
        assert_eq!(chat.tools.as_ref().unwrap()[0].function.name, "get_weather");
    }
}

#[test]
fn ai_sdk_default_provider() {
    let chat = responses("responses_ai_sdk_generate_text_step_2");
    assert_eq!(roles(&chat), [Role::User, Role::Assistant, Role::Tool]);
    let chat = responses("responses_ai_sdk_stream_text");
    assert!(chat.is_stream());
}

#[test]
fn codex_exec() {
    let chat = responses("responses_codex_exec");
    assert!(chat.is_stream());
    assert!(chat.tools.as_ref().is_some_and(|t| t.len() > 3));
    // Codex's default config adds a hosted web search, which is refused by name.
    let mut body: Value = serde_json::from_slice(&fixture("responses_codex_exec")).unwrap();
    let tools = body["tools"].as_array_mut().unwrap();
    tools.push(json!({"type": "web_search", "external_web_access": false}));
    let at = tools.len() - 1;
    let err = parse_responses_request(body.to_string().as_bytes()).unwrap_err();
    assert_eq!(err.param, Some(format!("tools[{at}]")));
}

#[test]
fn anthropic_sdks() {
    let chat = messages("messages_anthropic_python_tool_round_trip");
    assert_eq!(roles(&chat), [Role::User, Role::Assistant, Role::Tool]);
    assert_eq!(
        chat.messages[1].tool_calls()[0].function.arguments,
        "{\"city\":\"Paris\"}"
    );
    assert!(messages("messages_anthropic_python_image").has_image_parts());
    assert!(messages("messages_anthropic_node_stream").is_stream());
    let counted = parse_count_tokens_request(&fixture("count_tokens_anthropic_python")).unwrap();
    counted.into_chat().validate().unwrap();
}

#[test]
fn claude_code_print_mode() {
    let chat = messages("messages_claude_code_print");
    assert!(chat.is_stream());
    assert_eq!(chat.tools.as_ref().map(Vec::len), Some(24));
    // Its instructions: the system blocks, then a `system` turn between the user's.
    assert_eq!(chat.messages[0].role, Role::System);
    assert!(chat.messages[1..].iter().any(|m| m.role == Role::System));
    assert_eq!(chat.max_output_tokens(), Some(32_000));
    assert_eq!(chat.reasoning_effort.as_deref(), Some("high"));
}
