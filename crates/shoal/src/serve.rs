//! `shoal serve`: resolve the configuration, open the store, run the gateway until a signal.

use std::io::Write;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use clap::Args;
use rand::distr::{Alphanumeric, SampleString};
use shoal_gateway::{AppState, BrowserWorkers, Routes, Seams};
use shoal_gateway::{FileConfig, GatewayConfig};

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
    /// The image output classifier: a Stable Diffusion safety checker file (safetensors)
    /// [default: none; image generation answers 503; --demo uses a generated tiny one].
    #[arg(long, env = "SHOAL_IMAGE_CLASSIFIER", value_name = "FILE")]
    image_classifier: Option<PathBuf>,
    /// The classifier's concept file (JSON).
    #[arg(long, env = "SHOAL_IMAGE_CONCEPTS", value_name = "FILE")]
    image_concepts: Option<PathBuf>,
    #[command(flatten)]
    browser: BrowserArgs,
    #[command(flatten)]
    limits: LimitArgs,
}

/// The HTTP server's limits (each also a config key of the same name).
#[derive(Args)]
struct LimitArgs {
    /// Seconds a request's head may take to arrive [default: 10].
    #[arg(long, env = "SHOAL_HEADER_READ_TIMEOUT_SECS", value_name = "SECS")]
    header_read_timeout_secs: Option<u64>,
    /// Seconds a connection may sit idle before it is closed [default: 75].
    #[arg(long, env = "SHOAL_IDLE_TIMEOUT_SECS", value_name = "SECS")]
    idle_timeout_secs: Option<u64>,
    /// Connections open at once [default: 16384, within the open-file limit].
    #[arg(long, env = "SHOAL_MAX_CONNECTIONS", value_name = "N")]
    max_connections: Option<usize>,
    /// Connections open at once from one client address [default: 512].
    #[arg(long, env = "SHOAL_MAX_CONNECTIONS_PER_ADDRESS", value_name = "N")]
    max_connections_per_address: Option<usize>,
}

impl LimitArgs {
    fn overlay(&self, file: &mut FileConfig) {
        let s = self;
        file.header_read_timeout_secs =
            s.header_read_timeout_secs.or(file.header_read_timeout_secs);
        file.idle_timeout_secs = s.idle_timeout_secs.or(file.idle_timeout_secs);
        file.max_connections = s.max_connections.or(file.max_connections);
        file.max_connections_per_address =
            (s.max_connections_per_address).or(file.max_connections_per_address);
    }
}

/// Browser workers: the page `/worker` and the `service-pro` model files tabs load.
#[derive(Args)]
struct BrowserArgs {
    /// The 4B GGUF that tabs without a capable GPU run on the CPU (served at
    /// /worker/models/4b.gguf); with either file the gateway serves the worker page.
    #[arg(long, value_name = "FILE", env = "SHOAL_BROWSER_GGUF_4B")]
    browser_gguf_4b: Option<PathBuf>,
    /// The 9B GGUF that tabs with a capable WebGPU adapter run.
    #[arg(long, value_name = "FILE", env = "SHOAL_BROWSER_GGUF_9B")]
    browser_gguf_9b: Option<PathBuf>,
}

impl BrowserArgs {
    fn files(self) -> Vec<(String, PathBuf)> {
        [("4b", self.browser_gguf_4b), ("9b", self.browser_gguf_9b)]
            .into_iter()
            .filter_map(|(v, p)| Some((v.to_owned(), p?)))
            .collect()
    }
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
    /// Longest a rate-limit check waits for Redis, in milliseconds, before this replica
    /// limits on its own and skips Redis until it answers again [default: 200].
    #[arg(long, env = "SHOAL_REDIS_TIMEOUT_MS", value_parser = clap::value_parser!(u64).range(1..))]
    redis_timeout_ms: Option<u64>,
    /// NATS, so that a request reaches a worker connected to any replica (nats://HOST:PORT)
    /// [default: only this process's workers].
    #[arg(long, env = "SHOAL_NATS_URL")]
    nats_url: Option<String>,
    /// Prefix of the NATS subjects Shoal uses, one per deployment [default: shoal].
    #[arg(long, env = "SHOAL_NATS_SUBJECT_PREFIX")]
    nats_subject_prefix: Option<String>,
}

pub async fn run(args: ServeArgs) -> anyhow::Result<ExitCode> {
    if args.demo && !cfg!(feature = "llama") {
        anyhow::bail!(
            "--demo runs the embedded llama.cpp worker, which this binary was built without \
             (cargo's `llama` feature, on by default)"
        );
    }
    let mut file = file_config(&args)?;
    let store = args.store.open(&file).await?;
    let cluster = args.cluster.resolve(&mut file);
    let limiter = cluster.rate_limiter().await?;
    let peers = cluster.peers().await?;
    let mut parts = Parts::resolve(&args, file).await?;
    raise_open_files(&mut parts.config);
    let browser = shoal_browser::open(args.browser.files())?;
    let signal = shutdown_signal();
    let (listener, addr) = listen(&parts.config, store.backend()).await?;
    let seams = Seams {
        limiter,
        peers: peers.clone(),
        swarm: Some(Arc::new(shoal_swarm::SpanRing::default())),
        browser: browser.map(|b| b as Arc<dyn BrowserWorkers>),
    };
    let state = AppState::with_seams(parts.config, store.clone(), seams);
    if let Some(p) = &parts.payments {
        state.metrics.register(|r| p.register_metrics(r));
    }
    let watchers = (parts.payments.as_ref().map(|p| p.spawn_watchers(&store)))
        .transpose()?
        .unwrap_or_default();
    let demo = if args.demo {
        Some(start_demo(&state, addr, &args.store, args.demo_gguf).await?)
    } else {
        None
    };

    // Other replicas stop sending jobs here at the signal, and hear that this one is gone
    // once it has stopped.
    let draining = peers.clone();
    let shutdown = async move {
        signal.await;
        if let Some(p) = draining {
            p.drain();
        }
    };
    let images = shoal_images::Images::new(&state, parts.image_policy, parts.image_check)
        .with_suspension(parts.image_suspension);
    let deposits = shoal_payments::Deposits(parts.payments.clone());
    let routes = Routes {
        api: images
            .api_routes()
            .merge(shoal_keys::api_routes())
            .merge(shoal_payments::api::api_routes(deposits.clone())),
        site: shoal_dashboard::routes(&state, parts.dashboard, &images, deposits),
    };
    shoal_gateway::serve(listener, state, routes, shutdown).await?;
    if let Some(p) = &peers {
        p.leave().await;
    }
    for w in watchers {
        w.abort();
    }
    if let Some(worker) = demo {
        worker.abort();
    }
    store.close().await;
    tracing::info!("shoal gateway stopped");
    Ok(ExitCode::SUCCESS)
}

/// The config file (or none), with `--listen` and the server limits' flags put over it.
fn file_config(args: &ServeArgs) -> anyhow::Result<FileConfig> {
    let mut file = match &args.config {
        Some(path) => FileConfig::load(path)?,
        None => FileConfig::default(),
    };
    if args.listen.is_some() {
        file.listen = args.listen;
    }
    args.limits.overlay(&mut file);
    Ok(file)
}

/// Descriptors kept for what is not a client connection: the database, workers' upstreams,
/// model files, logs.
const RESERVED_FILES: u64 = 256;

/// Raises the open-file soft limit to the hard limit (every connection is a descriptor, and
/// the usual soft limit of 1024 is soon reached), and keeps `max_connections` within it.
fn raise_open_files(config: &mut GatewayConfig) {
    let before = rlimit::Resource::NOFILE.get().ok().map(|(soft, _)| soft);
    let limit = match rlimit::increase_nofile_limit(u64::MAX) {
        Ok(limit) => limit,
        Err(e) => {
            tracing::warn!(error = %e, "the open-file limit could not be raised");
            before.unwrap_or(1024)
        }
    };
    tracing::info!(
        from = before,
        to = limit,
        "open-file limit raised to the hard limit"
    );
    let room = usize::try_from(limit.saturating_sub(RESERVED_FILES).max(1)).unwrap_or(usize::MAX);
    if config.server.max_connections > room {
        tracing::warn!(
            max_connections = room,
            open_files = limit,
            "max_connections lowered to fit the open-file limit"
        );
        config.server.max_connections = room;
    }
}

/// Binds the configured address and says so: one line on stdout that scripts (and the
/// tests) wait for.
async fn listen(
    config: &GatewayConfig,
    backend: &str,
) -> anyhow::Result<(tokio::net::TcpListener, SocketAddr)> {
    let listener = tokio::net::TcpListener::bind(config.listen)
        .await
        .map_err(|e| anyhow::anyhow!("cannot listen on {}: {e}", config.listen))?;
    let addr = listener.local_addr()?;
    let runtime_threads = tokio::runtime::Handle::current().metrics().num_workers();
    tracing::info!(%addr, backend, models = config.catalog.entries().len(), runtime_threads, "shoal gateway started");
    println!("listening on http://{addr}");
    std::io::stdout().flush()?;
    Ok((listener, addr))
}

impl ClusterArgs {
    /// The shared servers, each from its flag or else the config file.
    fn resolve(&self, file: &mut FileConfig) -> shoal_cluster::ClusterConfig {
        shoal_cluster::ClusterConfig {
            redis_url: self.redis_url.clone().or(file.redis_url.take()),
            redis_key_prefix: (self.redis_key_prefix.clone()).or(file.redis_key_prefix.take()),
            redis_timeout: (self.redis_timeout_ms.or(file.redis_timeout_ms.take()))
                .map(std::time::Duration::from_millis),
            nats_url: self.nats_url.clone().or(file.nats_url.take()),
            nats_subject_prefix: (self.nats_subject_prefix.clone())
                .or(file.nats_subject_prefix.take()),
        }
    }
}

/// What the config file (and the flags) make of each crate's part of the gateway.
struct Parts {
    config: GatewayConfig,
    dashboard: shoal_dashboard::Config,
    image_policy: shoal_images::ContentPolicy,
    image_suspension: shoal_images::Suspension,
    image_check: Arc<dyn shoal_images::OutputCheck>,
    payments: Option<Arc<shoal_payments::Payments>>,
}

impl Parts {
    async fn resolve(args: &ServeArgs, mut file: FileConfig) -> anyhow::Result<Parts> {
        let paths = crate::classifier::ClassifierPaths {
            weights: args.image_classifier.clone(),
            concepts: args.image_concepts.clone(),
        };
        let demo_dir = args
            .demo
            .then(|| data_dir(&args.store).join("demo-classifier"));
        let image_check =
            crate::classifier::output_check(paths, &file, demo_dir.as_deref()).await?;
        let payments = crate::deposits::load(&mut file)?;
        let dashboard = shoal_dashboard::Config::from_file(&file)?;
        let image_policy = shoal_images::ContentPolicy::load(file.image_policy_path.as_deref())?;
        let image_suspension = shoal_images::Suspension::from_file(&file)?;
        Ok(Parts {
            config: GatewayConfig::from_file(file)?,
            dashboard,
            image_policy,
            image_suspension,
            image_check,
            payments,
        })
    }
}

/// Resolves on SIGINT or SIGTERM. The handlers are installed when this is called, not when
/// the future is first polled, so that a signal sent as soon as the server says it listens
/// is not the default one that kills the process.
fn shutdown_signal() -> impl std::future::Future<Output = ()> {
    #[cfg(unix)]
    let (int, term) = {
        use tokio::signal::unix::{signal, SignalKind};
        (
            signal(SignalKind::interrupt()),
            signal(SignalKind::terminate()),
        )
    };
    async move {
        #[cfg(unix)]
        {
            let recv = |s: std::io::Result<tokio::signal::unix::Signal>| async move {
                match s {
                    Ok(mut s) => drop(s.recv().await),
                    Err(_) => std::future::pending::<()>().await,
                }
            };
            tokio::select! {
                () = recv(int) => {}
                () = recv(term) => {}
            }
        }
        #[cfg(not(unix))]
        let _ = tokio::signal::ctrl_c().await;
        tracing::info!("shutdown signal received; finishing in-flight requests");
    }
}

/// `--demo`: a demo account and key, and an in-process llama worker on the test model serving
/// the catalog's models. The banner (key, a request to try) is printed once the worker serves,
/// so that it is the last thing on the terminal and its request works at once.
async fn start_demo(
    state: &AppState,
    addr: SocketAddr,
    store_args: &StoreArgs,
    gguf: Option<PathBuf>,
) -> anyhow::Result<tokio::task::JoinHandle<()>> {
    let models: Vec<String> = (state.config.catalog.entries().iter())
        .filter(|m| m.alias_of.is_none())
        .map(|m| m.id.clone())
        .collect();
    let store = &state.store;
    let now = shoal_gateway::now_ms();
    let email = format!("demo-{now}@shoal.local");
    // A password too, so that the dashboard can be tried with the same account.
    let password = Alphanumeric.sample_string(&mut rand::rng(), 16);
    let hash = shoal_dashboard::hash_password(password.clone()).await?;
    let account = store
        .create_account_with_password(&email, &hash, now)
        .await?;
    store.grant_credits(account, 1000, now).await?;
    let key = store
        .create_api_key(account, Some("demo"), None, now)
        .await?;
    let token = store.create_worker_token("demo-worker", now).await?;

    let (gguf, generated) = match gguf {
        Some(path) => (path, false),
        None => (demo_model(store_args)?, true),
    };
    let args = demo_worker_args(addr, token.token, &gguf, &models)?;
    let worker = tokio::spawn(async move {
        if let Err(e) = shoal_worker::run_until(args, std::future::pending()).await {
            tracing::error!(error = %e, "demo worker stopped");
            eprintln!("demo worker stopped: {e:#}");
        }
    });

    let model = models
        .first()
        .cloned()
        .unwrap_or_else(|| "large-27b-uncensored".into());
    let login = DemoLogin {
        email: &email,
        password: &password,
        dashboard: &format!("http://{addr}/dashboard"),
    };
    let banner = demo_banner(&login, &key.key, &format!("http://{addr}/api/v1"), &model);
    let note = generated.then(|| random_weights_note(&gguf));
    let (state, serving) = (state.clone(), worker.abort_handle());
    tokio::spawn(async move {
        // The worker loads the model and dials in; a worker that fails has said why, and the
        // key is printed all the same.
        while !state.pool.available(&model) && !serving.is_finished() {
            tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        }
        eprintln!("{banner}");
        if let Some(note) = note {
            eprintln!("{note}");
        }
    });
    Ok(worker)
}

/// How the demo account signs in to the dashboard.
struct DemoLogin<'a> {
    email: &'a str,
    password: &'a str,
    dashboard: &'a str,
}

fn demo_banner(login: &DemoLogin, key: &str, base: &str, model: &str) -> String {
    let DemoLogin {
        email,
        password,
        dashboard,
    } = login;
    format!(
        "\n=== shoal demo ===\n\
         demo account {email}: 1000 credits. API key (shown once, keep it):\n\n    {key}\n\n\
         Try:\n    curl {base}/chat/completions -H 'Authorization: Bearer {key}' \\\n      \
         -H 'Content-Type: application/json' \\\n      \
         -d '{{\"model\":\"{model}\",\"messages\":[{{\"role\":\"user\",\"content\":\"Hello\"}}]}}'\n\n\
         Dashboard (usage, keys, playground): {dashboard}\n    \
         log in as {email} with the password {password}\n"
    )
}

fn random_weights_note(gguf: &std::path::Path) -> String {
    format!(
        "NOTE: the demo model ({}) has random weights: its answers are noise. Loading,\n\
         templating, sampling, streaming, token counting and billing are all real.\n\
         To serve a real model: `shoal serve --demo --demo-gguf MODEL.gguf`, or run\n\
         `shoal worker --backend llama --gguf MODEL.gguf …` (or `--backend openai\n\
         --upstream URL` in front of vLLM / Ollama) against a normal `shoal serve`.\n",
        gguf.display()
    )
}

/// `shoal worker --backend llama` for the demo, through the worker's own argument parser.
fn demo_worker_args(
    addr: SocketAddr,
    token: String,
    gguf: &std::path::Path,
    models: &[String],
) -> anyhow::Result<shoal_worker::WorkerArgs> {
    let mut argv = vec![
        "worker".to_owned(),
        "--gateway".into(),
        format!("http://{addr}"),
        "--token".into(),
        token,
        "--backend".into(),
        "llama".into(),
        "--gguf".into(),
        gguf.display().to_string(),
        "--concurrency".into(),
        "2".into(),
        "--name".into(),
        "demo-worker".into(),
    ];
    for m in models {
        argv.push("--serve".into());
        argv.push(m.clone());
    }
    Ok(<DemoWorker as clap::Parser>::try_parse_from(argv)?.args)
}

#[derive(clap::Parser)]
struct DemoWorker {
    #[command(flatten)]
    args: shoal_worker::WorkerArgs,
}

fn data_dir(store_args: &StoreArgs) -> PathBuf {
    store_args
        .data_dir
        .clone()
        .unwrap_or_else(|| PathBuf::from(shoal_gateway::DEFAULT_DATA_DIR))
}

/// The generated test model in the data folder, written afresh on every start (it takes a few
/// milliseconds): the tiny random-weight model `scripts/make-test-model` also writes.
fn demo_model(store_args: &StoreArgs) -> anyhow::Result<PathBuf> {
    let dir = data_dir(store_args);
    std::fs::create_dir_all(&dir)
        .map_err(|e| anyhow::anyhow!("cannot create the data folder {}: {e}", dir.display()))?;
    let path = dir.join("demo-test-model.gguf");
    // 4096 tokens of context, as the script writes it by default.
    #[cfg(feature = "llama")]
    shoal_worker::llama::test_model::write(&path, 4096)
        .map_err(|e| anyhow::anyhow!("cannot write the demo model {}: {e}", path.display()))?;
    Ok(path)
}
