//! Three real `shoal serve` replicas as one service: one throwaway PostgreSQL database (the
//! ledger and keys) and the real Redis (rate limits, under a key prefix of this run's own).
//! A 60-rpm key hammered through all three gets 60 requests, not 180; 64 requests racing for
//! one account's credits across the three never overspend it. These are the commands of
//! docs/deploy.md.
//!
//! Redis: SHOAL_TEST_REDIS_URL (default redis://127.0.0.1:6379); `SHOAL_TEST_REDIS=skip`
//! skips, with a message, when it is not there. PostgreSQL: as the other tests
//! (`SHOAL_TEST_POSTGRES=skip`).

use std::time::{Duration, Instant};

use reqwest::StatusCode;
use serde_json::json;
use shoal_test_support::pg::TempDb;
use shoal_test_support::process::cluster::redis_or_skip;
use shoal_test_support::process::worker::{answer_after, welcomed_worker};
use shoal_test_support::process::{
    account_with_key, admin, error_of, get_json, metric, race_chat, wait_until, Loc, Server,
};

/// Three replicas on one database, sharing Redis under a prefix of their own.
struct Replicas {
    servers: Vec<Server>,
    store: Loc,
    _dirs: Vec<tempfile::TempDir>,
}

fn start_replicas(db: &TempDb, redis: &str, tag: &str) -> Replicas {
    let prefix = format!("shoaltest:{tag}:{}:{}:", std::process::id(), shoal_now_ns());
    // A key verified once stays cached for the whole test, so that every replica's requests
    // reach the limiter (or the ledger) as fast as every other's.
    let config = format!(
        "redis_url = \"{redis}\"\nredis_key_prefix = \"{prefix}\"\nauth_cache_ms = 120000\n"
    );
    let store = Loc::Url(db.url().to_owned());
    let mut servers = Vec::new();
    let mut dirs = Vec::new();
    for _ in 0..3 {
        let dir = tempfile::tempdir().unwrap();
        servers.push(Server::start_on(dir.path(), store.clone(), Some(&config)));
        dirs.push(dir);
    }
    for s in &servers {
        assert!(
            s.logs().contains("rate limits are shared through Redis"),
            "{}",
            s.logs()
        );
    }
    Replicas {
        servers,
        store,
        _dirs: dirs,
    }
}

fn shoal_now_ns() -> u128 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos()
}

struct Answer {
    replica: usize,
    status: StatusCode,
    remaining: u32,
    retry_after: Option<u64>,
}

async fn get_models(c: &reqwest::Client, s: &Server, key: &str, replica: usize) -> Answer {
    let r = c
        .get(s.url("/api/v1/models"))
        .bearer_auth(key)
        .send()
        .await
        .unwrap();
    let h = r.headers();
    assert_eq!(h["x-ratelimit-limit-requests"], "60");
    let answer = Answer {
        replica,
        status: r.status(),
        remaining: h["x-ratelimit-remaining-requests"]
            .to_str()
            .unwrap()
            .parse()
            .unwrap(),
        retry_after: h
            .get("retry-after")
            .map(|v| v.to_str().unwrap().parse().unwrap()),
    };
    if answer.status == StatusCode::TOO_MANY_REQUESTS {
        let (code, _, _) = error_of(r).await;
        assert_eq!(code, "rate_limit_exceeded");
    }
    answer
}

#[tokio::test]
async fn a_60_rpm_key_gets_60_requests_through_three_replicas() {
    let Some(redis) = redis_or_skip() else {
        return;
    };
    let Some(db) = TempDb::for_test().await else {
        return;
    };
    let r = start_replicas(&db, &redis, "rl");
    let (_, key) = account_with_key(&r.store, "rl@example.com", 0, Some(60));
    let c = reqwest::Client::new();
    // One request on each replica first puts the key in its cache; they count in the 60.
    let started = Instant::now();
    let mut answers = Vec::new();
    for (replica, s) in r.servers.iter().enumerate() {
        answers.push(get_models(&c, s, &key, replica).await);
    }
    let calls = (0..180).map(|i| get_models(&c, &r.servers[i % 3], &key, i % 3));
    let hammered = futures::future::join_all(calls).await;
    let elapsed = started.elapsed();
    for replica in 0..3 {
        let ok = |a: &&Answer| a.replica == replica && a.status == StatusCode::OK;
        assert!(
            hammered.iter().any(|a| ok(&a)),
            "replica {replica} admitted none"
        );
    }
    answers.extend(hammered);
    eprintln!(
        "{} requests in {elapsed:?}: {} admitted",
        answers.len(),
        answers
            .iter()
            .filter(|a| a.status == StatusCode::OK)
            .count()
    );

    let admitted: Vec<&Answer> = answers
        .iter()
        .filter(|a| a.status == StatusCode::OK)
        .collect();
    let refused: Vec<&Answer> = answers
        .iter()
        .filter(|a| a.status != StatusCode::OK)
        .collect();
    // Every decision came from Redis (none from a replica's fallback limiter).
    for s in &r.servers {
        let ready = c.get(s.url("/ready")).send().await.unwrap();
        let ready: serde_json::Value = ready.json().await.unwrap();
        assert_eq!(ready["redis"]["state"], "up", "{ready}");
        let metrics = c.get(s.url("/metrics")).send().await.unwrap();
        let metrics = metrics.text().await.unwrap();
        for line in [
            "shoal_ratelimit_redis_errors_total 0",
            "shoal_ratelimit_redis_up 1",
            "shoal_ratelimit_redis_seconds_count",
        ] {
            assert!(metrics.contains(line), "{line}: {metrics}");
        }
    }
    // One request a second refills at 60/min: a burst slower than a second may admit more.
    let refills = elapsed.as_secs() as usize;
    assert!(
        (60..=60 + refills).contains(&admitted.len()),
        "{} admitted in {elapsed:?} (per-replica limits would admit up to 180)",
        admitted.len()
    );
    if refills == 0 {
        let mut remaining: Vec<u32> = admitted.iter().map(|a| a.remaining).collect();
        remaining.sort_unstable();
        assert_eq!(remaining, (0..60).collect::<Vec<_>>(), "one count for all");
    }
    for replica in 0..3 {
        assert!(
            admitted.iter().any(|a| a.replica == replica),
            "replica {replica} admitted none"
        );
    }
    for a in &refused {
        assert_eq!(a.status, StatusCode::TOO_MANY_REQUESTS);
        assert_eq!(
            (a.remaining, a.retry_after),
            (0, Some(1)),
            "replica {}",
            a.replica
        );
    }

    // Waiting as long as Retry-After said is enough, on any replica.
    tokio::time::sleep(Duration::from_secs(1)).await;
    assert_eq!(
        get_models(&c, &r.servers[1], &key, 1).await.status,
        StatusCode::OK
    );
    drop(r);
    drop(db);
}

async fn chat(c: &reqwest::Client, s: &Server, key: &str) -> reqwest::Response {
    // A hold of a few credits (the whole max_tokens) for a charge of one (4 tokens).
    race_chat(c, s, key, 4000).await
}

/// The hold one request needs, from the 402 an account without credits gets.
async fn hold_size(c: &reqwest::Client, s: &Server, store: &Loc) -> i64 {
    let (_, broke) = account_with_key(store, "broke@example.com", 0, None);
    let r = chat(c, s, &broke).await;
    assert_eq!(r.status(), StatusCode::PAYMENT_REQUIRED);
    let (_, message, _) = error_of(r).await;
    message
        .split_once("needs a hold of ")
        .and_then(|(_, rest)| rest.split_whitespace().next()?.parse().ok())
        .unwrap_or_else(|| panic!("no hold size in {message:?}"))
}

#[tokio::test]
async fn sixty_four_requests_racing_across_replicas_never_overspend() {
    let Some(redis) = redis_or_skip() else {
        return;
    };
    let Some(db) = TempDb::for_test().await else {
        return;
    };
    let r = start_replicas(&db, &redis, "race");
    let mut workers = Vec::new();
    for s in &r.servers {
        workers.push(answer_after(
            welcomed_worker(s, &r.store, 64).await,
            Duration::from_millis(500),
            json!({"prompt_tokens": 3, "completion_tokens": 1}),
        ));
    }
    let c = reqwest::Client::new();
    let hold = hold_size(&c, &r.servers[0], &r.store).await;
    // Room for 20 holds at once, not 21.
    let granted = hold * 20 + hold / 2;
    let (_, key) = account_with_key(&r.store, "race@example.com", granted, Some(10_000));
    for s in &r.servers {
        let balance = c
            .get(s.url("/api/v1/balance"))
            .bearer_auth(&key)
            .send()
            .await;
        assert_eq!(
            balance.unwrap().status(),
            StatusCode::OK,
            "the key, now cached"
        );
    }

    let calls = (0..64).map(|i| chat(&c, &r.servers[i % 3], &key));
    let statuses: Vec<StatusCode> = futures::future::join_all(calls)
        .await
        .iter()
        .map(|r| r.status())
        .collect();
    let ok = statuses.iter().filter(|s| **s == StatusCode::OK).count();
    let broke = statuses
        .iter()
        .filter(|s| **s == StatusCode::PAYMENT_REQUIRED)
        .count();
    assert_eq!(ok + broke, 64, "{statuses:?}");
    assert!(ok >= 20 && broke >= 1, "{ok} served, {broke} refused");

    // A hold is settled just after its response is written: wait until none is left.
    let deadline = Instant::now() + Duration::from_secs(10);
    let (balance, credits, spent) = loop {
        let balance = get_json(&r.servers[1].url("/api/v1/balance"), &key).await;
        let held = balance["credits_held"].as_i64().unwrap();
        if held == 0 {
            let credits = balance["credits"].as_i64().unwrap();
            let spent = balance["total_spent"].as_i64().unwrap();
            break (balance, credits, spent);
        }
        assert!(Instant::now() < deadline, "holds left: {balance}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    assert!(credits >= 0 && spent > 0, "{balance}");
    assert_eq!(credits + spent, granted, "{balance}");
    assert_eq!(
        spent % ok as i64,
        0,
        "every served request costs the same: {balance}"
    );
    assert_eq!(admin(&r.store, &["ledger", "verify"]), "ok");

    let mut jobs = Vec::new();
    for w in workers {
        jobs.push(w.await.unwrap());
    }
    assert_eq!(jobs.iter().sum::<usize>(), ok, "{jobs:?}");
    // Which replicas win the holds depends on timing: on a loaded machine one replica may take
    // them all, so the split is reported, not asserted; the ledger's totals above are the test.
    eprintln!(
        "{ok} served ({jobs:?} by replica), {broke} refused (402); hold {hold}, granted \
         {granted}, spent {spent}"
    );
    drop(r);
    drop(db);
}

#[tokio::test]
async fn an_unreachable_redis_still_limits_every_key_and_says_so() {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let config = format!("redis_url = \"redis://:s3cret-pw@127.0.0.1:{port}\"\n");
    let s = Server::start(Some(&config));
    let (_, key) = account_with_key(&s.data_dir, "down@example.com", 0, Some(3));
    let c = reqwest::Client::new();
    let mut statuses = Vec::new();
    for _ in 0..5 {
        let r = c
            .get(s.url("/api/v1/models"))
            .bearer_auth(&key)
            .send()
            .await;
        statuses.push(r.unwrap().status().as_u16());
    }
    assert_eq!(
        statuses,
        [200, 200, 200, 429, 429],
        "limited by this replica alone"
    );
    let metrics = c.get(s.url("/metrics")).send().await.unwrap();
    let metrics = metrics.text().await.unwrap();
    assert!(metrics.contains("shoal_ratelimit_redis_up 0"), "{metrics}");
    // Still ready: limits fail open to this replica's own; /ready says Redis is down.
    let ready = c.get(s.url("/ready")).send().await.unwrap();
    assert_eq!(ready.status(), StatusCode::OK);
    let ready: serde_json::Value = ready.json().await.unwrap();
    assert_eq!(
        (&ready["status"], &ready["redis"]["state"]),
        (&json!("ready"), &json!("down"))
    );
    assert!(
        metrics.contains("shoal_ratelimit_local_fallbacks_total 5"),
        "{metrics}"
    );
    let logs = s.logs();
    assert!(
        logs.contains("ERROR") && logs.contains("Redis is not answering rate-limit checks"),
        "{logs}"
    );
    assert!(
        !logs.contains("s3cret-pw"),
        "the URL's password reached the log: {logs}"
    );
}

/// A `redis-server` of this test's own (so that it can be frozen), killed on drop.
struct OwnRedis(std::process::Child, u16);

impl OwnRedis {
    fn start() -> OwnRedis {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let child = std::process::Command::new("redis-server")
            .args(["--port", &port.to_string(), "--bind", "127.0.0.1"])
            .args(["--save", "", "--appendonly", "no"])
            .stdout(std::process::Stdio::null())
            .spawn()
            .expect("redis-server on PATH (.ci/run installs it)");
        let deadline = Instant::now() + Duration::from_secs(10);
        while !Self::pongs(port) {
            assert!(Instant::now() < deadline, "redis-server did not start");
            std::thread::sleep(Duration::from_millis(20));
        }
        OwnRedis(child, port)
    }

    fn pongs(port: u16) -> bool {
        use std::io::{Read, Write};
        let Ok(mut s) = std::net::TcpStream::connect(("127.0.0.1", port)) else {
            return false;
        };
        let mut b = [0; 7];
        s.write_all(b"PING\r\n").is_ok() && s.read_exact(&mut b).is_ok() && &b == b"+PONG\r\n"
    }

    fn signal(&self, sig: &str) {
        let pid = self.0.id().to_string();
        let status = std::process::Command::new("kill")
            .args([sig, &pid])
            .status();
        assert!(status.unwrap().success());
    }
}

impl Drop for OwnRedis {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[tokio::test]
async fn a_hung_redis_costs_one_short_timeout_not_one_per_request() {
    if redis_or_skip().is_none() {
        return;
    }
    let redis = OwnRedis::start();
    let timeout_ms = 300;
    let config = format!(
        "redis_url = \"redis://127.0.0.1:{}\"\nredis_timeout_ms = {timeout_ms}\n",
        redis.1
    );
    let s = Server::start(Some(&config));
    assert!(s.logs().contains("rate limits are shared through Redis"));
    let (_, key) = account_with_key(&s.data_dir, "hung@example.com", 0, Some(3));
    let c = reqwest::Client::new();
    let status = async || {
        let r = c.get(s.url("/api/v1/models")).bearer_auth(&key).send();
        r.await.unwrap().status().as_u16()
    };
    assert_eq!(status().await, 200, "through Redis");

    // Frozen: connections stay open and nothing answers.
    redis.signal("-STOP");
    let n: u64 = 10;
    let started = Instant::now();
    let mut statuses = Vec::new();
    for _ in 0..n {
        statuses.push(status().await);
    }
    let took = started.elapsed();
    assert_eq!(&statuses[..4], [200, 200, 200, 429], "limited locally");
    assert!(
        took < Duration::from_millis(timeout_ms * n / 3),
        "{n} requests took {took:?}: they waited on the hung Redis"
    );
    assert_eq!(metric(&s, "shoal_ratelimit_redis_up").await, 0);
    assert_eq!(
        metric(&s, "shoal_ratelimit_redis_circuit_opens_total").await,
        1
    );
    assert_eq!(metric(&s, "shoal_ratelimit_local_fallbacks_total").await, n);

    // Thawed: the probe closes the circuit and checks are shared again.
    redis.signal("-CONT");
    wait_until("the circuit closes", Duration::from_secs(10), async || {
        metric(&s, "shoal_ratelimit_redis_up").await == 1
    })
    .await;
    status().await;
    assert_eq!(metric(&s, "shoal_ratelimit_local_fallbacks_total").await, n);
}
