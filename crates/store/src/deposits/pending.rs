//! Deposits seen but not final yet, and the chain's head, as the chain watcher holding the
//! lease last saw them.
//!
//! The watcher replaces a chain's whole set at each scan ([`Store::replace_pending_deposits`]),
//! so a transfer that a reorg removed is gone at the next scan, and every gateway sharing the
//! database reads the same set. Nothing here moves credits: a pending row is only shown;
//! crediting happens when the watcher reads the transfer again in a final block.

use sqlx::{Connection, Row};

use super::lower_hex;
use crate::conns::Retry;
use crate::fault::{DbResult, Fault};
use crate::sqlite_writer::Db;
use crate::store::{detached, Backend};
use crate::{AccountId, Millis, Result, Store, StoreError};

/// A transfer to an account's deposit address in a block that is not final yet.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PendingDeposit {
    pub chain_id: i64,
    /// The token contract, `0x` + 40 lowercase hex digits.
    pub token: String,
    /// `0x` + 64 lowercase hex digits.
    pub tx_hash: String,
    pub log_index: i64,
    pub block_number: i64,
    pub account_id: AccountId,
    /// Base units of the token.
    pub amount: u128,
}

/// A chain's latest and last final block, when the watcher saw them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ChainHead {
    pub head_block: i64,
    pub final_block: i64,
    pub observed_at: Millis,
}

const UPSERT_HEAD: &str =
    "INSERT INTO deposit_heads (chain_id, token, head_block, final_block, observed_at)
     VALUES ($1, $2, $3, $4, $5)
     ON CONFLICT (chain_id, token) DO UPDATE SET head_block = excluded.head_block,
        final_block = excluded.final_block, observed_at = excluded.observed_at";

const CLEAR: &str = "DELETE FROM pending_deposits WHERE chain_id = $1 AND token = $2";

const INSERT: &str = "INSERT INTO pending_deposits (chain_id, token, tx_hash, log_index,
        block_number, account_id, amount) VALUES ($1, $2, $3, $4, $5, $6, $7)
     ON CONFLICT (chain_id, tx_hash, log_index) DO NOTHING";

/// An account's pending deposits that are not recorded yet (between the credit and the next
/// replacement both tables may hold a transfer: the recorded one wins).
const LIST: &str = "SELECT chain_id, token, tx_hash, log_index, block_number, account_id, amount
       FROM pending_deposits p WHERE account_id = $1 AND NOT EXISTS (SELECT 1 FROM deposits d
         WHERE d.chain_id = p.chain_id AND d.tx_hash = p.tx_hash AND d.log_index = p.log_index)
      ORDER BY block_number DESC, log_index DESC";

const HEAD: &str = "SELECT head_block, final_block, observed_at FROM deposit_heads
      WHERE chain_id = $1 AND token = $2";

fn check(chain_id: i64, token: &str, head: &ChainHead, rows: &[PendingDeposit]) -> Result<()> {
    let ok = lower_hex(token, 40)
        && head.head_block >= 0
        && head.final_block >= 0
        && rows.iter().all(|r| {
            (r.chain_id, r.token.as_str()) == (chain_id, token)
                && lower_hex(&r.tx_hash, 64)
                && r.log_index >= 0
                && r.block_number >= 0
        });
    if ok {
        Ok(())
    } else {
        Err(StoreError::Invalid(
            "pending deposits: one chain and token, lowercase hex, no negative numbers".into(),
        ))
    }
}

impl Store {
    /// Replace what is pending on `(chain_id, token)` with `rows`, and record the head, in one
    /// transaction.
    pub async fn replace_pending_deposits(
        &self,
        chain_id: i64,
        token: &str,
        head: ChainHead,
        rows: Vec<PendingDeposit>,
    ) -> Result<()> {
        check(chain_id, token, &head, &rows)?;
        let token = token.to_string();
        match &self.backend {
            Backend::Sqlite(s) => Ok(s
                .writer()
                .run(move |c| replace_sqlite(c, chain_id, &token, &head, &rows))
                .await?),
            Backend::Postgres(p) => {
                let p = p.clone();
                // Replaces a set: the same however often it runs.
                detached(async move {
                    Ok(pg!(&p, Retry::Idempotent, c => {
                        replace_pg(c, chain_id, &token, &head, &rows).await
                    })?)
                })
                .await
            }
        }
    }

    /// The account's deposits seen but not final yet (and not recorded), newest first.
    pub async fn pending_deposits(&self, account: AccountId) -> Result<Vec<PendingDeposit>> {
        read!(self, c => sqlx::query(LIST)
            .bind(account)
            .fetch_all(c)
            .await?
            .iter()
            .map(|r| Ok::<_, Fault>(PendingDeposit {
                chain_id: r.try_get("chain_id")?,
                token: r.try_get("token")?,
                tx_hash: r.try_get("tx_hash")?,
                log_index: r.try_get("log_index")?,
                block_number: r.try_get("block_number")?,
                account_id: r.try_get("account_id")?,
                amount: super::parse_amount(&r.try_get::<String, _>("amount")?)?,
            }))
            .collect::<DbResult<Vec<_>>>())
    }

    /// The head the watcher last saw on `(chain_id, token)`, if it ever scanned.
    pub async fn chain_head(&self, chain_id: i64, token: &str) -> Result<Option<ChainHead>> {
        read!(self, c => sqlx::query(HEAD)
            .bind(chain_id)
            .bind(token)
            .fetch_optional(c)
            .await?
            .map(|r| Ok::<_, Fault>(ChainHead {
                head_block: r.try_get("head_block")?,
                final_block: r.try_get("final_block")?,
                observed_at: r.try_get("observed_at")?,
            }))
            .transpose())
    }
}

fn replace_sqlite(
    c: &rusqlite::Connection,
    chain_id: i64,
    token: &str,
    head: &ChainHead,
    rows: &[PendingDeposit],
) -> DbResult<()> {
    use rusqlite::params;
    c.prepare_cached(UPSERT_HEAD)
        .db()?
        .execute(params![
            chain_id,
            token,
            head.head_block,
            head.final_block,
            head.observed_at
        ])
        .db()?;
    c.prepare_cached(CLEAR)
        .db()?
        .execute(params![chain_id, token])
        .db()?;
    let mut insert = c.prepare_cached(INSERT).db()?;
    for r in rows {
        insert
            .execute(params![
                chain_id,
                token,
                r.tx_hash,
                r.log_index,
                r.block_number,
                r.account_id,
                r.amount.to_string()
            ])
            .db()?;
    }
    Ok(())
}

async fn replace_pg(
    conn: &mut sqlx::PgConnection,
    chain_id: i64,
    token: &str,
    head: &ChainHead,
    rows: &[PendingDeposit],
) -> DbResult<()> {
    let mut tx = conn.begin().await?;
    sqlx::query(UPSERT_HEAD)
        .bind(chain_id)
        .bind(token)
        .bind(head.head_block)
        .bind(head.final_block)
        .bind(head.observed_at)
        .execute(&mut *tx)
        .await?;
    sqlx::query(CLEAR)
        .bind(chain_id)
        .bind(token)
        .execute(&mut *tx)
        .await?;
    for r in rows {
        sqlx::query(INSERT)
            .bind(chain_id)
            .bind(token)
            .bind(&r.tx_hash)
            .bind(r.log_index)
            .bind(r.block_number)
            .bind(r.account_id)
            .bind(r.amount.to_string())
            .execute(&mut *tx)
            .await?;
    }
    tx.commit().await?;
    Ok(())
}
