//! One simulated worker on the real worker socket: `hello`, heartbeats, and every job answered
//! by a plan drawn at random (answer, fail, stall, vanish), counting what it received and how
//! each job ended so the gateway's pool counters can be checked against it.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use futures::{SinkExt, StreamExt};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use shoal_protocol::chat::MessageContent;
use shoal_protocol::codes::{ErrorCode, FinishReason};
use shoal_protocol::worker::{
    GatewayMessage, JobRequest, JobUsage, ServedModel, WorkerKind, WorkerMessage, PROTOCOL_VERSION,
};
use tokio::sync::{mpsc, oneshot};
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::MaybeTlsStream;

use crate::{Faults, Shared};

pub type Socket = tokio_tungstenite::WebSocketStream<MaybeTlsStream<tokio::net::TcpStream>>;

/// What the workers did, summed over all of them.
#[derive(Default, Debug)]
pub struct WorkerCounts {
    pub sessions: AtomicU64,
    pub jobs: AtomicU64,
    pub done: AtomicU64,
    pub errors: AtomicU64,
    /// Jobs received and never ended: stalled, or running when the worker vanished or left.
    pub unfinished: AtomicU64,
    pub cancels: AtomicU64,
    pub left_drained: AtomicU64,
    pub vanished_closed: AtomicU64,
    pub vanished_silent: AtomicU64,
    pub connect_failures: AtomicU64,
}

/// How a worker goes away.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Leave {
    /// Like `shoal worker` on SIGTERM: refuse new jobs (retryably), finish the running ones,
    /// then close the socket properly.
    Drain,
    /// Stop writing without a close frame (the TCP connection half-closes): the gateway sees
    /// the socket end with jobs running.
    Close,
    /// Stop answering and stop heartbeats, socket open: the gateway must notice the silence.
    Silent,
}

/// How one job is answered.
#[derive(Debug, Clone, Copy)]
enum Plan {
    Answer,
    RetryableError,
    FatalError,
    ErrorAfterDelta,
    Stall,
    VanishBeforeDelta(Leave),
    VanishAfterDelta(Leave),
}

fn draw_plan(f: &Faults, rng: &mut StdRng) -> Plan {
    let vanish = |rng: &mut StdRng| {
        if rng.random_bool(0.5) {
            Leave::Close
        } else {
            Leave::Silent
        }
    };
    let x: f64 = rng.random();
    let mut edge = f.retryable_error;
    if x < edge {
        return Plan::RetryableError;
    }
    edge += f.fatal_error;
    if x < edge {
        return Plan::FatalError;
    }
    edge += f.error_after_delta;
    if x < edge {
        return Plan::ErrorAfterDelta;
    }
    edge += f.stall;
    if x < edge {
        return Plan::Stall;
    }
    edge += f.vanish / 2.0;
    if x < edge {
        return Plan::VanishBeforeDelta(vanish(rng));
    }
    edge += f.vanish / 2.0;
    if x < edge {
        return Plan::VanishAfterDelta(vanish(rng));
    }
    Plan::Answer
}

/// What a job task asks of its worker's socket.
enum Out {
    Send(WorkerMessage),
    Vanish(Leave),
}

struct Running {
    /// Never answers, not even a cancel.
    stalled: bool,
    cancel: Option<oneshot::Sender<()>>,
    task: tokio::task::JoinHandle<()>,
}

/// The request's number, from the `churn N` text the clients send.
pub fn nonce_of(request: &JobRequest) -> Option<u64> {
    match request.messages.first()?.content.as_ref()? {
        MessageContent::Text(t) => t.strip_prefix("churn ")?.parse().ok(),
        _ => None,
    }
}

/// Connects to the gateway at `base` (`http://…`) as a worker serving `model`, says `hello`
/// and waits for the `welcome`; returns the socket and the heartbeat interval.
pub async fn connect(
    base: &str,
    token: &str,
    model: &str,
    concurrency: u32,
) -> anyhow::Result<(Socket, Duration)> {
    let url = format!("{}/api/worker/ws", base.replacen("http", "ws", 1));
    let mut req = url.into_client_request()?;
    req.headers_mut()
        .insert("authorization", format!("Bearer {token}").parse()?);
    // Nagle off, as the real worker has it: a `done` written right after a delta would
    // otherwise wait for the gateway's delayed ACK (~40 ms).
    let (mut ws, _) = tokio_tungstenite::connect_async_with_config(req, None, true).await?;
    let hello = WorkerMessage::Hello {
        protocol: PROTOCOL_VERSION,
        kind: WorkerKind::Upstream,
        name: Some("churn".into()),
        models: vec![ServedModel {
            id: model.to_owned(),
            ..Default::default()
        }],
        concurrency,
        variant: None,
    };
    ws.send(encode(&hello)).await?;
    let first = tokio::time::timeout(Duration::from_secs(30), ws.next()).await?;
    match first {
        Some(Ok(Message::Text(t))) => match serde_json::from_str(&t)? {
            GatewayMessage::Welcome {
                heartbeat_interval_ms,
                ..
            } => Ok((ws, Duration::from_millis(heartbeat_interval_ms))),
            other => anyhow::bail!("expected welcome, got {other:?}"),
        },
        other => anyhow::bail!("expected welcome, got {other:?}"),
    }
}

pub fn encode(msg: &WorkerMessage) -> Message {
    Message::Text(serde_json::to_string(msg).expect("serializes").into())
}

/// Runs one worker until it leaves (told to by `leave`, or by one of its jobs' plans).
/// Returns whether it vanished on its own (so it should be replaced).
pub async fn run(
    shared: Arc<Shared>,
    seed: u64,
    mut leave: oneshot::Receiver<Leave>,
) -> anyhow::Result<bool> {
    let counts = &shared.workers;
    let (mut ws, heartbeat) = connect_counted(&shared).await?;
    counts.sessions.fetch_add(1, Ordering::Relaxed);
    // What this worker's jobs send: bounded by the jobs it runs (its concurrency) and their
    // scripted deltas.
    let (out_tx, mut out_rx) = mpsc::unbounded_channel::<(String, Out)>();
    let mut jobs = Jobs {
        shared: &shared,
        rng: StdRng::seed_from_u64(seed),
        out_tx,
        running: HashMap::new(),
        draining: false,
    };
    let mut beat = tokio::time::interval(heartbeat);
    beat.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let (mode, on_its_own) = loop {
        if jobs.draining && jobs.running.values().all(|r| r.stalled) {
            break (Leave::Drain, false);
        }
        tokio::select! {
            msg = ws.next() => {
                let Some(Ok(msg)) = msg else { break (Leave::Close, true) };
                let Message::Text(t) = msg else { continue };
                let Ok(msg) = serde_json::from_str::<GatewayMessage>(&t) else { continue };
                if let Some(reply) = jobs.on_gateway(msg) {
                    if ws.send(encode(&reply)).await.is_err() {
                        break (Leave::Close, true);
                    }
                }
            }
            Some((job_id, out)) = out_rx.recv() => match out {
                Out::Send(msg) => {
                    jobs.sending(&job_id, &msg);
                    if ws.send(encode(&msg)).await.is_err() {
                        break (Leave::Close, true);
                    }
                }
                Out::Vanish(how) => break (how, true),
            },
            _ = beat.tick() => if ws.send(encode(&WorkerMessage::Heartbeat)).await.is_err() {
                break (Leave::Close, true);
            },
            how = &mut leave, if !jobs.draining => match how {
                Ok(Leave::Drain) | Err(_) => jobs.draining = true,
                Ok(how) => break (how, false),
            },
        }
    };
    for (_, r) in jobs.running.drain() {
        r.task.abort();
        counts.unfinished.fetch_add(1, Ordering::Relaxed);
    }
    end_session(ws, mode, counts).await;
    Ok(on_its_own)
}

/// [`connect`] with `shared`'s settings; a failure is counted.
async fn connect_counted(shared: &Shared) -> anyhow::Result<(Socket, Duration)> {
    let connected = connect(
        &shared.base,
        &shared.worker_token,
        &shared.model,
        shared.concurrency,
    )
    .await;
    if connected.is_err() {
        (shared.workers.connect_failures).fetch_add(1, Ordering::Relaxed);
    }
    connected
}

/// One simulated worker's jobs: each runs its drawn plan in a task of its own.
struct Jobs<'a> {
    shared: &'a Shared,
    rng: StdRng,
    out_tx: mpsc::UnboundedSender<(String, Out)>,
    running: HashMap<String, Running>,
    /// Told to leave: new jobs are refused, running ones finish.
    draining: bool,
}

impl Jobs<'_> {
    /// A job or a cancel from the gateway; what to answer at once, if anything.
    fn on_gateway(&mut self, msg: GatewayMessage) -> Option<WorkerMessage> {
        let counts = &self.shared.workers;
        match msg {
            GatewayMessage::Job {
                job_id, request, ..
            } => {
                counts.jobs.fetch_add(1, Ordering::Relaxed);
                self.shared.job_arrived(&request);
                if self.draining {
                    counts.errors.fetch_add(1, Ordering::Relaxed);
                    return Some(WorkerMessage::Error {
                        job_id,
                        code: ErrorCode::WorkerShuttingDown,
                        retryable: true,
                    });
                }
                let faults = &self.shared.faults;
                let plan = draw_plan(faults, &mut self.rng);
                let (ctx, crx) = oneshot::channel();
                let first = self.rng.random_range(0..=faults.max_delay_ms);
                let second = self.rng.random_range(0..=faults.max_delay_ms / 2);
                let nonce = nonce_of(&request).unwrap_or(0);
                let out = self.out_tx.clone();
                let task =
                    tokio::spawn(job(job_id.clone(), nonce, plan, (first, second), out, crx));
                let stalled = matches!(plan, Plan::Stall);
                let running = Running {
                    stalled,
                    cancel: Some(ctx),
                    task,
                };
                self.running.insert(job_id, running);
            }
            GatewayMessage::Cancel { job_id } => {
                counts.cancels.fetch_add(1, Ordering::Relaxed);
                let running = self.running.get_mut(&job_id).filter(|r| !r.stalled);
                if let Some(tx) = running.and_then(|r| r.cancel.take()) {
                    let _ = tx.send(());
                }
            }
            _ => {}
        }
        None
    }

    /// A job's message on its way out: its end closes its books.
    fn sending(&mut self, job_id: &str, msg: &WorkerMessage) {
        let counts = &self.shared.workers;
        match msg {
            WorkerMessage::Done { .. } => {
                counts.done.fetch_add(1, Ordering::Relaxed);
                self.running.remove(job_id);
            }
            WorkerMessage::Error { .. } => {
                counts.errors.fetch_add(1, Ordering::Relaxed);
                self.running.remove(job_id);
            }
            _ => {}
        }
    }
}

/// Leaves the way `mode` says, then reads until the gateway closes the socket, counting the
/// jobs that still arrive as unfinished (the gateway fails them over).
async fn end_session(mut ws: Socket, mode: Leave, counts: &WorkerCounts) {
    match mode {
        Leave::Drain => {
            counts.left_drained.fetch_add(1, Ordering::Relaxed);
            let _ = ws.close(None).await;
        }
        Leave::Close => {
            counts.vanished_closed.fetch_add(1, Ordering::Relaxed);
            if let MaybeTlsStream::Plain(tcp) = ws.get_mut() {
                use tokio::io::AsyncWriteExt;
                let _ = tcp.shutdown().await;
            }
        }
        Leave::Silent => {
            counts.vanished_silent.fetch_add(1, Ordering::Relaxed);
        }
    }
    let reading = async {
        while let Some(Ok(msg)) = ws.next().await {
            if let Message::Text(t) = msg {
                if let Ok(GatewayMessage::Job { .. }) = serde_json::from_str(&t) {
                    counts.jobs.fetch_add(1, Ordering::Relaxed);
                    counts.unfinished.fetch_add(1, Ordering::Relaxed);
                }
            }
        }
    };
    let _ = tokio::time::timeout(Duration::from_secs(60), reading).await;
}

/// Plays one job's plan, sending through the worker's socket task.
async fn job(
    job_id: String,
    nonce: u64,
    plan: Plan,
    (first, second): (u64, u64),
    out: mpsc::UnboundedSender<(String, Out)>,
    mut cancel: oneshot::Receiver<()>,
) {
    let send = |m: Out| {
        let _ = out.send((job_id.clone(), m));
    };
    let usage = |completion_tokens| JobUsage {
        prompt_tokens: 5,
        completion_tokens,
        reasoning_tokens: 0,
        cached_tokens: 0,
    };
    let done = |completion_tokens| {
        Out::Send(WorkerMessage::Done {
            job_id: job_id.clone(),
            finish_reason: FinishReason::Stop,
            usage: usage(completion_tokens),
        })
    };
    let error = |code: ErrorCode, retryable| {
        Out::Send(WorkerMessage::Error {
            job_id: job_id.clone(),
            code,
            retryable,
        })
    };
    let delta = |text: String| {
        Out::Send(WorkerMessage::Delta {
            job_id: job_id.clone(),
            content: Some(text),
            reasoning: None,
            tool_calls: None,
        })
    };
    if let Plan::Stall = plan {
        return std::future::pending().await;
    }
    tokio::select! {
        _ = tokio::time::sleep(Duration::from_millis(first)) => {}
        _ = &mut cancel => return send(done(0)),
    }
    match plan {
        Plan::RetryableError => return send(error(ErrorCode::UpstreamUnavailable, true)),
        Plan::FatalError => return send(error(ErrorCode::InferenceFailed, false)),
        Plan::VanishBeforeDelta(how) => return send(Out::Vanish(how)),
        _ => {}
    }
    send(delta("ok-".into()));
    tokio::select! {
        _ = tokio::time::sleep(Duration::from_millis(second)) => {}
        _ = &mut cancel => return send(done(1)),
    }
    match plan {
        Plan::ErrorAfterDelta => send(error(ErrorCode::UpstreamUnavailable, true)),
        Plan::VanishAfterDelta(how) => send(Out::Vanish(how)),
        _ => {
            send(delta(nonce.to_string()));
            send(done(2));
        }
    }
}

/// Time from a request being sent to its job reaching a worker.
pub fn since(sent: Instant) -> u32 {
    u32::try_from(sent.elapsed().as_micros()).unwrap_or(u32::MAX)
}
