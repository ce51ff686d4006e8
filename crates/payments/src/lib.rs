//! Buying credits with a stablecoin (SPEC: "Credits are bought with a USD-pegged stablecoin").
//!
//! - [`address`]: each account's deposit address, derived from the operator's extended public
//!   key (BIP32); the service holds no private key and cannot move funds.
//! - [`watcher`]: a task per configured chain and token that credits final Transfer logs to
//!   those addresses exactly once (the store's unique key on chain, tx and log index), one
//!   gateway at a time (a lease in the shared database).
//! - [`api`]: `GET /api/v1/deposits` and the dashboard's view of the same: each account's
//!   payment options ([`Payments::options`]) and its deposits, pending ones first.
//! - [`Payments`] holds the configured keys and chains and the watchers' metrics, which the
//!   binary adds to the gateway's `/metrics` ([`Payments::register_metrics`]).
//!
//! Amounts are integers throughout: base units of the token (u128), credits =
//! `amount × credits_per_usd / 10^decimals` with the fraction carried per account by the store.

pub mod address;
pub mod api;
pub mod config;
pub mod metrics;
pub mod rpc;
pub mod watcher;

use std::sync::Arc;

pub use api::{format_units, parse_units, DepositOption, Deposits};
use shoal_store::{AccountId, Store};

use crate::address::Address;
use crate::config::{Config, Finality};
use crate::metrics::WatcherMetrics;

/// The configured payments: keys, chains, and the watchers' metrics.
pub struct Payments {
    pub config: Config,
    metrics: Arc<WatcherMetrics>,
}

impl Payments {
    pub fn new(config: Config) -> Arc<Payments> {
        Arc::new(Payments {
            config,
            metrics: Arc::new(WatcherMetrics::default()),
        })
    }

    /// Account `account`'s deposit address (the same on every EVM chain).
    pub fn address(&self, account: AccountId) -> anyhow::Result<Address> {
        let index = u32::try_from(account)
            .map_err(|_| anyhow::anyhow!("account {account} has no deposit address"))?;
        self.config.keys.address(index)
    }

    /// Starts one watcher per chain; they run until aborted.
    pub fn spawn_watchers(
        &self,
        store: &Store,
    ) -> anyhow::Result<Vec<tokio::task::JoinHandle<()>>> {
        let holder = format!("{}-{}", std::process::id(), shoal_gateway::now_ms());
        let mut tasks = Vec::new();
        for chain in &self.config.chains {
            let w = watcher::Watcher::new(
                chain.clone(),
                store.clone(),
                self.config.keys.clone(),
                self.config.credits_per_usd,
                self.metrics.clone(),
                holder.clone(),
            )?;
            tasks.push(tokio::spawn(w.run()));
        }
        Ok(tasks)
    }
}

impl Payments {
    /// Account `account`'s payment options (none when it has no address, e.g. an id beyond
    /// the derivable range).
    pub fn options(&self, account: AccountId) -> Vec<DepositOption> {
        let Ok(address) = self.address(account) else {
            return Vec::new();
        };
        let address = address.checksummed();
        (self.config.chains.iter())
            .map(|c| DepositOption {
                chain: c.name.clone(),
                chain_id: c.chain_id,
                token: c.token.checksummed(),
                symbol: c.symbol.clone(),
                decimals: c.decimals,
                minimum: format_units(c.minimum, c.decimals),
                finality: match c.finality {
                    Finality::Finalized => "finalized".into(),
                    Finality::Confirmations(n) => format!("{n} confirmations"),
                },
                confirmations_required: match c.finality {
                    Finality::Finalized => None,
                    Finality::Confirmations(n) => Some(n),
                },
                head_block: None,
                final_block: None,
                observed_at: None,
                payment_uri: format!(
                    "ethereum:{}@{}/transfer?address={address}",
                    c.token.checksummed(),
                    c.chain_id
                ),
                address: address.clone(),
            })
            .collect()
    }

    /// Adds the watchers' metrics to the gateway's registry.
    pub fn register_metrics(&self, registry: &mut prometheus_client::registry::Registry) {
        self.metrics.register(registry);
    }
}
