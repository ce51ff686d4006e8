//! The Shoal worker agent: `shoal worker`.
//!
//! A worker dials out to a gateway (so it may sit behind NAT), announces the models it serves
//! and how many jobs it runs at once, and then runs the jobs the gateway pushes on a
//! [`Backend`]: an OpenAI-compatible server it fronts (vLLM, SGLang, llama-server, Ollama),
//! or a GGUF model run in-process by llama.cpp (the `llama` feature, on by default). It speaks the worker protocol of `docs/worker-protocol.md`
//! ([`shoal_protocol::worker`]), redials with backoff when the gateway goes away, and on
//! SIGTERM/SIGINT finishes its running jobs before it exits.
//!
//! Privacy: a job's messages and the generated text pass through memory only. Logs carry job
//! ids, model ids, token counts and durations, never content, tool arguments or an upstream's
//! error body.
//!
//! Modules: [`connection`] (the gateway session and redial), [`backend`] (the trait a backend
//! implements), [`openai`] (the OpenAI-compatible backend), `llama` (the embedded llama.cpp
//! backend), [`swarm`] (span files and `--backend swarm`), [`sse`] (the event-stream parser),
//! [`serve`] (`--serve` values).

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context;
use tokio_util::sync::CancellationToken;

pub mod backend;
pub mod connection;
#[cfg(feature = "llama")]
pub mod llama;
/// Without llama.cpp: only the chat template, the output parser, the tool grammar and the
/// test model (`llama/chat.rs` declares them from the same files).
#[cfg(all(feature = "chat", not(feature = "llama")))]
#[path = "llama/chat.rs"]
pub mod llama;
pub mod openai;
pub mod serve;
pub mod sse;
pub mod swarm;

pub use backend::{Backend, ChatBackend, ImageBackend, ImageJob, JobEnd, JobOutput, SpanBackend};
pub use serve::ServeSpec;

/// Where generation happens.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum BackendKind {
    /// Forward jobs to an OpenAI-compatible server's /chat/completions (--upstream).
    Openai,
    /// Run a GGUF model in-process with llama.cpp (--gguf).
    #[cfg(feature = "llama")]
    Llama,
    /// Run one span of a model too large for one machine (--gguf SPAN, cut by `shoal swarm
    /// slice`) as a node of the gateway's swarm ring.
    #[cfg(feature = "llama")]
    Swarm,
}

/// `shoal worker`: serve models to a gateway.
#[derive(Clone, clap::Args)]
#[command(after_long_help = SERVE_HELP)]
pub struct WorkerArgs {
    #[command(flatten)]
    pub gateway: Gateways,

    /// Worker token (`shoal admin worker-token create`), sent as `Authorization: Bearer`.
    #[arg(
        long,
        env = "SHOAL_WORKER_TOKEN",
        value_name = "TOKEN",
        hide_env_values = true
    )]
    pub token: String,

    /// Where generation happens.
    #[arg(long, env = "SHOAL_WORKER_BACKEND", value_enum, default_value_t = BackendKind::Openai)]
    pub backend: BackendKind,

    /// Base URL of the OpenAI-compatible server (e.g. http://127.0.0.1:8000/v1); jobs go to
    /// {URL}/chat/completions. Required with --backend openai.
    #[arg(long, env = "SHOAL_WORKER_UPSTREAM", value_name = "URL")]
    pub upstream: Option<String>,

    /// API key for the upstream, sent as `Authorization: Bearer`.
    #[arg(
        long,
        env = "SHOAL_WORKER_UPSTREAM_KEY",
        value_name = "KEY",
        hide_env_values = true
    )]
    pub upstream_key: Option<String>,

    /// A model to serve: MODEL_ID[=UPSTREAM_MODEL][,OPTION...]; repeat for more (in the
    /// environment: separated by spaces). See "Serving models" in --help.
    #[arg(
        long = "serve",
        env = "SHOAL_WORKER_SERVE",
        value_name = "MODEL",
        required = true,
        value_delimiter = ' '
    )]
    pub serve: Vec<ServeSpec>,

    /// How many jobs to run at once. With --backend llama, each is a sequence of one shared
    /// context, decoded in the same batches, with a KV cache of --ctx tokens that it keeps
    /// for the next job sharing its prefix; see --ctx for its size.
    #[arg(long, env = "SHOAL_WORKER_CONCURRENCY", default_value_t = 4,
          value_parser = clap::value_parser!(u32).range(1..))]
    pub concurrency: u32,

    /// A name for this worker in the gateway's logs.
    #[arg(long, env = "SHOAL_WORKER_NAME")]
    pub name: Option<String>,

    /// After SIGTERM/SIGINT, seconds that running jobs get to finish before they are handed
    /// back.
    #[arg(
        long,
        env = "SHOAL_WORKER_SHUTDOWN_GRACE",
        value_name = "SECONDS",
        default_value_t = 30
    )]
    pub shutdown_grace: u64,

    /// Seconds to wait for the upstream's answer, and then for each piece of its stream,
    /// before a job is given up.
    #[arg(
        long,
        env = "SHOAL_WORKER_UPSTREAM_TIMEOUT",
        value_name = "SECONDS",
        default_value_t = 300,
        value_parser = clap::value_parser!(u64).range(1..)
    )]
    pub upstream_timeout: u64,

    /// The GGUF model file to run (--backend llama). Every --serve id is served by it.
    #[arg(long, env = "SHOAL_WORKER_GGUF", value_name = "FILE")]
    pub gguf: Option<std::path::PathBuf>,

    /// A multimodal projector GGUF (the model's `mmproj-*.gguf`) for image input (--backend
    /// llama). With one, every --serve id announces vision; without, none does.
    #[arg(long, env = "SHOAL_WORKER_MMPROJ", value_name = "FILE")]
    pub mmproj: Option<std::path::PathBuf>,

    /// Context length in tokens of each slot (--backend llama; default: the model's, at most
    /// 8192). Each slot's KV cache takes layers × 2 × KV width × 2 bytes per token (f16), e.g.
    /// 22.5 KiB a token, 180 MiB at 8192, for SmolLM2-135M; the total is that times
    /// --concurrency, and the worker logs it at start (`kv_mib_per_slot`).
    #[arg(long, env = "SHOAL_WORKER_CTX", value_name = "N",
          value_parser = clap::value_parser!(u32).range(64..))]
    pub ctx: Option<u32>,

    /// CPU threads of the llama engine (--backend llama; default: all cores).
    #[arg(long, env = "SHOAL_WORKER_THREADS", value_name = "N",
          value_parser = clap::value_parser!(u32).range(1..))]
    pub threads: Option<u32>,

    /// Number type of the hidden states a span node sends on (--backend swarm): f32 (exact:
    /// the ring equals the whole model) or f16 (half the bytes per hop; each hop rounds).
    #[arg(long, env = "SHOAL_WORKER_FRAME_DTYPE", value_name = "TYPE", default_value = "f32",
          value_parser = ["f32", "f16"])]
    pub frame_dtype: String,
}

const SERVE_HELP: &str = "\
Serving models:
  --serve MODEL_ID[=UPSTREAM_MODEL][,OPTION...]

  MODEL_ID is the gateway catalog's id; UPSTREAM_MODEL is the upstream's name for the model
  (default: MODEL_ID). OPTIONs say what the model can do:
    tools | no-tools          tool calling (default: tools)
    vision | no-vision        image input (default: no-vision; with --backend llama it is on
                              exactly when --mmproj is given)
    reasoning | no-reasoning  returns reasoning_content (default: reasoning when MODEL_ID
                              ends with -think)
    structured-outputs | no-structured-outputs
                              the upstream enforces response_format json_object/json_schema
                              and strict tools (default: structured-outputs; --backend llama
                              always enforces them by grammar, --backend swarm never does)
    context=N                 context length in tokens

  Examples:
    --serve small-8b=Qwen/Qwen3-8B
    --serve large-27b=gemma3:27b,vision,context=131072
    --serve small-8b-think=qwen3:8b,no-tools";

/// The gateway's WebSocket URL for a base URL: http → ws, https → wss, plus
/// `/api/worker/ws` (kept when already there).
pub fn gateway_ws_url(gateway: &str) -> anyhow::Result<String> {
    let mut url = reqwest::Url::parse(gateway.trim())
        .with_context(|| format!("--gateway {gateway:?} is not a URL"))?;
    let scheme = match url.scheme() {
        "http" | "ws" => "ws",
        "https" | "wss" => "wss",
        other => anyhow::bail!("--gateway must be an http(s):// URL, not {other}://"),
    };
    url.set_scheme(scheme)
        .map_err(|_| anyhow::anyhow!("--gateway {gateway:?} cannot be turned into {scheme}://"))?;
    let path = url.path().trim_end_matches('/').to_owned();
    if !path.ends_with("/api/worker/ws") {
        url.set_path(&format!("{path}/api/worker/ws"));
    }
    // Credentials travel as the Bearer token only; none of these belong in a logged URL.
    url.set_query(None);
    url.set_fragment(None);
    let _ = url.set_username("");
    let _ = url.set_password(None);
    Ok(url.into())
}

/// `--gateway`, as `shoal worker` and `shoal-image-worker` take it.
#[derive(Debug, Clone, clap::Args)]
pub struct Gateways {
    /// The gateway's base URL, http(s)://host:port; the worker connects to
    /// ws(s)://host:port/api/worker/ws. Several (repeated, or comma-separated): the worker
    /// serves one at a time and moves to the next when it cannot reach it or loses it.
    #[arg(
        long = "gateway",
        env = "SHOAL_GATEWAY",
        value_name = "URL",
        value_delimiter = ',',
        required = true
    )]
    pub urls: Vec<String>,
}

impl Gateways {
    /// [`gateway_ws_url`] of each, in order.
    pub fn ws_urls(&self) -> anyhow::Result<Vec<String>> {
        anyhow::ensure!(!self.urls.is_empty(), "--gateway is required");
        self.urls.iter().map(|g| gateway_ws_url(g)).collect()
    }
}

/// Runs the worker until SIGTERM or SIGINT (then drains and returns `Ok`), or until the
/// gateway refuses it or rejects its token (`Err`).
pub async fn run(args: WorkerArgs) -> anyhow::Result<()> {
    run_until(args, shutdown_signal()).await
}

/// [`run`], with the shutdown trigger given: when `shutdown` completes, the worker takes no
/// new jobs, lets running ones finish (up to `--shutdown-grace`), closes and returns.
pub async fn run_until(
    args: WorkerArgs,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> anyhow::Result<()> {
    let settings = connection::Settings {
        urls: args.gateway.ws_urls()?,
        token: args.token.clone(),
        name: args.name.clone(),
        concurrency: args.concurrency,
        grace: Duration::from_secs(args.shutdown_grace),
        backoff: (Duration::from_millis(500), Duration::from_secs(30)),
    };
    let mut ids = std::collections::HashSet::new();
    if let Some(dup) = args.serve.iter().find(|s| !ids.insert(&s.model.id)) {
        anyhow::bail!("--serve names {} twice", dup.model.id);
    }
    let models = ids.len();
    let backend = load_backend(args).await?;
    let token = CancellationToken::new();
    let trigger = token.clone();
    let watcher = tokio::spawn(async move {
        shutdown.await;
        trigger.cancel();
    });
    let runtime_threads = tokio::runtime::Handle::current().metrics().num_workers();
    tracing::info!(
        models,
        concurrency = settings.concurrency,
        runtime_threads,
        "shoal worker started"
    );
    let served = connection::serve(settings, backend.clone(), token).await;
    watcher.abort();
    let _ = tokio::task::spawn_blocking(move || backend.settle()).await;
    served
}

/// The backend `--backend` names, ready: a model loaded (on a blocking thread) where there
/// is one.
async fn load_backend(args: WorkerArgs) -> anyhow::Result<Backend> {
    Ok(match args.backend {
        BackendKind::Openai => {
            let upstream = args
                .upstream
                .context("--upstream is required with --backend openai")?;
            Backend::Chat(Arc::new(openai::OpenAiBackend::new(
                &upstream,
                args.upstream_key,
                args.serve,
                Duration::from_secs(args.upstream_timeout),
            )?))
        }
        #[cfg(feature = "llama")]
        BackendKind::Llama => {
            let gguf = args
                .gguf
                .context("--gguf is required with --backend llama")?;
            let options = llama::LlamaOptions {
                gguf,
                mmproj: args.mmproj,
                ctx: args.ctx,
                threads: args.threads,
                concurrency: args.concurrency,
                progress: std::io::IsTerminal::is_terminal(&std::io::stderr()),
            };
            let serve = args.serve;
            let backend =
                tokio::task::spawn_blocking(move || llama::LlamaCppBackend::load(&options, serve))
                    .await
                    .context("loading the model")??;
            Backend::Chat(Arc::new(backend))
        }
        #[cfg(feature = "llama")]
        BackendKind::Swarm => {
            let gguf = args
                .gguf
                .context("--gguf (a span file) is required with --backend swarm")?;
            let options = swarm::node::SwarmOptions {
                gguf,
                ctx: args.ctx,
                threads: args.threads,
                concurrency: args.concurrency,
                half_frames: args.frame_dtype == "f16",
            };
            let serve = args.serve;
            let backend = tokio::task::spawn_blocking(move || {
                swarm::node::SwarmBackend::load(&options, serve)
            })
            .await
            .context("loading the span")??;
            Backend::Span(Arc::new(backend))
        }
    })
}

/// Completes on the first SIGTERM or SIGINT.
pub async fn shutdown_signal() {
    let interrupt = async {
        if tokio::signal::ctrl_c().await.is_err() {
            std::future::pending::<()>().await;
        }
    };
    #[cfg(unix)]
    let terminate = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut signal) => {
                signal.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let terminate = std::future::pending::<()>();
    tokio::select! {
        _ = interrupt => tracing::info!("SIGINT received"),
        _ = terminate => tracing::info!("SIGTERM received"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Parser)]
    struct Cli {
        #[command(flatten)]
        args: WorkerArgs,
    }

    #[test]
    fn gateway_urls() {
        for (given, want) in [
            ("http://127.0.0.1:8080", "ws://127.0.0.1:8080/api/worker/ws"),
            (
                "http://127.0.0.1:8080/",
                "ws://127.0.0.1:8080/api/worker/ws",
            ),
            ("https://shoal.example", "wss://shoal.example/api/worker/ws"),
            (
                "https://example.org/shoal/",
                "wss://example.org/shoal/api/worker/ws",
            ),
            ("ws://h:1/api/worker/ws", "ws://h:1/api/worker/ws"),
            ("http://u:p@h:1/?token=x#y", "ws://h:1/api/worker/ws"),
        ] {
            assert_eq!(gateway_ws_url(given).unwrap(), want, "{given}");
        }
        assert!(gateway_ws_url("ftp://h").is_err());
        assert!(gateway_ws_url("h:80").is_err());
    }

    #[test]
    fn flags() {
        let cli = Cli::try_parse_from([
            "worker",
            "--gateway",
            "http://g:1",
            "--token",
            "shoal-wt-x",
            "--backend",
            "openai",
            "--upstream",
            "http://u/v1",
            "--serve",
            "small-8b=Qwen/Qwen3-8B",
            "--serve",
            "large-27b=gemma3:27b,vision",
            "--concurrency",
            "2",
        ])
        .unwrap();
        let args = cli.args;
        assert_eq!(args.gateway.urls, ["http://g:1"]);
        assert_eq!(args.serve.len(), 2);
        assert_eq!(args.serve[1].upstream_model, "gemma3:27b");
        assert!(args.serve[1].model.vision);
        assert_eq!(args.concurrency, 2);
        assert_eq!(args.backend, BackendKind::Openai);
        assert_eq!(args.shutdown_grace, 30);
    }

    #[test]
    fn several_gateways_repeated_or_comma_separated() {
        let parse = |argv: &[&str]| {
            let base = [
                "worker",
                "--token",
                "t",
                "--upstream",
                "http://u",
                "--serve",
                "m",
            ];
            let argv = base.iter().chain(argv).copied();
            Cli::try_parse_from(argv).map(|c| c.args.gateway.urls)
        };
        let want = ["http://a:1", "http://b:2"];
        assert_eq!(
            parse(&["--gateway", "http://a:1", "--gateway", "http://b:2"]).unwrap(),
            want
        );
        assert_eq!(
            parse(&["--gateway", "http://a:1,http://b:2"]).unwrap(),
            want
        );
        assert!(parse(&[]).is_err(), "--gateway is required");
        let ws = |urls: &[&str]| {
            let urls = urls.iter().map(|u| u.to_string()).collect();
            Gateways { urls }.ws_urls()
        };
        assert_eq!(
            ws(&want).unwrap(),
            ["ws://a:1/api/worker/ws", "ws://b:2/api/worker/ws"]
        );
        assert!(ws(&["http://a:1", "ftp://b"]).is_err());
    }

    #[test]
    fn bad_flags_are_refused() {
        let base = ["worker", "--gateway", "http://g:1", "--token", "t"];
        let with =
            |extra: &[&str]| Cli::try_parse_from(base.iter().chain(extra.iter()).copied()).is_ok();
        assert!(with(&["--upstream", "http://u", "--serve", "m"]));
        assert!(!with(&["--upstream", "http://u"]), "--serve is required");
        assert!(!with(&["--upstream", "http://u", "--serve", "m,bogus"]));
        assert!(!with(&[
            "--upstream",
            "http://u",
            "--serve",
            "m",
            "--concurrency",
            "0"
        ]));
    }

    #[tokio::test]
    async fn openai_backend_needs_an_upstream() {
        let cli = Cli::try_parse_from([
            "worker",
            "--gateway",
            "http://127.0.0.1:9",
            "--token",
            "t",
            "--serve",
            "m",
        ])
        .unwrap();
        let err = run_until(cli.args, std::future::pending())
            .await
            .unwrap_err();
        assert!(err.to_string().contains("--upstream"), "{err}");
    }

    #[test]
    fn long_help_documents_the_serve_syntax() {
        use clap::CommandFactory;
        let help = Cli::command().render_long_help().to_string();
        println!("{help}");
        for needle in [
            "MODEL_ID[=UPSTREAM_MODEL][,OPTION...]",
            "no-tools",
            "context=N",
            "SHOAL_WORKER_SERVE",
        ] {
            assert!(help.contains(needle), "{needle} missing from --help");
        }
    }
}
