//! The tabs (`kind: browser` workers) as the gateway sees them ([`BrowserPool`], its
//! `BrowserWorkers` seam): a chat job turned into a ready prompt and a tab's raw text into the
//! events the relay expects, and the rules for trusting tabs.
//!
//! The gateway renders the prompt and counts every token itself with the model file's own
//! vocabulary ([`BrowserModels`], `engine::Models`), so a tab's usage claims are never billed.
//! A tab that sends what no honest tab sends, or stalls past the step deadline, is dropped and
//! its token refused for [`BAN`].

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use shoal_gateway::pool::{JobEvent, WorkerId};
use shoal_gateway::{AppState, BrowserWorkers, Tab, Verdict};
use shoal_protocol::worker::{
    ErrorCode, FinishReason, GatewayMessage, JobRequest, JobUsage, PromptParams, WorkerMessage,
};

/// How long a dropped tab's token is refused.
pub const BAN: Duration = Duration::from_secs(10 * 60);
/// A tab that lets a job go this long without a token is dropped (its jobs fail over, or end
/// with an error event after their first token).
pub const STEP_DEADLINE: Duration = Duration::from_secs(30);

/// A prompt ready for a tab.
pub struct Prompt {
    pub text: String,
    pub params: PromptParams,
}

/// The model files the page offers, and what the gateway does with their vocabularies.
pub trait BrowserModels: Send + Sync + 'static {
    /// Whether a tab that loaded `variant` can be served.
    fn knows(&self, variant: &str) -> bool;
    /// Renders `request` for a tab running `variant`, or says why it cannot run there.
    fn start(
        &self,
        variant: &str,
        request: &JobRequest,
    ) -> Result<(Prompt, Box<dyn BrowserJob>), ErrorCode>;
    /// The worker page, its assets and the model files, mounted beside the API.
    fn routes(&self) -> axum::Router;
}

/// One job's output side: the tab's raw text in, the relay's events out, counted.
pub trait BrowserJob: Send {
    /// Parses more of the tab's text (reasoning, tool calls) into delta events.
    fn push(&mut self, text: &str) -> Vec<JobEvent>;
    /// The last events, or why the answer is refused (a forced `tool_choice` the answer did
    /// not obey); the usage counted by the gateway: the rendered prompt's tokens and the
    /// answer's tokens under the model's vocabulary; `tool_calls` when the answer made any.
    fn finish(&mut self) -> (Result<Vec<JobEvent>, ErrorCode>, JobUsage, bool);
}

/// Shared by every browser connection: the models, the refused tokens, measured speeds.
pub struct BrowserPool {
    pub models: Arc<dyn BrowserModels>,
    banned: Mutex<HashMap<i64, Instant>>,
    speeds: Mutex<HashMap<WorkerId, WorkerRecord>>,
}

/// What the gateway measured of one tab.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct WorkerRecord {
    pub jobs: u64,
    /// Completion tokens per second between its first and last token, averaged over the jobs
    /// that had more than one token (`measured`).
    pub tokens_per_second: f64,
    pub measured: u64,
    /// When its jobs failed (an error from the tab, an answer the gateway refused), for
    /// [`FAILURE_MEMORY`].
    pub failures: Vec<Instant>,
}

/// How long a failed job counts against a tab when jobs are handed out.
pub const FAILURE_MEMORY: Duration = Duration::from_secs(10 * 60);

impl WorkerRecord {
    /// Failures within [`FAILURE_MEMORY`] of `now`.
    pub fn recent_failures(&self, now: Instant) -> usize {
        (self.failures.iter())
            .filter(|t| now.duration_since(**t) < FAILURE_MEMORY)
            .count()
    }

    /// The tab's rank among equally loaded workers (`Pool::set_preference`):
    /// fewer recent failures first, then the faster measured speed. A tab not measured yet
    /// ranks above measured ones with as many failures, so that every tab gets measured.
    pub fn preference(&self, now: Instant) -> u64 {
        let failures = self.recent_failures(now).min(0xffff) as u64;
        let speed = if self.measured == 0 {
            u64::from(u32::MAX)
        } else {
            // Hundredths of a token per second.
            (self.tokens_per_second * 100.0).clamp(0.0, f64::from(u32::MAX - 1)) as u64
        };
        ((0xffff - failures) << 32) | speed
    }
}

impl BrowserPool {
    pub fn new(models: Arc<dyn BrowserModels>) -> Self {
        Self {
            models,
            banned: Mutex::default(),
            speeds: Mutex::default(),
        }
    }

    /// Whether worker token `token_id` is refused now.
    pub fn is_banned(&self, token_id: i64) -> bool {
        let mut banned = self.banned.lock().unwrap_or_else(|e| e.into_inner());
        banned.retain(|_, until| *until > Instant::now());
        banned.contains_key(&token_id)
    }

    fn ban(&self, token_id: i64) {
        let mut banned = self.banned.lock().unwrap_or_else(|e| e.into_inner());
        banned.insert(token_id, Instant::now() + BAN);
    }

    /// The gateway's own measure of a connected tab.
    pub fn record(&self, worker: WorkerId) -> Option<WorkerRecord> {
        let speeds = self.speeds.lock().unwrap_or_else(|e| e.into_inner());
        speeds.get(&worker).cloned()
    }

    /// Updates `worker`'s record with `change`; its new rank for the pool.
    fn update(&self, worker: WorkerId, change: impl FnOnce(&mut WorkerRecord)) -> u64 {
        let mut speeds = self.speeds.lock().unwrap_or_else(|e| e.into_inner());
        let r = speeds.entry(worker).or_default();
        change(r);
        let now = Instant::now();
        r.failures
            .retain(|t| now.duration_since(*t) < FAILURE_MEMORY);
        r.preference(now)
    }

    /// A job that ended: `tokens` completion tokens in `took` from the first to the last.
    fn measured(&self, worker: WorkerId, tokens: u64, took: Duration) -> u64 {
        self.update(worker, |r| {
            r.jobs += 1;
            if tokens > 1 && !took.is_zero() {
                let rate = (tokens - 1) as f64 / took.as_secs_f64();
                r.measured += 1;
                r.tokens_per_second += (rate - r.tokens_per_second) / r.measured as f64;
            }
        })
    }

    /// A job that failed on this tab.
    fn failed(&self, worker: WorkerId) -> u64 {
        self.update(worker, |r| r.failures.push(Instant::now()))
    }

    fn forget(&self, worker: WorkerId) -> Option<WorkerRecord> {
        let mut speeds = self.speeds.lock().unwrap_or_else(|e| e.into_inner());
        speeds.remove(&worker)
    }
}

struct Running {
    job: Box<dyn BrowserJob>,
    last: Instant,
    first_token: Option<Instant>,
}

/// One tab's connection: its running jobs, between the socket's writer and reader.
pub struct BrowserConn {
    state: AppState,
    pool: Arc<BrowserPool>,
    worker: WorkerId,
    token_id: i64,
    variant: String,
    jobs: Mutex<HashMap<String, Running>>,
}

impl BrowserConn {
    pub fn new(
        state: AppState,
        pool: Arc<BrowserPool>,
        worker: WorkerId,
        token_id: i64,
        variant: String,
    ) -> Self {
        Self {
            state,
            pool,
            worker,
            token_id,
            variant,
            jobs: Mutex::default(),
        }
    }

    fn jobs(&self) -> std::sync::MutexGuard<'_, HashMap<String, Running>> {
        self.jobs.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// What the tab is sent for `msg`: a chat job becomes a prompt job; one the template
    /// refuses fails at once, without reaching the tab.
    pub fn outgoing(&self, msg: GatewayMessage) -> Option<GatewayMessage> {
        let GatewayMessage::Job {
            job_id,
            model,
            request,
        } = msg
        else {
            return Some(msg);
        };
        match self.pool.models.start(&self.variant, &request) {
            Ok((prompt, job)) => {
                let running = Running {
                    job,
                    last: Instant::now(),
                    first_token: None,
                };
                self.jobs().insert(job_id.clone(), running);
                Some(GatewayMessage::PromptJob {
                    job_id,
                    model,
                    prompt: prompt.text,
                    params: prompt.params,
                })
            }
            Err(code) => {
                let failed = JobEvent::Failed {
                    code,
                    retryable: false,
                };
                self.state.pool.deliver(self.worker, &job_id, failed);
                None
            }
        }
    }

    /// A `delta` from the tab: raw text only, for a job it was sent.
    pub fn delta(&self, job_id: &str, content: Option<String>, other: bool) -> Result<(), Verdict> {
        if other {
            return Err("a browser delta carries raw content only");
        }
        let events = {
            let mut jobs = self.jobs();
            let Some(r) = jobs.get_mut(job_id) else {
                return Err("a delta for a job this tab does not run");
            };
            let now = Instant::now();
            r.last = now;
            r.first_token.get_or_insert(now);
            r.job.push(content.as_deref().unwrap_or(""))
        };
        for e in events {
            self.state.pool.deliver(self.worker, job_id, e);
        }
        Ok(())
    }

    /// `done` from the tab: the gateway's own count replaces the tab's. An answer the gateway
    /// refuses fails as retryable (nothing of it was delivered), so another worker is asked.
    pub fn done(&self, job_id: &str, finish: FinishReason) -> Result<(), Verdict> {
        let Some(mut r) = self.jobs().remove(job_id) else {
            return Err("done for a job this tab does not run");
        };
        let (events, usage, tool_calls) = r.job.finish();
        if let Some(first) = r.first_token {
            let rank = (self.pool).measured(self.worker, usage.completion_tokens, first.elapsed());
            self.state.pool.set_preference(self.worker, rank);
        }
        let events = match events {
            Ok(events) => events,
            Err(code) => {
                self.state
                    .pool
                    .set_preference(self.worker, self.pool.failed(self.worker));
                let failed = JobEvent::Failed {
                    code,
                    retryable: true,
                };
                self.state.pool.deliver(self.worker, job_id, failed);
                return Ok(());
            }
        };
        for e in events {
            self.state.pool.deliver(self.worker, job_id, e);
        }
        let finish_reason = match finish {
            FinishReason::Stop if tool_calls => FinishReason::ToolCalls,
            FinishReason::Stop | FinishReason::Length => finish,
            // A tab has no content filter and makes no calls of its own: the gateway decides.
            _ => FinishReason::Stop,
        };
        let done = JobEvent::Done {
            finish_reason,
            usage,
        };
        self.state.pool.deliver(self.worker, job_id, done);
        Ok(())
    }

    /// `error` from the tab.
    pub fn error(&self, job_id: &str, code: ErrorCode, retryable: bool) -> Result<(), Verdict> {
        if self.jobs().remove(job_id).is_none() {
            return Err("an error for a job this tab does not run");
        }
        self.state
            .pool
            .set_preference(self.worker, self.pool.failed(self.worker));
        let failed = JobEvent::Failed { code, retryable };
        self.state.pool.deliver(self.worker, job_id, failed);
        Ok(())
    }

    /// Checked whenever the tab is heard from: a job silent past the step deadline drops it.
    pub fn check_stalls(&self) -> Result<(), Verdict> {
        let stalled = self
            .jobs()
            .values()
            .any(|r| r.last.elapsed() > STEP_DEADLINE);
        if stalled {
            return Err("a job stalled past the step deadline");
        }
        Ok(())
    }
}

impl Tab for BrowserConn {
    fn outgoing(&self, msg: GatewayMessage) -> Option<GatewayMessage> {
        BrowserConn::outgoing(self, msg)
    }

    fn on_message(&self, msg: WorkerMessage) -> Result<(), Verdict> {
        from_tab(self, msg)
    }

    /// A misbehaving tab loses its token for a while.
    fn closed(&self, verdict: Option<Verdict>) {
        if let Some(why) = verdict {
            tracing::warn!(
                worker_id = self.worker,
                why,
                "browser worker dropped; its token is refused for a while"
            );
            self.pool.ban(self.token_id);
        }
        let record = self.pool.forget(self.worker);
        tracing::info!(worker_id = self.worker, ?record, "browser worker measured");
    }
}

/// The gateway's seam; shared by every tab's connection.
impl BrowserWorkers for BrowserPool {
    fn knows(&self, variant: &str) -> bool {
        self.models.knows(variant)
    }

    fn is_banned(&self, token_id: i64) -> bool {
        BrowserPool::is_banned(self, token_id)
    }

    fn connect(
        self: Arc<Self>,
        state: &AppState,
        worker: WorkerId,
        token_id: i64,
        variant: String,
    ) -> Arc<dyn Tab> {
        let conn = BrowserConn::new(state.clone(), self, worker, token_id, variant);
        Arc::new(conn)
    }

    fn answer_refused(&self, state: &AppState, worker: WorkerId) {
        state.pool.set_preference(worker, self.failed(worker));
    }

    fn routes(&self) -> axum::Router {
        self.models.routes()
    }
}

/// Handles one message from a tab; an error is the reason to drop it.
fn from_tab(tab: &BrowserConn, msg: WorkerMessage) -> Result<(), Verdict> {
    tab.check_stalls()?;
    match msg {
        WorkerMessage::Heartbeat => Ok(()),
        WorkerMessage::Delta {
            job_id,
            content,
            reasoning,
            tool_calls,
        } => tab.delta(
            &job_id,
            content,
            reasoning.is_some() || tool_calls.is_some(),
        ),
        WorkerMessage::Done {
            job_id,
            finish_reason,
            ..
        } => tab.done(&job_id, finish_reason),
        WorkerMessage::Error {
            job_id,
            code,
            retryable,
        } => tab.error(&job_id, code, retryable),
        WorkerMessage::Hello { .. } => Err("a second hello"),
        WorkerMessage::Progress { .. } | WorkerMessage::Image { .. } => {
            Err("an image message from a browser tab")
        }
        WorkerMessage::Span { .. } | WorkerMessage::Frame(_) => {
            Err("a swarm message from a browser tab")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use shoal_gateway::pool::Pool;
    use shoal_protocol::worker::{ServedModel, WorkerKind};
    use tokio::sync::mpsc;

    fn record(tokens_per_second: f64, failures: Vec<Instant>) -> WorkerRecord {
        WorkerRecord {
            jobs: 4,
            tokens_per_second,
            measured: 4,
            failures,
        }
    }

    #[test]
    fn fewer_recent_failures_rank_first_then_the_faster_tab() {
        let now = Instant::now();
        let fast_but_failing = record(40.0, vec![now]);
        let slow = record(5.0, vec![]);
        let fast = record(20.0, vec![]);
        let unmeasured = WorkerRecord::default();
        let ranks: Vec<u64> = [&unmeasured, &fast, &slow, &fast_but_failing]
            .iter()
            .map(|r| r.preference(now))
            .collect();
        assert!(
            ranks.windows(2).all(|w| w[0] > w[1]),
            "expected strictly decreasing ranks: {ranks:?}"
        );
        assert!(
            record(1.0, vec![now]).preference(now) > record(40.0, vec![now, now]).preference(now)
        );
        // A failure is forgotten after FAILURE_MEMORY.
        let later = now + FAILURE_MEMORY;
        assert_eq!(fast_but_failing.recent_failures(later), 0);
        assert!(fast_but_failing.preference(later) > fast.preference(later));
    }

    #[tokio::test]
    async fn the_pool_gives_a_job_to_the_best_ranked_free_tab() {
        let pool = Pool::new(Duration::from_millis(20), 8);
        let model = ServedModel {
            id: "service-pro".into(),
            tools: true,
            vision: false,
            reasoning: false,
            context_length: Some(4096),
            structured_outputs: false,
        };
        let now = Instant::now();
        let mut outboxes = Vec::new();
        let mut tab = |rank: u64| {
            let (tx, rx) = mpsc::unbounded_channel();
            outboxes.push(rx);
            let id = pool.register(
                WorkerKind::Browser,
                vec![model.clone()],
                HashMap::new(),
                1,
                tx,
            );
            pool.set_preference(id, rank);
            id
        };
        let failing = tab(record(50.0, vec![now]).preference(now));
        let slow = tab(record(3.0, vec![]).preference(now));
        let fast = tab(record(30.0, vec![]).preference(now));
        let request: JobRequest = serde_json::from_value(serde_json::json!({
            "messages": [{"role": "user", "content": "hi"}], "max_tokens": 8
        }))
        .unwrap();
        let mut order = Vec::new();
        // Each job keeps its tab busy (capacity 1), so the next goes to the next best.
        let mut running = Vec::new();
        for _ in 0..3 {
            let job = pool.dispatch("service-pro", &request, &[]).await.unwrap();
            order.push(job.worker);
            running.push(job);
        }
        assert_eq!(order, [fast, slow, failing]);
    }
}
