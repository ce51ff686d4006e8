//! Time per image and resident memory of the image output classifier on a checker of the
//! published ViT-L/14 size (random weights: the arithmetic is the same as the real file's).
//!
//!     bench-classifier --weights /var/tmp/vit-l-14-random.safetensors [--rounds 30] [--threads N]
//!
//! The weights file is written first when missing (1.2 GB, not committed). Rounds alternate
//! 512² and 1024² noise PNGs (the size a render's PNG really has) so drift hits both alike; a
//! check is the gateway's whole `OutputCheck::check`: size check, PNG decode, resize to 224²,
//! the network, the concept comparison.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use anyhow::Context;
use rand::{Rng, SeedableRng};
use shoal_classifier::concepts::{ConceptEntry, ConceptFile};
use shoal_classifier::layout::VIT_L_14;
use shoal_classifier::{preprocess, tiny, Classifier};
use shoal_images::{Asked, OutputCheck, Verdict};

struct Args {
    weights: PathBuf,
    rounds: usize,
    threads: usize,
}

fn args() -> anyhow::Result<Args> {
    let mut out = Args {
        weights: PathBuf::from("/var/tmp/shoal-bench-vit-l-14-random.safetensors"),
        rounds: 30,
        threads: std::thread::available_parallelism().map_or(1, |n| n.get()),
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let value = it.next().with_context(|| format!("{flag} needs a value"))?;
        match flag.as_str() {
            "--weights" => out.weights = value.into(),
            "--rounds" => out.rounds = value.parse()?,
            "--threads" => out.threads = value.parse()?,
            other => anyhow::bail!("unknown flag {other}"),
        }
    }
    Ok(out)
}

/// Resident and peak resident memory of this process, in MiB.
fn memory() -> (f64, f64) {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let field = |name: &str| {
        status
            .lines()
            .find(|l| l.starts_with(name))
            .and_then(|l| l.split_whitespace().nth(1))
            .and_then(|kb| kb.parse::<f64>().ok())
            .map_or(0.0, |kb| kb / 1024.0)
    };
    (field("VmRSS:"), field("VmHWM:"))
}

fn noise_png(side: u32, seed: u64) -> Vec<u8> {
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    let img = image::RgbImage::from_fn(side, side, |_, _| image::Rgb(rng.random()));
    let mut out = std::io::Cursor::new(Vec::new());
    img.write_to(&mut out, image::ImageFormat::Png)
        .expect("png encodes");
    out.into_inner()
}

fn pct(sorted: &[Duration], p: f64) -> f64 {
    let i = ((p / 100.0) * (sorted.len() - 1) as f64).round() as usize;
    sorted[i].as_secs_f64() * 1000.0
}

fn main() -> anyhow::Result<()> {
    let args = args()?;
    if !args.weights.exists() {
        let t = Instant::now();
        tiny::write_sized(&args.weights, &VIT_L_14, 1)?;
        eprintln!("wrote {} in {:.1?}", args.weights.display(), t.elapsed());
    }
    let concepts = args.weights.with_extension("concepts.json");
    write_concepts(&concepts)?;

    let before = memory();
    let t = Instant::now();
    let classifier = Classifier::open(&args.weights, &concepts, args.threads)?;
    let load = t.elapsed();
    let loaded = memory();

    let sides = [512u32, 1024];
    let pngs: Vec<Vec<u8>> = sides.iter().map(|&s| noise_png(s, u64::from(s))).collect();
    let (times, prep) = time_checks(&classifier, &sides, &pngs, args.rounds)?;
    let after = memory();
    println!(
        "checker: ViT-L/14 shape, random weights, f32; {} threads; {} rounds",
        args.threads, args.rounds
    );
    println!("load: {:.2} s; RSS before load {:.0} MiB, after {:.0} MiB, after the checks {:.0} MiB (peak {:.0} MiB)",
        load.as_secs_f64(), before.0, loaded.0, after.0, after.1);
    println!("| image | check p50 ms | check p99 ms | of which decode + resize p50 ms |");
    println!("|---|---|---|---|");
    for (i, side) in sides.iter().enumerate() {
        println!(
            "| {side}² PNG (noise, {} KB) | {:.1} | {:.1} | {:.1} |",
            pngs[i].len() / 1024,
            pct(&times[i], 50.0),
            pct(&times[i], 99.0),
            pct(&prep[i], 50.0)
        );
    }
    Ok(())
}

/// A concept file of the published checker's size (17 adult, 3 minor concepts), seeded.
fn write_concepts(path: &std::path::Path) -> anyhow::Result<()> {
    let mut rng = rand::rngs::StdRng::seed_from_u64(2);
    let mut entry = |name: String| ConceptEntry {
        name,
        threshold: 0.5,
        embedding: (0..VIT_L_14.projection)
            .map(|_| rng.random_range(-1.0..1.0))
            .collect(),
    };
    let file = ConceptFile {
        minor_adjustment: 0.01,
        adult: (0..17).map(|i| entry(format!("adult-{i}"))).collect(),
        minor: (0..3).map(|i| entry(format!("minor-{i}"))).collect(),
    };
    std::fs::write(path, serde_json::to_vec(&file)?)?;
    Ok(())
}

/// Per image size, the sorted times of whole checks and of their decode and resize, after
/// two rounds of warm-up.
type Times = [Vec<Duration>; 2];

fn time_checks(
    classifier: &Classifier,
    sides: &[u32; 2],
    pngs: &[Vec<u8>],
    rounds: usize,
) -> anyhow::Result<(Times, Times)> {
    let mut times = [Vec::new(), Vec::new()];
    let mut prep = [Vec::new(), Vec::new()];
    for round in 0..rounds + 2 {
        for (i, &side) in sides.iter().enumerate() {
            let asked = Asked {
                width: side,
                height: side,
                nsfw: false,
            };
            let t = Instant::now();
            let verdict = classifier.check(&pngs[i], asked);
            let took = t.elapsed();
            anyhow::ensure!(verdict != Verdict::Malformed && verdict != Verdict::Unavailable);
            let t = Instant::now();
            preprocess::pixels(&pngs[i], 224)?;
            let prep_took = t.elapsed();
            // Two warm-up rounds are not counted.
            if round >= 2 {
                times[i].push(took);
                prep[i].push(prep_took);
            }
        }
    }
    for t in times.iter_mut().chain(prep.iter_mut()) {
        t.sort();
    }
    Ok((times, prep))
}
