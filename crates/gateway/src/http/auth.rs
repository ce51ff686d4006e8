//! Authentication and rate limiting for `/api/v1`: one middleware, run before every handler.
//!
//! Bearer key (or `x-api-key`) → account (hash lookup, positive answers cached for `auth_cache`), then the
//! key's rate limit, then its cap on requests in flight (`slots`). Every response to an
//! authenticated caller carries the rate-limit headers.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use axum::extract::{FromRequestParts, Request, State};
use axum::http::request::Parts;
use axum::http::{header, HeaderMap, HeaderValue};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use shoal_store::{credentials, AccountId, ApiKeyPrincipal, KeyId, KeyKind};

use crate::http::slots::hold_until_sent;
use crate::http::ApiError;
use crate::ratelimit::{format_reset, retry_after_secs, Decision};
use crate::AppState;
use shoal_store::money::{free_allowance, Payer};

/// The authenticated caller, put in the request's extensions by the authentication layer
/// ([`authenticate`], or the dashboard's session check); handlers take it as an extractor.
#[derive(Debug, Clone, Copy)]
pub struct Caller {
    /// `None`: a dashboard session (`shoal-dashboard`).
    pub key_id: Option<KeyId>,
    pub account_id: AccountId,
    /// Free daily credits this caller's requests may spend (`money::free_allowance`): 0
    /// for an API key.
    pub free_daily: i64,
}

impl<S: Send + Sync> FromRequestParts<S> for Caller {
    type Rejection = ApiError;

    /// Only a key that may run requests (or a dashboard session) is a `Caller`: a management
    /// key is refused here, by every handler that runs or pays for anything.
    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, ApiError> {
        if let Some(caller) = parts.extensions.get::<Caller>() {
            return Ok(*caller);
        }
        match parts.extensions.get::<KeyCaller>() {
            Some(k) if k.kind == KeyKind::Management => Err(ApiError::forbidden(
                "a management key manages the account's keys and runs no requests; use an \
                 inference key",
            )),
            _ => Err(unauthenticated()),
        }
    }
}

/// A route mounted without an authentication layer: a bug, never the client's.
fn unauthenticated() -> ApiError {
    tracing::error!("a handler that needs a caller runs without authentication");
    ApiError::internal()
}

/// The API key a request authenticated with, whatever its kind (`GET /api/v1/key`).
#[derive(Debug, Clone, Copy)]
pub struct KeyCaller {
    pub key_id: KeyId,
    pub account_id: AccountId,
    pub kind: KeyKind,
    /// Its requests per minute (the key's own or the gateway's default).
    pub rpm: u32,
}

impl<S: Send + Sync> FromRequestParts<S> for KeyCaller {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, ApiError> {
        parts
            .extensions
            .get::<KeyCaller>()
            .copied()
            .ok_or_else(unauthenticated)
    }
}

/// Who may manage an account's keys: a management key of the account, or the account's
/// dashboard session. An inference key may not.
#[derive(Debug, Clone, Copy)]
pub struct KeyManager {
    pub account_id: AccountId,
}

impl<S: Send + Sync> FromRequestParts<S> for KeyManager {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, ApiError> {
        let key = parts.extensions.get::<KeyCaller>();
        let session = parts
            .extensions
            .get::<Caller>()
            .filter(|c| c.key_id.is_none());
        match (key, session) {
            (Some(k), _) if k.kind == KeyKind::Management => Ok(KeyManager {
                account_id: k.account_id,
            }),
            (Some(_), _) => Err(ApiError::forbidden(
                "an inference key cannot manage keys; use a management key",
            )),
            (None, Some(s)) => Ok(KeyManager {
                account_id: s.account_id,
            }),
            (None, None) => Err(unauthenticated()),
        }
    }
}

/// Put on responses so the access log can name the account (never the key).
#[derive(Debug, Clone, Copy)]
pub struct AccountTag(pub AccountId);

/// Recently verified keys, by hash. Only successes are kept, so a revoked key stops working
/// within the cache lifetime and an unknown key always reaches the store.
#[derive(Default)]
pub struct KeyCache {
    entries: Mutex<HashMap<[u8; 32], (ApiKeyPrincipal, Instant)>>,
}

impl KeyCache {
    fn get(&self, hash: &[u8; 32], ttl: Duration) -> Option<ApiKeyPrincipal> {
        let map = self.entries.lock().unwrap_or_else(|p| p.into_inner());
        map.get(hash)
            .filter(|(_, at)| at.elapsed() < ttl)
            .map(|(p, _)| p.clone())
    }

    fn put(&self, hash: [u8; 32], principal: ApiKeyPrincipal, ttl: Duration) {
        let mut map = self.entries.lock().unwrap_or_else(|p| p.into_inner());
        if map.len() >= 10_000 {
            map.retain(|_, (_, at)| at.elapsed() < ttl);
        }
        map.insert(hash, (principal, Instant::now()));
    }
}

/// The key a request presents: `Authorization: Bearer <key>`, or `x-api-key: <key>` (what
/// Anthropic's clients send; they may send either).
fn presented_key(headers: &HeaderMap) -> Result<&str, ApiError> {
    match (headers.get(header::AUTHORIZATION), headers.get(X_API_KEY)) {
        (Some(value), _) => bearer(value),
        (None, Some(value)) => value
            .to_str()
            .map(str::trim)
            .map_err(|_| ApiError::unauthorized("malformed x-api-key header")),
        (None, None) => Err(ApiError::unauthorized(
            "missing API key: send it as the header `Authorization: Bearer sk-shoal-…`",
        )),
    }
}

const X_API_KEY: &str = "x-api-key";

fn bearer(value: &HeaderValue) -> Result<&str, ApiError> {
    let value = value
        .to_str()
        .map_err(|_| ApiError::unauthorized("malformed Authorization header"))?;
    let (scheme, token) = value.split_once(' ').ok_or_else(|| {
        ApiError::unauthorized("malformed Authorization header: expected `Bearer <key>`")
    })?;
    if !scheme.eq_ignore_ascii_case("bearer") {
        return Err(ApiError::unauthorized(
            "unsupported authorization scheme: use `Bearer <key>`",
        ));
    }
    Ok(token.trim())
}

async fn verify(state: &AppState, presented: &str) -> Result<ApiKeyPrincipal, ApiError> {
    if !credentials::is_well_formed_api_key(presented) {
        return Err(ApiError::unauthorized("invalid API key"));
    }
    let ttl = state.config.auth_cache;
    let hash = credentials::hash_secret(presented);
    if let Some(p) = state.key_cache.get(&hash, ttl) {
        return Ok(p);
    }
    match state.store.authenticate_api_key(presented).await? {
        Some(p) => {
            if !ttl.is_zero() {
                state.key_cache.put(hash, p.clone(), ttl);
            }
            Ok(p)
        }
        None => Err(ApiError::unauthorized("invalid or revoked API key")),
    }
}

fn set_rate_headers(headers: &mut HeaderMap, d: &Decision) {
    headers.insert("x-ratelimit-limit-requests", HeaderValue::from(d.limit));
    headers.insert(
        "x-ratelimit-remaining-requests",
        HeaderValue::from(d.remaining),
    );
    if let Ok(v) = HeaderValue::from_str(&format_reset(d.reset_after)) {
        headers.insert("x-ratelimit-reset-requests", v);
    }
}

pub async fn authenticate(State(state): State<AppState>, mut req: Request, next: Next) -> Response {
    let principal = match presented_key(req.headers()) {
        Ok(presented) => verify(&state, presented).await,
        Err(e) => Err(e),
    };
    let principal = match principal {
        Ok(p) => p,
        Err(e) => return e.into_response(),
    };
    let limit = principal.rpm.unwrap_or(state.config.default_rpm);
    let decision = state.limiter.check(principal.key_id, limit).await;
    let cap = principal
        .concurrency
        .unwrap_or(state.config.key_concurrency);
    let slot = decision
        .allowed
        .then(|| state.key_slots.take(principal.key_id, cap))
        .flatten();
    let mut response = if !decision.allowed {
        ApiError::rate_limited(limit, retry_after_secs(decision.retry_after)).into_response()
    } else if let Some(slot) = slot {
        req.extensions_mut().insert(KeyCaller {
            key_id: principal.key_id,
            account_id: principal.account_id,
            kind: principal.kind,
            rpm: limit,
        });
        if principal.kind == KeyKind::Inference {
            req.extensions_mut().insert(Caller {
                key_id: Some(principal.key_id),
                account_id: principal.account_id,
                free_daily: free_allowance(Payer::ApiKey, state.config.free_daily_credits),
            });
        }
        hold_until_sent(next.run(req).await, slot)
    } else {
        ApiError::too_many_in_flight(cap).into_response()
    };
    set_rate_headers(response.headers_mut(), &decision);
    response
        .extensions_mut()
        .insert(AccountTag(principal.account_id));
    response
}
