//! `shoal serve`: resolve the configuration, open the store, run the gateway until a signal.

use std::io::Write;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;
use shoal_gateway::config::{FileConfig, GatewayConfig};
use shoal_gateway::AppState;

use crate::StoreArgs;

#[derive(Args)]
pub struct ServeArgs {
    /// Address to listen on [default: 127.0.0.1:8080].
    #[arg(long, env = "SHOAL_LISTEN")]
    listen: Option<SocketAddr>,
    /// Configuration file (TOML).
    #[arg(long, env = "SHOAL_CONFIG")]
    config: Option<PathBuf>,
    #[command(flatten)]
    store: StoreArgs,
    #[command(flatten)]
    cluster: ClusterArgs,
    /// Try Shoal on this machine alone: also create a demo account with credits (its key is
    /// printed once) and run an in-process llama.cpp worker serving the catalog's models on a
    /// generated random-weight test model (its text is noise), or on --demo-gguf.
    #[arg(long)]
    demo: bool,
    /// With --demo: a real GGUF model to serve instead of the generated test model.
    #[arg(long, value_name = "FILE", requires = "demo")]
    demo_gguf: Option<PathBuf>,
}

/// What replicas share (docs/deploy.md).
#[derive(Args)]
struct ClusterArgs {
    /// Redis for rate limits shared exactly by every replica (redis://HOST:PORT/DB)
    /// [default: each process limits on its own].
    #[arg(long, env = "SHOAL_REDIS_URL")]
    redis_url: Option<String>,
    /// Prefix of the Redis keys Shoal writes [default: shoal:].
    #[arg(long, env = "SHOAL_REDIS_KEY_PREFIX")]
    redis_key_prefix: Option<String>,
}

pub async fn run(args: ServeArgs) -> anyhow::Result<ExitCode> {
    if args.demo && !cfg!(feature = "llama") {
        anyhow::bail!(
            "--demo runs the embedded llama.cpp worker, which this binary was built without \
             (cargo's `llama` feature, on by default)"
        );
    }
    let mut file = match &args.config {
        Some(path) => FileConfig::load(path)?,
        None => FileConfig::default(),
    };
    if args.listen.is_some() {
        file.listen = args.listen;
    }
    let store = args.store.open(&file).await?;
    let cluster = shoal_cluster::ClusterConfig {
        redis_url: args.cluster.redis_url.or(file.redis_url.take()),
        redis_key_prefix: args
            .cluster
            .redis_key_prefix
            .or(file.redis_key_prefix.take()),
    };
    let limiter = cluster.rate_limiter().await?;
    let config = GatewayConfig::from_file(file)?;
    let listener = tokio::net::TcpListener::bind(config.listen)
        .await
        .map_err(|e| anyhow::anyhow!("cannot listen on {}: {e}", config.listen))?;
    let addr = listener.local_addr()?;
    let runtime_threads = tokio::runtime::Handle::current().metrics().num_workers();
    tracing::info!(%addr, backend = store.backend(), models = config.catalog.entries().len(), runtime_threads, "shoal gateway started");
    // One line on stdout that scripts (and the tests) wait for: the server is accepting.
    println!("listening on http://{addr}");
    std::io::stdout().flush()?;

    let demo = if args.demo {
        let models: Vec<String> = config
            .catalog
            .entries()
            .iter()
            .filter(|m| m.alias_of.is_none())
            .map(|m| m.id.clone())
            .collect();
        Some(start_demo(&store, addr, &args.store, args.demo_gguf, models).await?)
    } else {
        None
    };

    let state = AppState::with_limiter(config, store.clone(), limiter);
    shoal_gateway::serve(listener, state, shutdown_signal()).await?;
    if let Some(worker) = demo {
        worker.abort();
    }
    store.close().await;
    tracing::info!("shoal gateway stopped");
    Ok(ExitCode::SUCCESS)
}

/// Resolves on SIGINT or SIGTERM.
async fn shutdown_signal() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let term = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let term = std::future::pending::<()>();
    tokio::select! {
        _ = ctrl_c => {}
        _ = term => {}
    }
    tracing::info!("shutdown signal received; finishing in-flight requests");
}

/// `--demo`: a demo account and key, and an in-process llama worker on the test model.
async fn start_demo(
    store: &shoal_store::Store,
    addr: SocketAddr,
    store_args: &StoreArgs,
    gguf: Option<PathBuf>,
    models: Vec<String>,
) -> anyhow::Result<tokio::task::JoinHandle<()>> {
    let now = shoal_gateway::now_ms();
    let email = format!("demo-{now}@shoal.local");
    let account = store.create_account(&email, now).await?;
    store.grant_credits(account, 1000, now).await?;
    let key = store
        .create_api_key(account, Some("demo"), None, now)
        .await?;
    let token = store.create_worker_token("demo-worker", now).await?;

    let (gguf, generated) = match gguf {
        Some(path) => (path, false),
        None => (demo_model(store_args)?, true),
    };
    let mut argv = vec![
        "worker".to_owned(),
        "--gateway".into(),
        format!("http://{addr}"),
        "--token".into(),
        token.token,
        "--backend".into(),
        "llama".into(),
        "--gguf".into(),
        gguf.display().to_string(),
        "--concurrency".into(),
        "2".into(),
        "--name".into(),
        "demo-worker".into(),
    ];
    for m in &models {
        argv.push("--serve".into());
        argv.push(m.clone());
    }
    let args = <DemoWorker as clap::Parser>::try_parse_from(argv)?.args;
    let worker = tokio::spawn(async move {
        if let Err(e) = shoal_worker::run_until(args, std::future::pending()).await {
            tracing::error!(error = %e, "demo worker stopped");
            eprintln!("demo worker stopped: {e:#}");
        }
    });

    let base = format!("http://{addr}/api/v1");
    eprintln!(
        "\n=== shoal demo ===\n\
         demo account {email}: 1000 credits. API key (shown once, keep it):\n\n    {key}\n\n\
         Try:\n    curl {base}/chat/completions -H 'Authorization: Bearer {key}' \\\n      \
         -H 'Content-Type: application/json' \\\n      \
         -d '{{\"model\":\"{model}\",\"messages\":[{{\"role\":\"user\",\"content\":\"Hello\"}}]}}'\n",
        key = key.key,
        model = models.first().map(String::as_str).unwrap_or("large-27b-uncensored"),
    );
    if generated {
        eprintln!(
            "NOTE: the demo model ({}) has random weights: its answers are noise. Loading,\n\
             templating, sampling, streaming, token counting and billing are all real.\n\
             To serve a real model: `shoal serve --demo --demo-gguf MODEL.gguf`, or run\n\
             `shoal worker --backend llama --gguf MODEL.gguf …` (or `--backend openai\n\
             --upstream URL` in front of vLLM / Ollama) against a normal `shoal serve`.\n",
            gguf.display()
        );
    }
    Ok(worker)
}

#[derive(clap::Parser)]
struct DemoWorker {
    #[command(flatten)]
    args: shoal_worker::WorkerArgs,
}

/// The generated test model in the data folder, written by `scripts/make-test-model` on first
/// use (Python with the `gguf` and `numpy` packages; the repository's `.venv` has them).
fn demo_model(store_args: &StoreArgs) -> anyhow::Result<PathBuf> {
    let dir = store_args
        .data_dir
        .clone()
        .unwrap_or_else(|| PathBuf::from(shoal_gateway::config::DEFAULT_DATA_DIR));
    std::fs::create_dir_all(&dir)?;
    let path = dir.join("demo-test-model.gguf");
    if path.is_file() {
        return Ok(path);
    }
    let script = ["scripts/make-test-model", "../scripts/make-test-model"]
        .iter()
        .map(PathBuf::from)
        .find(|p| p.is_file())
        .or_else(|| {
            let exe = std::env::current_exe().ok()?;
            exe.ancestors()
                .map(|a| a.join("scripts/make-test-model"))
                .find(|p| p.is_file())
        })
        .ok_or_else(|| {
            anyhow::anyhow!(
                "--demo generates its test model with scripts/make-test-model: run it from the \
                 Shoal repository, or pass --demo-gguf FILE"
            )
        })?;
    let root = script
        .parent()
        .and_then(|p| p.parent())
        .map(PathBuf::from)
        .unwrap_or_default();
    let python = [root.join(".venv/bin/python"), PathBuf::from("python3")]
        .into_iter()
        .find(|p| p.is_file() || p.as_os_str() == "python3")
        .unwrap_or_else(|| PathBuf::from("python3"));
    eprintln!("writing the demo test model to {} …", path.display());
    let status = std::process::Command::new(&python)
        .arg(&script)
        .arg(&path)
        .status()
        .map_err(|e| anyhow::anyhow!("running {} {}: {e}", python.display(), script.display()))?;
    if !status.success() {
        anyhow::bail!(
            "{} failed ({status}): it needs the Python packages gguf and numpy \
             (pip install gguf numpy), or pass --demo-gguf FILE",
            script.display()
        );
    }
    Ok(path)
}
