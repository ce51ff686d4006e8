//! The worker protocol (version 1): JSON messages over the WebSocket at `/api/worker/ws`.
//! `docs/worker-protocol.md` is the prose version of this file.
//!
//! Privacy is structural here: [`JobRequest`] is the whole of what a worker learns about a
//! request, and it has no field for a key, an account, an IP, a user id or the client's
//! `user` field.

use serde::{Deserialize, Serialize};

use crate::chat::{
    ChatCompletionRequest, ChatMessage, ResponseFormat, Stop, Tool, ToolCallDelta, ToolChoice,
};
pub use crate::codes::{ErrorCode, FinishReason};

pub const PROTOCOL_VERSION: u32 = 1;

/// What kind of worker is connecting.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "lowercase")]
pub enum WorkerKind {
    /// Embedded inference (llama.cpp) on the worker's own hardware.
    Native,
    /// A worker fronting an OpenAI-compatible server (vLLM, SGLang, llama-server, Ollama).
    Upstream,
    /// A browser tab (wllama / WebLLM).
    Browser,
    /// The entry node of a swarm ring.
    Swarm,
    /// An image generation worker.
    Image,
}

/// One model a worker serves, with what it can do for it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ServedModel {
    pub id: String,
    #[serde(default)]
    pub tools: bool,
    #[serde(default)]
    pub vision: bool,
    #[serde(default)]
    pub reasoning: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context_length: Option<u32>,
    /// The worker enforces structured outputs for this model: `response_format` `json_object`
    /// and `json_schema` (the subset of [`crate::schema`]) and `strict` tools' arguments,
    /// by grammar or through an upstream that does. A worker that leaves it out (an older
    /// one) does not; the gateway sends it no request that needs it.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub structured_outputs: bool,
}

/// The generation input of one job: nothing else about the request reaches a worker.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JobRequest {
    pub messages: Vec<ChatMessage>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tools: Option<Vec<Tool>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_choice: Option<ToolChoice>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parallel_tool_calls: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub temperature: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub top_p: Option<f64>,
    /// Always set: the smaller of the client's limit and the model's maximum output.
    pub max_tokens: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop: Option<Stop>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seed: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub presence_penalty: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub frequency_penalty: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub response_format: Option<ResponseFormat>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reasoning_effort: Option<String>,
}

impl JobRequest {
    /// The generation input of a validated chat request, and nothing else: the client's
    /// `user` (and the key and account, which the request never held) have no field to go
    /// into. `max_tokens` is the output limit the gateway settled on. The history is first
    /// rewritten into the forms every worker knows
    /// ([`ChatCompletionRequest::normalize_for_workers`]).
    pub fn from_chat(mut req: ChatCompletionRequest, max_tokens: u32) -> Self {
        req.normalize_for_workers();
        JobRequest {
            messages: req.messages,
            tools: req.tools,
            tool_choice: req.tool_choice,
            parallel_tool_calls: req.parallel_tool_calls,
            temperature: req.temperature,
            top_p: req.top_p,
            max_tokens,
            stop: req.stop,
            seed: req.seed,
            presence_penalty: req.presence_penalty,
            frequency_penalty: req.frequency_penalty,
            response_format: req.response_format,
            reasoning_effort: req.reasoning_effort,
        }
    }

    /// True when only a worker announcing [`ServedModel::structured_outputs`] may run it.
    pub fn needs_structured_outputs(&self) -> bool {
        crate::chat::structured_outputs_needed(self.response_format.as_ref(), self.tools.as_deref())
    }
}

/// Token counts of a finished job, as the worker measured them.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct JobUsage {
    pub prompt_tokens: u64,
    pub completion_tokens: u64,
    /// Part of `completion_tokens`.
    #[serde(default)]
    pub reasoning_tokens: u64,
    /// Part of `prompt_tokens`: those the worker found already in its cache (not read again).
    /// Billing counts them as prompt tokens all the same.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub cached_tokens: u64,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// The generation input of one image job: nothing else about the request reaches an image
/// worker. Like [`JobRequest`], it has no field for a key, an account, an IP or a user id.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ImageJobRequest {
    pub prompt: String,
    /// The caller's negative prompt joined with the service's baseline one (never empty).
    pub negative_prompt: String,
    /// Pixels, a multiple of 64.
    pub width: u32,
    /// Pixels, a multiple of 64.
    pub height: u32,
    pub steps: u32,
    /// Classifier-free guidance scale.
    pub cfg: f32,
    /// Always set by the gateway (it picks one when the caller did not), so every result can
    /// report the seed that made it, and servers that never echo a random seed need not.
    pub seed: u64,
}

/// Messages from a worker to the gateway.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum WorkerMessage {
    Hello {
        protocol: u32,
        kind: WorkerKind,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        name: Option<String>,
        models: Vec<ServedModel>,
        concurrency: u32,
        /// A browser tab's loaded model file (`4b`, `9b`): the gateway renders its prompts
        /// and counts its tokens with that file's vocabulary. Other kinds leave it out.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        variant: Option<String>,
    },
    Heartbeat,
    Delta {
        job_id: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        content: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        reasoning: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        tool_calls: Option<Vec<ToolCallDelta>>,
    },
    Done {
        job_id: String,
        finish_reason: FinishReason,
        usage: JobUsage,
    },
    /// An image job's progress: `step` of `steps` sampling steps are done.
    Progress {
        job_id: String,
        step: u32,
        steps: u32,
    },
    /// An image job's result: the PNG, standard base64 (with padding) in the text frame.
    Image {
        job_id: String,
        png_base64: String,
    },
    Error {
        job_id: String,
        /// A short machine code (`upstream_unavailable`, `bad_request`, …); never free text.
        code: ErrorCode,
        retryable: bool,
    },
    /// A swarm span node's span (kind `swarm`, right after `welcome`).
    Span {
        span: crate::swarm::SpanInfo,
    },
    /// A swarm frame ([`crate::swarm::FrameHeader`]): sent as a binary WebSocket message,
    /// never as JSON.
    #[serde(skip)]
    Frame(Vec<u8>),
}

/// Messages from the gateway to a worker.
// `Job` dwarfs the rest, and jobs are most of what is sent: boxing would only add an allocation.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum GatewayMessage {
    Welcome {
        protocol: u32,
        worker_id: String,
        heartbeat_interval_ms: u64,
        #[serde(default)]
        ignored_models: Vec<String>,
    },
    Refused {
        message: String,
    },
    Job {
        job_id: String,
        model: String,
        request: JobRequest,
    },
    /// An image job, sent only to workers of kind `image`.
    ImageJob {
        job_id: String,
        model: String,
        request: ImageJobRequest,
    },
    Cancel {
        job_id: String,
    },
    /// A chat job for a browser tab: the gateway rendered the conversation with the model's
    /// chat template; the tab generates from `prompt` and streams raw text back as `delta`
    /// `content`, which the gateway parses (reasoning, tool calls) and counts itself.
    PromptJob {
        job_id: String,
        model: String,
        prompt: String,
        params: PromptParams,
    },
    /// A swarm session begins on this span node. The entry of the chain gets the job id of
    /// the `job` that follows; the last span gets the sampling parameters. An entry that takes
    /// over a job whose entry was lost mid-generation also gets `resume`: the tokens sampled so
    /// far, to feed before it samples anything new.
    SpanOpen {
        session: u64,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        job_id: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        sampling: Option<crate::swarm::Sampling>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        resume: Option<crate::swarm::Resume>,
    },
    /// A swarm session ended: its KV cells can go.
    SpanClose {
        session: u64,
    },
    /// To a chain's entry: a node of `session`'s chain was lost and the gateway found another
    /// chain from this entry. The session goes on as `to` (already opened on the new chain's
    /// other nodes): the entry drops its KV cells and sends the prompt and every token fed so
    /// far through the new chain, then waits for the next token as before.
    SpanReplay {
        session: u64,
        to: u64,
    },
    /// A swarm frame, sent as a binary WebSocket message, never as JSON.
    #[serde(skip)]
    Frame(Vec<u8>),
}

/// The sampling settings of a [`GatewayMessage::PromptJob`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PromptParams {
    pub max_tokens: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub temperature: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub top_p: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seed: Option<i64>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub stop: Vec<String>,
    /// A GBNF grammar (start rule `root`) sampling must follow (structured outputs, strict
    /// tools), written by the gateway from the request and the model's template.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub grammar: Option<String>,
    /// With `grammar`: sampling is free until the output so far matches this regular
    /// expression whole; the grammar applies from its first group on (llama.cpp's lazy
    /// grammar, a `PATTERN_FULL` trigger).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub grammar_trigger: Option<String>,
}
