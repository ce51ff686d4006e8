//! The semantic second opinion on an image prompt, for the image worker: the checkpoint's own
//! CLIP text encoder embeds the prompt, and the embedding is compared (cosine similarity) with
//! the policy's concepts, each a set of phrases embedded by the same encoder and a threshold.
//! A prompt that scores above a concept's threshold is refused before anything is rendered.
//!
//! This crate owns that check and nothing else: loading the text encoder from a Stable
//! Diffusion 1.x checkpoint or a diffusers `text_encoder` file ([`TextEncoder`], safetensors,
//! float32 or float16, on candle, CPU), the concept file ([`ConceptFile`]) and the comparison
//! ([`PromptConcepts::check`]). It complements the lexical check of `shoal-image-policy`,
//! which runs in the gateway: the encoder sees the prompt as the image model will, so a
//! paraphrase the lexicons miss still lands near its concept.
//!
//! The prompt is what the image model conditions on; the caller's negative prompt is not
//! checked here. A [`Refusal`] names the concept's index in the file, never the prompt.

mod concepts;
mod encoder;
pub mod tiny;

pub use concepts::{Concept, ConceptEntry, ConceptFile, PromptConcepts, Refusal};
pub use encoder::{EncoderShape, TextEncoder};

#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("cannot read {path}: {message}")]
    Read { path: String, message: String },
    #[error("{0}")]
    Layout(String),
    #[error("concept file: {0}")]
    Concepts(String),
    #[error("the text encoder failed: {0}")]
    Candle(#[from] candle_core::Error),
}
