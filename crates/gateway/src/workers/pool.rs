//! The worker pool: connected workers, their free slots, and job dispatch.
//!
//! Jobs are pushed: `dispatch` picks, among connected workers serving the model with a free
//! slot, the least loaded (among equals, the one with the best record: [`Pool::set_preference`]),
//! takes the slot and sends the job down that worker's socket. When
//! all are busy the caller waits (bounded in time and in number of waiters) for a slot to
//! free; when no connected worker serves the model at all it fails at once.
//!
//! A job's events come back on a channel owned by the request that dispatched it. Whatever
//! ends a job — `done`, `image`, `error`, the worker vanishing — frees its slot exactly once.
//!
//! Chat jobs go only to text workers serving the model, and a job that needs structured outputs
//! (`JobRequest::needs_structured_outputs`) only to those that announced `structured_outputs`
//! for it: to the rest it is as if the model were not served. Image jobs (`dispatch_image`) go
//! only to workers of kind `image`, whichever image model they announced.
//!
//! A peer is another replica's workers for one model, as this replica sees them (`shoal-cluster`
//! registers and feeds them): its outbox leads to that replica, which runs the job on a worker
//! of its own. A job (chat or image) goes to a peer only when no worker connected here has a
//! free slot; the relay and the image driver cannot tell the two apart, so failover, cancel and
//! settlement are the same. A peer whose replica is shutting down is retired: it takes no new
//! job and leaves the pool when its last one ends.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::Duration;

use prometheus_client::encoding::{EncodeLabelSet, EncodeLabelValue, LabelValueEncoder};
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use shoal_protocol::chat::ToolCallDelta;
use shoal_protocol::worker::{
    ErrorCode, FinishReason, GatewayMessage, ImageJobRequest, JobRequest, JobUsage, ServedModel,
    WorkerKind,
};
use tokio::sync::{mpsc, Notify};

pub type WorkerId = u64;

/// What a request hears about its job.
#[derive(Debug, Clone, PartialEq)]
pub enum JobEvent {
    Delta {
        content: Option<String>,
        reasoning: Option<String>,
        tool_calls: Option<Vec<ToolCallDelta>>,
    },
    Done {
        finish_reason: FinishReason,
        usage: JobUsage,
    },
    /// The worker reported an error, or went away (`code` = `worker_lost`).
    Failed { code: ErrorCode, retryable: bool },
}

/// What an image request hears about its job.
#[derive(Debug, Clone, PartialEq)]
pub enum ImageEvent {
    /// `step` of `steps` sampling steps are done.
    Progress { step: u32, steps: u32 },
    /// The result, as the worker sent it (standard base64 of a PNG).
    Image { png_base64: String },
    /// The worker reported an error, or went away (`code` = `worker_lost`).
    Failed { code: ErrorCode, retryable: bool },
}

/// Where a running job's events go: chat and image jobs hear different events.
enum Sink {
    Chat(ChatSink),
    Image(mpsc::UnboundedSender<ImageEvent>),
}

impl Sink {
    fn lost(self) {
        let (code, retryable) = (ErrorCode::WorkerLost, true);
        match self {
            Sink::Chat(mut chat) => chat.send(JobEvent::Failed { code, retryable }),
            Sink::Image(tx) => drop(tx.send(ImageEvent::Failed { code, retryable })),
        }
    }
}

/// A chat job's events, counted.
struct ChatSink {
    tx: mpsc::UnboundedSender<JobEvent>,
    /// Deltas handed to the job's request.
    delivered: u64,
    /// Deltas still to drop: a job taken over by another worker ([`Pool::attach`]) is said
    /// again from its start, and its request already has this many of them.
    skip: u64,
}

impl ChatSink {
    fn new(tx: mpsc::UnboundedSender<JobEvent>) -> Self {
        ChatSink {
            tx,
            delivered: 0,
            skip: 0,
        }
    }

    fn send(&mut self, event: JobEvent) {
        if let JobEvent::Delta { .. } = event {
            if self.skip > 0 {
                self.skip -= 1;
                return;
            }
            self.delivered += 1;
        }
        let _ = self.tx.send(event);
    }
}

/// A chat job taken off a worker that is leaving, not ended: its request still waits for its
/// events, and another worker may take it over ([`Pool::attach`]). A swarm job whose entry
/// was lost mid-generation is one.
pub struct Detached {
    job_id: String,
    sink: ChatSink,
}

impl Detached {
    /// Whether the job's request has ended meanwhile (its client left): nobody waits for it.
    pub fn abandoned(&self) -> bool {
        self.sink.tx.is_closed()
    }

    /// Deltas the job's request has had.
    pub fn delivered(&self) -> u64 {
        self.sink.delivered
    }
}

struct Worker {
    kind: WorkerKind,
    models: Vec<ServedModel>,
    /// Catalog id → the id the worker announced it under (an alias, say), used in its jobs.
    announced: HashMap<String, String>,
    capacity: u32,
    /// Unbounded so that the pool sends under its lock without waiting: it holds at most the
    /// worker's jobs (one per free slot), their cancels, and a span node's session messages
    /// and frames (one per step of each of its sessions in flight).
    outbox: mpsc::UnboundedSender<GatewayMessage>,
    /// Jobs in flight on this worker, by job id.
    jobs: HashMap<String, Sink>,
    /// Another replica's workers, reached through it (see the module documentation).
    peer: bool,
    /// A peer whose replica is shutting down: no new job; gone when its last job ends.
    retiring: bool,
    /// Among equally loaded workers the highest goes first ([`Pool::set_preference`]).
    preference: u64,
}

impl Worker {
    fn serves(&self, model: &str) -> bool {
        self.kind != WorkerKind::Image
            && !self.retiring
            && self.models.iter().any(|m| m.id == model)
    }
    /// Serves `model` and can honour `request`: a job that needs structured outputs goes only
    /// to a worker that announced them for that model.
    fn can_run(&self, model: &str, request: &JobRequest) -> bool {
        self.serves(model)
            && (!request.needs_structured_outputs()
                || self
                    .models
                    .iter()
                    .any(|m| m.id == model && m.structured_outputs))
    }
    fn renders_images(&self) -> bool {
        self.kind == WorkerKind::Image && !self.retiring
    }
    /// An image worker (or peer) rendering with `model`.
    fn renders_with(&self, model: &str) -> bool {
        self.renders_images() && self.models.first().is_some_and(|m| m.id == model)
    }
    fn free(&self) -> bool {
        (self.jobs.len() as u32) < self.capacity
    }
}

#[derive(Default)]
struct State {
    workers: HashMap<WorkerId, Worker>,
    /// Job id → the worker running it.
    job_owner: HashMap<String, WorkerId>,
    waiting: usize,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DispatchError {
    /// No connected worker serves the model.
    NoWorker,
    /// Workers exist but none freed a slot in time, or too many requests are waiting.
    Busy,
}

/// A dispatched job: where its events arrive, and who runs it.
pub struct Job {
    pub id: String,
    pub worker: WorkerId,
    pub events: mpsc::UnboundedReceiver<JobEvent>,
}

/// What ended a job and so freed its slot.
#[derive(Debug, Clone, Copy, Hash, PartialEq, Eq)]
pub enum FreedBy {
    /// The worker sent `done` (or an image).
    Done,
    /// The worker sent `error`.
    Error,
    /// The worker disconnected or went silent with the job running.
    WorkerLost,
    /// The worker never answered a cancel; the gateway stopped waiting.
    Abandoned,
}

impl EncodeLabelValue for FreedBy {
    fn encode(&self, out: &mut LabelValueEncoder) -> std::fmt::Result {
        use std::fmt::Write;
        out.write_str(match self {
            FreedBy::Done => "done",
            FreedBy::Error => "error",
            FreedBy::WorkerLost => "worker_lost",
            FreedBy::Abandoned => "abandoned",
        })
    }
}

#[derive(Debug, Clone, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct FreedLabels {
    pub by: FreedBy,
}

/// The pool's own counts (served on `/metrics`): every dispatched job frees its slot exactly
/// once, so `dispatched` equals the sum of `freed` plus the jobs running now.
#[derive(Clone, Default)]
pub struct PoolCounters {
    pub dispatched: Counter,
    /// Jobs sent to a worker after another worker failed the same request.
    pub failovers: Counter,
    pub freed: Family<FreedLabels, Counter>,
}

impl PoolCounters {
    fn freed(&self, by: FreedBy, n: u64) {
        self.freed.get_or_create(&FreedLabels { by }).inc_by(n);
    }
}

/// A dispatched image job, with the image model its worker announced.
pub struct ImageJob {
    pub id: String,
    pub worker: WorkerId,
    pub model: String,
    pub events: mpsc::UnboundedReceiver<ImageEvent>,
}

pub struct Pool {
    state: Mutex<State>,
    pub counters: PoolCounters,
    slot_freed: Notify,
    next_id: AtomicU64,
    pub queue_timeout: Duration,
    pub max_waiting: usize,
}

impl Pool {
    pub fn new(queue_timeout: Duration, max_waiting: usize) -> Self {
        Pool {
            state: Mutex::new(State::default()),
            counters: PoolCounters::default(),
            slot_freed: Notify::new(),
            next_id: AtomicU64::new(1),
            queue_timeout,
            max_waiting,
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// True exactly when a connected worker serves `model`.
    pub fn available(&self, model: &str) -> bool {
        self.lock().workers.values().any(|w| w.serves(model))
    }

    /// Model id → capabilities advertised by the connected workers (OR over workers).
    pub fn capabilities(&self, model: &str) -> Option<ServedModel> {
        let state = self.lock();
        let mut found: Option<ServedModel> = None;
        for m in state
            .workers
            .values()
            .filter(|w| !w.renders_images())
            .flat_map(|w| w.models.iter())
            .filter(|m| m.id == model)
        {
            let f = found.get_or_insert_with(|| ServedModel {
                id: m.id.clone(),
                ..Default::default()
            });
            f.tools |= m.tools;
            f.vision |= m.vision;
            f.reasoning |= m.reasoning;
            f.structured_outputs |= m.structured_outputs;
        }
        found
    }

    /// The kind of worker `id`, while it is connected (a peer reads as `upstream`).
    pub fn kind_of(&self, id: WorkerId) -> Option<WorkerKind> {
        self.lock().workers.get(&id).map(|w| w.kind)
    }

    pub fn connected(&self) -> usize {
        self.lock().workers.len()
    }

    /// Requests waiting for a free slot now.
    pub fn waiting(&self) -> usize {
        self.lock().waiting
    }

    /// Adds a worker. `models` carry catalog ids; `announced` maps those the worker named
    /// differently (by an alias) back to its own name, which its jobs use.
    pub fn register(
        &self,
        kind: WorkerKind,
        models: Vec<ServedModel>,
        announced: HashMap<String, String>,
        capacity: u32,
        outbox: mpsc::UnboundedSender<GatewayMessage>,
    ) -> WorkerId {
        let worker = Worker {
            kind,
            models,
            announced,
            capacity: capacity.max(1),
            outbox,
            jobs: HashMap::new(),
            peer: false,
            retiring: false,
            preference: UNRANKED,
        };
        self.insert(worker)
    }

    fn insert(&self, worker: Worker) -> WorkerId {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        self.lock().workers.insert(id, worker);
        self.slot_freed.notify_waiters();
        id
    }

    /// Removes a worker; every job it was running fails with `worker_lost` (retryable).
    pub fn unregister(&self, id: WorkerId) {
        let removed = {
            let mut state = self.lock();
            let removed = state.workers.remove(&id);
            if let Some(w) = &removed {
                for job in w.jobs.keys() {
                    state.job_owner.remove(job);
                }
            }
            removed
        };
        if let Some(w) = removed {
            self.counters
                .freed(FreedBy::WorkerLost, w.jobs.len() as u64);
            w.jobs.into_values().for_each(Sink::lost);
        }
        self.slot_freed.notify_waiters();
    }

    /// Ranks worker `id` among equally loaded workers: a higher `preference` is picked first.
    /// Workers start at [`UNRANKED`]; browser tabs are ranked by their record
    /// (`browser::WorkerRecord::preference`).
    pub fn set_preference(&self, id: WorkerId, preference: u64) {
        if let Some(w) = self.lock().workers.get_mut(&id) {
            w.preference = preference;
        }
    }

    /// Sends a job to the least-loaded worker serving `model` that has a free slot (and
    /// announced structured outputs for it, when the job needs them), skipping
    /// `exclude` (workers that already failed this request), waiting for a slot if needed.
    pub async fn dispatch(
        &self,
        model: &str,
        request: &JobRequest,
        exclude: &[WorkerId],
    ) -> Result<Job, DispatchError> {
        self.when_free(|| self.try_dispatch(model, request, exclude, Reach::Any))
            .await
    }

    /// [`Pool::dispatch`] to the workers connected here only: for a job another replica
    /// forwarded, which must not travel on.
    pub async fn dispatch_here(
        &self,
        model: &str,
        request: &JobRequest,
    ) -> Result<Job, DispatchError> {
        self.when_free(|| self.try_dispatch(model, request, &[], Reach::Here))
            .await
    }

    /// [`Pool::dispatch`] to other replicas' workers only: for `service-swarm` when this
    /// replica's own ring cannot take the job.
    pub async fn dispatch_to_peers(
        &self,
        model: &str,
        request: &JobRequest,
        exclude: &[WorkerId],
    ) -> Result<Job, DispatchError> {
        self.when_free(|| self.try_dispatch(model, request, exclude, Reach::Peers))
            .await
    }

    /// True when another replica's workers serve `model`.
    pub fn peers_serve(&self, model: &str) -> bool {
        self.lock()
            .workers
            .values()
            .any(|w| w.peer && w.serves(model))
    }

    /// Sends an image job to the least-loaded image worker with a free slot, skipping
    /// `exclude`, waiting for a slot if needed.
    pub async fn dispatch_image(
        &self,
        request: &ImageJobRequest,
        exclude: &[WorkerId],
    ) -> Result<ImageJob, DispatchError> {
        self.when_free(|| self.try_dispatch_image(request, exclude, None))
            .await
    }

    /// [`Pool::dispatch_image`] to the image workers connected here that render with `model`:
    /// for an image job another replica forwarded, which must not travel on.
    pub async fn dispatch_image_here(
        &self,
        model: &str,
        request: &ImageJobRequest,
    ) -> Result<ImageJob, DispatchError> {
        self.when_free(|| self.try_dispatch_image(request, &[], Some(model)))
            .await
    }

    /// Runs `attempt` until it finds a slot, waiting (bounded) while every worker is busy.
    async fn when_free<T>(
        &self,
        attempt: impl Fn() -> Result<T, DispatchError>,
    ) -> Result<T, DispatchError> {
        let deadline = tokio::time::Instant::now() + self.queue_timeout;
        // Counted until this returns or its caller stops waiting (the future is dropped).
        let mut waiting: Option<Waiting<'_>> = None;
        loop {
            // Register interest before looking, so a slot freed in between is not missed.
            let notified = self.slot_freed.notified();
            tokio::pin!(notified);
            notified.as_mut().enable();
            match attempt() {
                Ok(job) => break Ok(job),
                Err(DispatchError::NoWorker) => break Err(DispatchError::NoWorker),
                Err(DispatchError::Busy) => {}
            }
            if waiting.is_none() {
                let mut state = self.lock();
                if state.waiting >= self.max_waiting {
                    break Err(DispatchError::Busy);
                }
                state.waiting += 1;
                waiting = Some(Waiting(self));
            }
            if tokio::time::timeout_at(deadline, notified).await.is_err() {
                break Err(DispatchError::Busy);
            }
        }
    }

    fn try_dispatch(
        &self,
        model: &str,
        request: &JobRequest,
        exclude: &[WorkerId],
        reach: Reach,
    ) -> Result<Job, DispatchError> {
        let mut state = self.lock();
        let worker_id = pick(&state, |w| w.can_run(model, request), exclude, reach)?;
        let job_id = format!("job_{}", self.next_id.fetch_add(1, Ordering::Relaxed));
        // Unbounded, so that a worker's reader never waits on one slow client: bounded by what
        // the worker sends for this job (an honest one a delta per token, within the job's
        // `max_tokens`), and dropped with the job.
        let (tx, rx) = mpsc::unbounded_channel();
        let worker = &state.workers[&worker_id];
        let message = GatewayMessage::Job {
            job_id: job_id.clone(),
            model: worker
                .announced
                .get(model)
                .cloned()
                .unwrap_or_else(|| model.to_owned()),
            request: request.clone(),
        };
        self.place(
            &mut state,
            worker_id,
            &job_id,
            message,
            Sink::Chat(ChatSink::new(tx)),
            exclude,
        )?;
        Ok(Job {
            id: job_id,
            worker: worker_id,
            events: rx,
        })
    }

    /// With `here_only` (a forwarded job), only workers connected here rendering with it.
    fn try_dispatch_image(
        &self,
        request: &ImageJobRequest,
        exclude: &[WorkerId],
        here_only: Option<&str>,
    ) -> Result<ImageJob, DispatchError> {
        let mut state = self.lock();
        let worker_id = match here_only {
            Some(model) => pick(&state, |w| w.renders_with(model), exclude, Reach::Here),
            None => pick(&state, Worker::renders_images, exclude, Reach::Any),
        }?;
        let job_id = format!("job_{}", self.next_id.fetch_add(1, Ordering::Relaxed));
        // Unbounded for the same reason as a chat job's: an image job's events are its steps'
        // progress and one result.
        let (tx, rx) = mpsc::unbounded_channel();
        // An image worker announces the one model it renders with.
        let model = state.workers[&worker_id]
            .models
            .first()
            .map(|m| m.id.clone())
            .unwrap_or_default();
        let message = GatewayMessage::ImageJob {
            job_id: job_id.clone(),
            model: model.clone(),
            request: request.clone(),
        };
        self.place(
            &mut state,
            worker_id,
            &job_id,
            message,
            Sink::Image(tx),
            exclude,
        )?;
        Ok(ImageJob {
            id: job_id,
            worker: worker_id,
            model,
            events: rx,
        })
    }

    /// Sends a chat job to worker `id` alone (a swarm chain's entry), `prelude` (made from the
    /// job's id) just before it on the same socket. Does not wait for a slot.
    pub fn dispatch_to(
        &self,
        id: WorkerId,
        model: &str,
        request: &JobRequest,
        prelude: impl FnOnce(&str) -> GatewayMessage,
    ) -> Result<Job, DispatchError> {
        let job_id = format!("job_{}", self.next_id.fetch_add(1, Ordering::Relaxed));
        // Unbounded as `try_dispatch`'s: bounded by the job's tokens.
        let (tx, rx) = mpsc::unbounded_channel();
        let handed = hand_to(
            &mut self.lock(),
            id,
            (model, request, &job_id),
            prelude(&job_id),
            ChatSink::new(tx),
        );
        handed.map_err(|(e, _)| e)?;
        self.counters.dispatched.inc();
        Ok(Job {
            id: job_id,
            worker: id,
            events: rx,
        })
    }

    /// Takes chat job `job_id` off worker `from` (which is leaving) without ending it: its
    /// request goes on waiting for events. `None` when `from` does not run it.
    pub fn detach(&self, from: WorkerId, job_id: &str) -> Option<Detached> {
        let mut state = self.lock();
        if state.job_owner.get(job_id) != Some(&from) {
            return None;
        }
        let jobs = &mut state.workers.get_mut(&from)?.jobs;
        if !matches!(jobs.get(job_id), Some(Sink::Chat(_))) {
            return None;
        }
        let Some(Sink::Chat(sink)) = jobs.remove(job_id) else {
            unreachable!("a chat job's sink was just seen");
        };
        state.job_owner.remove(job_id);
        Some(Detached {
            job_id: job_id.to_owned(),
            sink,
        })
    }

    /// Gives a detached job to worker `to` under its own id, `prelude` just before it on the
    /// same socket (as [`Pool::dispatch_to`]). The request hears nothing of the move: the
    /// deltas it already has are dropped when `to` says them again. The job back when `to`
    /// is gone, busy or does not serve `model`.
    pub fn attach(
        &self,
        to: WorkerId,
        (model, request): (&str, &JobRequest),
        prelude: GatewayMessage,
        detached: Detached,
    ) -> Result<(), Detached> {
        let Detached { job_id, mut sink } = detached;
        sink.skip = sink.delivered;
        let job = (model, request, job_id.as_str());
        match hand_to(&mut self.lock(), to, job, prelude, sink) {
            Ok(()) => Ok(()),
            Err((_, sink)) => Err(Detached { job_id, sink }),
        }
    }

    /// Ends a detached job as a lost worker's: its request hears `worker_lost`.
    pub fn fail_detached(&self, detached: Detached) {
        self.counters.freed(FreedBy::WorkerLost, 1);
        Sink::Chat(detached.sink).lost();
    }

    /// Sends a message to one worker (swarm sessions and frames); false when it is gone.
    pub fn send_to(&self, id: WorkerId, message: GatewayMessage) -> bool {
        let state = self.lock();
        state
            .workers
            .get(&id)
            .is_some_and(|w| w.outbox.send(message).is_ok())
    }

    /// Sends `message` to the chosen worker and records the job as running there, counted as
    /// a failover when other workers already failed this request.
    fn place(
        &self,
        state: &mut State,
        worker_id: WorkerId,
        job_id: &str,
        message: GatewayMessage,
        sink: Sink,
        exclude: &[WorkerId],
    ) -> Result<(), DispatchError> {
        let worker = state
            .workers
            .get_mut(&worker_id)
            .expect("chosen worker exists");
        if worker.outbox.send(message).is_err() {
            // The socket task is gone; its unregister is on the way.
            return Err(DispatchError::Busy);
        }
        worker.jobs.insert(job_id.to_owned(), sink);
        state.job_owner.insert(job_id.to_owned(), worker_id);
        self.counters.dispatched.inc();
        if !exclude.is_empty() {
            self.counters.failovers.inc();
        }
        Ok(())
    }

    /// Routes an event from worker `from` to its job. Events for jobs that worker does not
    /// run are dropped (a worker cannot write into another's jobs). Ends the job on
    /// `Done`/`Failed`.
    pub fn deliver(&self, from: WorkerId, job_id: &str, event: JobEvent) {
        let ends = match event {
            JobEvent::Done { .. } => Some(FreedBy::Done),
            JobEvent::Failed { .. } => Some(FreedBy::Error),
            JobEvent::Delta { .. } => None,
        };
        self.route(from, job_id, ends, |sink| match sink {
            Sink::Chat(chat) => chat.send(event),
            Sink::Image(_) => {}
        });
    }

    /// [`Pool::deliver`] for image jobs' events.
    pub fn deliver_image(&self, from: WorkerId, job_id: &str, event: ImageEvent) {
        let ends = match event {
            ImageEvent::Image { .. } => Some(FreedBy::Done),
            ImageEvent::Failed { .. } => Some(FreedBy::Error),
            ImageEvent::Progress { .. } => None,
        };
        self.route(from, job_id, ends, |sink| match sink {
            Sink::Image(tx) => drop(tx.send(event)),
            Sink::Chat(_) => {}
        });
    }

    /// Hands an event of worker `from` to its job's sink, ending the job when `ends` says
    /// what ended it.
    fn route(
        &self,
        from: WorkerId,
        job_id: &str,
        ends: Option<FreedBy>,
        send: impl FnOnce(&mut Sink),
    ) {
        let mut state = self.lock();
        if state.job_owner.get(job_id) != Some(&from) {
            return;
        }
        let Some(worker) = state.workers.get_mut(&from) else {
            return;
        };
        let Some(by) = ends else {
            if let Some(sink) = worker.jobs.get_mut(job_id) {
                send(sink);
            }
            return;
        };
        let sink = worker.jobs.remove(job_id);
        state.job_owner.remove(job_id);
        forget_if_retired(&mut state, from);
        drop(state);
        if let Some(mut sink) = sink {
            self.counters.freed(by, 1);
            send(&mut sink);
        }
        self.slot_freed.notify_waiters();
    }

    /// Asks the worker running `job_id` to stop. The slot frees when it reports the end.
    pub fn cancel(&self, job_id: &str) {
        let state = self.lock();
        if let Some(w) = state
            .job_owner
            .get(job_id)
            .and_then(|id| state.workers.get(id))
        {
            let _ = w.outbox.send(GatewayMessage::Cancel {
                job_id: job_id.to_owned(),
            });
        }
    }

    /// Forgets a job whose worker never answered the cancel, freeing its slot.
    pub fn abandon(&self, job_id: &str) {
        let mut state = self.lock();
        if let Some(worker_id) = state.job_owner.remove(job_id) {
            if let Some(w) = state.workers.get_mut(&worker_id) {
                w.jobs.remove(job_id);
            }
            forget_if_retired(&mut state, worker_id);
            drop(state);
            self.counters.freed(FreedBy::Abandoned, 1);
            self.slot_freed.notify_waiters();
        }
    }
}

/// Sends chat job `(model, request, job_id)` to worker `id` alone, `prelude` just before it,
/// and records it as running there (not counted: the callers count what it is). The sink back
/// when the worker is gone, busy or does not serve the model.
fn hand_to(
    state: &mut State,
    id: WorkerId,
    (model, request, job_id): (&str, &JobRequest, &str),
    prelude: GatewayMessage,
    sink: ChatSink,
) -> Result<(), (DispatchError, ChatSink)> {
    let Some(worker) = (state.workers.get_mut(&id)).filter(|w| w.can_run(model, request)) else {
        return Err((DispatchError::NoWorker, sink));
    };
    if !worker.free() {
        return Err((DispatchError::Busy, sink));
    }
    let job = GatewayMessage::Job {
        job_id: job_id.to_owned(),
        model: model.to_owned(),
        request: request.clone(),
    };
    // The socket task is gone when these fail; its unregister is on the way.
    if worker.outbox.send(prelude).is_err() || worker.outbox.send(job).is_err() {
        return Err((DispatchError::Busy, sink));
    }
    worker.jobs.insert(job_id.to_owned(), Sink::Chat(sink));
    state.job_owner.insert(job_id.to_owned(), id);
    Ok(())
}

/// Holds a place among the requests waiting for a slot, given back when dropped.
struct Waiting<'a>(&'a Pool);

impl Drop for Waiting<'_> {
    fn drop(&mut self) {
        self.0.lock().waiting -= 1;
    }
}

/// Which workers a job may go to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Reach {
    /// Those connected here first; another replica's when none here has a free slot.
    Any,
    /// Those connected here only (a job another replica forwarded).
    Here,
    /// Other replicas' only.
    Peers,
}

/// The least-loaded eligible worker with a free slot that `reach` allows.
fn pick(
    state: &State,
    eligible: impl Fn(&Worker) -> bool,
    exclude: &[WorkerId],
    reach: Reach,
) -> Result<WorkerId, DispatchError> {
    match reach {
        Reach::Peers => least_loaded(state, |w| eligible(w) && w.peer, exclude),
        Reach::Here => least_loaded(state, |w| eligible(w) && !w.peer, exclude),
        Reach::Any => match least_loaded(state, |w| eligible(w) && !w.peer, exclude) {
            Err(_) => least_loaded(state, eligible, exclude),
            here => here,
        },
    }
}

/// Removes a retiring peer once it runs nothing.
fn forget_if_retired(state: &mut State, id: WorkerId) {
    if state
        .workers
        .get(&id)
        .is_some_and(|w| w.retiring && w.jobs.is_empty())
    {
        state.workers.remove(&id);
    }
}

/// A worker's preference until something ranks it: above any ranked worker, so that a
/// newcomer gets a job and so a measure.
pub const UNRANKED: u64 = u64::MAX;

/// The least-loaded worker with a free slot among those `eligible` and not excluded; among
/// equally loaded ones, the highest preference.
fn least_loaded(
    state: &State,
    eligible: impl Fn(&Worker) -> bool,
    exclude: &[WorkerId],
) -> Result<WorkerId, DispatchError> {
    let mut any = false;
    let mut best: Option<(WorkerId, u64, u64)> = None;
    for (id, w) in &state.workers {
        if !eligible(w) || exclude.contains(id) {
            continue;
        }
        any = true;
        if !w.free() {
            continue;
        }
        // Load as a fraction of capacity, compared without floats.
        let load = (w.jobs.len() as u64 * 1_000_000) / u64::from(w.capacity);
        let better = |(_, l, p): (WorkerId, u64, u64)| load < l || (load == l && w.preference > p);
        if best.is_none_or(better) {
            best = Some((*id, load, w.preference));
        }
    }
    match best {
        Some((id, ..)) => Ok(id),
        None if any => Err(DispatchError::Busy),
        None => Err(DispatchError::NoWorker),
    }
}

/// What this replica's own workers offer for one model, as other replicas are told.
#[derive(Debug, Clone, PartialEq)]
pub struct Offer {
    /// The model with the capabilities of its workers here (OR over them: a job sent on for
    /// a capability runs there only on a worker that has it, as everywhere).
    pub model: ServedModel,
    /// Free slots over the workers serving it (a worker serving several models counts for each).
    pub free: u32,
}

/// The peers' side of the pool, used by `shoal-cluster`.
impl Pool {
    /// Adds another replica's workers for `model` as one peer, whose jobs go to `outbox`.
    pub fn register_peer(
        &self,
        model: ServedModel,
        capacity: u32,
        outbox: mpsc::UnboundedSender<GatewayMessage>,
    ) -> WorkerId {
        self.insert_peer(WorkerKind::Upstream, model, capacity, outbox)
    }

    /// Adds another replica's image workers rendering with `model` as one peer.
    pub fn register_image_peer(
        &self,
        model: ServedModel,
        capacity: u32,
        outbox: mpsc::UnboundedSender<GatewayMessage>,
    ) -> WorkerId {
        self.insert_peer(WorkerKind::Image, model, capacity, outbox)
    }

    fn insert_peer(
        &self,
        kind: WorkerKind,
        model: ServedModel,
        capacity: u32,
        outbox: mpsc::UnboundedSender<GatewayMessage>,
    ) -> WorkerId {
        self.insert(Worker {
            kind,
            models: vec![model],
            announced: HashMap::new(),
            capacity,
            outbox,
            jobs: HashMap::new(),
            peer: true,
            retiring: false,
            preference: UNRANKED,
        })
    }

    /// A peer's replica is shutting down: the peer takes no new job, no longer makes its
    /// model available, and leaves the pool when the jobs it runs end (or now, if none).
    pub fn retire_peer(&self, id: WorkerId) {
        let mut state = self.lock();
        if let Some(w) = state.workers.get_mut(&id).filter(|w| w.peer) {
            w.retiring = true;
            forget_if_retired(&mut state, id);
        }
    }

    /// Sets what a peer offers: `free` slots beside the jobs this replica runs on it now.
    pub fn update_peer(&self, id: WorkerId, model: ServedModel, free: u32) {
        let mut state = self.lock();
        if let Some(w) = state.workers.get_mut(&id).filter(|w| w.peer) {
            w.models = vec![model];
            w.capacity = free.saturating_add(w.jobs.len() as u32);
        }
        drop(state);
        self.slot_freed.notify_waiters();
    }

    /// Every model a worker connected here serves, with its free slots; peers not included.
    /// Swarm span nodes are not offered: `service-swarm` runs on this replica's own ring.
    pub fn offers(&self) -> Vec<Offer> {
        self.offers_of(|w| !matches!(w.kind, WorkerKind::Image | WorkerKind::Swarm))
    }

    /// [`Pool::offers`] for the image workers connected here, by the model they render with.
    pub fn image_offers(&self) -> Vec<Offer> {
        self.offers_of(|w| w.kind == WorkerKind::Image)
    }

    fn offers_of(&self, eligible: impl Fn(&Worker) -> bool) -> Vec<Offer> {
        let state = self.lock();
        let mut offers: Vec<Offer> = Vec::new();
        let here = state.workers.values().filter(|w| !w.peer && eligible(w));
        for w in here {
            let free = w.capacity.saturating_sub(w.jobs.len() as u32);
            for m in &w.models {
                match offers.iter_mut().find(|o| o.model.id == m.id) {
                    Some(o) => {
                        o.free = o.free.saturating_add(free);
                        o.model.tools |= m.tools;
                        o.model.vision |= m.vision;
                        o.model.reasoning |= m.reasoning;
                        o.model.structured_outputs |= m.structured_outputs;
                    }
                    None => offers.push(Offer {
                        model: m.clone(),
                        free,
                    }),
                }
            }
        }
        offers
    }

    /// True while `job_id` runs on worker (or peer) `id`.
    pub fn runs(&self, id: WorkerId, job_id: &str) -> bool {
        self.lock().job_owner.get(job_id) == Some(&id)
    }
}
