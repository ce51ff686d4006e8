//! The PostgreSQL backend, shared by several gateways.
//!
//! Holds and settles go through the ledger writers (`pg_writer`): a few connections that
//! commit what is waiting in batches, one call of the `shoal_ledger_batch` function each,
//! correct under concurrent transactions at the default READ COMMITTED level:
//!
//! - A hold is a row-level conditional `UPDATE ... WHERE id = $a AND available >= $n`. When
//!   another transaction holds the row, PostgreSQL waits for it and re-evaluates the
//!   condition against the committed row (EvalPlanQual), so two holds can never both see the
//!   same free credit. The hold row and the journal row follow only when the update matched.
//! - A settle locks the hold (`FOR UPDATE ... WHERE state = 'active'`, so a second settle waits
//!   and then finds it ended), then the account (`FOR UPDATE` returns the latest committed
//!   row), computes the plan-then-balance split from those locked values, and writes hold,
//!   account and journal.
//!
//! Everything else (accounts, keys, deposits, the reaper, pruning) is one statement or one
//! short transaction on a pooled connection. Lock order is hold, then account everywhere,
//! and a batch takes accounts in id order; the reaper skips holds a settle has locked.

use std::str::FromStr;
use std::sync::Arc;

use sqlx::postgres::{PgConnectOptions, PgConnection};
use sqlx::{ConnectOptions, Connection, Postgres, Row};

use crate::conns::Conns;
use crate::ledger::{self, EndKind};
use crate::pg_writer::Writers;
use crate::{
    AccountId, Charge, HoldOutcome, HoldRequest, Millis, Result, SettleOutcome, StoreError,
};

static MIGRATOR: sqlx::migrate::Migrator = sqlx::migrate!("./migrations/postgres");

const CONNECTIONS: usize = 16;
const EXPIRE_BATCH: i64 = 500;

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

/// $1 now, $2 batch size: holds due to expire, read without locks.
const DUE: &str = "SELECT request_id, account_id FROM holds
      WHERE state = 'active' AND expires_at <= $1
      ORDER BY expires_at LIMIT $2";

/// $1 accounts. Locked in id order, before any hold: the order every ledger transaction
/// takes locks in (account, then hold), so the reaper cannot deadlock with the writers.
const LOCK_ACCOUNTS: &str = "SELECT id FROM accounts WHERE id = ANY($1) ORDER BY id FOR UPDATE";

/// $1 now, $2 request ids. Re-checked under the locks: a hold settled meanwhile stays so.
const EXPIRE: &str = "UPDATE holds SET state = 'expired', ended_at = $1
      WHERE request_id = ANY($2) AND state = 'active' AND expires_at <= $1
     RETURNING account_id, credits, request_id, model";

/// $1 cut-off, $2 batch size. The subquery walks the `holds_ended` index.
const PRUNE: &str = "DELETE FROM holds WHERE request_id IN
       (SELECT request_id FROM holds WHERE state <> 'active' AND ended_at < $1 LIMIT $2)";
const PRUNE_BATCH: i64 = 1000;

#[derive(Clone)]
pub(crate) struct PgStore {
    pub(crate) conns: Arc<Conns<Postgres>>,
    /// Holds and settles, committed in batches.
    writers: Writers,
}

impl PgStore {
    pub(crate) async fn open_url(url: &str) -> Result<PgStore> {
        let options = PgConnectOptions::from_str(url)
            .map_err(|e| StoreError::Invalid(format!("bad PostgreSQL URL: {e}")))?
            .application_name("shoal");
        let mut first = options.connect().await?;
        MIGRATOR.run(&mut first).await?;
        Ok(PgStore {
            writers: Writers::start(options.clone()),
            conns: Arc::new(Conns::new(options, CONNECTIONS, Some(first))),
        })
    }

    pub(crate) async fn close(&self) {
        self.writers.close().await;
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
        self.writers.hold(req, now).await
    }

    pub(crate) async fn end_hold(
        &self,
        request_id: &str,
        kind: EndKind,
        charge: Option<&Charge>,
        now: Millis,
    ) -> Result<SettleOutcome> {
        self.writers.end_hold(request_id, kind, charge, now).await
    }

    pub(crate) async fn prune_holds(&self, before: Millis) -> Result<u64> {
        let mut total = 0u64;
        loop {
            let mut conn = self.conns.acquire().await?;
            let result = sqlx::query(PRUNE)
                .bind(before)
                .bind(PRUNE_BATCH)
                .execute(&mut *conn)
                .await;
            let n = match result {
                Ok(done) => done.rows_affected(),
                Err(e) => {
                    let e = StoreError::from(e);
                    conn.check(&e);
                    return Err(e);
                }
            };
            total += n;
            if (n as i64) < PRUNE_BATCH {
                return Ok(total);
            }
        }
    }

    pub(crate) async fn expire_holds(&self, now: Millis) -> Result<u64> {
        let mut conn = self.conns.acquire().await?;
        let mut total = 0u64;
        loop {
            match expire_batch(&mut conn, now).await {
                Ok((expired, due)) => {
                    total += expired;
                    if (due as i64) < EXPIRE_BATCH {
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

/// Expires one batch of due holds. Returns (holds expired, holds found due).
async fn expire_batch(conn: &mut PgConnection, now: Millis) -> Result<(u64, usize)> {
    let mut tx = conn.begin().await?;
    let due = sqlx::query(DUE)
        .bind(now)
        .bind(EXPIRE_BATCH)
        .fetch_all(&mut *tx)
        .await?;
    if due.is_empty() {
        tx.commit().await?;
        return Ok((0, 0));
    }
    let mut ids = Vec::with_capacity(due.len());
    let mut accounts = Vec::with_capacity(due.len());
    for r in &due {
        ids.push(r.try_get::<String, _>("request_id")?);
        accounts.push(r.try_get::<AccountId, _>("account_id")?);
    }
    accounts.sort_unstable();
    accounts.dedup();
    sqlx::query(LOCK_ACCOUNTS)
        .bind(&accounts)
        .execute(&mut *tx)
        .await?;
    let expired = sqlx::query(EXPIRE)
        .bind(now)
        .bind(&ids)
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
    Ok((expired.len() as u64, due.len()))
}
