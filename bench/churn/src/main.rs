//! The churn load against a fresh `shoal serve` it starts itself (SQLite in a temporary
//! folder, or `--database-url`). Bounded in time; prints one JSON report and every violation,
//! and exits 1 when there is one.
//!
//! ```text
//! churn --shoal PATH [--workers 1000] [--concurrency 4] [--secs 300] [--rate 100]
//!       [--churn-every-secs 60] [--churn-fraction 0.1] [--request-timeout-secs 10]
//!       [--heartbeat-ms 1000] [--accounts 8] [--seed N] [--database-url URL] [--calm]
//! ```
//!
//! `--calm` turns every fault off (no errors, stalls or vanishing; no churn), for dispatch
//! latency alone.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use shoal_bench_churn::{raise_fd_limit, Config, Faults};

struct Opts {
    shoal: PathBuf,
    workers: usize,
    concurrency: u32,
    secs: u64,
    rate: f64,
    churn_every_secs: u64,
    churn_fraction: f64,
    request_timeout_secs: u64,
    heartbeat_ms: u64,
    accounts: usize,
    seed: u64,
    database_url: Option<String>,
    calm: bool,
}

fn usage() -> ! {
    eprintln!(
        "usage: churn --shoal PATH [--workers N] [--concurrency N] [--secs S] [--rate R] \
         [--churn-every-secs S] [--churn-fraction F] [--request-timeout-secs S] \
         [--heartbeat-ms MS] [--accounts N] [--seed N] [--database-url URL] [--calm]"
    );
    std::process::exit(2)
}

fn parse() -> Opts {
    let mut o = Opts {
        shoal: PathBuf::new(),
        workers: 1000,
        concurrency: 4,
        secs: 300,
        rate: 100.0,
        churn_every_secs: 60,
        churn_fraction: 0.1,
        request_timeout_secs: 10,
        heartbeat_ms: 1000,
        accounts: 8,
        seed: std::process::id() as u64,
        database_url: None,
        calm: false,
    };
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let mut value = || args.next().unwrap_or_else(|| usage());
        fn num<T: std::str::FromStr>(s: String) -> T {
            s.parse().unwrap_or_else(|_| usage())
        }
        match a.as_str() {
            "--shoal" => o.shoal = value().into(),
            "--workers" => o.workers = num(value()),
            "--concurrency" => o.concurrency = num(value()),
            "--secs" => o.secs = num(value()),
            "--rate" => o.rate = num(value()),
            "--churn-every-secs" => o.churn_every_secs = num(value()),
            "--churn-fraction" => o.churn_fraction = num(value()),
            "--request-timeout-secs" => o.request_timeout_secs = num(value()),
            "--heartbeat-ms" => o.heartbeat_ms = num(value()),
            "--accounts" => o.accounts = num(value()),
            "--seed" => o.seed = num(value()),
            "--database-url" => o.database_url = Some(value()),
            "--calm" => o.calm = true,
            _ => usage(),
        }
    }
    if o.shoal.as_os_str().is_empty() || o.accounts == 0 || o.rate <= 0.0 {
        usage()
    }
    o
}

/// `shoal admin` against the run's store; its one line of output.
fn admin(o: &Opts, dir: &Path, args: &[&str]) -> anyhow::Result<String> {
    let mut cmd = Command::new(&o.shoal);
    cmd.arg("admin");
    match &o.database_url {
        Some(url) => cmd.arg("--database-url").arg(url),
        None => cmd.arg("--data-dir").arg(dir),
    };
    let out = cmd.args(args).env_remove("SHOAL_DATABASE_URL").output()?;
    anyhow::ensure!(
        out.status.success(),
        "shoal admin {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    Ok(String::from_utf8(out.stdout)?.trim().to_owned())
}

/// Starts `shoal serve` on an ephemeral port; returns it and its base URL.
fn serve(o: &Opts, dir: &Path) -> anyhow::Result<(Child, String)> {
    let config = dir.join("shoal.toml");
    std::fs::write(
        &config,
        format!(
            "request_timeout_secs = {}\nhold_ttl_secs = 3600\nworker_heartbeat_ms = {}\n\
             queue_timeout_secs = 2\ndefault_rpm = 10000000\n",
            o.request_timeout_secs, o.heartbeat_ms
        ),
    )?;
    let mut cmd = Command::new(&o.shoal);
    cmd.args(["serve", "--listen", "127.0.0.1:0", "--config"])
        .arg(&config);
    match &o.database_url {
        Some(url) => cmd.arg("--database-url").arg(url),
        None => cmd.arg("--data-dir").arg(dir),
    };
    let mut child = cmd
        .env_remove("SHOAL_DATABASE_URL")
        .env("SHOAL_LOG", "warn")
        .stdout(Stdio::piped())
        .stderr(std::fs::File::create(dir.join("serve.log"))?)
        .spawn()?;
    let mut line = String::new();
    BufReader::new(child.stdout.take().expect("piped")).read_line(&mut line)?;
    let base = line
        .strip_prefix("listening on ")
        .ok_or_else(|| anyhow::anyhow!("shoal serve did not start; see {}", dir.display()))?
        .trim()
        .to_owned();
    Ok((child, base))
}

/// `o.accounts` accounts with plenty of credits; a key of each.
fn accounts(o: &Opts, dir: &std::path::Path) -> anyhow::Result<Vec<String>> {
    let mut keys = Vec::new();
    for i in 0..o.accounts {
        let email = format!("churn{i}@example.com");
        let account = admin(o, dir, &["account", "create", "--email", &email])?;
        let grant = [
            "credits",
            "grant",
            "--account",
            &account,
            "--credits",
            "100000000",
        ];
        admin(o, dir, &grant)?;
        keys.push(admin(o, dir, &["key", "create", "--account", &account])?);
    }
    Ok(keys)
}

/// The run the flags ask for; `--calm` turns every fault off.
fn config(o: &Opts, base: String, worker_token: String, keys: Vec<String>, pid: u32) -> Config {
    Config {
        base,
        worker_token,
        keys,
        model: "service-pro".into(),
        workers: o.workers,
        concurrency: o.concurrency,
        duration: Duration::from_secs(o.secs),
        churn_every: Duration::from_secs(o.churn_every_secs),
        churn_fraction: if o.calm { 0.0 } else { o.churn_fraction },
        rate: o.rate,
        stream_fraction: 0.5,
        hang_up_fraction: if o.calm { 0.0 } else { 0.01 },
        request_timeout: Duration::from_secs(o.request_timeout_secs),
        gateway_pid: Some(pid),
        seed: o.seed,
        faults: if o.calm {
            Faults {
                retryable_error: 0.0,
                fatal_error: 0.0,
                error_after_delta: 0.0,
                stall: 0.0,
                vanish: 0.0,
                ..Faults::default()
            }
        } else {
            Faults::default()
        },
    }
}

fn main() -> anyhow::Result<()> {
    let o = parse();
    raise_fd_limit();
    let dir = std::env::temp_dir().join(format!("shoal-churn-{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    let keys = accounts(&o, &dir)?;
    let worker_token = admin(&o, &dir, &["worker-token", "create", "--name", "churn"])?;
    let (mut child, base) = serve(&o, &dir)?;
    let cfg = config(&o, base, worker_token, keys, child.id());
    // One runtime with one thread: the gateway under test needs the machine's cores.
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let report = rt.block_on(shoal_bench_churn::run(cfg));
    let verify = admin(&o, &dir, &["ledger", "verify"]);
    let _ = child.kill();
    let _ = child.wait();
    let report = report?;
    let mut violations = report.violations();
    match verify {
        Ok(v) if v == "ok" => {}
        Ok(v) => violations.push(format!("ledger verify: {v}")),
        Err(e) => violations.push(format!("ledger verify: {e}")),
    }
    let mut out = report.to_json();
    out["seed"] = o.seed.into();
    out["violations"] = violations.clone().into();
    println!("{}", serde_json::to_string_pretty(&out)?);
    if violations.is_empty() {
        let _ = std::fs::remove_dir_all(&dir);
        Ok(())
    } else {
        eprintln!("logs and store kept in {}", dir.display());
        std::process::exit(1)
    }
}
