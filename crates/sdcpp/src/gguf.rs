//! A structural check of a GGUF file before stable-diffusion.cpp sees it: the header parses and
//! every tensor's data lies inside the file. The engine reads tensor data lazily and does not
//! notice a truncated file at load time; this makes such a file a load error.

use std::fs::File;
use std::io::{self, BufReader, Read, Seek};
use std::path::Path;

/// (bytes per block, elements per block) of the ggml types a checkpoint uses; None: unknown
/// here, so only the tensor's offset is checked.
fn type_size(ggml_type: u32) -> Option<(u64, u64)> {
    Some(match ggml_type {
        0 => (4, 1),      // F32
        1 | 30 => (2, 1), // F16, BF16
        2 => (18, 32),    // Q4_0
        3 => (20, 32),    // Q4_1
        6 => (22, 32),    // Q5_0
        7 => (24, 32),    // Q5_1
        8 => (34, 32),    // Q8_0
        10 => (84, 256),  // Q2_K
        11 => (110, 256), // Q3_K
        12 => (144, 256), // Q4_K
        13 => (176, 256), // Q5_K
        14 => (210, 256), // Q6_K
        24 => (1, 1),     // I8
        25 => (2, 1),     // I16
        26 => (4, 1),     // I32
        34 => (54, 256),  // TQ1_0
        35 => (66, 256),  // TQ2_0
        _ => return None,
    })
}

struct Reader<R> {
    r: R,
}

impl<R: Read> Reader<R> {
    fn u32(&mut self) -> io::Result<u32> {
        let mut b = [0; 4];
        self.r.read_exact(&mut b)?;
        Ok(u32::from_le_bytes(b))
    }

    fn u64(&mut self) -> io::Result<u64> {
        let mut b = [0; 8];
        self.r.read_exact(&mut b)?;
        Ok(u64::from_le_bytes(b))
    }

    fn skip(&mut self, n: u64) -> io::Result<()> {
        let copied = io::copy(&mut (&mut self.r).take(n), &mut io::sink())?;
        if copied != n {
            return Err(io::ErrorKind::UnexpectedEof.into());
        }
        Ok(())
    }

    fn string(&mut self) -> io::Result<Vec<u8>> {
        let len = self.u64()?;
        if len > 1 << 20 {
            return Err(invalid("a string longer than 1 MiB"));
        }
        let mut s = vec![0; len as usize];
        self.r.read_exact(&mut s)?;
        Ok(s)
    }

    /// Reads a metadata value of `kind`; returns it when it is an unsigned integer.
    fn value(&mut self, kind: u32) -> io::Result<Option<u64>> {
        match kind {
            0 | 1 | 7 => self.skip(1)?,
            2 | 3 => self.skip(2)?,
            4 => return self.u32().map(|v| Some(v.into())),
            5 | 6 => self.skip(4)?,
            10 => return self.u64().map(Some),
            11 | 12 => self.skip(8)?,
            8 => {
                let len = self.u64()?;
                self.skip(len)?;
            }
            9 => {
                let (inner, count) = (self.u32()?, self.u64()?);
                for _ in 0..count {
                    self.value(inner)?;
                }
            }
            _ => return Err(invalid("an unknown metadata type")),
        }
        Ok(None)
    }
}

fn invalid(what: &str) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, format!("GGUF: {what}"))
}

/// Whether `path` starts like a GGUF file.
pub(crate) fn is_gguf(path: &Path) -> bool {
    let mut magic = [0; 4];
    File::open(path)
        .and_then(|mut f| f.read_exact(&mut magic))
        .is_ok()
        && magic == *b"GGUF"
}

/// Checks the header and that every tensor's data fits in the file.
pub(crate) fn check(path: &Path) -> io::Result<()> {
    let file = File::open(path)?;
    let file_len = file.metadata()?.len();
    let mut r = Reader {
        r: BufReader::new(file),
    };
    r.skip(4)?; // the magic, checked by is_gguf
    let version = r.u32()?;
    if !(2..=3).contains(&version) {
        return Err(invalid("an unsupported version"));
    }
    let (tensors, kvs) = (r.u64()?, r.u64()?);
    let mut alignment = 32;
    for _ in 0..kvs {
        let key = r.string()?;
        let kind = r.u32()?;
        let value = r.value(kind)?;
        if key == b"general.alignment" {
            alignment = value
                .filter(|a| *a > 0)
                .ok_or_else(|| invalid("a bad alignment"))?;
        }
    }
    let mut end = 0u64;
    for _ in 0..tensors {
        r.string()?;
        let dims = r.u32()?;
        if dims > 4 {
            return Err(invalid("a tensor of more than 4 dimensions"));
        }
        let mut elements = 1u64;
        for _ in 0..dims {
            elements = elements.saturating_mul(r.u64()?);
        }
        let kind = r.u32()?;
        let offset = r.u64()?;
        let bytes = type_size(kind).map_or(0, |(size, block)| elements / block * size);
        end = end.max(offset.saturating_add(bytes));
    }
    let header_end = r.r.stream_position()?;
    let data_start = header_end.div_ceil(alignment) * alignment;
    if data_start.saturating_add(end) > file_len {
        return Err(invalid("the file is shorter than its tensors (truncated?)"));
    }
    Ok(())
}
