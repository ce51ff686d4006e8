//! The test corpus's format (`corpus/*.tsv`), shared by the corpus test and the benchmark:
//! one request a line, tab-separated: modes (`sfw`, `nsfw` or `both`), category, language,
//! prompt, negative prompt; `#` starts a comment line; `\u{…}` stands for a character that
//! cannot be seen.

use crate::{Policy, Request, Verdict};

/// The adversarial corpus: requests that must be blocked in their modes.
pub const ADVERSARIAL: &str = include_str!("../corpus/adversarial.tsv");
/// The innocent corpus: requests that should be allowed in their modes.
pub const INNOCENT: &str = include_str!("../corpus/innocent.tsv");

#[derive(Debug, Clone)]
pub struct Entry {
    pub line: usize,
    pub sfw: bool,
    pub nsfw: bool,
    pub category: String,
    pub language: String,
    pub prompt: String,
    pub negative_prompt: String,
}

impl Entry {
    /// The modes it is checked in, as `nsfw` flags.
    pub fn modes(&self) -> impl Iterator<Item = bool> + '_ {
        [(self.sfw, false), (self.nsfw, true)]
            .into_iter()
            .filter(|(on, _)| *on)
            .map(|(_, nsfw)| nsfw)
    }

    pub fn check(&self, policy: &Policy, nsfw: bool) -> Verdict {
        policy.check(&Request {
            prompt: &self.prompt,
            negative_prompt: &self.negative_prompt,
            nsfw,
        })
    }
}

/// The entries of a corpus file; a malformed line is an error naming its number.
pub fn parse(text: &str) -> Result<Vec<Entry>, String> {
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() || line.starts_with('#') {
            continue;
        }
        let cols: Vec<&str> = line.split('\t').collect();
        let (sfw, nsfw) = match cols.first() {
            Some(&"sfw") => (true, false),
            Some(&"nsfw") => (false, true),
            Some(&"both") => (true, true),
            _ => return Err(format!("line {}: modes must be sfw, nsfw or both", i + 1)),
        };
        if !(4..=5).contains(&cols.len()) {
            return Err(format!("line {}: 4 or 5 columns expected", i + 1));
        }
        out.push(Entry {
            line: i + 1,
            sfw,
            nsfw,
            category: cols[1].to_owned(),
            language: cols[2].to_owned(),
            prompt: unescape(cols[3]).map_err(|e| format!("line {}: {e}", i + 1))?,
            negative_prompt: unescape(cols.get(4).copied().unwrap_or(""))
                .map_err(|e| format!("line {}: {e}", i + 1))?,
        });
    }
    Ok(out)
}

fn unescape(s: &str) -> Result<String, String> {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(at) = rest.find("\\u{") {
        out.push_str(&rest[..at]);
        let tail = &rest[at + 3..];
        let end = tail.find('}').ok_or("unclosed \\u{")?;
        let code = u32::from_str_radix(&tail[..end], 16).map_err(|e| e.to_string())?;
        out.push(char::from_u32(code).ok_or("not a character")?);
        rest = &tail[end + 1..];
    }
    out.push_str(rest);
    Ok(out)
}

/// What a corpus run found.
#[derive(Debug, Default, Clone)]
pub struct Tally {
    pub checks: usize,
    pub blocked: usize,
    /// (line, nsfw) of each check that went the wrong way.
    pub misses: Vec<(usize, bool)>,
}

impl Tally {
    pub fn rate(&self) -> f64 {
        if self.checks == 0 {
            0.0
        } else {
            self.blocked as f64 / self.checks as f64
        }
    }
}

/// Runs every entry in its modes (`only` narrows to one mode); `want_blocked` says which way
/// is right.
pub fn run(policy: &Policy, entries: &[Entry], only: Option<bool>, want_blocked: bool) -> Tally {
    let mut t = Tally::default();
    for e in entries {
        for nsfw in e.modes().filter(|m| only.is_none_or(|o| o == *m)) {
            t.checks += 1;
            let blocked = matches!(e.check(policy, nsfw), Verdict::Block(_));
            if blocked {
                t.blocked += 1;
            }
            if blocked != want_blocked {
                t.misses.push((e.line, nsfw));
            }
        }
    }
    t
}
