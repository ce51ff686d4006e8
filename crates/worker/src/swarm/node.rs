//! `--backend swarm`: a span node. One llama.cpp context on the span file, owned by one thread
//! (the engine); sessions are its sequence ids, `--concurrency` of them.
//!
//! Every node turns the gateway's frames into steps: hidden states in, hidden states out to the
//! next node (through the gateway), or, in the last span, a sampled token back to the entry.
//! The entry (the span holding layer 0) also runs jobs as the `llama` backend does: it renders
//! the chat template, tokenizes, runs its layers, and then turns each token that comes back into
//! text through the same stop strings and output parser ([`crate::llama`]).

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{mpsc as std_mpsc, Arc, Mutex};
use std::time::{Duration, Instant};

use anyhow::Context as _;
use futures::future::BoxFuture;
use shoal_protocol::swarm::{Dtype, FrameHeader, FrameKind, Resume, Sampling, SpanInfo};
use shoal_protocol::worker::{ServedModel, WorkerMessage};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use super::entry::{self, Text};
use super::slice;
use super::span::{sample, ContextSize, Input, SpanContext, SpanModel};
use crate::backend::{Job, JobEnd, JobOutput, SpanBackend, SwarmMessage};
use crate::serve::ServeSpec;

/// How to run a span.
#[derive(Debug, Clone)]
pub struct SwarmOptions {
    pub gguf: PathBuf,
    /// Tokens per session (default: 4096).
    pub ctx: Option<u32>,
    pub threads: Option<u32>,
    pub concurrency: u32,
    /// Send hidden states as f16 (half the bytes per hop, rounded) instead of f32.
    pub half_frames: bool,
}

/// What a step is given.
pub(crate) enum Owned {
    Tokens(Vec<i32>),
    Hidden(Vec<f32>),
}

/// What a step made: hidden rows (`n_embd` each), or, in the last span, the logits' token.
pub(crate) enum Made {
    Hidden(Vec<f32>),
    Logits(Vec<f32>),
}

type Reply = Box<dyn FnOnce(anyhow::Result<Made>) + Send>;

/// What reaches a running entry session from the gateway.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Incoming {
    /// A sampled token for a position.
    Token { position: u32, token: i32 },
    /// The chain was repaired: go on as this session, sending everything again.
    Replay { to: u64 },
}

/// Work for the engine thread.
pub(crate) enum Work {
    Step {
        seq: i32,
        pos: u32,
        input: Owned,
        reply: Reply,
    },
    Forget {
        seq: i32,
    },
    /// Answered once everything queued before it is done.
    Settle(std_mpsc::Sender<()>),
}

/// Sessions on this node.
#[derive(Default)]
pub(crate) struct Sessions {
    /// Session → sequence id.
    seq: HashMap<u64, i32>,
    free: Vec<i32>,
    /// Session → how the last span samples.
    sampling: HashMap<u64, Sampling>,
    /// The entry's jobs: job id → session.
    job: HashMap<String, u64>,
    /// The entry's jobs taken over from a lost entry: job id → the tokens sampled so far.
    resume: HashMap<String, Resume>,
    /// The entry's running sessions: where their tokens (and replays) go.
    tokens: HashMap<u64, mpsc::UnboundedSender<Incoming>>,
}

/// The shared state of a node.
pub(crate) struct Node {
    pub(crate) engine: Mutex<std_mpsc::Sender<Work>>,
    pub(crate) sessions: Mutex<Sessions>,
    pub(crate) span: SpanInfo,
    pub(crate) n_embd: usize,
    /// Tokens per session.
    pub(crate) n_ctx: u32,
    /// The number type of the hidden states this node sends.
    pub(crate) frame_dtype: Dtype,
}

impl Node {
    pub(crate) fn sessions(&self) -> std::sync::MutexGuard<'_, Sessions> {
        self.sessions.lock().unwrap_or_else(|p| p.into_inner())
    }

    pub(crate) fn submit(&self, work: Work) -> bool {
        match self.engine.lock() {
            Ok(engine) => engine.send(work).is_ok(),
            Err(_) => false,
        }
    }

    /// The entry's session for a job, opened just before the job arrived.
    pub(crate) fn session_of(&self, job_id: &str) -> Option<(u64, i32, Option<Sampling>)> {
        let s = self.sessions();
        let session = *s.job.get(job_id)?;
        Some((
            session,
            *s.seq.get(&session)?,
            s.sampling.get(&session).copied(),
        ))
    }

    /// The tokens to feed first, when the job was taken over from a lost entry.
    pub(crate) fn take_resume(&self, job_id: &str) -> Option<Resume> {
        self.sessions().resume.remove(job_id)
    }

    /// Where a running entry session's tokens go.
    pub(crate) fn listen(&self, session: u64) -> mpsc::UnboundedReceiver<Incoming> {
        // Bounded by the session's steps: one token frame per step of its chain.
        let (tx, rx) = mpsc::unbounded_channel();
        self.sessions().tokens.insert(session, tx);
        rx
    }

    fn open(
        &self,
        session: u64,
        job_id: Option<String>,
        sampling: Option<Sampling>,
        resume: Option<Resume>,
    ) {
        let mut s = self.sessions();
        let Some(seq) = s.free.pop() else {
            tracing::warn!(
                session,
                "swarm session opened while every sequence is taken"
            );
            return;
        };
        s.seq.insert(session, seq);
        if let Some(sampling) = sampling {
            s.sampling.insert(session, sampling);
        }
        if let Some(job_id) = job_id {
            if let Some(resume) = resume {
                s.resume.insert(job_id.clone(), resume);
            }
            s.job.insert(job_id, session);
        }
    }

    /// Ends a session: its KV cells go, its sequence id is free again.
    pub(crate) fn close(&self, session: u64) {
        let seq = {
            let mut s = self.sessions();
            s.sampling.remove(&session);
            s.tokens.remove(&session);
            let ended: Vec<String> = (s.job.iter())
                .filter(|(_, v)| **v == session)
                .map(|(k, _)| k.clone())
                .collect();
            for job_id in &ended {
                s.job.remove(job_id);
                s.resume.remove(job_id);
            }
            s.seq.remove(&session)
        };
        if let Some(seq) = seq {
            // The engine runs work in order: a later session's steps on this id come after
            // its cells are gone.
            self.submit(Work::Forget { seq });
            self.sessions().free.push(seq);
        }
    }

    /// The entry's session `session` goes on as `to`: the same sequence, job and listener under
    /// the new number, and the job is told to replay. Tokens still in flight for the old
    /// number are dropped from now on.
    fn replay(&self, session: u64, to: u64) {
        let mut s = self.sessions();
        // Only a running entry session listens; other nodes never get a replay.
        let Some(tx) = s.tokens.remove(&session) else {
            return;
        };
        let Some(seq) = s.seq.remove(&session) else {
            return;
        };
        s.seq.insert(to, seq);
        if let Some(sampling) = s.sampling.remove(&session) {
            s.sampling.insert(to, sampling);
        }
        for v in s.job.values_mut().filter(|v| **v == session) {
            *v = to;
        }
        let _ = tx.send(Incoming::Replay { to });
        s.tokens.insert(to, tx);
    }

    /// A frame from the gateway: hidden states to run, or (at the entry) a token.
    fn on_frame(self: &Arc<Self>, frame: &[u8], outbox: &mpsc::Sender<WorkerMessage>) {
        let Ok((header, payload)) = FrameHeader::decode(frame) else {
            tracing::warn!("unreadable swarm frame");
            return;
        };
        match header.kind {
            FrameKind::Token => {
                let token = header.token(payload).map(|t| t as i32);
                let s = self.sessions();
                if let (Some(tx), Some(token)) = (s.tokens.get(&header.session), token) {
                    let position = header.position;
                    let _ = tx.send(Incoming::Token { position, token });
                }
            }
            FrameKind::Hidden => {
                let Some(hidden) = read_hidden(&header, payload, self.n_embd) else {
                    tracing::warn!("swarm frame of another shape or type; dropped");
                    return;
                };
                let Some(seq) = self.sessions().seq.get(&header.session).copied() else {
                    return;
                };
                let node = Arc::clone(self);
                let outbox = outbox.clone();
                let reply: Reply = Box::new(move |made| node.forward(header, made, &outbox));
                self.submit(Work::Step {
                    seq,
                    pos: header.position,
                    input: Owned::Hidden(hidden),
                    reply,
                });
            }
        }
    }

    /// Sends what a step made on: hidden states to the next node, or the sampled token back.
    /// Runs on the engine thread, so it may block on the outbox.
    pub(crate) fn forward(
        &self,
        header: FrameHeader,
        made: anyhow::Result<Made>,
        outbox: &mpsc::Sender<WorkerMessage>,
    ) {
        let frame = match made {
            Ok(Made::Hidden(rows)) => hidden_frame(
                header.session,
                header.position,
                &rows,
                self.n_embd,
                self.frame_dtype,
            ),
            Ok(Made::Logits(logits)) => {
                let Some(sampling) = self.sessions().sampling.get(&header.session).copied() else {
                    return;
                };
                let position = header.position + header.tokens;
                let token = sample(
                    &logits,
                    sampling.temperature,
                    sampling.top_p,
                    sampling.seed,
                    position,
                );
                token_frame(header.session, position, token)
            }
            Err(e) => {
                tracing::warn!(error = %e, "swarm step failed");
                return;
            }
        };
        let _ = outbox.blocking_send(WorkerMessage::Frame(frame));
    }
}

/// A frame of hidden rows, as `dtype` (F32 or F16).
pub(crate) fn hidden_frame(
    session: u64,
    position: u32,
    rows: &[f32],
    n_embd: usize,
    dtype: Dtype,
) -> Vec<u8> {
    let header = FrameHeader {
        kind: FrameKind::Hidden,
        dtype,
        session,
        position,
        tokens: (rows.len() / n_embd) as u32,
        width: n_embd as u32,
    };
    let payload: Vec<u8> = match dtype {
        Dtype::F16 => rows
            .iter()
            .flat_map(|v| half::f16::from_f32(*v).to_le_bytes())
            .collect(),
        _ => rows.iter().flat_map(|v| v.to_le_bytes()).collect(),
    };
    header.encode(&payload)
}

/// The hidden rows of a frame, as f32 (`None`: not hidden states of this width).
pub(crate) fn read_hidden(header: &FrameHeader, payload: &[u8], n_embd: usize) -> Option<Vec<f32>> {
    if header.width as usize != n_embd {
        return None;
    }
    match header.dtype {
        Dtype::F32 => Some(
            payload
                .chunks_exact(4)
                .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
                .collect(),
        ),
        Dtype::F16 => Some(
            payload
                .chunks_exact(2)
                .map(|b| half::f16::from_le_bytes([b[0], b[1]]).to_f32())
                .collect(),
        ),
        Dtype::U32 => None,
    }
}

/// A frame of one sampled token, for `position`.
pub(crate) fn token_frame(session: u64, position: u32, token: i32) -> Vec<u8> {
    FrameHeader::token_frame(session, position, token as u32)
}

/// The engine thread: owns the context, runs work in arrival order.
fn engine_loop(mut ctx: SpanContext<'static>, work: std_mpsc::Receiver<Work>) {
    while let Ok(w) = work.recv() {
        match w {
            Work::Step {
                seq,
                pos,
                input,
                reply,
            } => {
                let input_ref = match &input {
                    Owned::Tokens(t) => Input::Tokens(t),
                    Owned::Hidden(h) => Input::Hidden(h),
                };
                let made = ctx.step(seq, pos, input_ref).map(|()| {
                    if ctx.is_exit() {
                        Made::Logits(ctx.logits().to_vec())
                    } else {
                        Made::Hidden(ctx.hidden().to_vec())
                    }
                });
                reply(made);
            }
            Work::Forget { seq } => ctx.drop_session(seq),
            Work::Settle(done) => drop(done.send(())),
        }
    }
}

/// The swarm backend.
pub struct SwarmBackend {
    models: Vec<ServeSpec>,
    node: Arc<Node>,
    /// The entry's text side (template, tokenizer); `None` on other spans.
    text: Option<Text>,
}

impl SwarmBackend {
    /// Loads the span, starts its engine and measures a step. Blocking.
    pub fn load(options: &SwarmOptions, mut models: Vec<ServeSpec>) -> anyhow::Result<Self> {
        for spec in &mut models {
            // The last span samples with its own sampler, which has no grammar: a job whose
            // reply must follow one (a JSON format, a strict or forced tool) is refused at
            // the entry, and the gateway is told not to send them.
            spec.model.structured_outputs = false;
        }
        let mut span = slice::read_span(&options.gguf)?;
        let model: &'static SpanModel = Box::leak(Box::new(SpanModel::load(&options.gguf)?));
        anyhow::ensure!(
            model.n_layer == span.end - span.start,
            "{}: {} layers, but its metadata says {}..{}",
            options.gguf.display(),
            model.n_layer,
            span.start,
            span.end
        );
        let threads = options
            .threads
            .map(|t| t as i32)
            .unwrap_or_else(|| std::thread::available_parallelism().map_or(4, |n| n.get() as i32));
        let size = ContextSize {
            n_ctx: options.ctx.unwrap_or(4096),
            sessions: options.concurrency,
            threads,
        };
        let mut ctx = SpanContext::new(model, size, span.is_exit())?;
        span.step_us = measure_step(&mut ctx, span.is_entry(), model.n_embd)?;
        let text = if span.is_entry() {
            Some(entry::load_text(&options.gguf)?)
        } else {
            None
        };
        // Bounded by the sessions' steps in flight (each waits for its frame before the next)
        // and the messages that open and close them.
        let (tx, rx) = std_mpsc::channel();
        std::thread::Builder::new()
            .name("swarm-span".into())
            .spawn(move || engine_loop(ctx, rx))
            .context("starting the span's engine thread")?;
        let node = Arc::new(Node {
            engine: Mutex::new(tx),
            sessions: Mutex::new(Sessions {
                free: (0..options.concurrency as i32).rev().collect(),
                ..Sessions::default()
            }),
            span: span.clone(),
            n_embd: model.n_embd,
            n_ctx: size.n_ctx,
            frame_dtype: if options.half_frames {
                Dtype::F16
            } else {
                Dtype::F32
            },
        });
        tracing::info!(
            gguf = %options.gguf.display(),
            start = span.start,
            end = span.end,
            total = span.total,
            step_us = span.step_us,
            "swarm span ready"
        );
        Ok(Self { models, node, text })
    }
}

/// Times one single-token step (on sequence 0, forgotten afterwards), in microseconds.
fn measure_step(ctx: &mut SpanContext<'_>, entry: bool, n_embd: usize) -> anyhow::Result<u64> {
    let hidden = vec![0.0f32; n_embd];
    let input = if entry {
        Input::Tokens(&[0])
    } else {
        Input::Hidden(&hidden)
    };
    // The first step warms caches and allocations; the second is the one measured.
    ctx.step(0, 0, input)
        .context("a first step through the span failed")?;
    let started = Instant::now();
    let input = if entry {
        Input::Tokens(&[0])
    } else {
        Input::Hidden(&hidden)
    };
    ctx.step(0, 1, input)?;
    let took = started.elapsed();
    ctx.drop_session(0);
    Ok(took.max(Duration::from_micros(1)).as_micros() as u64)
}

impl SpanBackend for SwarmBackend {
    fn models(&self) -> Vec<ServedModel> {
        self.models.iter().map(|s| s.model.clone()).collect()
    }

    fn span(&self) -> SpanInfo {
        self.node.span.clone()
    }

    /// Waits for every step queued so far: one that an ended job left in flight (pipelined
    /// past its end) must not still run in llama.cpp while the process exits and llama.cpp's
    /// static state is torn down under it.
    fn settle(&self) {
        let (done, wait) = std_mpsc::channel();
        if self.node.submit(Work::Settle(done)) {
            let _ = wait.recv();
        }
    }

    fn on_swarm(&self, msg: SwarmMessage, outbox: &mpsc::Sender<WorkerMessage>) {
        match msg {
            SwarmMessage::Open {
                session,
                job_id,
                sampling,
                resume,
            } => self.node.open(session, job_id, sampling, resume),
            SwarmMessage::Close { session } => self.node.close(session),
            SwarmMessage::Replay { session, to } => self.node.replay(session, to),
            SwarmMessage::Frame(frame) => self.node.on_frame(&frame, outbox),
        }
    }

    fn generate<'a>(
        &'a self,
        job: Job,
        out: &'a mut JobOutput,
        cancel: CancellationToken,
    ) -> BoxFuture<'a, JobEnd> {
        Box::pin(async move {
            match &self.text {
                Some(text) => entry::run(&self.node, text, &self.models, job, out, cancel).await,
                None => JobEnd::Failed {
                    code: shoal_protocol::worker::ErrorCode::BadJob,
                    retryable: true,
                },
            }
        })
    }
}
