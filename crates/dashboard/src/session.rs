//! Login sessions in cookies, the cross-site check, and session authentication for the few
//! endpoints a page calls (`/dashboard/api/*`, `/api/images/generate`).
//!
//! The cookie holds a session token (`shoal-s-…`); the store keeps its SHA-256, account and
//! expiry, so a session made on one gateway works on every gateway sharing the database,
//! and ends everywhere at once. The cookie is `HttpOnly`, `SameSite=Strict`, `Path=/`, and
//! `Secure` when `cookie_secure` is set (a site served over TLS).
//!
//! Cross-site requests: every state-changing request a session may authorise must come from
//! the dashboard's own origin: `Sec-Fetch-Site: same-origin`, or, from a browser that does
//! not send it, an `Origin` whose host is the request's `Host`. A request with neither is
//! refused, so a session cookie is never enough on its own.

use axum::extract::{Request, State};
use axum::http::header::{COOKIE, HOST, ORIGIN};
use axum::http::{HeaderMap, Method};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use shoal_store::money::{free_allowance, Payer};
use shoal_store::AccountId;

use shoal_gateway::ApiError;
use shoal_gateway::{now_ms, AppState};
use shoal_gateway::{AccountTag, Caller};

use crate::Site;

pub const COOKIE_NAME: &str = "shoal_session";

/// The session token in the request's cookies, if any.
pub fn token(headers: &HeaderMap) -> Option<&str> {
    headers
        .get_all(COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|pair| pair.trim().split_once('='))
        .find(|(name, _)| *name == COOKIE_NAME)
        .map(|(_, value)| value)
}

/// The account whose live session the request carries.
pub async fn account(state: &AppState, headers: &HeaderMap) -> Result<Option<AccountId>, ApiError> {
    match token(headers) {
        Some(t) => Ok(state.store.session_account(t, now_ms()).await?),
        None => Ok(None),
    }
}

/// `Set-Cookie` for a new session.
pub fn set_cookie(state: &Site, token: &str) -> String {
    let max_age = state.dashboard.config.session_ttl.as_secs();
    let secure = if state.dashboard.config.cookie_secure {
        "; Secure"
    } else {
        ""
    };
    format!("{COOKIE_NAME}={token}; Path=/; Max-Age={max_age}; HttpOnly; SameSite=Strict{secure}")
}

/// `Set-Cookie` that removes the session cookie.
pub fn clear_cookie(state: &Site) -> String {
    let secure = if state.dashboard.config.cookie_secure {
        "; Secure"
    } else {
        ""
    };
    format!("{COOKIE_NAME}=; Path=/; Max-Age=0; HttpOnly; SameSite=Strict{secure}")
}

/// Whether the request comes from a page of this site (see the module documentation).
pub fn same_origin(headers: &HeaderMap) -> bool {
    if let Some(site) = headers.get("sec-fetch-site") {
        return site.as_bytes() == b"same-origin";
    }
    let (Some(origin), Some(host)) = (headers.get(ORIGIN), headers.get(HOST)) else {
        return false;
    };
    let (Ok(origin), Ok(host)) = (origin.to_str(), host.to_str()) else {
        return false;
    };
    origin
        .strip_prefix("http://")
        .or_else(|| origin.strip_prefix("https://"))
        .is_some_and(|o| o.eq_ignore_ascii_case(host))
}

/// Refuses a state-changing request from another site (403).
pub async fn refuse_cross_site(req: Request, next: Next) -> Response {
    let safe = matches!(*req.method(), Method::GET | Method::HEAD);
    if !safe && !same_origin(req.headers()) {
        return ApiError::forbidden("cross-site request refused").into_response();
    }
    next.run(req).await
}

/// Session authentication for endpoints that pages call: same origin, a live session, the
/// account's rate limit (the default, keyed apart from API keys). Puts a [`Caller`] that may
/// spend the free daily credits.
pub async fn authenticate(State(state): State<AppState>, mut req: Request, next: Next) -> Response {
    if !same_origin(req.headers()) {
        return ApiError::forbidden("cross-site request refused").into_response();
    }
    let account = match account(&state, req.headers()).await {
        Ok(Some(a)) => a,
        Ok(None) => return ApiError::unauthorized("log in first").into_response(),
        Err(e) => return e.into_response(),
    };
    let limit = state.config.default_rpm;
    // Session limits are keyed by the negated account id: API key ids are positive.
    let decision = state.limiter.check(-account, limit).await;
    if !decision.allowed {
        let retry = shoal_gateway::retry_after_secs(decision.retry_after);
        return ApiError::rate_limited(limit, retry).into_response();
    }
    req.extensions_mut().insert(Caller {
        key_id: None,
        account_id: account,
        free_daily: free_allowance(Payer::Session, state.config.free_daily_credits),
    });
    let mut response = next.run(req).await;
    response.extensions_mut().insert(AccountTag(account));
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(pairs: &[(&'static str, &str)]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for (k, v) in pairs {
            h.append(*k, v.parse().unwrap());
        }
        h
    }

    #[test]
    fn cookie_is_found_among_others() {
        let h = headers(&[("cookie", "a=1; shoal_session=shoal-s-abc; b=2")]);
        assert_eq!(token(&h), Some("shoal-s-abc"));
        assert_eq!(token(&headers(&[("cookie", "shoal_sessionx=1")])), None);
    }

    #[test]
    fn only_same_origin_passes() {
        assert!(same_origin(&headers(&[("sec-fetch-site", "same-origin")])));
        assert!(!same_origin(&headers(&[("sec-fetch-site", "cross-site")])));
        assert!(!same_origin(&headers(&[("sec-fetch-site", "same-site")])));
        assert!(!same_origin(&headers(&[
            ("sec-fetch-site", "cross-site"),
            ("origin", "http://h:1"),
            ("host", "h:1")
        ])));
        assert!(same_origin(&headers(&[
            ("origin", "http://h:1"),
            ("host", "h:1")
        ])));
        assert!(!same_origin(&headers(&[
            ("origin", "http://evil:1"),
            ("host", "h:1")
        ])));
        assert!(!same_origin(&headers(&[
            ("origin", "null"),
            ("host", "h:1")
        ])));
        assert!(!same_origin(&headers(&[("host", "h:1")])), "neither header");
    }
}
