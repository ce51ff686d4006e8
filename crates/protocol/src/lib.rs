//! Wire types of Shoal's `/api/v1` surface, and the validation of a chat request.
//!
//! This crate is what crosses the wire and nothing else: serde types for chat completions
//! (request, response, stream chunk), the model listing, the balance object and the one error
//! shape, plus [`parse::parse_chat_request`], which turns a request body into a typed,
//! validated [`chat::ChatCompletionRequest`] or an [`parse::InvalidRequest`] naming the field
//! at fault. The Responses and Messages APIs are here too, as pure translations: their
//! requests into the chat request they run as, and the job's answer back into their objects
//! and event streams. It does no I/O: no sockets, no files, no async runtime, no HTTP
//! framework.
//!
//! Two guarantees other crates rely on:
//!
//! - **Validation messages never echo the request.** An [`parse::InvalidRequest`] names a field
//!   path (`messages[2].tool_call_id`) and what was expected there; it never contains a value
//!   taken from the body (prompt text, a role, a URL, a tool name). serde's own messages do
//!   embed values, so they are never passed through.
//! - **[`chat::ChatCompletionRequest::prompt_token_upper_bound`] never under-counts** a prompt
//!   for byte-level tokenizers; it sizes the credit hold taken before a request is dispatched.
//!
//! Modules: [`codes`] (finish reasons and job error codes), [`error`] (the error body),
//! [`chat`] (chat completions), [`responses`] (the OpenAI Responses API) and [`messages`] (the
//! Anthropic Messages API), both run as chat jobs, [`answer`] (a job's answer as their
//! renderers take it), [`cost`] (a request's cost as usage blocks show it), [`keys`] (the
//! keys API, a key's own view, a request's record), [`schema`] (the JSON Schema subset engines enforce), [`models`] (the model listing), [`balance`] (the balance object),
//! [`images`] (the image endpoints' answers), [`parse`] (parsing and validation), [`worker`]
//! (the worker protocol), [`swarm`] (span announcements and activation frames).

pub mod answer;
pub mod balance;
pub mod chat;
pub mod codes;
pub mod cost;
pub mod error;
pub mod images;
pub mod keys;
pub mod messages;
pub mod models;
pub mod parse;
pub mod responses;
pub mod schema;
pub mod swarm;
pub mod worker;

pub use parse::{parse_chat_request, InvalidRequest};
