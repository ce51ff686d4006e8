//! Every lexicon term in one Aho–Corasick automaton over the [`View`] of a text, with the
//! word-boundary rule of each term checked on its own matches.
//!
//! A term's two ends are *bounded* unless written with `*` (or in a script without spaces,
//! where both ends are free). A bounded end must fall on a word boundary or be *anchored*: it
//! meets the end of another match (a term or a glue word) that is anchored in turn, so a term
//! glued to other terms ("sexyteen", "nudekid", "hotlittlegirl") is found, while one inside
//! an innocent word ("skid", "canteen", "kidney") is not. A bounded right end may also be
//! followed by a plural ending (`s`, `es`, `z`). A match that spans a word boundary (letters
//! spread out: "n u d e", "chi ld") must be anchored at both ends whatever its term says, so
//! that the tail of one word and the head of the next ("menu design") do not spell a term.

use std::collections::HashMap;

use aho_corasick::{AhoCorasick, AhoCorasickKind, MatchKind};

use crate::fold::fold;
use crate::view::{is_emoji, is_spaceless, Classified, Leet, View};

/// What a term stands for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cat {
    Minor,
    Sexual,
    Abuse,
    Adult(Sex),
    Clothing,
    Person,
    /// A description of a child's body, with its weight.
    Body(u8),
    Glue,
    Exempt(When),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sex {
    Neutral,
    Female,
    Male,
}

/// When an exemption holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum When {
    Always,
    UnlessSexual,
}

#[derive(Debug)]
struct Entry {
    cat: Cat,
    left_free: bool,
    right_free: bool,
    /// Offsets (from the match start) whose letter must have stood for a run in the text.
    runs: Box<[u32]>,
}

/// A match that passed its boundary rules.
#[derive(Debug, Clone, Copy)]
pub struct Hit {
    pub cat: Cat,
    pub start: usize,
    pub end: usize,
    /// The pattern's index: one per distinct term text.
    pub pattern: u32,
}

/// A term compiled to the form it is matched in.
pub struct Compiled {
    pub text: String,
    left_free: bool,
    right_free: bool,
    runs: Vec<u32>,
}

/// Folds and reads a term as a text would be read; `None` for a term with no letters.
pub fn compile(term: &str) -> Option<Compiled> {
    let term = term.trim();
    let left_star = term.starts_with('*');
    let right_star = term.len() > 1 && term.ends_with('*');
    let view = View::new(&Classified::new(&fold(term.trim_matches('*'))), Leet::Plain);
    let first = view.text.chars().next()?;
    let last = view.text.chars().next_back()?;
    let free = |c: char| is_spaceless(c) || is_emoji(c);
    let runs = (0..view.text.len())
        .filter(|&o| view.is_run(o))
        .map(|o| o as u32)
        .collect();
    Some(Compiled {
        left_free: left_star || free(first),
        right_free: right_star || free(last),
        runs,
        text: view.text,
    })
}

#[derive(Default)]
pub struct Builder {
    patterns: Vec<String>,
    index: HashMap<String, usize>,
    entries: Vec<Vec<Entry>>,
}

impl Builder {
    pub fn add(&mut self, term: &str, cat: Cat) {
        let Some(c) = compile(term) else { return };
        let i = *self.index.entry(c.text.clone()).or_insert_with(|| {
            self.patterns.push(c.text);
            self.entries.push(Vec::new());
            self.patterns.len() - 1
        });
        let entry = Entry {
            cat,
            left_free: c.left_free,
            right_free: c.right_free,
            runs: c.runs.into(),
        };
        let list = &mut self.entries[i];
        let same = |e: &Entry| {
            e.cat == entry.cat
                && e.left_free == entry.left_free
                && e.right_free == entry.right_free
                && e.runs == entry.runs
        };
        if !list.iter().any(same) {
            list.push(entry);
        }
    }

    pub fn build(self) -> Result<Matcher, aho_corasick::BuildError> {
        // A DFA: the fastest scan, for about 20 MB with the built-in lexicons.
        let ac = AhoCorasick::builder()
            .match_kind(MatchKind::Standard)
            .kind(Some(AhoCorasickKind::DFA))
            .build(&self.patterns)?;
        Ok(Matcher {
            ac,
            entries: self.entries,
        })
    }
}

pub struct Matcher {
    ac: AhoCorasick,
    entries: Vec<Vec<Entry>>,
}

/// A raw match, before its boundary rules.
struct Raw<'a> {
    entry: &'a Entry,
    start: usize,
    end: usize,
    pattern: u32,
    crossing: bool,
}

impl Matcher {
    pub fn pattern_count(&self) -> usize {
        self.entries.len()
    }

    pub fn memory_usage(&self) -> usize {
        self.ac.memory_usage()
    }

    /// The matches in `view` that pass their boundary rules, appended to `hits`.
    pub fn scan(&self, view: &View, hits: &mut Vec<Hit>) {
        let mut raw = Vec::new();
        for m in self.ac.find_overlapping_iter(view.text.as_str()) {
            let (start, end) = (m.start(), m.end());
            let crossing = view.crosses(start, end);
            let pattern = m.pattern().as_u32();
            for entry in &self.entries[pattern as usize] {
                if entry.runs.iter().all(|&o| view.is_run(start + o as usize)) {
                    raw.push(Raw {
                        entry,
                        start,
                        end,
                        pattern,
                        crossing,
                    });
                }
            }
        }
        let (left, right) = anchors(view, &mut raw);
        for r in &raw {
            let left_ok = left[r.start] || (r.entry.left_free && !r.crossing);
            let right_ok = right[r.end] || (r.entry.right_free && !r.crossing);
            if left_ok && right_ok {
                hits.push(Hit {
                    cat: r.entry.cat,
                    start: r.start,
                    end: r.end,
                    pattern: r.pattern,
                });
            }
        }
    }
}

/// The offsets a bounded left end (`.0`) or right end (`.1`) may fall on.
fn anchors(view: &View, raw: &mut [Raw]) -> (Vec<bool>, Vec<bool>) {
    let len = view.text.len();
    let mut left: Vec<bool> = (0..=len).map(|o| view.is_boundary(o)).collect();
    let mut right = left.clone();
    for t in &view.tokens {
        let word = &view.text[t.start as usize..t.end as usize];
        for suffix in ["s", "es", "z"] {
            if word.len() > suffix.len() && word.ends_with(suffix) {
                right[t.end as usize - suffix.len()] = true;
            }
        }
    }
    raw.sort_unstable_by_key(|r| r.start);
    for r in raw.iter() {
        if left[r.start] || (r.entry.left_free && !r.crossing) {
            left[r.end] = true;
            // A letter that stood for a run may be shared with the next word ("hotteen").
            if let Some((o, _)) = view.text[..r.end].char_indices().next_back() {
                if view.is_run(o) {
                    left[o] = true;
                }
            }
        }
    }
    for r in raw.iter().rev() {
        if right[r.end] || (r.entry.right_free && !r.crossing) {
            right[r.start] = true;
            if view.is_run(r.start) {
                let next = view.text[r.start..]
                    .chars()
                    .next()
                    .map_or(1, char::len_utf8);
                right[r.start + next] = true;
            }
        }
    }
    (left, right)
}
