//! The side of the replica that took a request: other replicas' offers become peers in its
//! pool, and the jobs and cancels the pool sends a peer go to that replica.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use futures::StreamExt;
use shoal_gateway::pool::{ImageEvent, JobEvent, WorkerId};
use shoal_protocol::worker::{ErrorCode, GatewayMessage, WorkerMessage};
use tokio::sync::mpsc;

use super::metrics::HandOver;
use super::wire::{
    event_from_wire, image_event_from_wire, is_token, Accepted, Announce, Cancel, Forward,
    ImageParts, OfferWire, ReplicaState, IMAGE_PART,
};
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
        let mut replicas = self.replicas.lock().unwrap_or_else(|p| p.into_inner());
        if a.state == ReplicaState::Gone {
            if let Some(r) = replicas.remove(&a.replica) {
                tracing::info!(replica = %a.replica, "another replica left");
                self.metrics.replicas_left.inc();
                self.drop_peers(r);
            }
            return self.count(&replicas);
        }
        let known = replicas.len();
        let r = replicas
            .entry(a.replica.clone())
            .or_insert_with(|| Replica {
                last_seen: Instant::now(),
                peers: Default::default(),
                draining: false,
            });
        r.last_seen = Instant::now();
        if a.state == ReplicaState::Draining || r.draining {
            self.retire(&a.replica, r);
        } else {
            self.update_peers(&a.replica, r, false, &a.offers);
            self.update_peers(&a.replica, r, true, &a.images);
        }
        if replicas.len() != known {
            tracing::info!(replica = %a.replica, "another replica joined");
        }
        self.count(&replicas);
    }

    /// Registers, updates or removes `replica`'s chat (or image) peers as `offers` says.
    fn update_peers(
        self: &Arc<Self>,
        replica: &str,
        r: &mut Replica,
        image: bool,
        offers: &[OfferWire],
    ) {
        let pool = &self.state().pool;
        for offer in offers {
            match r.peers.get(&(image, offer.model.id.clone())) {
                Some(id) => pool.update_peer(*id, offer.model.clone(), offer.free),
                None => {
                    // The pool's outbox to a peer, as to a worker: its jobs (at most its free
                    // slots) and their cancels.
                    let (tx, rx) = mpsc::unbounded_channel();
                    let (model, free) = (offer.model.clone(), offer.free);
                    let id = match image {
                        true => pool.register_image_peer(model, free, tx),
                        false => pool.register_peer(model, free, tx),
                    };
                    r.peers.insert((image, offer.model.id.clone()), id);
                    tokio::spawn(self.clone().outbox(replica.to_owned(), id, rx));
                }
            }
        }
        r.peers.retain(|(kind, model), id| {
            let still = *kind != image || offers.iter().any(|o| &o.model.id == model);
            if !still {
                pool.unregister(*id);
            }
            still
        });
    }

    /// `replica` is shutting down: its peers take no new job and go when their jobs end.
    fn retire(&self, replica: &str, r: &mut Replica) {
        if !r.draining {
            tracing::info!(%replica, "another replica is shutting down; no new job goes there");
            r.draining = true;
            r.peers
                .values()
                .for_each(|p| self.state().pool.retire_peer(*p));
        }
    }

    /// Removes a replica's peers from the pool, failing the jobs they still run.
    fn drop_peers(&self, r: Replica) {
        r.peers
            .values()
            .for_each(|p| self.state().pool.unregister(*p));
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
                self.drop_peers(r);
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
            let forward = |job_id, model, request, image| Forward {
                origin: self.me.clone(),
                job_id,
                model,
                request,
                image,
            };
            let forward = match message {
                GatewayMessage::Job {
                    job_id,
                    model,
                    request,
                } => forward(job_id, model, Some(request), None),
                GatewayMessage::ImageJob {
                    job_id,
                    model,
                    request,
                } => forward(job_id, model, None, Some(request)),
                GatewayMessage::Cancel { job_id } => {
                    self.send_cancel(&replica, job_id).await;
                    continue;
                }
                // Nothing else is sent to a peer.
                _ => continue,
            };
            tokio::spawn(self.clone().forward(replica.clone(), peer, forward));
        }
    }

    async fn send_cancel(&self, replica: &str, job_id: String) {
        let cancel = Cancel {
            origin: self.me.clone(),
            job_id,
        };
        let body = serde_json::to_vec(&cancel).expect("cancels serialize");
        let subject = self.subjects.cancel(replica);
        if self.client.publish(subject, body.into()).await.is_err() {
            tracing::warn!("a cancel could not be sent to another replica");
        }
    }

    /// Sends one job to `replica` and brings its events back to the pool.
    async fn forward(self: Arc<Self>, replica: String, peer: WorkerId, forward: Forward) {
        let job_id = forward.job_id.clone();
        let mut back = Back {
            link: &self,
            peer,
            job_id: &job_id,
            image: forward
                .image
                .as_ref()
                .map(|_| ImageParts::new(self.image_limit())),
        };
        let events_subject = self.subjects.events(&self.me, &job_id);
        // Subscribed before the job is sent, so that no event can come first.
        let Ok(mut events) = self.client.subscribe(events_subject).await else {
            self.metrics.handed_over(HandOver::Unreachable);
            return back.fail(ErrorCode::WorkerLost);
        };
        let sent = Instant::now();
        if let Err(code) = self.hand_over(&replica, &forward).await {
            return back.fail(code);
        }
        drop(forward);
        let pool = &self.state().pool;
        let mut first = true;
        loop {
            let message = match tokio::time::timeout(EVENT_CHECK, events.next()).await {
                Ok(Some(m)) => m,
                Ok(None) => return back.fail(ErrorCode::WorkerLost),
                Err(_) if pool.runs(peer, &job_id) => continue,
                // The job ended here (its replica went silent, or it was abandoned).
                Err(_) => return,
            };
            if first {
                first = false;
                let waited = sent.elapsed().as_secs_f64();
                self.metrics.first_event_seconds.observe(waited);
            }
            if back.deliver(&message) {
                return;
            }
        }
    }

    /// The most bytes an image crossing back may take: as much as on the worker socket.
    fn image_limit(&self) -> usize {
        self.state().config.body_limit_bytes * 2
    }

    /// Sends the job and waits for the runner's answer: taken, or the code it failed with.
    async fn hand_over(&self, replica: &str, forward: &Forward) -> Result<(), ErrorCode> {
        let body = serde_json::to_vec(forward).expect("jobs serialize");
        if body.len() > self.client.server_info().max_payload {
            tracing::error!(
                bytes = body.len(),
                max_payload = self.client.server_info().max_payload,
                "a job is larger than NATS's max_payload and cannot cross to another replica; raise max_payload (docs/deploy.md)"
            );
            self.metrics.handed_over(HandOver::TooLarge);
            // Retryable: a worker of this replica may still take it.
            return Err(ErrorCode::JobTooLarge);
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

/// Where a forwarded job's events go back to: the pool, as from the peer that stands for the
/// replica running it.
struct Back<'a> {
    link: &'a Link,
    peer: WorkerId,
    job_id: &'a str,
    /// An image job's parts received so far; `None` for a chat job.
    image: Option<ImageParts>,
}

impl Back<'_> {
    /// Ends the job with `code` (retryable: no worker produced anything for it).
    fn fail(&self, code: ErrorCode) {
        let pool = &self.link.state().pool;
        if self.image.is_some() {
            let failed = ImageEvent::Failed {
                code,
                retryable: true,
            };
            pool.deliver_image(self.peer, self.job_id, failed);
        } else {
            let failed = JobEvent::Failed {
                code,
                retryable: true,
            };
            pool.deliver(self.peer, self.job_id, failed);
        }
    }

    /// Hands one message from the runner to the job; true when it ended the job.
    fn deliver(&mut self, message: &async_nats::Message) -> bool {
        let pool = &self.link.state().pool;
        let part = (message.headers.as_ref()).and_then(|h| h.get(IMAGE_PART));
        if let (Some(parts), Some(part)) = (self.image.as_mut(), part) {
            return match parts.add(part.as_str(), &message.payload) {
                Ok(None) => false,
                Ok(Some(png_base64)) => {
                    let image = ImageEvent::Image { png_base64 };
                    pool.deliver_image(self.peer, self.job_id, image);
                    true
                }
                Err(_) => {
                    tracing::warn!("an image from another replica arrived broken; the job failed");
                    self.fail(ErrorCode::WorkerLost);
                    true
                }
            };
        }
        let Ok(wire) = serde_json::from_slice::<WorkerMessage>(&message.payload) else {
            tracing::warn!("an undecodable job event from another replica was dropped");
            return false;
        };
        if self.image.is_some() {
            let Some(event) = image_event_from_wire(wire) else {
                return false;
            };
            let ends = !matches!(event, ImageEvent::Progress { .. });
            pool.deliver_image(self.peer, self.job_id, event);
            return ends;
        }
        let Some(event) = event_from_wire(wire) else {
            return false;
        };
        let ends = !matches!(event, JobEvent::Delta { .. });
        pool.deliver(self.peer, self.job_id, event);
        ends
    }
}
