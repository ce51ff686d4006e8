//! One-time form tokens: a form that creates something carries a fresh token, and a second
//! post of the same token (a reload of the answer page, which browsers offer to re-post) is
//! sent back to the page instead of creating a second one. The answer to the first post shows
//! a secret that must not be stored, so it cannot redirect to a page that shows it again.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use rand::distr::{Alphanumeric, SampleString};
use shoal_store::AccountId;

/// How long a spent token is remembered: far longer than anyone waits before a reload.
const REMEMBERED: Duration = Duration::from_secs(3600);
/// The most spent tokens kept. Each costs a signed-in account a created key, so this is not
/// reached in use; if it is, the memory is cleared rather than grown (a re-post then creates
/// a second key, as it did without tokens).
const MAX_SPENT: usize = 100_000;

#[derive(Default)]
pub(crate) struct FormOnce {
    spent: Mutex<HashMap<(AccountId, String), Instant>>,
}

impl FormOnce {
    /// A fresh token for a form.
    pub(crate) fn issue() -> String {
        Alphanumeric.sample_string(&mut rand::rng(), 22)
    }

    /// Whether `token` is posted for the first time by `account` (and now spent).
    pub(crate) fn spend(&self, account: AccountId, token: &str, now: Instant) -> bool {
        let mut spent = self.spent.lock().unwrap_or_else(|p| p.into_inner());
        spent.retain(|_, at| now.duration_since(*at) < REMEMBERED);
        if spent.len() >= MAX_SPENT {
            spent.clear();
        }
        spent.insert((account, token.to_owned()), now).is_none()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_token_is_spent_once_per_account() {
        let once = FormOnce::default();
        let (t0, token) = (Instant::now(), FormOnce::issue());
        assert_eq!(token.len(), 22);
        assert!(once.spend(1, &token, t0));
        assert!(!once.spend(1, &token, t0 + Duration::from_secs(5)));
        assert!(
            once.spend(2, &token, t0),
            "another account's token is its own"
        );
        assert!(once.spend(1, &token, t0 + REMEMBERED + Duration::from_secs(6)));
    }
}
