//! `service-swarm`: a model too large for one machine, served by a ring of span nodes
//! (`kind: swarm` workers), each running a contiguous span of its layers.
//!
//! [`ring`] is the registry: which spans are live, whether they cover a model's layers, and the
//! cheapest chain through them. [`Swarm`] runs sessions over it: per job it picks a chain,
//! opens a session on every node of it (`span_open`), sends the job to the chain's entry, and
//! relays the binary frames between the nodes: hidden states forward, sampled tokens from the
//! last span back to the entry. The gateway holds no hidden state; frames pass through memory.
//!
//! Hooks elsewhere are single calls: `worker_ws` (span announcements, frames, job ends, leaving
//! nodes), `relay` ([`dispatch`]) and `api` ([`available`]).

pub mod ring;

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::gauge::Gauge;
use shoal_protocol::swarm::{FrameHeader, FrameKind, Sampling, SpanInfo};
use shoal_protocol::worker::{ErrorCode, GatewayMessage, JobRequest, ServedModel};

use crate::pool::{DispatchError, Job, JobEvent, Pool, WorkerId};
use crate::AppState;
pub use ring::{Coverage, Ring};

/// The catalog id the ring serves.
pub const MODEL: &str = "service-swarm";

/// One job's pass through a chain.
struct Session {
    chain: Vec<WorkerId>,
    job_id: String,
}

#[derive(Default)]
struct Inner {
    ring: Ring,
    sessions: HashMap<u64, Session>,
    by_job: HashMap<String, u64>,
}

/// What `/metrics` shows of the ring.
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
    pub frames: Counter,
    pub frame_bytes: Counter,
}

/// The ring and its sessions.
#[derive(Default)]
pub struct Swarm {
    inner: Mutex<Inner>,
    next_session: AtomicU64,
    pub metrics: SwarmMetrics,
}

impl Swarm {
    fn lock(&self) -> std::sync::MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// A node announced its span.
    pub fn join(
        &self,
        worker: WorkerId,
        span: SpanInfo,
        capacity: u32,
    ) -> Result<(), &'static str> {
        span.check()?;
        let mut inner = self.lock();
        inner.ring.join(worker, span, capacity);
        self.observe(&inner.ring);
        Ok(())
    }

    /// A node left: its sessions are broken. Their jobs fail (`worker_lost`, retryable, so a
    /// job without output yet is tried again on another chain), the other nodes of each close
    /// the session, and the entry is told to stop.
    pub fn leave(&self, pool: &Pool, worker: WorkerId) {
        let mut inner = self.lock();
        if !inner.ring.leave(worker) {
            return;
        }
        self.observe(&inner.ring);
        let broken: Vec<u64> = inner
            .sessions
            .iter()
            .filter(|(_, s)| s.chain.contains(&worker))
            .map(|(id, _)| *id)
            .collect();
        for id in broken {
            let Some(s) = inner.sessions.remove(&id) else {
                continue;
            };
            inner.by_job.remove(&s.job_id);
            inner.ring.occupy(&s.chain, -1);
            self.metrics.broken.inc();
            let entry = s.chain[0];
            // The entry closes its own session when its job ends.
            for w in s.chain[1..].iter().filter(|w| **w != worker) {
                pool.send_to(*w, GatewayMessage::SpanClose { session: id });
            }
            if entry != worker {
                pool.send_to(
                    entry,
                    GatewayMessage::Cancel {
                        job_id: s.job_id.clone(),
                    },
                );
                let lost = JobEvent::Failed {
                    code: ErrorCode::WorkerLost,
                    retryable: true,
                };
                pool.deliver(entry, &s.job_id, lost);
            }
        }
    }

    pub fn available(&self) -> bool {
        self.lock().ring.available()
    }

    pub fn coverage(&self) -> Vec<Coverage> {
        self.lock().ring.coverage()
    }

    fn observe(&self, ring: &Ring) {
        let coverage = ring.coverage();
        let gaps: u32 = coverage
            .iter()
            .flat_map(|c| &c.gaps)
            .map(|(a, b)| b - a)
            .sum();
        let nodes: usize = coverage.iter().map(|c| c.nodes).sum();
        self.metrics.available.set(i64::from(ring.available()));
        self.metrics.nodes.set(nodes as i64);
        self.metrics.gap_layers.set(i64::from(gaps));
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
        let session = self.next_session.fetch_add(1, Ordering::Relaxed) + 1;
        let sampling = Sampling {
            temperature: request.temperature.unwrap_or(1.0) as f32,
            top_p: request.top_p.unwrap_or(1.0) as f32,
            // Fixed per job: a replacement node must draw what the lost one would have.
            seed: request.seed.map_or_else(rand::random, |s| s as u64),
        };
        let last = chain.len() - 1;
        let entry_sampling = (last == 0).then_some(sampling);
        let job = pool.dispatch_to(chain[0], MODEL, request, |job_id| {
            GatewayMessage::SpanOpen {
                session,
                job_id: Some(job_id.to_owned()),
                sampling: entry_sampling,
            }
        })?;
        // Still under the lock, which `route` takes: these are queued before any frame of the
        // session can be relayed to their nodes.
        for (i, w) in chain.iter().enumerate().skip(1) {
            let open = GatewayMessage::SpanOpen {
                session,
                job_id: None,
                sampling: (i == last).then_some(sampling),
            };
            // A node already gone: its leave (waiting for this lock) breaks the session.
            pool.send_to(*w, open);
        }
        inner.ring.occupy(&chain, 1);
        inner.by_job.insert(job.id.clone(), session);
        inner.sessions.insert(
            session,
            Session {
                chain,
                job_id: job.id.clone(),
            },
        );
        self.metrics.sessions.inc();
        Ok(job)
    }

    /// Relays a frame from node `from` to the next node of its session's chain (a token frame
    /// from the last node to the entry). `Err`: the node broke the protocol.
    pub fn route(&self, pool: &Pool, from: WorkerId, frame: Vec<u8>) -> Result<(), &'static str> {
        let (header, _) =
            FrameHeader::decode(&frame).map_err(|_| "protocol error (malformed swarm frame)")?;
        let inner = self.lock();
        // A session that just ended: frames still in flight are dropped.
        let Some(s) = inner.sessions.get(&header.session) else {
            return Ok(());
        };
        let at = s
            .chain
            .iter()
            .position(|w| *w == from)
            .ok_or("protocol error (frame for a session the node is not in)")?;
        let to = match header.kind {
            FrameKind::Hidden if at + 1 < s.chain.len() => s.chain[at + 1],
            FrameKind::Token if at + 1 == s.chain.len() => s.chain[0],
            _ => return Err("protocol error (frame out of place in its chain)"),
        };
        self.metrics.frames.inc();
        self.metrics.frame_bytes.inc_by(frame.len() as u64);
        pool.send_to(to, GatewayMessage::Frame(frame));
        Ok(())
    }

    /// A job ended at its entry: the other nodes close its session.
    pub fn job_ended(&self, pool: &Pool, job_id: &str) {
        let mut inner = self.lock();
        let Some(id) = inner.by_job.remove(job_id) else {
            return;
        };
        if let Some(s) = inner.sessions.remove(&id) {
            inner.ring.occupy(&s.chain, -1);
            for w in &s.chain[1..] {
                pool.send_to(*w, GatewayMessage::SpanClose { session: id });
            }
        }
    }
}

/// Dispatches a chat job: swarm jobs through a chain of this replica's ring, or, when it has
/// none free, to another replica whose ring announced one; the rest to the pool.
pub async fn dispatch(
    state: &AppState,
    model: &str,
    request: &JobRequest,
    exclude: &[WorkerId],
) -> Result<Job, DispatchError> {
    if model != MODEL {
        return state.pool.dispatch(model, request, exclude).await;
    }
    match state.swarm.open(&state.pool, request, exclude) {
        Err(_) if state.pool.peers_serve(MODEL) => {
            (state.pool.dispatch_to_peers(MODEL, request, exclude)).await
        }
        opened => opened,
    }
}

/// A swarm job another replica forwarded: this replica's ring only.
pub fn dispatch_here(state: &AppState, request: &JobRequest) -> Result<Job, DispatchError> {
    state.swarm.open(&state.pool, request, &[])
}

/// Whether a model can be served now: the swarm model when a ring (here, or another
/// replica's) covers it, the rest when a worker serves them.
pub fn available(state: &AppState, model: &str) -> bool {
    if model == MODEL {
        state.swarm.available() || state.pool.peers_serve(MODEL)
    } else {
        state.pool.available(model)
    }
}

/// What this replica's ring offers other replicas: `service-swarm` with one free slot while a
/// chain is free now, none while every chain is busy; `None` without a ring.
pub fn offer(state: &AppState) -> Option<crate::pool::Offer> {
    if !state.swarm.available() {
        return None;
    }
    let free = u32::from(state.swarm.lock().ring.chain(&[]).is_some());
    let model = (state.pool.capabilities(MODEL)).unwrap_or_else(|| ServedModel {
        id: MODEL.to_owned(),
        ..Default::default()
    });
    Some(crate::pool::Offer { model, free })
}

#[cfg(test)]
mod tests;
