//! The tiny random-weight test model that `shoal serve --demo` runs on, written without Python.
//!
//! It is the model `scripts/make-test-model OUT.gguf` writes, byte for byte (the e2e quick-start
//! test compares the two): a llama-architecture network (64 wide, 2 layers, 4/2 heads) with a
//! byte-level BPE tokenizer (GPT-2 byte alphabet, merges learned from a small built-in text,
//! ChatML special tokens) and a Qwen2.5-style chat template with tools. Its weights are noise, so
//! its text is too; loading, templating, sampling, streaming and counting are all real. The
//! template and the text live beside this file, and the script reads the same files.

mod gguf;

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::Path;

use gguf::{GgufWriter, Value};

/// The model's Jinja chat template (`tokenizer.chat_template`).
pub const CHAT_TEMPLATE: &str = include_str!("chat_template.jinja");
/// The text the tokenizer's merges are learned from (ASCII).
const CORPUS: &str = include_str!("corpus.txt");

/// GGUF token types.
const NORMAL: i32 = 1;
const CONTROL: i32 = 3;
const USER_DEFINED: i32 = 4;

/// Special tokens, after the learned ones. CONTROL tokens are not printed when a completion is
/// detokenized; USER_DEFINED ones (think and tool-call markers) are, so the output parser sees
/// them.
const SPECIALS: [(&str, i32); 7] = [
    ("<|endoftext|>", CONTROL),
    ("<|im_start|>", CONTROL),
    ("<|im_end|>", CONTROL),
    ("<tool_call>", USER_DEFINED),
    ("</tool_call>", USER_DEFINED),
    ("<think>", USER_DEFINED),
    ("</think>", USER_DEFINED),
];

/// At most this many merges are learned (fewer when no pair occurs twice).
const MAX_MERGES: usize = 400;

/// The shape: embedding width, layers, heads, key-value heads, feed-forward width.
const N_EMBD: u64 = 64;
const N_LAYER: u64 = 2;
const N_HEAD: u64 = 4;
const N_HEAD_KV: u64 = 2;
const N_FF: u64 = 128;
/// The weights' seed (the projector's, which only the script writes, is the next one).
const SEED: u64 = 20250101;

/// Writes the model to `path` (through a temporary file beside it, so that a reader never sees
/// half a model) with the given context length (the script's default is 4096).
pub fn write(path: &Path, context_length: u32) -> std::io::Result<()> {
    write_layers(path, context_length, N_LAYER as u32)
}

/// [`write`] with another layer count (the swarm's tests split a 6-layer one into spans).
pub fn write_layers(path: &Path, context_length: u32, layers: u32) -> std::io::Result<()> {
    write_model(path, context_length, layers, CHAT_TEMPLATE)
}

/// [`write`] with another chat template (a reasoning model's, for the structured-output
/// tests). Not the script's model: its bytes differ in the template alone.
pub fn write_with_template(
    path: &Path,
    context_length: u32,
    template: &str,
) -> std::io::Result<()> {
    write_model(path, context_length, N_LAYER as u32, template)
}

fn write_model(
    path: &Path,
    context_length: u32,
    layers: u32,
    template: &str,
) -> std::io::Result<()> {
    let tmp = path.with_extension(format!("tmp{}", std::process::id()));
    let mut file = std::io::BufWriter::new(std::fs::File::create(&tmp)?);
    model(context_length, layers.into(), template).write_to(&mut file)?;
    file.into_inner()?.sync_all()?;
    std::fs::rename(&tmp, path)
}

/// The whole file, in the order the script's `gguf.GGUFWriter` calls put it.
fn model(context_length: u32, n_layer: u64, template: &str) -> GgufWriter {
    let mut w = GgufWriter::new();
    let n_vocab = add_metadata(&mut w, context_length, n_layer, template);
    add_tensors(&mut w, n_layer, n_vocab);
    w
}

/// The key-value metadata: the shape, the tokenizer, the chat template. Returns the
/// vocabulary's size.
fn add_metadata(w: &mut GgufWriter, context_length: u32, n_layer: u64, template: &str) -> u64 {
    let (tokens, types, merges) = vocabulary();
    let id = |text: &str| tokens.iter().position(|t| t == text).expect("special") as u32;
    let (bos, eos) = (id("<|endoftext|>"), id("<|im_end|>"));
    let n_vocab = tokens.len() as u64;
    let head_dim = N_EMBD / N_HEAD;
    for (key, value) in [
        ("general.architecture", Value::Str("llama".into())),
        ("general.name", Value::Str("shoal-test-tiny".into())),
        ("general.file_type", Value::U32(0)), // all F32
        ("llama.context_length", Value::U32(context_length)),
        ("llama.embedding_length", Value::U32(N_EMBD as u32)),
        ("llama.block_count", Value::U32(n_layer as u32)),
        ("llama.feed_forward_length", Value::U32(N_FF as u32)),
        ("llama.attention.head_count", Value::U32(N_HEAD as u32)),
        (
            "llama.attention.head_count_kv",
            Value::U32(N_HEAD_KV as u32),
        ),
        ("llama.rope.dimension_count", Value::U32(head_dim as u32)),
        ("llama.rope.freq_base", Value::F32(1_000_000.0)),
        // Rounded from the double, as Python's struct.pack rounds it.
        (
            "llama.attention.layer_norm_rms_epsilon",
            Value::F32(1e-6f64 as f32),
        ),
        ("llama.vocab_size", Value::U32(n_vocab as u32)),
        ("tokenizer.ggml.model", Value::Str("gpt2".into())),
        ("tokenizer.ggml.pre", Value::Str("qwen2".into())),
        ("tokenizer.ggml.tokens", Value::StrArray(tokens.clone())),
        ("tokenizer.ggml.token_type", Value::I32Array(types)),
        ("tokenizer.ggml.merges", Value::StrArray(merges)),
        ("tokenizer.ggml.bos_token_id", Value::U32(bos)),
        ("tokenizer.ggml.eos_token_id", Value::U32(eos)),
        ("tokenizer.ggml.padding_token_id", Value::U32(bos)),
        ("tokenizer.ggml.add_bos_token", Value::Bool(false)),
        ("tokenizer.chat_template", Value::Str(template.into())),
    ] {
        w.add(key, value);
    }
    n_vocab
}

/// The weights: norms of ones, every other matrix noise.
fn add_tensors(w: &mut GgufWriter, n_layer: u64, n_vocab: u64) {
    let head_dim = N_EMBD / N_HEAD;
    let mut noise = Noise::new(SEED);
    // (name, rows, columns): a noise matrix; columns 0: a norm of `rows` ones.
    let mut tensors = vec![("token_embd.weight".to_owned(), n_vocab, N_EMBD)];
    for i in 0..n_layer {
        let q = N_HEAD * head_dim;
        let kv = N_HEAD_KV * head_dim;
        for (name, rows, cols) in [
            ("attn_norm", N_EMBD, 0),
            ("attn_q", q, N_EMBD),
            ("attn_k", kv, N_EMBD),
            ("attn_v", kv, N_EMBD),
            ("attn_output", N_EMBD, q),
            ("ffn_norm", N_EMBD, 0),
            ("ffn_gate", N_FF, N_EMBD),
            ("ffn_up", N_FF, N_EMBD),
            ("ffn_down", N_EMBD, N_FF),
        ] {
            tensors.push((format!("blk.{i}.{name}.weight"), rows, cols));
        }
    }
    tensors.push(("output_norm.weight".into(), N_EMBD, 0));
    tensors.push(("output.weight".into(), n_vocab, N_EMBD));
    for (name, rows, cols) in tensors {
        if cols == 0 {
            w.add_tensor(&name, &[rows], vec![1.0; rows as usize]);
        } else {
            w.add_tensor(&name, &[cols, rows], noise.take((rows * cols) as usize));
        }
    }
}

/// The weights: uniform in [-2^-5, 2^-5), element i (from 1, across every tensor in the order
/// they are written) from splitmix64's output for the state `seed + i * 0x9E37…`, its top 24
/// bits centred and scaled by 2^-28 (exact in f32, so NumPy computes the same values).
struct Noise {
    seed: u64,
    taken: u64,
}

impl Noise {
    fn new(seed: u64) -> Self {
        Self { seed, taken: 0 }
    }

    fn take(&mut self, count: usize) -> Vec<f32> {
        let start = self.taken;
        self.taken += count as u64;
        (start + 1..=self.taken)
            .map(|i| {
                let mut z = self
                    .seed
                    .wrapping_add(i.wrapping_mul(0x9E37_79B9_7F4A_7C15));
                z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
                z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
                z ^= z >> 31;
                ((z >> 40) as i64 - (1 << 23)) as f32 * (1.0 / (1u64 << 28) as f32)
            })
            .collect()
    }
}

/// The tokens (byte alphabet, learned merges, specials), their types, and the merges as
/// `"a b"`.
fn vocabulary() -> (Vec<String>, Vec<i32>, Vec<String>) {
    let alphabet = byte_alphabet();
    let mut tokens: Vec<String> = alphabet.iter().map(|c| c.to_string()).collect();
    let mut seen: HashSet<String> = tokens.iter().cloned().collect();
    let merges = learn_merges(&alphabet);
    for (a, b) in &merges {
        let joined = format!("{a}{b}");
        if seen.insert(joined.clone()) {
            tokens.push(joined);
        }
    }
    let mut types = vec![NORMAL; tokens.len()];
    for (text, kind) in SPECIALS {
        tokens.push(text.to_owned());
        types.push(kind);
    }
    let merges = merges.iter().map(|(a, b)| format!("{a} {b}")).collect();
    (tokens, types, merges)
}

/// GPT-2's reversible byte → character map: printable Latin-1 bytes stand for themselves, the
/// others for the characters from U+0100 on, in byte order.
pub fn byte_alphabet() -> [char; 256] {
    let printable = |b: u8| matches!(b, b'!'..=b'~' | 0xA1..=0xAC | 0xAE..=0xFF);
    let mut map = ['\0'; 256];
    let mut next = 256u32;
    for b in 0..=255u8 {
        map[b as usize] = if printable(b) {
            char::from(b)
        } else {
            next += 1;
            char::from_u32(next - 1).expect("below U+0200")
        };
    }
    map
}

/// Byte-pair merges learned from [`CORPUS`]: each round merges the most frequent adjacent pair
/// (ties to the greatest pair), until [`MAX_MERGES`] or no pair occurs twice.
fn learn_merges(alphabet: &[char; 256]) -> Vec<(String, String)> {
    let mut words: HashMap<Vec<String>, u64> = HashMap::new();
    for word in pretokenize(CORPUS) {
        let symbols = word.bytes().map(|b| alphabet[b as usize].to_string());
        *words.entry(symbols.collect()).or_default() += 1;
    }
    let mut merges = Vec::new();
    while merges.len() < MAX_MERGES {
        let mut pairs: BTreeMap<(&str, &str), u64> = BTreeMap::new();
        for (word, freq) in &words {
            for w in word.windows(2) {
                *pairs.entry((&w[0], &w[1])).or_default() += freq;
            }
        }
        let Some(((a, b), count)) = pairs.into_iter().max_by_key(|&(pair, n)| (n, pair)) else {
            break;
        };
        if count < 2 {
            break;
        }
        let (a, b) = (a.to_owned(), b.to_owned());
        let mut merged: HashMap<Vec<String>, u64> = HashMap::new();
        for (word, freq) in words {
            *merged.entry(merge_pair(word, &a, &b)).or_default() += freq;
        }
        words = merged;
        merges.push((a, b));
    }
    merges
}

/// `word` with every non-overlapping `a b`, left to right, joined into one symbol.
fn merge_pair(word: Vec<String>, a: &str, b: &str) -> Vec<String> {
    let mut out = Vec::with_capacity(word.len());
    let mut i = 0;
    while i < word.len() {
        if i + 1 < word.len() && word[i] == a && word[i + 1] == b {
            out.push(format!("{a}{b}"));
            i += 2;
        } else {
            out.push(word[i].clone());
            i += 1;
        }
    }
    out
}

/// Splits ASCII text as the Qwen2 pre-tokenizer's pattern does (the script's `PRETOKENIZE`):
/// `(?i:'s|'t|'re|'ve|'m|'ll|'d) | [^\r\nA-Za-z0-9]?[A-Za-z]+ | [0-9] | ␠?[^\sA-Za-z0-9]+[\r\n]*
/// | \s*[\r\n]+ | \s+(?!\S) | \s+`, the first alternative that matches at each position.
fn pretokenize(text: &str) -> Vec<&str> {
    assert!(text.is_ascii(), "the corpus is ASCII");
    let bytes = text.as_bytes();
    let mut pieces = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let len = piece_len(&bytes[i..]);
        pieces.push(&text[i..i + len]);
        i += len;
    }
    pieces
}

/// Python's `\s` on ASCII.
fn is_space(b: u8) -> bool {
    matches!(b, b'\t'..=b'\r' | 0x1C..=0x1F | b' ')
}

fn is_newline(b: u8) -> bool {
    b == b'\r' || b == b'\n'
}

/// Neither whitespace nor a letter or digit.
fn is_symbol(b: u8) -> bool {
    !is_space(b) && !b.is_ascii_alphanumeric()
}

/// The length of the piece that starts `s` (not empty).
fn piece_len(s: &[u8]) -> usize {
    let run = |from: usize, f: fn(u8) -> bool| s[from..].iter().take_while(|&&b| f(b)).count();
    let letters = |from: usize| run(from, |b| b.is_ascii_alphabetic());
    let c = s[0];
    if c == b'\'' {
        let rest = s[1..].to_ascii_lowercase();
        if let Some(n) = ["s", "t", "re", "ve", "m", "ll", "d"]
            .iter()
            .find(|suffix| rest.starts_with(suffix.as_bytes()))
            .map(|suffix| 1 + suffix.len())
        {
            return n;
        }
    }
    // An optional leading character that is not a newline or digit, then letters.
    let prefix = usize::from(!c.is_ascii_alphabetic());
    if !is_newline(c) && !c.is_ascii_digit() && letters(prefix) > 0 {
        return prefix + letters(prefix);
    }
    if c.is_ascii_digit() {
        return 1;
    }
    let space = usize::from(c == b' ' && s.len() > 1 && is_symbol(s[1]));
    if is_symbol(s[space]) {
        let symbols = space + run(space, is_symbol);
        return symbols + run(symbols, is_newline);
    }
    // Whitespace: up to its last newline; else all of it but the last character when a
    // non-space follows; else all of it.
    let spaces = run(0, is_space);
    if let Some(last_newline) = s[..spaces].iter().rposition(|&b| is_newline(b)) {
        return last_newline + 1;
    }
    if spaces > 1 && spaces < s.len() {
        return spaces - 1;
    }
    spaces
}

#[cfg(all(test, feature = "llama"))]
mod tests;
