//! The Redis limiter against a real Redis: the shared Redis (SHOAL_TEST_REDIS_URL, default
//! 127.0.0.1:6379) under a key prefix of its own per run, and `redis-server` processes these
//! tests start and stop on free ports. `SHOAL_TEST_REDIS=skip` skips (with a message) when
//! Redis is not there; otherwise a missing Redis fails.

use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use prometheus_client::registry::Registry;
use shoal_cluster::ratelimit::DEFAULT_TIMEOUT;
use shoal_cluster::RedisGcra;
use shoal_gateway::{LocalGcra, RateLimiter};

fn unique_prefix(tag: &str) -> String {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos();
    format!("shoaltest:{tag}:{}:{nanos}:", std::process::id())
}

async fn pings(url: &str) -> bool {
    let Ok(client) = redis::Client::open(url) else {
        return false;
    };
    let conn = tokio::time::timeout(
        Duration::from_secs(1),
        client.get_multiplexed_async_connection(),
    );
    match conn.await {
        Ok(Ok(mut c)) => redis::cmd("PING")
            .query_async::<String>(&mut c)
            .await
            .is_ok(),
        _ => false,
    }
}

/// The shared Redis, or `None` (after saying so) when it is absent and skipping is allowed.
async fn shared_redis() -> Option<String> {
    let url = std::env::var("SHOAL_TEST_REDIS_URL")
        .unwrap_or_else(|_| "redis://127.0.0.1:6379".to_owned());
    if pings(&url).await {
        return Some(url);
    }
    if std::env::var("SHOAL_TEST_REDIS").as_deref() == Ok("skip") {
        eprintln!("SKIPPED: no Redis at {url} (SHOAL_TEST_REDIS=skip)");
        return None;
    }
    panic!("no Redis at {url} (set SHOAL_TEST_REDIS=skip to skip)");
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// Whether `redis-server` can be started; false (after saying so) when it cannot and
/// skipping is allowed.
fn redis_server_or_skip() -> bool {
    let found = Command::new("redis-server")
        .arg("--version")
        .output()
        .is_ok();
    if !found && std::env::var("SHOAL_TEST_REDIS").as_deref() == Ok("skip") {
        eprintln!("SKIPPED: no redis-server binary (SHOAL_TEST_REDIS=skip)");
        return false;
    }
    true
}

/// A `redis-server` of this test's own, without persistence, killed on drop.
struct OwnRedis {
    child: Child,
    url: String,
}

impl OwnRedis {
    async fn start(port: u16) -> OwnRedis {
        let child = Command::new("redis-server")
            .args(["--port", &port.to_string(), "--bind", "127.0.0.1"])
            .args(["--save", "", "--appendonly", "no"])
            .stdout(Stdio::null())
            .spawn()
            .expect("redis-server on PATH (.ci/run installs it)");
        let url = format!("redis://127.0.0.1:{port}");
        let deadline = Instant::now() + Duration::from_secs(10);
        while !pings(&url).await {
            assert!(Instant::now() < deadline, "redis-server did not start");
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        OwnRedis { child, url }
    }

    fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for OwnRedis {
    fn drop(&mut self) {
        self.kill();
    }
}

/// The value of one metric in the limiter's `/metrics` text.
fn metric(limiter: &RedisGcra, name: &str) -> f64 {
    let mut registry = Registry::with_prefix("shoal");
    limiter.register_metrics(&mut registry);
    let mut text = String::new();
    prometheus_client::encoding::text::encode(&mut text, &registry).unwrap();
    text.lines()
        .find_map(|l| l.strip_prefix(name)?.strip_prefix(' ')?.parse().ok())
        .unwrap_or_else(|| panic!("{name} not in {text}"))
}

#[tokio::test]
async fn three_limiters_share_one_burst_exactly() {
    let Some(url) = shared_redis().await else {
        return;
    };
    let prefix = unique_prefix("burst");
    let mut limiters = Vec::new();
    for _ in 0..3 {
        limiters.push(Arc::new(
            RedisGcra::connect(&url, &prefix, DEFAULT_TIMEOUT)
                .await
                .unwrap(),
        ));
    }
    let started = Instant::now();
    let mut checks = Vec::new();
    for i in 0..150 {
        let limiter = limiters[i % 3].clone();
        checks.push(tokio::spawn(async move { limiter.check(42, 60).await }));
    }
    let mut decisions = Vec::new();
    for c in checks {
        decisions.push(c.await.unwrap());
    }
    let elapsed = started.elapsed();
    // GCRA at 60/min refills one request a second: a burst that took longer may admit more.
    let refills = elapsed.as_secs() as usize;
    let admitted: Vec<_> = decisions.iter().filter(|d| d.allowed).collect();
    assert!(
        (60..=60 + refills).contains(&admitted.len()),
        "{} admitted in {elapsed:?}",
        admitted.len()
    );
    if refills == 0 {
        let mut remaining: Vec<u32> = admitted.iter().map(|d| d.remaining).collect();
        remaining.sort_unstable();
        assert_eq!(remaining, (0..60).collect::<Vec<_>>());
    }
    for d in decisions.iter().filter(|d| !d.allowed) {
        assert_eq!(d.remaining, 0);
        assert!(d.retry_after > Duration::ZERO && d.retry_after <= Duration::from_secs(1));
        assert!(
            d.reset_after > Duration::from_secs(59) && d.reset_after <= Duration::from_secs(60)
        );
    }
    assert_eq!(metric(&limiters[0], "shoal_ratelimit_redis_up"), 1.0);
    assert_eq!(
        metric(&limiters[0], "shoal_ratelimit_redis_errors_total"),
        0.0
    );
}

#[tokio::test]
async fn decides_like_the_local_limiter() {
    let Some(url) = shared_redis().await else {
        return;
    };
    let redis = RedisGcra::connect(&url, &unique_prefix("same"), DEFAULT_TIMEOUT)
        .await
        .unwrap();
    let local = LocalGcra::default();
    for i in 0..8u32 {
        let (r, l) = (redis.check(7, 6).await, local.check(7, 6).await);
        assert_eq!(
            (r.allowed, r.limit, r.remaining),
            (l.allowed, l.limit, l.remaining),
            "request {}",
            i + 1
        );
        let close = |a: Duration, b: Duration| a.abs_diff(b) < Duration::from_millis(500);
        assert!(close(r.reset_after, l.reset_after), "{r:?} {l:?}");
        assert!(close(r.retry_after, l.retry_after), "{r:?} {l:?}");
    }
    // Another key has its own budget.
    assert_eq!(redis.check(8, 6).await.remaining, 5);
}

#[tokio::test]
async fn nothing_listening_falls_back_to_a_local_limit_loudly() {
    let url = format!("redis://127.0.0.1:{}", free_port());
    let limiter = RedisGcra::connect(&url, "shoaltest:", DEFAULT_TIMEOUT)
        .await
        .unwrap();
    let started = Instant::now();
    let decisions: Vec<_> = checks_in_a_row(&limiter, 9, 3).await;
    // Still limited: the local limiter's burst of 3, then refusals.
    let admitted = decisions.iter().filter(|d| d.allowed).count();
    assert_eq!(admitted, 3, "{decisions:?}");
    assert!(
        started.elapsed() < Duration::from_secs(1),
        "checks waited on Redis"
    );
    assert_eq!(metric(&limiter, "shoal_ratelimit_redis_up"), 0.0);
    assert!(metric(&limiter, "shoal_ratelimit_redis_errors_total") >= 1.0);
    assert_eq!(
        metric(&limiter, "shoal_ratelimit_local_fallbacks_total"),
        4.0
    );
}

async fn checks_in_a_row(limiter: &RedisGcra, key: i64, n: usize) -> Vec<shoal_gateway::Decision> {
    let mut out = Vec::new();
    for _ in 0..=n {
        out.push(limiter.check(key, n as u32).await);
    }
    out
}

#[tokio::test]
async fn a_redis_that_goes_away_and_comes_back() {
    if !redis_server_or_skip() {
        return;
    }
    let port = free_port();
    let mut redis = OwnRedis::start(port).await;
    let limiter = RedisGcra::connect(&redis.url, "shoaltest:", DEFAULT_TIMEOUT)
        .await
        .unwrap();
    for _ in 0..3 {
        assert!(limiter.check(1, 3).await.allowed);
    }
    assert!(!limiter.check(1, 3).await.allowed);
    assert_eq!(metric(&limiter, "shoal_ratelimit_redis_up"), 1.0);

    redis.kill();
    // Decided locally from now on: a fresh burst of 3 on this replica, then refusals.
    let started = Instant::now();
    let decisions = checks_in_a_row(&limiter, 1, 3).await;
    assert_eq!(
        decisions.iter().filter(|d| d.allowed).count(),
        3,
        "{decisions:?}"
    );
    assert!(
        started.elapsed() < Duration::from_secs(2),
        "checks waited on Redis"
    );
    assert_eq!(metric(&limiter, "shoal_ratelimit_redis_up"), 0.0);
    assert!(metric(&limiter, "shoal_ratelimit_redis_errors_total") >= 1.0);

    // Back on the same port (empty: no persistence): shared limits resume by themselves.
    let redis = OwnRedis::start(port).await;
    let deadline = Instant::now() + Duration::from_secs(15);
    while metric(&limiter, "shoal_ratelimit_redis_up") != 1.0 {
        assert!(
            Instant::now() < deadline,
            "the limiter never used Redis again"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    limiter.check(2, 2).await;
    let client = redis::Client::open(redis.url.as_str()).unwrap();
    let mut conn = client.get_multiplexed_async_connection().await.unwrap();
    let exists: bool = redis::cmd("EXISTS")
        .arg("shoaltest:rl:2")
        .query_async(&mut conn)
        .await
        .unwrap();
    assert!(
        exists,
        "the check after the probe saw Redis up wrote its key there"
    );
}

fn signal(redis: &OwnRedis, sig: &str) {
    let status = Command::new("kill")
        .args([sig, &redis.child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
}

/// The most any one of `n` checks took, spread over `over`.
async fn slowest_of(limiter: &RedisGcra, key: i64, n: u32, over: Duration) -> Duration {
    let mut slowest = Duration::ZERO;
    for _ in 0..n {
        let started = Instant::now();
        limiter.check(key, 1000).await;
        slowest = slowest.max(started.elapsed());
        tokio::time::sleep(over / n).await;
    }
    slowest
}

#[tokio::test]
async fn a_hung_redis_costs_one_timeout_then_the_circuit_skips_it_until_it_answers() {
    if !redis_server_or_skip() {
        return;
    }
    let timeout = Duration::from_millis(150);
    let redis = OwnRedis::start(free_port()).await;
    let limiter = RedisGcra::connect(&redis.url, "shoaltest:", timeout)
        .await
        .unwrap();
    assert!(limiter.check(1, 100).await.allowed);
    assert_eq!(metric(&limiter, "shoal_ratelimit_redis_up"), 1.0);

    signal(&redis, "-STOP");
    let started = Instant::now();
    assert!(limiter.check(1, 100).await.allowed, "decided locally");
    let waited = started.elapsed();
    assert!(
        waited >= timeout && waited < timeout * 4,
        "the first check waits the configured timeout, no longer: {waited:?}"
    );
    assert_eq!(metric(&limiter, "shoal_ratelimit_redis_up"), 0.0);
    assert_eq!(
        metric(&limiter, "shoal_ratelimit_redis_circuit_opens_total"),
        1.0
    );
    // Across several probes (one a second, in the background), no check waits on Redis.
    let slowest = slowest_of(&limiter, 1, 30, Duration::from_secs(3)).await;
    assert!(
        slowest < timeout / 2,
        "a check waited on the hung Redis: {slowest:?}"
    );
    assert_eq!(metric(&limiter, "shoal_ratelimit_redis_up"), 0.0);

    signal(&redis, "-CONT");
    // The probe closes the circuit without any check having to try Redis.
    let deadline = Instant::now() + Duration::from_secs(10);
    while metric(&limiter, "shoal_ratelimit_redis_up") != 1.0 {
        assert!(
            Instant::now() < deadline,
            "the probe never closed the circuit"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let fallbacks = metric(&limiter, "shoal_ratelimit_local_fallbacks_total");
    limiter.check(1, 100).await;
    assert_eq!(
        metric(&limiter, "shoal_ratelimit_local_fallbacks_total"),
        fallbacks,
        "once closed, checks go to Redis again"
    );
}

/// Accepts connections and never answers: a Redis that hangs before it says anything.
fn silent_listener() -> (std::net::TcpListener, u16) {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    (listener, port)
}

#[tokio::test]
async fn a_redis_that_accepts_and_never_answers_costs_at_most_one_timeout() {
    let (listener, port) = silent_listener();
    // Held open, unanswered, for as long as the test runs.
    let held = std::thread::spawn(move || listener.incoming().take(64).collect::<Vec<_>>());
    let timeout = Duration::from_millis(100);
    let started = Instant::now();
    let limiter = RedisGcra::connect(&format!("redis://127.0.0.1:{port}"), "t:", timeout)
        .await
        .unwrap();
    assert!(started.elapsed() < timeout * 4, "{:?}", started.elapsed());
    let started = Instant::now();
    let decisions = checks_in_a_row(&limiter, 4, 3).await;
    assert_eq!(decisions.iter().filter(|d| d.allowed).count(), 3);
    assert!(
        started.elapsed() < timeout,
        "checks waited on the silent Redis: {:?}",
        started.elapsed()
    );
    assert_eq!(metric(&limiter, "shoal_ratelimit_redis_up"), 0.0);
    drop(held);
}
