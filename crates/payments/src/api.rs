//! The account's view of its deposits: `GET /api/v1/deposits` (mounted by the binary beside
//! the gateway's own routes, behind its key check) and the dashboard's Buy page.
//!
//! `GET /api/v1/deposits` (an API key; the dashboard's "Buy credits" page shows the same
//! [`account_view`]) answers the account's payment options and its deposit history: the
//! recorded deposits and, first, the transfers seen in blocks not final yet (`pending`), which
//! the chain watcher holding the lease writes to the shared database at each scan, so every
//! replica answers the same. Confirmations count the blocks on top of a transfer's block, from
//! the head the watcher last saw; nothing here calls the chain's node.

use std::sync::Arc;

use axum::extract::rejection::QueryRejection;
use axum::extract::{Query, State};
use axum::{Extension, Json};
use serde::{Deserialize, Serialize};
use shoal_gateway::{ApiError, AppState, Caller};
use shoal_protocol::error::ErrorBody;
use shoal_store::deposits::{DepositRecord, PendingDeposit};
use shoal_store::AccountId;
use utoipa::{IntoParams, ToSchema};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::Payments;

/// One way an account can pay: a token on a chain, to the account's own address.
#[derive(Debug, Clone, Serialize, PartialEq, Eq, ToSchema)]
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
    /// The confirmations (blocks on top of a transfer's block) after which it is credited;
    /// `null` when the chain's `finalized` block decides.
    pub confirmations_required: Option<u64>,
    /// The newest block the chain watcher last saw (`null` before its first scan).
    pub head_block: Option<i64>,
    /// The last final block the chain watcher last saw.
    pub final_block: Option<i64>,
    /// When the watcher saw them (Unix milliseconds).
    pub observed_at: Option<i64>,
    /// The account's deposit address (EIP-55 checksummed).
    pub address: String,
    /// EIP-681 payment link (a wallet opens a token transfer to `address`); a page may append
    /// `&uint256=AMOUNT` in base units.
    pub payment_uri: String,
}

/// What accounts may pay with: the configured [`Payments`], or none (deposits off; the
/// history recorded meanwhile is still shown).
#[derive(Clone, Default)]
pub struct Deposits(pub Option<Arc<Payments>>);

impl Deposits {
    fn options(&self, account: AccountId) -> Vec<DepositOption> {
        (self.0.as_ref()).map_or_else(Vec::new, |p| p.options(account))
    }
}

/// `GET /api/v1/deposits`, for the gateway's `Routes::api`.
pub fn api_routes(deposits: Deposits) -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(account_deposits))
        .layer(Extension(deposits))
}

#[derive(Debug, Serialize, ToSchema)]
pub struct DepositView {
    /// The recorded deposit's id, for `before` (`null` while pending).
    pub id: Option<i64>,
    pub chain_id: i64,
    pub tx_hash: String,
    pub log_index: i64,
    pub block_number: i64,
    pub token: String,
    /// Tokens, as a decimal string ("1.0013"); base units in `amount_units`.
    pub amount: Option<String>,
    pub amount_units: String,
    pub credits: i64,
    /// `pending` (seen, not final yet: never credited before it is), `credited`,
    /// `below_minimum` (final, waiting until the account's waiting deposits reach the
    /// minimum) or `too_large` (not credited).
    pub state: String,
    /// Blocks on top of the transfer's block, from the head the watcher last saw (`null`
    /// before its first scan).
    pub confirmations: Option<i64>,
    pub credited_at: Option<i64>,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct DepositsResponse {
    /// Always `deposits`.
    pub object: &'static str,
    /// Whether this gateway accepts deposits (`options` is not empty).
    pub enabled: bool,
    /// Credits per USD of stablecoin.
    pub credits_per_usd: i64,
    pub options: Vec<DepositOption>,
    /// On the first page, the pending transfers first; then recorded deposits, newest first
    /// (at most `limit` of those).
    pub deposits: Vec<DepositView>,
    /// Whether older recorded deposits follow: ask again with `before` = `next_before`.
    pub has_more: bool,
    /// The id to pass as `before` for the next page (`null` when `has_more` is false).
    pub next_before: Option<i64>,
}

/// Which recorded deposits to answer: pages of newest first.
#[derive(Debug, Clone, Copy, Default, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct DepositPage {
    /// Only deposits older than this id (a previous page's `next_before`); the first page,
    /// without it, also lists the pending transfers.
    pub before: Option<i64>,
    /// Recorded deposits per page, 1 to 100 [default 100].
    pub limit: Option<i64>,
}

impl DepositPage {
    pub const MAX: i64 = 100;

    fn checked(query: Result<Query<Self>, QueryRejection>) -> Result<Self, ApiError> {
        let Query(page) = query.map_err(|e| {
            ApiError::invalid_request(format!("invalid query: {}", e.body_text()), None)
        })?;
        if page.limit.is_some_and(|l| !(1..=Self::MAX).contains(&l)) {
            return Err(ApiError::invalid_request(
                format!("limit must be between 1 and {}", Self::MAX),
                Some("limit".into()),
            ));
        }
        if page.before.is_some_and(|b| b < 1) {
            return Err(ApiError::invalid_request(
                "before must be a deposit id (a previous page's next_before)",
                Some("before".into()),
            ));
        }
        Ok(page)
    }
}

/// The account's payment options and deposits.
#[utoipa::path(
    get,
    path = "/deposits",
    tag = "account",
    security(("bearer" = [])),
    params(DepositPage),
    responses(
        (status = 200, description = "How to pay (chain, token, the account's own deposit address, an EIP-681 link) and the deposits: pending with their confirmations, then credited, newest first, in pages", body = DepositsResponse),
        (status = 400, description = "`before` or `limit` out of range", body = ErrorBody),
        (status = 401, description = "Missing, malformed or revoked API key", body = ErrorBody),
        (status = 429, description = "The key's rate limit is exceeded", body = ErrorBody,
            headers(("retry-after" = u64, description = "Seconds until a retry can succeed"))),
        (status = 500, description = "The gateway failed", body = ErrorBody),
    )
)]
async fn account_deposits(
    State(state): State<AppState>,
    Extension(deposits): Extension<Deposits>,
    caller: Caller,
    query: Result<Query<DepositPage>, QueryRejection>,
) -> Result<Json<DepositsResponse>, ApiError> {
    let page = DepositPage::checked(query)?;
    let view = account_view(&state, &deposits, caller.account_id, page).await?;
    Ok(Json(view))
}

/// What `GET /api/v1/deposits` answers for `account` (the dashboard's Buy page shows it too).
pub async fn account_view(
    state: &AppState,
    deposits: &Deposits,
    account: AccountId,
    page: DepositPage,
) -> Result<DepositsResponse, ApiError> {
    let mut options = deposits.options(account);
    for o in &mut options {
        let token = o.token.to_ascii_lowercase();
        if let Some(h) = state.store.chain_head(o.chain_id as i64, &token).await? {
            o.head_block = Some(h.head_block);
            o.final_block = Some(h.final_block);
            o.observed_at = Some(h.observed_at);
        }
    }
    let pending = match page.before {
        None => state.store.pending_deposits(account).await?,
        Some(_) => Vec::new(),
    };
    let limit = page.limit.unwrap_or(DepositPage::MAX);
    // One more than the page, to tell whether another follows.
    let mut recorded = (state.store)
        .list_deposits(Some(account), page.before, limit + 1)
        .await?;
    let has_more = recorded.len() as i64 > limit;
    recorded.truncate(limit as usize);
    let next_before = has_more.then(|| recorded.last().map(|d| d.id)).flatten();
    let deposits = (pending.into_iter().map(|p| pending_view(&options, p)))
        .chain(recorded.into_iter().map(|d| recorded_view(&options, d)))
        .collect();
    Ok(DepositsResponse {
        object: "deposits",
        enabled: !options.is_empty(),
        credits_per_usd: state.config.credits_per_usd_sold,
        options,
        deposits,
        has_more,
        next_before,
    })
}

/// The option of `token` on `chain_id`, if this gateway still offers it.
pub fn option_of<'a>(
    options: &'a [DepositOption],
    chain_id: i64,
    token: &str,
) -> Option<&'a DepositOption> {
    (options.iter()).find(|o| o.chain_id as i64 == chain_id && o.token.eq_ignore_ascii_case(token))
}

/// Blocks on top of `block`, from the option's last seen head.
fn confirmations(option: Option<&DepositOption>, block: i64) -> Option<i64> {
    let head = option?.head_block?;
    Some((head - block).max(0))
}

fn pending_view(options: &[DepositOption], p: PendingDeposit) -> DepositView {
    let option = option_of(options, p.chain_id, &p.token);
    DepositView {
        id: None,
        amount: option.map(|o| format_units(p.amount, o.decimals)),
        confirmations: confirmations(option, p.block_number),
        chain_id: p.chain_id,
        tx_hash: p.tx_hash,
        log_index: p.log_index,
        block_number: p.block_number,
        token: p.token,
        amount_units: p.amount.to_string(),
        credits: 0,
        state: "pending".into(),
        credited_at: None,
    }
}

fn recorded_view(options: &[DepositOption], d: DepositRecord) -> DepositView {
    let option = option_of(options, d.chain_id, &d.token);
    let units = d.amount.parse().ok();
    DepositView {
        id: Some(d.id),
        amount: (option.zip(units)).map(|(o, n)| format_units(n, o.decimals)),
        confirmations: confirmations(option, d.block_number),
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

/// "1.5" with 6 decimals → 1_500_000. Refuses more fractional digits than the token has.
pub fn parse_units(s: &str, decimals: u8) -> Result<u128, String> {
    let bad = || format!("{s:?} is not an amount with at most {decimals} decimals");
    let (whole, frac) = s.trim().split_once('.').unwrap_or((s.trim(), ""));
    if whole.is_empty() && frac.is_empty()
        || !whole.bytes().all(|b| b.is_ascii_digit())
        || !frac.bytes().all(|b| b.is_ascii_digit())
        || frac.len() > usize::from(decimals)
    {
        return Err(bad());
    }
    let digits = format!("{whole}{frac:0<width$}", width = usize::from(decimals));
    let digits = digits.trim_start_matches('0');
    if digits.is_empty() {
        return Ok(0);
    }
    digits.parse().map_err(|_| bad())
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

    #[test]
    fn units() {
        assert_eq!(super::parse_units("1", 6), Ok(1_000_000));
        assert_eq!(super::parse_units("0.0013", 6), Ok(1_300));
        assert_eq!(super::parse_units("12.5", 6), Ok(12_500_000));
        assert_eq!(super::parse_units(".5", 6), Ok(500_000));
        assert_eq!(super::parse_units("0", 6), Ok(0));
        assert_eq!(super::parse_units("3", 0), Ok(3));
        for bad in ["", ".", "1.0000001", "-1", "1e6", "1,5", "abc"] {
            assert!(super::parse_units(bad, 6).is_err(), "{bad}");
        }
    }
}
