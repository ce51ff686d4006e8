//! The PostgreSQL backend, shared by several gateways.
//!
//! Every ledger movement is one SQL statement run in autocommit mode: one round trip, one
//! transaction, correct under concurrent transactions at the default READ COMMITTED level.
//!
//! - A hold is a row-level conditional `UPDATE ... WHERE id = $a AND available >= $n`. When
//!   another transaction holds the row, PostgreSQL waits for it and re-evaluates the
//!   condition against the committed row (EvalPlanQual), so two holds can never both see the
//!   same free credit. The hold row and the journal row are inserted by data-modifying CTEs of
//!   the same statement, only when the update matched.
//! - A settle locks the hold (`FOR UPDATE ... WHERE state = 'active'`, so a second settle waits
//!   and then finds it ended), then the account (`FOR UPDATE` returns the latest committed
//!   row), computes the plan-then-balance split from those locked values, and writes hold,
//!   account and journal in the same statement.
//!
//! Lock order is hold, then account everywhere; the reaper skips holds a settle has locked.

use std::str::FromStr;
use std::sync::Arc;

use sqlx::postgres::{PgConnectOptions, PgConnection};
use sqlx::{ConnectOptions, Connection, Postgres, Row};

use crate::conns::Conns;
use crate::ledger::{self, EndKind};
use crate::{
    money, AccountId, Charge, HoldOutcome, HoldRequest, Millis, Result, SettleOutcome, StoreError,
};

static MIGRATOR: sqlx::migrate::Migrator = sqlx::migrate!("./migrations/postgres");

const CONNECTIONS: usize = 16;
const EXPIRE_BATCH: i64 = 500;
/// Attempts at a hold whose conditional write failed while a fresh read says it fits
/// (credit freed by a concurrent settle between the two).
const HOLD_ATTEMPTS: usize = 3;

/// Available credit for new holds: plan credits left today (`$DAY`) + balance − holds.
macro_rules! available_sql {
    ($day:literal) => {
        concat!(
            "(CASE WHEN plan_day >= ",
            $day,
            " THEN GREATEST(plan_daily_credits - plan_used, 0) ELSE plan_daily_credits END)",
            " + credits - held"
        )
    };
}

/// $1 account, $2 credits, $3 today, $4 request id, $5 model, $6 now, $7 expires at.
const HOLD: &str = concat!(
    "WITH a AS (
        UPDATE accounts SET held = held + $2
         WHERE id = $1 AND ",
    available_sql!("$3"),
    " >= $2
         RETURNING id
     ), h AS (
        INSERT INTO holds (request_id, account_id, credits, model, created_at, expires_at)
        SELECT $4, id, $2, $5, $6, $7 FROM a
     ), j AS (
        INSERT INTO journal (at, kind, account_id, request_id, model, credits)
        SELECT $6, 'hold', id, $4, $5, $2 FROM a
     )
     SELECT count(*) AS admitted FROM a"
);

/// $1 account, $2 today.
const AVAILABLE: &str = concat!(
    "SELECT ",
    available_sql!("$2"),
    " AS available FROM accounts WHERE id = $1"
);

/// $1 account, $2 credits, $3 now, $4 cap on lifetime deposits.
const GRANT: &str = "WITH a AS (
        UPDATE accounts SET credits = credits + $2, total_deposited = total_deposited + $2
         WHERE id = $1 AND total_deposited + $2 <= $4
         RETURNING id, credits
     ), j AS (
        INSERT INTO journal (at, kind, account_id, credits, bucket)
        SELECT $3, 'deposit', id, $2, 'balance' FROM a
     )
     SELECT credits FROM a";

/// Ends a hold: $1 request id, $2 now, $3 today, $4 'settle' or 'void', $5 billed credits
/// (NULL: usage missing), $6-$8 input/output/reasoning tokens. Mirrors `ledger::ending`:
/// a hold at or past its expiry ends as 'expire' with charge 0; the charge is clamped to
/// [0, hold] and split plan first, then balance, never more than the balance; the plan day
/// only moves forward. No row: no active hold with that id.
const END: &str = "WITH h AS (
    SELECT request_id, account_id, credits, model, expires_at <= $2 AS expired
      FROM holds WHERE request_id = $1 AND state = 'active'
       FOR UPDATE
 ), a AS (
    SELECT id,
           CASE WHEN plan_day >= $3 THEN plan_used ELSE 0 END AS used,
           GREATEST(plan_day, $3) AS day,
           CASE WHEN plan_day >= $3 THEN GREATEST(plan_daily_credits - plan_used, 0)
                ELSE plan_daily_credits END AS plan_left,
           credits AS balance
      FROM accounts WHERE id = (SELECT account_id FROM h)
       FOR UPDATE
 ), c AS (
    SELECT h.account_id, h.credits AS hold, h.model,
           CASE WHEN h.expired THEN 'expire' ELSE $4::TEXT END AS kind,
           CASE WHEN h.expired THEN 0
                WHEN $5::BIGINT IS NULL THEN h.credits
                ELSE LEAST(GREATEST($5::BIGINT, 0), h.credits) END AS charge,
           a.used, a.day, a.plan_left, a.balance
      FROM h JOIN a ON a.id = h.account_id
 ), s AS (
    SELECT c.*, LEAST(c.charge, c.plan_left) AS from_plan,
           LEAST(c.charge - LEAST(c.charge, c.plan_left), c.balance) AS from_balance
      FROM c
 ), uh AS (
    UPDATE holds SET state = CASE s.kind WHEN 'settle' THEN 'settled'
                                         WHEN 'void' THEN 'voided'
                                         ELSE 'expired' END,
                     ended_at = $2,
                     charged_plan = s.from_plan,
                     charged_balance = s.from_balance
      FROM s WHERE holds.request_id = $1
 ), ua AS (
    UPDATE accounts SET held = accounts.held - s.hold,
                        credits = accounts.credits - s.from_balance,
                        total_spent = accounts.total_spent + s.from_balance,
                        plan_used = s.used + s.from_plan,
                        plan_day = s.day
      FROM s WHERE accounts.id = s.account_id
 ), j AS (
    INSERT INTO journal (at, kind, account_id, request_id, model, input_tokens,
                         output_tokens, reasoning_tokens, credits, bucket, plan_day)
    SELECT $2, s.kind, s.account_id, $1, s.model,
           CASE WHEN s.kind = 'settle' THEN $6::BIGINT ELSE 0 END,
           CASE WHEN s.kind = 'settle' THEN $7::BIGINT ELSE 0 END,
           CASE WHEN s.kind = 'settle' THEN $8::BIGINT ELSE 0 END,
           s.from_balance,
           CASE WHEN s.kind = 'settle' THEN 'balance' END, NULL::BIGINT
      FROM s
    UNION ALL
    SELECT $2, 'settle', s.account_id, $1, s.model, 0, 0, 0, s.from_plan, 'plan', s.day
      FROM s WHERE s.from_plan > 0
 )
 SELECT kind, hold, from_plan, from_balance FROM s";

/// $1 now, $2 batch size. SKIP LOCKED: a hold being settled right now is left to its settle.
const EXPIRE: &str = "UPDATE holds SET state = 'expired', ended_at = $1
      WHERE request_id IN (SELECT request_id FROM holds
                            WHERE state = 'active' AND expires_at <= $1
                            ORDER BY expires_at LIMIT $2
                              FOR UPDATE SKIP LOCKED)
     RETURNING account_id, credits, request_id, model";

#[derive(Clone)]
pub(crate) struct PgStore {
    pub(crate) conns: Arc<Conns<Postgres>>,
}

impl PgStore {
    pub(crate) async fn open_url(url: &str) -> Result<PgStore> {
        let options = PgConnectOptions::from_str(url)
            .map_err(|e| StoreError::Invalid(format!("bad PostgreSQL URL: {e}")))?
            .application_name("shoal");
        let mut first = options.connect().await?;
        MIGRATOR.run(&mut first).await?;
        Ok(PgStore {
            conns: Arc::new(Conns::new(options, CONNECTIONS, Some(first))),
        })
    }

    pub(crate) async fn close(&self) {
        self.conns.close().await;
    }

    /// One write statement returning at most one row whose first column is an id.
    pub(crate) async fn write_returning_id(
        &self,
        query: sqlx::query::Query<'_, Postgres, sqlx::postgres::PgArguments>,
    ) -> Result<Option<i64>> {
        let mut conn = self.conns.acquire().await?;
        let result = match query.fetch_optional(&mut *conn).await {
            Ok(Some(row)) => row.try_get::<i64, _>(0).map(Some).map_err(StoreError::from),
            Ok(None) => Ok(None),
            Err(e) => Err(e.into()),
        };
        if let Err(e) = &result {
            conn.check(e);
        }
        result
    }

    pub(crate) async fn grant_credits(
        &self,
        account: AccountId,
        credits: i64,
        now: Millis,
    ) -> Result<i64> {
        let mut conn = self.conns.acquire().await?;
        let result = grant_in(&mut conn, account, credits, now).await;
        if let Err(e) = &result {
            conn.check(e);
        }
        result
    }

    pub(crate) async fn hold(&self, req: &HoldRequest, now: Millis) -> Result<HoldOutcome> {
        let mut conn = self.conns.acquire().await?;
        let result = hold_in(&mut conn, req, now).await;
        if let Err(e) = &result {
            conn.check(e);
        }
        result
    }

    pub(crate) async fn end_hold(
        &self,
        request_id: &str,
        kind: EndKind,
        charge: Option<&Charge>,
        now: Millis,
    ) -> Result<SettleOutcome> {
        let mut conn = self.conns.acquire().await?;
        let result = end_hold_in(&mut conn, request_id, kind, charge, now).await;
        if let Err(e) = &result {
            conn.check(e);
        }
        result
    }

    pub(crate) async fn expire_holds(&self, now: Millis) -> Result<u64> {
        let mut conn = self.conns.acquire().await?;
        let mut total = 0u64;
        loop {
            match expire_batch(&mut conn, now).await {
                Ok(n) => {
                    total += n;
                    if (n as i64) < EXPIRE_BATCH {
                        return Ok(total);
                    }
                }
                Err(e) => {
                    conn.check(&e);
                    return Err(e);
                }
            }
        }
    }
}

async fn grant_in(
    conn: &mut PgConnection,
    account: AccountId,
    credits: i64,
    now: Millis,
) -> Result<i64> {
    let row = sqlx::query(GRANT)
        .bind(account)
        .bind(credits)
        .bind(now)
        .bind(ledger::MAX_CREDITS)
        .fetch_optional(&mut *conn)
        .await?;
    if let Some(row) = row {
        return Ok(row.try_get("credits")?);
    }
    let exists = sqlx::query("SELECT 1 FROM accounts WHERE id = $1")
        .bind(account)
        .fetch_optional(&mut *conn)
        .await?
        .is_some();
    Err(if exists {
        ledger::over_cap()
    } else {
        StoreError::NotFound("account")
    })
}

async fn hold_in(conn: &mut PgConnection, req: &HoldRequest, now: Millis) -> Result<HoldOutcome> {
    let today = money::utc_day(now);
    let mut attempt = 0;
    loop {
        attempt += 1;
        let admitted: i64 = sqlx::query(HOLD)
            .bind(req.account_id)
            .bind(req.credits)
            .bind(today)
            .bind(&req.request_id)
            .bind(&req.model)
            .bind(now)
            .bind(req.expires_at)
            .fetch_one(&mut *conn)
            .await
            .map_err(ledger::duplicate_request)?
            .try_get("admitted")?;
        if admitted == 1 {
            return Ok(HoldOutcome::Held);
        }
        // Not admitted. Under READ COMMITTED a settle may have freed credit since the write
        // looked; a fresh read tells, and a retry is a new conditional write.
        let available: i64 = sqlx::query(AVAILABLE)
            .bind(req.account_id)
            .bind(today)
            .fetch_optional(&mut *conn)
            .await?
            .ok_or(StoreError::NotFound("account"))?
            .try_get("available")?;
        if available < req.credits || attempt >= HOLD_ATTEMPTS {
            return Ok(HoldOutcome::Insufficient {
                needed: req.credits,
                available: available.clamp(0, req.credits - 1),
            });
        }
    }
}

async fn end_hold_in(
    conn: &mut PgConnection,
    request_id: &str,
    kind: EndKind,
    charge: Option<&Charge>,
    now: Millis,
) -> Result<SettleOutcome> {
    let billed = match kind {
        EndKind::Settle => charge.map(|c| c.credits),
        EndKind::Void | EndKind::Expire => Some(0),
    };
    let tokens = charge
        .filter(|_| kind == EndKind::Settle)
        .cloned()
        .unwrap_or_default();
    let row = sqlx::query(END)
        .bind(request_id)
        .bind(now)
        .bind(money::utc_day(now))
        .bind(kind.journal_kind())
        .bind(billed)
        .bind(tokens.input_tokens)
        .bind(tokens.output_tokens)
        .bind(tokens.reasoning_tokens)
        .fetch_optional(&mut *conn)
        .await?;
    let Some(row) = row else {
        let exists = sqlx::query("SELECT 1 FROM holds WHERE request_id = $1")
            .bind(request_id)
            .fetch_optional(&mut *conn)
            .await?
            .is_some();
        return Ok(if exists {
            SettleOutcome::AlreadyEnded
        } else {
            SettleOutcome::UnknownHold
        });
    };
    let end = ledger::Ending {
        kind: match row.try_get::<&str, _>("kind")? {
            "settle" => EndKind::Settle,
            "void" => EndKind::Void,
            _ => EndKind::Expire,
        },
        from_plan: row.try_get("from_plan")?,
        from_balance: row.try_get("from_balance")?,
    };
    Ok(end.outcome(row.try_get("hold")?))
}

async fn expire_batch(conn: &mut PgConnection, now: Millis) -> Result<u64> {
    let mut tx = conn.begin().await?;
    let expired = sqlx::query(EXPIRE)
        .bind(now)
        .bind(EXPIRE_BATCH)
        .fetch_all(&mut *tx)
        .await?;
    let expired = expired
        .iter()
        .map(|r| -> Result<ledger::Expired> {
            Ok(ledger::Expired {
                account_id: r.try_get("account_id")?,
                credits: r.try_get("credits")?,
                request_id: r.try_get("request_id")?,
                model: r.try_get("model")?,
            })
        })
        .collect::<Result<Vec<_>>>()?;
    // Accounts in id order: a stable lock order between concurrent reapers.
    for (account, released) in ledger::released_by_account(&expired) {
        sqlx::query("UPDATE accounts SET held = held - $1 WHERE id = $2")
            .bind(released)
            .bind(account)
            .execute(&mut *tx)
            .await?;
    }
    for chunk in expired.chunks(100) {
        let mut qb = sqlx::QueryBuilder::<Postgres>::new(
            "INSERT INTO journal (at, kind, account_id, request_id, model, credits) ",
        );
        qb.push_values(chunk, |mut b, e| {
            b.push_bind(now)
                .push_bind("expire")
                .push_bind(e.account_id)
                .push_bind(&e.request_id)
                .push_bind(&e.model)
                .push_bind(0i64);
        });
        qb.build().execute(&mut *tx).await?;
    }
    tx.commit().await?;
    Ok(expired.len() as u64)
}
