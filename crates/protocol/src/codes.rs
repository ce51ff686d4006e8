//! The closed vocabularies both ends of the worker protocol share: why a generation finished
//! and why a job failed. Each serializes as the short snake_case string the wire has always
//! carried (`"stop"`, `"upstream_unavailable"`), so the JSON is unchanged; in the code they are
//! types, and a misspelt code does not compile.

use serde::{Deserialize, Serialize};

/// Why a chat generation ended, as a completion's `finish_reason` reports it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum FinishReason {
    /// The model ended its answer, or a stop string matched.
    Stop,
    /// The token limit was reached.
    Length,
    /// The answer is (or ends with) tool calls.
    ToolCalls,
    /// A filter withheld the rest.
    ContentFilter,
}

impl FinishReason {
    pub const fn as_str(self) -> &'static str {
        match self {
            FinishReason::Stop => "stop",
            FinishReason::Length => "length",
            FinishReason::ToolCalls => "tool_calls",
            FinishReason::ContentFilter => "content_filter",
        }
    }
}

impl std::fmt::Display for FinishReason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Why a job failed: a short machine code, never free text (an upstream's message may quote
/// the prompt). Sent by workers in `error` messages and used by the gateway for jobs whose
/// worker went away.
///
/// A code this build does not know (a newer worker's) reads as [`ErrorCode::Other`] instead of
/// failing the whole message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ErrorCode {
    // The worker connection itself.
    /// A job arrived while every slot was taken.
    WorkerBusy,
    /// A job arrived after SIGTERM: try another worker.
    WorkerShuttingDown,
    /// The grace period ran out before the job finished.
    WorkerShutdown,
    /// The job message could not be read, or is of a kind this worker does not run.
    BadJob,
    /// The backend panicked.
    WorkerInternalError,
    /// The gateway connection went away mid-job.
    Disconnected,
    /// The job names a model this worker did not announce.
    ModelNotServed,
    /// Set by the gateway: the worker disconnected or went silent while running the job.
    WorkerLost,
    /// The gateway cancelled the job (its client went away): an image job's end.
    Cancelled,

    // Fronted servers (OpenAI-compatible, A1111-compatible).
    /// Could not connect, 5xx or 429 before any output, or the stream died before any.
    UpstreamUnavailable,
    /// A 4xx other than 429, or an error event before any output.
    UpstreamRejected,
    /// The stream broke after output was relayed.
    UpstreamStreamBroken,
    /// Nothing came from the upstream for longer than the worker's timeout.
    UpstreamTimeout,
    /// The job could not be turned into the upstream's request body.
    BadRequest,

    // Embedded engines.
    /// The chat template refused the conversation (e.g. roles it does not support).
    TemplateError,
    /// The prompt does not fit the context.
    ContextLengthExceeded,
    /// The engine failed to decode or render.
    InferenceFailed,
    /// The conversation has images and this worker has no projector.
    VisionUnsupported,
    /// The request is at fault (e.g. an image that does not decode): the gateway answers 400.
    InvalidRequest,
    /// Set by the gateway: the job is larger than the messages replicas exchange (NATS's
    /// `max_payload`), so it cannot cross to the replica whose worker would run it.
    JobTooLarge,
    /// The image worker's semantic check (its checkpoint's CLIP text encoder against the
    /// policy's concepts) refused the prompt before rendering: a blocked prompt, 400.
    PromptRefused,

    /// A code this build does not know.
    #[serde(other)]
    Other,
}

impl ErrorCode {
    pub const fn as_str(self) -> &'static str {
        match self {
            ErrorCode::WorkerBusy => "worker_busy",
            ErrorCode::WorkerShuttingDown => "worker_shutting_down",
            ErrorCode::WorkerShutdown => "worker_shutdown",
            ErrorCode::BadJob => "bad_job",
            ErrorCode::WorkerInternalError => "worker_internal_error",
            ErrorCode::Disconnected => "disconnected",
            ErrorCode::ModelNotServed => "model_not_served",
            ErrorCode::WorkerLost => "worker_lost",
            ErrorCode::Cancelled => "cancelled",
            ErrorCode::UpstreamUnavailable => "upstream_unavailable",
            ErrorCode::UpstreamRejected => "upstream_rejected",
            ErrorCode::UpstreamStreamBroken => "upstream_stream_broken",
            ErrorCode::UpstreamTimeout => "upstream_timeout",
            ErrorCode::BadRequest => "bad_request",
            ErrorCode::TemplateError => "template_error",
            ErrorCode::ContextLengthExceeded => "context_length_exceeded",
            ErrorCode::InferenceFailed => "inference_failed",
            ErrorCode::VisionUnsupported => "vision_unsupported",
            ErrorCode::InvalidRequest => "invalid_request",
            ErrorCode::PromptRefused => "prompt_refused",
            ErrorCode::JobTooLarge => "job_too_large",
            ErrorCode::Other => "other",
        }
    }

    /// The request itself is at fault: the client gets a 400, not a server error.
    pub const fn blames_request(self) -> bool {
        matches!(
            self,
            ErrorCode::UpstreamRejected | ErrorCode::InvalidRequest | ErrorCode::PromptRefused
        )
    }
}

impl std::fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const ALL_CODES: [ErrorCode; 22] = [
        ErrorCode::WorkerBusy,
        ErrorCode::WorkerShuttingDown,
        ErrorCode::WorkerShutdown,
        ErrorCode::BadJob,
        ErrorCode::WorkerInternalError,
        ErrorCode::Disconnected,
        ErrorCode::ModelNotServed,
        ErrorCode::WorkerLost,
        ErrorCode::Cancelled,
        ErrorCode::UpstreamUnavailable,
        ErrorCode::UpstreamRejected,
        ErrorCode::UpstreamStreamBroken,
        ErrorCode::UpstreamTimeout,
        ErrorCode::BadRequest,
        ErrorCode::TemplateError,
        ErrorCode::ContextLengthExceeded,
        ErrorCode::InferenceFailed,
        ErrorCode::VisionUnsupported,
        ErrorCode::InvalidRequest,
        ErrorCode::PromptRefused,
        ErrorCode::JobTooLarge,
        ErrorCode::Other,
    ];

    #[test]
    fn codes_serialize_as_their_wire_strings_and_back() {
        for code in ALL_CODES {
            let json = serde_json::to_value(code).unwrap();
            assert_eq!(json, serde_json::Value::from(code.as_str()), "{code:?}");
            assert_eq!(serde_json::from_value::<ErrorCode>(json).unwrap(), code);
        }
        for reason in [
            FinishReason::Stop,
            FinishReason::Length,
            FinishReason::ToolCalls,
            FinishReason::ContentFilter,
        ] {
            let json = serde_json::to_value(reason).unwrap();
            assert_eq!(json, serde_json::Value::from(reason.as_str()));
            assert_eq!(
                serde_json::from_value::<FinishReason>(json).unwrap(),
                reason
            );
        }
    }

    #[test]
    fn an_unknown_code_reads_as_other_but_an_unknown_finish_reason_is_refused() {
        let code: ErrorCode = serde_json::from_str("\"gpu_on_fire\"").unwrap();
        assert_eq!(code, ErrorCode::Other);
        assert!(serde_json::from_str::<FinishReason>("\"eos\"").is_err());
    }
}
