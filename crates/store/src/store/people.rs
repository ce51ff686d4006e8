//! What the dashboard needs from the store: passwords, login sessions and usage.
//!
//! Passwords arrive hashed (Argon2id PHC strings, made by the gateway); session tokens are
//! kept as SHA-256, like API keys. Usage is read from `usage_daily`, the rollup of the
//! journal's settle rows that a trigger keeps in the settle's transaction: token counts and
//! credits per day, model and key, never content.

use std::collections::HashMap;

use sqlx::Row;

use super::{invalid, Store};
use crate::conns::Retry;
use crate::{credentials, AccountId, KeyId, Millis, Result, StoreError};

/// Longest password hash accepted (a PHC string is about 100 bytes).
const MAX_HASH_LEN: usize = 512;

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
    /// An operator disabled the account: it may not log in.
    pub disabled: bool,
}

/// Whose usage to count: every request, the dashboard's session only, or one API key's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeyFilter {
    All,
    Dashboard,
    Key(KeyId),
}

impl KeyFilter {
    /// The `usage_daily.key_id` to match (`None`: any). The session's rows have key 0.
    fn key_id(self) -> Option<KeyId> {
        match self {
            KeyFilter::All => None,
            KeyFilter::Dashboard => Some(0),
            KeyFilter::Key(k) => Some(k),
        }
    }
}

/// $1 account, $2 first day, $3 key (NULL: all). A range of `usage_daily`'s primary key.
const USAGE: &str = "SELECT day, model,
        CAST(SUM(requests) AS BIGINT) AS requests,
        CAST(SUM(input_tokens) AS BIGINT) AS input_tokens,
        CAST(SUM(output_tokens) AS BIGINT) AS output_tokens,
        CAST(SUM(credits) AS BIGINT) AS credits
       FROM usage_daily
      WHERE account_id = $1 AND day >= $2 AND ($3 IS NULL OR key_id = $3)
      GROUP BY day, model
      ORDER BY day, model";

const INSERT_SESSION: &str = "INSERT INTO sessions (token_hash, account_id, created_at, expires_at)
     VALUES ($1, $2, $3, $4) RETURNING account_id";

const INSERT_RESET: &str =
    "INSERT INTO password_resets (token_hash, account_id, created_at, expires_at)
     VALUES ($1, $2, $3, $4) RETURNING account_id";

/// The latest settle of each of an account's keys.
const LAST_USED: &str = "SELECT key_id, MAX(last_at) AS last_at FROM usage_daily
      WHERE account_id = $1 AND key_id > 0
      GROUP BY key_id";

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

    /// Set (or replace) an account's password and end all its sessions and reset links.
    pub async fn set_password(&self, account: AccountId, password_hash: &str) -> Result<()> {
        check_hash(password_hash)?;
        write_id!(
            self,
            Retry::Idempotent,
            "UPDATE accounts SET password_hash = $2 WHERE id = $1 RETURNING id",
            account,
            password_hash.to_string(),
        )?
        .ok_or(StoreError::NotFound("account"))?;
        self.end_all_sessions(account).await?;
        write_id!(
            self,
            Retry::Idempotent,
            "DELETE FROM password_resets WHERE account_id = $1",
            account
        )?;
        Ok(())
    }

    /// The account with this email, compared normalised ([`super::normalize_email`]), for
    /// the login form.
    pub async fn login_of(&self, email: &str) -> Result<Option<Login>> {
        if email.len() > 1280 {
            return Ok(None);
        }
        let email = super::normalize_email(email);
        // A stored email is normalised, hence lower case: the unique index on `lower(email)`
        // finds it.
        read!(self, c => {
            let row = sqlx::query(
                    "SELECT id, password_hash, disabled_at FROM accounts WHERE lower(email) = $1")
                .bind(&email)
                .fetch_optional(c)
                .await?;
            match row {
                Some(r) => Ok(Some(Login {
                    account_id: r.try_get("id")?,
                    password_hash: r.try_get("password_hash")?,
                    disabled: r.try_get::<Option<Millis>, _>("disabled_at")?.is_some(),
                })),
                None => Ok(None),
            }
        })
    }

    /// The account's email, for the pages' header.
    /// One round trip to the database (`/ready`).
    pub async fn ping(&self) -> Result<()> {
        read!(self, c => {
            sqlx::query("SELECT 1").execute(c).await?;
            Ok(())
        })
    }

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
        let token = credentials::generate_session_token();
        self.insert_token(INSERT_SESSION, &token, account, now, expires_at)
            .await?;
        Ok(token)
    }

    /// Stores the hash of a new `token` of `account` that expires at `expires_at`, with
    /// `sql` (an insert of token_hash, account_id, created_at, expires_at).
    async fn insert_token(
        &self,
        sql: &'static str,
        token: &str,
        account: AccountId,
        now: Millis,
        expires_at: Millis,
    ) -> Result<()> {
        if expires_at <= now {
            return Err(invalid("a token must expire after now"));
        }
        let hash = credentials::hash_secret(token);
        write_id!(
            self,
            Retry::IfNotRun,
            sql,
            hash.to_vec(),
            account,
            now,
            expires_at
        )
        .map_err(super::account_missing)?;
        Ok(())
    }

    /// Whose session this token is, if it is well formed, known and not expired, and its
    /// account is not disabled.
    pub async fn session_account(&self, token: &str, now: Millis) -> Result<Option<AccountId>> {
        if !credentials::is_well_formed_session_token(token) {
            return Ok(None);
        }
        let hash = credentials::hash_secret(token);
        read!(self, c => {
            let row = sqlx::query(
                    "SELECT s.account_id FROM sessions s JOIN accounts a ON a.id = s.account_id
                      WHERE s.token_hash = $1 AND s.expires_at > $2 AND a.disabled_at IS NULL")
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
            Retry::Idempotent,
            "DELETE FROM sessions WHERE token_hash = $1",
            hash.to_vec()
        )?;
        Ok(())
    }

    /// End every session of an account ("log out everywhere", a new password).
    pub async fn end_all_sessions(&self, account: AccountId) -> Result<()> {
        write_id!(
            self,
            Retry::Idempotent,
            "DELETE FROM sessions WHERE account_id = $1",
            account
        )?;
        Ok(())
    }

    /// Delete the sessions and password reset tokens that expired by `now` (they already
    /// open nothing).
    pub async fn prune_sessions(&self, now: Millis) -> Result<()> {
        write_id!(
            self,
            Retry::Idempotent,
            "DELETE FROM sessions WHERE expires_at <= $1",
            now
        )?;
        write_id!(
            self,
            Retry::Idempotent,
            "DELETE FROM password_resets WHERE expires_at <= $1",
            now
        )?;
        Ok(())
    }

    /// A password reset token for `account`, valid until `expires_at`: the link of a reset
    /// mail. Stored only as its hash.
    pub async fn create_password_reset(
        &self,
        account: AccountId,
        now: Millis,
        expires_at: Millis,
    ) -> Result<String> {
        let token = credentials::generate_reset_token();
        self.insert_token(INSERT_RESET, &token, account, now, expires_at)
            .await?;
        Ok(token)
    }

    /// Whose password this reset token would reset, if it is well formed, unused and not
    /// expired. Changes nothing.
    pub async fn password_reset_account(
        &self,
        token: &str,
        now: Millis,
    ) -> Result<Option<AccountId>> {
        if !credentials::is_well_formed_reset_token(token) {
            return Ok(None);
        }
        let hash = credentials::hash_secret(token);
        read!(self, c => {
            let row = sqlx::query(
                    "SELECT account_id FROM password_resets
                      WHERE token_hash = $1 AND expires_at > $2")
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

    /// Use a reset token once: the account's password becomes `password_hash` and its
    /// sessions and other reset tokens end. `None` (nothing changed) when the token is
    /// unknown, used or expired. The token is deleted first, by one statement, so two
    /// uses at once cannot both pass.
    pub async fn reset_password(
        &self,
        token: &str,
        password_hash: &str,
        now: Millis,
    ) -> Result<Option<AccountId>> {
        check_hash(password_hash)?;
        if !credentials::is_well_formed_reset_token(token) {
            return Ok(None);
        }
        let hash = credentials::hash_secret(token);
        let account = write_id!(
            self,
            Retry::IfNotRun,
            "DELETE FROM password_resets WHERE token_hash = $1 AND expires_at > $2
             RETURNING account_id",
            hash.to_vec(),
            now,
        )?;
        let Some(account) = account else {
            return Ok(None);
        };
        self.set_password(account, password_hash).await?;
        Ok(Some(account))
    }

    /// An account's usage over the last `days` UTC days (today included), by day and model,
    /// oldest first, of the requests `keys` selects.
    pub async fn usage(
        &self,
        account: AccountId,
        now: Millis,
        days: i64,
        keys: KeyFilter,
    ) -> Result<Vec<UsageRow>> {
        let since = crate::money::utc_day(now) - days.clamp(1, 3_660) + 1;
        read!(self, c => {
            let rows = sqlx::query(USAGE)
                .bind(account)
                .bind(since)
                .bind(keys.key_id())
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

    /// When each of an account's keys was last used: its latest settled request. Keys never
    /// used are absent.
    pub async fn keys_last_used(&self, account: AccountId) -> Result<HashMap<KeyId, Millis>> {
        read!(self, c => {
            let rows = sqlx::query(LAST_USED).bind(account).fetch_all(c).await?;
            rows.iter()
                .map(|r| Ok((r.try_get("key_id")?, r.try_get("last_at")?)))
                .collect()
        })
    }
}
