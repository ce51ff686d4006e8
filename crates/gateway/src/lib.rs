//! The Shoal gateway: the `/api/v1` hot path and the worker socket.
//!
//! It owns the path of one API request (auth, rate limit, validation, credit hold, dispatch,
//! relay, settlement) and the pool of workers that dial in to run it (`/api/worker/ws`: the
//! handshake, and per kind what a worker's messages may do). Everything else plugs in from
//! outside: storage is `shoal-store`, wire types `shoal-protocol`; other crates add routes
//! through [`Routes`] (`shoal-keys`, `shoal-payments`, `shoal-images`, `shoal-dashboard`) or
//! implement a [`Seams`] trait (`shoal-cluster`: shared rate limits and other replicas' workers;
//! `shoal-swarm`: the ring of span nodes; `shoal-browser`: browser tabs); the binary in `shoal`
//! wires them together.
//!
//! Layout: `state` (the shared [`AppState`]), `http` (router, key check, errors, CORS,
//! OpenAPI, access log, the accept loop), `api` (the `/api/v1` chat, models and balance
//! handlers), `chat` (catalog, pricing, structured-answer check, relay), `workers` (pool,
//! socket, the swarm and browser seams, peers), `seams` (the traits other crates implement),
//! `ratelimit` (in-process GCRA).
//!
//! Invariants kept here: every response is either a success or the one error shape; bad
//! input gets a 4xx, never a panic or a 5xx; no prompt or completion text reaches a log line;
//! a worker's job carries nothing about who asked.

mod api;
mod chat;
mod config;
mod http;
mod metrics;
mod ratelimit;
mod seams;
mod state;
mod workers;

pub use api::chat_completions;
pub use config::{FileConfig, GatewayConfig, PricingConfig, DEFAULT_DATA_DIR};
pub use http::{
    authenticate, router, serve, AccountTag, ApiError, Caller, ClientAddr, JsonBytes, KeyCaller,
    KeyManager, RequestStart, Routes, ServerLimits, TrustedProxies,
};
pub use metrics::Metrics;
pub use ratelimit::{retry_after_secs, Decision, DecisionFuture};
pub use seams::{
    BrowserWorkers, LocalGcra, Peers, RateLimiter, Seams, SwarmRing, Tab, UpProbe, Verdict,
};
pub use state::{now_ms, AppState};

/// The worker pool, as other crates drive it: `shoal-cluster` feeds it other replicas'
/// workers and runs their jobs here, `shoal-images` dispatches image jobs.
pub mod pool {
    pub use crate::workers::pool::{
        Detached, DispatchError, ImageEvent, ImageJob, Job, JobEvent, Offer, Pool, WorkerId,
    };
}

/// `service-swarm` across replicas: this replica's ring offered to others, and their jobs
/// run on it.
pub mod swarm {
    pub use crate::workers::swarm::{dispatch_here, offer, MODEL};
}
