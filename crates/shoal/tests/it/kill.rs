//! Crashes at the worst moments. A worker process is killed with SIGKILL after the gateway
//! dispatched it a job and before its first event, and while it is writing its `done`; the
//! gateway is killed with SIGKILL while many holds are being written, then restarted on the
//! same store. Nothing is lost: the request fails over or ends with an error event, and every
//! hold is ended (by the request, or by the reaper after the TTL), with the ledger consistent.
//!
//! The killed worker is this test binary run again as a child process
//! (`worker_process_for_kill_tests`), so the moment it dies is exact: it reports on stdout
//! when it holds a job, or has written half of its `done` frame, and then waits to be killed.

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use futures::{SinkExt, StreamExt};
use serde_json::{json, Value};
use shoal_bench_churn::worker::{connect, encode, Socket};
use shoal_protocol::worker::{GatewayMessage, JobUsage, WorkerMessage};
use shoal_test_support::pg::TempDb;
use shoal_test_support::process::{
    account_with_key, admin, balance_of, metric, wait_until, Loc, Server,
};
use tokio_tungstenite::tungstenite::Message;

const MODEL: &str = "service-pro";
const MARK: &str = "KILL-TEST-WORKER ";

/// Not a test of its own: the worker process the tests below start and kill. It does nothing
/// unless started by them (with `KILL_TEST_GATEWAY` set).
#[test]
#[ignore = "the child process of the worker kill tests"]
fn worker_process_for_kill_tests() {
    let (Ok(base), Ok(token), Ok(mode)) = (
        std::env::var("KILL_TEST_GATEWAY"),
        std::env::var("KILL_TEST_TOKEN"),
        std::env::var("KILL_TEST_MODE"),
    ) else {
        return;
    };
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(child_worker(&base, &token, &mode));
}

fn say(what: &str) {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    writeln!(out, "{MARK}{what}").unwrap();
    out.flush().unwrap();
}

/// Takes one job, then: `job` says so and waits; `done` (or `delta-done`, after one delta)
/// writes the first half of its `done` frame straight onto the TCP stream and waits.
async fn child_worker(base: &str, token: &str, mode: &str) {
    let (mut ws, _) = connect(base, token, MODEL, 1).await.unwrap();
    say("ready");
    let job_id = loop {
        if let Some(Ok(Message::Text(t))) = ws.next().await {
            if let Ok(GatewayMessage::Job { job_id, .. }) = serde_json::from_str(&t) {
                break job_id;
            }
        }
    };
    if mode == "job" {
        say("job");
        return std::future::pending().await;
    }
    if mode == "delta-done" {
        let delta = WorkerMessage::Delta {
            job_id: job_id.clone(),
            content: Some("partial".into()),
            reasoning: None,
            tool_calls: None,
        };
        ws.send(encode(&delta)).await.unwrap();
    }
    let done = WorkerMessage::Done {
        job_id,
        finish_reason: shoal_protocol::codes::FinishReason::Stop,
        usage: JobUsage {
            prompt_tokens: 3,
            completion_tokens: 1,
            reasoning_tokens: 0,
            cached_tokens: 0,
        },
    };
    let frame = masked_text_frame(serde_json::to_string(&done).unwrap().as_bytes());
    write_raw(&mut ws, &frame[..frame.len() / 2]).await;
    say("half-done");
    std::future::pending().await
}

/// A client's WebSocket text frame (clients must mask), as the bytes on the wire.
fn masked_text_frame(payload: &[u8]) -> Vec<u8> {
    assert!(payload.len() < 126 + 65536);
    let mask = [0x37u8, 0xfa, 0x21, 0x3d];
    let mut f = vec![0x81];
    if payload.len() < 126 {
        f.push(0x80 | payload.len() as u8);
    } else {
        f.push(0x80 | 126);
        f.extend_from_slice(&(payload.len() as u16).to_be_bytes());
    }
    f.extend_from_slice(&mask);
    f.extend(payload.iter().enumerate().map(|(i, b)| b ^ mask[i % 4]));
    f
}

async fn write_raw(ws: &mut Socket, bytes: &[u8]) {
    use tokio::io::AsyncWriteExt;
    let tokio_tungstenite::MaybeTlsStream::Plain(tcp) = ws.get_mut() else {
        panic!("plain TCP expected");
    };
    tcp.write_all(bytes).await.unwrap();
    tcp.flush().await.unwrap();
}

/// The child worker process, started and waited on until it says `ready`.
struct ChildWorker {
    child: Child,
    lines: std::sync::mpsc::Receiver<String>,
}

impl ChildWorker {
    fn start(s: &Server, token: &str, mode: &str) -> ChildWorker {
        let mut child = Command::new(std::env::current_exe().unwrap())
            .args([
                "--exact",
                "kill::worker_process_for_kill_tests",
                "--ignored",
                "--nocapture",
            ])
            .env("KILL_TEST_GATEWAY", &s.base)
            .env("KILL_TEST_TOKEN", token)
            .env("KILL_TEST_MODE", mode)
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let (tx, lines) = std::sync::mpsc::channel();
        let out = BufReader::new(child.stdout.take().unwrap());
        std::thread::spawn(move || {
            for line in out.lines().map_while(Result::ok) {
                if let Some(said) = line.strip_prefix(MARK) {
                    let _ = tx.send(said.to_owned());
                }
            }
        });
        let w = ChildWorker { child, lines };
        w.wait_for("ready");
        w
    }

    /// Blocks its thread: tests that use it run on a multi-thread runtime.
    fn wait_for(&self, what: &str) {
        let said = self
            .lines
            .recv_timeout(Duration::from_secs(30))
            .unwrap_or_else(|_| panic!("the worker process never said {what:?}"));
        assert_eq!(said, what);
    }

    fn kill_9(mut self) {
        self.child.kill().unwrap();
        self.child.wait().unwrap();
    }
}

impl Drop for ChildWorker {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Sends one streamed request; returns its content and how the stream ended (`[DONE]`, or
/// an error event's code).
async fn streamed(base: &str, key: &str) -> (String, String) {
    let body =
        json!({"model": MODEL, "stream": true, "messages": [{"role": "user", "content": "hi"}]});
    let resp = reqwest::Client::new()
        .post(format!("{base}/api/v1/chat/completions"))
        .bearer_auth(key)
        .json(&body)
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 200);
    let text = tokio::time::timeout(Duration::from_secs(20), resp.text())
        .await
        .expect("the stream ends")
        .unwrap();
    let mut content = String::new();
    for data in text.split("\n\n").filter_map(|e| e.strip_prefix("data: ")) {
        if data == "[DONE]" {
            return (content, "[DONE]".into());
        }
        let v: Value = serde_json::from_str(data).unwrap();
        if let Some(code) = v["error"]["code"].as_str() {
            return (content, code.to_owned());
        }
        if let Some(c) = v["choices"][0]["delta"]["content"].as_str() {
            content.push_str(c);
        }
    }
    panic!("the stream ended with neither [DONE] nor an error event");
}

/// A hand-written worker in this process that answers its next job with `text`.
async fn answer_next_job(ws: &mut Socket, text: &str) {
    let job_id = loop {
        let msg = tokio::time::timeout(Duration::from_secs(10), ws.next())
            .await
            .expect("a job reaches the second worker")
            .unwrap()
            .unwrap();
        if let Message::Text(t) = msg {
            if let Ok(GatewayMessage::Job { job_id, .. }) = serde_json::from_str(&t) {
                break job_id;
            }
        }
    };
    answer(ws, job_id, Some(text)).await.unwrap();
}

/// One delta with `text` (when given), then `done`.
async fn answer(
    ws: &mut Socket,
    job_id: String,
    text: Option<&str>,
) -> Result<(), tokio_tungstenite::tungstenite::Error> {
    if let Some(text) = text {
        let delta = WorkerMessage::Delta {
            job_id: job_id.clone(),
            content: Some(text.into()),
            reasoning: None,
            tool_calls: None,
        };
        ws.send(encode(&delta)).await?;
    }
    let usage = JobUsage {
        prompt_tokens: 3,
        completion_tokens: 1,
        reasoning_tokens: 0,
        cached_tokens: 0,
    };
    let done = WorkerMessage::Done {
        job_id,
        finish_reason: shoal_protocol::codes::FinishReason::Stop,
        usage,
    };
    ws.send(encode(&done)).await
}

/// A worker process killed with the job dispatched to it and no event sent (`job`), or
/// halfway through writing a `done` that would have been its first event (`done`): the
/// request fails over to the other worker unseen by the client, and is billed once.
async fn killed_before_its_first_event(mode: &str) {
    let s = Server::start(Some("hold_ttl_secs = 3600\n"));
    let (_, key) = account_with_key(&s.data_dir, "k@example.com", 1000, None);
    let token = admin(&s.data_dir, &["worker-token", "create", "--name", "k"]);
    let doomed = ChildWorker::start(&s, &token, mode);
    let client = tokio::spawn({
        let (base, key) = (s.base.clone(), key.clone());
        async move { streamed(&base, &key).await }
    });
    doomed.wait_for(if mode == "job" { "job" } else { "half-done" });
    // The second worker joins only now, so the job went to the doomed one.
    let (mut other, _) = connect(&s.base, &token, MODEL, 1).await.unwrap();
    doomed.kill_9();
    answer_next_job(&mut other, "from the second worker").await;
    let (content, end) = client.await.unwrap();
    assert_eq!(
        (content.as_str(), end.as_str()),
        ("from the second worker", "[DONE]")
    );

    wait_until("the hold is settled", Duration::from_secs(5), async || {
        balance_of(&s, &key).await.1 == 0
    })
    .await;
    let (credits, _) = balance_of(&s, &key).await;
    assert!((990..1000).contains(&credits), "charged once: {credits}");
    assert_eq!(metric(&s, "shoal_job_failovers_total").await, 1);
    let lost = metric(&s, "shoal_job_slots_freed_total{by=\"worker_lost\"}").await;
    assert_eq!(lost, 1, "the killed worker's slot is freed once");
    assert_eq!(admin(&s.data_dir, &["ledger", "verify"]), "ok");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_worker_killed_between_dispatch_and_its_first_event_fails_over() {
    killed_before_its_first_event("job").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_worker_killed_while_writing_done_before_any_token_fails_over() {
    killed_before_its_first_event("done").await;
}

/// A worker process killed halfway through writing its `done`, after one token reached the
/// client: the stream ends with an error event, and only the delivered token is billed.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_worker_killed_while_writing_done_after_a_token_ends_the_stream_with_an_error() {
    let s = Server::start(Some("hold_ttl_secs = 3600\n"));
    let (_, key) = account_with_key(&s.data_dir, "k@example.com", 1000, None);
    let token = admin(&s.data_dir, &["worker-token", "create", "--name", "k"]);
    let doomed = ChildWorker::start(&s, &token, "delta-done");
    let client = tokio::spawn({
        let (base, key) = (s.base.clone(), key.clone());
        async move { streamed(&base, &key).await }
    });
    doomed.wait_for("half-done");
    doomed.kill_9();
    let (content, end) = client.await.unwrap();
    assert_eq!((content.as_str(), end.as_str()), ("partial", "worker_lost"));
    wait_until("the hold is settled", Duration::from_secs(5), async || {
        balance_of(&s, &key).await.1 == 0
    })
    .await;
    let (credits, _) = balance_of(&s, &key).await;
    assert!(
        (990..1000).contains(&credits),
        "the token is billed: {credits}"
    );
    let lost = metric(&s, "shoal_job_slots_freed_total{by=\"worker_lost\"}").await;
    assert_eq!(lost, 1);
    assert_eq!(admin(&s.data_dir, &["ledger", "verify"]), "ok");
}

/// Answers every job (and every cancel) at once, until the socket ends.
fn answer_everything(mut ws: Socket) -> tokio::task::JoinHandle<()> {
    tokio::spawn(async move {
        while let Some(Ok(msg)) = ws.next().await {
            let Message::Text(t) = msg else { continue };
            let sent = match serde_json::from_str(&t) {
                Ok(GatewayMessage::Job { job_id, .. }) => answer(&mut ws, job_id, Some("x")).await,
                Ok(GatewayMessage::Cancel { job_id }) => answer(&mut ws, job_id, None).await,
                _ => Ok(()),
            };
            if sent.is_err() {
                return;
            }
        }
    })
}

async fn integrity_check(db: &std::path::Path) -> String {
    use sqlx::Connection;
    let opts = sqlx::sqlite::SqliteConnectOptions::new().filename(db);
    let mut conn = sqlx::SqliteConnection::connect_with(&opts).await.unwrap();
    let verdict: String = sqlx::query_scalar("PRAGMA integrity_check")
        .fetch_one(&mut conn)
        .await
        .unwrap();
    conn.close().await.unwrap();
    verdict
}

/// Kill -9 of the gateway with many requests in flight, their holds being written and
/// settled; restart on the same store: after the hold TTL every account is whole (nothing
/// held, the journal agrees with the balances) and SQLite's file and WAL pass its check.
async fn gateway_killed_under_load(dir: &std::path::Path, store: Loc) {
    let config = "request_timeout_secs = 2\nhold_ttl_secs = 8\nreaper_interval_secs = 1\n\
                  default_rpm = 10000000\n";
    let mut s = Server::start_on(dir, store.clone(), Some(config));
    let keys: Vec<String> = (0..4)
        .map(|i| account_with_key(&store, &format!("g{i}@example.com"), 1_000_000, None).1)
        .collect();
    let token = admin(&store, &["worker-token", "create", "--name", "g"]);
    let (ws, _) = connect(&s.base, &token, MODEL, 256).await.unwrap();
    let worker = answer_everything(ws);

    let http = reqwest::Client::new();
    let clients: Vec<_> = (0..64)
        .map(|i| {
            let (http, url, key) = (http.clone(), s.url("/api/v1/chat/completions"), keys[i % 4].clone());
            tokio::spawn(async move {
                let body = json!({"model": MODEL, "stream": i % 2 == 0, "messages": [{"role": "user", "content": "hi"}]});
                // Until the gateway dies under them.
                while let Ok(r) = http.post(&url).bearer_auth(&key).json(&body).send().await {
                    if r.text().await.is_err() {
                        break;
                    }
                }
            })
        })
        .collect();
    wait_until("the load is running", Duration::from_secs(30), async || {
        metric(&s, "shoal_jobs_dispatched_total").await >= 300
    })
    .await;
    s.child.kill().unwrap();
    s.child.wait().unwrap();
    for c in clients {
        c.await.unwrap();
    }
    worker.abort();
    drop(s);
    let db = dir.join("shoal.db");
    if matches!(store, Loc::Dir(_)) {
        assert!(
            dir.join("shoal.db-wal").exists(),
            "the kill left a WAL behind"
        );
        assert_eq!(integrity_check(&db).await, "ok");
    }

    let s = Server::start_on(dir, store.clone(), Some(config));
    let mut held = 0;
    for key in &keys {
        held += balance_of(&s, key).await.1;
    }
    assert!(held > 0, "the kill hit no request with its hold taken");
    wait_until(
        "the reaper ends the orphaned holds",
        Duration::from_secs(30),
        async || {
            for key in &keys {
                if balance_of(&s, key).await.1 != 0 {
                    return false;
                }
            }
            true
        },
    )
    .await;
    for key in &keys {
        let (credits, _) = balance_of(&s, key).await;
        assert!(credits > 0 && credits <= 1_000_000, "{credits}");
    }
    assert_eq!(admin(&store, &["ledger", "verify"]), "ok");
    drop(s);
    if matches!(store, Loc::Dir(_)) {
        assert_eq!(integrity_check(&db).await, "ok");
    }
}

#[tokio::test]
async fn gateway_killed_while_holds_are_written_leaves_every_account_whole() {
    let tmp = tempfile::tempdir().unwrap();
    gateway_killed_under_load(tmp.path(), Loc::Dir(tmp.path().to_path_buf())).await;
}

#[tokio::test]
async fn gateway_killed_while_holds_are_written_leaves_every_account_whole_on_postgres() {
    let Some(db) = TempDb::for_test().await else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    gateway_killed_under_load(tmp.path(), Loc::Url(db.url().to_owned())).await;
    drop(db);
}
