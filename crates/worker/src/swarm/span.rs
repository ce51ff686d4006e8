//! One span of a model in llama.cpp, through `llama-cpp-sys-2` (the safe crate offers neither
//! embedding batches nor the eval callback).
//!
//! Hidden states go in as an embedding batch (`batch.embd`) and come out of the eval callback,
//! which copies the tensor `l_out-<last layer>` as llama.cpp computes it. In a span that is not
//! the last every token is marked as an output, or llama.cpp drops the rows of the tokens that
//! are not from the last layer's output. The last span's output is logits, read as usual.
//! Sessions are sequence ids of the one context; `drop_session` removes one's KV cells.

use std::ffi::{c_void, CStr, CString};
use std::path::Path;
use std::ptr::NonNull;

use anyhow::Context as _;
use llama_cpp_sys_2 as sys;

/// A loaded span (or whole) model. Lives as long as the process once loaded.
pub struct SpanModel {
    model: NonNull<sys::llama_model>,
    pub n_embd: usize,
    pub n_layer: u32,
    pub n_vocab: usize,
}

// llama.cpp's model is read-only after loading and may be shared by contexts on any thread.
unsafe impl Send for SpanModel {}
unsafe impl Sync for SpanModel {}

impl SpanModel {
    /// Loads a GGUF (weights on the CPU). Blocking.
    pub fn load(path: &Path) -> anyhow::Result<Self> {
        crate::llama::llama_backend()?;
        let c_path = CString::new(path.to_str().context("the path is not valid UTF-8")?)?;
        // SAFETY: the parameters are llama.cpp's defaults and the path outlives the call.
        let model = unsafe {
            let params = sys::llama_model_default_params();
            sys::llama_model_load_from_file(c_path.as_ptr(), params)
        };
        let model = NonNull::new(model).with_context(|| {
            format!(
                "{}: llama.cpp could not load it (its log says why)",
                path.display()
            )
        })?;
        // SAFETY: `model` is a live model.
        let (n_embd, n_layer, n_vocab) = unsafe {
            let vocab = sys::llama_model_get_vocab(model.as_ptr());
            (
                sys::llama_model_n_embd(model.as_ptr()) as usize,
                sys::llama_model_n_layer(model.as_ptr()) as u32,
                sys::llama_vocab_n_tokens(vocab) as usize,
            )
        };
        Ok(Self {
            model,
            n_embd,
            n_layer,
            n_vocab,
        })
    }
}

impl Drop for SpanModel {
    fn drop(&mut self) {
        // SAFETY: contexts borrow the model (`SpanContext<'m>`), so none outlives it.
        unsafe { sys::llama_model_free(self.model.as_ptr()) }
    }
}

/// What the eval callback looks for and where it puts it. Boxed: llama.cpp keeps its address.
struct Capture {
    name: CString,
    rows: Vec<f32>,
    /// Set when the tensor was not F32 or not contiguous: the step fails rather than guess.
    bad: bool,
}

/// The eval callback: asked first whether a node is wanted, then handed each wanted node;
/// handed the span's output, it copies it and stops the computation.
unsafe extern "C" fn on_eval(t: *mut sys::ggml_tensor, ask: bool, user: *mut c_void) -> bool {
    // SAFETY: `user` is the context's `Capture`, alive and not otherwise borrowed while
    // `llama_decode` runs; `t` is a live tensor whose name is NUL-terminated.
    let (cap, t) = unsafe { (&mut *(user as *mut Capture), &*t) };
    let name = unsafe { CStr::from_ptr(t.name.as_ptr()) };
    if name != cap.name.as_c_str() {
        // Not wanted; and when handed anyway, computing goes on.
        return !ask;
    }
    if ask {
        return true;
    }
    let (width, rows) = (t.ne[0] as usize, t.ne[1] as usize);
    let contiguous =
        t.nb[0] == 4 && t.nb[1] == 4 * t.ne[0] as usize && t.ne[2] == 1 && t.ne[3] == 1;
    if t.type_ != sys::GGML_TYPE_F32 || !contiguous {
        cap.bad = true;
        return true;
    }
    let at = cap.rows.len();
    cap.rows.resize(at + width * rows, 0.0);
    // SAFETY: the destination has room for exactly the tensor's bytes.
    unsafe {
        sys::ggml_backend_tensor_get(t, cap.rows[at..].as_mut_ptr().cast(), 0, width * rows * 4)
    };
    // Everything after the span's last layer (output norm, output matrix: logits for every
    // row, since every row is an output) is of no use to a span that hands hidden states on.
    // `false` makes the scheduler stop computing the graph (the rest of its split; on the CPU
    // the one split); llama.cpp then copies logits it did not compute, which nothing reads.
    false
}

/// What goes into a step: token ids (the entry span) or hidden states (every other span).
pub enum Input<'a> {
    Tokens(&'a [i32]),
    Hidden(&'a [f32]),
}

impl Input<'_> {
    fn len(&self, n_embd: usize) -> usize {
        match self {
            Input::Tokens(t) => t.len(),
            Input::Hidden(h) => h.len() / n_embd,
        }
    }
}

/// A context on a span: one per node, sessions as sequence ids. Not thread-safe: one step at
/// a time.
pub struct SpanContext<'m> {
    model: &'m SpanModel,
    ctx: NonNull<sys::llama_context>,
    capture: Box<Capture>,
    /// Whether this span computes logits (it holds the model's last layer).
    exit: bool,
    n_batch: usize,
}

unsafe impl Send for SpanContext<'_> {}

/// Context sizes: tokens per session, sessions, threads.
#[derive(Debug, Clone, Copy)]
pub struct ContextSize {
    pub n_ctx: u32,
    pub sessions: u32,
    pub threads: i32,
}

impl<'m> SpanContext<'m> {
    /// A context whose last layer's output is captured (`exit: false`) or whose logits are the
    /// output (`exit: true`).
    pub fn new(model: &'m SpanModel, size: ContextSize, exit: bool) -> anyhow::Result<Self> {
        let last = model
            .n_layer
            .checked_sub(1)
            .context("the model has no layers")?;
        let mut capture = Box::new(Capture {
            name: CString::new(format!("l_out-{last}"))?,
            rows: Vec::new(),
            bad: false,
        });
        let n_batch = 512u32;
        // SAFETY: default parameters, with the callback's data pointing at the boxed capture,
        // which the context struct owns and frees after the llama.cpp context.
        let ctx = unsafe {
            let mut p = sys::llama_context_default_params();
            p.n_ctx = size.n_ctx.saturating_mul(size.sessions.max(1));
            p.n_seq_max = size.sessions.max(1);
            p.n_batch = n_batch;
            p.n_ubatch = n_batch;
            p.n_threads = size.threads;
            p.n_threads_batch = size.threads;
            if !exit {
                p.cb_eval = Some(on_eval);
                p.cb_eval_user_data = (&mut *capture as *mut Capture).cast();
            }
            sys::llama_init_from_model(model.model.as_ptr(), p)
        };
        let ctx = NonNull::new(ctx).context("llama.cpp could not make a context")?;
        Ok(Self {
            model,
            ctx,
            capture,
            exit,
            n_batch: n_batch as usize,
        })
    }

    pub fn is_exit(&self) -> bool {
        self.exit
    }

    /// Runs `input` (at positions `pos..`) of session `seq` through the span. Afterwards
    /// [`hidden`](Self::hidden) holds every input token's output row (not the exit), or
    /// [`logits`](Self::logits) the last token's logits (the exit).
    pub fn step(&mut self, seq: i32, pos: u32, input: Input<'_>) -> anyhow::Result<()> {
        let n_embd = self.model.n_embd;
        if let Input::Hidden(h) = &input {
            anyhow::ensure!(
                h.len() % n_embd == 0,
                "hidden states are not rows of {n_embd}"
            );
        }
        let n = input.len(n_embd);
        anyhow::ensure!(n > 0, "an empty step");
        self.capture.rows.clear();
        self.capture.bad = false;
        for start in (0..n).step_by(self.n_batch) {
            let end = (start + self.n_batch).min(n);
            self.decode(seq, pos, &input, start..end, end == n)?;
        }
        anyhow::ensure!(
            !self.capture.bad,
            "the span's output tensor is not plain F32 rows"
        );
        if !self.exit {
            anyhow::ensure!(
                self.capture.rows.len() == n * n_embd,
                "the span's output had {} numbers, not {} rows of {n_embd}",
                self.capture.rows.len(),
                n
            );
        }
        Ok(())
    }

    /// One `llama_decode` of `input[range]`.
    fn decode(
        &mut self,
        seq: i32,
        pos: u32,
        input: &Input<'_>,
        range: std::ops::Range<usize>,
        last_chunk: bool,
    ) -> anyhow::Result<()> {
        let n_embd = self.model.n_embd;
        let n = range.len();
        let embd = matches!(input, Input::Hidden(_));
        // SAFETY: the batch is allocated for `n` tokens (of `n_embd` numbers when embd) and one
        // sequence id each; every field written below is inside those sizes; freed below.
        unsafe {
            let mut batch =
                sys::llama_batch_init(n as i32, if embd { n_embd as i32 } else { 0 }, 1);
            batch.n_tokens = n as i32;
            for (i, k) in range.clone().enumerate() {
                match input {
                    Input::Tokens(t) => *batch.token.add(i) = t[k],
                    Input::Hidden(h) => std::ptr::copy_nonoverlapping(
                        h[k * n_embd..].as_ptr(),
                        batch.embd.add(i * n_embd),
                        n_embd,
                    ),
                }
                *batch.pos.add(i) = (pos as usize + k) as i32;
                *batch.n_seq_id.add(i) = 1;
                *(*batch.seq_id.add(i)) = seq;
                let output = !self.exit || (last_chunk && i == n - 1);
                *batch.logits.add(i) = output as i8;
            }
            let rc = sys::llama_decode(self.ctx.as_ptr(), batch);
            sys::llama_batch_free(batch);
            anyhow::ensure!(rc == 0, "llama_decode failed ({rc})");
        }
        Ok(())
    }

    /// The last step's output rows (`tokens × n_embd`), in a span that is not the exit.
    pub fn hidden(&self) -> &[f32] {
        &self.capture.rows
    }

    /// The last step's logits for its last token (the exit span).
    pub fn logits(&self) -> &[f32] {
        // SAFETY: after a successful step of the exit span, row -1 exists and has n_vocab
        // numbers, valid until the next decode (which needs `&mut self`).
        unsafe {
            let p = sys::llama_get_logits_ith(self.ctx.as_ptr(), -1);
            if p.is_null() {
                return &[];
            }
            std::slice::from_raw_parts(p, self.model.n_vocab)
        }
    }

    /// Forgets a session's KV cells.
    pub fn drop_session(&mut self, seq: i32) {
        // SAFETY: a live context; removing a sequence's cells is always allowed.
        unsafe {
            let mem = sys::llama_get_memory(self.ctx.as_ptr());
            sys::llama_memory_seq_rm(mem, seq, -1, -1);
        }
    }
}

impl Drop for SpanContext<'_> {
    fn drop(&mut self) {
        // SAFETY: the context is live and freed once; the capture outlives it (field order).
        unsafe { sys::llama_free(self.ctx.as_ptr()) }
    }
}

/// Picks the next token from logits: greedy at temperature 0, else a draw from the softmax
/// of `logits / temperature` cut to `top_p`, with randomness from `(seed, position)` alone, so
/// that any node of the last span draws the same token for the same position.
pub fn sample(logits: &[f32], temperature: f32, top_p: f32, seed: u64, position: u32) -> i32 {
    let argmax = || {
        logits
            .iter()
            .enumerate()
            .fold((0, f32::NEG_INFINITY), |best, (i, &v)| {
                if v > best.1 {
                    (i, v)
                } else {
                    best
                }
            })
            .0 as i32
    };
    if temperature <= 0.0 {
        return argmax();
    }
    let max = logits.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    let mut probs: Vec<(usize, f64)> = logits
        .iter()
        .enumerate()
        .map(|(i, &v)| (i, (((v - max) / temperature) as f64).exp()))
        .collect();
    probs.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    let total: f64 = probs.iter().map(|p| p.1).sum();
    let mut kept = 0.0;
    let cut = probs
        .iter()
        .position(|p| {
            kept += p.1 / total;
            kept >= top_p as f64
        })
        .map_or(probs.len(), |i| i + 1);
    probs.truncate(cut.max(1));
    let mass: f64 = probs.iter().map(|p| p.1).sum();
    let mut draw = uniform(seed, position) * mass;
    for (i, p) in &probs {
        draw -= p;
        if draw <= 0.0 {
            return *i as i32;
        }
    }
    probs.last().map_or_else(argmax, |p| p.0 as i32)
}

/// A number in [0, 1) from splitmix64 of the seed and the position.
fn uniform(seed: u64, position: u32) -> f64 {
    let mut z = seed ^ (u64::from(position).wrapping_mul(0x9E37_79B9_7F4A_7C15));
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^= z >> 31;
    (z >> 11) as f64 / (1u64 << 53) as f64
}

#[cfg(test)]
mod tests;
