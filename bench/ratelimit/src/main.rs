//! The Redis rate limiter's cost per request against the in-process one.
//!
//! Two measurements, each alternating the two limiters round by round in one run so that
//! whatever else the machine does lands on both alike:
//!
//! - `check`: one `RateLimiter::check` call, in this process (`LocalGcra` against
//!   `RedisGcra`, one Redis round trip), one at a time;
//! - `gateway`: one `GET /api/v1/models` (auth from the gateway's cache, the rate limit, a
//!   small JSON body) through two real `shoal serve` processes, one without and one with
//!   `--redis-url`, one request at a time over a kept-alive connection.
//!
//! ```text
//! cargo build --release -p shoal -p shoal-bench-ratelimit
//! target/release/shoal-bench-ratelimit [--redis redis://127.0.0.1:6379] [--rounds 20]
//!     [--per-round 500] [--shoal target/release/shoal]
//! ```
//!
//! Every key has a limit far above what the run sends, so every check is admitted and
//! writes (the costlier path). Keys go under a prefix of the run's own.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use shoal_cluster::RedisGcra;
use shoal_gateway::{LocalGcra, RateLimiter};

const LIMIT: u32 = 1_000_000;

#[derive(clap::Parser)]
#[command(about = "The Redis rate limiter against the in-process one")]
struct Args {
    #[arg(long, default_value = "redis://127.0.0.1:6379")]
    redis: String,
    #[arg(long, default_value_t = 20)]
    rounds: usize,
    #[arg(long, default_value_t = 500)]
    per_round: usize,
    /// The `shoal` binary (the one beside this benchmark unless given).
    #[arg(long, default_value_os_t = beside_me())]
    shoal: PathBuf,
}

fn beside_me() -> PathBuf {
    std::env::current_exe().map_or_else(|_| "shoal".into(), |p| p.with_file_name("shoal"))
}

fn percentile(sorted: &[Duration], p: f64) -> f64 {
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i].as_secs_f64() * 1e6
}

fn report(what: &str, name: &str, mut samples: Vec<Duration>) -> f64 {
    samples.sort_unstable();
    let p50 = percentile(&samples, 0.50);
    println!(
        "| {what} | {name} | {} | {p50:.1} | {:.1} | {:.1} |",
        samples.len(),
        percentile(&samples, 0.99),
        percentile(&samples, 0.999),
    );
    p50
}

async fn time_checks(limiter: &dyn RateLimiter, n: usize, key0: i64, out: &mut Vec<Duration>) {
    for i in 0..n {
        let started = Instant::now();
        let d = limiter.check(key0 + (i % 1000) as i64, LIMIT).await;
        out.push(started.elapsed());
        assert!(d.allowed, "the limit is far above the load");
    }
}

async fn bench_check(args: &Args, prefix: &str) -> anyhow::Result<(f64, f64)> {
    let local = LocalGcra::default();
    let redis = RedisGcra::connect(
        &args.redis,
        prefix,
        shoal_cluster::ratelimit::DEFAULT_TIMEOUT,
    )
    .await?;
    let (mut l, mut r) = (Vec::new(), Vec::new());
    time_checks(&redis, args.per_round, 0, &mut Vec::new()).await; // warm-up: loads the script
    for _ in 0..args.rounds {
        time_checks(&local, args.per_round, 0, &mut l).await;
        time_checks(&redis, args.per_round, 0, &mut r).await;
    }
    Ok((
        report("check", "in-process", l),
        report("check", "redis", r),
    ))
}

/// A `shoal serve` on a fresh SQLite folder with one key; killed on drop.
struct Gateway {
    child: Child,
    base: String,
    key: String,
    _dir: tempfile::TempDir,
}

impl Drop for Gateway {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn admin(shoal: &Path, dir: &Path, args: &[&str]) -> anyhow::Result<String> {
    let out = Command::new(shoal)
        .arg("admin")
        .arg("--data-dir")
        .arg(dir)
        .args(args)
        .output()?;
    anyhow::ensure!(out.status.success(), "shoal admin {args:?} failed");
    Ok(String::from_utf8(out.stdout)?.trim().to_owned())
}

fn start_gateway(shoal: &Path, extra: &[&str]) -> anyhow::Result<Gateway> {
    let dir = tempfile::tempdir()?;
    let account = admin(
        shoal,
        dir.path(),
        &["account", "create", "--email", "b@x.io"],
    )?;
    let rpm = LIMIT.to_string();
    let key = admin(
        shoal,
        dir.path(),
        &["key", "create", "--account", &account, "--rpm", &rpm],
    )?;
    let mut child = Command::new(shoal)
        .args(["serve", "--listen", "127.0.0.1:0", "--data-dir"])
        .arg(dir.path())
        .args(extra)
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
    Ok(Gateway {
        child,
        base,
        key,
        _dir: dir,
    })
}

async fn time_requests(
    c: &reqwest::Client,
    g: &Gateway,
    n: usize,
    out: &mut Vec<Duration>,
) -> anyhow::Result<()> {
    let url = format!("{}/api/v1/models", g.base);
    for _ in 0..n {
        let started = Instant::now();
        let r = c.get(&url).bearer_auth(&g.key).send().await?;
        anyhow::ensure!(r.status() == 200, "status {}", r.status());
        r.bytes().await?;
        out.push(started.elapsed());
    }
    Ok(())
}

async fn bench_gateway(args: &Args, prefix: &str) -> anyhow::Result<(f64, f64)> {
    let local = start_gateway(&args.shoal, &[])?;
    let redis_args = ["--redis-url", &args.redis, "--redis-key-prefix", prefix];
    let redis = start_gateway(&args.shoal, &redis_args)?;
    let c = reqwest::Client::new();
    for g in [&local, &redis] {
        time_requests(&c, g, args.per_round, &mut Vec::new()).await?;
    }
    let (mut l, mut r) = (Vec::new(), Vec::new());
    for _ in 0..args.rounds {
        time_requests(&c, &local, args.per_round, &mut l).await?;
        time_requests(&c, &redis, args.per_round, &mut r).await?;
    }
    Ok((
        report("gateway", "in-process", l),
        report("gateway", "redis", r),
    ))
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> anyhow::Result<()> {
    let args = <Args as clap::Parser>::parse();
    let prefix = format!("shoalbench:{}:", std::process::id());
    println!("| measure | limiter | samples | p50 (µs) | p99 (µs) | p99.9 (µs) |");
    println!("| --- | --- | --- | --- | --- | --- |");
    let (cl, cr) = bench_check(&args, &prefix).await?;
    let (gl, gr) = bench_gateway(&args, &prefix).await?;
    println!(
        "\nadded by Redis, p50: {:.1} µs per check, {:.1} µs per request through a gateway",
        cr - cl,
        gr - gl
    );
    Ok(())
}
