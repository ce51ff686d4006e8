//! Just enough GGUF (versions 2 and 3) to cut a span out of a model: the metadata is read into
//! values kept in their wire encoding (so any type passes through unchanged), the tensor
//! directory is read whole, and tensor data is copied as bytes, never interpreted.

use std::io::{self, Read, Seek, SeekFrom, Write};

/// GGUF value type codes that matter here.
const T_UINT32: u32 = 4;
const T_STRING: u32 = 8;
const T_ARRAY: u32 = 9;
const DEFAULT_ALIGNMENT: u64 = 32;

/// A metadata value in its wire encoding (without its type code).
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    /// A number or a bool: type code and little-endian bytes.
    Scalar(u32, Vec<u8>),
    Str(String),
    /// An array: the items' type and each item's encoding (strings with their length prefix).
    Array(u32, Vec<Vec<u8>>),
}

impl Value {
    pub fn as_u32(&self) -> Option<u32> {
        match self {
            Value::Scalar(T_UINT32, b) => Some(u32::from_le_bytes(b[..4].try_into().ok()?)),
            _ => None,
        }
    }

    pub fn as_str(&self) -> Option<&str> {
        match self {
            Value::Str(s) => Some(s),
            _ => None,
        }
    }

    pub fn u32(v: u32) -> Self {
        Value::Scalar(T_UINT32, v.to_le_bytes().to_vec())
    }
}

/// One tensor's directory entry.
#[derive(Debug, Clone)]
pub struct TensorInfo {
    pub name: String,
    pub dims: Vec<u64>,
    pub ggml_type: u32,
    /// Offset from the start of the data section.
    pub offset: u64,
}

/// A GGUF file's header: metadata in file order and the tensor directory.
#[derive(Debug, Clone)]
pub struct Header {
    pub metadata: Vec<(String, Value)>,
    pub tensors: Vec<TensorInfo>,
    /// Where the data section starts in the file.
    pub data_start: u64,
}

impl Header {
    pub fn get(&self, key: &str) -> Option<&Value> {
        self.metadata.iter().find(|(k, _)| k == key).map(|(_, v)| v)
    }

    pub fn alignment(&self) -> u64 {
        self.get("general.alignment")
            .and_then(Value::as_u32)
            .filter(|a| a.is_power_of_two())
            .map_or(DEFAULT_ALIGNMENT, u64::from)
    }
}

fn invalid(what: &str) -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidData,
        format!("not a valid GGUF file: {what}"),
    )
}

struct Reader<R> {
    r: R,
    pos: u64,
}

impl<R: Read> Reader<R> {
    fn bytes(&mut self, n: u64) -> io::Result<Vec<u8>> {
        // Lengths come from the file: read through `take` so a lying length cannot allocate.
        let mut out = Vec::new();
        (&mut self.r).take(n).read_to_end(&mut out)?;
        if out.len() as u64 != n {
            return Err(invalid("it ends early"));
        }
        self.pos += n;
        Ok(out)
    }

    fn u32(&mut self) -> io::Result<u32> {
        Ok(u32::from_le_bytes(
            self.bytes(4)?.try_into().unwrap_or_default(),
        ))
    }

    fn u64(&mut self) -> io::Result<u64> {
        Ok(u64::from_le_bytes(
            self.bytes(8)?.try_into().unwrap_or_default(),
        ))
    }

    fn string(&mut self) -> io::Result<String> {
        let n = self.u64()?;
        String::from_utf8(self.bytes(n)?).map_err(|_| invalid("a string is not UTF-8"))
    }

    /// One item of type `ty`, in its wire encoding.
    fn item(&mut self, ty: u32) -> io::Result<Vec<u8>> {
        let size = match ty {
            0 | 1 | 7 => 1, // u8, i8, bool
            2 | 3 => 2,     // u16, i16
            4..=6 => 4,     // u32, i32, f32
            10..=12 => 8,   // u64, i64, f64
            T_STRING => {
                let n = self.u64()?;
                let mut out = n.to_le_bytes().to_vec();
                out.extend(self.bytes(n)?);
                return Ok(out);
            }
            _ => return Err(invalid("an unknown or nested value type")),
        };
        self.bytes(size)
    }

    fn value(&mut self) -> io::Result<Value> {
        Ok(match self.u32()? {
            T_STRING => Value::Str(self.string()?),
            T_ARRAY => {
                let ty = self.u32()?;
                let n = self.u64()?;
                let items = (0..n).map(|_| self.item(ty)).collect::<io::Result<_>>()?;
                Value::Array(ty, items)
            }
            ty => Value::Scalar(ty, self.item(ty)?),
        })
    }
}

/// Reads the header of a GGUF file (the reader is left somewhere after it).
pub fn read_header(r: impl Read) -> io::Result<Header> {
    let mut r = Reader { r, pos: 0 };
    if r.bytes(4)? != b"GGUF" {
        return Err(invalid("no GGUF magic"));
    }
    if !matches!(r.u32()?, 2 | 3) {
        return Err(invalid("a GGUF version other than 2 or 3"));
    }
    let n_tensors = r.u64()?;
    let n_kv = r.u64()?;
    let mut metadata = Vec::new();
    for _ in 0..n_kv {
        let key = r.string()?;
        metadata.push((key, r.value()?));
    }
    let mut tensors = Vec::new();
    for _ in 0..n_tensors {
        let name = r.string()?;
        let n_dims = r.u32()?;
        if n_dims > 8 {
            return Err(invalid("a tensor with more than 8 dimensions"));
        }
        let dims = (0..n_dims).map(|_| r.u64()).collect::<io::Result<_>>()?;
        let ggml_type = r.u32()?;
        let offset = r.u64()?;
        tensors.push(TensorInfo {
            name,
            dims,
            ggml_type,
            offset,
        });
    }
    let mut header = Header {
        metadata,
        tensors,
        data_start: 0,
    };
    header.data_start = r.pos.next_multiple_of(header.alignment());
    Ok(header)
}

/// Writes a header (metadata, then the directory, padded to the alignment).
pub fn write_header(out: &mut impl Write, header: &Header) -> io::Result<u64> {
    let mut buf = Vec::new();
    buf.extend_from_slice(b"GGUF");
    buf.extend_from_slice(&3u32.to_le_bytes());
    buf.extend_from_slice(&(header.tensors.len() as u64).to_le_bytes());
    buf.extend_from_slice(&(header.metadata.len() as u64).to_le_bytes());
    let string = |buf: &mut Vec<u8>, s: &str| {
        buf.extend_from_slice(&(s.len() as u64).to_le_bytes());
        buf.extend_from_slice(s.as_bytes());
    };
    for (key, value) in &header.metadata {
        string(&mut buf, key);
        match value {
            Value::Scalar(ty, bytes) => {
                buf.extend_from_slice(&ty.to_le_bytes());
                buf.extend_from_slice(bytes);
            }
            Value::Str(s) => {
                buf.extend_from_slice(&T_STRING.to_le_bytes());
                string(&mut buf, s);
            }
            Value::Array(ty, items) => {
                buf.extend_from_slice(&T_ARRAY.to_le_bytes());
                buf.extend_from_slice(&ty.to_le_bytes());
                buf.extend_from_slice(&(items.len() as u64).to_le_bytes());
                items.iter().for_each(|i| buf.extend_from_slice(i));
            }
        }
    }
    for t in &header.tensors {
        string(&mut buf, &t.name);
        buf.extend_from_slice(&(t.dims.len() as u32).to_le_bytes());
        t.dims
            .iter()
            .for_each(|d| buf.extend_from_slice(&d.to_le_bytes()));
        buf.extend_from_slice(&t.ggml_type.to_le_bytes());
        buf.extend_from_slice(&t.offset.to_le_bytes());
    }
    let len = (buf.len() as u64).next_multiple_of(header.alignment());
    buf.resize(len as usize, 0);
    out.write_all(&buf)?;
    Ok(len)
}

/// The byte length of each tensor's slot in the data section (its data and the padding after
/// it), from the offsets: no table of ggml type sizes is needed.
pub fn slot_lengths(header: &Header, file_len: u64) -> io::Result<Vec<u64>> {
    let data_len = file_len
        .checked_sub(header.data_start)
        .ok_or_else(|| invalid("the data section is missing"))?;
    let mut order: Vec<usize> = (0..header.tensors.len()).collect();
    order.sort_by_key(|&i| header.tensors[i].offset);
    let mut lengths = vec![0; header.tensors.len()];
    for (k, &i) in order.iter().enumerate() {
        let start = header.tensors[i].offset;
        let end = order
            .get(k + 1)
            .map_or(data_len, |&j| header.tensors[j].offset);
        lengths[i] = end
            .checked_sub(start)
            .filter(|_| end <= data_len)
            .ok_or_else(|| invalid("a tensor lies outside the file"))?;
    }
    Ok(lengths)
}

/// Copies `len` bytes at `from` in `src` to `out`.
pub fn copy_range<R: Read + Seek>(
    src: &mut R,
    from: u64,
    len: u64,
    out: &mut impl Write,
) -> io::Result<()> {
    src.seek(SeekFrom::Start(from))?;
    let copied = io::copy(&mut src.take(len), out)?;
    if copied != len {
        return Err(invalid("it ends early"));
    }
    Ok(())
}
