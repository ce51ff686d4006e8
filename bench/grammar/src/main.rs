//! What structured outputs cost on the embedded llama.cpp backend.
//!
//! ```text
//! grammar-bench build    [--reps 2000] [--gguf FILE]
//! grammar-bench generate --gguf FILE [--rounds 5] [--max-tokens 200] [--threads 2]
//! ```
//!
//! `build` times [`grammar::plan`] (schema → GBNF, what the worker does per job) on a
//! 50-property schema, and with `--gguf` llama.cpp's parse of that grammar into its sampler
//! (the other half of a job's set-up). `generate` runs the llama backend in-process on a real
//! model and alternates a free request and a `json_schema` one with the same prompt, round
//! after round, so that drift on a shared machine hits both alike; tokens/s is counted over
//! the decode alone (first content delta → job end, one token less), and the ratio is taken
//! per round. Both print a Markdown table.

use std::time::{Duration, Instant};

use serde_json::{json, Value};
use shoal_protocol::worker::{JobRequest, WorkerMessage};
use shoal_worker::backend::{ChatBackend, Job, JobEnd, JobOutput};
use shoal_worker::llama::grammar::{self, ModelTraits, ToolFormat};
use shoal_worker::llama::{LlamaCppBackend, LlamaOptions};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let flag = |name: &str| {
        args.iter()
            .position(|a| a == name)
            .and_then(|i| args.get(i + 1))
            .cloned()
    };
    let number = |name: &str, default: u64| {
        flag(name).map_or(default, |v| {
            v.parse()
                .unwrap_or_else(|_| panic!("{name} takes a number"))
        })
    };
    match args.first().map(String::as_str) {
        Some("build") => build(number("--reps", 2000) as usize, flag("--gguf")),
        Some("generate") => {
            let gguf = flag("--gguf").expect("generate needs --gguf FILE");
            generate(
                &gguf,
                number("--rounds", 5) as usize,
                number("--max-tokens", 200) as u32,
                number("--threads", 2) as u32,
            );
        }
        _ => eprintln!("usage: grammar-bench build [--reps N] [--gguf FILE] | generate --gguf FILE [--rounds N] [--max-tokens N] [--threads N]"),
    }
}

/// A 50-property object of the kinds agent frameworks write: bounded strings, ranged
/// integers, enums, nullable numbers, arrays; every other one required.
fn fifty_properties() -> Value {
    let mut properties = serde_json::Map::new();
    for i in 0..50 {
        let schema = match i % 5 {
            0 => json!({"type": "string", "maxLength": 40}),
            1 => json!({"type": "integer", "minimum": 0, "maximum": 100000}),
            2 => json!({"enum": ["low", "medium", "high"]}),
            3 => json!({"type": ["number", "null"]}),
            _ => json!({"type": "array", "items": {"type": "string"}, "maxItems": 8}),
        };
        properties.insert(format!("field_{i}"), schema);
    }
    let required: Vec<String> = (0..50).step_by(2).map(|i| format!("field_{i}")).collect();
    json!({"type": "object", "properties": properties, "required": required,
           "additionalProperties": false})
}

fn request(messages: &str, format: Option<Value>, max_tokens: u32) -> JobRequest {
    let mut body = json!({"messages": [{"role": "user", "content": messages}],
                          "max_tokens": max_tokens, "temperature": 0});
    if let Some(schema) = format {
        body["response_format"] = json!({"type": "json_schema",
            "json_schema": {"name": "out", "strict": true, "schema": schema}});
    }
    serde_json::from_value(body).expect("a job request")
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    sorted[((sorted.len() - 1) as f64 * p).round() as usize]
}

fn build(reps: usize, gguf: Option<String>) {
    let job = request("x", Some(fifty_properties()), 16);
    let traits = ModelTraits {
        tool_format: ToolFormat::Hermes,
        supports_tools: true,
        thinks: false,
    };
    let once = || grammar::plan(&job, traits, "").expect("a plan");
    for _ in 0..reps / 10 {
        std::hint::black_box(once());
    }
    let mut times: Vec<Duration> = (0..reps)
        .map(|_| {
            let t = Instant::now();
            std::hint::black_box(once());
            t.elapsed()
        })
        .collect();
    times.sort();
    let gbnf = once().grammar.expect("a grammar").gbnf;
    println!("| step | median | p90 | min | reps |\n|---|---|---|---|---|");
    let row = |name: &str, t: &[Duration]| {
        println!(
            "| {name} | {:.1} µs | {:.1} µs | {:.1} µs | {} |",
            micros(percentile(t, 0.5)),
            micros(percentile(t, 0.9)),
            micros(t[0]),
            t.len()
        )
    };
    row("schema → GBNF (`grammar::plan`)", &times);
    if let Some(gguf) = gguf {
        row(
            "GBNF → llama.cpp sampler",
            &llama_parse(&gguf, &gbnf, reps.min(500)),
        );
    }
    println!(
        "\ngrammar: {} bytes, {} rules",
        gbnf.len(),
        gbnf.lines().count()
    );
}

/// llama.cpp's time to parse `gbnf` into a grammar sampler for the model's vocabulary.
fn llama_parse(gguf: &str, gbnf: &str, reps: usize) -> Vec<Duration> {
    use llama_cpp_2::llama_backend::LlamaBackend;
    use llama_cpp_2::model::params::LlamaModelParams;
    use llama_cpp_2::model::LlamaModel;
    let mut backend = LlamaBackend::init().expect("llama.cpp");
    backend.void_logs();
    let params = LlamaModelParams::default().with_vocab_only(true);
    let model = LlamaModel::load_from_file(&backend, gguf, &params).expect("the model");
    let g = grammar::JobGrammar {
        gbnf: gbnf.to_owned(),
        trigger: None,
        json_answer: true,
    };
    let mut times: Vec<Duration> = (0..reps)
        .map(|_| {
            let t = Instant::now();
            std::hint::black_box(grammar::sampler(&model, &g).expect("llama.cpp takes it"));
            t.elapsed()
        })
        .collect();
    times.sort();
    times
}

fn micros(d: Duration) -> f64 {
    d.as_secs_f64() * 1e6
}

/// A job's decode speed: tokens after the first, over the time from the first content delta
/// to the end.
struct Run {
    tokens: u64,
    per_second: f64,
}

async fn run(backend: &LlamaCppBackend, request: JobRequest) -> Run {
    let (tx, mut rx) = mpsc::channel(8192);
    let mut out = JobOutput::new("bench".into(), tx);
    let job = Job {
        id: "bench".into(),
        model: "bench".into(),
        request,
    };
    let collect = tokio::spawn(async move {
        let mut first = None;
        while let Some(msg) = rx.recv().await {
            if matches!(msg, WorkerMessage::Delta { .. }) && first.is_none() {
                first = Some(Instant::now());
            }
        }
        first
    });
    let end = backend
        .generate(job, &mut out, CancellationToken::new())
        .await;
    let ended = Instant::now();
    drop(out);
    let first = collect.await.expect("collector").expect("some output");
    let JobEnd::Done { usage, .. } = end else {
        panic!("the job failed: {end:?}")
    };
    let tokens = usage.completion_tokens;
    Run {
        tokens,
        per_second: tokens.saturating_sub(1) as f64 / (ended - first).as_secs_f64(),
    }
}

fn generate(gguf: &str, rounds: usize, max_tokens: u32, threads: u32) {
    let options = LlamaOptions {
        gguf: gguf.into(),
        mmproj: None,
        ctx: Some(2048),
        threads: Some(threads),
        concurrency: 1,
        progress: false,
    };
    let backend = LlamaCppBackend::load(&options, vec!["bench".parse().expect("a serve spec")])
        .expect("load");
    let prompt = "List the fruits you know, with their colour and a short note on each.";
    let schema = json!({"type": "object", "properties": {"fruits": {"type": "array", "items": {
        "type": "object", "properties": {"name": {"type": "string", "maxLength": 40},
        "colour": {"type": "string", "maxLength": 20}, "note": {"type": "string", "maxLength": 200}},
        "required": ["name", "colour", "note"], "additionalProperties": false}}},
        "required": ["fruits"], "additionalProperties": false});
    let rt = tokio::runtime::Runtime::new().expect("a runtime");
    // A warm-up of each, unmeasured.
    rt.block_on(run(&backend, request(prompt, None, 16)));
    rt.block_on(run(&backend, request(prompt, Some(schema.clone()), 16)));
    println!(
        "| round | free tok/s (tokens) | json_schema tok/s (tokens) | ratio |\n|---|---|---|---|"
    );
    let mut ratios = Vec::new();
    for round in 0..rounds {
        let free = || rt.block_on(run(&backend, request(prompt, None, max_tokens)));
        let constrained = || {
            rt.block_on(run(
                &backend,
                request(prompt, Some(schema.clone()), max_tokens),
            ))
        };
        // Alternate which goes first.
        let (f, c) = if round % 2 == 0 {
            let f = free();
            (f, constrained())
        } else {
            let c = constrained();
            (free(), c)
        };
        let ratio = c.per_second / f.per_second;
        ratios.push(ratio);
        println!(
            "| {} | {:.1} ({}) | {:.1} ({}) | {:.3} |",
            round + 1,
            f.per_second,
            f.tokens,
            c.per_second,
            c.tokens,
            ratio
        );
    }
    ratios.sort_by(f64::total_cmp);
    println!(
        "\nmedian ratio (json_schema ÷ free): {:.3}",
        ratios[ratios.len() / 2]
    );
}
