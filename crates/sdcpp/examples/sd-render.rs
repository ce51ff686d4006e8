//! Renders one image with the embedded engine and writes the PNG: bench/sd's side of the
//! comparison with stable-diffusion.cpp's CLI (same flags as the CLI's, where they exist).
//!
//!     sd-render -m MODEL -o OUT.png [-t THREADS] [--steps N] [-W W] [-H H] [-s SEED]
//!               [--cfg-scale CFG] [-p PROMPT] [-n NEGATIVE]
//!
//! Prints one line: `load_s=… render_s=… steps=N step_s=…` (step_s: the mean time between
//! progress reports, steps 1 → N).

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::AtomicBool;
use std::time::Instant;

use shoal_protocol::worker::ImageJobRequest;
use shoal_sdcpp::Engine;

struct Args {
    model: PathBuf,
    out: PathBuf,
    threads: usize,
    req: ImageJobRequest,
}

fn parse() -> Result<Args, String> {
    let mut model = None;
    let mut out = None;
    let mut threads = 0;
    let mut req = ImageJobRequest {
        prompt: "a lighthouse on a cliff at dusk, oil painting".into(),
        negative_prompt: String::new(),
        width: 512,
        height: 512,
        steps: 10,
        cfg: 4.0,
        seed: 42,
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let v = it.next().ok_or(format!("{flag} needs a value"))?;
        match flag.as_str() {
            "-m" | "--model" => model = Some(PathBuf::from(v)),
            "-o" | "--output" => out = Some(PathBuf::from(v)),
            "-t" | "--threads" => threads = v.parse().map_err(|_| format!("{flag}: bad value"))?,
            "--steps" => req.steps = v.parse().map_err(|_| format!("{flag}: bad value"))?,
            "-W" | "--width" => req.width = v.parse().map_err(|_| format!("{flag}: bad value"))?,
            "-H" | "--height" => {
                req.height = v.parse().map_err(|_| format!("{flag}: bad value"))?
            }
            "-s" | "--seed" => req.seed = v.parse().map_err(|_| format!("{flag}: bad value"))?,
            "--cfg-scale" => req.cfg = v.parse().map_err(|_| format!("{flag}: bad value"))?,
            "-p" | "--prompt" => req.prompt = v,
            "-n" | "--negative-prompt" => req.negative_prompt = v,
            _ => return Err(format!("unknown flag {flag}")),
        }
    }
    Ok(Args {
        model: model.ok_or("-m MODEL is required")?,
        out: out.ok_or("-o OUT.png is required")?,
        threads,
        req,
    })
}

fn main() -> ExitCode {
    let args = match parse() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("sd-render: {e}");
            return ExitCode::from(2);
        }
    };
    let started = Instant::now();
    let engine = match Engine::load(&args.model, args.threads) {
        Ok(e) => e,
        Err(e) => {
            eprintln!("sd-render: {e}");
            return ExitCode::FAILURE;
        }
    };
    let load_s = started.elapsed().as_secs_f64();
    let mut marks = Vec::new();
    let render_start = Instant::now();
    let result = engine.generate(
        &args.req,
        &mut |_, _| marks.push(Instant::now()),
        &AtomicBool::new(false),
    );
    let render_s = render_start.elapsed().as_secs_f64();
    let png = match result {
        Ok(png) => png,
        Err(e) => {
            eprintln!("sd-render: {e}");
            return ExitCode::FAILURE;
        }
    };
    if let Err(e) = std::fs::write(&args.out, png) {
        eprintln!("sd-render: {}: {e}", args.out.display());
        return ExitCode::FAILURE;
    }
    let step_s = match (marks.first(), marks.last()) {
        (Some(a), Some(b)) if marks.len() > 1 => (*b - *a).as_secs_f64() / (marks.len() - 1) as f64,
        _ => f64::NAN,
    };
    println!(
        "load_s={load_s:.3} render_s={render_s:.3} steps={} step_s={step_s:.4}",
        marks.len()
    );
    ExitCode::SUCCESS
}
