//! The body of `POST /api/v1/chat/completions`.
//!
//! Deserializing these types checks shapes only; [`crate::parse::parse_chat_request`] adds the
//! semantic rules (required fields per role, data-URL images, tool names, ranges). Unknown
//! fields are ignored, because SDKs send extras. Serialization is the inverse of parsing:
//! absent optionals are left out, so a parsed request re-serialized carries the same messages
//! and tools, which is how they are forwarded to workers.

use std::fmt;

use serde::de::{self, MapAccess, SeqAccess, Visitor};
use serde::{Deserialize, Deserializer, Serialize};
use serde_json::{Map, Value};

use crate::parse::MissingField;

/// A chat completion request.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct ChatCompletionRequest {
    /// Model id from the catalog (aliases included). Missing reads as empty and is refused by
    /// validation, so its message matches the other "required" ones.
    #[serde(default)]
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub model: String,
    #[serde(default)]
    #[cfg_attr(feature = "openapi", schema(required = true, min_items = 1))]
    pub messages: Vec<ChatMessage>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stream: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stream_options: Option<StreamOptions>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tools: Option<Vec<Tool>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_choice: Option<ToolChoice>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parallel_tool_calls: Option<bool>,
    /// 0 to 2.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "openapi", schema(minimum = 0, maximum = 2))]
    pub temperature: Option<f64>,
    /// Greater than 0, at most 1.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "openapi", schema(exclusive_minimum = 0, maximum = 1))]
    pub top_p: Option<f64>,
    /// Legacy name of `max_completion_tokens`; see [`ChatCompletionRequest::max_output_tokens`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "openapi", schema(format = Int64, minimum = 1, maximum = 4_294_967_295_u64))]
    pub max_tokens: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "openapi", schema(format = Int64, minimum = 1, maximum = 4_294_967_295_u64))]
    pub max_completion_tokens: Option<u32>,
    /// Up to 4 stop sequences.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop: Option<Stop>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seed: Option<i64>,
    /// Only 1 is supported.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "openapi", schema(format = Int64, minimum = 1, maximum = 1))]
    pub n: Option<u32>,
    /// -2 to 2.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "openapi", schema(minimum = -2, maximum = 2))]
    pub presence_penalty: Option<f64>,
    /// -2 to 2.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "openapi", schema(minimum = -2, maximum = 2))]
    pub frequency_penalty: Option<f64>,
    /// `text`, `json_object` or `json_schema`. Validation refuses a schema outside the subset
    /// the engines enforce ([`crate::schema`]), naming the keyword.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub response_format: Option<super::ResponseFormat>,
    /// e.g. `low`, `medium`, `high`; passed through as given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reasoning_effort: Option<String>,
    /// The caller's end-user id. Accepted for compatibility; the gateway never forwards it to
    /// a worker (workers never learn who asked).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub user: Option<String>,
    // Parameters Shoal does not honour, accepted only in their neutral form (absent, null,
    // `false`, empty, text only): ignoring any other value would change what the caller
    // receives without saying so, so validation refuses it with a 400 naming the parameter.
    // Never forwarded to a worker.
    /// Only `false` (or null) is accepted: workers do not return log-probabilities.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub logprobs: Option<bool>,
    /// Only 0 (or null) is accepted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "openapi", schema(format = Int64, minimum = 0, maximum = 4_294_967_295_u64))]
    pub top_logprobs: Option<u32>,
    /// Only an empty object (or null) is accepted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "openapi", schema(value_type = Option<Object>))]
    pub logit_bias: Option<Map<String, Value>>,
    /// Only `["text"]` (or null) is accepted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub modalities: Option<Vec<String>>,
    /// Only null is accepted: chat completions answer with text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub audio: Option<Value>,
    /// The legacy form of `tools`; only null is accepted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub functions: Option<Value>,
    /// The legacy form of `tool_choice`; only null is accepted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub function_call: Option<Value>,
    /// Only null is accepted: Shoal does not search the web.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "openapi", schema(schema_with = only_null))]
    pub web_search_options: Option<Value>,
}

/// `stream_options`.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct StreamOptions {
    /// When true on a stream, a final chunk with `choices: []` carries the usage.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub include_usage: Option<bool>,
}

/// Who wrote a message.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    System,
    /// The newer name of `system` in the OpenAI API; treated exactly like `system`.
    Developer,
    User,
    Assistant,
    Tool,
    /// The legacy form of a tool result: names the function (`name`) instead of a call id.
    /// Workers never see it: the gateway forwards it as a `tool` message.
    Function,
}

impl Role {
    /// `system` or `developer`.
    pub fn is_system(self) -> bool {
        matches!(self, Role::System | Role::Developer)
    }

    /// The wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            Role::System => "system",
            Role::Developer => "developer",
            Role::User => "user",
            Role::Assistant => "assistant",
            Role::Tool => "tool",
            Role::Function => "function",
        }
    }
}

/// One message of the conversation.
///
/// One flat struct for every role (as on the wire); which fields a role needs is checked by
/// validation. `content` is serialized as `null` when absent (an assistant message that only
/// calls tools), the way the OpenAI API writes it.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ChatMessage {
    pub role: Role,
    #[serde(default)]
    pub content: Option<MessageContent>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Assistant messages: the tools the model called. An empty array reads like none and is
    /// not written back.
    #[serde(default, skip_serializing_if = "is_none_or_empty")]
    pub tool_calls: Option<Vec<ToolCall>>,
    /// Tool messages: the `id` of the tool call this message answers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_call_id: Option<String>,
    /// Assistant messages, legacy form: the one function the model called (answered by a
    /// `function` message). Workers never see it: the gateway forwards it as a tool call.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub function_call: Option<FunctionCall>,
}

/// The schema of a field whose only accepted value is `null` (validation refuses the rest).
#[cfg(feature = "openapi")]
fn only_null() -> utoipa::openapi::schema::Object {
    utoipa::openapi::schema::ObjectBuilder::new()
        .schema_type(utoipa::openapi::schema::Type::Null)
        .description(Some(
            "Only null is accepted: Shoal does not search the web.",
        ))
        .build()
}

fn is_none_or_empty<T>(v: &Option<Vec<T>>) -> bool {
    v.as_ref().is_none_or(|v| v.is_empty())
}

impl ChatMessage {
    /// A message with plain-text content.
    pub fn text(role: Role, text: impl Into<String>) -> Self {
        ChatMessage {
            role,
            content: Some(MessageContent::Text(text.into())),
            name: None,
            tool_calls: None,
            tool_call_id: None,
            function_call: None,
        }
    }

    /// Tool calls of an assistant message, empty when there are none.
    pub fn tool_calls(&self) -> &[ToolCall] {
        self.tool_calls.as_deref().unwrap_or_default()
    }
}

/// `content`: a string, or an array of parts (the form used for image input).
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum MessageContent {
    Text(String),
    Parts(Vec<ContentPart>),
}

impl MessageContent {
    /// The parts, with a plain string seen as one text part.
    pub fn parts(&self) -> impl Iterator<Item = PartRef<'_>> {
        let (text, parts) = match self {
            MessageContent::Text(t) => (Some(PartRef::Text(t.as_str())), &[][..]),
            MessageContent::Parts(p) => (None, p.as_slice()),
        };
        text.into_iter().chain(parts.iter().map(|p| match p {
            ContentPart::Text { text } | ContentPart::Refusal { refusal: text } => {
                PartRef::Text(text.as_str())
            }
            ContentPart::ImageUrl { image_url } => PartRef::Image(image_url),
        }))
    }

    pub fn has_image_parts(&self) -> bool {
        self.parts().any(|p| matches!(p, PartRef::Image(_)))
    }
}

/// A borrowed view of one part of [`MessageContent`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum PartRef<'a> {
    Text(&'a str),
    Image(&'a ImageUrl),
}

impl<'de> Deserialize<'de> for MessageContent {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct ContentVisitor;
        impl<'de> Visitor<'de> for ContentVisitor {
            type Value = MessageContent;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a string or an array of content parts")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
                Ok(MessageContent::Text(v.to_owned()))
            }
            fn visit_string<E: de::Error>(self, v: String) -> Result<Self::Value, E> {
                Ok(MessageContent::Text(v))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
                let mut parts = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(64));
                while let Some(part) = seq.next_element::<ContentPart>()? {
                    parts.push(part);
                }
                Ok(MessageContent::Parts(parts))
            }
        }
        deserializer.deserialize_any(ContentVisitor)
    }
}

/// One element of an array `content`.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case", try_from = "RawContentPart")]
pub enum ContentPart {
    /// `{"type":"text","text":"..."}`
    Text { text: String },
    /// `{"type":"image_url","image_url":{"url":"data:image/png;base64,...","detail":"auto"}}`
    ImageUrl { image_url: ImageUrl },
    /// `{"type":"refusal","refusal":"..."}`: in an assistant message of the history, a refusal
    /// the model gave. Workers see it as a text part.
    Refusal { refusal: String },
}

/// The image of an `image_url` part. Validation accepts only inline base64 `data:image/...`
/// URLs: remote URLs are never fetched.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ImageUrl {
    pub url: String,
    /// `auto`, `low` or `high`; passed through as given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
}

/// A content part as it arrives, before the fields its `type` needs are known to be there.
/// (A plain internally tagged enum would lose the field path in errors.)
#[derive(Deserialize)]
struct RawContentPart {
    #[serde(rename = "type")]
    kind: PartKind,
    #[serde(default)]
    text: Option<String>,
    #[serde(default)]
    image_url: Option<ImageUrl>,
    #[serde(default)]
    refusal: Option<String>,
}

#[derive(Deserialize)]
#[serde(rename_all = "snake_case")]
enum PartKind {
    Text,
    ImageUrl,
    Refusal,
}

impl TryFrom<RawContentPart> for ContentPart {
    type Error = MissingField;
    fn try_from(raw: RawContentPart) -> Result<Self, MissingField> {
        match raw.kind {
            PartKind::Text => raw
                .text
                .map(|text| ContentPart::Text { text })
                .ok_or(MissingField("text")),
            PartKind::ImageUrl => raw
                .image_url
                .map(|image_url| ContentPart::ImageUrl { image_url })
                .ok_or(MissingField("image_url")),
            PartKind::Refusal => raw
                .refusal
                .map(|refusal| ContentPart::Refusal { refusal })
                .ok_or(MissingField("refusal")),
        }
    }
}

/// The only tool type there is.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ToolType {
    #[default]
    Function,
}

/// A tool the model may call: `{"type":"function","function":{...}}`.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Tool {
    #[serde(rename = "type")]
    pub r#type: ToolType,
    pub function: FunctionDefinition,
}

/// The function of a [`Tool`].
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FunctionDefinition {
    /// `^[a-zA-Z0-9_-]{1,64}$`
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// A JSON Schema object (`type: object`, `properties`, `required`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "openapi", schema(value_type = Option<Object>))]
    pub parameters: Option<Map<String, Value>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub strict: Option<bool>,
}

/// A call the model made: in an assistant message of the history, and in responses.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToolCall {
    pub id: String,
    /// Some clients leave it out of the history they send back; it can only be `function`.
    #[serde(rename = "type", default)]
    pub r#type: ToolType,
    pub function: FunctionCall,
}

/// The function name and its arguments, a JSON document as a string (as the model wrote it,
/// so not necessarily valid JSON).
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FunctionCall {
    pub name: String,
    pub arguments: String,
}

/// `tool_choice`: `"none"`, `"auto"`, `"required"`, or one named function.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(untagged)]
pub enum ToolChoice {
    Mode(ToolChoiceMode),
    Named(NamedToolChoice),
}

#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ToolChoiceMode {
    None,
    Auto,
    Required,
}

/// `{"type":"function","function":{"name":"..."}}`
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct NamedToolChoice {
    #[serde(rename = "type")]
    pub r#type: ToolType,
    pub function: FunctionName,
}

#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FunctionName {
    pub name: String,
}

impl<'de> Deserialize<'de> for ToolChoice {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct ChoiceVisitor;
        impl<'de> Visitor<'de> for ChoiceVisitor {
            type Value = ToolChoice;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("\"none\", \"auto\", \"required\" or a named function")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
                match v {
                    "none" => Ok(ToolChoice::Mode(ToolChoiceMode::None)),
                    "auto" => Ok(ToolChoice::Mode(ToolChoiceMode::Auto)),
                    "required" => Ok(ToolChoice::Mode(ToolChoiceMode::Required)),
                    _ => Err(E::unknown_variant(v, &["none", "auto", "required"])),
                }
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
                NamedToolChoice::deserialize(de::value::MapAccessDeserializer::new(map))
                    .map(ToolChoice::Named)
            }
        }
        deserializer.deserialize_any(ChoiceVisitor)
    }
}

/// `stop`: one string or an array of strings.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(untagged)]
pub enum Stop {
    One(String),
    Many(Vec<String>),
}

impl Stop {
    pub fn as_slice(&self) -> &[String] {
        match self {
            Stop::One(s) => std::slice::from_ref(s),
            Stop::Many(v) => v,
        }
    }
}

impl<'de> Deserialize<'de> for Stop {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct StopVisitor;
        impl<'de> Visitor<'de> for StopVisitor {
            type Value = Stop;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a string or an array of strings")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
                Ok(Stop::One(v.to_owned()))
            }
            fn visit_string<E: de::Error>(self, v: String) -> Result<Self::Value, E> {
                Ok(Stop::One(v))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
                let mut all = Vec::new();
                while let Some(s) = seq.next_element::<String>()? {
                    all.push(s);
                }
                Ok(Stop::Many(all))
            }
        }
        deserializer.deserialize_any(StopVisitor)
    }
}

impl ChatCompletionRequest {
    /// True when any message carries an image part (the model must have vision).
    pub fn has_image_parts(&self) -> bool {
        self.messages.iter().any(|m| {
            m.content
                .as_ref()
                .is_some_and(MessageContent::has_image_parts)
        })
    }

    /// The caller's output limit: `max_completion_tokens`, else the legacy `max_tokens`.
    pub fn max_output_tokens(&self) -> Option<u32> {
        self.max_completion_tokens.or(self.max_tokens)
    }

    /// True when this is a stream and the caller asked for the usage chunk at its end.
    pub fn wants_usage_in_stream(&self) -> bool {
        self.stream == Some(true)
            && self.stream_options.as_ref().and_then(|o| o.include_usage) == Some(true)
    }

    /// True when only a worker that enforces structured outputs may answer: the content must
    /// be JSON (`response_format` `json_object` or `json_schema`), or a tool is `strict`.
    pub fn needs_structured_outputs(&self) -> bool {
        structured_outputs_needed(self.response_format.as_ref(), self.tools.as_deref())
    }

    /// True when the response is to be streamed.
    pub fn is_stream(&self) -> bool {
        self.stream == Some(true)
    }

    /// Rewrites `developer` messages as `system` ones. Workers' chat templates mostly know only
    /// `system`; the two mean the same.
    pub fn developer_as_system(&mut self) {
        for m in &mut self.messages {
            if m.role == Role::Developer {
                m.role = Role::System;
            }
        }
    }

    /// Rewrites the history into the forms every worker knows: `developer` as `system`,
    /// refusal parts as text parts, and legacy function calling as tool calling (an assistant
    /// `function_call` becomes a tool call with id `call_legacy_<i>`, `i` its message's index,
    /// and a `function` message a `tool` message answering the latest such call).
    pub fn normalize_for_workers(&mut self) {
        let mut last_call: Option<usize> = None;
        for (i, m) in self.messages.iter_mut().enumerate() {
            match m.role {
                Role::Developer => m.role = Role::System,
                Role::Function => {
                    m.role = Role::Tool;
                    m.tool_call_id = Some(format!("call_legacy_{}", last_call.unwrap_or(i)));
                    if m.content.is_none() {
                        m.content = Some(MessageContent::Text(String::new()));
                    }
                }
                _ => {}
            }
            if let Some(function) = m.function_call.take() {
                last_call = Some(i);
                m.tool_calls.get_or_insert_with(Vec::new).push(ToolCall {
                    id: format!("call_legacy_{i}"),
                    r#type: ToolType::Function,
                    function,
                });
            }
            if let Some(MessageContent::Parts(parts)) = &mut m.content {
                for part in parts {
                    if let ContentPart::Refusal { refusal } = part {
                        *part = ContentPart::Text {
                            text: std::mem::take(refusal),
                        };
                    }
                }
            }
        }
    }
}

/// See [`ChatCompletionRequest::needs_structured_outputs`].
pub(crate) fn structured_outputs_needed(
    format: Option<&super::ResponseFormat>,
    tools: Option<&[Tool]>,
) -> bool {
    format.is_some_and(super::ResponseFormat::is_structured)
        || tools
            .unwrap_or_default()
            .iter()
            .any(|t| t.function.strict == Some(true))
}
