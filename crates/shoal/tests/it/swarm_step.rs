//! The swarm ring's step deadline on a real `shoal serve`, with hand-written span nodes: a node
//! that stays connected and heartbeats but never answers a frame is dropped from the ring after
//! `STEP_DEADLINE` (30 s), and its session goes on through its twin (the entry is told to
//! replay).

use std::time::{Duration, Instant};

use futures::{SinkExt, StreamExt};
use serde_json::{json, Value};
use shoal_protocol::swarm::{Dtype, FrameHeader, FrameKind};
use shoal_test_support::process::worker::{connect, recv, send};
use shoal_test_support::process::{account_with_key, admin, metric, wait_until, Server};
use tokio::sync::mpsc;
use tokio_tungstenite::tungstenite::Message;

const SWARM: &str = "service-swarm";
/// The gateway's `STEP_DEADLINE`.
const STEP_DEADLINE: Duration = Duration::from_secs(30);

/// A hand-written span node that heartbeats on its own: `inbox` has what the gateway sends it,
/// `outbox` sends.
struct Node {
    inbox: mpsc::UnboundedReceiver<Message>,
    outbox: mpsc::UnboundedSender<Message>,
}

impl Node {
    /// Connects a node of layers `[start, end)` of a 6-layer model, announcing `step_us`.
    async fn join(s: &Server, (start, end): (u32, u32), step_us: u64) -> Node {
        let token = admin(&s.data_dir, &["worker-token", "create", "--name", "span"]);
        let mut ws = connect(s, &token).await.unwrap();
        let hello = json!({"type": "hello", "protocol": 1, "kind": "swarm",
            "models": [{"id": SWARM}], "concurrency": 2});
        send(&mut ws, hello).await;
        assert_eq!(recv(&mut ws).await["type"], "welcome");
        let span = json!({"fingerprint": "ab".repeat(32), "start": start, "end": end,
            "total": 6, "step_us": step_us});
        send(&mut ws, json!({"type": "span", "span": span})).await;
        let (inbox_tx, inbox) = mpsc::unbounded_channel();
        let (outbox, mut outgoing) = mpsc::unbounded_channel::<Message>();
        tokio::spawn(async move {
            let mut beat = tokio::time::interval(Duration::from_millis(200));
            let heartbeat = json!({"type": "heartbeat"}).to_string();
            loop {
                let sent = tokio::select! {
                    _ = beat.tick() => ws.send(Message::Text(heartbeat.clone().into())).await,
                    Some(m) = outgoing.recv() => ws.send(m).await,
                    m = ws.next() => match m {
                        // The test may have stopped reading: nothing to keep.
                        Some(Ok(m)) => {
                            let _ = inbox_tx.send(m);
                            Ok(())
                        }
                        _ => break,
                    },
                };
                if sent.is_err() {
                    break;
                }
            }
        });
        Node { inbox, outbox }
    }

    /// The next message of `kind` (other text messages skipped), within `limit`.
    async fn next(&mut self, kind: &str, limit: Duration) -> Value {
        let deadline = tokio::time::Instant::now() + limit;
        loop {
            let msg = tokio::time::timeout_at(deadline, self.inbox.recv())
                .await
                .unwrap_or_else(|_| panic!("no {kind} within {limit:?}"))
                .expect("the node's socket is open");
            if let Message::Text(t) = msg {
                let v: Value = serde_json::from_str(&t).unwrap();
                if v["type"] == kind {
                    return v;
                }
            }
        }
    }

    /// The next binary frame's header, within 10 s.
    async fn frame(&mut self) -> FrameHeader {
        loop {
            let msg = tokio::time::timeout(Duration::from_secs(10), self.inbox.recv())
                .await
                .expect("a frame within 10 s")
                .expect("the node's socket is open");
            if let Message::Binary(b) = msg {
                return FrameHeader::decode(&b).unwrap().0;
            }
        }
    }
}

/// Hidden states (width 2) of one token at `position`, as the entry sends them on.
fn hidden(session: u64, position: u32) -> Message {
    let header = FrameHeader {
        kind: FrameKind::Hidden,
        dtype: Dtype::F32,
        session,
        position,
        tokens: 1,
        width: 2,
    };
    Message::Binary(header.encode(&[0; 8]).into())
}

#[tokio::test]
async fn a_node_that_heartbeats_but_never_answers_a_frame_is_dropped_at_the_step_deadline() {
    let s = Server::start(Some("worker_heartbeat_ms = 1000\n"));
    let (_, key) = account_with_key(&s.data_dir, "swarm@example.com", 1000, None);
    let mut entry = Node::join(&s, (0, 2), 10).await;
    // The cheaper middle node gets the session; it never answers.
    let mut silent = Node::join(&s, (2, 4), 10).await;
    let mut twin = Node::join(&s, (2, 4), 1_000_000).await;
    let mut last = Node::join(&s, (4, 6), 10).await;
    wait_until(
        "four span nodes in the ring",
        Duration::from_secs(10),
        async || metric(&s, "shoal_swarm_nodes").await == 4,
    )
    .await;
    let url = s.url("/api/v1/chat/completions");
    let body = json!({"model": SWARM, "messages": [{"role": "user", "content": "hi"}]});
    let client = tokio::spawn(async move {
        let http = reqwest::Client::new();
        http.post(url).bearer_auth(key).json(&body).send().await
    });
    let session = entry.next("span_open", Duration::from_secs(10)).await["session"]
        .as_u64()
        .unwrap();
    let job = entry.next("job", Duration::from_secs(10)).await;
    entry.outbox.send(hidden(session, 0)).unwrap();
    assert_eq!(silent.frame().await.session, session);
    let sent = Instant::now();

    let replay = entry.next("span_replay", STEP_DEADLINE * 2).await;
    let waited = sent.elapsed();
    assert!(
        waited >= STEP_DEADLINE - Duration::from_secs(1),
        "dropped after {waited:?}, before the step deadline"
    );
    assert_eq!(replay["session"], session);
    let to = &replay["to"];
    assert_eq!(
        twin.next("span_open", Duration::from_secs(5)).await["session"],
        *to
    );
    assert_eq!(
        last.next("span_close", Duration::from_secs(5)).await["session"],
        session
    );
    assert_eq!(
        last.next("span_open", Duration::from_secs(5)).await["session"],
        *to
    );
    // Out of the ring, though still connected and heartbeating.
    assert_eq!(metric(&s, "shoal_swarm_nodes").await, 3);
    assert_eq!(metric(&s, "shoal_swarm_sessions_broken_total").await, 1);
    assert_eq!(metric(&s, "shoal_swarm_sessions_rerouted_total").await, 1);
    assert!(
        silent.outbox.send(hidden(session, 1)).is_ok(),
        "its socket is open"
    );

    // The entry ends the job; the client hears of it.
    let end = json!({"type": "error", "job_id": job["job_id"], "code": "inference_failed",
        "retryable": false});
    entry
        .outbox
        .send(Message::Text(end.to_string().into()))
        .unwrap();
    let answer = client.await.unwrap().unwrap();
    assert!(answer.status().is_server_error(), "{}", answer.status());
}
