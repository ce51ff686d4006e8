//! `service-swarm` for the Shoal gateway: a model too large for one machine, served by a ring
//! of span nodes (`kind: swarm` workers), each running a contiguous span of its layers.
//!
//! `ring` is the registry: which spans are live, whether they cover a model's layers, and the
//! cheapest chain through them. `Swarm` runs sessions over it: per job it picks a chain,
//! opens a session on every node of it (`span_open`), sends the job to the chain's entry, and
//! relays the binary frames between the nodes: hidden states forward, sampled tokens from the
//! last span back to the entry. The gateway holds no hidden state; frames pass through memory.
//! Of each session it keeps the job and the token ids sampled so far (`sampled`), so that
//! another entry can take the job over when the entry is lost mid-generation.
//!
//! [`SpanRing`] is the gateway's `SwarmRing` seam: the worker socket hands it span nodes'
//! spans, frames, job ends and departures; the relay its model's jobs; the binary wires it in
//! through `Seams`. It drives the gateway's worker pool and owns nothing else: no HTTP route,
//! no storage.

mod ring;
mod sampled;

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::registry::Registry;
use shoal_gateway::pool::{Detached, DispatchError, Job, JobEvent, Pool, WorkerId};
use shoal_gateway::swarm::MODEL;
use shoal_gateway::{AppState, SwarmRing};
use shoal_protocol::swarm::{FrameHeader, FrameKind, Sampling, SpanInfo};
use shoal_protocol::worker::{ErrorCode, GatewayMessage, JobRequest};

use ring::Ring;
use sampled::Sampled;

/// How long a session that lost a node waits for live spans to tile the lost layers again
/// before its job fails.
pub const REPAIR_DEADLINE: Duration = Duration::from_secs(10);

/// How long a node after the entry may take to answer a frame before it counts as lost. Long
/// enough for a 256-token prompt chunk on a slow node; the entry's own wait for a token (60 s)
/// is longer than this plus [`REPAIR_DEADLINE`].
pub const STEP_DEADLINE: Duration = Duration::from_secs(30);

/// One job's pass through a chain.
struct Session {
    chain: Vec<WorkerId>,
    job_id: String,
    /// The job as its entry got it, and the model's fingerprint: for another entry, should
    /// this one be lost.
    request: Arc<JobRequest>,
    fingerprint: String,
    /// Kept for the last span of a repaired chain.
    sampling: Sampling,
    /// The tokens relayed to the entry so far.
    sampled: Sampled,
    /// The node after the entry that was last handed a frame and has not answered yet.
    pending: Option<(WorkerId, Instant)>,
}

/// A session whose chain lost a node and found no other yet. Its entry keeps the job, or,
/// when the entry itself was lost, the job waits here for a new chain (`orphan`).
struct Waiting {
    session: Session,
    until: Instant,
    orphan: Option<Detached>,
}

#[derive(Default)]
struct Inner {
    ring: Ring,
    sessions: HashMap<u64, Session>,
    by_job: HashMap<String, u64>,
    waiting: HashMap<u64, Waiting>,
}

/// A span node in `/metrics`: `wrk_<id>` as the worker's `welcome` names it, and its span.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct NodeLabels {
    pub worker: String,
    pub fingerprint: String,
    pub start: String,
    pub end: String,
    pub total: String,
}

/// A layer range `[start, end)` of a model that no live span holds.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct GapLabels {
    pub fingerprint: String,
    pub start: String,
    pub end: String,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct ModelLabels {
    pub fingerprint: String,
    pub layers: String,
}

/// What `/metrics` shows of the ring. The families are rebuilt from the registry on every
/// change, so they show exactly the live nodes (what `shoal admin swarm status` reads).
#[derive(Clone, Default)]
pub struct SwarmMetrics {
    /// 1 while a chain of live spans covers a model's layers.
    pub available: Gauge,
    pub nodes: Gauge,
    /// Layers no live span holds (summed over models).
    pub gap_layers: Gauge,
    pub sessions: Counter,
    /// Sessions that lost a node mid-generation.
    pub broken: Counter,
    /// Broken sessions that went on through another chain.
    pub rerouted: Counter,
    /// Of those, sessions that lost their entry and went on from another one.
    pub resumed: Counter,
    pub frames: Counter,
    pub frame_bytes: Counter,
    /// Per model: 1 while covered.
    pub covered: Family<ModelLabels, Gauge>,
    /// Per gap: its size in layers.
    pub gaps: Family<GapLabels, Gauge>,
    /// Per node: sessions running on it.
    pub node_sessions: Family<NodeLabels, Gauge>,
    /// Per node: sessions it takes at once.
    pub node_capacity: Family<NodeLabels, Gauge>,
}

impl SwarmMetrics {
    /// Adds the families to the gateway's `/metrics`.
    fn register(&self, r: &mut Registry) {
        let m = self;
        r.register(
            "swarm_available",
            "1 while live swarm spans cover every layer of a model",
            m.available.clone(),
        );
        r.register("swarm_nodes", "Live swarm span nodes", m.nodes.clone());
        r.register(
            "swarm_gap_layers",
            "Layers of swarm models that no live span holds",
            m.gap_layers.clone(),
        );
        r.register(
            "swarm_sessions",
            "Swarm sessions opened (one per job on a chain)",
            m.sessions.clone(),
        );
        r.register(
            "swarm_sessions_broken",
            "Swarm sessions that lost a node while running",
            m.broken.clone(),
        );
        r.register(
            "swarm_sessions_rerouted",
            "Swarm sessions that lost a node and went on through another chain",
            m.rerouted.clone(),
        );
        r.register(
            "swarm_sessions_resumed",
            "Swarm sessions that lost their entry mid-generation and went on from another entry \
             (also counted as rerouted)",
            m.resumed.clone(),
        );
        r.register(
            "swarm_covered",
            "Per swarm model (fingerprint): 1 while live spans cover its layers",
            m.covered.clone(),
        );
        r.register(
            "swarm_gap",
            "Per layer range no live span of a swarm model holds: its size in layers",
            m.gaps.clone(),
        );
        r.register(
            "swarm_node_sessions",
            "Per live span node: sessions running on it",
            m.node_sessions.clone(),
        );
        r.register(
            "swarm_node_capacity",
            "Per live span node: sessions it takes at once",
            m.node_capacity.clone(),
        );
        r.register(
            "swarm_frames",
            "Swarm frames relayed between span nodes",
            m.frames.clone(),
        );
        r.register(
            "swarm_frame_bytes",
            "Bytes of swarm frames relayed",
            m.frame_bytes.clone(),
        );
    }
}

/// The ring and its sessions.
#[derive(Default)]
struct Swarm {
    inner: Mutex<Inner>,
    next_session: AtomicU64,
    pub metrics: SwarmMetrics,
}

impl Swarm {
    fn lock(&self) -> std::sync::MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn new_session(&self) -> u64 {
        self.next_session.fetch_add(1, Ordering::Relaxed) + 1
    }

    /// A node announced its span. Sessions waiting for a chain may find one through it.
    pub fn join(
        &self,
        pool: &Pool,
        worker: WorkerId,
        span: SpanInfo,
        capacity: u32,
    ) -> Result<(), &'static str> {
        span.check()?;
        let mut inner = self.lock();
        inner.ring.join(worker, span, capacity);
        self.repair(pool, &mut inner);
        self.observe(&inner.ring);
        Ok(())
    }

    /// A node left: its sessions are broken. One whose entry is still live waits for another
    /// chain from that entry ([`Swarm::repair`], at once when the ring has one), and the other
    /// nodes of the old chain close it. One whose entry left waits for a whole new chain when
    /// its client already has output ([`orphan`]); without output, its job fails and is
    /// tried again as a new one. True when sessions wait: the caller runs [`Swarm::expire`]
    /// after [`REPAIR_DEADLINE`].
    pub fn leave(&self, pool: &Pool, worker: WorkerId) -> bool {
        let mut inner = self.lock();
        if !inner.ring.leave(worker) {
            return false;
        }
        let broken: Vec<u64> = inner
            .sessions
            .iter()
            .filter(|(_, s)| s.chain.contains(&worker))
            .map(|(id, _)| *id)
            .collect();
        let until = Instant::now() + REPAIR_DEADLINE;
        for id in broken {
            let Some(s) = inner.sessions.remove(&id) else {
                continue;
            };
            self.metrics.broken.inc();
            inner.ring.occupy(&s.chain[1..], -1);
            for w in s.chain[1..].iter().filter(|w| **w != worker) {
                pool.send_to(*w, GatewayMessage::SpanClose { session: id });
            }
            if s.chain[0] == worker {
                orphan(pool, &mut inner, id, s, until);
            } else {
                let waiting = Waiting {
                    session: s,
                    until,
                    orphan: None,
                };
                inner.waiting.insert(id, waiting);
            }
        }
        let entry_gone: Vec<u64> = (inner.waiting.iter())
            .filter(|(_, w)| w.orphan.is_none() && w.session.chain[0] == worker)
            .map(|(id, _)| *id)
            .collect();
        for id in entry_gone {
            if let Some(w) = inner.waiting.remove(&id) {
                orphan(pool, &mut inner, id, w.session, w.until);
            }
        }
        self.repair(pool, &mut inner);
        self.observe(&inner.ring);
        !inner.waiting.is_empty()
    }

    /// Moves each waiting session that has a chain again onto it: a session whose entry lives
    /// onto a chain from that entry, which replays into it; an orphan onto any chain of its
    /// model, whose entry takes the job over.
    fn repair(&self, pool: &Pool, inner: &mut Inner) {
        let ids: Vec<u64> = inner.waiting.keys().copied().collect();
        for id in ids {
            let w = &inner.waiting[&id];
            let orphan = w.orphan.is_some();
            let chain = match orphan {
                false => inner.ring.chain_from(w.session.chain[0]),
                true => inner.ring.chain_for(&w.session.fingerprint),
            };
            match chain {
                Some(chain) if orphan => self.take_over(pool, inner, id, chain),
                Some(chain) => self.replay(pool, inner, id, chain),
                None => {}
            }
        }
    }

    /// Waiting session `id` goes on through `chain` from its own entry, which replays into it.
    fn replay(&self, pool: &Pool, inner: &mut Inner, id: u64, chain: Vec<WorkerId>) {
        let Some(w) = inner.waiting.remove(&id) else {
            return;
        };
        let entry = chain[0];
        let to = self.new_session();
        // Queued before the entry's replayed frames can be relayed (`route` waits for the
        // lock held here).
        open_rest(pool, &chain, to, w.session.sampling);
        pool.send_to(entry, GatewayMessage::SpanReplay { session: id, to });
        inner.ring.occupy(&chain[1..], 1);
        self.resume_as(inner, to, w.session, chain);
    }

    /// Orphan `id`'s job goes to `chain`'s entry under its own id, with the tokens sampled so
    /// far ([`Resume`](shoal_protocol::swarm::Resume)): the entry renders the same prompt,
    /// feeds those tokens through the chain and its text side, and goes on; the pool drops
    /// the deltas the client already has. It stays an orphan when the entry cannot take it.
    fn take_over(&self, pool: &Pool, inner: &mut Inner, id: u64, chain: Vec<WorkerId>) {
        let Some(w) = inner.waiting.get_mut(&id) else {
            return;
        };
        let Some(job) = w.orphan.take() else {
            return;
        };
        if job.abandoned() {
            let job_id = w.session.job_id.clone();
            inner.waiting.remove(&id);
            inner.by_job.remove(&job_id);
            pool.fail_detached(job);
            return;
        }
        let to = self.new_session();
        let open = GatewayMessage::SpanOpen {
            session: to,
            job_id: Some(w.session.job_id.clone()),
            sampling: (chain.len() == 1).then_some(w.session.sampling),
            resume: Some(w.session.sampled.resume()),
        };
        if let Err(job) = pool.attach(chain[0], (MODEL, &w.session.request), open, job) {
            w.orphan = Some(job);
            return;
        }
        let Some(w) = inner.waiting.remove(&id) else {
            return;
        };
        // Still under the lock, which `route` takes: queued before any frame of the session.
        open_rest(pool, &chain, to, w.session.sampling);
        inner.ring.occupy(&chain, 1);
        self.resume_as(inner, to, w.session, chain);
        self.metrics.resumed.inc();
    }

    /// A broken session goes on as session `to` through `chain`.
    fn resume_as(&self, inner: &mut Inner, to: u64, session: Session, chain: Vec<WorkerId>) {
        inner.by_job.insert(session.job_id.clone(), to);
        let session = Session {
            chain,
            pending: None,
            ..session
        };
        inner.sessions.insert(to, session);
        self.metrics.rerouted.inc();
    }

    /// Fails the jobs of sessions that waited past their deadline: the entry is told to stop
    /// and the job fails with `worker_lost` (the relay ends a stream that had output with an
    /// error event, billing what was delivered).
    pub fn expire(&self, pool: &Pool) {
        self.expire_before(pool, Instant::now());
    }

    fn expire_before(&self, pool: &Pool, now: Instant) {
        let mut inner = self.lock();
        let late: Vec<u64> = inner
            .waiting
            .iter()
            .filter(|(_, w)| w.until <= now)
            .map(|(id, _)| *id)
            .collect();
        for id in late {
            let Some(w) = inner.waiting.remove(&id) else {
                continue;
            };
            let (entry, job_id) = (w.session.chain[0], w.session.job_id);
            inner.by_job.remove(&job_id);
            if let Some(job) = w.orphan {
                pool.fail_detached(job);
                continue;
            }
            inner.ring.occupy(&[entry], -1);
            pool.send_to(
                entry,
                GatewayMessage::Cancel {
                    job_id: job_id.clone(),
                },
            );
            let lost = JobEvent::Failed {
                code: ErrorCode::WorkerLost,
                retryable: true,
            };
            pool.deliver(entry, &job_id, lost);
        }
        self.observe(&inner.ring);
    }

    /// Drops from the ring every node that has not answered a frame within [`STEP_DEADLINE`]
    /// (as [`Swarm::leave`] does; the node stays connected, but no chain uses it). True when
    /// sessions now wait for a chain.
    pub fn overdue(&self, pool: &Pool, now: Instant) -> bool {
        let mut late: Vec<WorkerId> = self
            .lock()
            .sessions
            .values()
            .filter_map(|s| s.pending)
            .filter(|(_, since)| now.saturating_duration_since(*since) >= STEP_DEADLINE)
            .map(|(w, _)| w)
            .collect();
        late.sort_unstable();
        late.dedup();
        let mut waiting = false;
        for worker in late {
            tracing::warn!(
                worker_id = worker,
                "swarm node missed its step deadline: out of the ring"
            );
            waiting |= self.leave(pool, worker);
        }
        waiting
    }

    pub fn available(&self) -> bool {
        self.lock().ring.available()
    }

    fn observe(&self, ring: &Ring) {
        let m = &self.metrics;
        let coverage = ring.coverage();
        let gaps: u32 = coverage
            .iter()
            .flat_map(|c| &c.gaps)
            .map(|(a, b)| b - a)
            .sum();
        let nodes: usize = coverage.iter().map(|c| c.nodes).sum();
        m.available.set(i64::from(ring.available()));
        m.nodes.set(nodes as i64);
        m.gap_layers.set(i64::from(gaps));
        m.covered.clear();
        m.gaps.clear();
        for c in &coverage {
            let model = ModelLabels {
                fingerprint: c.fingerprint.clone(),
                layers: c.layers.to_string(),
            };
            m.covered.get_or_create(&model).set(i64::from(c.covered));
            for (a, b) in &c.gaps {
                let gap = GapLabels {
                    fingerprint: c.fingerprint.clone(),
                    start: a.to_string(),
                    end: b.to_string(),
                };
                m.gaps.get_or_create(&gap).set(i64::from(b - a));
            }
        }
        m.node_sessions.clear();
        m.node_capacity.clear();
        for (id, span, busy, capacity) in ring.nodes() {
            let node = NodeLabels {
                worker: format!("wrk_{id}"),
                fingerprint: span.fingerprint.clone(),
                start: span.start.to_string(),
                end: span.end.to_string(),
                total: span.total.to_string(),
            };
            m.node_sessions.get_or_create(&node).set(i64::from(busy));
            m.node_capacity
                .get_or_create(&node)
                .set(i64::from(capacity));
        }
    }

    /// Picks the cheapest chain whose entry is not in `exclude`, opens a session on each of
    /// its nodes and sends the job to its entry.
    fn open(
        &self,
        pool: &Pool,
        request: &JobRequest,
        exclude: &[WorkerId],
    ) -> Result<Job, DispatchError> {
        let mut inner = self.lock();
        if !inner.ring.available() {
            return Err(DispatchError::NoWorker);
        }
        // `exclude` holds entries of chains that failed this request; when it leaves no chain,
        // any will do (the node that failed has left the ring).
        let chain = inner
            .ring
            .chain(exclude)
            .or_else(|| inner.ring.chain(&[]))
            .ok_or(DispatchError::Busy)?;
        let fingerprint = (inner.ring.span(chain[0]).map(|s| s.fingerprint.clone()))
            .ok_or(DispatchError::NoWorker)?;
        let session = self.new_session();
        let sampling = Sampling {
            temperature: request.temperature.unwrap_or(1.0) as f32,
            top_p: request.top_p.unwrap_or(1.0) as f32,
            // Fixed per job: a replacement node must draw what the lost one would have.
            seed: request.seed.map_or_else(rand::random, |s| s as u64),
        };
        let entry_sampling = (chain.len() == 1).then_some(sampling);
        let job = pool.dispatch_to(chain[0], MODEL, request, |job_id| {
            GatewayMessage::SpanOpen {
                session,
                job_id: Some(job_id.to_owned()),
                sampling: entry_sampling,
                resume: None,
            }
        })?;
        // Still under the lock, which `route` takes: these are queued before any frame of the
        // session can be relayed to their nodes.
        open_rest(pool, &chain, session, sampling);
        inner.ring.occupy(&chain, 1);
        inner.by_job.insert(job.id.clone(), session);
        let job_id = job.id.clone();
        inner.sessions.insert(
            session,
            Session {
                chain,
                job_id,
                request: Arc::new(request.clone()),
                fingerprint,
                sampling,
                sampled: Sampled::default(),
                pending: None,
            },
        );
        self.metrics.sessions.inc();
        self.observe(&inner.ring);
        Ok(job)
    }

    /// Relays a frame from node `from` to the next node of its session's chain (a token frame
    /// from the last node to the entry). `Err`: the node broke the protocol.
    pub fn route(&self, pool: &Pool, from: WorkerId, frame: Vec<u8>) -> Result<(), &'static str> {
        let (header, payload) =
            FrameHeader::decode(&frame).map_err(|_| "protocol error (malformed swarm frame)")?;
        let mut inner = self.lock();
        // A session that just ended, or whose chain broke: frames still in flight are dropped.
        let Some(s) = inner.sessions.get_mut(&header.session) else {
            return Ok(());
        };
        let at = s
            .chain
            .iter()
            .position(|w| *w == from)
            .ok_or("protocol error (frame for a session the node is not in)")?;
        let to = match header.kind {
            FrameKind::Hidden if at + 1 < s.chain.len() => s.chain[at + 1],
            FrameKind::Token if at + 1 == s.chain.len() => {
                let token = (header.token(payload))
                    .ok_or("protocol error (a token frame must carry one u32 token)")?;
                s.sampled.record(header.position, token);
                s.chain[0]
            }
            _ => return Err("protocol error (frame out of place in its chain)"),
        };
        s.pending = (to != s.chain[0]).then(|| (to, Instant::now()));
        self.metrics.frames.inc();
        self.metrics.frame_bytes.inc_by(frame.len() as u64);
        pool.send_to(to, GatewayMessage::Frame(frame));
        Ok(())
    }

    /// A job ended at its entry `entry`: the other nodes close its session.
    pub fn job_ended(&self, pool: &Pool, entry: WorkerId, job_id: &str) {
        let mut inner = self.lock();
        let Some(&id) = inner.by_job.get(job_id) else {
            return;
        };
        // Only the session's entry ends it (another node's word for a job id is not taken).
        let chain = match (inner.sessions.get(&id), inner.waiting.get(&id)) {
            (Some(s), _) => &s.chain,
            (None, Some(w)) => &w.session.chain,
            (None, None) => return,
        };
        if chain[0] != entry {
            return;
        }
        inner.by_job.remove(job_id);
        if let Some(w) = inner.waiting.remove(&id) {
            inner.ring.occupy(&w.session.chain[..1], -1);
        }
        if let Some(s) = inner.sessions.remove(&id) {
            inner.ring.occupy(&s.chain, -1);
            for w in &s.chain[1..] {
                pool.send_to(*w, GatewayMessage::SpanClose { session: id });
            }
        }
        self.observe(&inner.ring);
    }
}

/// A session lost its entry. When its client already has output, its job is taken off the
/// leaving entry to wait for a new chain ([`Swarm::take_over`]); without output, it fails
/// (`worker_lost`, retryable), and the relay tries the request again as a new job.
fn orphan(pool: &Pool, inner: &mut Inner, id: u64, session: Session, until: Instant) {
    let job = pool.detach(session.chain[0], &session.job_id);
    match job {
        Some(job) if job.delivered() > 0 => {
            let orphan = Some(job);
            let waiting = Waiting {
                session,
                until,
                orphan,
            };
            inner.waiting.insert(id, waiting);
        }
        other => {
            inner.by_job.remove(&session.job_id);
            if let Some(job) = other {
                pool.fail_detached(job);
            }
        }
    }
}

/// Opens `session` on every node of `chain` after its entry, the last with `sampling`. A
/// node already gone: its leave (waiting for the swarm's lock) breaks the session.
fn open_rest(pool: &Pool, chain: &[WorkerId], session: u64, sampling: Sampling) {
    let last = chain.len() - 1;
    for (i, w) in chain.iter().enumerate().skip(1) {
        let open = GatewayMessage::SpanOpen {
            session,
            job_id: None,
            sampling: (i == last).then_some(sampling),
            resume: None,
        };
        pool.send_to(*w, open);
    }
}

/// The gateway's [`SwarmRing`]: one [`Swarm`], shared by the socket, the relay and the
/// timers that expire its sessions.
#[derive(Clone, Default)]
pub struct SpanRing(Arc<Swarm>);

impl SpanRing {
    /// Fails, after [`REPAIR_DEADLINE`], the sessions still waiting for a chain then.
    fn expire_later(&self, state: &AppState) {
        let (ring, state) = (self.clone(), state.clone());
        tokio::spawn(async move {
            tokio::time::sleep(REPAIR_DEADLINE).await;
            ring.0.expire(&state.pool);
        });
    }
}

impl SwarmRing for SpanRing {
    fn join(
        &self,
        state: &AppState,
        worker: WorkerId,
        span: SpanInfo,
        capacity: u32,
    ) -> Result<(), &'static str> {
        self.0.join(&state.pool, worker, span, capacity)
    }

    fn route(&self, state: &AppState, from: WorkerId, frame: Vec<u8>) -> Result<(), &'static str> {
        self.0.route(&state.pool, from, frame)
    }

    fn job_ended(&self, state: &AppState, entry: WorkerId, job_id: &str) {
        self.0.job_ended(&state.pool, entry, job_id);
    }

    /// Broken sessions that wait for a chain fail after [`REPAIR_DEADLINE`] if none comes.
    fn leave(&self, state: &AppState, worker: WorkerId) {
        if self.0.leave(&state.pool, worker) {
            self.expire_later(state);
        }
    }

    fn open(
        &self,
        state: &AppState,
        request: &JobRequest,
        exclude: &[WorkerId],
    ) -> Result<Job, DispatchError> {
        self.0.open(&state.pool, request, exclude)
    }

    fn available(&self) -> bool {
        self.0.available()
    }

    fn free(&self) -> bool {
        self.0.lock().ring.chain(&[]).is_some()
    }

    /// Checks the step deadline every second.
    fn watch(&self, state: AppState) -> tokio::task::JoinHandle<()> {
        let ring = self.clone();
        tokio::spawn(async move {
            let mut tick = tokio::time::interval(Duration::from_secs(1));
            loop {
                tick.tick().await;
                if ring.0.overdue(&state.pool, Instant::now()) {
                    ring.expire_later(&state);
                }
            }
        })
    }

    fn register_metrics(&self, registry: &mut Registry) {
        self.0.metrics.register(registry);
    }
}

#[cfg(test)]
mod tests;
