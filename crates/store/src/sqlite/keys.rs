//! The key limits on SQLite's writer: the same rules as PostgreSQL's statements, in Rust
//! (`money`), inside the writer's transaction (nobody else writes meanwhile).

use rusqlite::{params, Connection, OptionalExtension};

use crate::fault::DbResult;
use crate::ledger;
use crate::money::{self, LimitReset};
use crate::sqlite_writer::Db;
use crate::{HoldOutcome, HoldRequest, KeyId, KeyKind, Millis, StoreError};

/// ?1 key, ?2 its account.
const KEY_OF: &str = "SELECT kind, limit_credits, limit_reset, limit_window, limit_spent,
        limit_held FROM api_keys WHERE id = ?1 AND account_id = ?2";

const RESERVE: &str = "UPDATE api_keys SET limit_held = limit_held + ?2 WHERE id = ?1";

const WINDOW_OF: &str = "SELECT limit_reset, limit_window, limit_spent FROM api_keys WHERE id = ?1";

/// ?1 key, ?2 hold given back, ?3 window, ?4 spent in it.
const END: &str = "UPDATE api_keys
        SET limit_held = limit_held - ?2, limit_window = ?3, limit_spent = ?4
      WHERE id = ?1";

/// What the request's key says about a hold.
pub(super) enum KeyCheck {
    /// No key, or one without a limit: the hold does not count towards one.
    Unlimited,
    /// It fits the key's limit, and counts towards it.
    Limited,
    /// Refused by the key's limit.
    Refused(HoldOutcome),
}

fn reset_of(s: &str) -> DbResult<LimitReset> {
    LimitReset::parse(s)
        .ok_or_else(|| StoreError::Internal(format!("a key's limit_reset is {s:?}")).into())
}

/// Whether `req`'s key lets it hold `req.credits` on `now`'s window (`money::key_left`). A
/// management key holds nothing.
pub(super) fn check(conn: &Connection, req: &HoldRequest, now: Millis) -> DbResult<KeyCheck> {
    let Some(key) = req.key_id else {
        return Ok(KeyCheck::Unlimited);
    };
    let row = conn
        .prepare_cached(KEY_OF)
        .db()?
        .query_row(params![key, req.account_id], |r| {
            Ok((
                r.get::<_, String>(0)?,
                r.get::<_, Option<i64>>(1)?,
                r.get::<_, String>(2)?,
                [r.get::<_, i64>(3)?, r.get(4)?, r.get(5)?],
            ))
        })
        .optional()
        .db()?;
    let Some((kind, limit, reset, [window, spent, held])) = row else {
        return Ok(KeyCheck::Unlimited);
    };
    if KeyKind::parse(&kind) == Some(KeyKind::Management) {
        return Err(ledger::management_key_holds().into());
    }
    let Some(limit) = limit else {
        return Ok(KeyCheck::Unlimited);
    };
    let reset = reset_of(&reset)?;
    let current = money::limit_window(reset, money::utc_day(now));
    let left = money::key_left(limit, window, spent, held, current);
    if left < req.credits {
        let out = ledger::key_limit_exceeded(req.credits, limit, left, reset, now);
        return Ok(KeyCheck::Refused(out));
    }
    Ok(KeyCheck::Limited)
}

/// A hold that counts towards key `key` reserves `credits` of it.
pub(super) fn reserve(conn: &Connection, key: KeyId, credits: i64) -> DbResult<()> {
    let n = conn
        .prepare_cached(RESERVE)
        .db()?
        .execute(params![key, credits])
        .db()?;
    assert_eq!(n, 1, "the key was read in this transaction");
    Ok(())
}

/// The end of a hold that counted towards key `key`: `hold` given back, `charged` added to
/// the window of `today` (`money::plan_after` on the window). Returns the window it counted
/// in, for the journal.
pub(super) fn end(
    conn: &Connection,
    key: KeyId,
    hold: i64,
    charged: i64,
    today: i64,
) -> DbResult<i64> {
    let (reset, window, spent) = conn
        .prepare_cached(WINDOW_OF)
        .db()?
        .query_row([key], |r| {
            Ok((
                r.get::<_, String>(0)?,
                r.get::<_, i64>(1)?,
                r.get::<_, i64>(2)?,
            ))
        })
        .db()?;
    let current = money::limit_window(reset_of(&reset)?, today);
    let (window, spent) = money::plan_after(window, spent, current, charged);
    conn.prepare_cached(END)
        .db()?
        .execute(params![key, hold, window, spent])
        .db()?;
    Ok(window)
}
