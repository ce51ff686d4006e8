//! The matcher's reading of a folded text: the token characters only, glued together, with a
//! note at every byte offset of where a word boundary was and which letters stood for a run.
//!
//! Gluing the tokens is what lets one scan find a term written with spaces or punctuation
//! between its letters ("n u d e", "ch_ild"), and the boundary notes are what the per-term
//! boundary rules ([`crate::matcher`]) read. A run of one letter reads as one ("chiiild",
//! "naaaked"); the letter keeps a note that it stood for a run, so that a term with a double
//! letter ("teen") matches only where the text had one or more ("teen", "teeeen") and not
//! where it had a single one ("ten").
//!
//! Leetspeak has two readings (`1`, `|` as `i` or as `l`) plus the plain one, in which digits
//! stay digits ("r18"); the caller scans each reading that differs from the plain one.

use unicode_normalization::char::is_combining_mark;

/// A word boundary lies at this offset (before the character that starts here).
const BOUNDARY: u8 = 1;
/// The character that starts here stood for a run of one letter.
const RUN: u8 = 2;

/// How digits and symbols inside words are read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Leet {
    /// Digits are digits; symbols separate words.
    Plain,
    /// Leetspeak, with `1`, `|` and `!` read as `i` ([`View::with_ones_as_l`] gives the `l`
    /// reading).
    Letters,
}

/// One word of the view: a byte range of [`View::text`].
#[derive(Debug, Clone, Copy)]
pub struct Token {
    pub start: u32,
    pub end: u32,
    /// Clause punctuation (`,`, `;`, `.`, brackets, a line break …) stood before it.
    pub clause_break: bool,
}

#[derive(Debug, Default, Clone)]
pub struct View {
    pub text: String,
    flags: Vec<u8>,
    /// `boundaries_before[i]`: how many boundary offsets are below `i`.
    boundaries_before: Vec<u32>,
    pub tokens: Vec<Token>,
    /// A leet character was read as a letter (so the other readings may differ).
    pub leet_used: bool,
    /// The offsets of the `1`s and `|`s read as `i`: the other reading has `l` there.
    pub ones: Vec<u32>,
}

/// A folded text's characters, each classified once for every reading of it.
#[derive(Debug, Default)]
pub struct Classified {
    chars: Vec<char>,
    class: Vec<u8>,
}

pub const LETTER: u8 = 1;
pub const MARK: u8 = 2;
pub const EMOJI: u8 = 4;
pub const DIGIT: u8 = 8;
pub const SPACE: u8 = 16;
pub const SPACELESS: u8 = 32;
pub const NEWLINE: u8 = 64;
/// A `1` or `|` read as `i`: it never merges into a run, so that the `l` reading keeps the
/// same offsets.
const ONE: u8 = 128;

fn classify(c: char) -> u8 {
    if c.is_ascii() {
        return match c {
            'a'..='z' | 'A'..='Z' => LETTER,
            '0'..='9' => DIGIT,
            '\n' => SPACE | NEWLINE,
            c if c.is_ascii_whitespace() => SPACE,
            _ => 0,
        };
    }
    if is_spaceless(c) {
        // Han, kana, Hangul, Thai and their neighbours: letters and their marks, no lookup.
        return LETTER | SPACELESS;
    }
    let mut class = 0;
    if c.is_alphabetic() {
        class |= LETTER;
    } else if is_combining_mark(c) {
        class |= MARK;
    } else if is_emoji(c) {
        class |= EMOJI;
    } else if is_space(c) {
        class |= SPACE
            | if matches!(c, '\u{2028}' | '\u{2029}' | '\u{85}') {
                NEWLINE
            } else {
                0
            };
    }
    class
}

impl Classified {
    pub fn new(folded: &str) -> Classified {
        let chars: Vec<char> = folded.chars().collect();
        let class = chars.iter().map(|&c| classify(c)).collect();
        Classified { chars, class }
    }

    /// Each character's class (`LETTER`, `MARK`, …), in the folded text's order.
    pub fn classes(&self) -> &[u8] {
        &self.class
    }

    /// Whether some reading would read a character differently from the plain one.
    pub fn has_leet(&self) -> bool {
        self.chars
            .iter()
            .any(|&c| c.is_ascii_digit() || matches!(c, '|' | '!' | '€' | '@' | '$' | '+'))
    }
}

impl View {
    pub fn new(text: &Classified, leet: Leet) -> View {
        let mut b = Builder::default();
        let n = text.chars.len();
        let mut i = 0;
        while i < n {
            if text.class[i] & SPACE != 0 {
                b.pending_boundary = true;
                b.pending_clause |= text.class[i] & NEWLINE != 0;
                i += 1;
                continue;
            }
            let end = (i..n).find(|&j| text.class[j] & SPACE != 0).unwrap_or(n);
            b.chunk(&text.chars[i..end], &text.class[i..end], leet);
            i = end;
        }
        b.finish()
    }

    /// The same reading with `l` for every `1` and `|` read as `i` (one byte for another: the
    /// offsets, boundaries and tokens stay as they are).
    pub fn with_ones_as_l(&self) -> View {
        let mut bytes = self.text.clone().into_bytes();
        for &o in &self.ones {
            bytes[o as usize] = b'l';
        }
        View {
            text: String::from_utf8(bytes).expect("one ASCII letter for another"),
            ..self.clone()
        }
    }

    pub fn is_boundary(&self, offset: usize) -> bool {
        self.flags[offset] & BOUNDARY != 0
    }

    pub fn is_run(&self, offset: usize) -> bool {
        self.flags.get(offset).is_some_and(|f| f & RUN != 0)
    }

    /// Whether a boundary lies strictly inside `start..end`.
    pub fn crosses(&self, start: usize, end: usize) -> bool {
        end > start + 1 && self.boundaries_before[end] > self.boundaries_before[start + 1]
    }

    /// The index of the token that holds the byte at `offset`.
    pub fn token_at(&self, offset: usize) -> usize {
        let offset = offset as u32;
        self.tokens
            .partition_point(|t| t.start <= offset)
            .saturating_sub(1)
    }

    pub fn token_text(&self, index: usize) -> &str {
        let t = self.tokens[index];
        &self.text[t.start as usize..t.end as usize]
    }
}

fn is_space(c: char) -> bool {
    c.is_whitespace() || c == '\u{2800}'
}

fn is_clause_mark(c: char) -> bool {
    matches!(
        c,
        ',' | ';'
            | '.'
            | ':'
            | '!'
            | '?'
            | '|'
            | '('
            | ')'
            | '['
            | ']'
            | '{'
            | '}'
            | '<'
            | '>'
            | '\n'
            | '、'
            | '。'
            | '，'
            | '；'
            | '：'
            | '！'
            | '？'
            | '«'
            | '»'
            | '"'
            | '“'
            | '”'
            | '؛'
            | '،'
            | '؟'
            | '।'
    )
}

/// Scripts written without spaces between words: a term in them matches anywhere, and a
/// change between them and other letters is a word boundary.
pub fn is_spaceless(c: char) -> bool {
    matches!(c,
        '\u{0E00}'..='\u{0EFF}' | '\u{1000}'..='\u{109F}' | '\u{1100}'..='\u{11FF}'
        | '\u{1780}'..='\u{17FF}' | '\u{3040}'..='\u{30FF}' | '\u{3130}'..='\u{318F}'
        | '\u{3400}'..='\u{4DBF}' | '\u{4E00}'..='\u{9FFF}' | '\u{A960}'..='\u{A97F}'
        | '\u{AC00}'..='\u{D7FF}' | '\u{F900}'..='\u{FAFF}' | '\u{20000}'..='\u{3FFFF}')
}

/// Pictographs: each is a word of its own.
pub fn is_emoji(c: char) -> bool {
    matches!(c, '\u{1F000}'..='\u{1FAFF}' | '\u{2600}'..='\u{27BF}' | '\u{2B00}'..='\u{2BFF}')
}

/// A digit or symbol as the letter it stands for (`1` and `|` as `i`; see
/// [`View::with_ones_as_l`] for the other reading).
fn leet_letter(c: char) -> Option<char> {
    Some(match c {
        '0' => 'o',
        '1' | '|' | '!' => 'i',
        '3' | '€' => 'e',
        '4' | '@' => 'a',
        '5' | '$' => 's',
        '6' => 'g',
        '7' | '+' => 't',
        '8' => 'b',
        '9' => 'g',
        _ => return None,
    })
}

#[derive(Default)]
struct Builder {
    out: View,
    last: Option<(char, usize, u8)>,
    token_start: usize,
    token_clause: bool,
    pending_boundary: bool,
    pending_clause: bool,
    /// The character being emitted is a `1` or `|` read as `i`.
    pending_one: bool,
}

impl Builder {
    fn chunk(&mut self, chars: &[char], class: &[u8], leet: Leet) {
        let has_letter = class.iter().any(|c| c & LETTER != 0);
        for (i, &c) in chars.iter().enumerate() {
            match self.read(chars, class, i, has_letter, leet) {
                Some((r, k)) if k & EMOJI != 0 => {
                    self.pending_boundary = true;
                    self.emit(r, k);
                    self.pending_boundary = true;
                }
                Some((r, k)) => self.emit(r, k),
                None => {
                    self.pending_boundary = true;
                    self.pending_clause |= is_clause_mark(c);
                }
            }
        }
    }

    /// What `chars[i]` reads as (with its class), or `None` where it separates words.
    fn read(
        &mut self,
        chars: &[char],
        class: &[u8],
        i: usize,
        has_letter: bool,
        leet: Leet,
    ) -> Option<(char, u8)> {
        let (c, k) = (chars[i], class[i]);
        if k & (LETTER | MARK | EMOJI) != 0 {
            return Some((c, k));
        }
        let keep = (k & DIGIT != 0).then_some((c, k));
        if leet == Leet::Plain {
            return keep;
        }
        let letter = if has_letter { leet_letter(c) } else { None };
        let Some(letter) = letter else {
            return keep;
        };
        let word_char = |j: usize| class[j] & LETTER != 0 || leet_letter(chars[j]).is_some();
        let before = i > 0 && word_char(i - 1);
        let after = i + 1 < chars.len() && word_char(i + 1);
        let take = if k & DIGIT != 0 {
            digit_run(chars, i) <= 2 && (before || after)
        } else if matches!(c, '$' | '@' | '€') {
            after
        } else {
            before && after
        };
        if !take {
            return keep;
        }
        self.out.leet_used = true;
        self.pending_one = matches!(c, '1' | '|');
        Some((
            letter,
            if self.pending_one {
                LETTER | ONE
            } else {
                LETTER
            },
        ))
    }

    fn emit(&mut self, c: char, class: u8) {
        let offset = self.out.text.len();
        if self.out.flags.is_empty() {
            self.out.flags.push(0);
        }
        if let Some((last, last_offset, last_class)) = self.last {
            if (last_class ^ class) & SPACELESS != 0 || last_class & EMOJI != 0 {
                self.pending_boundary = true;
            }
            if last == c && (class | last_class) & (DIGIT | EMOJI | ONE) == 0 {
                // A run: the letter stays once; a boundary inside the run lies on both sides
                // of it, and the two words share it.
                self.out.flags[last_offset] |= RUN;
                if self.pending_boundary {
                    self.out.flags[last_offset] |= BOUNDARY;
                    self.out.flags[offset] |= BOUNDARY;
                    self.start_token(offset, last_offset);
                }
                return;
            }
        }
        if self.pending_boundary || offset == 0 {
            self.out.flags[offset] |= BOUNDARY;
            self.start_token(offset, offset);
        }
        if std::mem::take(&mut self.pending_one) {
            self.out.ones.push(offset as u32);
        }
        self.out.text.push(c);
        self.out.flags.resize(self.out.text.len() + 1, 0);
        self.last = Some((c, offset, class));
    }

    /// Ends the current token at `end` and starts the next at `start`.
    fn start_token(&mut self, end: usize, start: usize) {
        if end > self.token_start {
            self.out.tokens.push(Token {
                start: self.token_start as u32,
                end: end as u32,
                clause_break: self.token_clause,
            });
        }
        self.token_start = start;
        self.token_clause = std::mem::take(&mut self.pending_clause);
        self.pending_boundary = false;
    }

    fn finish(mut self) -> View {
        let len = self.out.text.len();
        self.start_token(len, len);
        self.out.flags.resize(len + 1, 0);
        self.out.flags[len] |= BOUNDARY;
        self.out.flags[0] |= BOUNDARY;
        let mut count = 0;
        self.out.boundaries_before = Vec::with_capacity(len + 2);
        for i in 0..=len + 1 {
            self.out.boundaries_before.push(count);
            if i <= len && self.out.flags[i] & BOUNDARY != 0 {
                count += 1;
            }
        }
        self.out
    }
}

/// The length of the run of ASCII digits around `chars[i]`.
fn digit_run(chars: &[char], i: usize) -> usize {
    let before = chars[..i]
        .iter()
        .rev()
        .take_while(|c| c.is_ascii_digit())
        .count();
    let after = chars[i..].iter().take_while(|c| c.is_ascii_digit()).count();
    before + after
}
