//! The worker socket of a real `shoal serve`, driven by a hand-written worker: the token is
//! checked before anything is read, the handshake is enforced, jobs are pushed carrying the
//! generation input only, and a silent worker is dropped.

use serde_json::{json, Value};
use shoal_test_support::pg::TempDb;
use shoal_test_support::process::worker::{
    answer_every_job, connect, hello, recv, send, welcomed_worker,
};
use shoal_test_support::process::{
    account_with_key, admin, balance_of, get_json, wait_until, Loc, Server,
};
use std::time::{Duration, Instant};

async fn available(s: &Server, key: &str, model: &str) -> bool {
    let body = get_json(&s.url("/api/v1/models"), key).await;
    body["data"]
        .as_array()
        .unwrap()
        .iter()
        .any(|m| m["id"] == model && m["available"] == true)
}

/// The 32 hex digits of `id` after `prefix`, checked to be an RFC 9562 UUID of `version`.
fn uuid_hex<'a>(id: &'a str, prefix: &str, version: char) -> &'a str {
    let hex = id
        .strip_prefix(prefix)
        .unwrap_or_else(|| panic!("{id} lacks {prefix}"));
    assert!(
        hex.len() == 32 && hex.chars().all(|c| c.is_ascii_hexdigit()),
        "{id}"
    );
    assert_eq!(hex.as_bytes()[12], version as u8, "version of {id}");
    assert!(b"89ab".contains(&hex.as_bytes()[16]), "variant of {id}");
    hex
}

#[tokio::test]
async fn bad_tokens_are_refused_before_the_upgrade() {
    let s = Server::start(None);
    for token in [
        "",
        "shoal-wt-nope",
        "sk-shoal-AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
    ] {
        match connect(&s, token).await {
            Err(tokio_tungstenite::tungstenite::Error::Http(resp)) => {
                assert_eq!(resp.status(), 401)
            }
            other => panic!(
                "token {token:?} was not refused with 401: {:?}",
                other.map(|_| ())
            ),
        }
    }
}

#[tokio::test]
async fn handshake_rules_are_enforced() {
    let s = Server::start(None);
    let token = admin(&s.data_dir, &["worker-token", "create", "--name", "t"]);

    let mut ws = connect(&s, &token).await.unwrap();
    let mut bad = hello(&["service-pro"]);
    bad["protocol"] = json!(99);
    send(&mut ws, bad).await;
    let answer = recv(&mut ws).await;
    assert_eq!(answer["type"], "refused", "{answer}");

    let mut ws = connect(&s, &token).await.unwrap();
    send(&mut ws, hello(&["not-in-the-catalog"])).await;
    assert_eq!(recv(&mut ws).await["type"], "refused");

    let mut ws = connect(&s, &token).await.unwrap();
    send(&mut ws, json!({"type": "heartbeat"})).await;
    assert_eq!(
        recv(&mut ws).await["type"],
        "refused",
        "a first message other than hello"
    );

    let mut ws = connect(&s, &token).await.unwrap();
    send(&mut ws, hello(&["code", "service-pro", "nope"])).await;
    let welcome = recv(&mut ws).await;
    assert_eq!(welcome["type"], "welcome");
    assert_eq!(welcome["protocol"], 1);
    assert_eq!(welcome["ignored_models"], json!(["nope"]));
    assert!(welcome["heartbeat_interval_ms"].as_u64().unwrap() > 0);
}

#[tokio::test]
async fn jobs_are_pushed_with_generation_input_only_and_silent_workers_dropped() {
    let s = Server::start(Some("worker_heartbeat_ms = 300\n"));
    let (account, key) = account_with_key(&s.data_dir, "w@example.com", 1000, Some(10_000));
    let token = admin(&s.data_dir, &["worker-token", "create", "--name", "t"]);
    let mut ws = connect(&s, &token).await.unwrap();
    // An alias is registered under its catalog target.
    send(&mut ws, hello(&["code"])).await;
    assert_eq!(recv(&mut ws).await["type"], "welcome");
    assert!(available(&s, &key, "large-27b-uncensored").await);
    assert!(!available(&s, &key, "service-pro").await);

    let url = s.url("/api/v1/chat/completions");
    let body = json!({
        "model": "code",
        "messages": [{"role": "developer", "content": "be brief"}, {"role": "user", "content": "hi"}],
        "user": "CANARY-USER-42",
        "max_tokens": 1_000_000,
        "temperature": 0.5,
    });
    let key2 = key.clone();
    let client = tokio::spawn(async move {
        reqwest::Client::new()
            .post(url)
            .bearer_auth(key2)
            .json(&body)
            .send()
            .await
            .unwrap()
    });
    let job = recv(&mut ws).await;
    assert_eq!(job["type"], "job");
    assert_eq!(
        job["model"], "code",
        "the job names the model as the worker announced it"
    );
    let text = job.to_string();
    for secret in ["CANARY-USER-42", key.as_str(), "w@example.com"] {
        assert!(!text.contains(secret), "the job carries {secret}: {text}");
    }
    let request = job["request"].as_object().unwrap();
    let allowed = [
        "messages",
        "tools",
        "tool_choice",
        "parallel_tool_calls",
        "temperature",
        "top_p",
        "max_tokens",
        "stop",
        "seed",
        "presence_penalty",
        "frequency_penalty",
        "response_format",
        "reasoning_effort",
    ];
    for k in request.keys() {
        assert!(allowed.contains(&k.as_str()), "unexpected job field {k}");
    }
    assert_eq!(
        job["request"]["max_tokens"], 16_384,
        "capped at the model's maximum output"
    );
    assert_eq!(
        job["request"]["messages"][0]["role"], "system",
        "developer is sent as system"
    );
    assert_eq!(job["request"]["temperature"], 0.5);
    let _ = account;

    let id = job["job_id"].as_str().unwrap();
    send(
        &mut ws,
        json!({"type": "delta", "job_id": id, "content": "Hel"}),
    )
    .await;
    send(
        &mut ws,
        json!({"type": "delta", "job_id": id, "content": "lo"}),
    )
    .await;
    send(
        &mut ws,
        json!({"type": "done", "job_id": id, "finish_reason": "stop",
        "usage": {"prompt_tokens": 10, "completion_tokens": 2, "reasoning_tokens": 0}}),
    )
    .await;
    let resp = client.await.unwrap();
    assert_eq!(resp.status(), 200);
    let request_id = resp.headers()["x-request-id"].to_str().unwrap().to_owned();
    let completion: Value = resp.json().await.unwrap();
    assert_eq!(completion["choices"][0]["message"]["content"], "Hello");
    assert_eq!(completion["model"], "large-27b-uncensored");
    assert_eq!(completion["usage"]["total_tokens"], 12);

    // The request id is a random (v4) UUID; the completion's id a time-ordered (v7) one,
    // whose first 48 bits are the Unix time in milliseconds.
    uuid_hex(&request_id, "req_", '4');
    let id = uuid_hex(completion["id"].as_str().unwrap(), "chatcmpl-", '7');
    let millis = u64::from_str_radix(&id[..12], 16).unwrap();
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as u64;
    assert!(
        now.abs_diff(millis) < 60_000,
        "{id} is not from now ({now} ms)"
    );

    // The gateway's own overhead and dispatch wait are exported for operators. The charge
    // is counted when the hold is settled, which may land just after the body is sent.
    let metrics_url = s.url("/metrics");
    let scrape = async || {
        reqwest::get(&metrics_url)
            .await
            .unwrap()
            .text()
            .await
            .unwrap()
    };
    let wanted = [
        "shoal_gateway_overhead_seconds_count 1",
        "shoal_dispatch_wait_seconds_count 1",
        "shoal_workers_connected 1",
        "shoal_credits_charged_total 1",
    ];
    let has_all = |m: &str| wanted.iter().all(|w| m.lines().any(|l| l == *w));
    let deadline = Instant::now() + Duration::from_secs(5);
    let mut metrics = scrape().await;
    while !has_all(&metrics) && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(20)).await;
        metrics = scrape().await;
    }
    for line in wanted {
        assert!(
            metrics.lines().any(|l| l == line),
            "no `{line}` in:\n{metrics}"
        );
    }
    assert!(
        metrics.contains("route=\"/api/v1/chat/completions\",status=\"200\""),
        "{metrics}"
    );

    // Silence: dropped within three heartbeat intervals (plus slack), and unavailable.
    let silent_since = Instant::now();
    wait_until(
        "the silent worker is dropped",
        Duration::from_secs(5),
        async || !available(&s, &key, "large-27b-uncensored").await,
    )
    .await;
    assert!(
        silent_since.elapsed() >= Duration::from_millis(600),
        "dropped too early"
    );
    let r = reqwest::Client::new()
        .post(s.url("/api/v1/chat/completions"))
        .bearer_auth(&key)
        .json(&json!({"model": "code", "messages": [{"role": "user", "content": "hi"}]}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 503);
}

#[tokio::test]
async fn busy_workers_queue_requests_until_a_slot_frees() {
    let s = Server::start(Some("queue_timeout_secs = 1\n"));
    let (_, key) = account_with_key(&s.data_dir, "q@example.com", 1000, Some(10_000));
    let mut ws = welcomed_worker(&s, &s.store, 1).await;

    let post = |key: String, url: String| {
        tokio::spawn(async move {
            let body =
                json!({"model": "service-pro", "messages": [{"role": "user", "content": "hi"}]});
            reqwest::Client::new()
                .post(url)
                .bearer_auth(key)
                .json(&body)
                .send()
                .await
                .unwrap()
        })
    };
    let url = s.url("/api/v1/chat/completions");
    let first = post(key.clone(), url.clone());
    let job1 = recv(&mut ws).await;
    // Concurrency 1: the second request waits for the slot, then gets it when job 1 ends.
    let second = post(key.clone(), url.clone());
    tokio::time::sleep(Duration::from_millis(200)).await;
    let id1 = job1["job_id"].as_str().unwrap();
    send(&mut ws, json!({"type": "done", "job_id": id1, "finish_reason": "stop", "usage": {"prompt_tokens": 1, "completion_tokens": 0}})).await;
    assert_eq!(first.await.unwrap().status(), 200);
    let job2 = recv(&mut ws).await;
    assert_eq!(job2["type"], "job");
    assert_ne!(job2["job_id"], job1["job_id"]);
    // A third request finds the only slot busy and gives up after queue_timeout_secs.
    let started = Instant::now();
    let third = post(key.clone(), url.clone()).await.unwrap();
    assert_eq!(third.status(), 503);
    assert!(
        started.elapsed() >= Duration::from_millis(900),
        "gave up before the queue timeout"
    );
    let id2 = job2["job_id"].as_str().unwrap();
    send(&mut ws, json!({"type": "done", "job_id": id2, "finish_reason": "stop", "usage": {"prompt_tokens": 1, "completion_tokens": 0}})).await;
    assert_eq!(second.await.unwrap().status(), 200);
}

#[tokio::test]
async fn kill_9_mid_stream_keeps_no_credit_after_the_hold_ttl() {
    let tmp = tempfile::tempdir().unwrap();
    kill_9_mid_stream(tmp.path(), Loc::Dir(tmp.path().to_path_buf())).await;
}

#[tokio::test]
async fn kill_9_mid_stream_keeps_no_credit_after_the_hold_ttl_on_postgres() {
    let Some(db) = TempDb::for_test().await else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    kill_9_mid_stream(tmp.path(), Loc::Url(db.url().to_owned())).await;
    drop(db);
}

/// Kill -9 of the gateway while a stream is open and its hold taken, restart on the same
/// store: the orphaned hold counts until its TTL, then the reaper makes the balance whole.
async fn kill_9_mid_stream(dir: &std::path::Path, store: Loc) {
    let config = "request_timeout_secs = 1\nhold_ttl_secs = 3\nreaper_interval_secs = 1\n";
    let mut s = Server::start_on(dir, store.clone(), Some(config));
    let (_, key) = account_with_key(&store, "k9@example.com", 1000, Some(10_000));
    let mut ws = welcomed_worker(&s, &store, 1).await;

    let url = s.url("/api/v1/chat/completions");
    let key2 = key.clone();
    let client = tokio::spawn(async move {
        let body = json!({"model": "service-pro", "stream": true, "messages": [{"role": "user", "content": "hi"}]});
        let mut resp = reqwest::Client::new()
            .post(url)
            .bearer_auth(key2)
            .json(&body)
            .send()
            .await
            .unwrap();
        assert_eq!(resp.status(), 200);
        // Read until the server dies under us.
        while let Ok(Some(_)) = resp.chunk().await {}
    });
    let job = recv(&mut ws).await;
    let id = job["job_id"].as_str().unwrap();
    send(
        &mut ws,
        json!({"type": "delta", "job_id": id, "content": "partial"}),
    )
    .await;

    wait_until("the hold is visible", Duration::from_secs(5), async || {
        balance_of(&s, &key).await.1 > 0
    })
    .await;
    s.child.kill().unwrap();
    s.child.wait().unwrap();
    let _ = client.await;
    drop(s);

    let s = Server::start_on(dir, store.clone(), Some(config));
    let (credits, held) = balance_of(&s, &key).await;
    assert_eq!(credits, 1000);
    assert!(held > 0, "the hold outlives the crash until its TTL");
    wait_until(
        "the reaper releases the orphaned hold",
        Duration::from_secs(10),
        async || balance_of(&s, &key).await == (1000, 0),
    )
    .await;
    assert_eq!(admin(&store, &["ledger", "verify"]), "ok");
}

#[tokio::test]
async fn clients_that_hang_up_at_any_moment_leave_no_hold() {
    let tmp = tempfile::tempdir().unwrap();
    hang_ups(tmp.path(), Loc::Dir(tmp.path().to_path_buf())).await;
}

/// The window that used to leak: the client hangs up while its hold is being written. On
/// PostgreSQL the test can hold that write open (a row lock on the account), hang up, and
/// only then let the hold commit: it must still be ended at once, not by the TTL reaper.
#[tokio::test]
async fn a_client_that_hangs_up_while_its_hold_is_written_leaves_no_hold() {
    use sqlx::Connection;
    let Some(db) = TempDb::for_test().await else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let store = Loc::Url(db.url().to_owned());
    let s = Server::start_on(tmp.path(), store.clone(), Some("hold_ttl_secs = 3600\n"));
    let (account, key) = account_with_key(&store, "win@example.com", 1000, Some(10_000));
    let ws = welcomed_worker(&s, &store, 1).await;

    let mut locker = sqlx::PgConnection::connect(db.url()).await.unwrap();
    sqlx::query("BEGIN").execute(&mut locker).await.unwrap();
    sqlx::query("SELECT 1 FROM accounts WHERE id = $1 FOR UPDATE")
        .bind(account.parse::<i64>().unwrap())
        .execute(&mut locker)
        .await
        .unwrap();

    let url = s.url("/api/v1/chat/completions");
    let key2 = key.clone();
    let client = tokio::spawn(async move {
        let body = json!({"model": "service-pro", "messages": [{"role": "user", "content": "hi"}]});
        reqwest::Client::new()
            .post(url)
            .bearer_auth(key2)
            .json(&body)
            .send()
            .await
    });
    let mut watcher = sqlx::PgConnection::connect(db.url()).await.unwrap();
    wait_until(
        "the hold waits on the account's row lock",
        Duration::from_secs(10),
        async || {
            sqlx::query_scalar::<_, i64>(
                "SELECT count(*) FROM pg_stat_activity \
                 WHERE datname = current_database() AND wait_event_type = 'Lock'",
            )
            .fetch_one(&mut watcher)
            .await
            .unwrap()
                > 0
        },
    )
    .await;
    // Hang up; give the gateway a moment to see the closed connection before the hold can
    // commit (without that the old bug would not show; the outcome must not depend on it).
    client.abort();
    let _ = client.await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    sqlx::query("ROLLBACK").execute(&mut locker).await.unwrap();

    // Whatever the gateway does now (void, or dispatch and cancel), nothing stays held.
    let worker = answer_every_job(ws, None);
    wait_until("the hold is ended", Duration::from_secs(5), async || {
        balance_of(&s, &key).await == (1000, 0)
    })
    .await;
    worker.abort();
    assert_eq!(admin(&store, &["ledger", "verify"]), "ok");
    drop(s);
    let _ = locker.close().await;
    let _ = watcher.close().await;
    drop(db);
}

/// Clients that hang up at any moment (while the hold is being written, while queued,
/// mid-generation) leave nothing held: every hold is ended at once, not by the TTL reaper.
async fn hang_ups(dir: &std::path::Path, store: Loc) {
    // A TTL far beyond the test, so only the request path can have released the holds.
    let s = Server::start_on(dir, store.clone(), Some("hold_ttl_secs = 3600\n"));
    let (_, key) = account_with_key(&store, "hangup@example.com", 1_000_000, Some(1_000_000));
    let ws = welcomed_worker(&s, &store, 64).await;

    // The worker answers each job with one delta and then finishes, a little later.
    let worker = answer_every_job(ws, Some("x"));

    let client = reqwest::Client::new();
    let url = s.url("/api/v1/chat/completions");
    let mut tasks = Vec::new();
    for i in 0..400u64 {
        let (client, url, key) = (client.clone(), url.clone(), key.clone());
        tasks.push(tokio::spawn(async move {
            let body = json!({"model": "service-pro", "stream": i % 2 == 0, "messages": [{"role": "user", "content": "hi"}]});
            let send = client.post(url).bearer_auth(key).json(&body).send();
            // Hang up after 0..20 ms: before, during or after the hold is written.
            let _ = tokio::time::timeout(Duration::from_micros(i * 50), send).await;
        }));
    }
    for t in tasks {
        t.await.unwrap();
    }
    wait_until("every hold is ended", Duration::from_secs(10), async || {
        balance_of(&s, &key).await.1 == 0
    })
    .await;
    worker.abort();
    assert_eq!(admin(&store, &["ledger", "verify"]), "ok");
}
