//! The embedded engine on the generated SD1-shaped checkpoint, on the CPU: a real 512×512
//! render at 10 steps, determinism, cancel, and clean errors for bad model files and requests.
//! The comparisons render at 128×128 (the same path, a sixteenth of the pixels) to keep the
//! suite short; `SHOAL_SDCPP_TEST_THREADS` sets the render threads (default 1: ggml's thread
//! pool spins at every operation's barrier, which on a busy machine costs more than a second
//! thread gives).

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::OnceLock;
use std::time::Instant;

use shoal_protocol::worker::ImageJobRequest;
use shoal_sdcpp::test_model::TinyModel;
use shoal_sdcpp::{Engine, SdError};

/// The checkpoint, written once per test run (4 s) under cargo's test tmp dir: the file is
/// replaced, never reused, so a change to the writer always reaches the tests.
fn model_path() -> &'static Path {
    static PATH: OnceLock<PathBuf> = OnceLock::new();
    PATH.get_or_init(|| {
        let path = Path::new(env!("CARGO_TARGET_TMPDIR")).join("sd1-tiny.gguf");
        let partial = path.with_extension(format!("partial-{}", std::process::id()));
        let started = Instant::now();
        let size = TinyModel::default().write(&partial).unwrap();
        std::fs::rename(&partial, &path).unwrap();
        eprintln!(
            "wrote {} ({size} bytes) in {:?}",
            path.display(),
            started.elapsed()
        );
        path
    })
}

fn threads() -> usize {
    std::env::var("SHOAL_SDCPP_TEST_THREADS")
        .ok()
        .and_then(|t| t.parse().ok())
        .unwrap_or(1)
}

fn engine() -> &'static Engine {
    static ENGINE: OnceLock<Engine> = OnceLock::new();
    ENGINE.get_or_init(|| {
        let started = Instant::now();
        let engine = Engine::load(model_path(), threads()).expect("the test model loads");
        eprintln!("loaded in {:?}", started.elapsed());
        engine
    })
}

fn request(seed: u64) -> ImageJobRequest {
    ImageJobRequest {
        prompt: "a lighthouse on a cliff at dusk, oil painting".into(),
        negative_prompt: "blurry, low quality".into(),
        width: 128,
        height: 128,
        steps: 10,
        cfg: 4.0,
        seed,
    }
}

/// A PNG and every progress call made while rendering it.
type Rendered = (Vec<u8>, Vec<(u32, u32)>);

fn render(req: &ImageJobRequest) -> Rendered {
    let mut calls = Vec::new();
    let started = Instant::now();
    let png = engine()
        .generate(
            req,
            &mut |step, steps| calls.push((step, steps)),
            &AtomicBool::new(false),
        )
        .expect("the render succeeds");
    eprintln!(
        "rendered {}x{} at {} steps in {:?}",
        req.width,
        req.height,
        req.steps,
        started.elapsed()
    );
    (png, calls)
}

/// The seed-7 128×128 render, shared by the tests that compare against it.
fn reference() -> &'static Rendered {
    static REFERENCE: OnceLock<Rendered> = OnceLock::new();
    REFERENCE.get_or_init(|| render(&request(7)))
}

fn decode(png_bytes: &[u8]) -> (png::OutputInfo, Vec<u8>) {
    let mut reader = png::Decoder::new(std::io::Cursor::new(png_bytes))
        .read_info()
        .expect("a PNG header");
    let mut buf = vec![0; reader.output_buffer_size().unwrap()];
    let info = reader.next_frame(&mut buf).expect("PNG image data");
    buf.truncate(info.buffer_size());
    (info, buf)
}

#[test]
fn renders_a_512_png_reporting_every_step() {
    let req = ImageJobRequest {
        width: 512,
        height: 512,
        ..request(7)
    };
    let (png_bytes, calls) = render(&req);
    let (info, pixels) = decode(&png_bytes);
    assert_eq!((info.width, info.height), (512, 512));
    assert_eq!(info.color_type, png::ColorType::Rgb);
    assert_eq!(info.bit_depth, png::BitDepth::Eight);
    // Random weights make noise, not a flat image: many distinct pixel values.
    let mut seen = [false; 256];
    for v in &pixels {
        seen[*v as usize] = true;
    }
    assert!(seen.iter().filter(|s| **s).count() > 16);
    let expected: Vec<(u32, u32)> = (1..=10).map(|s| (s, 10)).collect();
    assert_eq!(calls, expected);
    assert_eq!(engine().model_name(), "sd1-tiny");
}

#[test]
fn a_non_square_render_has_the_asked_size() {
    let req = ImageJobRequest {
        width: 192,
        height: 64,
        steps: 2,
        ..request(7)
    };
    let (png_bytes, calls) = render(&req);
    let (info, _) = decode(&png_bytes);
    assert_eq!((info.width, info.height), (192, 64));
    assert_eq!(calls, vec![(1, 2), (2, 2)]);
}

#[test]
fn same_seed_and_parameters_give_the_same_bytes() {
    let (again, _) = render(&request(7));
    assert!(again == reference().0, "a second seed-7 render differs");
}

#[test]
fn another_seed_gives_other_bytes() {
    let (other, _) = render(&request(8));
    assert!(
        other != reference().0,
        "seeds 7 and 8 rendered the same PNG"
    );
}

#[test]
fn cancel_during_the_render_returns_cancelled_and_stops_progress() {
    let cancel = AtomicBool::new(false);
    let mut calls = Vec::new();
    let req = request(9);
    let result = engine().generate(
        &req,
        &mut |step, steps| {
            calls.push((step, steps));
            if step == 3 {
                cancel.store(true, Ordering::Relaxed);
            }
        },
        &cancel,
    );
    assert!(matches!(result, Err(SdError::Cancelled)), "{result:?}");
    assert_eq!(calls, vec![(1, 10), (2, 10), (3, 10)]);
}

#[test]
fn a_cancel_set_before_the_render_renders_nothing() {
    let mut calls = 0;
    let started = Instant::now();
    let result = engine().generate(&request(10), &mut |_, _| calls += 1, &AtomicBool::new(true));
    assert!(matches!(result, Err(SdError::Cancelled)), "{result:?}");
    assert_eq!(calls, 0);
    eprintln!("pre-cancelled call returned in {:?}", started.elapsed());
}

#[test]
fn requests_the_engine_cannot_render_are_refused_by_field() {
    let cases = [
        (
            ImageJobRequest {
                width: 500,
                ..request(1)
            },
            "width",
        ),
        (
            ImageJobRequest {
                height: 0,
                ..request(1)
            },
            "height",
        ),
        (
            ImageJobRequest {
                steps: 0,
                ..request(1)
            },
            "steps",
        ),
        (
            ImageJobRequest {
                cfg: f32::NAN,
                ..request(1)
            },
            "cfg",
        ),
        (
            ImageJobRequest {
                prompt: "nul\0inside".into(),
                ..request(1)
            },
            "prompt",
        ),
    ];
    for (req, field) in cases {
        let mut calls = 0;
        let result = engine().generate(&req, &mut |_, _| calls += 1, &AtomicBool::new(false));
        match result {
            Err(SdError::InvalidRequest(f)) => assert_eq!(f, field),
            other => panic!("{field}: {other:?}"),
        }
        assert_eq!(calls, 0);
    }
}

fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("bad-models");
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

fn assert_load_error(path: &Path) -> String {
    match Engine::load(path, 1) {
        Err(e @ SdError::Load { .. }) => e.to_string(),
        Err(e) => panic!("{}: not a load error: {e:?}", path.display()),
        Ok(_) => panic!("{} loaded", path.display()),
    }
}

#[test]
fn a_missing_model_is_a_clean_error() {
    let msg = assert_load_error(&scratch("does-not-exist.gguf"));
    assert!(msg.contains("does-not-exist.gguf"), "{msg}");
    assert_load_error(&scratch(""));
}

#[test]
fn a_file_that_is_not_a_model_is_a_clean_error() {
    let path = scratch("garbage.gguf");
    std::fs::write(
        &path,
        b"this is not a checkpoint, just some text\n".repeat(100),
    )
    .unwrap();
    assert_load_error(&path);
    let empty = scratch("empty.safetensors");
    std::fs::write(&empty, b"").unwrap();
    assert_load_error(&empty);
}

#[test]
fn a_truncated_model_is_a_clean_error() {
    let bytes = std::fs::read(model_path()).unwrap();
    let path = scratch("truncated.gguf");
    std::fs::write(&path, &bytes[..bytes.len() / 2]).unwrap();
    assert_load_error(&path);
    let header_only = scratch("header-only.gguf");
    std::fs::write(&header_only, &bytes[..4096]).unwrap();
    assert_load_error(&header_only);
}
