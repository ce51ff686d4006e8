//! The gateway side of the worker: dial, `hello`, `welcome`, then run pushed jobs on the
//! backend until the connection ends; redial with backoff; drain on shutdown.
//!
//! One session is one WebSocket. Its jobs live and die with it: when the connection is lost
//! they are aborted (the gateway fails them over), so a redial starts with every slot free.

use std::collections::HashMap;
use std::panic::AssertUnwindSafe;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use futures::stream::{SplitSink, SplitStream};
use futures::{FutureExt, SinkExt, StreamExt};
use shoal_protocol::worker::{ErrorCode, GatewayMessage, WorkerMessage, PROTOCOL_VERSION};
use tokio::net::TcpStream;
use tokio::sync::mpsc;
use tokio::task::JoinSet;
use tokio::time::Instant;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::http::{header, HeaderValue, StatusCode};
use tokio_tungstenite::tungstenite::protocol::WebSocketConfig;
use tokio_tungstenite::tungstenite::{self, Message};
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};
use tokio_util::sync::CancellationToken;

use crate::backend::{
    Backend, ChatBackend, ImageBackend, ImageJob, Job, JobEnd, JobOutput, SpanBackend, SwarmMessage,
};

type Socket = WebSocketStream<MaybeTlsStream<TcpStream>>;

/// How the worker meets its gateway.
#[derive(Clone)]
pub struct Settings {
    /// `ws(s)://host:port/api/worker/ws` of each gateway, dialled in turn: the worker serves
    /// one and moves to the next when it cannot reach it or loses it.
    pub urls: Vec<String>,
    pub token: String,
    pub name: Option<String>,
    pub concurrency: u32,
    /// After a shutdown signal, how long running jobs may take to finish.
    pub grace: Duration,
    /// First and largest delay between dial attempts.
    pub backoff: (Duration, Duration),
}

/// How long the gateway has to answer `hello`, and a dial to complete.
const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(15);
/// After the grace period, how long aborted jobs get to report before they are dropped.
const ABORT_TIMEOUT: Duration = Duration::from_secs(5);
/// Outgoing messages waiting for the socket; a slow gateway slows the upstream reads.
const OUTBOX: usize = 256;
/// Large enough for a job with inline images.
const MAX_MESSAGE_BYTES: usize = 256 << 20;

/// Serves the gateway until `shutdown` fires (then drains and returns `Ok`) or the gateway
/// refuses this worker (`Err`, with the gateway's message).
pub async fn serve(
    settings: Settings,
    backend: Backend,
    shutdown: CancellationToken,
) -> anyhow::Result<()> {
    anyhow::ensure!(!settings.urls.is_empty(), "no gateway URL");
    let mut backoff = Backoff::new(settings.backoff.0, settings.backoff.1);
    // Round robin: after each failed dial or lost session, the next gateway.
    let mut turn = 0usize;
    loop {
        let url = &settings.urls[turn % settings.urls.len()];
        turn = turn.wrapping_add(1);
        tracing::info!(%url, "connecting to the gateway");
        let dialed = tokio::select! {
            _ = shutdown.cancelled() => return Ok(()),
            dialed = dial(url, &settings) => dialed,
        };
        match dialed {
            Err(DialError::Fatal(e)) => return Err(e),
            Err(DialError::Retry(reason)) => {
                tracing::warn!(%reason, "could not connect to the gateway");
            }
            Ok(socket) => match Session::run(socket, &settings, &backend, &shutdown).await {
                SessionEnd::Shutdown => {
                    tracing::info!("worker stopped");
                    return Ok(());
                }
                SessionEnd::Refused(message) => {
                    anyhow::bail!("the gateway refused this worker: {message}")
                }
                SessionEnd::Lost { welcomed, reason } => {
                    if welcomed {
                        backoff.reset();
                    }
                    tracing::warn!(reason, "lost the gateway connection");
                }
            },
        }
        let delay = backoff.next_delay();
        tracing::info!(
            delay_ms = delay.as_millis() as u64,
            "reconnecting after a pause"
        );
        tokio::select! {
            _ = shutdown.cancelled() => return Ok(()),
            _ = tokio::time::sleep(delay) => {}
        }
    }
}

enum DialError {
    /// Retrying would not help (the token was rejected).
    Fatal(anyhow::Error),
    Retry(String),
}

async fn dial(url: &str, settings: &Settings) -> Result<Socket, DialError> {
    let mut request = url
        .into_client_request()
        .map_err(|e| DialError::Fatal(anyhow::anyhow!("bad gateway URL: {e}")))?;
    let bearer = HeaderValue::from_str(&format!("Bearer {}", settings.token)).map_err(|_| {
        DialError::Fatal(anyhow::anyhow!(
            "the worker token is not a valid header value"
        ))
    })?;
    request.headers_mut().insert(header::AUTHORIZATION, bearer);
    // tungstenite zero-fills this many bytes before every read, also before the read that
    // finds the socket empty (at least two per message): keep it near the usual job size
    // instead of the default 128 KiB. A larger job is read in several reads of this size.
    let config = WebSocketConfig::default()
        .read_buffer_size(4 * 1024)
        .max_message_size(Some(MAX_MESSAGE_BYTES))
        .max_frame_size(Some(MAX_MESSAGE_BYTES));
    let connect = tokio_tungstenite::connect_async_with_config(request, Some(config), true);
    match tokio::time::timeout(HANDSHAKE_TIMEOUT, connect).await {
        Err(_) => Err(DialError::Retry("timed out".into())),
        Ok(Ok((socket, _))) => Ok(socket),
        Ok(Err(tungstenite::Error::Http(response)))
            if matches!(
                response.status(),
                StatusCode::UNAUTHORIZED | StatusCode::FORBIDDEN
            ) =>
        {
            Err(DialError::Fatal(anyhow::anyhow!(
                "the gateway rejected the worker token (HTTP {})",
                response.status().as_u16()
            )))
        }
        Ok(Err(tungstenite::Error::Http(response))) => Err(DialError::Retry(format!(
            "HTTP {} instead of a WebSocket upgrade",
            response.status().as_u16()
        ))),
        Ok(Err(e)) => Err(DialError::Retry(e.to_string())),
    }
}

enum SessionEnd {
    Shutdown,
    Refused(String),
    Lost {
        welcomed: bool,
        reason: &'static str,
    },
}

/// Why a running job is being stopped, besides a `cancel` from the gateway.
struct JobControl {
    cancel: CancellationToken,
    /// Set when the grace period ran out: the job ends as `worker_shutdown`, not `done`.
    aborted: Arc<AtomicBool>,
}

struct Session<'a> {
    settings: &'a Settings,
    backend: &'a Backend,
    outbox: mpsc::Sender<WorkerMessage>,
    jobs: HashMap<String, JobControl>,
    tasks: JoinSet<String>,
    draining: bool,
}

impl Session<'_> {
    async fn run(
        socket: Socket,
        settings: &Settings,
        backend: &Backend,
        shutdown: &CancellationToken,
    ) -> SessionEnd {
        let (mut sink, mut stream) = socket.split();
        let heartbeat = tokio::select! {
            _ = shutdown.cancelled() => {
                let _ = sink.close().await;
                return SessionEnd::Shutdown;
            }
            greeted = greet(&mut sink, &mut stream, settings, backend) => match greeted {
                Ok(heartbeat) => heartbeat,
                Err(end) => return end,
            },
        };
        let (outbox, outgoing) = mpsc::channel(OUTBOX);
        let mut writer = tokio::spawn(write_loop(sink, outgoing, heartbeat));
        let mut session = Session {
            settings,
            backend,
            outbox,
            jobs: HashMap::new(),
            tasks: JoinSet::new(),
            draining: false,
        };
        let end = session
            .serve(&mut stream, heartbeat, shutdown, &mut writer)
            .await;
        session.close(&end, writer).await;
        end
    }

    /// Reads the gateway's messages and keeps the books of running jobs until the session
    /// ends: the gateway gone or silent, or a shutdown drained (or its grace run out).
    async fn serve(
        &mut self,
        stream: &mut SplitStream<Socket>,
        heartbeat: Duration,
        shutdown: &CancellationToken,
        writer: &mut tokio::task::JoinHandle<()>,
    ) -> SessionEnd {
        // A gateway that answers nothing, not even our pings, for three heartbeats is gone.
        let silence = heartbeat * 3 + Duration::from_secs(1);
        let mut last_heard = Instant::now();
        let mut grace_ends: Option<Instant> = None;
        let mut abort_ends: Option<Instant> = None;
        loop {
            if self.draining && self.jobs.is_empty() {
                return SessionEnd::Shutdown;
            }
            tokio::select! {
                frame = stream.next() => {
                    last_heard = Instant::now();
                    if let Some(end) = self.on_frame(frame).await {
                        return end;
                    }
                }
                Some(finished) = self.tasks.join_next(), if !self.tasks.is_empty() => {
                    if let Ok(job_id) = finished {
                        self.jobs.remove(&job_id);
                    }
                }
                _ = shutdown.cancelled(), if !self.draining => {
                    self.draining = true;
                    grace_ends = Some(Instant::now() + self.settings.grace);
                    tracing::info!(running = self.jobs.len(), "shutting down: taking no new jobs, finishing the running ones");
                }
                _ = sleep_until(grace_ends), if abort_ends.is_none() => {
                    self.abort_running();
                    abort_ends = Some(Instant::now() + ABORT_TIMEOUT);
                }
                _ = sleep_until(abort_ends) => return SessionEnd::Shutdown,
                _ = tokio::time::sleep_until(last_heard + silence) => {
                    return SessionEnd::Lost { welcomed: true, reason: "the gateway went silent" };
                }
                _ = &mut *writer => {
                    return SessionEnd::Lost { welcomed: true, reason: "could not write to the gateway" };
                }
            }
        }
    }

    /// One frame from the gateway; `Some` ends the session.
    async fn on_frame(
        &mut self,
        frame: Option<Result<Message, tungstenite::Error>>,
    ) -> Option<SessionEnd> {
        match frame {
            None | Some(Err(_)) | Some(Ok(Message::Close(_))) => Some(SessionEnd::Lost {
                welcomed: true,
                reason: "the gateway closed the connection",
            }),
            Some(Ok(Message::Text(text))) => self.on_message(text.as_str()).await,
            Some(Ok(Message::Binary(frame))) => {
                self.on_swarm(SwarmMessage::Frame(frame.into()));
                None
            }
            Some(Ok(_)) => None,
        }
    }

    /// The grace period is over: the jobs still running are handed back.
    fn abort_running(&self) {
        tracing::warn!(
            running = self.jobs.len(),
            "grace period over: handing the remaining jobs back"
        );
        for control in self.jobs.values() {
            control.aborted.store(true, Ordering::SeqCst);
            control.cancel.cancel();
        }
    }

    /// Ends the session's jobs and its writer.
    async fn close(mut self, end: &SessionEnd, mut writer: tokio::task::JoinHandle<()>) {
        match end {
            SessionEnd::Shutdown => {
                // Jobs still running here overran even the abort: the gateway fails them over
                // when the socket closes. Finished jobs' last messages are in the outbox; the
                // writer sends them, then closes, once every sender is gone.
                self.tasks.shutdown().await;
                drop(self);
                if tokio::time::timeout(ABORT_TIMEOUT, &mut writer)
                    .await
                    .is_err()
                {
                    writer.abort();
                }
            }
            SessionEnd::Refused(_) | SessionEnd::Lost { .. } => {
                let running = self.jobs.len();
                if running > 0 {
                    tracing::warn!(
                        running,
                        "aborting jobs of the lost connection (the gateway fails them over)"
                    );
                }
                self.tasks.shutdown().await;
                writer.abort();
            }
        }
    }

    /// Handles one message from the gateway; `Some` ends the session.
    async fn on_message(&mut self, text: &str) -> Option<SessionEnd> {
        let Ok(msg) = serde_json::from_str::<GatewayMessage>(text) else {
            self.unreadable(text).await;
            return None;
        };
        match msg {
            GatewayMessage::Job {
                job_id,
                model,
                request,
            } => {
                let job = Job {
                    id: job_id.clone(),
                    model,
                    request,
                };
                let work = self.backend.chat_work(job);
                self.admit(job_id, work).await;
            }
            GatewayMessage::ImageJob {
                job_id,
                model,
                request,
            } => {
                let job = ImageJob {
                    id: job_id.clone(),
                    model,
                    request,
                };
                let work = self.backend.image_work(job);
                self.admit(job_id, work).await;
            }
            GatewayMessage::Cancel { job_id } => {
                if let Some(control) = self.jobs.get(&job_id) {
                    tracing::info!(%job_id, "job cancelled by the gateway");
                    control.cancel.cancel();
                }
            }
            GatewayMessage::PromptJob { job_id, .. } => {
                // Prompt jobs go to browser tabs only.
                self.reply(job_id, ErrorCode::BadJob, false).await;
            }
            GatewayMessage::Refused { message } => return Some(SessionEnd::Refused(message)),
            GatewayMessage::Welcome { .. } => {}
            GatewayMessage::SpanOpen {
                session,
                job_id,
                sampling,
                resume,
            } => {
                self.on_swarm(SwarmMessage::Open {
                    session,
                    job_id,
                    sampling,
                    resume,
                });
            }
            GatewayMessage::SpanClose { session } => {
                self.on_swarm(SwarmMessage::Close { session });
            }
            GatewayMessage::SpanReplay { session, to } => {
                self.on_swarm(SwarmMessage::Replay { session, to });
            }
            GatewayMessage::Frame(frame) => self.on_swarm(SwarmMessage::Frame(frame)),
        }
        None
    }

    /// A message that does not parse: refused if it names a job, never logged (a job holds
    /// the prompt).
    async fn unreadable(&self, text: &str) {
        let job_id = serde_json::from_str::<serde_json::Value>(text)
            .ok()
            .filter(|v| v["type"] == "job")
            .and_then(|v| v["job_id"].as_str().map(str::to_owned));
        tracing::warn!(job_id, "unreadable message from the gateway");
        if let Some(job_id) = job_id {
            self.reply(job_id, ErrorCode::BadJob, false).await;
        }
    }

    /// A swarm message, for a span node's backend; other kinds ignore them.
    fn on_swarm(&self, msg: SwarmMessage) {
        if let Backend::Span(span) = self.backend {
            span.on_swarm(msg, &self.outbox);
        }
    }

    /// Starts a job if this backend runs its kind, a slot is free and the worker is not
    /// draining; refuses it otherwise.
    async fn admit(&mut self, job_id: String, work: Option<Work>) {
        let Some(work) = work else {
            return self.reply(job_id, ErrorCode::BadJob, false).await;
        };
        if self.draining {
            self.reply(job_id, ErrorCode::WorkerShuttingDown, true)
                .await;
        } else if self.jobs.len() >= self.settings.concurrency as usize {
            tracing::warn!(%job_id, "job pushed while every slot is busy");
            self.reply(job_id, ErrorCode::WorkerBusy, true).await;
        } else if self.jobs.contains_key(&job_id) {
            tracing::warn!(%job_id, "job pushed twice; ignored");
        } else {
            self.start(job_id, work);
        }
    }

    async fn reply(&self, job_id: String, code: ErrorCode, retryable: bool) {
        let msg = JobEnd::Failed { code, retryable }.into_message(job_id);
        let _ = self.outbox.send(msg).await;
    }

    fn start(&mut self, job_id: String, work: Work) {
        let control = JobControl {
            cancel: CancellationToken::new(),
            aborted: Arc::new(AtomicBool::new(false)),
        };
        self.tasks.spawn(run_job(
            job_id.clone(),
            work,
            self.outbox.clone(),
            control.cancel.clone(),
            Arc::clone(&control.aborted),
        ));
        self.jobs.insert(job_id, control);
    }
}

/// A job with the backend that runs its kind. Moved once into its task: boxing the larger
/// one would only add an allocation.
#[allow(clippy::large_enum_variant)]
enum Work {
    Chat(Arc<dyn ChatBackend>, Job),
    /// A chat job at a swarm chain's entry.
    Entry(Arc<dyn SpanBackend>, Job),
    Image(Arc<dyn ImageBackend>, ImageJob),
}

impl Backend {
    /// A chat job with the backend that runs it: a chat backend, or a span node as its
    /// chain's entry; `None` on an image worker.
    fn chat_work(&self, job: Job) -> Option<Work> {
        match self {
            Backend::Chat(b) => Some(Work::Chat(Arc::clone(b), job)),
            Backend::Span(b) => Some(Work::Entry(Arc::clone(b), job)),
            Backend::Image(_) => None,
        }
    }

    /// An image job with the backend that renders it; `None` unless an image worker.
    fn image_work(&self, job: ImageJob) -> Option<Work> {
        match self {
            Backend::Image(b) => Some(Work::Image(Arc::clone(b), job)),
            Backend::Chat(_) | Backend::Span(_) => None,
        }
    }
}

impl Work {
    async fn run(self, out: &mut JobOutput, cancel: CancellationToken) -> JobEnd {
        match self {
            Work::Chat(backend, job) => backend.generate(job, out, cancel).await,
            Work::Entry(node, job) => node.generate(job, out, cancel).await,
            Work::Image(backend, job) => backend.generate_image(job, out, cancel).await,
        }
    }
}

/// One job from start to its `done`, `image` or `error`. Returns the job id for the
/// session's books.
async fn run_job(
    job_id: String,
    work: Work,
    outbox: mpsc::Sender<WorkerMessage>,
    cancel: CancellationToken,
    aborted: Arc<AtomicBool>,
) -> String {
    let started = std::time::Instant::now();
    let model = match &work {
        Work::Chat(_, job) | Work::Entry(_, job) => job.model.clone(),
        Work::Image(_, job) => job.model.clone(),
    };
    tracing::debug!(%job_id, %model, "job started");
    let mut out = JobOutput::new(job_id.clone(), outbox.clone());
    let generated = AssertUnwindSafe(work.run(&mut out, cancel))
        .catch_unwind()
        .await;
    let before_tokens = out.relayed() == 0;
    let end = match generated {
        _ if aborted.load(Ordering::SeqCst) => JobEnd::Failed {
            code: ErrorCode::WorkerShutdown,
            retryable: before_tokens,
        },
        Ok(end) => end,
        Err(_) => JobEnd::Failed {
            code: ErrorCode::WorkerInternalError,
            retryable: before_tokens,
        },
    };
    let duration_ms = started.elapsed().as_millis() as u64;
    // The end goes out first: the gateway's answer should not wait on formatting a log line.
    let _ = outbox.send(end.clone().into_message(job_id.clone())).await;
    match &end {
        // At debug: the gateway's access log has a line per request already, and at info
        // this one cost the worker 5-7 % of its throughput (bench/HISTORY.md). Failures stay
        // at warn.
        JobEnd::Done {
            finish_reason,
            usage,
        } => tracing::debug!(
            %job_id,
            %model,
            %finish_reason,
            prompt_tokens = usage.prompt_tokens,
            completion_tokens = usage.completion_tokens,
            reasoning_tokens = usage.reasoning_tokens,
            deltas = out.relayed(),
            duration_ms,
            "job done"
        ),
        // The size only: the image itself never reaches a log.
        JobEnd::Image { png_base64 } => tracing::info!(
            %job_id,
            %model,
            png_base64_bytes = png_base64.len(),
            duration_ms,
            "image done"
        ),
        JobEnd::Failed { code, retryable } => tracing::warn!(
            %job_id,
            %model,
            %code,
            retryable,
            deltas = out.relayed(),
            duration_ms,
            "job failed"
        ),
    }
    job_id
}

/// Sends `hello` and waits for `welcome`; returns the heartbeat interval.
async fn greet(
    sink: &mut SplitSink<Socket, Message>,
    stream: &mut SplitStream<Socket>,
    settings: &Settings,
    backend: &Backend,
) -> Result<Duration, SessionEnd> {
    let lost = |reason| SessionEnd::Lost {
        welcomed: false,
        reason,
    };
    let hello = WorkerMessage::Hello {
        protocol: PROTOCOL_VERSION,
        kind: backend.kind(),
        name: settings.name.clone(),
        models: backend.models(),
        concurrency: settings.concurrency,
        variant: None,
    };
    if sink.send(encode(&hello)).await.is_err() {
        return Err(lost("could not send hello"));
    }
    let answer = tokio::time::timeout(HANDSHAKE_TIMEOUT, async {
        loop {
            match stream.next().await {
                Some(Ok(Message::Text(text))) => {
                    break serde_json::from_str::<GatewayMessage>(text.as_str()).ok()
                }
                Some(Ok(Message::Close(_))) | Some(Err(_)) | None => break None,
                Some(Ok(_)) => {}
            }
        }
    })
    .await;
    match answer {
        Err(_) => Err(lost("no welcome in time")),
        Ok(Some(GatewayMessage::Welcome {
            worker_id,
            heartbeat_interval_ms,
            ignored_models,
            ..
        })) => {
            tracing::info!(%worker_id, heartbeat_interval_ms, "connected to the gateway");
            if !ignored_models.is_empty() {
                tracing::warn!(ignored = ?ignored_models, "the gateway ignores models it does not list");
            }
            if let Backend::Span(node) = backend {
                let span = node.span();
                if sink
                    .send(encode(&WorkerMessage::Span { span }))
                    .await
                    .is_err()
                {
                    return Err(lost("could not announce the span"));
                }
            }
            Ok(Duration::from_millis(heartbeat_interval_ms.max(100)))
        }
        Ok(Some(GatewayMessage::Refused { message })) => Err(SessionEnd::Refused(message)),
        Ok(_) => Err(lost("the gateway did not welcome this worker")),
    }
}

/// Most queued messages written with one flush.
const WRITE_BATCH: usize = 64;

/// Owns the socket's sending half: the outbox in order, a heartbeat (and a ping, whose pong
/// proves the gateway is still there) every interval. Closes the socket once every sender
/// is gone.
async fn write_loop(
    mut sink: SplitSink<Socket, Message>,
    mut outgoing: mpsc::Receiver<WorkerMessage>,
    heartbeat: Duration,
) {
    let mut ticks = tokio::time::interval_at(Instant::now() + heartbeat, heartbeat);
    ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tokio::select! {
            msg = outgoing.recv() => match msg {
                Some(msg) => {
                    // Whatever else is queued by now (the rest of a burst of deltas) goes out
                    // in the same write: one system call and one packet instead of one each.
                    let mut batch = 1;
                    let mut fed = sink.feed(encode(&msg)).await;
                    while fed.is_ok() && batch < WRITE_BATCH {
                        let Ok(msg) = outgoing.try_recv() else { break };
                        fed = sink.feed(encode(&msg)).await;
                        batch += 1;
                    }
                    if fed.is_err() || sink.flush().await.is_err() {
                        return;
                    }
                }
                None => {
                    let _ = sink.close().await;
                    return;
                }
            },
            _ = ticks.tick() => {
                if sink.feed(encode(&WorkerMessage::Heartbeat)).await.is_err()
                    || sink.send(Message::Ping(Default::default())).await.is_err()
                {
                    return;
                }
            }
        }
    }
}

fn encode(msg: &WorkerMessage) -> Message {
    match msg {
        // Swarm frames go as binary messages (their one copy is into the socket's buffer).
        WorkerMessage::Frame(frame) => Message::binary(frame.clone()),
        msg => Message::text(serde_json::to_string(msg).expect("worker messages serialize")),
    }
}

async fn sleep_until(deadline: Option<Instant>) {
    match deadline {
        Some(deadline) => tokio::time::sleep_until(deadline).await,
        None => std::future::pending().await,
    }
}

/// Exponential backoff with jitter: each delay is the current step ±25 %, the step doubling
/// from the first to the largest.
#[derive(Debug)]
pub struct Backoff {
    first: Duration,
    max: Duration,
    step: Duration,
}

impl Backoff {
    pub fn new(first: Duration, max: Duration) -> Self {
        Self {
            first,
            max,
            step: first,
        }
    }

    pub fn next_delay(&mut self) -> Duration {
        let jitter = 0.75 + rand::random::<f64>() * 0.5;
        let delay = self.step.mul_f64(jitter).min(self.max);
        self.step = (self.step * 2).min(self.max);
        delay
    }

    pub fn reset(&mut self) {
        self.step = self.first;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_doubles_to_the_cap_with_jitter_and_resets() {
        let mut b = Backoff::new(Duration::from_millis(500), Duration::from_secs(30));
        let delays: Vec<Duration> = (0..12).map(|_| b.next_delay()).collect();
        assert!(delays[0] >= Duration::from_millis(375) && delays[0] <= Duration::from_millis(625));
        assert!(
            delays[1] >= Duration::from_millis(750) && delays[1] <= Duration::from_millis(1250)
        );
        assert!(delays.iter().all(|d| *d <= Duration::from_secs(30)));
        assert!(delays[11] >= Duration::from_millis(22_500));
        b.reset();
        assert!(b.next_delay() <= Duration::from_millis(625));
    }
}
