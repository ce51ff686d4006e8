//! The bodies of `POST /api/v1/messages` and `POST /api/v1/messages/count_tokens`.
//!
//! Deserializing checks shapes only; [`super::parse_messages_request`] adds the rules. Blocks,
//! image sources and tools of a kind Shoal does not take (documents, server tools, URL
//! images) are read as an `Unsupported`/`Remote` variant rather than failing, so validation
//! can refuse them naming their path. Unknown fields (`cache_control`, `context_management`,
//! `service_tier`, ...) are ignored.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::parse::{MissingField, TextOr};

/// A Messages API request (also the body of `count_tokens`, which needs no `max_tokens`).
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct MessagesRequest {
    /// Model id from the catalog. Missing reads as empty and is refused by validation.
    #[serde(default)]
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub model: String,
    /// `user` and `assistant` turns (and mid-conversation `system` ones). Required.
    #[serde(default)]
    #[cfg_attr(feature = "openapi", schema(required = true, min_items = 1))]
    pub messages: Vec<InputMessage>,
    /// A string or text blocks.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub system: Option<Content>,
    /// Required on `/messages`: the output limit, thinking included.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "openapi", schema(format = Int64, minimum = 1, maximum = 4_294_967_295_u64))]
    pub max_tokens: Option<u32>,
    /// Up to 4.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop_sequences: Option<Vec<String>>,
    /// 0 to 1.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "openapi", schema(minimum = 0, maximum = 1))]
    pub temperature: Option<f64>,
    /// Greater than 0, at most 1.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "openapi", schema(exclusive_minimum = 0, maximum = 1))]
    pub top_p: Option<f64>,
    /// Refused: the workers' sampling has no top-k setting the chat path can pass.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "openapi", schema(format = Int64, minimum = 0, maximum = 4_294_967_295_u64))]
    pub top_k: Option<u32>,
    /// Custom tools only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tools: Option<Vec<MessagesTool>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_choice: Option<MessagesToolChoice>,
    /// Accepted; whether a model thinks is its own (the `-think` model does), and
    /// `budget_tokens` is not enforced: `max_tokens` bounds thinking and answer together.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "crate::parse::object"
    )]
    pub thinking: Option<ThinkingConfig>,
    /// `effort` (as chat's `reasoning_effort`) and `format` (as chat's `response_format`).
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "crate::parse::object"
    )]
    pub output_config: Option<OutputConfig>,
    /// `user_id` is accepted and never sent to a worker.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "crate::parse::object"
    )]
    pub metadata: Option<Metadata>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stream: Option<bool>,
    /// Refused unless null: there are no code-execution containers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "openapi", schema(value_type = Option<Object>))]
    pub container: Option<Value>,
    /// Refused unless empty: remote MCP servers are not called.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "openapi", schema(value_type = Option<Vec<Object>>))]
    pub mcp_servers: Option<Vec<Value>>,
}

impl MessagesRequest {
    /// True when the response is to be streamed.
    pub fn is_stream(&self) -> bool {
        self.stream == Some(true)
    }
}

/// `user` or `assistant`; also `system` for instructions given mid-conversation (Claude Code
/// sends them), which run as a chat `system` message in place.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MessageRole {
    User,
    Assistant,
    System,
}

/// One turn of `messages`.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct InputMessage {
    pub role: MessageRole,
    pub content: Content,
}

/// `content` (and `system`, and a tool result's `content`): a string or a list of blocks.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged, from = "TextOr<Block>")]
pub enum Content {
    Text(String),
    Blocks(Vec<Block>),
}

impl From<TextOr<Block>> for Content {
    fn from(v: TextOr<Block>) -> Self {
        match v {
            TextOr::Text(t) => Content::Text(t),
            TextOr::List(blocks) => Content::Blocks(blocks),
        }
    }
}

/// One content block of a request.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case", try_from = "RawBlock")]
pub enum Block {
    Text {
        text: String,
    },
    /// `{"type":"image","source":{"type":"base64","media_type":"image/png","data":...}}`.
    Image {
        source: ImageSource,
    },
    /// A call the model made, passed back in an assistant turn.
    ToolUse {
        id: String,
        name: String,
        /// The arguments: a JSON object.
        #[cfg_attr(feature = "openapi", schema(value_type = Object))]
        input: Value,
    },
    /// The client's result of a call, in a user turn.
    ToolResult {
        tool_use_id: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[cfg_attr(feature = "openapi", schema(no_recursion))]
        content: Option<Box<Content>>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        is_error: Option<bool>,
    },
    /// The model's thinking, passed back; not shown to the model again (chat templates drop
    /// earlier turns' reasoning).
    Thinking,
    RedactedThinking,
    /// Documents, search results, server-tool blocks; refused.
    Unsupported,
}

#[derive(Deserialize)]
struct RawBlock {
    #[serde(rename = "type")]
    kind: BlockKind,
    #[serde(default)]
    text: Option<String>,
    #[serde(default)]
    source: Option<ImageSource>,
    #[serde(default)]
    id: Option<String>,
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    input: Option<Value>,
    #[serde(default)]
    tool_use_id: Option<String>,
    #[serde(default)]
    content: Option<Box<Content>>,
    #[serde(default)]
    is_error: Option<bool>,
}

#[derive(Deserialize)]
#[serde(rename_all = "snake_case")]
enum BlockKind {
    Text,
    Image,
    ToolUse,
    ToolResult,
    Thinking,
    RedactedThinking,
    #[serde(other)]
    Other,
}

impl TryFrom<RawBlock> for Block {
    type Error = MissingField;
    fn try_from(raw: RawBlock) -> Result<Self, MissingField> {
        Ok(match raw.kind {
            BlockKind::Text => Block::Text {
                text: raw.text.ok_or(MissingField("text"))?,
            },
            BlockKind::Image => Block::Image {
                source: raw.source.ok_or(MissingField("source"))?,
            },
            BlockKind::ToolUse => Block::ToolUse {
                id: raw.id.ok_or(MissingField("id"))?,
                name: raw.name.ok_or(MissingField("name"))?,
                input: raw.input.ok_or(MissingField("input"))?,
            },
            BlockKind::ToolResult => Block::ToolResult {
                tool_use_id: raw.tool_use_id.ok_or(MissingField("tool_use_id"))?,
                content: raw.content,
                is_error: raw.is_error,
            },
            BlockKind::Thinking => Block::Thinking,
            BlockKind::RedactedThinking => Block::RedactedThinking,
            BlockKind::Other => Block::Unsupported,
        })
    }
}

/// An image block's `source`. Only inline base64 is taken: URLs are never fetched and files
/// are never uploaded here.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case", try_from = "RawSource")]
pub enum ImageSource {
    Base64 {
        /// `image/jpeg`, `image/png`, `image/gif` or `image/webp`.
        media_type: String,
        data: String,
    },
    /// A `url` or `file` source; refused.
    Remote,
}

/// Read leniently (a missing `type` is not base64), because a refused block's source (a
/// document's) may have any shape.
#[derive(Deserialize)]
struct RawSource {
    #[serde(rename = "type", default)]
    kind: Option<SourceKind>,
    #[serde(default)]
    media_type: Option<String>,
    #[serde(default)]
    data: Option<String>,
}

#[derive(Deserialize)]
#[serde(rename_all = "snake_case")]
enum SourceKind {
    Base64,
    #[serde(other)]
    Other,
}

impl TryFrom<RawSource> for ImageSource {
    type Error = MissingField;
    fn try_from(raw: RawSource) -> Result<Self, MissingField> {
        Ok(match raw.kind {
            Some(SourceKind::Base64) => ImageSource::Base64 {
                media_type: raw.media_type.ok_or(MissingField("media_type"))?,
                data: raw.data.ok_or(MissingField("data"))?,
            },
            Some(SourceKind::Other) | None => ImageSource::Remote,
        })
    }
}

/// A tool of the request: a custom tool (`type` absent or `custom`), or a server tool (web
/// search, bash, text editor, code execution, ...), which is refused.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged, try_from = "RawTool")]
pub enum MessagesTool {
    Custom(CustomTool),
    #[serde(skip)]
    Unsupported,
}

/// A tool the client runs.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CustomTool {
    /// `^[a-zA-Z0-9_-]{1,64}$`
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// A JSON Schema object for the tool's `input`.
    #[cfg_attr(feature = "openapi", schema(value_type = Object))]
    pub input_schema: Map<String, Value>,
}

#[derive(Deserialize)]
struct RawTool {
    #[serde(rename = "type", default)]
    kind: Option<ToolKind>,
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    description: Option<String>,
    #[serde(default)]
    input_schema: Option<Map<String, Value>>,
}

#[derive(Deserialize)]
#[serde(rename_all = "snake_case")]
enum ToolKind {
    Custom,
    #[serde(other)]
    Other,
}

impl TryFrom<RawTool> for MessagesTool {
    type Error = MissingField;
    fn try_from(raw: RawTool) -> Result<Self, MissingField> {
        Ok(match raw.kind.unwrap_or(ToolKind::Custom) {
            ToolKind::Custom => MessagesTool::Custom(CustomTool {
                name: raw.name.ok_or(MissingField("name"))?,
                description: raw.description,
                input_schema: raw.input_schema.ok_or(MissingField("input_schema"))?,
            }),
            ToolKind::Other => MessagesTool::Unsupported,
        })
    }
}

/// `tool_choice`.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MessagesToolChoice {
    #[serde(rename = "type")]
    pub kind: ToolChoiceKind,
    /// The tool to call, with `type: tool`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// At most one call (chat's `parallel_tool_calls: false`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub disable_parallel_tool_use: Option<bool>,
}

/// `auto` (may call), `any` (must call one), `tool` (must call `name`), `none`.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ToolChoiceKind {
    Auto,
    Any,
    Tool,
    None,
}

/// `thinking`: accepted as a wish; see [`MessagesRequest::thinking`].
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ThinkingConfig {
    #[serde(rename = "type")]
    pub kind: ThinkingKind,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "openapi", schema(format = Int64, minimum = 0, maximum = 4_294_967_295_u64))]
    pub budget_tokens: Option<u32>,
}

#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ThinkingKind {
    Enabled,
    Disabled,
    Adaptive,
}

/// `output_config`.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct OutputConfig {
    /// e.g. `low`, `medium`, `high`; passed to the model as chat's `reasoning_effort`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub effort: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub format: Option<OutputFormat>,
}

/// `output_config.format`: `{"type":"json_schema","schema":{...}}`.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct OutputFormat {
    #[serde(rename = "type")]
    pub kind: OutputFormatKind,
    #[cfg_attr(feature = "openapi", schema(value_type = Object))]
    pub schema: Map<String, Value>,
}

#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OutputFormatKind {
    JsonSchema,
}

/// `metadata`.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Metadata {
    /// The caller's end-user id; never sent to a worker.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub user_id: Option<String>,
}
