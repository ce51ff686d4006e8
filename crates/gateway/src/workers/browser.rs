//! Browser workers (`kind: browser`, a tab running the page `/worker`): the seam to
//! `shoal-browser` ([`BrowserWorkers`]), which turns a chat job into a ready prompt and a tab's
//! raw text into the events the relay expects, counting every token itself so that a tab's
//! usage claims are never billed, and which decides when a tab is dropped and its token
//! refused. Here: who may join as a tab.

use std::sync::Arc;

use shoal_protocol::worker::{GatewayMessage, WorkerKind, WorkerMessage};
use shoal_store::WorkerTokenInfo;

use crate::workers::pool::WorkerId;
use crate::AppState;

/// Why a tab was dropped (a log reason; never content).
pub type Verdict = &'static str;

/// The browser workers the binary wires in (`Seams::browser`).
pub trait BrowserWorkers: Send + Sync {
    /// Whether a tab that loaded `variant` can be served.
    fn knows(&self, variant: &str) -> bool;
    /// Whether worker token `token_id` is refused now.
    fn is_banned(&self, token_id: i64) -> bool;
    /// A tab joined the pool as `worker`: its connection.
    fn connect(
        self: Arc<Self>,
        state: &AppState,
        worker: WorkerId,
        token_id: i64,
        variant: String,
    ) -> Arc<dyn Tab>;
    /// Tab `worker`'s answer was refused after its job ended (a structured answer that failed
    /// its check): it counts against the tab.
    fn answer_refused(&self, state: &AppState, worker: WorkerId);
    /// The worker page, its assets and the model files, mounted beside the API.
    fn routes(&self) -> axum::Router;
}

/// One tab's connection, between the socket's writer and reader.
pub trait Tab: Send + Sync {
    /// What the tab is sent for `msg` (a chat job becomes a prompt job); `None`: nothing.
    fn outgoing(&self, msg: GatewayMessage) -> Option<GatewayMessage>;
    /// One message from the tab; an error is the reason to drop it.
    fn on_message(&self, msg: WorkerMessage) -> Result<(), Verdict>;
    /// The tab is gone; `verdict` when it broke the rules.
    fn closed(&self, verdict: Option<Verdict>);
}

/// Counts a job of worker `worker` whose answer the gateway refused after it ended against
/// its record, when it is a tab: it is then offered jobs after tabs with fewer failures.
pub fn answer_refused(state: &AppState, worker: WorkerId) {
    let Some(tabs) = &state.browser else {
        return;
    };
    if state.pool.kind_of(worker) == Some(WorkerKind::Browser) {
        tabs.answer_refused(state, worker);
    }
}

/// Whether a worker of `kind` may join with `token`: a browser invite admits only browser
/// tabs, and a tab only when the gateway serves its model file.
pub fn admits(
    state: &AppState,
    token: &WorkerTokenInfo,
    kind: WorkerKind,
    variant: Option<&str>,
) -> Result<(), &'static str> {
    if token.browser_only && kind != WorkerKind::Browser {
        return Err("this token admits browser workers only");
    }
    if kind != WorkerKind::Browser {
        return Ok(());
    }
    let Some(tabs) = &state.browser else {
        return Err("this gateway serves no browser workers");
    };
    match variant {
        Some(v) if tabs.knows(v) => Ok(()),
        _ => Err("a browser worker must announce a `variant` this gateway serves"),
    }
}

/// The connection of a browser tab (`None` for other kinds).
pub fn connect(
    state: &AppState,
    worker: WorkerId,
    token_id: i64,
    kind: WorkerKind,
    variant: Option<String>,
) -> Option<Arc<dyn Tab>> {
    let tabs = state.browser.clone()?;
    let variant = variant.filter(|_| kind == WorkerKind::Browser)?;
    Some(tabs.connect(state, worker, token_id, variant))
}
