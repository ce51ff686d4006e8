//! What the run reads from outside the load: the gateway's `/metrics`, the accounts'
//! balances, and the gateway process's memory and CPU from `/proc`.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::Crowd;

/// The pool's counters from `/metrics`.
#[derive(Debug, Clone, Copy, Default)]
pub struct PoolCounts {
    pub dispatched: u64,
    pub failovers: u64,
    pub done: u64,
    pub error: u64,
    pub worker_lost: u64,
    pub abandoned: u64,
    pub workers_connected: u64,
    /// Upper bounds of the buckets holding the median and the 99th percentile of the
    /// gateway's own dispatch wait (arrival → job on a worker's socket), seconds.
    pub dispatch_wait_p50: f64,
    pub dispatch_wait_p99: f64,
}

impl PoolCounts {
    pub fn freed_total(&self) -> u64 {
        self.done + self.error + self.worker_lost + self.abandoned
    }
}

/// The value of the sample named exactly `name` (labels included), 0 when absent.
fn sample(text: &str, name: &str) -> u64 {
    text.lines()
        .find_map(|l| l.strip_prefix(name)?.strip_prefix(' '))
        .and_then(|v| v.trim().parse::<f64>().ok())
        .map_or(0, |v| v as u64)
}

/// The upper bound of the histogram bucket where the cumulative count reaches `q`.
fn bucket_quantile(text: &str, histogram: &str, q: f64) -> f64 {
    let prefix = format!("{histogram}_bucket{{le=\"");
    let buckets: Vec<(f64, u64)> = text
        .lines()
        .filter_map(|l| {
            let rest = l.strip_prefix(&prefix)?;
            let (le, count) = rest.split_once("\"} ")?;
            let le = if le == "+Inf" {
                f64::INFINITY
            } else {
                le.parse().ok()?
            };
            Some((le, count.trim().parse::<f64>().ok()? as u64))
        })
        .collect();
    let total = buckets.last().map_or(0, |b| b.1);
    let want = (total as f64 * q).ceil() as u64;
    buckets
        .iter()
        .find(|(_, c)| *c >= want && total > 0)
        .map_or(0.0, |(le, _)| *le)
}

pub async fn pool_counts(http: &reqwest::Client, base: &str) -> anyhow::Result<PoolCounts> {
    let text = http
        .get(format!("{base}/metrics"))
        .send()
        .await?
        .error_for_status()?
        .text()
        .await?;
    let freed = |by: &str| {
        sample(
            &text,
            &format!("shoal_job_slots_freed_total{{by=\"{by}\"}}"),
        )
    };
    Ok(PoolCounts {
        dispatched: sample(&text, "shoal_jobs_dispatched_total"),
        failovers: sample(&text, "shoal_job_failovers_total"),
        done: freed("done"),
        error: freed("error"),
        worker_lost: freed("worker_lost"),
        abandoned: freed("abandoned"),
        workers_connected: sample(&text, "shoal_workers_connected"),
        dispatch_wait_p50: bucket_quantile(&text, "shoal_dispatch_wait_seconds", 0.5),
        dispatch_wait_p99: bucket_quantile(&text, "shoal_dispatch_wait_seconds", 0.99),
    })
}

/// Waits (replacing workers that fail to connect) until the gateway counts `n` workers.
pub(crate) async fn wait_for_workers(
    http: &reqwest::Client,
    base: &str,
    n: usize,
    crowd: &mut Crowd,
) -> anyhow::Result<()> {
    let deadline = Instant::now() + Duration::from_secs(120);
    loop {
        if pool_counts(http, base).await?.workers_connected >= n as u64 {
            return Ok(());
        }
        anyhow::ensure!(Instant::now() < deadline, "{n} workers did not connect");
        let _ = tokio::time::timeout(Duration::from_millis(100), crowd.reap()).await;
    }
}

/// Waits until every dispatched job's slot is freed (or `limit` passes).
pub async fn wait_until_quiet(
    http: &reqwest::Client,
    base: &str,
    before: PoolCounts,
    limit: Duration,
) {
    let deadline = Instant::now() + limit;
    while Instant::now() < deadline {
        if let Ok(now) = pool_counts(http, base).await {
            if now.dispatched - before.dispatched == now.freed_total() - before.freed_total() {
                return;
            }
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

/// Credits held over the keys' accounts, once it is 0 or `limit` has passed.
pub async fn held(
    http: &reqwest::Client,
    base: &str,
    keys: &[String],
    limit: Duration,
) -> anyhow::Result<i64> {
    let deadline = Instant::now() + limit;
    loop {
        let mut sum = 0;
        for key in keys {
            let v: Value = http
                .get(format!("{base}/api/v1/balance"))
                .bearer_auth(key)
                .send()
                .await?
                .error_for_status()?
                .json()
                .await?;
            sum += v["credits_held"]
                .as_i64()
                .ok_or_else(|| anyhow::anyhow!("no credits_held in the balance"))?;
        }
        if sum == 0 || Instant::now() >= deadline {
            return Ok(sum);
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

/// Request sent → job at a worker, µs: p50, p90, p99, max, count.
pub fn percentiles(us: &mut [u32]) -> [u64; 5] {
    if us.is_empty() {
        return [0; 5];
    }
    us.sort_unstable();
    let at = |q: f64| u64::from(us[((us.len() - 1) as f64 * q).round() as usize]);
    [at(0.5), at(0.9), at(0.99), at(1.0), us.len() as u64]
}

/// Sets the open-file limit to its hard maximum: every worker is a socket, and a gateway
/// started afterwards inherits the limit.
pub fn raise_fd_limit() {
    // SAFETY: getrlimit/setrlimit only read and write the struct passed.
    unsafe {
        let mut lim = libc::rlimit {
            rlim_cur: 0,
            rlim_max: 0,
        };
        if libc::getrlimit(libc::RLIMIT_NOFILE, &mut lim) == 0 && lim.rlim_cur < lim.rlim_max {
            lim.rlim_cur = lim.rlim_max;
            libc::setrlimit(libc::RLIMIT_NOFILE, &lim);
        }
    }
}

/// The gateway's resident memory over the run, and the CPU it used.
#[derive(Debug, Clone, Default)]
pub struct ProcessStats {
    /// (seconds since the load began, resident KiB), once a second.
    pub rss_kib: Vec<(f64, u64)>,
    pub cpu_secs: f64,
    pub wall_secs: f64,
}

impl ProcessStats {
    /// The resident set at fraction `f` of the run.
    fn rss_at(&self, f: f64) -> u64 {
        let i = ((self.rss_kib.len().saturating_sub(1)) as f64 * f).round() as usize;
        self.rss_kib.get(i).map_or(0, |s| s.1)
    }

    /// A complaint when memory kept growing: the last quarter's peak above the second
    /// quarter's by more than a quarter plus 16 MiB (the first quarter is warm-up).
    pub fn rss_growth(&self) -> Option<String> {
        let n = self.rss_kib.len();
        if n < 8 {
            return None;
        }
        let peak = |from: usize, to: usize| self.rss_kib[from..to].iter().map(|s| s.1).max();
        let settled = peak(n / 4, n / 2)?;
        let last = peak(3 * n / 4, n)?;
        (last > settled + settled / 4 + 16 * 1024)
            .then(|| format!("gateway memory grew from {settled} KiB to {last} KiB after warm-up"))
    }

    pub fn to_json(&self) -> Value {
        let max = self.rss_kib.iter().map(|s| s.1).max().unwrap_or(0);
        serde_json::json!({
            "rss_kib": {"start": self.rss_at(0.0), "quarter": self.rss_at(0.25),
                        "half": self.rss_at(0.5), "end": self.rss_at(1.0), "max": max},
            "cpu_secs": (self.cpu_secs * 100.0).round() / 100.0,
            "cpu_percent_of_one_core": if self.wall_secs > 0.0 {
                (self.cpu_secs / self.wall_secs * 1000.0).round() / 10.0 } else { 0.0 },
        })
    }
}

fn rss_kib(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// User plus system CPU seconds of `pid`.
fn cpu_secs(pid: u32) -> Option<f64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // Fields after the command (which may hold spaces) start at the state, field 3.
    let rest = &stat[stat.rfind(')')? + 2..];
    let f: Vec<&str> = rest.split_whitespace().collect();
    let ticks: f64 = f.get(11)?.parse::<f64>().ok()? + f.get(12)?.parse::<f64>().ok()?;
    // SAFETY: sysconf only reads a constant.
    let hz = unsafe { libc::sysconf(libc::_SC_CLK_TCK) } as f64;
    Some(ticks / hz)
}

/// Samples a process once a second until stopped.
pub struct Sampler {
    pid: Option<u32>,
    started: Instant,
    cpu_at_start: f64,
    samples: Arc<Mutex<Vec<(f64, u64)>>>,
    task: Option<tokio::task::JoinHandle<()>>,
}

impl Sampler {
    pub fn start(pid: Option<u32>) -> Sampler {
        let samples = Arc::new(Mutex::new(Vec::new()));
        let started = Instant::now();
        let task = pid.map(|pid| {
            let samples = samples.clone();
            tokio::spawn(async move {
                let mut every = tokio::time::interval(Duration::from_secs(1));
                loop {
                    every.tick().await;
                    if let Some(kib) = rss_kib(pid) {
                        let at = started.elapsed().as_secs_f64();
                        samples.lock().unwrap().push((at, kib));
                    }
                }
            })
        });
        Sampler {
            pid,
            started,
            cpu_at_start: pid.and_then(cpu_secs).unwrap_or(0.0),
            samples,
            task,
        }
    }

    pub fn stop(mut self) -> ProcessStats {
        if let Some(t) = self.task.take() {
            t.abort();
        }
        let cpu_now = self.pid.and_then(cpu_secs).unwrap_or(0.0);
        ProcessStats {
            rss_kib: std::mem::take(&mut *self.samples.lock().unwrap()),
            cpu_secs: cpu_now - self.cpu_at_start,
            wall_secs: self.started.elapsed().as_secs_f64(),
        }
    }
}
