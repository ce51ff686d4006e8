use std::time::Duration;

use shoal_protocol::swarm::{Dtype, FrameHeader, FrameKind};
use shoal_protocol::worker::{ServedModel, WorkerKind};
use tokio::sync::mpsc;

use super::*;

type Outbox = mpsc::UnboundedReceiver<GatewayMessage>;

/// A pool with one swarm node per range, all joined; their ids and outboxes.
fn ring(ranges: &[(u32, u32)]) -> (Pool, Swarm, Vec<(WorkerId, Outbox)>) {
    let pool = Pool::new(Duration::from_millis(50), 8);
    let swarm = Swarm::default();
    let mut nodes = Vec::new();
    for &(start, end) in ranges {
        let (tx, rx) = mpsc::unbounded_channel();
        let model = ServedModel {
            id: MODEL.into(),
            ..ServedModel::default()
        };
        let id = pool.register(WorkerKind::Swarm, vec![model], HashMap::new(), 2, tx);
        let span = SpanInfo {
            fingerprint: "f".repeat(64),
            start,
            end,
            total: 6,
            step_us: 10,
        };
        swarm.join(&pool, id, span, 2).unwrap();
        nodes.push((id, rx));
    }
    (pool, swarm, nodes)
}

fn request() -> JobRequest {
    serde_json::from_value(serde_json::json!({
        "messages": [{"role": "user", "content": "hi"}], "max_tokens": 4, "temperature": 0.0, "seed": 9
    }))
    .unwrap()
}

fn frame(kind: FrameKind, session: u64) -> Vec<u8> {
    let (dtype, width) = match kind {
        FrameKind::Hidden => (Dtype::F32, 2),
        FrameKind::Token => (Dtype::U32, 1),
    };
    let header = FrameHeader {
        kind,
        dtype,
        session,
        position: 3,
        tokens: 1,
        width,
    };
    header.encode(&vec![0; 4 * width as usize])
}

fn drain(rx: &mut Outbox) -> Vec<GatewayMessage> {
    std::iter::from_fn(|| rx.try_recv().ok()).collect()
}

#[test]
fn a_job_opens_a_session_on_the_chain_and_frames_go_hop_by_hop() {
    let (pool, swarm, mut nodes) = ring(&[(0, 2), (2, 4), (4, 6)]);
    assert!(swarm.available());
    let job = swarm.open(&pool, &request(), &[]).unwrap();
    assert_eq!(job.worker, nodes[0].0);
    let entry = drain(&mut nodes[0].1);
    let GatewayMessage::SpanOpen {
        session,
        job_id,
        sampling: None,
    } = &entry[0]
    else {
        panic!("{entry:?}")
    };
    let session = *session;
    assert_eq!(job_id.as_deref(), Some(job.id.as_str()));
    assert!(matches!(&entry[1], GatewayMessage::Job { job_id, .. } if *job_id == job.id));
    let middle = drain(&mut nodes[1].1);
    assert_eq!(
        middle,
        [GatewayMessage::SpanOpen {
            session,
            job_id: None,
            sampling: None
        }]
    );
    let last = drain(&mut nodes[2].1);
    let want = Sampling {
        temperature: 0.0,
        top_p: 1.0,
        seed: 9,
    };
    assert_eq!(
        last,
        [GatewayMessage::SpanOpen {
            session,
            job_id: None,
            sampling: Some(want)
        }]
    );

    // Hidden states forward, the token back to the entry.
    let hidden = frame(FrameKind::Hidden, session);
    swarm.route(&pool, nodes[0].0, hidden.clone()).unwrap();
    assert_eq!(
        drain(&mut nodes[1].1),
        [GatewayMessage::Frame(hidden.clone())]
    );
    swarm.route(&pool, nodes[1].0, hidden.clone()).unwrap();
    assert_eq!(
        drain(&mut nodes[2].1),
        [GatewayMessage::Frame(hidden.clone())]
    );
    let token = frame(FrameKind::Token, session);
    swarm.route(&pool, nodes[2].0, token.clone()).unwrap();
    assert_eq!(
        drain(&mut nodes[0].1),
        [GatewayMessage::Frame(token.clone())]
    );

    // Out of place: a hidden frame from the last node, a token from the middle, a frame for a
    // session the node is not in, garbage.
    assert!(swarm.route(&pool, nodes[2].0, hidden.clone()).is_err());
    assert!(swarm.route(&pool, nodes[1].0, token.clone()).is_err());
    assert!(swarm.route(&pool, 999, hidden.clone()).is_err());
    assert!(swarm.route(&pool, nodes[0].0, vec![1, 2, 3]).is_err());

    // The job ends at the entry: the others close the session; late frames are dropped.
    swarm.job_ended(&pool, &job.id);
    assert_eq!(
        drain(&mut nodes[1].1),
        [GatewayMessage::SpanClose { session }]
    );
    assert_eq!(
        drain(&mut nodes[2].1),
        [GatewayMessage::SpanClose { session }]
    );
    swarm.route(&pool, nodes[0].0, hidden).unwrap();
    assert!(drain(&mut nodes[1].1).is_empty());
}

fn span(start: u32, end: u32) -> SpanInfo {
    SpanInfo {
        fingerprint: "f".repeat(64),
        start,
        end,
        total: 6,
        step_us: 10,
    }
}

/// The session number of the `span_open` in `messages`, and its sampling.
fn opened(messages: &[GatewayMessage]) -> (u64, Option<Sampling>) {
    match messages {
        [GatewayMessage::SpanOpen {
            session,
            job_id: None,
            sampling,
        }] => (*session, *sampling),
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_lost_node_without_cover_fails_its_job_after_the_deadline() {
    let (pool, swarm, mut nodes) = ring(&[(0, 2), (2, 4), (4, 6)]);
    let mut job = swarm.open(&pool, &request(), &[]).unwrap();
    nodes.iter_mut().for_each(|n| drop(drain(&mut n.1)));
    assert!(
        swarm.leave(&pool, nodes[1].0),
        "the session waits for a chain"
    );
    assert!(!swarm.available());
    assert!(
        job.events.try_recv().is_err(),
        "nothing yet: a span may join"
    );
    assert!(matches!(
        &drain(&mut nodes[2].1)[..],
        [GatewayMessage::SpanClose { .. }]
    ));
    swarm.expire(&pool);
    assert!(job.events.try_recv().is_err(), "not before the deadline");
    swarm.expire_before(&pool, Instant::now() + REPAIR_DEADLINE);
    assert_eq!(
        job.events.try_recv().unwrap(),
        JobEvent::Failed {
            code: ErrorCode::WorkerLost,
            retryable: true
        }
    );
    assert!(
        matches!(&drain(&mut nodes[0].1)[..], [GatewayMessage::Cancel { job_id }] if *job_id == job.id)
    );
    assert_eq!(
        swarm.open(&pool, &request(), &[]).err(),
        Some(DispatchError::NoWorker)
    );
    assert_eq!(swarm.metrics.broken.get(), 1);
    assert_eq!(swarm.metrics.rerouted.get(), 0);
}

#[test]
fn a_lost_node_with_a_twin_is_replaced_and_the_entry_replays() {
    let (pool, swarm, mut nodes) = ring(&[(0, 2), (2, 4), (4, 6), (4, 6)]);
    let mut job = swarm.open(&pool, &request(), &[]).unwrap();
    let (session, _) = opened(&drain(&mut nodes[1].1));
    // The twin that got the session is the one lost.
    let (used, spare) = match drain(&mut nodes[2].1).is_empty() {
        true => (3, 2),
        false => (2, 3),
    };
    drain(&mut nodes[0].1);
    drain(&mut nodes[spare].1);
    assert!(!swarm.leave(&pool, nodes[used].0), "repaired at once");
    let middle = drain(&mut nodes[1].1);
    assert_eq!(middle[0], GatewayMessage::SpanClose { session });
    let (to, sampling) = opened(&middle[1..]);
    assert_ne!(to, session);
    assert_eq!(sampling, None);
    let (on_spare, sampling) = opened(&drain(&mut nodes[spare].1));
    assert_eq!(on_spare, to);
    assert_eq!(
        sampling.map(|s| s.seed),
        Some(9),
        "the same seed draws the same tokens"
    );
    assert_eq!(
        drain(&mut nodes[0].1),
        [GatewayMessage::SpanReplay { session, to }]
    );
    assert!(job.events.try_recv().is_err(), "the client sees nothing");
    assert_eq!(swarm.metrics.rerouted.get(), 1);

    // The new chain relays; late frames of the old session are dropped.
    let hidden = frame(FrameKind::Hidden, to);
    swarm.route(&pool, nodes[1].0, hidden.clone()).unwrap();
    assert_eq!(drain(&mut nodes[spare].1), [GatewayMessage::Frame(hidden)]);
    swarm
        .route(&pool, nodes[0].0, frame(FrameKind::Hidden, session))
        .unwrap();
    assert!(drain(&mut nodes[1].1).is_empty());
    swarm.job_ended(&pool, &job.id);
    assert_eq!(
        drain(&mut nodes[spare].1),
        [GatewayMessage::SpanClose { session: to }]
    );
}

#[test]
fn a_span_that_joins_within_the_deadline_repairs_a_waiting_session() {
    let (pool, swarm, mut nodes) = ring(&[(0, 2), (2, 4), (4, 6)]);
    let mut job = swarm.open(&pool, &request(), &[]).unwrap();
    nodes.iter_mut().for_each(|n| drop(drain(&mut n.1)));
    assert!(swarm.leave(&pool, nodes[2].0));
    let (tx, mut rx) = mpsc::unbounded_channel();
    let model = ServedModel {
        id: MODEL.into(),
        ..ServedModel::default()
    };
    let late = pool.register(WorkerKind::Swarm, vec![model], HashMap::new(), 2, tx);
    swarm.join(&pool, late, span(4, 6), 2).unwrap();
    let (to, sampling) = opened(&drain(&mut rx));
    assert!(sampling.is_some());
    assert!(matches!(
        &drain(&mut nodes[0].1)[..],
        [GatewayMessage::SpanReplay { to: t, .. }] if *t == to
    ));
    swarm.expire_before(&pool, Instant::now() + REPAIR_DEADLINE);
    assert!(
        job.events.try_recv().is_err(),
        "repaired, so nothing expires"
    );
    assert_eq!(swarm.metrics.rerouted.get(), 1);
}

#[test]
fn metrics_show_nodes_sessions_and_gaps() {
    let (pool, swarm, _nodes) = ring(&[(0, 2), (4, 6)]);
    let text = {
        let mut m = crate::metrics::Metrics::default();
        m.register_swarm(&swarm.metrics);
        m.encode()
    };
    let fp = "f".repeat(64);
    assert!(text.contains(&format!(
        "shoal_swarm_gap{{fingerprint=\"{fp}\",start=\"2\",end=\"4\"}} 2"
    )));
    assert!(text.contains(&format!(
        "shoal_swarm_covered{{fingerprint=\"{fp}\",layers=\"6\"}} 0"
    )));
    swarm.join(&pool, 77, span(2, 4), 1).unwrap();
    let mut m = crate::metrics::Metrics::default();
    m.register_swarm(&swarm.metrics);
    let text = m.encode();
    assert!(!text.contains("shoal_swarm_gap{"), "{text}");
    assert!(text.contains(&format!(
        "shoal_swarm_node_capacity{{worker=\"wrk_77\",fingerprint=\"{fp}\",start=\"2\",end=\"4\",total=\"6\"}} 1"
    )));
}

#[test]
fn a_node_past_its_step_deadline_is_dropped_and_its_sessions_wait() {
    let (pool, swarm, mut nodes) = ring(&[(0, 2), (2, 4), (4, 6)]);
    let mut job = swarm.open(&pool, &request(), &[]).unwrap();
    let (session, _) = opened(&drain(&mut nodes[1].1));
    swarm
        .route(&pool, nodes[0].0, frame(FrameKind::Hidden, session))
        .unwrap();
    assert!(!swarm.overdue(&pool, Instant::now()), "not yet");
    assert!(swarm.available());
    // The middle node never answers.
    assert!(swarm.overdue(&pool, Instant::now() + STEP_DEADLINE));
    assert!(!swarm.available());
    assert!(job.events.try_recv().is_err(), "waiting for a chain");
    assert_eq!(swarm.metrics.broken.get(), 1);
}
