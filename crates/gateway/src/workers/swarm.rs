//! `service-swarm`'s seam: the ring of span nodes lives outside the gateway (`shoal-swarm`,
//! [`SwarmRing`]); here is where its model's jobs go (this replica's ring, else another
//! replica's), and what the socket hands it.

use prometheus_client::registry::Registry;
use shoal_protocol::swarm::SpanInfo;
use shoal_protocol::worker::{JobRequest, ServedModel};

use crate::workers::pool::{DispatchError, Job, Offer, WorkerId};
use crate::AppState;

/// The catalog id the ring serves.
pub const MODEL: &str = "service-swarm";

/// The ring of span nodes (`kind: swarm` workers) and the sessions through it. The socket
/// hands it a node's span, binary frames, job ends and departure; the relay its jobs.
pub trait SwarmRing: Send + Sync {
    /// A node announced its span; `Err` says why it is refused.
    fn join(
        &self,
        state: &AppState,
        worker: WorkerId,
        span: SpanInfo,
        capacity: u32,
    ) -> Result<(), &'static str>;
    /// Relays a binary frame from node `from`; `Err`: the node broke the protocol.
    fn route(&self, state: &AppState, from: WorkerId, frame: Vec<u8>) -> Result<(), &'static str>;
    /// A chat job ended at node `entry`.
    fn job_ended(&self, state: &AppState, entry: WorkerId, job_id: &str);
    /// A node left; called before the pool forgets it.
    fn leave(&self, state: &AppState, worker: WorkerId);
    /// Sends a job through a free chain whose entry is not in `exclude` (any, when every
    /// chain's is).
    fn open(
        &self,
        state: &AppState,
        request: &JobRequest,
        exclude: &[WorkerId],
    ) -> Result<Job, DispatchError>;
    /// Whether live spans cover a model's layers.
    fn available(&self) -> bool;
    /// Whether a chain is free now.
    fn free(&self) -> bool;
    /// The ring's timers, run while the gateway serves.
    fn watch(&self, state: AppState) -> tokio::task::JoinHandle<()>;
    /// Adds the ring's metrics to the gateway's registry.
    fn register_metrics(&self, registry: &mut Registry);
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
    // The entry is handed the job only when it announced what the job needs (`Pool::dispatch_to`);
    // when no node nor peer did, no chain is worth waiting for.
    if request.needs_structured_outputs()
        && !(state.pool.capabilities(MODEL)).is_some_and(|m| m.structured_outputs)
    {
        return Err(DispatchError::NoWorker);
    }
    match open(state, request, exclude) {
        Err(_) if state.pool.peers_serve(MODEL) => {
            (state.pool.dispatch_to_peers(MODEL, request, exclude)).await
        }
        opened => opened,
    }
}

/// A swarm job another replica forwarded: this replica's ring only.
pub fn dispatch_here(state: &AppState, request: &JobRequest) -> Result<Job, DispatchError> {
    open(state, request, &[])
}

fn open(
    state: &AppState,
    request: &JobRequest,
    exclude: &[WorkerId],
) -> Result<Job, DispatchError> {
    match &state.swarm {
        Some(ring) => ring.open(state, request, exclude),
        None => Err(DispatchError::NoWorker),
    }
}

/// Whether a model can be served now: the swarm model when a ring (here, or another
/// replica's) covers it, the rest when a worker serves them.
pub fn available(state: &AppState, model: &str) -> bool {
    if model == MODEL {
        (state.swarm.as_ref()).is_some_and(|r| r.available()) || state.pool.peers_serve(MODEL)
    } else {
        state.pool.available(model)
    }
}

/// What this replica's ring offers other replicas: `service-swarm` with one free slot while a
/// chain is free now, none while every chain is busy; `None` without a covering ring.
pub fn offer(state: &AppState) -> Option<Offer> {
    let ring = state.swarm.as_ref().filter(|r| r.available())?;
    let free = u32::from(ring.free());
    let model = (state.pool.capabilities(MODEL)).unwrap_or_else(|| ServedModel {
        id: MODEL.to_owned(),
        ..Default::default()
    });
    Some(Offer { model, free })
}
