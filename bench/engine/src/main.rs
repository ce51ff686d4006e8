//! The llama worker's scheduler against llama.cpp's own ceiling through the same libllama.
//!
//! engine-bench --gguf FILE [--rounds 3] [--max-tokens 64] [--threads N]
//!
//! At 1, 2 and 4 concurrent streams, alternating which goes first each round:
//! - harness: one context of N sequences, every step one batch with a token of each, greedy
//!   argmax, nothing else (what llama.cpp's batched example does);
//! - worker: the `--backend llama` engine (`LlamaCppBackend`, `--concurrency 4`), N jobs at
//!   once through its `ChatBackend` interface (no HTTP, no gateway), temperature 0.
//!
//! Both read the same ChatML prompts and stop at end of generation or `--max-tokens`; the
//! figure is aggregate output tokens/s from the first prompt token in to the last token out.
//! Each round's prompts are new, so the worker's prefix cache holds only the template's
//! default system prompt.

use std::num::NonZeroU32;
use std::time::Instant;

use llama_cpp_2::context::params::LlamaContextParams;
use llama_cpp_2::context::LlamaContext;
use llama_cpp_2::llama_batch::LlamaBatch;
use llama_cpp_2::model::params::LlamaModelParams;
use llama_cpp_2::model::LlamaModel;
use llama_cpp_2::sampling::LlamaSampler;
use serde_json::json;
use shoal_protocol::worker::JobRequest;
use shoal_worker::backend::{ChatBackend, Job, JobEnd, JobOutput};
use shoal_worker::llama::{llama_backend, LlamaCppBackend, LlamaOptions};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

const STREAMS: [usize; 3] = [1, 2, 4];
const CTX: u32 = 2048;
const TOPICS: [&str; 8] = [
    "a lighthouse keeper",
    "a lost dog",
    "a baker at dawn",
    "a robot gardener",
    "two rival chess players",
    "a storm at sea",
    "an old library",
    "a mountain village",
];

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let flag = |name: &str| {
        args.iter()
            .position(|a| a == name)
            .and_then(|i| args.get(i + 1).cloned())
    };
    let number =
        |name: &str, default: u64| flag(name).map_or(default, |v| v.parse().expect("a number"));
    let Some(gguf) = flag("--gguf") else {
        eprintln!("usage: engine-bench --gguf FILE [--rounds N] [--max-tokens N] [--threads N]");
        std::process::exit(2);
    };
    let rounds = number("--rounds", 3) as usize;
    let max_tokens = number("--max-tokens", 64) as usize;
    let cores = std::thread::available_parallelism().map_or(2, |n| n.get() as u64);
    let threads = number("--threads", cores) as i32;
    bench(&gguf, rounds, max_tokens, threads);
}

/// The user message of stream `i` at `level` in round `round`: new text each time, so the
/// worker's prefix cache never holds a whole prompt.
fn question(round: usize, level: usize, i: usize) -> String {
    let topic = TOPICS[(round * 4 + i) % TOPICS.len()];
    format!("Story {round}.{level}.{i}: write a long story about {topic}.")
}

/// The prompt SmolLM2's ChatML template renders for `question` (its default system prompt
/// included), for the harness, which renders nothing.
fn chatml(question: &str) -> String {
    format!(
        "<|im_start|>system\nYou are a helpful AI assistant named SmolLM, trained by Hugging \
         Face<|im_end|>\n<|im_start|>user\n{question}<|im_end|>\n<|im_start|>assistant\n"
    )
}

/// Output tokens and seconds of one level.
#[derive(Clone, Copy)]
struct Run {
    tokens: usize,
    seconds: f64,
}

impl Run {
    fn per_second(self) -> f64 {
        self.tokens as f64 / self.seconds
    }
}

fn bench(gguf: &str, rounds: usize, max_tokens: usize, threads: i32) {
    let backend = llama_backend().expect("llama.cpp");
    let model =
        LlamaModel::load_from_file(backend, gguf, &LlamaModelParams::default()).expect("the model");
    let options = LlamaOptions {
        gguf: gguf.into(),
        mmproj: None,
        ctx: Some(CTX),
        threads: Some(threads as u32),
        concurrency: 4,
        progress: false,
    };
    let worker = LlamaCppBackend::load(&options, vec!["bench".parse().expect("a serve spec")])
        .expect("load");
    let rt = tokio::runtime::Runtime::new().expect("a runtime");
    // A context per level, made and warmed up unmeasured, as the worker's is.
    let mut contexts: Vec<LlamaContext> = STREAMS
        .iter()
        .map(|&n| {
            let mut ctx = context(&model, n, threads);
            let hello: Vec<String> = (0..n).map(|_| chatml("Hello")).collect();
            harness(&model, &mut ctx, &hello, 8);
            ctx
        })
        .collect();
    rt.block_on(through_worker(&worker, &["Hello".into()], 8));

    println!(
        "| round | streams | harness tok/s (tokens) | worker tok/s (tokens) | worker ÷ harness |"
    );
    println!("|---|---|---|---|---|");
    let mut ratios: Vec<Vec<f64>> = vec![Vec::new(); STREAMS.len()];
    for round in 0..rounds {
        for (level, &n) in STREAMS.iter().enumerate() {
            let questions: Vec<String> = (0..n).map(|i| question(round, level, i)).collect();
            let prompts: Vec<String> = questions.iter().map(|q| chatml(q)).collect();
            let ctx = &mut contexts[level];
            let mut run_harness = || harness(&model, ctx, &prompts, max_tokens);
            let run_worker = || rt.block_on(through_worker(&worker, &questions, max_tokens));
            let (h, w) = if (round + level) % 2 == 0 {
                let h = run_harness();
                (h, run_worker())
            } else {
                let w = run_worker();
                (run_harness(), w)
            };
            let ratio = w.per_second() / h.per_second();
            ratios[level].push(ratio);
            println!(
                "| {} | {n} | {:.1} ({}) | {:.1} ({}) | {ratio:.3} |",
                round + 1,
                h.per_second(),
                h.tokens,
                w.per_second(),
                w.tokens
            );
        }
    }
    println!();
    for (level, &n) in STREAMS.iter().enumerate() {
        let r = &mut ratios[level];
        r.sort_by(f64::total_cmp);
        println!(
            "{n} streams: worker ÷ harness median {:.3} (min {:.3}, max {:.3})",
            r[r.len() / 2],
            r[0],
            r[r.len() - 1]
        );
    }
}

/// A context of `n` sequences, as the worker makes its own.
fn context(model: &LlamaModel, n: usize, threads: i32) -> LlamaContext<'_> {
    let params = LlamaContextParams::default()
        .with_n_ctx(NonZeroU32::new(CTX * n as u32))
        .with_n_batch(512)
        .with_n_ubatch(512)
        .with_n_seq_max(n as u32)
        .with_kv_unified(false)
        .with_n_threads(threads)
        .with_n_threads_batch(threads);
    let backend = llama_backend().expect("llama.cpp");
    model.new_context(backend, params).expect("a context")
}

/// llama.cpp's batched decode: one context, a sequence per prompt, one batch per step.
fn harness(
    model: &LlamaModel,
    ctx: &mut LlamaContext,
    prompts: &[String],
    max_tokens: usize,
) -> Run {
    let n = prompts.len();
    ctx.clear_kv_cache();
    let started = Instant::now();
    let vocab = model.vocab();
    let mut batch = LlamaBatch::new(512, 1);
    let mut rows = vec![None; n];
    let mut pos = vec![0i32; n];
    for (seq, prompt) in prompts.iter().enumerate() {
        let tokens = vocab.tokenize(prompt.as_bytes(), vocab.should_add_bos(), true);
        for (i, &t) in tokens.iter().enumerate() {
            let last = i + 1 == tokens.len();
            batch
                .add(t, i as i32, &[seq as i32], last)
                .expect("room in the batch");
        }
        rows[seq] = Some(batch.n_tokens() - 1);
        pos[seq] = tokens.len() as i32;
    }
    ctx.decode(&mut batch).expect("decode");
    let mut samplers: Vec<LlamaSampler> = (0..n).map(|_| LlamaSampler::greedy()).collect();
    let mut produced = vec![0usize; n];
    loop {
        batch.clear();
        let mut next_rows = vec![None; n];
        for seq in 0..n {
            let Some(row) = rows[seq] else { continue };
            let token = samplers[seq].sample(ctx, row);
            if vocab.is_eog(token) {
                continue;
            }
            produced[seq] += 1;
            if produced[seq] >= max_tokens {
                continue;
            }
            batch
                .add(token, pos[seq], &[seq as i32], true)
                .expect("room in the batch");
            pos[seq] += 1;
            next_rows[seq] = Some(batch.n_tokens() - 1);
        }
        if batch.n_tokens() == 0 {
            break;
        }
        ctx.decode(&mut batch).expect("decode");
        rows = next_rows;
    }
    Run {
        tokens: produced.iter().sum(),
        seconds: started.elapsed().as_secs_f64(),
    }
}

/// The worker's engine: every question a job, all at once.
async fn through_worker(worker: &LlamaCppBackend, questions: &[String], max_tokens: usize) -> Run {
    let started = Instant::now();
    let jobs = questions.iter().map(|q| one_job(worker, q, max_tokens));
    let tokens = futures::future::join_all(jobs).await.into_iter().sum();
    Run {
        tokens,
        seconds: started.elapsed().as_secs_f64(),
    }
}

/// One job at temperature 0: its completion tokens.
async fn one_job(worker: &LlamaCppBackend, question: &str, max_tokens: usize) -> usize {
    let request: JobRequest = serde_json::from_value(json!({
        "messages": [{"role": "user", "content": question}],
        "max_tokens": max_tokens,
        "temperature": 0,
    }))
    .expect("a request");
    let (tx, mut rx) = mpsc::channel(4096);
    let drain = tokio::spawn(async move { while rx.recv().await.is_some() {} });
    let mut out = JobOutput::new("bench".into(), tx);
    let job = Job {
        id: "bench".into(),
        model: "bench".into(),
        request,
    };
    let end = worker
        .generate(job, &mut out, CancellationToken::new())
        .await;
    drop(out);
    let _ = drain.await;
    match end {
        JobEnd::Done { usage, .. } => usage.completion_tokens as usize,
        other => panic!("the job failed: {other:?}"),
    }
}
