//! Running one chat job: dispatch with invisible failover before the first token, then relay
//! the worker's events to the client (one JSON body, or SSE events, in the route's [`Shape`]),
//! then settle the hold.
//! A structured request's answer is held to its [`Check`]: a whole one that fails is asked of
//! another worker, a stream that fails ends with an error event.
//!
//! The job is driven by its own task, so a client that goes away (the handler's future is
//! dropped) still gets its job cancelled and its hold settled for what was generated.

use std::time::{Duration, Instant};

use axum::body::{Body, Bytes};
use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use shoal_protocol::answer::{Billed, Failure, Piece};
use shoal_protocol::worker::{ErrorCode, FinishReason, JobRequest, JobUsage, WorkerKind};
use shoal_store::{Charge, Generation, HoldOutcome, HoldRequest, SettleOutcome};
use tokio::sync::{mpsc, oneshot};
use tokio_util::sync::CancellationToken;

use crate::chat::pricing::UsageBounds;
use crate::chat::shape::{Shape, Whole};
use crate::http::ApiError;
use crate::workers::pool::{DispatchError, Job, JobEvent, WorkerId};
use crate::workers::swarm;
use crate::{now_ms, AppState};
use shoal_answer_check::{Check, Fault, Watch};

/// How many workers a request is offered to before it gives up.
const MAX_ATTEMPTS: usize = 3;
/// How long a cancelled job's worker gets to report its final usage.
const CANCEL_GRACE: Duration = Duration::from_secs(5);

/// Everything about one admitted request that the driver needs.
pub struct JobContext {
    /// When the request reached the gateway.
    pub arrived: Instant,
    pub request_id: String,
    /// The hold to take before dispatch (its request id is `request_id`).
    pub hold: HoldRequest,
    pub model: String,
    pub stream: bool,
    /// What the worker's usage report is held to.
    pub bounds: UsageBounds,
    pub job: JobRequest,
}

/// Holds, dispatches the job and answers the client in `shape`; a hold once taken is always
/// ended.
pub async fn run(state: AppState, ctx: JobContext, shape: Box<dyn Shape>) -> Response {
    let cancel = CancellationToken::new();
    // Dropped with the handler's future when the client goes away.
    let guard = cancel.clone().drop_guard();
    let (ready_tx, ready_rx) = oneshot::channel::<Result<Answer, ApiError>>();
    let arrived = ctx.arrived;
    tokio::spawn(drive(state.clone(), ctx, shape, cancel, ready_tx));
    let answer = ready_rx.await;
    if let Ok(Ok(a)) = &answer {
        let overhead = arrived.elapsed().saturating_sub(a.worker_time);
        state.metrics.overhead.observe(overhead.as_secs_f64());
    }
    let response = match answer.map(|r| r.map(|a| a.ready)) {
        Ok(Ok(Ready::Whole(body))) => {
            let mut r = (StatusCode::OK, Body::from(body)).into_response();
            r.headers_mut().insert(
                header::CONTENT_TYPE,
                HeaderValue::from_static("application/json"),
            );
            r
        }
        Ok(Ok(Ready::Stream(rx))) => {
            let stream = futures::stream::unfold(rx, |mut rx| async move {
                rx.recv()
                    .await
                    .map(|b| (Ok::<Bytes, std::convert::Infallible>(b), rx))
            });
            let mut r = (StatusCode::OK, Body::from_stream(stream)).into_response();
            let h = r.headers_mut();
            h.insert(
                header::CONTENT_TYPE,
                HeaderValue::from_static("text/event-stream"),
            );
            h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
            h.insert("x-accel-buffering", HeaderValue::from_static("no"));
            r
        }
        Ok(Err(e)) => e.into_response(),
        Err(_) => ApiError::internal().into_response(),
    };
    // A streamed body outlives this function; the stream's own channel tells the driver when
    // the client goes away, so the guard is only needed until here.
    guard.disarm();
    response
}

enum Ready {
    Whole(Vec<u8>),
    Stream(mpsc::Receiver<Bytes>),
}

/// Ready to answer, with how long of that the worker took (dispatch to its last event for a
/// whole body, to its first event for a stream).
struct Answer {
    ready: Ready,
    worker_time: Duration,
}

/// Dispatch, offering the job to other workers while it fails before its first event. A
/// worker that takes the job and says nothing is stopped at the deadline or when the client
/// leaves, so its slot is freed and the request ends.
async fn start(
    state: &AppState,
    ctx: &JobContext,
    until: &Until,
    tried: &mut Vec<WorkerId>,
) -> Result<Started, NotStarted> {
    let (cancel, deadline) = (&until.cancel, until.deadline);
    // A replica's worker could take it but the job cannot cross: once no worker here can
    // either, the answer is 413, which retrying cannot change, not 503.
    let mut too_large = false;
    while tried.len() < MAX_ATTEMPTS {
        let dispatched = tokio::select! {
            d = swarm::dispatch(state, &ctx.model, &ctx.job, tried) => d,
            _ = cancel.cancelled() => return Err(ApiError::internal().into()),
            _ = tokio::time::sleep_until(deadline) => return Err(ApiError::timeout().into()),
        };
        let mut job = match dispatched {
            Ok(job) => job,
            Err(DispatchError::NoWorker) if tried.is_empty() => {
                return Err(no_worker(state, ctx).into())
            }
            Err(_) if too_large => return Err(ApiError::too_large_for_cluster().into()),
            Err(DispatchError::NoWorker) => break,
            Err(DispatchError::Busy) => {
                return Err(ApiError::no_worker(
                    "every worker serving this model is busy; retry shortly",
                )
                .into())
            }
        };
        let dispatched = Instant::now();
        if tried.is_empty() {
            state
                .metrics
                .dispatch_wait
                .observe(ctx.arrived.elapsed().as_secs_f64());
        }
        let first = tokio::select! {
            ev = job.events.recv() => ev,
            _ = cancel.cancelled() => return Err(NotStarted { error: ApiError::internal(), running: Some(job) }),
            _ = tokio::time::sleep_until(deadline) => return Err(NotStarted { error: ApiError::timeout(), running: Some(job) }),
        };
        match first {
            Some(JobEvent::Failed {
                code,
                retryable: true,
            }) => {
                tracing::warn!(request_id = %ctx.request_id, job = %job.id, code = %code, "job failed before its first token; failing over");
                too_large |= code == ErrorCode::JobTooLarge;
                tried.push(job.worker);
            }
            None => tried.push(job.worker),
            Some(JobEvent::Failed { code, .. }) => return Err(worker_refused(&code).into()),
            Some(first) => {
                let served = Served::now(state, ctx, &job);
                return Ok(Started {
                    job,
                    first,
                    dispatched,
                    served,
                });
            }
        }
    }
    if too_large {
        return Err(ApiError::too_large_for_cluster().into());
    }
    Err(ApiError::no_worker("the workers serving this model failed; retry shortly").into())
}

/// Why no worker could be given the job at all.
fn no_worker(state: &AppState, ctx: &JobContext) -> ApiError {
    if ctx.job.needs_structured_outputs() && swarm::available(state, &ctx.model) {
        return ApiError::no_worker(
            "no worker online enforces structured outputs (response_format json_object or \
             json_schema, strict tools) for this model; retry shortly",
        );
    }
    ApiError::no_worker("no worker serving this model is online; retry shortly")
}

/// A job that has said something: its first event, and when it was dispatched.
struct Started {
    job: Job,
    first: JobEvent,
    dispatched: Instant,
    served: Served,
}

/// What a request's record keeps of the worker that answered: when its first event came and
/// what kind of worker it is.
#[derive(Debug, Clone, Copy)]
struct Served {
    first_at: Instant,
    kind: WorkerKind,
}

impl Served {
    fn now(state: &AppState, ctx: &JobContext, job: &Job) -> Self {
        // A swarm chain's entry, or a peer's, may not be in this pool by the time it is asked.
        let fallback = if ctx.model == swarm::MODEL {
            WorkerKind::Swarm
        } else {
            WorkerKind::Upstream
        };
        Served {
            first_at: Instant::now(),
            kind: state.pool.kind_of(job.worker).unwrap_or(fallback),
        }
    }
}

/// A request that got no first event: why, and its job if a worker still runs it.
struct NotStarted {
    error: ApiError,
    running: Option<Job>,
}

impl From<ApiError> for NotStarted {
    fn from(error: ApiError) -> Self {
        NotStarted {
            error,
            running: None,
        }
    }
}

fn worker_refused(code: &ErrorCode) -> ApiError {
    if code.blames_request() {
        ApiError::invalid_request(
            "the model refused this request (for example, the prompt is longer than its context)",
            None,
        )
    } else {
        ApiError::worker_failed(code)
    }
}

async fn drive(
    state: AppState,
    ctx: JobContext,
    shape: Box<dyn Shape>,
    cancel: CancellationToken,
    ready: oneshot::Sender<Result<Answer, ApiError>>,
) {
    // Not cancellable: once the hold is written it must be ended, so this task outlives a
    // client that goes away meanwhile (the select below then voids it).
    if let Err(e) = take_hold(&state, &ctx).await {
        let _ = ready.send(Err(e));
        return;
    }
    // One limit for the whole request, queueing and a silent worker included.
    let until = Until {
        cancel,
        deadline: tokio::time::Instant::from_std(ctx.arrived) + state.config.request_timeout,
    };
    // What the answer is held to, when the request asked for a structured one.
    let check = Check::of(&ctx.job);
    let mut tried = Vec::new();
    let started = match start(&state, &ctx, &until, &mut tried).await {
        Ok(started) => started,
        Err(not_started) => return give_up(&state, &ctx, not_started, ready).await,
    };
    if ctx.stream {
        stream_answer(&state, &ctx, (shape, check), &until, started, ready).await;
    } else {
        let judged = (check.as_ref(), &mut tried);
        whole_answer_of(&state, &ctx, shape, &until, started, judged, ready).await;
    }
}

/// Streams a started job to the client, then ends its hold.
async fn stream_answer(
    state: &AppState,
    ctx: &JobContext,
    (mut shape, check): (Box<dyn Shape>, Option<Check>),
    until: &Until,
    started: Started,
    ready: oneshot::Sender<Result<Answer, ApiError>>,
) {
    let Started {
        mut job,
        first,
        dispatched,
        served,
    } = started;
    let (tx, rx) = mpsc::channel::<Bytes>(64);
    let answer = Answer {
        ready: Ready::Stream(rx),
        worker_time: dispatched.elapsed(),
    };
    if ready.send(Ok(answer)).is_err() {
        until.cancel.cancel();
    }
    let relay = Relay {
        state,
        ctx,
        tx,
        until,
    };
    let watch = check.as_ref().map(Watch::new);
    let outcome = relay.stream(&mut job, first, watch, shape.as_mut()).await;
    // The client's stream ends here, not after the hold: ending the job may wait for the
    // worker's cancel grace.
    drop(relay);
    finish(state, ctx, (&mut job, served), outcome).await;
}

/// Collects a started job whole and answers. A finished job's hold is ended before the answer
/// goes out, so a balance or key read right after it already shows its charge (one ledger
/// write of latency).
async fn whole_answer_of(
    state: &AppState,
    ctx: &JobContext,
    mut shape: Box<dyn Shape>,
    until: &Until,
    started: Started,
    judged: (Option<&Check>, &mut Vec<WorkerId>),
    ready: oneshot::Sender<Result<Answer, ApiError>>,
) {
    let collected = match collect_whole(state, ctx, until, started, judged).await {
        Ok(collected) => collected,
        Err(not_started) => return give_up(state, ctx, not_started, ready).await,
    };
    let Collected {
        mut job,
        outcome,
        acc,
        dispatched,
        served,
    } = collected;
    let answer = whole_answer(dispatched, &outcome, acc, shape.as_mut());
    // A job that did not finish is stopped first, which may wait for the worker's cancel
    // grace: its client hears at once and the hold ends after.
    let done = matches!(outcome, Outcome::Done { .. });
    if !done {
        let _ = ready.send(answer);
        return finish(state, ctx, (&mut job, served), outcome).await;
    }
    finish(state, ctx, (&mut job, served), outcome).await;
    let _ = ready.send(answer);
}

/// A job collected whole, with its outcome.
struct Collected {
    job: Job,
    outcome: Outcome,
    acc: Whole,
    dispatched: Instant,
    served: Served,
}

/// Collects a whole answer. One that fails its check is the worker's fault, known only at its
/// end but before anything reached the client: nothing of it is billed, and the job is asked
/// of another worker, within the request's attempts. The hold stays as it is meanwhile, to be
/// ended once for the answer the client gets. `judged`: the check, and the workers the
/// request went to so far.
async fn collect_whole(
    state: &AppState,
    ctx: &JobContext,
    until: &Until,
    mut started: Started,
    (check, tried): (Option<&Check>, &mut Vec<WorkerId>),
) -> Result<Collected, NotStarted> {
    loop {
        let Started {
            mut job,
            first,
            dispatched,
            served,
        } = started;
        let (outcome, acc) = collect(state, ctx, &mut job, first, until).await;
        let fault = match (&outcome, check) {
            (Outcome::Done { finish_reason, .. }, Some(check)) => check
                .answer(&acc.content, acc.calls(), *finish_reason)
                .err(),
            _ => None,
        };
        let Some(fault) = fault else {
            return Ok(Collected {
                job,
                outcome,
                acc,
                dispatched,
                served,
            });
        };
        rejected(state, ctx, job.worker, fault);
        tried.push(job.worker);
        started = start(state, ctx, until, tried).await.map_err(|mut n| {
            if n.error.is_no_worker() {
                n.error = ApiError::invalid_structured_output();
            }
            n
        })?;
    }
}

/// Counts an answer that failed its check against its worker: a metric, the log (the worker's
/// id and the reason only), and a tab's record.
fn rejected(state: &AppState, ctx: &JobContext, worker: WorkerId, fault: Fault) {
    state.metrics.answer_rejected(worker);
    crate::workers::browser::answer_refused(state, worker);
    tracing::warn!(request_id = %ctx.request_id, worker_id = worker, reason = fault.as_str(), "a worker's structured answer failed the gateway's check");
}

/// Reserves the request's largest possible cost.
async fn take_hold(state: &AppState, ctx: &JobContext) -> Result<(), ApiError> {
    match state.store.hold(&ctx.hold, now_ms()).await? {
        HoldOutcome::Held => Ok(()),
        HoldOutcome::Insufficient { needed, available } => {
            Err(ApiError::insufficient_credits(needed, available))
        }
        HoldOutcome::KeyLimitExceeded {
            needed,
            limit,
            remaining,
            resets_at,
            ..
        } => Err(ApiError::key_limit_exceeded(
            needed, limit, remaining, resets_at,
        )),
    }
}

/// Answers a request that got no first event and ends its hold; a job still running is
/// stopped after the client has heard (the worker gets its cancel grace meanwhile), and its
/// hold ended after that.
async fn give_up(
    state: &AppState,
    ctx: &JobContext,
    not_started: NotStarted,
    ready: oneshot::Sender<Result<Answer, ApiError>>,
) {
    let NotStarted { error, running } = not_started;
    let Some(mut job) = running else {
        // Nothing runs: the hold ends before the client hears, so a balance read right after
        // the error already shows the credits free again.
        void(state, &ctx.request_id).await;
        let _ = ready.send(Err(error));
        return;
    };
    let _ = ready.send(Err(error));
    stop(state, &mut job).await;
    void(state, &ctx.request_id).await;
}

/// The JSON answer for a job collected whole: the route's body, or the error it ended with.
fn whole_answer(
    dispatched: Instant,
    outcome: &Outcome,
    acc: Whole,
    shape: &mut dyn Shape,
) -> Result<Answer, ApiError> {
    match outcome {
        Outcome::Done {
            finish_reason,
            priced,
        } => {
            shape.push(acc.into_piece());
            shape.push(Piece::Done {
                finish_reason: *finish_reason,
                usage: priced.billed(),
            });
            Ok(Answer {
                ready: Ready::Whole(shape.body()),
                worker_time: dispatched.elapsed(),
            })
        }
        Outcome::Failed { code, .. } => Err(ApiError::worker_failed(code)),
        Outcome::Rejected { .. } => Err(ApiError::invalid_structured_output()),
        // The client is gone (nobody reads this) or the deadline passed.
        Outcome::Cancelled { .. } => Err(ApiError::timeout()),
    }
}

/// When a request stops waiting: its client left, or its time ran out.
struct Until {
    cancel: CancellationToken,
    deadline: tokio::time::Instant,
}

enum Outcome {
    Done {
        finish_reason: FinishReason,
        priced: Priced,
    },
    /// The client went away or the deadline passed: the job was cancelled.
    Cancelled {
        delivered: u64,
    },
    Failed {
        code: ErrorCode,
        delivered: u64,
    },
    /// A streamed answer that ended but failed its check ([`Check`]): the worker's fault.
    Rejected {
        delivered: u64,
    },
}

/// The job's next event; `None` when the client left or the time ran out.
async fn next_event(job: &mut Job, until: &Until) -> Option<JobEvent> {
    tokio::select! {
        ev = job.events.recv() => Some(ev.unwrap_or(JobEvent::Failed { code: ErrorCode::WorkerLost, retryable: false })),
        _ = until.cancel.cancelled() => None,
        _ = tokio::time::sleep_until(until.deadline) => None,
    }
}

/// Gathers the job's deltas into one answer; a finished job's usage is held to its bounds.
async fn collect(
    state: &AppState,
    ctx: &JobContext,
    job: &mut Job,
    first: JobEvent,
    until: &Until,
) -> (Outcome, Whole) {
    let mut acc = Whole::default();
    let mut event = first;
    loop {
        match event {
            JobEvent::Delta {
                content,
                reasoning,
                tool_calls,
            } => acc.add(content, reasoning, tool_calls),
            JobEvent::Done {
                finish_reason,
                usage,
            } => {
                let done = Outcome::Done {
                    finish_reason,
                    priced: priced(state, ctx, job.worker, usage),
                };
                return (done, acc);
            }
            JobEvent::Failed { code, .. } => return (Outcome::Failed { code, delivered: 0 }, acc),
        }
        event = match next_event(job, until).await {
            Some(e) => e,
            None => return (Outcome::Cancelled { delivered: 0 }, acc),
        };
    }
}

/// A worker's event as a piece of the answer, with, for a finished job, its [`Priced`] usage.
fn piece(
    state: &AppState,
    ctx: &JobContext,
    worker: WorkerId,
    event: JobEvent,
) -> (Piece, Option<Priced>) {
    let piece = match event {
        JobEvent::Delta {
            content,
            reasoning,
            tool_calls,
        } => Piece::Delta {
            content,
            reasoning,
            tool_calls,
        },
        JobEvent::Done {
            finish_reason,
            usage,
        } => {
            let priced = priced(state, ctx, worker, usage);
            let piece = Piece::Done {
                finish_reason,
                usage: priced.billed(),
            };
            return (piece, Some(priced));
        }
        JobEvent::Failed { code, .. } => Piece::Failed(Failure::Worker(code)),
    };
    (piece, None)
}

/// A streamed answer on its way to the client.
struct Relay<'a> {
    state: &'a AppState,
    ctx: &'a JobContext,
    tx: mpsc::Sender<Bytes>,
    until: &'a Until,
}

impl Relay<'_> {
    /// Relays the job's pieces to the client in `shape` until it ends, fails, or the client
    /// stops reading; a structured answer is watched and judged at its end. `delivered`
    /// counts the deltas sent (billed when the worker cannot report its usage).
    async fn stream(
        &self,
        job: &mut Job,
        first: JobEvent,
        mut watch: Option<Watch<'_>>,
        shape: &mut dyn Shape,
    ) -> Outcome {
        let mut delivered = 0;
        let opening = shape.open();
        if !opening.is_empty() && !self.send(opening).await {
            return Outcome::Cancelled { delivered };
        }
        let mut event = first;
        loop {
            let (piece, priced) = piece(self.state, self.ctx, job.worker, event);
            match &piece {
                Piece::Delta {
                    content,
                    tool_calls,
                    ..
                } => {
                    if let Some(w) = &mut watch {
                        w.see(content.as_deref(), tool_calls.as_deref());
                    }
                }
                Piece::Done {
                    finish_reason,
                    usage,
                } => {
                    let priced = priced.expect("a Done piece comes priced");
                    let verdict = watch.take().map(|w| w.verdict(*finish_reason));
                    if let Some(Err(fault)) = verdict {
                        // Checked at its end: the stream ends as a failed one instead.
                        rejected(self.state, self.ctx, job.worker, fault);
                        let end = shape.push(Piece::Failed(Failure::Rejected));
                        let _ = self.tx.send(Bytes::from(end)).await;
                        let delivered = usage.output_tokens;
                        return Outcome::Rejected { delivered };
                    }
                    let done = Outcome::Done {
                        finish_reason: *finish_reason,
                        priced,
                    };
                    let _ = self.tx.send(Bytes::from(shape.push(piece))).await;
                    return done;
                }
                Piece::Failed(Failure::Worker(code)) => {
                    let failed = Outcome::Failed {
                        code: *code,
                        delivered,
                    };
                    let _ = self.tx.send(Bytes::from(shape.push(piece))).await;
                    return failed;
                }
                Piece::Failed(_) => unreachable!("a worker's event is never a gateway's failure"),
            }
            delivered += 1;
            if !self.send(shape.push(piece)).await {
                return Outcome::Cancelled { delivered };
            }
            event = match self.next(job, shape).await {
                Some(e) => e,
                None => return Outcome::Cancelled { delivered },
            };
        }
    }

    /// False when the client stopped reading.
    async fn send(&self, frame: Vec<u8>) -> bool {
        tokio::select! {
            sent = self.tx.send(Bytes::from(frame)) => sent.is_ok(),
            _ = self.tx.closed() => false,
        }
    }

    /// The job's next event; `None` when the client left or the time ran out (the client is
    /// then told, if it still reads).
    async fn next(&self, job: &mut Job, shape: &mut dyn Shape) -> Option<JobEvent> {
        tokio::select! {
            ev = next_event(job, self.until) => {
                if ev.is_none() && !self.until.cancel.is_cancelled() {
                    // The deadline passed: say so, or the stream would end like a dropped
                    // connection. Never blocks on a client that stopped reading.
                    let timeout = shape.push(Piece::Failed(Failure::Timeout));
                    let _ = self.tx.try_send(Bytes::from(timeout));
                }
                ev
            },
            _ = self.tx.closed() => None,
        }
    }
}

/// Ends the job and its hold exactly once, whatever happened, and keeps the request's record.
async fn finish(
    state: &AppState,
    ctx: &JobContext,
    (job, served): (&mut Job, Served),
    outcome: Outcome,
) {
    let finish_reason = match &outcome {
        Outcome::Done { finish_reason, .. } => Some(*finish_reason),
        _ => None,
    };
    let priced = match outcome {
        // Priced once, when the client was told what it costs.
        Outcome::Done { priced, .. } => Some(priced),
        Outcome::Cancelled { delivered } => {
            let reported = stop(state, job).await;
            let usage = reported.unwrap_or(JobUsage {
                completion_tokens: delivered,
                ..Default::default()
            });
            Some(priced(state, ctx, job.worker, usage))
        }
        // The service failed: only what reached the client is billed (output tokens delivered).
        Outcome::Failed { delivered, .. } | Outcome::Rejected { delivered } => (delivered > 0)
            .then(|| {
                let usage = JobUsage {
                    completion_tokens: delivered,
                    ..Default::default()
                };
                priced(state, ctx, job.worker, usage)
            }),
    };
    let now = now_ms();
    let result = match priced {
        Some(p) => {
            state
                .store
                .settle(&ctx.request_id, Some(&p.charge()), now)
                .await
        }
        None => state.store.void(&ctx.request_id, now).await,
    };
    let charged = match &result {
        Ok(SettleOutcome::Settled { charged, .. }) => *charged,
        _ => 0,
    };
    state
        .metrics
        .credits_charged
        .inc_by(u64::try_from(charged).expect("a settled charge is never negative"));
    if let Err(e) = result {
        tracing::error!(request_id = %ctx.request_id, error = %e, "settling a hold failed; the reaper will release it");
    }
    let usage = priced.map(|p| p.usage).unwrap_or_default();
    record(state, ctx, served, (usage, charged), finish_reason).await;
}

/// Keeps the request's record for `GET /generation` (no text, no worker, no key). A record
/// that cannot be written is logged and dropped: the answer and the ledger are unaffected.
async fn record(
    state: &AppState,
    ctx: &JobContext,
    served: Served,
    (usage, charged): (JobUsage, i64),
    finish_reason: Option<FinishReason>,
) {
    let millis = |d: Duration| i64::try_from(d.as_millis()).unwrap_or(i64::MAX);
    let tokens = |n: u64| i64::try_from(n).unwrap_or(i64::MAX);
    let generation = Generation {
        id: ctx.request_id.clone(),
        account_id: ctx.hold.account_id,
        created_at: now_ms() - millis(ctx.arrived.elapsed()),
        model: ctx.model.clone(),
        input_tokens: tokens(usage.prompt_tokens),
        output_tokens: tokens(usage.completion_tokens),
        credits: charged,
        latency_ms: millis(ctx.arrived.elapsed()),
        time_to_first_token_ms: Some(millis(
            served.first_at.saturating_duration_since(ctx.arrived),
        )),
        finish_reason,
        worker_kind: served.kind,
    };
    if let Err(e) = state.store.record_generation(&generation).await {
        tracing::warn!(request_id = %ctx.request_id, error = %e, "a request's record was not kept");
    }
}

/// Cancels a running job and waits (briefly) for the worker's final usage; a worker that
/// does not answer in time has its job forgotten, which frees the slot.
async fn stop(state: &AppState, job: &mut Job) -> Option<JobUsage> {
    state.pool.cancel(&job.id);
    // The worker answers a cancel with its usage so far.
    let reported = tokio::time::timeout(CANCEL_GRACE, async {
        loop {
            match job.events.recv().await {
                Some(JobEvent::Done { usage, .. }) => return Some(usage),
                Some(JobEvent::Delta { .. }) => continue,
                Some(JobEvent::Failed { .. }) | None => return None,
            }
        }
    })
    .await
    .ok()
    .flatten();
    if reported.is_none() {
        state.pool.abandon(&job.id);
    }
    reported
}

async fn void(state: &AppState, request_id: &str) {
    if let Err(e) = state.store.void(request_id, now_ms()).await {
        tracing::error!(request_id, error = %e, "voiding a hold failed; the reaper will release it");
    }
}

/// `usage` held to the job's bounds: no worker makes a caller pay for tokens that could not
/// exist. A cut is counted per worker and logged with the worker's id only.
fn bounded(state: &AppState, ctx: &JobContext, worker: WorkerId, mut usage: JobUsage) -> JobUsage {
    if ctx.bounds.clamp(&mut usage) {
        state.metrics.usage_clamped(worker);
        tracing::warn!(
            worker_id = worker,
            "a worker reported more tokens than the job could use; its usage was cut to the bounds"
        );
    }
    usage
}

/// A job's usage held to its bounds and priced: what the client is told it cost and what the
/// settle charges, computed once. (The hold is the price of the bounds, so the settle never
/// cuts this price.)
#[derive(Debug, Clone, Copy)]
struct Priced {
    usage: JobUsage,
    credits: i64,
}

impl Priced {
    fn billed(&self) -> Billed {
        Billed::new(self.usage, self.credits)
    }

    fn charge(&self) -> Charge {
        let tokens = |n: u64| i64::try_from(n).unwrap_or(i64::MAX);
        Charge {
            input_tokens: tokens(self.usage.prompt_tokens),
            output_tokens: tokens(self.usage.completion_tokens),
            reasoning_tokens: tokens(self.usage.reasoning_tokens),
            credits: self.credits,
        }
    }
}

fn priced(state: &AppState, ctx: &JobContext, worker: WorkerId, usage: JobUsage) -> Priced {
    let usage = bounded(state, ctx, worker, usage);
    let tokens = |n: u64| i64::try_from(n).unwrap_or(i64::MAX);
    let credits = (state.config.rate_card)
        .credits(tokens(usage.prompt_tokens), tokens(usage.completion_tokens));
    Priced { usage, credits }
}
