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

pub(crate) mod json_error;
mod validate;

use serde::de::DeserializeOwned;

use crate::chat::ChatCompletionRequest;
use json_error::Vocabulary;

pub use validate::MAX_STOP_SEQUENCES;
pub(crate) use validate::{check_image_url, is_valid_tool_name};

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

/// Says which field a tagged object lacks for its `type`, worded like serde's own `missing
/// field` so the parser reports it the same way: a request type that reads a tagged union
/// through a flat "raw" struct (to keep field paths in errors) fails its `TryFrom` with it.
#[derive(Debug)]
pub(crate) struct MissingField(pub &'static str);

impl std::fmt::Display for MissingField {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        write!(f, "missing field `{}`", self.0)
    }
}

/// A field that is either a string or an array (`input`, `content`, `system`, ...), read
/// without losing the path of an element in error messages. Request types convert from it
/// with `#[serde(from = "TextOr<T>")]`.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum TextOr<T> {
    Text(String),
    List(Vec<T>),
}

impl<'de, T: serde::Deserialize<'de>> serde::Deserialize<'de> for TextOr<T> {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        use serde::de::{Error, SeqAccess, Visitor};
        struct TextOrVisitor<T>(std::marker::PhantomData<T>);
        impl<'de, T: serde::Deserialize<'de>> Visitor<'de> for TextOrVisitor<T> {
            type Value = TextOr<T>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a string or an array")
            }
            fn visit_str<E: Error>(self, v: &str) -> Result<Self::Value, E> {
                Ok(TextOr::Text(v.to_owned()))
            }
            fn visit_string<E: Error>(self, v: String) -> Result<Self::Value, E> {
                Ok(TextOr::Text(v))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
                // The body's size limit bounds the array; the hint only sizes the first
                // allocation.
                let mut all = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(64));
                while let Some(item) = seq.next_element::<T>()? {
                    all.push(item);
                }
                Ok(TextOr::List(all))
            }
        }
        deserializer.deserialize_any(TextOrVisitor(std::marker::PhantomData))
    }
}

/// Parses and validates a chat completion request body.
///
/// Unknown fields are ignored (SDKs send extras). A leading UTF-8 byte-order mark is skipped.
pub fn parse_chat_request(body: &[u8]) -> Result<ChatCompletionRequest, InvalidRequest> {
    let request: ChatCompletionRequest = parse_body(body, &json_error::CHAT)?;
    request.validate()?;
    Ok(request)
}

/// A request body read as `T`: a JSON object (a leading UTF-8 byte-order mark skipped), every
/// failure described in `vocab`'s words without a value from the body. Shapes only: the
/// caller applies its semantic rules.
/// An optional field the API documents as an object: serde would also read a struct from an
/// array (`"text": [null, null]`), which no client means. `null` is the field left out.
pub(crate) fn object<'de, D, T>(deserializer: D) -> Result<Option<T>, D::Error>
where
    D: serde::Deserializer<'de>,
    T: serde::Deserialize<'de>,
{
    struct ObjectOnly<T>(std::marker::PhantomData<T>);
    impl<'de, T: serde::Deserialize<'de>> serde::de::Visitor<'de> for ObjectOnly<T> {
        type Value = Option<T>;
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("an object")
        }
        fn visit_unit<E: serde::de::Error>(self) -> Result<Self::Value, E> {
            Ok(None)
        }
        fn visit_none<E: serde::de::Error>(self) -> Result<Self::Value, E> {
            Ok(None)
        }
        fn visit_map<A: serde::de::MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
            T::deserialize(serde::de::value::MapAccessDeserializer::new(map)).map(Some)
        }
    }
    deserializer.deserialize_any(ObjectOnly(std::marker::PhantomData))
}

pub(crate) fn parse_body<T: DeserializeOwned>(
    body: &[u8],
    vocab: &Vocabulary,
) -> Result<T, InvalidRequest> {
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
    let request: T = serde_path_to_error::deserialize(&mut de)
        .map_err(|e| json_error::describe(e, body, vocab))?;
    de.end().map_err(json_error::describe_syntax)?;
    Ok(request)
}

#[cfg(test)]
mod tests;
