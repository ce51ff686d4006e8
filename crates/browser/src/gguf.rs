//! Reads what the gateway needs from a GGUF file's metadata: the vocabulary, the merges, the
//! special tokens, the chat template and the context length. Tensors are never read.

use std::collections::HashMap;
use std::io::{BufReader, Read};
use std::path::Path;

use anyhow::{bail, Context};

/// A metadata value the gateway reads; other types are skipped.
#[derive(Debug, Clone, PartialEq)]
pub enum Meta {
    Int(i64),
    Bool(bool),
    Str(String),
    Strs(Vec<String>),
    Ints(Vec<i64>),
    Other,
}

/// Every metadata key of the file at `path`, with the values above.
pub fn read_metadata(path: &Path) -> anyhow::Result<HashMap<String, Meta>> {
    let file = std::fs::File::open(path).with_context(|| format!("open {}", path.display()))?;
    let mut r = BufReader::with_capacity(1 << 20, file);
    let mut magic = [0u8; 4];
    r.read_exact(&mut magic)?;
    if &magic != b"GGUF" {
        bail!("{} is not a GGUF file", path.display());
    }
    let version = read_u32(&mut r)?;
    if !(2..=3).contains(&version) {
        bail!("GGUF version {version} is not supported");
    }
    let _tensors = read_u64(&mut r)?;
    let count = read_u64(&mut r)?;
    let mut meta = HashMap::new();
    for _ in 0..count {
        let key = read_string(&mut r)?;
        let ty = read_u32(&mut r)?;
        meta.insert(key, read_value(&mut r, ty)?);
    }
    Ok(meta)
}

fn read_value(r: &mut impl Read, ty: u32) -> anyhow::Result<Meta> {
    Ok(match ty {
        8 => Meta::Str(read_string(r)?),
        7 => Meta::Bool(read_n::<1>(r)?[0] != 0),
        9 => read_array(r)?,
        _ => match scalar(r, ty)? {
            Some(v) => Meta::Int(v),
            None => Meta::Other,
        },
    })
}

/// An integer scalar of GGUF type `ty` (floats are read and dropped: `None`).
fn scalar(r: &mut impl Read, ty: u32) -> anyhow::Result<Option<i64>> {
    Ok(match ty {
        0 => Some(read_n::<1>(r)?[0] as i64),
        1 => Some(read_n::<1>(r)?[0] as i8 as i64),
        2 => Some(u16::from_le_bytes(read_n(r)?) as i64),
        3 => Some(i16::from_le_bytes(read_n(r)?) as i64),
        4 => Some(read_u32(r)? as i64),
        5 => Some(i32::from_le_bytes(read_n(r)?) as i64),
        10 => Some(read_u64(r)? as i64),
        11 => Some(i64::from_le_bytes(read_n(r)?)),
        6 => read_n::<4>(r).map(|_| None)?,
        12 => read_n::<8>(r).map(|_| None)?,
        _ => bail!("unknown GGUF value type {ty}"),
    })
}

fn read_array(r: &mut impl Read) -> anyhow::Result<Meta> {
    let ty = read_u32(r)?;
    let len = read_u64(r)?;
    if len > 1 << 24 {
        bail!("a GGUF array of {len} items");
    }
    match ty {
        8 => Ok(Meta::Strs(
            (0..len).map(|_| read_string(r)).collect::<Result<_, _>>()?,
        )),
        7 | 9 => {
            for _ in 0..len {
                read_value(r, ty)?;
            }
            Ok(Meta::Other)
        }
        _ => {
            let mut ints = Vec::with_capacity(len as usize);
            for _ in 0..len {
                if let Some(v) = scalar(r, ty)? {
                    ints.push(v);
                }
            }
            Ok(Meta::Ints(ints))
        }
    }
}

fn read_n<const N: usize>(r: &mut impl Read) -> std::io::Result<[u8; N]> {
    let mut b = [0u8; N];
    r.read_exact(&mut b)?;
    Ok(b)
}

fn read_u32(r: &mut impl Read) -> std::io::Result<u32> {
    read_n(r).map(u32::from_le_bytes)
}

fn read_u64(r: &mut impl Read) -> std::io::Result<u64> {
    read_n(r).map(u64::from_le_bytes)
}

fn read_string(r: &mut impl Read) -> anyhow::Result<String> {
    let len = read_u64(r)?;
    if len > 1 << 26 {
        bail!("a GGUF string of {len} bytes");
    }
    let mut b = vec![0u8; len as usize];
    r.read_exact(&mut b)?;
    Ok(String::from_utf8(b)?)
}
