//! The policy's concepts in the text encoder's space, and the comparison.
//!
//! The concept file names each concept by phrases rather than by numbers, so that one file
//! serves every checkpoint: the phrases are embedded by the checkpoint's own encoder when the
//! worker starts, and a concept is the mean of its phrases' embeddings.
//!
//! ```json
//! {"concepts": [
//!   {"name": "minor-sexual", "threshold": 0.93,
//!    "phrases": ["a naked child", "sexualised picture of a young girl"]}
//! ]}
//! ```

use std::path::Path;

use serde::Deserialize;

use crate::encoder::{normalize, TextEncoder};
use crate::Error;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ConceptFile {
    pub concepts: Vec<ConceptEntry>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ConceptEntry {
    /// For the operator: it appears in no answer, log or metric.
    pub name: String,
    /// A prompt whose cosine similarity with the concept is above this is refused.
    pub threshold: f32,
    pub phrases: Vec<String>,
}

impl ConceptFile {
    pub fn parse(text: &str) -> Result<ConceptFile, Error> {
        let file: ConceptFile =
            serde_json::from_str(text).map_err(|e| Error::Concepts(e.to_string()))?;
        if file.concepts.is_empty() {
            return Err(Error::Concepts("no concepts".into()));
        }
        for c in &file.concepts {
            if c.phrases.is_empty() || !(-1.0..=1.0).contains(&c.threshold) {
                return Err(Error::Concepts(format!(
                    "concept {:?}: phrases must not be empty, the threshold must be in [-1, 1]",
                    c.name
                )));
            }
        }
        Ok(file)
    }

    pub fn load(path: &Path) -> Result<ConceptFile, Error> {
        let text = std::fs::read_to_string(path).map_err(|e| Error::Read {
            path: path.display().to_string(),
            message: e.to_string(),
        })?;
        Self::parse(&text)
    }
}

/// One concept, embedded.
#[derive(Debug, Clone)]
pub struct Concept {
    pub threshold: f32,
    pub embedding: Vec<f32>,
}

/// Why a prompt was refused: the index of the concept in the file (never the prompt).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Refusal {
    pub concept: usize,
}

/// The encoder and the concepts it embedded.
pub struct PromptConcepts {
    encoder: TextEncoder,
    concepts: Vec<Concept>,
}

impl PromptConcepts {
    /// Embeds every concept's phrases with `encoder`.
    pub fn new(encoder: TextEncoder, file: &ConceptFile) -> Result<PromptConcepts, Error> {
        let mut concepts = Vec::with_capacity(file.concepts.len());
        for entry in &file.concepts {
            let mut sum = vec![0.0f32; encoder.shape().width];
            for phrase in &entry.phrases {
                let e = encoder.embed(phrase)?;
                sum.iter_mut().zip(&e).for_each(|(s, x)| *s += x);
            }
            normalize(&mut sum);
            concepts.push(Concept {
                threshold: entry.threshold,
                embedding: sum,
            });
        }
        Ok(PromptConcepts { encoder, concepts })
    }

    pub fn encoder(&self) -> &TextEncoder {
        &self.encoder
    }

    pub fn concepts(&self) -> &[Concept] {
        &self.concepts
    }

    /// Each concept's cosine similarity with the prompt, in the file's order.
    pub fn scores(&self, prompt: &str) -> Result<Vec<f32>, Error> {
        let e = self.encoder.embed(prompt)?;
        Ok(self
            .concepts
            .iter()
            .map(|c| dot(&e, &c.embedding))
            .collect())
    }

    /// `Some` when the prompt scores above a concept's threshold: the worker refuses it.
    pub fn check(&self, prompt: &str) -> Result<Option<Refusal>, Error> {
        let scores = self.scores(prompt)?;
        Ok(scores
            .iter()
            .zip(&self.concepts)
            .position(|(s, c)| *s > c.threshold)
            .map(|concept| Refusal { concept }))
    }
}

fn dot(a: &[f32], b: &[f32]) -> f32 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}
