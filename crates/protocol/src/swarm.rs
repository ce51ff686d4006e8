//! The swarm ring's wire types: what a span node announces about itself, and the binary frame
//! that carries hidden states (and sampled tokens) between span nodes through the gateway.
//! `docs/worker-protocol.md` ("Swarm spans") is the prose version.
//!
//! A frame carries no identity: a session number the gateway chose for one job, positions,
//! counts and numbers. The gateway routes a frame by its session and the socket it came from.

use serde::{Deserialize, Serialize};

/// GGUF metadata keys a span file carries (written by `shoal swarm slice`).
pub mod keys {
    /// SHA-256 (hex) of the whole model file the span was cut from.
    pub const FINGERPRINT: &str = "shoal.swarm.fingerprint";
    /// The span's first layer in the whole model.
    pub const LAYER_START: &str = "shoal.swarm.layer_start";
    /// One past the span's last layer in the whole model.
    pub const LAYER_END: &str = "shoal.swarm.layer_end";
    /// The whole model's layer count.
    pub const LAYER_COUNT: &str = "shoal.swarm.layer_count";
}

/// A span node's announcement: which layers of which model it runs, and how fast.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SpanInfo {
    /// SHA-256 (64 lowercase hex digits) of the whole model file.
    pub fingerprint: String,
    /// The span is layers `[start, end)` of the whole model.
    pub start: u32,
    pub end: u32,
    /// The whole model's layer count.
    pub total: u32,
    /// Measured time of one single-token step through the span, in microseconds.
    pub step_us: u64,
}

impl SpanInfo {
    /// Why the announcement cannot be a span, if it cannot.
    pub fn check(&self) -> Result<(), &'static str> {
        let hex = self.fingerprint.len() == 64
            && self
                .fingerprint
                .bytes()
                .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b));
        if !hex {
            return Err("fingerprint must be 64 lowercase hex digits");
        }
        if self.start >= self.end || self.end > self.total {
            return Err("a span needs start < end <= total");
        }
        Ok(())
    }

    /// Whether the span holds the first layer (it embeds tokens, so it is the chain's entry).
    pub fn is_entry(&self) -> bool {
        self.start == 0
    }

    /// Whether the span holds the last layer (it computes logits and samples).
    pub fn is_exit(&self) -> bool {
        self.end == self.total
    }
}

/// How the last span picks tokens. The draw for a position depends only on the seed and the
/// position, so a replacement node draws the same token.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Sampling {
    /// 0: greedy.
    pub temperature: f32,
    pub top_p: f32,
    pub seed: u64,
}

/// What a frame carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub enum FrameKind {
    /// Hidden states, `tokens × width` numbers of `dtype`, from one span to the next.
    Hidden = 1,
    /// Sampled token ids (`dtype` U32, `width` 1), from the last span back to the entry.
    Token = 2,
}

/// The numbers' type in a frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub enum Dtype {
    F32 = 0,
    F16 = 1,
    U32 = 2,
}

impl Dtype {
    pub fn size(self) -> usize {
        match self {
            Dtype::F32 | Dtype::U32 => 4,
            Dtype::F16 => 2,
        }
    }
}

/// The fixed header in front of every binary frame (little-endian, 28 bytes).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FrameHeader {
    pub kind: FrameKind,
    pub dtype: Dtype,
    /// The gateway's number for one job's pass through the ring.
    pub session: u64,
    /// The position (in the session's sequence) of the frame's first token.
    pub position: u32,
    /// How many tokens the frame carries.
    pub tokens: u32,
    /// Numbers per token (the hidden size; 1 for token ids).
    pub width: u32,
}

/// `"SW"` and the frame format's version.
const MAGIC: [u8; 2] = *b"SW";
const VERSION: u8 = 1;
pub const HEADER_LEN: usize = 28;
/// Larger frames are refused: 64 MiB is a 4,096-token prompt chunk at hidden size 4,096 in F32.
pub const MAX_PAYLOAD: usize = 64 << 20;

/// Why bytes are not a frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum FrameError {
    #[error("shorter than the frame header")]
    Short,
    #[error("not a swarm frame of a known version")]
    Magic,
    #[error("unknown frame kind or dtype")]
    Unknown,
    #[error("the payload's length does not match tokens × width × dtype size")]
    Length,
}

impl FrameHeader {
    /// The payload's length in bytes that this header announces (`None`: too large).
    pub fn payload_len(&self) -> Option<usize> {
        let n = (self.tokens as usize)
            .checked_mul(self.width as usize)?
            .checked_mul(self.dtype.size())?;
        (n <= MAX_PAYLOAD).then_some(n)
    }

    /// The header followed by `payload`, as one frame.
    pub fn encode(&self, payload: &[u8]) -> Vec<u8> {
        let mut out = Vec::with_capacity(HEADER_LEN + payload.len());
        out.extend_from_slice(&MAGIC);
        out.extend_from_slice(&[VERSION, self.kind as u8, self.dtype as u8, 0, 0, 0]);
        out.extend_from_slice(&self.session.to_le_bytes());
        out.extend_from_slice(&self.position.to_le_bytes());
        out.extend_from_slice(&self.tokens.to_le_bytes());
        out.extend_from_slice(&self.width.to_le_bytes());
        out.extend_from_slice(payload);
        out
    }

    /// Splits a frame into its header and payload, checking the payload's length.
    pub fn decode(frame: &[u8]) -> Result<(FrameHeader, &[u8]), FrameError> {
        if frame.len() < HEADER_LEN {
            return Err(FrameError::Short);
        }
        if frame[..2] != MAGIC || frame[2] != VERSION {
            return Err(FrameError::Magic);
        }
        let kind = match frame[3] {
            1 => FrameKind::Hidden,
            2 => FrameKind::Token,
            _ => return Err(FrameError::Unknown),
        };
        let dtype = match frame[4] {
            0 => Dtype::F32,
            1 => Dtype::F16,
            2 => Dtype::U32,
            _ => return Err(FrameError::Unknown),
        };
        let u32_at = |i: usize| u32::from_le_bytes(frame[i..i + 4].try_into().unwrap_or_default());
        let header = FrameHeader {
            kind,
            dtype,
            session: u64::from_le_bytes(frame[8..16].try_into().unwrap_or_default()),
            position: u32_at(16),
            tokens: u32_at(20),
            width: u32_at(24),
        };
        let payload = &frame[HEADER_LEN..];
        if header.payload_len() != Some(payload.len()) {
            return Err(FrameError::Length);
        }
        Ok((header, payload))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn header() -> FrameHeader {
        FrameHeader {
            kind: FrameKind::Hidden,
            dtype: Dtype::F32,
            session: 0x0102_0304_0506_0708,
            position: 17,
            tokens: 3,
            width: 2,
        }
    }

    #[test]
    fn frames_round_trip() {
        let payload: Vec<u8> = (0..24).collect();
        let frame = header().encode(&payload);
        assert_eq!(frame.len(), HEADER_LEN + 24);
        assert_eq!(&frame[..2], b"SW");
        let (h, p) = FrameHeader::decode(&frame).unwrap();
        assert_eq!(h, header());
        assert_eq!(p, &payload[..]);
    }

    #[test]
    fn bad_frames_are_refused() {
        let good = header().encode(&[0; 24]);
        assert_eq!(FrameHeader::decode(&good[..10]), Err(FrameError::Short));
        let mut bad = good.clone();
        bad[0] = b'X';
        assert_eq!(FrameHeader::decode(&bad), Err(FrameError::Magic));
        let mut bad = good.clone();
        bad[3] = 9;
        assert_eq!(FrameHeader::decode(&bad), Err(FrameError::Unknown));
        assert_eq!(
            FrameHeader::decode(&good[..good.len() - 1]),
            Err(FrameError::Length)
        );
        let huge = FrameHeader {
            tokens: u32::MAX,
            width: u32::MAX,
            ..header()
        };
        assert_eq!(huge.payload_len(), None);
        assert_eq!(
            FrameHeader::decode(&huge.encode(&[])),
            Err(FrameError::Length)
        );
    }

    #[test]
    fn span_announcements_are_checked() {
        let span = SpanInfo {
            fingerprint: "ab".repeat(32),
            start: 2,
            end: 4,
            total: 6,
            step_us: 100,
        };
        assert_eq!(span.check(), Ok(()));
        assert!(!span.is_entry() && !span.is_exit());
        for bad in [
            SpanInfo {
                start: 4,
                ..span.clone()
            },
            SpanInfo {
                end: 7,
                ..span.clone()
            },
            SpanInfo {
                fingerprint: "AB".repeat(32),
                ..span.clone()
            },
            SpanInfo {
                fingerprint: "ab".into(),
                ..span.clone()
            },
        ] {
            assert!(bad.check().is_err(), "{bad:?}");
        }
    }
}
