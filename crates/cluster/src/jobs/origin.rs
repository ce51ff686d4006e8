//! The side of the replica that took a request: other replicas' offers become peers in its
//! pool, and the jobs and cancels the pool sends a peer go to that replica.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use futures::StreamExt;
use shoal_gateway::pool::{JobEvent, WorkerId};
use shoal_protocol::worker::{ErrorCode, GatewayMessage, WorkerMessage};
use tokio::sync::mpsc;

use super::metrics::HandOver;
use super::wire::{event_from_wire, is_token, Accepted, Announce, Cancel, Forward};
use super::{Link, Replica};

/// Beyond the pool's own queueing there, how long the runner may take to answer a job.
const ANSWER_SLACK: Duration = Duration::from_secs(5);
/// How often a job waiting for events checks that it still runs here.
const EVENT_CHECK: Duration = Duration::from_secs(1);

impl Link {
    /// An announcement: registers, updates or removes the sender's peers.
    pub(super) fn heard(self: &Arc<Self>, payload: &[u8]) {
        let Ok(a) = serde_json::from_slice::<Announce>(payload) else {
            tracing::warn!("an undecodable announcement on NATS was ignored");
            return;
        };
        if a.replica == self.me || !is_token(&a.replica) {
            return;
        }
        let pool = &self.state().pool;
        let mut replicas = self.replicas.lock().unwrap_or_else(|p| p.into_inner());
        let known = replicas.len();
        let r = replicas
            .entry(a.replica.clone())
            .or_insert_with(|| Replica {
                last_seen: Instant::now(),
                peers: Default::default(),
            });
        r.last_seen = Instant::now();
        for offer in &a.offers {
            match r.peers.get(&offer.model.id) {
                Some(id) => pool.update_peer(*id, offer.model.clone(), offer.free),
                None => {
                    let (tx, rx) = mpsc::unbounded_channel();
                    let id = pool.register_peer(offer.model.clone(), offer.free, tx);
                    r.peers.insert(offer.model.id.clone(), id);
                    tokio::spawn(self.clone().outbox(a.replica.clone(), id, rx));
                }
            }
        }
        r.peers.retain(|model, id| {
            let still = a.offers.iter().any(|o| &o.model.id == model);
            if !still {
                pool.unregister(*id);
            }
            still
        });
        if replicas.len() != known {
            tracing::info!(replica = %a.replica, "another replica joined");
        }
        self.count(&replicas);
    }

    fn count(&self, replicas: &HashMap<String, Replica>) {
        self.metrics.replicas.set(replicas.len() as i64);
        let peers = replicas.values().map(|r| r.peers.len()).sum::<usize>();
        self.metrics.peers.set(peers as i64);
    }

    /// Drops the replicas silent for three heartbeats, failing the jobs they ran for us.
    pub(super) fn sweep(&self) {
        let expiry = Self::expiry();
        let mut replicas = self.replicas.lock().unwrap_or_else(|p| p.into_inner());
        let gone: Vec<String> = (replicas.iter())
            .filter(|(_, r)| r.last_seen.elapsed() > expiry)
            .map(|(id, _)| id.clone())
            .collect();
        for id in gone {
            if let Some(r) = replicas.remove(&id) {
                tracing::warn!(replica = %id, "a replica went silent; its jobs fail over or end");
                self.metrics.replicas_lost.inc();
                r.peers
                    .values()
                    .for_each(|p| self.state().pool.unregister(*p));
            }
        }
        self.metrics.replicas.set(replicas.len() as i64);
    }

    /// True while `replica` is heard.
    pub(super) fn hears(&self, replica: &str) -> bool {
        let replicas = self.replicas.lock().unwrap_or_else(|p| p.into_inner());
        replicas.contains_key(replica)
    }

    /// Carries what the pool sends peer `peer` to `replica`, until the peer leaves the pool.
    async fn outbox(
        self: Arc<Self>,
        replica: String,
        peer: WorkerId,
        mut rx: mpsc::UnboundedReceiver<GatewayMessage>,
    ) {
        while let Some(message) = rx.recv().await {
            match message {
                GatewayMessage::Job {
                    job_id,
                    model,
                    request,
                } => {
                    let forward = Forward {
                        origin: self.me.clone(),
                        job_id,
                        model,
                        request,
                    };
                    tokio::spawn(self.clone().forward(replica.clone(), peer, forward));
                }
                GatewayMessage::Cancel { job_id } => {
                    let cancel = Cancel {
                        origin: self.me.clone(),
                        job_id,
                    };
                    let body = serde_json::to_vec(&cancel).expect("cancels serialize");
                    let subject = self.subjects.cancel(&replica);
                    if self.client.publish(subject, body.into()).await.is_err() {
                        tracing::warn!("a cancel could not be sent to another replica");
                    }
                }
                // Image jobs are never dispatched to a peer.
                _ => {}
            }
        }
    }

    /// Sends one job to `replica` and brings its events back to the pool.
    async fn forward(self: Arc<Self>, replica: String, peer: WorkerId, forward: Forward) {
        let job_id = forward.job_id.clone();
        let pool = &self.state().pool;
        let lost = |code| JobEvent::Failed {
            code,
            retryable: true,
        };
        let events_subject = self.subjects.events(&self.me, &job_id);
        // Subscribed before the job is sent, so that no event can come first.
        let Ok(mut events) = self.client.subscribe(events_subject).await else {
            self.metrics.handed_over(HandOver::Unreachable);
            return pool.deliver(peer, &job_id, lost(ErrorCode::WorkerLost));
        };
        let sent = Instant::now();
        match self.hand_over(&replica, &forward).await {
            Ok(()) => {}
            Err(code) => return pool.deliver(peer, &job_id, lost(code)),
        }
        drop(forward);
        let mut first = true;
        loop {
            let message = match tokio::time::timeout(EVENT_CHECK, events.next()).await {
                Ok(Some(m)) => m,
                Ok(None) => return pool.deliver(peer, &job_id, lost(ErrorCode::WorkerLost)),
                Err(_) if pool.runs(peer, &job_id) => continue,
                // The job ended here (its replica went silent, or it was abandoned).
                Err(_) => return,
            };
            let Some(event) = serde_json::from_slice::<WorkerMessage>(&message.payload)
                .ok()
                .and_then(event_from_wire)
            else {
                tracing::warn!("an undecodable job event from another replica was dropped");
                continue;
            };
            if first {
                first = false;
                let waited = sent.elapsed().as_secs_f64();
                self.metrics.first_event_seconds.observe(waited);
            }
            let ends = !matches!(event, JobEvent::Delta { .. });
            pool.deliver(peer, &job_id, event);
            if ends {
                return;
            }
        }
    }

    /// Sends the job and waits for the runner's answer: taken, or the code it failed with.
    async fn hand_over(&self, replica: &str, forward: &Forward) -> Result<(), ErrorCode> {
        let body = serde_json::to_vec(forward).expect("jobs serialize");
        if body.len() > self.client.server_info().max_payload {
            tracing::error!(
                bytes = body.len(),
                "a job is larger than NATS's max_payload and cannot cross to another replica; raise max_payload (docs/deploy.md)"
            );
            self.metrics.handed_over(HandOver::Unreachable);
            return Err(ErrorCode::BadJob);
        }
        let wait = self.state().config.queue_timeout + ANSWER_SLACK;
        let request = async_nats::Request::new()
            .payload(body.into())
            .timeout(Some(wait));
        let sent = Instant::now();
        let answer = self
            .client
            .send_request(self.subjects.jobs(replica), request)
            .await;
        let answer = answer
            .ok()
            .and_then(|m| serde_json::from_slice::<Accepted>(&m.payload).ok());
        match answer {
            Some(Accepted { accepted: true, .. }) => {
                self.metrics.handed_over(HandOver::Accepted);
                self.metrics
                    .hop_seconds
                    .observe(sent.elapsed().as_secs_f64());
                Ok(())
            }
            Some(Accepted { refused, .. }) => {
                self.metrics.handed_over(HandOver::Refused);
                Err(refused.unwrap_or(ErrorCode::WorkerBusy))
            }
            None => {
                self.metrics.handed_over(HandOver::Unreachable);
                Err(ErrorCode::WorkerLost)
            }
        }
    }
}
