//! The worker side of the gateway: `GET /api/worker/ws`.
//!
//! The token is checked before the upgrade, so a bad one is refused with nothing read. Then:
//! `hello` (within 10 s) → registered in the pool → `welcome`; afterwards the socket carries
//! jobs and cancels out, deltas and ends in. A worker silent for three heartbeat intervals is
//! dropped and its jobs fail over. Job content passes through and is never logged.

use std::collections::HashMap;
use std::time::Duration;

use axum::extract::ws::{Message, WebSocket, WebSocketUpgrade};
use axum::extract::{RawQuery, State};
use axum::http::{header, HeaderMap};
use axum::response::{IntoResponse, Response};
use futures::{SinkExt, StreamExt};
use shoal_protocol::worker::{
    GatewayMessage, ServedModel, WorkerKind, WorkerMessage, PROTOCOL_VERSION,
};
use shoal_store::WorkerTokenInfo;
use tokio::sync::mpsc;

use crate::http::ApiError;
use crate::workers::browser;
use crate::workers::pool::{ImageEvent, JobEvent, WorkerId};
use crate::AppState;

const HELLO_TIMEOUT: Duration = Duration::from_secs(10);

fn presented_token<'a>(headers: &'a HeaderMap, query: Option<&'a str>) -> Option<&'a str> {
    if let Some(v) = headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
    {
        let (scheme, token) = v.split_once(' ')?;
        return scheme.eq_ignore_ascii_case("bearer").then(|| token.trim());
    }
    query?
        .split('&')
        .find_map(|pair| pair.strip_prefix("token="))
}

pub async fn worker_socket(
    State(state): State<AppState>,
    headers: HeaderMap,
    RawQuery(query): RawQuery,
    upgrade: Result<WebSocketUpgrade, axum::extract::ws::rejection::WebSocketUpgradeRejection>,
) -> Response {
    let Some(token) = presented_token(&headers, query.as_deref()) else {
        return ApiError::unauthorized("missing worker token").into_response();
    };
    let worker = match state.store.authenticate_worker_token(token).await {
        Ok(Some(w)) => w,
        Ok(None) => return ApiError::unauthorized("invalid worker token").into_response(),
        Err(e) => return ApiError::from(e).into_response(),
    };
    if !worker.live_at(crate::now_ms()) {
        return ApiError::unauthorized("this worker token has expired").into_response();
    }
    if (state.browser.get()).is_some_and(|b| b.is_banned(worker.id)) {
        return ApiError::unauthorized("this worker token is refused for a while").into_response();
    }
    let upgrade = match upgrade {
        Ok(u) => u,
        Err(_) => {
            return ApiError::invalid_request("this endpoint speaks WebSocket only", None)
                .into_response()
        }
    };
    upgrade
        .max_message_size(state.config.body_limit_bytes * 2)
        // tungstenite zero-fills this many bytes before every read, also before the read
        // that finds the socket empty (at least two per message); worker messages are a few
        // hundred bytes, so 128 KiB (the default) was mostly memset.
        .read_buffer_size(READ_BUFFER_BYTES)
        .on_upgrade(move |socket| run_worker(socket, state, worker))
}

/// The most a worker socket reads at once (a larger frame takes several reads).
const READ_BUFFER_BYTES: usize = 4 * 1024;
/// Most queued messages written to a worker with one flush.
const WRITE_BATCH: usize = 64;

fn encode(msg: &GatewayMessage) -> Message {
    Message::Text(
        serde_json::to_string(msg)
            .expect("gateway messages serialize")
            .into(),
    )
}

/// [`encode`] for the writer, which owns its messages: a swarm frame goes out as a binary
/// message without a copy.
fn encode_owned(msg: GatewayMessage) -> Message {
    match msg {
        GatewayMessage::Frame(frame) => Message::Binary(frame.into()),
        msg => encode(&msg),
    }
}

async fn refuse(socket: &mut WebSocket, message: &str) {
    let _ = socket
        .send(encode(&GatewayMessage::Refused {
            message: message.to_owned(),
        }))
        .await;
    let _ = socket.send(Message::Close(None)).await;
}

async fn run_worker(mut socket: WebSocket, state: AppState, token: WorkerTokenInfo) {
    let token_name = &token.name;
    let hello = match tokio::time::timeout(HELLO_TIMEOUT, socket.next()).await {
        Ok(Some(Ok(Message::Text(text)))) => serde_json::from_str::<WorkerMessage>(&text).ok(),
        _ => None,
    };
    let Some(WorkerMessage::Hello {
        protocol,
        kind,
        models,
        concurrency,
        name,
        variant,
    }) = hello
    else {
        refuse(&mut socket, "the first message must be a valid `hello`").await;
        return;
    };
    if protocol != PROTOCOL_VERSION {
        refuse(
            &mut socket,
            &format!("unsupported protocol version; this gateway speaks {PROTOCOL_VERSION}"),
        )
        .await;
        return;
    }
    if concurrency == 0 {
        refuse(&mut socket, "concurrency must be at least 1").await;
        return;
    }
    if let Err(why) = browser::admits(&state, &token, kind, variant.as_deref()) {
        refuse(&mut socket, why).await;
        return;
    }
    let (served, announced, ignored) = if kind == WorkerKind::Image {
        image_models(models)
    } else {
        catalog_models(&state, models)
    };
    if served.is_empty() {
        let why = if kind == WorkerKind::Image {
            "an image worker must announce its image model (an id of 1 to 64 characters)"
        } else {
            "none of the announced models is in this gateway's catalog"
        };
        refuse(&mut socket, why).await;
        return;
    }

    let heartbeat = state.config.worker_heartbeat;
    let (outbox, mut outgoing) = mpsc::unbounded_channel::<GatewayMessage>();
    let model_ids: Vec<String> = served.iter().map(|m| m.id.clone()).collect();
    let worker_id = state
        .pool
        .register(kind, served, announced, concurrency, outbox);
    state.metrics.workers_connected.inc();
    let tab = browser::connect(&state, worker_id, token.id, kind, variant);
    tracing::info!(worker_id, token = %token_name, name = name.as_deref().unwrap_or("-"), ?kind, models = ?model_ids, concurrency, "worker connected");

    let welcome = GatewayMessage::Welcome {
        protocol: PROTOCOL_VERSION,
        worker_id: format!("wrk_{worker_id}"),
        heartbeat_interval_ms: heartbeat.as_millis() as u64,
        ignored_models: ignored,
    };
    let (mut sink, mut stream) = socket.split();
    if sink.send(encode(&welcome)).await.is_err() {
        state.pool.unregister(worker_id);
        return;
    }
    let tab_out = tab.clone();
    // A browser tab is sent prompt jobs instead of chat jobs.
    let prepare = move |msg: GatewayMessage| match &tab_out {
        Some(t) => t.outgoing(msg),
        None => Some(msg),
    };
    let writer = tokio::spawn(async move {
        while let Some(msg) = outgoing.recv().await {
            let Some(msg) = prepare(msg) else { continue };
            // Jobs and cancels queued meanwhile share the write (and the packet).
            let mut batch = 1;
            let mut fed = sink.feed(encode_owned(msg)).await;
            while fed.is_ok() && batch < WRITE_BATCH {
                let Ok(msg) = outgoing.try_recv() else { break };
                let Some(msg) = prepare(msg) else { continue };
                fed = sink.feed(encode_owned(msg)).await;
                batch += 1;
            }
            if fed.is_err() || sink.flush().await.is_err() {
                break;
            }
        }
        let _ = sink.close().await;
    });

    let mut verdict = None;
    let reason = loop {
        let next = tokio::time::timeout(heartbeat * 3, stream.next()).await;
        let text = match next {
            Err(_) => break "silent",
            Ok(None) | Ok(Some(Err(_))) | Ok(Some(Ok(Message::Close(_)))) => break "disconnected",
            Ok(Some(Ok(Message::Text(text)))) => text,
            Ok(Some(Ok(Message::Ping(_) | Message::Pong(_)))) => continue,
            Ok(Some(Ok(Message::Binary(frame)))) if kind == WorkerKind::Swarm => {
                match state.swarm.route(&state.pool, worker_id, frame.into()) {
                    Ok(()) => continue,
                    Err(why) => break why,
                }
            }
            Ok(Some(Ok(Message::Binary(_)))) => break "protocol error (binary frame)",
        };
        let Ok(msg) = serde_json::from_str::<WorkerMessage>(&text) else {
            // Never log the frame: it may hold generated text.
            break "protocol error (malformed message)";
        };
        let images = kind == WorkerKind::Image;
        if let Some(t) = &tab {
            match browser::from_tab(t, msg) {
                Ok(()) => continue,
                Err(why) => {
                    verdict = Some(why);
                    break "dropped (browser trust rules)";
                }
            }
        }
        match msg {
            WorkerMessage::Heartbeat => {}
            WorkerMessage::Hello { .. } => break "protocol error (second hello)",
            WorkerMessage::Span { span } if kind == WorkerKind::Swarm => {
                if let Err(why) = state.swarm.join(&state.pool, worker_id, span, concurrency) {
                    tracing::warn!(worker_id, why, "swarm span refused");
                    break "protocol error (bad span)";
                }
                tracing::info!(worker_id, "swarm span joined");
            }
            WorkerMessage::Span { .. } | WorkerMessage::Frame(_) => {
                break "protocol error (swarm message from a worker not of kind swarm)"
            }
            WorkerMessage::Progress { .. } | WorkerMessage::Image { .. } if !images => {
                break "protocol error (image message from a text worker)"
            }
            WorkerMessage::Delta { .. } | WorkerMessage::Done { .. } if images => {
                break "protocol error (text message from an image worker)"
            }
            WorkerMessage::Progress { .. } | WorkerMessage::Image { .. } => {
                deliver_image(&state, worker_id, msg)
            }
            WorkerMessage::Error { .. } if images => deliver_image(&state, worker_id, msg),
            WorkerMessage::Delta {
                job_id,
                content,
                reasoning,
                tool_calls,
            } => {
                state.pool.deliver(
                    worker_id,
                    &job_id,
                    JobEvent::Delta {
                        content,
                        reasoning,
                        tool_calls,
                    },
                );
            }
            WorkerMessage::Done {
                job_id,
                finish_reason,
                usage,
            } => {
                state.pool.deliver(
                    worker_id,
                    &job_id,
                    JobEvent::Done {
                        finish_reason,
                        usage,
                    },
                );
                if kind == WorkerKind::Swarm {
                    state.swarm.job_ended(&state.pool, worker_id, &job_id);
                }
            }
            WorkerMessage::Error {
                job_id,
                code,
                retryable,
            } => {
                state
                    .pool
                    .deliver(worker_id, &job_id, JobEvent::Failed { code, retryable });
                if kind == WorkerKind::Swarm {
                    state.swarm.job_ended(&state.pool, worker_id, &job_id);
                }
            }
        }
    };
    if kind == WorkerKind::Swarm {
        // Before the pool forgets the node: its broken sessions' entries are told to stop.
        if state.swarm.leave(&state.pool, worker_id) {
            crate::workers::swarm::expire_later(&state);
        }
    }
    state.pool.unregister(worker_id);
    state.metrics.workers_connected.dec();
    writer.abort();
    if let Some(t) = &tab {
        let verdict = verdict.or(reason.starts_with("protocol error").then_some(reason));
        let record = t.closed(verdict);
        tracing::info!(worker_id, ?record, "browser worker measured");
    }
    tracing::info!(worker_id, reason, "worker disconnected");
}

/// The models kept, catalog id → announced id where they differ, and the ids ignored.
type Announced = (Vec<ServedModel>, HashMap<String, String>, Vec<String>);

/// Keeps the models the catalog knows, under their canonical ids.
fn catalog_models(state: &AppState, models: Vec<ServedModel>) -> Announced {
    let mut served: Vec<ServedModel> = Vec::new();
    let mut announced = HashMap::new();
    let mut ignored = Vec::new();
    for m in models {
        match state.config.catalog.resolve(&m.id) {
            Some(spec) if !served.iter().any(|s| s.id == spec.id) => {
                if spec.id != m.id {
                    announced.insert(spec.id.clone(), m.id.clone());
                }
                served.push(ServedModel {
                    id: spec.id.clone(),
                    ..m
                });
            }
            Some(_) => {}
            None => ignored.push(m.id),
        }
    }
    (served, announced, ignored)
}

/// An image worker's model is the name its results report, not a catalog id: the first id
/// of a sane length is kept, the rest ignored.
fn image_models(models: Vec<ServedModel>) -> Announced {
    let mut served = Vec::new();
    let mut ignored = Vec::new();
    for m in models {
        let sane = (1..=64).contains(&m.id.len()) && !m.id.chars().any(char::is_control);
        if served.is_empty() && sane {
            served.push(m);
        } else {
            ignored.push(m.id);
        }
    }
    (served, HashMap::new(), ignored)
}

/// Hands an image worker's `progress`, `image` or `error` to its job.
fn deliver_image(state: &AppState, worker_id: WorkerId, msg: WorkerMessage) {
    let (job_id, event) = match msg {
        WorkerMessage::Progress {
            job_id,
            step,
            steps,
        } => (job_id, ImageEvent::Progress { step, steps }),
        WorkerMessage::Image { job_id, png_base64 } => (job_id, ImageEvent::Image { png_base64 }),
        WorkerMessage::Error {
            job_id,
            code,
            retryable,
        } => (job_id, ImageEvent::Failed { code, retryable }),
        _ => return,
    };
    state.pool.deliver_image(worker_id, &job_id, event);
}
