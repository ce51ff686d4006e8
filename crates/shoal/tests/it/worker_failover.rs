//! A worker given several gateways (`--gateway` repeated): it skips one it cannot reach,
//! serves the first it can, and when that one stops it moves to the next. Two real
//! `shoal serve` replicas on one throwaway PostgreSQL database (no Redis, no NATS: each
//! serves only the workers connected to it).

use std::time::Duration;

use reqwest::StatusCode;
use serde_json::json;
use shoal_test_support::pg::TempDb;
use shoal_test_support::process::cluster::WorkerProcess;
use shoal_test_support::process::{account_with_key, wait_until, Loc, Server};
use shoal_test_support::upstream::Upstream;

const WAIT: Duration = Duration::from_secs(20);

async fn chat_status(s: &Server, key: &str) -> StatusCode {
    let body = json!({"model": "service-pro", "max_tokens": 20,
                      "messages": [{"role": "user", "content": "hi"}]});
    let r = reqwest::Client::new()
        .post(s.url("/api/v1/chat/completions"))
        .bearer_auth(key)
        .json(&body)
        .send()
        .await
        .unwrap();
    r.status()
}

#[tokio::test]
async fn a_worker_skips_a_dead_gateway_and_moves_to_the_next_when_its_gateway_stops() {
    let Some(db) = TempDb::for_test().await else {
        return;
    };
    let store = Loc::Url(db.url().to_owned());
    let dirs = [tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap()];
    let mut a = Server::start_on(dirs[0].path(), store.clone(), None);
    let b = Server::start_on(dirs[1].path(), store.clone(), None);
    let (_, key) = account_with_key(&store, "failover@example.com", 100_000, Some(100_000));
    let up = Upstream::with_first_token_after(Duration::ZERO).await;
    // Nothing listens there.
    let dead = format!(
        "http://{}",
        std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
    );
    let logs = tempfile::tempdir().unwrap();
    let _worker = WorkerProcess::start_on_gateways(
        &[&dead, &format!("{},{}", a.base, b.base)],
        logs.path(),
        &store,
        |cmd| {
            cmd.args(["--backend", "openai", "--upstream", &up.url])
                .args(["--serve", "service-pro"]);
        },
    );
    wait_until("A serves through the worker", WAIT, async || {
        chat_status(&a, &key).await == StatusCode::OK
    })
    .await;
    assert_eq!(
        chat_status(&b, &key).await,
        StatusCode::SERVICE_UNAVAILABLE,
        "one gateway at a time"
    );

    assert!(a.terminate().success());
    wait_until("B serves through the same worker", WAIT, async || {
        chat_status(&b, &key).await == StatusCode::OK
    })
    .await;
    let log = std::fs::read_dir(logs.path()).unwrap().next().unwrap();
    let log = std::fs::read_to_string(log.unwrap().path()).unwrap();
    assert!(log.contains("could not connect to the gateway"), "{log}");
    assert!(log.contains("lost the gateway connection"), "{log}");
    drop(b);
    drop(db);
}
