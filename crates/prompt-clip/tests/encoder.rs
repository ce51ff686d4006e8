//! The text check on seeded random encoders of the published layout: what loads, what the
//! embedding is, and that a prompt near a concept is refused while others pass.

use std::path::PathBuf;

use shoal_prompt_clip::{tiny, ConceptFile, EncoderShape, Error, PromptConcepts, TextEncoder};

fn temp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("shoal-prompt-clip-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a temp dir");
    dir.join(name)
}

fn sd1_style(name: &str, seed: u64) -> PathBuf {
    let path = temp(name);
    let prefix = "cond_stage_model.transformer.text_model";
    tiny::write(&path, EncoderShape::tiny(), prefix, seed).expect("the tiny encoder is written");
    path
}

#[test]
fn the_encoder_loads_by_its_names_and_shapes() {
    let path = sd1_style("sd1.safetensors", 1);
    let encoder = TextEncoder::load(&path).expect("it loads");
    assert_eq!(encoder.shape(), EncoderShape::tiny());
    // The diffusers layout: the same tensors under `text_model`.
    let diffusers = temp("diffusers.safetensors");
    tiny::write(&diffusers, EncoderShape::tiny(), "text_model", 1).expect("written");
    let other = TextEncoder::load(&diffusers).expect("it loads");
    assert_eq!(
        encoder.embed("a red bicycle").unwrap(),
        other.embed("a red bicycle").unwrap(),
        "the same weights under either prefix embed alike"
    );
    // stable-diffusion.cpp's GGUF, float16: close to the float32 weights it was made from.
    let gguf = temp("sd1.gguf");
    tiny::write_gguf(
        &gguf,
        EncoderShape::tiny(),
        "cond_stage_model.transformer.text_model",
        1,
    )
    .expect("written");
    let from_gguf = TextEncoder::load(&gguf).expect("it loads");
    let (a, b) = (
        encoder.embed("a red bicycle").unwrap(),
        from_gguf.embed("a red bicycle").unwrap(),
    );
    let cos: f32 = a.iter().zip(&b).map(|(x, y)| x * y).sum();
    assert!(cos > 0.999, "cos {cos}");
    // A file without a text encoder says what it looked for.
    let empty = temp("empty.safetensors");
    tiny::write(&empty, EncoderShape::tiny(), "model.diffusion_model", 1).expect("written");
    match TextEncoder::load(&empty) {
        Err(Error::Layout(m)) => {
            assert!(m.contains("cond_stage_model.transformer.text_model"), "{m}")
        }
        other => panic!("want a layout error, got {:?}", other.map(|e| e.shape())),
    }
}

#[test]
fn embeddings_are_unit_length_deterministic_and_tell_prompts_apart() {
    let encoder = TextEncoder::load(&sd1_style("embed.safetensors", 2)).expect("it loads");
    let a = encoder.embed("a red bicycle").unwrap();
    let norm: f32 = a.iter().map(|x| x * x).sum::<f32>().sqrt();
    assert!((norm - 1.0).abs() < 1e-4, "norm {norm}");
    assert_eq!(a, encoder.embed("a red bicycle").unwrap());
    assert_eq!(
        a,
        encoder.embed("A RED   bicycle").unwrap(),
        "the tokenizer folds case and spacing"
    );
    assert_ne!(a, encoder.embed("a blue bicycle").unwrap());
    // Past 77 tokens the prompt is cut, as the image model cuts it.
    let long = "a red bicycle, ".repeat(100);
    assert_eq!(
        encoder.embed(&long).unwrap().len(),
        EncoderShape::tiny().width
    );
}

#[test]
fn a_prompt_at_a_concept_is_refused_and_others_pass() {
    let encoder = TextEncoder::load(&sd1_style("concepts.safetensors", 3)).expect("it loads");
    let same = "a naked child on a bed";
    let other = "a lighthouse at dawn, oil painting";
    let e_same = encoder.embed(same).unwrap();
    let e_other = encoder.embed(other).unwrap();
    let cos: f32 = e_same.iter().zip(&e_other).map(|(x, y)| x * y).sum();
    // The threshold sits between the two: a seeded random encoder has no semantics, so the
    // test places the line where this encoder's geometry puts it.
    let threshold = (cos + 1.0) / 2.0;
    let file = ConceptFile::parse(&format!(
        r#"{{"concepts": [{{"name": "test", "threshold": {threshold}, "phrases": ["{same}"]}}]}}"#
    ))
    .expect("the concept file parses");
    let concepts = PromptConcepts::new(encoder, &file).expect("the concepts embed");
    assert_eq!(concepts.check(same).unwrap().map(|r| r.concept), Some(0));
    assert_eq!(concepts.check(other).unwrap(), None);
    let scores = concepts.scores(same).unwrap();
    assert!((scores[0] - 1.0).abs() < 1e-4, "{scores:?}");
}

#[test]
fn bad_concept_files_are_refused() {
    for (text, why) in [
        (r#"{"concepts": []}"#, "no concepts"),
        (
            r#"{"concepts": [{"name": "a", "threshold": 2.0, "phrases": ["x"]}]}"#,
            "threshold",
        ),
        (
            r#"{"concepts": [{"name": "a", "threshold": 0.5, "phrases": []}]}"#,
            "phrases",
        ),
        (r#"{"concept": []}"#, "unknown field"),
    ] {
        match ConceptFile::parse(text) {
            Err(Error::Concepts(m)) => assert!(m.contains(why), "{m}"),
            other => panic!("{text}: want an error, got {other:?}"),
        }
    }
}
