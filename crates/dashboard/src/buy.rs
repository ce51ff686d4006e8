//! The "Buy credits" page: how to pay (the account's own deposit address on each configured
//! chain, an EIP-681 payment link and its QR code, drawn here as SVG), the price and the
//! minimum, and the account's deposits, pending ones with their confirmations.
//!
//! It shows what `GET /api/v1/deposits` answers ([`account_view`]), read from the database
//! only: pending transfers and the chain's head are written there by whichever gateway holds
//! the chain watcher's lease, so every replica shows the same page and opening it never calls
//! the chain's node. The page's script polls `/dashboard/api/deposits` (the same view, on the
//! session) and reloads when a deposit appears, confirms or is credited.

use axum::extract::rejection::QueryRejection;
use axum::extract::{Query, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use qrcode::render::svg;
use qrcode::QrCode;
use serde::{Deserialize, Serialize};
use serde_json::json;
use shoal_store::deposits::split_credits;

use super::pages::{balance_view, signed_in};
use super::templates::render;
use shoal_gateway::now_ms;
use shoal_gateway::ApiError;
use shoal_gateway::Caller;
use shoal_payments::api::{
    account_view, option_of, parse_units, DepositOption, DepositPage, DepositView, DepositsResponse,
};

use crate::Site;

/// The watcher's last report older than this reads as stale on the page.
const STALE_MS: i64 = 120_000;
/// The most tokens an amount in the payment link may ask for.
const MAX_AMOUNT_TOKENS: u128 = 1_000_000_000;

#[derive(Deserialize)]
pub struct BuyQuery {
    /// Tokens to put in the payment link ("25", "0.5").
    amount: Option<String>,
    /// An older page of the deposit history: deposits before this id.
    before: Option<i64>,
}

/// `GET /dashboard/buy[?amount=N]`.
pub async fn buy_page(
    State(state): State<Site>,
    headers: HeaderMap,
    query: Result<Query<BuyQuery>, QueryRejection>,
) -> Response {
    let me = match signed_in(&state, &headers).await {
        Ok(me) => me,
        Err(r) => return r,
    };
    let (amount, before) = match query {
        Ok(Query(q)) => (q.amount.filter(|a| !a.trim().is_empty()), q.before),
        Err(_) => (Some(String::new()), None),
    };
    let page = DepositPage {
        before: before.filter(|b| *b > 0),
        limit: None,
    };
    let (balance, view) = match tokio::try_join!(
        balance_view(&state, me.account),
        account_view(&state, &state.deposits, me.account, page)
    ) {
        Ok(both) => both,
        Err(e) => return e.into_response(),
    };
    let (options, error) = pay_options(&view, amount.as_deref());
    let ctx = json!({
        "tab": "buy", "email": me.email, "contribute": me.contribute, "balance": balance,
        "credits_per_usd": view.credits_per_usd, "options": options,
        "amount": amount, "amount_error": error,
        "deposits": rows(&view), "signature": signature(&view.deposits),
        "before": page.before, "next_before": view.next_before,
    });
    let status = if error.is_some() {
        StatusCode::BAD_REQUEST
    } else {
        StatusCode::OK
    };
    render(status, "buy.html", ctx)
}

/// `GET /dashboard/api/deposits` (session): what the page shows, for its script.
pub async fn deposits_json(
    State(state): State<Site>,
    caller: Caller,
) -> Result<Json<DepositsResponse>, ApiError> {
    Ok(Json(
        account_view(
            &state,
            &state.deposits,
            caller.account_id,
            DepositPage::default(),
        )
        .await?,
    ))
}

/// What tells the page's script that the deposits changed: each one's state, and a pending
/// one's confirmations (buy.js computes the same from the JSON).
fn signature(deposits: &[DepositView]) -> String {
    let one = |d: &DepositView| {
        let confirmations = match (d.state.as_str(), d.confirmations) {
            ("pending", Some(c)) => c.to_string(),
            _ => String::new(),
        };
        format!("{}:{}:{}:{confirmations}", d.tx_hash, d.log_index, d.state)
    };
    (deposits.iter().map(one)).collect::<Vec<_>>().join(",")
}

/// Each payment option as the page shows it, and the message for an amount that is not one.
fn pay_options(
    view: &DepositsResponse,
    amount: Option<&str>,
) -> (Vec<serde_json::Value>, Option<String>) {
    let mut error = None;
    let now = now_ms();
    let options: Vec<serde_json::Value> = (view.options.iter())
        .map(|o| {
            let units = amount.and_then(|a| match link_amount(a, o.decimals) {
                Ok(units) => Some(units),
                Err(e) => {
                    error = Some(e);
                    None
                }
            });
            let link = match units {
                Some(u) => format!("{}&uint256={u}", o.payment_uri),
                None => o.payment_uri.clone(),
            };
            let credits = units.and_then(|u| split_credits(u, o.decimals, view.credits_per_usd, 0));
            json!({
                "o": o, "link": link, "qr": qr_svg(&link),
                "credits_for_amount": credits.map(|(c, _)| c),
                "has_minimum": o.minimum != "0",
                "watcher": watcher_note(o, now),
            })
        })
        .collect();
    (options, error)
}

/// Base units for an amount typed on the page: a positive number of tokens, not absurdly
/// large, with at most the token's decimals.
fn link_amount(amount: &str, decimals: u8) -> Result<u128, String> {
    let msg = || format!("Enter an amount like 25 or 12.50 (up to {decimals} decimals).");
    let units = parse_units(amount, decimals).map_err(|_| msg())?;
    let most = MAX_AMOUNT_TOKENS.saturating_mul(10u128.pow(u32::from(decimals.min(30))));
    if units == 0 || units > most {
        return Err(msg());
    }
    Ok(units)
}

/// A line about the chain watcher when it has not reported, or not lately.
fn watcher_note(o: &DepositOption, now: i64) -> Option<String> {
    let Some(at) = o.observed_at else {
        return Some("The chain has not been read yet: deposits show here once it is.".into());
    };
    let ago = now.saturating_sub(at);
    (ago > STALE_MS).then(|| {
        format!(
            "Last read from the chain {} minutes ago: pending deposits may be out of date. \
             Nothing is lost; deposits are credited when reading resumes.",
            ago / 60_000
        )
    })
}

/// A row of the deposits table.
#[derive(Serialize)]
struct Row {
    tx: String,
    tx_short: String,
    block: i64,
    amount: String,
    state: String,
    label: &'static str,
    confirmations: String,
    credits: i64,
}

fn rows(view: &DepositsResponse) -> Vec<Row> {
    (view.deposits.iter())
        .map(|d| {
            let option = option_of(&view.options, d.chain_id, &d.token);
            let symbol = option.map_or("", |o| o.symbol.as_str());
            let amount = match &d.amount {
                Some(a) => format!("{a} {symbol}"),
                None => format!("{} units", d.amount_units),
            };
            Row {
                tx_short: format!(
                    "{}…{}",
                    &d.tx_hash[..10.min(d.tx_hash.len())],
                    tail(&d.tx_hash)
                ),
                tx: d.tx_hash.clone(),
                block: d.block_number,
                amount,
                label: state_label(&d.state),
                confirmations: confirmations_text(d, option),
                state: d.state.clone(),
                credits: d.credits,
            }
        })
        .collect()
}

fn tail(s: &str) -> &str {
    &s[s.len().saturating_sub(6)..]
}

fn state_label(state: &str) -> &'static str {
    match state {
        "pending" => "Pending",
        "credited" => "Credited",
        "below_minimum" => "Below minimum",
        "too_large" => "Not credited",
        _ => "Unknown",
    }
}

/// "2 of 3" while pending with a confirmation count to reach; the count alone otherwise.
fn confirmations_text(d: &DepositView, option: Option<&DepositOption>) -> String {
    let Some(c) = d.confirmations else {
        return "–".into();
    };
    let required = option.and_then(|o| o.confirmations_required);
    match (d.state.as_str(), required) {
        ("pending", Some(n)) => format!("{c} of {n}"),
        ("pending", None) => format!("{c}, waiting for finality"),
        _ => c.to_string(),
    }
}

/// The QR code of `link` as an inline SVG element (one path, no script, no style attribute,
/// so the page's Content-Security-Policy allows it), scaled by CSS.
pub fn qr_svg(link: &str) -> String {
    let Ok(code) = QrCode::new(link.as_bytes()) else {
        // Only a link beyond a QR code's capacity (about 2,900 bytes) fails.
        return String::new();
    };
    let image = code
        .render::<svg::Color>()
        .module_dimensions(1, 1)
        .quiet_zone(true)
        .build();
    let start = image.find("<svg").unwrap_or(0);
    image[start..].replacen(
        "<svg ",
        "<svg class=\"qr\" role=\"img\" aria-label=\"QR code of the payment link\" ",
        1,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    const LINK: &str = "ethereum:0x5FbDB2315678afecb367f032d93F642f64180aa3@31337/transfer?address=0x70997970C51812dc3A010C7d01b50e0d17dc79C8";

    /// The SVG is the QR code of the link: its dark modules are exactly those of the code
    /// the `qrcode` crate makes from the link, and differ from another link's.
    #[test]
    fn the_qr_code_encodes_the_link() {
        let svg = qr_svg(LINK);
        assert!(svg.starts_with("<svg class=\"qr\" role=\"img\""), "{svg}");
        assert!(!svg.contains("<script") && !svg.contains("style="));
        let code = QrCode::new(LINK.as_bytes()).unwrap();
        let width = code.width() as u32;
        let quiet = 4;
        let dark = dark_modules(&svg);
        let expected: std::collections::BTreeSet<(u32, u32)> = (0..width)
            .flat_map(|y| (0..width).map(move |x| (x, y)))
            .filter(|&(x, y)| code[(x as usize, y as usize)] == qrcode::Color::Dark)
            .map(|(x, y)| (x + quiet, y + quiet))
            .collect();
        assert_eq!(dark, expected);
        assert_ne!(
            dark_modules(&qr_svg(&format!("{LINK}&uint256=1"))),
            expected
        );
    }

    /// The dark modules an SVG path of `M{x} {y}h{w}v1H{x}V{y}` rectangles covers.
    fn dark_modules(svg: &str) -> std::collections::BTreeSet<(u32, u32)> {
        let d = svg
            .split(" d=\"")
            .nth(1)
            .unwrap()
            .split('"')
            .next()
            .unwrap();
        let mut out = std::collections::BTreeSet::new();
        for rect in d.split('M').filter(|r| !r.is_empty()) {
            let nums: Vec<u32> = rect
                .split(|c: char| !c.is_ascii_digit())
                .filter(|n| !n.is_empty())
                .map(|n| n.parse().unwrap())
                .collect();
            let (x, y, w, h) = (nums[0], nums[1], nums[2], nums[3]);
            for dy in 0..h {
                for dx in 0..w {
                    out.insert((x + dx, y + dy));
                }
            }
        }
        out
    }

    #[test]
    fn amounts_in_the_link() {
        assert_eq!(link_amount("25", 6), Ok(25_000_000));
        assert_eq!(link_amount("0.5", 6), Ok(500_000));
        for bad in ["0", "-1", "1.0000001", "abc", "", "1000000001", "1e6"] {
            assert!(link_amount(bad, 6).is_err(), "{bad}");
        }
    }

    #[test]
    fn pending_rows_show_confirmations_to_go() {
        let option = DepositOption {
            chain: "anvil".into(),
            chain_id: 31337,
            token: "0x5FbDB2315678afecb367f032d93F642f64180aa3".into(),
            symbol: "USDC".into(),
            decimals: 6,
            minimum: "0".into(),
            finality: "3 confirmations".into(),
            confirmations_required: Some(3),
            address: "0x70997970C51812dc3A010C7d01b50e0d17dc79C8".into(),
            payment_uri: LINK.into(),
            head_block: Some(12),
            final_block: Some(9),
            observed_at: Some(0),
        };
        let view = |state: &str, confirmations| DepositView {
            id: None,
            chain_id: 31337,
            tx_hash: format!("0x{}", "ab".repeat(32)),
            log_index: 0,
            block_number: 10,
            token: option.token.to_lowercase(),
            amount: Some("1".into()),
            amount_units: "1000000".into(),
            credits: 0,
            state: state.into(),
            confirmations,
            credited_at: None,
        };
        assert_eq!(
            confirmations_text(&view("pending", Some(2)), Some(&option)),
            "2 of 3"
        );
        assert_eq!(
            confirmations_text(&view("credited", Some(40)), Some(&option)),
            "40"
        );
        assert_eq!(
            confirmations_text(&view("pending", None), Some(&option)),
            "–"
        );
        let finalized = DepositOption {
            confirmations_required: None,
            ..option.clone()
        };
        assert_eq!(
            confirmations_text(&view("pending", Some(2)), Some(&finalized)),
            "2, waiting for finality"
        );
        assert_eq!(
            signature(&[view("pending", Some(2)), view("credited", Some(40))]),
            format!("0x{0}:0:pending:2,0x{0}:0:credited:", "ab".repeat(32))
        );
    }

    /// The page with a payment option and deposits: the QR inline, user-visible text escaped,
    /// no inline script.
    #[tokio::test]
    async fn the_page_renders_an_option_and_deposits() {
        let option = json!({
            "chain": "<b>base</b>", "chain_id": 8453, "symbol": "USDC", "decimals": 6,
            "token": "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913", "minimum": "1",
            "finality": "finalized", "confirmations_required": null,
            "address": "0x70997970C51812dc3A010C7d01b50e0d17dc79C8", "payment_uri": LINK,
        });
        let ctx = json!({
            "tab": "buy", "email": "a@example.com", "credits_per_usd": 500,
            "balance": {"credits": 7, "usd": "0.007", "total_deposited": 7},
            "options": [{"o": option, "link": LINK, "qr": qr_svg(LINK), "credits_for_amount": null,
                         "has_minimum": true, "watcher": null}],
            "deposits": [{"tx": "0xab", "tx_short": "0xab…", "block": 3, "amount": "1 USDC",
                          "state": "pending", "label": "Pending", "confirmations": "2, waiting for finality",
                          "credits": 0}],
            "signature": "0xab:0:pending:2",
        });
        let page = render(StatusCode::OK, "buy.html", ctx);
        assert_eq!(page.status(), StatusCode::OK);
        let body = axum::body::to_bytes(page.into_body(), usize::MAX)
            .await
            .unwrap();
        let html = String::from_utf8(body.to_vec()).unwrap();
        assert!(html.contains("<svg class=\"qr\""), "the QR code is inline");
        assert!(html.contains("&lt;b&gt;base") && !html.contains("<b>base"));
        assert!(html.contains("Deposits under 1 USDC are kept"));
        assert!(html.contains("the block is finalized"));
        assert!(html.contains("data-state=\"pending\""));
        assert_eq!(html.matches("<script").count(), 2, "app.js and buy.js only");
        assert!(!html.contains("<script>") && !html.contains(" style="));
    }
}
