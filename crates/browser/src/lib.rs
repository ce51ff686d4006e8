//! Browser workers for the Shoal gateway (`shoal serve --browser-gguf-4b … --browser-gguf-9b …`):
//! the worker page a tab opens from an invite link, the model files it downloads, and the
//! gateway's side of every browser job: the tabs' connections and the rules for trusting them
//! ([`BrowserPool`], the gateway's `BrowserWorkers` seam), the prompt rendered with the model
//! file's chat template, the answer parsed, and both counted with its vocabulary
//! ([`engine::Models`], [`vocab`]).

pub mod engine;
pub mod gguf;
mod tabs;
pub mod vocab;
mod web;

pub use tabs::{BrowserJob, BrowserModels, BrowserPool, Prompt};

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;

/// The catalog model browser tabs serve.
pub const MODEL: &str = "service-pro";

/// Opens the configured model files (`variant`, path): their metadata only, checked before
/// the gateway listens. `None` when there are none.
pub fn open(files: Vec<(String, PathBuf)>) -> anyhow::Result<Option<Arc<BrowserPool>>> {
    if files.is_empty() {
        return Ok(None);
    }
    let mut variants = BTreeMap::new();
    for (name, path) in files {
        variants.insert(name, engine::Variant::open(path)?);
    }
    let models = engine::Models {
        model: MODEL.to_owned(),
        variants,
    };
    Ok(Some(Arc::new(BrowserPool::new(Arc::new(models)))))
}
