//! Jobs across replicas over NATS core (no JetStream: nothing is persisted).
//!
//! Every replica announces, on `P.replicas`, the models its own workers serve and their free
//! slots (chat models, and image workers by the model they render with): every heartbeat, and
//! within 100 ms of a change. Each other replica registers them in its pool as peers
//! (`Pool::register_peer`, `register_image_peer`), one per (replica, model), so `/models` says
//! `available` alike everywhere within a heartbeat, and a request that finds no free worker
//! connected where it arrived is dispatched to a peer like to any worker: `origin` sends the
//! job by request/reply to that replica, whose `runner` hands it to a worker of its own and
//! streams the events back on the job's own subject (an image in parts, see `wire`). Cancels
//! go the same way, and reach a job still waiting there for a worker.
//!
//! A clean shutdown is announced: `draining` at SIGTERM (the others retire its peers at once:
//! no new job goes there, those running finish), `gone` once it has stopped.
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
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

use futures::StreamExt;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::registry::Registry;
use shoal_gateway::pool::WorkerId;
use shoal_gateway::AppState;
use shoal_gateway::{Peers, UpProbe};

use self::metrics::JobMetrics;
use self::wire::{Announce, OfferWire, ReplicaState, Subjects};

/// Subject prefix unless configured otherwise.
pub const DEFAULT_SUBJECT_PREFIX: &str = "shoal";
/// How often a replica announces itself; three missed announcements and it is gone.
pub const HEARTBEAT: Duration = Duration::from_secs(1);
const MISSED_HEARTBEATS: u32 = 3;
/// How often the offer is compared with the last one announced.
const OFFER_CHECK: Duration = Duration::from_millis(100);
/// How long a replica that stopped serving HTTP waits for the jobs it runs for others.
const LEAVE_GRACE: Duration = Duration::from_secs(30);

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
    /// Set at SIGTERM: no job is taken from other replicas any more.
    draining: AtomicBool,
    /// Set once `gone` is said; held while an announcement is published, so none follows it.
    gone: tokio::sync::Mutex<bool>,
}

struct Replica {
    last_seen: Instant,
    /// (image?, model id) → the peer standing for this replica's workers of that model.
    peers: HashMap<(bool, String), WorkerId>,
    /// It is shutting down: its peers are retired.
    draining: bool,
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
                draining: AtomicBool::new(false),
                gone: tokio::sync::Mutex::new(false),
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

    fn up_probe(&self) -> UpProbe {
        let up = self.link.metrics.nats_up.clone();
        Arc::new(move || up.get() == 1)
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

    fn drain(&self) {
        if !self.link.draining.swap(true, Ordering::SeqCst) {
            tracing::info!("shutting down: other replicas send no more jobs here");
        }
    }

    fn leave(&self) -> Pin<Box<dyn Future<Output = ()> + Send + '_>> {
        Box::pin(self.link.leave())
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
        let mut last: Option<(Announce, Instant)> = None;
        loop {
            tick.tick().await;
            let now = self.offer();
            let due = match &last {
                Some((sent, at)) => *sent != now || at.elapsed() >= HEARTBEAT,
                None => true,
            };
            if due && self.publish_offer(&now).await {
                last = Some((now, Instant::now()));
            }
            self.sweep();
            self.sweep_cancels();
        }
    }

    /// What this replica offers now: nothing new once it is draining.
    fn offer(&self) -> Announce {
        let wire = |offers: Vec<shoal_gateway::pool::Offer>| -> Vec<OfferWire> {
            (offers.into_iter())
                .map(|o| OfferWire {
                    model: o.model,
                    free: o.free,
                })
                .collect()
        };
        let pool = &self.state().pool;
        let draining = self.draining.load(Ordering::SeqCst);
        // Span nodes are not offered one by one: the ring is, as `service-swarm`.
        let mut offers = pool.offers();
        offers.extend(shoal_gateway::swarm::offer(self.state()));
        Announce {
            replica: self.me.clone(),
            offers: if draining { vec![] } else { wire(offers) },
            images: if draining {
                vec![]
            } else {
                wire(pool.image_offers())
            },
            state: if draining {
                ReplicaState::Draining
            } else {
                ReplicaState::Serving
            },
        }
    }

    /// Publishes an announcement, unless this replica already said it is gone.
    async fn publish_offer(&self, a: &Announce) -> bool {
        let mut gone = self.gone.lock().await;
        if *gone {
            return false;
        }
        *gone = a.state == ReplicaState::Gone;
        let body = serde_json::to_vec(a).expect("announcements serialize");
        let subject = self.subjects.replicas();
        self.client.publish(subject, body.into()).await.is_ok()
    }

    /// Waits (bounded) for the jobs run here for others to end, then says this replica is gone.
    async fn leave(&self) {
        self.draining.store(true, Ordering::SeqCst);
        let deadline = Instant::now() + LEAVE_GRACE;
        while self.serving() > 0 {
            if Instant::now() >= deadline {
                tracing::warn!("jobs run here for other replicas were cut short by the shutdown");
                break;
            }
            tokio::time::sleep(OFFER_CHECK).await;
        }
        let gone = Announce {
            replica: self.me.clone(),
            offers: vec![],
            images: vec![],
            state: ReplicaState::Gone,
        };
        let said = async { self.publish_offer(&gone).await && self.client.flush().await.is_ok() };
        if !matches!(
            tokio::time::timeout(Duration::from_secs(1), said).await,
            Ok(true)
        ) {
            tracing::warn!(
                "could not tell other replicas this one is gone; they notice within 3 s"
            );
        }
    }
}
