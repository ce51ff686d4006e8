//! Rate limits shared exactly by every replica: GCRA in Redis.
//!
//! One Lua script (`gcra.lua`) reads the key's theoretical arrival time, decides and writes,
//! atomically, on the Redis server's clock: replicas whose clocks disagree still share one
//! timeline, and N replicas admit a key's limit once, not N times. One round trip per
//! request (`EVALSHA`; on `NOSCRIPT`, after a Redis restart, the script is loaded and run
//! again).
//!
//! When Redis does not answer (down, unreachable, slower than the configured timeout,
//! [`DEFAULT_TIMEOUT`] unless set), the request is decided by a [`LocalGcra`] in this process
//! instead: the service stays up and every key stays limited, but each replica limits on its
//! own, so N replicas may admit up to N times a key's limit until Redis is back. That is said
//! at `ERROR` level when it starts (and every [`LOG_EVERY`] while it lasts), in
//! `shoal_ratelimit_redis_up`, and counted in `shoal_ratelimit_redis_errors_total` and
//! `shoal_ratelimit_local_fallbacks_total`.
//!
//! A failure opens a circuit: from then on checks skip Redis and go straight to the local
//! limiter, so a hung Redis costs one timeout, not one per request. A background task probes
//! Redis (`PING`, same timeout) every [`PROBE_EVERY`] and closes the circuit when it answers;
//! no request waits on a probe.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::{exponential_buckets, Histogram};
use prometheus_client::registry::Registry;
use redis::aio::{ConnectionManager, ConnectionManagerConfig};
use shoal_gateway::{Decision, DecisionFuture, LocalGcra, RateLimiter};
use shoal_store::KeyId;

/// Longest a check waits for Redis before the local limiter decides, unless configured
/// (`redis_timeout_ms`). Short, because only the checks in flight when Redis stops answering
/// pay it; a healthy Redis answers in well under a millisecond, and a replica stalled long
/// enough to miss it limits locally only until the next probe.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_millis(200);
/// While the circuit is open, how often the background task asks Redis whether it answers.
pub const PROBE_EVERY: Duration = Duration::from_secs(1);
/// While Redis is failing, how often the error is logged again (with a count).
pub const LOG_EVERY: Duration = Duration::from_secs(10);

const SCRIPT: &str = include_str!("gcra.lua");

/// GCRA in Redis, with a local limiter for when Redis does not answer.
pub struct RedisGcra {
    link: Arc<Link>,
    script: redis::Script,
    /// `{prefix}rl:`; the key id follows.
    key_base: String,
    fallback: LocalGcra,
    prober: tokio::task::JoinHandle<()>,
}

/// The connection to Redis and the circuit around it, shared with the probing task.
struct Link {
    client: redis::Client,
    conn: OnceLock<ConnectionManager>,
    timeout: Duration,
    health: Health,
    metrics: LimiterMetrics,
    /// Woken when the circuit opens, so that the prober starts probing.
    opened: tokio::sync::Notify,
}

#[derive(Clone)]
struct LimiterMetrics {
    round_trip: Histogram,
    errors: Counter,
    fallbacks: Counter,
    opens: Counter,
    up: Gauge,
}

fn not_connected() -> redis::RedisError {
    redis::RedisError::from((redis::ErrorKind::IoError, "not connected yet"))
}

fn timed_out() -> redis::RedisError {
    redis::RedisError::from((redis::ErrorKind::IoError, "no answer within the timeout"))
}

impl RedisGcra {
    /// Parses `url` (a bad one is an error) and connects, waiting at most `timeout` (as every
    /// check does). An unreachable or hung Redis is not an error: checks fall back to the
    /// local limiter (loudly) while a task keeps trying.
    pub async fn connect(url: &str, key_prefix: &str, timeout: Duration) -> anyhow::Result<Self> {
        anyhow::ensure!(!timeout.is_zero(), "the Redis timeout must be above 0");
        let client = redis::Client::open(url).map_err(|e| anyhow::anyhow!("redis url: {e}"))?;
        // Only the address: the URL may carry a password.
        let addr = client.get_connection_info().addr.to_string();
        let link = Arc::new(Link {
            client,
            conn: OnceLock::new(),
            timeout,
            health: Health::new(addr.clone()),
            metrics: LimiterMetrics {
                // 10 µs … ~0.3 s
                round_trip: Histogram::new(exponential_buckets(0.000_01, 2.0, 16)),
                errors: Counter::default(),
                fallbacks: Counter::default(),
                opens: Counter::default(),
                up: Gauge::default(),
            },
            opened: tokio::sync::Notify::new(),
        });
        match link.open().await {
            Ok(()) => {
                link.metrics.up.set(1);
                tracing::info!(redis = %addr, "rate limits are shared through Redis");
            }
            Err(e) => link.failed(&e),
        }
        Ok(RedisGcra {
            prober: tokio::spawn(link.clone().probe_while_open()),
            link,
            script: redis::Script::new(SCRIPT),
            key_base: format!("{key_prefix}rl:"),
            fallback: LocalGcra::default(),
        })
    }

    /// One round trip: the script's decision, or why there is none.
    async fn shared(&self, key: KeyId, limit: u32) -> Result<Decision, redis::RedisError> {
        let mut conn = self.link.conn.get().ok_or_else(not_connected)?.clone();
        let mut call = self.script.key(format!("{}{key}", self.key_base));
        call.arg(limit);
        let started = Instant::now();
        let reply = tokio::time::timeout(self.link.timeout, call.invoke_async(&mut conn)).await;
        let (allowed, remaining, reset_us, retry_us): (i64, i64, i64, i64) =
            reply.map_err(|_| timed_out())??;
        let m = &self.link.metrics;
        m.round_trip.observe(started.elapsed().as_secs_f64());
        let micros = |us: i64| Duration::from_micros(us.max(0) as u64);
        Ok(Decision {
            allowed: allowed == 1,
            limit,
            remaining: remaining.clamp(0, i64::from(u32::MAX)) as u32,
            reset_after: micros(reset_us),
            retry_after: micros(retry_us),
        })
    }

    async fn decide(&self, key: KeyId, limit: u32) -> Decision {
        let limit = limit.max(1);
        if self.link.health.closed() {
            match self.shared(key, limit).await {
                Ok(decision) => return decision,
                Err(e) => self.link.failed(&e),
            }
        }
        self.link.health.fell_back(&self.link.metrics);
        self.fallback.check_at(key, limit, Instant::now())
    }
}

impl Link {
    /// Connects, unless connected already; from then on the manager reconnects by itself.
    async fn open(&self) -> redis::RedisResult<()> {
        if self.conn.get().is_some() {
            return Ok(());
        }
        let config = manager_config(self.timeout);
        let conn = ConnectionManager::new_with_config(self.client.clone(), config);
        let conn = tokio::time::timeout(self.timeout, conn)
            .await
            .map_err(|_| timed_out())??;
        let _ = self.conn.set(conn);
        Ok(())
    }

    /// Whether Redis answers a `PING` within the timeout.
    async fn ping(&self) -> redis::RedisResult<()> {
        self.open().await?;
        let mut conn = self.conn.get().ok_or_else(not_connected)?.clone();
        let cmd = redis::cmd("PING");
        let ping = cmd.query_async::<String>(&mut conn);
        tokio::time::timeout(self.timeout, ping)
            .await
            .map_err(|_| timed_out())?
            .map(drop)
    }

    fn failed(&self, error: &redis::RedisError) {
        if self.health.failed(error, &self.metrics) {
            self.metrics.opens.inc();
            self.opened.notify_one();
        }
    }

    /// Forever: waits for the circuit to open, then probes Redis every [`PROBE_EVERY`] until
    /// it answers, and closes the circuit.
    async fn probe_while_open(self: Arc<Self>) {
        loop {
            if self.health.closed() {
                self.opened.notified().await;
            }
            tokio::time::sleep(PROBE_EVERY).await;
            match self.ping().await {
                Ok(()) => self.health.answered(&self.metrics),
                Err(e) => self.health.still_failing(&e),
            }
        }
    }
}

impl RateLimiter for RedisGcra {
    fn check(&self, key: KeyId, limit_per_minute: u32) -> DecisionFuture<'_> {
        Box::pin(self.decide(key, limit_per_minute))
    }

    fn up(&self) -> Option<bool> {
        Some(self.link.metrics.up.get() == 1)
    }

    fn register_metrics(&self, registry: &mut Registry) {
        let m = &self.link.metrics;
        registry.register(
            "ratelimit_redis_seconds",
            "Round trip of one rate-limit check through Redis",
            m.round_trip.clone(),
        );
        registry.register(
            "ratelimit_redis_errors",
            "Rate-limit checks Redis did not answer (error, timeout, not connected)",
            m.errors.clone(),
        );
        registry.register(
            "ratelimit_local_fallbacks",
            "Rate-limit checks decided by this replica alone because Redis was not answering",
            m.fallbacks.clone(),
        );
        registry.register(
            "ratelimit_redis_circuit_opens",
            "Times Redis stopped answering and checks began to skip it",
            m.opens.clone(),
        );
        registry.register(
            "ratelimit_redis_up",
            "The circuit to Redis: 1 while checks go to Redis, 0 while it is open (Redis \
             skipped, this replica limits on its own, a probe tries Redis every second)",
            m.up.clone(),
        );
    }
}

impl Drop for RedisGcra {
    fn drop(&mut self) {
        self.prober.abort();
    }
}

fn manager_config(timeout: Duration) -> ConnectionManagerConfig {
    // Few retries inside the client: a check must not wait on reconnect attempts; the
    // prober spaces out the next try.
    ConnectionManagerConfig::new()
        .set_connection_timeout(timeout)
        .set_response_timeout(timeout)
        .set_number_of_retries(1)
        .set_max_delay(timeout.as_millis() as u64)
}

/// The circuit (whether checks go to Redis) and the loud logging of an outage.
struct Health {
    redis: String,
    /// True while checks skip Redis.
    open: AtomicBool,
    last_log: Mutex<Option<Instant>>,
    fallbacks_since_log: AtomicU64,
}

impl Health {
    fn new(redis: String) -> Self {
        Health {
            redis,
            open: AtomicBool::new(false),
            last_log: Mutex::new(None),
            fallbacks_since_log: AtomicU64::new(0),
        }
    }

    fn closed(&self) -> bool {
        !self.open.load(Ordering::Acquire)
    }

    fn answered(&self, metrics: &LimiterMetrics) {
        // Under the log's lock, so that the gauge and the circuit change together.
        let _last = self.last_log.lock().unwrap_or_else(|p| p.into_inner());
        if self.open.swap(false, Ordering::AcqRel) {
            metrics.up.set(1);
            let local = self.fallbacks_since_log.swap(0, Ordering::AcqRel);
            tracing::warn!(redis = %self.redis, decided_locally = local,
                "Redis answers rate-limit checks again: limits are shared across replicas");
        }
    }

    /// Opens the circuit; true when it was closed (this failure opened it).
    fn failed(&self, error: &redis::RedisError, metrics: &LimiterMetrics) -> bool {
        metrics.errors.inc();
        let mut last = self.last_log.lock().unwrap_or_else(|p| p.into_inner());
        let opened = !self.open.swap(true, Ordering::AcqRel);
        metrics.up.set(0);
        self.log(&mut last, error, opened);
        opened
    }

    fn still_failing(&self, error: &redis::RedisError) {
        let mut last = self.last_log.lock().unwrap_or_else(|p| p.into_inner());
        self.log(&mut last, error, false);
    }

    fn log(&self, last: &mut Option<Instant>, error: &redis::RedisError, first: bool) {
        if first || last.is_none_or(|t| t.elapsed() >= LOG_EVERY) {
            *last = Some(Instant::now());
            let local = self.fallbacks_since_log.swap(0, Ordering::AcqRel);
            tracing::error!(redis = %self.redis, error = %error, decided_locally = local,
                "Redis is not answering rate-limit checks: this replica limits each key on its \
                 own until it does (N replicas may admit up to N times a key's limit)");
        }
    }

    fn fell_back(&self, metrics: &LimiterMetrics) {
        metrics.fallbacks.inc();
        self.fallbacks_since_log.fetch_add(1, Ordering::Relaxed);
    }
}
