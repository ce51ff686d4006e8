//! The worker pool under load and churn.
//!
//! [`run`] connects `workers` simulated workers to a running `shoal serve` over the real worker
//! socket, sends a steady stream of chat requests (streamed and not) at `rate` per second for
//! `duration`, and every `churn_every` makes `churn_fraction` of the workers leave (draining,
//! closing the socket, or going silent) while as many new ones join. Each job is answered
//! after a random short delay by a plan drawn at random: most answer, some fail (retryably or
//! not, before or after their first token), some stall, some make their worker vanish.
//!
//! Then it waits for the gateway to be quiet and returns a [`Report`]: how every request
//! ended, dispatch latency (request sent → job at a worker), the pool's counters from
//! `/metrics` beside the workers' own counts, the accounts' held credits, and the gateway's
//! memory and CPU. [`Report::violations`] lists every broken promise; none is the pass.

pub mod client;
mod observe;
pub mod worker;

use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use shoal_protocol::worker::JobRequest;
use tokio::sync::oneshot;
use tokio::task::JoinSet;

pub use observe::{raise_fd_limit, PoolCounts};
use worker::{Leave, WorkerCounts};

/// How often each kind of trouble happens, per job.
#[derive(Debug, Clone)]
pub struct Faults {
    pub retryable_error: f64,
    pub fatal_error: f64,
    pub error_after_delta: f64,
    pub stall: f64,
    /// The worker vanishes with the job (half before, half after its first token).
    pub vanish: f64,
    /// Jobs wait up to this long before their first token (and up to half before the rest).
    pub max_delay_ms: u64,
}

impl Default for Faults {
    fn default() -> Self {
        Faults {
            retryable_error: 0.02,
            fatal_error: 0.005,
            error_after_delta: 0.01,
            stall: 0.003,
            vanish: 0.002,
            max_delay_ms: 100,
        }
    }
}

#[derive(Debug, Clone)]
pub struct Config {
    /// `http://HOST:PORT` of the gateway.
    pub base: String,
    pub worker_token: String,
    /// API keys the clients take turns with (each its own account is best).
    pub keys: Vec<String>,
    pub model: String,
    pub workers: usize,
    pub concurrency: u32,
    pub duration: Duration,
    pub churn_every: Duration,
    pub churn_fraction: f64,
    /// Requests per second, sent on a fixed schedule whatever the answers.
    pub rate: f64,
    pub stream_fraction: f64,
    pub hang_up_fraction: f64,
    /// The gateway's `request_timeout_secs`: a request not ended by then plus a margin hangs.
    pub request_timeout: Duration,
    /// The gateway's process id, for its memory and CPU.
    pub gateway_pid: Option<u32>,
    pub seed: u64,
    pub faults: Faults,
}

/// What the workers and clients share.
pub struct Shared {
    pub base: String,
    pub worker_token: String,
    pub model: String,
    pub concurrency: u32,
    pub faults: Faults,
    pub client_timeout: Duration,
    pub workers: WorkerCounts,
    sent: Mutex<HashMap<u64, Instant>>,
    dispatch_us: Mutex<Vec<u32>>,
}

impl Shared {
    fn request_sent(&self, nonce: u64, at: Instant) {
        self.sent.lock().unwrap().insert(nonce, at);
    }
    fn request_ended(&self, nonce: u64) {
        self.sent.lock().unwrap().remove(&nonce);
    }
    /// The first job of a request to reach a worker gives its dispatch latency.
    fn job_arrived(&self, request: &JobRequest) {
        let Some(nonce) = worker::nonce_of(request) else {
            return;
        };
        if let Some(sent) = self.sent.lock().unwrap().remove(&nonce) {
            self.dispatch_us.lock().unwrap().push(worker::since(sent));
        }
    }
}

/// Everything measured in one run.
#[derive(Debug, Clone)]
pub struct Report {
    pub workers: usize,
    pub rate: f64,
    pub load_secs: f64,
    pub requests: u64,
    pub streams: u64,
    pub outcomes: BTreeMap<String, u64>,
    /// Request sent → its job read by a worker, µs: p50, p90, p99, max, count.
    pub dispatch_us: [u64; 5],
    pub pool_before: PoolCounts,
    pub pool_after: PoolCounts,
    pub worker_jobs: u64,
    pub worker_done: u64,
    pub worker_errors: u64,
    pub worker_unfinished: u64,
    pub worker_cancels: u64,
    pub worker_sessions: u64,
    pub workers_drained: u64,
    pub workers_vanished_closed: u64,
    pub workers_vanished_silent: u64,
    pub connect_failures: u64,
    /// Credits still held over all the keys' accounts once the gateway was quiet.
    pub held_after: i64,
    pub gateway: observe::ProcessStats,
}

/// Outcomes by name, so reports stay readable.
fn outcome_name(o: &client::Outcome) -> String {
    match o {
        client::Outcome::Wrong(why) => format!("VIOLATION wrong: {why}"),
        client::Outcome::Hung => "VIOLATION hung past the timeout".into(),
        other => format!("{other:?}"),
    }
}

/// Runs the load; see the crate's documentation.
pub async fn run(cfg: Config) -> anyhow::Result<Report> {
    anyhow::ensure!(!cfg.keys.is_empty(), "at least one API key");
    let shared = Arc::new(Shared {
        base: cfg.base.clone(),
        worker_token: cfg.worker_token.clone(),
        model: cfg.model.clone(),
        concurrency: cfg.concurrency,
        faults: cfg.faults.clone(),
        client_timeout: cfg.request_timeout + Duration::from_secs(3),
        workers: WorkerCounts::default(),
        sent: Mutex::default(),
        dispatch_us: Mutex::default(),
    });
    let http = reqwest::Client::builder()
        .tcp_nodelay(true)
        .pool_max_idle_per_host(256)
        .build()?;
    let pool_before = observe::pool_counts(&http, &cfg.base).await?;
    let mut rng = StdRng::seed_from_u64(cfg.seed);
    let mut crowd = Crowd::new(shared.clone(), cfg.seed);
    for _ in 0..cfg.workers {
        crowd.join();
    }
    observe::wait_for_workers(&http, &cfg.base, cfg.workers, &mut crowd).await?;
    let sampler = observe::Sampler::start(cfg.gateway_pid);

    let started = Instant::now();
    let requests = load(&cfg, &shared, &http, &mut crowd, &mut rng).await;
    let load_secs = started.elapsed().as_secs_f64();
    let mut outcomes = BTreeMap::new();
    let (mut total, mut streams) = (0, 0);
    for (outcome, stream) in requests {
        total += 1;
        streams += u64::from(stream);
        *outcomes.entry(outcome_name(&outcome)).or_insert(0u64) += 1;
    }
    // Stalled jobs end at the gateway's deadline plus its cancel grace.
    let quiet_limit = cfg.request_timeout + Duration::from_secs(20);
    observe::wait_until_quiet(&http, &cfg.base, pool_before, quiet_limit).await;
    let held_after = observe::held(&http, &cfg.base, &cfg.keys, quiet_limit).await?;
    let gateway = sampler.stop();
    crowd.leave_all().await;
    let pool_after = observe::pool_counts(&http, &cfg.base).await?;
    let w = &shared.workers;
    let get = |a: &std::sync::atomic::AtomicU64| a.load(Ordering::Relaxed);
    let dispatch_us = observe::percentiles(&mut shared.dispatch_us.lock().unwrap());
    Ok(Report {
        workers: cfg.workers,
        rate: cfg.rate,
        load_secs,
        requests: total,
        streams,
        outcomes,
        dispatch_us,
        pool_before,
        pool_after,
        worker_jobs: get(&w.jobs),
        worker_done: get(&w.done),
        worker_errors: get(&w.errors),
        worker_unfinished: get(&w.unfinished),
        worker_cancels: get(&w.cancels),
        worker_sessions: get(&w.sessions),
        workers_drained: get(&w.left_drained),
        workers_vanished_closed: get(&w.vanished_closed),
        workers_vanished_silent: get(&w.vanished_silent),
        connect_failures: get(&w.connect_failures),
        held_after,
        gateway,
    })
}

/// Sends requests on schedule for `duration` while churning the workers; returns every
/// request's outcome (each request ends by itself within the client timeout).
async fn load(
    cfg: &Config,
    shared: &Arc<Shared>,
    http: &reqwest::Client,
    crowd: &mut Crowd,
    rng: &mut StdRng,
) -> Vec<(client::Outcome, bool)> {
    let end = tokio::time::Instant::now() + cfg.duration;
    let mut tick = tokio::time::interval(Duration::from_secs_f64(1.0 / cfg.rate));
    let mut churn = tokio::time::interval_at(
        tokio::time::Instant::now() + cfg.churn_every,
        cfg.churn_every,
    );
    let mut requests: JoinSet<(client::Outcome, bool)> = JoinSet::new();
    let mut nonce = 0u64;
    loop {
        tokio::select! {
            _ = tokio::time::sleep_until(end) => break,
            _ = tick.tick() => {
                nonce += 1;
                let stream = rng.random_bool(cfg.stream_fraction);
                let hang_up = rng
                    .random_bool(cfg.hang_up_fraction)
                    .then(|| Duration::from_millis(rng.random_range(1..300)));
                let key = cfg.keys[nonce as usize % cfg.keys.len()].clone();
                let req = client::request(shared.clone(), http.clone(), key, nonce, stream, hang_up);
                requests.spawn(async move { (req.await, stream) });
            }
            _ = churn.tick() => crowd.churn(cfg.churn_fraction),
            _ = crowd.reap() => {}
        }
    }
    let mut out = Vec::with_capacity(nonce as usize);
    loop {
        tokio::select! {
            r = requests.join_next() => match r {
                Some(Ok(v)) => out.push(v),
                Some(Err(e)) => out.push((client::Outcome::Wrong(format!("client task: {e}")), false)),
                None => break,
            },
            _ = crowd.reap() => {}
        }
    }
    out
}

/// The live workers: each can be told to leave; one that vanished on its own is replaced.
pub struct Crowd {
    shared: Arc<Shared>,
    next: u64,
    seed: u64,
    rng: StdRng,
    live: HashMap<u64, oneshot::Sender<Leave>>,
    tasks: JoinSet<(u64, bool)>,
}

impl Crowd {
    fn new(shared: Arc<Shared>, seed: u64) -> Self {
        Crowd {
            shared,
            next: 0,
            seed,
            rng: StdRng::seed_from_u64(seed ^ 0x5eed),
            live: HashMap::new(),
            tasks: JoinSet::new(),
        }
    }

    fn join(&mut self) {
        self.next += 1;
        let (id, seed) = (self.next, self.seed.wrapping_add(self.next));
        let (tx, rx) = oneshot::channel();
        self.live.insert(id, tx);
        let shared = self.shared.clone();
        self.tasks.spawn(async move {
            let on_its_own = worker::run(shared, seed, rx).await.unwrap_or(true);
            (id, on_its_own)
        });
    }

    /// `fraction` of the workers leave (drain, close or go silent alike) and as many join.
    fn churn(&mut self, fraction: f64) {
        let ids: Vec<u64> = self.live.keys().copied().collect();
        let n = ((ids.len() as f64) * fraction).round() as usize;
        for i in rand::seq::index::sample(&mut self.rng, ids.len(), n.min(ids.len())) {
            let how = match self.rng.random_range(0..3) {
                0 => Leave::Drain,
                1 => Leave::Close,
                _ => Leave::Silent,
            };
            if let Some(tx) = self.live.remove(&ids[i]) {
                let _ = tx.send(how);
            }
            self.join();
        }
    }

    /// Waits for a worker to end; one that vanished on its own is replaced at once.
    async fn reap(&mut self) {
        match self.tasks.join_next().await {
            Some(Ok((id, on_its_own))) => {
                if self.live.remove(&id).is_some() && on_its_own {
                    self.join();
                }
            }
            Some(Err(_)) => {}
            None => std::future::pending().await,
        }
    }

    /// Every worker drains and leaves; waits for all of them.
    async fn leave_all(&mut self) {
        for (_, tx) in self.live.drain() {
            let _ = tx.send(Leave::Drain);
        }
        let _ = tokio::time::timeout(Duration::from_secs(90), async {
            while self.tasks.join_next().await.is_some() {}
        })
        .await;
    }
}

impl Report {
    /// Every promise the run broke; empty is the pass.
    pub fn violations(&self) -> Vec<String> {
        let mut v: Vec<String> = self
            .outcomes
            .iter()
            .filter(|(k, _)| k.starts_with("VIOLATION"))
            .map(|(k, n)| format!("{n} requests: {k}"))
            .collect();
        let (b, a) = (&self.pool_before, &self.pool_after);
        let dispatched = a.dispatched - b.dispatched;
        let freed = a.freed_total() - b.freed_total();
        let mut expect = |what: &str, got: u64, want: u64| {
            if got != want {
                v.push(format!("{what}: {got}, expected {want}"));
            }
        };
        expect(
            "slots freed (all reasons) vs jobs dispatched",
            freed,
            dispatched,
        );
        expect(
            "slots freed by done vs workers' done",
            a.done - b.done,
            self.worker_done,
        );
        expect(
            "slots freed by error vs workers' errors",
            a.error - b.error,
            self.worker_errors,
        );
        expect(
            "workers' jobs vs their done + error + unfinished",
            self.worker_jobs,
            self.worker_done + self.worker_errors + self.worker_unfinished,
        );
        if self.worker_jobs > dispatched {
            v.push(format!(
                "workers received {} jobs, the pool dispatched {dispatched}",
                self.worker_jobs
            ));
        }
        if self.held_after != 0 {
            v.push(format!("{} credits still held", self.held_after));
        }
        if self.outcomes.get("Answered").copied().unwrap_or(0) == 0 {
            v.push("no request was answered".into());
        }
        if let Some(growth) = self.gateway.rss_growth() {
            v.push(growth);
        }
        v
    }

    pub fn to_json(&self) -> serde_json::Value {
        let (b, a) = (&self.pool_before, &self.pool_after);
        let d = self.dispatch_us;
        serde_json::json!({
            "workers": self.workers,
            "rate_per_s": self.rate,
            "load_secs": (self.load_secs * 10.0).round() / 10.0,
            "requests": self.requests,
            "streams": self.streams,
            "outcomes": self.outcomes,
            "dispatch_us": {"p50": d[0], "p90": d[1], "p99": d[2], "max": d[3], "n": d[4]},
            "pool": {
                "dispatched": a.dispatched - b.dispatched,
                "failovers": a.failovers - b.failovers,
                "freed_done": a.done - b.done,
                "freed_error": a.error - b.error,
                "freed_worker_lost": a.worker_lost - b.worker_lost,
                "freed_abandoned": a.abandoned - b.abandoned,
                "gateway_dispatch_wait_p50_le_s": a.dispatch_wait_p50,
                "gateway_dispatch_wait_p99_le_s": a.dispatch_wait_p99,
            },
            "workers_side": {
                "sessions": self.worker_sessions,
                "jobs": self.worker_jobs,
                "done": self.worker_done,
                "errors": self.worker_errors,
                "unfinished": self.worker_unfinished,
                "cancels": self.worker_cancels,
                "drained": self.workers_drained,
                "vanished_closed": self.workers_vanished_closed,
                "vanished_silent": self.workers_vanished_silent,
                "connect_failures": self.connect_failures,
            },
            "held_after": self.held_after,
            "gateway": self.gateway.to_json(),
        })
    }
}
