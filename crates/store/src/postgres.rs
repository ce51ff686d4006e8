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
use std::time::Duration;

use sqlx::postgres::{PgConnectOptions, PgConnection};
use sqlx::{Connection, Postgres, Row};

use crate::conns::{connect_within, Conns, Retry};
use crate::fault::DbResult;
use crate::ledger::{self, EndKind};
use crate::pg_writer::{self, Writers};
use crate::{
    AccountId, Charge, HoldOutcome, HoldRequest, Millis, SettleOutcome, StoreError, StoreOptions,
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
     RETURNING account_id, credits, request_id, model,
               CASE WHEN key_limited THEN key_id END AS limited_key";

/// $1 cut-off, $2 batch size. The subquery walks the `holds_ended` index.
const PRUNE: &str = "DELETE FROM holds WHERE request_id IN
       (SELECT request_id FROM holds WHERE state <> 'active' AND ended_at < $1 LIMIT $2)";
const PRUNE_BATCH: i64 = 1000;

/// An owned argument of a one-statement write, kept so that the statement can be sent again
/// on a fresh connection. NULLs keep their type (PostgreSQL checks a parameter's type).
#[derive(Debug, Clone)]
pub(crate) enum Arg {
    Int(Option<i64>),
    Text(Option<String>),
    Bytes(Vec<u8>),
    Bool(bool),
}

impl Arg {
    fn bind_to<'q>(
        &'q self,
        q: sqlx::query::Query<'q, Postgres, sqlx::postgres::PgArguments>,
    ) -> sqlx::query::Query<'q, Postgres, sqlx::postgres::PgArguments> {
        match self {
            Arg::Int(v) => q.bind(*v),
            Arg::Text(v) => q.bind(v.as_deref()),
            Arg::Bytes(v) => q.bind(&v[..]),
            Arg::Bool(v) => q.bind(*v),
        }
    }
}

impl From<i64> for Arg {
    fn from(v: i64) -> Arg {
        Arg::Int(Some(v))
    }
}

impl From<Option<i64>> for Arg {
    fn from(v: Option<i64>) -> Arg {
        Arg::Int(v)
    }
}

impl From<String> for Arg {
    fn from(v: String) -> Arg {
        Arg::Text(Some(v))
    }
}

impl From<Option<String>> for Arg {
    fn from(v: Option<String>) -> Arg {
        Arg::Text(v)
    }
}

impl From<Vec<u8>> for Arg {
    fn from(v: Vec<u8>) -> Arg {
        Arg::Bytes(v)
    }
}

impl From<bool> for Arg {
    fn from(v: bool) -> Arg {
        Arg::Bool(v)
    }
}

#[derive(Clone)]
pub(crate) struct PgStore {
    pub(crate) conns: Arc<Conns<Postgres>>,
    /// Holds and settles, committed in batches.
    writers: Writers,
    /// The longest the client waits for one operation.
    pub(crate) deadline: Duration,
}

impl PgStore {
    pub(crate) async fn open_url(url: &str, options: &StoreOptions) -> DbResult<PgStore> {
        let base = PgConnectOptions::from_str(url)
            .map_err(|e| StoreError::Invalid(format!("bad PostgreSQL URL: {e}")))?
            .application_name("shoal");
        // Migrations may rewrite whole tables: on a connection of their own, without the
        // statement timeout of the store's sessions.
        let mut first: PgConnection = connect_within(&base, options.connect_timeout).await?;
        MIGRATOR.run(&mut first).await?;
        let _ = first.close().await;
        let session = base.options(options.session_settings());
        let conns = Arc::new(Conns::new(
            session.clone(),
            CONNECTIONS,
            None,
            options.connect_timeout,
        ));
        let deadline = options.client_deadline();
        Ok(PgStore {
            writers: Writers::start(session, conns.clone(), deadline, options.connect_timeout),
            conns,
            deadline,
        })
    }

    pub(crate) async fn close(&self) {
        self.writers.close().await;
        self.conns.close().await;
    }

    /// One write statement (`$n` placeholders, owned arguments) returning at most one row
    /// whose first column is an id.
    pub(crate) async fn write_returning_id(
        &self,
        retry: Retry,
        sql: &'static str,
        args: Vec<Arg>,
    ) -> DbResult<Option<i64>> {
        pg!(self, retry, c => {
            let query = args.iter().fold(sqlx::query(sql), |q, a| a.bind_to(q));
            match query.fetch_optional(&mut *c).await? {
                Some(row) => Ok(Some(row.try_get::<i64, _>(0)?)),
                None => Ok(None),
            }
        })
    }

    pub(crate) async fn grant_credits(
        &self,
        account: AccountId,
        credits: i64,
        now: Millis,
    ) -> DbResult<i64> {
        pg!(self, Retry::IfNotRun, c => grant_in(c, account, credits, now).await)
    }

    /// A hold through the writer. One whose connection died under it is sent once more; if
    /// the first try had committed after all, the second finds its own hold there (same
    /// account, credits and time) and answers `Held`.
    pub(crate) async fn hold(&self, req: &HoldRequest, now: Millis) -> DbResult<HoldOutcome> {
        let mut retried = false;
        loop {
            match self.writers.hold(req, now).await {
                Ok(done) => match pg_writer::hold_outcome(&done, req.credits, now) {
                    Err(StoreError::Conflict(_)) if retried => {
                        return self.judge_hold(req, now).await
                    }
                    out => return Ok(out?),
                },
                Err(f) if f.session_ended && !retried => retried = true,
                Err(f) => return Err(f.error.into()),
            }
        }
    }

    /// After a retried hold found its request id taken: `Held` when the hold there is the
    /// one the first try wrote.
    async fn judge_hold(&self, req: &HoldRequest, now: Millis) -> DbResult<HoldOutcome> {
        const HOLD_OF: &str =
            "SELECT account_id, credits, created_at FROM holds WHERE request_id = $1";
        let row: Option<(i64, i64, i64)> = pg!(self, Retry::Idempotent, c => Ok(
            sqlx::query_as(HOLD_OF)
                .bind(&req.request_id)
                .fetch_optional(&mut *c)
                .await?
        ))?;
        if row == Some((req.account_id, req.credits, now)) {
            Ok(HoldOutcome::Held)
        } else {
            Err(ledger::duplicate_hold().into())
        }
    }

    pub(crate) async fn end_hold(
        &self,
        request_id: &str,
        kind: EndKind,
        charge: Option<&Charge>,
        now: Millis,
    ) -> DbResult<SettleOutcome> {
        match self.writers.end_hold(request_id, kind, charge, now).await {
            Ok(done) => Ok(pg_writer::end_outcome(&done)?),
            Err(f) => Err(f.error.into()),
        }
    }

    pub(crate) async fn prune_holds(&self, before: Millis) -> DbResult<u64> {
        let mut total = 0u64;
        loop {
            let n = pg!(self, Retry::Idempotent, c => Ok(sqlx::query(PRUNE)
                .bind(before)
                .bind(PRUNE_BATCH)
                .execute(&mut *c)
                .await?
                .rows_affected()))?;
            total += n;
            if (n as i64) < PRUNE_BATCH {
                return Ok(total);
            }
        }
    }

    pub(crate) async fn expire_holds(&self, now: Millis) -> DbResult<u64> {
        let mut total = 0u64;
        loop {
            let (expired, due) = pg!(self, Retry::Idempotent, c => expire_batch(c, now).await)?;
            total += expired;
            if (due as i64) < EXPIRE_BATCH {
                return Ok(total);
            }
        }
    }
}

async fn grant_in(
    conn: &mut PgConnection,
    account: AccountId,
    credits: i64,
    now: Millis,
) -> DbResult<i64> {
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
    }
    .into())
}

/// What expiring `expired` gives back (to the accounts, to the keys' limits), and its
/// journal rows.
async fn release_expired(
    tx: &mut PgConnection,
    expired: &[ledger::Expired],
    now: Millis,
) -> DbResult<()> {
    for (account, released) in ledger::released_by_account(expired) {
        sqlx::query("UPDATE accounts SET held = held - $1 WHERE id = $2")
            .bind(released)
            .bind(account)
            .execute(&mut *tx)
            .await?;
    }
    for (key, released) in ledger::released_by_key(expired) {
        sqlx::query("UPDATE api_keys SET limit_held = limit_held - $1 WHERE id = $2")
            .bind(released)
            .bind(key)
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
    Ok(())
}

/// Expires one batch of due holds. Returns (holds expired, holds found due).
async fn expire_batch(conn: &mut PgConnection, now: Millis) -> DbResult<(u64, usize)> {
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
        .map(|r| -> DbResult<ledger::Expired> {
            Ok(ledger::Expired {
                account_id: r.try_get("account_id")?,
                credits: r.try_get("credits")?,
                request_id: r.try_get("request_id")?,
                model: r.try_get("model")?,
                limited_key: r.try_get("limited_key")?,
            })
        })
        .collect::<DbResult<Vec<_>>>()?;
    release_expired(&mut tx, &expired, now).await?;
    tx.commit().await?;
    Ok((expired.len() as u64, due.len()))
}
