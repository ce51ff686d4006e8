//! Recovery after a PostgreSQL restart: a private cluster (the store tests' `private_pg`),
//! hold + settle pairs from `concurrency` workers, `pg_ctl restart -m fast` after 2 s of
//! load. Reported, from the moment the restarted server accepts connections again: when the
//! first hold succeeded, when the last settle of a pair caught by the restart committed, and
//! how many requests failed after the return (the aim is 0) and during the outage.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use shoal_store::{Charge, HoldOutcome, HoldRequest, Store, StoreOptions};
use tokio::sync::Mutex;

#[allow(dead_code)]
#[path = "../../../crates/store/tests/store/private_pg.rs"]
mod private_pg;

const CHARGE: i64 = 3;

/// What each worker saw: (when a hold succeeded, when a request failed, when a pair that
/// had to wait for the database finished).
#[derive(Default)]
struct Seen {
    holds: Vec<Instant>,
    failures: Vec<Instant>,
    settled: Vec<Instant>,
    pairs: u64,
}

pub(crate) async fn run(concurrency: usize) {
    let Some(pg) = private_pg::PrivatePg::start() else {
        std::process::exit(2)
    };
    let store = Store::open_with(&pg.url(), &StoreOptions::default())
        .await
        .unwrap();
    let t0 = crate::now_ms();
    let account = store
        .create_account("recovery@example.com", t0)
        .await
        .unwrap();
    store
        .grant_credits(account, 1_000_000_000, t0)
        .await
        .unwrap();
    let stop = Arc::new(AtomicBool::new(false));
    let seen = Arc::new(Mutex::new(Seen::default()));
    let workers: Vec<_> = (0..concurrency)
        .map(|w| {
            let (store, stop, seen) = (store.clone(), stop.clone(), seen.clone());
            tokio::spawn(async move { worker(w, store, account, stop, seen).await })
        })
        .collect();
    tokio::time::sleep(Duration::from_secs(2)).await;
    let down = Instant::now();
    tokio::task::block_in_place(|| pg.restart_fast());
    let back = Instant::now();
    tokio::time::sleep(Duration::from_secs(5)).await;
    stop.store(true, Ordering::Relaxed);
    for w in workers {
        w.await.unwrap();
    }
    let seen = seen.lock().await;
    let ms = |t: Option<&Instant>| {
        t.map_or(-1, |t| t.saturating_duration_since(back).as_millis() as i64)
    };
    let first_hold = seen.holds.iter().filter(|t| **t >= back).min();
    let last_settle = seen.settled.iter().max();
    let failed_after = seen.failures.iter().filter(|t| **t >= back).count();
    let failed_during = seen.failures.len() - failed_after;
    let report = store.verify_ledger().await.unwrap();
    println!(
        "restart took {} ms; after it: first hold +{} ms, last delayed settle +{} ms; \
         failed requests after the return {failed_after}, during the restart {failed_during}; \
         pairs {}; ledger {}",
        back.duration_since(down).as_millis(),
        ms(first_hold),
        ms(last_settle),
        seen.pairs,
        if report.discrepancies.is_empty() {
            "ok"
        } else {
            "DISCREPANCIES"
        }
    );
    store.close().await;
}

async fn worker(
    w: usize,
    store: Store,
    account: i64,
    stop: Arc<AtomicBool>,
    seen: Arc<Mutex<Seen>>,
) {
    let charge = Charge {
        input_tokens: 100,
        output_tokens: 100,
        reasoning_tokens: 0,
        credits: CHARGE,
    };
    let mut i = 0u64;
    while !stop.load(Ordering::Relaxed) {
        i += 1;
        let now = crate::now_ms();
        let req = HoldRequest {
            request_id: format!("rec-{w}-{i}"),
            account_id: account,
            credits: 50,
            model: "m".into(),
            expires_at: now + 600_000,
            free_daily: 0,
            key_id: None,
        };
        match store.hold(&req, now).await {
            Ok(HoldOutcome::Held) => seen.lock().await.holds.push(Instant::now()),
            other => {
                assert!(matches!(other, Err(ref e) if e.is_retryable()), "{other:?}");
                seen.lock().await.failures.push(Instant::now());
                tokio::time::sleep(Duration::from_millis(20)).await;
                continue;
            }
        }
        let t = Instant::now();
        let out = store.settle(&req.request_id, Some(&charge), now).await;
        let mut s = seen.lock().await;
        match out {
            Ok(_) => {
                s.pairs += 1;
                // A settle that took this long was caught by the restart and retried.
                if t.elapsed() > Duration::from_millis(200) {
                    s.settled.push(Instant::now());
                }
            }
            Err(_) => s.failures.push(Instant::now()),
        }
    }
}
