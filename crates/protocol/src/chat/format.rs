//! `response_format`: what shape the answer's content must have.
//!
//! Deserialized through [`RawResponseFormat`] (like content parts) so that a wrong field inside
//! `json_schema` keeps its path in the error. Serialized in the wire form, so a parsed format
//! re-serialized is what an OpenAI-compatible upstream expects.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::parse::MissingField;

/// `{"type":"text"}`, `{"type":"json_object"}` or
/// `{"type":"json_schema","json_schema":{"name":…,"schema":{…},"strict":true}}`.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(
    tag = "type",
    rename_all = "snake_case",
    try_from = "RawResponseFormat"
)]
pub enum ResponseFormat {
    /// Plain text: no constraint.
    Text,
    /// Any JSON object.
    JsonObject,
    /// JSON that validates against a schema (the subset in [`crate::schema`]).
    JsonSchema { json_schema: JsonSchemaFormat },
}

/// The `json_schema` of a `json_schema` response format.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JsonSchemaFormat {
    /// `^[a-zA-Z0-9_-]{1,64}$`, like a tool's name.
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// A JSON Schema object; absent reads as `{}` (any JSON value).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "openapi", schema(value_type = Option<Object>))]
    pub schema: Option<Map<String, Value>>,
    /// OpenAI's strict mode. Shoal enforces every schema it accepts either way: a schema
    /// outside the supported subset is refused whatever `strict` says.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub strict: Option<bool>,
}

impl ResponseFormat {
    /// True for `json_object` and `json_schema`: formats an engine must enforce.
    pub fn is_structured(&self) -> bool {
        !matches!(self, ResponseFormat::Text)
    }

    /// The schema of a `json_schema` format.
    pub fn json_schema(&self) -> Option<&JsonSchemaFormat> {
        match self {
            ResponseFormat::JsonSchema { json_schema } => Some(json_schema),
            _ => None,
        }
    }
}

impl JsonSchemaFormat {
    /// The schema, `{}` when none was given.
    pub fn schema_or_any(&self) -> Map<String, Value> {
        self.schema.clone().unwrap_or_default()
    }
}

/// A format as it arrives, before the fields its `type` needs are known to be there.
#[derive(Deserialize)]
struct RawResponseFormat {
    #[serde(rename = "type")]
    kind: FormatKind,
    #[serde(default)]
    json_schema: Option<JsonSchemaFormat>,
}

#[derive(Deserialize)]
#[serde(rename_all = "snake_case")]
enum FormatKind {
    Text,
    JsonObject,
    JsonSchema,
}

impl TryFrom<RawResponseFormat> for ResponseFormat {
    type Error = MissingField;
    fn try_from(raw: RawResponseFormat) -> Result<Self, MissingField> {
        Ok(match raw.kind {
            FormatKind::Text => ResponseFormat::Text,
            FormatKind::JsonObject => ResponseFormat::JsonObject,
            FormatKind::JsonSchema => ResponseFormat::JsonSchema {
                json_schema: raw.json_schema.ok_or(MissingField("json_schema"))?,
            },
        })
    }
}
