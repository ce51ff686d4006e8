//! Chat completions: the request ([`ChatCompletionRequest`]), the non-streamed response
//! ([`ChatCompletion`]), the streamed chunk ([`ChatCompletionChunk`]) and [`Usage`].

mod format;
mod request;
mod response;
mod token_bound;

pub use crate::codes::FinishReason;
pub use format::{JsonSchemaFormat, ResponseFormat};
pub(crate) use request::structured_outputs_needed;
pub use request::{
    ChatCompletionRequest, ChatMessage, ContentPart, FunctionCall, FunctionDefinition,
    FunctionName, ImageUrl, MessageContent, NamedToolChoice, PartRef, Role, Stop, StreamOptions,
    Tool, ToolCall, ToolChoice, ToolChoiceMode, ToolType,
};
pub use response::{
    ChatCompletion, ChatCompletionChunk, Choice, ChunkChoice, CompletionTokensDetails, Delta,
    FunctionCallDelta, PromptTokensDetails, ResponseMessage, ToolCallDelta, Usage,
};
pub use token_bound::{
    CONTENT_PART_TOKEN_ALLOWANCE, IMAGE_TOKEN_ALLOWANCE, MESSAGE_TOKEN_ALLOWANCE,
    TEMPLATE_TOKEN_ALLOWANCE, TOOLS_PREAMBLE_TOKEN_ALLOWANCE, TOOL_CALL_TOKEN_ALLOWANCE,
    TOOL_TOKEN_ALLOWANCE,
};

#[cfg(test)]
mod tests;
