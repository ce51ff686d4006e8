//! Ages and school years in a folded text, in numerals or number words of the lexicons'
//! languages: "13 y/o", "aged thirteen", "(13)", "13 years of age", "just turned twelve",
//! "boy, 12, shirtless", "6th grade", "first-grader", "niña de doce años", "12-jährige",
//! "十二岁", "열두 살", "born in 2013", "under 18".
//!
//! The text is read as words, numbers and punctuation (digits are never leetspeak here).
//! Number words are combined ("twenty one", "dix-sept", "on iki", "dua belas"); CJK numerals
//! are read inside words of scripts without spaces ("十二岁"). An age followed by a thing
//! ("12 year old whisky", "a 13-year-old car") or after one ("whisky de 12 años") is the age of
//! the thing when the request names no person.

use crate::{FastMap, FastSet};

use crate::fold::fold;
use crate::lexicon::AgeWords;
use crate::view::{is_spaceless, DIGIT, LETTER, MARK, NEWLINE, SPACE, SPACELESS};

/// One word of a phrase: the word, or a prefix of words when written with `*`.
#[derive(Debug)]
struct WordPat {
    text: String,
    prefix: bool,
}

impl WordPat {
    fn matches(&self, word: &str) -> bool {
        if self.prefix {
            word.starts_with(&self.text)
        } else {
            word == self.text
        }
    }
}

type Phrase = Vec<WordPat>;

/// Phrases indexed by their first and their last word, so that a number is tried against the
/// few phrases that could fit, not all of them.
#[derive(Debug, Default)]
struct PhraseSet {
    phrases: Vec<Phrase>,
    /// Word → the phrases that may start (end) with it, longest first: those that start (end)
    /// with the word itself and those whose first (last) word is a prefix.
    by_first: FastMap<String, Vec<usize>>,
    by_last: FastMap<String, Vec<usize>>,
    /// The phrases whose first (last) word is a prefix, for every other word.
    first_prefix: Vec<usize>,
    last_prefix: Vec<usize>,
}

impl PhraseSet {
    fn new(list: &[String]) -> PhraseSet {
        let mut phrases: Vec<Phrase> = list.iter().filter_map(|p| phrase(p)).collect();
        // Longer phrases first, so that "years of age" is tried before "years".
        phrases.sort_by_key(|p| std::cmp::Reverse(p.len()));
        let mut set = PhraseSet::default();
        for (i, p) in phrases.iter().enumerate() {
            for (word, index, prefix) in [
                (&p[0], &mut set.by_first, &mut set.first_prefix),
                (&p[p.len() - 1], &mut set.by_last, &mut set.last_prefix),
            ] {
                if word.prefix {
                    prefix.push(i);
                } else {
                    index.entry(word.text.clone()).or_default().push(i);
                }
            }
        }
        for (index, prefix) in [
            (&mut set.by_first, &set.first_prefix),
            (&mut set.by_last, &set.last_prefix),
        ] {
            for ids in index.values_mut() {
                ids.extend(prefix);
                ids.sort_unstable();
            }
        }
        set.phrases = phrases;
        set
    }

    /// The phrases that may start (`first`) or end with `word`, longest first.
    fn candidates(&self, word: &str, first: bool) -> impl Iterator<Item = &Phrase> {
        let (index, prefix) = if first {
            (&self.by_first, &self.first_prefix)
        } else {
            (&self.by_last, &self.last_prefix)
        };
        index
            .get(word)
            .unwrap_or(prefix)
            .iter()
            .map(|&i| &self.phrases[i])
    }
}

/// The start of `phrase` when it ends just before token `end` (its words may have `'`, `-`
/// or `.` between them).
fn match_before(phrase: &Phrase, toks: &[Tok], end: usize) -> Option<usize> {
    let mut j = end;
    for (k, w) in phrase.iter().rev().enumerate() {
        if k > 0 {
            while j > 0 && matches!(toks[j - 1], Tok::Punct('\'' | '-' | '.')) {
                j -= 1;
            }
        }
        match j.checked_sub(1).map(|x| toks[x]) {
            Some(Tok::Word(x)) if w.matches(x) => j -= 1,
            _ => return None,
        }
    }
    Some(j)
}

fn phrase(text: &str) -> Option<Phrase> {
    let words: Phrase = text
        .split_whitespace()
        .map(|w| {
            let prefix = w.len() > 1 && w.ends_with('*');
            WordPat {
                text: fold(w.trim_end_matches('*')),
                prefix,
            }
        })
        .filter(|w| !w.text.is_empty())
        .collect();
    (!words.is_empty()).then_some(words)
}

/// The age vocabulary, compiled.
#[derive(Debug, Default)]
pub struct AgeParser {
    numbers: FastMap<String, u32>,
    teen_suffixes: FastSet<String>,
    tens_suffixes: FastSet<String>,
    ordinals: FastMap<String, u32>,
    after: PhraseSet,
    infant: PhraseSet,
    before: PhraseSet,
    grade_after: PhraseSet,
    grade_before: PhraseSet,
    birthday: PhraseSet,
    under: PhraseSet,
    born: PhraseSet,
    bare: FastSet<String>,
    /// Units written in scripts without spaces ("岁", "年级"), looked for inside words.
    spaceless_units: Vec<(String, Kind)>,
    things: FastSet<String>,
    persons: FastSet<String>,
    this_year: u32,
    /// The longest number or ordinal word, in bytes: longer words are not looked up.
    longest_word: usize,
}

/// What a number names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Age,
    Grade,
}

/// An age found in a text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Mention {
    pub years: u32,
    /// Counts only when the request names a person ("boy, 12, shirtless").
    pub needs_person: bool,
    /// A thing stands next to it: the age of the thing unless the request names a person.
    pub of_thing: bool,
}

pub struct Vocabulary<'a> {
    pub numbers: &'a std::collections::BTreeMap<String, u32>,
    pub teen_suffixes: &'a [String],
    pub tens_suffixes: &'a [String],
    pub ordinals: &'a std::collections::BTreeMap<String, u32>,
    pub words: &'a AgeWords,
    pub things: &'a [String],
    pub persons: Vec<&'a String>,
    pub this_year: u32,
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Tok<'a> {
    Word(&'a str),
    Num(u32),
    Punct(char),
}

/// A number read from one or more tokens.
#[derive(Debug, Clone, Copy)]
struct Number {
    first: usize,
    /// The token after the number.
    next: usize,
    value: u32,
    /// Written as a number word (not digits).
    word: bool,
}

impl AgeParser {
    pub fn new(v: &Vocabulary) -> AgeParser {
        let fold_set = |list: &[String]| -> FastSet<String> {
            list.iter().map(|w| fold(w.trim_end_matches('*'))).collect()
        };
        let words = v.words;
        let mut spaceless_units = Vec::new();
        for (list, kind) in [(&words.after, Kind::Age), (&words.grade_after, Kind::Grade)] {
            for unit in list {
                let f = fold(unit.trim_end_matches('*'));
                if f.chars().next().is_some_and(is_spaceless) && !f.contains(' ') {
                    spaceless_units.push((f, kind));
                }
            }
        }
        AgeParser {
            numbers: v.numbers.iter().map(|(k, n)| (fold(k), *n)).collect(),
            teen_suffixes: fold_set(v.teen_suffixes),
            tens_suffixes: fold_set(v.tens_suffixes),
            ordinals: v.ordinals.iter().map(|(k, n)| (fold(k), *n)).collect(),
            after: PhraseSet::new(&words.after),
            infant: PhraseSet::new(&words.infant),
            before: PhraseSet::new(&words.before),
            grade_after: PhraseSet::new(&words.grade_after),
            grade_before: PhraseSet::new(&words.grade_before),
            birthday: PhraseSet::new(&words.birthday),
            under: PhraseSet::new(&words.under),
            born: PhraseSet::new(&words.born),
            bare: fold_set(&words.bare),
            spaceless_units,
            things: fold_set(v.things),
            persons: v
                .persons
                .iter()
                .filter(|p| !p.contains(' '))
                .map(|p| fold(p.trim_matches('*')))
                .collect(),
            this_year: v.this_year,
            longest_word: v
                .numbers
                .keys()
                .chain(v.ordinals.keys())
                .map(|k| fold(k).len())
                .max()
                .unwrap_or(0),
        }
    }

    /// Every age and school year in `folded`, in years (a school year as the youngest age
    /// that is in it, or 10 where the grade is a minor's without saying which).
    pub fn mentions(&self, folded: &str, classes: &[u8], out: &mut Vec<Mention>) {
        let toks = tokenize(folded, classes);
        let numbers = self.numbers_in(&toks);
        for (i, n) in numbers.iter().enumerate() {
            let prev = i.checked_sub(1).map(|j| numbers[j]);
            self.around_number(&toks, *n, prev, out);
        }
        self.ordinal_words(&toks, out);
        for t in &toks {
            if let Tok::Word(w) = t {
                self.spaceless(w, out);
            }
        }
    }

    fn around_number(&self, toks: &[Tok], n: Number, prev: Option<Number>, out: &mut Vec<Mention>) {
        let age = |years: u32, of_thing: bool| Mention {
            years,
            needs_person: false,
            of_thing,
        };
        let after = skip(toks, n.next, &['-', '_', '.', '+']);
        if self.match_any(&self.infant, toks, after).is_some() {
            let of_thing = self.thing_after(toks, after) || self.thing_before(toks, n.first);
            out.push(age(0, of_thing));
            return;
        }
        if let Some(end) = self.match_any(&self.after, toks, after) {
            let of_thing = self.thing_after(toks, end) || self.thing_before(toks, n.first);
            out.push(age(n.value, of_thing));
            // A range: "12-14 years old".
            if let Some(p) = prev.filter(|p| self.joined_by_range(toks, p.next, n.first)) {
                out.push(age(p.value, of_thing));
            }
            return;
        }
        if let Some(start) = self.ends_before(&self.before, toks, n.first, &[':', '=', '-']) {
            let of_thing = self.thing_after(toks, n.next) || self.thing_before(toks, start);
            out.push(age(n.value, of_thing));
            return;
        }
        let after_ordinal = self.skip_ordinal_suffix(toks, n.next);
        if self
            .match_any(&self.grade_after, toks, after_ordinal)
            .is_some()
            || self
                .ends_before(&self.grade_before, toks, n.first, &[':', '-', '.'])
                .is_some()
        {
            out.push(age(grade_age(n.value), false));
            return;
        }
        if self
            .match_any(&self.birthday, toks, after_ordinal)
            .is_some()
        {
            out.push(age(n.value, false));
            return;
        }
        if n.value <= 18
            && self
                .ends_before(&self.under, toks, n.first, &['<'])
                .is_some()
        {
            if self.limit_ends(toks, n) {
                out.push(age(n.value.saturating_sub(1), false));
            }
            return;
        }
        if toks.get(n.first.wrapping_sub(1)) == Some(&Tok::Punct('<')) && n.value <= 18 {
            out.push(age(n.value.saturating_sub(1), false));
            return;
        }
        if (1900..=self.this_year).contains(&n.value)
            && self
                .ends_before(&self.born, toks, n.first, &[':'])
                .is_some()
        {
            out.push(age(self.this_year - n.value, false));
            return;
        }
        self.bare_number(toks, n, out);
    }

    /// A number standing alone: "(13)" after a word, "boy, 12, shirtless", "sexy sixteen".
    fn bare_number(&self, toks: &[Tok], n: Number, out: &mut Vec<Mention>) {
        if !(1..=17).contains(&n.value) {
            return;
        }
        let before = n.first.checked_sub(1).map(|i| toks[i]);
        let after = toks.get(n.next).copied();
        let opens = matches!(before, Some(Tok::Punct('(' | '[')));
        let closes = matches!(after, Some(Tok::Punct(')' | ']')));
        if opens && closes {
            out.push(Mention {
                years: n.value,
                needs_person: false,
                of_thing: false,
            });
            return;
        }
        let item_edge = |t: Option<Tok>| {
            matches!(
                t,
                None | Some(Tok::Punct(',' | ';' | '|' | '\n' | '、' | '，'))
            )
        };
        if item_edge(before) && item_edge(after) && !n.word {
            out.push(Mention {
                years: n.value,
                needs_person: true,
                of_thing: false,
            });
            return;
        }
        if let (true, Some(Tok::Word(w))) = (n.word, toks.get(n.first)) {
            if self.bare.contains(*w) && !self.counted_noun_follows(toks, n.next) {
                out.push(Mention {
                    years: n.value,
                    needs_person: false,
                    of_thing: false,
                });
            }
        }
    }

    /// Ordinal words before a grade or a birthday: "first-grader", "sexto grado", "twelfth
    /// birthday".
    fn ordinal_words(&self, toks: &[Tok], out: &mut Vec<Mention>) {
        for (i, t) in toks.iter().enumerate() {
            let Tok::Word(w) = t else { continue };
            if w.len() > self.longest_word {
                continue;
            }
            let Some(&n) = self.ordinals.get(*w) else {
                continue;
            };
            let next = skip(toks, i + 1, &['-', '.']);
            if self.match_any(&self.grade_after, toks, next).is_some() {
                out.push(Mention {
                    years: grade_age(n),
                    needs_person: false,
                    of_thing: false,
                });
            } else if self.match_any(&self.birthday, toks, next).is_some() {
                out.push(Mention {
                    years: n,
                    needs_person: false,
                    of_thing: false,
                });
            }
        }
    }

    /// CJK numerals before a unit inside a word of a script without spaces: "十二岁", "六年级".
    fn spaceless(&self, word: &str, out: &mut Vec<Mention>) {
        if !word.chars().next().is_some_and(is_spaceless) {
            return;
        }
        let mut prev_numeral = false;
        for (at, c) in word.char_indices() {
            // A unit counts only right after a numeral; most characters are neither.
            let numeral = cjk_digit(c).is_some() || matches!(c, '十' | '拾');
            if !prev_numeral || numeral {
                prev_numeral = numeral;
                continue;
            }
            prev_numeral = false;
            let rest = &word[at..];
            let Some((_, kind)) = self
                .spaceless_units
                .iter()
                .find(|(u, _)| rest.starts_with(u.as_str()))
            else {
                continue;
            };
            let Some(n) = cjk_number_before(&word[..at]) else {
                continue;
            };
            let years = match kind {
                Kind::Age => n,
                Kind::Grade => grade_age(n),
            };
            out.push(Mention {
                years,
                needs_person: false,
                of_thing: false,
            });
        }
    }

    /// The numbers of a token list, number words combined.
    fn numbers_in(&self, toks: &[Tok]) -> Vec<Number> {
        let mut out = Vec::new();
        let mut i = 0;
        while i < toks.len() {
            let Some(value) = self.number_at(toks, i) else {
                i += 1;
                continue;
            };
            let word = matches!(toks[i], Tok::Word(_));
            let mut n = Number {
                first: i,
                next: i + 1,
                value,
                word,
            };
            let j = skip(toks, n.next, &['-']);
            if let Some(second) = self.number_at(toks, j).filter(|_| word) {
                if value % 10 == 0 && value >= 10 && second < 10 {
                    n.value += second;
                    n.next = j + 1;
                }
            }
            if let Some(Tok::Word(w)) = toks.get(n.next) {
                if n.value < 10 && self.teen_suffixes.contains(*w) {
                    n.value += 10;
                    n.next += 1;
                } else if n.value < 10 && self.tens_suffixes.contains(*w) {
                    n.value *= 10;
                    n.next += 1;
                    if let Some(unit) = self.number_at(toks, n.next).filter(|u| *u < 10) {
                        n.value += unit;
                        n.next += 1;
                    }
                }
            }
            i = n.next;
            out.push(n);
        }
        out
    }

    fn number_at(&self, toks: &[Tok], i: usize) -> Option<u32> {
        match toks.get(i)? {
            Tok::Num(n) => Some(*n),
            Tok::Word(w) if w.len() <= self.longest_word => self.numbers.get(*w).copied(),
            Tok::Word(_) => None,
            Tok::Punct(_) => None,
        }
    }

    /// The end of the first phrase of `set` that starts at token `i`.
    fn match_any(&self, set: &PhraseSet, toks: &[Tok], i: usize) -> Option<usize> {
        let Some(Tok::Word(w)) = toks.get(i) else {
            return None;
        };
        set.candidates(w, true).find_map(|p| match_at(p, toks, i))
    }

    /// The start of a phrase of `set` that ends just before token `i`, with any of `gaps`
    /// between them.
    fn ends_before(&self, set: &PhraseSet, toks: &[Tok], i: usize, gaps: &[char]) -> Option<usize> {
        let mut end = i;
        while end > 0 && matches!(toks[end - 1], Tok::Punct(c) if gaps.contains(&c)) {
            end -= 1;
        }
        let Some(Tok::Word(w)) = end.checked_sub(1).map(|j| toks[j]) else {
            return None;
        };
        set.candidates(w, false)
            .find_map(|p| match_before(p, toks, end))
    }

    fn skip_ordinal_suffix(&self, toks: &[Tok], i: usize) -> usize {
        const SUFFIXES: &[&str] = &[
            "th", "st", "nd", "rd", "o", "a", "e", "eme", "er", "ere", "re", "te", "ten", "ter",
            "й", "я", "го", "ой", "ая", "inci", "nci",
        ];
        let i = skip(toks, i, &['.', '-']);
        match toks.get(i) {
            Some(Tok::Word(w)) if SUFFIXES.contains(w) => skip(toks, i + 1, &['.', '-']),
            _ => i,
        }
    }

    fn joined_by_range(&self, toks: &[Tok], from: usize, to: usize) -> bool {
        to > from
            && toks[from..to].iter().all(|t| {
                matches!(t, Tok::Punct('-' | '~' | '/'))
                    || matches!(t, Tok::Word(w) if ["to", "a", "bis", "до", "or", "ou", "o"].contains(w))
            })
    }

    /// After "under N": the limit is an age unless a noun of something else follows ("under 5
    /// minutes"). A number word needs more ("under fire", "not one person" are no ages): an age
    /// unit after it, or the end of the clause and a value of 12 or more.
    fn limit_ends(&self, toks: &[Tok], n: Number) -> bool {
        let unit = self.match_any(&self.after, toks, n.next).is_some();
        match toks.get(n.next) {
            _ if unit => true,
            None | Some(Tok::Punct(_)) => !n.word || n.value >= 12,
            Some(Tok::Num(_)) => false,
            Some(Tok::Word(w)) => !n.word && self.is_person(w),
        }
    }

    fn counted_noun_follows(&self, toks: &[Tok], i: usize) -> bool {
        match toks.get(i) {
            Some(Tok::Word(w)) => {
                (w.ends_with('s') && !self.is_person(w))
                    || self.is_thing(w)
                    || self.numbers.contains_key(*w)
            }
            _ => false,
        }
    }

    fn is_person(&self, w: &str) -> bool {
        self.persons.contains(w)
            || w.strip_suffix('s')
                .is_some_and(|s| self.persons.contains(s))
    }

    fn is_thing(&self, w: &str) -> bool {
        self.things.contains(w) || w.strip_suffix('s').is_some_and(|s| self.things.contains(s))
    }

    /// A thing among the two words after `i` ("12 year old tawny port").
    fn thing_after(&self, toks: &[Tok], i: usize) -> bool {
        let i = skip(toks, i, &['-']);
        toks.iter()
            .skip(i)
            .take(2)
            .take_while(|t| matches!(t, Tok::Word(_)))
            .any(|t| matches!(t, Tok::Word(w) if self.is_thing(w)))
    }

    /// "whisky de 12 años", "vino di 12 anni": a thing, then a linking word.
    fn thing_before(&self, toks: &[Tok], i: usize) -> bool {
        const LINKS: &[&str] = &[
            "de", "di", "da", "do", "of", "von", "van", "aged", "du", "del",
        ];
        let mut j = i;
        if j > 0 && matches!(toks[j - 1], Tok::Word(w) if LINKS.contains(&w)) {
            j -= 1;
        }
        j > 0 && matches!(toks[j - 1], Tok::Word(w) if self.is_thing(w))
    }
}

/// The youngest age in a school year (US grades: 6th grade → 11); every grade is a minor's.
fn grade_age(grade: u32) -> u32 {
    (grade + 5).min(17)
}

fn skip(toks: &[Tok], mut i: usize, gaps: &[char]) -> usize {
    while matches!(toks.get(i), Some(Tok::Punct(c)) if gaps.contains(c)) {
        i += 1;
    }
    i
}

/// The end of `phrase` when it starts at token `i` (punctuation such as `/` and `.` may stand
/// between its words: "y/o", "y.o.").
fn match_at(phrase: &Phrase, toks: &[Tok], mut i: usize) -> Option<usize> {
    for (k, w) in phrase.iter().enumerate() {
        if k > 0 {
            i = skip(toks, i, &['/', '.', '-', '_', '\'']);
        }
        match toks.get(i) {
            Some(Tok::Word(x)) if w.matches(x) => i += 1,
            _ => return None,
        }
    }
    Some(i)
}

/// Words, numbers and punctuation; `classes` are the characters' classes ([`Classified`]).
fn tokenize<'a>(text: &'a str, classes: &[u8]) -> Vec<Tok<'a>> {
    const WORD: u8 = LETTER | MARK;
    let mut toks = Vec::new();
    let mut chars = text.char_indices().zip(classes.iter().copied()).peekable();
    while let Some(((i, c), k)) = chars.next() {
        if k & NEWLINE != 0 {
            toks.push(Tok::Punct('\n'));
        } else if k & SPACE != 0 {
            continue;
        } else if k & DIGIT != 0 {
            let mut end = i + 1;
            while let Some(&((j, _), _)) = chars.peek().filter(|(_, d)| d & DIGIT != 0) {
                end = j + 1;
                chars.next();
            }
            let n = text[i..end].parse::<u32>().unwrap_or(u32::MAX);
            toks.push(Tok::Num(n));
        } else if k & WORD != 0 {
            let mut end = i + c.len_utf8();
            let same = |d: u8| d & WORD != 0 && (d ^ k) & SPACELESS == 0;
            while let Some(&((j, d), _)) = chars.peek().filter(|(_, d)| same(*d)) {
                end = j + d.len_utf8();
                chars.next();
            }
            toks.push(Tok::Word(&text[i..end]));
        } else {
            toks.push(Tok::Punct(c));
        }
    }
    toks
}

/// The CJK numeral (or ASCII digits) that ends `text`, if any: "十二" → 12, "二十一" → 21.
fn cjk_number_before(text: &str) -> Option<u32> {
    let digits: Vec<char> = text
        .chars()
        .rev()
        .take_while(|c| cjk_digit(*c).is_some() || *c == '十' || *c == '拾')
        .collect();
    if digits.is_empty() {
        return None;
    }
    let mut value = 0;
    let mut current = 0;
    for c in digits.iter().rev() {
        match cjk_digit(*c) {
            Some(d) => current = d,
            None => {
                value += current.max(1) * 10;
                current = 0;
            }
        }
    }
    Some(value + current)
}

fn cjk_digit(c: char) -> Option<u32> {
    Some(match c {
        '〇' | '零' => 0,
        '一' => 1,
        '二' | '两' | '兩' => 2,
        '三' => 3,
        '四' => 4,
        '五' => 5,
        '六' => 6,
        '七' => 7,
        '八' => 8,
        '九' => 9,
        _ => return None,
    })
}
