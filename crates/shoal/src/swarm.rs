//! `shoal swarm`: tools for the swarm ring's span files.

use std::path::PathBuf;

use clap::{Args, Subcommand};

#[derive(Args)]
pub struct SwarmArgs {
    #[command(subcommand)]
    command: SwarmCommand,
}

#[derive(Subcommand)]
enum SwarmCommand {
    /// Cut layers [a, b) of a GGUF model into a span file for `shoal worker --backend swarm`.
    Slice(SliceArgs),
}

#[derive(Args)]
struct SliceArgs {
    /// The whole model (GGUF).
    #[arg(long, value_name = "FILE")]
    gguf: PathBuf,
    /// The span's layers, a..b (layer a up to, not including, b), counted from 0.
    #[arg(long, value_name = "A..B", value_parser = shoal_worker::swarm::slice::parse_range)]
    layers: std::ops::Range<u32>,
    /// Where to write the span file.
    #[arg(long, value_name = "FILE")]
    out: PathBuf,
}

pub async fn run(args: SwarmArgs) -> anyhow::Result<()> {
    match args.command {
        SwarmCommand::Slice(a) => {
            let out = a.out.clone();
            let span = tokio::task::spawn_blocking(move || {
                shoal_worker::swarm::slice::slice(&a.gguf, a.layers, &a.out)
            })
            .await??;
            println!(
                "wrote {}: layers {}..{} of {} (model {})",
                out.display(),
                span.start,
                span.end,
                span.total,
                &span.fingerprint[..16]
            );
            Ok(())
        }
    }
}
