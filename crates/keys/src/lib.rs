//! The keys API of the Shoal gateway, after OpenRouter's endpoints of the same names: a key's
//! own view of itself (`GET /key`), the account's keys (`/keys`, for a management key or the
//! dashboard's session) and a request's record (`GET /generation`). The binary mounts
//! [`api_routes`] under `/api/v1`, behind the gateway's key check; the dashboard mounts the
//! `/keys` handlers for its session. Keys, limits and records live in `shoal-store` and their
//! wire types in `shoal-protocol`; this crate owns the handlers and the rules for who may see
//! and change what.
//!
//! Every key is looked up with the caller's account, so another account's key, like another
//! account's request, reads as unknown: 404, never 403.

use axum::extract::rejection::{PathRejection, QueryRejection};
use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use axum::Json;
use serde::Deserialize;
use shoal_gateway::{now_ms, ApiError, AppState, Caller, JsonBytes, KeyCaller, KeyManager};
use shoal_protocol::cost::UsdOfCredits;
use shoal_protocol::error::ErrorBody;
use shoal_protocol::keys::{
    parse_create_key, parse_update_key, CreateKeyRequest, CreatedKey, DeletedKey, GenerationData,
    GenerationObject, KeyData, KeyKind as WireKind, KeyList, KeyObject, LimitReset as WireReset,
    RateLimit, UpdateKeyRequest,
};
use shoal_store::money::LimitReset;
use shoal_store::{AccountId, ApiKeyInfo, KeyId, KeyKind, KeyLimit, KeyUsage, NewKey, StoreError};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

/// Every route of this API, for the gateway's `Routes::api` (under `/api/v1`).
pub fn api_routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(current_key))
        .routes(routes!(list_keys, create_key))
        .routes(routes!(get_key, update_key, delete_key))
        .routes(routes!(generation))
}

/// The calling key: its label, limit, what is left and when it resets, its usage today and in
/// the window, and its rate limit.
#[utoipa::path(
    get,
    path = "/key",
    tag = "keys",
    security(("bearer" = [])),
    responses(
        (status = 200, description = "The key that made this request", body = KeyData),
        (status = 401, description = "Missing, malformed or revoked API key", body = ErrorBody),
        (status = 429, description = "The key's rate limit is exceeded", body = ErrorBody,
            headers(("retry-after" = u64, description = "Seconds until a retry can succeed"))),
    )
)]
pub async fn current_key(
    State(state): State<AppState>,
    caller: KeyCaller,
) -> Result<Json<KeyData>, ApiError> {
    let data = key_object(&state, caller.account_id, caller.key_id).await?;
    Ok(Json(KeyData { data }))
}

/// The account's keys, revoked ones included, oldest first; each by its first characters only.
#[utoipa::path(
    get,
    path = "/keys",
    tag = "keys",
    security(("bearer" = [])),
    responses(
        (status = 200, description = "The account's keys", body = KeyList),
        (status = 401, description = "Missing, malformed or revoked API key", body = ErrorBody),
        (status = 403, description = "Not a management key", body = ErrorBody),
        (status = 429, description = "The key's rate limit is exceeded", body = ErrorBody,
            headers(("retry-after" = u64, description = "Seconds until a retry can succeed"))),
    )
)]
pub async fn list_keys(
    State(state): State<AppState>,
    manager: KeyManager,
) -> Result<Json<KeyList>, ApiError> {
    let keys = state.store.list_api_keys(manager.account_id).await?;
    let now = now_ms();
    let mut data = Vec::with_capacity(keys.len());
    for info in &keys {
        let usage = state.store.key_usage(info.id, now).await?;
        data.push(object_of(&state, info, &usage));
    }
    Ok(Json(KeyList { data }))
}

/// A new inference key, with a spending limit if asked; the key is in this answer and nowhere
/// else.
#[utoipa::path(
    post,
    path = "/keys",
    tag = "keys",
    request_body(content = CreateKeyRequest, content_type = "application/json",
        example = json!({"name": "agent", "limit": 500, "limit_reset": "daily"})),
    security(("bearer" = [])),
    responses(
        (status = 201, description = "The key (shown this once) and its object", body = CreatedKey),
        (status = 400, description = "The request is invalid; `param` names the field", body = ErrorBody),
        (status = 401, description = "Missing, malformed or revoked API key", body = ErrorBody),
        (status = 403, description = "Not a management key", body = ErrorBody),
        (status = 413, description = "The body exceeds the size limit", body = ErrorBody),
        (status = 415, description = "The body is not JSON", body = ErrorBody),
        (status = 429, description = "The key's rate limit is exceeded", body = ErrorBody,
            headers(("retry-after" = u64, description = "Seconds until a retry can succeed"))),
    )
)]
pub async fn create_key(
    State(state): State<AppState>,
    manager: KeyManager,
    JsonBytes(body): JsonBytes,
) -> Result<(StatusCode, Json<CreatedKey>), ApiError> {
    let req = parse_create_key(&body).map_err(|e| ApiError::invalid_request(e.message, e.param))?;
    let new = NewKey {
        name: req.name.as_deref(),
        rpm: req.rpm,
        kind: KeyKind::Inference,
        limit: req.limit.map(|credits| KeyLimit {
            credits,
            reset: reset_of(req.limit_reset.unwrap_or(WireReset::Never)),
        }),
    };
    let created = (state
        .store
        .create_key(manager.account_id, &new, now_ms())
        .await)
        .map_err(refused)?;
    if req.concurrency.is_some() {
        let set = state
            .store
            .set_key_concurrency(manager.account_id, created.id, req.concurrency);
        set.await.map_err(refused)?;
    }
    let data = key_object(&state, manager.account_id, created.id).await?;
    let key = created.key;
    Ok((StatusCode::CREATED, Json(CreatedKey { data, key })))
}

/// One of the account's keys.
#[utoipa::path(
    get,
    path = "/keys/{id}",
    tag = "keys",
    params(("id" = i64, Path, description = "A key's id, from `GET /keys`")),
    security(("bearer" = [])),
    responses(
        (status = 200, description = "The key", body = KeyData),
        (status = 401, description = "Missing, malformed or revoked API key", body = ErrorBody),
        (status = 403, description = "Not a management key", body = ErrorBody),
        (status = 404, description = "No key of this account has this id", body = ErrorBody),
        (status = 429, description = "The key's rate limit is exceeded", body = ErrorBody,
            headers(("retry-after" = u64, description = "Seconds until a retry can succeed"))),
    )
)]
pub async fn get_key(
    State(state): State<AppState>,
    manager: KeyManager,
    id: Result<Path<KeyId>, PathRejection>,
) -> Result<Json<KeyData>, ApiError> {
    let id = key_id(id)?;
    let data = key_object(&state, manager.account_id, id).await?;
    Ok(Json(KeyData { data }))
}

/// Rename a key, or set, change or remove its spending limit. A new limit counts what the key
/// spent in the current window so far.
#[utoipa::path(
    patch,
    path = "/keys/{id}",
    tag = "keys",
    params(("id" = i64, Path, description = "A key's id, from `GET /keys`")),
    request_body(content = UpdateKeyRequest, content_type = "application/json",
        example = json!({"limit": 1000, "limit_reset": "weekly"})),
    security(("bearer" = [])),
    responses(
        (status = 200, description = "The key as it is now", body = KeyData),
        (status = 400, description = "The request is invalid; `param` names the field", body = ErrorBody),
        (status = 401, description = "Missing, malformed or revoked API key", body = ErrorBody),
        (status = 403, description = "Not a management key", body = ErrorBody),
        (status = 404, description = "No key of this account has this id", body = ErrorBody),
        (status = 413, description = "The body exceeds the size limit", body = ErrorBody),
        (status = 415, description = "The body is not JSON", body = ErrorBody),
        (status = 429, description = "The key's rate limit is exceeded", body = ErrorBody,
            headers(("retry-after" = u64, description = "Seconds until a retry can succeed"))),
    )
)]
pub async fn update_key(
    State(state): State<AppState>,
    manager: KeyManager,
    id: Result<Path<KeyId>, PathRejection>,
    JsonBytes(body): JsonBytes,
) -> Result<Json<KeyData>, ApiError> {
    let id = key_id(id)?;
    let req = parse_update_key(&body).map_err(|e| ApiError::invalid_request(e.message, e.param))?;
    let account = manager.account_id;
    let info = state.store.api_key(account, id).await.map_err(refused)?;
    if let Some(limit) = new_limit(&info, &req)? {
        (state.store.set_key_limit(account, id, limit).await).map_err(refused)?;
    }
    if let Some(name) = &req.name {
        (state.store.set_key_name(account, id, name.as_deref()).await).map_err(refused)?;
    }
    if let Some(concurrency) = req.concurrency {
        let set = state.store.set_key_concurrency(account, id, concurrency);
        set.await.map_err(refused)?;
    }
    let data = key_object(&state, account, id).await?;
    Ok(Json(KeyData { data }))
}

/// Revoke a key: it authenticates nothing once the gateway's key cache forgets it (within
/// `auth_cache_ms`, a second by default). Revoking it again is not an error.
#[utoipa::path(
    delete,
    path = "/keys/{id}",
    tag = "keys",
    params(("id" = i64, Path, description = "A key's id, from `GET /keys`")),
    security(("bearer" = [])),
    responses(
        (status = 200, description = "The key is revoked", body = DeletedKey),
        (status = 401, description = "Missing, malformed or revoked API key", body = ErrorBody),
        (status = 403, description = "Not a management key", body = ErrorBody),
        (status = 404, description = "No key of this account has this id", body = ErrorBody),
        (status = 429, description = "The key's rate limit is exceeded", body = ErrorBody,
            headers(("retry-after" = u64, description = "Seconds until a retry can succeed"))),
    )
)]
pub async fn delete_key(
    State(state): State<AppState>,
    manager: KeyManager,
    id: Result<Path<KeyId>, PathRejection>,
) -> Result<Json<DeletedKey>, ApiError> {
    let id = key_id(id)?;
    (state
        .store
        .revoke_key(manager.account_id, id, now_ms())
        .await)
        .map_err(refused)?;
    Ok(Json(DeletedKey { id, deleted: true }))
}

/// `GET /generation`'s query.
#[derive(Debug, Deserialize)]
pub struct GenerationQuery {
    id: Option<String>,
}

/// One of the account's requests, by its answer's id: model, tokens, credits charged, latency,
/// time to first token, finish reason and the kind of worker that served it. Kept for 30 days.
#[utoipa::path(
    get,
    path = "/generation",
    tag = "account",
    params(("id" = String, Query, description = "The answer's id (`chatcmpl-…`, `resp_…`, `msg_…`)")),
    security(("bearer" = [])),
    responses(
        (status = 200, description = "The request's record", body = GenerationData),
        (status = 400, description = "No `id` given", body = ErrorBody),
        (status = 401, description = "Missing, malformed or revoked API key", body = ErrorBody),
        (status = 403, description = "A management key", body = ErrorBody),
        (status = 404, description = "No request of this account has this id (or its record expired)", body = ErrorBody),
        (status = 429, description = "The key's rate limit is exceeded", body = ErrorBody,
            headers(("retry-after" = u64, description = "Seconds until a retry can succeed"))),
    )
)]
pub async fn generation(
    State(state): State<AppState>,
    caller: Caller,
    query: Result<Query<GenerationQuery>, QueryRejection>,
) -> Result<Json<GenerationData>, ApiError> {
    let id = query.ok().and_then(|Query(q)| q.id);
    let id = id.ok_or_else(|| {
        ApiError::invalid_request("missing query parameter `id`", Some("id".into()))
    })?;
    let g = (state.store.generation(caller.account_id, &id).await?)
        .ok_or_else(|| ApiError::not_found("no request of this account has this id", "id"))?;
    Ok(Json(GenerationData {
        data: GenerationObject {
            id: g.id,
            model: g.model,
            created_at: g.created_at.div_euclid(1000),
            tokens_prompt: g.input_tokens,
            tokens_completion: g.output_tokens,
            total_cost: g.credits,
            total_cost_usd: UsdOfCredits(g.credits),
            latency: g.latency_ms,
            time_to_first_token: g.time_to_first_token_ms,
            finish_reason: g.finish_reason,
            worker_kind: g.worker_kind,
        },
    }))
}

/// The key's new limit from a `PATCH` body: `None` when the body leaves it alone.
fn new_limit(
    info: &ApiKeyInfo,
    req: &UpdateKeyRequest,
) -> Result<Option<Option<KeyLimit>>, ApiError> {
    if info.kind == KeyKind::Management && (req.limit.is_some() || req.limit_reset.is_some()) {
        return Err(ApiError::invalid_request(
            "a management key runs no requests and takes no limit",
            Some("limit".into()),
        ));
    }
    let reset = req.limit_reset.map(reset_of);
    Ok(match (req.limit, reset) {
        (Some(None), _) => Some(None),
        (Some(Some(credits)), reset) => Some(Some(KeyLimit {
            credits,
            reset: reset
                .or(info.limit.map(|l| l.reset))
                .unwrap_or(LimitReset::Never),
        })),
        (None, Some(reset)) => {
            let current = info.limit.ok_or_else(|| {
                ApiError::invalid_request(
                    "this key has no limit: send `limit` with `limit_reset`",
                    Some("limit_reset".into()),
                )
            })?;
            Some(Some(KeyLimit { reset, ..current }))
        }
        (None, None) => None,
    })
}

/// A key of the account as the API shows it.
async fn key_object(
    state: &AppState,
    account: AccountId,
    id: KeyId,
) -> Result<KeyObject, ApiError> {
    let info = state.store.api_key(account, id).await.map_err(refused)?;
    let usage = state.store.key_usage(id, now_ms()).await?;
    Ok(object_of(state, &info, &usage))
}

fn object_of(state: &AppState, info: &ApiKeyInfo, usage: &KeyUsage) -> KeyObject {
    let seconds = |ms: i64| ms.div_euclid(1000);
    KeyObject {
        id: info.id,
        label: format!("{}…", info.prefix),
        name: info.name.clone(),
        kind: match info.kind {
            KeyKind::Inference => WireKind::Inference,
            KeyKind::Management => WireKind::Management,
        },
        disabled: info.revoked_at.is_some(),
        limit: info.limit.map(|l| l.credits),
        limit_reset: info.limit.map(|l| wire_reset(l.reset)),
        limit_remaining: usage.remaining,
        limit_resets_at: usage.resets_at.map(seconds),
        usage: usage.window_spent,
        usage_daily: usage.spent_today,
        requests_daily: usage.requests_today,
        rate_limit: RateLimit {
            requests: info.rpm.unwrap_or(state.config.default_rpm),
            interval: "1m".into(),
        },
        concurrency: info.concurrency.unwrap_or(state.config.key_concurrency),
        created_at: seconds(info.created_at),
    }
}

fn reset_of(r: WireReset) -> LimitReset {
    match r {
        WireReset::Daily => LimitReset::Daily,
        WireReset::Weekly => LimitReset::Weekly,
        WireReset::Monthly => LimitReset::Monthly,
        WireReset::Never => LimitReset::Never,
    }
}

fn wire_reset(r: LimitReset) -> WireReset {
    match r {
        LimitReset::Daily => WireReset::Daily,
        LimitReset::Weekly => WireReset::Weekly,
        LimitReset::Monthly => WireReset::Monthly,
        LimitReset::Never => WireReset::Never,
    }
}

/// A path's key id; one that is not a number names no key.
fn key_id(id: Result<Path<KeyId>, PathRejection>) -> Result<KeyId, ApiError> {
    id.map(|Path(id)| id).map_err(|_| no_such_key())
}

fn no_such_key() -> ApiError {
    ApiError::not_found("no key of this account has this id", "id")
}

/// The store's refusal of a key operation: an unknown key (or another account's) is a 404,
/// a value out of range a 400 (the store's message names the rule, never a value).
fn refused(e: StoreError) -> ApiError {
    match e {
        StoreError::NotFound(_) => no_such_key(),
        StoreError::Invalid(message) => ApiError::invalid_request(message, None),
        e => e.into(),
    }
}
