//! Shoal's persistent state: accounts, API keys (with their spending limits), worker tokens,
//! the credit ledger and the record of each request.
//!
//! One [`Store`] type fronts two backends with the same behaviour and the same test suite:
//! SQLite (the embedded default, `shoal.db` in the data folder, WAL mode) and PostgreSQL
//! (shared by several gateways). Prompt or completion text never enters this crate: no type
//! and no column has room for it; the journal keeps token counts only. Time is passed in
//! (`now`, Unix milliseconds) so that plan resets and hold expiry can be driven by tests.
//!
//! # Money
//!
//! Integers only ([`money`]): prices in nano-USD per token, costs in credits (1 credit =
//! USD 0.001), rounded up, at least 1. An account has three buckets: the free daily credits
//! (the operator's daily amount, spent only by requests from the dashboard's session), the
//! plan's daily credits (both reset at 00:00 UTC, no carry-over) and the purchased balance.
//! The spending order is fixed once, in [`money::split_spend`]: free, plan, balance; an
//! API-key request's hold carries no free allowance ([`money::free_allowance`]), so it
//! spends plan, then balance.
//!
//! # The ledger: holds, then settle / void / expire
//!
//! - [`Store::hold`] reserves the largest cost a request could incur, against
//!   `available = free credits left (session requests only) + plan credits left today +
//!   balance − active holds`, with **one conditional
//!   write** (`UPDATE accounts SET held = held + n WHERE id = a AND available >= n`) in the
//!   same transaction as the hold row and its journal row. There is no read-then-write
//!   window: PostgreSQL re-checks the condition on the latest row version when rows
//!   collide (READ COMMITTED is enough); SQLite writers are serialized by `BEGIN IMMEDIATE`.
//! - A hold ends exactly once, idempotently by request id: [`Store::settle`] charges the
//!   billed cost clamped to `[0, hold]` (missing usage: the whole hold), plan credits first,
//!   then the balance, and releases the rest; [`Store::void`] charges 0; [`Store::expire_holds`]
//!   (the reaper, and start-up) releases holds past their `expires_at`. Ending an ended hold
//!   changes nothing ([`SettleOutcome::AlreadyEnded`]); a settle that arrives after the
//!   hold's TTL ends it as expired and charges nothing.
//! - Invariants, kept by every statement and re-checked by [`Store::verify_ledger`]: the
//!   balance is never negative; `total_deposited − total_spent = credits`; `held` is the sum
//!   of active holds; no credit is created or destroyed. Lowering a plan while holds are
//!   active can leave a charge that no bucket covers: that part is not charged (the balance
//!   never goes negative).
//! - Every movement is appended to the `journal` (deposit, hold, settle, void, expire,
//!   adjustment) with request id, model, token counts, credits and bucket; the database
//!   refuses updates and deletes of journal rows. `verify_ledger` recomputes every account
//!   from it and reports any difference.
//! - **Key limits.** An API key may carry a spending limit ([`KeyLimit`]: credits per window,
//!   the window starting again daily, weekly, monthly or never, at UTC boundaries). A hold
//!   made with such a key must fit the key's remaining (`money::key_left`: the limit less
//!   what the key spent in the window and what its active holds reserve) **and** the
//!   account's available credit, in the same conditional write; otherwise it gets
//!   [`HoldOutcome::KeyLimitExceeded`] (nothing reserved), distinct from `Insufficient`. Its
//!   end gives the hold back to the key and adds the charge to the window, by the daily
//!   buckets' own rules (`money::plan_after` on the window). `verify_ledger` checks each key's
//!   counters against the holds and the journal (whose settle rows carry the window,
//!   `key_window`). Management keys ([`KeyKind::Management`]) hold nothing.
//! - Ended holds are only needed for idempotence by request id; [`Store::prune_holds`]
//!   deletes those that ended before a cut-off (the gateway's reaper, with a retention of a
//!   day or so). Balances and `verify_ledger` rest on the journal, which keeps everything.
//!
//! A [`Generation`] records each request (tokens, credits, timings, finish reason, worker
//! kind; never text, never which worker) for the account that made it, for a bounded time.
//!
//! [`Store::record_image_block`] counts an account's blocked image prompts per key (counts
//! only, never the prompt) and suspends a key from image generation past the operator's
//! [`BlockRule`], until [`Store::clear_image_blocks`].
//!
//! Ledger writes, once started, run to completion even if the caller stops waiting. A settle
//! or void that meets a database failure is retried until it commits (see [`Store::settle`]):
//! a database restart loses no charge.
//!
//! # Backends
//!
//! - **SQLite** (`open_data_dir`, `sqlite:` URLs): WAL, `synchronous = NORMAL` (a commit
//!   survives a process crash; an OS crash or power loss may lose the last commits, never
//!   half of one), `busy_timeout` so that the server and `shoal admin` can share the file.
//!   One writer thread owns the only write connection (rusqlite, synchronous, cached
//!   statements) and commits queued writes together (group commit), each in its own
//!   savepoint; a second thread checkpoints the WAL; reads use a few sqlx connections.
//! - **PostgreSQL** (`postgres://` URLs): holds and settles waiting together are committed
//!   as one batch (one call of a PL/pgSQL function, one transaction), a lone one as a
//!   single statement of data-modifying CTEs; a settle locks the account, then the hold,
//!   with `FOR UPDATE`. Everything else is one statement on a small connection set.
//!   The writer never waits for a row lock: an account another session keeps locked has its
//!   jobs run apart, waiting at most `lock_timeout`, so one account's lock (a frozen
//!   gateway's transaction) holds up no other account. Sessions start with the timeouts of
//!   [`StoreOptions`] (lock, statement, idle in transaction, TCP keepalives), so no lock
//!   outlives its holder by long; a deposit is decided on a read and applied in one call,
//!   holding no lock between round trips.
//!
//! Migrations for each backend live in `migrations/sqlite` and `migrations/postgres` and
//! run on open.
//!
//! # Errors
//!
//! [`StoreError`] never names the driver: `fault.rs` sorts every database error once into
//! not found, conflict, invalid, **unavailable** (down, restarting, the connection died, out
//! of resources, a lock or statement timeout: [`StoreError::is_retryable`]) and internal. A
//! connection whose session ended is dropped at once, with every idle connection opened
//! before it, and a read, or a write the server never started, runs once more on a fresh
//! connection.

#[macro_use]
mod macros;

pub mod credentials;
pub mod deposits;
pub mod money;

/// Unix time in milliseconds.
pub type Millis = i64;
pub type AccountId = i64;
pub type KeyId = i64;

pub type Result<T, E = StoreError> = std::result::Result<T, E>;

/// What a store operation can fail with. The database driver stays inside the crate: its
/// errors are sorted into these once (`fault.rs`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum StoreError {
    /// The named thing does not exist (account, key, ...).
    #[error("{0} not found")]
    NotFound(&'static str),
    /// A uniqueness rule was broken (e.g. the email is taken).
    #[error("{0}")]
    Conflict(String),
    /// An argument is out of range (e.g. a non-positive grant).
    #[error("{0}")]
    Invalid(String),
    /// The database cannot answer now: it is down or restarting, the connection died, it is
    /// out of resources, or a lock or statement timeout ran out. Worth retrying later. Unless
    /// the operation says otherwise, it may or may not have happened; the ledger's movements
    /// are idempotent by request id, so a retry of those is always safe.
    #[error("database unavailable: {0}")]
    Unavailable(String),
    /// The database failed in a way a retry will not fix: a schema or a row this code does
    /// not expect, a broken constraint, a failed migration. A bug or a damaged database.
    #[error("store failure: {0}")]
    Internal(String),
}

impl StoreError {
    /// Whether trying again later may succeed ([`StoreError::Unavailable`]).
    pub fn is_retryable(&self) -> bool {
        matches!(self, StoreError::Unavailable(_))
    }
}

#[derive(Debug, Clone)]
pub struct NewApiKey {
    pub id: KeyId,
    /// The plaintext key. Returned this once; only its hash is stored.
    pub key: String,
    pub prefix: String,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApiKeyInfo {
    pub id: KeyId,
    pub account_id: AccountId,
    pub name: Option<String>,
    /// Display prefix, e.g. `sk-shoal-AbCd`.
    pub prefix: String,
    /// Requests per minute for this key; `None` means the gateway default.
    pub rpm: Option<u32>,
    pub kind: KeyKind,
    /// Its spending limit, if it has one.
    pub limit: Option<KeyLimit>,
    /// Requests in flight at once; `None` means the gateway default.
    pub concurrency: Option<u32>,
    pub created_at: Millis,
    pub revoked_at: Option<Millis>,
}

/// What a key may do.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum KeyKind {
    /// Runs requests (chat, images), paid from the account.
    #[default]
    Inference,
    /// Manages the account's keys (create, list, change, revoke); runs no request: the
    /// ledger refuses its holds.
    Management,
}

impl KeyKind {
    pub const fn as_str(self) -> &'static str {
        match self {
            KeyKind::Inference => "inference",
            KeyKind::Management => "management",
        }
    }

    pub fn parse(s: &str) -> Option<KeyKind> {
        match s {
            "inference" => Some(KeyKind::Inference),
            "management" => Some(KeyKind::Management),
            _ => None,
        }
    }
}

/// A key's spending limit: at most `credits` spent by its requests in each window, the
/// window starting again as `reset` says (UTC boundaries; see `money`'s key limits).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KeyLimit {
    pub credits: i64,
    pub reset: money::LimitReset,
}

/// Who a valid, unrevoked API key belongs to, and what it may do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApiKeyPrincipal {
    pub key_id: KeyId,
    pub account_id: AccountId,
    pub rpm: Option<u32>,
    pub kind: KeyKind,
    /// Requests in flight at once; `None` means the gateway default.
    pub concurrency: Option<u32>,
}

#[derive(Debug, Clone)]
pub struct NewWorkerToken {
    pub id: i64,
    pub token: String,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WorkerTokenInfo {
    pub id: i64,
    pub name: String,
    /// A browser invite: admits only a `kind: browser` worker.
    pub browser_only: bool,
    /// After this (Unix ms) the token admits nobody; `None` never expires.
    pub expires_at: Option<Millis>,
}

impl WorkerTokenInfo {
    /// Whether the token still admits a worker at `now`.
    pub fn live_at(&self, now: Millis) -> bool {
        self.expires_at.is_none_or(|t| now < t)
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Balance {
    /// Settled purchased balance (`total_deposited - total_spent`).
    pub credits: i64,
    /// Credits reserved by active holds.
    pub credits_held: i64,
    /// The plan's daily credits per day (0 without a plan).
    pub plan_daily_credits: i64,
    /// The plan's daily credits left today (UTC day of `now`).
    pub daily_credits_left: i64,
    pub total_deposited: i64,
    pub total_spent: i64,
    /// Free daily credits spent on the UTC day of `now`. The daily amount is the operator's
    /// setting, not the store's: what is left is `(amount - free_used_today).max(0)`.
    pub free_used_today: i64,
}

#[derive(Debug, Clone)]
pub struct HoldRequest {
    /// Unique per request (e.g. `chatcmpl-…`); makes settle/void idempotent.
    pub request_id: String,
    pub account_id: AccountId,
    /// Largest possible cost of the request, in credits (>= 1).
    pub credits: i64,
    /// Model id, kept in the journal.
    pub model: String,
    /// When the hold lapses if never settled.
    pub expires_at: Millis,
    /// Free daily credits this request may spend, before the plan's and the balance:
    /// [`money::free_allowance`] (0 for an API-key request).
    pub free_daily: i64,
    /// The API key the request authenticated with; `None` for the dashboard's session. Kept
    /// on the hold and its journal rows, for usage by key.
    pub key_id: Option<KeyId>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HoldOutcome {
    Held,
    /// Not enough available credit: nothing was reserved.
    Insufficient {
        needed: i64,
        available: i64,
    },
    /// The request's API key has less than `needed` left of its spending limit in this
    /// window: nothing was reserved. (Checked before the account's credit: a key over its
    /// limit says so even when the account is short too.)
    KeyLimitExceeded {
        needed: i64,
        /// The key's limit per window.
        limit: i64,
        /// What is left of it in this window (never negative).
        remaining: i64,
        reset: money::LimitReset,
        /// When the next window starts (Unix ms, UTC); `None` for a lifetime limit.
        resets_at: Option<Millis>,
    },
}

/// What a finished request is billed. Token counts go to the journal.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Charge {
    pub input_tokens: i64,
    pub output_tokens: i64,
    pub reasoning_tokens: i64,
    /// Cost computed by the caller with [`money::RateCard`]; clamped to `[0, hold]` by the store.
    pub credits: i64,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SettleOutcome {
    /// The hold ended now: `charged` spent (free, then plan, then balance), the rest
    /// released.
    Settled {
        charged: i64,
        from_free: i64,
        from_plan: i64,
        from_balance: i64,
        released: i64,
    },
    /// The hold had already ended (settled, voided or expired): nothing changed.
    AlreadyEnded,
    /// No hold with that request id.
    UnknownHold,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Discrepancy {
    pub account_id: AccountId,
    pub what: String,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LedgerReport {
    pub accounts_checked: u64,
    pub discrepancies: Vec<Discrepancy>,
}

mod conns;
mod fault;
mod ledger;
mod options;
mod pg_ledger;
mod pg_writer;
mod postgres;
mod sqlite;
mod sqlite_writer;
mod store;
mod verify;

pub use ledger::MAX_CREDITS;
pub use options::{StoreOptions, CLIENT_GRACE};
pub use store::{
    normalize_email, AccountState, BlockRecorded, BlockRule, Generation, ImageBlocks, KeyFilter,
    KeyUsage, Login, NewKey, Store, UsageRow, CLOSE_GRACE, GENERATION_RETENTION,
};

#[allow(dead_code)]
fn _assert_store_is_shareable() {
    fn shareable<T: Send + Sync + Clone + 'static>() {}
    shareable::<Store>();
}
