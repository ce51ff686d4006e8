//! Running one chat job: dispatch with invisible failover before the first token, then relay
//! the worker's events to the client (one JSON body, or SSE chunks), then settle the hold.
//!
//! The job is driven by its own task, so a client that goes away (the handler's future is
//! dropped) still gets its job cancelled and its hold settled for what was generated.

use std::time::{Duration, Instant};

use axum::body::{Body, Bytes};
use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use shoal_protocol::chat::{
    ChatCompletion, ChatCompletionChunk, Choice, ChunkChoice, CompletionTokensDetails, Delta,
    FunctionCall, ResponseMessage, Role, ToolCall, ToolCallDelta, ToolType, Usage,
};
use shoal_protocol::worker::{ErrorCode, FinishReason, JobRequest, JobUsage};
use shoal_store::{Charge, HoldOutcome, HoldRequest};
use tokio::sync::{mpsc, oneshot};
use tokio_util::sync::CancellationToken;

use crate::error::ApiError;
use crate::pool::{DispatchError, Job, JobEvent, WorkerId};
use crate::pricing::UsageBounds;
use crate::{now_ms, AppState};

/// How many workers a request is offered to before it gives up.
const MAX_ATTEMPTS: usize = 3;
/// Tool calls one response may carry; deltas with a larger index are dropped.
const MAX_TOOL_CALLS: usize = 128;
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
    pub created: i64,
    pub stream: bool,
    pub include_usage: bool,
    /// What the worker's usage report is held to.
    pub bounds: UsageBounds,
    pub job: JobRequest,
}

/// Holds, dispatches the job and answers the client; a hold once taken is always ended.
pub async fn run(state: AppState, ctx: JobContext) -> Response {
    let cancel = CancellationToken::new();
    // Dropped with the handler's future when the client goes away.
    let guard = cancel.clone().drop_guard();
    let (ready_tx, ready_rx) = oneshot::channel::<Result<Answer, ApiError>>();
    let arrived = ctx.arrived;
    tokio::spawn(drive(state.clone(), ctx, cancel, ready_tx));
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
    cancel: &CancellationToken,
    deadline: tokio::time::Instant,
) -> Result<(Job, JobEvent, Instant), NotStarted> {
    let mut tried: Vec<WorkerId> = Vec::new();
    for _ in 0..MAX_ATTEMPTS {
        let dispatched = tokio::select! {
            d = crate::swarm::dispatch(state, &ctx.model, &ctx.job, &tried) => d,
            _ = cancel.cancelled() => return Err(ApiError::internal().into()),
            _ = tokio::time::sleep_until(deadline) => return Err(ApiError::timeout().into()),
        };
        let mut job = match dispatched {
            Ok(job) => job,
            Err(DispatchError::NoWorker) if tried.is_empty() => {
                return Err(ApiError::no_worker(
                    "no worker serving this model is online; retry shortly",
                )
                .into())
            }
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
                tried.push(job.worker);
            }
            None => tried.push(job.worker),
            Some(JobEvent::Failed { code, .. }) => return Err(worker_refused(&code).into()),
            Some(first) => return Ok((job, first, dispatched)),
        }
    }
    Err(ApiError::no_worker("the workers serving this model failed; retry shortly").into())
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

/// What the client has been sent, for billing when the worker can't report usage.
#[derive(Default)]
struct Delivered {
    deltas: u64,
}

async fn drive(
    state: AppState,
    ctx: JobContext,
    cancel: CancellationToken,
    ready: oneshot::Sender<Result<Answer, ApiError>>,
) {
    // Not cancellable: once the hold is written it must be ended, so this task outlives a
    // client that goes away meanwhile (the select below then voids it).
    match state.store.hold(&ctx.hold, now_ms()).await {
        Ok(HoldOutcome::Held) => {}
        Ok(HoldOutcome::Insufficient { needed, available }) => {
            let _ = ready.send(Err(ApiError::insufficient_credits(needed, available)));
            return;
        }
        Err(e) => {
            let _ = ready.send(Err(e.into()));
            return;
        }
    }
    // One limit for the whole request, queueing and a silent worker included.
    let deadline = tokio::time::Instant::from_std(ctx.arrived) + state.config.request_timeout;
    let (mut job, first, dispatched) = match start(&state, &ctx, &cancel, deadline).await {
        Ok(v) => v,
        Err(NotStarted {
            error,
            running: None,
        }) => {
            void(&state, &ctx.request_id).await;
            let _ = ready.send(Err(error));
            return;
        }
        // The client hears at once; the worker gets its cancel grace meanwhile.
        Err(NotStarted {
            error,
            running: Some(mut job),
        }) => {
            let _ = ready.send(Err(error));
            stop(&state, &mut job).await;
            void(&state, &ctx.request_id).await;
            return;
        }
    };
    let outcome = if ctx.stream {
        let (tx, rx) = mpsc::channel::<Bytes>(64);
        let answer = Answer {
            ready: Ready::Stream(rx),
            worker_time: dispatched.elapsed(),
        };
        if ready.send(Ok(answer)).is_err() {
            cancel.cancel();
        }
        relay_stream(&state, &ctx, &mut job, first, tx, &cancel, deadline).await
    } else {
        let mut acc = Accumulator::default();
        let mut outcome = collect(&mut job, first, &mut acc, &cancel, deadline).await;
        if let Outcome::Done { usage, .. } = &mut outcome {
            *usage = bounded(&state, &ctx, job.worker, *usage);
        }
        if let Outcome::Done {
            finish_reason,
            usage,
        } = &outcome
        {
            let worker_time = dispatched.elapsed();
            let body = acc.into_completion(&ctx, finish_reason, usage);
            let _ = ready.send(Ok(Answer {
                ready: Ready::Whole(body),
                worker_time,
            }));
        } else if let Outcome::Failed { code, .. } = &outcome {
            let _ = ready.send(Err(ApiError::worker_failed(code)));
        } else {
            // The client is gone (nobody reads this) or the deadline passed.
            let _ = ready.send(Err(ApiError::timeout()));
        }
        outcome
    };
    finish(&state, &ctx, &mut job, outcome).await;
}

enum Outcome {
    Done {
        finish_reason: FinishReason,
        usage: JobUsage,
    },
    /// The client went away or the deadline passed: the job was cancelled.
    Cancelled {
        delivered: u64,
    },
    Failed {
        code: ErrorCode,
        delivered: u64,
    },
}

async fn next_event(
    job: &mut Job,
    cancel: &CancellationToken,
    deadline: tokio::time::Instant,
) -> Option<JobEvent> {
    tokio::select! {
        ev = job.events.recv() => Some(ev.unwrap_or(JobEvent::Failed { code: ErrorCode::WorkerLost, retryable: false })),
        _ = cancel.cancelled() => None,
        _ = tokio::time::sleep_until(deadline) => None,
    }
}

async fn collect(
    job: &mut Job,
    first: JobEvent,
    acc: &mut Accumulator,
    cancel: &CancellationToken,
    deadline: tokio::time::Instant,
) -> Outcome {
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
                return Outcome::Done {
                    finish_reason,
                    usage,
                }
            }
            JobEvent::Failed { code, .. } => return Outcome::Failed { code, delivered: 0 },
        }
        event = match next_event(job, cancel, deadline).await {
            Some(e) => e,
            None => return Outcome::Cancelled { delivered: 0 },
        };
    }
}

fn sse(json: &impl serde::Serialize) -> Bytes {
    let mut buf = Vec::with_capacity(256);
    buf.extend_from_slice(b"data: ");
    serde_json::to_writer(&mut buf, json).expect("chunks serialize");
    buf.extend_from_slice(b"\n\n");
    Bytes::from(buf)
}

/// The SSE event that ends a stream that cannot complete.
fn error_event(message: &str, code: &str) -> Bytes {
    sse(&serde_json::json!({"error": {
        "message": message,
        "type": "server_error",
        "code": code,
    }}))
}

#[allow(clippy::too_many_arguments)]
async fn relay_stream(
    state: &AppState,
    ctx: &JobContext,
    job: &mut Job,
    first: JobEvent,
    tx: mpsc::Sender<Bytes>,
    cancel: &CancellationToken,
    deadline: tokio::time::Instant,
) -> Outcome {
    let chunk = |delta: Delta, finish_reason: Option<FinishReason>| ChatCompletionChunk {
        id: ctx.request_id.clone(),
        object: "chat.completion.chunk".into(),
        created: ctx.created,
        model: ctx.model.clone(),
        choices: vec![ChunkChoice {
            index: 0,
            delta,
            finish_reason,
            logprobs: None,
        }],
        usage: None,
    };
    let mut delivered = Delivered::default();
    let mut sent_role = false;
    let mut event = first;
    loop {
        let frame = match event {
            JobEvent::Delta {
                content,
                reasoning,
                tool_calls,
            } => {
                let role = (!sent_role).then_some(Role::Assistant);
                sent_role = true;
                delivered.deltas += 1;
                sse(&chunk(
                    Delta {
                        role,
                        content,
                        reasoning_content: reasoning,
                        tool_calls,
                    },
                    None,
                ))
            }
            JobEvent::Done {
                finish_reason,
                usage,
            } => {
                let usage = bounded(state, ctx, job.worker, usage);
                let mut tail = Vec::new();
                if !sent_role {
                    tail.extend_from_slice(&sse(&chunk(
                        Delta {
                            role: Some(Role::Assistant),
                            content: Some(String::new()),
                            ..Default::default()
                        },
                        None,
                    )));
                }
                tail.extend_from_slice(&sse(&chunk(Delta::default(), Some(finish_reason))));
                if ctx.include_usage {
                    let mut c = chunk(Delta::default(), None);
                    c.choices.clear();
                    c.usage = Some(usage_block(&usage));
                    tail.extend_from_slice(&sse(&c));
                }
                tail.extend_from_slice(b"data: [DONE]\n\n");
                let _ = tx.send(Bytes::from(tail)).await;
                return Outcome::Done {
                    finish_reason,
                    usage,
                };
            }
            JobEvent::Failed { code, .. } => {
                let body = error_event(
                    "the worker failed mid-stream; the response is incomplete and only what was delivered is billed",
                    code.as_str(),
                );
                let _ = tx.send(body).await;
                return Outcome::Failed {
                    code,
                    delivered: delivered.deltas,
                };
            }
        };
        tokio::select! {
            sent = tx.send(frame) => if sent.is_err() {
                return Outcome::Cancelled { delivered: delivered.deltas };
            },
            _ = tx.closed() => return Outcome::Cancelled { delivered: delivered.deltas },
        }
        event = tokio::select! {
            ev = next_event(job, cancel, deadline) => match ev {
                Some(e) => e,
                None => {
                    if !cancel.is_cancelled() {
                        // The deadline passed: say so, or the stream would end like a dropped
                        // connection. Never blocks on a client that stopped reading.
                        let _ = tx.try_send(error_event(
                            "the request ran past the gateway's time limit; the response is incomplete and only what was delivered is billed",
                            "timeout",
                        ));
                    }
                    return Outcome::Cancelled { delivered: delivered.deltas };
                }
            },
            _ = tx.closed() => return Outcome::Cancelled { delivered: delivered.deltas },
        };
    }
}

/// Ends the job and its hold exactly once, whatever happened.
async fn finish(state: &AppState, ctx: &JobContext, job: &mut Job, outcome: Outcome) {
    let usage = match outcome {
        Outcome::Done { usage, .. } => Some(usage),
        Outcome::Cancelled { delivered } => {
            let reported = stop(state, job).await;
            Some(reported.unwrap_or(JobUsage {
                completion_tokens: delivered,
                ..Default::default()
            }))
        }
        // The service failed: only what reached the client is billed (output tokens delivered).
        Outcome::Failed { delivered, .. } => (delivered > 0).then_some(JobUsage {
            completion_tokens: delivered,
            ..Default::default()
        }),
    };
    // A finished job's usage is already within its bounds (the client was told it).
    let charge =
        usage.map(|u| charge_for(&state.config.rate_card, &bounded(state, ctx, job.worker, u)));
    let now = now_ms();
    let result = match charge {
        Some(c) => state.store.settle(&ctx.request_id, Some(&c), now).await,
        None => state.store.void(&ctx.request_id, now).await,
    };
    if let Ok(shoal_store::SettleOutcome::Settled { charged, .. }) = &result {
        state
            .metrics
            .credits_charged
            .inc_by(u64::try_from(*charged).unwrap_or(0));
    }
    if let Err(e) = result {
        tracing::error!(request_id = %ctx.request_id, error = %e, "settling a hold failed; the reaper will release it");
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

fn charge_for(card: &shoal_store::money::RateCard, usage: &JobUsage) -> Charge {
    let input = i64::try_from(usage.prompt_tokens).unwrap_or(i64::MAX);
    let output = i64::try_from(usage.completion_tokens).unwrap_or(i64::MAX);
    Charge {
        input_tokens: input,
        output_tokens: output,
        reasoning_tokens: i64::try_from(usage.reasoning_tokens).unwrap_or(i64::MAX),
        credits: card.credits(input, output),
    }
}

fn usage_block(u: &JobUsage) -> Usage {
    Usage {
        prompt_tokens: u.prompt_tokens,
        completion_tokens: u.completion_tokens,
        total_tokens: u.prompt_tokens + u.completion_tokens,
        completion_tokens_details: Some(CompletionTokensDetails {
            reasoning_tokens: u.reasoning_tokens,
        }),
    }
}

/// Builds a whole response out of deltas.
#[derive(Default)]
struct Accumulator {
    content: String,
    reasoning: String,
    tool_calls: Vec<ToolCall>,
}

impl Accumulator {
    fn add(
        &mut self,
        content: Option<String>,
        reasoning: Option<String>,
        tool_calls: Option<Vec<ToolCallDelta>>,
    ) {
        if let Some(c) = content {
            self.content.push_str(&c);
        }
        if let Some(r) = reasoning {
            self.reasoning.push_str(&r);
        }
        for d in tool_calls.into_iter().flatten() {
            let i = d.index as usize;
            if i >= MAX_TOOL_CALLS {
                // A worker can't make the gateway allocate without bound.
                continue;
            }
            while self.tool_calls.len() <= i {
                self.tool_calls.push(ToolCall {
                    id: String::new(),
                    r#type: ToolType::Function,
                    function: FunctionCall {
                        name: String::new(),
                        arguments: String::new(),
                    },
                });
            }
            let call = &mut self.tool_calls[i];
            if let Some(id) = d.id {
                call.id = id;
            }
            if let Some(f) = d.function {
                if let Some(name) = f.name {
                    call.function.name.push_str(&name);
                }
                if let Some(args) = f.arguments {
                    call.function.arguments.push_str(&args);
                }
            }
        }
    }

    fn into_completion(
        self,
        ctx: &JobContext,
        finish_reason: &FinishReason,
        usage: &JobUsage,
    ) -> Vec<u8> {
        let has_tools = !self.tool_calls.is_empty();
        let message = ResponseMessage {
            role: Role::Assistant,
            content: if self.content.is_empty() && has_tools {
                None
            } else {
                Some(self.content)
            },
            tool_calls: has_tools.then_some(self.tool_calls),
            reasoning_content: (!self.reasoning.is_empty()).then_some(self.reasoning),
        };
        let completion = ChatCompletion {
            id: ctx.request_id.clone(),
            object: "chat.completion".into(),
            created: ctx.created,
            model: ctx.model.clone(),
            choices: vec![Choice {
                index: 0,
                message,
                finish_reason: Some(*finish_reason),
                logprobs: None,
            }],
            usage: usage_block(usage),
        };
        serde_json::to_vec(&completion).expect("completions serialize")
    }
}
