//! A validated [`ResponsesRequest`] as the chat completion request it runs as.
//!
//! The result is what a chat client sending the same conversation would send, so the job a
//! worker gets (`JobRequest::from_chat`) is the same one; the route adds nothing a worker
//! could tell apart. What does not reach a worker: `metadata`, `user`, `safety_identifier`,
//! `prompt_cache_key`, `store`, `include`, `truncation`, `reasoning` items and
//! `item_reference` items.

use super::request::{
    Input, InputItem, InputPart, InputRole, ItemContent, ResponsesRequest, ResponsesTool,
    ResponsesToolChoice, TextFormat,
};
use crate::chat::{
    ChatCompletionRequest, ChatMessage, ContentPart, FunctionCall, FunctionDefinition,
    FunctionName, ImageUrl, JsonSchemaFormat, MessageContent, NamedToolChoice, ResponseFormat,
    Role, Tool, ToolCall, ToolChoice, ToolType,
};

impl ResponsesRequest {
    /// The chat completion request this one runs as. Call it on a validated request: parts
    /// and tools validation refuses are left out here. Moves the conversation (images can be
    /// large); take what the response echoes first.
    pub fn into_chat(self) -> ChatCompletionRequest {
        let mut messages = Vec::new();
        if let Some(instructions) = self.instructions {
            messages.push(ChatMessage::text(Role::System, instructions));
        }
        match self.input {
            Some(Input::Text(text)) => messages.push(ChatMessage::text(Role::User, text)),
            Some(Input::Items(items)) => {
                for item in items {
                    push_item(&mut messages, item);
                }
            }
            None => {}
        }
        let tools = self.tools.map(|tools| {
            ResponsesTool::functions(&tools)
                .map(|(f, _)| Tool {
                    r#type: ToolType::Function,
                    function: FunctionDefinition {
                        name: f.name.clone(),
                        description: f.description.clone(),
                        parameters: f.parameters.clone(),
                        strict: f.strict,
                    },
                })
                .collect()
        });
        ChatCompletionRequest {
            model: self.model,
            messages,
            stream: self.stream,
            tools,
            tool_choice: self.tool_choice.as_ref().and_then(chat_tool_choice),
            parallel_tool_calls: self.parallel_tool_calls,
            temperature: self.temperature,
            top_p: self.top_p,
            max_completion_tokens: self.max_output_tokens,
            response_format: self
                .text
                .as_ref()
                .and_then(|t| t.format.as_ref())
                .and_then(response_format),
            reasoning_effort: self.reasoning.and_then(|r| r.effort),
            ..ChatCompletionRequest::default()
        }
    }
}

/// `text.format` as chat's `response_format`: the one place the two meet. `text` is chat's
/// default and needs no field; `json_schema`'s flat `name`/`schema`/... go under
/// `json_schema`, where chat has them.
pub fn response_format(format: &TextFormat) -> Option<ResponseFormat> {
    match format {
        TextFormat::Text => None,
        TextFormat::JsonObject => Some(ResponseFormat::JsonObject),
        TextFormat::JsonSchema {
            name,
            schema,
            description,
            strict,
        } => Some(ResponseFormat::JsonSchema {
            json_schema: JsonSchemaFormat {
                name: name.clone(),
                description: description.clone(),
                schema: Some(schema.clone()),
                strict: *strict,
            },
        }),
    }
}

fn chat_tool_choice(choice: &ResponsesToolChoice) -> Option<ToolChoice> {
    match choice {
        ResponsesToolChoice::Mode(mode) => Some(ToolChoice::Mode(*mode)),
        ResponsesToolChoice::Function(f) => Some(ToolChoice::Named(NamedToolChoice {
            r#type: ToolType::Function,
            function: FunctionName {
                name: f.name.clone(),
            },
        })),
        ResponsesToolChoice::Unsupported => None,
    }
}

/// Appends one input item as chat messages. A `function_call` joins the assistant message
/// just before it (text and calls of one turn are one chat message), or starts one.
fn push_item(messages: &mut Vec<ChatMessage>, item: InputItem) {
    match item {
        InputItem::Message { role, content } => {
            let role = match role {
                InputRole::User => Role::User,
                InputRole::Assistant => Role::Assistant,
                InputRole::System => Role::System,
                InputRole::Developer => Role::Developer,
            };
            messages.push(ChatMessage {
                content: Some(chat_content(content)),
                ..ChatMessage::text(role, String::new())
            });
        }
        InputItem::FunctionCall {
            call_id,
            name,
            arguments,
        } => {
            let call = ToolCall {
                id: call_id,
                r#type: ToolType::Function,
                function: FunctionCall { name, arguments },
            };
            match messages.last_mut() {
                Some(last) if last.role == Role::Assistant => {
                    last.tool_calls.get_or_insert_with(Vec::new).push(call)
                }
                _ => messages.push(ChatMessage {
                    role: Role::Assistant,
                    content: None,
                    name: None,
                    tool_calls: Some(vec![call]),
                    tool_call_id: None,
                    function_call: None,
                }),
            }
        }
        InputItem::FunctionCallOutput { call_id, output } => messages.push(ChatMessage {
            tool_call_id: Some(call_id),
            content: Some(chat_content(output)),
            ..ChatMessage::text(Role::Tool, String::new())
        }),
        // Reasoning passed back is not shown again (chat templates drop it); a reference
        // names an item nobody stored.
        InputItem::Reasoning | InputItem::ItemReference | InputItem::Unsupported => {}
    }
}

fn chat_content(content: ItemContent) -> MessageContent {
    match content {
        ItemContent::Text(t) => MessageContent::Text(t),
        ItemContent::Parts(parts) => MessageContent::Parts(
            parts
                .into_iter()
                .filter_map(|p| match p {
                    InputPart::InputText { text } => Some(ContentPart::Text { text }),
                    InputPart::Refusal { refusal } => Some(ContentPart::Refusal { refusal }),
                    InputPart::InputImage { image_url, detail } => {
                        image_url.map(|url| ContentPart::ImageUrl {
                            image_url: ImageUrl { url, detail },
                        })
                    }
                    InputPart::Unsupported => None,
                })
                .collect(),
        ),
    }
}
