//! `GET /api/v1/balance`: the credit balance of the account that owns the key.

use serde::{Deserialize, Serialize};

/// The balance object. Credits are integers (1 credit = USD 0.001); `usd` is the same balance
/// as a number, for display only: no money arithmetic is done on it.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BalanceResponse {
    /// Always `"balance"`.
    pub object: String,
    /// Credits left on the account.
    pub credits: i64,
    /// `credits` in USD.
    pub usd: f64,
    /// Credits deposited in total.
    pub total_deposited: i64,
    /// Credits spent in total.
    pub total_spent: i64,
    /// Credits reserved by requests in flight (holds not yet settled).
    pub credits_held: i64,
    /// Plan credits left today (reset at 00:00 UTC); 0 without a plan.
    pub daily_credits_left: i64,
}

impl BalanceResponse {
    pub const OBJECT: &'static str = "balance";
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn has_the_spec_fields() {
        let b = BalanceResponse {
            object: BalanceResponse::OBJECT.into(),
            credits: 1500,
            usd: 1.5,
            total_deposited: 2000,
            total_spent: 500,
            credits_held: 3,
            daily_credits_left: 0,
        };
        let v = serde_json::to_value(&b).unwrap();
        assert_eq!(
            v,
            json!({"object": "balance", "credits": 1500, "usd": 1.5, "total_deposited": 2000,
                   "total_spent": 500, "credits_held": 3, "daily_credits_left": 0})
        );
        assert_eq!(serde_json::from_value::<BalanceResponse>(v).unwrap(), b);
    }
}
