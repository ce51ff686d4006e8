//! Chat workers (`kind: upstream` and `native`) on the socket: their jobs' deltas and ends
//! handed to the pool.

use shoal_protocol::worker::WorkerMessage;

use super::pool::{JobEvent, WorkerId};
use crate::AppState;

/// One message from a chat worker; an error is why it is dropped.
pub fn on_message(
    state: &AppState,
    worker: WorkerId,
    msg: WorkerMessage,
) -> Result<(), &'static str> {
    match msg {
        WorkerMessage::Heartbeat => Ok(()),
        WorkerMessage::Hello { .. } => Err("protocol error (second hello)"),
        WorkerMessage::Span { .. } | WorkerMessage::Frame(_) => {
            Err("protocol error (swarm message from a worker not of kind swarm)")
        }
        WorkerMessage::Progress { .. } | WorkerMessage::Image { .. } => {
            Err("protocol error (image message from a text worker)")
        }
        WorkerMessage::Delta { .. } | WorkerMessage::Done { .. } | WorkerMessage::Error { .. } => {
            deliver(state, worker, msg);
            Ok(())
        }
    }
}

/// Hands a `delta`, `done` or `error` to its job; the job id, when it ends one.
pub fn deliver(state: &AppState, worker: WorkerId, msg: WorkerMessage) -> Option<String> {
    match msg {
        WorkerMessage::Delta {
            job_id,
            content,
            reasoning,
            tool_calls,
        } => {
            let delta = JobEvent::Delta {
                content,
                reasoning,
                tool_calls,
            };
            state.pool.deliver(worker, &job_id, delta);
            None
        }
        WorkerMessage::Done {
            job_id,
            finish_reason,
            usage,
        } => {
            let done = JobEvent::Done {
                finish_reason,
                usage,
            };
            state.pool.deliver(worker, &job_id, done);
            Some(job_id)
        }
        WorkerMessage::Error {
            job_id,
            code,
            retryable,
        } => {
            let failed = JobEvent::Failed { code, retryable };
            state.pool.deliver(worker, &job_id, failed);
            Some(job_id)
        }
        _ => None,
    }
}
