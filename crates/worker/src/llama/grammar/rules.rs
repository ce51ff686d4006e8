//! A GBNF grammar being written: named rules, the shared JSON primitives, and literals.

use std::collections::HashSet;
use std::fmt::Write as _;

/// Rules every grammar carries: a generic JSON value and its parts.
///
/// Whitespace is at most one space after `:` and `,` (`ws`), nowhere else, so a model can
/// never spend its tokens on blank space. Strings hold no raw control characters, surrogates
/// or code points past U+10FFFF, and no lone surrogate escapes (which strict JSON parsers
/// refuse); numbers have at most 15 integer digits, 16 fraction digits and a two-digit
/// exponent, so every one parses as a finite double.
///
/// `ascii-char` is a string character for strings with a length bound: printable ASCII, and
/// anything else as an escape. llama.cpp's grammar sees code points, and a byte-level model
/// can spell an ASCII code point with an overlong (invalid) UTF-8 sequence, which the worker
/// then reads as several replacement characters: only there would the count be off, and a
/// lone byte of 0x80 or above never fits `ascii-char`, so such a sequence cannot start.
pub(super) const PRIMITIVES: &str = r#"ws ::= " "?
value ::= object | array | string | number | boolean | null
object ::= "{" ( string ":" ws value ( "," ws string ":" ws value )* )? "}"
array ::= "[" ( value ( "," ws value )* )? "]"
string ::= "\"" char* "\""
char ::= [^"\\\x7F\x00-\x1F\uD800-\uDFFF\U00110000-\U7FFFFFFF] | escape
ascii-char ::= [ !#-\[\]-~] | escape
escape ::= "\\" ( ["\\/bfnrt] | "u" unicode )
unicode ::= [0-9a-cA-C] hex{3} | [dD] [0-7] hex{2} | [eEfF] hex{3} | [dD] [89abAB] hex{2} "\\u" [dD] [c-fC-F] hex{2}
hex ::= [0-9a-fA-F]
integer ::= "-"? ( [0-9] | [1-9] [0-9]{1,14} )
number ::= integer ( "." [0-9]{1,16} )? ( [eE] [-+]? [0-9]{1,2} )?
boolean ::= "true" | "false"
null ::= "null"
think ::= ( [^<] | "<" [^/] )*
"#;

/// The rules of one grammar, in the order they were made (`root` comes first when written).
pub(super) struct Rules {
    rules: Vec<(String, String)>,
    names: HashSet<String>,
    /// Fixed rule sets (string formats) already added, by their first rule's name.
    fixed: HashSet<&'static str>,
}

impl Rules {
    pub fn new() -> Self {
        let mut names: HashSet<String> = PRIMITIVES
            .lines()
            .filter_map(|l| l.split(" ::= ").next())
            .map(str::to_owned)
            .collect();
        names.insert("root".to_owned());
        Rules {
            rules: Vec::new(),
            names,
            fixed: HashSet::new(),
        }
    }

    /// A fresh, unique rule name made from `hint`, with no body yet (see [`Rules::define`]).
    pub fn reserve(&mut self, hint: &str) -> String {
        let mut base: String = hint
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() {
                    c.to_ascii_lowercase()
                } else {
                    '-'
                }
            })
            .collect();
        base = base.trim_matches('-').to_owned();
        if base.is_empty() || base.starts_with("fmt-") {
            base.insert(0, 'r');
        }
        let mut name = base.clone();
        let mut n = 1;
        while self.names.contains(&name) {
            name = format!("{base}-{n}");
            n += 1;
        }
        self.names.insert(name.clone());
        self.rules.push((name.clone(), String::new()));
        name
    }

    /// Sets the body of a reserved rule.
    pub fn define(&mut self, name: &str, body: String) {
        if let Some(rule) = self.rules.iter_mut().rev().find(|(n, _)| n == name) {
            rule.1 = body;
        }
    }

    /// Adds a rule named after `hint`; returns its name.
    pub fn add(&mut self, hint: &str, body: String) -> String {
        let name = self.reserve(hint);
        self.define(&name, body);
        name
    }

    /// Adds a fixed set of rules (GBNF lines) once; `name` is its first rule, returned. Its
    /// names start with `fmt-`, which [`Rules::reserve`] never makes.
    pub fn add_fixed(&mut self, name: &'static str, lines: &'static str) -> &'static str {
        if self.fixed.insert(name) {
            for line in lines.lines().filter(|l| !l.trim().is_empty()) {
                // Sets may share helper rules (`fmt-label`): each is written once.
                if let Some((n, body)) = line.split_once(" ::= ") {
                    if self.names.insert(n.to_owned()) {
                        self.rules.push((n.to_owned(), body.to_owned()));
                    }
                }
            }
        }
        name
    }

    /// The grammar: `root ::= {root}`, then the rules, then the primitives.
    pub fn finish(self, root: &str) -> String {
        let size: usize = self.rules.iter().map(|(n, b)| n.len() + b.len() + 6).sum();
        let mut out = String::with_capacity(size + root.len() + PRIMITIVES.len() + 16);
        let _ = writeln!(out, "root ::= {root}");
        for (name, body) in &self.rules {
            let _ = writeln!(out, "{name} ::= {body}");
        }
        out.push_str(PRIMITIVES);
        out
    }
}

/// `text` as a GBNF string literal.
pub(super) fn literal(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 || c as u32 == 0x7f => {
                let _ = write!(out, "\\x{:02X}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// A JSON value written compactly, as a GBNF literal.
pub(super) fn json_literal(value: &serde_json::Value) -> String {
    literal(&value.to_string())
}

/// Two GBNF sequences one after the other (`tail` may be empty).
pub(super) fn join(head: &str, tail: &str) -> String {
    if tail.is_empty() {
        head.to_owned()
    } else {
        format!("{head} {tail}")
    }
}

/// GBNF alternatives as one expression (a group unless there is one).
pub(super) fn group(alternatives: Vec<String>) -> String {
    match alternatives.len() {
        1 => alternatives.into_iter().next().unwrap_or_default(),
        _ => format!("( {} )", alternatives.join(" | ")),
    }
}
