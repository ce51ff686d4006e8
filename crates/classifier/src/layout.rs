//! The tensor layout of Stable Diffusion's safety checker (`StableDiffusionSafetyChecker`:
//! a CLIP vision tower, its projection, and two sets of concept embeddings with thresholds).
//! `LAYOUT.md` beside this crate documents the published ViT-L/14 file; a test holds this
//! module to it.
//!
//! The sizes are read back from a file's shapes, so one loader reads the published checker
//! and the tiny generated one alike.

use std::collections::HashMap;

use anyhow::{bail, Context};
use candle_core::Tensor;

/// Prefix of the vision tower's tensors: a `CLIPVisionModel` whose `vision_model` is the
/// transformer.
pub const VISION: &str = "vision_model.vision_model";
/// CLIP's attention heads are 64 wide at every published size.
pub const HEAD_DIM: usize = 64;

/// The sizes a checker file is made of; every tensor's shape follows from them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Sizes {
    /// Width of the vision transformer (`H`).
    pub hidden: usize,
    /// Encoder layers (`L`).
    pub layers: usize,
    /// Width of each layer's MLP (`I`).
    pub intermediate: usize,
    /// Width of the projected image embedding, and of every concept embedding (`E`).
    pub projection: usize,
    /// Side of a patch, in pixels (`P`).
    pub patch: usize,
    /// Side of the square the image is resized to (224 for ViT-L/14).
    pub image: usize,
    /// Rows of `concept_embeds` (`A`).
    pub concepts: usize,
    /// Rows of `special_care_embeds` (`S`).
    pub special_care: usize,
}

/// The published checker: CLIP ViT-L/14 at 224², 17 concepts, 3 special-care concepts.
pub const VIT_L_14: Sizes = Sizes {
    hidden: 1024,
    layers: 24,
    intermediate: 4096,
    projection: 768,
    patch: 14,
    image: 224,
    concepts: 17,
    special_care: 3,
};

/// The generated test checker: the same image size and patch, everything else small.
pub const TINY: Sizes = Sizes {
    hidden: 64,
    layers: 2,
    intermediate: 128,
    projection: 32,
    patch: 14,
    image: 224,
    concepts: 3,
    special_care: 2,
};

impl Sizes {
    /// Patches plus the class token.
    pub fn positions(&self) -> usize {
        (self.image / self.patch).pow(2) + 1
    }

    /// Every tensor a checker file of these sizes holds, with its shape.
    pub fn tensors(&self) -> Vec<(String, Vec<usize>)> {
        let (h, e, i) = (self.hidden, self.projection, self.intermediate);
        let mut out = vec![
            (format!("{VISION}.embeddings.class_embedding"), vec![h]),
            (
                format!("{VISION}.embeddings.patch_embedding.weight"),
                vec![h, 3, self.patch, self.patch],
            ),
            (
                format!("{VISION}.embeddings.position_embedding.weight"),
                vec![self.positions(), h],
            ),
        ];
        for norm in ["pre_layrnorm", "post_layernorm"] {
            out.push((format!("{VISION}.{norm}.weight"), vec![h]));
            out.push((format!("{VISION}.{norm}.bias"), vec![h]));
        }
        for layer in 0..self.layers {
            let p = format!("{VISION}.encoder.layers.{layer}");
            for proj in ["q_proj", "k_proj", "v_proj", "out_proj"] {
                out.push((format!("{p}.self_attn.{proj}.weight"), vec![h, h]));
                out.push((format!("{p}.self_attn.{proj}.bias"), vec![h]));
            }
            for norm in ["layer_norm1", "layer_norm2"] {
                out.push((format!("{p}.{norm}.weight"), vec![h]));
                out.push((format!("{p}.{norm}.bias"), vec![h]));
            }
            out.push((format!("{p}.mlp.fc1.weight"), vec![i, h]));
            out.push((format!("{p}.mlp.fc1.bias"), vec![i]));
            out.push((format!("{p}.mlp.fc2.weight"), vec![h, i]));
            out.push((format!("{p}.mlp.fc2.bias"), vec![h]));
        }
        out.push(("visual_projection.weight".into(), vec![e, h]));
        out.push(("concept_embeds".into(), vec![self.concepts, e]));
        out.push(("concept_embeds_weights".into(), vec![self.concepts]));
        out.push(("special_care_embeds".into(), vec![self.special_care, e]));
        out.push((
            "special_care_embeds_weights".into(),
            vec![self.special_care],
        ));
        out
    }

    /// Reads the sizes back from a file's tensors, then checks that every tensor the layout
    /// needs is there with its exact shape (a tensor the layout does not use is ignored: the
    /// published file may also hold the `position_ids` buffer).
    pub fn of(tensors: &HashMap<String, Tensor>) -> anyhow::Result<Sizes> {
        let dims = |name: &str| -> anyhow::Result<Vec<usize>> {
            let t = tensors
                .get(name)
                .with_context(|| format!("the checker file has no tensor {name}"))?;
            Ok(t.dims().to_vec())
        };
        let patch = dims(&format!("{VISION}.embeddings.patch_embedding.weight"))?;
        let positions = dims(&format!("{VISION}.embeddings.position_embedding.weight"))?;
        let fc1 = dims(&format!("{VISION}.encoder.layers.0.mlp.fc1.weight"))?;
        let projection = dims("visual_projection.weight")?;
        let layers = (0..)
            .take_while(|l| {
                tensors.contains_key(&format!("{VISION}.encoder.layers.{l}.layer_norm1.weight"))
            })
            .count();
        let (Some(&hidden), Some(&patch_side), Some(&positions), Some(&intermediate)) =
            (patch.first(), patch.get(2), positions.first(), fc1.first())
        else {
            bail!("the checker file's tensors do not have the safety checker's ranks");
        };
        let side = ((positions.max(1) - 1) as f64).sqrt() as usize;
        let sizes = Sizes {
            hidden,
            layers,
            intermediate,
            projection: projection.first().copied().unwrap_or(0),
            patch: patch_side,
            image: side * patch_side,
            concepts: dims("concept_embeds")?.first().copied().unwrap_or(0),
            special_care: dims("special_care_embeds")?.first().copied().unwrap_or(0),
        };
        if hidden == 0 || hidden % HEAD_DIM != 0 {
            bail!("the vision tower's width {hidden} is not a multiple of {HEAD_DIM}");
        }
        for (name, shape) in sizes.tensors() {
            let found = dims(&name)?;
            if found != shape {
                bail!("tensor {name} has shape {found:?}; the layout wants {shape:?}");
            }
        }
        Ok(sizes)
    }

    /// The configuration of candle's CLIP vision transformer for these sizes.
    pub fn vision_config(
        &self,
    ) -> candle_transformers::models::clip::vision_model::ClipVisionConfig {
        candle_transformers::models::clip::vision_model::ClipVisionConfig {
            embed_dim: self.hidden,
            activation: candle_transformers::models::clip::text_model::Activation::QuickGelu,
            intermediate_size: self.intermediate,
            num_hidden_layers: self.layers,
            num_attention_heads: self.hidden / HEAD_DIM,
            projection_dim: self.projection,
            num_channels: 3,
            image_size: self.image,
            patch_size: self.patch,
        }
    }
}
