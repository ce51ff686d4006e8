//! CLIP's text transformer, read from a checkpoint: the tensor names say where it sits in the
//! file and their shapes say its size, so one loader serves SD 1.x single-file checkpoints
//! (`cond_stage_model.transformer.text_model.*`) and diffusers text encoders
//! (`text_model.*`) of any width, in safetensors or in stable-diffusion.cpp's GGUF.

use std::collections::HashMap;
use std::path::Path;

use candle_core::quantized::gguf_file;
use candle_core::safetensors::MmapedSafetensors;
use candle_core::{DType, Device, Module, Tensor};
use candle_nn::VarBuilder;
use candle_transformers::models::clip::text_model::{
    Activation, ClipTextConfig, ClipTextTransformer,
};
use instant_clip_tokenizer::Tokenizer;

use crate::Error;

/// Where the text model's tensors may sit in a checkpoint.
const PREFIXES: &[&str] = &["cond_stage_model.transformer.text_model", "text_model"];

/// CLIP's attention heads are 64 wide in every published text encoder.
const HEAD_DIM: usize = 64;

/// The text encoder's size, read from the tensor shapes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EncoderShape {
    pub vocab: usize,
    pub width: usize,
    pub layers: usize,
    pub intermediate: usize,
    pub positions: usize,
}

impl EncoderShape {
    fn config(&self) -> ClipTextConfig {
        ClipTextConfig {
            vocab_size: self.vocab,
            embed_dim: self.width,
            activation: Activation::QuickGelu,
            intermediate_size: self.intermediate,
            max_position_embeddings: self.positions,
            pad_with: None,
            num_hidden_layers: self.layers,
            num_attention_heads: self.width / HEAD_DIM,
            projection_dim: self.width,
        }
    }
}

pub struct TextEncoder {
    model: ClipTextTransformer,
    tokenizer: Tokenizer,
    shape: EncoderShape,
    device: Device,
}

impl TextEncoder {
    /// Loads the text encoder of the checkpoint at `path`: safetensors (float32 or float16;
    /// the rest of the file is mapped, not read) or GGUF as stable-diffusion.cpp writes it
    /// (the text encoder's tensors are read and dequantized; a quantisation candle does not
    /// know, such as TQ1_0, is an error).
    pub fn load(path: &Path) -> Result<TextEncoder, Error> {
        let read = |e: candle_core::Error| Error::Read {
            path: path.display().to_string(),
            message: e.to_string(),
        };
        let device = Device::Cpu;
        let mut magic = [0u8; 4];
        std::fs::File::open(path)
            .and_then(|mut f| std::io::Read::read_exact(&mut f, &mut magic))
            .map_err(|e| read(e.into()))?;
        let (prefix, shape, vb) = if &magic == b"GGUF" {
            let tensors = gguf_text_tensors(path).map_err(read)?;
            let shapes: Vec<(String, Vec<usize>)> = tensors
                .iter()
                .map(|(n, t)| (n.clone(), t.dims().to_vec()))
                .collect();
            let (prefix, shape) = find(&shapes)?;
            (
                prefix,
                shape,
                VarBuilder::from_tensors(tensors, DType::F32, &device),
            )
        } else {
            // SAFETY: the file is mapped read-only; like every loader of mapped weights, this
            // trusts that nothing truncates it while the process runs.
            let file = unsafe { MmapedSafetensors::new(path) }.map_err(read)?;
            let shapes: Vec<(String, Vec<usize>)> = file
                .tensors()
                .into_iter()
                .map(|(n, v)| (n, v.shape().to_vec()))
                .collect();
            let (prefix, shape) = find(&shapes)?;
            // SAFETY: as above.
            let vb = unsafe { VarBuilder::from_mmaped_safetensors(&[path], DType::F32, &device) }
                .map_err(read)?;
            (prefix, shape, vb)
        };
        let model = ClipTextTransformer::new(vb.pp(prefix), &shape.config())?;
        let tokenizer = Tokenizer::new();
        if shape.vocab < usize::from(tokenizer.end_of_text().to_u16()) + 1 {
            return Err(Error::Layout(format!(
                "the text encoder has {} tokens; CLIP's vocabulary needs 49408",
                shape.vocab
            )));
        }
        Ok(TextEncoder {
            model,
            tokenizer,
            shape,
            device,
        })
    }

    pub fn shape(&self) -> EncoderShape {
        self.shape
    }

    /// The prompt's embedding: the final state at the end-of-text token, unit length. Text
    /// past the encoder's 77 positions is cut, as the image model cuts it.
    pub fn embed(&self, text: &str) -> Result<Vec<f32>, Error> {
        let mut tokens = Vec::new();
        self.tokenizer.encode(text, &mut tokens);
        tokens.truncate(self.shape.positions - 2);
        let ids: Vec<u32> = std::iter::once(self.tokenizer.start_of_text())
            .chain(tokens)
            .chain(std::iter::once(self.tokenizer.end_of_text()))
            .map(|t| u32::from(t.to_u16()))
            .collect();
        let input = Tensor::new(ids.as_slice(), &self.device)?.unsqueeze(0)?;
        let pooled = self.model.forward(&input)?.squeeze(0)?;
        let mut v = pooled.to_dtype(DType::F32)?.to_vec1::<f32>()?;
        normalize(&mut v);
        Ok(v)
    }
}

pub(crate) fn normalize(v: &mut [f32]) {
    let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    if norm > 0.0 {
        v.iter_mut().for_each(|x| *x /= norm);
    }
}

/// The text encoder's tensors of a GGUF file, dequantized to float32.
fn gguf_text_tensors(path: &Path) -> candle_core::Result<HashMap<String, Tensor>> {
    let mut f = std::fs::File::open(path)?;
    let content = gguf_file::Content::read(&mut f)?;
    let mut out = HashMap::new();
    for name in content.tensor_infos.keys() {
        if PREFIXES.iter().any(|p| name.starts_with(&format!("{p}."))) {
            let t = content.tensor(&mut f, name, &Device::Cpu)?;
            out.insert(name.clone(), t.dequantize(&Device::Cpu)?);
        }
    }
    Ok(out)
}

/// The text model's prefix in the file and its shape, from the tensors' names and shapes.
fn find(tensors: &[(String, Vec<usize>)]) -> Result<(&'static str, EncoderShape), Error> {
    let shape_of = |name: &str| -> Result<&[usize], Error> {
        tensors
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, s)| s.as_slice())
            .ok_or_else(|| Error::Layout(format!("no tensor {name}")))
    };
    let prefix = PREFIXES
        .iter()
        .find(|p| shape_of(&format!("{p}.embeddings.token_embedding.weight")).is_ok())
        .ok_or_else(|| {
            Error::Layout(format!(
                "no CLIP text encoder in the file (looked for {}.*)",
                PREFIXES.join(".*, ")
            ))
        })?;
    let token = shape_of(&format!("{prefix}.embeddings.token_embedding.weight"))?;
    let position = shape_of(&format!("{prefix}.embeddings.position_embedding.weight"))?;
    let fc1 = shape_of(&format!("{prefix}.encoder.layers.0.mlp.fc1.weight"))?;
    let layer_prefix = format!("{prefix}.encoder.layers.");
    let layers = tensors
        .iter()
        .filter_map(|(n, _)| {
            n.strip_prefix(&layer_prefix)?
                .split('.')
                .next()?
                .parse::<usize>()
                .ok()
        })
        .max()
        .map_or(0, |n| n + 1);
    let shape = match (token, position, fc1) {
        ([vocab, width], [positions, w2], [intermediate, w3]) if width == w2 && width == w3 => {
            EncoderShape {
                vocab: *vocab,
                width: *width,
                layers,
                intermediate: *intermediate,
                positions: *positions,
            }
        }
        _ => {
            return Err(Error::Layout(format!(
                "unexpected text encoder shapes {token:?} {position:?} {fc1:?}"
            )))
        }
    };
    if shape.width % HEAD_DIM != 0 || shape.layers == 0 || shape.positions < 3 {
        return Err(Error::Layout(format!("unsupported text encoder {shape:?}")));
    }
    Ok((prefix, shape))
}
