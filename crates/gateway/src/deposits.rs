//! Buying credits with a stablecoin: the seam and the account's JSON view.
//!
//! The gateway knows deposits only through [`DepositSource`]: what each account may pay with
//! (chains, tokens, its own deposit address) and the watcher's metrics. `shoal-payments`
//! implements it (address derivation, the chain watcher) from outside, so the gateway links no
//! Ethereum code; without a `[payments]` section the source is [`NoDeposits`].
//!
//! `GET /api/v1/deposits` (an API key; the dashboard's "Buy credits" page) answers the
//! account's payment options and its deposit history.

use axum::extract::State;
use axum::{Extension, Json};
use prometheus_client::registry::Registry;
use serde::Serialize;
use shoal_store::AccountId;

use crate::auth::Caller;
use crate::error::ApiError;
use crate::AppState;

/// One way an account can pay: a token on a chain, to the account's own address.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct DepositOption {
    pub chain: String,
    pub chain_id: u64,
    /// The token contract (EIP-55 checksummed).
    pub token: String,
    pub symbol: String,
    pub decimals: u8,
    /// The smallest deposit credited on its own, in tokens ("1.5"); smaller ones wait until
    /// the account's waiting deposits add up to it.
    pub minimum: String,
    /// `finalized`, or `N confirmations`.
    pub finality: String,
    /// The account's deposit address (EIP-55 checksummed).
    pub address: String,
    /// EIP-681 payment link (a wallet opens a token transfer to `address`); a page may append
    /// `&uint256=AMOUNT` in base units.
    pub payment_uri: String,
}

/// What the gateway needs from the deposit machinery.
pub trait DepositSource: Send + Sync {
    /// The account's payment options (empty when deposits are off or the account has no
    /// address, e.g. an id beyond the derivable range).
    fn options(&self, account: AccountId) -> Vec<DepositOption>;
    /// Adds the watcher's metrics to the gateway's registry.
    fn register_metrics(&self, _registry: &mut Registry) {}
}

/// Deposits off: no options.
pub struct NoDeposits;

impl DepositSource for NoDeposits {
    fn options(&self, _account: AccountId) -> Vec<DepositOption> {
        Vec::new()
    }
}

#[derive(Debug, Serialize)]
pub struct DepositView {
    pub chain_id: i64,
    pub tx_hash: String,
    pub log_index: i64,
    pub block_number: i64,
    pub token: String,
    /// Tokens, as a decimal string ("1.0013"); base units in `amount_units`.
    pub amount: Option<String>,
    pub amount_units: String,
    pub credits: i64,
    /// `credited`, `below_minimum` (waiting for more) or `too_large` (not credited).
    pub state: String,
    pub credited_at: Option<i64>,
}

#[derive(Debug, Serialize)]
pub struct DepositsResponse {
    pub object: &'static str,
    pub enabled: bool,
    pub credits_per_usd: i64,
    pub options: Vec<DepositOption>,
    /// Newest first, at most 100.
    pub deposits: Vec<DepositView>,
}

/// `GET /api/v1/deposits`.
pub async fn account_deposits(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
) -> Result<Json<DepositsResponse>, ApiError> {
    let options = state.deposits.options(caller.account_id);
    let rows = state
        .store
        .list_deposits(Some(caller.account_id), 100)
        .await?;
    let deposits = rows
        .into_iter()
        .map(|d| {
            let decimals = (options.iter())
                .find(|o| o.chain_id as i64 == d.chain_id && o.token.eq_ignore_ascii_case(&d.token))
                .map(|o| o.decimals);
            DepositView {
                amount: (decimals.zip(d.amount.parse().ok())).map(|(dec, n)| format_units(n, dec)),
                chain_id: d.chain_id,
                tx_hash: d.tx_hash,
                log_index: d.log_index,
                block_number: d.block_number,
                token: d.token,
                amount_units: d.amount,
                credits: d.credits,
                state: d.state,
                credited_at: d.credited_at,
            }
        })
        .collect();
    Ok(Json(DepositsResponse {
        object: "deposits",
        enabled: !options.is_empty(),
        credits_per_usd: state.config.credits_per_usd_sold,
        options,
        deposits,
    }))
}

/// Base units as tokens: 1300 with 6 decimals → "0.0013".
pub fn format_units(amount: u128, decimals: u8) -> String {
    let scale = 10u128.pow(u32::from(decimals.min(38)));
    let (whole, frac) = (amount / scale, amount % scale);
    if frac == 0 {
        return whole.to_string();
    }
    let frac = format!("{frac:0>width$}", width = usize::from(decimals));
    format!("{whole}.{}", frac.trim_end_matches('0'))
}

#[cfg(test)]
mod tests {
    #[test]
    fn format_units() {
        assert_eq!(super::format_units(1_300, 6), "0.0013");
        assert_eq!(super::format_units(1_000_000, 6), "1");
        assert_eq!(super::format_units(1_000_001, 6), "1.000001");
        assert_eq!(super::format_units(0, 6), "0");
        assert_eq!(super::format_units(7, 0), "7");
    }
}
