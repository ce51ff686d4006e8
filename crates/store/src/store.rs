//! [`Store`]: the one entry point, dispatching to the SQLite or PostgreSQL backend.
//!
//! Argument checks live here, once for both backends. Statements that are the same on both
//! backends are written once (`$n` placeholders work on SQLite too) and expanded per
//! backend by the `read!`/`write_id!` macros; the ledger's movements live in `sqlite.rs`
//! and `postgres.rs`.

use std::path::Path;
use std::sync::Arc;

use sqlx::Row;

use crate::conns::Retry;
use crate::fault::{DbResult, Fault};
use crate::ledger::{EndKind, MAX_CREDITS, MAX_ID_LEN};
use crate::postgres::PgStore;
use crate::sqlite::SqliteStore;
use crate::verify::{self, Snapshot};
use crate::{
    credentials, money, AccountId, Balance, Charge, HoldOutcome, HoldRequest, LedgerReport, Millis,
    NewWorkerToken, Result, SettleOutcome, StoreError, StoreOptions, WorkerTokenInfo,
};
use endings::Retries;

/// Accounts, keys, worker tokens and the credit ledger, on SQLite or PostgreSQL.
/// `Send + Sync`, cheap to clone (clones share the connections).
#[derive(Clone)]
pub struct Store {
    pub(crate) backend: Backend,
    /// Settles and voids being retried after a database failure.
    retries: Arc<Retries>,
}

#[derive(Clone)]
pub(crate) enum Backend {
    Sqlite(SqliteStore),
    Postgres(PgStore),
}

impl std::fmt::Debug for Store {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Store")
            .field("backend", &self.backend())
            .finish_non_exhaustive()
    }
}

/// Run a ledger write to completion in its own task, even if the caller is dropped half-way
/// (a client that disconnects must not leave a deposit unsent, nor a settle unretried).
/// Holds need no such task: once queued, a writer (SQLite's thread, PostgreSQL's writer
/// tasks) runs them to completion.
pub(crate) async fn detached<T, F>(op: F) -> Result<T>
where
    T: Send + 'static,
    F: std::future::Future<Output = Result<T>> + Send + 'static,
{
    match tokio::spawn(op).await {
        Ok(out) => out,
        Err(e) if e.is_panic() => std::panic::resume_unwind(e.into_panic()),
        Err(_) => Err(StoreError::Unavailable(
            "the ledger task was cancelled (runtime shutting down)".into(),
        )),
    }
}

/// Everything `verify_ledger` compares, read inside the open transaction `$tx`.
macro_rules! read_snapshot {
    ($tx:ident) => {{
        let mut rows = Vec::with_capacity(verify::QUERIES.len());
        for query in verify::QUERIES {
            rows.push(sqlx::query(query).fetch_all(&mut *$tx).await?);
        }
        Snapshot::from_rows(&rows)?
    }};
}

fn invalid(msg: impl Into<String>) -> StoreError {
    StoreError::Invalid(msg.into())
}

/// An insert's `RETURNING` gave no row: the database broke its own promise.
fn no_row(what: &str) -> StoreError {
    StoreError::Internal(format!("inserting the {what} returned no id"))
}

/// A foreign key to `accounts` found no account.
fn account_missing(f: Fault) -> StoreError {
    if f.is_foreign_key_violation() {
        StoreError::NotFound("account")
    } else {
        f.into()
    }
}

fn rpm_from_db(rpm: Option<i64>) -> Option<u32> {
    rpm.and_then(|r| u32::try_from(r).ok())
}

impl Store {
    /// Open (creating it if needed) the embedded store: the SQLite file `dir/shoal.db`, in
    /// WAL mode with a busy timeout, so that the server and `shoal admin` can use it at once.
    /// Runs pending migrations.
    pub async fn open_data_dir(dir: &Path) -> Result<Store> {
        std::fs::create_dir_all(dir)
            .map_err(|e| invalid(format!("cannot create data folder {}: {e}", dir.display())))?;
        let sqlite = SqliteStore::open_file(&dir.join("shoal.db")).await?;
        Store::opened(Backend::Sqlite(sqlite)).await
    }

    /// Open a store by URL: `sqlite://PATH`, `sqlite:PATH` (`sqlite::memory:` for a throwaway
    /// one) or `postgres://…` / `postgresql://…`. Runs pending migrations.
    pub async fn open(url: &str) -> Result<Store> {
        Store::open_with(url, &StoreOptions::default()).await
    }

    /// [`Store::open`] with the store's waits and timeouts set (PostgreSQL's sessions; SQLite
    /// takes only `connect_timeout` from them).
    pub async fn open_with(url: &str, options: &StoreOptions) -> Result<Store> {
        let scheme = url.split(':').next().unwrap_or("").to_ascii_lowercase();
        let backend = match scheme.as_str() {
            "sqlite" => Backend::Sqlite(SqliteStore::open_url(url).await?),
            "postgres" | "postgresql" if url.contains("://") => {
                Backend::Postgres(PgStore::open_url(url, options).await?)
            }
            _ => {
                return Err(invalid(
                    "unsupported database URL: expected sqlite:… or postgres://…",
                ))
            }
        };
        Store::opened(backend).await
    }

    /// The store on a migrated `backend`, once the fix-ups its migrations asked for are done.
    async fn opened(backend: Backend) -> Result<Store> {
        let store = Store {
            backend,
            retries: Arc::default(),
        };
        store.normalize_stored_emails().await?;
        Ok(store)
    }

    /// `"sqlite"` or `"postgres"`.
    pub fn backend(&self) -> &'static str {
        match self.backend {
            Backend::Sqlite(_) => "sqlite",
            Backend::Postgres(_) => "postgres",
        }
    }

    /// Close every connection, waiting for those in use to be returned. Settles still being
    /// retried get [`CLOSE_GRACE`] to commit first.
    pub async fn close(&self) {
        self.retries.close(CLOSE_GRACE).await;
        match &self.backend {
            Backend::Sqlite(s) => s.close().await,
            Backend::Postgres(p) => p.close().await,
        }
    }

    /// Whether the database answers now: one trivial query on a pooled connection, within
    /// `timeout`. For a readiness probe; `Unavailable` when it does not.
    pub async fn ready(&self, timeout: std::time::Duration) -> Result<()> {
        let probe =
            async { read!(self, c => Ok(sqlx::query("SELECT 1").execute(c).await.map(drop)?)) };
        match tokio::time::timeout(timeout, probe).await {
            Ok(out) => out.map(drop),
            Err(_) => Err(StoreError::Unavailable(format!(
                "the database did not answer within {} ms",
                timeout.as_millis()
            ))),
        }
    }

    // ---------------------------------------------------------------- accounts

    /// Create an account, its email stored normalised ([`normalize_email`]). `Conflict` if
    /// an account has the same normalised email, `Invalid` if it does not look like an email.
    pub async fn create_account(&self, email: &str, now: Millis) -> Result<AccountId> {
        self.insert_account(email, None, now).await
    }

    async fn insert_account(
        &self,
        email: &str,
        password_hash: Option<String>,
        now: Millis,
    ) -> Result<AccountId> {
        let email = normalize_email(email);
        if !email.contains('@') || email.len() > 320 || email.chars().any(char::is_whitespace) {
            return Err(invalid("email must look like name@host"));
        }
        let id = write_id!(
            self,
            Retry::IfNotRun,
            "INSERT INTO accounts (email, created_at, password_hash) VALUES ($1, $2, $3)
             RETURNING id",
            email.clone(),
            now,
            password_hash,
        )
        .map_err(|f| {
            if f.is_unique_violation() {
                StoreError::Conflict(format!("an account with email {email} already exists"))
            } else {
                f.into()
            }
        })?;
        id.ok_or_else(|| no_row("account"))
    }

    /// Deposit purchased credits. Returns the new settled balance.
    pub async fn grant_credits(
        &self,
        account: AccountId,
        credits: i64,
        now: Millis,
    ) -> Result<i64> {
        if !(1..=MAX_CREDITS).contains(&credits) {
            return Err(invalid(format!(
                "credits must be between 1 and {MAX_CREDITS}"
            )));
        }
        match &self.backend {
            Backend::Sqlite(s) => Ok(s.grant_credits(account, credits, now).await?),
            Backend::Postgres(p) => {
                let p = p.clone();
                detached(async move { Ok(p.grant_credits(account, credits, now).await?) }).await
            }
        }
    }

    /// Set the plan's daily credits (0 = no plan). Takes effect at once for today: raising
    /// it frees more today, lowering it below what was spent today leaves 0 for today.
    pub async fn set_plan(
        &self,
        account: AccountId,
        daily_credits: i64,
        _now: Millis,
    ) -> Result<()> {
        if !(0..=MAX_CREDITS).contains(&daily_credits) {
            return Err(invalid(format!(
                "daily credits must be between 0 and {MAX_CREDITS}"
            )));
        }
        write_id!(
            self,
            Retry::Idempotent,
            "UPDATE accounts SET plan_daily_credits = $2 WHERE id = $1 RETURNING id",
            account,
            daily_credits,
        )?
        .ok_or(StoreError::NotFound("account"))?;
        Ok(())
    }

    async fn account_exists(&self, account: AccountId) -> Result<bool> {
        read!(self, c => Ok(sqlx::query("SELECT 1 FROM accounts WHERE id = $1")
            .bind(account)
            .fetch_optional(c)
            .await?
            .is_some()))
    }

    // ---------------------------------------------------------------- worker tokens

    /// Create a worker token. The plaintext is in the result and nowhere else.
    pub async fn create_worker_token(&self, name: &str, now: Millis) -> Result<NewWorkerToken> {
        self.insert_worker_token(name, false, None, now).await
    }

    /// A browser invite: a worker token that admits only a `kind: browser` worker, and only
    /// before `expires_at`. The plaintext is in the result and nowhere else.
    pub async fn create_browser_invite(
        &self,
        name: &str,
        expires_at: Millis,
        now: Millis,
    ) -> Result<NewWorkerToken> {
        if expires_at <= now {
            return Err(invalid("a browser invite must expire in the future"));
        }
        self.insert_worker_token(name, true, Some(expires_at), now)
            .await
    }

    async fn insert_worker_token(
        &self,
        name: &str,
        browser_only: bool,
        expires_at: Option<Millis>,
        now: Millis,
    ) -> Result<NewWorkerToken> {
        let name = name.trim();
        if name.is_empty() || name.len() > MAX_ID_LEN {
            return Err(invalid(format!(
                "worker token name must be 1 to {MAX_ID_LEN} bytes"
            )));
        }
        let token = credentials::generate_worker_token();
        let prefix = credentials::worker_token_display_prefix(&token);
        let hash = credentials::hash_secret(&token);
        let id = write_id!(
            self,
            Retry::IfNotRun,
            "INSERT INTO worker_tokens (name, prefix, token_hash, created_at, browser_only, expires_at)
             VALUES ($1, $2, $3, $4, $5, $6) RETURNING id",
            name.to_string(),
            prefix,
            hash.to_vec(),
            now,
            browser_only,
            expires_at,
        )?
        .ok_or_else(|| no_row("worker token"))?;
        Ok(NewWorkerToken { id, token })
    }

    /// The worker token presented, if it is well formed, known and not revoked.
    pub async fn authenticate_worker_token(
        &self,
        presented: &str,
    ) -> Result<Option<WorkerTokenInfo>> {
        if !credentials::is_well_formed_worker_token(presented) {
            return Ok(None);
        }
        let hash = credentials::hash_secret(presented);
        read!(self, c => {
            let row = sqlx::query(
                    "SELECT id, name, browser_only, expires_at FROM worker_tokens
                     WHERE token_hash = $1 AND revoked_at IS NULL")
                .bind(&hash[..])
                .fetch_optional(c)
                .await?;
            match row {
                Some(r) => Ok(Some(WorkerTokenInfo {
                    id: r.try_get("id")?,
                    name: r.try_get("name")?,
                    browser_only: r.try_get("browser_only")?,
                    expires_at: r.try_get("expires_at")?,
                })),
                None => Ok(None),
            }
        })
    }

    // ---------------------------------------------------------------- ledger

    /// The account's balance as of `now` (which decides the plan's day).
    pub async fn balance(&self, account: AccountId, now: Millis) -> Result<Balance> {
        let today = money::utc_day(now);
        read!(self, c => {
            let r = sqlx::query(
                    "SELECT credits, held, plan_daily_credits, plan_day, plan_used,
                            total_deposited, total_spent, free_day, free_used
                       FROM accounts WHERE id = $1")
                .bind(account)
                .fetch_optional(c)
                .await?
                .ok_or(StoreError::NotFound("account"))?;
            let daily: i64 = r.try_get("plan_daily_credits")?;
            Ok(Balance {
                credits: r.try_get("credits")?,
                credits_held: r.try_get("held")?,
                plan_daily_credits: daily,
                daily_credits_left: money::plan_left(
                    daily,
                    r.try_get("plan_day")?,
                    r.try_get("plan_used")?,
                    today,
                ),
                total_deposited: r.try_get("total_deposited")?,
                total_spent: r.try_get("total_spent")?,
                free_used_today: money::used_on(
                    r.try_get("free_day")?,
                    r.try_get("free_used")?,
                    today,
                ),
            })
        })
    }

    /// Reserve `req.credits` against what the account has available now (free credits left
    /// within `req.free_daily` + plan credits left today + balance − active holds),
    /// atomically. `Insufficient` reserves nothing.
    pub async fn hold(&self, req: &HoldRequest, now: Millis) -> Result<HoldOutcome> {
        if req.credits < 1 {
            return Err(invalid("a hold must be at least 1 credit"));
        }
        if req.request_id.is_empty() || req.request_id.len() > MAX_ID_LEN {
            return Err(invalid(format!(
                "request id must be 1 to {MAX_ID_LEN} bytes"
            )));
        }
        if req.model.len() > MAX_ID_LEN {
            return Err(invalid(format!("model longer than {MAX_ID_LEN} bytes")));
        }
        if req.expires_at <= now {
            return Err(invalid("a hold must expire after now"));
        }
        if !(0..=MAX_CREDITS).contains(&req.free_daily) {
            return Err(invalid(format!(
                "free daily credits must be 0 to {MAX_CREDITS}"
            )));
        }
        if req.credits > MAX_CREDITS {
            // More than any account can ever have available (and beyond the range the
            // ledger's sums are kept in): nothing to write.
            let b = self.balance(req.account_id, now).await?;
            let free_left = (req.free_daily - b.free_used_today).max(0);
            let available =
                money::available(free_left, b.daily_credits_left, b.credits, b.credits_held);
            return Ok(HoldOutcome::Insufficient {
                needed: req.credits,
                available: available.max(0),
            });
        }
        Ok(match &self.backend {
            Backend::Sqlite(s) => s.hold(req, now).await?,
            Backend::Postgres(p) => p.hold(req, now).await?,
        })
    }

    /// End the hold of `request_id` with the billed charge (clamped to `[0, hold]`; `None`,
    /// usage missing, charges the whole hold), plan credits left today first, then the
    /// balance; the rest is released. Idempotent: a hold ends once, later calls get
    /// `AlreadyEnded`. A settle that arrives after the hold expired ends it as expired,
    /// charges nothing and returns `AlreadyEnded`: the request ran past its TTL.
    ///
    /// Durable: a database failure does not lose it. It is retried (bounded backoff) until it
    /// commits or the hold is found ended otherwise, in a task that outlives the caller; the
    /// answer is the charge of the attempt that committed. `now` is when the request ended,
    /// and stays so for every attempt. Only the process stopping before the commit loses it:
    /// the hold then expires at its `expires_at`, charging nothing (see `store/endings.rs`).
    pub async fn settle(
        &self,
        request_id: &str,
        charge: Option<&Charge>,
        now: Millis,
    ) -> Result<SettleOutcome> {
        self.end_hold(request_id, EndKind::Settle, charge, now)
            .await
    }

    /// End the hold of `request_id` with charge 0 (the request failed before generating).
    /// Same idempotence and expiry rules as [`Store::settle`].
    pub async fn void(&self, request_id: &str, now: Millis) -> Result<SettleOutcome> {
        self.end_hold(request_id, EndKind::Void, None, now).await
    }

    /// Ends the hold in a task of its own, retried until it commits (`endings.rs`).
    async fn end_hold(
        &self,
        request_id: &str,
        kind: EndKind,
        charge: Option<&Charge>,
        now: Millis,
    ) -> Result<SettleOutcome> {
        let store = self.clone();
        let request_id = request_id.to_string();
        let charge = charge.cloned();
        detached(async move {
            store
                .end_durably(&request_id, kind, charge.as_ref(), now)
                .await
        })
        .await
    }

    async fn end_hold_once(
        &self,
        request_id: &str,
        kind: EndKind,
        charge: Option<&Charge>,
        now: Millis,
    ) -> Result<SettleOutcome> {
        Ok(match &self.backend {
            Backend::Sqlite(s) => s.end_hold(request_id, kind, charge, now).await?,
            Backend::Postgres(p) => p.end_hold(request_id, kind, charge, now).await?,
        })
    }

    /// How the hold of `request_id` ended, from its row (written in the transaction that
    /// ended it): what a settle answers when an earlier attempt committed unseen.
    async fn ending_of(&self, request_id: &str) -> Result<SettleOutcome> {
        const ENDING: &str = "SELECT state, credits, charged_free, charged_plan, charged_balance
               FROM holds WHERE request_id = $1";
        let row: Option<(String, i64, i64, i64, i64)> = read!(self, c => Ok(
            sqlx::query_as(ENDING).bind(request_id).fetch_optional(c).await?
        ))?;
        let Some((state, hold, from_free, from_plan, from_balance)) = row else {
            return Ok(SettleOutcome::UnknownHold);
        };
        let kind = match state.as_str() {
            "settled" => EndKind::Settle,
            "voided" => EndKind::Void,
            _ => return Ok(SettleOutcome::AlreadyEnded),
        };
        let ending = crate::ledger::Ending {
            kind,
            from_free,
            from_plan,
            from_balance,
        };
        Ok(ending.outcome(hold))
    }

    /// Release every active hold with `expires_at <= now` (charge 0). Returns how many.
    /// Run by the gateway's reaper, and at start-up.
    pub async fn expire_holds(&self, now: Millis) -> Result<u64> {
        match &self.backend {
            Backend::Sqlite(s) => Ok(s.expire_holds(now).await?),
            Backend::Postgres(p) => {
                let p = p.clone();
                detached(async move { Ok(p.expire_holds(now).await?) }).await
            }
        }
    }

    /// Delete ended holds (settled, voided or expired) that ended before `before`; returns
    /// how many. Active holds are never touched. Meant for the gateway's reaper with
    /// `before = now − retention` (a day, say): the holds table then keeps only recent
    /// ended holds instead of every request ever made.
    ///
    /// What a hold row is still needed for after it ended is idempotence by request id: a
    /// late `settle`/`void` of a pruned hold answers [`SettleOutcome::UnknownHold`] instead
    /// of `AlreadyEnded` and changes nothing. The hold table no longer stops a new hold
    /// from reusing a pruned request id, but the journal still has the old one's life, and
    /// `verify_ledger` would report the two: request ids must stay unique for good (the
    /// gateway's are UUIDs, v7). The journal keeps every movement, so balances and
    /// [`Store::verify_ledger`] do not depend on pruned rows. Runs in batches (a thousand
    /// holds per transaction), so other ledger writes get their turn in between.
    pub async fn prune_holds(&self, before: Millis) -> Result<u64> {
        match &self.backend {
            Backend::Sqlite(s) => Ok(s.prune_holds(before).await?),
            Backend::Postgres(p) => {
                let p = p.clone();
                detached(async move { Ok(p.prune_holds(before).await?) }).await
            }
        }
    }

    /// Recompute every account from the journal and compare with the stored balances,
    /// totals, holds and plan use, in one consistent snapshot.
    pub async fn verify_ledger(&self) -> Result<LedgerReport> {
        Ok(verify::compare(&self.snapshot().await?))
    }

    /// Everything `verify_ledger` compares, in one read transaction. Exempt from the
    /// statement timeout: it reads the whole journal.
    async fn snapshot(&self) -> DbResult<Snapshot> {
        use sqlx::Connection;
        // However long the journal: it is read in full.
        const DEADLINE: std::time::Duration = std::time::Duration::from_secs(24 * 3_600);
        match &self.backend {
            Backend::Sqlite(s) => leased!(s.readers(), Retry::Idempotent, DEADLINE, c => {
                let mut tx = c.begin().await?;
                let snap = read_snapshot!(tx);
                tx.rollback().await?;
                Ok(snap)
            }),
            Backend::Postgres(p) => leased!(&*p.conns, Retry::Idempotent, DEADLINE, c => {
                let mut tx = c
                    .begin_with("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
                    .await?;
                sqlx::query("SET LOCAL statement_timeout = 0")
                    .execute(&mut *tx)
                    .await?;
                let snap = read_snapshot!(tx);
                tx.rollback().await?;
                Ok(snap)
            }),
        }
    }
}

mod emails;
mod endings;
mod generations;
mod image_blocks;
mod keys;
mod people;
mod status;
pub use emails::normalize_email;
pub use endings::CLOSE_GRACE;
pub use generations::{Generation, GENERATION_RETENTION};
pub use image_blocks::{BlockRecorded, BlockRule, ImageBlocks};
pub use keys::{KeyUsage, NewKey};
pub use people::{KeyFilter, Login, UsageRow};
pub use status::AccountState;
