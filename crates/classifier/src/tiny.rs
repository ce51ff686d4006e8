//! The tiny test checker: the published file's tensor names and layout at [`TINY`] sizes,
//! seeded random weights (~1 MB). `serve --demo` and the tests run the whole classifier path
//! on it without a download. Its own concepts have threshold 1, which no cosine similarity
//! exceeds: it flags nothing until a concept file says otherwise.

use std::collections::HashMap;
use std::path::Path;

use anyhow::Context;
use candle_core::{Device, Tensor};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

use crate::layout::{Sizes, TINY};

/// Writes the tiny checker, the same bytes for the same seed.
pub fn write(path: &Path, seed: u64) -> anyhow::Result<()> {
    write_sized(path, &TINY, seed)
}

/// Writes a random-weight checker of any sizes (the benchmark writes ViT-L/14's).
pub fn write_sized(path: &Path, sizes: &Sizes, seed: u64) -> anyhow::Result<()> {
    let mut rng = StdRng::seed_from_u64(seed);
    let mut tensors = HashMap::new();
    for (name, shape) in sizes.tensors() {
        let values = values(&name, &shape, &mut rng);
        let tensor = Tensor::from_vec(values, shape.as_slice(), &Device::Cpu)?;
        tensors.insert(name, tensor);
    }
    candle_core::safetensors::save(&tensors, path)
        .with_context(|| format!("cannot write the checker file {}", path.display()))
}

fn values(name: &str, shape: &[usize], rng: &mut StdRng) -> Vec<f32> {
    let count: usize = shape.iter().product();
    let norm = name.contains("layer_norm") || name.contains("layrnorm");
    if name.ends_with("_weights") || (norm && name.ends_with(".weight")) {
        return vec![1.0; count];
    }
    if norm {
        return vec![0.0; count];
    }
    // Uniform with the spread of a default initialisation: 1/sqrt(fan-in).
    let fan_in: usize = shape.iter().skip(1).product::<usize>().max(1);
    let spread = if shape.len() == 1 {
        0.5
    } else {
        1.0 / (fan_in as f32).sqrt()
    };
    (0..count)
        .map(|_| rng.random_range(-spread..spread))
        .collect()
}
