//! What `POST /api/v1/chat/completions` answers: one [`ChatCompletion`], or a stream of
//! [`ChatCompletionChunk`]s (one per SSE `data:` line, then `data: [DONE]`).

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::request::{Role, ToolCall, ToolType};
use crate::answer::Billed;
use crate::codes::FinishReason;
use crate::cost::UsdOfCredits;

/// A non-streamed completion (`object: "chat.completion"`).
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ChatCompletion {
    /// `chatcmpl-...`
    pub id: String,
    /// Always `"chat.completion"`.
    pub object: String,
    /// Unix seconds.
    pub created: i64,
    pub model: String,
    pub choices: Vec<Choice>,
    pub usage: Usage,
}

impl ChatCompletion {
    pub const OBJECT: &'static str = "chat.completion";

    /// A completion with one choice (index 0).
    pub fn new(
        id: impl Into<String>,
        created: i64,
        model: impl Into<String>,
        message: ResponseMessage,
        finish_reason: FinishReason,
        usage: Usage,
    ) -> Self {
        ChatCompletion {
            id: id.into(),
            object: Self::OBJECT.into(),
            created,
            model: model.into(),
            choices: vec![Choice {
                index: 0,
                message,
                finish_reason: Some(finish_reason),
                logprobs: None,
            }],
            usage,
        }
    }
}

/// One choice of a [`ChatCompletion`]. `finish_reason` and `logprobs` are always written
/// (`null` when unset), as the OpenAI API does.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Choice {
    pub index: u32,
    pub message: ResponseMessage,
    #[serde(default)]
    pub finish_reason: Option<FinishReason>,
    /// Never produced by Shoal; present so the shape is what clients expect.
    #[serde(default)]
    pub logprobs: Option<Value>,
}

/// The assistant message of a [`Choice`].
///
/// `content` is always written, as `null` when the model only called tools.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ResponseMessage {
    /// Always `assistant`.
    pub role: Role,
    #[serde(default)]
    pub content: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_calls: Option<Vec<ToolCall>>,
    /// The chain of thought of reasoning models.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reasoning_content: Option<String>,
}

impl ResponseMessage {
    pub fn assistant(
        content: Option<String>,
        tool_calls: Option<Vec<ToolCall>>,
        reasoning_content: Option<String>,
    ) -> Self {
        ResponseMessage {
            role: Role::Assistant,
            content,
            tool_calls,
            reasoning_content,
        }
    }
}

/// One streamed event (`object: "chat.completion.chunk"`), the same `id` on every chunk of a
/// stream.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ChatCompletionChunk {
    pub id: String,
    /// Always `"chat.completion.chunk"`.
    pub object: String,
    pub created: i64,
    pub model: String,
    /// Empty on the usage-only final chunk.
    pub choices: Vec<ChunkChoice>,
    /// Only on the final chunk, when the caller asked with `stream_options.include_usage`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usage: Option<Usage>,
}

impl ChatCompletionChunk {
    pub const OBJECT: &'static str = "chat.completion.chunk";

    /// A chunk with one choice (index 0) carrying `delta`.
    pub fn delta(
        id: impl Into<String>,
        created: i64,
        model: impl Into<String>,
        delta: Delta,
        finish_reason: Option<FinishReason>,
    ) -> Self {
        ChatCompletionChunk {
            id: id.into(),
            object: Self::OBJECT.into(),
            created,
            model: model.into(),
            choices: vec![ChunkChoice {
                index: 0,
                delta,
                finish_reason,
                logprobs: None,
            }],
            usage: None,
        }
    }

    /// The final chunk of a stream whose caller asked for usage: `choices: []`.
    pub fn usage_only(
        id: impl Into<String>,
        created: i64,
        model: impl Into<String>,
        usage: Usage,
    ) -> Self {
        ChatCompletionChunk {
            id: id.into(),
            object: Self::OBJECT.into(),
            created,
            model: model.into(),
            choices: Vec::new(),
            usage: Some(usage),
        }
    }
}

/// One choice of a chunk. `finish_reason` is `null` until the last content chunk; it and
/// `logprobs` are always written.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ChunkChoice {
    pub index: u32,
    pub delta: Delta,
    #[serde(default)]
    pub finish_reason: Option<FinishReason>,
    /// Never produced by Shoal; present so the shape is what clients expect.
    #[serde(default)]
    pub logprobs: Option<Value>,
}

/// What a chunk adds. The first chunk of a stream carries the `role`.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Delta {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub role: Option<Role>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reasoning_content: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_calls: Option<Vec<ToolCallDelta>>,
}

/// A piece of a tool call. `index` says which call it extends; the first piece of a call
/// carries its `id`, `type` and function `name`, later pieces append to `arguments`.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToolCallDelta {
    pub index: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    #[serde(rename = "type", default, skip_serializing_if = "Option::is_none")]
    pub r#type: Option<ToolType>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub function: Option<FunctionCallDelta>,
}

#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FunctionCallDelta {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arguments: Option<String>,
}

/// Token counts actually billed. Reasoning tokens are output tokens: they are included in
/// `completion_tokens` and broken out in `completion_tokens_details`.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Usage {
    pub prompt_tokens: u64,
    pub completion_tokens: u64,
    pub total_tokens: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub completion_tokens_details: Option<CompletionTokensDetails>,
    /// Written when the worker found part of the prompt in its cache.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompt_tokens_details: Option<PromptTokensDetails>,
    /// What the request was charged, in credits (Shoal's answers always carry it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cost: Option<i64>,
    /// `cost` in USD, a decimal string (`"0.007"`).
    #[cfg_attr(feature = "openapi", schema(value_type = Option<String>, example = "0.007"))]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cost_usd: Option<UsdOfCredits>,
}

#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CompletionTokensDetails {
    pub reasoning_tokens: u64,
}

#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PromptTokensDetails {
    /// Part of `prompt_tokens`: read from the worker's prefix cache, priced like the rest.
    pub cached_tokens: u64,
}

impl Usage {
    /// `total_tokens` is computed; `reasoning_tokens` (part of `completion_tokens`) is
    /// written when given.
    pub fn new(prompt_tokens: u64, completion_tokens: u64, reasoning_tokens: Option<u64>) -> Self {
        Usage {
            prompt_tokens,
            completion_tokens,
            total_tokens: prompt_tokens.saturating_add(completion_tokens),
            completion_tokens_details: reasoning_tokens
                .map(|reasoning_tokens| CompletionTokensDetails { reasoning_tokens }),
            prompt_tokens_details: None,
            cost: None,
            cost_usd: None,
        }
    }

    /// What a request was billed, its cost included.
    pub fn billed(b: Billed) -> Self {
        Usage {
            cost: Some(b.credits),
            cost_usd: Some(UsdOfCredits(b.credits)),
            prompt_tokens_details: (b.cached_tokens > 0).then_some(PromptTokensDetails {
                cached_tokens: b.cached_tokens,
            }),
            ..Usage::new(b.input_tokens, b.output_tokens, Some(b.reasoning_tokens))
        }
    }
}
