//! The SQLite backend: one file in WAL mode, one writer task, a few reader connections.
//!
//! Writers serialize in two places: inside this process in the writer task, which owns the
//! only write connection and commits queued jobs in groups (see `sqlite_writer`), and
//! across processes (the server and `shoal admin` on the same file) on SQLite's write lock,
//! taken up front by `BEGIN IMMEDIATE` and waited for with `busy_timeout`. Inside such a
//! transaction nobody else can write; the hold is still a single conditional `UPDATE`, the
//! rule both backends share.
//!
//! Each ledger movement is one text of several statements: one trip to SQLite's worker
//! thread instead of one per statement. sqlx binds the `?N` parameters of later statements
//! of such a text at an offset that grows with the unused `?N` slots ("gaps") of earlier
//! ones, and silently leaves them NULL once it passes the number of arguments;
//! `multi_statement_binds_are_safe` below keeps every text clear of that.
//!
//! Durability: `synchronous = NORMAL` in WAL mode. A committed transaction survives a crash
//! of the process (`kill -9`); an OS crash or power loss may lose the last transactions
//! before a checkpoint, but never leaves a half-applied one. This is SQLite's recommended
//! setting for WAL and what keeps the embedded default fast.

use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::sync::Arc;
use std::time::Duration;

use sqlx::sqlite::{
    SqliteArguments, SqliteConnectOptions, SqliteConnection, SqliteJournalMode, SqliteSynchronous,
};
use sqlx::{ConnectOptions, Row, Sqlite};

use crate::conns::{Conns, Lease};
use crate::ledger::{self, EndKind};
use crate::sqlite_writer::{self, job_sql, Writer};
use crate::{
    money, AccountId, Charge, HoldOutcome, HoldRequest, Millis, Result, SettleOutcome, StoreError,
};

static MIGRATOR: sqlx::migrate::Migrator = sqlx::migrate!("./migrations/sqlite");

/// How long a writer waits for another process's write lock before giving up.
const BUSY_TIMEOUT: Duration = Duration::from_secs(10);
const READERS: usize = 4;
/// Holds expired per transaction by the reaper.
const EXPIRE_BATCH: i64 = 500;

/// Available credit for new holds: plan credits left today (`?DAY`) + balance − holds.
macro_rules! available_sql {
    ($day:literal) => {
        concat!(
            "(CASE WHEN plan_day >= ",
            $day,
            " THEN MAX(plan_daily_credits - plan_used, 0) ELSE plan_daily_credits END)",
            " + credits - held"
        )
    };
}

/// ?1 account, ?2 credits, ?3 today, ?4 request id, ?5 model, ?6 now, ?7 expires at.
/// The conditional write admits the hold; the inserts run only if it did (`changes()` is
/// the row count of the statement before). Returns a row when held, none when not.
/// (sqlx's summed "rows affected" is no use here: SQLite reports the previous count again
/// for BEGIN and COMMIT.)
const HOLD: [&str; 2] = job_sql!(
    "UPDATE accounts SET held = held + ?2 WHERE id = ?1 AND ",
    available_sql!("?3"),
    " >= ?2;
     INSERT INTO holds (request_id, account_id, credits, model, created_at, expires_at)
      SELECT ?4, ?1, ?2, ?5, ?6, ?7 WHERE changes() = 1;
     INSERT INTO journal (at, kind, account_id, request_id, model, credits)
      SELECT ?6, 'hold', ?1, ?4, ?5, ?2 WHERE changes() = 1
      RETURNING id;"
);

/// ?1 account, ?2 today.
const AVAILABLE: &str = concat!(
    "SELECT ",
    available_sql!("?2"),
    " AS available FROM accounts WHERE id = ?1"
);

/// The charge of the hold being ended (a column expression inside `UPDATE holds`): 0 when
/// expired or voided; the billed credits ?5 clamped to [0, hold]; the whole hold when ?5
/// is NULL (usage missing).
macro_rules! charge_sql {
    () => {
        "(CASE WHEN expires_at <= ?2 OR ?4 <> 'settle' THEN 0
               WHEN ?5 IS NULL THEN credits
               ELSE MAX(0, MIN(?5, credits)) END)"
    };
}

/// Plan credits left today (?3) on the hold's account.
macro_rules! plan_left_sql {
    () => {
        "(SELECT CASE WHEN a.plan_day >= ?3 THEN MAX(a.plan_daily_credits - a.plan_used, 0)
                      ELSE a.plan_daily_credits END
            FROM accounts a WHERE a.id = holds.account_id)"
    };
}

/// Ends a hold: ?1 request id, ?2 now, ?3 today, ?4 'settle' or 'void', ?5 billed credits
/// (NULL: usage missing), ?6-?8 input/output/reasoning tokens.
///
/// Mirrors `money::clamp_charge`/`split_charge`/`plan_left` and the PostgreSQL statement:
/// a hold at or past its expiry ends as expired with charge 0; the charge is split plan
/// credits left today first, then the balance, never more than the balance; the plan day
/// only moves forward. The split is stored on the hold row first, and the account and the
/// journal are written from it. The last SELECT reports the hold; `ended_now` counts the
/// journal rows this call wrote (0: the hold had already ended).
const END: [&str; 2] = job_sql!(
    "UPDATE holds
        SET state = CASE WHEN expires_at <= ?2 THEN 'expired'
                         WHEN ?4 = 'settle' THEN 'settled' ELSE 'voided' END,
            ended_at = ?2,
            charged_plan = MIN(",
    charge_sql!(),
    ", ",
    plan_left_sql!(),
    "),
            charged_balance = MIN(",
    charge_sql!(),
    " - MIN(",
    charge_sql!(),
    ", ",
    plan_left_sql!(),
    "),
                                  (SELECT a.credits FROM accounts a WHERE a.id = holds.account_id))
      WHERE request_id = ?1 AND state = 'active';
     UPDATE accounts
        SET held = accounts.held - h.hold,
            credits = accounts.credits - h.charged_balance,
            total_spent = accounts.total_spent + h.charged_balance,
            plan_used = (CASE WHEN accounts.plan_day >= ?3 THEN accounts.plan_used ELSE 0 END)
                        + h.charged_plan,
            plan_day = MAX(accounts.plan_day, ?3)
       FROM (SELECT account_id, credits AS hold, charged_plan, charged_balance
               FROM holds WHERE request_id = ?1) AS h
      WHERE accounts.id = h.account_id AND changes() = 1;
     INSERT INTO journal (at, kind, account_id, request_id, model, input_tokens,
                          output_tokens, reasoning_tokens, credits, bucket, plan_day)
      SELECT ?2, CASE state WHEN 'settled' THEN 'settle' WHEN 'voided' THEN 'void'
                            ELSE 'expire' END,
             account_id, request_id, model,
             CASE WHEN state = 'settled' THEN ?6 ELSE 0 END,
             CASE WHEN state = 'settled' THEN ?7 ELSE 0 END,
             CASE WHEN state = 'settled' THEN ?8 ELSE 0 END,
             charged_balance, CASE WHEN state = 'settled' THEN 'balance' END, NULL
        FROM holds WHERE request_id = ?1 AND changes() = 1
      UNION ALL
      SELECT ?2, 'settle', account_id, request_id, model, 0, 0, 0, charged_plan, 'plan',
             (SELECT a.plan_day FROM accounts a WHERE a.id = holds.account_id)
        FROM holds WHERE request_id = ?1 AND charged_plan > 0 AND changes() = 1;
     SELECT state, credits AS hold, charged_plan, charged_balance, changes() AS ended_now
       FROM holds WHERE request_id = ?1;"
);

/// ?1 account, ?2 credits, ?3 now, ?4 cap on lifetime deposits. Returns the new balance
/// (no row: unknown account or over the cap).
const GRANT: [&str; 2] = job_sql!(
    "UPDATE accounts SET credits = credits + ?2, total_deposited = total_deposited + ?2
      WHERE id = ?1 AND total_deposited + ?2 <= ?4
      RETURNING credits;
     INSERT INTO journal (at, kind, account_id, credits, bucket)
      SELECT ?3, 'deposit', ?1, ?2, 'balance' WHERE changes() = 1;"
);

/// ?1 now, ?2 batch size.
const EXPIRE: &str = "UPDATE holds SET state = 'expired', ended_at = ?1
      WHERE request_id IN (SELECT request_id FROM holds
                            WHERE state = 'active' AND expires_at <= ?1
                            ORDER BY expires_at LIMIT ?2)
     RETURNING account_id, credits, request_id, model";

#[derive(Clone)]
pub(crate) struct SqliteStore {
    /// The one write connection, owned by the writer task.
    writer: Writer,
    /// Reads (authentication, balances, listings) run here and never wait for the writer.
    reader: Arc<Conns<Sqlite>>,
}

/// What a hold job found.
enum Held {
    Yes,
    No { available: i64 },
    NoAccount,
}

/// A throwaway database file (what `sqlite::memory:` opens), removed on drop.
struct Scratch(PathBuf);

impl Drop for Scratch {
    fn drop(&mut self) {
        for suffix in ["", "-wal", "-shm"] {
            let _ = std::fs::remove_file(format!("{}{suffix}", self.0.display()));
        }
    }
}

impl SqliteStore {
    /// `sqlite:PATH`, `sqlite://PATH`, or `sqlite::memory:` for a throwaway database: a
    /// temporary file (so that the writer and the readers share it), removed when the store
    /// is closed or dropped.
    pub(crate) async fn open_url(url: &str) -> Result<SqliteStore> {
        let options = SqliteConnectOptions::from_str(url)
            .map_err(|e| StoreError::Invalid(format!("bad SQLite URL: {e}")))?;
        if url.contains(":memory:") || url.contains("mode=memory") {
            let path = std::env::temp_dir().join(format!(
                "shoal-scratch-{}-{:016x}.db",
                std::process::id(),
                rand::random::<u64>()
            ));
            let scratch = Scratch(path.clone());
            return Self::open(SqliteConnectOptions::new().filename(&path), Some(scratch)).await;
        }
        Self::open(options, None).await
    }

    pub(crate) async fn open_file(path: &Path) -> Result<SqliteStore> {
        Self::open(SqliteConnectOptions::new().filename(path), None).await
    }

    async fn open(options: SqliteConnectOptions, scratch: Option<Scratch>) -> Result<SqliteStore> {
        let options = options
            .create_if_missing(true)
            .journal_mode(SqliteJournalMode::Wal)
            .synchronous(SqliteSynchronous::Normal)
            .busy_timeout(BUSY_TIMEOUT)
            .foreign_keys(true)
            // Savepoints (one per job in a group commit) journal pages in temp storage:
            // keep that in memory rather than in temp files.
            .pragma("temp_store", "memory");
        let mut first = options.connect().await?;
        // Two processes opening a new file at once (server and `shoal admin`) may both try
        // to apply the first migration; the one that loses finds it applied on a retry.
        if MIGRATOR.run(&mut first).await.is_err() {
            MIGRATOR.run(&mut first).await?;
        }
        let writer = Writer::start(first, scratch.map(|s| Box::new(s) as Box<dyn Send>));
        let reader = Arc::new(Conns::new(options, READERS, None));
        Ok(SqliteStore { writer, reader })
    }

    pub(crate) async fn close(&self) {
        self.reader.close().await;
        self.writer.close().await;
    }

    /// A reading connection.
    pub(crate) async fn reader(&self) -> Result<Lease<'_, Sqlite>> {
        self.reader.acquire().await
    }

    /// One write statement (`$n` placeholders, owned arguments) that returns at most one
    /// row whose first column is an id.
    pub(crate) async fn write_returning_id(
        &self,
        sql: &'static str,
        args: SqliteArguments<'static>,
    ) -> Result<Option<i64>> {
        self.writer
            .run(move |conn: &mut SqliteConnection, mode| {
                Box::pin(async move {
                    sqlite_writer::open(conn, mode).await?;
                    let row = sqlx::query_with(sql, args)
                        .fetch_optional(&mut *conn)
                        .await?;
                    let id = match row {
                        Some(row) => Some(row.try_get::<i64, _>(0)?),
                        None => None,
                    };
                    sqlite_writer::close(conn, mode).await?;
                    Ok(id)
                })
            })
            .await
    }

    pub(crate) async fn grant_credits(
        &self,
        account: AccountId,
        credits: i64,
        now: Millis,
    ) -> Result<i64> {
        let granted = self
            .writer
            .run(move |conn: &mut SqliteConnection, mode| {
                Box::pin(async move {
                    let rows = sqlx::query(GRANT[mode as usize])
                        .bind(account)
                        .bind(credits)
                        .bind(now)
                        .bind(ledger::MAX_CREDITS)
                        .fetch_all(&mut *conn)
                        .await?;
                    match rows.first() {
                        Some(row) => Ok(Some(row.try_get::<i64, _>("credits")?)),
                        None => Ok(None),
                    }
                })
            })
            .await?;
        if let Some(balance) = granted {
            return Ok(balance);
        }
        let exists = sqlx::query("SELECT 1 FROM accounts WHERE id = ?1")
            .bind(account)
            .fetch_optional(&mut *self.reader().await?)
            .await?
            .is_some();
        Err(if exists {
            ledger::over_cap()
        } else {
            StoreError::NotFound("account")
        })
    }

    pub(crate) async fn hold(&self, req: &HoldRequest, now: Millis) -> Result<HoldOutcome> {
        let today = money::utc_day(now);
        let needed = req.credits;
        let req = req.clone();
        let held = self
            .writer
            .run(move |conn: &mut SqliteConnection, mode| {
                Box::pin(async move {
                    let rows = sqlx::query(HOLD[mode as usize])
                        .bind(req.account_id)
                        .bind(req.credits)
                        .bind(today)
                        .bind(&req.request_id)
                        .bind(&req.model)
                        .bind(now)
                        .bind(req.expires_at)
                        .fetch_all(&mut *conn)
                        .await
                        .map_err(ledger::duplicate_request)?;
                    if !rows.is_empty() {
                        return Ok(Held::Yes);
                    }
                    // Nothing was written. Still the writer's turn: this read sees exactly
                    // what the conditional write saw (barring another process's write).
                    let row = sqlx::query(AVAILABLE)
                        .bind(req.account_id)
                        .bind(today)
                        .fetch_optional(&mut *conn)
                        .await?;
                    Ok(match row {
                        Some(row) => Held::No {
                            available: row.try_get("available")?,
                        },
                        None => Held::NoAccount,
                    })
                })
            })
            .await?;
        match held {
            Held::Yes => Ok(HoldOutcome::Held),
            Held::No { available } => Ok(HoldOutcome::Insufficient {
                needed,
                available: available.max(0),
            }),
            Held::NoAccount => Err(StoreError::NotFound("account")),
        }
    }

    /// Ends the hold of `request_id` (settle or void), or finds it already ended.
    pub(crate) async fn end_hold(
        &self,
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
        let request_id = request_id.to_string();
        self.writer
            .run(move |conn: &mut SqliteConnection, mode| {
                Box::pin(async move {
                    let rows = sqlx::query(END[mode as usize])
                        .bind(&request_id)
                        .bind(now)
                        .bind(money::utc_day(now))
                        .bind(kind.journal_kind())
                        .bind(billed)
                        .bind(tokens.input_tokens)
                        .bind(tokens.output_tokens)
                        .bind(tokens.reasoning_tokens)
                        .fetch_all(&mut *conn)
                        .await?;
                    let Some(row) = rows.first() else {
                        return Ok(SettleOutcome::UnknownHold);
                    };
                    if row.try_get::<i64, _>("ended_now")? == 0 {
                        return Ok(SettleOutcome::AlreadyEnded);
                    }
                    let end = ledger::Ending {
                        kind: EndKind::from_hold_state(row.try_get("state")?),
                        from_plan: row.try_get("charged_plan")?,
                        from_balance: row.try_get("charged_balance")?,
                    };
                    Ok(end.outcome(row.try_get("hold")?))
                })
            })
            .await
    }

    pub(crate) async fn expire_holds(&self, now: Millis) -> Result<u64> {
        let mut total = 0u64;
        loop {
            // One job per batch, so that other writes get their turn in between.
            let n = self
                .writer
                .run(move |conn: &mut SqliteConnection, mode| {
                    Box::pin(async move {
                        sqlite_writer::open(conn, mode).await?;
                        let n = expire_batch(conn, now).await?;
                        sqlite_writer::close(conn, mode).await?;
                        Ok(n)
                    })
                })
                .await?;
            total += n;
            if (n as i64) < EXPIRE_BATCH {
                return Ok(total);
            }
        }
    }
}

async fn expire_batch(conn: &mut SqliteConnection, now: Millis) -> Result<u64> {
    let expired = sqlx::query(EXPIRE)
        .bind(now)
        .bind(EXPIRE_BATCH)
        .fetch_all(&mut *conn)
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
        sqlx::query("UPDATE accounts SET held = held - ?1 WHERE id = ?2")
            .bind(released)
            .bind(account)
            .execute(&mut *conn)
            .await?;
    }
    for chunk in expired.chunks(100) {
        let mut qb = sqlx::QueryBuilder::<Sqlite>::new(
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
        qb.build().execute(&mut *conn).await?;
    }
    Ok(expired.len() as u64)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sqlite_writer::Mode;

    /// How sqlx 0.8 binds `?N` in a multi-statement string: each statement's unnamed slots
    /// (indexes below its largest `?N` that it does not use) consume arguments from a running
    /// offset, and binding stops (leaving the rest NULL) once that offset passes the number
    /// of arguments. Returns whether every named parameter of every statement gets bound.
    fn binds_safely(sql: &str, args: usize) -> bool {
        let mut offset = 0;
        for stmt in sql.split(';') {
            let mut used = std::collections::BTreeSet::new();
            let b = stmt.as_bytes();
            let mut i = 0;
            while i < b.len() {
                if b[i] == b'?' {
                    let digits: String = stmt[i + 1..]
                        .chars()
                        .take_while(|c| c.is_ascii_digit())
                        .collect();
                    assert!(!digits.is_empty(), "bare ? in {stmt}");
                    used.insert(digits.parse::<usize>().unwrap());
                    i += digits.len();
                }
                i += 1;
            }
            let max = used.iter().max().copied().unwrap_or(0);
            let mut gaps = 0;
            for slot in 1..=max {
                if !used.contains(&slot) {
                    gaps += 1;
                    if offset + gaps > args {
                        return false;
                    }
                }
            }
            offset += gaps;
        }
        true
    }

    #[test]
    fn multi_statement_binds_are_safe() {
        for mode in [Mode::Solo, Mode::Grouped] {
            let m = mode as usize;
            assert!(binds_safely(HOLD[m], 7));
            assert!(binds_safely(END[m], 8));
            assert!(binds_safely(GRANT[m], 4));
        }
        // The check does catch the failure it guards against.
        assert!(!binds_safely("SELECT ?3; SELECT ?3; SELECT ?2, ?3", 3));
    }
}
