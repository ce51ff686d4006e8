//! What a backend is: something that turns one job into deltas and an end.
//!
//! The connection code owns the socket, the slots and cancellation; a backend only generates.
//! One trait per kind of work ([`ChatBackend`], [`ImageBackend`], [`SpanBackend`]), joined in
//! [`Backend`]: [`crate::openai::OpenAiBackend`] fronts an OpenAI-compatible server and the
//! embedded llama.cpp backend runs the model in process (both chat); the image worker's
//! backends render; the swarm node runs a span.

use std::sync::Arc;

use futures::future::BoxFuture;
use shoal_protocol::chat::ToolCallDelta;
use shoal_protocol::worker::{
    ErrorCode, FinishReason, ImageJobRequest, JobRequest, JobUsage, ServedModel, WorkerKind,
    WorkerMessage,
};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

/// One job as the gateway pushed it.
#[derive(Debug, Clone)]
pub struct Job {
    pub id: String,
    /// The catalog id; the backend maps it to its own name for the model.
    pub model: String,
    pub request: JobRequest,
}

/// One image job as the gateway pushed it.
#[derive(Debug, Clone)]
pub struct ImageJob {
    pub id: String,
    /// The image model the worker announced.
    pub model: String,
    pub request: ImageJobRequest,
}

/// One piece of generated output. Empty parts are `None`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Delta {
    pub content: Option<String>,
    pub reasoning: Option<String>,
    pub tool_calls: Option<Vec<ToolCallDelta>>,
}

impl Delta {
    pub fn is_empty(&self) -> bool {
        self.content.is_none() && self.reasoning.is_none() && self.tool_calls.is_none()
    }
}

/// How a job ended. Error codes are short machine codes, never free text: an upstream's
/// message may quote the prompt.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum JobEnd {
    Done {
        finish_reason: FinishReason,
        usage: JobUsage,
    },
    Failed {
        code: ErrorCode,
        retryable: bool,
    },
    /// An image job's result: a PNG, standard base64.
    Image {
        png_base64: String,
    },
}

impl JobEnd {
    pub fn into_message(self, job_id: String) -> WorkerMessage {
        match self {
            JobEnd::Done {
                finish_reason,
                usage,
            } => WorkerMessage::Done {
                job_id,
                finish_reason,
                usage,
            },
            JobEnd::Failed { code, retryable } => WorkerMessage::Error {
                job_id,
                code,
                retryable,
            },
            JobEnd::Image { png_base64 } => WorkerMessage::Image { job_id, png_base64 },
        }
    }
}

/// The connection went away: whatever the job produces next has nowhere to go.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Disconnected;

/// Where a backend sends a job's deltas; counts what it relayed.
#[derive(Debug)]
pub struct JobOutput {
    job_id: String,
    tx: mpsc::Sender<WorkerMessage>,
    relayed: u64,
    reasoning_relayed: u64,
}

impl JobOutput {
    pub fn new(job_id: String, tx: mpsc::Sender<WorkerMessage>) -> Self {
        Self {
            job_id,
            tx,
            relayed: 0,
            reasoning_relayed: 0,
        }
    }

    /// Sends one delta to the gateway; an empty one is skipped.
    pub async fn send(&mut self, delta: Delta) -> Result<(), Disconnected> {
        if delta.is_empty() {
            return Ok(());
        }
        let reasoning = delta.reasoning.is_some();
        let msg = WorkerMessage::Delta {
            job_id: self.job_id.clone(),
            content: delta.content,
            reasoning: delta.reasoning,
            tool_calls: delta.tool_calls,
        };
        self.tx.send(msg).await.map_err(|_| Disconnected)?;
        self.relayed += 1;
        self.reasoning_relayed += u64::from(reasoning);
        Ok(())
    }

    /// Reports an image job's progress: `step` of `steps` sampling steps done.
    pub async fn progress(&mut self, step: u32, steps: u32) -> Result<(), Disconnected> {
        let msg = WorkerMessage::Progress {
            job_id: self.job_id.clone(),
            step,
            steps,
        };
        self.tx.send(msg).await.map_err(|_| Disconnected)
    }

    /// The connection's outbox (a swarm node's engine thread sends its frames there).
    pub fn outbox(&self) -> mpsc::Sender<WorkerMessage> {
        self.tx.clone()
    }

    /// How many deltas reached the connection: the completion count of last resort.
    pub fn relayed(&self) -> u64 {
        self.relayed
    }

    /// How many of those carried reasoning.
    pub fn reasoning_relayed(&self) -> u64 {
        self.reasoning_relayed
    }
}

/// A swarm message from the gateway to a span node.
#[derive(Debug, Clone, PartialEq)]
pub enum SwarmMessage {
    /// A session opens on this node; the entry learns its job, the last span its sampling,
    /// and an entry taking over a job from a lost one the tokens sampled so far.
    Open {
        session: u64,
        job_id: Option<String>,
        sampling: Option<shoal_protocol::swarm::Sampling>,
        resume: Option<shoal_protocol::swarm::Resume>,
    },
    Close {
        session: u64,
    },
    /// The entry's session goes on as `to` through a repaired chain.
    Replay {
        session: u64,
        to: u64,
    },
    /// A binary frame ([`shoal_protocol::swarm::FrameHeader`]).
    Frame(Vec<u8>),
}

/// A worker's backend, by the kind of job it runs. The connection hands each kind's jobs
/// and messages to that kind's trait, so no backend answers another kind's work: a job of
/// another kind is refused before it starts.
#[derive(Clone)]
pub enum Backend {
    /// Chat jobs: an OpenAI-compatible server (`kind: upstream`) or llama.cpp (`native`).
    Chat(Arc<dyn ChatBackend>),
    /// Image jobs (`kind: image`).
    Image(Arc<dyn ImageBackend>),
    /// A swarm span node (`kind: swarm`): swarm messages, and chat jobs where it is a
    /// chain's entry.
    Span(Arc<dyn SpanBackend>),
}

impl Backend {
    /// What the `hello` says this worker is.
    pub fn kind(&self) -> WorkerKind {
        match self {
            Backend::Chat(b) => b.kind(),
            Backend::Image(_) => WorkerKind::Image,
            Backend::Span(_) => WorkerKind::Swarm,
        }
    }

    /// The models announced in the `hello`.
    pub fn models(&self) -> Vec<ServedModel> {
        match self {
            Backend::Chat(b) => b.models(),
            Backend::Image(b) => vec![ServedModel {
                id: b.model().to_owned(),
                ..Default::default()
            }],
            Backend::Span(b) => b.models(),
        }
    }

    /// Blocks until what the backend still computes for ended jobs is done; called once the
    /// worker has stopped, before the process exits.
    pub fn settle(&self) {
        if let Backend::Span(b) = self {
            b.settle();
        }
    }
}

/// Runs chat jobs. `Send + Sync` because jobs run on many tasks at once.
pub trait ChatBackend: Send + Sync {
    /// `upstream` or `native`.
    fn kind(&self) -> WorkerKind;

    /// The models announced in the `hello`.
    fn models(&self) -> Vec<ServedModel>;

    /// Runs one job to its end, sending deltas to `out` as they come.
    ///
    /// When `cancel` fires the backend stops generating promptly (within one chunk) and returns
    /// [`JobEnd::Done`] with the usage so far, so that what was delivered can be billed.
    fn generate<'a>(
        &'a self,
        job: Job,
        out: &'a mut JobOutput,
        cancel: CancellationToken,
    ) -> BoxFuture<'a, JobEnd>;
}

/// Renders image jobs (workers of kind `image`).
pub trait ImageBackend: Send + Sync {
    /// The one image model announced in the `hello`: the name its results report.
    fn model(&self) -> &str;

    /// Renders one image job, reporting progress to `out`, and ends with [`JobEnd::Image`] or
    /// [`JobEnd::Failed`]. When `cancel` fires it stops and fails with
    /// [`ErrorCode::Cancelled`].
    fn generate_image<'a>(
        &'a self,
        job: ImageJob,
        out: &'a mut JobOutput,
        cancel: CancellationToken,
    ) -> BoxFuture<'a, JobEnd>;
}

/// A swarm span node (workers of kind `swarm`).
pub trait SpanBackend: Send + Sync {
    /// The models announced in the `hello`.
    fn models(&self) -> Vec<ServedModel>;

    /// The node's span, announced after `welcome`.
    fn span(&self) -> shoal_protocol::swarm::SpanInfo;

    /// Runs one chat job as its chain's entry, as [`ChatBackend::generate`] does; a node
    /// without the model's first layers fails it.
    fn generate<'a>(
        &'a self,
        job: Job,
        out: &'a mut JobOutput,
        cancel: CancellationToken,
    ) -> BoxFuture<'a, JobEnd>;

    /// A swarm message from the gateway; `outbox` reaches the gateway. Must not block: the
    /// connection's reader calls it.
    fn on_swarm(&self, msg: SwarmMessage, outbox: &mpsc::Sender<WorkerMessage>);

    /// Blocks until what the node still computes for ended jobs is done; called once the
    /// worker has stopped, before the process exits.
    fn settle(&self);
}
