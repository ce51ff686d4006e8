use super::*;
use gguf::TensorInfo;

const T_F32: u32 = 6;
const T_UINT8: u32 = 0;

/// A tiny 3-layer "model": one F32 tensor per block (its values say which block), plus an
/// embedding of 5 numbers and an output of 3, with an odd-sized U8 tensor to test padding.
fn write_model(path: &Path) -> Vec<(String, Vec<u8>)> {
    let mut tensors = vec![("token_embd.weight".to_owned(), f32s(&[1.0; 5]))];
    for i in 0..3 {
        tensors.push((format!("blk.{i}.attn_q.weight"), f32s(&[i as f32; 4])));
        tensors.push((format!("blk.{i}.odd"), vec![i as u8 + 1; 3]));
    }
    tensors.push(("output.weight".into(), f32s(&[9.0; 3])));
    let mut offset = 0;
    let infos = tensors
        .iter()
        .map(|(name, data)| {
            let info = TensorInfo {
                name: name.clone(),
                dims: vec![data.len() as u64],
                ggml_type: 0,
                offset,
            };
            offset += (data.len() as u64).next_multiple_of(32);
            info
        })
        .collect();
    let per_layer: Vec<Vec<u8>> = [10.0f32, 11.0, 12.0]
        .iter()
        .map(|v| v.to_le_bytes().to_vec())
        .collect();
    let header = Header {
        metadata: vec![
            ("general.architecture".into(), Value::Str("llama".into())),
            ("llama.block_count".into(), Value::u32(3)),
            ("llama.per_layer".into(), Value::Array(T_F32, per_layer)),
            (
                "llama.flags".into(),
                Value::Array(T_UINT8, vec![vec![1], vec![2]]),
            ),
        ],
        tensors: infos,
        data_start: 0,
    };
    let mut out = Vec::new();
    gguf::write_header(&mut out, &header).unwrap();
    for (_, data) in &tensors {
        out.extend_from_slice(data);
        out.resize(out.len().next_multiple_of(32), 0);
    }
    // A file need not pad its last tensor.
    out.truncate(out.len() - (32 - 12));
    std::fs::write(path, out).unwrap();
    tensors
}

fn f32s(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

fn tensor_bytes(path: &Path, name: &str, len: usize) -> Vec<u8> {
    let bytes = std::fs::read(path).unwrap();
    let header = gguf::read_header(&bytes[..]).unwrap();
    let t = header.tensors.iter().find(|t| t.name == name).unwrap();
    let at = (header.data_start + t.offset) as usize;
    bytes[at..at + len].to_vec()
}

#[test]
fn a_span_keeps_its_blocks_renumbered_and_the_rest() {
    let dir = tempdir();
    let full = dir.join("full.gguf");
    let tensors = write_model(&full);
    let span_path = dir.join("span.gguf");
    let span = slice(&full, 1..3, &span_path).unwrap();
    assert_eq!((span.start, span.end, span.total), (1, 3, 3));
    assert_eq!(span.fingerprint, fingerprint(&full).unwrap());
    assert_eq!(read_span(&span_path).unwrap(), span);

    let header = gguf::read_header(File::open(&span_path).unwrap()).unwrap();
    let names: Vec<&str> = header.tensors.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "token_embd.weight",
            "blk.0.attn_q.weight",
            "blk.0.odd",
            "blk.1.attn_q.weight",
            "blk.1.odd",
            "output.weight"
        ]
    );
    assert_eq!(header.get("llama.block_count").unwrap().as_u32(), Some(2));
    let Value::Array(_, items) = header.get("llama.per_layer").unwrap() else {
        panic!("per-layer array lost")
    };
    assert_eq!(
        items,
        &[
            11.0f32.to_le_bytes().to_vec(),
            12.0f32.to_le_bytes().to_vec()
        ]
    );
    // An array of another length is not per layer: kept whole.
    let Value::Array(_, flags) = header.get("llama.flags").unwrap() else {
        panic!()
    };
    assert_eq!(flags.len(), 2);
    // The data moved with the names: blk.0 of the span is blk.1 of the model.
    let want = |name: &str| tensors.iter().find(|(n, _)| n == name).unwrap().1.clone();
    assert_eq!(
        tensor_bytes(&span_path, "blk.0.attn_q.weight", 16),
        want("blk.1.attn_q.weight")
    );
    assert_eq!(tensor_bytes(&span_path, "blk.1.odd", 3), want("blk.2.odd"));
    assert_eq!(
        tensor_bytes(&span_path, "output.weight", 12),
        want("output.weight")
    );
    assert!(!dir.join("span.tmp").exists());
}

#[test]
fn bad_ranges_and_files_are_refused() {
    let dir = tempdir();
    let full = dir.join("full.gguf");
    write_model(&full);
    for (a, b) in [(2, 2), (2, 4), (3, 1)] {
        let bad = a..b;
        let err = slice(&full, bad.clone(), &dir.join("x.gguf"))
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("not a span of this model's 3 layers"),
            "{bad:?}: {err}"
        );
    }
    let span = dir.join("span.gguf");
    slice(&full, 0..1, &span).unwrap();
    let err = slice(&span, 0..1, &dir.join("y.gguf"))
        .unwrap_err()
        .to_string();
    assert!(err.contains("already a span"), "{err}");
    let err = read_span(&full).unwrap_err().to_string();
    assert!(err.contains("not a span file"), "{err}");
    std::fs::write(dir.join("junk"), b"GGUF\x03\0\0\0\xff").unwrap();
    assert!(slice(&dir.join("junk"), 0..1, &dir.join("z.gguf")).is_err());
    assert_eq!(parse_range("2..4"), Ok(2..4));
    assert!(parse_range("2-4").is_err() && parse_range("a..4").is_err());
}

fn tempdir() -> std::path::PathBuf {
    use std::sync::atomic::{AtomicU32, Ordering};
    static N: AtomicU32 = AtomicU32::new(0);
    let dir = std::env::temp_dir().join(format!(
        "shoal-slice-{}-{}",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    ));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}
