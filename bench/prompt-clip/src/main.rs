//! The CLIP text check's cost per prompt on CPU (bench/prompt-clip/RESULTS.md), on a text
//! encoder of Stable Diffusion 1.x's size (CLIP ViT-L/14's text tower: 12 layers, width 768)
//! with seeded random weights: the time depends on the shapes, not on the values. The file is
//! written on first use to `--weights` (default /var/tmp/shoal-bench-clip-text-sd1.safetensors,
//! 490 MB).
//!
//!   cargo run --release -p shoal-bench-prompt-clip [-- --runs N] [--weights PATH]
//!
//! Threads: candle's CPU kernels use rayon; set RAYON_NUM_THREADS to bound them.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use shoal_prompt_clip::{tiny, ConceptFile, EncoderShape, PromptConcepts, TextEncoder};

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    sorted[((sorted.len() as f64 - 1.0) * p).round() as usize]
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

fn main() {
    let arg = |name: &str| std::env::args().skip_while(|a| a != name).nth(1);
    let runs: usize = arg("--runs").and_then(|n| n.parse().ok()).unwrap_or(50);
    let weights = PathBuf::from(
        arg("--weights").unwrap_or_else(|| "/var/tmp/shoal-bench-clip-text-sd1.safetensors".into()),
    );
    if !weights.exists() {
        let start = Instant::now();
        let prefix = "cond_stage_model.transformer.text_model";
        tiny::write(&weights, EncoderShape::sd1(), prefix, 7).expect("the encoder is written");
        println!(
            "wrote {} in {:.1} s",
            weights.display(),
            start.elapsed().as_secs_f64()
        );
    }
    let start = Instant::now();
    let encoder = TextEncoder::load(&weights).expect("the encoder loads");
    println!(
        "loaded {:?} in {:.0} ms",
        encoder.shape(),
        ms(start.elapsed())
    );
    let file = ConceptFile::parse(
        r#"{"concepts": [
            {"name": "a", "threshold": 0.9, "phrases": ["a naked child", "a sexualised picture of a young girl"]},
            {"name": "b", "threshold": 0.9, "phrases": ["a nude minor", "an underage teenager posing nude"]}
        ]}"#,
    )
    .expect("the concept file parses");
    let start = Instant::now();
    let concepts = PromptConcepts::new(encoder, &file).expect("the concepts embed");
    println!(
        "embedded 4 concept phrases in {:.0} ms",
        ms(start.elapsed())
    );
    println!(
        "RAYON_NUM_THREADS={}",
        std::env::var("RAYON_NUM_THREADS").unwrap_or_else(|_| "(unset: all cores)".into())
    );
    println!("\n| prompt | tokens | p50 | p99 |\n| --- | --- | --- | --- |");
    for (name, prompt) in [
        ("short", "portrait of a woman, studio light".to_owned()),
        (
            "full (77 tokens)",
            "masterpiece, best quality, a castle on a hill, ".repeat(12),
        ),
    ] {
        let mut times = Vec::with_capacity(runs);
        concepts.check(&prompt).expect("a warm-up check");
        for _ in 0..runs {
            let start = Instant::now();
            std::hint::black_box(concepts.check(&prompt).expect("a check"));
            times.push(start.elapsed());
        }
        times.sort_unstable();
        let tokens = if name == "short" { "9" } else { "77" };
        println!(
            "| {name} | {tokens} | {:.1} ms | {:.1} ms |",
            ms(percentile(&times, 0.5)),
            ms(percentile(&times, 0.99))
        );
    }
}
