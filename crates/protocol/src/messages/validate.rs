//! From request bytes to a validated [`MessagesRequest`]. Messages name the field and the
//! rule, never the value found (the crate's rule, see [`crate::parse`]).

use super::request::{
    Block, Content, ImageSource, MessageRole, MessagesRequest, MessagesTool, ToolChoiceKind,
};
use crate::parse::json_error::{Vocabulary, POSITIVE_INTEGER};
use crate::parse::{
    check_image_url, is_valid_tool_name, parse_body, InvalidRequest, MAX_STOP_SEQUENCES,
};

type Check = Result<(), InvalidRequest>;

/// Parses and validates a `POST /api/v1/messages` body (`max_tokens` required).
pub fn parse_messages_request(body: &[u8]) -> Result<MessagesRequest, InvalidRequest> {
    let request: MessagesRequest = parse_body(body, &VOCABULARY)?;
    request.validate()?;
    if request.max_tokens.is_none() {
        return Err(refusal(
            "max_tokens",
            "is required: the most tokens the answer may have, thinking included",
        ));
    }
    Ok(request)
}

/// Parses and validates a `POST /api/v1/messages/count_tokens` body: a messages request
/// without `max_tokens`.
pub fn parse_count_tokens_request(body: &[u8]) -> Result<MessagesRequest, InvalidRequest> {
    let request: MessagesRequest = parse_body(body, &VOCABULARY)?;
    request.validate()?;
    Ok(request)
}

fn refusal(param: &str, why: &str) -> InvalidRequest {
    InvalidRequest::new(param, format!("`{param}` {why}"))
}

fn refuse(param: &str, why: &str) -> Check {
    Err(refusal(param, why))
}

impl MessagesRequest {
    /// Checks the rules serde's shapes cannot express (all but `max_tokens` being present);
    /// reports the first rule broken.
    pub fn validate(&self) -> Check {
        if self.model.trim().is_empty() {
            return refuse("model", "is required: a model id from GET /api/v1/models");
        }
        if self.messages.is_empty() {
            return refuse(
                "messages",
                "is required and must be a non-empty array of messages",
            );
        }
        if let Some(Content::Blocks(blocks)) = &self.system {
            for (j, block) in blocks.iter().enumerate() {
                if !matches!(block, Block::Text { .. }) {
                    return refuse(&format!("system[{j}]"), "must be a text block");
                }
            }
        }
        for (i, m) in self.messages.iter().enumerate() {
            check_message(i, m.role, &m.content)?;
        }
        self.check_tools()?;
        self.check_sampling()?;
        if self.container.is_some() {
            return refuse(
                "container",
                "is not supported: Shoal runs no code-execution containers",
            );
        }
        if self.mcp_servers.as_ref().is_some_and(|s| !s.is_empty()) {
            return refuse(
                "mcp_servers",
                "is not supported: Shoal calls no MCP servers",
            );
        }
        Ok(())
    }

    fn check_tools(&self) -> Check {
        let tools = self.tools.as_deref().unwrap_or_default();
        let name_of = |t: &MessagesTool| match t {
            MessagesTool::Custom(c) => Some(c.name.clone()),
            MessagesTool::Unsupported => None,
        };
        for (j, tool) in tools.iter().enumerate() {
            let MessagesTool::Custom(custom) = tool else {
                return refuse(
                    &format!("tools[{j}]"),
                    "is a server tool: Shoal runs only the client's own tools (`name`, \
                     `input_schema`, no `type` or `type: custom`); web search, web fetch, code \
                     execution, bash, text editor, computer use and memory tools are not \
                     available",
                );
            };
            let param = format!("tools[{j}].name");
            if !is_valid_tool_name(&custom.name) {
                return refuse(
                    &param,
                    "must be 1 to 64 characters of a-z, A-Z, 0-9, `_` and `-`",
                );
            }
            if let Some(k) = tools[..j]
                .iter()
                .position(|t| name_of(t).as_ref() == Some(&custom.name))
            {
                return refuse(
                    &param,
                    &format!("repeats the name of `tools[{k}]`; tool names must be unique"),
                );
            }
        }
        let Some(choice) = &self.tool_choice else {
            return Ok(());
        };
        match choice.kind {
            ToolChoiceKind::Tool => match &choice.name {
                None => refuse("tool_choice.name", "is required with `type: tool`"),
                Some(name) if !tools.iter().any(|t| name_of(t).as_ref() == Some(name)) => refuse(
                    "tool_choice.name",
                    "must be the name of a tool defined in `tools`",
                ),
                Some(_) => Ok(()),
            },
            ToolChoiceKind::Any if tools.is_empty() => refuse(
                "tool_choice",
                "requires a tool call, but `tools` is empty or missing",
            ),
            _ => Ok(()),
        }
    }

    fn check_sampling(&self) -> Check {
        if self.max_tokens == Some(0) {
            return refuse("max_tokens", "must be at least 1");
        }
        if self.temperature.is_some_and(|t| !(0.0..=1.0).contains(&t)) {
            return refuse("temperature", "must be a number from 0 to 1");
        }
        if self.top_p.is_some_and(|p| !(p > 0.0 && p <= 1.0)) {
            return refuse("top_p", "must be a number greater than 0 and at most 1");
        }
        if self.top_k.is_some() {
            return refuse(
                "top_k",
                "is not supported: the workers' sampling takes `temperature` and `top_p` only",
            );
        }
        let stops = self.stop_sequences.as_deref().unwrap_or_default();
        if stops.len() > MAX_STOP_SEQUENCES {
            return refuse(
                "stop_sequences",
                &format!("takes at most {MAX_STOP_SEQUENCES} sequences"),
            );
        }
        if let Some(k) = stops.iter().position(String::is_empty) {
            return refuse(
                &format!("stop_sequences[{k}]"),
                "must not be an empty string",
            );
        }
        Ok(())
    }
}

fn check_message(i: usize, role: MessageRole, content: &Content) -> Check {
    let Content::Blocks(blocks) = content else {
        return Ok(());
    };
    if blocks.is_empty() {
        return refuse(
            &format!("messages[{i}].content"),
            "must be a string or a non-empty array of content blocks",
        );
    }
    for (j, block) in blocks.iter().enumerate() {
        let at = |field: &str| format!("messages[{i}].content[{j}]{field}");
        let allowed = matches!(
            (role, block),
            (_, Block::Text { .. } | Block::Unsupported)
                | (
                    MessageRole::User,
                    Block::Image { .. } | Block::ToolResult { .. }
                )
                | (
                    MessageRole::Assistant,
                    Block::ToolUse { .. } | Block::Thinking | Block::RedactedThinking
                )
        );
        if !allowed {
            let who = match role {
                MessageRole::User => "`text`, `image` and `tool_result` blocks",
                MessageRole::Assistant => {
                    "`text`, `tool_use`, `thinking` and `redacted_thinking` blocks"
                }
                MessageRole::System => "`text` blocks",
            };
            return refuse(
                &at(""),
                &format!("is not allowed in this turn: it may hold {who}"),
            );
        }
        check_block(block, &at)?;
    }
    Ok(())
}

fn check_block(block: &Block, at: &dyn Fn(&str) -> String) -> Check {
    match block {
        Block::Image { source } => check_image(source, &at(".source")),
        Block::ToolUse { id, name, input } => {
            if id.is_empty() {
                return refuse(&at(".id"), "must be a non-empty string");
            }
            if name.is_empty() {
                return refuse(&at(".name"), "must be a non-empty string");
            }
            if !input.is_object() {
                return refuse(&at(".input"), "must be an object: the tool's arguments");
            }
            Ok(())
        }
        Block::ToolResult {
            tool_use_id,
            content,
            ..
        } => {
            if tool_use_id.is_empty() {
                return refuse(&at(".tool_use_id"), "must be a non-empty string");
            }
            if let Some(Content::Blocks(blocks)) = content.as_deref() {
                if let Some(k) = blocks.iter().position(|b| !matches!(b, Block::Text { .. })) {
                    return refuse(
                        &at(&format!(".content[{k}]")),
                        "must be a text block: a tool's result reaches the model as text \
                         (images in tool results are not supported)",
                    );
                }
            }
            Ok(())
        }
        Block::Unsupported => refuse(
            &at(""),
            "is a block type Shoal does not take: blocks are `text`, `image`, `tool_use`, \
             `tool_result`, `thinking` and `redacted_thinking` (no documents or server-tool \
             blocks)",
        ),
        Block::Text { .. } | Block::Thinking | Block::RedactedThinking => Ok(()),
    }
}

fn check_image(source: &ImageSource, param: &str) -> Check {
    match source {
        ImageSource::Remote => refuse(
            param,
            "must be an inline base64 source (`{\"type\":\"base64\",\"media_type\":...,\
             \"data\":...}`): remote image URLs are never fetched and files are not uploaded \
             here",
        ),
        ImageSource::Base64 { media_type, data } => check_image_url(&data_url(media_type, data))
            .map_err(|why| InvalidRequest::new(param, format!("`{param}`: {why}"))),
    }
}

/// An inline image as the data URL chat carries it in.
pub(super) fn data_url(media_type: &str, data: &str) -> String {
    format!("data:{media_type};base64,{data}")
}

/// Every field name of the Messages request types.
const FIELD_NAMES: &[&str] = &[
    "model",
    "messages",
    "system",
    "max_tokens",
    "stop_sequences",
    "temperature",
    "top_p",
    "top_k",
    "tools",
    "tool_choice",
    "thinking",
    "budget_tokens",
    "output_config",
    "effort",
    "format",
    "schema",
    "metadata",
    "user_id",
    "stream",
    "mcp_servers",
    "role",
    "content",
    "type",
    "text",
    "source",
    "media_type",
    "data",
    "id",
    "name",
    "input",
    "tool_use_id",
    "is_error",
    "description",
    "input_schema",
    "disable_parallel_tool_use",
];

pub(super) const VOCABULARY: Vocabulary = Vocabulary {
    fields: FIELD_NAMES,
    expected,
};

const A_STRING: &str = "a string";
const BLOCKS: &str = "a string or an array of content blocks";

/// What the field at a normalized Messages path takes, in words.
fn expected(path: &str) -> Option<&'static str> {
    Some(match path {
        "model" => "a model id (string)",
        "messages" => "an array of message objects",
        "messages[]" => "a message object with `role` and `content`",
        "messages[].role" => "`user`, `assistant` or `system`",
        "messages[].content" | "system" | "messages[].content[].content" => BLOCKS,
        "messages[].content[]" | "system[]" | "messages[].content[].content[]" => {
            "a content block object such as `{\"type\":\"text\",\"text\":...}`"
        }
        "messages[].content[].type" | "system[].type" | "messages[].content[].content[].type" => {
            "a block type such as `text`, `image`, `tool_use` or `tool_result`"
        }
        "messages[].content[].text"
        | "system[].text"
        | "messages[].content[].content[].text"
        | "messages[].content[].id"
        | "messages[].content[].name"
        | "messages[].content[].tool_use_id" => A_STRING,
        "messages[].content[].input" => "an object (the tool's arguments)",
        "messages[].content[].is_error" | "stream" | "tool_choice.disable_parallel_tool_use" => {
            "a boolean"
        }
        "messages[].content[].source" => {
            "an image source object: `{\"type\":\"base64\",\"media_type\":...,\"data\":...}`"
        }
        "messages[].content[].source.type" => "a source type such as `base64`",
        "messages[].content[].source.media_type" => {
            "a string (`image/jpeg`, `image/png`, `image/gif` or `image/webp`)"
        }
        "messages[].content[].source.data" => "a string (base64)",
        "max_tokens" => POSITIVE_INTEGER,
        "stop_sequences" => "an array of at most 4 strings",
        "stop_sequences[]" => A_STRING,
        "temperature" => "a number from 0 to 1",
        "top_p" => "a number greater than 0 and at most 1",
        "top_k" => "an integer (not supported)",
        "tools" => "an array of tools",
        "tools[]" => "a tool: `{\"name\":...,\"description\":...,\"input_schema\":{...}}`",
        "tools[].type" => "a tool type such as `custom`",
        "tools[].name" | "tools[].description" => A_STRING,
        "tools[].input_schema" => "a JSON Schema object",
        "tool_choice" => "an object such as `{\"type\":\"auto\"}`",
        "tool_choice.type" => "`auto`, `any`, `tool` or `none`",
        "tool_choice.name" => A_STRING,
        "thinking" => "an object such as `{\"type\":\"enabled\",\"budget_tokens\":1024}`",
        "thinking.type" => "`enabled`, `disabled` or `adaptive`",
        "thinking.budget_tokens" => "a non-negative integer",
        "output_config" => "an object such as `{\"effort\":\"low\"}`",
        "output_config.effort" => "a string such as `low`, `medium` or `high`",
        "output_config.format" => "an object `{\"type\":\"json_schema\",\"schema\":{...}}`",
        "output_config.format.type" => "`json_schema`",
        "output_config.format.schema" => "a JSON Schema object",
        "metadata" => "an object such as `{\"user_id\":...}`",
        "metadata.user_id" => A_STRING,
        "mcp_servers" => "an array (only an empty one is supported)",
        _ => return None,
    })
}
