//! Rate limits shared exactly by every replica: GCRA in Redis.
//!
//! One Lua script (`gcra.lua`) reads the key's theoretical arrival time, decides and writes,
//! atomically, on the Redis server's clock: replicas whose clocks disagree still share one
//! timeline, and N replicas admit a key's limit once, not N times. One round trip per
//! request (`EVALSHA`; on `NOSCRIPT`, after a Redis restart, the script is loaded and run
//! again).
//!
//! When Redis does not answer (down, unreachable, slower than [`TIMEOUT`]), the request is
//! decided by a [`LocalGcra`] in this process instead: the service stays up and every key
//! stays limited, but each replica limits on its own, so N replicas may admit up to N times a
//! key's limit until Redis is back. That is said at `ERROR` level when it starts (and every
//! [`LOG_EVERY`] while it lasts), in `shoal_ratelimit_redis_up`, and counted in
//! `shoal_ratelimit_redis_errors_total` and `shoal_ratelimit_local_fallbacks_total`. After a
//! failure, Redis is tried again by one request per [`RETRY_EVERY`]; the others meanwhile go
//! straight to the local limiter rather than each waiting for a timeout.

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

/// Longest a check waits for Redis before the local limiter decides. Generous: a replica
/// stalled on a busy machine should not give up on a healthy Redis, and while Redis hangs
/// only one check per [`RETRY_EVERY`] waits this long (the others fall back at once).
pub const TIMEOUT: Duration = Duration::from_secs(1);
/// After a failure, how long checks skip Redis before one of them tries it again.
pub const RETRY_EVERY: Duration = Duration::from_secs(1);
/// While Redis is failing, how often the error is logged again (with a count).
pub const LOG_EVERY: Duration = Duration::from_secs(10);

const SCRIPT: &str = include_str!("gcra.lua");

/// GCRA in Redis, with a local limiter for when Redis does not answer.
pub struct RedisGcra {
    conn: Arc<OnceLock<ConnectionManager>>,
    script: redis::Script,
    /// `{prefix}rl:`; the key id follows.
    key_base: String,
    fallback: LocalGcra,
    health: Health,
    metrics: LimiterMetrics,
    connector: Option<tokio::task::JoinHandle<()>>,
}

#[derive(Clone)]
struct LimiterMetrics {
    round_trip: Histogram,
    errors: Counter,
    fallbacks: Counter,
    up: Gauge,
}

impl RedisGcra {
    /// Parses `url` (a bad one is an error) and connects. An unreachable Redis is not an
    /// error: checks fall back to the local limiter (loudly) while a task keeps connecting.
    pub async fn connect(url: &str, key_prefix: &str) -> anyhow::Result<Self> {
        let client = redis::Client::open(url).map_err(|e| anyhow::anyhow!("redis url: {e}"))?;
        // Only the address: the URL may carry a password.
        let addr = client.get_connection_info().addr.to_string();
        let metrics = LimiterMetrics {
            // 10 µs … ~0.3 s
            round_trip: Histogram::new(exponential_buckets(0.000_01, 2.0, 16)),
            errors: Counter::default(),
            fallbacks: Counter::default(),
            up: Gauge::default(),
        };
        let mut limiter = RedisGcra {
            conn: Arc::new(OnceLock::new()),
            script: redis::Script::new(SCRIPT),
            key_base: format!("{key_prefix}rl:"),
            fallback: LocalGcra::default(),
            health: Health::new(addr.clone()),
            metrics,
            connector: None,
        };
        match open(&client).await {
            Ok(conn) => {
                let _ = limiter.conn.set(conn);
                limiter.metrics.up.set(1);
                tracing::info!(redis = %addr, "rate limits are shared through Redis");
            }
            Err(e) => {
                limiter.health.failed(&e, &limiter.metrics);
                limiter.connector =
                    Some(tokio::spawn(keep_connecting(client, limiter.conn.clone())));
            }
        }
        Ok(limiter)
    }

    /// One round trip: the script's decision, or why there is none.
    async fn shared(&self, key: KeyId, limit: u32) -> Result<Decision, redis::RedisError> {
        let Some(conn) = self.conn.get() else {
            return Err(redis::RedisError::from((
                redis::ErrorKind::IoError,
                "not connected yet",
            )));
        };
        let mut conn = conn.clone();
        let mut call = self.script.key(format!("{}{key}", self.key_base));
        call.arg(limit);
        let started = Instant::now();
        let reply = tokio::time::timeout(TIMEOUT, call.invoke_async(&mut conn)).await;
        let (allowed, remaining, reset_us, retry_us): (i64, i64, i64, i64) = match reply {
            Ok(reply) => reply?,
            Err(_) => {
                return Err(redis::RedisError::from((
                    redis::ErrorKind::IoError,
                    "no answer within the timeout",
                )))
            }
        };
        self.metrics
            .round_trip
            .observe(started.elapsed().as_secs_f64());
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
        if self.health.may_try() {
            match self.shared(key, limit).await {
                Ok(decision) => {
                    self.health.answered(&self.metrics);
                    return decision;
                }
                Err(e) => self.health.failed(&e, &self.metrics),
            }
        }
        self.health.fell_back(&self.metrics);
        self.fallback.check_at(key, limit, Instant::now())
    }
}

impl RateLimiter for RedisGcra {
    fn check(&self, key: KeyId, limit_per_minute: u32) -> DecisionFuture<'_> {
        Box::pin(self.decide(key, limit_per_minute))
    }

    fn up(&self) -> Option<bool> {
        Some(self.metrics.up.get() == 1)
    }

    fn register_metrics(&self, registry: &mut Registry) {
        let m = &self.metrics;
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
            "ratelimit_redis_up",
            "1 while Redis answers rate-limit checks, 0 while this replica limits on its own",
            m.up.clone(),
        );
    }
}

impl Drop for RedisGcra {
    fn drop(&mut self) {
        if let Some(task) = &self.connector {
            task.abort();
        }
    }
}

fn manager_config() -> ConnectionManagerConfig {
    // Few retries inside the client: a check must not wait on reconnect attempts, and
    // `Health` already spaces out the next try.
    ConnectionManagerConfig::new()
        .set_connection_timeout(TIMEOUT)
        .set_response_timeout(TIMEOUT)
        .set_number_of_retries(1)
        .set_max_delay(TIMEOUT.as_millis() as u64)
}

async fn open(client: &redis::Client) -> redis::RedisResult<ConnectionManager> {
    ConnectionManager::new_with_config(client.clone(), manager_config()).await
}

/// Connects at last when Redis was unreachable at start-up; from then on the connection
/// manager reconnects by itself.
async fn keep_connecting(client: redis::Client, cell: Arc<OnceLock<ConnectionManager>>) {
    loop {
        tokio::time::sleep(RETRY_EVERY).await;
        if let Ok(conn) = open(&client).await {
            let _ = cell.set(conn);
            return;
        }
    }
}

/// Whether Redis is answering, when to try it again, and the loud logging of an outage.
struct Health {
    redis: String,
    epoch: Instant,
    /// Milliseconds since `epoch` before which checks skip Redis; 0 while it answers.
    retry_at_ms: AtomicU64,
    down: AtomicBool,
    last_log: Mutex<Option<Instant>>,
    fallbacks_since_log: AtomicU64,
}

impl Health {
    fn new(redis: String) -> Self {
        Health {
            redis,
            epoch: Instant::now(),
            retry_at_ms: AtomicU64::new(0),
            down: AtomicBool::new(false),
            last_log: Mutex::new(None),
            fallbacks_since_log: AtomicU64::new(0),
        }
    }

    fn now_ms(&self) -> u64 {
        self.epoch.elapsed().as_millis() as u64
    }

    /// True while Redis answers; after a failure, true for one caller per `RETRY_EVERY`
    /// (the one that moves the next retry time on).
    fn may_try(&self) -> bool {
        let at = self.retry_at_ms.load(Ordering::Acquire);
        if at == 0 {
            return true;
        }
        let now = self.now_ms();
        now >= at
            && self
                .retry_at_ms
                .compare_exchange(
                    at,
                    now + RETRY_EVERY.as_millis() as u64,
                    Ordering::AcqRel,
                    Ordering::Acquire,
                )
                .is_ok()
    }

    fn answered(&self, metrics: &LimiterMetrics) {
        if self.retry_at_ms.load(Ordering::Acquire) != 0 {
            self.retry_at_ms.store(0, Ordering::Release);
        }
        if self.down.swap(false, Ordering::AcqRel) {
            metrics.up.set(1);
            let local = self.fallbacks_since_log.swap(0, Ordering::AcqRel);
            tracing::warn!(redis = %self.redis, decided_locally = local,
                "Redis answers rate-limit checks again: limits are shared across replicas");
        }
    }

    fn failed(&self, error: &redis::RedisError, metrics: &LimiterMetrics) {
        metrics.errors.inc();
        metrics.up.set(0);
        let retry_at = self.now_ms() + RETRY_EVERY.as_millis() as u64;
        self.retry_at_ms.store(retry_at.max(1), Ordering::Release);
        let first = !self.down.swap(true, Ordering::AcqRel);
        let mut last = self.last_log.lock().unwrap_or_else(|p| p.into_inner());
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
