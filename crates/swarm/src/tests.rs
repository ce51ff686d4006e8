use std::time::Duration;

use shoal_protocol::chat::ToolCallDelta;
use shoal_protocol::swarm::{Dtype, FrameHeader, FrameKind, Resume};
use shoal_protocol::worker::{FinishReason, JobUsage, ServedModel, WorkerKind};
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
        resume: None,
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
            sampling: None,
            resume: None,
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
            sampling: Some(want),
            resume: None,
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
    swarm.job_ended(&pool, nodes[0].0, &job.id);
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

/// A node of `span` that joins the ring now; its outbox.
fn join_late(pool: &Pool, swarm: &Swarm, span: SpanInfo) -> Outbox {
    let (tx, rx) = mpsc::unbounded_channel();
    let model = ServedModel {
        id: MODEL.into(),
        ..ServedModel::default()
    };
    let late = pool.register(WorkerKind::Swarm, vec![model], HashMap::new(), 2, tx);
    swarm.join(pool, late, span, 2).unwrap();
    rx
}

/// The session number of the `span_open` in `messages`, and its sampling.
fn opened(messages: &[GatewayMessage]) -> (u64, Option<Sampling>) {
    match messages {
        [GatewayMessage::SpanOpen {
            session,
            job_id: None,
            sampling,
            resume: None,
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
    swarm.job_ended(&pool, nodes[0].0, &job.id);
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
    let mut rx = join_late(&pool, &swarm, span(4, 6));
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
    let encode = |swarm: &Swarm| {
        let m = shoal_gateway::Metrics::default();
        m.register(|r| swarm.metrics.register(r));
        m.encode()
    };
    let text = encode(&swarm);
    let fp = "f".repeat(64);
    assert!(text.contains(&format!(
        "shoal_swarm_gap{{fingerprint=\"{fp}\",start=\"2\",end=\"4\"}} 2"
    )));
    assert!(text.contains(&format!(
        "shoal_swarm_covered{{fingerprint=\"{fp}\",layers=\"6\"}} 0"
    )));
    swarm.join(&pool, 77, span(2, 4), 1).unwrap();
    let text = encode(&swarm);
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

/// A token frame for `position`, from the last span.
fn token(session: u64, position: u32, token: u32) -> Vec<u8> {
    FrameHeader::token_frame(session, position, token)
}

fn delta(text: &str) -> JobEvent {
    JobEvent::Delta {
        content: Some(text.into()),
        reasoning: None,
        tool_calls: None,
    }
}

/// What the lost entry had said: a content, a reasoning and a tool call delta.
fn said_so_far() -> Vec<JobEvent> {
    let call: ToolCallDelta = serde_json::from_value(serde_json::json!({
        "index": 0, "id": "call_x0", "type": "function",
        "function": {"name": "weather", "arguments": "{}"}
    }))
    .unwrap();
    let reasoning = JobEvent::Delta {
        content: None,
        reasoning: Some("r".into()),
        tool_calls: None,
    };
    let tool = JobEvent::Delta {
        content: None,
        reasoning: None,
        tool_calls: Some(vec![call]),
    };
    vec![delta("a"), reasoning, tool]
}

fn events(job: &mut Job) -> Vec<JobEvent> {
    std::iter::from_fn(|| job.events.try_recv().ok()).collect()
}

/// A ring of two entries (the first span twice), a middle and a last span, with a job
/// running on one of the entries; the job, its session, and which entry runs it.
fn twin_entries() -> (Pool, Swarm, Vec<(WorkerId, Outbox)>, Job, u64, usize) {
    let (pool, swarm, mut nodes) = ring(&[(0, 2), (0, 2), (2, 4), (4, 6)]);
    let job = swarm.open(&pool, &request(), &[]).unwrap();
    let used = if job.worker == nodes[0].0 { 0 } else { 1 };
    let (session, _) = opened(&drain(&mut nodes[2].1));
    nodes.iter_mut().for_each(|n| drop(drain(&mut n.1)));
    (pool, swarm, nodes, job, session, used)
}

/// The job an entry got to take over: its session there and its resume.
fn taken_over(messages: &[GatewayMessage], job: &Job) -> (u64, Resume) {
    match messages {
        [GatewayMessage::SpanOpen {
            session,
            job_id: Some(id),
            sampling: None,
            resume: Some(resume),
        }, GatewayMessage::Job {
            job_id, request: r, ..
        }] if *id == job.id && *job_id == job.id && *r == request() => (*session, resume.clone()),
        other => panic!("{other:?}"),
    }
}

#[test]
fn an_entry_lost_after_output_is_taken_over_with_the_tokens_so_far() {
    let (pool, swarm, mut nodes, mut job, session, used) = twin_entries();
    let spare = 1 - used;
    // A prompt chunk's token, three generated ones, and one a replay drew again.
    for (position, t) in [(256, 1), (300, 7), (301, 8), (302, 9), (301, 8)] {
        swarm
            .route(&pool, nodes[3].0, token(session, position, t))
            .unwrap();
    }
    // Content, reasoning and a tool call count alike.
    for said in said_so_far() {
        pool.deliver(nodes[used].0, &job.id, said);
    }
    assert!(!swarm.leave(&pool, nodes[used].0), "taken over at once");
    pool.unregister(nodes[used].0);
    let (to, resume) = taken_over(&drain(&mut nodes[spare].1), &job);
    assert_ne!(to, session);
    let want = Resume {
        from: 300,
        tokens: vec![7, 8, 9],
    };
    assert_eq!(resume, want);
    let middle = drain(&mut nodes[2].1);
    assert_eq!(middle[0], GatewayMessage::SpanClose { session });
    assert_eq!(opened(&middle[1..]), (to, None));
    let last = drain(&mut nodes[3].1);
    assert_eq!(last[0], GatewayMessage::SpanClose { session });
    assert_eq!(opened(&last[1..]).1.map(|s| s.seed), Some(9));
    assert_eq!(events(&mut job), said_so_far(), "nothing of the loss");

    // The new entry says it all again; the client has the first three already.
    for said in [&said_so_far()[..], &[delta("c")]].concat() {
        pool.deliver(nodes[spare].0, &job.id, said);
    }
    let done = JobEvent::Done {
        finish_reason: FinishReason::Length,
        usage: JobUsage::default(),
    };
    pool.deliver(nodes[spare].0, &job.id, done.clone());
    assert_eq!(events(&mut job), [delta("c"), done]);
    // The new chain relays and records on; the lost entry's word ends nothing.
    swarm.route(&pool, nodes[3].0, token(to, 303, 4)).unwrap();
    assert_eq!(
        drain(&mut nodes[spare].1),
        [GatewayMessage::Frame(token(to, 303, 4))]
    );
    swarm.job_ended(&pool, nodes[used].0, &job.id);
    assert!(drain(&mut nodes[3].1).is_empty());
    swarm.job_ended(&pool, nodes[spare].0, &job.id);
    assert_eq!(
        drain(&mut nodes[3].1),
        [GatewayMessage::SpanClose { session: to }]
    );
    assert_eq!(
        (swarm.metrics.broken.get(), swarm.metrics.rerouted.get()),
        (1, 1)
    );
    assert_eq!(swarm.metrics.resumed.get(), 1);
    assert_eq!(pool.counters.dispatched.get(), 1, "one job, moved");
}

#[test]
fn an_entry_lost_before_output_fails_its_job_to_be_tried_afresh() {
    let (pool, swarm, mut nodes, mut job, session, used) = twin_entries();
    swarm
        .route(&pool, nodes[3].0, token(session, 300, 7))
        .unwrap();
    assert!(!swarm.leave(&pool, nodes[used].0));
    pool.unregister(nodes[used].0);
    let lost = JobEvent::Failed {
        code: ErrorCode::WorkerLost,
        retryable: true,
    };
    assert_eq!(events(&mut job), [lost]);
    assert!(drain(&mut nodes[1 - used].1).is_empty());
    assert_eq!(swarm.metrics.rerouted.get(), 0);
}

/// A three-span ring whose one entry had said "a" and is lost: the job waits.
fn orphaned() -> (Pool, Swarm, Vec<(WorkerId, Outbox)>, Job) {
    let (pool, swarm, mut nodes) = ring(&[(0, 2), (2, 4), (4, 6)]);
    let mut job = swarm.open(&pool, &request(), &[]).unwrap();
    let (session, _) = opened(&drain(&mut nodes[1].1));
    swarm
        .route(&pool, nodes[2].0, token(session, 40, 7))
        .unwrap();
    pool.deliver(nodes[0].0, &job.id, delta("a"));
    assert!(swarm.leave(&pool, nodes[0].0), "the job waits for an entry");
    pool.unregister(nodes[0].0);
    assert!(!swarm.available());
    assert_eq!(events(&mut job), [delta("a")]);
    (pool, swarm, nodes, job)
}

#[test]
fn an_entry_that_joins_within_the_deadline_takes_the_job_over() {
    let (pool, swarm, _nodes, mut job) = orphaned();
    let mut rx = join_late(&pool, &swarm, span(0, 2));
    let (_, resume) = taken_over(&drain(&mut rx), &job);
    assert_eq!(resume.tokens, [7]);
    swarm.expire_before(&pool, Instant::now() + REPAIR_DEADLINE);
    assert!(
        events(&mut job).is_empty(),
        "taken over, so nothing expires"
    );
    assert_eq!(swarm.metrics.resumed.get(), 1);
}

#[test]
fn a_job_whose_client_left_is_not_taken_over() {
    let (pool, swarm, _nodes, job) = orphaned();
    drop(job);
    let mut rx = join_late(&pool, &swarm, span(0, 2));
    assert!(drain(&mut rx).is_empty());
    assert_eq!(swarm.metrics.resumed.get(), 0);
    assert!(swarm.available(), "the ring is whole again, and free");
}

#[test]
fn an_entry_lost_without_cover_fails_its_job_after_the_deadline() {
    let (pool, swarm, _nodes, mut job) = orphaned();
    swarm.expire(&pool);
    assert!(events(&mut job).is_empty(), "not before the deadline");
    swarm.expire_before(&pool, Instant::now() + REPAIR_DEADLINE);
    let lost = JobEvent::Failed {
        code: ErrorCode::WorkerLost,
        retryable: true,
    };
    assert_eq!(events(&mut job), [lost]);
    assert_eq!(swarm.metrics.rerouted.get(), 0);
}

#[test]
fn an_entry_lost_while_its_session_waits_leaves_the_job_to_another() {
    let (pool, swarm, mut nodes, mut job, session, used) = twin_entries();
    swarm
        .route(&pool, nodes[3].0, token(session, 300, 7))
        .unwrap();
    pool.deliver(nodes[used].0, &job.id, delta("a"));
    assert!(swarm.leave(&pool, nodes[2].0), "no other middle span");
    assert!(swarm.leave(&pool, nodes[used].0), "still none");
    pool.unregister(nodes[used].0);
    let mut rx = join_late(&pool, &swarm, span(2, 4));
    let (to, resume) = taken_over(&drain(&mut nodes[1 - used].1), &job);
    assert_eq!(resume.tokens, [7]);
    assert_eq!(opened(&drain(&mut rx)), (to, None));
    assert_eq!(events(&mut job), [delta("a")]);
}

#[test]
fn a_token_frame_of_another_shape_is_refused() {
    let (pool, swarm, mut nodes, _job, session, _) = twin_entries();
    let header = FrameHeader {
        kind: FrameKind::Token,
        dtype: Dtype::U32,
        session,
        position: 300,
        tokens: 2,
        width: 1,
    };
    let two = header.encode(&[0; 8]);
    assert!(swarm.route(&pool, nodes[3].0, two).is_err());
    assert!(drain(&mut nodes[0].1).is_empty() && drain(&mut nodes[1].1).is_empty());
}
