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
use shoal_protocol::swarm::{FrameHeader, FrameKind};
use shoal_protocol::worker::{ErrorCode, FinishReason, JobUsage};
use tokio_util::sync::CancellationToken;

use super::node::{Incoming, Node, Owned, Work};
use crate::backend::{Delta, Job, JobEnd, JobOutput};
use crate::llama::grammar::{self, ToolMode};
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
    let end = run_session(node, text, &job, session, seq, out, cancel).await;
    // A replay moved the job to another session number.
    let current = node.session_of(&job.id).map_or(session, |(s, _, _)| s);
    node.close(current);
    end
}

/// Sends `tokens` at `pos` through this span; what it makes goes on to the gateway.
fn step(
    node: &Arc<Node>,
    out: &JobOutput,
    session: u64,
    seq: i32,
    pos: u32,
    tokens: Vec<i32>,
) -> bool {
    let header = FrameHeader {
        kind: FrameKind::Hidden,
        dtype: node.frame_dtype,
        session,
        position: pos,
        tokens: tokens.len() as u32,
        width: node.n_embd as u32,
    };
    let (me, outbox) = (Arc::clone(node), out.outbox());
    node.submit(Work::Step {
        seq,
        pos,
        input: Owned::Tokens(tokens),
        reply: Box::new(move |made| me.forward(header, made, &outbox)),
    })
}

/// Sends `tokens` (positions `from..`) through this span in prompt-sized chunks.
fn send_tokens(
    node: &Arc<Node>,
    out: &JobOutput,
    session: u64,
    seq: i32,
    from: usize,
    tokens: &[i32],
) -> bool {
    tokens.chunks(PROMPT_CHUNK).enumerate().all(|(i, chunk)| {
        let pos = (from + i * PROMPT_CHUNK) as u32;
        step(node, out, session, seq, pos, chunk.to_vec())
    })
}

/// Sends the history through a new chain again, in the steps it was first computed in: the
/// prompt in its chunks, then each generated token on its own. Batched otherwise, llama.cpp's
/// sums would differ in their last bits, and a sampled draw near a boundary would differ too;
/// so the replay is exact, at the cost of one step per generated token. The steps go out at
/// once: each node runs a session's frames in order, so they pipeline through the chain.
fn replay(
    node: &Arc<Node>,
    out: &JobOutput,
    session: u64,
    seq: i32,
    history: &[i32],
    n_prompt: usize,
) -> bool {
    node.submit(Work::Forget { seq });
    let (prompt, generated) = history.split_at(n_prompt);
    send_tokens(node, out, session, seq, 0, prompt)
        && generated.iter().enumerate().all(|(i, t)| {
            let pos = (n_prompt + i) as u32;
            step(node, out, session, seq, pos, vec![*t])
        })
}

async fn run_session(
    node: &Arc<Node>,
    text: &Text,
    job: &Job,
    mut session: u64,
    seq: i32,
    out: &mut JobOutput,
    cancel: CancellationToken,
) -> JobEnd {
    let request = &job.request;
    let tools = match grammar::tool_mode(request) {
        ToolMode::None => false,
        ToolMode::Auto => text.template.supports_tools,
        // Constrained sampling would have to run at the last span; not offered there.
        ToolMode::Forced(_) => return failed(ErrorCode::InvalidRequest, false),
    };
    let Ok(prompt) = text.template.render(request, None) else {
        return failed(ErrorCode::TemplateError, false);
    };
    let tokens = text.tokenize(&prompt);
    let n_ctx = node.n_ctx as usize;
    if tokens.is_empty() || tokens.len() >= n_ctx {
        return failed(ErrorCode::ContextLengthExceeded, false);
    }
    let mut incoming = node.listen(session);
    let n_prompt = tokens.len();
    if !send_tokens(node, out, session, seq, 0, &tokens) {
        return failed(ErrorCode::InferenceFailed, true);
    }
    // The prompt and every token fed since: what a repaired chain is sent again. The next
    // token awaited is the one for position `history.len()`.
    let mut history = tokens;
    let budget = (request.max_tokens as usize).min(n_ctx - n_prompt);
    let mut usage = JobUsage {
        prompt_tokens: n_prompt as u64,
        ..JobUsage::default()
    };
    let mut parser = OutputParser::new(tools, prompt.trim_end().ends_with("<think>"));
    let empty: [String; 0] = [];
    let mut stops = StopFilter::new(request.stop.as_ref().map_or(&empty[..], |s| s.as_slice()));
    let mut utf8 = Utf8Stream::default();
    let mut piece = Vec::with_capacity(32);
    let mut finish = FinishReason::Length;
    while (usage.completion_tokens as usize) < budget {
        let token = tokio::select! {
            _ = cancel.cancelled() => { finish = FinishReason::Stop; break }
            got = tokio::time::timeout(TOKEN_DEADLINE, incoming.recv()) => match got {
                Ok(Some(Incoming::Token { position, token })) if position as usize == history.len() => token,
                // A token for an earlier prompt chunk's end: not a generated one.
                Ok(Some(Incoming::Token { .. })) => continue,
                Ok(Some(Incoming::Replay { to })) => {
                    // The position-seeded last span draws the same tokens again, so the
                    // client sees the stream go on where it was.
                    session = to;
                    if !replay(node, out, session, seq, &history, n_prompt) {
                        return failed(ErrorCode::InferenceFailed, false);
                    }
                    continue;
                }
                Ok(None) | Err(_) => return failed(ErrorCode::InferenceFailed, usage.completion_tokens == 0),
            },
        };
        if text.is_eog(token) {
            finish = FinishReason::Stop;
            break;
        }
        usage.completion_tokens += 1;
        usage.reasoning_tokens += u64::from(parser.in_reasoning());
        text.piece(token, &mut piece);
        let (said, stopped) = stops.push(&utf8.push(&piece));
        if send_all(out, parser.push(&said)).await.is_err() {
            return failed(ErrorCode::Disconnected, false);
        }
        if stopped {
            finish = FinishReason::Stop;
            break;
        }
        if (usage.completion_tokens as usize) >= budget {
            break;
        }
        if !step(node, out, session, seq, history.len() as u32, vec![token]) {
            return failed(ErrorCode::InferenceFailed, false);
        }
        history.push(token);
    }
    if !cancel.is_cancelled() {
        let (said, _) = stops.push(&utf8.finish());
        let mut tail = parser.push(&said);
        tail.extend(parser.push(&stops.finish()));
        tail.extend(parser.finish());
        if send_all(out, tail).await.is_err() {
            return failed(ErrorCode::Disconnected, false);
        }
    }
    if parser.tool_calls() > 0 {
        finish = FinishReason::ToolCalls;
    }
    JobEnd::Done {
        finish_reason: finish,
        usage,
    }
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
