//! `GET /api/v1/models`: the model listing.

use serde::{Deserialize, Serialize};

/// `{"object":"list","data":[...]}`.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ModelList {
    /// Always `"list"`.
    pub object: String,
    pub data: Vec<ModelEntry>,
}

impl ModelList {
    pub fn new(data: Vec<ModelEntry>) -> Self {
        ModelList {
            object: "list".into(),
            data,
        }
    }
}

/// One model of the listing.
///
/// `deprecated` is always serialized (also when false), so a client can test it without
/// guessing what a missing key means; `alias_of`, `description` and `max_output_tokens` are
/// left out when unset.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ModelEntry {
    pub id: String,
    /// Always `"model"`.
    pub object: String,
    /// Unix seconds.
    pub created: i64,
    pub owned_by: String,
    /// Live: true when a worker that serves this model is connected.
    pub available: bool,
    pub pricing: Pricing,
    /// Tokens, prompt and output together.
    pub context_length: u32,
    /// The most tokens one response may generate.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_output_tokens: Option<u32>,
    pub capabilities: Capabilities,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// A deprecated id still answers during a migration window; new integrations use `alias_of`.
    #[serde(default)]
    pub deprecated: bool,
    /// For a deprecated alias: the model id it resolves to.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub alias_of: Option<String>,
}

impl ModelEntry {
    pub const OBJECT: &'static str = "model";
}

/// Display prices. Money arithmetic never uses these floats; it uses integer nano-USD rates.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Pricing {
    /// Always `"per_token"`.
    #[serde(rename = "type")]
    pub r#type: String,
    pub usd_per_m_input: f64,
    pub usd_per_m_output: f64,
}

impl Pricing {
    pub fn per_token(usd_per_m_input: f64, usd_per_m_output: f64) -> Self {
        Pricing {
            r#type: "per_token".into(),
            usd_per_m_input,
            usd_per_m_output,
        }
    }
}

/// What a model accepts beyond plain text.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Capabilities {
    /// Tool (function) calling.
    pub tools: bool,
    /// Image parts in user messages.
    pub vision: bool,
    /// Returns its chain of thought as `reasoning_content`.
    pub reasoning: bool,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn entry(alias_of: Option<&str>) -> ModelEntry {
        ModelEntry {
            id: "m".into(),
            object: ModelEntry::OBJECT.into(),
            created: 1_700_000_000,
            owned_by: "shoal".into(),
            available: false,
            pricing: Pricing::per_token(0.15, 0.9),
            context_length: 32_768,
            max_output_tokens: None,
            capabilities: Capabilities {
                tools: true,
                vision: false,
                reasoning: false,
            },
            description: None,
            deprecated: alias_of.is_some(),
            alias_of: alias_of.map(Into::into),
        }
    }

    #[test]
    fn listing_shape() {
        let list = ModelList::new(vec![entry(None), entry(Some("target"))]);
        let v = serde_json::to_value(&list).unwrap();
        assert_eq!(v["object"], "list");
        assert_eq!(
            v["data"][0],
            json!({"id": "m", "object": "model", "created": 1_700_000_000, "owned_by": "shoal",
                   "available": false,
                   "pricing": {"type": "per_token", "usd_per_m_input": 0.15, "usd_per_m_output": 0.9},
                   "context_length": 32_768,
                   "capabilities": {"tools": true, "vision": false, "reasoning": false},
                   "deprecated": false})
        );
        assert_eq!(v["data"][1]["deprecated"], true);
        assert_eq!(v["data"][1]["alias_of"], "target");
        assert_eq!(serde_json::from_value::<ModelList>(v).unwrap(), list);
    }
}
