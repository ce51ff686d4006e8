//! The image output check: Stable Diffusion's CLIP safety checker run in the gateway's
//! process, on candle (CPU), behind `shoal-images`' [`OutputCheck`] seam.
//!
//! [`Classifier`] is loaded once (the checker file, the concept file) and shared. Each check
//! decodes the PNG, preprocesses it to CLIP's 224² input, embeds it, compares the embedding
//! with every concept ([`concepts`]) and applies the rules ([`concepts::decide`]). Checks
//! run on the caller's blocking thread one at a time, their arithmetic on the classifier's
//! own thread pool, so the classifier never takes more cores than it was given.

pub mod concepts;
pub mod layout;
pub mod model;
pub mod preprocess;
pub mod tiny;

use std::path::Path;
use std::sync::Mutex;

use anyhow::Context;
use shoal_images::{Asked, OutputCheck, PngOnly, Verdict};

use concepts::{ConceptSet, Decision, Flags};
use model::Checker;

pub struct Classifier {
    checker: Checker,
    concepts: ConceptSet,
    pool: rayon::ThreadPool,
    /// One image at a time: a check already uses every thread of the pool.
    turn: Mutex<()>,
}

impl Classifier {
    /// Loads the checker and the concept set; `threads` is the most cores a check uses.
    pub fn open(weights: &Path, concepts: &Path, threads: usize) -> anyhow::Result<Self> {
        let checker = Checker::load(weights)?;
        let concepts = ConceptSet::load(concepts, checker.sizes().projection)?;
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads.max(1))
            .thread_name(|i| format!("image-check-{i}"))
            .build()
            .context("cannot start the classifier's threads")?;
        Ok(Classifier {
            checker,
            concepts,
            pool,
            turn: Mutex::new(()),
        })
    }

    pub fn checker(&self) -> &Checker {
        &self.checker
    }

    pub fn concepts(&self) -> &ConceptSet {
        &self.concepts
    }

    /// The projected embedding of a PNG, on the classifier's threads.
    pub fn embed(&self, png: &[u8]) -> anyhow::Result<Vec<f32>> {
        let _turn = self.turn.lock().unwrap_or_else(|e| e.into_inner());
        self.pool.install(|| self.checker.embed_png(png))
    }

    /// The concept groups a PNG shows.
    pub fn flags(&self, png: &[u8]) -> anyhow::Result<Flags> {
        Ok(self.concepts.flags(&self.embed(png)?))
    }
}

impl OutputCheck for Classifier {
    fn check(&self, png: &[u8], asked: Asked) -> Verdict {
        // Size first: nothing larger than what was asked is ever decoded.
        if PngOnly.check(png, asked) != Verdict::Pass {
            return Verdict::Malformed;
        }
        let pixels = match preprocess::pixels(png, self.checker.sizes().image) {
            Ok(pixels) => pixels,
            Err(_) => return Verdict::Malformed,
        };
        let embedded = {
            let _turn = self.turn.lock().unwrap_or_else(|e| e.into_inner());
            self.pool.install(|| self.checker.embed_pixels(&pixels))
        };
        match embedded {
            Ok(embedding) => match concepts::decide(self.concepts.flags(&embedding), asked.nsfw) {
                Decision::Pass => Verdict::Pass,
                Decision::Adult => Verdict::AdultInSfw,
                Decision::MinorWithAdult => Verdict::MinorWithAdult,
                Decision::MinorInNsfw => Verdict::MinorInNsfw,
            },
            Err(e) => {
                // Candle's errors name shapes and operations, never pixel values.
                tracing::error!(error = %e, "the image classifier failed; the image is withheld");
                Verdict::Unavailable
            }
        }
    }
}

#[cfg(test)]
mod tests;
