use std::collections::HashMap;

use llama_cpp_2::model::params::LlamaModelParams;
use llama_cpp_2::model::LlamaModel;

use super::*;
use crate::llama::{llama_backend, LlamaCppBackend, LlamaOptions};
use crate::ChatBackend as _;

#[test]
fn pretokenizer_splits_as_the_qwen2_pattern() {
    // Each row as Python's `re.findall` splits it with the script's PRETOKENIZE.
    let cases: [(&str, &[&str]); 7] = [
        ("Hello, world", &["Hello", ",", " world"]),
        (
            "It'S 42 {\"a\": 1}.\n\n  x  \n",
            &[
                "It", "'S", " ", "4", "2", " {\"", "a", "\":", " ", "1", "}.\n\n", " ", " x",
                "  \n",
            ],
        ),
        ("\tx  ?? y", &["\tx", " ", " ??", " y"]),
        ("a   b", &["a", "  ", " b"]),
        ("end  ", &["end", "  "]),
        ("'x 'LL", &["'x", " '", "LL"]),
        (" \r\n\t  z", &[" \r\n", "\t ", " z"]),
    ];
    for (text, want) in cases {
        assert_eq!(pretokenize(text), want, "{text:?}");
    }
}

#[test]
fn vocabulary_is_alphabet_merges_and_specials() {
    let (tokens, types, merges) = vocabulary();
    assert_eq!(tokens.len(), types.len());
    assert!(!merges.is_empty() && merges.len() <= MAX_MERGES);
    let alphabet = byte_alphabet();
    let distinct: HashSet<char> = alphabet.iter().copied().collect();
    assert_eq!(distinct.len(), 256);
    assert_eq!(alphabet[b' ' as usize], 'Ġ');
    assert_eq!(alphabet[b'\n' as usize], 'Ċ');
    let index: HashMap<&str, usize> = tokens
        .iter()
        .enumerate()
        .map(|(i, t)| (t.as_str(), i))
        .collect();
    assert_eq!(index.len(), tokens.len(), "tokens are distinct");
    for merge in &merges {
        let (a, b) = merge.split_once(' ').expect("two halves");
        assert!(index.contains_key(a) && index.contains_key(b), "{merge}");
        assert!(index[&*format!("{a}{b}")] >= 256, "{merge}");
    }
    let n = tokens.len();
    for (k, (text, kind)) in SPECIALS.iter().enumerate() {
        assert_eq!(
            (tokens[n - 7 + k].as_str(), types[n - 7 + k]),
            (*text, *kind)
        );
    }
}

#[test]
fn noise_is_bounded_centred_and_continues_across_tensors() {
    let mut a = Noise::new(SEED);
    let whole = a.take(10_000);
    let mut b = Noise::new(SEED);
    let mut parts = b.take(3);
    parts.extend(b.take(9_997));
    assert_eq!(whole, parts);
    let bound = 1.0 / 32.0;
    assert!(whole.iter().all(|v| (-bound..bound).contains(v)));
    let mean = whole.iter().map(|&v| f64::from(v)).sum::<f64>() / whole.len() as f64;
    assert!(mean.abs() < 0.001, "{mean}");
    assert_ne!(Noise::new(SEED + 1).take(4), whole[..4]);
}

/// Token ids of `text` by applying the learned merges, lowest rank first, within each
/// pre-tokenized piece: what a byte-level BPE tokenizer that read the merges must produce.
fn bpe(text: &str) -> Vec<i32> {
    let (tokens, _, merges) = vocabulary();
    let id: HashMap<&str, i32> = tokens
        .iter()
        .enumerate()
        .map(|(i, t)| (t.as_str(), i as i32))
        .collect();
    let rank: HashMap<&str, usize> = merges
        .iter()
        .enumerate()
        .map(|(i, m)| (m.as_str(), i))
        .collect();
    let alphabet = byte_alphabet();
    let mut out = Vec::new();
    for piece in pretokenize(text) {
        let mut parts: Vec<String> = piece
            .bytes()
            .map(|b| alphabet[b as usize].to_string())
            .collect();
        while let Some((_, i)) = (0..parts.len().saturating_sub(1))
            .filter_map(|i| Some((*rank.get(&*format!("{} {}", parts[i], parts[i + 1]))?, i)))
            .min()
        {
            let right = parts.remove(i + 1);
            parts[i].push_str(&right);
        }
        out.extend(parts.iter().map(|p| id[p.as_str()]));
    }
    out
}

#[test]
fn llama_cpp_loads_the_written_file_and_tokenizes_by_its_merges() {
    let dir = std::env::temp_dir().join(format!("shoal-test-model-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("tiny.gguf");
    write(&path, 2048).unwrap();

    let model = LlamaModel::load_from_file(
        llama_backend().unwrap(),
        &path,
        &LlamaModelParams::default(),
    )
    .unwrap();
    let (tokens, _, _) = vocabulary();
    assert_eq!(model.n_vocab() as usize, tokens.len());
    assert_eq!(model.n_ctx_train(), 2048);
    assert_eq!(
        model.meta_val_str("tokenizer.chat_template").unwrap(),
        CHAT_TEMPLATE
    );
    let vocab = model.vocab();
    let ids = |text: &str| -> Vec<i32> {
        vocab
            .tokenize(text.as_bytes(), false, true)
            .iter()
            .map(|t| t.0)
            .collect()
    };
    for (text, _) in SPECIALS {
        let want = tokens.iter().position(|t| t == text).unwrap() as i32;
        assert_eq!(ids(text), [want], "{text}");
    }
    let text = CORPUS.lines().take(3).collect::<Vec<_>>().join("\n");
    let want = bpe(&text);
    assert!(want.len() * 2 < text.len(), "the merges shorten the text");
    assert_eq!(ids(&text), want);

    // The backend serves it: template with tools, context, slots.
    let options = LlamaOptions {
        gguf: path.clone(),
        mmproj: None,
        ctx: Some(512),
        threads: Some(1),
        concurrency: 1,
        progress: false,
    };
    let backend = LlamaCppBackend::load(&options, vec!["demo".parse().unwrap()]).unwrap();
    let served = backend.models();
    assert_eq!(served.len(), 1);
    assert!(served[0].tools && !served[0].vision, "{served:?}");
    assert_eq!(served[0].context_length, Some(512));
    std::fs::remove_dir_all(&dir).unwrap();
}
