//! Pieces of the ledger shared by both backends.
//!
//! The rules themselves (clamping a charge, plan credits left today, the plan-then-balance
//! split, when the plan day moves) are the pure functions of [`crate::money`]. SQLite
//! evaluates them in Rust (its hold admission calls `money` through a function registered
//! on the write connection); PostgreSQL, inside its statements so that a movement is one
//! round trip, through SQL functions of its migrations that mirror `money` one for one and
//! are checked against it by the tests. The simulation test checks every movement and every
//! account row against a model built on `money`.

use std::collections::BTreeMap;

use crate::fault::Fault;
use crate::money::{self, LimitReset};
use crate::{AccountId, HoldOutcome, KeyId, Millis, SettleOutcome, StoreError};

/// Largest amount of credits any single figure may reach: deposits, a plan's daily
/// credits, a hold. Keeps every sum far from `i64` overflow (SQLite would silently turn an
/// overflowing integer into a float). 10^15 credits is USD 10^12.
pub const MAX_CREDITS: i64 = 1_000_000_000_000_000;

/// Longest request id and model name accepted in a hold.
pub(crate) const MAX_ID_LEN: usize = 256;

/// How a hold ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum EndKind {
    Settle,
    Void,
    Expire,
}

impl EndKind {
    pub(crate) fn hold_state(self) -> &'static str {
        match self {
            EndKind::Settle => "settled",
            EndKind::Void => "voided",
            EndKind::Expire => "expired",
        }
    }

    #[cfg(test)]
    fn from_hold_state(state: &str) -> EndKind {
        match state {
            "settled" => EndKind::Settle,
            "voided" => EndKind::Void,
            _ => EndKind::Expire,
        }
    }

    pub(crate) fn journal_kind(self) -> &'static str {
        match self {
            EndKind::Settle => "settle",
            EndKind::Void => "void",
            EndKind::Expire => "expire",
        }
    }
}

/// What ending one hold does.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Ending {
    /// `Expire` when the hold had already passed its `expires_at`.
    pub kind: EndKind,
    pub from_free: i64,
    pub from_plan: i64,
    pub from_balance: i64,
}

impl Ending {
    pub(crate) fn outcome(&self, hold: i64) -> SettleOutcome {
        match self.kind {
            // The request ran past its TTL: the hold is released, nothing is charged, and
            // the caller learns the hold was already over.
            EndKind::Expire => SettleOutcome::AlreadyEnded,
            EndKind::Settle | EndKind::Void => {
                let charged = self.from_free + self.from_plan + self.from_balance;
                SettleOutcome::Settled {
                    charged,
                    from_free: self.from_free,
                    from_plan: self.from_plan,
                    from_balance: self.from_balance,
                    released: hold - charged,
                }
            }
        }
    }
}

/// A hold the reaper released.
#[derive(Debug, Clone)]
pub(crate) struct Expired {
    pub account_id: AccountId,
    pub credits: i64,
    pub request_id: String,
    pub model: String,
    /// The key whose limit the hold counted towards, if it did.
    pub limited_key: Option<KeyId>,
}

/// Credits released per account, in account order (a stable lock order on PostgreSQL).
pub(crate) fn released_by_account(expired: &[Expired]) -> BTreeMap<AccountId, i64> {
    let mut out = BTreeMap::new();
    for e in expired {
        *out.entry(e.account_id).or_insert(0) += e.credits;
    }
    out
}

/// Credits given back per key whose limit the holds counted towards, in key order.
pub(crate) fn released_by_key(expired: &[Expired]) -> BTreeMap<KeyId, i64> {
    let mut out = BTreeMap::new();
    for e in expired {
        if let Some(key) = e.limited_key {
            *out.entry(key).or_insert(0) += e.credits;
        }
    }
    out
}

pub(crate) fn over_cap() -> StoreError {
    StoreError::Invalid(format!(
        "total deposits may not exceed {MAX_CREDITS} credits"
    ))
}

/// Maps a unique violation on `holds.request_id` to [`StoreError::Conflict`].
pub(crate) fn duplicate_request(f: Fault) -> Fault {
    if f.is_unique_violation() {
        duplicate_hold().into()
    } else {
        f
    }
}

/// A hold refused by its key's spending limit, at `now`.
pub(crate) fn key_limit_exceeded(
    needed: i64,
    limit: i64,
    remaining: i64,
    reset: LimitReset,
    now: Millis,
) -> HoldOutcome {
    HoldOutcome::KeyLimitExceeded {
        needed,
        limit,
        remaining: remaining.max(0),
        reset,
        resets_at: money::limit_resets_on(reset, money::utc_day(now)).map(|d| d * money::DAY_MS),
    }
}

pub(crate) fn management_key_holds() -> StoreError {
    StoreError::Invalid("a management key cannot run requests".into())
}

pub(crate) fn duplicate_hold() -> StoreError {
    StoreError::Conflict("a hold with this request id already exists".into())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn outcomes() {
        let settled = Ending {
            kind: EndKind::Settle,
            from_free: 0,
            from_plan: 20,
            from_balance: 5,
        };
        assert_eq!(
            settled.outcome(50),
            SettleOutcome::Settled {
                charged: 25,
                from_free: 0,
                from_plan: 20,
                from_balance: 5,
                released: 25
            }
        );
        let voided = Ending {
            kind: EndKind::Void,
            from_free: 0,
            from_plan: 0,
            from_balance: 0,
        };
        assert_eq!(
            voided.outcome(50),
            SettleOutcome::Settled {
                charged: 0,
                from_free: 0,
                from_plan: 0,
                from_balance: 0,
                released: 50
            }
        );
        let expired = Ending {
            kind: EndKind::Expire,
            from_free: 0,
            from_plan: 0,
            from_balance: 0,
        };
        assert_eq!(expired.outcome(50), SettleOutcome::AlreadyEnded);
        for kind in [EndKind::Settle, EndKind::Void, EndKind::Expire] {
            assert_eq!(EndKind::from_hold_state(kind.hold_state()), kind);
        }
    }
}
