//! The HTTP surface: the router and its layers, the key check, the one error type, CORS,
//! the OpenAPI document, the client's address (`trusted_proxies`), the access log, and
//! reading a JSON body.

mod auth;
mod body;
mod client;
mod cors;
mod error;
mod metrics_auth;
mod observe;
mod openapi;
mod ready;
mod server;
mod slots;

pub use auth::{authenticate, AccountTag, Caller, KeyCache, KeyCaller, KeyManager};
pub use body::{BodyLimit, JsonBytes};
pub use client::{ClientAddr, TrustedProxies};
pub use cors::AllowedOrigins;
pub use error::ApiError;
pub use metrics_auth::MetricsToken;
pub use observe::RequestStart;
pub use openapi::ChatStreamEvent;
pub use server::ServerLimits;
pub use slots::KeySlots;

use std::future::Future;

use axum::extract::{DefaultBodyLimit, State};
use axum::http::HeaderMap;
use axum::middleware::{from_fn_with_state, map_response};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::{Extension, Json, Router};
use tokio::net::TcpListener;
use tower_http::catch_panic::CatchPanicLayer;
use utoipa::OpenApi;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::workers::socket;
use crate::{api, AppState};

async fn not_found() -> ApiError {
    ApiError::route_not_found()
}

async fn method_not_allowed() -> ApiError {
    ApiError::method_not_allowed()
}

async fn metrics_text(State(state): State<AppState>, headers: HeaderMap) -> Response {
    if let Some(token) = &state.config.metrics_token {
        if let Err(e) = token.check(&headers) {
            return e.into_response();
        }
    }
    let body = state.metrics.encode();
    (
        [(
            axum::http::header::CONTENT_TYPE,
            "application/openmetrics-text; version=1.0.0; charset=utf-8",
        )],
        body,
    )
        .into_response()
}

async fn health() -> Json<serde_json::Value> {
    Json(serde_json::json!({ "status": "ok" }))
}

fn panic_response(_: Box<dyn std::any::Any + Send + 'static>) -> Response {
    // The panic payload may hold request data: it is neither logged nor returned.
    tracing::error!("a handler panicked");
    ApiError::internal().into_response()
}

/// Routes other crates add to the gateway's surface; the binary gathers them.
#[derive(Default)]
pub struct Routes {
    /// Under `/api/v1`, behind the key check, in the OpenAPI document (images).
    pub api: OpenApiRouter<AppState>,
    /// Outside `/api/v1`, with their own authentication (the dashboard's pages).
    pub site: Router<AppState>,
}

/// The public API, mounted at `/api/v1`, with its OpenAPI document (whose paths are
/// relative to its server, `/api/v1`). A route registered with `routes!` is in the document;
/// those above the key check need a key, those below do not. CORS applies to these routes
/// only (see `cors`).
fn api_v1(state: &AppState, extra: OpenApiRouter<AppState>) -> Router<AppState> {
    let (v1, doc) = OpenApiRouter::with_openapi(openapi::Base::openapi())
        .routes(routes!(api::list_models))
        .routes(routes!(api::retrieve_model))
        .routes(routes!(api::balance))
        .routes(routes!(api::chat_completions))
        .routes(routes!(api::responses::create_response))
        .routes(routes!(api::responses::retrieve_response))
        .merge(extra)
        .route_layer(from_fn_with_state(state.clone(), auth::authenticate))
        .merge(messages_api(state))
        .routes(routes!(openapi::openapi_json))
        .split_for_parts();
    v1.fallback(not_found)
        .method_not_allowed_fallback(method_not_allowed)
        .layer(Extension(openapi::Rendered::new(doc)))
        .layer(cors::layer(&state.config.cors_origins))
}

/// The Anthropic Messages routes: behind the same key check, with every error (the key
/// check's included) in Anthropic's shape.
fn messages_api(state: &AppState) -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(api::messages::create_message))
        .routes(routes!(api::messages::count_tokens))
        .route_layer(from_fn_with_state(state.clone(), auth::authenticate))
        .layer(map_response(api::messages::anthropic_errors))
}

/// The whole HTTP surface: the gateway's own routes and those other crates add.
pub fn router(state: AppState, routes: Routes) -> Router {
    let limit = state.config.body_limit_bytes;
    Router::new()
        .nest("/api/v1", api_v1(&state, routes.api))
        .merge(routes.site)
        .route("/api/worker/ws", get(socket::worker_socket))
        .route("/health", get(health))
        .route("/ready", get(ready::ready))
        .route("/metrics", get(metrics_text))
        .merge(browser_routes(&state))
        .fallback(not_found)
        .method_not_allowed_fallback(method_not_allowed)
        .layer(DefaultBodyLimit::max(limit))
        .layer(Extension(BodyLimit(limit)))
        .layer(from_fn_with_state(state.clone(), observe::access_log))
        .layer(from_fn_with_state(state.clone(), client::resolve))
        .layer(CatchPanicLayer::custom(panic_response))
        .with_state(state)
}

/// The worker page and its files, when browser workers are wired in.
fn browser_routes(state: &AppState) -> Router<AppState> {
    match &state.browser {
        Some(b) => b.routes().with_state(()),
        None => Router::new(),
    }
}

/// Serves until `shutdown` resolves, then finishes in-flight requests and returns.
pub async fn serve(
    listener: TcpListener,
    state: AppState,
    routes: Routes,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let reaper = crate::state::spawn_hold_reaper(state.clone());
    let swarm_watch = (state.swarm.as_ref()).map(|s| s.watch(state.clone()));
    let (limits, trusted) = (state.config.server, state.config.trusted_proxies.clone());
    let app = router(state, routes);
    let result = server::run(listener, app, limits, trusted, shutdown).await;
    reaper.abort();
    if let Some(w) = swarm_watch {
        w.abort();
    }
    result
}
