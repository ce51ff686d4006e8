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

/// What a new entry is given when a running session lost its entry after the client had
/// output: the tokens the last span sampled, as the gateway relayed them to the lost entry. The
/// new entry renders and tokenizes the job's prompt as the lost one did, then feeds these tokens
/// (those at its prompt's length and after) through the chain and its text side before it
/// samples anything new. Token ids only: no text, no identity; the gateway holds them in memory
/// for the session's life.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Resume {
    /// The position of `tokens[0]`. At most the prompt's length: the end of an earlier prompt
    /// chunk may come first (its token is not a generated one, and the entry skips it).
    pub from: u32,
    /// Token ids for positions `from, from + 1, …`, contiguous.
    pub tokens: Vec<u32>,
}

impl Resume {
    /// The generated tokens of a prompt of `n_prompt` tokens: those at positions `n_prompt..`.
    /// `None` when the first of them is missing (`from` past the prompt's end).
    pub fn generated(&self, n_prompt: usize) -> Option<&[u32]> {
        let skip = n_prompt.checked_sub(self.from as usize)?;
        Some(self.tokens.get(skip..).unwrap_or_default())
    }
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

    /// A token frame: the token id sampled for `position`, from the last span to the entry.
    pub fn token_frame(session: u64, position: u32, token: u32) -> Vec<u8> {
        let header = FrameHeader {
            kind: FrameKind::Token,
            dtype: Dtype::U32,
            session,
            position,
            tokens: 1,
            width: 1,
        };
        header.encode(&token.to_le_bytes())
    }

    /// The token id a token frame carries (`None`: not a frame of one token id).
    pub fn token(&self, payload: &[u8]) -> Option<u32> {
        let one = self.kind == FrameKind::Token
            && self.dtype == Dtype::U32
            && self.tokens == 1
            && self.width == 1;
        let bytes: [u8; 4] = payload.try_into().ok().filter(|_| one)?;
        Some(u32::from_le_bytes(bytes))
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
    fn a_token_frame_carries_one_token_id() {
        let frame = FrameHeader::token_frame(9, 300, 0xdead_beef);
        let (h, p) = FrameHeader::decode(&frame).unwrap();
        assert_eq!((h.kind, h.session, h.position), (FrameKind::Token, 9, 300));
        assert_eq!(h.token(p), Some(0xdead_beef));
        let two = FrameHeader { tokens: 2, ..h };
        assert_eq!(two.token(&[0; 8]), None);
        assert_eq!(header().token(&[0; 24]), None, "hidden states are no token");
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
    fn a_resume_gives_the_tokens_from_the_prompts_end() {
        let resume = Resume {
            from: 256,
            tokens: vec![7, 8, 9],
        };
        assert_eq!(resume.generated(256), Some(&[7, 8, 9][..]));
        assert_eq!(resume.generated(257), Some(&[8, 9][..]));
        assert_eq!(resume.generated(259), Some(&[][..]));
        assert_eq!(resume.generated(300), Some(&[][..]));
        assert_eq!(
            resume.generated(255),
            None,
            "the first generated token is missing"
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
