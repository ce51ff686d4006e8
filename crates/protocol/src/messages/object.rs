//! What the Messages routes answer: the message object, the token count, and Anthropic's
//! error shape.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::answer::{Billed, Failure};
use crate::codes::ErrorCode;
use crate::cost::UsdOfCredits;

/// The answer (`type: "message"`).
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Message {
    /// `msg_...`
    pub id: String,
    /// Always `"message"`.
    #[serde(rename = "type")]
    pub kind: String,
    /// Always `"assistant"`.
    pub role: String,
    pub model: String,
    pub content: Vec<ContentBlock>,
    /// Null until the answer ends (the stream's `message_start`).
    pub stop_reason: Option<StopReason>,
    /// Always null: workers do not say which stop sequence matched, so a match reads as
    /// `end_turn`.
    pub stop_sequence: Option<String>,
    pub usage: MessageUsage,
}

impl Message {
    pub const KIND: &'static str = "message";
}

/// One block of the answer.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ContentBlock {
    Text {
        text: String,
    },
    /// A reasoning model's thinking, whole. `signature` is always empty: there is nothing to
    /// verify when the block is passed back (it is dropped then).
    Thinking {
        thinking: String,
        signature: String,
    },
    /// A call of one of the request's tools.
    ToolUse {
        id: String,
        name: String,
        /// The arguments: the model's JSON object (`{}` when it wrote none, or something that
        /// is not a JSON object).
        #[cfg_attr(feature = "openapi", schema(value_type = Object))]
        input: Value,
    },
}

/// Why the answer ended.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StopReason {
    /// The model ended its turn (or a stop sequence matched).
    EndTurn,
    /// `max_tokens` was reached.
    MaxTokens,
    /// Never produced (see [`Message::stop_sequence`]); here for the shape.
    StopSequence,
    /// The answer calls tools.
    ToolUse,
    /// A filter withheld the rest.
    Refusal,
}

/// The token counts billed. Thinking tokens are output tokens. Nothing is cached: the cache
/// counts are 0.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct MessageUsage {
    pub input_tokens: u64,
    pub output_tokens: u64,
    pub cache_creation_input_tokens: u64,
    pub cache_read_input_tokens: u64,
    /// What the request was charged, in credits; absent until the answer ends (`message_start`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cost: Option<i64>,
    /// `cost` in USD, a decimal string (`"0.007"`).
    #[cfg_attr(feature = "openapi", schema(value_type = Option<String>, example = "0.007"))]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cost_usd: Option<UsdOfCredits>,
}

impl From<Billed> for MessageUsage {
    fn from(b: Billed) -> Self {
        MessageUsage {
            input_tokens: b.input_tokens,
            output_tokens: b.output_tokens,
            cache_creation_input_tokens: 0,
            cache_read_input_tokens: 0,
            cost: Some(b.credits),
            cost_usd: Some(UsdOfCredits(b.credits)),
        }
    }
}

/// The answer of `count_tokens`.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct TokenCount {
    pub input_tokens: u64,
}

/// Anthropic's error body, `{"type":"error","error":{"type":...,"message":...}}`: every
/// non-2xx answer of the Messages routes, and the `error` event that ends a failed stream.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MessagesErrorBody {
    /// Always `"error"`.
    #[serde(rename = "type")]
    pub kind: String,
    pub error: MessagesError,
}

/// The inside of a [`MessagesErrorBody`].
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MessagesError {
    #[serde(rename = "type")]
    pub kind: MessagesErrorType,
    /// Human-readable; never contains prompt or completion text.
    pub message: String,
}

impl MessagesErrorBody {
    pub fn new(kind: MessagesErrorType, message: impl Into<String>) -> Self {
        MessagesErrorBody {
            kind: "error".into(),
            error: MessagesError {
                kind,
                message: message.into(),
            },
        }
    }
}

/// Anthropic's error types.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MessagesErrorType {
    InvalidRequestError,
    AuthenticationError,
    /// 402: not enough credits.
    BillingError,
    PermissionError,
    NotFoundError,
    RateLimitError,
    TimeoutError,
    ApiError,
    OverloadedError,
}

impl MessagesErrorType {
    /// The type for an HTTP status the gateway answers with (the statuses are the same on
    /// every route; only the body's shape differs).
    pub fn for_status(status: u16) -> Self {
        match status {
            401 => Self::AuthenticationError,
            402 => Self::BillingError,
            403 => Self::PermissionError,
            404 => Self::NotFoundError,
            429 => Self::RateLimitError,
            503 => Self::OverloadedError,
            504 => Self::TimeoutError,
            400..=499 => Self::InvalidRequestError,
            _ => Self::ApiError,
        }
    }

    /// The type of the `error` event that ends a stream.
    pub fn for_failure(failure: Failure) -> Self {
        match failure {
            Failure::Timeout => Self::TimeoutError,
            Failure::Worker(ErrorCode::WorkerBusy | ErrorCode::WorkerShuttingDown) => {
                Self::OverloadedError
            }
            Failure::Worker(_) | Failure::Rejected => Self::ApiError,
        }
    }
}
