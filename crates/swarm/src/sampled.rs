//! What the gateway keeps of a session so that another entry can take its job over when the
//! entry is lost: the token ids the last span sampled, as relayed to the entry. In memory only,
//! for the session's life (a job taken over keeps its record); never logged or stored.

use shoal_protocol::swarm::Resume;

/// The most tokens recorded for one session: far past any context, so that a node sending
/// token frames without end cannot grow the gateway without bound. A record cut short is
/// harmless: the new entry feeds what there is and the chain samples the rest again.
const MAX_TOKENS: usize = 1 << 20;

/// The contiguous run of sampled tokens that ends at the newest position.
#[derive(Default)]
pub struct Sampled {
    from: u32,
    tokens: Vec<u32>,
}

impl Sampled {
    /// A token frame relayed to the entry: the token for `position`.
    pub fn record(&mut self, position: u32, token: u32) {
        if self.tokens.len() >= MAX_TOKENS {
            return;
        }
        let end = u64::from(self.from) + self.tokens.len() as u64;
        let at = u64::from(position);
        if self.tokens.is_empty() || at > end {
            // The first token, or one after a gap: what came before it was a token for an
            // earlier prompt chunk's end, not a generated one.
            self.from = position;
            self.tokens.clear();
            self.tokens.push(token);
        } else if at == end {
            self.tokens.push(token);
        }
        // An earlier position: a replay drawing again what was drawn (seeded per position).
    }

    /// What a new entry is given.
    pub fn resume(&self) -> Resume {
        Resume {
            from: self.from,
            tokens: self.tokens.clone(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn recorded(frames: &[(u32, u32)]) -> Resume {
        let mut sampled = Sampled::default();
        for &(position, token) in frames {
            sampled.record(position, token);
        }
        sampled.resume()
    }

    #[test]
    fn the_record_is_the_run_of_tokens_that_ends_at_the_newest() {
        // Prompt chunks end at 256 and 512; the prompt at 600; a replay draws 256, 512 and
        // 600..602 again.
        let frames = [(256, 1), (512, 2), (600, 7), (601, 8), (602, 9)];
        let want = Resume {
            from: 600,
            tokens: vec![7, 8, 9],
        };
        assert_eq!(recorded(&frames), want);
        let replayed = [&frames[..], &[(256, 1), (512, 2), (600, 7), (601, 8)]].concat();
        assert_eq!(recorded(&replayed), want);
        let more = [&replayed[..], &[(602, 9), (603, 4)]].concat();
        assert_eq!(recorded(&more).tokens, [7, 8, 9, 4]);
        // A prompt of 257 tokens: its chunk's token at 256 abuts the first generated one; the
        // entry, which knows the prompt's length, skips it.
        let abutting = recorded(&[(256, 1), (257, 7), (258, 8)]);
        assert_eq!((abutting.from, abutting.tokens), (256, vec![1, 7, 8]));
        assert_eq!(recorded(&[]).tokens, Vec::<u32>::new());
    }
}
