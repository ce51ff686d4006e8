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
        swarm.join(id, span, 2).unwrap();
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

#[test]
fn a_lost_node_fails_its_sessions_and_closes_the_ring() {
    let (pool, swarm, mut nodes) = ring(&[(0, 2), (2, 4), (4, 6)]);
    let mut job = swarm.open(&pool, &request(), &[]).unwrap();
    nodes.iter_mut().for_each(|n| drop(drain(&mut n.1)));
    swarm.leave(&pool, nodes[1].0);
    assert!(!swarm.available());
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
    assert!(matches!(
        &drain(&mut nodes[2].1)[..],
        [GatewayMessage::SpanClose { .. }]
    ));
    assert_eq!(
        swarm.open(&pool, &request(), &[]).err(),
        Some(DispatchError::NoWorker)
    );
    assert_eq!(swarm.metrics.broken.get(), 1);
}
