//! The entry of a chain: a job's text side. It renders and tokenizes the conversation with the
//! model's own template and vocabulary (llama.cpp's vocabulary-only load of the span file),
//! sends the prompt through its span, and turns each token that comes back from the last span
//! into deltas through the `llama` backend's stop strings and output parser.

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use llama_cpp_2::model::params::LlamaModelParams;
use llama_cpp_2::model::LlamaModel;
use llama_cpp_2::token::LlamaToken;
use shoal_protocol::swarm::{FrameHeader, FrameKind, Resume};
use shoal_protocol::worker::{ErrorCode, FinishReason, JobRequest, JobUsage};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use super::node::{Incoming, Node, Owned, Work};
use crate::backend::{Delta, Job, JobEnd, JobOutput};
use crate::llama::grammar;
use crate::llama::output::OutputParser;
use crate::llama::template::ChatTemplate;
use crate::llama::{StopFilter, Utf8Stream};
use crate::serve::ServeSpec;

/// Tokens per prompt frame: bounds a frame at 4 × width × this many bytes.
const PROMPT_CHUNK: usize = 256;
/// How long the entry waits for the next token before it gives the job up.
const TOKEN_DEADLINE: Duration = Duration::from_secs(60);

/// The entry's vocabulary and template.
pub struct Text {
    model: &'static LlamaModel,
    template: ChatTemplate,
}

/// Loads the vocabulary (no weights) and the chat template of a span file.
pub fn load_text(path: &Path) -> anyhow::Result<Text> {
    let backend = crate::llama::llama_backend()?;
    let params = LlamaModelParams::default().with_vocab_only(true);
    let model = LlamaModel::load_from_file(backend, path, &params).map_err(|_| {
        anyhow::anyhow!(
            "{}: llama.cpp could not read its vocabulary",
            path.display()
        )
    })?;
    let model: &'static LlamaModel = Box::leak(Box::new(model));
    let vocab = model.vocab();
    let text = |t| String::from_utf8_lossy(&vocab.token_to_piece(t, true, None)).into_owned();
    let source = model
        .meta_val_str("tokenizer.chat_template")
        .map_err(|_| anyhow::anyhow!("{}: the model has no chat template", path.display()))?;
    let template = ChatTemplate::new(&source, text(vocab.bos()), text(vocab.eos()))?;
    Ok(Text { model, template })
}

// The vocabulary handle is not `Send`: it is taken afresh for each use, never held across an
// `await` of the job's future.
impl Text {
    fn tokenize(&self, prompt: &str) -> Vec<i32> {
        let vocab = self.model.vocab();
        vocab
            .tokenize(prompt.as_bytes(), vocab.should_add_bos(), true)
            .into_iter()
            .map(|t| t.0)
            .collect()
    }

    fn is_eog(&self, token: i32) -> bool {
        self.model.vocab().is_eog(LlamaToken(token))
    }

    fn piece(&self, token: i32, out: &mut Vec<u8>) {
        out.clear();
        self.model
            .vocab()
            .token_to_piece_into(LlamaToken(token), out, false, None);
    }
}

fn failed(code: ErrorCode, retryable: bool) -> JobEnd {
    JobEnd::Failed { code, retryable }
}

/// Runs one job from the entry: prompt through the chain, tokens back into text.
pub async fn run(
    node: &Arc<Node>,
    text: &Text,
    models: &[ServeSpec],
    job: Job,
    out: &mut JobOutput,
    cancel: CancellationToken,
) -> JobEnd {
    if !models.iter().any(|s| s.model.id == job.model) {
        return failed(ErrorCode::ModelNotServed, true);
    }
    let Some((session, seq, _)) = node.session_of(&job.id) else {
        tracing::warn!(job_id = %job.id, "swarm job without a session");
        return failed(ErrorCode::BadJob, true);
    };
    let resume = node.take_resume(&job.id);
    let seat = Seat { session, seq };
    let end = run_session(node, text, &job, seat, resume, out, cancel).await;
    // A replay moved the job to another session number.
    let current = node.session_of(&job.id).map_or(session, |(s, _, _)| s);
    node.close(current);
    end
}

/// Where a job runs on this node: its session number (new after a replay) and sequence id.
#[derive(Debug, Clone, Copy)]
struct Seat {
    session: u64,
    seq: i32,
}

/// Sends `tokens` at `pos` through this span; what it makes goes on to the gateway.
fn step(node: &Arc<Node>, out: &JobOutput, seat: Seat, pos: u32, tokens: Vec<i32>) -> bool {
    let header = FrameHeader {
        kind: FrameKind::Hidden,
        dtype: node.frame_dtype,
        session: seat.session,
        position: pos,
        tokens: tokens.len() as u32,
        width: node.n_embd as u32,
    };
    let (me, outbox) = (Arc::clone(node), out.outbox());
    node.submit(Work::Step {
        seq: seat.seq,
        pos,
        input: Owned::Tokens(tokens),
        reply: Box::new(move |made| me.forward(header, made, &outbox)),
    })
}

/// Sends `tokens` (positions `from..`) through this span in prompt-sized chunks.
fn send_tokens(node: &Arc<Node>, out: &JobOutput, seat: Seat, from: usize, tokens: &[i32]) -> bool {
    tokens.chunks(PROMPT_CHUNK).enumerate().all(|(i, chunk)| {
        let pos = (from + i * PROMPT_CHUNK) as u32;
        step(node, out, seat, pos, chunk.to_vec())
    })
}

/// What one token led to.
enum Next {
    /// Fed to the span: the next position's token is awaited.
    More,
    Ended(FinishReason),
    Failed(JobEnd),
}

/// One job's text side: what it has fed to the chain and said so far.
struct Generation<'a> {
    node: &'a Arc<Node>,
    text: &'a Text,
    seat: Seat,
    /// The prompt and every token fed since: what a repaired chain is sent again. The next
    /// token awaited is the one for position `history.len()`.
    history: Vec<i32>,
    n_prompt: usize,
    budget: usize,
    usage: JobUsage,
    parser: OutputParser,
    stops: StopFilter,
    utf8: Utf8Stream,
    piece: Vec<u8>,
}

impl Generation<'_> {
    fn more(&self) -> bool {
        (self.usage.completion_tokens as usize) < self.budget
    }

    /// Turns a sampled token into deltas and, unless it ends the job, feeds it to the span. A
    /// token taken over from a lost entry goes the same way, in the same step, so what this
    /// entry says and computes is what the lost one did.
    async fn take(&mut self, token: i32, out: &mut JobOutput) -> Next {
        if self.text.is_eog(token) {
            return Next::Ended(FinishReason::Stop);
        }
        self.usage.completion_tokens += 1;
        self.usage.reasoning_tokens += u64::from(self.parser.in_reasoning());
        self.text.piece(token, &mut self.piece);
        let (said, stopped) = self.stops.push(&self.utf8.push(&self.piece));
        if send_all(out, self.parser.push(&said)).await.is_err() {
            return Next::Failed(failed(ErrorCode::Disconnected, false));
        }
        if stopped {
            return Next::Ended(FinishReason::Stop);
        }
        if !self.more() {
            return Next::Ended(FinishReason::Length);
        }
        let pos = self.history.len() as u32;
        if !step(self.node, out, self.seat, pos, vec![token]) {
            return Next::Failed(failed(ErrorCode::InferenceFailed, false));
        }
        self.history.push(token);
        Next::More
    }

    /// Sends the history through a new chain again, in the steps it was first computed in:
    /// the prompt in its chunks, then each generated token on its own. Batched otherwise,
    /// llama.cpp's sums would differ in their last bits, and a sampled draw near a boundary
    /// would differ too; so the replay is exact, at the cost of one step per generated token.
    /// The steps go out at once: each node runs a session's frames in order, so they
    /// pipeline through the chain.
    fn replay(&mut self, to: u64, out: &JobOutput) -> bool {
        self.seat.session = to;
        let (node, seat) = (self.node, self.seat);
        node.submit(Work::Forget { seq: seat.seq });
        let (prompt, generated) = self.history.split_at(self.n_prompt);
        send_tokens(node, out, seat, 0, prompt)
            && generated.iter().enumerate().all(|(i, t)| {
                let pos = (self.n_prompt + i) as u32;
                step(node, out, seat, pos, vec![*t])
            })
    }

    /// Waits for the token of the next position; a repaired chain is replayed meanwhile.
    /// `Ok(None)`: cancelled.
    async fn next_token(
        &mut self,
        incoming: &mut mpsc::UnboundedReceiver<Incoming>,
        out: &JobOutput,
        cancel: &CancellationToken,
    ) -> Result<Option<i32>, JobEnd> {
        loop {
            let got = tokio::select! {
                _ = cancel.cancelled() => return Ok(None),
                got = tokio::time::timeout(TOKEN_DEADLINE, incoming.recv()) => got,
            };
            match got {
                Ok(Some(Incoming::Token { position, token }))
                    if position as usize == self.history.len() =>
                {
                    return Ok(Some(token))
                }
                // A token for an earlier prompt chunk's end, or one a replay drew again.
                Ok(Some(Incoming::Token { .. })) => {}
                // The position-seeded last span draws the same tokens again, so the client
                // sees the stream go on where it was.
                Ok(Some(Incoming::Replay { to })) => {
                    if !self.replay(to, out) {
                        return Err(failed(ErrorCode::InferenceFailed, false));
                    }
                }
                Ok(None) | Err(_) => {
                    let before_output = self.usage.completion_tokens == 0;
                    return Err(failed(ErrorCode::InferenceFailed, before_output));
                }
            }
        }
    }

    /// Flushes what the stop strings and the parser held back; the job's end.
    async fn end(mut self, out: &mut JobOutput, cancelled: bool, finish: FinishReason) -> JobEnd {
        if !cancelled {
            let (said, _) = self.stops.push(&self.utf8.finish());
            let mut tail = self.parser.push(&said);
            tail.extend(self.parser.push(&self.stops.finish()));
            tail.extend(self.parser.finish());
            if send_all(out, tail).await.is_err() {
                return failed(ErrorCode::Disconnected, false);
            }
        }
        let finish_reason = match self.parser.tool_calls() {
            0 => finish,
            _ => FinishReason::ToolCalls,
        };
        JobEnd::Done {
            finish_reason,
            usage: self.usage,
        }
    }
}

/// The generated tokens a job taken over from a lost entry feeds first (`None`: none given;
/// `Err`: the gateway's record misses the first of them, which it never should).
fn resumed(resume: Option<Resume>, n_prompt: usize) -> Result<Vec<i32>, JobEnd> {
    let Some(resume) = resume else {
        return Ok(Vec::new());
    };
    match resume.generated(n_prompt) {
        Some(tokens) => Ok(tokens.iter().map(|t| *t as i32).collect()),
        None => {
            tracing::warn!("swarm resume misses the first generated token");
            Err(failed(ErrorCode::InferenceFailed, false))
        }
    }
}

/// Whether the job's output is parsed for tool calls, its rendered prompt, and the prompt's
/// tokens (at least one, fewer than `n_ctx`).
fn prepare(
    text: &Text,
    request: &JobRequest,
    n_ctx: usize,
) -> Result<(bool, String, Vec<i32>), JobEnd> {
    let Ok(prompt) = text.template.render(request, None) else {
        return Err(failed(ErrorCode::TemplateError, false));
    };
    let tools = match grammar::plan(request, text.template.traits(), &prompt) {
        Ok(grammar::Plan {
            tools,
            grammar: None,
        }) => tools,
        // Constrained sampling would have to run at the last span, whose sampler has no
        // grammar; such jobs are not offered there (`structured_outputs: false`).
        _ => return Err(failed(ErrorCode::InvalidRequest, false)),
    };
    let tokens = text.tokenize(&prompt);
    if tokens.is_empty() || tokens.len() >= n_ctx {
        return Err(failed(ErrorCode::ContextLengthExceeded, false));
    }
    Ok((tools, prompt, tokens))
}

async fn run_session(
    node: &Arc<Node>,
    text: &Text,
    job: &Job,
    seat: Seat,
    resume: Option<Resume>,
    out: &mut JobOutput,
    cancel: CancellationToken,
) -> JobEnd {
    let request = &job.request;
    let n_ctx = node.n_ctx as usize;
    let (tools, prompt, tokens) = match prepare(text, request, n_ctx) {
        Ok(prepared) => prepared,
        Err(end) => return end,
    };
    let n_prompt = tokens.len();
    let taken_over = match resumed(resume, n_prompt) {
        Ok(t) => t,
        Err(end) => return end,
    };
    let mut incoming = node.listen(seat.session);
    if !send_tokens(node, out, seat, 0, &tokens) {
        return failed(ErrorCode::InferenceFailed, true);
    }
    let empty: [String; 0] = [];
    let mut g = Generation {
        node,
        text,
        seat,
        history: tokens,
        n_prompt,
        budget: (request.max_tokens as usize).min(n_ctx - n_prompt),
        usage: JobUsage {
            prompt_tokens: n_prompt as u64,
            ..JobUsage::default()
        },
        parser: OutputParser::new(tools, prompt.trim_end().ends_with("<think>")),
        stops: StopFilter::new(request.stop.as_ref().map_or(&empty[..], |s| s.as_slice())),
        utf8: Utf8Stream::default(),
        piece: Vec::with_capacity(32),
    };
    let mut taken_over = taken_over.into_iter();
    let mut finish = FinishReason::Length;
    while g.more() {
        let token = match taken_over.next() {
            Some(token) => token,
            None => match g.next_token(&mut incoming, out, &cancel).await {
                Ok(Some(token)) => token,
                Ok(None) => {
                    finish = FinishReason::Stop;
                    break;
                }
                Err(end) => return end,
            },
        };
        match g.take(token, out).await {
            Next::More => {}
            Next::Ended(reason) => {
                finish = reason;
                break;
            }
            Next::Failed(end) => return end,
        }
    }
    g.end(out, cancel.is_cancelled(), finish).await
}

async fn send_all(
    out: &mut JobOutput,
    deltas: Vec<Delta>,
) -> Result<(), crate::backend::Disconnected> {
    for d in deltas {
        out.send(d).await?;
    }
    Ok(())
}

#[cfg(test)]
mod tests;
