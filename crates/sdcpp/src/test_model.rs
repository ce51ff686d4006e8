//! A random-weight, Stable Diffusion 1.x-shaped checkpoint (GGUF) for tests and benchmarks.
//!
//! stable-diffusion.cpp recognises SD1 by its tensor names and reads the UNet's and the VAE
//! decoder's widths from tensor shapes, so the network here has SD1's exact layout (CLIP ViT-L/14
//! text encoder, UNet with channel multipliers 1-2-4-4 and attention at the first three levels,
//! KL autoencoder) at the smallest widths the engine accepts:
//!
//! - UNet model channels 32 (its group norms have 32 groups; 8 attention heads);
//! - VAE decoder channels 32 (the same group norms);
//! - the text encoder and the VAE encoder at full size, because the engine builds them from
//!   fixed hyper-parameters: the text encoder's matrices are stored ternary (TQ1_0, 1.69 bits per
//!   weight), the VAE encoder (never run by text-to-image, but loaded) as F16, since 3×3 kernels
//!   cannot be block-quantized.
//!
//! The result is about 100 MB, written in about a second. Weights are uniform random (scaled to
//! keep activations near unit variance), norms are identity, biases zero; the same seed always
//! writes the same bytes. Images rendered from it are noise, but every stage (tokenizer, text
//! encoder, sampler, UNet, VAE decoder) really runs at its real resolution.

use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::Path;

/// GGUF's tensor data alignment (its default; the file sets no `general.alignment`).
const ALIGN: u64 = 32;

const TYPE_F32: u32 = 0;
const TYPE_F16: u32 = 1;
const TYPE_TQ1_0: u32 = 34;
/// TQ1_0: 256 weights per 54-byte block (48 + 4 bytes of packed trits, then an f16 scale).
const TQ1_0_BLOCK: usize = 256;
const TQ1_0_BYTES: usize = 54;

const CLIP_PREFIX: &str = "cond_stage_model.transformer.text_model.";
const UNET_PREFIX: &str = "model.diffusion_model.";
const VAE_PREFIX: &str = "first_stage_model.";

/// CLIP ViT-L/14 text encoder: fixed in stable-diffusion.cpp.
const CLIP_VOCAB: usize = 49408;
const CLIP_POSITIONS: usize = 77;
const CLIP_WIDTH: usize = 768;
const CLIP_LAYERS: usize = 12;
/// The VAE encoder's width: fixed in stable-diffusion.cpp (only the decoder's is read).
const VAE_ENCODER_CH: usize = 128;
const CH_MULT: [usize; 4] = [1, 2, 4, 4];
const LATENT_CHANNELS: usize = 4;

/// What to write. `Default` is the smallest checkpoint the engine loads.
#[derive(Debug, Clone, Copy)]
pub struct TinyModel {
    /// UNet model channels (a multiple of 32).
    pub unet_channels: usize,
    /// VAE decoder channels (a multiple of 32).
    pub vae_channels: usize,
    pub seed: u64,
}

impl Default for TinyModel {
    fn default() -> Self {
        TinyModel {
            unet_channels: 32,
            vae_channels: 32,
            seed: 0x5eed_5d15,
        }
    }
}

/// One tensor to write: its name, PyTorch-order shape and how its values are made.
struct Tensor {
    name: String,
    shape: Vec<usize>,
    fill: Fill,
}

#[derive(Clone, Copy)]
enum Fill {
    /// F32 zeros (biases, norm shifts).
    Zeros,
    /// F32 ones (norm scales).
    Ones,
    /// F16 uniform, scaled by the fan-in.
    Random,
    /// TQ1_0 random trits with a fan-in scale.
    Ternary,
}

impl Tensor {
    fn elements(&self) -> usize {
        self.shape.iter().product()
    }

    fn fan_in(&self) -> usize {
        self.shape[1..].iter().product::<usize>().max(1)
    }

    fn ggml_type(&self) -> u32 {
        match self.fill {
            Fill::Zeros | Fill::Ones => TYPE_F32,
            Fill::Random => TYPE_F16,
            Fill::Ternary => TYPE_TQ1_0,
        }
    }

    fn byte_len(&self) -> usize {
        match self.fill {
            Fill::Zeros | Fill::Ones => self.elements() * 4,
            Fill::Random => self.elements() * 2,
            Fill::Ternary => self.elements() / TQ1_0_BLOCK * TQ1_0_BYTES,
        }
    }
}

/// The list of tensors under construction, with SD1's naming helpers.
#[derive(Default)]
struct Net {
    tensors: Vec<Tensor>,
}

impl Net {
    fn add(&mut self, name: String, shape: &[usize], fill: Fill) {
        self.tensors.push(Tensor {
            name,
            shape: shape.to_vec(),
            fill,
        });
    }

    /// A layer or group norm over `ch` channels.
    fn norm(&mut self, name: &str, ch: usize) {
        self.add(format!("{name}.weight"), &[ch], Fill::Ones);
        self.add(format!("{name}.bias"), &[ch], Fill::Zeros);
    }

    fn linear(&mut self, name: &str, out: usize, inp: usize, bias: bool) {
        // TQ1_0 needs whole 256-weight rows; narrower matrices stay F16.
        let fill = if inp.is_multiple_of(TQ1_0_BLOCK) {
            Fill::Ternary
        } else {
            Fill::Random
        };
        self.add(format!("{name}.weight"), &[out, inp], fill);
        if bias {
            self.add(format!("{name}.bias"), &[out], Fill::Zeros);
        }
    }

    fn conv(&mut self, name: &str, out: usize, inp: usize, k: usize) {
        self.add(format!("{name}.weight"), &[out, inp, k, k], Fill::Random);
        self.add(format!("{name}.bias"), &[out], Fill::Zeros);
    }
}

fn clip(net: &mut Net) {
    let p = CLIP_PREFIX;
    let w = CLIP_WIDTH;
    net.add(
        format!("{p}embeddings.token_embedding.weight"),
        &[CLIP_VOCAB, w],
        Fill::Ternary,
    );
    net.add(
        format!("{p}embeddings.position_embedding.weight"),
        &[CLIP_POSITIONS, w],
        Fill::Random,
    );
    for i in 0..CLIP_LAYERS {
        let l = format!("{p}encoder.layers.{i}");
        for proj in ["q_proj", "k_proj", "v_proj", "out_proj"] {
            net.linear(&format!("{l}.self_attn.{proj}"), w, w, true);
        }
        net.norm(&format!("{l}.layer_norm1"), w);
        net.norm(&format!("{l}.layer_norm2"), w);
        net.linear(&format!("{l}.mlp.fc1"), 4 * w, w, true);
        net.linear(&format!("{l}.mlp.fc2"), w, 4 * w, true);
    }
    net.norm(&format!("{p}final_layer_norm"), w);
}

fn unet_resblock(net: &mut Net, name: &str, inp: usize, out: usize, emb: usize) {
    net.norm(&format!("{name}.in_layers.0"), inp);
    net.conv(&format!("{name}.in_layers.2"), out, inp, 3);
    net.linear(&format!("{name}.emb_layers.1"), out, emb, true);
    net.norm(&format!("{name}.out_layers.0"), out);
    net.conv(&format!("{name}.out_layers.3"), out, out, 3);
    if inp != out {
        net.conv(&format!("{name}.skip_connection"), out, inp, 1);
    }
}

fn unet_transformer(net: &mut Net, name: &str, ch: usize) {
    net.norm(&format!("{name}.norm"), ch);
    net.conv(&format!("{name}.proj_in"), ch, ch, 1);
    let b = format!("{name}.transformer_blocks.0");
    for (attn, context) in [("attn1", ch), ("attn2", CLIP_WIDTH)] {
        net.linear(&format!("{b}.{attn}.to_q"), ch, ch, false);
        net.linear(&format!("{b}.{attn}.to_k"), ch, context, false);
        net.linear(&format!("{b}.{attn}.to_v"), ch, context, false);
        net.linear(&format!("{b}.{attn}.to_out.0"), ch, ch, true);
    }
    // GEGLU: one projection to twice the inner width (value and gate).
    net.linear(&format!("{b}.ff.net.0.proj"), 8 * ch, ch, true);
    net.linear(&format!("{b}.ff.net.2"), ch, 4 * ch, true);
    for n in ["norm1", "norm2", "norm3"] {
        net.norm(&format!("{b}.{n}"), ch);
    }
    net.conv(&format!("{name}.proj_out"), ch, ch, 1);
}

fn unet(net: &mut Net, mc: usize) {
    let p = UNET_PREFIX;
    let emb = 4 * mc;
    net.linear(&format!("{p}time_embed.0"), emb, mc, true);
    net.linear(&format!("{p}time_embed.2"), emb, emb, true);
    net.conv(&format!("{p}input_blocks.0.0"), mc, LATENT_CHANNELS, 3);

    // Attention at downsampling factors 1, 2 and 4: the first three levels.
    let attention = |level: usize| level < 3;
    let mut skips = vec![mc];
    let mut ch = mc;
    let mut block = 1;
    for (level, mult) in CH_MULT.iter().enumerate() {
        for _ in 0..2 {
            let out = mult * mc;
            unet_resblock(net, &format!("{p}input_blocks.{block}.0"), ch, out, emb);
            ch = out;
            if attention(level) {
                unet_transformer(net, &format!("{p}input_blocks.{block}.1"), ch);
            }
            skips.push(ch);
            block += 1;
        }
        if level + 1 < CH_MULT.len() {
            net.conv(&format!("{p}input_blocks.{block}.0.op"), ch, ch, 3);
            skips.push(ch);
            block += 1;
        }
    }

    unet_resblock(net, &format!("{p}middle_block.0"), ch, ch, emb);
    unet_transformer(net, &format!("{p}middle_block.1"), ch);
    unet_resblock(net, &format!("{p}middle_block.2"), ch, ch, emb);

    let mut block = 0;
    for (level, mult) in CH_MULT.iter().enumerate().rev() {
        for j in 0..3 {
            let skip = skips.pop().expect("one skip per input block");
            let out = mult * mc;
            let name = format!("{p}output_blocks.{block}");
            unet_resblock(net, &format!("{name}.0"), ch + skip, out, emb);
            ch = out;
            let mut layer = 1;
            if attention(level) {
                unet_transformer(net, &format!("{name}.1"), ch);
                layer = 2;
            }
            if level > 0 && j == 2 {
                net.conv(&format!("{name}.{layer}.conv"), ch, ch, 3);
            }
            block += 1;
        }
    }
    net.norm(&format!("{p}out.0"), mc);
    net.conv(&format!("{p}out.2"), LATENT_CHANNELS, mc, 3);
}

fn vae_resblock(net: &mut Net, name: &str, inp: usize, out: usize) {
    net.norm(&format!("{name}.norm1"), inp);
    net.conv(&format!("{name}.conv1"), out, inp, 3);
    net.norm(&format!("{name}.norm2"), out);
    net.conv(&format!("{name}.conv2"), out, out, 3);
    if inp != out {
        net.conv(&format!("{name}.nin_shortcut"), out, inp, 1);
    }
}

/// The middle of either half: two resblocks around one single-head attention.
fn vae_middle(net: &mut Net, name: &str, ch: usize) {
    vae_resblock(net, &format!("{name}.mid.block_1"), ch, ch);
    net.norm(&format!("{name}.mid.attn_1.norm"), ch);
    for proj in ["q", "k", "v", "proj_out"] {
        net.conv(&format!("{name}.mid.attn_1.{proj}"), ch, ch, 1);
    }
    vae_resblock(net, &format!("{name}.mid.block_2"), ch, ch);
}

fn vae(net: &mut Net, dc: usize) {
    let e = format!("{VAE_PREFIX}encoder");
    let ec = VAE_ENCODER_CH;
    net.conv(&format!("{e}.conv_in"), ec, 3, 3);
    let mut ch = ec;
    for (level, mult) in CH_MULT.iter().enumerate() {
        for j in 0..2 {
            vae_resblock(net, &format!("{e}.down.{level}.block.{j}"), ch, mult * ec);
            ch = mult * ec;
        }
        if level + 1 < CH_MULT.len() {
            net.conv(&format!("{e}.down.{level}.downsample.conv"), ch, ch, 3);
        }
    }
    vae_middle(net, &e, ch);
    net.norm(&format!("{e}.norm_out"), ch);
    net.conv(&format!("{e}.conv_out"), 2 * LATENT_CHANNELS, ch, 3);
    let q = format!("{VAE_PREFIX}quant_conv");
    net.conv(&q, 2 * LATENT_CHANNELS, 2 * LATENT_CHANNELS, 1);
    let pq = format!("{VAE_PREFIX}post_quant_conv");
    net.conv(&pq, LATENT_CHANNELS, LATENT_CHANNELS, 1);

    let d = format!("{VAE_PREFIX}decoder");
    let mut ch = dc * CH_MULT[CH_MULT.len() - 1];
    net.conv(&format!("{d}.conv_in"), ch, LATENT_CHANNELS, 3);
    vae_middle(net, &d, ch);
    for (level, mult) in CH_MULT.iter().enumerate().rev() {
        for j in 0..3 {
            vae_resblock(net, &format!("{d}.up.{level}.block.{j}"), ch, mult * dc);
            ch = mult * dc;
        }
        if level > 0 {
            net.conv(&format!("{d}.up.{level}.upsample.conv"), ch, ch, 3);
        }
    }
    net.norm(&format!("{d}.norm_out"), ch);
    net.conv(&format!("{d}.conv_out"), 3, ch, 3);
}

/// SplitMix64: a tiny, fast, fixed generator (the file must not change with a crate update).
struct Rng(u64);

impl Rng {
    fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
}

fn tensor_bytes(t: &Tensor, rng: &mut Rng, out: &mut Vec<u8>) {
    out.clear();
    out.resize(t.byte_len(), 0);
    match t.fill {
        Fill::Zeros => {}
        Fill::Ones => {
            for v in out.chunks_exact_mut(4) {
                v.copy_from_slice(&1f32.to_le_bytes());
            }
        }
        Fill::Random => {
            // Uniform on [-a, a] has variance a²/3: a = sqrt(3 / fan_in) keeps unit variance.
            // Values come from a 4096-entry table of the distribution's quantiles, 12 random
            // bits each: the same distribution, a table lookup instead of a float conversion.
            let a = (3.0 / t.fan_in() as f32).sqrt();
            let table: Vec<[u8; 2]> = (0..4096)
                .map(|i| half::f16::from_f32(a * ((i as f32 + 0.5) / 2048.0 - 1.0)).to_le_bytes())
                .collect();
            for five in out.chunks_mut(10) {
                let mut bits = rng.next_u64();
                for v in five.chunks_exact_mut(2) {
                    v.copy_from_slice(&table[(bits & 0xfff) as usize]);
                    bits >>= 12;
                }
            }
        }
        Fill::Ternary => {
            // Trits in {-1, 0, 1} have variance 2/3: scale by sqrt(1.5 / fan_in).
            let scale = half::f16::from_f32((1.5 / t.fan_in() as f32).sqrt()).to_le_bytes();
            for block in out.chunks_exact_mut(TQ1_0_BYTES) {
                let (trits, d) = block.split_at_mut(TQ1_0_BYTES - 2);
                for chunk in trits.chunks_mut(8) {
                    let n = chunk.len();
                    chunk.copy_from_slice(&rng.next_u64().to_le_bytes()[..n]);
                }
                d.copy_from_slice(&scale);
            }
        }
    }
}

fn put_str(h: &mut Vec<u8>, s: &str) {
    h.extend_from_slice(&(s.len() as u64).to_le_bytes());
    h.extend_from_slice(s.as_bytes());
}

fn padding(len: u64) -> u64 {
    (ALIGN - len % ALIGN) % ALIGN
}

/// The tensors of the checkpoint `model` describes, in file order.
fn tensors(model: &TinyModel) -> Vec<Tensor> {
    assert!(
        model.unet_channels.is_multiple_of(32) && model.vae_channels.is_multiple_of(32),
        "widths must be multiples of 32 (group norms of 32 groups)"
    );
    let mut net = Net::default();
    clip(&mut net);
    unet(&mut net, model.unet_channels);
    vae(&mut net, model.vae_channels);
    net.tensors
}

impl TinyModel {
    /// Writes the checkpoint to `path` (GGUF v3) and returns its size in bytes.
    pub fn write(&self, path: &Path) -> io::Result<u64> {
        let tensors = tensors(self);
        let mut header = header(&tensors);
        header.resize(header.len() + padding(header.len() as u64) as usize, 0);
        let mut w = BufWriter::with_capacity(1 << 20, File::create(path)?);
        w.write_all(&header)?;
        let mut size = header.len() as u64;
        let mut rng = Rng(self.seed);
        let mut buf = Vec::new();
        for t in &tensors {
            tensor_bytes(t, &mut rng, &mut buf);
            buf.resize(buf.len() + padding(buf.len() as u64) as usize, 0);
            w.write_all(&buf)?;
            size += buf.len() as u64;
        }
        w.flush()?;
        Ok(size)
    }
}

/// The GGUF header: magic, version, counts, one metadata entry, the tensor infos.
fn header(tensors: &[Tensor]) -> Vec<u8> {
    let mut h = Vec::new();
    h.extend_from_slice(b"GGUF");
    h.extend_from_slice(&3u32.to_le_bytes());
    h.extend_from_slice(&(tensors.len() as u64).to_le_bytes());
    h.extend_from_slice(&1u64.to_le_bytes());
    put_str(&mut h, "general.name");
    h.extend_from_slice(&8u32.to_le_bytes()); // a GGUF string
    put_str(&mut h, "shoal random-weight SD1-shaped test model");
    let mut offset = 0u64;
    for t in tensors {
        put_str(&mut h, &t.name);
        h.extend_from_slice(&(t.shape.len() as u32).to_le_bytes());
        // GGUF lists dimensions innermost first: PyTorch order reversed.
        for d in t.shape.iter().rev() {
            h.extend_from_slice(&(*d as u64).to_le_bytes());
        }
        h.extend_from_slice(&t.ggml_type().to_le_bytes());
        h.extend_from_slice(&offset.to_le_bytes());
        offset += t.byte_len() as u64;
        offset += padding(offset);
    }
    h
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_blocks_whole() {
        let ts = tensors(&TinyModel::default());
        let mut names: Vec<&str> = ts.iter().map(|t| t.name.as_str()).collect();
        names.sort_unstable();
        let before = names.len();
        names.dedup();
        assert_eq!(before, names.len(), "duplicate tensor names");
        for t in &ts {
            if let Fill::Ternary = t.fill {
                assert_eq!(t.shape[t.shape.len() - 1] % TQ1_0_BLOCK, 0, "{}", t.name);
            }
        }
        // SD1 has 12 input and 12 output blocks.
        assert!(names.iter().any(|n| n.contains("input_blocks.11.0.")));
        assert!(names.iter().any(|n| n.contains("output_blocks.11.1.")));
        assert!(!names.iter().any(|n| n.contains("output_blocks.12.")));
    }

    #[test]
    fn same_seed_same_bytes() {
        let dir = std::env::temp_dir().join(format!("sdcpp-model-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let small = TinyModel::default();
        let a = dir.join("a.gguf");
        let size = small.write(&a).unwrap();
        assert_eq!(size, std::fs::metadata(&a).unwrap().len());
        let b = dir.join("b.gguf");
        small.write(&b).unwrap();
        assert!(std::fs::read(&a).unwrap() == std::fs::read(&b).unwrap());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
