//! The worker side of the gateway: `GET /api/worker/ws`.
//!
//! The token is checked before the upgrade, so a bad one is refused with nothing read. Then:
//! `hello` (within 10 s) → registered in the pool → `welcome`; afterwards the socket carries
//! jobs and cancels out, deltas and ends in. A worker silent for three heartbeat intervals is
//! dropped and its jobs fail over. Job content passes through and is never logged.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use axum::extract::ws::{Message, WebSocket, WebSocketUpgrade};
use axum::extract::{RawQuery, State};
use axum::http::{header, HeaderMap};
use axum::response::{IntoResponse, Response};
use futures::stream::{SplitSink, SplitStream};
use futures::{SinkExt, StreamExt};
use shoal_protocol::worker::{
    GatewayMessage, ServedModel, WorkerKind, WorkerMessage, PROTOCOL_VERSION,
};
use shoal_store::WorkerTokenInfo;
use tokio::sync::mpsc;

use super::browser::{self, Tab};
use super::pool::WorkerId;
use super::{chat, image, span};
use crate::http::ApiError;
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
    if (state.browser.as_ref()).is_some_and(|b| b.is_banned(worker.id)) {
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
    let hello = match read_hello(&mut socket, &state, &token).await {
        Ok(hello) => hello,
        Err(why) => return refuse(&mut socket, &why).await,
    };
    // The pool's outbox to this worker (see `Worker::outbox` in the pool for its bound).
    let (outbox, outgoing) = mpsc::unbounded_channel::<GatewayMessage>();
    let worker = Connected::register(&state, &token, hello, outbox);
    let (mut sink, stream) = socket.split();
    if sink.send(encode(&worker.welcome())).await.is_err() {
        state.pool.unregister(worker.id);
        return;
    }
    let writer = tokio::spawn(write_loop(sink, outgoing, worker.kind.tab()));
    let ended = read_loop(stream, &state, &worker).await;
    worker.leave(&state, ended, writer);
}

/// A worker's `hello`, checked, with the models it will be given jobs for.
struct Hello {
    kind: WorkerKind,
    name: Option<String>,
    concurrency: u32,
    variant: Option<String>,
    served: Vec<ServedModel>,
    /// Catalog id → the id the worker announced, where they differ.
    announced: HashMap<String, String>,
    ignored: Vec<String>,
}

/// Reads the first message, which must be a `hello` this gateway takes; the error is the
/// reason the worker is refused.
async fn read_hello(
    socket: &mut WebSocket,
    state: &AppState,
    token: &WorkerTokenInfo,
) -> Result<Hello, String> {
    let first = match tokio::time::timeout(HELLO_TIMEOUT, socket.next()).await {
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
    }) = first
    else {
        return Err("the first message must be a valid `hello`".into());
    };
    if protocol != PROTOCOL_VERSION {
        return Err(format!(
            "unsupported protocol version; this gateway speaks {PROTOCOL_VERSION}"
        ));
    }
    if concurrency == 0 {
        return Err("concurrency must be at least 1".into());
    }
    browser::admits(state, token, kind, variant.as_deref())?;
    let (served, announced, ignored) = if kind == WorkerKind::Image {
        image::models(models)
    } else {
        catalog_models(state, models)
    };
    if served.is_empty() {
        return Err(if kind == WorkerKind::Image {
            "an image worker must announce its image model (an id of 1 to 64 characters)".into()
        } else {
            "none of the announced models is in this gateway's catalog".into()
        });
    }
    Ok(Hello {
        kind,
        name,
        concurrency,
        variant,
        served,
        announced,
        ignored,
    })
}

/// What a connected worker's messages may do, by its kind.
enum Kind {
    /// `upstream` and `native` workers: chat jobs' deltas and ends.
    Chat,
    /// Image jobs' progress and results.
    Image,
    /// A swarm span node: its span, binary frames, and chat jobs at the chain's entry.
    Span { concurrency: u32 },
    /// A browser tab: raw text the gateway parses and counts.
    Browser(Arc<dyn Tab>),
}

impl Kind {
    fn tab(&self) -> Option<Arc<dyn Tab>> {
        match self {
            Kind::Browser(tab) => Some(Arc::clone(tab)),
            _ => None,
        }
    }

    /// Handles one message; an error is why the worker is dropped.
    fn on_message(&self, state: &AppState, id: WorkerId, msg: WorkerMessage) -> Result<(), Ended> {
        match self {
            Kind::Chat => chat::on_message(state, id, msg).map_err(Ended::from),
            Kind::Image => image::on_message(state, id, msg).map_err(Ended::from),
            Kind::Span { concurrency } => {
                span::on_message(state, id, *concurrency, msg).map_err(Ended::from)
            }
            Kind::Browser(tab) => tab.on_message(msg).map_err(|why| Ended {
                reason: "dropped (browser trust rules)",
                verdict: Some(why),
            }),
        }
    }

    /// Handles one binary message: a swarm frame, from span nodes only.
    fn on_frame(&self, state: &AppState, id: WorkerId, frame: Vec<u8>) -> Result<(), Ended> {
        match self {
            Kind::Span { .. } => span::on_frame(state, id, frame).map_err(Ended::from),
            _ => Err(Ended::from("protocol error (binary frame)")),
        }
    }
}

/// Why a worker's connection ended (a log reason, never content), and for a tab the
/// verdict that refuses its token for a while.
struct Ended {
    reason: &'static str,
    verdict: Option<browser::Verdict>,
}

impl From<&'static str> for Ended {
    fn from(reason: &'static str) -> Self {
        Ended {
            reason,
            verdict: None,
        }
    }
}

/// A worker registered in the pool.
struct Connected {
    id: WorkerId,
    kind: Kind,
    heartbeat: Duration,
    ignored: Vec<String>,
}

impl Connected {
    fn register(
        state: &AppState,
        token: &WorkerTokenInfo,
        hello: Hello,
        outbox: mpsc::UnboundedSender<GatewayMessage>,
    ) -> Connected {
        let Hello {
            kind,
            name,
            concurrency,
            variant,
            served,
            announced,
            ignored,
        } = hello;
        let model_ids: Vec<String> = served.iter().map(|m| m.id.clone()).collect();
        let id = state
            .pool
            .register(kind, served, announced, concurrency, outbox);
        state.metrics.workers_connected.inc();
        tracing::info!(worker_id = id, token = %token.name, name = name.as_deref().unwrap_or("-"), ?kind, models = ?model_ids, concurrency, "worker connected");
        let handled = match (kind, browser::connect(state, id, token.id, kind, variant)) {
            (_, Some(tab)) => Kind::Browser(tab),
            (WorkerKind::Image, None) => Kind::Image,
            (WorkerKind::Swarm, None) => Kind::Span { concurrency },
            _ => Kind::Chat,
        };
        Connected {
            id,
            kind: handled,
            heartbeat: state.config.worker_heartbeat,
            ignored,
        }
    }

    fn welcome(&self) -> GatewayMessage {
        GatewayMessage::Welcome {
            protocol: PROTOCOL_VERSION,
            worker_id: format!("wrk_{}", self.id),
            heartbeat_interval_ms: self.heartbeat.as_millis() as u64,
            ignored_models: self.ignored.clone(),
        }
    }

    /// The worker is gone: its jobs fail over (or wait, for a swarm entry's), a tab that
    /// broke the rules loses its token for a while.
    fn leave(self, state: &AppState, ended: Ended, writer: tokio::task::JoinHandle<()>) {
        if let Kind::Span { .. } = self.kind {
            span::leave(state, self.id);
        }
        state.pool.unregister(self.id);
        state.metrics.workers_connected.dec();
        writer.abort();
        let Ended { reason, verdict } = ended;
        if let Kind::Browser(tab) = &self.kind {
            let verdict = verdict.or(reason.starts_with("protocol error").then_some(reason));
            tab.closed(verdict);
        }
        tracing::info!(worker_id = self.id, reason, "worker disconnected");
    }
}

/// Reads the worker's messages until it leaves, goes silent for three heartbeats, or breaks
/// a rule of its kind.
async fn read_loop(
    mut stream: SplitStream<WebSocket>,
    state: &AppState,
    worker: &Connected,
) -> Ended {
    loop {
        let next = tokio::time::timeout(worker.heartbeat * 3, stream.next()).await;
        let text = match next {
            Err(_) => return Ended::from("silent"),
            Ok(None) | Ok(Some(Err(_))) | Ok(Some(Ok(Message::Close(_)))) => {
                return Ended::from("disconnected")
            }
            Ok(Some(Ok(Message::Text(text)))) => text,
            Ok(Some(Ok(Message::Ping(_) | Message::Pong(_)))) => continue,
            Ok(Some(Ok(Message::Binary(frame)))) => {
                match worker.kind.on_frame(state, worker.id, frame.into()) {
                    Ok(()) => continue,
                    Err(ended) => return ended,
                }
            }
        };
        let Ok(msg) = serde_json::from_str::<WorkerMessage>(&text) else {
            // Never log the frame: it may hold generated text.
            return Ended::from("protocol error (malformed message)");
        };
        if let Err(ended) = worker.kind.on_message(state, worker.id, msg) {
            return ended;
        }
    }
}

/// Writes the pool's messages to the worker, batching those queued together; a tab is sent
/// prompt jobs instead of chat jobs.
async fn write_loop(
    mut sink: SplitSink<WebSocket, Message>,
    mut outgoing: mpsc::UnboundedReceiver<GatewayMessage>,
    tab: Option<Arc<dyn Tab>>,
) {
    let prepare = |msg: GatewayMessage| match &tab {
        Some(t) => t.outgoing(msg),
        None => Some(msg),
    };
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
