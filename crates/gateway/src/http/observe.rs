//! The access log: one structured line per request with its id, route, status, latency,
//! account and client address (`trusted_proxies`) — never a header value, a body, a prompt
//! or a completion.

use std::time::Instant;

use axum::extract::{MatchedPath, Request, State};
use axum::http::HeaderValue;
use axum::middleware::Next;
use axum::response::Response;

use super::error::ErrorCode;
use crate::http::{AccountTag, ClientAddr};
use crate::metrics::RequestLabels;
use crate::AppState;

/// When the request reached the gateway, for the overhead metric.
#[derive(Debug, Clone, Copy)]
pub struct RequestStart(pub Instant);

pub async fn access_log(State(state): State<AppState>, mut req: Request, next: Next) -> Response {
    let start = Instant::now();
    // A random (v4) UUID from the thread's own generator: `Uuid::new_v4` makes a system call
    // for every id.
    let uuid = uuid::Builder::from_random_bytes(rand::random()).into_uuid();
    let id = format!("req_{}", uuid.simple());
    req.extensions_mut().insert(RequestStart(start));
    let method = req.method().clone();
    // The matched route template (`/api/v1/models`), not the raw path, when one matched.
    let client = req.extensions().get::<ClientAddr>().map(|c| c.0);
    let route = req
        .extensions()
        .get::<MatchedPath>()
        .map(|p| p.as_str().to_owned())
        .unwrap_or_else(|| "(unmatched)".to_owned());

    let mut response = next.run(req).await;

    let status = response.status().as_u16();
    state
        .metrics
        .requests
        .get_or_create(&RequestLabels {
            route: route.clone(),
            status,
        })
        .inc();
    let account = response.extensions().get::<AccountTag>().map(|a| a.0);
    let code = response.extensions().get::<ErrorCode>().map(|c| c.0);
    tracing::info!(
        request_id = %id,
        method = %method,
        route = %route,
        status,
        latency_us = start.elapsed().as_micros() as u64,
        account = account,
        client = client.map(tracing::field::display),
        error_code = code,
        "request"
    );
    if let Ok(v) = HeaderValue::from_str(&id) {
        response.headers_mut().insert("x-request-id", v);
    }
    response
}
