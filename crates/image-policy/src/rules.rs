//! The policy: the lexicons compiled once, and the rules over a request (see the crate doc).

use crate::FastSet;

use crate::age::{AgeParser, Mention, Vocabulary};
use crate::fold::fold;
use crate::lexicon::LexiconFile;
use crate::matcher::{self, Builder, Cat, Hit, Matcher, Sex, When};
use crate::view::{is_spaceless, Classified, Leet, View};

/// The built-in lexicons, one file per language (and one of emoji).
const BUILTIN: &[(&str, &str)] = &[
    ("en", include_str!("../lexicon/en.toml")),
    ("es", include_str!("../lexicon/es.toml")),
    ("de", include_str!("../lexicon/de.toml")),
    ("fr", include_str!("../lexicon/fr.toml")),
    ("it", include_str!("../lexicon/it.toml")),
    ("pt", include_str!("../lexicon/pt.toml")),
    ("nl", include_str!("../lexicon/nl.toml")),
    ("ru", include_str!("../lexicon/ru.toml")),
    ("uk", include_str!("../lexicon/uk.toml")),
    ("pl", include_str!("../lexicon/pl.toml")),
    ("cs", include_str!("../lexicon/cs.toml")),
    ("tr", include_str!("../lexicon/tr.toml")),
    ("sv", include_str!("../lexicon/sv.toml")),
    ("da-no", include_str!("../lexicon/da-no.toml")),
    ("hu", include_str!("../lexicon/hu.toml")),
    ("ro", include_str!("../lexicon/ro.toml")),
    ("el", include_str!("../lexicon/el.toml")),
    ("fi", include_str!("../lexicon/fi.toml")),
    ("ja", include_str!("../lexicon/ja.toml")),
    ("zh", include_str!("../lexicon/zh.toml")),
    ("ko", include_str!("../lexicon/ko.toml")),
    ("vi", include_str!("../lexicon/vi.toml")),
    ("id", include_str!("../lexicon/id.toml")),
    ("ar", include_str!("../lexicon/ar.toml")),
    ("fa", include_str!("../lexicon/fa.toml")),
    ("hi", include_str!("../lexicon/hi.toml")),
    ("th", include_str!("../lexicon/th.toml")),
    ("he", include_str!("../lexicon/he.toml")),
    ("emoji", include_str!("../lexicon/emoji.toml")),
];

/// One image request as the policy sees it: the caller's own negative prompt, not the
/// service's baseline one.
#[derive(Debug, Clone, Copy)]
pub struct Request<'a> {
    pub prompt: &'a str,
    pub negative_prompt: &'a str,
    pub nsfw: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    Allow,
    Block(Reason),
}

/// Why a request was blocked: a fixed label, safe for metrics and logs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reason {
    /// The prompt has a term that names the sexual abuse of minors by itself.
    AbuseTerm,
    /// The prompt is minor and sexual.
    MinorSexual,
    /// The prompt is minor and the request is `nsfw`.
    MinorNsfw,
    /// The prompt is minor and the negative prompt names clothes.
    NegatedClothing,
    /// The request is sexual and the negative prompt names adulthood.
    NegatedAdult,
    /// The request is sexual and the prompt describes a child's body.
    ChildBody,
}

impl Reason {
    pub const ALL: [Reason; 6] = [
        Reason::AbuseTerm,
        Reason::MinorSexual,
        Reason::MinorNsfw,
        Reason::NegatedClothing,
        Reason::NegatedAdult,
        Reason::ChildBody,
    ];

    pub const fn code(self) -> &'static str {
        match self {
            Reason::AbuseTerm => "abuse_term",
            Reason::MinorSexual => "minor_sexual",
            Reason::MinorNsfw => "minor_nsfw",
            Reason::NegatedClothing => "negated_clothing",
            Reason::NegatedAdult => "negated_adult",
            Reason::ChildBody => "child_body",
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum PolicyError {
    /// A lexicon file does not parse (the message names the line; it may quote the file's own
    /// terms, never a prompt).
    #[error("lexicon {name}: {message}")]
    Lexicon { name: String, message: String },
    #[error("the lexicons do not compile: {0}")]
    Build(String),
}

/// The compiled lexicons. Build once ([`Policy::builtin`], [`Policy::with_operator_terms`])
/// and share: a check allocates only for the text it reads.
pub struct Policy {
    matcher: Matcher,
    ages: AgeParser,
    negators: FastSet<String>,
    articles: FastSet<String>,
}

impl std::fmt::Debug for Policy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Policy")
            .field("patterns", &self.matcher.pattern_count())
            .field("automaton_bytes", &self.matcher.memory_usage())
            .finish_non_exhaustive()
    }
}

/// What one text says, after exemptions and negations.
#[derive(Debug, Default, Clone, Copy)]
struct Signals {
    minor: bool,
    sexual: bool,
    abuse: bool,
    clothing: bool,
    person: bool,
    body: u32,
    adult: bool,
    adult_female: bool,
    adult_male: bool,
}

impl Signals {
    fn merge(&mut self, o: Signals) {
        self.minor |= o.minor;
        self.sexual |= o.sexual;
        self.abuse |= o.abuse;
        self.clothing |= o.clothing;
        self.person |= o.person;
        self.body = self.body.max(o.body);
        self.adult |= o.adult;
        self.adult_female |= o.adult_female;
        self.adult_male |= o.adult_male;
    }
}

impl Policy {
    /// The built-in lexicons.
    pub fn builtin() -> Policy {
        Self::from_files(&[]).expect("the built-in lexicons compile")
    }

    /// The built-in lexicons extended by an operator's file of the same shape (every list
    /// optional; the old `minor`, `sexual`, `adult`, `clothing` files are of this shape).
    pub fn with_operator_terms(toml: &str) -> Result<Policy, PolicyError> {
        Self::from_files(&[("operator", toml)])
    }

    fn from_files(extra: &[(&str, &str)]) -> Result<Policy, PolicyError> {
        let mut all = LexiconFile::default();
        for (name, text) in BUILTIN.iter().chain(extra) {
            let file = LexiconFile::parse(text).map_err(|e| PolicyError::Lexicon {
                name: (*name).to_owned(),
                message: e.to_string(),
            })?;
            all.extend(file);
        }
        Self::compile(&all)
    }

    fn compile(all: &LexiconFile) -> Result<Policy, PolicyError> {
        let mut b = Builder::default();
        let lists: [(&[String], Cat); 13] = [
            (&all.minor, Cat::Minor),
            (&all.sexual, Cat::Sexual),
            (&all.abuse, Cat::Abuse),
            (&all.adult, Cat::Adult(Sex::Neutral)),
            (&all.adult_female, Cat::Adult(Sex::Female)),
            (&all.adult_male, Cat::Adult(Sex::Male)),
            (&all.clothing, Cat::Clothing),
            (&all.person, Cat::Person),
            (&all.body_strong, Cat::Body(3)),
            (&all.body_medium, Cat::Body(2)),
            (&all.body_weak, Cat::Body(1)),
            (&all.glue, Cat::Glue),
            (&all.exempt.always, Cat::Exempt(When::Always)),
        ];
        for (list, cat) in lists {
            for term in list {
                add_expanded(&mut b, term, cat, &all.animals);
            }
        }
        for term in &all.exempt.unless_sexual {
            add_expanded(&mut b, term, Cat::Exempt(When::UnlessSexual), &all.animals);
        }
        let matcher = b.build().map_err(|e| PolicyError::Build(e.to_string()))?;
        let persons = all
            .person
            .iter()
            .chain(&all.minor)
            .chain(&all.adult_female)
            .chain(&all.adult_male)
            .collect();
        let ages = AgeParser::new(&Vocabulary {
            numbers: &all.numbers,
            teen_suffixes: &all.teen_suffixes,
            tens_suffixes: &all.tens_suffixes,
            ordinals: &all.ordinals,
            words: &all.age,
            things: &all.things,
            persons,
            this_year: this_year(),
        });
        let words = |list: &[String]| -> FastSet<String> {
            list.iter()
                .filter_map(|w| matcher::compile(w).map(|c| c.text))
                .collect()
        };
        Ok(Policy {
            matcher,
            ages,
            negators: words(&all.negators),
            articles: words(&all.articles),
        })
    }

    /// Whether the request may be rendered; the rules are in the crate doc.
    pub fn check(&self, req: &Request) -> Verdict {
        let p = self.read(req.prompt, true);
        let n = self.read(req.negative_prompt, false);
        match rule(&p, &n, req.nsfw) {
            Some(reason) => Verdict::Block(reason),
            None => Verdict::Allow,
        }
    }

    /// The signals of one text: every reading of it (plain, then leetspeak) merged.
    fn read(&self, text: &str, is_prompt: bool) -> Signals {
        let mut sig = Signals::default();
        if text.trim().is_empty() {
            return sig;
        }
        let folded = fold(text);
        let classified = Classified::new(&folded);
        let mut hits = Vec::new();
        let plain = View::new(&classified, Leet::Plain);
        sig.merge(self.read_view(&plain, is_prompt, &mut hits));
        if classified.has_leet() {
            let leet = View::new(&classified, Leet::Letters);
            if leet.leet_used {
                hits.clear();
                self.matcher.scan(&leet, &mut hits);
                if !leet.ones.is_empty() {
                    self.add_ell_reading(&leet, &mut hits);
                }
                sig.merge(self.settle(&leet, is_prompt, &mut hits));
            }
        }
        let mut mentions = Vec::new();
        self.ages
            .mentions(&folded, classified.classes(), &mut mentions);
        let person = sig.person;
        // "boy, 12" needs a person named; "12 year old whisky" is a person's age only then.
        let counts = |m: &&Mention| person || !(m.needs_person || m.of_thing);
        for m in mentions.iter().filter(counts) {
            if m.years < 18 {
                sig.minor = true;
            } else {
                sig.adult = true;
            }
        }
        sig
    }

    fn read_view(&self, view: &View, is_prompt: bool, hits: &mut Vec<Hit>) -> Signals {
        hits.clear();
        self.matcher.scan(view, hits);
        self.settle(view, is_prompt, hits)
    }

    /// The `l` reading of `1` and `|`: its terms that touch one of them join the hits of the
    /// `i` reading (its exemptions never do, so it can only add to what blocks).
    fn add_ell_reading(&self, leet: &View, hits: &mut Vec<Hit>) {
        let ell = leet.with_ones_as_l();
        let mut more = Vec::new();
        self.matcher.scan(&ell, &mut more);
        let touches = |h: &Hit| {
            ell.ones
                .iter()
                .any(|&o| h.start <= o as usize && (o as usize) < h.end)
        };
        hits.extend(
            more.into_iter()
                .filter(|h| !matches!(h.cat, Cat::Exempt(_) | Cat::Glue) && touches(h)),
        );
    }

    /// The signals of a view's hits, after negations and exemptions.
    fn settle(&self, view: &View, is_prompt: bool, hits: &mut Vec<Hit>) -> Signals {
        if is_prompt {
            self.apply_negations(view, hits);
        }
        let mut sig = Signals::default();
        apply_exemptions(view, hits, When::Always);
        sig.sexual = hits.iter().any(|h| h.cat == Cat::Sexual);
        if !sig.sexual {
            apply_exemptions(view, hits, When::UnlessSexual);
        }
        let mut body: Vec<&Hit> = Vec::new();
        for h in hits.iter() {
            match h.cat {
                Cat::Minor => sig.minor = true,
                Cat::Sexual => sig.sexual = true,
                Cat::Abuse => sig.abuse = true,
                Cat::Clothing => sig.clothing = true,
                Cat::Adult(Sex::Neutral) => sig.adult = true,
                Cat::Adult(Sex::Female) => sig.adult_female = true,
                Cat::Adult(Sex::Male) => sig.adult_male = true,
                Cat::Body(_) => body.push(h),
                Cat::Person | Cat::Glue | Cat::Exempt(_) => {}
            }
            sig.person |= matches!(
                h.cat,
                Cat::Person | Cat::Minor | Cat::Adult(Sex::Female | Sex::Male)
            );
        }
        sig.body = body_weight(&body);
        sig
    }

    /// Terms after a negator ("no", "without", "不") read the other way, or not at all.
    fn apply_negations(&self, view: &View, hits: &mut Vec<Hit>) {
        let terms: Vec<(usize, usize)> = hits
            .iter()
            .filter(|h| !matches!(h.cat, Cat::Glue | Cat::Exempt(_) | Cat::Person))
            .map(|h| (h.start, h.end))
            .collect();
        hits.retain_mut(|h| {
            if !self.negated(view, h.start, &terms) {
                return true;
            }
            match h.cat {
                Cat::Sexual | Cat::Minor | Cat::Body(_) => false,
                Cat::Clothing => {
                    h.cat = Cat::Sexual;
                    true
                }
                Cat::Adult(_) => {
                    h.cat = Cat::Minor;
                    true
                }
                _ => true,
            }
        });
    }

    /// Whether the word that starts at `start` follows a negator (up to three words back,
    /// the words between being articles), in the same clause; a negator that is part of a
    /// term ("nu de" in "nu de chi ld") is none.
    fn negated(&self, view: &View, start: usize, terms: &[(usize, usize)]) -> bool {
        if let Some(c) = view.text[..start].chars().next_back() {
            let first = view.text[start..].chars().next();
            if first.is_some_and(is_spaceless)
                && matches!(c, '不' | '没' | '无' | '非' | '未' | '别')
            {
                return true;
            }
        }
        let t = view.token_at(start);
        if view
            .tokens
            .get(t)
            .is_none_or(|tok| tok.start as usize != start)
        {
            return false;
        }
        let mut i = t;
        for _ in 0..3 {
            if i == 0 || view.tokens[i].clause_break {
                return false;
            }
            let before = view.tokens[i - 1];
            let (s, e) = (before.start as usize, before.end as usize);
            if terms.iter().any(|&(ts, te)| ts <= s && te >= e) {
                return false;
            }
            let word = view.token_text(i - 1);
            if self.negators.contains(word) {
                return true;
            }
            if !self.articles.contains(word) {
                return false;
            }
            i -= 1;
        }
        false
    }
}

/// The rules of the crate doc, in order.
fn rule(p: &Signals, n: &Signals, nsfw: bool) -> Option<Reason> {
    if p.abuse {
        return Some(Reason::AbuseTerm);
    }
    if p.minor && p.sexual {
        return Some(Reason::MinorSexual);
    }
    if p.minor && nsfw {
        return Some(Reason::MinorNsfw);
    }
    if p.minor && n.clothing {
        return Some(Reason::NegatedClothing);
    }
    let sexual_request = nsfw || p.sexual || n.clothing;
    if !sexual_request {
        return None;
    }
    let negated_adult =
        n.adult || (n.adult_female && !p.adult_male) || (n.adult_male && !p.adult_female);
    if negated_adult {
        return Some(Reason::NegatedAdult);
    }
    if p.body >= 3 {
        return Some(Reason::ChildBody);
    }
    None
}

/// Adds a term, expanding `{animal}` over the animals.
fn add_expanded(b: &mut Builder, term: &str, cat: Cat, animals: &[String]) {
    if term.contains("{animal}") {
        for a in animals {
            b.add(&term.replace("{animal}", a), cat);
        }
    } else {
        b.add(term, cat);
    }
}

/// Drops the hits inside an exemption of kind `when` that holds: one whose neighbouring
/// words name no person.
fn apply_exemptions(view: &View, hits: &mut Vec<Hit>, when: When) {
    let spans: Vec<(usize, usize)> = hits
        .iter()
        .filter(|h| h.cat == Cat::Exempt(when))
        .map(|h| (h.start, h.end))
        .filter(|&(s, e)| !guarded(view, hits, s, e))
        .collect();
    if spans.is_empty() {
        return;
    }
    hits.retain(|h| {
        matches!(h.cat, Cat::Exempt(_)) || !spans.iter().any(|&(s, e)| s <= h.start && h.end <= e)
    });
}

/// Whether a person is named in the word just before or just after `start..end`.
fn guarded(view: &View, hits: &[Hit], start: usize, end: usize) -> bool {
    let first = view.token_at(start);
    let last = view.token_at(end.saturating_sub(1));
    let mut near = Vec::with_capacity(2);
    if first > 0 {
        near.push(view.tokens[first - 1]);
    }
    if let Some(t) = view.tokens.get(last + 1) {
        near.push(*t);
    }
    hits.iter().any(|h| {
        let person = matches!(
            h.cat,
            Cat::Person | Cat::Minor | Cat::Abuse | Cat::Adult(Sex::Female | Sex::Male)
        );
        let outside = h.start >= end || h.end <= start;
        person
            && outside
            && near
                .iter()
                .any(|t| h.start < t.end as usize && h.end > t.start as usize)
    })
}

/// The weight of the distinct body descriptors, a descriptor inside a longer one not counted;
/// the weak ones ("small", "young") count only beside a stronger one, so that an adult's
/// "young, slim, petite" is no child's body.
fn body_weight(body: &[&Hit]) -> u32 {
    let mut seen: Vec<u32> = Vec::new();
    let (mut total, mut weak) = (0, 0);
    for h in body {
        let inside = body
            .iter()
            .any(|o| (o.start, o.end) != (h.start, h.end) && o.start <= h.start && h.end <= o.end);
        if inside || seen.contains(&h.pattern) {
            continue;
        }
        seen.push(h.pattern);
        match h.cat {
            Cat::Body(1) => weak += 1,
            Cat::Body(w) => total += u32::from(w),
            _ => {}
        }
    }
    if total > 0 {
        total + weak
    } else {
        0
    }
}

/// The current year (UTC), for "born in 2013".
fn this_year() -> u32 {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    // 365.2425 days a year on average; the day a year turns is of no matter here.
    1970 + (secs / 31_556_952) as u32
}

#[cfg(test)]
mod tests;
