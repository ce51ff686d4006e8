//! Stablecoin deposits: recording a final on-chain transfer once and crediting it.
//!
//! A deposit is keyed by `(chain_id, tx_hash, log_index)`; recording it twice (a restart, an
//! overlapping scan, a second watcher) changes nothing. Credits are
//! `amount × credits_per_usd / 10^decimals`, whole credits only; the fraction left over is kept
//! per account in 10^-18 credit ([`REMAINDER_UNIT`]) and added to the next deposit, so nothing
//! is rounded away or created. Deposits below the chain's minimum wait (`below_minimum`) until
//! this account's waiting deposits of the same token add up to the minimum; then they are
//! credited together, on the row of the deposit that completed the sum.
//!
//! The same steps run on both backends: read what waits, decide in Rust ([`decide`]), write.
//! Credits move with the journal's `deposit` rows, so `verify_ledger` covers them.
//!
//! Transfers seen in blocks that are not final yet are kept apart, for display only
//! ([`PendingDeposit`], `pending`).

use sqlx::Row;

use crate::conns::Retry;
use crate::fault::{DbResult, Fault};
use crate::ledger::MAX_CREDITS;
use crate::sqlite_writer::Db;
use crate::store::{detached, Backend};
use crate::{AccountId, Millis, Result, Store, StoreError};

/// The unit of the carried remainder: 10^-18 credit (token decimals up to 18 are exact in it).
pub const REMAINDER_UNIT: u128 = 1_000_000_000_000_000_000;

/// The most decimals a token may have.
pub const MAX_DECIMALS: u8 = 18;

/// A final transfer to an account's deposit address, as the chain watcher saw it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewDeposit {
    pub chain_id: i64,
    /// `0x` + 64 lowercase hex digits.
    pub tx_hash: String,
    pub log_index: i64,
    pub block_number: i64,
    /// The token contract, `0x` + 40 lowercase hex digits.
    pub token: String,
    pub account_id: AccountId,
    /// Base units of the token.
    pub amount: u128,
    pub decimals: u8,
    /// Base units; deposits below it wait for more (see the module docs).
    pub minimum: u128,
    pub credits_per_usd: i64,
}

/// What recording a deposit did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DepositOutcome {
    /// Credited (with those waiting below the minimum, if any): `credits` may be 0 when the
    /// amount paid for less than a credit; the fraction is carried.
    Credited { credits: i64 },
    /// Recorded; waiting until this account's deposits of the token reach the minimum.
    BelowMinimum { pending: u128 },
    /// Recorded, never credited: more than the ledger can hold.
    TooLarge,
    /// Seen before: nothing changed.
    AlreadyRecorded,
}

/// A deposit as stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DepositRecord {
    pub id: i64,
    pub chain_id: i64,
    pub tx_hash: String,
    pub log_index: i64,
    pub block_number: i64,
    pub token: String,
    pub account_id: AccountId,
    /// Base units, decimal digits.
    pub amount: String,
    pub credits: i64,
    /// `credited`, `below_minimum` or `too_large`.
    pub state: String,
    pub recorded_at: Millis,
    pub credited_at: Option<Millis>,
}

/// What to do with a new deposit, given the deposits of the same account and token already
/// waiting below the minimum (amounts, this one included) and the carried remainder.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Decision {
    Wait { pending: u128 },
    TooLarge,
    Credit { credits: i64, remainder: i64 },
}

/// Whole credits for `amount` base units plus the carried `remainder` (in [`REMAINDER_UNIT`]),
/// and the new remainder. `None` when the result is beyond [`MAX_CREDITS`].
pub fn split_credits(
    amount: u128,
    decimals: u8,
    credits_per_usd: i64,
    remainder: i64,
) -> Option<(i64, i64)> {
    if decimals > MAX_DECIMALS || credits_per_usd < 1 || remainder < 0 {
        return None;
    }
    let scale = 10u128.pow(u32::from(MAX_DECIMALS - decimals));
    let value = amount
        .checked_mul(credits_per_usd as u128)?
        .checked_mul(scale)?
        .checked_add(remainder as u128)?;
    let credits = i64::try_from(value / REMAINDER_UNIT).ok()?;
    if credits > MAX_CREDITS {
        return None;
    }
    Some((credits, (value % REMAINDER_UNIT) as i64))
}

pub(crate) fn decide(d: &NewDeposit, waiting: &[u128], remainder: i64) -> Decision {
    let pending = waiting.iter().try_fold(0u128, |a, b| a.checked_add(*b));
    let Some(pending) = pending else {
        return Decision::TooLarge;
    };
    if pending < d.minimum {
        return Decision::Wait { pending };
    }
    match split_credits(pending, d.decimals, d.credits_per_usd, remainder) {
        Some((credits, remainder)) => Decision::Credit { credits, remainder },
        None => Decision::TooLarge,
    }
}

/// `0x` and `digits` lowercase hex digits (how tx hashes and tokens are stored).
fn lower_hex(s: &str, digits: usize) -> bool {
    s.len() == digits + 2
        && s.starts_with("0x")
        && s[2..]
            .bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

fn check(d: &NewDeposit) -> Result<()> {
    if !lower_hex(&d.tx_hash, 64) || !lower_hex(&d.token, 40) {
        return Err(StoreError::Invalid(
            "tx_hash and token must be lowercase 0x-hex of 32 and 20 bytes".into(),
        ));
    }
    if d.decimals > MAX_DECIMALS || d.credits_per_usd < 1 || d.log_index < 0 || d.block_number < 0 {
        return Err(StoreError::Invalid(format!(
            "decimals at most {MAX_DECIMALS}, credits_per_usd at least 1, indexes not negative"
        )));
    }
    Ok(())
}

const INSERT: &str = "INSERT INTO deposits (chain_id, tx_hash, log_index, block_number, token,
        account_id, amount, state, recorded_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, 'below_minimum', $8)
     ON CONFLICT (chain_id, tx_hash, log_index) DO NOTHING RETURNING id";

const WAITING: &str = "SELECT id, amount FROM deposits
      WHERE account_id = $1 AND chain_id = $2 AND token = $3 AND state = 'below_minimum'";

const REMAINDER: &str = "SELECT remainder FROM deposit_remainders WHERE account_id = $1";

/// `$n` appear in order (SQLite numbers named parameters by first appearance).
const CREDIT_ACCOUNT: &str = "UPDATE accounts
        SET credits = credits + $1, total_deposited = total_deposited + $1
      WHERE id = $2 AND total_deposited + $1 <= $3";

const JOURNAL: &str = "INSERT INTO journal (at, kind, account_id, request_id, credits, bucket)
     VALUES ($1, 'deposit', $2, $3, $4, 'balance')";

const SET_REMAINDER: &str = "INSERT INTO deposit_remainders (account_id, remainder) VALUES ($1, $2)
     ON CONFLICT (account_id) DO UPDATE SET remainder = excluded.remainder";

/// Marks this account's waiting deposits of the token credited; the deposit `$2` that
/// completed them gets the credits.
const MARK_CREDITED: &str = "UPDATE deposits
        SET state = 'credited', credited_at = $1, credits = CASE WHEN id = $2 THEN $3 ELSE 0 END
      WHERE account_id = $4 AND chain_id = $5 AND token = $6 AND state = 'below_minimum'";

const MARK_TOO_LARGE: &str = "UPDATE deposits SET state = 'too_large' WHERE id = $1";

const LIST: &str = "SELECT id, chain_id, tx_hash, log_index, block_number, token, account_id,
        amount, credits, state, recorded_at, credited_at
       FROM deposits WHERE ($1 = 0 OR account_id = $1) AND ($3 = 0 OR id < $3)
      ORDER BY id DESC LIMIT $2";

const LEASE: &str = "INSERT INTO leases (name, holder, expires_at) VALUES ($1, $2, $3)
     ON CONFLICT (name) DO UPDATE SET holder = excluded.holder, expires_at = excluded.expires_at
      WHERE leases.holder = excluded.holder OR leases.expires_at <= $4
     RETURNING expires_at";

const SET_CURSOR: &str = "INSERT INTO deposit_cursors (chain_id, token, next_block, updated_at)
     VALUES ($1, $2, $3, $4)
     ON CONFLICT (chain_id, token) DO UPDATE
        SET next_block = excluded.next_block, updated_at = excluded.updated_at";

/// The journal row's reference to the deposit: `chain_id:tx_hash:log_index`.
fn reference(d: &NewDeposit) -> String {
    format!("{}:{}:{}", d.chain_id, d.tx_hash, d.log_index)
}

fn parse_amount(s: &str) -> Result<u128> {
    s.parse()
        .map_err(|_| StoreError::Invalid("a stored deposit amount is not a number".into()))
}

/// A `DepositRecord` from a row of [`LIST`] (either backend's row type).
macro_rules! record_from_row {
    ($r:expr) => {{
        let r = $r;
        Ok::<_, Fault>(DepositRecord {
            id: r.try_get("id")?,
            chain_id: r.try_get("chain_id")?,
            tx_hash: r.try_get("tx_hash")?,
            log_index: r.try_get("log_index")?,
            block_number: r.try_get("block_number")?,
            token: r.try_get("token")?,
            account_id: r.try_get("account_id")?,
            amount: r.try_get("amount")?,
            credits: r.try_get("credits")?,
            state: r.try_get("state")?,
            recorded_at: r.try_get("recorded_at")?,
            credited_at: r.try_get("credited_at")?,
        })
    }};
}

mod pending;
pub use pending::{ChainHead, PendingDeposit};

impl Store {
    /// Record a final deposit and credit it (see the module docs). Idempotent on
    /// `(chain_id, tx_hash, log_index)`.
    pub async fn record_deposit(&self, d: &NewDeposit, now: Millis) -> Result<DepositOutcome> {
        check(d)?;
        // Rescans and a second watcher mostly meet deposits already recorded: a read answers
        // them without a write (and, on PostgreSQL, without a commit to flush). The unique key
        // still decides any race.
        const SEEN: &str =
            "SELECT 1 FROM deposits WHERE chain_id = $1 AND tx_hash = $2 AND log_index = $3";
        let seen: Option<i32> = read!(self, c => Ok(sqlx::query_scalar(SEEN)
            .bind(d.chain_id)
            .bind(&d.tx_hash)
            .bind(d.log_index)
            .fetch_optional(c)
            .await?))?;
        if seen.is_some() {
            return Ok(DepositOutcome::AlreadyRecorded);
        }
        let d = d.clone();
        match &self.backend {
            Backend::Sqlite(s) => Ok(s.writer().run(move |c| record_sqlite(c, &d, now)).await?),
            Backend::Postgres(p) => {
                let p = p.clone();
                // Idempotent by the deposit's key: a retry finds it recorded.
                detached(async move {
                    Ok(pg!(&p, Retry::Idempotent, c => record_pg(c, &d, now).await)?)
                })
                .await
            }
        }
    }

    /// Deposits, newest first: one account's, or everyone's (`None`); with `before`, only
    /// those older than that deposit id (a page after the one that ended there).
    pub async fn list_deposits(
        &self,
        account: Option<AccountId>,
        before: Option<i64>,
        limit: i64,
    ) -> Result<Vec<DepositRecord>> {
        read!(self, c => sqlx::query(LIST)
            .bind(account.unwrap_or(0))
            .bind(limit)
            .bind(before.unwrap_or(0))
            .fetch_all(c)
            .await?
            .iter()
            .map(|r| record_from_row!(r))
            .collect::<DbResult<Vec<_>>>())
    }

    /// The fraction of a credit an account has paid for beyond its credits, in 10^-18 credit.
    pub async fn deposit_remainder(&self, account: AccountId) -> Result<i64> {
        let v: Option<i64> = read!(self, c => Ok(sqlx::query_scalar(REMAINDER)
            .bind(account)
            .fetch_optional(c)
            .await?))?;
        Ok(v.unwrap_or(0))
    }

    /// Account ids above `after`, ascending, at most `limit` (the watcher derives their
    /// deposit addresses as accounts appear).
    pub async fn account_ids_after(&self, after: AccountId, limit: i64) -> Result<Vec<AccountId>> {
        const SQL: &str = "SELECT id FROM accounts WHERE id > $1 ORDER BY id LIMIT $2";
        let ids = read!(self, c => Ok(sqlx::query_scalar(SQL)
            .bind(after)
            .bind(limit)
            .fetch_all(c)
            .await?))?;
        Ok(ids)
    }

    /// The first block of `token` on `chain_id` not yet scanned, if a scan ever ran.
    pub async fn deposit_cursor(&self, chain_id: i64, token: &str) -> Result<Option<i64>> {
        const SQL: &str =
            "SELECT next_block FROM deposit_cursors WHERE chain_id = $1 AND token = $2";
        let v = read!(self, c => Ok(sqlx::query_scalar(SQL)
            .bind(chain_id)
            .bind(token)
            .fetch_optional(c)
            .await?))?;
        Ok(v)
    }

    /// Set the scan cursor (the watcher after each range; `shoal admin deposits rescan`).
    pub async fn set_deposit_cursor(
        &self,
        chain_id: i64,
        token: &str,
        next_block: i64,
        now: Millis,
    ) -> Result<()> {
        if next_block < 0 {
            return Err(StoreError::Invalid("a block number is not negative".into()));
        }
        let token = token.to_string();
        match &self.backend {
            Backend::Sqlite(s) => Ok(s
                .writer()
                .run(move |c| {
                    c.prepare_cached(SET_CURSOR)
                        .db()?
                        .execute(rusqlite::params![chain_id, token, next_block, now])
                        .db()
                        .map(drop)
                })
                .await?),
            Backend::Postgres(p) => Ok(pg!(p, Retry::Idempotent, c => {
                sqlx::query(SET_CURSOR)
                    .bind(chain_id)
                    .bind(&token)
                    .bind(next_block)
                    .bind(now)
                    .execute(&mut *c)
                    .await?;
                Ok(())
            })?),
        }
    }

    /// Take or renew the lease `name` for `holder` until `now + ttl_ms`. `true` if `holder`
    /// holds it now; someone else's lease is taken only once it has expired.
    pub async fn try_lease(
        &self,
        name: &str,
        holder: &str,
        ttl_ms: i64,
        now: Millis,
    ) -> Result<bool> {
        let until = now.saturating_add(ttl_ms.max(1));
        // Taking or renewing one's own lease twice is the same as once.
        let got = write_id!(
            self,
            Retry::Idempotent,
            LEASE,
            name.to_string(),
            holder.to_string(),
            until,
            now
        )?;
        Ok(got.is_some())
    }
}

fn record_sqlite(
    c: &rusqlite::Connection,
    d: &NewDeposit,
    now: Millis,
) -> DbResult<DepositOutcome> {
    let Some(id) = insert_sqlite(c, d, now)? else {
        return Ok(DepositOutcome::AlreadyRecorded);
    };
    let (waiting, remainder) = decide_on_sqlite(c, d)?;
    match decide(d, &waiting, remainder) {
        Decision::Wait { pending } => Ok(DepositOutcome::BelowMinimum { pending }),
        Decision::TooLarge => too_large_sqlite(c, id),
        Decision::Credit { credits, remainder } => credit_sqlite(c, d, id, credits, remainder, now),
    }
}

/// Inserts the deposit as waiting; `None` when it was recorded before.
fn insert_sqlite(c: &rusqlite::Connection, d: &NewDeposit, now: Millis) -> DbResult<Option<i64>> {
    use rusqlite::{params, OptionalExtension};
    c.prepare_cached(INSERT)
        .db()?
        .query_row(
            params![
                d.chain_id,
                d.tx_hash,
                d.log_index,
                d.block_number,
                d.token,
                d.account_id,
                d.amount.to_string(),
                now
            ],
            |r| r.get(0),
        )
        .optional()
        .db()
}

/// What a deposit is decided on: the amounts waiting on this account, chain and token (this
/// one among them) and the account's carried remainder.
fn decide_on_sqlite(c: &rusqlite::Connection, d: &NewDeposit) -> DbResult<(Vec<u128>, i64)> {
    use rusqlite::{params, OptionalExtension};
    let mut waiting = Vec::new();
    let mut stmt = c.prepare_cached(WAITING).db()?;
    let mut rows = stmt
        .query(params![d.account_id, d.chain_id, d.token])
        .db()?;
    while let Some(r) = rows.next().db()? {
        waiting.push(parse_amount(&r.get::<_, String>(1).db()?)?);
    }
    let remainder: i64 = c
        .prepare_cached(REMAINDER)
        .db()?
        .query_row([d.account_id], |r| r.get(0))
        .optional()
        .db()?
        .unwrap_or(0);
    Ok((waiting, remainder))
}

/// Credits the account, journals it, carries the new remainder and marks the waiting
/// deposits credited; too large when the balance would pass [`MAX_CREDITS`].
fn credit_sqlite(
    c: &rusqlite::Connection,
    d: &NewDeposit,
    id: i64,
    credits: i64,
    remainder: i64,
    now: Millis,
) -> DbResult<DepositOutcome> {
    use rusqlite::params;
    if credits > 0 {
        let n = c
            .prepare_cached(CREDIT_ACCOUNT)
            .db()?
            .execute(params![credits, d.account_id, MAX_CREDITS])
            .db()?;
        if n == 0 {
            return too_large_sqlite(c, id);
        }
        c.prepare_cached(JOURNAL)
            .db()?
            .execute(params![now, d.account_id, reference(d), credits])
            .db()?;
    }
    c.prepare_cached(SET_REMAINDER)
        .db()?
        .execute(params![d.account_id, remainder])
        .db()?;
    c.prepare_cached(MARK_CREDITED)
        .db()?
        .execute(params![now, id, credits, d.account_id, d.chain_id, d.token])
        .db()?;
    Ok(DepositOutcome::Credited { credits })
}

fn too_large_sqlite(c: &rusqlite::Connection, id: i64) -> DbResult<DepositOutcome> {
    c.prepare_cached(MARK_TOO_LARGE).db()?.execute([id]).db()?;
    Ok(DepositOutcome::TooLarge)
}

/// Times a PostgreSQL deposit is decided again when its account's deposits changed between
/// the read and the write (another watcher recording another transfer to it meanwhile),
/// after a short random wait that grows with each try (so that racing writers spread out).
const RECORD_TRIES: u32 = 64;

/// $1 account: makes sure its remainder row (and so its version) exists.
const REMAINDER_ROW: &str = "INSERT INTO deposit_remainders (account_id, remainder) VALUES ($1, 0)
     ON CONFLICT (account_id) DO NOTHING";

/// $1 account, $2 chain, $3 token: what a deposit is decided on, in one snapshot.
const DECIDE_ON: &str = "SELECT r.version, r.remainder,
        ARRAY(SELECT amount FROM deposits
               WHERE account_id = $1 AND chain_id = $2 AND token = $3
                 AND state = 'below_minimum') AS waiting
       FROM deposit_remainders r WHERE r.account_id = $1";

const APPLY: &str = "SELECT shoal_record_deposit($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11,
                                                $12, $13, $14)";

/// PostgreSQL: read without locks, decide, apply in one call that checks nothing changed
/// (migration `deposit_version`). No lock is held between two round trips.
async fn record_pg(
    conn: &mut sqlx::PgConnection,
    d: &NewDeposit,
    now: Millis,
) -> DbResult<DepositOutcome> {
    let ensured = sqlx::query(REMAINDER_ROW)
        .bind(d.account_id)
        .execute(&mut *conn)
        .await
        .map_err(Fault::from);
    if let Err(f) = ensured {
        return Err(if f.is_foreign_key_violation() {
            StoreError::NotFound("account").into()
        } else {
            f
        });
    }
    for attempt in 0..RECORD_TRIES {
        if attempt > 0 {
            let most = u64::from(attempt.min(10)) * 5;
            tokio::time::sleep(std::time::Duration::from_millis(rand::random_range(
                1..=most,
            )))
            .await;
        }
        let (version, remainder, waiting): (i64, i64, Vec<String>) = sqlx::query_as(DECIDE_ON)
            .bind(d.account_id)
            .bind(d.chain_id)
            .bind(&d.token)
            .fetch_one(&mut *conn)
            .await?;
        let mut amounts = waiting
            .iter()
            .map(|a| parse_amount(a))
            .collect::<Result<Vec<_>>>()?;
        amounts.push(d.amount);
        let decision = decide(d, &amounts, remainder);
        if let Some(outcome) = apply_pg(conn, d, version, &decision, now).await? {
            return Ok(outcome);
        }
    }
    Err(StoreError::Unavailable(
        "the account's deposits kept changing while this one was recorded".into(),
    )
    .into())
}

/// One call of `shoal_record_deposit`; `None` when the account's deposits changed since
/// they were read (decide again).
async fn apply_pg(
    conn: &mut sqlx::PgConnection,
    d: &NewDeposit,
    version: i64,
    decision: &Decision,
    now: Millis,
) -> DbResult<Option<DepositOutcome>> {
    let (kind, credits, remainder) = match *decision {
        Decision::Wait { .. } => ("wait", 0, 0),
        Decision::TooLarge => ("too_large", 0, 0),
        Decision::Credit { credits, remainder } => ("credit", credits, remainder),
    };
    let applied: String = sqlx::query_scalar(APPLY)
        .bind(version)
        .bind(d.chain_id)
        .bind(&d.tx_hash)
        .bind(d.log_index)
        .bind(d.block_number)
        .bind(&d.token)
        .bind(d.account_id)
        .bind(d.amount.to_string())
        .bind(now)
        .bind(kind)
        .bind(credits)
        .bind(remainder)
        .bind(MAX_CREDITS)
        .bind(reference(d))
        .fetch_one(&mut *conn)
        .await?;
    Ok(match (applied.as_str(), decision) {
        ("retry", _) => None,
        ("already", _) => Some(DepositOutcome::AlreadyRecorded),
        ("waiting", Decision::Wait { pending }) => {
            Some(DepositOutcome::BelowMinimum { pending: *pending })
        }
        ("credited", _) => Some(DepositOutcome::Credited { credits }),
        ("too_large", _) => Some(DepositOutcome::TooLarge),
        (other, _) => {
            return Err(
                StoreError::Internal(format!("unexpected deposit outcome {other:?}")).into(),
            )
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_token_of_six_decimals_is_500_credits() {
        assert_eq!(split_credits(1_000_000, 6, 500, 0), Some((500, 0)));
    }

    #[test]
    fn fractions_are_carried_not_rounded() {
        // 0.0013 token = 0.65 credit.
        let (c, r) = split_credits(1_300, 6, 500, 0).unwrap();
        assert_eq!((c, r), (0, 650_000_000_000_000_000));
        // another 0.0013: 1.3 credits
        let (c, r) = split_credits(1_300, 6, 500, r).unwrap();
        assert_eq!((c, r), (1, 300_000_000_000_000_000));
    }

    #[test]
    fn eighteen_decimals_and_the_cap() {
        assert_eq!(split_credits(10u128.pow(18), 18, 500, 0), Some((500, 0)));
        assert_eq!(split_credits(1, 18, 500, 0), Some((0, 500)));
        assert_eq!(split_credits(u128::MAX, 6, 500, 0), None);
        assert_eq!(split_credits(1, 19, 500, 0), None);
        // MAX_CREDITS / 500 USD is the most one deposit can buy.
        let most = (MAX_CREDITS as u128 / 500) * 1_000_000;
        assert!(split_credits(most, 6, 500, 0).is_some());
        assert!(split_credits(most + 1_000_000, 6, 500, 0).is_none());
    }

    #[test]
    fn below_minimum_waits_then_credits_the_sum() {
        let d = NewDeposit {
            chain_id: 1,
            tx_hash: format!("0x{}", "ab".repeat(32)),
            log_index: 0,
            block_number: 1,
            token: format!("0x{}", "cd".repeat(20)),
            account_id: 1,
            amount: 400_000,
            decimals: 6,
            minimum: 1_000_000,
            credits_per_usd: 500,
        };
        assert_eq!(
            decide(&d, &[400_000], 0),
            Decision::Wait { pending: 400_000 }
        );
        assert_eq!(
            decide(&d, &[700_000, 400_000], 0),
            Decision::Credit {
                credits: 550,
                remainder: 0
            }
        );
    }
}
