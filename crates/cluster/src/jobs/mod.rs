//! Jobs across replicas over NATS core (no JetStream: nothing is persisted).
//!
//! Every replica announces, on `P.replicas`, the models its own workers serve and their free
//! slots: every heartbeat, and within 100 ms of a change. Each other replica registers them in
//! its pool as peers (`Pool::register_peer`), one per (replica, model), so `/models` says
//! `available` alike everywhere within a heartbeat, and a request that finds no free worker
//! connected where it arrived is dispatched to a peer like to any worker: `origin` sends the
//! job by request/reply to that replica, whose `runner` hands it to a worker of its own and
//! streams the events back on the job's own subject. Cancels go the same way.
//!
//! The replica that took the request holds and settles its credits (the relay does, as for a
//! local worker); the runner never touches the ledger. A replica silent for three heartbeats
//! is dropped: its peers leave the pool, which fails their jobs with `worker_lost` (retried
//! elsewhere before the first token; after it the stream ends with an error event and only
//! what was delivered is billed), and jobs run here for it are cancelled.

mod metrics;
mod origin;
mod runner;
pub mod wire;

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

use futures::StreamExt;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::registry::Registry;
use shoal_gateway::peers::Peers;
use shoal_gateway::pool::WorkerId;
use shoal_gateway::AppState;

use self::metrics::JobMetrics;
use self::wire::{Announce, OfferWire, Subjects};

/// Subject prefix unless configured otherwise.
pub const DEFAULT_SUBJECT_PREFIX: &str = "shoal";
/// How often a replica announces itself; three missed announcements and it is gone.
pub const HEARTBEAT: Duration = Duration::from_secs(1);
const MISSED_HEARTBEATS: u32 = 3;
/// How often the offer is compared with the last one announced.
const OFFER_CHECK: Duration = Duration::from_millis(100);

/// This replica's link to the others (the gateway's [`Peers`]).
pub struct NatsPeers {
    link: Arc<Link>,
}

struct Link {
    client: async_nats::Client,
    subjects: Subjects,
    /// This replica's id, fresh at every start.
    me: String,
    metrics: JobMetrics,
    /// The other replicas heard, with the peers registered for their models.
    replicas: Mutex<HashMap<String, Replica>>,
    /// Jobs run here for other replicas, by (origin, origin's job id).
    served: Mutex<HashMap<(String, String), runner::Served>>,
    state: OnceLock<AppState>,
}

struct Replica {
    last_seen: Instant,
    /// Model id → the peer standing for this replica's workers of that model.
    peers: HashMap<String, WorkerId>,
}

impl NatsPeers {
    /// Connects to NATS at `url` (in the background: a replica starts, alone, while NATS is
    /// down, and joins the others once it is up).
    pub async fn connect(url: &str, prefix: &str) -> anyhow::Result<Self> {
        let metrics = JobMetrics::default();
        let up = metrics.nats_up.clone();
        let down = Arc::new(AtomicBool::new(false));
        let client = async_nats::ConnectOptions::new()
            .name("shoal-serve")
            .retry_on_initial_connect()
            .event_callback(move |event| {
                let (up, down) = (up.clone(), down.clone());
                async move { on_event(&up, &down, event) }
            })
            .connect(url)
            .await
            // The error may quote the URL, password included.
            .map_err(|e| anyhow::anyhow!("cannot use the NATS URL: {}", e.kind()))?;
        let me = uuid::Uuid::new_v4().simple().to_string();
        tracing::info!(replica = %me, "jobs are shared with other replicas through NATS");
        Ok(NatsPeers {
            link: Arc::new(Link {
                client,
                subjects: Subjects::new(prefix),
                me,
                metrics,
                replicas: Mutex::new(HashMap::new()),
                served: Mutex::new(HashMap::new()),
                state: OnceLock::new(),
            }),
        })
    }
}

/// Logs the connection's ups and downs: one `ERROR` when it goes down (and none for each
/// failed retry after it), one line when it is back.
fn on_event(up: &Gauge, down: &AtomicBool, event: async_nats::Event) {
    match event {
        async_nats::Event::Connected => {
            up.set(1);
            down.store(false, Ordering::Relaxed);
            tracing::info!("connected to NATS");
        }
        async_nats::Event::Disconnected | async_nats::Event::ClientError(_) => {
            up.set(0);
            if !down.swap(true, Ordering::Relaxed) {
                tracing::error!(
                    "NATS is not reachable; until it is, no job crosses to or from other replicas"
                );
            }
        }
        async_nats::Event::SlowConsumer(_) => tracing::error!(
            "a NATS subscription fell behind; some cross-replica messages were dropped"
        ),
        other => tracing::warn!(event = %other, "NATS"),
    }
}

impl Peers for NatsPeers {
    fn register_metrics(&self, registry: &mut Registry) {
        self.link.metrics.register(registry);
    }

    fn join(&self, state: AppState) {
        if self.link.state.set(state).is_err() {
            return;
        }
        let link = self.link.clone();
        tokio::spawn(async move {
            if let Err(e) = link.clone().run().await {
                tracing::error!(error = %e, "subscribing on NATS failed; this replica runs alone");
            }
        });
    }
}

impl Link {
    fn state(&self) -> &AppState {
        self.state.get().expect("joined")
    }

    fn expiry() -> Duration {
        HEARTBEAT * MISSED_HEARTBEATS
    }

    /// Subscribes, then serves the three subjects and announces until the process ends.
    async fn run(self: Arc<Self>) -> anyhow::Result<()> {
        let mut announces = self.client.subscribe(self.subjects.replicas()).await?;
        let mut jobs = self.client.subscribe(self.subjects.jobs(&self.me)).await?;
        let mut cancels = self
            .client
            .subscribe(self.subjects.cancel(&self.me))
            .await?;
        tokio::spawn(self.clone().announce());
        loop {
            tokio::select! {
                Some(m) = announces.next() => self.heard(&m.payload),
                Some(m) = jobs.next() => { tokio::spawn(self.clone().run_forwarded(m)); }
                Some(m) = cancels.next() => self.cancel_served(&m.payload),
                else => return Ok(()),
            }
        }
    }

    /// Announces this replica's offer every heartbeat and when it changes, and drops the
    /// replicas that went silent.
    async fn announce(self: Arc<Self>) {
        let mut tick = tokio::time::interval(OFFER_CHECK);
        tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        let mut last: Option<(Vec<OfferWire>, Instant)> = None;
        loop {
            tick.tick().await;
            let offers: Vec<OfferWire> = (self.state().pool.offers().into_iter())
                .map(|o| OfferWire {
                    model: o.model,
                    free: o.free,
                })
                .collect();
            let due = match &last {
                Some((sent, at)) => *sent != offers || at.elapsed() >= HEARTBEAT,
                None => true,
            };
            if due {
                let a = Announce {
                    replica: self.me.clone(),
                    offers: offers.clone(),
                };
                let body = serde_json::to_vec(&a).expect("announcements serialize");
                let subject = self.subjects.replicas();
                if self.client.publish(subject, body.into()).await.is_ok() {
                    last = Some((offers, Instant::now()));
                }
            }
            self.sweep();
        }
    }
}
