//! The `[payments]` section of the gateway's config file.
//!
//! ```toml
//! [payments]
//! xpub = "xpub6…"              # the extended public key of m/44'/60'/0'/0
//!
//! [[payments.chains]]
//! name = "base"
//! rpc_url = "https://…"
//! chain_id = 8453
//! token = "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913"
//! symbol = "USDC"
//! decimals = 6
//! minimum = "1"                 # in tokens; smaller deposits wait until they add up to it
//! finality = "finalized"        # or { confirmations = 12 }
//! pending_blocks = 1000         # newest blocks read for transfers not final yet (shown only)
//! ```

use std::time::Duration;

use serde::Deserialize;
use shoal_store::deposits::MAX_DECIMALS;

use crate::address::{Address, DepositKeys};
/// "1.5" tokens → base units (the gateway's Buy page parses amounts the same way).
use crate::api::parse_units;

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FileConfig {
    pub xpub: String,
    pub chains: Vec<ChainFile>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ChainFile {
    pub name: String,
    pub rpc_url: String,
    pub chain_id: u64,
    pub token: String,
    pub symbol: Option<String>,
    pub decimals: u8,
    /// Tokens, as a decimal string ("1", "0.5").
    pub minimum: Option<String>,
    pub finality: Option<FinalityFile>,
    /// Where the first scan starts when no cursor is stored [default: the final block then].
    pub start_block: Option<u64>,
    /// Most blocks per `eth_getLogs` call [default 1000].
    pub max_blocks_per_scan: Option<u64>,
    /// How many of the newest blocks are read for transfers not final yet, shown as pending
    /// [default: max_blocks_per_scan; 0: none shown].
    pub pending_blocks: Option<u64>,
    /// How often to look for new final blocks [default 2000].
    pub poll_interval_ms: Option<u64>,
    /// How long the watcher's lease lasts without renewal [default 15000].
    pub lease_ms: Option<u64>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
pub enum FinalityFile {
    Tag(String),
    Confirmations { confirmations: u64 },
}

/// When a block counts as final.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Finality {
    /// The node's `finalized` block tag.
    Finalized,
    /// Blocks with at least this many blocks on top of them (for nodes without the tag).
    Confirmations(u64),
}

/// One chain and token, resolved.
#[derive(Debug, Clone)]
pub struct Chain {
    pub name: String,
    pub rpc_url: String,
    pub chain_id: u64,
    pub token: Address,
    pub symbol: String,
    pub decimals: u8,
    /// Base units.
    pub minimum: u128,
    pub finality: Finality,
    pub start_block: Option<u64>,
    pub max_blocks_per_scan: u64,
    /// The newest blocks read for pending (not yet final) transfers; 0 turns that off.
    pub pending_blocks: u64,
    pub poll_interval: Duration,
    pub lease: Duration,
}

#[derive(Debug, Clone)]
pub struct Config {
    pub keys: DepositKeys,
    /// The gateway's `credits_per_usd_sold` (one setting for the price).
    pub credits_per_usd: i64,
    pub chains: Vec<Chain>,
}

impl Config {
    /// Resolves the `[payments]` table, checking every field; credits sell at
    /// `credits_per_usd` (the gateway's `credits_per_usd_sold`).
    pub fn from_toml(value: toml::Value, credits_per_usd: i64) -> anyhow::Result<Config> {
        let file: FileConfig = value
            .try_into()
            .map_err(|e| anyhow::anyhow!("[payments]: {e}"))?;
        Config::resolve(file, credits_per_usd)
    }

    pub fn resolve(file: FileConfig, credits_per_usd: i64) -> anyhow::Result<Config> {
        let keys = DepositKeys::parse(&file.xpub)?;
        anyhow::ensure!(
            credits_per_usd >= 1,
            "credits_per_usd_sold must be at least 1"
        );
        anyhow::ensure!(!file.chains.is_empty(), "payments.chains lists no chain");
        let chains = file
            .chains
            .into_iter()
            .map(Chain::resolve)
            .collect::<anyhow::Result<Vec<_>>>()?;
        let mut seen = std::collections::HashSet::new();
        for c in &chains {
            anyhow::ensure!(
                seen.insert((c.chain_id, c.token)),
                "payments.chains lists token {} on chain {} twice",
                c.token.checksummed(),
                c.chain_id
            );
        }
        Ok(Config {
            keys,
            credits_per_usd,
            chains,
        })
    }
}

impl Chain {
    fn resolve(f: ChainFile) -> anyhow::Result<Chain> {
        let name = f.name.trim().to_string();
        anyhow::ensure!(!name.is_empty(), "a payments chain needs a name");
        let ctx = |what: &str| format!("payments chain {name}: {what}");
        anyhow::ensure!(
            f.rpc_url.starts_with("http://") || f.rpc_url.starts_with("https://"),
            ctx("rpc_url must be an http(s) URL")
        );
        let token: Address = f
            .token
            .parse()
            .map_err(|e: String| anyhow::anyhow!(ctx(&e)))?;
        anyhow::ensure!(
            f.decimals <= MAX_DECIMALS,
            ctx(&format!("decimals must be at most {MAX_DECIMALS}"))
        );
        let minimum = match &f.minimum {
            Some(m) => parse_units(m, f.decimals).map_err(|e| anyhow::anyhow!(ctx(&e)))?,
            None => 0,
        };
        let finality = match f.finality {
            None => Finality::Finalized,
            Some(FinalityFile::Tag(t)) if t == "finalized" => Finality::Finalized,
            Some(FinalityFile::Tag(_)) => {
                anyhow::bail!(ctx("finality is \"finalized\" or { confirmations = N }"))
            }
            Some(FinalityFile::Confirmations { confirmations }) => {
                Finality::Confirmations(confirmations)
            }
        };
        let max_blocks_per_scan = f.max_blocks_per_scan.unwrap_or(1000);
        anyhow::ensure!(
            (1..=100_000).contains(&max_blocks_per_scan),
            ctx("max_blocks_per_scan must be 1 to 100000")
        );
        let pending_blocks = f.pending_blocks.unwrap_or(max_blocks_per_scan);
        anyhow::ensure!(
            pending_blocks <= 1_000_000,
            ctx("pending_blocks must be at most 1000000")
        );
        let poll_interval = Duration::from_millis(f.poll_interval_ms.unwrap_or(2000).max(10));
        let lease = Duration::from_millis(f.lease_ms.unwrap_or(15_000).max(100));
        anyhow::ensure!(
            lease > poll_interval,
            ctx("lease_ms must be longer than poll_interval_ms")
        );
        Ok(Chain {
            symbol: f.symbol.unwrap_or_else(|| "USDC".into()),
            name,
            rpc_url: f.rpc_url,
            chain_id: f.chain_id,
            token,
            decimals: f.decimals,
            minimum,
            finality,
            start_block: f.start_block,
            max_blocks_per_scan,
            pending_blocks,
            poll_interval,
            lease,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chain(extra: &str) -> toml::Value {
        let text = format!(
            "xpub = \"{}\"\n[[chains]]\nname = \"dev\"\nrpc_url = \"http://127.0.0.1:8545\"\n\
             chain_id = 31337\ntoken = \"0x5FbDB2315678afecb367f032d93F642f64180aa3\"\n\
             decimals = 6\n{extra}",
            crate::address::tests::DEV_XPUB
        );
        toml::from_str(&text).unwrap()
    }

    #[test]
    fn resolves_defaults_and_checks_fields() {
        let c = Config::from_toml(chain(""), 500).unwrap();
        assert_eq!(c.credits_per_usd, 500);
        assert_eq!(c.chains[0].finality, Finality::Finalized);
        assert_eq!(c.chains[0].minimum, 0);
        assert_eq!(
            c.chains[0].pending_blocks, 1000,
            "max_blocks_per_scan's default"
        );
        let c = Config::from_toml(
            chain("finality = { confirmations = 3 }\nminimum = \"0.5\""),
            500,
        )
        .unwrap();
        assert_eq!(c.chains[0].finality, Finality::Confirmations(3));
        assert_eq!(c.chains[0].minimum, 500_000);
        for bad in [
            "finality = \"safe\"",
            "minimum = \"0.0000001\"",
            "max_blocks_per_scan = 0",
            "pending_blocks = 1000001",
            "poll_interval_ms = 5000\nlease_ms = 1000",
            "colour = \"blue\"",
        ] {
            assert!(Config::from_toml(chain(bad), 500).is_err(), "{bad}");
        }
    }
}
