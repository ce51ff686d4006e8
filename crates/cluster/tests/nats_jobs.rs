//! The runner of jobs across replicas against the real NATS (SHOAL_TEST_NATS_URL, default
//! nats://127.0.0.1:4222; `SHOAL_TEST_NATS=skip` skips when it is absent), under a subject
//! prefix of this run's own: one replica in process, on an in-memory store, with a worker of
//! its pool played by the test, and the other replica played by a plain NATS client speaking
//! `shoal_cluster::jobs::wire`.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use futures::StreamExt;
use shoal_cluster::jobs::wire::{Accepted, Announce, Cancel, Forward, Subjects};
use shoal_cluster::NatsPeers;
use shoal_gateway::{AppState, Seams};
use shoal_gateway::{FileConfig, GatewayConfig};
use shoal_protocol::worker::{ErrorCode, GatewayMessage, JobRequest, ServedModel, WorkerKind};
use shoal_store::Store;
use tokio::sync::mpsc;

const MODEL: &str = "service-pro";

async fn nats_url() -> Option<String> {
    let url =
        std::env::var("SHOAL_TEST_NATS_URL").unwrap_or_else(|_| "nats://127.0.0.1:4222".to_owned());
    let up = tokio::time::timeout(Duration::from_secs(2), async_nats::connect(&url)).await;
    if matches!(up, Ok(Ok(_))) {
        return Some(url);
    }
    if std::env::var("SHOAL_TEST_NATS").as_deref() == Ok("skip") {
        eprintln!("SKIPPED: no NATS at {url} (SHOAL_TEST_NATS=skip)");
        return None;
    }
    panic!("no NATS at {url} (set SHOAL_TEST_NATS=skip to skip)");
}

fn request() -> JobRequest {
    serde_json::from_value(serde_json::json!({
        "messages": [{"role": "user", "content": "hi"}], "max_tokens": 4
    }))
    .unwrap()
}

async fn wait_until(what: &str, mut done: impl FnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(10);
    while !done() {
        assert!(Instant::now() < deadline, "timed out waiting until {what}");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

/// A replica in process on `prefix`, its queue 30 s long, and its id as it announces it.
async fn replica(url: &str, prefix: &str, client: &async_nats::Client) -> (AppState, String) {
    let mut announces = client
        .subscribe(Subjects::new(prefix).replicas())
        .await
        .unwrap();
    client.flush().await.unwrap();
    let file = FileConfig {
        queue_timeout_secs: Some(30),
        ..Default::default()
    };
    let config = GatewayConfig::from_file(file).unwrap();
    let store = Store::open("sqlite::memory:").await.unwrap();
    let peers = NatsPeers::connect(url, prefix).await.unwrap();
    let seams = Seams {
        peers: Some(Arc::new(peers)),
        ..Seams::default()
    };
    let state = AppState::with_seams(config, store, seams);
    let first = tokio::time::timeout(Duration::from_secs(10), announces.next())
        .await
        .expect("the replica announces itself")
        .unwrap();
    let a: Announce = serde_json::from_slice(&first.payload).unwrap();
    (state, a.replica)
}

#[tokio::test]
async fn a_cancel_reaches_a_job_still_waiting_for_a_worker_there() {
    let Some(url) = nats_url().await else { return };
    let prefix = format!("shoaltest.queued{}x{}", std::process::id(), rand_tag());
    let origin = async_nats::connect(&url).await.unwrap();
    let (b, b_id) = replica(&url, &prefix, &origin).await;
    let subjects = Subjects::new(&prefix);

    // B's only worker is busy with a job of B's own.
    let (tx, mut worker) = mpsc::unbounded_channel();
    let served = vec![ServedModel {
        id: MODEL.into(),
        ..Default::default()
    }];
    b.pool
        .register(WorkerKind::Upstream, served, HashMap::new(), 1, tx);
    let own = b.pool.dispatch(MODEL, &request(), &[]).await.unwrap();
    assert!(matches!(worker.try_recv(), Ok(GatewayMessage::Job { .. })));

    // A job from another replica waits there for the worker.
    let forward = Forward {
        origin: "origin1".into(),
        job_id: "job_7".into(),
        model: MODEL.into(),
        request: Some(request()),
        image: None,
    };
    let body = serde_json::to_vec(&forward).unwrap();
    let ask = async_nats::Request::new()
        .payload(body.into())
        .timeout(Some(Duration::from_secs(60)));
    let (client, subject) = (origin.clone(), subjects.jobs(&b_id));
    let answer = tokio::spawn(async move {
        let ask = client.send_request(subject, ask);
        let sent = Instant::now();
        let m = ask.await.unwrap();
        (
            serde_json::from_slice::<Accepted>(&m.payload).unwrap(),
            sent.elapsed(),
        )
    });
    wait_until("the job waits for a slot", || b.pool.waiting() == 1).await;

    // Its origin's client hangs up: the cancel ends the wait at once, not after 30 s.
    let cancel = Cancel {
        origin: "origin1".into(),
        job_id: "job_7".into(),
    };
    let body = serde_json::to_vec(&cancel).unwrap();
    origin
        .publish(subjects.cancel(&b_id), body.into())
        .await
        .unwrap();
    let (accepted, took) = answer.await.unwrap();
    assert_eq!(
        accepted,
        Accepted {
            accepted: false,
            refused: Some(ErrorCode::Cancelled)
        }
    );
    assert!(took < Duration::from_secs(10), "{took:?}");
    assert_eq!(b.pool.waiting(), 0);

    // When the worker frees its slot, the next job it gets is a new one, not the cancelled one.
    b.pool.abandon(&own.id);
    let next = b.pool.dispatch(MODEL, &request(), &[]).await.unwrap();
    match worker.try_recv() {
        Ok(GatewayMessage::Job { job_id, .. }) => assert_eq!(job_id, next.id),
        other => panic!("{other:?}"),
    }
    assert!(worker.try_recv().is_err());
    let metrics = b.metrics.encode();
    assert!(
        metrics.contains("shoal_cluster_cancelled_queued_jobs_total 1"),
        "{metrics}"
    );
}

fn rand_tag() -> u128 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos()
}
