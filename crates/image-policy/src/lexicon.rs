//! The shape of a lexicon file: the built-in ones (`lexicon/*.toml`, one per language, plus
//! emoji) and an operator's file share it, and every list is optional. The term syntax is
//! documented in `lexicon/README.md`.

use std::collections::BTreeMap;

use serde::Deserialize;

/// One lexicon file; several are merged by concatenating their lists.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LexiconFile {
    /// Words that name or imply a minor.
    #[serde(default)]
    pub minor: Vec<String>,
    /// Words that make a request sexual.
    #[serde(default)]
    pub sexual: Vec<String>,
    /// Words that name the sexual abuse of minors by themselves: blocked alone, in any mode.
    #[serde(default)]
    pub abuse: Vec<String>,
    /// Adulthood in words that name no sex (age, maturity, adult bodies); negating any of
    /// them in a sexual request is blocked.
    #[serde(default)]
    pub adult: Vec<String>,
    /// Adult women: negating them is blocked unless the prompt names an adult man.
    #[serde(default)]
    pub adult_female: Vec<String>,
    /// Adult men: negating them is blocked unless the prompt names an adult woman.
    #[serde(default)]
    pub adult_male: Vec<String>,
    /// Clothes: negating them asks for nudity.
    #[serde(default)]
    pub clothing: Vec<String>,
    /// Nouns and pronouns for people (besides the minor and adult words).
    #[serde(default)]
    pub person: Vec<String>,
    /// Descriptions of a child's body, by weight (3, 2, 1): a sexual request whose prompt
    /// reaches 3 is blocked (the weak ones count only beside a stronger one).
    #[serde(default)]
    pub body_strong: Vec<String>,
    #[serde(default)]
    pub body_medium: Vec<String>,
    #[serde(default)]
    pub body_weak: Vec<String>,
    /// Short words that may be glued to a term ("hot", "my", "cute") without hiding it.
    #[serde(default)]
    pub glue: Vec<String>,
    /// Words that negate the next one ("no", "without").
    #[serde(default)]
    pub negators: Vec<String>,
    /// Words skipped between a negator and what it negates ("a", "any").
    #[serde(default)]
    pub articles: Vec<String>,
    /// Nouns whose age is not a person's ("whisky", "car").
    #[serde(default)]
    pub things: Vec<String>,
    /// Animals, for the `{animal}` templates of exemptions.
    #[serde(default)]
    pub animals: Vec<String>,
    #[serde(default)]
    pub exempt: Exempt,
    /// Number words → value (tens as their value: "twenty" = 20).
    #[serde(default)]
    pub numbers: BTreeMap<String, u32>,
    /// Words that add ten to the number before them ("belas" in "dua belas").
    #[serde(default)]
    pub teen_suffixes: Vec<String>,
    /// Words that multiply the number before them by ten ("puluh" in "dua puluh").
    #[serde(default)]
    pub tens_suffixes: Vec<String>,
    /// Ordinal words → value ("sixth" = 6), for school grades.
    #[serde(default)]
    pub ordinals: BTreeMap<String, u32>,
    #[serde(default)]
    pub age: AgeWords,
}

/// Phrases that hold a term in an innocent sense: a term inside one does not count.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Exempt {
    /// Always ("baby back ribs", "nude pink", "minor key").
    #[serde(default)]
    pub always: Vec<String>,
    /// Unless the prompt is sexual ("kid goat", "baby {animal}").
    #[serde(default)]
    pub unless_sexual: Vec<String>,
}

/// The words around a number that make it an age or a school year. Each entry is a sequence
/// of words; a word ending in `*` matches every word it begins.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AgeWords {
    /// After the number: "years old", "yo", "años", "jahr*", "岁*".
    #[serde(default)]
    pub after: Vec<String>,
    /// After the number, naming an age in months, weeks or days: any number is an infant's.
    #[serde(default)]
    pub infant: Vec<String>,
    /// Before the number: "aged", "age of", "turned", "edad de".
    #[serde(default)]
    pub before: Vec<String>,
    /// After a number or an ordinal: "grade", "grader*", "klasse".
    #[serde(default)]
    pub grade_after: Vec<String>,
    /// Before a number: "grade", "klasse", "kelas".
    #[serde(default)]
    pub grade_before: Vec<String>,
    /// After an ordinal number: "birthday", "geburtstag".
    #[serde(default)]
    pub birthday: Vec<String>,
    /// Before a number, naming an age limit from below: "under", "younger than".
    #[serde(default)]
    pub under: Vec<String>,
    /// Before a year of birth: "born in", "geboren".
    #[serde(default)]
    pub born: Vec<String>,
    /// Number words that name an age on their own unless a counted noun follows
    /// ("sexy sixteen", not "sixteen candles").
    #[serde(default)]
    pub bare: Vec<String>,
}

impl LexiconFile {
    pub fn parse(text: &str) -> Result<LexiconFile, toml::de::Error> {
        toml::from_str(text)
    }

    /// Appends `other`'s lists to these.
    pub fn extend(&mut self, other: LexiconFile) {
        let LexiconFile {
            minor,
            sexual,
            abuse,
            adult,
            adult_female,
            adult_male,
            clothing,
            person,
            body_strong,
            body_medium,
            body_weak,
            glue,
            negators,
            articles,
            things,
            animals,
            exempt,
            numbers,
            teen_suffixes,
            tens_suffixes,
            ordinals,
            age,
        } = other;
        self.minor.extend(minor);
        self.sexual.extend(sexual);
        self.abuse.extend(abuse);
        self.adult.extend(adult);
        self.adult_female.extend(adult_female);
        self.adult_male.extend(adult_male);
        self.clothing.extend(clothing);
        self.person.extend(person);
        self.body_strong.extend(body_strong);
        self.body_medium.extend(body_medium);
        self.body_weak.extend(body_weak);
        self.glue.extend(glue);
        self.negators.extend(negators);
        self.articles.extend(articles);
        self.things.extend(things);
        self.animals.extend(animals);
        self.exempt.always.extend(exempt.always);
        self.exempt.unless_sexual.extend(exempt.unless_sexual);
        self.numbers.extend(numbers);
        self.teen_suffixes.extend(teen_suffixes);
        self.tens_suffixes.extend(tens_suffixes);
        self.ordinals.extend(ordinals);
        self.age.after.extend(age.after);
        self.age.infant.extend(age.infant);
        self.age.before.extend(age.before);
        self.age.grade_after.extend(age.grade_after);
        self.age.grade_before.extend(age.grade_before);
        self.age.birthday.extend(age.birthday);
        self.age.under.extend(age.under);
        self.age.born.extend(age.born);
        self.age.bare.extend(age.bare);
    }
}
