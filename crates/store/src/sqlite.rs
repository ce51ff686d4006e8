//! The SQLite backend: one file in WAL mode, one writer thread, a few reader connections.
//!
//! Writers serialize in two places: inside this process on the writer thread, which owns
//! the only write connection and commits queued jobs in groups (see `sqlite_writer`), and
//! across processes (the server and `shoal admin` on the same file) on SQLite's write lock,
//! taken up front by `BEGIN IMMEDIATE` and waited for with `busy_timeout`. Inside such a
//! transaction nobody else can write, so a job may read a row and then write what it
//! computed from it; the hold is still a single conditional `UPDATE`, the rule both
//! backends share.
//!
//! A job is a handful of small statements (one row each, cached prepared statements, no
//! `RETURNING`, no joins or unions that make SQLite build temporary tables); the arithmetic
//! of a settle is `money`'s, in Rust.
//!
//! Reads (authentication, balances, listings, `verify_ledger`) use separate sqlx
//! connections and never wait for the writer; migrations run through sqlx as well.
//!
//! Durability: `synchronous = NORMAL` in WAL mode. A committed transaction survives a crash
//! of the process (`kill -9`); an OS crash or power loss may lose the last transactions
//! before a checkpoint, but never leaves a half-applied one. This is SQLite's recommended
//! setting for WAL and what keeps the embedded default fast.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::sync::Arc;

use rusqlite::types::Value;
use rusqlite::{params, Connection, OpenFlags, OptionalExtension};
use sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode, SqliteSynchronous};
use sqlx::{ConnectOptions, Sqlite};

use crate::conns::Conns;
use crate::fault::{DbResult, Fault};
use crate::ledger::{self, EndKind};
use crate::sqlite_writer::{self, Db, Writer, BUSY_TIMEOUT};
use crate::{
    money, AccountId, Charge, HoldOutcome, HoldRequest, Millis, SettleOutcome, StoreError,
};

mod keys;

static MIGRATOR: sqlx::migrate::Migrator = sqlx::migrate!("./migrations/sqlite");
/// Further tries at opening a new file that another process is setting up (about 0.5 s).
const OPEN_TRIES: u64 = 10;

const READERS: usize = 4;
/// The longest a read may take before its connection is given up (a wedged file system).
pub(crate) const READ_DEADLINE: std::time::Duration = std::time::Duration::from_secs(60);
/// Holds expired per job by the reaper.
const EXPIRE_BATCH: i64 = 500;
/// Ended holds deleted per job by `prune_holds`.
const PRUNE_BATCH: i64 = 1000;

/// ?1 account, ?2 credits, ?3 today, ?4 free allowance. The conditional write that admits
/// a hold: available credit (free credits left + plan credits left today + balance − holds,
/// `shoal_available_free`) must cover it.
const HOLD_ADMIT: &str = "UPDATE accounts SET held = held + ?2
      WHERE id = ?1
        AND shoal_available_free(?4, free_day, free_used, plan_daily_credits, plan_day,
                                 plan_used, credits, held, ?3) >= ?2";

/// ?1 account, ?2 today, ?3 free allowance.
const AVAILABLE: &str = "SELECT shoal_available_free(?3, free_day, free_used, plan_daily_credits,
                                   plan_day, plan_used, credits, held, ?2)
       FROM accounts WHERE id = ?1";

const INSERT_HOLD: &str =
    "INSERT INTO holds (request_id, account_id, credits, model, created_at, expires_at,
                        free_daily, key_id, key_limited)
     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)";

const JOURNAL_HOLD: &str =
    "INSERT INTO journal (at, kind, account_id, request_id, model, credits, key_id)
     VALUES (?1, 'hold', ?2, ?3, ?4, ?5, ?6)";

const HOLD_OF: &str =
    "SELECT account_id, credits, model, expires_at, state = 'active', free_daily, key_id,
            key_limited
       FROM holds WHERE request_id = ?1";

const ACCOUNT_OF: &str =
    "SELECT credits, plan_daily_credits, plan_day, plan_used, free_day, free_used
       FROM accounts WHERE id = ?1";

const END_HOLD: &str = "UPDATE holds
        SET state = ?2, ended_at = ?3, charged_plan = ?4, charged_balance = ?5,
            charged_free = ?6
      WHERE request_id = ?1 AND state = 'active'";

/// ?1 account, ?2 hold released, ?3 spent from the balance, ?4 plan used on day ?5, ?6 free
/// credits used on day ?7.
const END_ACCOUNT: &str = "UPDATE accounts
        SET held = held - ?2, credits = credits - ?3, total_spent = total_spent + ?3,
            plan_used = ?4, plan_day = ?5, free_used = ?6, free_day = ?7
      WHERE id = ?1";

/// A settle row also adds to `usage_daily` (a trigger of the migrations).
const JOURNAL_END: &str =
    "INSERT INTO journal (at, kind, account_id, request_id, model, input_tokens,
                          output_tokens, reasoning_tokens, credits, bucket, plan_day, key_id,
                          key_window)
     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)";

/// ?1 account, ?2 credits, ?3 cap on lifetime deposits.
const GRANT: &str =
    "UPDATE accounts SET credits = credits + ?2, total_deposited = total_deposited + ?2
      WHERE id = ?1 AND total_deposited + ?2 <= ?3";

const JOURNAL_DEPOSIT: &str = "INSERT INTO journal (at, kind, account_id, credits, bucket)
     VALUES (?1, 'deposit', ?2, ?3, 'balance')";

const BALANCE_OF: &str = "SELECT credits FROM accounts WHERE id = ?1";

/// ?1 now, ?2 batch size.
const EXPIRE_DUE: &str = "SELECT request_id, account_id, credits, model,
            CASE WHEN key_limited THEN key_id END
       FROM holds
      WHERE state = 'active' AND expires_at <= ?1
      ORDER BY expires_at LIMIT ?2";

const EXPIRE_HOLD: &str =
    "UPDATE holds SET state = 'expired', ended_at = ?2 WHERE request_id = ?1 AND state = 'active'";

const RELEASE: &str = "UPDATE accounts SET held = held - ?2 WHERE id = ?1";

const RELEASE_KEY: &str = "UPDATE api_keys SET limit_held = limit_held - ?2 WHERE id = ?1";

const JOURNAL_EXPIRE: &str =
    "INSERT INTO journal (at, kind, account_id, request_id, model, credits)
     VALUES (?1, 'expire', ?2, ?3, ?4, 0)";

/// ?1 cut-off, ?2 batch size. The subquery walks the `holds_ended` index.
const PRUNE: &str = "DELETE FROM holds WHERE request_id IN
       (SELECT request_id FROM holds WHERE state <> 'active' AND ended_at < ?1 LIMIT ?2)";

#[derive(Clone)]
pub(crate) struct SqliteStore {
    /// The one write connection, owned by the writer thread.
    writer: Writer,
    /// Reads (authentication, balances, listings) run here and never wait for the writer.
    reader: Arc<Conns<Sqlite>>,
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

/// A connection for the writer thread (or its checkpointer), with the same settings as the
/// readers'.
pub(crate) fn open_writer(path: &Path) -> rusqlite::Result<Connection> {
    let conn = Connection::open_with_flags(
        path,
        OpenFlags::SQLITE_OPEN_READ_WRITE
            | OpenFlags::SQLITE_OPEN_CREATE
            | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )?;
    conn.busy_timeout(BUSY_TIMEOUT)?;
    conn.pragma_update_and_check(None, "journal_mode", "WAL", |_| Ok(()))?;
    conn.pragma_update(None, "synchronous", "NORMAL")?;
    conn.pragma_update(None, "foreign_keys", "ON")?;
    // Savepoints (one per job in a group commit) journal pages in temp storage: keep that
    // in memory rather than in temp files.
    conn.pragma_update(None, "temp_store", "MEMORY")?;
    conn.pragma_update(None, "journal_size_limit", sqlite_writer::WAL_SIZE_LIMIT)?;
    conn.set_prepared_statement_cache_capacity(sqlite_writer::STATEMENT_CACHE);
    define_rules(&conn)?;
    Ok(conn)
}

/// `shoal_available_free(free_daily, free_day, free_used, daily, plan_day, plan_used,
/// balance, held, today)`: credit available for a new hold, as `money` computes it. The same
/// name and arguments as PostgreSQL's SQL function, so that the conditional write reads
/// alike on both backends while the rule itself lives in `money` only. Registered on the
/// write connection (the only one that admits holds).
fn define_rules(conn: &Connection) -> rusqlite::Result<()> {
    use rusqlite::functions::FunctionFlags;
    conn.create_scalar_function(
        "shoal_available_free",
        9,
        FunctionFlags::SQLITE_UTF8
            | FunctionFlags::SQLITE_DETERMINISTIC
            | FunctionFlags::SQLITE_INNOCUOUS,
        |ctx| {
            let arg = |i| ctx.get::<i64>(i);
            let today = arg(8)?;
            let free_left = money::plan_left(arg(0)?, arg(1)?, arg(2)?, today);
            let plan_left = money::plan_left(arg(3)?, arg(4)?, arg(5)?, today);
            Ok(money::available(free_left, plan_left, arg(6)?, arg(7)?))
        },
    )
}

impl SqliteStore {
    /// `sqlite:PATH`, `sqlite://PATH`, or `sqlite::memory:` for a throwaway database: a
    /// temporary file (so that the writer and the readers share it), removed when the store
    /// is closed or dropped.
    pub(crate) async fn open_url(url: &str) -> DbResult<SqliteStore> {
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

    pub(crate) async fn open_file(path: &Path) -> DbResult<SqliteStore> {
        Self::open(SqliteConnectOptions::new().filename(path), None).await
    }

    async fn open(
        options: SqliteConnectOptions,
        scratch: Option<Scratch>,
    ) -> DbResult<SqliteStore> {
        let options = options
            .create_if_missing(true)
            .journal_mode(SqliteJournalMode::Wal)
            .synchronous(SqliteSynchronous::Normal)
            .busy_timeout(BUSY_TIMEOUT)
            .foreign_keys(true)
            .pragma("temp_store", "memory")
            // The readers serve a few small lookups (API keys, balances): a 512 KiB page
            // cache each instead of SQLite's 2 MB default keeps the gateway's memory flat.
            .pragma("cache_size", "-512");
        // Two processes opening a new file at once (server and `shoal admin`) race: turning
        // the new file to WAL can find it locked, and both may try to apply the same
        // migration (sqlx takes no lock on SQLite), so the loser's transaction fails on the
        // version's uniqueness. Another try, a moment later, finds the file set up and the
        // migration applied; with several migrations the race can repeat once for each.
        let mut tries = 0u64;
        let first = loop {
            let opened = async {
                let mut conn = options.connect().await?;
                MIGRATOR.run(&mut conn).await?;
                Ok::<_, Fault>(conn)
            }
            .await;
            match opened {
                Ok(conn) => break conn,
                Err(_) if tries < OPEN_TRIES => {
                    tries += 1;
                    tokio::time::sleep(std::time::Duration::from_millis(10 * tries)).await;
                }
                Err(e) => return Err(e),
            }
        };
        let path = options.get_filename().to_path_buf();
        let (conn, checkpoints) = tokio::task::spawn_blocking(move || {
            Ok::<_, rusqlite::Error>((open_writer(&path)?, open_writer(&path)?))
        })
        .await
        .map_err(|e| StoreError::Internal(format!("opening the SQLite writer: {e}")))?
        .db()?;
        let writer = Writer::start(
            conn,
            checkpoints,
            scratch.map(|s| Box::new(s) as Box<dyn Send>),
        )?;
        let reader = Arc::new(Conns::new(options, READERS, Some(first), BUSY_TIMEOUT));
        Ok(SqliteStore { writer, reader })
    }

    pub(crate) async fn close(&self) {
        self.reader.close().await;
        self.writer.close().await;
    }

    /// The writer thread, for ledger writes written in other modules (deposits).
    pub(crate) fn writer(&self) -> &Writer {
        &self.writer
    }

    /// The reading connections.
    pub(crate) fn readers(&self) -> &Conns<Sqlite> {
        &self.reader
    }

    /// One write statement (`$n` placeholders, owned arguments) that returns at most one
    /// row whose first column is an id.
    pub(crate) async fn write_returning_id(
        &self,
        sql: &'static str,
        args: Vec<Value>,
    ) -> DbResult<Option<i64>> {
        self.writer
            .run(move |conn| {
                let mut stmt = conn.prepare_cached(sql).db()?;
                for (i, arg) in args.iter().enumerate() {
                    // `$n` are named parameters to SQLite, numbered in order of appearance.
                    if let Some(at) = stmt.parameter_index(&format!("${}", i + 1)).db()? {
                        stmt.raw_bind_parameter(at, arg).db()?;
                    }
                }
                let mut rows = stmt.raw_query();
                match rows.next().db()? {
                    Some(row) => Ok(Some(row.get::<_, i64>(0).db()?)),
                    None => Ok(None),
                }
            })
            .await
    }

    pub(crate) async fn grant_credits(
        &self,
        account: AccountId,
        credits: i64,
        now: Millis,
    ) -> DbResult<i64> {
        self.writer
            .run(move |conn| {
                let granted = conn
                    .prepare_cached(GRANT)
                    .db()?
                    .execute(params![account, credits, ledger::MAX_CREDITS])
                    .db()?;
                let balance: Option<i64> = conn
                    .prepare_cached(BALANCE_OF)
                    .db()?
                    .query_row([account], |r| r.get(0))
                    .optional()
                    .db()?;
                match (granted, balance) {
                    (1, Some(balance)) => {
                        conn.prepare_cached(JOURNAL_DEPOSIT)
                            .db()?
                            .execute(params![now, account, credits])
                            .db()?;
                        Ok(balance)
                    }
                    (_, Some(_)) => Err(ledger::over_cap().into()),
                    (_, None) => Err(StoreError::NotFound("account").into()),
                }
            })
            .await
    }

    pub(crate) async fn hold(&self, req: &HoldRequest, now: Millis) -> DbResult<HoldOutcome> {
        let req = req.clone();
        self.writer
            .run_urgent(move |conn| hold(conn, &req, now))
            .await
    }

    /// Ends the hold of `request_id` (settle or void), or finds it already ended.
    pub(crate) async fn end_hold(
        &self,
        request_id: &str,
        kind: EndKind,
        charge: Option<&Charge>,
        now: Millis,
    ) -> DbResult<SettleOutcome> {
        let request_id = request_id.to_string();
        let charge = charge.cloned();
        self.writer
            .run(move |conn| end_hold(conn, &request_id, kind, charge.as_ref(), now))
            .await
    }

    pub(crate) async fn expire_holds(&self, now: Millis) -> DbResult<u64> {
        let mut total = 0u64;
        loop {
            // One job per batch, so that other writes get their turn in between.
            let n = self.writer.run(move |conn| expire_batch(conn, now)).await?;
            total += n;
            if (n as i64) < EXPIRE_BATCH {
                return Ok(total);
            }
        }
    }

    pub(crate) async fn prune_holds(&self, before: Millis) -> DbResult<u64> {
        let mut total = 0u64;
        loop {
            let n = self
                .writer
                .run(move |conn| {
                    let n = conn
                        .prepare_cached(PRUNE)
                        .db()?
                        .execute(params![before, PRUNE_BATCH])
                        .db()?;
                    Ok(n as u64)
                })
                .await?;
            total += n;
            if (n as i64) < PRUNE_BATCH {
                return Ok(total);
            }
        }
    }
}

/// Admits a hold: the key's limit first (`keys::check`), then the account's credit, by one
/// conditional write; a hold that counts towards its key's limit reserves it too.
fn hold(conn: &Connection, req: &HoldRequest, now: Millis) -> DbResult<HoldOutcome> {
    let limited = match keys::check(conn, req, now)? {
        keys::KeyCheck::Refused(out) => return Ok(out),
        keys::KeyCheck::Limited => true,
        keys::KeyCheck::Unlimited => false,
    };
    let today = money::utc_day(now);
    let admitted = conn
        .prepare_cached(HOLD_ADMIT)
        .db()?
        .execute(params![req.account_id, req.credits, today, req.free_daily])
        .db()?;
    if admitted == 1 {
        // A duplicate request id fails here, and the writer rolls the admission back.
        conn.prepare_cached(INSERT_HOLD)
            .db()?
            .execute(params![
                req.request_id,
                req.account_id,
                req.credits,
                req.model,
                now,
                req.expires_at,
                req.free_daily,
                req.key_id,
                limited
            ])
            .db()
            .map_err(ledger::duplicate_request)?;
        if let (true, Some(key)) = (limited, req.key_id) {
            keys::reserve(conn, key, req.credits)?;
        }
        conn.prepare_cached(JOURNAL_HOLD)
            .db()?
            .execute(params![
                now,
                req.account_id,
                req.request_id,
                req.model,
                req.credits,
                req.key_id
            ])
            .db()?;
        return Ok(HoldOutcome::Held);
    }
    // Nothing was written. Still the writer's turn: this read sees exactly what the
    // conditional write saw (barring another process's write).
    let available: Option<i64> = conn
        .prepare_cached(AVAILABLE)
        .db()?
        .query_row(params![req.account_id, today, req.free_daily], |r| r.get(0))
        .optional()
        .db()?;
    match available {
        Some(available) => Ok(HoldOutcome::Insufficient {
            needed: req.credits,
            available: available.max(0),
        }),
        None => Err(StoreError::NotFound("account").into()),
    }
}

/// The hold being ended, as read inside the writer's transaction.
struct OpenHold {
    account_id: AccountId,
    credits: i64,
    model: String,
    expires_at: Millis,
    active: bool,
    free_daily: i64,
    key_id: Option<i64>,
    /// It counted towards its key's limit.
    key_limited: bool,
}

/// The account's buckets, as read inside the writer's transaction.
struct Buckets {
    balance: i64,
    daily: i64,
    plan_day: i64,
    plan_used: i64,
    free_day: i64,
    free_used: i64,
}

/// Ends a hold: mirrors the PostgreSQL statement. A hold at or past its expiry ends as
/// expired with charge 0; the charge is clamped to [0, hold] and split by
/// `money::split_spend` (free credits left within the hold's allowance, then plan credits
/// left today, then the balance, never more than the balance); each daily bucket's day moves
/// (only forward) when it is spent from (`money::plan_after`).
fn end_hold(
    conn: &Connection,
    request_id: &str,
    kind: EndKind,
    charge: Option<&Charge>,
    now: Millis,
) -> DbResult<SettleOutcome> {
    let Some(hold) = open_hold(conn, request_id)? else {
        return Ok(SettleOutcome::UnknownHold);
    };
    if !hold.active {
        return Ok(SettleOutcome::AlreadyEnded);
    }
    let buckets = buckets_of(conn, hold.account_id)?;
    let kind = if hold.expires_at <= now {
        EndKind::Expire
    } else {
        kind
    };
    let end = Spending::of(&hold, &buckets, kind, charge, money::utc_day(now));
    write_end(conn, request_id, &hold, kind, &end, now)?;
    let tokens = charge
        .filter(|_| kind == EndKind::Settle)
        .cloned()
        .unwrap_or_default();
    let key_window = match (hold.key_limited, hold.key_id) {
        (true, Some(key)) => {
            let charged = end.spend.free + end.spend.plan + end.spend.balance;
            Some(keys::end(
                conn,
                key,
                hold.credits,
                charged,
                money::utc_day(now),
            )?)
        }
        _ => None,
    };
    let row = EndRow {
        now,
        kind,
        hold: &hold,
        request_id,
        key_window,
    };
    journal_end(conn, &row, &tokens, &end.spend, [end.plan.0, end.free.0])?;
    let ending = ledger::Ending {
        kind,
        from_free: end.spend.free,
        from_plan: end.spend.plan,
        from_balance: end.spend.balance,
    };
    Ok(ending.outcome(hold.credits))
}

/// The hold's and the account's rows after the end `end`.
fn write_end(
    conn: &Connection,
    request_id: &str,
    hold: &OpenHold,
    kind: EndKind,
    end: &Spending,
    now: Millis,
) -> DbResult<()> {
    let ended = conn
        .prepare_cached(END_HOLD)
        .db()?
        .execute(params![
            request_id,
            kind.hold_state(),
            now,
            end.spend.plan,
            end.spend.balance,
            end.spend.free
        ])
        .db()?;
    assert_eq!(ended, 1, "the writer's transaction saw the hold active");
    conn.prepare_cached(END_ACCOUNT)
        .db()?
        .execute(params![
            hold.account_id,
            hold.credits,
            end.spend.balance,
            end.plan.1,
            end.plan.0,
            end.free.1,
            end.free.0
        ])
        .db()?;
    Ok(())
}

fn open_hold(conn: &Connection, request_id: &str) -> DbResult<Option<OpenHold>> {
    conn.prepare_cached(HOLD_OF)
        .db()?
        .query_row([request_id], |r| {
            Ok(OpenHold {
                account_id: r.get(0)?,
                credits: r.get(1)?,
                model: r.get(2)?,
                expires_at: r.get(3)?,
                active: r.get(4)?,
                free_daily: r.get(5)?,
                key_id: r.get(6)?,
                key_limited: r.get(7)?,
            })
        })
        .optional()
        .db()
}

fn buckets_of(conn: &Connection, account: AccountId) -> DbResult<Buckets> {
    conn.prepare_cached(ACCOUNT_OF)
        .db()?
        .query_row([account], |r| {
            Ok(Buckets {
                balance: r.get(0)?,
                daily: r.get(1)?,
                plan_day: r.get(2)?,
                plan_used: r.get(3)?,
                free_day: r.get(4)?,
                free_used: r.get(5)?,
            })
        })
        .db()
}

/// What ending a hold spends, and the daily buckets' (day, used) after it.
struct Spending {
    spend: money::Spend,
    plan: (i64, i64),
    free: (i64, i64),
}

impl Spending {
    /// `money`'s rules: the charge clamped to [0, hold] (0 unless settled), split free, plan,
    /// balance; each daily bucket's day moves only forward, and only when spent from.
    fn of(
        hold: &OpenHold,
        a: &Buckets,
        kind: EndKind,
        charge: Option<&Charge>,
        today: i64,
    ) -> Spending {
        let charged = match kind {
            EndKind::Settle => money::clamp_charge(charge.map(|c| c.credits), hold.credits),
            EndKind::Void | EndKind::Expire => 0,
        };
        let free_left = money::plan_left(hold.free_daily, a.free_day, a.free_used, today);
        let plan_left = money::plan_left(a.daily, a.plan_day, a.plan_used, today);
        let spend = money::split_spend(charged, free_left, plan_left, a.balance);
        assert!(
            spend.free >= 0 && spend.plan >= 0 && spend.balance >= 0,
            "money never flows back into an account by a settle"
        );
        assert!(
            spend.balance <= a.balance,
            "a settle never overdraws the balance"
        );
        Spending {
            spend,
            plan: money::plan_after(a.plan_day, a.plan_used, today, spend.plan),
            free: money::plan_after(a.free_day, a.free_used, today, spend.free),
        }
    }
}

/// What every journal row of one hold's end shares.
struct EndRow<'a> {
    now: Millis,
    kind: EndKind,
    hold: &'a OpenHold,
    request_id: &'a str,
    /// The key limit's window the charge counted in (a hold that counted towards one).
    key_window: Option<i64>,
}

/// The journal rows of a hold's end: one carrying the token counts and what the balance
/// paid, and one per daily bucket spent from (`days`: the plan's and the free credits' day).
fn journal_end(
    conn: &Connection,
    row: &EndRow<'_>,
    tokens: &Charge,
    spend: &money::Spend,
    days: [i64; 2],
) -> DbResult<()> {
    let mut journal = conn.prepare_cached(JOURNAL_END).db()?;
    journal
        .execute(params![
            row.now,
            row.kind.journal_kind(),
            row.hold.account_id,
            row.request_id,
            row.hold.model,
            tokens.input_tokens,
            tokens.output_tokens,
            tokens.reasoning_tokens,
            spend.balance,
            (row.kind == EndKind::Settle).then_some("balance"),
            None::<i64>,
            row.hold.key_id,
            row.key_window,
        ])
        .db()?;
    for (credits, bucket, day) in [(spend.free, "free", days[1]), (spend.plan, "plan", days[0])] {
        if credits > 0 {
            journal
                .execute(params![
                    row.now,
                    "settle",
                    row.hold.account_id,
                    row.request_id,
                    row.hold.model,
                    0,
                    0,
                    0,
                    credits,
                    bucket,
                    day,
                    row.hold.key_id,
                    row.key_window,
                ])
                .db()?;
        }
    }
    Ok(())
}

fn expire_batch(conn: &Connection, now: Millis) -> DbResult<u64> {
    let due = conn
        .prepare_cached(EXPIRE_DUE)
        .db()?
        .query_map(params![now, EXPIRE_BATCH], |r| {
            Ok(ledger::Expired {
                request_id: r.get(0)?,
                account_id: r.get(1)?,
                credits: r.get(2)?,
                model: r.get(3)?,
                limited_key: r.get(4)?,
            })
        })
        .db()?
        .collect::<rusqlite::Result<Vec<_>>>()
        .db()?;
    let mut end = conn.prepare_cached(EXPIRE_HOLD).db()?;
    let mut journal = conn.prepare_cached(JOURNAL_EXPIRE).db()?;
    for e in &due {
        end.execute(params![e.request_id, now]).db()?;
        journal
            .execute(params![now, e.account_id, e.request_id, e.model])
            .db()?;
    }
    let released: BTreeMap<AccountId, i64> = ledger::released_by_account(&due);
    let mut release = conn.prepare_cached(RELEASE).db()?;
    for (account, credits) in released {
        release.execute(params![account, credits]).db()?;
    }
    let mut release_key = conn.prepare_cached(RELEASE_KEY).db()?;
    for (key, credits) in ledger::released_by_key(&due) {
        release_key.execute(params![key, credits]).db()?;
    }
    Ok(due.len() as u64)
}
