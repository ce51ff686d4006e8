//! The OpenAPI 3.1 document of the public API, served at `GET /api/v1/openapi.json`.
//!
//! It is generated, not written: every handler of the public API carries `#[utoipa::path]`
//! (its route, body and responses, naming the same `shoal-protocol` types it reads and
//! writes), and [`crate::router`] registers it with `utoipa_axum::routes!`, which adds the
//! route and its operation to the document together. A new route is one `.routes(...)` line;
//! a route served outside `routes!` is missing from the document.

use axum::body::Bytes;
use axum::http::header;
use axum::response::{IntoResponse, Response};
use axum::Extension;
use serde_json::json;
use shoal_protocol::chat::ChatCompletionChunk;
use shoal_protocol::error::ErrorBody;
use utoipa::openapi::extensions::Extensions;
use utoipa::openapi::schema::{AnyOfBuilder, ObjectBuilder, Schema, Type};
use utoipa::openapi::security::{HttpAuthScheme, HttpBuilder, SecurityScheme};
use utoipa::openapi::{OpenApi as Document, RefOr};
use utoipa::{Modify, OpenApi, PartialSchema, ToSchema};

/// The name of the bearer-key security scheme that operations refer to.
pub const BEARER: &str = "bearer";

/// What the document holds besides the operations: its info and the security scheme.
#[derive(OpenApi)]
#[openapi(
    info(
        title = "Shoal API",
        description = "OpenAI-compatible chat completions on a pool of workers, paid with prepaid \
credits. Every error is `{\"error\": {\"message\", \"type\", \"param\", \"code\"}}`. \
Authenticate with `Authorization: Bearer <API key>`.",
        license(name = "Apache-2.0", identifier = "Apache-2.0")
    ),
    servers((url = "/api/v1", description = "This gateway's public API")),
    modifiers(&BearerScheme)
)]
pub struct Base;

struct BearerScheme;

impl Modify for BearerScheme {
    fn modify(&self, doc: &mut Document) {
        let scheme = HttpBuilder::new()
            .scheme(HttpAuthScheme::Bearer)
            .description(Some(
                "An API key (`sk-shoal-…`), from `shoal admin key create`",
            ))
            .build();
        doc.components
            .get_or_insert_with(Default::default)
            .add_security_scheme(BEARER, SecurityScheme::Http(scheme));
    }
}

/// A `tool` message must say which call it answers (validation refuses one without a
/// `tool_call_id`, or with an empty one). `ChatMessage` is one flat struct for every role, so
/// the derive cannot say it; JSON Schema's `if`/`then` can, written as extension keys like
/// `contentSchema` below. Applied to the whole document, once the routes have added their
/// schemas.
fn tool_messages_name_their_call(doc: &mut Document) {
    let schemas = &mut doc.components.get_or_insert_with(Default::default).schemas;
    let Some(RefOr::T(Schema::Object(message))) = schemas.get_mut("ChatMessage") else {
        return;
    };
    let rule = [
        (
            "if",
            json!({"properties": {"role": {"const": "tool"}}, "required": ["role"]}),
        ),
        (
            "then",
            json!({"required": ["tool_call_id"],
                   "properties": {"tool_call_id": {"type": "string", "minLength": 1}}}),
        ),
    ];
    (message.extensions.get_or_insert_with(Default::default))
        .extend(rule.map(|(k, v)| (k.to_owned(), v)));
}

/// The document as served: JSON, rendered once when the router is built.
#[derive(Clone)]
pub struct Rendered(pub Bytes);

impl Rendered {
    pub fn new(mut doc: Document) -> Self {
        tool_messages_name_their_call(&mut doc);
        Rendered(Bytes::from(
            serde_json::to_vec(&doc).expect("the OpenAPI document serializes"),
        ))
    }
}

/// This document. Needs no key.
#[utoipa::path(
    get,
    path = "/openapi.json",
    tag = "meta",
    security(()),
    responses(
        (status = 200, description = "The OpenAPI 3.1 document of this API", content_type = "application/json", body = Object),
    )
)]
pub async fn openapi_json(Extension(doc): Extension<Rendered>) -> Response {
    ([(header::CONTENT_TYPE, "application/json")], doc.0).into_response()
}

/// One Server-Sent Event of a streamed chat completion: its `data` is a JSON
/// `chat.completion.chunk`, or the `{"error": …}` of a worker that failed mid-stream, or the
/// final `[DONE]`. JSON Schema 2020-12 (OpenAPI 3.1) says "a string holding JSON of this
/// schema" with `contentMediaType` and `contentSchema`; utoipa has no builder method for the
/// latter, so it is written as an extension key (whose name is not checked on output).
pub struct ChatStreamEvent;

impl PartialSchema for ChatStreamEvent {
    fn schema() -> RefOr<Schema> {
        let reference = |name: std::borrow::Cow<'static, str>| json!({ "$ref": format!("#/components/schemas/{name}") });
        let payload = json!({ "anyOf": [reference(ChatCompletionChunk::name()), reference(ErrorBody::name())] });
        let json_data = ObjectBuilder::new()
            .schema_type(Type::String)
            .content_media_type("application/json")
            .extensions(Some(Extensions::from_iter([("contentSchema", payload)])));
        let done = ObjectBuilder::new()
            .schema_type(Type::String)
            .enum_values(Some(["[DONE]"]));
        let data = AnyOfBuilder::new().item(json_data).item(done);
        ObjectBuilder::new()
            .description(Some(
                "One `data:` event of the stream: a chunk, an error, or `[DONE]` last",
            ))
            .property("data", data)
            .required("data")
            .into()
    }
}

impl ToSchema for ChatStreamEvent {
    fn schemas(schemas: &mut Vec<(String, RefOr<Schema>)>) {
        schemas.push((
            ChatCompletionChunk::name().into(),
            ChatCompletionChunk::schema(),
        ));
        <ChatCompletionChunk as ToSchema>::schemas(schemas);
        schemas.push((ErrorBody::name().into(), ErrorBody::schema()));
        <ErrorBody as ToSchema>::schemas(schemas);
    }
}
