//! The `shoal` binary: command-line wiring only. `serve` runs the gateway, `worker` runs a
//! worker that dials in to one, `admin` changes the store directly (also while a server runs
//! on it). The work lives in the library crates.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Parser, Subcommand, ValueEnum};
use tracing_subscriber::filter::LevelFilter;

mod admin;
mod classifier;
mod deposits;
mod serve;
mod swarm;

#[derive(Parser)]
#[command(
    name = "shoal",
    version,
    about = "Shoal: a self-hostable, OpenAI-compatible inference service"
)]
struct Cli {
    /// Log format on stderr.
    #[arg(long, global = true, env = "SHOAL_LOG_FORMAT", value_enum, default_value_t = LogFormat::Text)]
    log_format: LogFormat,
    /// Threads that run requests and jobs [default: one per CPU but one for serve (at least
    /// one), one per CPU for admin, 1 for worker]. A worker's runtime only relays (its model
    /// server or llama.cpp's own threads generate), and one thread hands nothing between
    /// threads; raise it for a worker that relays tens of thousands of requests a second.
    #[arg(long, global = true, env = "SHOAL_RUNTIME_THREADS", value_name = "N",
          value_parser = clap::value_parser!(u16).range(1..=1024))]
    runtime_threads: Option<u16>,
    #[command(subcommand)]
    command: Command,
}

#[derive(Clone, Copy, ValueEnum)]
enum LogFormat {
    Text,
    Json,
}

#[derive(Subcommand)]
enum Command {
    /// Run the gateway (HTTP API on --listen).
    Serve(serve::ServeArgs),
    /// Administer accounts, keys, credits and worker tokens directly in the store.
    Admin(admin::AdminArgs),
    /// Run a worker: dial out to a gateway and run its jobs on a backend.
    Worker(shoal_worker::WorkerArgs),
    /// The image output classifier's files: a tiny test checker, a checker's concepts,
    /// image embeddings.
    Classifier(classifier::ClassifierArgs),
    /// Swarm span files: cut a model into spans for `worker --backend swarm`.
    Swarm(swarm::SwarmArgs),
}

/// Where the store is: a database URL, or else a data folder holding an SQLite file.
#[derive(Args, Clone)]
pub struct StoreArgs {
    /// Data folder for the embedded SQLite store [default: ./shoal-data].
    #[arg(long, env = "SHOAL_DATA_DIR", global = true)]
    pub data_dir: Option<PathBuf>,
    /// Database URL (postgres://… or sqlite://…); takes precedence over --data-dir.
    #[arg(
        long,
        env = "SHOAL_DATABASE_URL",
        global = true,
        conflicts_with = "data_dir"
    )]
    pub database_url: Option<String>,
}

impl StoreArgs {
    pub async fn open(
        &self,
        file: &shoal_gateway::FileConfig,
    ) -> anyhow::Result<shoal_store::Store> {
        let url = self.database_url.clone().or_else(|| {
            if self.data_dir.is_some() {
                None
            } else {
                file.database_url.clone()
            }
        });
        let store = match url {
            Some(url) => shoal_store::Store::open(&url).await?,
            None => {
                let dir = self
                    .data_dir
                    .clone()
                    .or_else(|| file.data_dir.clone())
                    .unwrap_or_else(|| PathBuf::from(shoal_gateway::DEFAULT_DATA_DIR));
                shoal_store::Store::open_data_dir(&dir).await?
            }
        };
        Ok(store)
    }
}

fn init_logging(format: LogFormat) {
    // The default shows our own info lines; llama.cpp's log is at debug (shoal-worker's
    // `llama::log`), so a demo's banner is not buried under a model's metadata dump.
    let filter = match tracing_subscriber::EnvFilter::try_from_env("SHOAL_LOG") {
        // tungstenite logs whole frames at TRACE, and frames carry prompts and completions: it
        // never gets more than DEBUG, whatever SHOAL_LOG says.
        Ok(mut filter) => {
            // async-nats logs whole messages (prompts) at TRACE and its server's URL
            // (password) at DEBUG: it never gets more than INFO (asked before the directives
            // below raise the filter's most verbose level).
            let verbose = filter
                .max_level_hint()
                .is_none_or(|l| l > LevelFilter::INFO);
            for directive in ["tungstenite=debug", "tokio_tungstenite=debug"] {
                filter = filter.add_directive(directive.parse().expect("static directive"));
            }
            if verbose {
                let cap = "async_nats=info".parse().expect("static directive");
                filter = filter.add_directive(cap);
            }
            filter
        }
        Err(_) => tracing_subscriber::EnvFilter::new("info,sqlx=warn"),
    };
    // Colours only on a terminal: logs sent to a file or a collector stay plain text.
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .with_writer(std::io::stderr);
    match format {
        LogFormat::Text => builder.init(),
        LogFormat::Json => builder.json().init(),
    }
}

/// The gateway's default: one runtime thread per CPU but one, at least one. The spare CPU is
/// for the store's writer thread (SQLite) and whatever shares the machine; on two CPUs the
/// second runtime thread mostly woke up to find nothing to take, and every such wake-up sat
/// in a request's path (bench/HISTORY.md, "one gateway thread by default").
fn serve_threads() -> u16 {
    let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
    cpus.saturating_sub(1).clamp(1, 1024) as u16
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    init_logging(cli.log_format);
    let mut builder = tokio::runtime::Builder::new_multi_thread();
    let threads = cli.runtime_threads.or(match cli.command {
        // One thread relays ~20k requests a second here (bench/HISTORY.md), and without a
        // second one a job's messages never cross threads on their way through.
        Command::Worker(_) => Some(1),
        Command::Serve(_) => Some(serve_threads()),
        Command::Admin(_) | Command::Classifier(_) | Command::Swarm(_) => None,
    });
    if let Some(n) = threads {
        builder.worker_threads(usize::from(n));
    }
    let runtime = match builder.enable_all().build() {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("error: cannot start the async runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    let result = runtime.block_on(async {
        match cli.command {
            Command::Serve(args) => serve::run(args).await,
            Command::Admin(args) => admin::run(args).await,
            Command::Classifier(args) => classifier::run(args).await,
            Command::Swarm(args) => swarm::run(args).await.map(|()| ExitCode::SUCCESS),
            // The worker runs as a task, not in `block_on` itself: a future driven by
            // `block_on` runs on this (main) thread, so its socket reads and every job task
            // they start would be handed across threads. (`serve` only accepts connections
            // there; axum runs each connection as its own task.)
            Command::Worker(args) => tokio::spawn(shoal_worker::run(args))
                .await
                .unwrap_or_else(|_| Err(anyhow::anyhow!("the worker panicked")))
                .map(|()| ExitCode::SUCCESS),
        }
    });
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::FAILURE
        }
    }
}
