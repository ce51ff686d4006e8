//! The model's own tokenizer, rebuilt from its GGUF: byte-level BPE (`tokenizer.ggml.model`
//! `gpt2`) with the Qwen2 pre-tokenizer, special tokens matched first as llama.cpp does for a
//! prompt. The gateway bills what this counts, so it must agree with llama.cpp token for token
//! (the browser test checks it against wllama's own count).

use std::collections::HashMap;

use aho_corasick::{AhoCorasick, MatchKind};
use anyhow::{bail, Context};
use fancy_regex::Regex;

use crate::gguf::Meta;

/// The Qwen2 pre-tokenizer's pattern (llama.cpp `LLAMA_VOCAB_PRE_TYPE_QWEN2`).
const QWEN2: &str = r"(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+";

/// GGUF token types that are matched whole in a prompt (control, user-defined).
const SPECIAL_TYPES: [i64; 2] = [3, 4];

pub struct Vocab {
    ids: HashMap<String, u32>,
    ranks: HashMap<(String, String), usize>,
    /// Special tokens' ids, and a matcher that finds the leftmost, longest one in a text.
    special_ids: Vec<u32>,
    specials: AhoCorasick,
    byte_char: [char; 256],
    split: Regex,
    add_bos: bool,
    pub bos: String,
    pub eos: String,
}

impl std::fmt::Debug for Vocab {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Vocab")
            .field("tokens", &self.ids.len())
            .finish()
    }
}

fn strs<'a>(meta: &'a HashMap<String, Meta>, key: &str) -> anyhow::Result<&'a [String]> {
    match meta.get(key) {
        Some(Meta::Strs(v)) => Ok(v),
        _ => bail!("the GGUF has no {key}"),
    }
}

fn int(meta: &HashMap<String, Meta>, key: &str) -> Option<i64> {
    match meta.get(key) {
        Some(Meta::Int(v)) => Some(*v),
        _ => None,
    }
}

impl Vocab {
    pub fn from_meta(meta: &HashMap<String, Meta>) -> anyhow::Result<Self> {
        let model = matches!(meta.get("tokenizer.ggml.model"), Some(Meta::Str(m)) if m == "gpt2");
        let pre = matches!(meta.get("tokenizer.ggml.pre"), Some(Meta::Str(p)) if p == "qwen2");
        if !model || !pre {
            bail!("only byte-level BPE vocabularies with the qwen2 pre-tokenizer are supported");
        }
        let tokens = strs(meta, "tokenizer.ggml.tokens")?;
        let types = match meta.get("tokenizer.ggml.token_type") {
            Some(Meta::Ints(t)) => t.clone(),
            _ => vec![1; tokens.len()],
        };
        let mut ranks = HashMap::new();
        for (rank, m) in strs(meta, "tokenizer.ggml.merges")?.iter().enumerate() {
            let (a, b) = m.split_once(' ').context("a merge without a space")?;
            ranks.entry((a.to_owned(), b.to_owned())).or_insert(rank);
        }
        let (special_ids, special_texts): (Vec<u32>, Vec<&String>) = (tokens.iter().zip(&types))
            .enumerate()
            .filter(|(_, (_, t))| SPECIAL_TYPES.contains(t))
            .map(|(i, (s, _))| (i as u32, s))
            .unzip();
        let specials = AhoCorasick::builder()
            .match_kind(MatchKind::LeftmostLongest)
            .build(special_texts)?;
        let token = |key| int(meta, key).and_then(|i| tokens.get(i as usize)).cloned();
        Ok(Self {
            ids: (tokens.iter().enumerate())
                .map(|(i, t)| (t.clone(), i as u32))
                .collect(),
            ranks,
            special_ids,
            specials,
            byte_char: shoal_worker::llama::test_model::byte_alphabet(),
            split: Regex::new(QWEN2)?,
            add_bos: matches!(
                meta.get("tokenizer.ggml.add_bos_token"),
                Some(Meta::Bool(true))
            ),
            bos: token("tokenizer.ggml.bos_token_id").unwrap_or_default(),
            eos: token("tokenizer.ggml.eos_token_id").unwrap_or_default(),
        })
    }

    /// The token ids of `text`, special tokens parsed (as llama.cpp tokenizes a prompt).
    pub fn encode(&self, text: &str, with_bos: bool) -> Vec<u32> {
        let mut out = Vec::new();
        if with_bos && self.add_bos {
            out.extend(self.ids.get(&self.bos));
        }
        let mut at = 0;
        for m in self.specials.find_iter(text) {
            self.encode_plain(&text[at..m.start()], &mut out);
            out.push(self.special_ids[m.pattern().as_usize()]);
            at = m.end();
        }
        self.encode_plain(&text[at..], &mut out);
        out
    }

    /// The tokens whose bytes are not UTF-8 on their own (a lone continuation byte, a lead
    /// byte without its tail). wllama 3.8.1 aborts when it streams one, so tabs are told to
    /// never sample them (`/worker/config.json`); whole characters have tokens of their own.
    pub fn broken_tokens(&self) -> Vec<u32> {
        let mut byte_of = HashMap::new();
        for (b, c) in self.byte_char.iter().enumerate() {
            byte_of.insert(*c, b as u8);
        }
        let mut out: Vec<u32> = (self.ids.iter())
            .filter(|(_, id)| self.special_ids.binary_search(id).is_err())
            .filter(|(text, _)| {
                let bytes: Option<Vec<u8>> =
                    text.chars().map(|c| byte_of.get(&c).copied()).collect();
                bytes.is_some_and(|b| std::str::from_utf8(&b).is_err())
            })
            .map(|(_, id)| *id)
            .collect();
        out.sort_unstable();
        out
    }

    /// How many tokens `text` is (specials parsed, no BOS).
    pub fn count(&self, text: &str) -> u64 {
        self.encode(text, false).len() as u64
    }

    fn encode_plain(&self, text: &str, out: &mut Vec<u32>) {
        for piece in self.split.find_iter(text).filter_map(Result::ok) {
            let symbols: Vec<String> = (piece.as_str().bytes())
                .map(|b| self.byte_char[b as usize].to_string())
                .collect();
            for s in self.merge(symbols) {
                // Every byte is in a byte-level vocabulary; a file without them counts its
                // unknown symbol as one token, as llama.cpp does.
                out.push(self.ids.get(&s).copied().unwrap_or(0));
            }
        }
    }

    /// Applies the merges, lowest rank first, until none applies.
    fn merge(&self, mut symbols: Vec<String>) -> Vec<String> {
        loop {
            let best = (symbols.windows(2).enumerate())
                .filter_map(|(i, w)| {
                    let key = (w[0].clone(), w[1].clone());
                    self.ranks.get(&key).map(|r| (*r, i))
                })
                .min();
            let Some((_, i)) = best else { return symbols };
            let right = symbols.remove(i + 1);
            symbols[i].push_str(&right);
        }
    }
}
