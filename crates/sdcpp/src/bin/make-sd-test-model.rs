//! Writes the random-weight SD1-shaped test checkpoint (see `shoal_sdcpp::test_model`).
//!
//!     make-sd-test-model OUT.gguf [--unet-channels N] [--vae-channels N]

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use shoal_sdcpp::test_model::TinyModel;

fn main() -> ExitCode {
    match run(std::env::args().skip(1).collect()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("make-sd-test-model: {e}");
            eprintln!("usage: make-sd-test-model OUT.gguf [--unet-channels N] [--vae-channels N]");
            ExitCode::from(2)
        }
    }
}

fn run(args: Vec<String>) -> Result<(), String> {
    let mut model = TinyModel::default();
    let mut out: Option<PathBuf> = None;
    let mut args = args.into_iter();
    while let Some(arg) = args.next() {
        let mut width = |name: &str| -> Result<usize, String> {
            let v = args.next().ok_or(format!("{name} needs a value"))?;
            v.parse::<usize>()
                .ok()
                .filter(|n| *n > 0 && n.is_multiple_of(32))
                .ok_or(format!("{name}: a positive multiple of 32"))
        };
        match arg.as_str() {
            "--unet-channels" => model.unet_channels = width("--unet-channels")?,
            "--vae-channels" => model.vae_channels = width("--vae-channels")?,
            _ if arg.starts_with('-') => return Err(format!("unknown option {arg}")),
            _ if out.is_none() => out = Some(PathBuf::from(arg)),
            _ => return Err("one output path".into()),
        }
    }
    let out = out.ok_or("an output path is required")?;
    let started = Instant::now();
    let size = model
        .write(&out)
        .map_err(|e| format!("{}: {e}", out.display()))?;
    eprintln!(
        "wrote {} ({:.1} MB) in {:.2}s",
        out.display(),
        size as f64 / 1e6,
        started.elapsed().as_secs_f64()
    );
    Ok(())
}
