//! The Shoal gateway: the HTTP service in front of the worker pool.
//!
//! It owns the `/api/v1` surface (auth, rate limits, validation, credit holds, dispatch,
//! relay, settlement) and nothing else: storage is `shoal-store`, wire types are
//! `shoal-protocol`, and the binary in `shoal` only wires these together.
//!
//! Invariants kept here: every response is either a success or the one error shape; bad
//! input gets a 4xx, never a panic or a 5xx; no prompt or completion text reaches a log line.

pub mod api;
pub mod auth;
pub mod browser;
pub mod catalog;
pub mod config;
pub mod cors;
pub mod deposits;
pub mod error;
pub mod metrics;
pub mod observe;
pub mod openapi;
pub mod peers;
pub mod pool;
pub mod pricing;
pub mod ratelimit;
pub mod relay;
pub mod swarm;
pub mod worker_ws;

use std::future::Future;
use std::sync::Arc;

use axum::extract::DefaultBodyLimit;
use axum::middleware::from_fn_with_state;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::serve::ListenerExt;
use axum::{Extension, Json, Router};
use shoal_store::Store;
use tokio::net::TcpListener;
use tower_http::catch_panic::CatchPanicLayer;
use utoipa::OpenApi;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::auth::KeyCache;
use crate::config::GatewayConfig;
use crate::error::ApiError;
use crate::pool::Pool;
use crate::ratelimit::{LocalGcra, RateLimiter};

/// Shared state of one gateway process.
#[derive(Clone)]
pub struct AppState(Arc<Inner>);

pub struct Inner {
    pub config: GatewayConfig,
    pub store: Store,
    pub limiter: Arc<dyn RateLimiter>,
    pub pool: Pool,
    pub key_cache: KeyCache,
    pub metrics: metrics::Metrics,
    /// Stablecoin deposits (`shoal-payments`), or `NoDeposits`.
    pub deposits: Arc<dyn deposits::DepositSource>,
    /// Browser workers, when the binary wires them in (`shoal-browser`); set once at start.
    pub browser: std::sync::OnceLock<Arc<browser::BrowserPool>>,
    /// `service-swarm`'s ring of span nodes and their sessions.
    pub swarm: swarm::Swarm,
}

impl std::ops::Deref for AppState {
    type Target = Inner;
    fn deref(&self) -> &Inner {
        &self.0
    }
}

/// The seams a gateway is assembled from. Each defaults to its single-node, in-process
/// choice; the binary swaps in the shared or configured ones (`shoal-cluster`,
/// `shoal-classifier`, `shoal-payments`).
pub struct Seams {
    pub limiter: Arc<dyn RateLimiter>,
    /// Other replicas' workers (see `peers`); `None` on a single node.
    pub peers: Option<Arc<dyn peers::Peers>>,
    pub deposits: Arc<dyn deposits::DepositSource>,
}

impl Default for Seams {
    fn default() -> Self {
        Seams {
            limiter: Arc::new(LocalGcra::default()),
            peers: None,
            deposits: Arc::new(deposits::NoDeposits),
        }
    }
}

impl AppState {
    pub fn new(config: GatewayConfig, store: Store) -> Self {
        Self::with_seams(config, store, Seams::default())
    }

    pub fn with_limiter(
        config: GatewayConfig,
        store: Store,
        limiter: Arc<dyn RateLimiter>,
    ) -> Self {
        let seams = Seams {
            limiter,
            ..Seams::default()
        };
        Self::with_seams(config, store, seams)
    }

    /// The gateway on the given seams; must be called inside the runtime when `peers` is set.
    pub fn with_seams(config: GatewayConfig, store: Store, seams: Seams) -> Self {
        let Seams {
            limiter,
            peers,
            deposits,
        } = seams;
        let pool = Pool::new(config.queue_timeout, config.max_queued);
        let mut metrics = metrics::Metrics::default();
        limiter.register_metrics(metrics.registry_mut());
        metrics.register_pool(&pool.counters);
        deposits.register_metrics(metrics.registry_mut());
        if let Some(p) = &peers {
            p.register_metrics(metrics.registry_mut());
        }
        let swarm = swarm::Swarm::default();
        metrics.register_swarm(&swarm.metrics);
        let state = AppState(Arc::new(Inner {
            swarm,
            pool,
            config,
            store,
            limiter,
            key_cache: KeyCache::default(),
            metrics,
            deposits,
            browser: std::sync::OnceLock::new(),
        }));
        if let Some(p) = peers {
            p.join(state.clone());
        }
        state
    }
}

/// Current Unix time in milliseconds.
pub fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis() as i64)
        .unwrap_or(0)
}

async fn not_found() -> ApiError {
    ApiError::route_not_found()
}

async fn method_not_allowed() -> ApiError {
    ApiError::method_not_allowed()
}

async fn metrics_text(axum::extract::State(state): axum::extract::State<AppState>) -> Response {
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
        .merge(extra)
        .routes(routes!(deposits::account_deposits))
        .route_layer(from_fn_with_state(state.clone(), auth::authenticate))
        .routes(routes!(openapi::openapi_json))
        .split_for_parts();
    v1.fallback(not_found)
        .method_not_allowed_fallback(method_not_allowed)
        .layer(Extension(openapi::Rendered::new(&doc)))
        .layer(cors::layer(&state.config.cors_origins))
}

/// The whole HTTP surface: the gateway's own routes and those other crates add.
pub fn router(state: AppState, routes: Routes) -> Router {
    let limit = state.config.body_limit_bytes;
    Router::new()
        .nest("/api/v1", api_v1(&state, routes.api))
        .merge(routes.site)
        .route("/api/worker/ws", get(worker_ws::worker_socket))
        .route("/health", get(health))
        .route("/metrics", get(metrics_text))
        .merge(browser_routes(&state))
        .fallback(not_found)
        .method_not_allowed_fallback(method_not_allowed)
        .layer(DefaultBodyLimit::max(limit))
        .layer(Extension(api::BodyLimit(limit)))
        .layer(from_fn_with_state(state.clone(), observe::access_log))
        .layer(CatchPanicLayer::custom(panic_response))
        .with_state(state)
}

/// The worker page and its files, when browser workers are wired in.
fn browser_routes(state: &AppState) -> Router<AppState> {
    match state.browser.get() {
        Some(b) => b.models.routes().with_state(()),
        None => Router::new(),
    }
}

/// Releases expired holds now and then every `reaper_interval`, and deletes holds that ended
/// longer than `hold_retention` ago (the journal keeps their record), until the process ends.
pub fn spawn_hold_reaper(state: AppState) -> tokio::task::JoinHandle<()> {
    tokio::spawn(async move {
        let mut tick = tokio::time::interval(state.config.reaper_interval);
        loop {
            tick.tick().await;
            let now = now_ms();
            match state.store.expire_holds(now).await {
                Ok(0) => {}
                Ok(n) => tracing::info!(released = n, "expired credit holds released"),
                Err(e) => tracing::warn!(error = %e, "hold reaper failed; will retry"),
            }
            let before = now - state.config.hold_retention.as_millis() as i64;
            match state.store.prune_holds(before).await {
                Ok(0) => {}
                Ok(n) => tracing::debug!(pruned = n, "ended credit holds pruned"),
                Err(e) => tracing::warn!(error = %e, "pruning ended holds failed; will retry"),
            }
            if let Err(e) = state.store.prune_sessions(now).await {
                tracing::warn!(error = %e, "pruning expired sessions failed; will retry");
            }
        }
    })
}

/// Serves until `shutdown` resolves, then finishes in-flight requests and returns.
pub async fn serve(
    listener: TcpListener,
    state: AppState,
    routes: Routes,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let reaper = spawn_hold_reaper(state.clone());
    let swarm_watch = swarm::spawn_watch(state.clone());
    let app = router(state, routes);
    // Without TCP_NODELAY, Nagle's algorithm holds small SSE chunks and worker frames back
    // for up to 40 ms.
    let listener = listener.tap_io(|tcp| {
        if let Err(e) = tcp.set_nodelay(true) {
            tracing::debug!(error = %e, "TCP_NODELAY not set");
        }
    });
    // The client's address is known to handlers (the dashboard's login throttle).
    let app = app.into_make_service_with_connect_info::<std::net::SocketAddr>();
    let result = axum::serve(listener, app)
        .with_graceful_shutdown(shutdown)
        .await;
    reaper.abort();
    swarm_watch.abort();
    result
}
