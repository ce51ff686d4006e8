//! The entry against a node holding every layer of the test model (entry and last span at
//! once), its token frames relayed back to it as the gateway would.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;

use shoal_protocol::swarm::{FrameHeader, FrameKind, Resume, Sampling};
use shoal_protocol::worker::{FinishReason, JobRequest, JobUsage, WorkerMessage};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use crate::backend::{Delta, Job, JobEnd, JobOutput, SpanBackend, SwarmMessage};
use crate::llama::test_model;
use crate::swarm::node::{SwarmBackend, SwarmOptions};
use crate::swarm::slice;

/// A span file of all the test model's layers, in a folder of its own.
fn whole_span() -> (PathBuf, PathBuf) {
    let dir = std::env::temp_dir().join(format!("shoal-entry-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let full = dir.join("full.gguf");
    test_model::write(&full, 2048).unwrap();
    let span = dir.join("span.gguf");
    slice::slice(&full, 0..2, &span).unwrap();
    (dir, span)
}

fn node(span: PathBuf) -> Arc<SwarmBackend> {
    let options = SwarmOptions {
        gguf: span,
        ctx: Some(2048),
        threads: Some(1),
        concurrency: 2,
        half_frames: false,
    };
    let serve = vec!["service-swarm".parse().unwrap()];
    Arc::new(SwarmBackend::load(&options, serve).unwrap())
}

/// What one job said, how it ended, and the token the node sampled for each position.
struct Said {
    deltas: Vec<Delta>,
    end: JobEnd,
    sampled: BTreeMap<u32, u32>,
}

impl Said {
    fn usage(&self) -> JobUsage {
        match &self.end {
            JobEnd::Done { usage, .. } => *usage,
            other => panic!("the job failed: {other:?}"),
        }
    }

    /// The generated tokens, in order.
    fn generated(&self) -> Vec<u32> {
        let u = self.usage();
        let from = u.prompt_tokens as u32;
        (from..from + u.completion_tokens as u32)
            .map(|p| self.sampled[&p])
            .collect()
    }

    fn text(&self) -> String {
        self.deltas
            .iter()
            .filter_map(|d| d.content.clone())
            .collect()
    }
}

/// Runs a job as session `session`, relaying the node's token frames back to it; the node
/// samples with `seed`.
async fn run(
    backend: &Arc<SwarmBackend>,
    (session, seed): (u64, u64),
    request: &JobRequest,
    resume: Option<Resume>,
) -> Said {
    let job_id = format!("job_{session}");
    let sampling = Sampling {
        temperature: 1.0,
        top_p: 1.0,
        seed,
    };
    let (tx, mut rx) = mpsc::channel(4096);
    let open = SwarmMessage::Open {
        session,
        job_id: Some(job_id.clone()),
        sampling: Some(sampling),
        resume,
    };
    backend.on_swarm(open, &tx);
    let relay = {
        let (backend, tx) = (Arc::clone(backend), tx.clone());
        tokio::spawn(async move {
            let (mut deltas, mut sampled) = (Vec::new(), BTreeMap::new());
            while let Some(msg) = rx.recv().await {
                match msg {
                    WorkerMessage::Frame(frame) => {
                        let (h, payload) = FrameHeader::decode(&frame).unwrap();
                        assert_eq!(h.kind, FrameKind::Token, "one node sends tokens only");
                        let token = h.token(payload).expect("one token id per token frame");
                        sampled.insert(h.position, token);
                        backend.on_swarm(SwarmMessage::Frame(frame), &tx);
                    }
                    WorkerMessage::Delta {
                        content,
                        reasoning,
                        tool_calls,
                        ..
                    } => deltas.push(Delta {
                        content,
                        reasoning,
                        tool_calls,
                    }),
                    // Sent once the job ended: everything it said came before.
                    WorkerMessage::Heartbeat => break,
                    other => panic!("{other:?}"),
                }
            }
            (deltas, sampled)
        })
    };
    let job = Job {
        id: job_id.clone(),
        model: "service-swarm".into(),
        request: request.clone(),
    };
    let mut out = JobOutput::new(job_id, tx.clone());
    let end = backend
        .generate(job, &mut out, CancellationToken::new())
        .await;
    tx.send(WorkerMessage::Heartbeat).await.unwrap();
    let (deltas, sampled) = relay.await.unwrap();
    Said {
        deltas,
        end,
        sampled,
    }
}

fn request(stop: Option<&str>) -> JobRequest {
    // Long enough for two prompt chunks (256 tokens each).
    let story = "the sea and the ships and a lighthouse keeper ".repeat(16);
    serde_json::from_value(serde_json::json!({
        "messages": [{"role": "user", "content": story}],
        "max_tokens": 48, "stop": stop,
    }))
    .unwrap()
}

/// A job taken over after `n` tokens says, from the start, exactly what the uninterrupted job
/// said (the gateway drops what the client already has by count), and ends the same way.
/// True when the job ran to its token budget, and a job taken over with every token, but
/// sampled otherwise, said the same too: it says the tokens it is given.
async fn resumes_alike(
    backend: &Arc<SwarmBackend>,
    session: &mut u64,
    request: &JobRequest,
) -> bool {
    *session += 1;
    let whole = run(backend, (*session, SEED), request, None).await;
    let generated = whole.generated();
    let n_prompt = whole.usage().prompt_tokens as u32;
    assert!(
        n_prompt > 256,
        "the prompt fits one chunk ({n_prompt} tokens)"
    );
    assert!(
        whole.deltas.len() >= 4,
        "too little output: {:?}",
        whole.deltas
    );
    let half = generated.len() / 2;
    for n in [1, half, generated.len()] {
        // From the prompt's end, and from a prompt chunk's token before it (skipped).
        let mut early = vec![whole.sampled.get(&(n_prompt - 1)).copied().unwrap_or(0)];
        early.extend_from_slice(&generated[..n]);
        for (from, tokens) in [(n_prompt, generated[..n].to_vec()), (n_prompt - 1, early)] {
            *session += 1;
            let resume = Resume { from, tokens };
            let again = run(backend, (*session, SEED), request, Some(resume)).await;
            assert_eq!(again.deltas, whole.deltas, "taken over after {n} tokens");
            assert_eq!(again.end, whole.end, "taken over after {n} tokens");
        }
    }
    // A record that misses the first generated token is refused, not guessed at.
    *session += 1;
    let resume = Resume {
        from: n_prompt + 1,
        tokens: generated[1..].to_vec(),
    };
    let refused = run(backend, (*session, SEED), request, Some(resume)).await;
    assert!(
        matches!(refused.end, JobEnd::Failed { .. }),
        "{:?}",
        refused.end
    );
    assert!(refused.deltas.is_empty());
    let budget = matches!(
        whole.end,
        JobEnd::Done {
            finish_reason: FinishReason::Length,
            ..
        }
    );
    if budget {
        *session += 1;
        let resume = Resume {
            from: n_prompt,
            tokens: generated,
        };
        let given = run(backend, (*session, SEED + 1), request, Some(resume)).await;
        assert_eq!(
            given.deltas, whole.deltas,
            "the tokens given, not those drawn"
        );
        let drawn = run(backend, (*session + 1, SEED + 1), request, None).await;
        assert_ne!(drawn.deltas, whole.deltas, "another seed draws otherwise");
        *session += 1;
    }
    budget
}

/// The seed the node samples with.
const SEED: u64 = 5;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_entry_taking_over_a_job_from_its_tokens_says_what_the_lost_one_did() {
    let (dir, span) = whole_span();
    let backend = node(span);
    let mut session = 0;
    let budget = resumes_alike(&backend, &mut session, &request(None)).await;
    assert!(budget, "the job without a stop string ran to its budget");
    // With a stop string met after the cut: the stop filter's state is rebuilt too.
    session += 1;
    let text = run(&backend, (session, SEED), &request(None), None)
        .await
        .text();
    let stop = later_stop(&text);
    resumes_alike(&backend, &mut session, &request(Some(&stop))).await;
    // The test binary exits right after its last test.
    tokio::task::block_in_place(|| backend.settle());
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Three characters first met in the second half of `text`.
fn later_stop(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    (chars.len() / 2..chars.len().saturating_sub(3))
        .map(|i| chars[i..i + 3].iter().collect::<String>())
        .find(|s| text.find(s.as_str()).unwrap() >= text.len() / 2)
        .unwrap_or_else(|| panic!("no stop string to cut from {text:?}"))
}
