//! The checker's network: CLIP's vision transformer (candle's implementation) and the
//! projection into the space the concepts live in. Loaded once, read-only afterwards.

use std::collections::HashMap;
use std::path::Path;

use anyhow::Context;
use candle_core::{DType, Device, Module, Tensor};
use candle_nn::VarBuilder;
use candle_transformers::models::clip::vision_model::ClipVisionTransformer;

use crate::concepts::{ConceptEntry, ConceptFile};
use crate::layout::{Sizes, VISION};
use crate::preprocess;

pub struct Checker {
    vision: ClipVisionTransformer,
    projection: candle_nn::Linear,
    sizes: Sizes,
    /// The concepts the file itself carries (`concept_embeds`, `special_care_embeds`).
    carried: ConceptFile,
}

impl Checker {
    /// Reads a safety checker's safetensors file (any float type; computed in f32).
    pub fn load(path: &Path) -> anyhow::Result<Self> {
        let device = Device::Cpu;
        let tensors = candle_core::safetensors::load(path, &device)
            .with_context(|| format!("cannot read the checker file {}", path.display()))?;
        let sizes =
            Sizes::of(&tensors).with_context(|| format!("the checker file {}", path.display()))?;
        let tensors: HashMap<String, Tensor> = tensors
            .into_iter()
            .map(|(name, t)| Ok((name, t.to_dtype(DType::F32)?)))
            .collect::<candle_core::Result<_>>()?;
        let carried = carried_concepts(&tensors)?;
        let vb = VarBuilder::from_tensors(tensors, DType::F32, &device);
        let vision = ClipVisionTransformer::new(vb.pp(VISION), &sizes.vision_config())?;
        let projection =
            candle_nn::linear_no_bias(sizes.hidden, sizes.projection, vb.pp("visual_projection"))?;
        Ok(Checker {
            vision,
            projection,
            sizes,
            carried,
        })
    }

    pub fn sizes(&self) -> Sizes {
        self.sizes
    }

    /// The concepts the checker file carries, as a concept file: its `concept_embeds` as the
    /// `adult` group, its `special_care_embeds` as the `minor` group.
    pub fn carried_concepts(&self) -> &ConceptFile {
        &self.carried
    }

    /// The projected embedding of a batch of one preprocessed image `(1, 3, S, S)`.
    pub fn embed_pixels(&self, pixels: &Tensor) -> anyhow::Result<Vec<f32>> {
        let pooled = self.vision.forward(pixels)?;
        let embedding = self.projection.forward(&pooled)?.squeeze(0)?;
        Ok(embedding.to_vec1::<f32>()?)
    }

    /// The projected embedding of a PNG.
    pub fn embed_png(&self, png: &[u8]) -> anyhow::Result<Vec<f32>> {
        let pixels = preprocess::pixels(png, self.sizes.image)?;
        self.embed_pixels(&pixels)
    }
}

fn carried_concepts(tensors: &HashMap<String, Tensor>) -> anyhow::Result<ConceptFile> {
    let group = |embeds: &str, weights: &str, prefix: &str| -> anyhow::Result<Vec<ConceptEntry>> {
        let embeds = tensors[embeds].to_vec2::<f32>()?;
        let weights = tensors[weights].to_vec1::<f32>()?;
        Ok(embeds
            .into_iter()
            .zip(weights)
            .enumerate()
            .map(|(i, (embedding, threshold))| ConceptEntry {
                name: format!("{prefix}-{i}"),
                threshold,
                embedding,
            })
            .collect())
    };
    Ok(ConceptFile {
        minor_adjustment: 0.01,
        adult: group("concept_embeds", "concept_embeds_weights", "concept")?,
        minor: group(
            "special_care_embeds",
            "special_care_embeds_weights",
            "special-care",
        )?,
    })
}
