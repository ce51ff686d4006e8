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
}

pub async fn run(args: ServeArgs) -> anyhow::Result<ExitCode> {
    let mut file = match &args.config {
        Some(path) => FileConfig::load(path)?,
        None => FileConfig::default(),
    };
    if args.listen.is_some() {
        file.listen = args.listen;
    }
    let store = args.store.open(&file).await?;
    let config = GatewayConfig::from_file(file)?;
    let listener = tokio::net::TcpListener::bind(config.listen)
        .await
        .map_err(|e| anyhow::anyhow!("cannot listen on {}: {e}", config.listen))?;
    let addr = listener.local_addr()?;
    tracing::info!(%addr, backend = store.backend(), models = config.catalog.entries().len(), "shoal gateway started");
    // One line on stdout that scripts (and the tests) wait for: the server is accepting.
    println!("listening on http://{addr}");
    std::io::stdout().flush()?;

    let state = AppState::new(config, store.clone());
    shoal_gateway::serve(listener, state, shutdown_signal()).await?;
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
