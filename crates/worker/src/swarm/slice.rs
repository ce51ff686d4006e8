//! `shoal swarm slice`: cuts layers `[a, b)` of a GGUF model into a span file.
//!
//! The span keeps every tensor outside the blocks (token embedding, output norm, output
//! matrix): llama.cpp loads no model without them, and they let any span's node be an entry or
//! an exit. Blocks `a..b` are renumbered from 0; `{arch}.block_count` becomes `b − a`, and every
//! `{arch}.*` array with one entry per layer is cut to the span's entries. The span's metadata
//! records the whole model's fingerprint (SHA-256 of the file) and the span's place in it
//! (`shoal.swarm.*`, [`shoal_protocol::swarm::keys`]), which the gateway matches spans by.

use std::fs::File;
use std::io::{self, BufReader, BufWriter, Read, Seek, SeekFrom, Write};
use std::ops::Range;
use std::path::Path;

use anyhow::Context as _;
use sha2::{Digest, Sha256};
use shoal_protocol::swarm::{keys, SpanInfo};

use super::gguf::{self, Header, Value};

/// SHA-256 of a file, hex.
pub fn fingerprint(path: &Path) -> io::Result<String> {
    let mut file = BufReader::with_capacity(1 << 20, File::open(path)?);
    let mut hash = Sha256::new();
    let mut buf = vec![0; 1 << 20];
    loop {
        let n = file.read(&mut buf)?;
        if n == 0 {
            return Ok(hex::encode(hash.finalize()));
        }
        hash.update(&buf[..n]);
    }
}

/// The span a file is, from its `shoal.swarm.*` metadata (`None`: a whole model).
pub fn span_of(header: &Header) -> Option<SpanInfo> {
    let u32_of = |k: &str| header.get(k).and_then(Value::as_u32);
    Some(SpanInfo {
        fingerprint: header.get(keys::FINGERPRINT)?.as_str()?.to_owned(),
        start: u32_of(keys::LAYER_START)?,
        end: u32_of(keys::LAYER_END)?,
        total: u32_of(keys::LAYER_COUNT)?,
        step_us: 0,
    })
}

/// Reads the span metadata of a span file.
pub fn read_span(path: &Path) -> anyhow::Result<SpanInfo> {
    let file = File::open(path).with_context(|| format!("{}: cannot be read", path.display()))?;
    let header =
        gguf::read_header(BufReader::new(file)).with_context(|| format!("{}", path.display()))?;
    let span = span_of(&header).with_context(|| {
        format!(
            "{} is not a span file (no shoal.swarm.* metadata; cut one with `shoal swarm slice`)",
            path.display()
        )
    })?;
    span.check()
        .map_err(|e| anyhow::anyhow!("{}: bad span metadata: {e}", path.display()))?;
    Ok(span)
}

/// The layer count of a model: `{general.architecture}.block_count`.
fn layer_count(header: &Header) -> anyhow::Result<(String, u32)> {
    let arch = header
        .get("general.architecture")
        .and_then(Value::as_str)
        .context("the model has no general.architecture")?
        .to_owned();
    let layers = header
        .get(&format!("{arch}.block_count"))
        .and_then(Value::as_u32)
        .with_context(|| format!("the model has no {arch}.block_count"))?;
    Ok((arch, layers))
}

/// The span's header: metadata cut to the span, its tensors renumbered, offsets not yet set.
/// Also returns, per kept tensor, its index in the whole model's directory.
fn span_header(
    full: &Header,
    arch: &str,
    layers: u32,
    range: &Range<u32>,
    fingerprint: &str,
) -> (Header, Vec<usize>) {
    let block_count = format!("{arch}.block_count");
    let per_layer = format!("{arch}.");
    let mut metadata: Vec<(String, Value)> = full
        .metadata
        .iter()
        .map(|(k, v)| {
            let v = match v {
                _ if *k == block_count => Value::u32(range.end - range.start),
                Value::Array(ty, items)
                    if k.starts_with(&per_layer) && items.len() == layers as usize =>
                {
                    Value::Array(
                        *ty,
                        items[range.start as usize..range.end as usize].to_vec(),
                    )
                }
                v => v.clone(),
            };
            (k.clone(), v)
        })
        .collect();
    metadata.push((keys::FINGERPRINT.into(), Value::Str(fingerprint.into())));
    metadata.push((keys::LAYER_START.into(), Value::u32(range.start)));
    metadata.push((keys::LAYER_END.into(), Value::u32(range.end)));
    metadata.push((keys::LAYER_COUNT.into(), Value::u32(layers)));
    let mut tensors = Vec::new();
    let mut source = Vec::new();
    for (i, t) in full.tensors.iter().enumerate() {
        let name = match block_of(&t.name) {
            None => t.name.clone(),
            Some((n, rest)) if range.contains(&n) => format!("blk.{}.{rest}", n - range.start),
            Some(_) => continue,
        };
        tensors.push(gguf::TensorInfo { name, ..t.clone() });
        source.push(i);
    }
    let header = Header {
        metadata,
        tensors,
        data_start: 0,
    };
    (header, source)
}

/// `blk.N.rest` → `(N, rest)`.
fn block_of(name: &str) -> Option<(u32, &str)> {
    let (n, rest) = name.strip_prefix("blk.")?.split_once('.')?;
    Some((n.parse().ok()?, rest))
}

/// Writes layers `range` of the model at `full` to `out` (through a temporary file beside it).
pub fn slice(full: &Path, range: Range<u32>, out: &Path) -> anyhow::Result<SpanInfo> {
    let shown = full.display();
    let mut src =
        BufReader::new(File::open(full).with_context(|| format!("{shown}: cannot be read"))?);
    let header = gguf::read_header(&mut src).with_context(|| format!("{shown}"))?;
    if span_of(&header).is_some() {
        anyhow::bail!("{shown} is already a span; slice the whole model");
    }
    let (arch, layers) = layer_count(&header).with_context(|| format!("{shown}"))?;
    if range.start >= range.end || range.end > layers {
        anyhow::bail!(
            "--layers {}..{} is not a span of this model's {layers} layers (0 <= a < b <= {layers})",
            range.start,
            range.end
        );
    }
    let file_len = src.seek(SeekFrom::End(0))?;
    let slots = gguf::slot_lengths(&header, file_len).with_context(|| format!("{shown}"))?;
    let fp = fingerprint(full)?;
    let (mut span, source) = span_header(&header, &arch, layers, &range, &fp);
    let align = span.alignment();
    let mut offset = 0;
    for (t, &i) in span.tensors.iter_mut().zip(&source) {
        t.offset = offset;
        offset += slots[i].next_multiple_of(align);
    }
    let tmp = out.with_extension(format!("tmp{}", std::process::id()));
    let written = (|| -> anyhow::Result<()> {
        let mut w = BufWriter::with_capacity(1 << 20, File::create(&tmp)?);
        gguf::write_header(&mut w, &span)?;
        for &i in &source {
            let from = header.data_start + header.tensors[i].offset;
            gguf::copy_range(&mut src, from, slots[i], &mut w)?;
            let pad = slots[i].next_multiple_of(align) - slots[i];
            w.write_all(&vec![0; pad as usize])?;
        }
        w.into_inner().map_err(|e| e.into_error())?.sync_all()?;
        Ok(())
    })();
    if let Err(e) = written {
        let _ = std::fs::remove_file(&tmp);
        return Err(e.context(format!("writing {}", out.display())));
    }
    std::fs::rename(&tmp, out)?;
    Ok(span_of(&span).unwrap_or_else(|| unreachable!("the span metadata was just added")))
}

/// Parses `a..b` (layers `[a, b)`).
pub fn parse_range(text: &str) -> Result<Range<u32>, String> {
    let (a, b) = text
        .split_once("..")
        .ok_or_else(|| format!("{text:?} is not a layer range a..b"))?;
    let n = |s: &str| {
        s.trim()
            .parse::<u32>()
            .map_err(|_| format!("{text:?} is not a layer range a..b"))
    };
    Ok(n(a)?..n(b)?)
}

#[cfg(test)]
mod tests;
