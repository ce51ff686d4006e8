//! The prompt side of the image safety line: a prompt (and the caller's negative prompt) is
//! normalised and matched against term lists before anything is held or dispatched.
//!
//! The rules and the term syntax are documented in `policy.toml`, the built-in default; an
//! operator's file of the same shape adds terms to it. A verdict names the rule that fired,
//! never the text or the term: blocked prompts appear nowhere.

use std::collections::{HashMap, HashSet};
use std::path::Path;
use std::sync::LazyLock;

use regex::Regex;
use serde::Deserialize;
use unicode_normalization::char::is_combining_mark;
use unicode_normalization::UnicodeNormalization;

/// The built-in term lists.
pub const BUILTIN_POLICY: &str = include_str!("policy.toml");

/// Longest text the policy looks at; the endpoints refuse longer prompts before this.
const MAX_CHARS: usize = 8192;

/// The policy file's shape; every list is optional.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct PolicyFile {
    #[serde(default)]
    minor: Vec<String>,
    #[serde(default)]
    sexual: Vec<String>,
    #[serde(default)]
    adult: Vec<String>,
    #[serde(default)]
    clothing: Vec<String>,
}

/// Why a prompt was blocked: a fixed label, safe for metrics and logs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Blocked {
    /// Minor and sexual terms together in the prompt.
    MinorSexual,
    /// A minor term in an `nsfw` request.
    MinorNsfw,
    /// Minor and sexual terms together in the negative prompt.
    NegativeMinorSexual,
    /// Adulthood negated for a sexual or `nsfw` prompt.
    NegatedAdult,
    /// Clothing negated for a prompt with a minor term.
    NegatedClothing,
}

impl Blocked {
    pub const fn label(self) -> &'static str {
        match self {
            Blocked::MinorSexual => "minor_sexual",
            Blocked::MinorNsfw => "minor_nsfw",
            Blocked::NegativeMinorSexual => "negative_minor_sexual",
            Blocked::NegatedAdult => "negated_adult",
            Blocked::NegatedClothing => "negated_clothing",
        }
    }
}

/// The compiled term lists.
#[derive(Debug)]
pub struct ContentPolicy {
    minor: TermSet,
    sexual: TermSet,
    adult: TermSet,
    clothing: TermSet,
}

impl Default for ContentPolicy {
    fn default() -> Self {
        Self::from_files(&[BUILTIN_POLICY]).expect("the built-in policy parses")
    }
}

impl ContentPolicy {
    /// The built-in lists, extended by the operator's file when one is named.
    pub fn load(extra: Option<&Path>) -> anyhow::Result<Self> {
        let Some(path) = extra else {
            return Ok(Self::default());
        };
        let text = std::fs::read_to_string(path).map_err(|e| {
            anyhow::anyhow!("cannot read image policy file {}: {e}", path.display())
        })?;
        Self::from_files(&[BUILTIN_POLICY, &text])
            .map_err(|e| anyhow::anyhow!("image policy file {}: {e}", path.display()))
    }

    fn from_files(texts: &[&str]) -> anyhow::Result<Self> {
        let mut all = PolicyFile::default();
        for text in texts {
            let f: PolicyFile = toml::from_str(text)?;
            all.minor.extend(f.minor);
            all.sexual.extend(f.sexual);
            all.adult.extend(f.adult);
            all.clothing.extend(f.clothing);
        }
        Ok(ContentPolicy {
            minor: TermSet::new(&all.minor),
            sexual: TermSet::new(&all.sexual),
            adult: TermSet::new(&all.adult),
            clothing: TermSet::new(&all.clothing),
        })
    }

    /// Checks a prompt and the caller's own negative prompt (not the service's baseline).
    pub fn check(&self, prompt: &str, negative: &str, nsfw: bool) -> Result<(), Blocked> {
        let p = Words::of(prompt);
        let n = Words::of(negative);
        let p_minor = p.ages_below_18 || self.minor.any(&p);
        let p_sexual = self.sexual.any(&p);
        if p_minor && p_sexual {
            return Err(Blocked::MinorSexual);
        }
        if nsfw && p_minor {
            return Err(Blocked::MinorNsfw);
        }
        if (n.ages_below_18 || self.minor.any(&n)) && self.sexual.any(&n) {
            return Err(Blocked::NegativeMinorSexual);
        }
        if (nsfw || p_sexual) && self.adult.any(&n) {
            return Err(Blocked::NegatedAdult);
        }
        if p_minor && self.clothing.any(&n) {
            return Err(Blocked::NegatedClothing);
        }
        Ok(())
    }
}

/// One list of terms, ready to match normalised words.
#[derive(Debug, Default)]
struct TermSet {
    words: HashSet<String>,
    /// A term with its letter runs squeezed ("teen" → "ten") → the shortest such term's length.
    squeezed: HashMap<String, usize>,
    prefixes: Vec<String>,
    phrases: Vec<Vec<String>>,
    /// Terms long enough that one wrong letter still names them.
    long: Vec<String>,
}

impl TermSet {
    fn new(terms: &[String]) -> Self {
        let mut set = TermSet::default();
        for term in terms {
            let term = term.trim().to_lowercase();
            if let Some(prefix) = term.strip_suffix('*') {
                if !prefix.is_empty() {
                    set.prefixes.push(prefix.to_owned());
                }
                continue;
            }
            let parts: Vec<String> = term.split_whitespace().map(str::to_owned).collect();
            match parts.len() {
                0 => continue,
                1 => {}
                _ => set.phrases.push(parts.clone()),
            }
            let joined = parts.concat();
            let len = joined.chars().count();
            let short = set.squeezed.entry(squeeze(&joined)).or_insert(len);
            *short = (*short).min(len);
            if len >= 7 {
                set.long.push(joined.clone());
            }
            set.words.insert(joined);
        }
        set
    }

    fn any(&self, words: &Words) -> bool {
        words.candidates.iter().any(|w| self.matches(w))
            || self.phrases.iter().any(|p| words.has_phrase(p))
    }

    fn matches(&self, word: &str) -> bool {
        if word.is_empty() {
            return false;
        }
        let stems = [
            Some(word),
            word.strip_suffix('s'),
            word.strip_suffix("es"),
            word.strip_suffix('z'),
        ];
        if stems.iter().flatten().any(|s| self.words.contains(*s)) {
            return true;
        }
        if self.prefixes.iter().any(|p| word.starts_with(p.as_str())) {
            return true;
        }
        let len = word.chars().count();
        if let Some(&shortest) = self.squeezed.get(&squeeze(word)) {
            if len >= shortest {
                return true;
            }
        }
        self.one_slip_away(word, len)
    }

    /// Two neighbouring letters swapped (terms of 5 letters or more), or one letter wrong
    /// (terms of 7 or more): short words are too close to innocent ones for this.
    fn one_slip_away(&self, word: &str, len: usize) -> bool {
        if !(5..=24).contains(&len) {
            return false;
        }
        let chars: Vec<char> = word.chars().collect();
        let mut swapped = chars.clone();
        for i in 0..chars.len() - 1 {
            swapped.swap(i, i + 1);
            let candidate: String = swapped.iter().collect();
            if self.words.contains(&candidate) {
                return true;
            }
            swapped.swap(i, i + 1);
        }
        self.long.iter().any(|t| {
            t.chars().count() == len
                && t.chars().zip(word.chars()).filter(|(a, b)| a != b).count() == 1
        })
    }
}

/// Runs of one letter squeezed to one ("chiiild" → "child").
fn squeeze(word: &str) -> String {
    let mut out = String::with_capacity(word.len());
    let mut last = None;
    for c in word.chars() {
        if last != Some(c) {
            out.push(c);
        }
        last = Some(c);
    }
    out
}

/// A text's words after normalisation, in the forms that are matched.
struct Words {
    /// Every form worth matching: each piece, each chunk joined, neighbouring chunks joined,
    /// and stretches of letters written one by one ("c h i l d").
    candidates: HashSet<String>,
    /// The chunks in order (joined), for phrases.
    sequence: Vec<String>,
    ages_below_18: bool,
}

impl Words {
    fn of(text: &str) -> Self {
        let base = fold(text);
        let ages_below_18 = has_minor_age(&base);
        let mut words = Words {
            candidates: HashSet::new(),
            sequence: Vec::new(),
            ages_below_18,
        };
        // `1`, `|` and `!` read as `i` or as `l`: both readings are matched.
        for one_as in ['i', 'l'] {
            words.add_reading(&base, one_as);
        }
        words
    }

    fn add_reading(&mut self, base: &str, one_as: char) {
        let chunks: Vec<Vec<String>> = base
            .split_whitespace()
            .map(|chunk| {
                let letters: String = chunk.chars().map(|c| unleet(c, one_as, chunk)).collect();
                letters
                    .split(|c: char| !c.is_alphabetic())
                    .filter(|p| !p.is_empty())
                    .map(str::to_owned)
                    .collect()
            })
            .filter(|pieces: &Vec<String>| !pieces.is_empty())
            .collect();
        let joined: Vec<String> = chunks.iter().map(|p| p.concat()).collect();
        for pieces in &chunks {
            self.candidates.extend(pieces.iter().cloned());
        }
        for window in 2..=3 {
            for w in joined.windows(window) {
                self.candidates.insert(w.concat());
            }
        }
        let mut run: Vec<char> = Vec::new();
        for word in joined.iter().chain(std::iter::once(&String::new())) {
            let mut letters = word.chars();
            if let (Some(c), None) = (letters.next(), letters.next()) {
                run.push(c);
                continue;
            }
            self.add_spelled_out(&run);
            run.clear();
        }
        self.candidates.extend(joined.iter().cloned());
        if self.sequence.is_empty() {
            self.sequence = joined;
        }
    }

    /// Letters written one by one ("s e x y t e e n"): every stretch of 3 to 16 of them.
    fn add_spelled_out(&mut self, run: &[char]) {
        for start in 0..run.len() {
            for end in start + 3..=(start + 16).min(run.len()) {
                self.candidates.insert(run[start..end].iter().collect());
            }
        }
    }

    fn has_phrase(&self, phrase: &[String]) -> bool {
        self.sequence.windows(phrase.len()).any(|w| {
            w.iter()
                .zip(phrase)
                .all(|(word, term)| word == term || word.strip_suffix('s') == Some(term))
        })
    }
}

/// Case, compatibility forms (NFKC: full-width, ligatures, mathematical letters), accents,
/// confusable letters from other scripts, and invisible characters folded away.
fn fold(text: &str) -> String {
    let text: String = text.chars().take(MAX_CHARS).collect();
    text.nfkc()
        .flat_map(char::to_lowercase)
        .nfd()
        .filter(|c| !is_combining_mark(*c) && !is_invisible(*c))
        .map(unconfuse)
        .collect()
}

fn is_invisible(c: char) -> bool {
    matches!(c, '\u{00AD}' | '\u{034F}' | '\u{180E}' | '\u{200B}'..='\u{200F}'
        | '\u{202A}'..='\u{202E}' | '\u{2060}'..='\u{2064}' | '\u{FEFF}')
}

/// Letters of other scripts that look like Latin ones, as the Latin letter.
fn unconfuse(c: char) -> char {
    match c {
        'а' | 'α' | 'ɑ' => 'a',
        'в' | 'β' | 'ь' => 'b',
        'с' | 'ϲ' | 'ς' => 'c',
        'ԁ' | 'ɗ' => 'd',
        'е' | 'ε' | 'є' => 'e',
        'ғ' => 'f',
        'ɡ' | 'ց' => 'g',
        'һ' | 'н' | 'η' => 'h',
        'і' | 'ι' | 'ı' | 'ɩ' => 'i',
        'ј' | 'ϳ' => 'j',
        'к' | 'κ' => 'k',
        'ӏ' | 'ℓ' => 'l',
        'м' => 'm',
        'п' | 'ո' => 'n',
        'о' | 'ο' | 'σ' | 'օ' => 'o',
        'р' | 'ρ' => 'p',
        'ԛ' => 'q',
        'г' => 'r',
        'ѕ' => 's',
        'т' | 'τ' => 't',
        'υ' | 'ս' => 'u',
        'ν' | 'ѵ' => 'v',
        'ԝ' | 'ω' | 'ш' => 'w',
        'х' | 'χ' => 'x',
        'у' | 'γ' | 'ү' => 'y',
        'ᴢ' => 'z',
        other => other,
    }
}

/// Leetspeak inside a chunk that has letters ("ch1ld", "nud3"); a bare number stays a
/// number ("1024").
fn unleet(c: char, one_as: char, chunk: &str) -> char {
    if !chunk.chars().any(char::is_alphabetic) && !matches!(c, '@' | '$' | '!' | '|') {
        return c;
    }
    match c {
        '0' => 'o',
        '1' | '|' | '!' => one_as,
        '2' => 'z',
        '3' => 'e',
        '4' | '@' => 'a',
        '5' | '$' => 's',
        '6' => 'g',
        '7' | '+' => 't',
        '8' => 'b',
        '9' => 'g',
        other => other,
    }
}

static AGE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?x)
        \b(\d{1,2}|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen
           |fourteen|fifteen|sixteen|seventeen)
        [\s_.\-]*
        (?:yo\b|y\s*/\s*o\b|y\.o\b|(?:years?|yrs?)[\s_.\-]*old\b)",
    )
    .expect("the age pattern compiles")
});

/// An age below 18 written as a number or a word ("12 year old", "12yo", "twelve-year-old").
fn has_minor_age(text: &str) -> bool {
    AGE.captures_iter(text).any(|c| {
        let n = &c[1];
        n.parse::<u32>().map(|n| n < 18).unwrap_or(true)
    })
}

#[cfg(test)]
mod tests;
