//! A key's spending limit across replicas: two real `shoal serve` processes on one throwaway
//! PostgreSQL database, 64 requests at once on one key with a limit of 20 credits, half
//! through each. What the key spent and holds, sampled all along from both replicas, never
//! passes 20; the account pays exactly what was charged; the ledger verifies.
//!
//! PostgreSQL: as the other tests (`SHOAL_TEST_POSTGRES=skip`).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use reqwest::StatusCode;
use serde_json::{json, Value};
use shoal_test_support::pg::TempDb;
use shoal_test_support::process::worker::{answer_after, welcomed_worker};
use shoal_test_support::process::{
    account_with_key, admin, admin_lines, error_of, get_json, race_chat, wait_until, Loc, Server,
};

const LIMIT: i64 = 20;
/// The account's credit: far more than the key's limit, so only the limit can refuse.
const GRANTED: i64 = 1_000;

async fn chat(c: &reqwest::Client, s: &Server, key: &str) -> reqwest::Response {
    // A hold of a few credits (the whole max_tokens), charged in full: the worker reports
    // more than the hold's bounds, and a worker is never paid past them.
    race_chat(c, s, key, 1500).await
}

/// Samples, from the replicas in turn until `done`, what the key spent in its window
/// (`GET /key`) and what its account spent and holds (`GET /balance`: the key is its only
/// spender); fails at the first sample past the limit. The number of samples.
fn sampler(bases: Vec<String>, key: String, done: Arc<AtomicBool>) -> tokio::task::JoinHandle<u32> {
    tokio::spawn(async move {
        let mut samples = 0;
        while !done.load(Ordering::Relaxed) {
            let base = &bases[samples as usize % bases.len()];
            let k = get_json(&format!("{base}/api/v1/key"), &key).await;
            let usage = k["data"]["usage"].as_i64().unwrap();
            assert!(usage <= LIMIT, "the key spent past its limit: {k}");
            let b = get_json(&format!("{base}/api/v1/balance"), &key).await;
            let spent = b["total_spent"].as_i64().unwrap();
            let held = b["credits_held"].as_i64().unwrap();
            assert!(spent + held <= LIMIT, "spent and held past the limit: {b}");
            samples += 1;
        }
        samples
    })
}

#[tokio::test]
async fn sixty_four_requests_on_one_limited_key_across_two_replicas_never_pass_its_limit() {
    let Some(db) = TempDb::for_test().await else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let store = Loc::Url(db.url().to_owned());
    // A key verified once stays cached, so both replicas' requests reach the ledger at once.
    let config = "auth_cache_ms = 120000\n";
    let servers = [
        Server::start_on(&dir.path().join("a"), store.clone(), Some(config)),
        Server::start_on(&dir.path().join("b"), store.clone(), Some(config)),
    ];
    let mut workers = Vec::new();
    for s in &servers {
        let usage = json!({"prompt_tokens": 100_000, "completion_tokens": 100_000});
        let ws = welcomed_worker(s, &store, 64).await;
        workers.push(answer_after(ws, Duration::from_millis(200), usage));
    }
    let c = reqwest::Client::new();
    // Each replica's writer has taken a hold before the race, so neither starts it cold.
    let (_, warm) = account_with_key(&store, "warm@example.com", GRANTED, None);
    for s in &servers {
        assert_eq!(chat(&c, s, &warm).await.status(), StatusCode::OK);
    }
    let (_, key) = account_with_key(&store, "limited@example.com", GRANTED, Some(10_000));
    let id = get_json(&servers[0].url("/api/v1/key"), &key).await["data"]["id"].to_string();
    let limit = LIMIT.to_string();
    let args = [
        "key",
        "update",
        &id,
        "--limit-credits",
        &limit,
        "--limit-reset",
        "daily",
    ];
    admin_lines(&store, &args);
    for s in &servers {
        let k = get_json(&s.url("/api/v1/key"), &key).await;
        assert_eq!(
            k["data"]["limit_remaining"], LIMIT,
            "the key, now cached: {k}"
        );
    }

    let done = Arc::new(AtomicBool::new(false));
    let bases = servers.iter().map(|s| s.base.clone()).collect();
    let sampling = sampler(bases, key.clone(), done.clone());
    let calls = (0..64).map(|i| chat(&c, &servers[i % 2], &key));
    let answers = futures::future::join_all(calls).await;
    let (mut costs, mut refused) = (Vec::new(), [0; 2]);
    for (i, r) in answers.into_iter().enumerate() {
        if r.status() == StatusCode::OK {
            let answer: Value = r.json().await.unwrap();
            costs.push(answer["usage"]["cost"].as_i64().expect("usage.cost"));
        } else {
            assert_eq!(r.status(), StatusCode::PAYMENT_REQUIRED);
            assert_eq!(error_of(r).await.0, "key_limit_exceeded");
            refused[i % 2] += 1;
        }
    }
    // Each replica refused requests for holds the other replica may have taken: one limit.
    assert!(
        refused.iter().all(|n| *n > 0),
        "refused by replica: {refused:?}"
    );
    // The settles are written just after the answers.
    wait_until("no hold is left", Duration::from_secs(10), async || {
        get_json(&servers[1].url("/api/v1/balance"), &key).await["credits_held"] == 0
    })
    .await;
    done.store(true, Ordering::Relaxed);
    assert!(sampling.await.unwrap() > 0, "sampled during the race");
    settled_within_the_limit(&servers, &key, &costs).await;
    assert_eq!(admin(&store, &["ledger", "verify"]), "ok");

    let mut jobs = Vec::new();
    for w in workers {
        jobs.push(w.await.unwrap());
    }
    // The warm-up's two jobs, then the race's.
    assert_eq!(jobs.iter().sum::<usize>(), costs.len() + 2, "{jobs:?}");
    eprintln!(
        "{} served ({jobs:?} jobs by replica, a warm-up's one each), {refused:?} refused \
         (key_limit_exceeded) by replica; costs {costs:?}",
        costs.len(),
    );
    drop(servers);
    drop(db);
}

/// After the race: the key spent what its served requests cost, no more than its limit and
/// with less left than one more request needs; the account paid exactly that.
async fn settled_within_the_limit(servers: &[Server], key: &str, costs: &[i64]) {
    let spent: i64 = costs.iter().sum();
    let cost = *costs.first().expect("some requests were served");
    assert!(costs.iter().all(|c| *c == cost), "one price: {costs:?}");
    assert!(
        cost > 1,
        "the hold is charged in full, more than the minimum"
    );
    assert!(spent <= LIMIT && spent > LIMIT - cost, "spent {spent}");
    for s in servers {
        let k = get_json(&s.url("/api/v1/key"), key).await;
        assert_eq!(k["data"]["usage"], spent, "{k}");
        assert_eq!(k["data"]["limit_remaining"], LIMIT - spent, "{k}");
        let b = get_json(&s.url("/api/v1/balance"), key).await;
        assert_eq!(b["total_spent"], spent, "{b}");
        assert_eq!(b["credits"], GRANTED - spent, "{b}");
    }
}
