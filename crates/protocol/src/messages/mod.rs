//! The Anthropic Messages API: `POST /api/v1/messages` runs as a chat job, and
//! `POST /api/v1/messages/count_tokens` reads the same body.
//!
//! [`parse_messages_request`] (and [`parse_count_tokens_request`]) read and validate a body;
//! [`MessagesRequest::into_chat`] turns it into the chat completion request it runs as (the
//! same job a chat client sending the same conversation gets); [`MessageRenderer`] turns the
//! job's answer into the message object or its event stream. Errors on these routes have
//! Anthropic's shape, [`MessagesErrorBody`], with the same statuses as everywhere else
//! ([`MessagesErrorType::for_status`]).
//!
//! **Honest mappings.** `temperature` (0 to 1 here) and `top_p` are chat's; `top_k` has no
//! chat counterpart and is refused. `stop_sequences` are chat's `stop` (4 at most); a stop
//! sequence that matched reads as `end_turn` because workers do not say which matched.
//! `thinking` is accepted: whether a model thinks is the model's (the `-think` model does),
//! its thinking comes back as `thinking` blocks, and `budget_tokens` is not enforced
//! (`max_tokens` bounds thinking and answer together). Thinking blocks passed back are
//! dropped, as chat templates drop earlier turns' reasoning. `metadata.user_id` never
//! reaches a worker.

mod object;
mod render;
mod request;
mod translate;
mod validate;

pub use object::{
    ContentBlock, Message, MessageUsage, MessagesError, MessagesErrorBody, MessagesErrorType,
    StopReason, TokenCount,
};
pub use render::MessageRenderer;
pub use request::{
    Block, Content, CustomTool, ImageSource, InputMessage, MessageRole, MessagesRequest,
    MessagesTool, MessagesToolChoice, Metadata, OutputConfig, OutputFormat, OutputFormatKind,
    ThinkingConfig, ThinkingKind, ToolChoiceKind,
};
pub use translate::{response_format, TOOL_ERROR_PREFIX};
pub use validate::{parse_count_tokens_request, parse_messages_request};

#[cfg(test)]
mod tests;
