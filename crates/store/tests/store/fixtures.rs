//! What the ledger tests share: a fixed clock, a hold request, a charge, and the ledger check.

use shoal_store::{AccountId, Charge, HoldRequest, Store};

pub const DAY: i64 = 86_400_000;
/// 2025-10-09 10:00:00 UTC.
pub const T0: i64 = 20_370 * DAY + 10 * 3_600_000;

pub fn req(id: &str, account: AccountId, credits: i64, expires_at: i64) -> HoldRequest {
    HoldRequest {
        request_id: id.into(),
        account_id: account,
        credits,
        model: "large-27b-uncensored".into(),
        expires_at,
        free_daily: 0,
        key_id: None,
    }
}

pub fn charge(credits: i64) -> Charge {
    Charge {
        input_tokens: 1_200,
        output_tokens: 600,
        reasoning_tokens: 0,
        credits,
    }
}

pub async fn assert_clean(store: &Store) {
    let report = store.verify_ledger().await.unwrap();
    assert!(
        report.discrepancies.is_empty(),
        "ledger discrepancies: {:#?}",
        report.discrepancies
    );
}
