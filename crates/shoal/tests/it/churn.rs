//! The worker pool of a real `shoal serve` under a hundred simulated workers that come and go,
//! fail, stall and vanish while clients keep sending requests (`bench/churn`'s core, shorter
//! than its benchmark run): every request ends in a correct answer, a failover or a documented
//! error, no hold is left, each slot is freed exactly once and memory stays flat.

use std::time::Duration;

use shoal_bench_churn::{raise_fd_limit, Config, Faults};
use shoal_test_support::process::{
    account_with_key, admin, balance_of, metric, wait_until, Server,
};

#[tokio::test(flavor = "current_thread")]
async fn a_hundred_workers_coming_and_going_lose_no_request_hold_or_slot() {
    raise_fd_limit();
    let config = "request_timeout_secs = 4\nhold_ttl_secs = 3600\nworker_heartbeat_ms = 500\n\
                  queue_timeout_secs = 2\ndefault_rpm = 10000000\n";
    let s = Server::start(Some(config));
    let keys: Vec<String> = (0..4)
        .map(|i| {
            let email = format!("churn{i}@example.com");
            account_with_key(&s.data_dir, &email, 10_000_000, None).1
        })
        .collect();
    let worker_token = admin(&s.data_dir, &["worker-token", "create", "--name", "churn"]);
    let seed = std::env::var("SHOAL_CHURN_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| u64::from(std::process::id()));
    println!("SHOAL_CHURN_SEED={seed}");
    let cfg = Config {
        base: s.base.clone(),
        worker_token,
        keys,
        model: "service-pro".into(),
        workers: 100,
        concurrency: 2,
        duration: Duration::from_secs(30),
        churn_every: Duration::from_secs(6),
        churn_fraction: 0.1,
        rate: 40.0,
        stream_fraction: 0.5,
        hang_up_fraction: 0.02,
        request_timeout: Duration::from_secs(4),
        gateway_pid: Some(s.child.id()),
        seed,
        // More trouble per job than the benchmark, so a short run meets every kind.
        faults: Faults {
            retryable_error: 0.03,
            fatal_error: 0.01,
            error_after_delta: 0.02,
            stall: 0.01,
            vanish: 0.01,
            max_delay_ms: 50,
        },
    };
    let report = shoal_bench_churn::run(cfg)
        .await
        .expect("the run completes");
    println!(
        "{}",
        serde_json::to_string_pretty(&report.to_json()).unwrap()
    );
    assert_eq!(report.violations(), Vec::<String>::new());
    assert_eq!(admin(&s.data_dir, &["ledger", "verify"]), "ok");

    // The run met what it is meant to survive.
    let (b, a) = (report.pool_before, report.pool_after);
    assert!(a.failovers > b.failovers, "no failover happened");
    assert!(
        a.worker_lost > b.worker_lost,
        "no job was lost with its worker"
    );
    assert!(a.error > b.error, "no worker reported an error");
    assert!(report.workers_drained > 0 && report.workers_vanished_closed > 0);
    assert!(report.workers_vanished_silent > 0);
    assert!(
        report.worker_sessions > 100,
        "no worker joined during the run"
    );
    assert!(report.requests >= 1000, "only {} requests", report.requests);
}

/// A worker that takes jobs and then goes quiet (its socket alive, heartbeats going) cannot
/// hold a request past `request_timeout_secs`: a whole body gets 504 at the deadline, a stream
/// that had a token gets a `timeout` error event, and the slots are freed after the cancel
/// grace, the holds ended.
#[tokio::test]
async fn a_worker_that_goes_quiet_mid_job_cannot_hold_a_request_past_its_deadline() {
    use futures::{SinkExt, StreamExt};
    use shoal_bench_churn::worker::{connect, encode};
    use shoal_protocol::worker::{GatewayMessage, WorkerMessage};
    use tokio_tungstenite::tungstenite::Message;

    let s = Server::start(Some("request_timeout_secs = 1\nhold_ttl_secs = 3600\n"));
    let (_, key) = account_with_key(&s.data_dir, "quiet@example.com", 1000, None);
    let token = admin(&s.data_dir, &["worker-token", "create", "--name", "q"]);
    let (mut ws, beat) = connect(&s.base, &token, "service-pro", 2).await.unwrap();
    // Answers nothing but the first job of a stream with one delta; keeps its heartbeats.
    let worker = tokio::spawn(async move {
        let mut tick = tokio::time::interval(beat);
        loop {
            tokio::select! {
                m = ws.next() => {
                    let Some(Ok(Message::Text(t))) = m else { return };
                    let Ok(GatewayMessage::Job { job_id, request, .. }) = serde_json::from_str(&t) else { continue };
                    if serde_json::to_string(&request.messages).unwrap().contains("stream me") {
                        let delta = WorkerMessage::Delta { job_id, content: Some("tok".into()), reasoning: None, tool_calls: None };
                        ws.send(encode(&delta)).await.unwrap();
                    }
                }
                _ = tick.tick() => ws.send(encode(&WorkerMessage::Heartbeat)).await.unwrap(),
            }
        }
    });
    let http = reqwest::Client::builder()
        .timeout(Duration::from_secs(10))
        .build()
        .unwrap();
    let post = |text: &str, stream: bool| {
        let body = serde_json::json!({"model": "service-pro", "stream": stream,
                                      "messages": [{"role": "user", "content": text}]});
        http.post(s.url("/api/v1/chat/completions"))
            .bearer_auth(&key)
            .json(&body)
            .send()
    };
    let started = std::time::Instant::now();
    let (whole, streamed) = tokio::join!(post("hi", false), post("stream me", true));
    let whole = whole.expect("an answer, not a hang");
    assert_eq!(whole.status(), 504);
    assert_eq!(
        shoal_test_support::process::error_of(whole).await.0,
        "timeout"
    );
    let streamed = streamed.unwrap();
    assert_eq!(streamed.status(), 200);
    let text = streamed.text().await.expect("the stream ends");
    assert!(text.contains("\"tok\""), "{text}");
    assert!(
        text.contains("\"code\":\"timeout\""),
        "no timeout event: {text}"
    );
    assert!(
        started.elapsed() < Duration::from_secs(3),
        "{:?}",
        started.elapsed()
    );

    // The worker ignores the cancels: after the grace the gateway frees both slots and ends
    // both holds.
    wait_until(
        "both slots are abandoned",
        Duration::from_secs(10),
        async || metric(&s, "shoal_job_slots_freed_total{by=\"abandoned\"}").await == 2,
    )
    .await;
    wait_until("both holds are ended", Duration::from_secs(5), async || {
        balance_of(&s, &key).await.1 == 0
    })
    .await;
    assert_eq!(admin(&s.data_dir, &["ledger", "verify"]), "ok");
    worker.abort();
}
