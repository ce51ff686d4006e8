//! Streaming load for the benchmarks. Every run is bounded in time and in count.
//!
//! ```text
//! streamer stream --target NAME,URL,KEY,MODEL [--target …] [--concurrency 32] [--rounds 3]
//!                 [--round-secs 5] [--chunks 64] [--delay-ms 0] [--max-tokens 256]
//! streamer hold   --target NAME,URL,KEY,MODEL --streams 1000 [--chunks 60] [--delay-ms 1000]
//!                 [--open-timeout 60] [--hold-secs 5]
//! ```
//!
//! `URL` is the full chat-completions URL; an empty `KEY` sends no `Authorization`.
//!
//! `stream` runs the targets in turn, round after round (a b c, a b c, …), so drift on a
//! shared machine hits each alike. Each round keeps `--concurrency` streams going for
//! `--round-secs`, then lets the ones in flight finish. Per target it prints one JSON line:
//! streams completed, errors, streams/s, time to first token (request sent → first chunk with
//! content) and inter-chunk gaps (between consecutive content chunks), in µs, p50/p90/p99/max.
//!
//! `hold` opens `--streams` slow streams at once, prints `open N` on stdout when every one has
//! its first content chunk (or `open K` at `--open-timeout` with however many have), keeps
//! them open `--hold-secs`, then drops them all and prints a JSON summary.
//!
//! The request asks the upstream for `[[chunks N]] [[delay_ms D]]` in its message text (see
//! the mock upstream), so the same streams come through any gateway that forwards messages.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use futures::StreamExt;
use serde_json::{json, Value};

#[derive(Clone, Debug)]
struct Target {
    name: String,
    url: String,
    key: String,
    model: String,
}

#[derive(Clone, Debug)]
struct Opts {
    targets: Vec<Target>,
    concurrency: usize,
    rounds: usize,
    round_secs: f64,
    chunks: u32,
    delay_ms: u64,
    max_tokens: u32,
    streams: usize,
    open_timeout: f64,
    hold_secs: f64,
}

fn usage() -> ! {
    eprintln!(
        "usage: streamer stream --target NAME,URL,KEY,MODEL [--target …] [--concurrency N] [--rounds N] \
         [--round-secs S] [--chunks N] [--delay-ms D] [--max-tokens N]\n       \
         streamer hold --target NAME,URL,KEY,MODEL --streams N [--chunks N] [--delay-ms D] \
         [--open-timeout S] [--hold-secs S]"
    );
    std::process::exit(2)
}

fn main() {
    let mut args = std::env::args().skip(1);
    let mode = args.next().unwrap_or_else(|| usage());
    let mut o = Opts {
        targets: vec![],
        concurrency: 32,
        rounds: 3,
        round_secs: 5.0,
        chunks: 64,
        delay_ms: 0,
        max_tokens: 256,
        streams: 1000,
        open_timeout: 60.0,
        hold_secs: 5.0,
    };
    while let Some(a) = args.next() {
        let mut value = || args.next().unwrap_or_else(|| usage());
        match a.as_str() {
            "--target" => {
                let v = value();
                let parts: Vec<&str> = v.splitn(4, ',').collect();
                if parts.len() != 4 {
                    usage()
                }
                o.targets.push(Target {
                    name: parts[0].into(),
                    url: parts[1].into(),
                    key: parts[2].into(),
                    model: parts[3].into(),
                });
            }
            "--concurrency" => o.concurrency = value().parse().unwrap_or_else(|_| usage()),
            "--rounds" => o.rounds = value().parse().unwrap_or_else(|_| usage()),
            "--round-secs" => o.round_secs = value().parse().unwrap_or_else(|_| usage()),
            "--chunks" => o.chunks = value().parse().unwrap_or_else(|_| usage()),
            "--delay-ms" => o.delay_ms = value().parse().unwrap_or_else(|_| usage()),
            "--max-tokens" => o.max_tokens = value().parse().unwrap_or_else(|_| usage()),
            "--streams" => o.streams = value().parse().unwrap_or_else(|_| usage()),
            "--open-timeout" => o.open_timeout = value().parse().unwrap_or_else(|_| usage()),
            "--hold-secs" => o.hold_secs = value().parse().unwrap_or_else(|_| usage()),
            _ => usage(),
        }
    }
    if o.targets.is_empty() {
        usage()
    }
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .expect("tokio runtime");
    match mode.as_str() {
        "stream" => rt.block_on(stream_mode(o)),
        "hold" => rt.block_on(hold_mode(o)),
        _ => usage(),
    }
}

fn client(pool: usize) -> reqwest::Client {
    reqwest::Client::builder()
        .pool_max_idle_per_host(pool)
        .tcp_nodelay(true)
        .connect_timeout(Duration::from_secs(10))
        .build()
        .expect("http client")
}

fn body(o: &Opts, t: &Target) -> String {
    json!({
        "model": t.model,
        "stream": true,
        "max_tokens": o.max_tokens,
        "messages": [{"role": "user",
                      "content": format!("Count for me. [[chunks {}]] [[delay_ms {}]]", o.chunks, o.delay_ms)}]
    })
    .to_string()
}

/// What one stream saw.
#[derive(Default)]
struct StreamResult {
    ttft_us: Option<u64>,
    gaps_us: Vec<u64>,
    content_chunks: u32,
    done: bool,
}

/// Sends one streaming request and reads it to the end, calling `on_first` at the first
/// content chunk.
async fn one_stream(
    client: &reqwest::Client,
    t: &Target,
    body: String,
    idle: Duration,
    on_first: impl FnOnce(),
) -> Result<StreamResult, String> {
    let mut req = client
        .post(&t.url)
        .header("content-type", "application/json")
        .header("accept", "text/event-stream")
        .body(body);
    if !t.key.is_empty() {
        req = req.bearer_auth(&t.key);
    }
    let start = Instant::now();
    let resp = tokio::time::timeout(idle, req.send())
        .await
        .map_err(|_| "timeout (headers)".to_string())?
        .map_err(|e| format!("send: {e}"))?;
    if !resp.status().is_success() {
        let status = resp.status();
        let text = resp.text().await.unwrap_or_default();
        return Err(format!(
            "status {status}: {}",
            text.chars().take(200).collect::<String>()
        ));
    }
    let mut stream = resp.bytes_stream();
    let mut reader = EventReader {
        buf: Vec::with_capacity(4096),
        out: StreamResult::default(),
        start,
        last: None,
        on_first: Some(on_first),
    };
    while !reader.out.done {
        let next = tokio::time::timeout(idle, stream.next())
            .await
            .map_err(|_| "timeout (body)".to_string())?;
        let Some(piece) = next else { break };
        let piece = piece.map_err(|e| format!("body: {e}"))?;
        reader.read(&piece, Instant::now());
    }
    if !reader.out.done {
        return Err("stream ended without [DONE]".into());
    }
    Ok(reader.out)
}

/// Cuts a stream's bytes into events and times its content chunks.
struct EventReader<F> {
    buf: Vec<u8>,
    out: StreamResult,
    start: Instant,
    last: Option<Instant>,
    on_first: Option<F>,
}

impl<F: FnOnce()> EventReader<F> {
    /// One read of the body, which arrived at `now`: every complete event in the buffer
    /// arrived with it.
    fn read(&mut self, piece: &[u8], now: Instant) {
        self.buf.extend_from_slice(piece);
        while let Some(end) = find_event_end(&self.buf) {
            let event: Vec<u8> = self.buf.drain(..end.0 + end.1).collect();
            for line in event[..end.0].split(|&b| b == b'\n') {
                let line = line.strip_suffix(b"\r").unwrap_or(line);
                if let Some(data) = line.strip_prefix(b"data:") {
                    self.data(data.trim_ascii(), now);
                }
            }
        }
    }

    fn data(&mut self, data: &[u8], now: Instant) {
        if data == b"[DONE]" {
            self.out.done = true;
            return;
        }
        if !has_content(data) {
            return;
        }
        self.out.content_chunks += 1;
        match self.last {
            None => {
                self.out.ttft_us = Some(now.duration_since(self.start).as_micros() as u64);
                if let Some(f) = self.on_first.take() {
                    f()
                }
            }
            Some(prev) => self
                .out
                .gaps_us
                .push(now.duration_since(prev).as_micros() as u64),
        }
        self.last = Some(now);
    }
}

/// (index of the blank line, its length).
fn find_event_end(buf: &[u8]) -> Option<(usize, usize)> {
    let lf = buf.windows(2).position(|w| w == b"\n\n").map(|i| (i, 2));
    let crlf = buf
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .map(|i| (i, 4));
    match (lf, crlf) {
        (Some(a), Some(b)) => Some(if a.0 <= b.0 { a } else { b }),
        (a, b) => a.or(b),
    }
}

fn has_content(data: &[u8]) -> bool {
    let Ok(v) = serde_json::from_slice::<Value>(data) else {
        return false;
    };
    v.pointer("/choices/0/delta/content")
        .and_then(Value::as_str)
        .is_some_and(|s| !s.is_empty())
}

#[derive(Default)]
struct Tally {
    streams: u64,
    errors: u64,
    short: u64,
    first_error: Option<String>,
    ttft: Vec<u64>,
    gaps: Vec<u64>,
    busy: Duration,
}

fn pct(sorted: &[u64], p: f64) -> Value {
    if sorted.is_empty() {
        return Value::Null;
    }
    let rank = ((p / 100.0) * sorted.len() as f64).ceil() as usize;
    json!(sorted[rank.clamp(1, sorted.len()) - 1])
}

fn summary(mut v: Vec<u64>) -> Value {
    v.sort_unstable();
    json!({"n": v.len(), "p50": pct(&v, 50.0), "p90": pct(&v, 90.0), "p99": pct(&v, 99.0),
           "max": v.last().copied()})
}

/// One client's streams, one after another, until `stop`.
async fn stream_until(
    client: reqwest::Client,
    t: Target,
    body: String,
    idle: Duration,
    stop: Arc<AtomicBool>,
) -> Tally {
    let mut local = Tally::default();
    // Bounded in count too: no stream loop runs away.
    for _ in 0..1_000_000u32 {
        if stop.load(Ordering::Relaxed) {
            break;
        }
        match one_stream(&client, &t, body.clone(), idle, || ()).await {
            Ok(r) => {
                local.streams += 1;
                if r.content_chunks == 0 {
                    local.short += 1;
                }
                if let Some(x) = r.ttft_us {
                    local.ttft.push(x)
                }
                local.gaps.extend(r.gaps_us);
            }
            Err(e) => {
                local.errors += 1;
                local.first_error.get_or_insert(e);
                // Don't spin on a refusing server.
                tokio::time::sleep(Duration::from_millis(10)).await;
            }
        }
    }
    local
}

async fn stream_mode(o: Opts) {
    let client = client(o.concurrency.max(1));
    let mut tallies: Vec<Tally> = o.targets.iter().map(|_| Tally::default()).collect();
    let idle = Duration::from_secs(30);
    for _round in 0..o.rounds {
        for (ti, t) in o.targets.iter().enumerate() {
            let stop = Arc::new(AtomicBool::new(false));
            let started = Instant::now();
            let mut tasks = Vec::with_capacity(o.concurrency);
            for _ in 0..o.concurrency {
                let (client, t, stop, body) =
                    (client.clone(), t.clone(), stop.clone(), body(&o, t));
                tasks.push(tokio::spawn(stream_until(client, t, body, idle, stop)));
            }
            tokio::time::sleep(Duration::from_secs_f64(o.round_secs)).await;
            stop.store(true, Ordering::Relaxed);
            let tally = &mut tallies[ti];
            for task in tasks {
                if let Ok(local) = task.await {
                    tally.streams += local.streams;
                    tally.errors += local.errors;
                    tally.short += local.short;
                    if tally.first_error.is_none() {
                        tally.first_error = local.first_error;
                    }
                    tally.ttft.extend(local.ttft);
                    tally.gaps.extend(local.gaps);
                }
            }
            tally.busy += started.elapsed();
        }
    }
    for (t, tally) in o.targets.iter().zip(tallies) {
        let secs = tally.busy.as_secs_f64();
        let line = json!({
            "target": t.name, "concurrency": o.concurrency, "chunks": o.chunks, "delay_ms": o.delay_ms,
            "streams": tally.streams, "errors": tally.errors, "short": tally.short,
            "first_error": tally.first_error, "seconds": secs,
            "streams_per_s": tally.streams as f64 / secs.max(1e-9),
            "ttft_us": summary(tally.ttft), "gap_us": summary(tally.gaps),
        });
        println!("{line}");
    }
}

async fn hold_mode(o: Opts) {
    let t = o.targets[0].clone();
    let client = client(16);
    let opened = Arc::new(AtomicUsize::new(0));
    let all_open = Arc::new(tokio::sync::Notify::new());
    let idle = Duration::from_secs_f64(o.open_timeout + o.hold_secs + 30.0);
    let started = Instant::now();
    let mut tasks = Vec::with_capacity(o.streams);
    for _ in 0..o.streams {
        let (client, t, body) = (client.clone(), t.clone(), body(&o, &t));
        let (opened, all_open, n) = (opened.clone(), all_open.clone(), o.streams);
        tasks.push(tokio::spawn(async move {
            one_stream(&client, &t, body, idle, move || {
                if opened.fetch_add(1, Ordering::SeqCst) + 1 == n {
                    all_open.notify_one();
                }
            })
            .await
        }));
    }
    let _ =
        tokio::time::timeout(Duration::from_secs_f64(o.open_timeout), all_open.notified()).await;
    let open_secs = started.elapsed().as_secs_f64();
    println!("open {}", opened.load(Ordering::SeqCst));
    use std::io::Write;
    let _ = std::io::stdout().flush();
    tokio::time::sleep(Duration::from_secs_f64(o.hold_secs)).await;
    let still_running = tasks.iter().filter(|t| !t.is_finished()).count();
    let mut errors = 0;
    let mut first_error = None;
    for task in &tasks {
        if task.is_finished() {
            // A finished stream before the hold ended: an error, or a stream shorter than asked.
            errors += 1;
        }
    }
    for task in tasks {
        task.abort();
        if let Ok(Err(e)) = task.await {
            first_error.get_or_insert(e);
        }
    }
    println!(
        "{}",
        json!({"target": t.name, "streams": o.streams, "opened": opened.load(Ordering::SeqCst),
               "seconds_to_open": open_secs, "open_at_end_of_hold": still_running,
               "ended_early": errors, "first_error": first_error})
    );
}
