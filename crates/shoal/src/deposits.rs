//! Stablecoin deposits in the binary: the `[payments]` section for `serve`, and
//! `shoal admin deposits …` for operators.

use std::process::ExitCode;
use std::sync::Arc;

use clap::Subcommand;
use shoal_gateway::FileConfig;
use shoal_payments::config::Config;
use shoal_payments::format_units;
use shoal_payments::Payments;
use shoal_store::{AccountId, Store};

/// The `[payments]` section, resolved (taken out of `file`); `None` when there is none.
/// Credits sell at the file's `credits_per_usd_sold` (the gateway checks its range).
pub fn load(file: &mut FileConfig) -> anyhow::Result<Option<Arc<Payments>>> {
    let price =
        (file.credits_per_usd_sold).unwrap_or(shoal_store::money::DEFAULT_CREDITS_PER_USD_SOLD);
    match file.payments.take() {
        Some(section) => Ok(Some(Payments::new(Config::from_toml(section, price)?))),
        None => Ok(None),
    }
}

#[derive(Subcommand)]
pub enum DepositsCommand {
    /// Deposits, newest first: one line each, tab-separated id, account, chain id, block,
    /// tx hash:log index, token, amount (base units), credits, state.
    List {
        #[arg(long)]
        account: Option<AccountId>,
        #[arg(long, default_value_t = 50)]
        limit: i64,
    },
    /// Print an account's deposit address (from the config's payments.xpub).
    Address {
        #[arg(long)]
        account: AccountId,
    },
    /// Scan again from a block (the watcher's cursor is set back or forward): deposits already
    /// recorded are not credited again.
    Rescan {
        #[arg(long)]
        chain_id: i64,
        /// The token contract [default: the chain's only configured token].
        #[arg(long)]
        token: Option<String>,
        #[arg(long)]
        from_block: i64,
    },
}

pub async fn admin(
    store: &Store,
    file: &mut FileConfig,
    command: DepositsCommand,
) -> anyhow::Result<ExitCode> {
    match command {
        DepositsCommand::List { account, limit } => {
            let payments = load(file).ok().flatten();
            for d in store
                .list_deposits(account, None, limit.clamp(1, 100_000))
                .await?
            {
                let decimals = payments.as_ref().and_then(|p| {
                    (p.config.chains.iter())
                        .find(|c| c.chain_id as i64 == d.chain_id && c.token.lower() == d.token)
                        .map(|c| c.decimals)
                });
                let amount = match (decimals, d.amount.parse::<u128>()) {
                    (Some(dec), Ok(n)) => format!("{} ({})", d.amount, format_units(n, dec)),
                    _ => d.amount.clone(),
                };
                println!(
                    "{}\t{}\t{}\t{}\t{}:{}\t{}\t{}\t{}\t{}",
                    d.id,
                    d.account_id,
                    d.chain_id,
                    d.block_number,
                    d.tx_hash,
                    d.log_index,
                    d.token,
                    amount,
                    d.credits,
                    d.state
                );
            }
        }
        DepositsCommand::Address { account } => {
            let payments = load(file)?
                .ok_or_else(|| anyhow::anyhow!("the config file has no [payments] section"))?;
            store.balance(account, shoal_gateway::now_ms()).await?;
            println!("{}", payments.address(account)?.checksummed());
        }
        DepositsCommand::Rescan {
            chain_id,
            token,
            from_block,
        } => {
            let token = match token {
                Some(t) => t.to_ascii_lowercase(),
                None => only_token(file, chain_id)?,
            };
            store
                .set_deposit_cursor(chain_id, &token, from_block, shoal_gateway::now_ms())
                .await?;
            eprintln!("chain {chain_id} token {token}: the watcher scans from block {from_block}");
        }
    }
    Ok(ExitCode::SUCCESS)
}

fn only_token(file: &mut FileConfig, chain_id: i64) -> anyhow::Result<String> {
    let payments = load(file)?
        .ok_or_else(|| anyhow::anyhow!("no [payments] section: name the token with --token"))?;
    let mut tokens = (payments.config.chains.iter())
        .filter(|c| c.chain_id as i64 == chain_id)
        .map(|c| c.token.lower());
    match (tokens.next(), tokens.next()) {
        (Some(t), None) => Ok(t),
        (None, _) => {
            anyhow::bail!("chain {chain_id} is not configured: name the token with --token")
        }
        (Some(_), Some(_)) => {
            anyhow::bail!("chain {chain_id} has several tokens: name one with --token")
        }
    }
}
