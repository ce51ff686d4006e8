//! `POST /api/v1/responses`: the OpenAI Responses API, stateless, run as a chat job.
//!
//! The body is read and translated by `shoal_protocol::responses`; from there the request
//! takes the chat path (`admit`, the relay) and its answer is written by a
//! [`ResponseRenderer`]. Nothing is stored, so `GET /responses/{id}` finds nothing.

use axum::extract::State;
use axum::response::Response;
use axum::Extension;
use shoal_protocol::error::ErrorBody;
use shoal_protocol::responses::{
    parse_responses_request, Response as ResponseObject, ResponseEcho, ResponseRenderer,
    ResponsesRequest,
};

use super::{admit, arrival, translated};
use crate::chat::relay;
use crate::http::{ApiError, Caller, JsonBytes, RequestStart};
use crate::AppState;

/// A response: one JSON body, or with `stream: true` Server-Sent Events (`response.created`
/// … `response.completed`, each with a `sequence_number`). Stateless: `store` is accepted and
/// nothing is kept.
#[utoipa::path(
    post,
    path = "/responses",
    tag = "responses",
    request_body(content = ResponsesRequest, content_type = "application/json",
        example = json!({"model": "large-27b-uncensored", "max_output_tokens": 16,
                         "input": "Hello"})),
    security(("bearer" = [])),
    responses(
        (status = 200, description = "The response (`stream` false) or its events (`stream` true); `usage` holds the token counts billed",
            content(
                (ResponseObject = "application/json"),
                (Object = "text/event-stream"),
            )),
        (status = 400, description = "The request is invalid; `param` names the field", body = ErrorBody),
        (status = 401, description = "Missing, malformed or revoked API key", body = ErrorBody),
        (status = 402, description = "Not enough credits for this request's hold", body = ErrorBody),
        (status = 404, description = "No such model (`model_not_found`)", body = ErrorBody),
        (status = 429, description = "The key's rate limit is exceeded", body = ErrorBody,
            headers(("retry-after" = u64, description = "Seconds until a retry can succeed"))),
        (status = 502, description = "The worker failed; only delivered output is billed", body = ErrorBody),
        (status = 503, description = "No worker for this model is online or free", body = ErrorBody),
        (status = 504, description = "The request ran past the time limit", body = ErrorBody),
    )
)]
pub async fn create_response(
    State(state): State<AppState>,
    caller: Caller,
    start: Option<Extension<RequestStart>>,
    JsonBytes(body): JsonBytes,
) -> Result<Response, ApiError> {
    let arrived = arrival(start);
    let req = parse_responses_request(&body)
        .map_err(|e| ApiError::invalid_request(e.message, e.param))?;
    drop(body);
    // What the response echoes is taken before the conversation moves into the chat job.
    let echo = ResponseEcho::of(&req);
    let chat = translated(req.into_chat())?;
    let stream = chat.stream.unwrap_or(false);
    let admitted = admit(&state, &caller, arrived, chat, "resp_")?;
    let shape = ResponseRenderer::new(
        echo,
        admitted.ctx.request_id.clone(),
        admitted.created,
        admitted.ctx.model.clone(),
        stream,
    );
    Ok(relay::run(state.clone(), admitted.ctx, Box::new(shape)).await)
}

/// Always 404: responses are not stored (the service is stateless).
#[utoipa::path(
    get,
    path = "/responses/{id}",
    tag = "responses",
    params(("id" = String, Path, description = "A response id")),
    security(("bearer" = [])),
    responses(
        (status = 404, description = "Responses are not stored (`not_found`)", body = ErrorBody),
        (status = 401, description = "Missing, malformed or revoked API key", body = ErrorBody),
    )
)]
pub async fn retrieve_response() -> ApiError {
    ApiError::response_not_stored()
}
