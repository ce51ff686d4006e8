//! The scheduler: one llama.cpp context for the whole worker, one KV-cache sequence per
//! `--concurrency` slot, and one thread that drives them all.
//!
//! Each step builds one batch: the next token of every generating sequence, then chunks of the
//! prompts being read, up to a token budget (so a long prompt delays the others' next tokens
//! by one chunk at most, never by its whole length). The batch is decoded once and every
//! sequence whose logits came out is sampled with its own sampler (grammar, seed), its own
//! stop strings, output parser and cancellation.
//!
//! Prefix caching: a slot remembers the tokens its sequence holds. A new job goes to the free
//! slot whose tokens share the longest prefix with its prompt; the cache past that prefix is
//! dropped and only the rest of the prompt is read. The reused tokens are reported as
//! `cached_tokens` (billing counts them as prompt tokens all the same).
//!
//! Images: a prompt with images is read through mtmd in one go when its job is admitted
//! (mtmd's helper encodes and decodes its chunks itself, into one sequence, with no way to
//! share a batch), which holds the other sequences for that long; its tokens are then
//! generated in the shared batches like any other. Its cache is not offered for reuse: its
//! image positions have no token ids to match.

use std::sync::Arc;

use llama_cpp_2::context::LlamaContext;
use llama_cpp_2::llama_batch::LlamaBatch;
use llama_cpp_2::model::LlamaModel;
use llama_cpp_2::token::LlamaToken;
use shoal_protocol::worker::{ErrorCode, FinishReason, JobUsage};
use tokio::sync::mpsc;

use super::{
    cancelled, eval_multimodal, failed, job_sampler, send, Evaluated, Event, Task, TextOut, Vision,
};
use crate::backend::JobEnd;

/// The most tokens one decode takes: room for a token of every sequence, and a prompt chunk.
pub(super) fn n_batch(n_slots: u32) -> usize {
    512.max(2 * n_slots as usize)
}
/// The most prompt tokens a step reads while other sequences are generating: a chunk this
/// size costs the generating ones one step of a few hundred tokens, not a whole prompt.
const PREFILL_CHUNK: usize = 128;

/// The engine: the context, its slots and the batch they share.
pub(super) struct Engine {
    model: &'static LlamaModel,
    ctx: LlamaContext<'static>,
    vision: Option<Arc<Vision>>,
    slots: Vec<Slot>,
    /// Tokens per sequence: prompt and completion together.
    n_ctx: usize,
    /// The most tokens one decode takes (the context's `n_batch`).
    n_batch: usize,
    batch: LlamaBatch<'static>,
    /// The slot whose prompt is read first in the next step (turns go round).
    turn: usize,
}

/// One KV-cache sequence.
struct Slot {
    seq: i32,
    /// The tokens this sequence's cache holds, from position 0: what a next job may reuse.
    cached: Vec<LlamaToken>,
    job: Option<Active>,
}

/// The job a slot is running.
struct Active {
    task: Task,
    phase: Phase,
    /// Prompt tokens, image tokens included.
    n_prompt: usize,
    /// Prompt tokens that were already in the cache.
    n_cached: usize,
    /// Whether `cached` follows the sequence (not after an image prompt).
    reusable: bool,
}

enum Phase {
    /// Reading the prompt: the part past the slot's `cached` is still to decode.
    Reading(Vec<LlamaToken>),
    /// Generating; `next` is the sampled token that the next step decodes.
    Generating {
        generation: Box<Generation>,
        next: Option<LlamaToken>,
    },
}

/// The outcome of sampling one sequence.
enum Step {
    Next(LlamaToken),
    Finished(FinishReason),
}

impl Engine {
    pub(super) fn new(
        model: &'static LlamaModel,
        ctx: LlamaContext<'static>,
        vision: Option<Arc<Vision>>,
        n_slots: u32,
        n_ctx: usize,
    ) -> Self {
        let slots = (0..n_slots as i32)
            .map(|seq| Slot {
                seq,
                cached: Vec::new(),
                job: None,
            })
            .collect();
        Self {
            model,
            ctx,
            vision,
            slots,
            n_ctx,
            n_batch: n_batch(n_slots),
            batch: LlamaBatch::new(n_batch(n_slots), 1),
            turn: 0,
        }
    }

    /// Runs jobs until the channel closes and the last job is done. Blocking.
    pub(super) fn run(mut self, mut jobs: mpsc::Receiver<Task>) {
        loop {
            if !self.admit(&mut jobs) {
                return;
            }
            self.sweep_cancelled();
            let (members, rows) = self.fill_batch();
            if members.is_empty() {
                continue;
            }
            if self.ctx.decode(&mut self.batch).is_err() {
                tracing::error!(
                    sequences = members.len(),
                    "llama.cpp could not decode a batch"
                );
                for slot in members {
                    self.fail(slot);
                }
                continue;
            }
            for (slot, row) in rows {
                self.sample(slot, row);
            }
        }
    }

    /// Takes new jobs into free slots; waits for one when nothing runs. False once the
    /// channel is closed and nothing runs.
    fn admit(&mut self, jobs: &mut mpsc::Receiver<Task>) -> bool {
        if self.slots.iter().all(|s| s.job.is_none()) {
            match jobs.blocking_recv() {
                Some(task) => self.start(task),
                None => return false,
            }
        }
        while self.slots.iter().any(|s| s.job.is_none()) {
            match jobs.try_recv() {
                Ok(task) => self.start(task),
                Err(_) => break,
            }
        }
        true
    }

    /// Puts `task` on a free slot: the one sharing the longest prefix with its prompt.
    fn start(&mut self, task: Task) {
        if !task.images.is_empty() {
            return self.start_multimodal(task);
        }
        let vocab = self.model.vocab();
        let prompt = vocab.tokenize(task.prompt.as_bytes(), vocab.should_add_bos(), true);
        if prompt.is_empty() || prompt.len() >= self.n_ctx {
            return end(&task, failed(ErrorCode::ContextLengthExceeded, false));
        }
        let Some((slot, shared)) = self.pick(&prompt) else {
            return end(&task, failed(ErrorCode::InferenceFailed, true));
        };
        // The last prompt token is always decoded again: its logits are the first sample's.
        let keep = self.keep_prefix(slot, shared.min(prompt.len() - 1));
        tracing::debug!(slot, job_id = %task.job_id, prompt = prompt.len(), cached = keep, "slot generating");
        self.slots[slot].job = Some(Active {
            task,
            n_prompt: prompt.len(),
            n_cached: keep,
            phase: Phase::Reading(prompt),
            reusable: true,
        });
    }

    /// The free slot to run `prompt` on, and how many of its tokens that slot's cache holds.
    /// Ties go to the slot with the least cached: the least to lose.
    fn pick(&self, prompt: &[LlamaToken]) -> Option<(usize, usize)> {
        self.slots
            .iter()
            .enumerate()
            .filter(|(_, s)| s.job.is_none())
            .map(|(i, s)| (i, common_prefix(&s.cached, prompt), s.cached.len()))
            .max_by(|a, b| a.1.cmp(&b.1).then(b.2.cmp(&a.2)))
            .map(|(i, shared, _)| (i, shared))
    }

    /// Drops the slot's cache past its first `keep` tokens; returns how many it keeps (none
    /// where llama.cpp cannot cut a sequence in the middle).
    fn keep_prefix(&mut self, slot: usize, keep: usize) -> usize {
        let seq = self.slots[slot].seq;
        let cut = u32::try_from(keep)
            .ok()
            .and_then(|p0| self.ctx.kv_cache_seq_rm(seq, Some(p0), None).ok());
        let keep = if cut.is_some() {
            keep
        } else {
            // Removing a whole sequence always succeeds.
            let _ = self.ctx.kv_cache_seq_rm(seq, None, None);
            0
        };
        self.slots[slot].cached.truncate(keep);
        keep
    }

    /// Reads an image prompt at once (see the module's note) and samples its first token.
    fn start_multimodal(&mut self, task: Task) {
        let Some(vision) = self.vision.clone() else {
            return end(&task, failed(ErrorCode::VisionUnsupported, true));
        };
        let Some(slot) = self.pick(&[]).map(|(slot, _)| slot) else {
            return end(&task, failed(ErrorCode::InferenceFailed, true));
        };
        self.keep_prefix(slot, 0);
        tracing::debug!(slot, job_id = %task.job_id, "slot generating");
        let seq = self.slots[slot].seq;
        let evaluated =
            match eval_multimodal(self.model, &mut self.ctx, self.n_ctx, &vision, &task, seq) {
                Ok(e) => e,
                Err(e) => {
                    let _ = self.ctx.kv_cache_seq_rm(seq, None, None);
                    return slot_done(slot, &task, e);
                }
            };
        let Some(generation) = self.generation(&task, &evaluated) else {
            return;
        };
        self.slots[slot].job = Some(Active {
            task,
            n_prompt: evaluated.n_prompt,
            n_cached: 0,
            phase: Phase::Generating {
                generation,
                next: None,
            },
            reusable: false,
        });
        self.sample(slot, evaluated.logits_at);
    }

    /// The generation of a job whose prompt is read, or `None` (the job ended) where
    /// llama.cpp refuses its grammar.
    fn generation(&self, task: &Task, evaluated: &Evaluated) -> Option<Box<Generation>> {
        let Some(sampler) = job_sampler(self.model, task) else {
            tracing::error!(job_id = %task.job_id, "the job's grammar was refused by llama.cpp");
            end(task, failed(ErrorCode::InferenceFailed, false));
            return None;
        };
        Some(Box::new(Generation::new(
            task, evaluated, self.n_ctx, sampler,
        )))
    }

    /// Ends the jobs whose caller cancelled them.
    fn sweep_cancelled(&mut self) {
        for (i, slot) in self.slots.iter_mut().enumerate() {
            let Some(active) = &slot.job else { continue };
            if !active.task.cancel.is_cancelled() {
                continue;
            }
            let Some(active) = slot.job.take() else {
                continue;
            };
            let end_of_job = match active.phase {
                Phase::Reading(_) => cancelled(active.n_prompt),
                Phase::Generating { generation, .. } => {
                    generation.finish(&active.task, FinishReason::Stop)
                }
            };
            slot_done(i, &active.task, end_of_job);
        }
    }

    /// Fills the batch: each generating sequence's next token, then prompt chunks within the
    /// step's budget. Returns the slots with tokens in it, and the rows to sample (slot, row).
    fn fill_batch(&mut self) -> (Vec<usize>, Vec<(usize, i32)>) {
        self.batch.clear();
        let (mut members, mut rows) = (Vec::new(), Vec::new());
        for (i, slot) in self.slots.iter_mut().enumerate() {
            let Some(Active {
                phase: Phase::Generating { generation, next },
                reusable,
                ..
            }) = &mut slot.job
            else {
                continue;
            };
            let Some(token) = next.take() else { continue };
            if self
                .batch
                .add(token, generation.pos, &[slot.seq], true)
                .is_err()
            {
                continue;
            }
            generation.pos += 1;
            if *reusable {
                slot.cached.push(token);
            }
            members.push(i);
            rows.push((i, self.batch.n_tokens() - 1));
        }
        let mut budget = if members.is_empty() {
            self.n_batch
        } else {
            PREFILL_CHUNK.min(self.n_batch.saturating_sub(members.len()))
        };
        let n = self.slots.len();
        for k in 0..n {
            let i = (self.turn + k) % n;
            if budget == 0 {
                break;
            }
            let (read, done) = self.read_chunk(i, budget);
            if read > 0 {
                budget -= read;
                members.push(i);
            }
            if done {
                rows.push((i, self.batch.n_tokens() - 1));
            }
        }
        self.turn = (self.turn + 1) % n.max(1);
        (members, rows)
    }

    /// Adds up to `budget` of slot `i`'s unread prompt tokens to the batch. Returns how many,
    /// and whether they reach the prompt's end (its last token has logits).
    fn read_chunk(&mut self, i: usize, budget: usize) -> (usize, bool) {
        let slot = &mut self.slots[i];
        let Some(Active {
            phase: Phase::Reading(prompt),
            ..
        }) = &slot.job
        else {
            return (0, false);
        };
        let from = slot.cached.len();
        let to = prompt.len().min(from + budget);
        for (pos, &token) in prompt.iter().enumerate().take(to).skip(from) {
            let last = pos + 1 == prompt.len();
            if self
                .batch
                .add(token, pos as i32, &[slot.seq], last)
                .is_err()
            {
                return (pos - from, false);
            }
            slot.cached.push(token);
        }
        (to - from, to == prompt.len())
    }

    /// Samples slot `i`'s next token from output `row` of the last decode; a job whose
    /// prompt was just read starts generating first.
    fn sample(&mut self, i: usize, row: i32) {
        let Some(mut active) = self.slots[i].job.take() else {
            return;
        };
        if let Phase::Reading(prompt) = &active.phase {
            let evaluated = Evaluated {
                n_prompt: prompt.len(),
                pos: prompt.len() as i32,
                logits_at: row,
            };
            let Some(generation) = self.generation(&active.task, &evaluated) else {
                return;
            };
            active.phase = Phase::Generating {
                generation,
                next: None,
            };
        }
        let Phase::Generating { generation, next } = &mut active.phase else {
            return;
        };
        generation.usage.cached_tokens = active.n_cached as u64;
        match generation.step(self.model, &self.ctx, &active.task, row) {
            Ok(Step::Next(token)) => {
                *next = Some(token);
                self.slots[i].job = Some(active);
            }
            Ok(Step::Finished(reason)) => {
                if let Phase::Generating { generation, .. } = active.phase {
                    slot_done(i, &active.task, generation.finish(&active.task, reason));
                }
            }
            Err(end_of_job) => slot_done(i, &active.task, end_of_job),
        }
    }

    /// Ends slot `i`'s job after a failed decode; its sequence is emptied (what the failed
    /// batch left in it is unknown).
    fn fail(&mut self, i: usize) {
        let slot = &mut self.slots[i];
        slot.cached.clear();
        let _ = self.ctx.kv_cache_seq_rm(slot.seq, None, None);
        if let Some(active) = slot.job.take() {
            let produced = match &active.phase {
                Phase::Reading(_) => false,
                Phase::Generating { generation, .. } => generation.usage.completion_tokens > 0,
            };
            slot_done(
                i,
                &active.task,
                failed(ErrorCode::InferenceFailed, !produced),
            );
        }
    }
}

/// Ends the job slot `slot` was running; the log line pairs with its "slot generating" (the
/// job's id and the slot only).
fn slot_done(slot: usize, task: &Task, end_of_job: JobEnd) {
    tracing::debug!(slot, job_id = %task.job_id, "slot done");
    end(task, end_of_job);
}

/// Tells the job how it ended.
fn end(task: &Task, end: JobEnd) {
    let _ = task.events.send(Event::End(end));
}

/// How many tokens `a` and `b` share from the start.
fn common_prefix(a: &[LlamaToken], b: &[LlamaToken]) -> usize {
    a.iter().zip(b).take_while(|(x, y)| x == y).count()
}

/// One job's generation once its prompt is in the context.
pub(super) struct Generation {
    sampler: super::grammar::GuidedSampler,
    text: TextOut,
    usage: JobUsage,
    /// The most completion tokens: what the request allows and the context has room for.
    budget: usize,
    /// The position of the next token.
    pos: i32,
}

impl Generation {
    fn new(
        task: &Task,
        evaluated: &Evaluated,
        n_ctx: usize,
        sampler: super::grammar::GuidedSampler,
    ) -> Self {
        Self {
            sampler,
            text: TextOut::new(task),
            usage: JobUsage {
                prompt_tokens: evaluated.n_prompt as u64,
                ..JobUsage::default()
            },
            budget: (task.request.max_tokens as usize)
                .min(n_ctx.saturating_sub(evaluated.n_prompt)),
            pos: evaluated.pos,
        }
    }

    /// Samples a token from output `row` and sends its text; says whether the job goes on.
    fn step(
        &mut self,
        model: &'static LlamaModel,
        ctx: &LlamaContext<'static>,
        task: &Task,
        row: i32,
    ) -> Result<Step, JobEnd> {
        if (self.usage.completion_tokens as usize) >= self.budget {
            return Ok(Step::Finished(FinishReason::Length));
        }
        let vocab = model.vocab();
        let token = self.sampler.sample(ctx, row);
        if vocab.is_eog(token) {
            return Ok(Step::Finished(FinishReason::Stop));
        }
        self.usage.completion_tokens += 1;
        if self.text.parser.in_reasoning() {
            self.usage.reasoning_tokens += 1;
        }
        let mut piece = Vec::with_capacity(32);
        vocab.token_to_piece_into(token, &mut piece, false, None);
        let (deltas, stopped) = self.text.push(&piece);
        send(task, deltas)?;
        if stopped {
            return Ok(Step::Finished(FinishReason::Stop));
        }
        if (self.usage.completion_tokens as usize) >= self.budget {
            return Ok(Step::Finished(FinishReason::Length));
        }
        Ok(Step::Next(token))
    }

    /// Sends what was held back (unless cancelled) and says how the job ended.
    fn finish(mut self, task: &Task, finish: FinishReason) -> JobEnd {
        if finish != FinishReason::Stop || !task.cancel.is_cancelled() {
            if let Err(end) = send(task, self.text.finish()) {
                return end;
            }
        }
        let finish_reason = if self.text.parser.tool_calls() > 0 {
            FinishReason::ToolCalls
        } else {
            finish
        };
        JobEnd::Done {
            finish_reason,
            usage: self.usage,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn common_prefixes() {
        let t = |v: &[i32]| v.iter().map(|&i| LlamaToken(i)).collect::<Vec<_>>();
        assert_eq!(common_prefix(&t(&[1, 2, 3]), &t(&[1, 2, 4])), 2);
        assert_eq!(common_prefix(&t(&[]), &t(&[1])), 0);
        assert_eq!(common_prefix(&t(&[1, 2]), &t(&[1, 2, 3])), 2);
        assert_eq!(common_prefix(&t(&[5]), &t(&[1])), 0);
    }
}
