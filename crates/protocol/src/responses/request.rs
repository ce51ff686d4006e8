//! The body of `POST /api/v1/responses`, stateless.
//!
//! Deserializing checks shapes only; [`super::parse_responses_request`] adds the rules. Items,
//! parts and tools of a type Shoal does not run (hosted tools and their calls, files) are read
//! as an `Unsupported` variant rather than failing, so that validation can refuse them naming
//! their path. Unknown fields are ignored, because SDKs send extras.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::parse::{MissingField, TextOr};

/// A Responses API request.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct ResponsesRequest {
    /// Model id from the catalog. Missing reads as empty and is refused by validation.
    #[serde(default)]
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub model: String,
    /// The conversation: one user message as a string, or a list of items. Required.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub input: Option<Input>,
    /// A system message put before `input`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub instructions: Option<String>,
    /// Function tools only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tools: Option<Vec<ResponsesTool>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_choice: Option<ResponsesToolChoice>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parallel_tool_calls: Option<bool>,
    /// Output tokens, reasoning included.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "openapi", schema(format = Int64, minimum = 1, maximum = 4_294_967_295_u64))]
    pub max_output_tokens: Option<u32>,
    /// 0 to 2.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "openapi", schema(minimum = 0, maximum = 2))]
    pub temperature: Option<f64>,
    /// Greater than 0, at most 1.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "openapi", schema(exclusive_minimum = 0, maximum = 1))]
    pub top_p: Option<f64>,
    /// `text.format`: plain text (the default), `json_object` or `json_schema`.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "crate::parse::object"
    )]
    pub text: Option<TextConfig>,
    /// `reasoning.effort` is passed to the model like chat's `reasoning_effort`.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "crate::parse::object"
    )]
    pub reasoning: Option<ReasoningConfig>,
    /// Echoed in the response; never sent to a worker.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "openapi", schema(value_type = Option<Object>))]
    pub metadata: Option<Map<String, Value>>,
    /// The caller's end-user id. Accepted; never sent to a worker.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub user: Option<String>,
    /// Accepted; never sent to a worker.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub safety_identifier: Option<String>,
    /// Accepted; never sent to a worker.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompt_cache_key: Option<String>,
    /// Accepted either way; nothing is ever stored (the response says `store: false`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub store: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stream: Option<bool>,
    /// Extra output to include. Accepted; `message.output_text.logprobs` is refused.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub include: Option<Vec<String>>,
    /// `auto` or `disabled`; nothing is ever truncated.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub truncation: Option<Truncation>,
    // Parameters of a stateful service, refused unless absent or null (neutral): Shoal keeps
    // no responses, conversations or prompts.
    /// Refused: the service is stateless; send the whole conversation in `input`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub previous_response_id: Option<String>,
    /// Refused: the service is stateless.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "openapi", schema(value_type = Option<Object>))]
    pub conversation: Option<Value>,
    /// Only `false` is accepted: responses are not stored, so none can run in the background.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub background: Option<bool>,
    /// Refused: stored prompt templates do not exist here.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "openapi", schema(value_type = Option<Object>))]
    pub prompt: Option<Value>,
    /// Only 0 is accepted: workers do not return log-probabilities.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "openapi", schema(format = Int64, minimum = 0, maximum = 4_294_967_295_u64))]
    pub top_logprobs: Option<u32>,
}

impl ResponsesRequest {
    /// True when the response is to be streamed.
    pub fn is_stream(&self) -> bool {
        self.stream == Some(true)
    }
}

/// `input`: a string (one user message) or a list of items.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged, from = "TextOr<InputItem>")]
pub enum Input {
    Text(String),
    Items(Vec<InputItem>),
}

impl From<TextOr<InputItem>> for Input {
    fn from(v: TextOr<InputItem>) -> Self {
        match v {
            TextOr::Text(t) => Input::Text(t),
            TextOr::List(items) => Input::Items(items),
        }
    }
}

/// Who wrote an input message.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum InputRole {
    User,
    Assistant,
    System,
    Developer,
}

/// One item of `input`. Its OpenAPI schema is [`RawItem`]'s: what the parser reads, where a
/// message may leave out its `type`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case", try_from = "RawItem")]
pub enum InputItem {
    /// `{"role":"user","content":...}` (`type: message` optional).
    Message {
        role: InputRole,
        content: ItemContent,
    },
    /// A call the model made, passed back by the client.
    FunctionCall {
        call_id: String,
        name: String,
        arguments: String,
    },
    /// The client's result of a call.
    FunctionCallOutput {
        call_id: String,
        output: ItemContent,
    },
    /// The model's reasoning, passed back; not shown to the model again (chat templates drop
    /// earlier turns' reasoning).
    Reasoning,
    /// A reference to an item stored by a stateful service. Nothing is stored here, so it
    /// names nothing and is left out (see [`crate::responses`]).
    ItemReference,
    /// Hosted-tool calls and outputs and other item types Shoal does not run; refused.
    Unsupported,
}

/// A field that may be left out but, when given, is never `null`.
fn present<'de, D, T>(deserializer: D) -> Result<Option<T>, D::Error>
where
    D: serde::Deserializer<'de>,
    T: Deserialize<'de>,
{
    T::deserialize(deserializer).map(Some)
}

/// An item as it arrives, before the fields its `type` needs are known to be there.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Deserialize)]
struct RawItem {
    /// `message` (the default), `function_call`, `function_call_output`, `reasoning`,
    /// `item_reference`; others are refused.
    // Left out, an item is a message; `null` is no type at all.
    #[serde(rename = "type", default, deserialize_with = "present")]
    #[cfg_attr(feature = "openapi", schema(value_type = String))]
    kind: Option<ItemKind>,
    #[serde(default)]
    role: Option<InputRole>,
    #[serde(default)]
    content: Option<ItemContent>,
    #[serde(default)]
    call_id: Option<String>,
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    arguments: Option<String>,
    #[serde(default)]
    output: Option<ItemContent>,
}

#[derive(Deserialize)]
#[serde(rename_all = "snake_case")]
enum ItemKind {
    Message,
    FunctionCall,
    FunctionCallOutput,
    Reasoning,
    ItemReference,
    #[serde(other)]
    Other,
}

#[cfg(feature = "openapi")]
impl utoipa::PartialSchema for InputItem {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        <RawItem as utoipa::PartialSchema>::schema()
    }
}

#[cfg(feature = "openapi")]
impl utoipa::ToSchema for InputItem {
    fn schemas(
        schemas: &mut Vec<(
            String,
            utoipa::openapi::RefOr<utoipa::openapi::schema::Schema>,
        )>,
    ) {
        <RawItem as utoipa::ToSchema>::schemas(schemas)
    }
}

impl TryFrom<RawItem> for InputItem {
    type Error = MissingField;
    fn try_from(raw: RawItem) -> Result<Self, MissingField> {
        Ok(match raw.kind.unwrap_or(ItemKind::Message) {
            ItemKind::Message => InputItem::Message {
                role: raw.role.ok_or(MissingField("role"))?,
                content: raw.content.ok_or(MissingField("content"))?,
            },
            ItemKind::FunctionCall => InputItem::FunctionCall {
                call_id: raw.call_id.ok_or(MissingField("call_id"))?,
                name: raw.name.ok_or(MissingField("name"))?,
                arguments: raw.arguments.ok_or(MissingField("arguments"))?,
            },
            ItemKind::FunctionCallOutput => InputItem::FunctionCallOutput {
                call_id: raw.call_id.ok_or(MissingField("call_id"))?,
                output: raw.output.ok_or(MissingField("output"))?,
            },
            ItemKind::Reasoning => InputItem::Reasoning,
            ItemKind::ItemReference => InputItem::ItemReference,
            ItemKind::Other => InputItem::Unsupported,
        })
    }
}

/// A message's `content` or a call output's `output`: a string or a list of parts.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged, from = "TextOr<InputPart>")]
pub enum ItemContent {
    Text(String),
    Parts(Vec<InputPart>),
}

impl From<TextOr<InputPart>> for ItemContent {
    fn from(v: TextOr<InputPart>) -> Self {
        match v {
            TextOr::Text(t) => ItemContent::Text(t),
            TextOr::List(parts) => ItemContent::Parts(parts),
        }
    }
}

/// One part of an item's content.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case", try_from = "RawPart")]
pub enum InputPart {
    /// `input_text`, or `output_text` in an assistant message passed back: text either way.
    InputText { text: String },
    /// `{"type":"input_image","image_url":"data:image/png;base64,...","detail":"auto"}`. An
    /// image given by `file_id` (no `image_url`) is refused: nothing is uploaded here.
    InputImage {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        image_url: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        detail: Option<String>,
    },
    /// A refusal the model gave, in an assistant message passed back.
    Refusal { refusal: String },
    /// Files and other part types; refused.
    Unsupported,
}

#[derive(Deserialize)]
struct RawPart {
    #[serde(rename = "type")]
    kind: PartKind,
    #[serde(default)]
    text: Option<String>,
    #[serde(default)]
    image_url: Option<String>,
    #[serde(default)]
    detail: Option<String>,
    #[serde(default)]
    refusal: Option<String>,
}

#[derive(Deserialize)]
#[serde(rename_all = "snake_case")]
enum PartKind {
    InputText,
    OutputText,
    InputImage,
    Refusal,
    #[serde(other)]
    Other,
}

impl TryFrom<RawPart> for InputPart {
    type Error = MissingField;
    fn try_from(raw: RawPart) -> Result<Self, MissingField> {
        Ok(match raw.kind {
            PartKind::InputText | PartKind::OutputText => InputPart::InputText {
                text: raw.text.ok_or(MissingField("text"))?,
            },
            PartKind::InputImage => InputPart::InputImage {
                image_url: raw.image_url,
                detail: raw.detail,
            },
            PartKind::Refusal => InputPart::Refusal {
                refusal: raw.refusal.ok_or(MissingField("refusal"))?,
            },
            PartKind::Other => InputPart::Unsupported,
        })
    }
}

/// A tool of the request: `{"type":"function","name":...,"parameters":{...}}` (flat, unlike
/// chat's), a namespace of function tools, or a hosted tool, which is refused.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case", try_from = "RawTool")]
pub enum ResponsesTool {
    Function(FunctionTool),
    /// Function tools grouped under a name (Codex sends its sub-agent tools so). The model
    /// sees the functions themselves, so their names must be unique across namespaces; a call
    /// of one comes back with its `namespace`.
    Namespace(NamespaceTool),
    /// Web search, file search, code interpreter, computer use, MCP, shell, custom tools:
    /// nothing here can run them.
    Unsupported,
}

/// `{"type":"namespace","name":...,"tools":[function tools]}`.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct NamespaceTool {
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    #[cfg_attr(feature = "openapi", schema(no_recursion))]
    pub tools: Vec<ResponsesTool>,
}

impl ResponsesTool {
    /// The function tools, namespaces opened, each with its namespace.
    pub fn functions(
        tools: &[ResponsesTool],
    ) -> impl Iterator<Item = (&FunctionTool, Option<&str>)> {
        tools.iter().flat_map(|t| {
            let (inner, namespace): (&[ResponsesTool], _) = match t {
                ResponsesTool::Namespace(n) => (&n.tools, Some(n.name.as_str())),
                other => (std::slice::from_ref(other), None),
            };
            inner.iter().filter_map(move |t| match t {
                ResponsesTool::Function(f) => Some((f, namespace)),
                _ => None,
            })
        })
    }
}

/// A function tool.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FunctionTool {
    /// `^[a-zA-Z0-9_-]{1,64}$`
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// A JSON Schema object.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "openapi", schema(value_type = Option<Object>))]
    pub parameters: Option<Map<String, Value>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub strict: Option<bool>,
}

#[derive(Deserialize)]
struct RawTool {
    #[serde(rename = "type")]
    kind: ToolKind,
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    description: Option<String>,
    #[serde(default)]
    parameters: Option<Map<String, Value>>,
    #[serde(default)]
    strict: Option<bool>,
    #[serde(default)]
    tools: Option<Vec<ResponsesTool>>,
}

#[derive(Deserialize)]
#[serde(rename_all = "snake_case")]
enum ToolKind {
    Function,
    Namespace,
    #[serde(other)]
    Other,
}

impl TryFrom<RawTool> for ResponsesTool {
    type Error = MissingField;
    fn try_from(raw: RawTool) -> Result<Self, MissingField> {
        Ok(match raw.kind {
            ToolKind::Function => ResponsesTool::Function(FunctionTool {
                name: raw.name.ok_or(MissingField("name"))?,
                description: raw.description,
                parameters: raw.parameters,
                strict: raw.strict,
            }),
            ToolKind::Namespace => ResponsesTool::Namespace(NamespaceTool {
                name: raw.name.ok_or(MissingField("name"))?,
                description: raw.description,
                tools: raw.tools.ok_or(MissingField("tools"))?,
            }),
            ToolKind::Other => ResponsesTool::Unsupported,
        })
    }
}

/// `tool_choice`: `"none"`, `"auto"`, `"required"`, or `{"type":"function","name":...}`.
/// Other forms (`allowed_tools`, hosted tools) read as `Unsupported` and are refused.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged, try_from = "RawToolChoice")]
pub enum ResponsesToolChoice {
    Mode(crate::chat::ToolChoiceMode),
    Function(NamedFunction),
    #[serde(skip)]
    Unsupported,
}

/// `{"type":"function","name":...}`
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct NamedFunction {
    #[serde(rename = "type")]
    pub r#type: crate::chat::ToolType,
    pub name: String,
}

#[derive(Deserialize)]
#[serde(untagged)]
enum RawToolChoice {
    Mode(crate::chat::ToolChoiceMode),
    Object {
        #[serde(rename = "type")]
        kind: ToolKind,
        #[serde(default)]
        name: Option<String>,
    },
}

impl TryFrom<RawToolChoice> for ResponsesToolChoice {
    type Error = MissingField;
    fn try_from(raw: RawToolChoice) -> Result<Self, MissingField> {
        Ok(match raw {
            RawToolChoice::Mode(mode) => ResponsesToolChoice::Mode(mode),
            RawToolChoice::Object {
                kind: ToolKind::Function,
                name,
            } => ResponsesToolChoice::Function(NamedFunction {
                r#type: crate::chat::ToolType::Function,
                name: name.ok_or(MissingField("name"))?,
            }),
            RawToolChoice::Object { .. } => ResponsesToolChoice::Unsupported,
        })
    }
}

/// `text`: how the answer is formatted.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct TextConfig {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub format: Option<TextFormat>,
    /// A length hint for OpenAI's own models; accepted and not used, as chat ignores it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verbosity: Option<String>,
}

/// `text.format`: the same meaning as chat's `response_format`.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case", try_from = "RawFormat")]
pub enum TextFormat {
    Text,
    JsonObject,
    /// The answer is JSON matching `schema`.
    JsonSchema {
        /// `^[a-zA-Z0-9_-]{1,64}$`
        name: String,
        #[cfg_attr(feature = "openapi", schema(value_type = Object))]
        schema: Map<String, Value>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        description: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        strict: Option<bool>,
    },
}

#[derive(Deserialize)]
struct RawFormat {
    #[serde(rename = "type")]
    kind: FormatKind,
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    schema: Option<Map<String, Value>>,
    #[serde(default)]
    description: Option<String>,
    #[serde(default)]
    strict: Option<bool>,
}

#[derive(Deserialize)]
#[serde(rename_all = "snake_case")]
enum FormatKind {
    Text,
    JsonObject,
    JsonSchema,
}

impl TryFrom<RawFormat> for TextFormat {
    type Error = MissingField;
    fn try_from(raw: RawFormat) -> Result<Self, MissingField> {
        Ok(match raw.kind {
            FormatKind::Text => TextFormat::Text,
            FormatKind::JsonObject => TextFormat::JsonObject,
            FormatKind::JsonSchema => TextFormat::JsonSchema {
                name: raw.name.ok_or(MissingField("name"))?,
                schema: raw.schema.ok_or(MissingField("schema"))?,
                description: raw.description,
                strict: raw.strict,
            },
        })
    }
}

/// `reasoning`.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct ReasoningConfig {
    /// e.g. `low`, `medium`, `high`; passed to the model as chat's `reasoning_effort`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub effort: Option<String>,
    /// Accepted; the reasoning comes back whole (as `reasoning_text`), never summarized.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub summary: Option<String>,
}

/// `truncation`.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Truncation {
    Auto,
    #[default]
    Disabled,
}
