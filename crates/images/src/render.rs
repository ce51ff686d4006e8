//! Running one image job: hold 10 credits, dispatch to an image worker (another one if it
//! fails), wait for the PNG, pass it through the output check, then settle, or void the hold
//! on any failure, exactly once.
//!
//! The job is driven by its own task, so a client that goes away (the handler's future is
//! dropped) still gets its job cancelled and its hold voided at once.

use std::time::{Duration, Instant};

use base64::Engine as _;
use shoal_protocol::worker::{ErrorCode, ImageJobRequest};
use shoal_store::money::IMAGE_CREDITS;
use shoal_store::{Charge, HoldOutcome, HoldRequest, SettleOutcome};
use tokio::sync::{oneshot, watch};
use tokio_util::sync::CancellationToken;

use shoal_gateway::now_ms;
use shoal_gateway::pool::{DispatchError, ImageEvent, ImageJob, WorkerId};
use shoal_gateway::ApiError;

use crate::check::{Asked, Verdict};
use crate::Images;

/// How many workers an image job is offered to before it gives up.
const MAX_ATTEMPTS: usize = 3;
/// How long a cancelled job's worker gets to report its end before its slot is reclaimed.
const CANCEL_GRACE: Duration = Duration::from_secs(5);

/// `step` of `steps` sampling steps done.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Progress {
    pub step: u32,
    pub steps: u32,
}

/// Everything about one admitted image request that the driver needs.
pub struct ImageContext {
    pub request_id: String,
    pub account_id: shoal_store::AccountId,
    /// Free daily credits the request may spend (0 for an API key).
    pub free_daily: i64,
    /// The API key (`None`: the dashboard's session), for usage by key.
    pub key_id: Option<shoal_store::KeyId>,
    pub job: ImageJobRequest,
    pub nsfw: bool,
    /// Where the worker's progress goes, for a caller that shows it.
    pub progress: Option<watch::Sender<Progress>>,
}

/// A rendered image that passed the output check.
#[derive(Debug)]
pub struct Rendered {
    /// The PNG as the worker sent it: standard base64, checked to decode.
    pub png_base64: String,
    pub model: String,
    /// From dispatch to the image's arrival: the part of the latency that is the render.
    pub worker_time: Duration,
}

/// Why a request ended without an image, as a metrics label.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Failure {
    InsufficientCredits,
    NoWorker,
    Busy,
    WorkerFailed,
    /// The image worker's own prompt check refused the prompt before rendering.
    PromptRefused,
    OutputWithheld,
    NsfwOutputBlocked,
    AbsoluteLine,
    CheckUnavailable,
    Timeout,
    Cancelled,
    Internal,
}

impl Failure {
    pub const fn label(self) -> &'static str {
        match self {
            Failure::InsufficientCredits => "insufficient_credits",
            Failure::NoWorker => "no_worker",
            Failure::Busy => "busy",
            Failure::WorkerFailed => "worker_failed",
            Failure::PromptRefused => "prompt_refused",
            Failure::OutputWithheld => "output_withheld",
            Failure::NsfwOutputBlocked => "nsfw_output_blocked",
            Failure::AbsoluteLine => "output_absolute_line",
            Failure::CheckUnavailable => "check_unavailable",
            Failure::Timeout => "timeout",
            Failure::Cancelled => "cancelled",
            Failure::Internal => "internal",
        }
    }
}

type Answer = Result<Rendered, (Failure, ApiError)>;

/// Holds, renders and settles; a hold once taken is always ended.
pub async fn run(state: Images, ctx: ImageContext) -> Answer {
    let cancel = CancellationToken::new();
    // Dropped with the handler's future when the client goes away.
    let guard = cancel.clone().drop_guard();
    let (ready_tx, ready_rx) = oneshot::channel();
    tokio::spawn(drive(state, ctx, cancel, ready_tx));
    let answer = ready_rx
        .await
        .unwrap_or_else(|_| Err((Failure::Internal, ApiError::internal())));
    guard.disarm();
    answer
}

async fn drive(
    state: Images,
    ctx: ImageContext,
    cancel: CancellationToken,
    ready: oneshot::Sender<Answer>,
) {
    let now = now_ms();
    let hold = HoldRequest {
        request_id: ctx.request_id.clone(),
        account_id: ctx.account_id,
        credits: IMAGE_CREDITS,
        model: "image".into(),
        expires_at: now + state.app.config.hold_ttl.as_millis() as i64,
        free_daily: ctx.free_daily,
        key_id: ctx.key_id,
    };
    // Not cancellable: once written, the hold must be ended below.
    match state.app.store.hold(&hold, now).await {
        Ok(HoldOutcome::Held) => {}
        Ok(HoldOutcome::Insufficient { needed, available }) => {
            let e = ApiError::insufficient_credits(needed, available);
            let _ = ready.send(Err((Failure::InsufficientCredits, e)));
            return;
        }
        Ok(HoldOutcome::KeyLimitExceeded {
            needed,
            limit,
            remaining,
            resets_at,
            ..
        }) => {
            let e = ApiError::key_limit_exceeded(needed, limit, remaining, resets_at);
            let _ = ready.send(Err((Failure::InsufficientCredits, e)));
            return;
        }
        Err(e) => {
            let _ = ready.send(Err((Failure::Internal, e.into())));
            return;
        }
    }
    let rendered = render(&state, &ctx, &cancel).await;
    match rendered {
        Ok(r) if !cancel.is_cancelled() => {
            settle(&state, &ctx.request_id).await;
            let _ = ready.send(Ok(r));
        }
        Ok(_) => {
            void(&state, &ctx.request_id).await;
            let _ = ready.send(Err((Failure::Cancelled, ApiError::internal())));
        }
        Err(failed) => {
            void(&state, &ctx.request_id).await;
            let _ = ready.send(Err(failed));
        }
    }
}

/// Dispatches until a worker returns an image that passes the check, or gives up.
async fn render(
    state: &Images,
    ctx: &ImageContext,
    cancel: &CancellationToken,
) -> Result<Rendered, (Failure, ApiError)> {
    let deadline = tokio::time::Instant::now() + state.app.config.request_timeout;
    let mut tried: Vec<WorkerId> = Vec::new();
    for _ in 0..MAX_ATTEMPTS {
        let Some(job) = dispatch(state, ctx, cancel, &tried).await? else {
            break;
        };
        // Step 0: the hold is taken and a worker has the job (a streamed answer starts here).
        if let Some(tx) = &ctx.progress {
            tx.send_replace(Progress {
                step: 0,
                steps: ctx.job.steps,
            });
        }
        let worker = job.worker;
        if let Some(rendered) = attempt(state, ctx, job, cancel, deadline).await? {
            return Ok(rendered);
        }
        tried.push(worker);
    }
    Err((
        Failure::WorkerFailed,
        ApiError::worker_failed(&shoal_protocol::worker::ErrorCode::WorkerLost),
    ))
}

/// Hands the job to an image worker not tried yet; `None` when none is left to try.
async fn dispatch(
    state: &Images,
    ctx: &ImageContext,
    cancel: &CancellationToken,
    tried: &[WorkerId],
) -> Result<Option<ImageJob>, (Failure, ApiError)> {
    let dispatched = tokio::select! {
        d = state.app.pool.dispatch_image(&ctx.job, tried) => d,
        _ = cancel.cancelled() => return Err((Failure::Cancelled, ApiError::internal())),
    };
    match dispatched {
        Ok(job) => Ok(Some(job)),
        Err(DispatchError::NoWorker) if tried.is_empty() => Err((
            Failure::NoWorker,
            ApiError::no_worker("no image worker is online; retry shortly"),
        )),
        Err(DispatchError::NoWorker) => Ok(None),
        Err(DispatchError::Busy) => Err((
            Failure::Busy,
            ApiError::no_worker("every image worker is busy; retry shortly"),
        )),
    }
}

/// One worker's try: its image when it passes the check; `None` when another worker may
/// try (a malformed image, a retryable failure).
async fn attempt(
    state: &Images,
    ctx: &ImageContext,
    mut job: ImageJob,
    cancel: &CancellationToken,
    deadline: tokio::time::Instant,
) -> Result<Option<Rendered>, (Failure, ApiError)> {
    let started = Instant::now();
    match wait(state, ctx, &mut job, cancel, deadline).await {
        Attempt::Image(png_base64) => match inspect(state, ctx, png_base64).await {
            (Verdict::Pass, png_base64) => Ok(Some(Rendered {
                png_base64,
                model: job.model,
                worker_time: started.elapsed(),
            })),
            (Verdict::Malformed, _) => {
                tracing::warn!(request_id = %ctx.request_id, job = %job.id, "image worker returned a malformed image; trying another");
                Ok(None)
            }
            (refused, _) => Err(refusal(state, refused)),
        },
        Attempt::Failed {
            code: ErrorCode::PromptRefused,
            ..
        } => Err((
            Failure::PromptRefused,
            ApiError::content_policy_violation(
                "the prompt was blocked by the content policy; nothing was charged",
            ),
        )),
        Attempt::Failed { code, retryable } => {
            tracing::warn!(request_id = %ctx.request_id, job = %job.id, %code, retryable, "image job failed");
            if retryable {
                Ok(None)
            } else {
                Err((Failure::WorkerFailed, ApiError::worker_failed(&code)))
            }
        }
        Attempt::Stopped { timed_out } => {
            stop(state, job);
            Err(if timed_out {
                (Failure::Timeout, ApiError::timeout())
            } else {
                (Failure::Cancelled, ApiError::internal())
            })
        }
    }
}

/// The answer for an image the output check did not pass. The image is dropped by the
/// caller; nothing of it is logged or counted beyond the rule.
fn refusal(state: &Images, verdict: Verdict) -> (Failure, ApiError) {
    let blocked = |rule: &'static str| {
        let labels = crate::metrics::RuleLabels { rule };
        state.metrics.outputs_blocked.get_or_create(&labels).inc();
    };
    match verdict {
        Verdict::AdultInSfw => {
            blocked("adult");
            (Failure::NsfwOutputBlocked, ApiError::nsfw_output_blocked())
        }
        Verdict::MinorWithAdult | Verdict::MinorInNsfw => {
            blocked(if verdict == Verdict::MinorInNsfw {
                "minor_in_nsfw"
            } else {
                "minor_with_adult"
            });
            let message =
                "the generated image was withheld by the output check; nothing was charged";
            (
                Failure::AbsoluteLine,
                ApiError::content_policy_violation(message),
            )
        }
        Verdict::Unavailable => (
            Failure::CheckUnavailable,
            ApiError::output_check_unavailable(
                "the image output check could not run on the generated image; nothing was charged",
            ),
        ),
        Verdict::Withheld | Verdict::Pass | Verdict::Malformed => (
            Failure::OutputWithheld,
            ApiError::content_policy_violation(
                "the generated image was withheld by the output check; the hold was released",
            ),
        ),
    }
}

enum Attempt {
    Image(String),
    Failed {
        code: shoal_protocol::worker::ErrorCode,
        retryable: bool,
    },
    /// Cancelled by the client leaving, or past the deadline.
    Stopped {
        timed_out: bool,
    },
}

/// Waits for one job's end, passing its progress on.
async fn wait(
    state: &Images,
    ctx: &ImageContext,
    job: &mut ImageJob,
    cancel: &CancellationToken,
    deadline: tokio::time::Instant,
) -> Attempt {
    loop {
        let event = tokio::select! {
            ev = job.events.recv() => ev,
            _ = cancel.cancelled() => return Attempt::Stopped { timed_out: false },
            _ = tokio::time::sleep_until(deadline) => return Attempt::Stopped { timed_out: true },
        };
        match event {
            Some(ImageEvent::Progress { step, steps }) => {
                state.metrics.steps.inc();
                if let Some(tx) = &ctx.progress {
                    tx.send_replace(Progress { step, steps });
                }
            }
            Some(ImageEvent::Image { png_base64 }) => return Attempt::Image(png_base64),
            Some(ImageEvent::Failed { code, retryable }) => {
                return Attempt::Failed { code, retryable }
            }
            None => {
                return Attempt::Failed {
                    code: shoal_protocol::worker::ErrorCode::WorkerLost,
                    retryable: true,
                }
            }
        }
    }
}

/// Decodes the worker's base64 and runs the output check on the PNG, on a blocking thread:
/// decoding MBs (and a classifier) must not stall the runtime that serves chat.
async fn inspect(state: &Images, ctx: &ImageContext, png_base64: String) -> (Verdict, String) {
    let check = std::sync::Arc::clone(&state.check);
    let asked = Asked {
        width: ctx.job.width,
        height: ctx.job.height,
        nsfw: ctx.nsfw,
    };
    let started = Instant::now();
    let judged = tokio::task::spawn_blocking(move || {
        let verdict = match base64::engine::general_purpose::STANDARD.decode(&png_base64) {
            Ok(png) => check.check(&png, asked),
            Err(_) => Verdict::Malformed,
        };
        (verdict, png_base64)
    })
    .await;
    state
        .metrics
        .check_seconds
        .observe(started.elapsed().as_secs_f64());
    judged.unwrap_or_else(|_| (Verdict::Unavailable, String::new()))
}

/// Cancels a job whose result is no longer wanted; its slot frees when the worker reports
/// the end, or after a grace period if it never does.
fn stop(state: &Images, mut job: ImageJob) {
    state.app.pool.cancel(&job.id);
    let state = state.clone();
    tokio::spawn(async move {
        let ended = tokio::time::timeout(CANCEL_GRACE, async {
            while let Some(event) = job.events.recv().await {
                if !matches!(event, ImageEvent::Progress { .. }) {
                    return;
                }
            }
        })
        .await;
        if ended.is_err() {
            state.app.pool.abandon(&job.id);
        }
    });
}

async fn settle(state: &Images, request_id: &str) {
    let charge = Charge {
        input_tokens: 0,
        output_tokens: 0,
        reasoning_tokens: 0,
        credits: IMAGE_CREDITS,
    };
    match state
        .app
        .store
        .settle(request_id, Some(&charge), now_ms())
        .await
    {
        Ok(SettleOutcome::Settled { charged, .. }) => {
            let charged = u64::try_from(charged).expect("a settled charge is never negative");
            state.app.metrics.credits_charged.inc_by(charged);
        }
        Ok(_) => {}
        Err(e) => {
            tracing::error!(request_id, error = %e, "settling an image hold failed; the reaper will release it")
        }
    }
}

async fn void(state: &Images, request_id: &str) {
    if let Err(e) = state.app.store.void(request_id, now_ms()).await {
        tracing::error!(request_id, error = %e, "voiding an image hold failed; the reaper will release it");
    }
}
