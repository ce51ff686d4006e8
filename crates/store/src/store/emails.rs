//! Email addresses in one form: trimmed, NFKC, lower-cased by Unicode's rules, done in Rust,
//! so that both backends store and compare the same text whatever their own `lower()` folds
//! (SQLite's folds ASCII only). Accounts keep the form; lookups normalise what was typed.
//!
//! Accounts made before this rule are normalised once, at the first open after the
//! `email_normalization` migration asked for it (its row in `store_fixups`). Accounts whose
//! addresses become one address once normalised are left as they are and named (by id) in a
//! warning in the log: the operator decides which keeps the address.

use std::collections::BTreeMap;

use sqlx::Row;
use unicode_normalization::UnicodeNormalization;

use super::Store;
use crate::conns::Retry;
use crate::{AccountId, Result};

const FIXUP: &str = "normalize_emails";

/// The stored form of an email: NFKC, Unicode lower case (NFKC again: lower-casing can leave
/// a composable sequence), trimmed.
pub fn normalize_email(email: &str) -> String {
    let lower: String = email.nfkc().flat_map(char::to_lowercase).collect();
    lower.nfkc().collect::<String>().trim().to_owned()
}

impl Store {
    /// Normalises the emails stored before the rule, if the migration asked for it.
    pub(crate) async fn normalize_stored_emails(&self) -> Result<()> {
        let pending = read!(self, c => {
            let row = sqlx::query("SELECT name FROM store_fixups WHERE name = $1")
                .bind(FIXUP)
                .fetch_optional(c)
                .await?;
            Ok(row.is_some())
        })?;
        if !pending {
            return Ok(());
        }
        let twins = self.normalize_candidates().await?;
        if !twins.is_empty() {
            tracing::warn!(
                accounts = ?twins,
                "these accounts' emails are one address once normalised (case, Unicode \
                 form); each group was left unchanged and only the normalised one can log in: \
                 give the others another address"
            );
        }
        write_id!(
            self,
            Retry::Idempotent,
            "DELETE FROM store_fixups WHERE name = $1 RETURNING CAST(0 AS BIGINT)",
            FIXUP.to_owned()
        )?;
        Ok(())
    }

    /// Rewrites each email that normalising changes, unless it collides; returns the groups
    /// of accounts that collide.
    async fn normalize_candidates(&self) -> Result<Vec<Vec<AccountId>>> {
        // Only an address with upper-case ASCII or any non-ASCII character can change.
        let rows: Vec<(AccountId, String)> = read!(self, c => {
            let rows = sqlx::query(
                "SELECT id, email FROM accounts
                  WHERE email <> lower(email) OR length(email) <> octet_length(email)",
            )
            .fetch_all(c)
            .await?;
            rows.iter()
                .map(|r| Ok((r.try_get("id")?, r.try_get("email")?)))
                .collect::<std::result::Result<_, sqlx::Error>>()
                .map_err(Into::into)
        })?;
        let mut groups: BTreeMap<String, Vec<(AccountId, String)>> = BTreeMap::new();
        for (id, email) in rows {
            groups
                .entry(normalize_email(&email))
                .or_default()
                .push((id, email));
        }
        let mut twins = Vec::new();
        for (normal, members) in groups {
            match members.as_slice() {
                [(id, email)] if *email != normal => {
                    if !self.rename_email(*id, email, &normal).await? {
                        twins.push(vec![*id]);
                    }
                }
                [_] => {}
                many => twins.push(many.iter().map(|m| m.0).collect()),
            }
        }
        Ok(twins)
    }

    /// Whether `account`'s email `from` became `to`: false when another account has `to`.
    async fn rename_email(&self, account: AccountId, from: &str, to: &str) -> Result<bool> {
        let renamed = write_id!(
            self,
            Retry::Idempotent,
            "UPDATE accounts SET email = $2 WHERE id = $1 AND email = $3 RETURNING id",
            account,
            to.to_owned(),
            from.to_owned(),
        );
        match renamed {
            Ok(_) => Ok(true),
            Err(f) if f.is_unique_violation() => Ok(false),
            Err(f) => Err(f.into()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::normalize_email;

    #[test]
    fn one_form_per_address() {
        assert_eq!(
            normalize_email(" ÉMILEx@Example.COM "),
            "émilex@example.com"
        );
        // A decomposed É, a full-width letter, a ligature: the same address.
        assert_eq!(
            normalize_email("E\u{301}milex@example.com"),
            "émilex@example.com"
        );
        assert_eq!(normalize_email("ｅmilex@example.com"), "emilex@example.com");
        assert_eq!(normalize_email("ﬁn@example.com"), "fin@example.com");
        for s in ["İstanbul@x.tr", "ΣΑΣ@x.gr", "ǅ@x", "\u{3000}a@b\u{3000}"] {
            let once = normalize_email(s);
            assert_eq!(normalize_email(&once), once, "{s:?} is stable");
        }
    }
}
