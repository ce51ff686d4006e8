//! The OpenAI Responses API, stateless: `POST /api/v1/responses` runs as a chat job.
//!
//! [`parse_responses_request`] reads and validates a body; [`ResponsesRequest::into_chat`]
//! turns it into the chat completion request it runs as (the same job a chat client sending
//! the same conversation gets); [`ResponseRenderer`] turns the job's answer into the response
//! object or its event stream.
//!
//! **Stateless.** Nothing is stored, whatever `store` says (it is accepted, as OpenRouter and
//! Ollama accept it, and the response reports `store: false`). `previous_response_id`,
//! `conversation`, `background` and `prompt` are refused with a 400 saying so: the client
//! resends the conversation, as the SDKs can. `item_reference` items (which the AI SDK sends
//! for its own earlier answers when `store` is left at its default) name nothing here and are
//! left out of the conversation; `reasoning` items passed back are left out too, as chat
//! templates drop earlier turns' reasoning.
//!
//! **Reasoning** comes back whole as a `reasoning` item's `reasoning_text` content
//! (`response.reasoning_text.*` events), never summarized: `summary` is empty.
//!
//! **Never reaches a worker:** `user`, `safety_identifier`, `prompt_cache_key`, `metadata`
//! (echoed in the response), `store`, `include`, `truncation`.

mod object;
mod render;
mod request;
mod translate;
mod validate;

pub use object::{
    IncompleteDetails, IncompleteReason, InputTokensDetails, ItemStatus, OutputItem, OutputText,
    OutputTokensDetails, ReasoningText, Response, ResponseError, ResponseStatus, ResponseUsage,
};
pub use render::{ResponseEcho, ResponseRenderer};
pub use request::{
    FunctionTool, Input, InputItem, InputPart, InputRole, ItemContent, NamedFunction,
    NamespaceTool, ReasoningConfig, ResponsesRequest, ResponsesTool, ResponsesToolChoice,
    TextConfig, TextFormat, Truncation,
};
pub use translate::response_format;
pub use validate::parse_responses_request;

#[cfg(test)]
mod tests;
