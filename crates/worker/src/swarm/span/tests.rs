use shoal_protocol::swarm::{Dtype, FrameHeader};

use super::*;
use crate::llama::test_model;
use crate::swarm::node::{hidden_frame, read_hidden};
use crate::swarm::slice;

const SIZE: ContextSize = ContextSize {
    n_ctx: 256,
    sessions: 2,
    threads: 1,
};

/// Hidden rows as the next node gets them: through a frame of `dtype` and back.
fn hop(rows: &[f32], n_embd: usize, dtype: Dtype) -> Vec<f32> {
    let frame = hidden_frame(1, 0, rows, n_embd, dtype);
    let (header, payload) = FrameHeader::decode(&frame).unwrap();
    read_hidden(&header, payload, n_embd).unwrap()
}

/// Runs `tokens` (at `pos`) of session `seq` through a chain, hidden states travelling as
/// `dtype`; the exit's logits.
fn through_as(
    chain: &mut [SpanContext<'_>],
    seq: i32,
    pos: u32,
    tokens: &[i32],
    dtype: Dtype,
) -> Vec<f32> {
    let n_embd = chain[0].model.n_embd;
    chain[0].step(seq, pos, Input::Tokens(tokens)).unwrap();
    let mut hidden = hop(chain[0].hidden(), n_embd, dtype);
    for ctx in &mut chain[1..] {
        ctx.step(seq, pos, Input::Hidden(&hidden)).unwrap();
        if !ctx.is_exit() {
            hidden = hop(ctx.hidden(), n_embd, dtype);
        }
    }
    chain.last().unwrap().logits().to_vec()
}

fn through(chain: &mut [SpanContext<'_>], seq: i32, pos: u32, tokens: &[i32]) -> Vec<f32> {
    through_as(chain, seq, pos, tokens, Dtype::F32)
}

/// Greedy generation of `n` tokens after `prompt`, hidden states travelling as `dtype`;
/// every step's logits too.
fn generate_as(
    chain: &mut [SpanContext<'_>],
    seq: i32,
    prompt: &[i32],
    n: usize,
    dtype: Dtype,
) -> (Vec<i32>, Vec<Vec<f32>>) {
    let mut logits = through_as(chain, seq, 0, prompt, dtype);
    let (mut tokens, mut all) = (Vec::new(), vec![logits.clone()]);
    for i in 0..n {
        let t = sample(&logits, 0.0, 1.0, 0, 0);
        tokens.push(t);
        logits = through_as(chain, seq, (prompt.len() + i) as u32, &[t], dtype);
        all.push(logits.clone());
    }
    (tokens, all)
}

fn generate(
    chain: &mut [SpanContext<'_>],
    seq: i32,
    prompt: &[i32],
    n: usize,
) -> (Vec<i32>, Vec<Vec<f32>>) {
    generate_as(chain, seq, prompt, n, Dtype::F32)
}

fn tempdir() -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("shoal-span-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn three_spans_equal_the_whole_model_and_survive_a_replaced_node() {
    let dir = tempdir();
    let full = dir.join("full.gguf");
    test_model::write_layers(&full, 512, 6).unwrap();
    let parts: Vec<SpanModel> = [0..2, 2..4, 4..6]
        .into_iter()
        .map(|r| {
            let path = dir.join(format!("span-{}-{}.gguf", r.start, r.end));
            slice::slice(&full, r, &path).unwrap();
            SpanModel::load(&path).unwrap()
        })
        .collect();
    let whole = SpanModel::load(&full).unwrap();
    assert_eq!((whole.n_layer, parts[1].n_layer), (6, 2));
    let prompt: Vec<i32> = vec![5, 77, 200, 12, 64, 9, 41, 150, 3];

    let mut one = vec![SpanContext::new(&whole, SIZE, true).unwrap()];
    let (want, want_logits) = generate(&mut one, 0, &prompt, 24);

    let mut chain: Vec<SpanContext<'_>> = parts
        .iter()
        .enumerate()
        .map(|(i, m)| SpanContext::new(m, SIZE, i == 2).unwrap())
        .collect();
    // Session 1, so that a sequence id other than 0 is exercised.
    let (got, got_logits) = generate(&mut chain, 1, &prompt, 24);
    assert_eq!(got, want, "the chain's greedy tokens");
    assert!(
        got_logits == want_logits,
        "logits differ between the chain and the whole model"
    );
    assert!(
        want.iter().collect::<std::collections::HashSet<_>>().len() > 3,
        "degenerate output"
    );

    // The middle node is replaced after 12 tokens: the repaired chain re-reads the prompt and
    // the tokens so far, then goes on; the continuation is the same.
    for ctx in &mut chain {
        ctx.drop_session(1);
    }
    chain[1] = SpanContext::new(&parts[1], SIZE, false).unwrap();
    let mut history = prompt.clone();
    history.extend_from_slice(&want[..12]);
    let (rest, _) = generate(&mut chain, 1, &history, 12);
    assert_eq!(rest, want[12..], "the repaired chain's continuation");

    // Hidden states sent as f16 are rounded at each hop: on this model the greedy tokens
    // still match the whole model's (the logits no longer do bit for bit).
    chain.iter_mut().for_each(|c| c.drop_session(1));
    let (half, _) = generate_as(&mut chain, 1, &prompt, 24, Dtype::F16);
    assert_eq!(half, want, "the chain's greedy tokens with f16 frames");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn sampling_is_greedy_at_zero_and_a_function_of_seed_and_position() {
    let logits = [0.1, 2.0, 1.9, -1.0];
    assert_eq!(sample(&logits, 0.0, 1.0, 7, 3), 1);
    assert_eq!(
        sample(&logits, 1.0, 0.01, 7, 3),
        1,
        "top_p keeps only the best"
    );
    let draws: Vec<i32> = (0..64).map(|p| sample(&logits, 1.0, 1.0, 7, p)).collect();
    let again: Vec<i32> = (0..64).map(|p| sample(&logits, 1.0, 1.0, 7, p)).collect();
    assert_eq!(draws, again);
    assert!(draws.contains(&1) && draws.contains(&2), "{draws:?}");
    let other: Vec<i32> = (0..64).map(|p| sample(&logits, 1.0, 1.0, 8, p)).collect();
    assert_ne!(draws, other, "another seed draws otherwise");
}

#[test]
fn a_replay_in_the_original_steps_gives_the_same_logits_bit_for_bit() {
    let dir = tempdir().join("replay");
    std::fs::create_dir_all(&dir).unwrap();
    let full = dir.join("full.gguf");
    test_model::write_layers(&full, 512, 6).unwrap();
    let whole = SpanModel::load(&full).unwrap();
    let mut one = vec![SpanContext::new(&whole, SIZE, true).unwrap()];
    let prompt: Vec<i32> = vec![5, 77, 200, 12, 64, 9, 41, 150, 3];
    let (tokens, logits) = generate(&mut one, 0, &prompt, 12);
    // What the entry does on a replay: the prompt as one step, then each generated token as
    // its own step, as they were first computed. (One batch of all of them would differ in
    // the last bits, and a sampled draw near a boundary would then differ too.)
    through(&mut one, 1, 0, &prompt);
    let mut last = Vec::new();
    for (i, t) in tokens[..8].iter().enumerate() {
        last = through(&mut one, 1, (prompt.len() + i) as u32, &[*t]);
    }
    assert!(last == logits[8], "the replayed logits differ");
    std::fs::remove_dir_all(&dir).unwrap();
}
