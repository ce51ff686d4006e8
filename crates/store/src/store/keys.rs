//! API keys: created once (the plaintext is shown once, only its hash is kept), listed by
//! prefix, limited, renamed, revoked; and a key's own view of its limit and usage.
//!
//! A key is an *inference* key (it runs requests, paid from its account) or a *management*
//! key (it manages its account's keys and runs nothing: the ledger refuses its holds). Every
//! call that touches a key names the account it must belong to, so one account's key can
//! never see or change another's. A key's spending limit lives on the key's row: the ledger
//! checks and counts it in the same write as the account's credit (see `money`'s key limits).

use sqlx::Row;

use super::{account_missing, invalid, no_row, rpm_from_db, Store};
use crate::conns::Retry;
use crate::ledger::{MAX_CREDITS, MAX_ID_LEN};
use crate::money::{self, LimitReset};
use crate::{
    credentials, AccountId, ApiKeyInfo, ApiKeyPrincipal, KeyId, KeyKind, KeyLimit, Millis,
    NewApiKey, Result, StoreError,
};

/// A key to create.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct NewKey<'a> {
    pub name: Option<&'a str>,
    /// Requests per minute; `None`: the gateway's default.
    pub rpm: Option<u32>,
    pub kind: KeyKind,
    /// A spending limit (inference keys only).
    pub limit: Option<KeyLimit>,
}

/// A key's own view of its limit and spending, as of `now` (for `GET /api/v1/key`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyUsage {
    pub key_id: KeyId,
    pub account_id: AccountId,
    pub name: Option<String>,
    pub kind: KeyKind,
    pub rpm: Option<u32>,
    pub limit: Option<KeyLimit>,
    /// Credits its requests spent in the current window (counted from when its limit was
    /// set; 0 without a limit).
    pub window_spent: i64,
    /// Credits its requests in flight have reserved against the limit.
    pub held: i64,
    /// What is left of the limit in this window (never negative); `None` without a limit.
    pub remaining: Option<i64>,
    /// When the current window started and when the next one starts (Unix ms, UTC); `None`
    /// without a limit or, for the reset time, for a lifetime limit.
    pub window_started_at: Option<Millis>,
    pub resets_at: Option<Millis>,
    /// Credits and requests its requests settled today (UTC), with a limit or without.
    pub spent_today: i64,
    pub requests_today: i64,
}

const COLUMNS: &str = "id, account_id, name, prefix, rpm, kind, limit_credits, limit_reset,
        created_at, revoked_at, concurrency";

fn check_limit(kind: KeyKind, limit: Option<KeyLimit>) -> Result<()> {
    match limit {
        Some(_) if kind == KeyKind::Management => Err(invalid(
            "a management key runs no requests and takes no limit",
        )),
        Some(l) if !(0..=MAX_CREDITS).contains(&l.credits) => Err(invalid(format!(
            "a key's limit must be 0 to {MAX_CREDITS} credits"
        ))),
        _ => Ok(()),
    }
}

fn check_name(name: Option<&str>) -> Result<()> {
    if name.is_some_and(|n| n.len() > MAX_ID_LEN) {
        return Err(invalid(format!("key name longer than {MAX_ID_LEN} bytes")));
    }
    Ok(())
}

fn kind_of(s: &str) -> Result<KeyKind, StoreError> {
    KeyKind::parse(s).ok_or_else(|| StoreError::Internal(format!("a key's kind is {s:?}")))
}

fn limit_of(credits: Option<i64>, reset: &str) -> Result<Option<KeyLimit>, StoreError> {
    let reset = LimitReset::parse(reset)
        .ok_or_else(|| StoreError::Internal(format!("a key's limit_reset is {reset:?}")))?;
    Ok(credits.map(|credits| KeyLimit { credits, reset }))
}

/// An `ApiKeyInfo` from a row of [`COLUMNS`] (either backend's row type).
macro_rules! key_info {
    ($r:expr) => {{
        let r = $r;
        Ok::<_, crate::fault::Fault>(ApiKeyInfo {
            id: r.try_get("id")?,
            account_id: r.try_get("account_id")?,
            name: r.try_get("name")?,
            prefix: r.try_get("prefix")?,
            rpm: rpm_from_db(r.try_get("rpm")?),
            kind: kind_of(r.try_get("kind")?)?,
            limit: limit_of(r.try_get("limit_credits")?, r.try_get("limit_reset")?)?,
            concurrency: rpm_from_db(r.try_get("concurrency")?),
            created_at: r.try_get("created_at")?,
            revoked_at: r.try_get("revoked_at")?,
        })
    }};
}

impl Store {
    /// Create an inference key without a limit. The plaintext is in the result and nowhere
    /// else.
    pub async fn create_api_key(
        &self,
        account: AccountId,
        name: Option<&str>,
        rpm: Option<u32>,
        now: Millis,
    ) -> Result<NewApiKey> {
        let key = NewKey {
            name,
            rpm,
            ..NewKey::default()
        };
        self.create_key(account, &key, now).await
    }

    /// Create a key of either kind, with a spending limit if given. The plaintext is in the
    /// result and nowhere else.
    pub async fn create_key(
        &self,
        account: AccountId,
        new: &NewKey<'_>,
        now: Millis,
    ) -> Result<NewApiKey> {
        if new.rpm == Some(0) {
            return Err(invalid("rpm must be at least 1"));
        }
        check_name(new.name)?;
        check_limit(new.kind, new.limit)?;
        let key = credentials::generate_api_key();
        let prefix = credentials::display_prefix(&key);
        let hash = credentials::hash_secret(&key);
        let reset = new.limit.map_or(LimitReset::Never, |l| l.reset);
        let id = write_id!(
            self,
            Retry::IfNotRun,
            "INSERT INTO api_keys (account_id, name, prefix, key_hash, rpm, created_at, kind,
                                   limit_credits, limit_reset)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) RETURNING id",
            account,
            new.name.map(str::to_string),
            prefix.clone(),
            hash.to_vec(),
            new.rpm.map(i64::from),
            now,
            new.kind.as_str().to_string(),
            new.limit.map(|l| l.credits),
            reset.as_str().to_string(),
        )
        .map_err(account_missing)?
        .ok_or_else(|| no_row("API key"))?;
        Ok(NewApiKey { id, key, prefix })
    }

    /// An account's keys, revoked ones included, oldest first (prefixes only: no key is
    /// kept to show).
    pub async fn list_api_keys(&self, account: AccountId) -> Result<Vec<ApiKeyInfo>> {
        if !self.account_exists(account).await? {
            return Err(StoreError::NotFound("account"));
        }
        let sql = format!("SELECT {COLUMNS} FROM api_keys WHERE account_id = $1 ORDER BY id");
        read!(self, c => {
            let rows = sqlx::query(&sql).bind(account).fetch_all(c).await?;
            rows.iter().map(|r| key_info!(r)).collect()
        })
    }

    /// One of the account's keys; `NotFound` when it is not the account's.
    pub async fn api_key(&self, account: AccountId, key: KeyId) -> Result<ApiKeyInfo> {
        let sql = format!("SELECT {COLUMNS} FROM api_keys WHERE id = $1 AND account_id = $2");
        read!(self, c => {
            match sqlx::query(&sql).bind(key).bind(account).fetch_optional(c).await? {
                Some(r) => key_info!(&r),
                None => Err(StoreError::NotFound("API key").into()),
            }
        })
    }

    /// Set (or, with `None`, remove) the spending limit of one of the account's keys. It
    /// takes effect at the next hold. What the key's requests spent in the current window
    /// stays counted (a new limit counts from the window's spending so far, or from 0 when
    /// the key never had one); a request already in flight counts towards the limit only
    /// if the key had one when it started.
    pub async fn set_key_limit(
        &self,
        account: AccountId,
        key: KeyId,
        limit: Option<KeyLimit>,
    ) -> Result<()> {
        check_limit(KeyKind::Inference, limit)?;
        let reset = limit.map_or(LimitReset::Never, |l| l.reset);
        write_id!(
            self,
            Retry::Idempotent,
            "UPDATE api_keys SET limit_credits = $3, limit_reset = $4
              WHERE id = $1 AND account_id = $2 AND kind = 'inference' RETURNING id",
            key,
            account,
            limit.map(|l| l.credits),
            reset.as_str().to_string(),
        )?
        .ok_or(StoreError::NotFound("inference key"))?;
        Ok(())
    }

    /// Set (or, with `None`, return to the gateway's default) how many requests one of the
    /// account's keys may have in flight at once. Gateways see it within their key cache
    /// time.
    pub async fn set_key_concurrency(
        &self,
        account: AccountId,
        key: KeyId,
        concurrency: Option<u32>,
    ) -> Result<()> {
        if concurrency == Some(0) {
            return Err(invalid("a key's concurrency must be at least 1"));
        }
        write_id!(
            self,
            Retry::Idempotent,
            "UPDATE api_keys SET concurrency = $3 WHERE id = $1 AND account_id = $2
             RETURNING id",
            key,
            account,
            concurrency.map(i64::from),
        )?
        .ok_or(StoreError::NotFound("API key"))?;
        Ok(())
    }

    /// Rename one of the account's keys (`None`: no name).
    pub async fn set_key_name(
        &self,
        account: AccountId,
        key: KeyId,
        name: Option<&str>,
    ) -> Result<()> {
        check_name(name)?;
        write_id!(
            self,
            Retry::Idempotent,
            "UPDATE api_keys SET name = $3 WHERE id = $1 AND account_id = $2 RETURNING id",
            key,
            account,
            name.map(str::to_string),
        )?
        .ok_or(StoreError::NotFound("API key"))?;
        Ok(())
    }

    /// Revoke a key (the operator's `shoal admin`). Revoking it again is not an error and
    /// keeps the first revocation time.
    pub async fn revoke_api_key(&self, key_id: KeyId, now: Millis) -> Result<()> {
        write_id!(
            self,
            Retry::Idempotent,
            "UPDATE api_keys SET revoked_at = COALESCE(revoked_at, $2) WHERE id = $1 RETURNING id",
            key_id,
            now,
        )?
        .ok_or(StoreError::NotFound("API key"))?;
        Ok(())
    }

    /// Revoke one of the account's keys; `NotFound` when it is not the account's.
    pub async fn revoke_key(&self, account: AccountId, key: KeyId, now: Millis) -> Result<()> {
        write_id!(
            self,
            Retry::Idempotent,
            "UPDATE api_keys SET revoked_at = COALESCE(revoked_at, $3)
              WHERE id = $1 AND account_id = $2 RETURNING id",
            key,
            account,
            now,
        )?
        .ok_or(StoreError::NotFound("API key"))?;
        Ok(())
    }

    /// Who a presented API key belongs to, and what kind it is. `None` when it is malformed
    /// (decided without touching the database), unknown or revoked, or its account is
    /// disabled.
    pub async fn authenticate_api_key(&self, presented: &str) -> Result<Option<ApiKeyPrincipal>> {
        if !credentials::is_well_formed_api_key(presented) {
            return Ok(None);
        }
        let hash = credentials::hash_secret(presented);
        read!(self, c => {
            let row = sqlx::query(
                    "SELECT k.id, k.account_id, k.rpm, k.kind, k.concurrency
                       FROM api_keys k JOIN accounts a ON a.id = k.account_id
                      WHERE k.key_hash = $1 AND k.revoked_at IS NULL
                        AND a.disabled_at IS NULL")
                .bind(&hash[..])
                .fetch_optional(c)
                .await?;
            match row {
                Some(r) => Ok(Some(ApiKeyPrincipal {
                    key_id: r.try_get("id")?,
                    account_id: r.try_get("account_id")?,
                    rpm: rpm_from_db(r.try_get("rpm")?),
                    kind: kind_of(r.try_get("kind")?)?,
                    concurrency: rpm_from_db(r.try_get("concurrency")?),
                })),
                None => Ok(None),
            }
        })
    }

    /// The key's limit, what it spent and reserved in the current window, what is left, when
    /// the window resets, and what it spent today: what the key itself may ask about.
    pub async fn key_usage(&self, key: KeyId, now: Millis) -> Result<KeyUsage> {
        let today = money::utc_day(now);
        let sql = format!(
            "SELECT {COLUMNS}, limit_window, limit_spent, limit_held,
                    (SELECT CAST(COALESCE(SUM(credits), 0) AS BIGINT) FROM usage_daily u
                      WHERE u.account_id = k.account_id AND u.key_id = k.id AND u.day = $2)
                        AS spent_today,
                    (SELECT CAST(COALESCE(SUM(requests), 0) AS BIGINT) FROM usage_daily u
                      WHERE u.account_id = k.account_id AND u.key_id = k.id AND u.day = $2)
                        AS requests_today
               FROM api_keys k WHERE id = $1"
        );
        let (info, [window, spent, held, spent_today, requests_today]) = read!(self, c => {
            let r = sqlx::query(&sql)
                .bind(key)
                .bind(today)
                .fetch_optional(c)
                .await?
                .ok_or(StoreError::NotFound("API key"))?;
            let counts: [i64; 5] = [
                r.try_get("limit_window")?,
                r.try_get("limit_spent")?,
                r.try_get("limit_held")?,
                r.try_get::<i64, _>("spent_today")?,
                r.try_get::<i64, _>("requests_today")?,
            ];
            Ok((key_info!(&r)?, counts))
        })?;
        Ok(usage_of(
            info,
            (window, spent, held),
            (spent_today, requests_today),
            today,
        ))
    }
}

/// The usage a key sees, from its row's counters as of `today`.
fn usage_of(
    info: ApiKeyInfo,
    (window, spent, held): (i64, i64, i64),
    (spent_today, requests_today): (i64, i64),
    today: i64,
) -> KeyUsage {
    let limited = info.limit.map(|l| {
        let current = money::limit_window(l.reset, today);
        let window_spent = money::used_on(window, spent, current);
        let left = money::key_left(l.credits, window, spent, held, current);
        let started = (l.reset != LimitReset::Never).then_some(current * money::DAY_MS);
        let resets = money::limit_resets_on(l.reset, today).map(|d| d * money::DAY_MS);
        (window_spent, left.max(0), started, resets)
    });
    KeyUsage {
        key_id: info.id,
        account_id: info.account_id,
        name: info.name,
        kind: info.kind,
        rpm: info.rpm,
        limit: info.limit,
        window_spent: limited.map_or(0, |l| l.0),
        held: if limited.is_some() { held } else { 0 },
        remaining: limited.map(|l| l.1),
        window_started_at: limited.and_then(|l| l.2),
        resets_at: limited.and_then(|l| l.3),
        spent_today,
        requests_today,
    }
}
