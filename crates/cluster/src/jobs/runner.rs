//! The side of the replica whose worker runs a job another replica took: it dispatches the
//! job to a worker connected here (never on to a third replica), answers whether one took it,
//! and streams the events back. It never touches the ledger: the origin bills.

use std::sync::Arc;
use std::time::{Duration, Instant};

use shoal_gateway::pool::{DispatchError, Job, JobEvent};
use shoal_protocol::worker::ErrorCode;

use super::wire::{event_to_wire, is_token, Accepted, Cancel, Forward};
use super::Link;

/// How long a cancelled job's worker gets to answer before its slot is taken back.
const CANCEL_GRACE: Duration = Duration::from_secs(5);
/// How often a running job checks that its origin is still heard.
const ORIGIN_CHECK: Duration = Duration::from_secs(1);

/// A job run here for another replica.
pub(super) struct Served {
    /// Its id in this replica's pool.
    local: String,
    started: Instant,
    cancelled: Option<Instant>,
}

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
        let Forward {
            origin,
            job_id,
            model,
            request,
        } = forward;
        let pool = &self.state().pool;
        let job = pool.dispatch_here(&model, &request).await;
        drop(request);
        let mut job = match job {
            Ok(job) => job,
            Err(DispatchError::NoWorker) => {
                return self.answer(reply, Some(ErrorCode::ModelNotServed)).await
            }
            Err(DispatchError::Busy) => {
                return self.answer(reply, Some(ErrorCode::WorkerBusy)).await
            }
        };
        let key = (origin, job_id);
        self.served_lock().insert(
            key.clone(),
            Served {
                local: job.id.clone(),
                started: Instant::now(),
                cancelled: None,
            },
        );
        self.metrics.served.inc();
        self.answer(reply, None).await;
        self.relay_back(&key, &mut job).await;
        self.served_lock().remove(&key);
    }

    fn served_lock(
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
    async fn relay_back(&self, key: &(String, String), job: &mut Job) {
        let subject = self.subjects.events(&key.0, &key.1);
        // Checked however busy the job's stream is.
        let mut check = tokio::time::interval(ORIGIN_CHECK);
        check.tick().await;
        loop {
            let event = tokio::select! {
                event = job.events.recv() => event.unwrap_or(JobEvent::Failed {
                    code: ErrorCode::WorkerLost,
                    retryable: true,
                }),
                _ = check.tick() => {
                    if self.stop_if_orphaned(key, job) {
                        return;
                    }
                    continue;
                }
            };
            let ends = !matches!(event, JobEvent::Delta { .. });
            let wire = event_to_wire(key.1.clone(), event);
            let body = serde_json::to_vec(&wire).expect("events serialize");
            if self
                .client
                .publish(subject.clone(), body.into())
                .await
                .is_err()
            {
                tracing::warn!("a job event could not be sent to its replica");
            }
            if ends {
                return;
            }
        }
    }

    /// Cancels a job whose origin is no longer heard; abandons one whose worker did not
    /// answer a cancel in time. True when the job is over here.
    fn stop_if_orphaned(&self, key: &(String, String), job: &Job) -> bool {
        let pool = &self.state().pool;
        let mut served = self.served_lock();
        let Some(s) = served.get_mut(key) else {
            return false;
        };
        if let Some(at) = s.cancelled {
            if at.elapsed() > CANCEL_GRACE {
                pool.abandon(&job.id);
                return true;
            }
            return false;
        }
        let known = self.hears(&key.0) || s.started.elapsed() < Self::expiry();
        if !known {
            tracing::warn!("a job's replica went silent; its job is cancelled");
            s.cancelled = Some(Instant::now());
            pool.cancel(&s.local);
        }
        false
    }

    /// A cancel from the origin of a job run here.
    pub(super) fn cancel_served(&self, payload: &[u8]) {
        let Ok(c) = serde_json::from_slice::<Cancel>(payload) else {
            return;
        };
        let mut served = self.served_lock();
        if let Some(s) = served.get_mut(&(c.origin, c.job_id)) {
            if s.cancelled.is_none() {
                s.cancelled = Some(Instant::now());
            }
            self.state().pool.cancel(&s.local);
        }
    }
}
