//! What the dashboard needs from the store: passwords, login sessions and usage.
//!
//! Passwords arrive hashed (Argon2id PHC strings, made by the gateway); session tokens are
//! kept as SHA-256, like API keys. Usage is read from the journal's settle rows: token
//! counts and credits, never content.

use sqlx::Row;

use super::{invalid, Backend, Store};
use crate::{credentials, ledger, AccountId, Millis, Result, StoreError};

/// Longest password hash accepted (a PHC string is about 100 bytes).
const MAX_HASH_LEN: usize = 512;
const DAY_MS: i64 = 86_400_000;

/// One day and model of an account's usage.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UsageRow {
    /// UTC day (days since 1970-01-01).
    pub day: i64,
    pub model: String,
    /// Requests settled (voided and expired ones cost nothing and are not counted).
    pub requests: i64,
    pub input_tokens: i64,
    pub output_tokens: i64,
    /// Credits spent, from every bucket.
    pub credits: i64,
}

/// An account as the login form finds it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Login {
    pub account_id: AccountId,
    /// `None`: no password set, nobody can log in.
    pub password_hash: Option<String>,
}

/// Per UTC day and model: one `balance` row per settle carries its token counts; every
/// bucket's rows carry credits. Walks the `journal_settles` index.
const USAGE: &str = "SELECT at / 86400000 AS day, model,
        CAST(COUNT(CASE WHEN bucket = 'balance' THEN 1 END) AS BIGINT) AS requests,
        CAST(SUM(input_tokens) AS BIGINT) AS input_tokens,
        CAST(SUM(output_tokens) AS BIGINT) AS output_tokens,
        CAST(SUM(credits) AS BIGINT) AS credits
       FROM journal
      WHERE account_id = $1 AND kind = 'settle' AND at >= $2
      GROUP BY at / 86400000, model
      ORDER BY day, model";

fn check_hash(hash: &str) -> Result<()> {
    if hash.is_empty() || hash.len() > MAX_HASH_LEN {
        return Err(invalid("a password hash must be 1 to 512 bytes"));
    }
    Ok(())
}

impl Store {
    /// Create an account that logs in with a password (`password_hash`: the PHC string).
    /// Same rules for the email as [`Store::create_account`].
    pub async fn create_account_with_password(
        &self,
        email: &str,
        password_hash: &str,
        now: Millis,
    ) -> Result<AccountId> {
        check_hash(password_hash)?;
        self.insert_account(email, Some(password_hash.to_string()), now)
            .await
    }

    /// Set (or replace) an account's password and end all its sessions.
    pub async fn set_password(&self, account: AccountId, password_hash: &str) -> Result<()> {
        check_hash(password_hash)?;
        write_id!(
            self,
            "UPDATE accounts SET password_hash = $2 WHERE id = $1 RETURNING id",
            account,
            password_hash.to_string(),
        )?
        .ok_or(StoreError::NotFound("account"))?;
        self.end_all_sessions(account).await
    }

    /// The account with this email (case-insensitive), for the login form.
    pub async fn login_of(&self, email: &str) -> Result<Option<Login>> {
        let email = email.trim();
        if email.len() > 320 {
            return Ok(None);
        }
        read!(self, c => {
            let row = sqlx::query(
                    "SELECT id, password_hash FROM accounts WHERE lower(email) = lower($1)")
                .bind(email)
                .fetch_optional(c)
                .await?;
            match row {
                Some(r) => Ok(Some(Login {
                    account_id: r.try_get("id")?,
                    password_hash: r.try_get("password_hash")?,
                })),
                None => Ok(None),
            }
        })
    }

    /// The account's email, for the pages' header.
    pub async fn account_email(&self, account: AccountId) -> Result<String> {
        read!(self, c => {
            let row = sqlx::query("SELECT email FROM accounts WHERE id = $1")
                .bind(account)
                .fetch_optional(c)
                .await?
                .ok_or(StoreError::NotFound("account"))?;
            Ok(row.try_get("email")?)
        })
    }

    /// Start a login session for `account`, valid until `expires_at`. Returns the token
    /// (the cookie's value), stored nowhere but in the answer.
    pub async fn create_session(
        &self,
        account: AccountId,
        now: Millis,
        expires_at: Millis,
    ) -> Result<String> {
        if expires_at <= now {
            return Err(invalid("a session must expire after now"));
        }
        let token = credentials::generate_session_token();
        let hash = credentials::hash_secret(&token);
        write_id!(
            self,
            "INSERT INTO sessions (token_hash, account_id, created_at, expires_at)
             VALUES ($1, $2, $3, $4) RETURNING account_id",
            hash.to_vec(),
            account,
            now,
            expires_at,
        )
        .map_err(|e| match e {
            StoreError::Database(e) if ledger::is_foreign_key_violation(&e) => {
                StoreError::NotFound("account")
            }
            e => e,
        })?;
        Ok(token)
    }

    /// Whose session this token is, if it is well formed, known and not expired.
    pub async fn session_account(&self, token: &str, now: Millis) -> Result<Option<AccountId>> {
        if !credentials::is_well_formed_session_token(token) {
            return Ok(None);
        }
        let hash = credentials::hash_secret(token);
        read!(self, c => {
            let row = sqlx::query(
                    "SELECT account_id FROM sessions WHERE token_hash = $1 AND expires_at > $2")
                .bind(&hash[..])
                .bind(now)
                .fetch_optional(c)
                .await?;
            match row {
                Some(r) => Ok(Some(r.try_get("account_id")?)),
                None => Ok(None),
            }
        })
    }

    /// End one session (log out). Unknown tokens are ignored.
    pub async fn end_session(&self, token: &str) -> Result<()> {
        if !credentials::is_well_formed_session_token(token) {
            return Ok(());
        }
        let hash = credentials::hash_secret(token);
        write_id!(
            self,
            "DELETE FROM sessions WHERE token_hash = $1",
            hash.to_vec()
        )?;
        Ok(())
    }

    /// End every session of an account ("log out everywhere", a new password).
    pub async fn end_all_sessions(&self, account: AccountId) -> Result<()> {
        write_id!(self, "DELETE FROM sessions WHERE account_id = $1", account)?;
        Ok(())
    }

    /// Delete the sessions that expired by `now` (they already open nothing).
    pub async fn prune_sessions(&self, now: Millis) -> Result<()> {
        write_id!(self, "DELETE FROM sessions WHERE expires_at <= $1", now)?;
        Ok(())
    }

    /// An account's usage over the last `days` UTC days (today included), by day and model,
    /// oldest first.
    pub async fn usage(&self, account: AccountId, now: Millis, days: i64) -> Result<Vec<UsageRow>> {
        let since = (crate::money::utc_day(now) - days.clamp(1, 3_660) + 1) * DAY_MS;
        read!(self, c => {
            let rows = sqlx::query(USAGE)
                .bind(account)
                .bind(since)
                .fetch_all(c)
                .await?;
            rows.iter()
                .map(|r| {
                    let model: Option<String> = r.try_get("model")?;
                    Ok(UsageRow {
                        day: r.try_get("day")?,
                        model: model.unwrap_or_default(),
                        requests: r.try_get("requests")?,
                        input_tokens: r.try_get("input_tokens")?,
                        output_tokens: r.try_get("output_tokens")?,
                        credits: r.try_get("credits")?,
                    })
                })
                .collect()
        })
    }
}
