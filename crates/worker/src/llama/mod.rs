//! The `llama` backend: runs a GGUF model in-process with llama.cpp (`llama-cpp-2`).
//!
//! The model is loaded once, with one llama.cpp context whose KV cache holds one sequence per
//! `--concurrency` slot; [`engine`] decodes all running jobs in shared batches and keeps each
//! slot's cache for the next job that shares its prefix. A job's conversation is rendered with
//! the GGUF's own chat template ([`template`]), tokenized, decoded, and sampled token by token;
//! each token's text goes through the stop strings and the output parser ([`output`]:
//! reasoning, tool calls) and out as deltas at once. Cancellation is checked before every
//! token.
//!
//! A grammar ([`grammar::plan`]) constrains sampling where the request asks for a shape: a
//! forced `tool_choice` (the reply is calls of the right functions), a `response_format`
//! `json_object` / `json_schema` (the reply is that JSON), a `strict` tool (its calls follow
//! its schema); `tool_choice` `none` leaves the tools out of the prompt and the output
//! unparsed.
//!
//! Vision: with `--mmproj` (a multimodal projector GGUF) llama.cpp's mtmd encodes the images of
//! a conversation; they take the place of their parts in the prompt, and their tokens count as
//! prompt tokens. Only then does the backend announce vision.

mod engine;
pub mod grammar;
mod log;
pub mod output;
pub mod template;
pub mod test_model;

use std::ffi::CString;
use std::io::Read;
use std::num::NonZeroU32;
use std::path::{Path, PathBuf};
use std::sync::{mpsc as std_mpsc, Arc, Mutex, OnceLock};

use anyhow::Context as _;
use futures::future::BoxFuture;
use llama_cpp_2::context::params::LlamaContextParams;
use llama_cpp_2::context::LlamaContext;
use llama_cpp_2::llama_backend::LlamaBackend;
use llama_cpp_2::model::params::LlamaModelParams;
use llama_cpp_2::model::LlamaModel;
use llama_cpp_2::mtmd::{MtmdBitmap, MtmdContext, MtmdContextParams, MtmdInputText};
use llama_cpp_2::sampling::LlamaSampler;
use shoal_protocol::chat::PartRef;
use shoal_protocol::worker::{ErrorCode, FinishReason, JobUsage, ServedModel, WorkerKind};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use crate::backend::{ChatBackend, Delta, Job, JobEnd, JobOutput};
use crate::serve::ServeSpec;
use grammar::JobGrammar;
use output::OutputParser;
use template::ChatTemplate;

/// How to load the model.
#[derive(Debug, Clone)]
pub struct LlamaOptions {
    pub gguf: PathBuf,
    pub mmproj: Option<PathBuf>,
    /// Context length per slot (default: the model's, at most 8192).
    pub ctx: Option<u32>,
    /// CPU threads of the engine (default: all cores).
    pub threads: Option<u32>,
    pub concurrency: u32,
    /// Print load progress on stderr.
    pub progress: bool,
}

/// llama.cpp's backend may be initialised once per process: the worker's, and a bench's
/// beside it, share this one.
pub fn llama_backend() -> anyhow::Result<&'static LlamaBackend> {
    static BACKEND: OnceLock<Result<LlamaBackend, String>> = OnceLock::new();
    BACKEND
        .get_or_init(|| {
            // llama.cpp's own log lines go to tracing, one level down (`log`).
            log::install();
            LlamaBackend::init().map_err(|e| e.to_string())
        })
        .as_ref()
        .map_err(|e| anyhow::anyhow!("llama.cpp did not initialise: {e}"))
}

/// Says what is wrong with a file that should be a GGUF (given as `flag`), before llama.cpp
/// reads it.
fn check_gguf(flag: &str, path: &Path) -> anyhow::Result<()> {
    let mut file = std::fs::File::open(path).map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => anyhow::anyhow!("{flag} {}: no such file", path.display()),
        _ => anyhow::anyhow!("{flag} {}: cannot be read: {e}", path.display()),
    })?;
    let mut magic = [0u8; 4];
    if file.read_exact(&mut magic).is_err() || &magic != b"GGUF" {
        anyhow::bail!(
            "{flag} {}: not a GGUF file (it does not start with the GGUF magic bytes)",
            path.display()
        );
    }
    Ok(())
}

/// The multimodal projector, shared by the slots. Encoding is not thread-safe in mtmd: a slot
/// holds the lock while its prompt's chunks are evaluated.
struct Vision {
    ctx: Mutex<MtmdContext>,
    /// Stands for an image in the rendered prompt. Random per process, so that no text a
    /// client sends can pass for an image.
    marker: String,
}

/// Loads `--mmproj` for `model`.
fn load_projector(path: &Path, model: &LlamaModel, threads: i32) -> anyhow::Result<Vision> {
    check_gguf("--mmproj", path)?;
    let shown = path.display();
    let marker = format!("<__shoal_media_{:016x}__>", rand::random::<u64>());
    let params = MtmdContextParams {
        print_timings: false,
        n_threads: threads,
        media_marker: CString::new(marker.clone())?,
        ..MtmdContextParams::default()
    };
    let path_text = path
        .to_str()
        .ok_or_else(|| anyhow::anyhow!("--mmproj {shown}: the path is not valid UTF-8"))?;
    let ctx = MtmdContext::init_from_file(path_text, model, &params).map_err(|_| {
        anyhow::anyhow!(
            "--mmproj {shown}: llama.cpp could not load it as a multimodal projector for this \
             model (not a projector, a projector type this llama.cpp does not know, or one made \
             for a model of another size; its log above says which)"
        )
    })?;
    if !ctx.support_vision() {
        anyhow::bail!("--mmproj {shown}: the projector has no vision encoder");
    }
    Ok(Vision {
        ctx: Mutex::new(ctx),
        marker,
    })
}

/// The bytes of a `data:image/…;base64,…` URL (the gateway lets no other kind through).
fn data_url_bytes(url: &str) -> Option<Vec<u8>> {
    use base64::Engine as _;
    const ENGINE: base64::engine::GeneralPurpose = base64::engine::GeneralPurpose::new(
        &base64::alphabet::STANDARD,
        base64::engine::GeneralPurposeConfig::new()
            .with_decode_padding_mode(base64::engine::DecodePaddingMode::Indifferent),
    );
    let rest = url
        .get(..5)?
        .eq_ignore_ascii_case("data:")
        .then(|| &url[5..])?;
    let (meta, payload) = rest.split_once(',')?;
    if !meta.to_ascii_lowercase().ends_with(";base64") {
        return None;
    }
    ENGINE.decode(payload).ok()
}

struct Task {
    /// For the slot's log lines.
    job_id: String,
    prompt: String,
    request: shoal_protocol::worker::JobRequest,
    /// Whether the output is parsed for tool calls.
    tools: bool,
    /// The grammar sampling must follow.
    grammar: Option<JobGrammar>,
    /// The conversation's images, in prompt order (each is a marker in `prompt`).
    images: Vec<Vec<u8>>,
    /// Unbounded: the engine never waits on one job's reader.
    events: mpsc::UnboundedSender<Event>,
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
    vision: Option<Arc<Vision>>,
    tasks: mpsc::Sender<Task>,
}

impl LlamaCppBackend {
    /// Loads the model and starts the slots. Blocking (the load can take a while): call it from
    /// a blocking context.
    pub fn load(options: &LlamaOptions, mut models: Vec<ServeSpec>) -> anyhow::Result<Self> {
        check_gguf("--gguf", &options.gguf)?;
        if let Some(mmproj) = &options.mmproj {
            // Before the (possibly long) model load: a wrong path fails at once.
            check_gguf("--mmproj", mmproj)?;
        }
        let backend = llama_backend()?;
        let started = std::time::Instant::now();
        let model = load_model(backend, options)?;
        let template = chat_template(model, &options.gguf)?;
        let n_ctx = options
            .ctx
            .unwrap_or_else(|| model.n_ctx_train().min(8192))
            .max(64);
        let threads = options
            .threads
            .map(|t| t as i32)
            .unwrap_or_else(|| std::thread::available_parallelism().map_or(4, |n| n.get() as i32));
        let vision = match &options.mmproj {
            Some(path) => Some(Arc::new(load_projector(path, model, threads)?)),
            None => None,
        };
        fit_models(
            &mut models,
            vision.is_some(),
            template.supports_tools,
            n_ctx,
        );
        let tx = start_engine(
            backend,
            model,
            vision.clone(),
            n_ctx,
            threads,
            options.concurrency,
        )?;
        tracing::info!(
            gguf = %options.gguf.display(),
            mmproj = ?options.mmproj.as_ref().map(|p| p.display().to_string()),
            params = model.n_params(),
            n_ctx,
            threads,
            slots = options.concurrency,
            kv_mib_per_slot = kv_bytes_per_slot(model, n_ctx) >> 20,
            load_ms = started.elapsed().as_millis() as u64,
            models = ?models.iter().map(|s| s.model.id.as_str()).collect::<Vec<_>>(),
            "llama backend ready"
        );
        Ok(Self {
            models,
            template,
            vision,
            tasks: tx,
        })
    }

    async fn run(&self, job: Job, out: &mut JobOutput, cancel: CancellationToken) -> JobEnd {
        let (events, rx) = mpsc::unbounded_channel();
        let task = match self.task(job, events, cancel.clone()) {
            Ok(task) => task,
            Err(end) => return end,
        };
        if self.tasks.send(task).await.is_err() {
            return failed(ErrorCode::InferenceFailed, true);
        }
        forward(rx, out, &cancel).await
    }

    /// The slot's task for `job`: its images, its prompt, its grammar. A job this worker
    /// cannot run ends here.
    fn task(
        &self,
        job: Job,
        events: mpsc::UnboundedSender<Event>,
        cancel: CancellationToken,
    ) -> Result<Task, JobEnd> {
        if !self.models.iter().any(|s| s.model.id == job.model) {
            tracing::warn!(job_id = %job.id, model = %job.model, "job for a model this worker does not serve");
            return Err(failed(ErrorCode::ModelNotServed, true));
        }
        let images = self.images(&job)?;
        let prompt = self.prompt(&job, images.len())?;
        let Ok(grammar::Plan { tools, grammar }) =
            grammar::plan(&job.request, self.template.traits(), &prompt)
        else {
            tracing::warn!(job_id = %job.id, "a schema outside the enforced subset");
            return Err(failed(ErrorCode::InvalidRequest, false));
        };
        Ok(Task {
            job_id: job.id,
            prompt,
            request: job.request,
            tools,
            grammar,
            images,
            events,
            cancel,
        })
    }

    /// The bytes of the conversation's images, in order.
    fn images(&self, job: &Job) -> Result<Vec<Vec<u8>>, JobEnd> {
        let images: Vec<&str> = job
            .request
            .messages
            .iter()
            .filter_map(|m| m.content.as_ref())
            .flat_map(|c| c.parts())
            .filter_map(|p| match p {
                PartRef::Image(image) => Some(image.url.as_str()),
                PartRef::Text(_) => None,
            })
            .collect();
        if !images.is_empty() && self.vision.is_none() {
            tracing::warn!(job_id = %job.id, "job with images, and this worker has no --mmproj");
            return Err(failed(ErrorCode::VisionUnsupported, true));
        }
        images
            .iter()
            .map(|url| data_url_bytes(url))
            .collect::<Option<Vec<_>>>()
            .ok_or_else(|| {
                tracing::warn!(job_id = %job.id, "an image is not a base64 data URL");
                failed(ErrorCode::InvalidRequest, false)
            })
    }

    /// The conversation rendered with the chat template, a marker in place of each of its
    /// `n_images` images.
    fn prompt(&self, job: &Job, n_images: usize) -> Result<String, JobEnd> {
        let marker = self.vision.as_ref().map(|v| v.marker.as_str());
        let prompt = self.template.render(&job.request, marker).map_err(|e| {
            // The error names template constructs, never message text.
            tracing::warn!(job_id = %job.id, kind = ?e.kind(), "chat template refused the conversation");
            failed(ErrorCode::TemplateError, false)
        })?;
        // A template may drop or repeat messages: the images go in the order their markers
        // are in, and there must be one marker for each.
        if let Some(marker) = marker {
            if prompt.matches(marker).count() != n_images {
                tracing::warn!(job_id = %job.id, "the chat template did not keep every image in place");
                return Err(failed(ErrorCode::TemplateError, false));
            }
        }
        Ok(prompt)
    }
}

/// Passes a slot's deltas on until its end; a client that is gone cancels the job.
async fn forward(
    mut rx: mpsc::UnboundedReceiver<Event>,
    out: &mut JobOutput,
    cancel: &CancellationToken,
) -> JobEnd {
    while let Some(event) = rx.recv().await {
        match event {
            Event::Delta(d) => {
                if out.send(d).await.is_err() {
                    cancel.cancel();
                    return failed(ErrorCode::Disconnected, false);
                }
            }
            Event::End(end) => return end,
        }
    }
    failed(ErrorCode::InferenceFailed, true)
}

/// Loads `--gguf`. The model lives as long as the process: every slot's context borrows it.
fn load_model(
    backend: &LlamaBackend,
    options: &LlamaOptions,
) -> anyhow::Result<&'static LlamaModel> {
    let params = model_params(options.progress);
    let model = LlamaModel::load_from_file(backend, &options.gguf, &params).map_err(|_| {
        anyhow::anyhow!(
            "--gguf {}: llama.cpp could not load it (truncated, or an architecture or \
             tensor type this llama.cpp does not know; its log above says which)",
            options.gguf.display()
        )
    })?;
    Ok(Box::leak(Box::new(model)))
}

/// The model's load parameters; with `progress`, the load's progress on stderr by tenths.
fn model_params(progress: bool) -> LlamaModelParams {
    let params = LlamaModelParams::default();
    if !progress {
        return params;
    }
    let mut last = -1i32;
    params.with_progress_callback(move |p| {
        let pct = (p * 100.0) as i32;
        if pct / 10 != last / 10 || pct == 100 {
            last = pct;
            eprint!("\rloading model: {pct:3}%");
            if pct == 100 {
                eprintln!();
            }
        }
        true
    })
}

/// The GGUF's own chat template (`tokenizer.chat_template`).
fn chat_template(model: &LlamaModel, gguf: &Path) -> anyhow::Result<ChatTemplate> {
    let vocab = model.vocab();
    let token_text = |t| String::from_utf8_lossy(&vocab.token_to_piece(t, true, None)).into_owned();
    let source = model.meta_val_str("tokenizer.chat_template").map_err(|_| {
        anyhow::anyhow!(
            "--gguf {}: the model has no chat template (tokenizer.chat_template)",
            gguf.display()
        )
    })?;
    ChatTemplate::new(&source, token_text(vocab.bos()), token_text(vocab.eos()))
}

/// What every served id offers on this model.
fn fit_models(models: &mut [ServeSpec], vision: bool, template_tools: bool, n_ctx: u32) {
    for spec in models {
        // Images need the projector; with one, every served id takes them.
        spec.model.vision = vision;
        spec.model.tools &= template_tools;
        // Every job's grammar comes from `grammar::plan`.
        spec.model.structured_outputs = true;
        spec.model.context_length = Some(spec.model.context_length.unwrap_or(n_ctx).min(n_ctx));
    }
}

/// Starts the engine's thread with one context of `concurrency` sequences of `n_ctx` tokens
/// each, and returns the sender that hands it tasks (bounded: a caller waits while the queue
/// is full).
fn start_engine(
    backend: &'static LlamaBackend,
    model: &'static LlamaModel,
    vision: Option<Arc<Vision>>,
    n_ctx: u32,
    threads: i32,
    concurrency: u32,
) -> anyhow::Result<mpsc::Sender<Task>> {
    let (tx, rx) = mpsc::channel::<Task>(concurrency as usize);
    let (ready_tx, ready_rx) = std_mpsc::channel::<Result<(), String>>();
    let total = n_ctx.saturating_mul(concurrency);
    let n_batch = engine::n_batch(concurrency) as u32;
    std::thread::Builder::new()
        .name("llama-engine".into())
        .spawn(move || {
            let params = LlamaContextParams::default()
                .with_n_ctx(NonZeroU32::new(total))
                .with_n_batch(n_batch)
                .with_n_ubatch(n_batch)
                .with_n_seq_max(concurrency)
                .with_kv_unified(false)
                .with_n_threads(threads)
                .with_n_threads_batch(threads);
            match model.new_context(backend, params) {
                Ok(ctx) => {
                    let _ = ready_tx.send(Ok(()));
                    engine::Engine::new(model, ctx, vision, concurrency, n_ctx as usize).run(rx);
                }
                Err(e) => {
                    let _ = ready_tx.send(Err(e.to_string()));
                }
            }
        })
        .context("starting the llama engine thread")?;
    ready_rx
        .recv()
        .context("the llama engine thread died")?
        .map_err(|e| {
            anyhow::anyhow!(
                "llama.cpp could not make a context of {concurrency} sequences of {n_ctx} tokens: {e}"
            )
        })?;
    Ok(tx)
}

/// The bytes of one slot's KV cache: keys and values (f16) of every layer for `n_ctx` tokens.
fn kv_bytes_per_slot(model: &LlamaModel, n_ctx: u32) -> u64 {
    let n_head = u64::from(model.n_head().max(1));
    let n_embd_kv = model.n_embd() as u64 / n_head * u64::from(model.n_head_kv());
    u64::from(model.n_layer()) * 2 * n_embd_kv * 2 * u64::from(n_ctx)
}

impl ChatBackend for LlamaCppBackend {
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

/// Bytes to text across token boundaries: a character split between tokens waits for its rest.
#[derive(Default)]
pub(crate) struct Utf8Stream {
    pending: Vec<u8>,
}

impl Utf8Stream {
    pub(crate) fn push(&mut self, bytes: &[u8]) -> String {
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

    pub(crate) fn finish(&mut self) -> String {
        let rest = String::from_utf8_lossy(&self.pending).into_owned();
        self.pending.clear();
        rest
    }
}

/// Stop strings over the generated text: text that may be the start of a stop string is held
/// back until it is known not to be.
pub(crate) struct StopFilter {
    stops: Vec<String>,
    held: String,
}

impl StopFilter {
    pub(crate) fn new(stops: &[String]) -> Self {
        Self {
            stops: stops.iter().filter(|s| !s.is_empty()).cloned().collect(),
            held: String::new(),
        }
    }

    /// Returns the text that may go out, and whether a stop string was met.
    pub(crate) fn push(&mut self, text: &str) -> (String, bool) {
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

    pub(crate) fn finish(&mut self) -> String {
        std::mem::take(&mut self.held)
    }
}

/// How a prompt went into the context.
struct Evaluated {
    /// Prompt tokens, image tokens included.
    n_prompt: usize,
    /// The position of the next token.
    pos: i32,
    /// The output row holding the last prompt token's logits.
    logits_at: i32,
}

fn failed(code: ErrorCode, retryable: bool) -> JobEnd {
    JobEnd::Failed { code, retryable }
}

/// Cancelled while the prompt was read: the prompt counts, nothing was generated.
fn cancelled(n_prompt: usize) -> JobEnd {
    JobEnd::Done {
        finish_reason: FinishReason::Stop,
        usage: JobUsage {
            prompt_tokens: n_prompt as u64,
            ..JobUsage::default()
        },
    }
}

/// Decodes a prompt with images through mtmd: text chunks are decoded, image chunks encoded
/// by the projector and their embeddings decoded.
fn eval_multimodal(
    model: &'static LlamaModel,
    ctx: &mut LlamaContext<'static>,
    n_ctx: usize,
    vision: &Vision,
    task: &Task,
    seq: i32,
) -> Result<Evaluated, JobEnd> {
    let mtmd = vision.ctx.lock().unwrap_or_else(|p| p.into_inner());
    let mut bitmaps = Vec::with_capacity(task.images.len());
    for image in &task.images {
        match MtmdBitmap::from_buffer(&mtmd, image, false) {
            Ok(b) => bitmaps.push(b),
            Err(_) => return Err(failed(ErrorCode::InvalidRequest, false)),
        }
    }
    let text = MtmdInputText {
        text: task.prompt.clone(),
        add_special: model.vocab().should_add_bos(),
        parse_special: true,
    };
    let refs: Vec<&MtmdBitmap> = bitmaps.iter().collect();
    let chunks = match mtmd.tokenize(text, &refs) {
        Ok(c) => c,
        Err(llama_cpp_2::mtmd::MtmdTokenizeError::ImagePreprocessingError) => {
            return Err(failed(ErrorCode::InvalidRequest, false))
        }
        Err(_) => return Err(failed(ErrorCode::InferenceFailed, false)),
    };
    drop(bitmaps);
    let n_prompt = chunks.total_tokens();
    if n_prompt == 0 || n_prompt >= n_ctx {
        return Err(failed(ErrorCode::ContextLengthExceeded, false));
    }
    if task.cancel.is_cancelled() {
        return Err(cancelled(n_prompt));
    }
    let mut mtmd = mtmd;
    let n_batch = ctx.n_batch() as i32;
    let pos = chunks
        .eval_chunks(&mut mtmd, ctx, 0, seq, n_batch, true)
        .map_err(|_| failed(ErrorCode::InferenceFailed, true))?;
    Ok(Evaluated {
        n_prompt,
        pos,
        // The last output row: the prompt ends with text, whose last token has logits.
        logits_at: -1,
    })
}

/// The job's sampling: greedy at temperature 0, else top-p, temperature and a (seeded) draw;
/// the job's grammar, if any, over that. `None`: llama.cpp refused the grammar.
fn job_sampler(model: &'static LlamaModel, task: &Task) -> Option<grammar::GuidedSampler> {
    let request = &task.request;
    let temperature = request.temperature.unwrap_or(1.0) as f32;
    let top_p = request.top_p.unwrap_or(1.0) as f32;
    let guide = match &task.grammar {
        None => None,
        Some(g) => Some(grammar::sampler(model, g)?),
    };
    let mut chain = Vec::new();
    if temperature <= 0.0 {
        chain.push(LlamaSampler::greedy());
    } else {
        let seed = request
            .seed
            .map(|s| s as u32)
            .unwrap_or_else(rand::random::<u32>);
        if top_p < 1.0 {
            chain.push(LlamaSampler::top_p(top_p, 1));
        }
        chain.push(LlamaSampler::temp(temperature));
        chain.push(LlamaSampler::dist(seed));
    }
    Some(grammar::GuidedSampler::new(
        LlamaSampler::chain_simple(chain),
        guide,
    ))
}

/// Sends `deltas` to the job, in order; a job whose receiver is gone ends disconnected.
fn send(task: &Task, deltas: Vec<Delta>) -> Result<(), JobEnd> {
    for d in deltas {
        if task.events.send(Event::Delta(d)).is_err() {
            return Err(failed(ErrorCode::Disconnected, false));
        }
    }
    Ok(())
}

/// The generated text on its way out: bytes to characters, the stop strings, the output
/// parser.
struct TextOut {
    utf8: Utf8Stream,
    stops: StopFilter,
    parser: OutputParser,
}

impl TextOut {
    fn new(task: &Task) -> Self {
        let in_reasoning = task.prompt.trim_end().ends_with("<think>");
        let empty: [String; 0] = [];
        let stop = match &task.grammar {
            Some(g) if g.decides_end() => None,
            _ => task.request.stop.as_ref(),
        };
        Self {
            utf8: Utf8Stream::default(),
            stops: StopFilter::new(stop.map_or(&empty[..], |s| s.as_slice())),
            parser: OutputParser::for_job(task.tools, in_reasoning, task.grammar.as_ref()),
        }
    }

    /// A token's bytes: the deltas they make, and whether a stop string was met.
    fn push(&mut self, piece: &[u8]) -> (Vec<Delta>, bool) {
        let text = self.utf8.push(piece);
        let (text, stopped) = self.stops.push(&text);
        (self.parser.push(&text), stopped)
    }

    /// Everything held back, at the end.
    fn finish(&mut self) -> Vec<Delta> {
        let rest = self.utf8.finish();
        let (text, _) = self.stops.push(&rest);
        let mut tail = self.parser.push(&text);
        tail.extend(self.parser.push(&self.stops.finish()));
        tail.extend(self.parser.finish());
        tail
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
    fn data_urls() {
        assert_eq!(data_url_bytes("data:image/png;base64,aGk=").unwrap(), b"hi");
        assert_eq!(data_url_bytes("DATA:image/jpeg;BASE64,aGk").unwrap(), b"hi");
        assert_eq!(data_url_bytes("data:image/png;base64,").unwrap(), b"");
        for bad in [
            "data:image/png;base64,a*b=",
            "data:image/png,aGk=",
            "https://example.com/x.png",
            "data:",
            "",
        ] {
            assert!(data_url_bytes(bad).is_none(), "{bad}");
        }
    }

    #[test]
    fn bad_files_are_named_not_panicked_on() {
        let dir = std::env::temp_dir().join(format!("shoal-llama-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let missing = dir.join("missing.gguf");
        let err = check_gguf("--gguf", &missing).unwrap_err().to_string();
        assert!(err.contains("no such file"), "{err}");
        let text = dir.join("model.txt");
        std::fs::write(&text, "hello").unwrap();
        let err = check_gguf("--mmproj", &text).unwrap_err().to_string();
        assert!(err.starts_with("--mmproj "), "{err}");
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
