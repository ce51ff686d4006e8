//! Handlers of the `/api/v1` surface. Each reads top to bottom as the path of a request:
//! validate, resolve, hold, dispatch, settle. The Responses and Messages APIs are
//! translations into the chat path, one module each (`responses`, `messages`).

pub(crate) mod messages;
pub(crate) mod responses;

use axum::extract::rejection::PathRejection;
use axum::extract::{Path, State};
use axum::response::Response;
use axum::{Extension, Json};
use shoal_protocol::balance::BalanceResponse;
use shoal_protocol::chat::{ChatCompletion, ChatCompletionRequest};
use shoal_protocol::error::ErrorBody;
use shoal_protocol::models::{Capabilities, ModelEntry, ModelList, Pricing};
use shoal_protocol::parse::parse_chat_request;
use shoal_protocol::worker::JobRequest;
use shoal_store::HoldRequest;

use crate::chat::catalog::ModelSpec;
use crate::chat::pricing::UsageBounds;
use crate::chat::relay::{self, JobContext};
use crate::chat::shape::ChatShape;
use crate::http::{ApiError, Caller, ChatStreamEvent, JsonBytes, RequestStart};
use crate::workers::swarm;
use crate::{now_ms, AppState};

/// The model catalog, with live availability and prices.
#[utoipa::path(
    get,
    path = "/models",
    tag = "models",
    security(("bearer" = [])),
    responses(
        (status = 200, description = "Every model of the catalog, deprecated aliases included", body = ModelList),
        (status = 401, description = "Missing, malformed or revoked API key", body = ErrorBody),
        (status = 429, description = "The key's rate limit is exceeded", body = ErrorBody,
            headers(("retry-after" = u64, description = "Seconds until a retry can succeed"))),
    )
)]
pub async fn list_models(State(state): State<AppState>) -> Json<ModelList> {
    let pricing = display_pricing(&state);
    let data = state
        .config
        .catalog
        .entries()
        .iter()
        .map(|m| model_entry(&state, m, pricing.clone()))
        .collect();
    Json(ModelList::new(data))
}

/// One model by id, the same object as its entry in the listing; a deprecated alias answers
/// with its own entry.
#[utoipa::path(
    get,
    path = "/models/{id}",
    tag = "models",
    params(("id" = String, Path, description = "A model id from `GET /api/v1/models`")),
    security(("bearer" = [])),
    responses(
        (status = 200, description = "The model", body = ModelEntry),
        (status = 404, description = "No model has this id (`model_not_found`)", body = ErrorBody),
        (status = 401, description = "Missing, malformed or revoked API key", body = ErrorBody),
        (status = 429, description = "The key's rate limit is exceeded", body = ErrorBody,
            headers(("retry-after" = u64, description = "Seconds until a retry can succeed"))),
    )
)]
pub async fn retrieve_model(
    State(state): State<AppState>,
    id: Result<Path<String>, PathRejection>,
) -> Result<Json<ModelEntry>, ApiError> {
    // An id that is not UTF-8 once percent-decoded names no model either.
    let Ok(Path(id)) = id else {
        return Err(ApiError::model_not_found());
    };
    let spec = state
        .config
        .catalog
        .entries()
        .iter()
        .find(|m| m.id == id)
        .ok_or_else(ApiError::model_not_found)?;
    Ok(Json(model_entry(&state, spec, display_pricing(&state))))
}

fn display_pricing(state: &AppState) -> Pricing {
    let card = &state.config.rate_card;
    Pricing::per_token(
        card.input_nano_usd_per_token as f64 / 1000.0,
        card.output_nano_usd_per_token as f64 / 1000.0,
    )
}

/// A catalog entry as the API shows it; `available` is live, and an alias is available when
/// the model it resolves to is.
fn model_entry(state: &AppState, m: &ModelSpec, pricing: Pricing) -> ModelEntry {
    let target = state.config.catalog.resolve(&m.id).unwrap_or(m);
    ModelEntry {
        id: m.id.clone(),
        object: ModelEntry::OBJECT.into(),
        created: m.created,
        owned_by: m.owned_by.clone(),
        available: swarm::available(state, &target.id),
        pricing,
        context_length: m.context_length,
        max_output_tokens: Some(m.max_output_tokens),
        capabilities: Capabilities {
            tools: m.tools,
            vision: m.vision,
            reasoning: m.reasoning,
        },
        description: m.description.clone(),
        deprecated: m.alias_of.is_some(),
        alias_of: m.alias_of.clone(),
    }
}

/// The credit balance of the account that owns the key.
#[utoipa::path(
    get,
    path = "/balance",
    tag = "account",
    security(("bearer" = [])),
    responses(
        (status = 200, description = "The balance", body = BalanceResponse),
        (status = 401, description = "Missing, malformed or revoked API key", body = ErrorBody),
        (status = 429, description = "The key's rate limit is exceeded", body = ErrorBody,
            headers(("retry-after" = u64, description = "Seconds until a retry can succeed"))),
        (status = 500, description = "The gateway failed; nothing was billed", body = ErrorBody),
    )
)]
pub async fn balance(
    State(state): State<AppState>,
    caller: Caller,
) -> Result<Json<BalanceResponse>, ApiError> {
    let b = state.store.balance(caller.account_id, now_ms()).await?;
    Ok(Json(BalanceResponse {
        object: "balance".into(),
        credits: b.credits,
        usd: shoal_store::money::credits_to_usd(b.credits),
        total_deposited: b.total_deposited,
        total_spent: b.total_spent,
        credits_held: b.credits_held,
        daily_credits_left: b.daily_credits_left,
    }))
}

/// A chat completion: one JSON body, or with `stream: true` Server-Sent Events, each a
/// `data:` line holding a `chat.completion.chunk`, ended by `data: [DONE]`.
#[utoipa::path(
    post,
    path = "/chat/completions",
    tag = "chat",
    request_body(content = ChatCompletionRequest, content_type = "application/json",
        example = json!({"model": "large-27b-uncensored", "max_tokens": 16,
                         "messages": [{"role": "user", "content": "Hello"}]})),
    security(("bearer" = [])),
    responses(
        (status = 200, description = "The completion (`stream` false) or its chunks (`stream` true); `usage` holds the token counts billed",
            content(
                (ChatCompletion = "application/json"),
                (ChatStreamEvent = "text/event-stream"),
            )),
        (status = 400, description = "The request is invalid; `param` names the field", body = ErrorBody),
        (status = 401, description = "Missing, malformed or revoked API key", body = ErrorBody),
        (status = 429, description = "The key's rate limit is exceeded", body = ErrorBody,
            headers(("retry-after" = u64, description = "Seconds until a retry can succeed"))),
        (status = 402, description = "Not enough credits for this request's hold (`insufficient_credits`)", body = ErrorBody),
        (status = 404, description = "No such model (`model_not_found`)", body = ErrorBody),
        (status = 413, description = "The body exceeds the size limit", body = ErrorBody),
        (status = 415, description = "The body is not JSON", body = ErrorBody),
        (status = 500, description = "The gateway failed; nothing was billed", body = ErrorBody),
        (status = 502, description = "The worker failed; only delivered output is billed", body = ErrorBody),
        (status = 503, description = "No worker for this model is online or free (`no_worker_available`)", body = ErrorBody,
            headers(("retry-after" = u64, description = "Seconds to wait before retrying"))),
        (status = 504, description = "The request ran past the time limit", body = ErrorBody),
    )
)]
pub async fn chat_completions(
    State(state): State<AppState>,
    caller: Caller,
    start: Option<Extension<RequestStart>>,
    JsonBytes(body): JsonBytes,
) -> Result<Response, ApiError> {
    let arrived = arrival(start);
    // 1. validate
    let req =
        parse_chat_request(&body).map_err(|e| ApiError::invalid_request(e.message, e.param))?;
    drop(body);
    let (stream, include_usage) = (req.stream.unwrap_or(false), req.wants_usage_in_stream());
    let admitted = admit(&state, &caller, arrived, req, "chatcmpl-")?;
    let shape = ChatShape::new(
        admitted.ctx.request_id.clone(),
        admitted.created,
        admitted.ctx.model.clone(),
        stream,
        include_usage,
    );
    Ok(relay::run(state.clone(), admitted.ctx, Box::new(shape)).await)
}

/// A request another API was translated into, held to the chat path's own rules (which the
/// translation should never break: a safety net, not a second validator).
fn translated(req: ChatCompletionRequest) -> Result<ChatCompletionRequest, ApiError> {
    req.validate()
        .map_err(|e| ApiError::invalid_request(e.message, None))?;
    Ok(req)
}

/// When the request reached the gateway (now, where no layer recorded it).
fn arrival(start: Option<Extension<RequestStart>>) -> std::time::Instant {
    start
        .map(|s| s.0 .0)
        .unwrap_or_else(std::time::Instant::now)
}

/// A request ready for the relay, with its `created` time (Unix seconds).
struct Admitted {
    ctx: JobContext,
    created: i64,
}

/// From a validated chat request (whichever API it came in as) to the job the relay runs:
/// the model resolved and able to take it, the largest cost it could incur, and its hold.
/// `id_prefix` starts the request id (`chatcmpl-`, `resp_`, `msg_`).
fn admit(
    state: &AppState,
    caller: &Caller,
    arrived: std::time::Instant,
    req: ChatCompletionRequest,
    id_prefix: &str,
) -> Result<Admitted, ApiError> {
    let model = state
        .config
        .catalog
        .resolve(&req.model)
        .ok_or_else(ApiError::model_not_found)?;
    if req.has_image_parts() && !model.vision {
        return Err(ApiError::invalid_request(
            "this model does not accept image input; use a model whose capabilities include vision",
            Some("messages".into()),
        ));
    }
    crate::chat::images::check(&req, &state.config.chat_images)?;
    if req.tools.as_ref().is_some_and(|t| !t.is_empty()) && !model.tools {
        return Err(ApiError::invalid_request(
            "this model does not support tools",
            Some("tools".into()),
        ));
    }

    // 2. the largest cost it could incur; the relay's driver task takes the hold, so a
    // client that goes away while it is being written cannot leave it behind.
    // Time-ordered (UUIDv7: milliseconds, then random bits): the holds table is keyed by this
    // id, and ids that follow one another land in the same B-tree page instead of a random
    // one, so a commit writes fewer pages. It tells the client nothing `created` does not.
    // The random bits come from the thread's own generator (`rand`), not a system call.
    let now = now_ms();
    let millis = u64::try_from(now).unwrap_or(0);
    let id = uuid::Builder::from_unix_timestamp_millis(millis, &rand::random()).into_uuid();
    let request_id = format!("{id_prefix}{}", id.simple());
    let bounds = UsageBounds::of(&req, model);
    let needed = bounds.hold_credits(&state.config.rate_card);
    let hold = HoldRequest {
        request_id: request_id.clone(),
        account_id: caller.account_id,
        credits: needed,
        model: model.id.clone(),
        expires_at: now + state.config.hold_ttl.as_millis() as i64,
        // 0 for API keys: only the dashboard's session spends free daily credits.
        free_daily: caller.free_daily,
        key_id: caller.key_id,
    };

    // 3. hold, dispatch and relay (the caller runs it); once held, the hold is ended
    // whatever happens.
    let ctx = JobContext {
        arrived,
        request_id,
        hold,
        model: model.id.clone(),
        stream: req.stream.unwrap_or(false),
        bounds,
        job: JobRequest::from_chat(req, bounds.completion_tokens),
    };
    Ok(Admitted {
        ctx,
        created: now / 1000,
    })
}
