//! The concept set and the threshold math of the safety checker.
//!
//! A concept is a named embedding with a threshold. An image *shows* a concept when the
//! cosine similarity of its embedding and the concept's is strictly above the threshold.
//! Concepts come in two groups: `adult` and `minor`. When any `minor` concept is shown, every
//! `adult` threshold is lowered by `minor_adjustment` (the published checker's rule: more
//! caution around minors).
//!
//! The set is data (`concepts.json`), so an operator adds concepts without a rebuild; the
//! concepts the published checker carries are exported into that form by
//! `shoal classifier concepts`.

use std::path::Path;

use anyhow::{bail, Context};
use serde::{Deserialize, Serialize};

/// The concept file as written.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ConceptFile {
    /// Subtracted from every `adult` threshold while a `minor` concept is shown.
    #[serde(default = "default_adjustment")]
    pub minor_adjustment: f32,
    pub adult: Vec<ConceptEntry>,
    pub minor: Vec<ConceptEntry>,
}

fn default_adjustment() -> f32 {
    0.01
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ConceptEntry {
    pub name: String,
    /// Cosine similarity above which the concept is shown, in [-1, 1].
    pub threshold: f32,
    /// In the checker's projected space (its `E` wide).
    pub embedding: Vec<f32>,
}

/// One concept ready for scoring: its embedding scaled to unit length.
#[derive(Debug, Clone)]
struct Concept {
    threshold: f32,
    unit: Vec<f32>,
}

/// The loaded, checked concept set.
#[derive(Debug, Clone)]
pub struct ConceptSet {
    adult: Vec<Concept>,
    minor: Vec<Concept>,
    minor_adjustment: f32,
    dim: usize,
}

/// Which groups an image shows.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Flags {
    pub adult: bool,
    pub minor: bool,
}

/// What the rules make of the flags for one request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Decision {
    Pass,
    /// Adult content in a request that did not ask for it (SFW mode).
    Adult,
    /// A minor together with adult content: refused in both modes.
    MinorWithAdult,
    /// A minor in an `nsfw` request: refused whatever the adult concepts score, so that mode
    /// never leans on the adult concepts' recall alone.
    MinorInNsfw,
}

/// The output rule (docs/image-classifier.md): a minor with adult content is refused in both
/// modes; a minor is refused in `nsfw` mode; adult content is refused in SFW mode. A minor
/// alone passes in SFW mode only because [`ConceptSet::flags`] has already judged the adult
/// concepts against their stricter thresholds (lowered by `minor_adjustment`).
pub fn decide(flags: Flags, nsfw: bool) -> Decision {
    match (flags.adult, flags.minor) {
        (true, true) => Decision::MinorWithAdult,
        (false, true) if nsfw => Decision::MinorInNsfw,
        (true, false) if !nsfw => Decision::Adult,
        _ => Decision::Pass,
    }
}

/// `v` scaled to unit length; `None` for a zero (or non-finite) vector, which has no
/// direction to compare.
pub fn unit(v: &[f32]) -> Option<Vec<f32>> {
    let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    (norm.is_finite() && norm > 0.0).then(|| v.iter().map(|x| x / norm).collect())
}

fn dot(a: &[f32], b: &[f32]) -> f32 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

/// Cosine similarity; `None` when either vector is zero.
pub fn cosine(a: &[f32], b: &[f32]) -> Option<f32> {
    Some(dot(&unit(a)?, &unit(b)?))
}

impl ConceptSet {
    pub fn load(path: &Path, dim: usize) -> anyhow::Result<Self> {
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("cannot read the concept file {}", path.display()))?;
        let file: ConceptFile = serde_json::from_str(&text)
            .with_context(|| format!("the concept file {}", path.display()))?;
        Self::new(&file, dim).with_context(|| format!("the concept file {}", path.display()))
    }

    /// Checks every entry against the checker's embedding width `dim`.
    pub fn new(file: &ConceptFile, dim: usize) -> anyhow::Result<Self> {
        if !(0.0..=1.0).contains(&file.minor_adjustment) {
            bail!("minor_adjustment must be within [0, 1]");
        }
        let group = |entries: &[ConceptEntry], label: &str| -> anyhow::Result<Vec<Concept>> {
            entries
                .iter()
                .enumerate()
                .map(|(i, c)| concept(c, dim).with_context(|| format!("{label}[{i}]")))
                .collect()
        };
        let set = ConceptSet {
            adult: group(&file.adult, "adult")?,
            minor: group(&file.minor, "minor")?,
            minor_adjustment: file.minor_adjustment,
            dim,
        };
        if set.adult.is_empty() {
            bail!("the `adult` group is empty: nothing would ever be flagged");
        }
        Ok(set)
    }

    pub fn dim(&self) -> usize {
        self.dim
    }

    pub fn len(&self) -> (usize, usize) {
        (self.adult.len(), self.minor.len())
    }

    /// The groups an image embedding shows.
    pub fn flags(&self, embedding: &[f32]) -> Flags {
        let Some(image) = unit(embedding) else {
            // An embedding without direction cannot be cleared: treated as showing both.
            return Flags {
                adult: true,
                minor: true,
            };
        };
        let shown =
            |c: &Concept, adjustment: f32| dot(&image, &c.unit) - c.threshold + adjustment > 0.0;
        let minor = self.minor.iter().any(|c| shown(c, 0.0));
        let adjustment = if minor { self.minor_adjustment } else { 0.0 };
        let adult = self.adult.iter().any(|c| shown(c, adjustment));
        Flags { adult, minor }
    }
}

fn concept(entry: &ConceptEntry, dim: usize) -> anyhow::Result<Concept> {
    if entry.name.trim().is_empty() {
        bail!("name is empty");
    }
    if !(-1.0..=1.0).contains(&entry.threshold) {
        bail!("threshold must be within [-1, 1]");
    }
    if entry.embedding.len() != dim {
        bail!(
            "embedding has {} numbers; the checker's embeddings have {dim}",
            entry.embedding.len()
        );
    }
    let unit = unit(&entry.embedding).context("embedding is zero or not finite")?;
    Ok(Concept {
        threshold: entry.threshold,
        unit,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(name: &str, threshold: f32, embedding: &[f32]) -> ConceptEntry {
        ConceptEntry {
            name: name.into(),
            threshold,
            embedding: embedding.to_vec(),
        }
    }

    fn set(adult: Vec<ConceptEntry>, minor: Vec<ConceptEntry>) -> ConceptSet {
        let file = ConceptFile {
            minor_adjustment: 0.01,
            adult,
            minor,
        };
        ConceptSet::new(&file, 2).unwrap()
    }

    #[test]
    fn cosine_matches_hand_computed_values() {
        // (3,4)·(4,3) = 24, |a||b| = 25.
        assert!((cosine(&[3.0, 4.0], &[4.0, 3.0]).unwrap() - 0.96).abs() < 1e-6);
        assert!((cosine(&[1.0, 0.0], &[0.0, 2.0]).unwrap()).abs() < 1e-6);
        assert!((cosine(&[1.0, 1.0], &[-2.0, -2.0]).unwrap() + 1.0).abs() < 1e-6);
        // Length does not matter, direction does.
        assert!((cosine(&[10.0, 0.0], &[3.0, 4.0]).unwrap() - 0.6).abs() < 1e-6);
        assert_eq!(cosine(&[0.0, 0.0], &[1.0, 0.0]), None);
    }

    #[test]
    fn a_concept_is_shown_strictly_above_its_threshold() {
        // The image (3,4) against the concept (4,3): cosine 0.96.
        let image = [3.0, 4.0];
        let below = set(vec![entry("a", 0.95, &[4.0, 3.0])], vec![]);
        assert_eq!(
            below.flags(&image),
            Flags {
                adult: true,
                minor: false
            }
        );
        // 0.96 itself is not "above" (a hair either way in f32 sums: 0.961 is safely not).
        let above = set(vec![entry("a", 0.961, &[4.0, 3.0])], vec![]);
        assert!(!above.flags(&image).adult);
        // (0,1) against (4,3): cosine 0.6, below 0.95.
        assert!(!below.flags(&[0.0, 1.0]).adult);
    }

    #[test]
    fn a_shown_minor_concept_lowers_every_adult_threshold_by_the_adjustment() {
        // Image (1,0). Adult concept (0.6,0.8): cosine 0.6, threshold 0.605, so alone it is
        // not shown (0.6 - 0.605 = -0.005); with a minor shown, 0.6 - 0.605 + 0.01 = 0.005 > 0.
        let adult = || vec![entry("adult", 0.605, &[0.6, 0.8])];
        let image = [1.0, 0.0];
        let no_minor = set(adult(), vec![entry("minor", 0.9, &[0.0, 1.0])]);
        assert_eq!(no_minor.flags(&image), Flags::default());
        let minor = set(adult(), vec![entry("minor", 0.5, &[1.0, 0.1])]);
        assert_eq!(
            minor.flags(&image),
            Flags {
                adult: true,
                minor: true
            }
        );
    }

    #[test]
    fn the_rules_by_mode() {
        let f = |adult, minor| Flags { adult, minor };
        for nsfw in [false, true] {
            assert_eq!(decide(f(false, false), nsfw), Decision::Pass);
            assert_eq!(decide(f(true, true), nsfw), Decision::MinorWithAdult);
        }
        assert_eq!(decide(f(true, false), false), Decision::Adult);
        assert_eq!(decide(f(true, false), true), Decision::Pass);
        assert_eq!(
            decide(f(false, true), false),
            Decision::Pass,
            "a minor alone passes in SFW mode (its adult thresholds were the stricter ones)"
        );
        assert_eq!(
            decide(f(false, true), true),
            Decision::MinorInNsfw,
            "a minor is never returned in nsfw mode"
        );
    }

    #[test]
    fn a_zero_embedding_is_treated_as_showing_both() {
        let s = set(vec![entry("a", 0.99, &[1.0, 0.0])], vec![]);
        assert_eq!(
            s.flags(&[0.0, 0.0]),
            Flags {
                adult: true,
                minor: true
            }
        );
    }

    #[test]
    fn bad_entries_are_refused_by_position() {
        let bad = |adult: Vec<ConceptEntry>| {
            let file = ConceptFile {
                minor_adjustment: 0.01,
                adult,
                minor: vec![],
            };
            format!("{:#}", ConceptSet::new(&file, 2).unwrap_err())
        };
        assert!(bad(vec![]).contains("empty"));
        assert!(bad(vec![entry("a", 0.2, &[1.0])]).contains("adult[0]"));
        assert!(bad(vec![entry("a", 1.5, &[1.0, 0.0])]).contains("threshold"));
        assert!(bad(vec![entry(" ", 0.2, &[1.0, 0.0])]).contains("name"));
        assert!(bad(vec![entry("a", 0.2, &[0.0, 0.0])]).contains("zero"));
        let json = r#"{"adult": [], "minor": [], "extra": 1}"#;
        assert!(serde_json::from_str::<ConceptFile>(json).is_err());
    }
}
