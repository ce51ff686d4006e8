//! The response object: the whole answer of a non-streamed request, and the snapshot the
//! lifecycle events of a stream carry.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::request::{ReasoningConfig, ResponsesTool, ResponsesToolChoice, TextConfig, Truncation};
use crate::answer::Billed;
use crate::cost::UsdOfCredits;

/// A response (`object: "response"`). Nothing is stored: `store` is always `false`.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Response {
    /// `resp_...`
    pub id: String,
    /// Always `"response"`.
    pub object: String,
    /// Unix seconds.
    pub created_at: i64,
    pub status: ResponseStatus,
    /// Set when `status` is `failed`; always written.
    pub error: Option<ResponseError>,
    /// Set when `status` is `incomplete`; always written.
    pub incomplete_details: Option<IncompleteDetails>,
    /// Never echoed (always null): the caller has it.
    pub instructions: Option<String>,
    pub max_output_tokens: Option<u32>,
    pub model: String,
    pub output: Vec<OutputItem>,
    pub parallel_tool_calls: bool,
    /// Always null: nothing is chained.
    pub previous_response_id: Option<String>,
    pub reasoning: Option<ReasoningConfig>,
    /// Always `false`.
    pub store: bool,
    pub temperature: Option<f64>,
    pub text: TextConfig,
    pub tool_choice: ResponsesToolChoice,
    /// The request's function tools.
    pub tools: Vec<ResponsesTool>,
    pub top_p: Option<f64>,
    pub truncation: Truncation,
    /// The token counts billed; null until the response ends.
    pub usage: Option<ResponseUsage>,
    /// The request's `metadata`, echoed.
    #[cfg_attr(feature = "openapi", schema(value_type = Object))]
    pub metadata: Map<String, Value>,
}

impl Response {
    pub const OBJECT: &'static str = "response";

    /// The text of every `output_text` part, joined: what the SDKs' `output_text` shows.
    pub fn output_text(&self) -> String {
        let mut text = String::new();
        for item in &self.output {
            if let OutputItem::Message { content, .. } = item {
                for OutputText { text: t, .. } in content {
                    text.push_str(t);
                }
            }
        }
        text
    }
}

/// `status` of a response.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ResponseStatus {
    InProgress,
    Completed,
    /// The output limit was reached (or a filter withheld the rest): `incomplete_details`.
    Incomplete,
    /// The worker failed mid-answer: `error`.
    Failed,
}

/// `status` of an output item.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ItemStatus {
    InProgress,
    Completed,
    Incomplete,
}

/// Why a response stopped early.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct IncompleteDetails {
    pub reason: IncompleteReason,
}

#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum IncompleteReason {
    MaxOutputTokens,
    ContentFilter,
}

/// Why a response failed.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ResponseError {
    /// Always `server_error`: the worker failed, not the request.
    pub code: String,
    /// Fixed text; names the worker's error code, never its words.
    pub message: String,
}

/// One item of `output`.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum OutputItem {
    /// The answer's text.
    Message {
        /// `msg_...`
        id: String,
        status: ItemStatus,
        /// Always `assistant`.
        role: String,
        content: Vec<OutputText>,
    },
    /// A call of one of the request's function tools.
    FunctionCall {
        /// `fc_...`
        id: String,
        /// What the client's `function_call_output` names.
        call_id: String,
        name: String,
        /// A JSON document as a string, as the model wrote it.
        arguments: String,
        status: ItemStatus,
        /// The namespace the function was given in, if any.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        namespace: Option<String>,
    },
    /// A reasoning model's chain of thought, whole (`content`), never summarized.
    Reasoning {
        /// `rs_...`
        id: String,
        /// Always empty.
        summary: Vec<ReasoningText>,
        content: Vec<ReasoningText>,
        status: ItemStatus,
    },
}

impl OutputItem {
    pub fn id(&self) -> &str {
        match self {
            OutputItem::Message { id, .. }
            | OutputItem::FunctionCall { id, .. }
            | OutputItem::Reasoning { id, .. } => id,
        }
    }

    pub(crate) fn set_status(&mut self, to: ItemStatus) {
        match self {
            OutputItem::Message { status, .. }
            | OutputItem::FunctionCall { status, .. }
            | OutputItem::Reasoning { status, .. } => *status = to,
        }
    }
}

/// An `output_text` part.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename = "output_text")]
pub struct OutputText {
    pub text: String,
    /// Always empty.
    #[cfg_attr(feature = "openapi", schema(value_type = Vec<Object>))]
    pub annotations: Vec<Value>,
    /// Always empty: workers return no log-probabilities.
    #[cfg_attr(feature = "openapi", schema(value_type = Vec<Object>))]
    pub logprobs: Vec<Value>,
}

impl OutputText {
    pub fn new(text: impl Into<String>) -> Self {
        OutputText {
            text: text.into(),
            annotations: Vec::new(),
            logprobs: Vec::new(),
        }
    }
}

/// A `reasoning_text` part.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename = "reasoning_text")]
pub struct ReasoningText {
    pub text: String,
}

/// The token counts billed. Reasoning tokens are output tokens, broken out in
/// `output_tokens_details`. Nothing is cached: `cached_tokens` is 0.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct ResponseUsage {
    pub input_tokens: u64,
    pub input_tokens_details: InputTokensDetails,
    pub output_tokens: u64,
    pub output_tokens_details: OutputTokensDetails,
    pub total_tokens: u64,
    /// What the request was charged, in credits.
    pub cost: i64,
    /// `cost` in USD, a decimal string (`"0.007"`).
    #[cfg_attr(feature = "openapi", schema(value_type = String, example = "0.007"))]
    pub cost_usd: UsdOfCredits,
}

#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct InputTokensDetails {
    pub cached_tokens: u64,
}

#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct OutputTokensDetails {
    pub reasoning_tokens: u64,
}

impl From<Billed> for ResponseUsage {
    fn from(b: Billed) -> Self {
        ResponseUsage {
            input_tokens: b.input_tokens,
            input_tokens_details: InputTokensDetails { cached_tokens: 0 },
            output_tokens: b.output_tokens,
            output_tokens_details: OutputTokensDetails {
                reasoning_tokens: b.reasoning_tokens,
            },
            total_tokens: b.input_tokens.saturating_add(b.output_tokens),
            cost: b.credits,
            cost_usd: UsdOfCredits(b.credits),
        }
    }
}
