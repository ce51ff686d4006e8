//! The PostgreSQL ledger's statements: the batch call, and the single statements a job
//! alone in the queue is sent as.
//!
//! A job alone (low load) is one statement instead of a call of `shoal_ledger_batch`: a call
//! for one job costs about twice the database time of these (an executor start-up for each
//! statement inside it), which a batch shares out and a single job cannot. The rules are the
//! SQL functions of the migrations (`shoal_available_free` and its neighbours), shared with
//! `shoal_ledger_batch`, so the statements and the function cannot drift apart.
//!
//! Each single statement comes in two forms: `_NOWAIT`, for the writer, which must never
//! wait behind a row another session keeps locked, and `_WAIT`, for the lane that runs a job
//! whose account was found locked (it waits, at most `lock_timeout`).

pub(crate) const BATCH: &str =
    "SELECT r_ord, r_outcome, r_hold, r_plan, r_balance, r_available, r_free, r_limit, r_reset
       FROM shoal_ledger_batch($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)";

/// Available credit for new holds: free credits left within the allowance (`$FREE`) + plan
/// credits left today (`$DAY`) + balance − holds. The rules are SQL functions of the
/// migrations (`shoal_available_free` and its neighbours), shared with `shoal_ledger_batch`.
macro_rules! available_sql {
    ($free:literal, $day:literal) => {
        concat!(
            "shoal_available_free(",
            $free,
            ", free_day, free_used, plan_daily_credits, plan_day, plan_used, credits, held, ",
            $day,
            ")"
        )
    };
}

/// $1 account, $2 credits, $3 today, $4 request id, $5 model, $6 now, $7 expires at, $8 free
/// allowance, $9 key id. A duplicate request id fails the statement (unique violation):
/// nothing is written. `$lock` locks the account row first (`l`, evaluated before the
/// update reads it): with `NOWAIT` a row locked by another session fails the statement at
/// once (SQLSTATE 55P03) instead of stalling the writer.
macro_rules! hold_sql {
    ($lock:literal) => {
        concat!(
            "WITH l AS MATERIALIZED (
                SELECT id FROM accounts WHERE id = $1 ",
            $lock,
            "
             ), a AS (
                UPDATE accounts SET held = held + $2
                 WHERE id = (SELECT id FROM l) AND ",
            available_sql!("$8", "$3"),
            " >= $2
                 RETURNING id
             ), h AS (
                INSERT INTO holds (request_id, account_id, credits, model, created_at,
                                   expires_at, free_daily, key_id)
                SELECT $4, id, $2, $5, $6, $7, $8, $9 FROM a
             ), j AS (
                INSERT INTO journal (at, kind, account_id, request_id, model, credits, key_id)
                SELECT $6, 'hold', id, $4, $5, $2, $9 FROM a
             )
             SELECT count(*) AS admitted, NULL::BOOLEAN AS management,
                    NULL::BIGINT AS key_left, NULL::BIGINT AS limit_credits,
                    NULL::TEXT AS limit_reset
               FROM a"
        )
    };
}

pub(crate) const HOLD_NOWAIT: &str = hold_sql!("FOR UPDATE NOWAIT");
pub(crate) const HOLD_WAIT: &str = hold_sql!("FOR UPDATE");

/// A hold made with API key $9: the same, and the key must allow it. The key's row is
/// locked after the account's (`k` filters on `l`) and read as it is now (`FOR UPDATE`, not
/// the statement's snapshot, which predates the account's lock). A key with a limit must
/// have `$2` left in the window (`shoal_key_left`), and then reserves it (`limit_held`); the
/// hold remembers that it counted (`key_limited`). A management key holds nothing.
macro_rules! hold_key_sql {
    ($lock:literal) => {
        concat!(
            "WITH l AS MATERIALIZED (
                SELECT id FROM accounts WHERE id = $1 ",
            $lock,
            "
             ), k AS MATERIALIZED (
                SELECT id, kind = 'management' AS management,
                       limit_credits IS NOT NULL AS limited, limit_credits, limit_reset,
                       shoal_key_left(limit_credits, limit_window, limit_spent, limit_held,
                                      shoal_limit_window(limit_reset, $3)) AS key_left
                  FROM api_keys
                 WHERE id = $9 AND account_id = $1 AND EXISTS (SELECT 1 FROM l)
                   FOR UPDATE
             ), ok AS MATERIALIZED (
                SELECT NOT EXISTS (SELECT 1 FROM k WHERE management OR (limited AND key_left < $2))
                       AS fits
             ), a AS (
                UPDATE accounts SET held = held + $2
                 WHERE id = (SELECT id FROM l) AND (SELECT fits FROM ok) AND ",
            available_sql!("$8", "$3"),
            " >= $2
                 RETURNING id
             ), uk AS (
                UPDATE api_keys SET limit_held = api_keys.limit_held + $2
                  FROM a, k WHERE api_keys.id = k.id AND k.limited
             ), h AS (
                INSERT INTO holds (request_id, account_id, credits, model, created_at,
                                   expires_at, free_daily, key_id, key_limited)
                SELECT $4, id, $2, $5, $6, $7, $8, $9,
                       COALESCE((SELECT limited FROM k), false) FROM a
             ), j AS (
                INSERT INTO journal (at, kind, account_id, request_id, model, credits, key_id)
                SELECT $6, 'hold', id, $4, $5, $2, $9 FROM a
             )
             SELECT count(*) AS admitted, (SELECT management FROM k) AS management,
                    (SELECT key_left FROM k WHERE limited) AS key_left,
                    (SELECT limit_credits FROM k) AS limit_credits,
                    (SELECT limit_reset FROM k) AS limit_reset
               FROM a"
        )
    };
}

pub(crate) const HOLD_KEY_NOWAIT: &str = hold_key_sql!("FOR UPDATE NOWAIT");
pub(crate) const HOLD_KEY_WAIT: &str = hold_key_sql!("FOR UPDATE");

/// $1 account, $2 today, $3 free allowance.
pub(crate) const AVAILABLE: &str = concat!(
    "SELECT ",
    available_sql!("$3", "$2"),
    " AS available FROM accounts WHERE id = $1"
);

/// Attempts at a hold whose conditional write failed while a fresh read says it fits
/// (credit freed by a concurrent settle between the two).
pub(crate) const HOLD_ATTEMPTS: usize = 3;

/// Ends a hold: $1 request id, $2 now, $3 today, $4 'settle' or 'void', $5 billed credits
/// (NULL: usage missing), $6-$8 input/output/reasoning tokens. Same rules as the function.
/// Settle rows also add to `usage_daily` (a trigger of the migrations).
/// Locks the account (`$lock`: `NOWAIT` as for holds), then the hold (`h` cannot lock its
/// row before `a` is evaluated: it filters on it). No row: no active hold with that id.
macro_rules! end_sql {
    ($lock:literal) => {
        concat!(
            "WITH o AS (
    SELECT account_id FROM holds WHERE request_id = $1
 ), a AS MATERIALIZED (
    SELECT id, plan_day, plan_used, free_day, free_used,
           shoal_plan_left(plan_daily_credits, plan_day, plan_used, $3) AS plan_left,
           credits AS balance
      FROM accounts WHERE id = (SELECT account_id FROM o)
       ",
            $lock,
            "
 ), h AS MATERIALIZED (
    SELECT request_id, account_id, credits, model, expires_at <= $2 AS expired, free_daily,
           key_id, key_limited
      FROM holds
     WHERE request_id = $1 AND state = 'active' AND EXISTS (SELECT 1 FROM a)
       FOR UPDATE
 ), c AS (
    SELECT h.account_id, h.credits AS hold, h.model, h.key_id, h.key_limited,
           CASE WHEN h.expired THEN 'expire' ELSE $4::TEXT END AS kind,
           shoal_charge($4::TEXT = 'settle', h.expired, $5::BIGINT, h.credits) AS charge,
           a.plan_day, a.plan_used, a.plan_left, a.balance, a.free_day, a.free_used,
           shoal_plan_left(h.free_daily, a.free_day, a.free_used, $3) AS free_left
      FROM h JOIN a ON a.id = h.account_id
 ), f AS (
    SELECT c.*, shoal_from_free(c.charge, c.free_left) AS from_free FROM c
 ), p AS (
    SELECT f.*, shoal_from_plan(f.charge - f.from_free, f.plan_left) AS from_plan,
           shoal_from_balance(f.charge - f.from_free, f.plan_left, f.balance) AS from_balance
      FROM f
 ), s AS (
    SELECT p.*, shoal_plan_day_after(p.plan_day, $3, p.from_plan) AS day,
           shoal_plan_used_after(p.plan_day, p.plan_used, $3, p.from_plan) AS used,
           shoal_plan_day_after(p.free_day, $3, p.from_free) AS fday,
           shoal_plan_used_after(p.free_day, p.free_used, $3, p.from_free) AS fused
      FROM p
 ), k AS MATERIALIZED (
    SELECT id, limit_window, limit_spent, shoal_limit_window(limit_reset, $3) AS current
      FROM api_keys WHERE id = (SELECT key_id FROM h WHERE key_limited)
       FOR UPDATE
 ), kw AS (
    SELECT k.id, s.hold,
           shoal_plan_day_after(k.limit_window, k.current,
                                s.from_free + s.from_plan + s.from_balance) AS win,
           shoal_plan_used_after(k.limit_window, k.limit_spent, k.current,
                                 s.from_free + s.from_plan + s.from_balance) AS spent
      FROM k, s
 ), uk AS (
    UPDATE api_keys SET limit_held = api_keys.limit_held - kw.hold,
                        limit_window = kw.win,
                        limit_spent = kw.spent
      FROM kw WHERE api_keys.id = kw.id
 ), uh AS (
    UPDATE holds SET state = CASE s.kind WHEN 'settle' THEN 'settled'
                                         WHEN 'void' THEN 'voided'
                                         ELSE 'expired' END,
                     ended_at = $2,
                     charged_plan = s.from_plan,
                     charged_balance = s.from_balance,
                     charged_free = s.from_free
      FROM s WHERE holds.request_id = $1
 ), ua AS (
    UPDATE accounts SET held = accounts.held - s.hold,
                        credits = accounts.credits - s.from_balance,
                        total_spent = accounts.total_spent + s.from_balance,
                        plan_used = s.used,
                        plan_day = s.day,
                        free_used = s.fused,
                        free_day = s.fday
      FROM s WHERE accounts.id = s.account_id
 ), j AS (
    INSERT INTO journal (at, kind, account_id, request_id, model, input_tokens,
                         output_tokens, reasoning_tokens, credits, bucket, plan_day, key_id,
                         key_window)
    SELECT $2, s.kind, s.account_id, $1, s.model,
           CASE WHEN s.kind = 'settle' THEN $6::BIGINT ELSE 0 END,
           CASE WHEN s.kind = 'settle' THEN $7::BIGINT ELSE 0 END,
           CASE WHEN s.kind = 'settle' THEN $8::BIGINT ELSE 0 END,
           s.from_balance,
           CASE WHEN s.kind = 'settle' THEN 'balance' END, NULL::BIGINT, s.key_id,
           (SELECT win FROM kw)
      FROM s
    UNION ALL
    SELECT $2, 'settle', s.account_id, $1, s.model, 0, 0, 0, s.from_plan, 'plan', s.day,
           s.key_id, (SELECT win FROM kw)
      FROM s WHERE s.from_plan > 0
    UNION ALL
    SELECT $2, 'settle', s.account_id, $1, s.model, 0, 0, 0, s.from_free, 'free', s.fday,
           s.key_id, (SELECT win FROM kw)
      FROM s WHERE s.from_free > 0
 )
 SELECT kind, hold, from_free, from_plan, from_balance FROM s"
        )
    };
}

pub(crate) const END_NOWAIT: &str = end_sql!("FOR UPDATE NOWAIT");
pub(crate) const END_WAIT: &str = end_sql!("FOR UPDATE");
