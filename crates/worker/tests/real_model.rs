//! The llama engine on a real model (SmolLM2-135M-Instruct, fetched by `scripts/fetch-model`):
//! prefix caching and batched decoding must not change what greedy decoding says.
//!
//! Run with `SHOAL_TEST_GGUF=$(scripts/fetch-model) cargo test -p shoal-worker --test
//! real_model`; without the variable each test says so and passes.

#![cfg(feature = "llama")]

use std::path::PathBuf;

use serde_json::json;
use shoal_protocol::worker::{JobRequest, JobUsage, WorkerMessage};
use shoal_worker::backend::{ChatBackend, Job, JobEnd, JobOutput};
use shoal_worker::llama::{LlamaCppBackend, LlamaOptions};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

const MODEL: &str = "smollm2";

fn gguf() -> Option<PathBuf> {
    match std::env::var_os("SHOAL_TEST_GGUF") {
        Some(path) => Some(PathBuf::from(path)),
        None => {
            eprintln!("SHOAL_TEST_GGUF is not set (scripts/fetch-model prints it): skipped");
            None
        }
    }
}

fn load(gguf: PathBuf, concurrency: u32) -> LlamaCppBackend {
    let options = LlamaOptions {
        gguf,
        mmproj: None,
        ctx: Some(2048),
        threads: None,
        concurrency,
        progress: false,
    };
    LlamaCppBackend::load(&options, vec![MODEL.parse().unwrap()]).unwrap()
}

/// A long system prompt (several hundred tokens) that every job below shares.
fn system_prompt() -> String {
    let rule = "You are a careful assistant for a small bakery. Answer in one short sentence, \
                name the bread when you can, and never invent prices or opening hours. ";
    rule.repeat(12)
}

fn request(question: &str) -> JobRequest {
    serde_json::from_value(json!({
        "messages": [
            {"role": "system", "content": system_prompt()},
            {"role": "user", "content": question},
        ],
        "max_tokens": 24,
        "temperature": 0,
    }))
    .unwrap()
}

/// Runs one job to its end: its content and usage.
async fn run(backend: &LlamaCppBackend, question: &str) -> (String, JobUsage) {
    let (tx, mut rx) = mpsc::channel(4096);
    let mut out = JobOutput::new("job".into(), tx);
    let job = Job {
        id: "job".into(),
        model: MODEL.into(),
        request: request(question),
    };
    let end = backend
        .generate(job, &mut out, CancellationToken::new())
        .await;
    drop(out);
    let mut content = String::new();
    while let Some(msg) = rx.recv().await {
        if let WorkerMessage::Delta {
            content: Some(c), ..
        } = msg
        {
            content.push_str(&c);
        }
    }
    match end {
        JobEnd::Done { usage, .. } => (content, usage),
        other => panic!("the job failed: {other:?}"),
    }
}

const QUESTIONS: [&str; 4] = [
    "What bread goes with soup?",
    "Do you sell rye bread?",
    "Which bread is best for sandwiches?",
    "What is a baguette?",
];

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_cached_prefix_changes_nothing_but_the_count() {
    let Some(gguf) = gguf() else { return };
    let cold = load(gguf.clone(), 1);
    let (want, usage) = run(&cold, QUESTIONS[1]).await;
    assert_eq!(usage.cached_tokens, 0, "a fresh cache holds nothing");
    assert!(!want.trim().is_empty());

    let warm = load(gguf, 1);
    let (_, first) = run(&warm, QUESTIONS[0]).await;
    assert_eq!(first.cached_tokens, 0);
    let (got, second) = run(&warm, QUESTIONS[1]).await;
    assert!(
        second.cached_tokens > 200,
        "the shared system prompt is reused: {second:?}"
    );
    assert!(second.cached_tokens < second.prompt_tokens);
    assert_eq!(second.prompt_tokens, usage.prompt_tokens);
    assert_eq!(got, want, "the cached prefix changed the greedy text");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn four_batched_jobs_say_what_each_says_alone() {
    let Some(gguf) = gguf() else { return };
    let alone = load(gguf.clone(), 1);
    let mut want = Vec::new();
    for q in QUESTIONS {
        want.push(run(&alone, q).await.0);
    }
    let batched = load(gguf, 4);
    let got = futures::future::join_all(QUESTIONS.iter().map(|q| run(&batched, q))).await;
    for ((text, usage), want) in got.iter().zip(&want) {
        assert!(usage.completion_tokens > 0);
        // llama.cpp computes a decode of two or more tokens with other kernels (llamafile's
        // sgemm) than a decode of one, so logits differ in their last bits and a near tie
        // can flip a greedy pick late in the text (seen in two of these four answers, after
        // 15–20 tokens).
        // A sequence given another's cache or logits goes wrong from its first words.
        let shared = text
            .chars()
            .zip(want.chars())
            .take_while(|(a, b)| a == b)
            .count();
        assert!(
            text == want || shared >= 48,
            "batched decoding changed the text from character {shared}:\n{text:?}\n{want:?}"
        );
    }
}
