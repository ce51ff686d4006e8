//! Embedded [stable-diffusion.cpp] (through the `diffusion-rs-sys` bindings): an [`Engine`]
//! loads one checkpoint once and renders [`ImageJobRequest`]s to PNG bytes on the CPU.
//!
//! [stable-diffusion.cpp]: https://github.com/leejet/stable-diffusion.cpp
//!
//! # How the C API shapes this one
//!
//! - **One render at a time per process.** stable-diffusion.cpp reports progress through one
//!   process-wide callback and formats its log lines in a shared static buffer, so
//!   [`Engine::generate`] holds a process-wide lock for the whole render: concurrent calls (on
//!   one engine or on several) queue. A render already uses every thread it was given.
//! - **Progress.** `progress(step, steps)` is called on the calling thread after each sampling
//!   step, with `steps` the requested count and `step` rising from 1 to `steps` (the engine's
//!   other progress reports — model loading, tiled decoding — are not passed on). The VAE decode
//!   that follows the last step reports nothing.
//! - **Cancel.** stable-diffusion.cpp has no way to stop a render once started (no abort flag, no
//!   return value from its callbacks). `cancel` is read before the render starts (a set flag
//!   returns [`SdError::Cancelled`] without rendering) and at every step boundary: once it is
//!   seen, no further progress is reported, and when the engine returns, its image is discarded
//!   and the call returns [`SdError::Cancelled`]. So a cancel is *observed* within one step but
//!   its CPU time is only *released* when the render would have ended. Callers that must answer
//!   at once should answer from their own task and let the render finish in the background.
//! - **Determinism.** The same checkpoint, engine build, thread count and request give the same
//!   PNG bytes (stable-diffusion.cpp's CPU sampling is deterministic; the PNG encoding has no
//!   timestamps). The sampler is the checkpoint's default (Euler ancestral for SD1/SD2).
//! - **Seeds.** stable-diffusion.cpp takes an `i64` and treats negative seeds as "random", so the
//!   top bit of the `u64` seed is dropped: seeds `s` and `s + 2^63` render the same image.
//! - **Bad model files.** A missing path, a directory, a file the engine cannot parse, and a
//!   GGUF whose tensors run past its end (the engine reads tensor data lazily, so it would not
//!   notice at load time) are [`SdError::Load`] errors, never a panic or an abort.
//! - **Privacy.** The engine's log is discarded during renders (its lines could quote a prompt);
//!   while loading, its error lines become the [`SdError::Load`] reason.
//!
//! # Linking
//!
//! `diffusion-rs-sys` builds its own copy of ggml, as `llama-cpp-sys-2` does: the two cannot be
//! linked into one binary (duplicate symbols). This crate is for the image worker binary only.
//!
//! [`test_model`] writes a random-weight SD1-shaped checkpoint for tests and benchmarks.

use std::cell::RefCell;
use std::ffi::{c_char, c_int, c_void, CStr, CString};
use std::path::{Path, PathBuf};
use std::ptr::NonNull;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, Once};

use diffusion_rs_sys as sys;
use shoal_protocol::worker::ImageJobRequest;

mod encode;
mod gguf;
pub mod test_model;

/// Why loading a model or rendering an image failed.
#[derive(Debug, thiserror::Error)]
pub enum SdError {
    /// The model could not be loaded; `reason` is the engine's own error text, if it gave one.
    #[error("cannot load model {}: {reason}", path.display())]
    Load { path: PathBuf, reason: String },
    /// A request field the engine cannot render (names the field, never its value).
    #[error("invalid image request: {0}")]
    InvalidRequest(&'static str),
    /// The engine returned no image.
    #[error("stable-diffusion.cpp returned no image")]
    Render,
    /// The engine returned an image of another size or pixel format than asked.
    #[error("stable-diffusion.cpp returned an image of an unexpected shape")]
    BadImage,
    #[error("cannot encode the PNG: {0}")]
    Encode(#[from] png::EncodingError),
    /// The caller's cancel flag was set before the image was delivered.
    #[error("cancelled")]
    Cancelled,
}

/// Serializes renders: the engine's progress callback and log buffer are process-wide.
static RENDER: Mutex<()> = Mutex::new(());
static CALLBACKS: Once = Once::new();

/// What the callbacks of the render or load running on this thread write to.
#[derive(Default)]
struct ThreadHooks {
    render: Option<NonNull<RenderHooks<'static>>>,
    /// Error lines the engine logged during a load on this thread.
    load_errors: Option<Vec<String>>,
}

thread_local! {
    static HOOKS: RefCell<ThreadHooks> = RefCell::new(ThreadHooks::default());
}

/// The caller's progress callback and cancel flag, for the duration of one render.
struct RenderHooks<'a> {
    steps: u32,
    last_step: u32,
    cancel: &'a AtomicBool,
    cancelled: bool,
    progress: &'a mut dyn FnMut(u32, u32),
    /// The caller's callback panicked: it is not called again, and the panic is resumed after.
    panic: Option<Box<dyn std::any::Any + Send>>,
}

impl RenderHooks<'_> {
    fn on_step(&mut self, step: c_int, steps: c_int) {
        if self.cancelled || self.panic.is_some() {
            return;
        }
        if self.cancel.load(Ordering::Relaxed) {
            self.cancelled = true;
            return;
        }
        // Only sampling steps: the denominator is the requested count and steps only rise.
        let (Ok(step), Ok(steps)) = (u32::try_from(step), u32::try_from(steps)) else {
            return;
        };
        if steps != self.steps || step <= self.last_step || step > steps {
            return;
        }
        self.last_step = step;
        let progress = &mut self.progress;
        if let Err(panic) =
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| progress(step, steps)))
        {
            self.panic = Some(panic);
        }
    }
}

extern "C" fn on_progress(step: c_int, steps: c_int, _seconds: f32, _data: *mut c_void) {
    HOOKS.with(|h| {
        if let Some(mut render) = h.borrow().render {
            // SAFETY: `render` points at the RenderHooks on the stack of the `generate` call
            // running on this thread; it is cleared before that frame ends.
            unsafe { render.as_mut().on_step(step, steps) };
        }
    });
}

extern "C" fn on_log(level: sys::sd_log_level_t, text: *const c_char, _data: *mut c_void) {
    if level != sys::sd_log_level_t::SD_LOG_ERROR || text.is_null() {
        return;
    }
    HOOKS.with(|h| {
        if let Some(errors) = h.borrow_mut().load_errors.as_mut() {
            // SAFETY: the engine passes a NUL-terminated line that lives for this call.
            let line = unsafe { CStr::from_ptr(text) }.to_string_lossy();
            errors.push(line.trim_end().to_owned());
        }
    });
}

fn install_callbacks() {
    CALLBACKS.call_once(|| {
        // SAFETY: plain function pointers with no data; set once, before any engine call.
        unsafe {
            sys::sd_set_log_callback(Some(on_log), std::ptr::null_mut());
            sys::sd_set_progress_callback(Some(on_progress), std::ptr::null_mut());
        }
    });
}

/// An owned `sd_ctx_t`.
struct Context(NonNull<sys::sd_ctx_t>);

// SAFETY: the context is only used under the engine's mutex, from one thread at a time.
unsafe impl Send for Context {}

impl Drop for Context {
    fn drop(&mut self) {
        // SAFETY: created by new_sd_ctx and freed exactly once, here.
        unsafe { sys::free_sd_ctx(self.0.as_ptr()) };
    }
}

/// A loaded checkpoint. `Send + Sync`; renders are serialized (see the crate documentation).
pub struct Engine {
    ctx: Mutex<Context>,
    model_name: String,
}

impl Engine {
    /// Loads a checkpoint (GGUF, safetensors or .ckpt, as stable-diffusion.cpp reads them) to
    /// render with `threads` CPU threads (0: one per physical core).
    pub fn load(model: &Path, threads: usize) -> Result<Engine, SdError> {
        let fail = |reason: String| SdError::Load {
            path: model.to_path_buf(),
            reason,
        };
        // The engine reads tensor data lazily: check what can be checked before it starts.
        let meta = std::fs::metadata(model).map_err(|e| fail(e.to_string()))?;
        if !meta.is_file() {
            return Err(fail("not a file".into()));
        }
        if gguf::is_gguf(model) {
            gguf::check(model).map_err(|e| fail(e.to_string()))?;
        }
        let path = model
            .to_str()
            .and_then(|p| CString::new(p).ok())
            .ok_or_else(|| fail("the path is not UTF-8 without NUL bytes".into()))?;
        let threads = c_int::try_from(threads).map_err(|_| fail("too many threads".into()))?;
        install_callbacks();

        // SAFETY: sd_ctx_params_init fills every field; the strings outlive new_sd_ctx, which
        // copies what it keeps.
        let ctx = unsafe {
            let mut params: sys::sd_ctx_params_t = std::mem::zeroed();
            sys::sd_ctx_params_init(&mut params);
            params.model_path = path.as_ptr();
            params.n_threads = if threads > 0 {
                threads
            } else {
                sys::sd_get_num_physical_cores()
            };
            let _render = lock(&RENDER);
            HOOKS.with(|h| h.borrow_mut().load_errors = Some(Vec::new()));
            let ctx = sys::new_sd_ctx(&params);
            let errors = HOOKS.with(|h| h.borrow_mut().load_errors.take());
            NonNull::new(ctx).ok_or_else(|| fail(load_reason(errors.unwrap_or_default())))?
        };
        let ctx = Context(ctx);
        // SAFETY: a live context.
        if !unsafe { sys::sd_ctx_supports_image_generation(ctx.0.as_ptr()) } {
            return Err(fail("not a text-to-image model".into()));
        }
        Ok(Engine {
            ctx: Mutex::new(ctx),
            model_name: model_name(model),
        })
    }

    /// The model's name: its file name without the extension.
    pub fn model_name(&self) -> &str {
        &self.model_name
    }

    /// Renders one image; calls `progress(step, steps)` after each sampling step; returns PNG
    /// bytes. See the crate documentation for what `cancel` can and cannot stop.
    pub fn generate(
        &self,
        req: &ImageJobRequest,
        progress: &mut dyn FnMut(u32, u32),
        cancel: &AtomicBool,
    ) -> Result<Vec<u8>, SdError> {
        let input = Input::new(req)?;
        let _render = lock(&RENDER);
        if cancel.load(Ordering::Relaxed) {
            return Err(SdError::Cancelled);
        }
        let ctx = lock(&self.ctx);
        let mut hooks = RenderHooks {
            steps: req.steps,
            last_step: 0,
            cancel,
            cancelled: false,
            progress,
            panic: None,
        };
        let image = {
            let _installed = Installed::new(&mut hooks);
            input.render(&ctx)
        };
        if let Some(panic) = hooks.panic {
            std::panic::resume_unwind(panic);
        }
        let image = image.ok_or(SdError::Render)?;
        if hooks.cancelled || cancel.load(Ordering::Relaxed) {
            return Err(SdError::Cancelled);
        }
        image.to_png(req.width, req.height)
    }
}

/// The render hooks of this thread, installed for the life of the value.
struct Installed;

impl Installed {
    fn new(hooks: &mut RenderHooks<'_>) -> Installed {
        let ptr = NonNull::from(hooks).cast::<RenderHooks<'static>>();
        HOOKS.with(|h| h.borrow_mut().render = Some(ptr));
        Installed
    }
}

impl Drop for Installed {
    fn drop(&mut self) {
        HOOKS.with(|h| h.borrow_mut().render = None);
    }
}

/// A request turned into what the C API takes.
struct Input {
    prompt: CString,
    negative_prompt: CString,
    width: c_int,
    height: c_int,
    steps: c_int,
    cfg: f32,
    seed: i64,
}

impl Input {
    fn new(req: &ImageJobRequest) -> Result<Input, SdError> {
        let dim = |v: u32, field| {
            c_int::try_from(v)
                .ok()
                .filter(|v| *v >= 64 && v % 8 == 0)
                .ok_or(SdError::InvalidRequest(field))
        };
        if !req.cfg.is_finite() || req.cfg < 0.0 {
            return Err(SdError::InvalidRequest("cfg"));
        }
        Ok(Input {
            prompt: CString::new(req.prompt.as_str())
                .map_err(|_| SdError::InvalidRequest("prompt"))?,
            negative_prompt: CString::new(req.negative_prompt.as_str())
                .map_err(|_| SdError::InvalidRequest("negative_prompt"))?,
            width: dim(req.width, "width")?,
            height: dim(req.height, "height")?,
            steps: c_int::try_from(req.steps)
                .ok()
                .filter(|s| *s >= 1)
                .ok_or(SdError::InvalidRequest("steps"))?,
            cfg: req.cfg,
            seed: (req.seed & i64::MAX as u64) as i64,
        })
    }

    fn render(&self, ctx: &Context) -> Option<Image> {
        // SAFETY: sd_img_gen_params_init fills every field; the strings outlive the call; the
        // returned array (one image, batch_count 1) is owned by the Image.
        unsafe {
            let mut params: sys::sd_img_gen_params_t = std::mem::zeroed();
            sys::sd_img_gen_params_init(&mut params);
            params.prompt = self.prompt.as_ptr();
            params.negative_prompt = self.negative_prompt.as_ptr();
            params.width = self.width;
            params.height = self.height;
            params.seed = self.seed;
            params.batch_count = 1;
            params.sample_params.sample_steps = self.steps;
            params.sample_params.guidance.txt_cfg = self.cfg;
            NonNull::new(sys::generate_image(ctx.0.as_ptr(), &params)).map(Image)
        }
    }
}

/// The engine's result array (one image).
struct Image(NonNull<sys::sd_image_t>);

impl Image {
    fn to_png(&self, width: u32, height: u32) -> Result<Vec<u8>, SdError> {
        // SAFETY: a live result; `data` holds width × height × channel bytes.
        let img = unsafe { self.0.as_ref() };
        if img.data.is_null() || img.width != width || img.height != height || img.channel != 3 {
            return Err(SdError::BadImage);
        }
        let len = width as usize * height as usize * 3;
        // SAFETY: checked above.
        let rgb = unsafe { std::slice::from_raw_parts(img.data, len) };
        encode::png_rgb8(rgb, width, height)
    }
}

impl Drop for Image {
    fn drop(&mut self) {
        // SAFETY: the array generate_image returned, with one image; freed once, here.
        unsafe { sys::free_sd_images(self.0.as_ptr(), 1) };
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    // A panic in a caller's progress callback is resumed with the lock held; the state the
    // lock guards is still consistent then.
    m.lock().unwrap_or_else(|p| p.into_inner())
}

fn load_reason(errors: Vec<String>) -> String {
    if errors.is_empty() {
        return "stable-diffusion.cpp could not load it".into();
    }
    // A few lines at most: an incompatible file can log one error per tensor.
    let mut reason = errors
        .iter()
        .take(3)
        .cloned()
        .collect::<Vec<_>>()
        .join("; ");
    if errors.len() > 3 {
        reason.push_str(&format!(" (and {} more)", errors.len() - 3));
    }
    reason
}

fn model_name(model: &Path) -> String {
    model
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "stable-diffusion".into())
}
