//! The loader on the tiny checker, the documented layout, and deterministic verdicts: a
//! concept set to a known image's own embedding flags that image and not another.

use std::collections::{BTreeMap, HashMap};
use std::io::Cursor;
use std::path::{Path, PathBuf};

use candle_core::{Device, Tensor};
use shoal_images::{Asked, OutputCheck, Verdict};

use super::*;
use crate::concepts::{cosine, ConceptEntry, ConceptFile};
use crate::layout::{Sizes, TINY, VIT_L_14};

fn temp_dir(tag: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("shoal-classifier-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// A PNG of horizontal bands, their colours from `seed`.
fn png(width: u32, height: u32, seed: u8) -> Vec<u8> {
    let img = image::RgbImage::from_fn(width, height, |x, y| {
        let band = (y / 64) as u8;
        image::Rgb([
            band.wrapping_mul(37).wrapping_add(seed),
            seed.wrapping_mul(3)
                .wrapping_add(((x / 128) as u8).wrapping_mul(50)),
            255 - band.wrapping_mul(seed | 1),
        ])
    });
    let mut out = Cursor::new(Vec::new());
    img.write_to(&mut out, image::ImageFormat::Png).unwrap();
    out.into_inner()
}

/// The documented table, evaluated at `sizes`: name → shape.
fn documented(sizes: &Sizes) -> BTreeMap<String, Vec<usize>> {
    let doc =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("LAYOUT.md")).unwrap();
    let value = |symbol: &str| match symbol {
        "H" => sizes.hidden,
        "I" => sizes.intermediate,
        "E" => sizes.projection,
        "P" => sizes.patch,
        "N" => sizes.positions(),
        "A" => sizes.concepts,
        "S" => sizes.special_care,
        n => n
            .parse()
            .unwrap_or_else(|_| panic!("unknown size {n} in LAYOUT.md")),
    };
    let mut out = BTreeMap::new();
    for line in doc.lines().filter(|l| l.starts_with("| `")) {
        let cells: Vec<&str> = line
            .split('|')
            .map(|c| c.trim().trim_matches('`'))
            .collect();
        let (name, shape) = (cells[1], cells[2]);
        let shape: Vec<usize> = shape
            .trim_matches(['[', ']'])
            .split(',')
            .map(|s| value(s.trim()))
            .collect();
        let layers = if name.contains("{i}") {
            sizes.layers
        } else {
            1
        };
        for i in 0..layers {
            out.insert(name.replace("{i}", &i.to_string()), shape.clone());
        }
    }
    out
}

#[test]
fn the_tiny_checker_has_the_documented_layout() {
    let dir = temp_dir("layout");
    let path = dir.join("checker.safetensors");
    tiny::write(&path, 7).unwrap();
    let file = candle_core::safetensors::load(&path, &Device::Cpu).unwrap();
    let written: BTreeMap<String, Vec<usize>> = file
        .iter()
        .map(|(name, t)| (name.clone(), t.dims().to_vec()))
        .collect();
    assert_eq!(written, documented(&TINY));
    assert_eq!(Sizes::of(&file).unwrap(), TINY);
    // The real file's sizes give the documented table too, 24 layers and all.
    let real: BTreeMap<String, Vec<usize>> = VIT_L_14.tensors().into_iter().collect();
    assert_eq!(real, documented(&VIT_L_14));
    assert_eq!(real.len(), 7 + 24 * 16 + 5);
    assert_eq!(real["concept_embeds"], [17, 768]);
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn the_tiny_checker_is_the_same_bytes_for_the_same_seed() {
    let dir = temp_dir("seed");
    let (a, b, c) = (dir.join("a"), dir.join("b"), dir.join("c"));
    tiny::write(&a, 1).unwrap();
    tiny::write(&b, 1).unwrap();
    tiny::write(&c, 2).unwrap();
    let read = |p: &Path| std::fs::read(p).unwrap();
    assert_eq!(read(&a), read(&b));
    assert_ne!(read(&a), read(&c));
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn a_file_missing_a_tensor_or_with_a_wrong_shape_is_refused_by_name() {
    let dir = temp_dir("bad");
    let path = dir.join("checker.safetensors");
    tiny::write(&path, 1).unwrap();
    let good = candle_core::safetensors::load(&path, &Device::Cpu).unwrap();
    let name = "vision_model.vision_model.encoder.layers.1.mlp.fc2.bias";
    let mut missing: HashMap<String, Tensor> = good.clone();
    missing.remove(name);
    let err = format!("{:#}", Sizes::of(&missing).unwrap_err());
    assert!(err.contains(name), "{err}");
    let mut wrong = good;
    wrong.insert(
        name.into(),
        Tensor::zeros(3, candle_core::DType::F32, &Device::Cpu).unwrap(),
    );
    let err = format!("{:#}", Sizes::of(&wrong).unwrap_err());
    assert!(err.contains(name) && err.contains("[3]"), "{err}");
    std::fs::write(&path, b"not a safetensors file").unwrap();
    assert!(model::Checker::load(&path).is_err());
    std::fs::remove_dir_all(dir).unwrap();
}

/// The tiny checker with a concept file made of `adult` and `minor` entries.
fn classifier(dir: &Path, adult: Vec<ConceptEntry>, minor: Vec<ConceptEntry>) -> Classifier {
    let weights = dir.join("checker.safetensors");
    tiny::write(&weights, 3).unwrap();
    let file = ConceptFile {
        minor_adjustment: 0.01,
        adult,
        minor,
    };
    let concepts = dir.join("concepts.json");
    std::fs::write(&concepts, serde_json::to_vec(&file).unwrap()).unwrap();
    Classifier::open(&weights, &concepts, 1).unwrap()
}

fn entry(name: &str, threshold: f32, embedding: &[f32]) -> ConceptEntry {
    ConceptEntry {
        name: name.into(),
        threshold,
        embedding: embedding.to_vec(),
    }
}

#[test]
fn a_concept_equal_to_an_images_embedding_flags_that_image_and_not_another() {
    let dir = temp_dir("verdicts");
    let (flagged, other) = (png(512, 512, 11), png(512, 512, 200));
    let probe = classifier(&dir, vec![entry("probe", 1.0, &[1.0; 32])], vec![]);
    let a = probe.embed(&flagged).unwrap();
    let b = probe.embed(&other).unwrap();
    assert_eq!(a.len(), TINY.projection);
    assert_eq!(
        a,
        probe.embed(&flagged).unwrap(),
        "embedding is deterministic"
    );
    let similarity = cosine(&a, &b).unwrap();
    assert!(
        similarity < 0.999,
        "the two images embed apart: {similarity}"
    );
    let threshold = (1.0 + similarity) / 2.0;
    let asked = |nsfw| Asked {
        width: 512,
        height: 512,
        nsfw,
    };

    let adult = classifier(&dir, vec![entry("known", threshold, &a)], vec![]);
    assert_eq!(adult.check(&flagged, asked(false)), Verdict::AdultInSfw);
    assert_eq!(adult.check(&flagged, asked(true)), Verdict::Pass);
    assert_eq!(adult.check(&other, asked(false)), Verdict::Pass);

    let both = classifier(
        &dir,
        vec![entry("known", threshold, &a)],
        vec![entry("known-minor", threshold, &a)],
    );
    assert_eq!(both.check(&flagged, asked(true)), Verdict::MinorWithAdult);
    assert_eq!(both.check(&flagged, asked(false)), Verdict::MinorWithAdult);
    assert_eq!(both.check(&other, asked(true)), Verdict::Pass);

    // Only the minor concept matches this image: no adult flag, so it passes.
    let minor_only = classifier(
        &dir,
        vec![entry("known", threshold, &b)],
        vec![entry("known-minor", threshold, &a)],
    );
    assert_eq!(minor_only.check(&flagged, asked(false)), Verdict::Pass);
    assert_eq!(
        minor_only.check(&flagged, asked(true)),
        Verdict::MinorInNsfw
    );
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn images_that_are_not_the_asked_png_are_malformed_and_never_decoded() {
    let dir = temp_dir("malformed");
    let c = classifier(&dir, vec![entry("a", 0.5, &[1.0; 32])], vec![]);
    let asked = Asked {
        width: 512,
        height: 512,
        nsfw: false,
    };
    assert_eq!(c.check(&png(512, 576, 1), asked), Verdict::Malformed);
    let mut truncated = png(512, 512, 1);
    truncated.truncate(truncated.len() / 2);
    assert_eq!(c.check(&truncated, asked), Verdict::Malformed);
    // 1024² and non-square images are resized and cropped to the same 224² input.
    let big = Asked {
        width: 1024,
        height: 768,
        nsfw: false,
    };
    assert_ne!(c.check(&png(1024, 768, 1), big), Verdict::Malformed);
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn the_checker_exports_its_own_concepts_with_their_thresholds() {
    let dir = temp_dir("carried");
    let c = classifier(&dir, vec![entry("a", 0.5, &[1.0; 32])], vec![]);
    let carried = c.checker().carried_concepts();
    assert_eq!(
        (carried.adult.len(), carried.minor.len()),
        (TINY.concepts, TINY.special_care)
    );
    assert!(carried
        .adult
        .iter()
        .all(|e| e.threshold == 1.0 && e.embedding.len() == 32));
    assert_eq!(carried.minor[1].name, "special-care-1");
    std::fs::remove_dir_all(dir).unwrap();
}
