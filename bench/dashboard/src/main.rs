//! The dashboard's cost, measured against a real gateway in this process on SQLite:
//!
//! 1. the usage page of an account with 100k journal rows (50k requests over 30 days, five
//!    models): time to first byte to last byte at the client, p50 and p99;
//! 2. each page's weight (HTML, and the CSS, JS and icon every page loads);
//! 3. the API's latency (`GET /api/v1/models` with a key) alone (A) and while a logged-in
//!    browser loads the usage page in a loop (B), in alternating rounds of 3 s; reported as
//!    B/A;
//! 4. the usage query itself, alternating on one connection: over the journal (every settle
//!    of 30 days, through the partial index that served it) as the page read it before the
//!    `usage_daily` rollup, and over the rollup as it reads it now. Both must agree.
//!
//! `cargo run --release -p shoal-bench-dashboard [-- REQUESTS]`. Bounded: fixed counts.

use std::sync::Arc;
use std::time::{Duration, Instant};

use shoal_gateway::GatewayConfig;
use shoal_gateway::{AppState, Routes};
use shoal_images::{ContentPolicy, Images, Unconfigured};
use shoal_store::{Charge, HoldRequest, Store};

const DAY: i64 = 86_400_000;
const MODELS: [&str; 5] = [
    "small-8b",
    "medium-14b",
    "large-27b",
    "coder-32b",
    "vision-12b",
];
const PAGES: [&str; 6] = ["login", "keys", "usage", "playground", "images", "buy"];
const ROUNDS: usize = 6;
const PER_ROUND: usize = 300;
const ROUND_TIME: Duration = Duration::from_secs(3);

#[tokio::main]
async fn main() {
    let requests: i64 = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(50_000);
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open_data_dir(dir.path()).await.unwrap();
    let now = shoal_gateway::now_ms();
    let account = store
        .create_account("bench@example.com", now)
        .await
        .unwrap();
    store
        .grant_credits(account, 100_000_000, now)
        .await
        .unwrap();
    let t = Instant::now();
    fill(&store, account, now, requests).await;
    eprintln!(
        "{} requests ({} journal rows) written in {:.1} s",
        requests,
        2 * requests + 1,
        t.elapsed().as_secs_f64()
    );
    let session = store.create_session(account, now, now + DAY).await.unwrap();
    let key = store
        .create_api_key(account, Some("bench"), Some(1_000_000), now)
        .await
        .unwrap()
        .key;
    let base = start_gateway(store).await;
    let http = reqwest::Client::new();
    let cookie = format!("shoal_session={session}");
    let page = |path: &str| {
        http.get(format!("{base}/dashboard/{path}"))
            .header("cookie", &cookie)
            .send()
    };
    usage_page_time(&page, requests).await;
    page_weights(&http, &base, &page).await;
    api_latency(&http, &base, &key, &page).await;
    compare_queries(&dir.path().join("shoal.db"), account, now);
}

/// A gateway with the dashboard on `store`, in this process; its base URL.
async fn start_gateway(store: Store) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let state = AppState::new(GatewayConfig::default(), store);
    let images = Images::new(&state, ContentPolicy::builtin(), Arc::new(Unconfigured));
    let routes = Routes {
        api: images.api_routes(),
        site: shoal_dashboard::routes(
            &state,
            shoal_dashboard::Config::default(),
            &images,
            shoal_payments::Deposits::default(),
        ),
    };
    tokio::spawn(shoal_gateway::serve(
        listener,
        state,
        routes,
        std::future::pending(),
    ));
    base
}

/// The usage page's render time over the filled journal.
async fn usage_page_time<F>(page: &impl Fn(&str) -> F, requests: i64)
where
    F: std::future::Future<Output = reqwest::Result<reqwest::Response>>,
{
    // Warm up, and check the page is the real one.
    let body = page("usage").await.unwrap().text().await.unwrap();
    assert!(
        body.contains("<svg class=\"chart\"") && body.contains(MODELS[0]),
        "not the usage page"
    );
    let mut render = Vec::new();
    for _ in 0..PER_ROUND {
        let t = Instant::now();
        let r = page("usage").await.unwrap();
        assert!(r.status().is_success());
        r.bytes().await.unwrap();
        render.push(t.elapsed());
    }
    println!(
        "usage page, {} journal rows: p50 {:.2} ms, p99 {:.2} ms ({} loads)",
        2 * requests + 1,
        ms(pct(&mut render, 50)),
        ms(pct(&mut render, 99)),
        PER_ROUND
    );
}

/// Each page's HTML plus the static files every page loads.
async fn page_weights<F>(http: &reqwest::Client, base: &str, page: &impl Fn(&str) -> F)
where
    F: std::future::Future<Output = reqwest::Result<reqwest::Response>>,
{
    let asset = |name: &str| http.get(format!("{base}/dashboard/static/{name}")).send();
    let mut assets = 0;
    for name in ["app.css", "app.js", "icon.svg"] {
        assets += asset(name).await.unwrap().bytes().await.unwrap().len();
    }
    for p in PAGES {
        let html = page(p).await.unwrap().bytes().await.unwrap().len();
        println!(
            "page weight /dashboard/{p}: HTML {html} B + CSS/JS/icon {assets} B = {} B",
            html + assets
        );
    }
}

/// Per day and model from the journal's settle rows: the usage page's query before the
/// rollup. ?1 account, ?2 first millisecond.
const FROM_JOURNAL: &str = "SELECT at / 86400000 AS day, model,
        COUNT(CASE WHEN bucket = 'balance' THEN 1 END), SUM(input_tokens),
        SUM(output_tokens), SUM(credits)
       FROM journal
      WHERE account_id = ?1 AND kind = 'settle' AND at >= ?2
      GROUP BY at / 86400000, model ORDER BY day, model";

/// The same from `usage_daily`, as `Store::usage` asks it (all keys: ?3 NULL).
const FROM_ROLLUP: &str = "SELECT day, model, SUM(requests), SUM(input_tokens),
        SUM(output_tokens), SUM(credits)
       FROM usage_daily
      WHERE account_id = ?1 AND day >= ?2 AND (?3 IS NULL OR key_id = ?3)
      GROUP BY day, model ORDER BY day, model";

type Rows = Vec<(i64, String, i64, i64, i64, i64)>;

fn usage_rows(conn: &rusqlite::Connection, sql: &str, p: &[&dyn rusqlite::ToSql]) -> Rows {
    let mut stmt = conn.prepare_cached(sql).unwrap();
    let rows = stmt
        .query_map(p, |r| {
            Ok((
                r.get(0)?,
                r.get(1)?,
                r.get(2)?,
                r.get(3)?,
                r.get(4)?,
                r.get(5)?,
            ))
        })
        .unwrap();
    rows.collect::<rusqlite::Result<_>>().unwrap()
}

/// The usage query before and after the rollup, alternating, `PER_ROUND / 3` times each.
fn compare_queries(db: &std::path::Path, account: i64, now: i64) {
    let conn = rusqlite::Connection::open(db).unwrap();
    conn.busy_timeout(Duration::from_secs(10)).unwrap();
    // The index the journal query walked (the migration that added the rollup dropped it).
    conn.execute_batch(
        "CREATE INDEX IF NOT EXISTS bench_journal_settles ON journal (account_id, at)
          WHERE kind = 'settle'",
    )
    .unwrap();
    let first_day = now.div_euclid(DAY) - 29;
    let (mut journal, mut rollup) = (Vec::new(), Vec::new());
    for _ in 0..PER_ROUND / 3 {
        let t = Instant::now();
        let a = usage_rows(
            &conn,
            FROM_JOURNAL,
            rusqlite::params![account, first_day * DAY],
        );
        journal.push(t.elapsed());
        let t = Instant::now();
        let b = usage_rows(
            &conn,
            FROM_ROLLUP,
            rusqlite::params![account, first_day, None::<i64>],
        );
        rollup.push(t.elapsed());
        assert_eq!(a, b, "the rollup disagrees with the journal");
    }
    let (j50, r50) = (pct(&mut journal, 50), pct(&mut rollup, 50));
    let (j99, r99) = (pct(&mut journal, 99), pct(&mut rollup, 99));
    println!(
        "usage query over the journal: p50 {:.3} ms, p99 {:.3} ms; over usage_daily: p50 {:.3} ms, p99 {:.3} ms (journal/rollup p50 {:.0}x; {} alternating runs each)",
        ms(j50), ms(j99), ms(r50), ms(r99), ms(j50) / ms(r50), journal.len()
    );
}

/// Alternating rounds of the API alone (A) and beside usage-page loads (B).
async fn api_latency<F, Fut>(http: &reqwest::Client, base: &str, key: &str, page: &F)
where
    F: Fn(&str) -> Fut,
    Fut: std::future::Future<Output = reqwest::Result<reqwest::Response>>,
{
    let api = || {
        http.get(format!("{base}/api/v1/models"))
            .bearer_auth(key)
            .send()
    };
    let (mut alone, mut beside) = (Vec::new(), Vec::new());
    for round in 0..2 * ROUNDS {
        let loaded = round % 2 == 1;
        let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let mut loads = 0u32;
        // Each round lasts ROUND_TIME, several page loads long, so that B's calls overlap
        // page renders throughout.
        let measure = async {
            let mut out = Vec::new();
            let start = Instant::now();
            while start.elapsed() < ROUND_TIME {
                let t = Instant::now();
                api().await.unwrap().bytes().await.unwrap();
                out.push(t.elapsed());
            }
            stop.store(true, std::sync::atomic::Ordering::Relaxed);
            out
        };
        let background = async {
            while loaded && !stop.load(std::sync::atomic::Ordering::Relaxed) {
                page("usage").await.unwrap().bytes().await.unwrap();
                loads += 1;
            }
        };
        let (out, ()) = tokio::join!(measure, background);
        if loaded {
            beside.extend(out);
            eprintln!("round {round}: {loads} usage pages loaded beside");
        } else {
            alone.extend(out);
        }
    }
    let (a50, a99) = (pct(&mut alone, 50), pct(&mut alone, 99));
    let (b50, b99) = (pct(&mut beside, 50), pct(&mut beside, 99));
    println!(
        "API GET /api/v1/models alone: p50 {:.3} ms, p99 {:.3} ms",
        ms(a50),
        ms(a99)
    );
    println!("API beside usage-page loads: p50 {:.3} ms, p99 {:.3} ms (B/A p50 {:.2}, p99 {:.2}; {ROUNDS}+{ROUNDS} alternating rounds of {:?}, {} + {} calls)",
             ms(b50), ms(b99), ms(b50) / ms(a50), ms(b99) / ms(a99), ROUND_TIME, alone.len(), beside.len());
}

/// `requests` settled requests spread over the last 30 days and five models: a hold and a
/// settle row each.
async fn fill(store: &Store, account: i64, now: i64, requests: i64) {
    for i in 0..requests {
        let at = now - (i % 30) * DAY - (i % 997) * 1_000;
        let id = format!("bench-{i}");
        let hold = HoldRequest {
            request_id: id.clone(),
            account_id: account,
            credits: 20,
            model: MODELS[(i % 5) as usize].into(),
            expires_at: at + 600_000,
            free_daily: 0,
            key_id: None,
        };
        store.hold(&hold, at).await.unwrap();
        let charge = Charge {
            input_tokens: 1_200,
            output_tokens: 600,
            reasoning_tokens: 0,
            credits: 1 + i % 7,
        };
        store.settle(&id, Some(&charge), at).await.unwrap();
    }
}

fn pct(v: &mut [Duration], p: usize) -> Duration {
    v.sort();
    v[(v.len() * p / 100).min(v.len() - 1)]
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}
