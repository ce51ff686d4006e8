//! Browser workers for the Shoal gateway (`shoal serve --browser-gguf-4b … --browser-gguf-9b …`):
//! the worker page a tab opens from an invite link, the model files it downloads, and the
//! gateway's side of every browser job ([`engine::Models`], the gateway's
//! `browser::BrowserModels` seam): the prompt rendered with the model file's chat template,
//! the answer parsed, and both counted with its vocabulary ([`vocab`]).

pub mod engine;
pub mod gguf;
pub mod vocab;
mod web;

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;

use shoal_gateway::BrowserPool;

/// The catalog model browser tabs serve.
pub const MODEL: &str = "service-pro";

/// Opens the configured model files (`variant`, path): their metadata only, checked before
/// the gateway listens. `None` when there are none.
pub fn open(files: Vec<(String, PathBuf)>) -> anyhow::Result<Option<BrowserPool>> {
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
    Ok(Some(BrowserPool::new(Arc::new(models))))
}

/// Wires browser workers into `state` (before its router is built).
pub fn install(state: &shoal_gateway::AppState, pool: BrowserPool) -> anyhow::Result<()> {
    if state.browser.set(Arc::new(pool)).is_err() {
        anyhow::bail!("browser workers are already installed");
    }
    Ok(())
}
