//! The prompt side of the image safety line: whether an image request (prompt, negative
//! prompt, `nsfw`) may be rendered. This crate owns the whole check and nothing else: the
//! normalisation of text ([`fold`]), the lexicons of minor, sexual, adult and body terms in
//! the most-used languages of the web (`lexicon/*.toml`, built in), the matching of terms in
//! glued words, hashtags and scripts without spaces, the age and school-year parser, and the
//! rules over the request. It is a pure function: no I/O, no clock after construction, no
//! logging. A [`Verdict`] names the rule that fired ([`Reason::code`]) and never the text or
//! the term, so a blocked prompt appears nowhere.
//!
//! ```
//! use shoal_image_policy::{Policy, Request, Verdict};
//! let policy = Policy::builtin();
//! let req = Request { prompt: "a kid goat on a farm", negative_prompt: "", nsfw: true };
//! assert_eq!(policy.check(&req), Verdict::Allow);
//! ```
//!
//! # The rules
//!
//! The prompt and the negative prompt are one request. A prompt is *minor* when it names a
//! minor (a term, an age below 18, a school year), *sexual* when it has a sexual term; the
//! request is *sexual* when the prompt is, when `nsfw` is set, or when the negative prompt
//! names clothes. In order, the first that holds blocks:
//!
//! 1. the prompt has an abuse term (one that names the sexual abuse of minors by itself);
//! 2. the prompt is minor and sexual;
//! 3. `nsfw` is set and the prompt is minor;
//! 4. the prompt is minor and the negative prompt names clothes;
//! 5. the request is sexual and the negative prompt names adulthood: an adult word, an age of
//!    18 or more, maturity, an adult body ("tall", "breasts"), or a woman (a man) while the
//!    prompt names no adult man (woman);
//! 6. the request is sexual and the prompt describes a child's body: descriptors weighing 3 or
//!    more ("training bra" 3; "flat-chested" 2 + "small" 1), where the weak ones ("small",
//!    "young", "petite") count only beside a stronger one.
//!
//! Inside the prompt, a negated term reads the other way: "no nudity" is not sexual, "no
//! children" is not minor, "without clothes" is sexual, "not an adult" is minor.
//!
//! Innocent uses are held by exemptions, phrases inside which a term does not count: food
//! ("baby back ribs", "baby spinach"), colours and products ("nude pink", "baby blue",
//! "Kinder Bueno"), music and astronomy ("minor key", "Ursa Minor") always; animals ("kid
//! goat", "baby elephant", "lion cub") unless the prompt is sexual. An exemption does not hold
//! when the word next to it names a person ("nude pink girl"). The age of a thing ("12 year
//! old whisky", "a 13-year-old car") is not a person's age unless the request names a person.

mod age;
#[cfg(feature = "corpus")]
pub mod corpus;
mod fold;
mod lexicon;
mod matcher;
mod rules;
mod view;

pub use fold::{fold, MAX_CHARS};
pub use rules::{Policy, PolicyError, Reason, Request, Verdict};

/// FNV-1a: the crate's hash maps hold short words and are read on every check, where SipHash's
/// resistance to chosen collisions buys nothing (the keys are the lexicons', fixed at build).
#[derive(Default, Clone, Copy)]
struct Fnv(u64);

impl std::hash::Hasher for Fnv {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        let mut h = if self.0 == 0 {
            0xcbf2_9ce4_8422_2325
        } else {
            self.0
        };
        for b in bytes {
            h = (h ^ u64::from(*b)).wrapping_mul(0x0100_0000_01b3);
        }
        self.0 = h;
    }
}

type FastMap<K, V> = std::collections::HashMap<K, V, std::hash::BuildHasherDefault<Fnv>>;
type FastSet<K> = std::collections::HashSet<K, std::hash::BuildHasherDefault<Fnv>>;
