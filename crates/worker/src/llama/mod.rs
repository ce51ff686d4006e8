//! The `llama` backend: runs a GGUF model in-process with llama.cpp (`llama-cpp-2`).
//!
//! The model is loaded once and shared. Each of the `--concurrency` slots is a thread that owns
//! its own llama.cpp context (KV cache), so jobs never wait on each other's tokens; a job runs
//! on whichever slot is free. A job's conversation is rendered with the GGUF's own chat
//! template ([`template`]), tokenized, decoded, and sampled token by token; each token's text
//! goes through the stop strings and the output parser ([`output`]: reasoning, tool calls)
//! and out as deltas at once. Cancellation is checked before every token.
//!
//! Vision (`--mmproj`, llama.cpp's mtmd) is not built yet: this backend never announces vision.

pub mod output;
pub mod template;

use std::io::Read;
use std::num::NonZeroU32;
use std::path::{Path, PathBuf};
use std::sync::{mpsc as std_mpsc, Arc, Mutex, OnceLock};

use anyhow::Context as _;
use futures::future::BoxFuture;
use llama_cpp_2::context::params::LlamaContextParams;
use llama_cpp_2::context::LlamaContext;
use llama_cpp_2::llama_backend::LlamaBackend;
use llama_cpp_2::llama_batch::LlamaBatch;
use llama_cpp_2::model::params::LlamaModelParams;
use llama_cpp_2::model::LlamaModel;
use llama_cpp_2::sampling::LlamaSampler;
use shoal_protocol::worker::{JobUsage, ServedModel, WorkerKind};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use crate::backend::{Backend, Delta, Job, JobEnd, JobOutput};
use crate::serve::ServeSpec;
use output::OutputParser;
use template::ChatTemplate;

/// Error codes this backend reports.
pub mod code {
    /// The job names a model this worker did not announce.
    pub const MODEL_NOT_SERVED: &str = "model_not_served";
    /// The chat template refused the conversation (e.g. roles it does not support).
    pub const TEMPLATE_ERROR: &str = "template_error";
    /// The prompt does not fit the context.
    pub const CONTEXT_LENGTH_EXCEEDED: &str = "context_length_exceeded";
    /// llama.cpp failed to decode.
    pub const INFERENCE_FAILED: &str = "inference_failed";
    /// The gateway connection went away mid-job.
    pub const DISCONNECTED: &str = "disconnected";
}

/// How to load the model.
#[derive(Debug, Clone)]
pub struct LlamaOptions {
    pub gguf: PathBuf,
    pub mmproj: Option<PathBuf>,
    /// Context length per slot (default: the model's, at most 8192).
    pub ctx: Option<u32>,
    /// CPU threads per slot (default: all cores).
    pub threads: Option<u32>,
    pub concurrency: u32,
    /// Print load progress on stderr.
    pub progress: bool,
}

/// llama.cpp's backend may be initialised once per process.
fn llama_backend() -> anyhow::Result<&'static LlamaBackend> {
    static BACKEND: OnceLock<Result<LlamaBackend, String>> = OnceLock::new();
    BACKEND
        .get_or_init(|| {
            // llama.cpp's own log lines go to tracing (target `llama-cpp-2`), filtered like ours.
            llama_cpp_2::send_logs_to_tracing(llama_cpp_2::LogOptions::default());
            LlamaBackend::init().map_err(|e| e.to_string())
        })
        .as_ref()
        .map_err(|e| anyhow::anyhow!("llama.cpp did not initialise: {e}"))
}

/// Says what is wrong with a file that should be a GGUF, before llama.cpp reads it.
fn check_gguf(path: &Path) -> anyhow::Result<()> {
    let mut file = std::fs::File::open(path).map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => anyhow::anyhow!("--gguf {}: no such file", path.display()),
        _ => anyhow::anyhow!("--gguf {}: cannot be read: {e}", path.display()),
    })?;
    let mut magic = [0u8; 4];
    if file.read_exact(&mut magic).is_err() || &magic != b"GGUF" {
        anyhow::bail!(
            "--gguf {}: not a GGUF file (it does not start with the GGUF magic bytes)",
            path.display()
        );
    }
    Ok(())
}

struct Task {
    prompt: String,
    request: shoal_protocol::worker::JobRequest,
    tools: bool,
    events: mpsc::Sender<Event>,
    cancel: CancellationToken,
}

enum Event {
    Delta(Delta),
    End(JobEnd),
}

/// The embedded llama.cpp backend.
pub struct LlamaCppBackend {
    models: Vec<ServeSpec>,
    template: ChatTemplate,
    tasks: Mutex<std_mpsc::Sender<Task>>,
}

impl LlamaCppBackend {
    /// Loads the model and starts the slots. Blocking (the load can take a while): call it from
    /// a blocking context.
    pub fn load(options: &LlamaOptions, mut models: Vec<ServeSpec>) -> anyhow::Result<Self> {
        if let Some(mmproj) = &options.mmproj {
            anyhow::bail!(
                "--mmproj {}: vision is not supported by this build of the llama backend yet",
                mmproj.display()
            );
        }
        check_gguf(&options.gguf)?;
        let backend = llama_backend()?;
        let mut params = LlamaModelParams::default();
        if options.progress {
            let mut last = -1i32;
            params = params.with_progress_callback(move |p| {
                let pct = (p * 100.0) as i32;
                if pct / 10 != last / 10 || pct == 100 {
                    last = pct;
                    eprint!("\rloading model: {pct:3}%");
                    if pct == 100 {
                        eprintln!();
                    }
                }
                true
            });
        }
        let started = std::time::Instant::now();
        let model = LlamaModel::load_from_file(backend, &options.gguf, &params).map_err(|_| {
            anyhow::anyhow!(
                "--gguf {}: llama.cpp could not load it (truncated, or an architecture or \
                 tensor type this llama.cpp does not know; its log above says which)",
                options.gguf.display()
            )
        })?;
        // The model lives as long as the process: every slot's context borrows it.
        let model: &'static LlamaModel = Box::leak(Box::new(model));

        let vocab = model.vocab();
        let token_text =
            |t| String::from_utf8_lossy(&vocab.token_to_piece(t, true, None)).into_owned();
        let source = model.meta_val_str("tokenizer.chat_template").map_err(|_| {
            anyhow::anyhow!(
                "--gguf {}: the model has no chat template (tokenizer.chat_template)",
                options.gguf.display()
            )
        })?;
        let template =
            ChatTemplate::new(&source, token_text(vocab.bos()), token_text(vocab.eos()))?;

        let n_ctx_train = model.n_ctx_train();
        let n_ctx = options.ctx.unwrap_or_else(|| n_ctx_train.min(8192)).max(64);
        let threads = options
            .threads
            .map(|t| t as i32)
            .unwrap_or_else(|| std::thread::available_parallelism().map_or(4, |n| n.get() as i32));
        for spec in &mut models {
            spec.model.vision = false;
            spec.model.tools &= template.supports_tools;
            spec.model.context_length = Some(spec.model.context_length.unwrap_or(n_ctx).min(n_ctx));
        }

        let (tx, rx) = std_mpsc::channel::<Task>();
        let rx = Arc::new(Mutex::new(rx));
        // Contexts are made one at a time: llama.cpp's context creation touches the model.
        let (ready_tx, ready_rx) = std_mpsc::channel::<Result<(), String>>();
        for slot in 0..options.concurrency {
            let rx = rx.clone();
            let ready = ready_tx.clone();
            std::thread::Builder::new()
                .name(format!("llama-slot-{slot}"))
                .spawn(move || {
                    let params = LlamaContextParams::default()
                        .with_n_ctx(NonZeroU32::new(n_ctx))
                        .with_n_batch(512)
                        .with_n_seq_max(1)
                        .with_n_threads(threads)
                        .with_n_threads_batch(threads);
                    let ctx = match model.new_context(backend, params) {
                        Ok(ctx) => {
                            let _ = ready.send(Ok(()));
                            ctx
                        }
                        Err(e) => {
                            let _ = ready.send(Err(e.to_string()));
                            return;
                        }
                    };
                    slot_loop(model, ctx, &rx);
                })
                .context("starting a llama slot thread")?;
            ready_rx
                .recv()
                .context("a llama slot thread died")?
                .map_err(|e| {
                    anyhow::anyhow!("llama.cpp could not make a context of {n_ctx} tokens: {e}")
                })?;
        }
        tracing::info!(
            gguf = %options.gguf.display(),
            params = model.n_params(),
            n_ctx,
            threads,
            slots = options.concurrency,
            load_ms = started.elapsed().as_millis() as u64,
            models = ?models.iter().map(|s| s.model.id.as_str()).collect::<Vec<_>>(),
            "llama backend ready"
        );
        Ok(Self {
            models,
            template,
            tasks: Mutex::new(tx),
        })
    }

    async fn run(&self, job: Job, out: &mut JobOutput, cancel: CancellationToken) -> JobEnd {
        if !self.models.iter().any(|s| s.model.id == job.model) {
            tracing::warn!(job_id = %job.id, model = %job.model, "job for a model this worker does not serve");
            return JobEnd::Failed {
                code: code::MODEL_NOT_SERVED,
                retryable: true,
            };
        }
        let prompt = match self.template.render(&job.request) {
            Ok(p) => p,
            Err(e) => {
                // The error names template constructs, never message text.
                tracing::warn!(job_id = %job.id, kind = ?e.kind(), "chat template refused the conversation");
                return JobEnd::Failed {
                    code: code::TEMPLATE_ERROR,
                    retryable: false,
                };
            }
        };
        let tools = self.template.supports_tools
            && job.request.tools.as_ref().is_some_and(|t| !t.is_empty());
        let (events, mut rx) = mpsc::channel(64);
        let task = Task {
            prompt,
            request: job.request,
            tools,
            events,
            cancel: cancel.clone(),
        };
        let sent = match self.tasks.lock() {
            Ok(tasks) => tasks.send(task).is_ok(),
            Err(_) => false,
        };
        if !sent {
            return JobEnd::Failed {
                code: code::INFERENCE_FAILED,
                retryable: true,
            };
        }
        while let Some(event) = rx.recv().await {
            match event {
                Event::Delta(d) => {
                    if out.send(d).await.is_err() {
                        cancel.cancel();
                        return JobEnd::Failed {
                            code: code::DISCONNECTED,
                            retryable: false,
                        };
                    }
                }
                Event::End(end) => return end,
            }
        }
        JobEnd::Failed {
            code: code::INFERENCE_FAILED,
            retryable: true,
        }
    }
}

impl Backend for LlamaCppBackend {
    fn kind(&self) -> WorkerKind {
        WorkerKind::Native
    }

    fn models(&self) -> Vec<ServedModel> {
        self.models.iter().map(|s| s.model.clone()).collect()
    }

    fn generate<'a>(
        &'a self,
        job: Job,
        out: &'a mut JobOutput,
        cancel: CancellationToken,
    ) -> BoxFuture<'a, JobEnd> {
        Box::pin(self.run(job, out, cancel))
    }
}

fn slot_loop(
    model: &'static LlamaModel,
    mut ctx: LlamaContext<'static>,
    rx: &Mutex<std_mpsc::Receiver<Task>>,
) {
    loop {
        let task = {
            let Ok(rx) = rx.lock() else { return };
            match rx.recv() {
                Ok(t) => t,
                Err(_) => return,
            }
        };
        let events = task.events.clone();
        let end = generate(model, &mut ctx, task);
        let _ = events.blocking_send(Event::End(end));
    }
}

/// Bytes to text across token boundaries: a character split between tokens waits for its rest.
#[derive(Default)]
struct Utf8Stream {
    pending: Vec<u8>,
}

impl Utf8Stream {
    fn push(&mut self, bytes: &[u8]) -> String {
        self.pending.extend_from_slice(bytes);
        let mut out = String::new();
        loop {
            match std::str::from_utf8(&self.pending) {
                Ok(s) => {
                    out.push_str(s);
                    self.pending.clear();
                    return out;
                }
                Err(e) => {
                    let valid = e.valid_up_to();
                    out.push_str(std::str::from_utf8(&self.pending[..valid]).unwrap_or_default());
                    match e.error_len() {
                        Some(bad) => {
                            out.push(char::REPLACEMENT_CHARACTER);
                            self.pending.drain(..valid + bad);
                        }
                        None => {
                            self.pending.drain(..valid);
                            return out;
                        }
                    }
                }
            }
        }
    }

    fn finish(&mut self) -> String {
        let rest = String::from_utf8_lossy(&self.pending).into_owned();
        self.pending.clear();
        rest
    }
}

/// Stop strings over the generated text: text that may be the start of a stop string is held
/// back until it is known not to be.
struct StopFilter {
    stops: Vec<String>,
    held: String,
}

impl StopFilter {
    fn new(stops: &[String]) -> Self {
        Self {
            stops: stops.iter().filter(|s| !s.is_empty()).cloned().collect(),
            held: String::new(),
        }
    }

    /// Returns the text that may go out, and whether a stop string was met.
    fn push(&mut self, text: &str) -> (String, bool) {
        self.held.push_str(text);
        if let Some(at) = self
            .stops
            .iter()
            .filter_map(|s| self.held.find(s.as_str()))
            .min()
        {
            let out = self.held[..at].to_owned();
            self.held.clear();
            return (out, true);
        }
        let mut keep = 0;
        for s in &self.stops {
            for len in (1..s.len()).rev() {
                if len <= keep {
                    break;
                }
                let h = &self.held;
                if h.len() >= len
                    && h.is_char_boundary(h.len() - len)
                    && s.starts_with(&h[h.len() - len..])
                {
                    keep = len;
                    break;
                }
            }
        }
        let cut = self.held.len() - keep;
        let out = self.held[..cut].to_owned();
        self.held.drain(..cut);
        (out, false)
    }

    fn finish(&mut self) -> String {
        std::mem::take(&mut self.held)
    }
}

/// Runs one job on a slot's context. Blocking.
fn generate(model: &'static LlamaModel, ctx: &mut LlamaContext<'static>, task: Task) -> JobEnd {
    let vocab = model.vocab();
    let request = &task.request;
    ctx.clear_kv_cache();

    let tokens = vocab.tokenize(task.prompt.as_bytes(), vocab.should_add_bos(), true);
    let n_prompt = tokens.len() as u64;
    let n_ctx = ctx.n_ctx() as usize;
    if tokens.is_empty() || tokens.len() >= n_ctx {
        return JobEnd::Failed {
            code: code::CONTEXT_LENGTH_EXCEEDED,
            retryable: false,
        };
    }
    let budget = (request.max_tokens as usize).min(n_ctx - tokens.len());

    let mut usage = JobUsage {
        prompt_tokens: n_prompt,
        completion_tokens: 0,
        reasoning_tokens: 0,
    };
    let send = |delta: Delta| task.events.blocking_send(Event::Delta(delta)).is_ok();

    // The prompt, in batches; logits only for its last token.
    let n_batch = ctx.n_batch() as usize;
    let mut batch = LlamaBatch::new(n_batch.max(1), 1);
    for (chunk_no, chunk) in tokens.chunks(n_batch).enumerate() {
        if task.cancel.is_cancelled() {
            return JobEnd::Done {
                finish_reason: "stop".into(),
                usage,
            };
        }
        batch.clear();
        for (i, t) in chunk.iter().enumerate() {
            let pos = (chunk_no * n_batch + i) as i32;
            let last = chunk_no * n_batch + i == tokens.len() - 1;
            if batch.add(*t, pos, &[0], last).is_err() {
                return JobEnd::Failed {
                    code: code::INFERENCE_FAILED,
                    retryable: true,
                };
            }
        }
        if ctx.decode(&mut batch).is_err() {
            return JobEnd::Failed {
                code: code::INFERENCE_FAILED,
                retryable: true,
            };
        }
    }

    let temperature = request.temperature.unwrap_or(1.0) as f32;
    let top_p = request.top_p.unwrap_or(1.0) as f32;
    let mut sampler = if temperature <= 0.0 {
        LlamaSampler::greedy()
    } else {
        let seed = request
            .seed
            .map(|s| s as u32)
            .unwrap_or_else(rand::random::<u32>);
        let mut chain = Vec::new();
        if top_p < 1.0 {
            chain.push(LlamaSampler::top_p(top_p, 1));
        }
        chain.push(LlamaSampler::temp(temperature));
        chain.push(LlamaSampler::dist(seed));
        LlamaSampler::chain_simple(chain)
    };

    let in_reasoning = task.prompt.trim_end().ends_with("<think>");
    let mut parser = OutputParser::new(task.tools, in_reasoning);
    let empty: [String; 0] = [];
    let mut stops = StopFilter::new(request.stop.as_ref().map_or(&empty[..], |s| s.as_slice()));
    let mut utf8 = Utf8Stream::default();
    let mut piece = Vec::with_capacity(32);
    let mut pos = tokens.len() as i32;
    let mut logits_at = batch.n_tokens() - 1;
    let mut finish = "length";

    while (usage.completion_tokens as usize) < budget {
        if task.cancel.is_cancelled() {
            finish = "stop";
            break;
        }
        let token = sampler.sample(ctx, logits_at);
        if vocab.is_eog(token) {
            finish = "stop";
            break;
        }
        usage.completion_tokens += 1;
        if parser.in_reasoning() {
            usage.reasoning_tokens += 1;
        }
        piece.clear();
        vocab.token_to_piece_into(token, &mut piece, false, None);
        let text = utf8.push(&piece);
        let (text, stopped) = stops.push(&text);
        for d in parser.push(&text) {
            if !send(d) {
                return JobEnd::Failed {
                    code: code::DISCONNECTED,
                    retryable: false,
                };
            }
        }
        if stopped {
            finish = "stop";
            break;
        }
        if (usage.completion_tokens as usize) >= budget {
            break;
        }
        batch.clear();
        if batch.add(token, pos, &[0], true).is_err() || ctx.decode(&mut batch).is_err() {
            return JobEnd::Failed {
                code: code::INFERENCE_FAILED,
                retryable: usage.completion_tokens == 0,
            };
        }
        pos += 1;
        logits_at = 0;
    }
    if finish != "stop" || !task.cancel.is_cancelled() {
        let rest = utf8.finish();
        let (text, _) = stops.push(&rest);
        let mut tail = parser.push(&text);
        tail.extend(parser.push(&stops.finish()));
        tail.extend(parser.finish());
        for d in tail {
            if !send(d) {
                return JobEnd::Failed {
                    code: code::DISCONNECTED,
                    retryable: false,
                };
            }
        }
    }
    if parser.tool_calls() > 0 {
        finish = "tool_calls";
    }
    JobEnd::Done {
        finish_reason: finish.into(),
        usage,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn utf8_split_across_tokens() {
        let mut s = Utf8Stream::default();
        let e = "é".as_bytes();
        assert_eq!(s.push(&e[..1]), "");
        assert_eq!(s.push(&e[1..]), "é");
        assert_eq!(s.push(&[0xff, b'a']), "\u{fffd}a");
        assert_eq!(s.push(&[0xe2]), "");
        assert_eq!(s.finish(), "\u{fffd}");
    }

    #[test]
    fn stop_strings_are_cut_and_held_back() {
        let mut f = StopFilter::new(&["\n\n".into(), "END".into()]);
        assert_eq!(f.push("Hello E"), ("Hello ".into(), false));
        assert_eq!(f.push("N"), (String::new(), false));
        assert_eq!(f.push("X\n"), ("ENX".into(), false));
        assert_eq!(f.push("\nmore"), (String::new(), true));
        let mut f = StopFilter::new(&[]);
        assert_eq!(f.push("abc"), ("abc".into(), false));
    }

    #[test]
    fn bad_files_are_named_not_panicked_on() {
        let dir = std::env::temp_dir().join(format!("shoal-llama-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let missing = dir.join("missing.gguf");
        let err = check_gguf(&missing).unwrap_err().to_string();
        assert!(err.contains("no such file"), "{err}");
        let text = dir.join("model.txt");
        std::fs::write(&text, "hello").unwrap();
        let err = check_gguf(&text).unwrap_err().to_string();
        assert!(err.contains("not a GGUF file"), "{err}");
        // Truncated: the magic is there, the rest is not. llama.cpp refuses it.
        let cut = dir.join("cut.gguf");
        std::fs::write(&cut, b"GGUF\x03\x00\x00\x00\x05").unwrap();
        let options = LlamaOptions {
            gguf: cut.clone(),
            mmproj: None,
            ctx: None,
            threads: Some(1),
            concurrency: 1,
            progress: false,
        };
        let err = LlamaCppBackend::load(&options, vec![])
            .err()
            .unwrap()
            .to_string();
        assert!(err.contains("could not load"), "{err}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
