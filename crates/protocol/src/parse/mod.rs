//! From request bytes to a typed, validated [`ChatCompletionRequest`], or an [`InvalidRequest`]
//! that says which field is wrong and what was expected there.
//!
//! Three stages, each with its own kind of message (examples in the block below):
//!
//! 1. JSON syntax: `param` unset, the position given.
//! 2. Shape (a value of the wrong type, a missing field, an unknown role): `param` is the path.
//! 3. Semantics ([`ChatCompletionRequest::validate`]): `param` is the path, the rule in words.
//!
//! ```text
//! request body is not valid JSON: expected value (line 1, column 17)
//! invalid `messages[0].content`: expected a string, an array of content parts, or null
//! missing required field `messages[1].role`
//! `messages[2].tool_call_id` is required on tool messages: the `id` of the tool call it answers
//! `messages[0].content[1].image_url.url`: remote image URLs are never fetched; send the image
//!     inline as a base64 data URL, `data:image/<png|jpeg|webp|gif>;base64,<data>`
//! ```
//!
//! **No message ever contains a value from the request.** serde's own messages do (`invalid
//! type: string "...", expected ...`, ``unknown variant `...` ``), so they are never passed on:
//! the message is rebuilt from the field path, whose names come from our own types, and a fixed
//! description of what the field takes.

mod json_error;
mod validate;

use crate::chat::ChatCompletionRequest;

pub use validate::MAX_STOP_SEQUENCES;

/// Why a request body was refused: a 400 with `param` and `message`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct InvalidRequest {
    /// The field at fault as a path (`messages[2].tool_call_id`, `tools[0].function.name`);
    /// `None` when the body as a whole is at fault (not JSON, not an object).
    pub param: Option<String>,
    /// What is wrong, in words; names fields, never repeats their values.
    pub message: String,
}

impl InvalidRequest {
    pub(crate) fn new(param: impl Into<String>, message: impl Into<String>) -> Self {
        InvalidRequest {
            param: Some(param.into()),
            message: message.into(),
        }
    }

    pub(crate) fn body(message: impl Into<String>) -> Self {
        InvalidRequest {
            param: None,
            message: message.into(),
        }
    }
}

/// Parses and validates a chat completion request body.
///
/// Unknown fields are ignored (SDKs send extras). A leading UTF-8 byte-order mark is skipped.
pub fn parse_chat_request(body: &[u8]) -> Result<ChatCompletionRequest, InvalidRequest> {
    let body = body.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(body);
    if body.iter().all(u8::is_ascii_whitespace) {
        return Err(InvalidRequest::body(
            "request body is empty; expected a JSON object",
        ));
    }
    // serde would also read a struct from an array; the body must be an object.
    if body.iter().find(|b| !b.is_ascii_whitespace()) != Some(&b'{') && json_error::is_json(body) {
        return Err(InvalidRequest::body("request body must be a JSON object"));
    }
    let mut de = serde_json::Deserializer::from_slice(body);
    let request: ChatCompletionRequest =
        serde_path_to_error::deserialize(&mut de).map_err(|e| json_error::describe(e, body))?;
    de.end().map_err(json_error::describe_syntax)?;
    request.validate()?;
    Ok(request)
}

#[cfg(test)]
mod tests;
