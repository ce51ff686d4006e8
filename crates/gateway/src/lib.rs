//! The Shoal gateway: the `/api/v1` hot path and the worker socket.
//!
//! It owns the path of one API request (auth, rate limit, validation, credit hold, dispatch,
//! relay, settlement) and the pool of workers that dial in to run it (`/api/worker/ws`: chat,
//! image, span and browser workers, the swarm ring, other replicas' workers as peers). Storage
//! is `shoal-store`, wire types are `shoal-protocol`; the dashboard (`shoal-dashboard`) and
//! image generation (`shoal-images`) add their routes through [`Routes`]; the binary in
//! `shoal` wires them together and picks the [`Seams`].
//!
//! Layout: `state` (the shared [`AppState`]), `http` (router, key check, errors, CORS,
//! OpenAPI, access log), `api` (the `/api/v1` handlers), `chat` (catalog, pricing, relay),
//! `workers` (pool, socket, browser tabs, swarm, peers), `seams` (the traits other crates
//! implement), `deposits` and `ratelimit` (two of those seams with their in-process side).
//!
//! Invariants kept here: every response is either a success or the one error shape; bad
//! input gets a 4xx, never a panic or a 5xx; no prompt or completion text reaches a log line;
//! a worker's job carries nothing about who asked.

mod api;
mod chat;
mod config;
mod deposits;
mod http;
mod metrics;
mod ratelimit;
mod seams;
mod state;
mod workers;

pub use api::chat_completions;
pub use config::{FileConfig, GatewayConfig, PricingConfig, DEFAULT_DATA_DIR};
pub use deposits::{
    account_view, format_units, option_of, parse_units, DepositOption, DepositPage, DepositView,
    DepositsResponse,
};
pub use http::{
    authenticate, router, serve, AccountTag, ApiError, Caller, ClientAddr, JsonBytes, KeyCaller,
    KeyManager, RequestStart, Routes, ServerLimits, TrustedProxies,
};
pub use metrics::Metrics;
pub use ratelimit::{retry_after_secs, Decision, DecisionFuture};
pub use seams::{
    BrowserJob, BrowserModels, DepositSource, LocalGcra, NoDeposits, Peers, RateLimiter, Seams,
    UpProbe,
};
pub use state::{now_ms, AppState};
pub use workers::browser::{BrowserPool, Prompt};

/// The worker pool, as other crates drive it: `shoal-cluster` feeds it other replicas'
/// workers and runs their jobs here, `shoal-images` dispatches image jobs.
pub mod pool {
    pub use crate::workers::pool::{
        DispatchError, ImageEvent, ImageJob, Job, JobEvent, Offer, Pool, WorkerId,
    };
}

/// The keys API's handlers, which the dashboard mounts for its session too (they take a
/// `KeyManager`: a management key or a session).
pub mod keys {
    pub use crate::api::keys::{create_key, delete_key, get_key, list_keys, update_key};
}

/// `service-swarm` across replicas: this replica's ring offered to others, and their jobs
/// run on it.
pub mod swarm {
    pub use crate::workers::swarm::{dispatch_here, offer, MODEL};
}
