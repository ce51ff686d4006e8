//! Swarm span nodes (`kind: swarm`) on the socket: their span joins the ring, their binary
//! frames go to the next node of a session, and as a chain's entry their chat jobs' ends
//! close the session (the ring, [`SwarmRing`]).

use shoal_protocol::worker::WorkerMessage;

use super::chat;
use super::pool::WorkerId;
use super::swarm::SwarmRing;
use crate::AppState;

/// The ring, which span nodes need (without one, they are refused).
fn ring(state: &AppState) -> Result<&dyn SwarmRing, &'static str> {
    state
        .swarm
        .as_deref()
        .ok_or("this gateway runs no swarm ring")
}

/// One message from a span node; an error is why it is dropped.
pub fn on_message(
    state: &AppState,
    worker: WorkerId,
    concurrency: u32,
    msg: WorkerMessage,
) -> Result<(), &'static str> {
    match msg {
        WorkerMessage::Heartbeat => Ok(()),
        WorkerMessage::Hello { .. } => Err("protocol error (second hello)"),
        WorkerMessage::Span { span } => {
            if let Err(why) = ring(state)?.join(state, worker, span, concurrency) {
                tracing::warn!(worker_id = worker, why, "swarm span refused");
                return Err("protocol error (bad span)");
            }
            tracing::info!(worker_id = worker, "swarm span joined");
            Ok(())
        }
        WorkerMessage::Frame(_) => Err("protocol error (a frame in a text message)"),
        WorkerMessage::Progress { .. } | WorkerMessage::Image { .. } => {
            Err("protocol error (image message from a text worker)")
        }
        WorkerMessage::Delta { .. } | WorkerMessage::Done { .. } | WorkerMessage::Error { .. } => {
            if let (Some(ended), Some(ring)) = (chat::deliver(state, worker, msg), &state.swarm) {
                ring.job_ended(state, worker, &ended);
            }
            Ok(())
        }
    }
}

/// A binary frame, relayed to the next node of its session.
pub fn on_frame(state: &AppState, worker: WorkerId, frame: Vec<u8>) -> Result<(), &'static str> {
    ring(state)?.route(state, worker, frame)
}

/// The node left: before the pool forgets it, its broken sessions' entries are told to stop,
/// and those waiting for a new chain fail after the repair deadline if none comes.
pub fn leave(state: &AppState, worker: WorkerId) {
    if let Some(ring) = &state.swarm {
        ring.leave(state, worker);
    }
}
