//! Hold + settle pairs per second on the Shoal ledger.
//!
//! Each pair is what one paid request costs the store: `hold` (the largest possible cost,
//! 50 credits) then `settle` with a small charge (3 credits). Every account starts with
//! enough credit never to run out. A fresh database per configuration: a temp folder for
//! SQLite, a throwaway database for PostgreSQL (dropped afterwards). The ledger is verified
//! after each run (untimed).
//!
//! ```text
//! cargo run --release -p shoal-bench-ledger                      # the whole matrix, ~3 s each
//! cargo run --release -p shoal-bench-ledger -- --backend sqlite --accounts 1 --concurrency 32 --seconds 5
//! ```
//!
//! PostgreSQL: `--database-url` (or `SHOAL_BENCH_POSTGRES_URL`), default
//! `postgres://postgres@127.0.0.1:5432/postgres`, names the server; the benchmark creates
//! and drops its own database there.
//!
//! Besides throughput, each line reports the CPU time spent per pair, which a shared
//! machine does not distort the way it distorts wall-clock rates: `cpu_us` for this process
//! (all of SQLite's work, or PostgreSQL's client side), and `pg_cpu_us` for the PostgreSQL
//! backends serving it (read from `/proc`, so only when the server runs on this machine;
//! background writers such as the WAL writer are not counted).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use shoal_store::money::LimitReset;
use shoal_store::{
    Charge, HoldOutcome, HoldRequest, KeyLimit, NewKey, SettleOutcome, Store, StoreOptions,
};
use shoal_test_support::pg::TempDb;
use sqlx::Connection;

mod compare;
mod recovery;

const HOLD: i64 = 50;
const CHARGE: i64 = 3;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Backend {
    Sqlite,
    Postgres,
}

impl Backend {
    fn name(self) -> &'static str {
        match self {
            Backend::Sqlite => "sqlite",
            Backend::Postgres => "postgres",
        }
    }
}

#[derive(Debug, Clone)]
pub(crate) struct Config {
    backend: Backend,
    accounts: usize,
    concurrency: usize,
    seconds: f64,
    /// PostgreSQL sessions' timeouts (`StoreOptions`).
    options: StoreOptions,
    /// Which key the requests authenticate with.
    key: KeyMode,
}

/// The API key every request's hold names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeyMode {
    /// None: a dashboard session's request.
    None,
    /// A key without a spending limit.
    Unlimited,
    /// A key with a limit far above what the run spends (checked and counted on every
    /// hold and settle all the same).
    Limited,
}

pub(crate) struct Outcome {
    pairs: u64,
    elapsed: Duration,
    p50_us: u64,
    p99_us: u64,
    /// CPU time of this process per pair.
    cpu_us: f64,
    /// CPU time of the PostgreSQL backends per pair, when readable.
    pg_cpu_us: Option<f64>,
    verified: bool,
}

/// CPU time (ns) of every thread of this process, from `/proc/self/task/*/schedstat`.
fn process_cpu_ns() -> u64 {
    let Ok(tasks) = std::fs::read_dir("/proc/self/task") else {
        return 0;
    };
    tasks
        .flatten()
        .filter_map(|t| std::fs::read_to_string(t.path().join("schedstat")).ok())
        .filter_map(|s| s.split_whitespace().next()?.parse::<u64>().ok())
        .sum()
}

/// CPU time (ns) of each given process, from `/proc/<pid>/schedstat`.
fn pids_cpu_ns(pids: &[i32]) -> std::collections::HashMap<i32, u64> {
    pids.iter()
        .filter_map(|pid| {
            let s = std::fs::read_to_string(format!("/proc/{pid}/schedstat")).ok()?;
            Some((*pid, s.split_whitespace().next()?.parse().ok()?))
        })
        .collect()
}

/// The PostgreSQL backends connected to database `name`.
async fn backend_pids(admin: &str, name: &str) -> Vec<i32> {
    let Ok(mut c) = sqlx::PgConnection::connect(admin).await else {
        return Vec::new();
    };
    let pids = sqlx::query_scalar("SELECT pid FROM pg_stat_activity WHERE datname = $1")
        .bind(name)
        .fetch_all(&mut c)
        .await
        .unwrap_or_default();
    let _ = c.close().await;
    pids
}

fn usage() -> ! {
    eprintln!(
        "usage: shoal-bench-ledger [--backend sqlite|postgres] [--accounts N] [--concurrency N] \
         [--seconds S] [--database-url URL]\n\
         with no --backend/--accounts/--concurrency: the whole matrix (both backends x {{1, 1000}} \
         accounts x {{1, 32}} concurrency) as a markdown table\n\
         shoal-bench-ledger --compare timeouts|key-limit|key [--backend B] [--accounts N] \
         [--concurrency N] [--seconds S] [--rounds N]: two configurations in alternating runs, \
         and the ratio\n\
         shoal-bench-ledger --recovery [--concurrency N]: a private PostgreSQL cluster restarted \
         under load; time to the first success and to every hold settled"
    );
    std::process::exit(2)
}

pub(crate) fn now_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_millis() as i64
}

/// The command line.
struct Args {
    backend: Option<Backend>,
    accounts: Option<usize>,
    concurrency: Option<usize>,
    seconds: f64,
    pg_url: String,
    compare: Option<String>,
    rounds: usize,
    recovery: bool,
}

fn parse_args() -> Args {
    let mut out = Args {
        backend: None,
        accounts: None,
        concurrency: None,
        seconds: 3.0,
        pg_url: std::env::var("SHOAL_BENCH_POSTGRES_URL")
            .unwrap_or_else(|_| "postgres://postgres@127.0.0.1:5432/postgres".into()),
        compare: None,
        rounds: 5,
        recovery: false,
    };
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let mut value = || args.next().unwrap_or_else(|| usage());
        match a.as_str() {
            "--backend" => {
                out.backend = Some(match value().as_str() {
                    "sqlite" => Backend::Sqlite,
                    "postgres" => Backend::Postgres,
                    _ => usage(),
                })
            }
            "--accounts" => out.accounts = Some(value().parse().unwrap_or_else(|_| usage())),
            "--concurrency" => out.concurrency = Some(value().parse().unwrap_or_else(|_| usage())),
            "--seconds" => out.seconds = value().parse().unwrap_or_else(|_| usage()),
            "--database-url" => out.pg_url = value(),
            "--compare" => out.compare = Some(value()),
            "--rounds" => out.rounds = value().parse().unwrap_or_else(|_| usage()),
            "--recovery" => out.recovery = true,
            _ => usage(),
        }
    }
    out
}

fn main() {
    let args = parse_args();
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    if args.recovery {
        rt.block_on(recovery::run(args.concurrency.unwrap_or(32)));
        return;
    }
    if let Some(what) = &args.compare {
        let base = Config {
            backend: args.backend.unwrap_or(Backend::Postgres),
            accounts: args.accounts.unwrap_or(1000),
            concurrency: args.concurrency.unwrap_or(32),
            seconds: args.seconds,
            options: StoreOptions::default(),
            key: KeyMode::None,
        };
        let ok = rt.block_on(compare::run(what, base, args.rounds, &args.pg_url));
        std::process::exit(if ok { 0 } else { 1 });
    }
    let matrix = args.backend.is_none() && args.accounts.is_none() && args.concurrency.is_none();
    let mut rows = Vec::new();
    for cfg in configs(&args) {
        let out = rt.block_on(run(&cfg, &args.pg_url));
        let rate = out.pairs as f64 / out.elapsed.as_secs_f64();
        print_line(&cfg, &out, rate);
        rows.push((cfg, out, rate));
    }
    if matrix {
        print_table(&rows);
    }
    if rows.iter().any(|(_, o, _)| !o.verified) {
        std::process::exit(1);
    }
}

/// The configurations to run: those named, every one of the matrix for what is not.
fn configs(args: &Args) -> Vec<Config> {
    let mut configs = Vec::new();
    for b in (args.backend.map(|b| vec![b])).unwrap_or(vec![Backend::Sqlite, Backend::Postgres]) {
        for a in args.accounts.map(|a| vec![a]).unwrap_or(vec![1, 1000]) {
            for c in args.concurrency.map(|c| vec![c]).unwrap_or(vec![1, 32]) {
                configs.push(Config {
                    backend: b,
                    accounts: a,
                    concurrency: c,
                    seconds: args.seconds,
                    options: StoreOptions::default(),
                    key: KeyMode::None,
                });
            }
        }
    }
    configs
}

fn pg_cpu_text(out: &Outcome) -> String {
    out.pg_cpu_us.map_or("-".into(), |c| format!("{c:.0}"))
}

/// One run's outcome as one line of `key=value`s.
fn print_line(cfg: &Config, out: &Outcome, rate: f64) {
    println!(
        "backend={} accounts={} concurrency={} seconds={:.1} pairs={} pairs_per_s={:.0} \
         p50_us={} p99_us={} cpu_us={:.0} pg_cpu_us={} ledger={}",
        cfg.backend.name(),
        cfg.accounts,
        cfg.concurrency,
        out.elapsed.as_secs_f64(),
        out.pairs,
        rate,
        out.p50_us,
        out.p99_us,
        out.cpu_us,
        pg_cpu_text(out),
        if out.verified { "ok" } else { "DISCREPANCIES" }
    );
}

/// The whole matrix as a markdown table.
fn print_table(rows: &[(Config, Outcome, f64)]) {
    println!();
    println!(
        "| backend | accounts | concurrency | pairs/s | p50 pair (µs) | p99 pair (µs) \
         | CPU/pair, bench (µs) | CPU/pair, PG backends (µs) | ledger |"
    );
    println!("|---|---:|---:|---:|---:|---:|---:|---:|---|");
    for (cfg, out, rate) in rows {
        println!(
            "| {} | {} | {} | {:.0} | {} | {} | {:.0} | {} | {} |",
            cfg.backend.name(),
            cfg.accounts,
            cfg.concurrency,
            rate,
            out.p50_us,
            out.p99_us,
            out.cpu_us,
            pg_cpu_text(out),
            if out.verified {
                "verified"
            } else {
                "DISCREPANCIES"
            }
        );
    }
}

/// Accounts, each with the key its requests name.
type Accounts = Arc<Vec<(i64, Option<i64>)>>;

pub(crate) async fn run(cfg: &Config, pg_admin: &str) -> Outcome {
    let dir = tempfile::tempdir().unwrap();
    let pg =
        match cfg.backend {
            Backend::Sqlite => None,
            Backend::Postgres => Some(TempDb::create(pg_admin).await.unwrap_or_else(|e| {
                panic!("cannot make a database on PostgreSQL at {pg_admin}: {e}")
            })),
        };
    let store = match &pg {
        None => Store::open_data_dir(dir.path()).await.unwrap(),
        Some(pg) => Store::open_with(pg.url(), &cfg.options).await.unwrap(),
    };
    let accounts = fund_accounts(&store, cfg).await;

    let stop = Arc::new(AtomicBool::new(false));
    // CPU of the backends serving this database, from here on.
    let pg_pids = match &pg {
        Some(pg) => backend_pids(pg_admin, pg.name()).await,
        None => Vec::new(),
    };
    let pg_cpu_start = pids_cpu_ns(&pg_pids);
    let cpu_start = process_cpu_ns();
    let started = Instant::now();
    let workers: Vec<_> = (0..cfg.concurrency)
        .map(|w| tokio::spawn(pairs(store.clone(), accounts.clone(), w, stop.clone())))
        .collect();
    tokio::time::sleep(Duration::from_secs_f64(cfg.seconds)).await;
    stop.store(true, Ordering::Relaxed);
    let mut latencies = Vec::new();
    for w in workers {
        latencies.extend(w.await.unwrap());
    }
    let elapsed = started.elapsed();
    let cpu_ns = process_cpu_ns().saturating_sub(cpu_start);
    let pg_cpu_ns = match &pg {
        Some(pg) => pg_cpu_since(pg_admin, pg.name(), &pg_cpu_start).await,
        None => None,
    };
    latencies.sort_unstable();
    let pairs = latencies.len() as u64;
    let verified = verify(&store, &accounts, pairs).await;
    store.close().await;
    if let (Some(pg), Ok(_)) = (&pg, std::env::var("SHOAL_BENCH_HOT")) {
        print_updates(pg.url()).await;
    }
    drop(pg);
    let per_pair = |ns: u64| ns as f64 / 1000.0 / pairs.max(1) as f64;
    Outcome {
        pairs,
        elapsed,
        p50_us: percentile(&latencies, 0.50),
        p99_us: percentile(&latencies, 0.99),
        cpu_us: per_pair(cpu_ns),
        pg_cpu_us: pg_cpu_ns.map(per_pair),
        verified,
    }
}

/// `cfg.accounts` accounts with credit never to run out, and their keys.
async fn fund_accounts(store: &Store, cfg: &Config) -> Accounts {
    let t0 = now_ms();
    let mut accounts = Vec::with_capacity(cfg.accounts);
    for i in 0..cfg.accounts {
        let a = store
            .create_account(&format!("bench-{i}@example.com"), t0)
            .await
            .unwrap();
        store.grant_credits(a, 1_000_000_000_000, t0).await.unwrap();
        accounts.push((a, key_for(store, a, cfg.key, t0).await));
    }
    Arc::new(accounts)
}

/// Worker `w`: hold + settle pairs until `stop`, each pair's latency (µs).
async fn pairs(store: Store, accounts: Accounts, w: usize, stop: Arc<AtomicBool>) -> Vec<u64> {
    let mut latencies = Vec::with_capacity(1 << 16);
    let mut i = 0usize;
    let charge = Charge {
        input_tokens: 1_200,
        output_tokens: 600,
        reasoning_tokens: 0,
        credits: CHARGE,
    };
    while !stop.load(Ordering::Relaxed) {
        let (account, key_id) = accounts[(w + i * 7919) % accounts.len()];
        let now = now_ms();
        let req = HoldRequest {
            request_id: format!("bench-{w}-{i}"),
            account_id: account,
            credits: HOLD,
            model: "large-27b-uncensored".into(),
            expires_at: now + 600_000,
            free_daily: 0,
            key_id,
        };
        let t = Instant::now();
        assert_eq!(store.hold(&req, now).await.unwrap(), HoldOutcome::Held);
        let settled = store
            .settle(&req.request_id, Some(&charge), now)
            .await
            .unwrap();
        assert!(
            matches!(
                settled,
                SettleOutcome::Settled {
                    charged: CHARGE,
                    ..
                }
            ),
            "{settled:?}"
        );
        latencies.push(t.elapsed().as_micros() as u64);
        i += 1;
    }
    latencies
}

/// CPU time (ns) the backends serving database `name` spent since `start`; `None` when none
/// could be read.
async fn pg_cpu_since(
    pg_admin: &str,
    name: &str,
    start: &std::collections::HashMap<i32, u64>,
) -> Option<u64> {
    // Backends that connected during the run count from their start.
    let end = pids_cpu_ns(&backend_pids(pg_admin, name).await);
    let total: u64 = end
        .iter()
        .map(|(pid, ns)| ns.saturating_sub(start.get(pid).copied().unwrap_or(0)))
        .sum();
    (!end.is_empty()).then_some(total)
}

/// The `p` quantile of sorted `latencies` (0 when there are none).
fn percentile(latencies: &[u64], p: f64) -> u64 {
    latencies
        .get(((latencies.len() as f64 * p) as usize).min(latencies.len().saturating_sub(1)))
        .copied()
        .unwrap_or(0)
}

/// Whether the ledger has no discrepancies and the accounts spent exactly `pairs` charges.
async fn verify(store: &Store, accounts: &Accounts, pairs: u64) -> bool {
    let report = store.verify_ledger().await.unwrap();
    let mut total = 0;
    for (a, _) in accounts.iter() {
        total += store.balance(*a, now_ms()).await.unwrap().total_spent;
    }
    report.discrepancies.is_empty() && total == pairs as i64 * CHARGE
}

/// The key account `a`'s requests name, created as `mode` says.
async fn key_for(store: &Store, a: i64, mode: KeyMode, now: i64) -> Option<i64> {
    match mode {
        KeyMode::None => None,
        KeyMode::Unlimited => Some(store.create_api_key(a, None, None, now).await.unwrap().id),
        KeyMode::Limited => {
            let new = NewKey {
                limit: Some(KeyLimit {
                    credits: 1_000_000_000_000,
                    reset: LimitReset::Daily,
                }),
                ..NewKey::default()
            };
            Some(store.create_key(a, &new, now).await.unwrap().id)
        }
    }
}

/// Row updates per table, and how many were HOT (no index touched), from the statistics.
async fn print_updates(url: &str) {
    tokio::time::sleep(Duration::from_millis(1_500)).await;
    let mut c = sqlx::PgConnection::connect(url).await.unwrap();
    let rows: Vec<(String, i64, i64)> = sqlx::query_as(
        "SELECT relname::TEXT, n_tup_upd, n_tup_hot_upd FROM pg_stat_user_tables
          WHERE n_tup_upd > 0 ORDER BY relname",
    )
    .fetch_all(&mut c)
    .await
    .unwrap();
    for (table, upd, hot) in rows {
        eprintln!("updates {table}: {upd}, HOT {hot}");
    }
    let _ = c.close().await;
}
