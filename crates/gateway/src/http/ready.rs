//! `GET /ready`: whether this replica can serve, with the state of each service it uses.
//! `/health` stays the liveness check (the process answers); `/ready` is what a load balancer
//! asks before sending traffic. Only the database decides readiness: without it nothing can be
//! held or settled. Redis and NATS are reported, not required — the rate limiter fails open to
//! this replica's own limits, and local workers serve without NATS.

use std::time::{Duration, Instant};

use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde::Serialize;

use crate::AppState;

/// How long the database has to answer before it counts as down.
const DATABASE_DEADLINE: Duration = Duration::from_secs(2);

#[derive(Debug, Clone, Copy, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
enum ServiceState {
    Up,
    Down,
    /// This replica does not use it (single node, no `redis_url` / `nats_url`).
    NotConfigured,
}

impl ServiceState {
    fn of(up: Option<bool>) -> Self {
        match up {
            Some(true) => ServiceState::Up,
            Some(false) => ServiceState::Down,
            None => ServiceState::NotConfigured,
        }
    }
}

#[derive(Debug, Serialize)]
struct Service {
    state: ServiceState,
    #[serde(skip_serializing_if = "Option::is_none")]
    latency_ms: Option<u64>,
}

#[derive(Debug, Serialize)]
struct Readiness {
    /// `ready` or `not_ready`.
    status: &'static str,
    database: Service,
    redis: Service,
    nats: Service,
}

pub(super) async fn ready(State(state): State<AppState>) -> Response {
    let started = Instant::now();
    let answered = tokio::time::timeout(DATABASE_DEADLINE, state.store.ping()).await;
    let database_up = matches!(answered, Ok(Ok(())));
    let database = Service {
        state: ServiceState::of(Some(database_up)),
        latency_ms: database_up.then(|| started.elapsed().as_millis() as u64),
    };
    let service = |up| Service {
        state: ServiceState::of(up),
        latency_ms: None,
    };
    let report = Readiness {
        status: if database_up { "ready" } else { "not_ready" },
        database,
        redis: service(state.limiter.up()),
        nats: service(state.peers_up.as_ref().map(|up| up())),
    };
    let status = if database_up {
        StatusCode::OK
    } else {
        StatusCode::SERVICE_UNAVAILABLE
    };
    (status, Json(report)).into_response()
}
