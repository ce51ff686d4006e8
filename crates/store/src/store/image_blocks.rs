//! Repeat offenders of the image prompt policy: blocked prompts counted per API key and
//! account, and the keys suspended from image generation for it.
//!
//! Counts only: nothing of the prompt, nor which rule blocked it, is kept. Each key (and the
//! dashboard's session, key 0) counts its blocks in a fixed window that starts at its first
//! block after the previous window ended. A key is suspended when its own blocks, or its
//! account's over every key, reach the limit within the window, so a new key does not start
//! an account afresh; a suspension lasts until an operator clears it.

use sqlx::Row;

use super::{account_missing, invalid, Store};
use crate::conns::Retry;
use crate::{AccountId, KeyId, Millis, Result};

/// When blocks suspend a key: `limit` of them within `window_ms`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BlockRule {
    pub limit: i64,
    pub window_ms: Millis,
}

/// What recording one block found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BlockRecorded {
    /// The key's blocks in its current window, this one included.
    pub key_blocks: i64,
    /// The account's blocks in the current windows of all its keys.
    pub account_blocks: i64,
    /// This block suspended the key (it was not suspended before).
    pub suspended: bool,
}

/// One key's row, for the operator.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ImageBlocks {
    pub account_id: AccountId,
    /// `None`: the dashboard's session.
    pub key_id: Option<KeyId>,
    pub blocks: i64,
    pub window_start: Millis,
    pub suspended_at: Option<Millis>,
}

/// $1 account, $2 key (0: session), $3 now, $4 the cut-off (a window that began at or before
/// it is over). Returns the key's blocks in its window.
const COUNT: &str = "INSERT INTO image_blocks (account_id, key_id, window_start, blocks)
     VALUES ($1, $2, $3, 1)
     ON CONFLICT (account_id, key_id) DO UPDATE SET
        blocks = CASE WHEN image_blocks.window_start <= $4 THEN 1
                      ELSE image_blocks.blocks + 1 END,
        window_start = CASE WHEN image_blocks.window_start <= $4 THEN $3
                            ELSE image_blocks.window_start END
     RETURNING blocks";

const SUSPEND: &str = "UPDATE image_blocks SET suspended_at = $3
      WHERE account_id = $1 AND key_id = $2 AND suspended_at IS NULL
      RETURNING key_id";

/// The database's key for the dashboard's session (`usage_daily` uses the same).
fn key_code(key: Option<KeyId>) -> i64 {
    key.unwrap_or(0)
}

impl Store {
    /// Counts one blocked image prompt of `key` (`None`: the dashboard's session) and
    /// suspends the key when the rule says so. A `limit` of 0 counts and never suspends.
    pub async fn record_image_block(
        &self,
        account: AccountId,
        key: Option<KeyId>,
        rule: BlockRule,
        now: Millis,
    ) -> Result<BlockRecorded> {
        if rule.limit < 0 || rule.window_ms <= 0 {
            return Err(invalid("a block rule needs a limit ≥ 0 and a window > 0"));
        }
        let key = key_code(key);
        let cut_off = now.saturating_sub(rule.window_ms);
        let key_blocks = write_id!(self, Retry::IfNotRun, COUNT, account, key, now, cut_off)
            .map_err(account_missing)?
            .unwrap_or(1);
        let account_blocks: i64 = read!(self, c => {
            let r = sqlx::query(
                    "SELECT CAST(COALESCE(SUM(blocks), 0) AS BIGINT) AS n FROM image_blocks
                      WHERE account_id = $1 AND window_start > $2")
                .bind(account)
                .bind(cut_off)
                .fetch_one(c)
                .await?;
            Ok(r.try_get::<i64, _>("n")?)
        })?;
        let over = rule.limit > 0 && (key_blocks >= rule.limit || account_blocks >= rule.limit);
        let suspended =
            over && write_id!(self, Retry::Idempotent, SUSPEND, account, key, now)?.is_some();
        Ok(BlockRecorded {
            key_blocks,
            account_blocks,
            suspended,
        })
    }

    /// Whether `key` (`None`: the dashboard's session) is suspended from image generation.
    pub async fn image_suspended(&self, account: AccountId, key: Option<KeyId>) -> Result<bool> {
        let key = key_code(key);
        read!(self, c => {
            let row = sqlx::query(
                    "SELECT 1 AS one FROM image_blocks
                      WHERE account_id = $1 AND key_id = $2 AND suspended_at IS NOT NULL")
                .bind(account)
                .bind(key)
                .fetch_optional(c)
                .await?;
            Ok(row.is_some())
        })
    }

    /// Every key with blocks counted, suspended first (of one account, when given).
    pub async fn image_blocks(&self, account: Option<AccountId>) -> Result<Vec<ImageBlocks>> {
        read!(self, c => {
            let rows = sqlx::query(
                    "SELECT account_id, key_id, blocks, window_start, suspended_at
                       FROM image_blocks WHERE ($1 IS NULL OR account_id = $1)
                      ORDER BY suspended_at IS NULL, account_id, key_id")
                .bind(account)
                .fetch_all(c)
                .await?;
            rows.iter()
                .map(|r| {
                    let key: i64 = r.try_get("key_id")?;
                    Ok(ImageBlocks {
                        account_id: r.try_get("account_id")?,
                        key_id: (key != 0).then_some(key),
                        blocks: r.try_get("blocks")?,
                        window_start: r.try_get("window_start")?,
                        suspended_at: r.try_get("suspended_at")?,
                    })
                })
                .collect()
        })
    }

    /// Lifts a suspension and forgets the counts: of one key (`Some(None)`: the dashboard's
    /// session) or, with `None`, of every key of the account.
    pub async fn clear_image_blocks(
        &self,
        account: AccountId,
        key: Option<Option<KeyId>>,
    ) -> Result<()> {
        let key = key.map(key_code);
        write_id!(
            self,
            Retry::Idempotent,
            "DELETE FROM image_blocks WHERE account_id = $1 AND ($2 IS NULL OR key_id = $2)",
            account,
            key,
        )?;
        Ok(())
    }
}
