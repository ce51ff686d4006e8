//! Jobs across replicas: three real `shoal serve` processes on one throwaway PostgreSQL
//! database, the real Redis and the real NATS (subjects and keys under prefixes of this run's
//! own), with real `shoal worker --backend openai` processes in front of a scripted upstream
//! (`shoal_test_support::process::upstream`). A client on replica A is served by a worker connected to replica B:
//! whole answers, streams with usage, tool calls, a client that hangs up; B killed with
//! SIGKILL mid-stream, and before the first token while replica C has a worker too;
//! `available` on `/models` the same on every replica; a replica shut down with SIGTERM
//! dropped by the others at once, its running job finished. Images: a real
//! `shoal-image-worker` on B in front of `tests/e2e/a1111.py` renders for clients of A and C
//! (PNGs of several MB, over NATS's 1 MiB message limit; progress crosses too), and B killed
//! mid-render leaves A's hold voided. A `service-swarm` ring (one span node) on B answers A.
//! These are the commands of docs/deploy.md.
//!
//! NATS: SHOAL_TEST_NATS_URL (default nats://127.0.0.1:4222), `SHOAL_TEST_NATS=skip` skips;
//! Redis and PostgreSQL as in `cluster.rs`.

use std::time::Duration;

use base64::Engine as _;
use futures::StreamExt;
use reqwest::StatusCode;
use serde_json::{json, Value};
use shoal_test_support::pg::TempDb;
use shoal_test_support::process::cluster::{
    image_worker, nats_or_skip, redis_or_skip, tiny_checker, WorkerProcess, A1111,
};
use shoal_test_support::process::{
    account_with_key, admin, error_of, get_json, metric, wait_until, Loc, Server,
};
use shoal_test_support::upstream::{Upstream, PROMPT_TOKENS};

const MODEL: &str = "service-pro";
/// In every prompt; no log may contain it.
const CANARY: &str = "canary-7f3a-cross-replica";

struct Cluster {
    servers: Vec<Server>,
    store: Loc,
    _dirs: Vec<tempfile::TempDir>,
    db: TempDb,
}

impl Cluster {
    /// Three replicas, or `None` when a shared server is missing and skipping is allowed.
    async fn start(tag: &str) -> Option<Cluster> {
        Cluster::start_with(tag, "").await
    }

    /// [`Cluster::start`] with more lines of configuration for every replica.
    async fn start_with(tag: &str, more: &str) -> Option<Cluster> {
        let (redis, nats) = (redis_or_skip()?, nats_or_skip()?);
        let db = TempDb::for_test().await?;
        let run = format!("{tag}{}x{}", std::process::id(), now_ns());
        let config = format!(
            "redis_url = \"{redis}\"\nredis_key_prefix = \"shoaltest:{run}:\"\n\
             nats_url = \"{nats}\"\nnats_subject_prefix = \"shoaltest.{run}\"\n{more}"
        );
        let store = Loc::Url(db.url().to_owned());
        let (mut servers, mut dirs) = (Vec::new(), Vec::new());
        for _ in 0..3 {
            let dir = tempfile::tempdir().unwrap();
            servers.push(Server::start_on(dir.path(), store.clone(), Some(&config)));
            dirs.push(dir);
        }
        for s in &servers {
            let logs = s.logs();
            assert!(
                logs.contains("jobs are shared with other replicas through NATS"),
                "{logs}"
            );
        }
        let cluster = Cluster {
            servers,
            store,
            _dirs: dirs,
            db,
        };
        for s in &cluster.servers {
            wait_until("every replica hears the two others", WAIT, async || {
                metric(s, "shoal_cluster_replicas").await == 2
            })
            .await;
            let ready = reqwest::get(s.url("/ready")).await.unwrap();
            let ready: serde_json::Value = ready.json().await.unwrap();
            let states = [&ready["database"], &ready["redis"], &ready["nats"]].map(|s| &s["state"]);
            assert_eq!(states, [&json!("up"); 3], "{ready}");
        }
        Some(cluster)
    }

    /// Three replicas, a key with credits, and a worker (2 slots) on B in front of a scripted
    /// upstream, available everywhere.
    async fn worker_on_b(tag: &str) -> Option<(Cluster, String, Upstream, WorkerProcess)> {
        let c = Cluster::start(tag).await?;
        let email = format!("{tag}@example.com");
        let (_, key) = account_with_key(&c.store, &email, 100_000, Some(100_000));
        let up = Upstream::with_first_token_after(Duration::ZERO).await;
        let worker = WorkerProcess::start(&c.servers[1], &c.store, &up.url, 2);
        c.wait_available(&key, true).await;
        Some((c, key, up, worker))
    }

    /// `available` of the model on each replica's `/models`.
    async fn availability(&self, key: &str) -> Vec<bool> {
        self.availability_of(key, MODEL).await
    }

    async fn availability_of(&self, key: &str, model: &str) -> Vec<bool> {
        let mut out = Vec::new();
        for s in &self.servers {
            let models = get_json(&s.url("/api/v1/models"), key).await;
            let m = models["data"].as_array().unwrap().iter();
            let entry = m.clone().find(|m| m["id"] == model).unwrap().clone();
            out.push(entry["available"].as_bool().unwrap());
        }
        out
    }

    async fn wait_available(&self, key: &str, want: bool) {
        self.wait_available_of(key, MODEL, want).await;
    }

    async fn wait_available_of(&self, key: &str, model: &str, want: bool) {
        wait_until("every replica agrees on availability", WAIT, async || {
            self.availability_of(key, model).await == [want; 3]
        })
        .await;
    }

    fn assert_no_canary(&self) {
        for s in &self.servers {
            let logs = s.logs();
            assert!(!logs.contains(CANARY), "a prompt reached a log: {logs}");
            for f in std::fs::read_dir(&s.data_dir).unwrap() {
                let text = std::fs::read_to_string(f.unwrap().path()).unwrap_or_default();
                assert!(!text.contains(CANARY), "a prompt reached a file: {text}");
            }
        }
    }

    async fn finish(self) {
        assert_eq!(admin(&self.store, &["ledger", "verify"]), "ok");
        self.assert_no_canary();
        let db = self.db;
        drop(self.servers);
        drop(db);
    }
}

const WAIT: Duration = Duration::from_secs(15);

fn now_ns() -> u128 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos()
}

fn body(prompt: &str, stream: bool) -> Value {
    json!({"model": MODEL, "max_tokens": 200, "stream": stream,
           "stream_options": if stream { json!({"include_usage": true}) } else { Value::Null },
           "messages": [{"role": "user", "content": format!("{CANARY} {prompt}")}]})
}

async fn post(s: &Server, key: &str, body: &Value) -> reqwest::Response {
    reqwest::Client::new()
        .post(s.url("/api/v1/chat/completions"))
        .bearer_auth(key)
        .json(body)
        .send()
        .await
        .unwrap()
}

/// The `data:` payloads of an SSE body read to its end.
async fn events(r: reqwest::Response) -> Vec<String> {
    assert_eq!(r.status(), StatusCode::OK);
    let text = r.text().await.unwrap();
    text.split("\n\n")
        .filter_map(|e| e.strip_prefix("data: "))
        .map(str::to_owned)
        .collect()
}

/// (credits, credits_held, total_spent) of the key's account, seen from `s`.
async fn balance(s: &Server, key: &str) -> (i64, i64, i64) {
    let b = get_json(&s.url("/api/v1/balance"), key).await;
    let n = |k: &str| b[k].as_i64().unwrap();
    (n("credits"), n("credits_held"), n("total_spent"))
}

/// Waits until the account holds nothing, and returns what it spent.
async fn settled(s: &Server, key: &str) -> i64 {
    wait_until("no credits are held", WAIT, async || {
        balance(s, key).await.1 == 0
    })
    .await;
    balance(s, key).await.2
}

#[tokio::test]
async fn a_worker_on_one_replica_serves_clients_of_another() {
    let Some(c) = Cluster::start("jobs_basic").await else {
        return;
    };
    let (a, b) = (&c.servers[0], &c.servers[1]);
    let (_, key) = account_with_key(&c.store, "jobs@example.com", 100_000, Some(100_000));
    assert_eq!(c.availability(&key).await, [false; 3]);
    let up = Upstream::with_first_token_after(Duration::ZERO).await;
    let mut worker = WorkerProcess::start(b, &c.store, &up.url, 4);
    c.wait_available(&key, true).await;

    // A whole answer.
    let r = post(a, &key, &body("hi", false)).await;
    assert_eq!(r.status(), StatusCode::OK);
    let v: Value = r.json().await.unwrap();
    assert_eq!(v["choices"][0]["message"]["content"], "Hello from upstream");
    assert_eq!(v["usage"]["prompt_tokens"], PROMPT_TOKENS);
    assert_eq!(v["usage"]["completion_tokens"], 3);

    // A stream with usage.
    let ev = events(post(a, &key, &body("[[chunks 5]]", true)).await).await;
    assert_eq!(ev.last().unwrap(), "[DONE]");
    let chunks: Vec<Value> = ev[..ev.len() - 1]
        .iter()
        .map(|e| serde_json::from_str(e).unwrap())
        .collect();
    let text: String = (chunks.iter())
        .filter_map(|c| c["choices"][0]["delta"]["content"].as_str())
        .collect();
    assert_eq!(text, "toktoktoktoktok");
    let usage = &chunks.last().unwrap()["usage"];
    assert_eq!(usage["completion_tokens"], 5, "{chunks:?}");

    // Tools.
    let mut tools = body("[[tool]]", false);
    tools["tools"] = json!([{"type": "function", "function": {"name": "get_weather",
        "parameters": {"type": "object", "properties": {"city": {"type": "string"}}}}}]);
    let v: Value = post(a, &key, &tools).await.json().await.unwrap();
    let call = &v["choices"][0]["message"]["tool_calls"][0];
    assert_eq!(call["function"]["name"], "get_weather", "{v}");
    assert_eq!(call["function"]["arguments"], "{\"city\":\"Paris\"}");
    assert_eq!(v["choices"][0]["finish_reason"], "tool_calls");

    // A client that hangs up mid-stream: the worker on B stops, A settles the hold.
    let r = post(a, &key, &body("[[chunks 200]] [[delay_ms 50]]", true)).await;
    let mut stream = r.bytes_stream();
    stream.next().await.unwrap().unwrap();
    drop(stream);
    wait_until("the upstream hears the hang-up", WAIT, async || {
        up.hung_up() == 1
    })
    .await;
    let spent = settled(a, &key).await;
    assert!(spent > 0);
    assert_eq!(up.requests(), 4, "every request reached the upstream once");

    assert_eq!(
        metric(
            a,
            "shoal_cluster_forwarded_jobs_total{outcome=\"accepted\"}"
        )
        .await,
        4
    );
    assert_eq!(metric(a, "shoal_cluster_hop_seconds_count").await, 4);
    assert_eq!(metric(b, "shoal_cluster_served_jobs_total").await, 4);

    // The worker leaves: every replica says so within a heartbeat or so.
    worker.kill();
    c.wait_available(&key, false).await;
    c.finish().await;
}

/// A stream asked of A with `prompt`, read until its third content chunk (returned).
async fn stream_from_a(
    c: &Cluster,
    key: &str,
    prompt: &str,
) -> (
    impl futures::Stream<Item = reqwest::Result<axum::body::Bytes>> + Unpin,
    String,
) {
    let r = post(&c.servers[0], key, &body(prompt, true)).await;
    assert_eq!(r.status(), StatusCode::OK);
    let mut stream = r.bytes_stream();
    let seen = read_chunks(&mut stream, 3).await;
    (stream, seen)
}

/// Reads `stream` until it has seen `n` content chunks.
async fn read_chunks(
    stream: &mut (impl futures::Stream<Item = reqwest::Result<axum::body::Bytes>> + Unpin),
    n: usize,
) -> String {
    let mut seen = String::new();
    while seen.matches("\"content\":\"tok\"").count() < n {
        let bytes = stream.next().await.expect("more of the stream").unwrap();
        seen.push_str(&String::from_utf8_lossy(&bytes));
    }
    seen
}

#[tokio::test]
async fn a_replica_killed_mid_stream_ends_the_stream_with_an_error_and_bills_what_was_sent() {
    let Some(mut c) = Cluster::start("jobs_kill_mid").await else {
        return;
    };
    let (_, key) = account_with_key(&c.store, "mid@example.com", 100_000, Some(100_000));
    let up = Upstream::with_first_token_after(Duration::ZERO).await;
    let _worker = WorkerProcess::start(&c.servers[1], &c.store, &up.url, 2);
    c.wait_available(&key, true).await;
    let before = balance(&c.servers[0], &key).await.0;

    // A hold for 4,000 tokens; a few hundred are delivered.
    let mut long = body("[[chunks 400]] [[delay_ms 20]]", true);
    long["max_tokens"] = json!(4000);
    let r = post(&c.servers[0], &key, &long).await;
    assert_eq!(r.status(), StatusCode::OK);
    let mut stream = r.bytes_stream();
    let mut seen = read_chunks(&mut stream, 3).await;
    let held = balance(&c.servers[2], &key).await.1;
    c.servers[1].child.kill().unwrap();
    c.servers[1].child.wait().unwrap();
    while let Some(bytes) = stream.next().await {
        seen.push_str(&String::from_utf8_lossy(&bytes.unwrap()));
    }
    let frames: Vec<&str> = seen
        .split("\n\n")
        .filter_map(|e| e.strip_prefix("data: "))
        .collect();
    let last: Value = serde_json::from_str(frames.last().unwrap()).unwrap();
    assert_eq!(last["error"]["code"], "worker_lost", "{seen}");
    assert!(!seen.contains("[DONE]"));
    let delivered = seen.matches("\"content\":\"tok\"").count() as i64;
    assert!((3..400).contains(&delivered), "{delivered}");

    // The replica that took the request settled its hold, for what was delivered only.
    let spent = settled(&c.servers[0], &key).await;
    let (after, _, _) = balance(&c.servers[2], &key).await;
    assert_eq!(before - after, spent);
    assert!(
        spent >= 1 && spent < held,
        "spent {spent} of a hold of {held}"
    );
    assert_eq!(
        metric(&c.servers[0], "shoal_cluster_replicas_lost_total").await,
        1
    );
    c.servers.remove(1);
    let (a, rest) = (&c.servers[0], &c.servers[1]);
    wait_until("the others agree B is gone", WAIT, async || {
        metric(a, "shoal_cluster_replicas").await == 1
            && metric(rest, "shoal_cluster_replicas").await == 1
    })
    .await;
    c.finish().await;
}

/// The replica that took a request dies: the job its worker ran elsewhere is cancelled there.
#[tokio::test]
async fn a_job_whose_replica_died_is_cancelled_where_it_runs() {
    let Some((mut c, key, up, _worker)) = Cluster::worker_on_b("jobs_kill_origin").await else {
        return;
    };
    // Kept open: the job ends because its replica dies, not because its client left.
    let (_stream, _) = stream_from_a(&c, &key, "[[chunks 2000]] [[delay_ms 20]]").await;
    c.servers[0].child.kill().unwrap();
    c.servers[0].child.wait().unwrap();
    wait_until("the upstream hears the cancel", WAIT, async || {
        up.hung_up() == 1
    })
    .await;
    assert_eq!(
        up.counts.finished.load(std::sync::atomic::Ordering::SeqCst),
        0
    );
    let b = &c.servers[1];
    assert_eq!(metric(b, "shoal_cluster_replicas_lost_total").await, 1);
    c.servers.remove(0);
    c.finish().await;
}

#[tokio::test]
async fn a_replica_killed_before_the_first_token_is_retried_on_another() {
    let Some(mut c) = Cluster::start("jobs_kill_first").await else {
        return;
    };
    let (_, key) = account_with_key(&c.store, "first@example.com", 100_000, Some(100_000));
    // B's upstream never gets to its first token; C's answers at once.
    let slow = Upstream::with_first_token_after(Duration::from_secs(120)).await;
    let fast = Upstream::with_first_token_after(Duration::ZERO).await;
    let _on_b = WorkerProcess::start(&c.servers[1], &c.store, &slow.url, 2);
    c.wait_available(&key, true).await;

    let a_base = c.servers[0].base.clone();
    let request = tokio::spawn({
        let key = key.clone();
        async move {
            let r = reqwest::Client::new()
                .post(format!("{a_base}/api/v1/chat/completions"))
                .bearer_auth(&key)
                .json(&body("hi", false))
                .send()
                .await
                .unwrap();
            (r.status(), r.json::<Value>().await.unwrap())
        }
    });
    wait_until("the job reaches B's upstream", WAIT, async || {
        slow.requests() == 1
    })
    .await;
    let _on_c = WorkerProcess::start(&c.servers[2], &c.store, &fast.url, 2);
    let a = &c.servers[0];
    wait_until("A can dispatch to C's worker", WAIT, async || {
        metric(a, "shoal_cluster_peers").await == 2
    })
    .await;
    assert_eq!(fast.requests(), 0);
    c.servers[1].child.kill().unwrap();
    c.servers[1].child.wait().unwrap();

    let (status, v) = request.await.unwrap();
    assert_eq!(status, StatusCode::OK, "{v}");
    assert_eq!(v["choices"][0]["message"]["content"], "Hello from upstream");
    assert_eq!(fast.requests(), 1);
    let spent = settled(&c.servers[0], &key).await;
    assert!(spent >= 1);
    assert_eq!(metric(&c.servers[0], "shoal_job_failovers_total").await, 1);
    c.servers.remove(1);
    c.finish().await;
}

/// A chat job over NATS's `max_payload` (1 MB by default) cannot cross: with no worker where
/// it arrived, the client gets a 413 at once, not a 503 to retry; where a worker is connected,
/// it runs there.
#[tokio::test]
async fn a_job_too_large_to_cross_replicas_is_a_fast_413_unless_a_worker_here_takes_it() {
    let Some((c, key, _up, _worker)) = Cluster::worker_on_b("jobs_large").await else {
        return;
    };
    let prompt = "x".repeat(1_200_000);
    let started = std::time::Instant::now();
    let r = post(&c.servers[0], &key, &body(&prompt, false)).await;
    let took = started.elapsed();
    assert_eq!(r.status(), StatusCode::PAYLOAD_TOO_LARGE);
    let (code, message, kind) = error_of(r).await;
    assert_eq!(
        (code.as_str(), kind.as_str()),
        ("request_too_large", "invalid_request_error")
    );
    assert!(
        message.contains("too large to send to another replica"),
        "{message}"
    );
    assert!(took < Duration::from_secs(3), "took {took:?}");
    let too_large = "shoal_cluster_forwarded_jobs_total{outcome=\"too_large\"}";
    assert_eq!(metric(&c.servers[0], too_large).await, 1);
    assert_eq!(settled(&c.servers[0], &key).await, 0, "nothing billed");

    // On B, whose worker is connected there, the same request runs.
    let r = post(&c.servers[1], &key, &body(&prompt, false)).await;
    assert_eq!(r.status(), StatusCode::OK);
    assert_eq!(metric(&c.servers[1], too_large).await, 0);
    c.finish().await;
}

/// A `nats-server` of the test's own, on `port`.
struct OwnNats(std::process::Child);

impl OwnNats {
    fn start(port: u16) -> Option<OwnNats> {
        let child = std::process::Command::new("nats-server")
            .args(["-a", "127.0.0.1", "-p", &port.to_string()])
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn();
        match child {
            Ok(c) => Some(OwnNats(c)),
            Err(_) if std::env::var("SHOAL_TEST_NATS").as_deref() == Ok("skip") => {
                eprintln!("SKIPPED: no nats-server to start (SHOAL_TEST_NATS=skip)");
                None
            }
            Err(e) => panic!("cannot start nats-server (set SHOAL_TEST_NATS=skip to skip): {e}"),
        }
    }
}

impl Drop for OwnNats {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Replicas whose NATS is down serve their own workers alone and say so; once NATS is up they
/// join without a restart.
#[tokio::test]
async fn replicas_without_nats_run_alone_and_join_once_it_is_up() {
    let Some(db) = TempDb::for_test().await else {
        return;
    };
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let config = format!("nats_url = \"nats://shoal:s3cret-pw@127.0.0.1:{port}\"\n");
    let store = Loc::Url(db.url().to_owned());
    let dirs = [tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap()];
    let a = Server::start_on(dirs[0].path(), store.clone(), Some(&config));
    let b = Server::start_on(dirs[1].path(), store.clone(), Some(&config));
    let (_, key) = account_with_key(&store, "down@example.com", 100_000, Some(100_000));
    let up = Upstream::with_first_token_after(Duration::ZERO).await;
    let _worker = WorkerProcess::start(&b, &store, &up.url, 2);
    wait_until("B serves its own clients", WAIT, async || {
        post(&b, &key, &body("hi", false)).await.status() == StatusCode::OK
    })
    .await;
    let r = post(&a, &key, &body("hi", false)).await;
    assert_eq!(r.status(), StatusCode::SERVICE_UNAVAILABLE);
    for s in [&a, &b] {
        assert_eq!(metric(s, "shoal_cluster_nats_up").await, 0);
        let logs = s.logs();
        assert!(
            logs.contains("ERROR") && logs.contains("NATS is not reachable"),
            "{logs}"
        );
        assert!(
            !logs.contains("s3cret-pw"),
            "the URL's password reached the log"
        );
    }

    let Some(_nats) = OwnNats::start(port) else {
        return;
    };
    wait_until(
        "A reaches B's worker",
        Duration::from_secs(30),
        async || post(&a, &key, &body("hi", false)).await.status() == StatusCode::OK,
    )
    .await;
    assert_eq!(metric(&a, "shoal_cluster_nats_up").await, 1);
    assert!(a.logs().contains("connected to NATS"));
    drop((a, b));
    drop(db);
}

/// A replica that gets SIGTERM tells the others: they stop sending it jobs at once (not after
/// three silent heartbeats), the job it runs for one of them finishes, and it leaves cleanly.
#[tokio::test]
async fn a_replica_shut_down_cleanly_is_dropped_at_once_and_finishes_its_job() {
    let Some((mut c, key, _up, _worker)) = Cluster::worker_on_b("jobs_sigterm").await else {
        return;
    };
    let (mut stream, mut seen) = stream_from_a(&c, &key, "[[chunks 40]] [[delay_ms 50]]").await;
    unsafe {
        libc::kill(c.servers[1].child.id() as i32, libc::SIGTERM);
    }
    let (a, rest) = (&c.servers[0], &c.servers[2]);
    wait_until("A and C no longer offer B's worker", WAIT, async || {
        let models = get_json(&a.url("/api/v1/models"), &key).await;
        let on_c = get_json(&rest.url("/api/v1/models"), &key).await;
        let available = |m: &Value| {
            (m["data"].as_array().unwrap().iter())
                .any(|e| e["id"] == MODEL && e["available"] == true)
        };
        !available(&models) && !available(&on_c)
    })
    .await;
    // The stream B's worker serves for A runs to its end.
    while let Some(bytes) = stream.next().await {
        seen.push_str(&String::from_utf8_lossy(&bytes.unwrap()));
    }
    assert!(seen.contains("[DONE]"), "{seen}");
    assert_eq!(seen.matches("\"content\":\"tok\"").count(), 40);
    let status = c.servers[1].child.wait().unwrap();
    assert!(status.success(), "{status}");
    let (a, rest) = (&c.servers[0], &c.servers[2]);
    for s in [a, rest] {
        wait_until("B is gone for the others", WAIT, async || {
            metric(s, "shoal_cluster_replicas").await == 1
        })
        .await;
        assert_eq!(metric(s, "shoal_cluster_replicas_left_total").await, 1);
        assert_eq!(metric(s, "shoal_cluster_replicas_lost_total").await, 0);
    }
    settled(a, &key).await;
    c.servers.remove(1);
    c.finish().await;
}

/// Images posted to A and C render on B's image worker; B killed mid-render voids A's hold.
#[tokio::test]
async fn images_render_on_the_replica_with_an_image_worker() {
    let checker_dir = tempfile::tempdir().unwrap();
    let checker = tiny_checker(checker_dir.path());
    let Some(mut c) = Cluster::start_with("jobs_images", &checker).await else {
        return;
    };
    let (_, key) = account_with_key(&c.store, "images@example.com", 100, Some(100_000));
    let sd = A1111::start(1500);
    let _worker = image_worker(&c.servers[1], &c.store, &sd.url, "sd-cluster");
    for s in [&c.servers[0], &c.servers[2]] {
        wait_until("B's image worker is a peer", WAIT, async || {
            metric(s, "shoal_cluster_peers").await == 1
        })
        .await;
    }
    let (a, b, third) = (&c.servers[0], &c.servers[1], &c.servers[2]);

    // A large image (seeded noise, ~4.7 MB) through the OpenAI shape on A.
    let ask = json!({"prompt": format!("{CANARY} a lighthouse"), "size": "1536x1024",
                     "seed": 42, "steps": 10, "response_format": "b64_json"});
    let v = post_image(a, "/api/v1/images/generations", &key, &ask).await;
    let crossed = v["data"][0]["b64_json"].as_str().unwrap().to_owned();
    let png = base64::engine::general_purpose::STANDARD
        .decode(&crossed)
        .unwrap();
    assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
    let size = |at: usize| u32::from_be_bytes(png[at..at + 4].try_into().unwrap());
    assert_eq!((size(16), size(20)), (1536, 1024));
    assert!(
        png.len() > 4 << 20,
        "{} bytes: more than NATS's 1 MiB",
        png.len()
    );
    assert_eq!(v["model"], "sd-cluster");
    // The same request where the worker is gives the same bytes: nothing lost or reordered.
    let here = post_image(b, "/api/v1/images/generations", &key, &ask).await;
    assert_eq!(here["data"][0]["b64_json"], crossed.as_str());
    // Progress crossed with it (the stand-in renders for 1.5 s; the worker polls every 0.5 s).
    assert!(metric(a, "shoal_image_steps_total").await >= 1);

    // The site endpoint on C.
    let ask = json!({"prompt": format!("{CANARY} a boat"), "width": 512, "height": 512,
                     "steps": 10, "seed": 7});
    let v = post_image(third, "/api/images/generate", &key, &ask).await;
    assert!(v["image"]
        .as_str()
        .unwrap()
        .starts_with("data:image/png;base64,"));
    assert_eq!(
        (v["width"].as_u64(), v["credits_charged"].as_u64()),
        (Some(512), Some(10))
    );
    for s in [a, third] {
        let accepted = "shoal_cluster_forwarded_jobs_total{outcome=\"accepted\"}";
        assert_eq!(metric(s, accepted).await, 1);
    }
    assert_eq!(metric(b, "shoal_cluster_served_jobs_total").await, 2);
    assert_eq!(settled(a, &key).await, 30);
    assert_eq!(balance(a, &key).await.0, 70);

    // A client of A hangs up mid-render: the render on B is interrupted, nothing is charged.
    let request = stalled_render(a, &key, "first");
    wait_until("the render reaches the stand-in", WAIT, async || {
        sd.rendered("[[stall]] first").await
    })
    .await;
    request.abort();
    wait_until("B's worker interrupts the render", WAIT, async || {
        !sd.received("/sdapi/v1/interrupt").await.is_empty()
    })
    .await;
    assert_eq!(settled(a, &key).await, 30);

    // B dies mid-render: A answers an error and voids its hold; nothing is charged.
    let request = stalled_render(a, &key, "second");
    wait_until("the render reaches the stand-in", WAIT, async || {
        sd.rendered("[[stall]] second").await
    })
    .await;
    c.servers[1].child.kill().unwrap();
    c.servers[1].child.wait().unwrap();
    let r = request.await.unwrap();
    assert!(r.status().is_server_error(), "{}", r.status());
    let (code, _, _) = shoal_test_support::process::error_of(r).await;
    assert_eq!(code, "worker_error");
    assert_eq!(settled(&c.servers[0], &key).await, 30);
    assert_eq!(balance(&c.servers[0], &key).await.0, 70);
    c.servers.remove(1);
    c.finish().await;
}

/// A render on `s` that the stand-in holds until it is interrupted, in a task of its own.
fn stalled_render(s: &Server, key: &str, tag: &str) -> tokio::task::JoinHandle<reqwest::Response> {
    let prompt = format!("{CANARY} [[stall]] {tag}");
    let body = json!({"prompt": prompt, "width": 512, "height": 512});
    let (url, key) = (s.url("/api/images/generate"), key.to_owned());
    tokio::spawn(async move {
        reqwest::Client::new()
            .post(url)
            .bearer_auth(&key)
            .json(&body)
            .send()
            .await
            .unwrap()
    })
}

/// Posts an image request; the answer's JSON, which must be a 200.
async fn post_image(s: &Server, path: &str, key: &str, body: &Value) -> Value {
    let r = reqwest::Client::new()
        .post(s.url(path))
        .bearer_auth(key)
        .json(body)
        .send()
        .await
        .unwrap();
    let status = r.status();
    let v: Value = r.json().await.unwrap();
    assert_eq!(status, StatusCode::OK, "{v}");
    v
}

/// `service-swarm` on a ring of span nodes connected to B (here one node holding all the
/// layers of the generated 2-layer model) answers clients of A: the ring is announced as the
/// model, and the job runs through B's ring.
#[tokio::test]
async fn a_swarm_ring_on_one_replica_serves_clients_of_another() {
    let dir = tempfile::tempdir().unwrap();
    let (whole, span) = (dir.path().join("whole.gguf"), dir.path().join("span.gguf"));
    // The generated tiny model (2 layers), as `serve --demo` writes it.
    shoal_worker::llama::test_model::write(&whole, 4096).unwrap();
    let sliced = std::process::Command::new(shoal_test_support::process::shoal_bin())
        .args(["swarm", "slice", "--gguf"])
        .arg(&whole)
        .args(["--layers", "0..2", "--out"])
        .arg(&span)
        .output()
        .unwrap();
    assert!(
        sliced.status.success(),
        "{}",
        String::from_utf8_lossy(&sliced.stderr)
    );
    let Some(c) = Cluster::start("jobs_swarm").await else {
        return;
    };
    let (_, key) = account_with_key(&c.store, "swarm@example.com", 100_000, Some(100_000));
    let swarm = "service-swarm";
    assert_eq!(c.availability_of(&key, swarm).await, [false; 3]);
    let mut node = WorkerProcess::start_with(&c.servers[1], &c.store, |cmd| {
        cmd.args(["--backend", "swarm", "--gguf"]).arg(&span).args([
            "--serve",
            swarm,
            "--concurrency",
            "2",
            "--threads",
            "1",
            "--ctx",
            "2048",
        ]);
    });
    c.wait_available_of(&key, swarm, true).await;

    let mut ask = body("hi", false);
    ask["model"] = json!(swarm);
    ask["max_tokens"] = json!(8);
    ask["temperature"] = json!(0);
    let r = post(&c.servers[0], &key, &ask).await;
    assert_eq!(r.status(), StatusCode::OK);
    let v: Value = r.json().await.unwrap();
    let completion = v["usage"]["completion_tokens"].as_u64().unwrap();
    assert!((1..=8).contains(&completion), "{v}");
    let accepted = "shoal_cluster_forwarded_jobs_total{outcome=\"accepted\"}";
    assert_eq!(metric(&c.servers[0], accepted).await, 1);
    assert_eq!(
        metric(&c.servers[1], "shoal_cluster_served_jobs_total").await,
        1
    );
    node.kill();
    c.wait_available_of(&key, swarm, false).await;
    c.finish().await;
}
