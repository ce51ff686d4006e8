//! What the cross-replica hop adds: the same chat request sent to replica B, where the worker
//! is connected (same-replica), and to replica A, which forwards it over NATS to B
//! (cross-replica), alternating round by round in one run so that whatever else the machine
//! does lands on both alike.
//!
//! ```text
//! cargo build --release -p shoal --no-default-features -p shoal-bench-cluster
//! target/release/shoal-bench-cluster [--postgres postgres://postgres@127.0.0.1:5432/postgres]
//!     [--nats nats://127.0.0.1:4222] [--rounds 10] [--per-round 256]
//!     [--shoal target/release/shoal] [--durable]
//! ```
//!
//! Two `shoal serve` replicas on a throwaway PostgreSQL database (made and dropped by the run)
//! and NATS (under a subject prefix of the run's own); one simulated worker on B that answers
//! every job at once (one delta, then `done`), so what differs between the two paths is the
//! hop. Whole (non-streamed) requests at concurrency 1 and 32, timed to their end; streamed
//! ones at concurrency 1, timed to their first chunk (the time to first token). Every request
//! has a 30 s limit.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use futures::{SinkExt, StreamExt};
use shoal_bench_churn::worker::{connect, encode, Socket};
use shoal_protocol::codes::FinishReason;
use shoal_protocol::worker::{GatewayMessage, JobUsage, WorkerMessage};
use shoal_test_support::pg::TempDb;
use tokio_tungstenite::tungstenite::Message;

const MODEL: &str = "service-pro";

#[derive(clap::Parser)]
#[command(about = "The cross-replica hop over NATS against the same-replica path")]
struct Args {
    #[arg(long, default_value = "postgres://postgres@127.0.0.1:5432/postgres")]
    postgres: String,
    #[arg(long, default_value = "nats://127.0.0.1:4222")]
    nats: String,
    #[arg(long, default_value_t = 10)]
    rounds: usize,
    #[arg(long, default_value_t = 256)]
    per_round: usize,
    /// The `shoal` binary (the one beside this benchmark unless given).
    #[arg(long, default_value_os_t = beside_me())]
    shoal: PathBuf,
    /// Let the ledger's commits wait for the disk (PostgreSQL's `synchronous_commit`). Off by
    /// default on the throwaway database: both paths commit alike, and a slow disk's flush
    /// (milliseconds on some VMs) would bury the sub-millisecond hop in its noise.
    #[arg(long)]
    durable: bool,
}

fn beside_me() -> PathBuf {
    std::env::current_exe().map_or_else(|_| "shoal".into(), |p| p.with_file_name("shoal"))
}

fn admin(shoal: &Path, db: &str, args: &[&str]) -> anyhow::Result<String> {
    let out = Command::new(shoal)
        .args(["admin", "--database-url", db])
        .args(args)
        .output()?;
    anyhow::ensure!(out.status.success(), "shoal admin {args:?} failed");
    Ok(String::from_utf8(out.stdout)?.trim().to_owned())
}

/// A `shoal serve` replica; killed on drop.
struct Replica {
    child: Child,
    base: String,
}

impl Drop for Replica {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn start_replica(shoal: &Path, db: &str, nats: &str, prefix: &str) -> anyhow::Result<Replica> {
    let mut child = Command::new(shoal)
        .args(["serve", "--listen", "127.0.0.1:0", "--database-url", db])
        .args(["--nats-url", nats, "--nats-subject-prefix", prefix])
        .env("SHOAL_LOG", "warn")
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()?;
    let mut line = String::new();
    BufReader::new(child.stdout.take().expect("piped")).read_line(&mut line)?;
    let base = line
        .trim()
        .strip_prefix("listening on ")
        .ok_or_else(|| anyhow::anyhow!("shoal serve did not start: {line:?}"))?
        .to_owned();
    Ok(Replica { child, base })
}

/// Answers every job at once with one delta and `done`, and keeps the socket alive.
async fn answer_everything(mut ws: Socket, heartbeat: Duration) {
    let mut beat = tokio::time::interval(heartbeat);
    loop {
        let msg = tokio::select! {
            m = ws.next() => m,
            _ = beat.tick() => {
                if ws.send(encode(&WorkerMessage::Heartbeat)).await.is_err() { return; }
                continue;
            }
        };
        let Some(Ok(Message::Text(t))) = msg else {
            return;
        };
        let (GatewayMessage::Job { job_id, .. } | GatewayMessage::Cancel { job_id }) =
            serde_json::from_str(&t).unwrap_or(GatewayMessage::Refused {
                message: String::new(),
            })
        else {
            continue;
        };
        let delta = WorkerMessage::Delta {
            job_id: job_id.clone(),
            content: Some("ok".into()),
            reasoning: None,
            tool_calls: None,
        };
        let done = WorkerMessage::Done {
            job_id,
            finish_reason: FinishReason::Stop,
            usage: JobUsage {
                prompt_tokens: 3,
                completion_tokens: 1,
                reasoning_tokens: 0,
                cached_tokens: 0,
            },
        };
        if ws.send(encode(&delta)).await.is_err() || ws.send(encode(&done)).await.is_err() {
            return;
        }
    }
}

/// How a request is sent and what of it is timed.
#[derive(Clone, Copy, PartialEq)]
enum Mode {
    /// One JSON body, timed to its end.
    Whole,
    /// `stream: true`, timed to the first chunk of the body (the time to first token).
    FirstChunk,
}

/// `n` requests to `base` from `concurrency` clients at once; each one's latency.
async fn burst(
    c: &reqwest::Client,
    base: &str,
    key: &str,
    (n, concurrency): (usize, usize),
    mode: Mode,
) -> anyhow::Result<Vec<Duration>> {
    let url = format!("{base}/api/v1/chat/completions");
    let body = serde_json::json!({"model": MODEL, "max_tokens": 16,
        "stream": mode == Mode::FirstChunk,
        "messages": [{"role": "user", "content": "bench"}]});
    let client = |_| async {
        let mut out = Vec::with_capacity(n / concurrency);
        for _ in 0..n / concurrency {
            let started = Instant::now();
            let r = c.post(&url).bearer_auth(key).json(&body).send().await?;
            anyhow::ensure!(r.status() == 200, "status {}", r.status());
            let mut chunks = r.bytes_stream();
            anyhow::ensure!(chunks.next().await.transpose()?.is_some(), "an empty body");
            if mode == Mode::FirstChunk {
                out.push(started.elapsed());
            }
            while chunks.next().await.transpose()?.is_some() {}
            if mode == Mode::Whole {
                out.push(started.elapsed());
            }
        }
        Ok(out)
    };
    let all = futures::future::try_join_all((0..concurrency).map(client)).await?;
    Ok(all.into_iter().flatten().collect())
}

fn percentile(sorted: &[Duration], p: f64) -> f64 {
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i].as_secs_f64() * 1e3
}

/// Prints one table row: both paths and the cross-replica path's added latency.
fn report(what: &str, mut same: Vec<Duration>, mut cross: Vec<Duration>) {
    same.sort_unstable();
    cross.sort_unstable();
    let (s50, s99) = (percentile(&same, 0.5), percentile(&same, 0.99));
    let (c50, c99) = (percentile(&cross, 0.5), percentile(&cross, 0.99));
    println!(
        "| {what} | {} | {s50:.2} | {s99:.2} | {c50:.2} | {c99:.2} | {:+.2} ({:.2}×) | {:+.2} ({:.2}×) |",
        same.len(),
        c50 - s50,
        c50 / s50,
        c99 - s99,
        c99 / s99,
    );
}

async fn run(args: &Args, db: &TempDb) -> anyhow::Result<()> {
    let account = admin(
        &args.shoal,
        db.url(),
        &["account", "create", "--email", "b@x.io"],
    )?;
    let grant = [
        "credits",
        "grant",
        "--account",
        &account,
        "--credits",
        "100000000",
    ];
    admin(&args.shoal, db.url(), &grant)?;
    let key = ["key", "create", "--account", &account, "--rpm", "10000000"];
    let key = admin(&args.shoal, db.url(), &key)?;
    let token = admin(
        &args.shoal,
        db.url(),
        &["worker-token", "create", "--name", "b"],
    )?;
    let prefix = format!("shoalbench{}", std::process::id());
    let a = start_replica(&args.shoal, db.url(), &args.nats, &prefix)?;
    let b = start_replica(&args.shoal, db.url(), &args.nats, &prefix)?;
    let (ws, heartbeat) = connect(&b.base, &token, MODEL, 64).await?;
    tokio::spawn(answer_everything(ws, heartbeat));

    let c = reqwest::Client::builder()
        .timeout(Duration::from_secs(30))
        .build()?;
    let deadline = Instant::now() + Duration::from_secs(30);
    while burst(&c, &a.base, &key, (1, 1), Mode::Whole).await.is_err() {
        anyhow::ensure!(Instant::now() < deadline, "A never reached B's worker");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    println!("| requests | per path | same p50 ms | same p99 ms | cross p50 ms | cross p99 ms | added p50 | added p99 |");
    println!("| --- | --- | --- | --- | --- | --- | --- | --- |");
    let cases = [
        ("whole, c=1", 1, Mode::Whole),
        ("whole, c=32", 32, Mode::Whole),
        ("stream TTFT, c=1", 1, Mode::FirstChunk),
    ];
    for (what, concurrency, mode) in cases {
        let n = (args.per_round.max(concurrency), concurrency);
        burst(&c, &b.base, &key, n, mode).await?; // warm-up
        burst(&c, &a.base, &key, n, mode).await?;
        let (mut same, mut cross) = (Vec::new(), Vec::new());
        for _ in 0..args.rounds {
            same.extend(burst(&c, &b.base, &key, n, mode).await?);
            cross.extend(burst(&c, &a.base, &key, n, mode).await?);
        }
        report(what, same, cross);
    }
    Ok(())
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> anyhow::Result<()> {
    let args = <Args as clap::Parser>::parse();
    // Dropped (with the database) when this returns.
    let db = TempDb::create(&args.postgres).await?;
    if !args.durable {
        db.relax_durability().await?;
    }
    run(&args, &db).await
}
