//! Text encoders of the published layout with seeded random weights, for tests and the
//! benchmark: [`EncoderShape::tiny`] for tests (13 MB, one layer), [`EncoderShape::sd1`] for
//! timing at Stable Diffusion 1.x's size (CLIP ViT-L/14's text tower, 490 MB).

use std::collections::HashMap;
use std::path::Path;

use candle_core::quantized::{gguf_file, GgmlDType, QTensor};
use candle_core::{Device, Tensor};

use crate::encoder::EncoderShape;
use crate::Error;

impl EncoderShape {
    /// The smallest encoder CLIP's vocabulary fits: width 64 (one head), one layer.
    pub fn tiny() -> EncoderShape {
        EncoderShape {
            vocab: 49408,
            width: 64,
            layers: 1,
            intermediate: 128,
            positions: 77,
        }
    }

    /// Stable Diffusion 1.x's text encoder (CLIP ViT-L/14).
    pub fn sd1() -> EncoderShape {
        EncoderShape {
            vocab: 49408,
            width: 768,
            layers: 12,
            intermediate: 3072,
            positions: 77,
        }
    }
}

/// Writes a safetensors checkpoint holding only a text encoder of `shape` under `prefix` (e.g.
/// `cond_stage_model.transformer.text_model`), float32, weights drawn from `seed`.
pub fn write(path: &Path, shape: EncoderShape, prefix: &str, seed: u64) -> Result<(), Error> {
    candle_core::safetensors::save(&tensors(shape, prefix, seed)?, path)?;
    Ok(())
}

/// The same as a GGUF file, every tensor float16, as stable-diffusion.cpp's converter writes
/// an unquantised text encoder.
pub fn write_gguf(path: &Path, shape: EncoderShape, prefix: &str, seed: u64) -> Result<(), Error> {
    let mut qtensors = Vec::new();
    for (name, t) in tensors(shape, prefix, seed)? {
        qtensors.push((name, QTensor::quantize(&t, GgmlDType::F16)?));
    }
    let refs: Vec<(&str, &QTensor)> = qtensors.iter().map(|(n, t)| (n.as_str(), t)).collect();
    let mut file = std::fs::File::create(path).map_err(|e| Error::Read {
        path: path.display().to_string(),
        message: e.to_string(),
    })?;
    gguf_file::write(&mut file, &[], &refs)?;
    Ok(())
}

fn tensors(shape: EncoderShape, prefix: &str, seed: u64) -> Result<HashMap<String, Tensor>, Error> {
    let mut rng = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    let mut tensor = |dims: &[usize], scale: f32| -> Result<Tensor, Error> {
        let n: usize = dims.iter().product();
        let values: Vec<f32> = (0..n)
            .map(|_| {
                // xorshift64: reproducible and fast enough for half a gigabyte.
                rng ^= rng << 13;
                rng ^= rng >> 7;
                rng ^= rng << 17;
                ((rng >> 40) as f32 / (1u64 << 24) as f32 - 0.5) * 2.0 * scale
            })
            .collect();
        Ok(Tensor::from_vec(values, dims, &Device::Cpu)?)
    };
    let (w, i) = (shape.width, shape.intermediate);
    let mut t: HashMap<String, Tensor> = HashMap::new();
    t.insert(
        format!("{prefix}.embeddings.token_embedding.weight"),
        tensor(&[shape.vocab, w], 0.02)?,
    );
    t.insert(
        format!("{prefix}.embeddings.position_embedding.weight"),
        tensor(&[shape.positions, w], 0.01)?,
    );
    for l in 0..shape.layers {
        let p = format!("{prefix}.encoder.layers.{l}");
        for proj in ["q_proj", "k_proj", "v_proj", "out_proj"] {
            t.insert(
                format!("{p}.self_attn.{proj}.weight"),
                tensor(&[w, w], 0.05)?,
            );
            t.insert(format!("{p}.self_attn.{proj}.bias"), tensor(&[w], 0.01)?);
        }
        t.insert(format!("{p}.mlp.fc1.weight"), tensor(&[i, w], 0.05)?);
        t.insert(format!("{p}.mlp.fc1.bias"), tensor(&[i], 0.01)?);
        t.insert(format!("{p}.mlp.fc2.weight"), tensor(&[w, i], 0.05)?);
        t.insert(format!("{p}.mlp.fc2.bias"), tensor(&[w], 0.01)?);
        for norm in ["layer_norm1", "layer_norm2"] {
            t.insert(
                format!("{p}.{norm}.weight"),
                Tensor::ones(w, candle_core::DType::F32, &Device::Cpu)?,
            );
            t.insert(format!("{p}.{norm}.bias"), tensor(&[w], 0.01)?);
        }
    }
    t.insert(
        format!("{prefix}.final_layer_norm.weight"),
        Tensor::ones(w, candle_core::DType::F32, &Device::Cpu)?,
    );
    t.insert(
        format!("{prefix}.final_layer_norm.bias"),
        tensor(&[w], 0.01)?,
    );
    Ok(t)
}
