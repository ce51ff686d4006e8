//! Image workers (`kind: image`) on the socket: their model, and their jobs' progress,
//! results and errors handed to the pool.

use std::collections::HashMap;

use shoal_protocol::worker::{ServedModel, WorkerMessage};

use super::pool::{ImageEvent, WorkerId};
use crate::AppState;

/// An image worker's model is the name its results report, not a catalog id: the first id
/// of a sane length is kept, the rest ignored.
pub fn models(
    models: Vec<ServedModel>,
) -> (Vec<ServedModel>, HashMap<String, String>, Vec<String>) {
    let mut served = Vec::new();
    let mut ignored = Vec::new();
    for m in models {
        let sane = (1..=64).contains(&m.id.len()) && !m.id.chars().any(char::is_control);
        if served.is_empty() && sane {
            served.push(m);
        } else {
            ignored.push(m.id);
        }
    }
    (served, HashMap::new(), ignored)
}

/// One message from an image worker; an error is why it is dropped.
pub fn on_message(
    state: &AppState,
    worker: WorkerId,
    msg: WorkerMessage,
) -> Result<(), &'static str> {
    let (job_id, event) = match msg {
        WorkerMessage::Heartbeat => return Ok(()),
        WorkerMessage::Hello { .. } => return Err("protocol error (second hello)"),
        WorkerMessage::Span { .. } | WorkerMessage::Frame(_) => {
            return Err("protocol error (swarm message from a worker not of kind swarm)")
        }
        WorkerMessage::Delta { .. } | WorkerMessage::Done { .. } => {
            return Err("protocol error (text message from an image worker)")
        }
        WorkerMessage::Progress {
            job_id,
            step,
            steps,
        } => (job_id, ImageEvent::Progress { step, steps }),
        WorkerMessage::Image { job_id, png_base64 } => (job_id, ImageEvent::Image { png_base64 }),
        WorkerMessage::Error {
            job_id,
            code,
            retryable,
        } => (job_id, ImageEvent::Failed { code, retryable }),
    };
    state.pool.deliver_image(worker, &job_id, event);
    Ok(())
}
