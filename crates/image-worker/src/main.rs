//! `shoal-image-worker`: an image worker for a Shoal gateway.
//!
//! It dials out to the gateway like `shoal worker` (the same connection code, from
//! `shoal-worker`: hello, heartbeats, redial with backoff, SIGTERM drain), announces
//! `kind: image` and one image model id, and renders the image jobs it is pushed on a
//! backend: an A1111-compatible server it fronts (`--backend a1111`), or stable-diffusion.cpp
//! in-process (`--backend embedded`, the `sd` feature). It is its own binary because
//! stable-diffusion.cpp and llama.cpp each vendor a ggml, and the two clash at link time.
//!
//! Privacy: prompts and images pass through memory only; logs carry job ids, sizes, step
//! counts and durations.

mod a1111;
#[cfg(feature = "sd")]
mod embedded;
mod screen;

use std::sync::Arc;
use std::time::Duration;

use anyhow::Context;
use clap::Parser;
use shoal_worker::{connection, Backend, Gateways, ImageBackend};
use tokio_util::sync::CancellationToken;

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum BackendKind {
    /// Forward jobs to an A1111-compatible server's /sdapi/v1/txt2img (--a1111-url).
    A1111,
    /// Render in-process with stable-diffusion.cpp (--sd-model).
    #[cfg(feature = "sd")]
    Embedded,
}

/// Renders images for a Shoal gateway.
#[derive(Debug, Parser)]
#[command(name = "shoal-image-worker", version)]
struct Args {
    #[command(flatten)]
    gateway: Gateways,

    /// Worker token (`shoal admin worker-token create`).
    #[arg(
        long,
        env = "SHOAL_WORKER_TOKEN",
        value_name = "TOKEN",
        hide_env_values = true
    )]
    token: String,

    /// Where images are rendered.
    #[arg(long, env = "SHOAL_IMAGE_BACKEND", value_enum, default_value_t = BackendKind::A1111)]
    backend: BackendKind,

    /// Base URL of the A1111-compatible server (AUTOMATIC1111, Forge, SD.Next, KoboldCpp,
    /// sd-server), e.g. http://127.0.0.1:7860. Required with --backend a1111.
    #[arg(long, env = "SHOAL_A1111_URL", value_name = "URL")]
    a1111_url: Option<String>,

    /// The image model's name, announced to the gateway and reported with every image.
    #[arg(
        long,
        env = "SHOAL_IMAGE_MODEL",
        value_name = "ID",
        default_value = "stable-diffusion"
    )]
    model: String,

    /// The checkpoint stable-diffusion.cpp loads (--backend embedded).
    #[cfg_attr(not(feature = "sd"), allow(dead_code))]
    #[arg(long, env = "SHOAL_SD_MODEL", value_name = "FILE")]
    sd_model: Option<std::path::PathBuf>,

    /// CPU threads for the embedded engine (default: all cores).
    #[cfg_attr(not(feature = "sd"), allow(dead_code))]
    #[arg(long, env = "SHOAL_IMAGE_THREADS", value_name = "N")]
    threads: Option<usize>,

    /// How many images to render at once.
    #[arg(long, env = "SHOAL_IMAGE_CONCURRENCY", default_value_t = 1,
          value_parser = clap::value_parser!(u32).range(1..))]
    concurrency: u32,

    /// The checkpoint's CLIP text encoder (an SD 1.x checkpoint or a diffusers
    /// `text_encoder` safetensors file): with --prompt-concepts, every prompt is compared with
    /// the policy's concepts before rendering and refused when near one.
    #[arg(
        long,
        env = "SHOAL_PROMPT_ENCODER",
        value_name = "FILE",
        requires = "prompt_concepts"
    )]
    prompt_encoder: Option<std::path::PathBuf>,

    /// The concept file of the prompt check (JSON: named phrase sets with thresholds).
    #[arg(
        long,
        env = "SHOAL_PROMPT_CONCEPTS",
        value_name = "FILE",
        requires = "prompt_encoder"
    )]
    prompt_concepts: Option<std::path::PathBuf>,

    /// A name for this worker in the gateway's logs.
    #[arg(long, env = "SHOAL_WORKER_NAME")]
    name: Option<String>,

    /// Seconds one render may take on the A1111 server before it is given up.
    #[arg(long, env = "SHOAL_IMAGE_TIMEOUT", value_name = "SECONDS", default_value_t = 600,
          value_parser = clap::value_parser!(u64).range(1..))]
    timeout: u64,

    /// After SIGTERM/SIGINT, seconds that running renders get to finish.
    #[arg(
        long,
        env = "SHOAL_WORKER_SHUTDOWN_GRACE",
        value_name = "SECONDS",
        default_value_t = 60
    )]
    shutdown_grace: u64,
}

fn main() -> anyhow::Result<()> {
    let args = Args::parse();
    init_logging();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .context("starting the runtime")?;
    runtime.block_on(run(args))
}

/// Logs go to stderr; `SHOAL_LOG` filters them. The socket library never logs above DEBUG:
/// at TRACE it prints whole frames, which carry prompts and images.
fn init_logging() {
    let mut filter = tracing_subscriber::EnvFilter::try_from_env("SHOAL_LOG")
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    for directive in ["tungstenite=debug", "tokio_tungstenite=debug", "hyper=info"] {
        filter = filter.add_directive(directive.parse().expect("static directive"));
    }
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .init();
}

async fn run(args: Args) -> anyhow::Result<()> {
    let settings = connection::Settings {
        urls: args.gateway.ws_urls()?,
        token: args.token.clone(),
        name: args.name.clone(),
        concurrency: args.concurrency,
        grace: Duration::from_secs(args.shutdown_grace),
        backoff: (Duration::from_millis(500), Duration::from_secs(30)),
    };
    let backend = backend(&args).await?;
    let shutdown = CancellationToken::new();
    let trigger = shutdown.clone();
    let watcher = tokio::spawn(async move {
        shoal_worker::shutdown_signal().await;
        trigger.cancel();
    });
    tracing::info!(model = %args.model, backend = ?args.backend, concurrency = args.concurrency, "shoal image worker started");
    let served = connection::serve(settings, backend, shutdown).await;
    watcher.abort();
    served
}

/// The renderer, behind the prompt check when one is configured.
async fn backend(args: &Args) -> anyhow::Result<Backend> {
    let renderer = renderer(args).await?;
    let (Some(encoder), Some(concepts)) =
        (args.prompt_encoder.clone(), args.prompt_concepts.clone())
    else {
        return Ok(Backend::Image(renderer));
    };
    let screened =
        tokio::task::spawn_blocking(move || screen::Screened::load(renderer, &encoder, &concepts))
            .await
            .context("loading the prompt check")??;
    tracing::info!("prompts are checked against the concept file before rendering");
    Ok(Backend::Image(Arc::new(screened)))
}

async fn renderer(args: &Args) -> anyhow::Result<Arc<dyn ImageBackend>> {
    match args.backend {
        BackendKind::A1111 => {
            let url = args
                .a1111_url
                .as_deref()
                .context("--a1111-url is required with --backend a1111")?;
            let timeout = Duration::from_secs(args.timeout);
            Ok(Arc::new(a1111::A1111Backend::new(
                url,
                &args.model,
                timeout,
            )?))
        }
        #[cfg(feature = "sd")]
        BackendKind::Embedded => {
            let path = args
                .sd_model
                .clone()
                .context("--sd-model is required with --backend embedded")?;
            let threads = args
                .threads
                .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
            let model = args.model.clone();
            let backend = tokio::task::spawn_blocking(move || {
                embedded::EmbeddedBackend::load(&path, threads, model)
            })
            .await
            .context("loading the image model")??;
            Ok(Arc::new(backend))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flags() {
        let args = Args::try_parse_from([
            "shoal-image-worker",
            "--gateway",
            "http://127.0.0.1:8080",
            "--token",
            "shoal-wt-x",
            "--a1111-url",
            "http://127.0.0.1:7860",
            "--model",
            "sdxl",
        ])
        .unwrap();
        assert_eq!(args.backend, BackendKind::A1111);
        assert_eq!((args.concurrency, args.model.as_str()), (1, "sdxl"));
        assert!(Args::try_parse_from(["shoal-image-worker", "--gateway", "g"]).is_err());
    }
}
