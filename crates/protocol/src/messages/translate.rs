//! A validated [`MessagesRequest`] as the chat completion request it runs as.
//!
//! The result is what a chat client sending the same conversation would send, so the job a
//! worker gets (`JobRequest::from_chat`) is the same one. The mapping, turn by turn:
//!
//! - `system` → a `system` message first (text blocks as text parts); a `system` turn in
//!   `messages` → a `system` message in place.
//! - A user turn → one `tool` message per `tool_result` block, in order, then one `user`
//!   message with the turn's text and image blocks (images as data URLs), if it has any.
//!   A result with `is_error: true` is marked for the model by [`TOOL_ERROR_PREFIX`].
//! - An assistant turn → one `assistant` message: its text blocks as content, its
//!   `tool_use` blocks as tool calls (`input` written as a JSON string). Thinking blocks
//!   are left out, as chat templates drop earlier turns' reasoning; a turn left empty is
//!   left out.
//!
//! What does not reach a worker: `metadata` (its `user_id`), `thinking`, `container`,
//! `mcp_servers`, unknown fields.

use super::request::{
    Block, Content, ImageSource, MessageRole, MessagesRequest, MessagesTool, MessagesToolChoice,
    OutputFormat, ToolChoiceKind,
};
use super::validate::data_url;
use crate::chat::{
    ChatCompletionRequest, ChatMessage, ContentPart, FunctionCall, FunctionDefinition,
    FunctionName, ImageUrl, JsonSchemaFormat, MessageContent, NamedToolChoice, ResponseFormat,
    Role, Stop, Tool, ToolCall, ToolChoice, ToolChoiceMode, ToolType,
};

/// How a tool result with `is_error: true` starts, so the model knows the call failed.
pub const TOOL_ERROR_PREFIX: &str = "Error: ";

/// The name `output_config.format`'s schema gets in chat's `response_format` (Anthropic's
/// format has no name; chat's requires one).
const OUTPUT_SCHEMA_NAME: &str = "output";

impl MessagesRequest {
    /// The chat completion request this one runs as. Call it on a validated request: blocks
    /// and tools validation refuses are left out here. Moves the conversation (images can be
    /// large).
    pub fn into_chat(self) -> ChatCompletionRequest {
        let mut messages = Vec::new();
        match self.system {
            Some(Content::Blocks(blocks)) if blocks.is_empty() => {}
            Some(system) => messages.push(ChatMessage {
                content: Some(chat_content(system)),
                ..ChatMessage::text(Role::System, String::new())
            }),
            None => {}
        }
        for m in self.messages {
            match m.role {
                MessageRole::User => push_user(&mut messages, m.content),
                MessageRole::Assistant => push_assistant(&mut messages, m.content),
                MessageRole::System => messages.push(ChatMessage {
                    content: Some(chat_content(m.content)),
                    ..ChatMessage::text(Role::System, String::new())
                }),
            }
        }
        let tools = self.tools.map(|tools| {
            tools
                .into_iter()
                .filter_map(|t| match t {
                    MessagesTool::Custom(c) => Some(Tool {
                        r#type: ToolType::Function,
                        function: FunctionDefinition {
                            name: c.name,
                            description: c.description,
                            parameters: Some(c.input_schema),
                            strict: None,
                        },
                    }),
                    MessagesTool::Unsupported => None,
                })
                .collect()
        });
        let (tool_choice, parallel_tool_calls) = match self.tool_choice {
            Some(choice) => chat_tool_choice(choice),
            None => (None, None),
        };
        let (effort, format) = self
            .output_config
            .map(|c| (c.effort, c.format))
            .unwrap_or_default();
        ChatCompletionRequest {
            model: self.model,
            messages,
            stream: self.stream,
            tools,
            tool_choice,
            parallel_tool_calls,
            temperature: self.temperature,
            top_p: self.top_p,
            max_completion_tokens: self.max_tokens,
            stop: self.stop_sequences.map(Stop::Many),
            response_format: format.map(|f| response_format(&f)),
            reasoning_effort: effort,
            ..ChatCompletionRequest::default()
        }
    }
}

/// `output_config.format` as chat's `response_format`: the one place the two meet.
pub fn response_format(format: &OutputFormat) -> ResponseFormat {
    ResponseFormat::JsonSchema {
        json_schema: JsonSchemaFormat {
            name: OUTPUT_SCHEMA_NAME.into(),
            description: None,
            schema: Some(format.schema.clone()),
            strict: None,
        },
    }
}

/// `auto` → `auto`, `any` → `required`, `tool` → that function, `none` → `none`; with
/// `disable_parallel_tool_use`, `parallel_tool_calls: false`.
fn chat_tool_choice(choice: MessagesToolChoice) -> (Option<ToolChoice>, Option<bool>) {
    let mode = |m| Some(ToolChoice::Mode(m));
    let tool_choice = match choice.kind {
        ToolChoiceKind::Auto => mode(ToolChoiceMode::Auto),
        ToolChoiceKind::Any => mode(ToolChoiceMode::Required),
        ToolChoiceKind::None => mode(ToolChoiceMode::None),
        ToolChoiceKind::Tool => choice.name.map(|name| {
            ToolChoice::Named(NamedToolChoice {
                r#type: ToolType::Function,
                function: FunctionName { name },
            })
        }),
    };
    let parallel = choice.disable_parallel_tool_use.map(|disable| !disable);
    (tool_choice, parallel)
}

fn push_user(messages: &mut Vec<ChatMessage>, content: Content) {
    let blocks = match content {
        Content::Text(text) => return messages.push(ChatMessage::text(Role::User, text)),
        Content::Blocks(blocks) => blocks,
    };
    let mut parts = Vec::new();
    for block in blocks {
        match block {
            Block::ToolResult {
                tool_use_id,
                content,
                is_error,
            } => messages.push(tool_message(tool_use_id, content, is_error == Some(true))),
            other => parts.extend(chat_part(other)),
        }
    }
    if !parts.is_empty() {
        messages.push(ChatMessage {
            content: Some(MessageContent::Parts(parts)),
            ..ChatMessage::text(Role::User, String::new())
        });
    }
}

fn tool_message(tool_use_id: String, content: Option<Box<Content>>, is_error: bool) -> ChatMessage {
    let mut content = content.map_or(MessageContent::Text(String::new()), |c| chat_content(*c));
    if is_error {
        match &mut content {
            MessageContent::Text(t) => t.insert_str(0, TOOL_ERROR_PREFIX),
            MessageContent::Parts(parts) => parts.insert(
                0,
                ContentPart::Text {
                    text: TOOL_ERROR_PREFIX.trim_end().to_owned(),
                },
            ),
        }
    }
    ChatMessage {
        tool_call_id: Some(tool_use_id),
        content: Some(content),
        ..ChatMessage::text(Role::Tool, String::new())
    }
}

fn push_assistant(messages: &mut Vec<ChatMessage>, content: Content) {
    let blocks = match content {
        Content::Text(text) => return messages.push(ChatMessage::text(Role::Assistant, text)),
        Content::Blocks(blocks) => blocks,
    };
    let mut parts = Vec::new();
    let mut calls = Vec::new();
    for block in blocks {
        match block {
            Block::ToolUse { id, name, input } => calls.push(ToolCall {
                id,
                r#type: ToolType::Function,
                function: FunctionCall {
                    name,
                    arguments: input.to_string(),
                },
            }),
            other => parts.extend(chat_part(other)),
        }
    }
    if parts.is_empty() && calls.is_empty() {
        return;
    }
    messages.push(ChatMessage {
        role: Role::Assistant,
        content: (!parts.is_empty()).then_some(MessageContent::Parts(parts)),
        name: None,
        tool_calls: (!calls.is_empty()).then_some(calls),
        tool_call_id: None,
        function_call: None,
    });
}

fn chat_content(content: Content) -> MessageContent {
    match content {
        Content::Text(t) => MessageContent::Text(t),
        Content::Blocks(blocks) => {
            MessageContent::Parts(blocks.into_iter().filter_map(chat_part).collect())
        }
    }
}

/// A text or image block as a chat content part; other blocks have none.
fn chat_part(block: Block) -> Option<ContentPart> {
    match block {
        Block::Text { text } => Some(ContentPart::Text { text }),
        Block::Image {
            source: ImageSource::Base64 { media_type, data },
        } => Some(ContentPart::ImageUrl {
            image_url: ImageUrl {
                url: data_url(&media_type, &data),
                detail: None,
            },
        }),
        _ => None,
    }
}
