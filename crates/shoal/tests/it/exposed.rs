//! What a stranger on the internet can try against a real `shoal serve`: a flood of sign-ups
//! (bounded password hashing), slow and idle connections (the server's limits), addresses
//! behind a proxy (`trusted_proxies`), and email addresses that differ only by case or
//! Unicode form.

use std::time::{Duration, Instant};

use reqwest::redirect::Policy;
use reqwest::StatusCode;
use shoal_test_support::process::Server;

const PASSWORD: &str = "a long enough password";

fn client() -> reqwest::Client {
    reqwest::Client::builder()
        .redirect(Policy::none())
        .timeout(Duration::from_secs(60))
        .build()
        .unwrap()
}

/// The process's resident memory, in MiB.
fn rss_mib(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let kib: u64 = status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .expect("VmRSS in /proc/PID/status");
    kib / 1024
}

/// `/health` latencies and the largest RSS seen, sampled until `done` is set.
async fn watch(s: &Server, done: &std::sync::atomic::AtomicBool) -> (Vec<Duration>, u64) {
    let (http, pid) = (client(), s.child.id());
    let (mut latencies, mut rss) = (Vec::new(), 0);
    while !done.load(std::sync::atomic::Ordering::Relaxed) {
        let start = Instant::now();
        let r = http.get(s.url("/health")).send().await.unwrap();
        assert_eq!(r.status(), StatusCode::OK);
        latencies.push(start.elapsed());
        rss = rss.max(rss_mib(pid));
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    (latencies, rss)
}

async fn sign_up(s: &Server, email: String) -> (StatusCode, Option<String>) {
    let r = client()
        .post(s.url("/dashboard/signup"))
        .header("origin", &s.base)
        .form(&[("email", email.as_str()), ("password", PASSWORD)])
        .send()
        .await
        .expect("a sign-up is answered, never left hanging");
    let retry = r
        .headers()
        .get("retry-after")
        .map(|v| v.to_str().unwrap().to_owned());
    (r.status(), retry)
}

/// 100 sign-ups at once: two hashes run at a time, the rest wait briefly and get 503 with
/// `Retry-After`; memory stays bounded and `/health` stays fast throughout.
#[tokio::test]
async fn a_flood_of_sign_ups_is_bounded() {
    let s = Server::start(Some(
        "password_hash_concurrency = 2\npassword_hash_wait_ms = 1000\n",
    ));
    let before = rss_mib(s.child.id());
    let done = std::sync::atomic::AtomicBool::new(false);
    let flood = async {
        let all = (0..100).map(|i| sign_up(&s, format!("flood{i}@example.com")));
        let answers = futures::future::join_all(all).await;
        done.store(true, std::sync::atomic::Ordering::Relaxed);
        answers
    };
    let (answers, (mut latencies, peak)) = tokio::join!(flood, watch(&s, &done));
    let created = answers
        .iter()
        .filter(|a| a.0 == StatusCode::SEE_OTHER)
        .count();
    let busy: Vec<_> = (answers.iter())
        .filter(|a| a.0 == StatusCode::SERVICE_UNAVAILABLE)
        .collect();
    assert_eq!(created + busy.len(), 100, "{answers:?}");
    assert!(
        created >= 1 && !busy.is_empty(),
        "{created} created, {} busy",
        busy.len()
    );
    assert!(busy.iter().all(|a| a.1.as_deref() == Some("2")), "{busy:?}");
    latencies.sort();
    let p99 = latencies[latencies.len() * 99 / 100];
    assert!(p99 < Duration::from_millis(200), "/health p99 {p99:?}");
    // 2 hashes × 19 MiB above the idle process, with room for the 100 connections.
    assert!(peak < 300, "RSS peaked at {peak} MiB (from {before} MiB)");
}
