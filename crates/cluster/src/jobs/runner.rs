//! The side of the replica whose worker runs a job another replica took: it dispatches the
//! job to a worker connected here (never on to a third replica), answers whether one took it,
//! and streams the events back. It never touches the ledger: the origin bills.

use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::{Duration, Instant};

use bytes::Bytes;
use shoal_gateway::pool::{DispatchError, ImageEvent, ImageJob, Job, JobEvent};
use shoal_protocol::worker::ErrorCode;
use tokio::sync::Notify;

use super::wire::{event_to_wire, image_event_to_wire, is_token, Accepted, Cancel, Forward, Work};
use super::Link;

/// How long a cancelled job's worker gets to answer before its slot is taken back.
const CANCEL_GRACE: Duration = Duration::from_secs(5);
/// How often a running job checks that its origin is still heard.
const ORIGIN_CHECK: Duration = Duration::from_secs(1);

/// A job run here for another replica, from its arrival (or a cancel that came first).
pub(super) struct Served {
    /// Its id in this replica's pool, once a worker took it.
    local: Option<String>,
    started: Instant,
    cancelled: Option<Instant>,
    /// Wakes the job's wait for a worker when a cancel arrives.
    stop: Arc<Notify>,
}

impl Served {
    fn new() -> Self {
        Served {
            local: None,
            started: Instant::now(),
            cancelled: None,
            stop: Arc::new(Notify::new()),
        }
    }

    /// A cancel that arrived before its job: kept until the job comes, or for as long as a job
    /// may take to arrive.
    pub(super) fn stale_cancel(&self, after: Duration) -> bool {
        self.local.is_none() && self.cancelled.is_some() && self.started.elapsed() > after
    }
}

/// A job a worker here took for another replica.
enum Running {
    Chat(Job),
    Image(ImageJob),
}

impl Running {
    fn id(&self) -> &str {
        match self {
            Running::Chat(job) => &job.id,
            Running::Image(job) => &job.id,
        }
    }

    /// The job's next event, as the messages that carry it to its origin, and whether it ends
    /// the job. A worker gone without a word is `worker_lost`.
    async fn next(&mut self, job_id: &str, max_payload: usize) -> (Vec<Outgoing>, bool) {
        let (code, retryable) = (ErrorCode::WorkerLost, true);
        match self {
            Running::Chat(job) => {
                let event =
                    (job.events.recv().await).unwrap_or(JobEvent::Failed { code, retryable });
                let ends = !matches!(event, JobEvent::Delta { .. });
                let wire = event_to_wire(job_id.to_owned(), event);
                let body = serde_json::to_vec(&wire).expect("events serialize");
                (vec![(None, body.into())], ends)
            }
            Running::Image(job) => {
                let event =
                    (job.events.recv().await).unwrap_or(ImageEvent::Failed { code, retryable });
                let ends = !matches!(event, ImageEvent::Progress { .. });
                (
                    image_event_to_wire(job_id.to_owned(), event, max_payload),
                    ends,
                )
            }
        }
    }
}

type Outgoing = (Option<async_nats::HeaderMap>, Bytes);

impl Link {
    /// Runs one job sent by another replica, from its request to its last event.
    pub(super) async fn run_forwarded(self: Arc<Self>, message: async_nats::Message) {
        let Some(reply) = message.reply else { return };
        // Decode errors are not logged: serde's messages can quote the prompt.
        let Ok(forward) = serde_json::from_slice::<Forward>(&message.payload) else {
            tracing::warn!("an undecodable job from another replica was refused");
            return self.answer(reply, Some(ErrorCode::BadJob)).await;
        };
        drop(message.payload);
        if !is_token(&forward.origin) || !is_token(&forward.job_id) {
            return self.answer(reply, Some(ErrorCode::BadJob)).await;
        }
        if self.draining.load(Ordering::SeqCst) {
            return self
                .answer(reply, Some(ErrorCode::WorkerShuttingDown))
                .await;
        }
        let key = (forward.origin.clone(), forward.job_id.clone());
        let model = forward.model.clone();
        let Some(work) = forward.into_work() else {
            return self.answer(reply, Some(ErrorCode::BadJob)).await;
        };
        let stop = match self.admit(&key) {
            Ok(stop) => stop,
            Err(code) => return self.answer(reply, Some(code)).await,
        };
        let dispatched = tokio::select! {
            d = self.dispatch(&model, work) => d,
            _ = stop.notified() => Err(None),
        };
        let mut job = match dispatched {
            Ok(job) => job,
            Err(refused) => {
                self.served_lock().remove(&key);
                if refused.is_none() {
                    self.metrics.cancelled_queued.inc();
                }
                let code = refused.unwrap_or(ErrorCode::Cancelled);
                return self.answer(reply, Some(code)).await;
            }
        };
        self.started(&key, job.id());
        self.metrics.served.inc();
        self.answer(reply, None).await;
        self.relay_back(&key, &mut job).await;
        self.served_lock().remove(&key);
    }

    /// Hands the work to a worker connected here; `Err(Some(code))` when none takes it.
    async fn dispatch(&self, model: &str, work: Work) -> Result<Running, Option<ErrorCode>> {
        let pool = &self.state().pool;
        let dispatched = match work {
            Work::Chat(request) if model == shoal_gateway::swarm::MODEL => {
                shoal_gateway::swarm::dispatch_here(self.state(), &request).map(Running::Chat)
            }
            Work::Chat(request) => pool.dispatch_here(model, &request).await.map(Running::Chat),
            Work::Image(request) => {
                (pool.dispatch_image_here(model, &request).await).map(Running::Image)
            }
        };
        dispatched.map_err(|e| {
            Some(match e {
                DispatchError::NoWorker => ErrorCode::ModelNotServed,
                DispatchError::Busy => ErrorCode::WorkerBusy,
            })
        })
    }

    /// Records a job that arrived; refused when its cancel came first, or it is here already.
    fn admit(&self, key: &(String, String)) -> Result<Arc<Notify>, ErrorCode> {
        let mut served = self.served_lock();
        match served.get(key) {
            Some(s) if s.cancelled.is_some() && s.local.is_none() => {
                served.remove(key);
                self.metrics.cancelled_queued.inc();
                Err(ErrorCode::Cancelled)
            }
            Some(_) => Err(ErrorCode::BadJob),
            None => {
                let s = Served::new();
                let stop = s.stop.clone();
                served.insert(key.clone(), s);
                Ok(stop)
            }
        }
    }

    /// A worker took the job: later cancels go to it, and one that came meanwhile goes now.
    fn started(&self, key: &(String, String), local: &str) {
        let mut served = self.served_lock();
        if let Some(s) = served.get_mut(key) {
            s.local = Some(local.to_owned());
            if s.cancelled.is_some() {
                self.state().pool.cancel(local);
            }
        }
    }

    pub(super) fn served_lock(
        &self,
    ) -> std::sync::MutexGuard<'_, std::collections::HashMap<(String, String), Served>> {
        self.served.lock().unwrap_or_else(|p| p.into_inner())
    }

    async fn answer(&self, reply: async_nats::Subject, refused: Option<ErrorCode>) {
        let a = Accepted {
            accepted: refused.is_none(),
            refused,
        };
        let body = serde_json::to_vec(&a).expect("answers serialize");
        if self.client.publish(reply, body.into()).await.is_err() {
            tracing::warn!("an answer to another replica could not be sent");
        }
    }

    /// Publishes the job's events to its origin until it ends; stops it when the origin goes
    /// silent, and takes its slot back when the worker ignores a cancel.
    async fn relay_back(&self, key: &(String, String), job: &mut Running) {
        let subject = self.subjects.events(&key.0, &key.1);
        let max_payload = self.client.server_info().max_payload;
        // Checked however busy the job's stream is. The first check is one period away: an
        // interval's immediate first tick still waits for the timer wheel's next millisecond,
        // which the job's first event would wait behind.
        let first = tokio::time::Instant::now() + ORIGIN_CHECK;
        let mut check = tokio::time::interval_at(first, ORIGIN_CHECK);
        loop {
            let (messages, ends) = tokio::select! {
                next = job.next(&key.1, max_payload) => next,
                _ = check.tick() => {
                    if self.stop_if_orphaned(key, job.id()) {
                        return;
                    }
                    continue;
                }
            };
            for (headers, body) in messages {
                let subject = subject.clone();
                let sent = match headers {
                    Some(h) => self.client.publish_with_headers(subject, h, body).await,
                    None => self.client.publish(subject, body).await,
                };
                if sent.is_err() {
                    tracing::warn!("a job event could not be sent to its replica");
                }
            }
            if ends {
                return;
            }
        }
    }

    /// Cancels a job whose origin is no longer heard; abandons one whose worker did not
    /// answer a cancel in time. True when the job is over here.
    fn stop_if_orphaned(&self, key: &(String, String), local: &str) -> bool {
        let pool = &self.state().pool;
        let mut served = self.served_lock();
        let Some(s) = served.get_mut(key) else {
            return false;
        };
        if let Some(at) = s.cancelled {
            if at.elapsed() > CANCEL_GRACE {
                pool.abandon(local);
                return true;
            }
            return false;
        }
        let known = self.hears(&key.0) || s.started.elapsed() < Self::expiry();
        if !known {
            tracing::warn!("a job's replica went silent; its job is cancelled");
            s.cancelled = Some(Instant::now());
            pool.cancel(local);
        }
        false
    }

    /// A cancel from the origin of a job run here: to its worker, or to its wait for one, or
    /// kept for a job not yet arrived.
    pub(super) fn cancel_served(&self, payload: &[u8]) {
        let Ok(c) = serde_json::from_slice::<Cancel>(payload) else {
            return;
        };
        if !is_token(&c.origin) || !is_token(&c.job_id) {
            return;
        }
        let mut served = self.served_lock();
        let s = served
            .entry((c.origin, c.job_id))
            .or_insert_with(Served::new);
        if s.cancelled.is_none() {
            s.cancelled = Some(Instant::now());
        }
        match &s.local {
            Some(local) => self.state().pool.cancel(local),
            None => s.stop.notify_one(),
        }
    }

    /// Forgets cancels whose job never came.
    pub(super) fn sweep_cancels(&self) {
        let after = self.state().config.queue_timeout + Self::expiry();
        self.served_lock().retain(|_, s| !s.stale_cancel(after));
    }

    /// Jobs run here for others now (cancels kept for jobs not yet arrived not counted).
    pub(super) fn serving(&self) -> usize {
        let served = self.served_lock();
        let waiting_cancels = served
            .values()
            .filter(|s| s.local.is_none() && s.cancelled.is_some())
            .count();
        served.len() - waiting_cancels
    }
}
