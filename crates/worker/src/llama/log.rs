//! llama.cpp's own log lines (llama, ggml and mtmd), into tracing one level down: its INFO lines
//! (dozens per model load: every metadata key, every tensor type, buffer sizes) are our debug,
//! so that a terminal shows them only when the operator asks (`SHOAL_LOG=info,llama_cpp=debug`),
//! while its warnings and errors stay warnings and errors. Targets: `llama_cpp` (llama and
//! ggml) and `mtmd` (the multimodal projector and its clip model).
//!
//! mtmd's own debug lines are dropped whatever the filter: mtmd logs the text of every prompt it
//! tokenizes at that level.

use std::ffi::{c_char, c_void, CStr};
use std::sync::Mutex;

use llama_cpp_sys_2::{
    ggml_log_level, GGML_LOG_LEVEL_CONT, GGML_LOG_LEVEL_DEBUG, GGML_LOG_LEVEL_ERROR,
    GGML_LOG_LEVEL_INFO, GGML_LOG_LEVEL_WARN,
};

/// Where a line came from; also the `user_data` the C side hands back.
#[derive(Clone, Copy)]
enum Source {
    Llama,
    Mtmd,
}

/// Per source: the level of the last line (a CONT piece continues it) and the part of a line
/// that came without its newline yet.
struct Pending {
    level: ggml_log_level,
    line: String,
}

static LLAMA_PENDING: Mutex<Pending> = Mutex::new(Pending {
    level: GGML_LOG_LEVEL_INFO,
    line: String::new(),
});
static MTMD_PENDING: Mutex<Pending> = Mutex::new(Pending {
    level: GGML_LOG_LEVEL_INFO,
    line: String::new(),
});

/// Installs the callbacks; before llama.cpp's backend starts, once per process.
pub(super) fn install() {
    // SAFETY: the callbacks are plain functions that live as long as the program, and the
    // user-data pointers are static values they only read.
    unsafe {
        llama_cpp_sys_2::llama_log_set(Some(on_log), &LLAMA as *const Source as *mut c_void);
        llama_cpp_sys_2::ggml_log_set(Some(on_log), &LLAMA as *const Source as *mut c_void);
        llama_cpp_sys_2::mtmd_helper_log_set(Some(on_log), &MTMD as *const Source as *mut c_void);
    }
}

static LLAMA: Source = Source::Llama;
static MTMD: Source = Source::Mtmd;

unsafe extern "C" fn on_log(level: ggml_log_level, text: *const c_char, user_data: *mut c_void) {
    if text.is_null() || user_data.is_null() {
        return;
    }
    // SAFETY: `user_data` is one of the statics `install` passed; `text` is a NUL-terminated
    // string valid for this call.
    let source = unsafe { *(user_data as *const Source) };
    let text = unsafe { CStr::from_ptr(text) }.to_string_lossy();
    let pending = match source {
        Source::Llama => &LLAMA_PENDING,
        Source::Mtmd => &MTMD_PENDING,
    };
    let mut pending = pending.lock().unwrap_or_else(|e| e.into_inner());
    if level != GGML_LOG_LEVEL_CONT {
        if !pending.line.is_empty() {
            emit(source, pending.level, &pending.line);
            pending.line.clear();
        }
        pending.level = level;
    }
    pending.line.push_str(&text);
    if pending.line.ends_with('\n') {
        emit(source, pending.level, &pending.line);
        pending.line.clear();
    }
}

fn emit(source: Source, level: ggml_log_level, text: &str) {
    let text = text.trim_end();
    if text.is_empty() {
        return;
    }
    // Each arm names its target literally: tracing's targets are compile-time constants.
    macro_rules! one_level_down {
        ($target:literal) => {
            match level {
                GGML_LOG_LEVEL_ERROR => tracing::error!(target: $target, "{text}"),
                GGML_LOG_LEVEL_WARN => tracing::warn!(target: $target, "{text}"),
                GGML_LOG_LEVEL_DEBUG => tracing::trace!(target: $target, "{text}"),
                _ => tracing::debug!(target: $target, "{text}"),
            }
        };
    }
    match source {
        Source::Llama => one_level_down!("llama_cpp"),
        Source::Mtmd if level == GGML_LOG_LEVEL_DEBUG => {}
        Source::Mtmd => one_level_down!("mtmd"),
    }
}
