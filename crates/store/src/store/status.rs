//! Accounts an operator disabled or deleted.
//!
//! A disabled account's keys and sessions open nothing (the lookups that authenticate them
//! skip it) and it cannot log in; enabling it gives everything back. Deleting an account
//! disables it for good and removes what names a person (the email, the password, sessions,
//! reset links, key names, the per-request records, image-prompt counts) while its balance
//! columns, holds, journal and deposits stay: the money trail is kept, anonymous, and
//! `verify_ledger` still holds.

use sqlx::Row;

use super::Store;
use crate::conns::Retry;
use crate::{AccountId, Millis, Result, StoreError};

/// Where an account stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AccountState {
    Active,
    /// Disabled by an operator, since the given time.
    Disabled(Millis),
    /// Deleted, at the given time: anonymised, and never active again.
    Deleted(Millis),
}

/// The rows of an account that a delete removes, each statement idempotent, run after the
/// account row itself is anonymised (which already stops every key and session).
const FORGET: [&str; 4] = [
    "DELETE FROM sessions WHERE account_id = $1",
    "DELETE FROM password_resets WHERE account_id = $1",
    "DELETE FROM generations WHERE account_id = $1",
    "DELETE FROM image_blocks WHERE account_id = $1",
];

impl Store {
    /// Where `account` stands.
    pub async fn account_state(&self, account: AccountId) -> Result<AccountState> {
        read!(self, c => {
            let row = sqlx::query("SELECT disabled_at, deleted_at FROM accounts WHERE id = $1")
                .bind(account)
                .fetch_optional(c)
                .await?
                .ok_or(StoreError::NotFound("account"))?;
            let disabled: Option<Millis> = row.try_get("disabled_at")?;
            let deleted: Option<Millis> = row.try_get("deleted_at")?;
            Ok(match (deleted, disabled) {
                (Some(at), _) => AccountState::Deleted(at),
                (None, Some(at)) => AccountState::Disabled(at),
                (None, None) => AccountState::Active,
            })
        })
    }

    /// Disable `account`: its keys and sessions stop opening anything at once (a gateway's
    /// key cache may keep a key for its lifetime). Disabling a disabled account keeps the
    /// first time.
    pub async fn disable_account(&self, account: AccountId, now: Millis) -> Result<()> {
        write_id!(
            self,
            Retry::Idempotent,
            "UPDATE accounts SET disabled_at = COALESCE(disabled_at, $2) WHERE id = $1
             RETURNING id",
            account,
            now,
        )?
        .ok_or(StoreError::NotFound("account"))?;
        Ok(())
    }

    /// Enable a disabled account again. A deleted account stays deleted
    /// ([`StoreError::Invalid`]).
    pub async fn enable_account(&self, account: AccountId) -> Result<()> {
        if let AccountState::Deleted(_) = self.account_state(account).await? {
            return Err(StoreError::Invalid(format!(
                "account {account} was deleted and cannot be enabled"
            )));
        }
        write_id!(
            self,
            Retry::Idempotent,
            "UPDATE accounts SET disabled_at = NULL WHERE id = $1 AND deleted_at IS NULL
             RETURNING id",
            account,
        )?
        .ok_or(StoreError::NotFound("account"))?;
        Ok(())
    }

    /// Delete `account`, keeping its money trail anonymous (see the module). Safe to run
    /// again: a delete cut short is finished by the next one.
    pub async fn delete_account(&self, account: AccountId, now: Millis) -> Result<()> {
        // No address has the form `deleted:<id>` (sign-up wants an `@`), so the email stays
        // unique and nobody can log in as, or sign up over, a deleted account.
        write_id!(
            self,
            Retry::Idempotent,
            "UPDATE accounts SET email = 'deleted:' || CAST(id AS TEXT), password_hash = NULL,
                    disabled_at = COALESCE(disabled_at, $2), deleted_at = COALESCE(deleted_at, $2)
              WHERE id = $1 RETURNING id",
            account,
            now,
        )?
        .ok_or(StoreError::NotFound("account"))?;
        write_id!(
            self,
            Retry::Idempotent,
            "UPDATE api_keys SET revoked_at = COALESCE(revoked_at, $2), name = NULL
              WHERE account_id = $1",
            account,
            now,
        )?;
        for sql in FORGET {
            write_id!(self, Retry::Idempotent, sql, account)?;
        }
        Ok(())
    }
}
