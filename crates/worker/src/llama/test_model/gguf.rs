//! A GGUF (version 3) writer for what the test model needs: scalar, string and array metadata,
//! and F32 tensors. The layout follows the format's definition in ggml (`docs/gguf.md`):
//! header, key-value pairs in the order they were added, tensor infos, then the tensor data,
//! each tensor starting at a multiple of the alignment (32). Little-endian throughout.

use std::io::{self, Write};

/// `general.alignment`'s default; this writer never sets another.
const ALIGNMENT: u64 = 32;

/// The GGUF value type codes.
mod value_type {
    pub const UINT32: u32 = 4;
    pub const INT32: u32 = 5;
    pub const FLOAT32: u32 = 6;
    pub const BOOL: u32 = 7;
    pub const STRING: u32 = 8;
    pub const ARRAY: u32 = 9;
}

/// ggml's tensor type code for F32.
const GGML_TYPE_F32: u32 = 0;

/// A metadata value.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    U32(u32),
    F32(f32),
    Bool(bool),
    Str(String),
    StrArray(Vec<String>),
    I32Array(Vec<i32>),
}

/// One tensor: its dimensions in ggml's order (the fastest-moving first) and its values.
struct Tensor {
    name: String,
    dims: Vec<u64>,
    data: Vec<f32>,
}

/// Collects metadata and tensors, then writes the file in one pass.
#[derive(Default)]
pub struct GgufWriter {
    metadata: Vec<(String, Value)>,
    tensors: Vec<Tensor>,
}

impl GgufWriter {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn add(&mut self, key: &str, value: Value) {
        debug_assert!(self.metadata.iter().all(|(k, _)| k != key), "{key} twice");
        self.metadata.push((key.to_owned(), value));
    }

    /// An F32 tensor; `dims` in ggml's order (a row-major `[rows][cols]` matrix is
    /// `[cols, rows]`), `data` in memory order.
    pub fn add_tensor(&mut self, name: &str, dims: &[u64], data: Vec<f32>) {
        assert_eq!(dims.iter().product::<u64>(), data.len() as u64, "{name}");
        self.tensors.push(Tensor {
            name: name.to_owned(),
            dims: dims.to_vec(),
            data,
        });
    }

    pub fn write_to(&self, out: &mut impl Write) -> io::Result<()> {
        let mut w = Counted { out, written: 0 };
        w.bytes(b"GGUF")?;
        w.u32(3)?;
        w.u64(self.tensors.len() as u64)?;
        w.u64(self.metadata.len() as u64)?;
        for (key, value) in &self.metadata {
            w.string(key)?;
            w.value(value)?;
        }
        let mut offset = 0u64;
        for t in &self.tensors {
            w.string(&t.name)?;
            w.u32(t.dims.len() as u32)?;
            for &d in &t.dims {
                w.u64(d)?;
            }
            w.u32(GGML_TYPE_F32)?;
            w.u64(offset)?;
            offset += padded(4 * t.data.len() as u64);
        }
        w.pad()?;
        for t in &self.tensors {
            let bytes: Vec<u8> = t.data.iter().flat_map(|v| v.to_le_bytes()).collect();
            w.bytes(&bytes)?;
            w.pad()?;
        }
        Ok(())
    }
}

fn padded(n: u64) -> u64 {
    n.div_ceil(ALIGNMENT) * ALIGNMENT
}

/// A writer that knows its position, for the alignment padding.
struct Counted<'a, W: Write> {
    out: &'a mut W,
    written: u64,
}

impl<W: Write> Counted<'_, W> {
    fn bytes(&mut self, b: &[u8]) -> io::Result<()> {
        self.out.write_all(b)?;
        self.written += b.len() as u64;
        Ok(())
    }

    fn u32(&mut self, v: u32) -> io::Result<()> {
        self.bytes(&v.to_le_bytes())
    }

    fn u64(&mut self, v: u64) -> io::Result<()> {
        self.bytes(&v.to_le_bytes())
    }

    fn string(&mut self, s: &str) -> io::Result<()> {
        self.u64(s.len() as u64)?;
        self.bytes(s.as_bytes())
    }

    fn pad(&mut self) -> io::Result<()> {
        let n = padded(self.written) - self.written;
        self.bytes(&vec![0; n as usize])
    }

    /// A value with its type code first.
    fn value(&mut self, value: &Value) -> io::Result<()> {
        match value {
            Value::U32(v) => {
                self.u32(value_type::UINT32)?;
                self.u32(*v)
            }
            Value::F32(v) => {
                self.u32(value_type::FLOAT32)?;
                self.bytes(&v.to_le_bytes())
            }
            Value::Bool(v) => {
                self.u32(value_type::BOOL)?;
                self.bytes(&[u8::from(*v)])
            }
            Value::Str(s) => {
                self.u32(value_type::STRING)?;
                self.string(s)
            }
            Value::StrArray(items) => {
                self.array_header(value_type::STRING, items.len())?;
                items.iter().try_for_each(|s| self.string(s))
            }
            Value::I32Array(items) => {
                self.array_header(value_type::INT32, items.len())?;
                items.iter().try_for_each(|v| self.bytes(&v.to_le_bytes()))
            }
        }
    }

    fn array_header(&mut self, item_type: u32, len: usize) -> io::Result<()> {
        self.u32(value_type::ARRAY)?;
        self.u32(item_type)?;
        self.u64(len as u64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layout_of_a_small_file() {
        let mut w = GgufWriter::new();
        w.add("a", Value::U32(7));
        w.add("b", Value::StrArray(vec!["x".into(), "yz".into()]));
        w.add_tensor("t", &[3], vec![1.0, 2.0, 3.0]);
        w.add_tensor("u", &[1, 1], vec![-1.0]);
        let mut out = Vec::new();
        w.write_to(&mut out).unwrap();

        let mut want = Vec::new();
        want.extend_from_slice(b"GGUF");
        want.extend_from_slice(&3u32.to_le_bytes());
        want.extend_from_slice(&2u64.to_le_bytes()); // tensors
        want.extend_from_slice(&2u64.to_le_bytes()); // key-value pairs
        want.extend_from_slice(&1u64.to_le_bytes());
        want.extend_from_slice(b"a");
        want.extend_from_slice(&4u32.to_le_bytes());
        want.extend_from_slice(&7u32.to_le_bytes());
        want.extend_from_slice(&1u64.to_le_bytes());
        want.extend_from_slice(b"b");
        want.extend_from_slice(&9u32.to_le_bytes());
        want.extend_from_slice(&8u32.to_le_bytes());
        want.extend_from_slice(&2u64.to_le_bytes());
        want.extend_from_slice(&1u64.to_le_bytes());
        want.extend_from_slice(b"x");
        want.extend_from_slice(&2u64.to_le_bytes());
        want.extend_from_slice(b"yz");
        for (name, dims, offset) in [("t", &[3u64][..], 0u64), ("u", &[1, 1][..], 32)] {
            want.extend_from_slice(&1u64.to_le_bytes());
            want.extend_from_slice(name.as_bytes());
            want.extend_from_slice(&(dims.len() as u32).to_le_bytes());
            dims.iter()
                .for_each(|d| want.extend_from_slice(&d.to_le_bytes()));
            want.extend_from_slice(&0u32.to_le_bytes());
            want.extend_from_slice(&offset.to_le_bytes());
        }
        want.resize(want.len().div_ceil(32) * 32, 0);
        let data_start = want.len();
        for v in [1.0f32, 2.0, 3.0] {
            want.extend_from_slice(&v.to_le_bytes());
        }
        want.resize(data_start + 32, 0);
        want.extend_from_slice(&(-1.0f32).to_le_bytes());
        want.resize(data_start + 64, 0);
        assert_eq!(out, want);
    }
}
