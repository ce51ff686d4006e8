//! `POST /api/v1/messages` and `/api/v1/messages/count_tokens`: the Anthropic Messages API,
//! run as a chat job.
//!
//! The body is read and translated by `shoal_protocol::messages`; from there the request
//! takes the chat path (`admit`, the relay) and its answer is written by a
//! [`MessageRenderer`]. Every error on these routes, the key check's and the rate limit's
//! included, is rewritten into Anthropic's shape by [`anthropic_errors`], with the same status.

use axum::body::Body;
use axum::extract::State;
use axum::http::{header, HeaderValue};
use axum::response::Response;
use axum::{Extension, Json};
use shoal_protocol::error::ErrorBody;
use shoal_protocol::messages::{
    parse_count_tokens_request, parse_messages_request, Message, MessageRenderer,
    MessagesErrorBody, MessagesErrorType, MessagesRequest, TokenCount,
};

use super::{admit, arrival, translated};
use crate::chat::pricing::UsageBounds;
use crate::chat::relay;
use crate::http::{ApiError, Caller, JsonBytes, RequestStart};
use crate::AppState;

/// The largest error body rewritten; ours are a few hundred bytes.
const MAX_ERROR_BODY: usize = 64 * 1024;

/// A message: one JSON body, or with `stream: true` Server-Sent Events (`message_start` …
/// `message_stop`). Authenticate with `x-api-key` or `Authorization: Bearer`;
/// `anthropic-version` and `anthropic-beta` are accepted and unknown betas ignored.
#[utoipa::path(
    post,
    path = "/messages",
    tag = "messages",
    request_body(content = MessagesRequest, content_type = "application/json",
        example = json!({"model": "large-27b-uncensored", "max_tokens": 16,
                         "messages": [{"role": "user", "content": "Hello"}]})),
    security(("bearer" = [])),
    responses(
        (status = 200, description = "The message (`stream` false) or its events (`stream` true); `usage` holds the token counts billed",
            content(
                (Message = "application/json"),
                (Object = "text/event-stream"),
            )),
        (status = 400, description = "The request is invalid (`invalid_request_error`)", body = MessagesErrorBody),
        (status = 401, description = "Missing, malformed or revoked API key (`authentication_error`)", body = MessagesErrorBody),
        (status = 402, description = "Not enough credits for this request's hold (`billing_error`)", body = MessagesErrorBody),
        (status = 404, description = "No such model (`not_found_error`)", body = MessagesErrorBody),
        (status = 429, description = "The key's rate limit is exceeded (`rate_limit_error`)", body = MessagesErrorBody,
            headers(("retry-after" = u64, description = "Seconds until a retry can succeed"))),
        (status = 503, description = "No worker for this model is online or free (`overloaded_error`)", body = MessagesErrorBody),
    )
)]
pub async fn create_message(
    State(state): State<AppState>,
    caller: Caller,
    start: Option<Extension<RequestStart>>,
    JsonBytes(body): JsonBytes,
) -> Result<Response, ApiError> {
    let arrived = arrival(start);
    let req =
        parse_messages_request(&body).map_err(|e| ApiError::invalid_request(e.message, e.param))?;
    drop(body);
    let chat = translated(req.into_chat())?;
    let stream = chat.stream.unwrap_or(false);
    let admitted = admit(&state, &caller, arrived, chat, "msg_")?;
    let shape = MessageRenderer::new(
        admitted.ctx.request_id.clone(),
        admitted.ctx.model.clone(),
        stream,
    );
    Ok(relay::run(state.clone(), admitted.ctx, Box::new(shape)).await)
}

/// The input tokens a messages request would be billed for at most: the gateway's own upper
/// bound for the prompt (the one its hold is sized by, capped by the model's context), not a
/// worker's exact count. Nothing is dispatched or billed.
#[utoipa::path(
    post,
    path = "/messages/count_tokens",
    tag = "messages",
    request_body(content = MessagesRequest, content_type = "application/json"),
    security(("bearer" = [])),
    responses(
        (status = 200, description = "The count", body = TokenCount),
        (status = 400, description = "The request is invalid (`invalid_request_error`)", body = MessagesErrorBody),
        (status = 401, description = "Missing, malformed or revoked API key (`authentication_error`)", body = MessagesErrorBody),
        (status = 404, description = "No such model (`not_found_error`)", body = MessagesErrorBody),
    )
)]
pub async fn count_tokens(
    State(state): State<AppState>,
    JsonBytes(body): JsonBytes,
) -> Result<Json<TokenCount>, ApiError> {
    let req = parse_count_tokens_request(&body)
        .map_err(|e| ApiError::invalid_request(e.message, e.param))?;
    drop(body);
    let chat = translated(req.into_chat())?;
    let model = state
        .config
        .catalog
        .resolve(&chat.model)
        .ok_or_else(ApiError::model_not_found)?;
    let bounds = UsageBounds::of(&chat, model);
    Ok(Json(TokenCount {
        input_tokens: bounds.prompt_tokens,
    }))
}

/// Rewrites an error response of ours (`{"error":{…}}`) into Anthropic's shape
/// (`{"type":"error","error":{"type","message"}}`), keeping its status and headers.
pub async fn anthropic_errors(response: Response) -> Response {
    let status = response.status();
    if status.is_success() {
        return response;
    }
    let (mut parts, body) = response.into_parts();
    let message = match axum::body::to_bytes(body, MAX_ERROR_BODY).await {
        Ok(bytes) => serde_json::from_slice::<ErrorBody>(&bytes)
            .map(|e| e.error.message)
            .ok(),
        Err(_) => None,
    };
    let message = message.unwrap_or_else(|| {
        status
            .canonical_reason()
            .unwrap_or("request failed")
            .to_owned()
    });
    let body = MessagesErrorBody::new(MessagesErrorType::for_status(status.as_u16()), message);
    parts.headers.remove(header::CONTENT_LENGTH);
    parts.headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    let bytes = serde_json::to_vec(&body).expect("error bodies serialize");
    Response::from_parts(parts, Body::from(bytes))
}
