//! Passwords (Argon2id) and login throttling.
//!
//! Hashes use the `argon2` crate's defaults, which are the current OWASP recommendation for
//! Argon2id (19 MiB, 2 passes, 1 lane), and run on the blocking pool so that a login never
//! stalls the API's threads. The forms hash through a [`Hasher`]: a few hashes at once, a
//! short wait for a turn, then "busy", so that a flood of sign-ups costs a bounded amount of
//! memory and never queues work for clients that have gone. Throttling counts failed logins
//! per account and per client address in a sliding window, in this process (each replica
//! counts its own).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use tokio::sync::{OwnedSemaphorePermit, Semaphore};

use argon2::password_hash::rand_core::OsRng;
use argon2::password_hash::{PasswordHash, PasswordHasher, PasswordVerifier, SaltString};
use argon2::Argon2;

/// Shortest and longest password accepted at sign-up.
pub const MIN_PASSWORD: usize = 10;
pub const MAX_PASSWORD: usize = 256;

/// Failed logins allowed within [`WINDOW`]: at one account from one client address, at one
/// account from all addresses, and from one address at any accounts.
const PER_ACCOUNT_AND_ADDRESS: u32 = 5;
const PER_ACCOUNT: u32 = 50;
const PER_ADDRESS: u32 = 20;
pub const WINDOW: Duration = Duration::from_secs(15 * 60);
/// Entries kept at most (oldest windows are dropped first past this).
const MAX_ENTRIES: usize = 100_000;

/// Hashes (or checks) at once by default: each holds 19 MiB while it runs.
pub const DEFAULT_HASH_CONCURRENCY: usize = 2;
/// How long a form waits for a turn by default before it answers "busy".
pub const DEFAULT_HASH_WAIT: Duration = Duration::from_secs(2);
/// The `Retry-After` of a "busy" answer, in seconds.
pub const BUSY_RETRY_SECS: u64 = 2;

/// The PHC string of a new Argon2id hash.
pub async fn hash(password: String) -> anyhow::Result<String> {
    tokio::task::spawn_blocking(move || hash_now(&password)).await?
}

fn hash_now(password: &str) -> anyhow::Result<String> {
    let salt = SaltString::generate(&mut OsRng);
    Argon2::default()
        .hash_password(password.as_bytes(), &salt)
        .map(|h| h.to_string())
        .map_err(|e| anyhow::anyhow!("hashing a password failed: {e}"))
}

/// Whether `password` matches the PHC string `phc`. A malformed hash never matches.
fn verify_now(password: &str, phc: &str) -> bool {
    PasswordHash::new(phc)
        .map(|h| {
            Argon2::default()
                .verify_password(password.as_bytes(), &h)
                .is_ok()
        })
        .unwrap_or(false)
}

/// No turn came within the wait: the page answers 503 with `Retry-After`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Busy;

/// Why a hash was not made.
#[derive(Debug)]
pub enum HashError {
    Busy,
    /// Logged where it happened.
    Failed,
}

/// Password hashing for the forms, a few at once.
///
/// A request waits (asynchronously) for a turn at most `wait`; one that gets no turn, or whose
/// client leaves while it waits, starts no work. A hash that has started runs to its end (it
/// cannot be interrupted) and holds its turn until then, so that at most `concurrency` hashes
/// ever hold memory, whatever the clients do.
pub struct Hasher {
    turns: Arc<Semaphore>,
    wait: Duration,
}

impl Hasher {
    pub fn new(concurrency: usize, wait: Duration) -> Self {
        Hasher {
            turns: Arc::new(Semaphore::new(concurrency.max(1))),
            wait,
        }
    }

    async fn turn(&self) -> Result<OwnedSemaphorePermit, Busy> {
        let acquire = self.turns.clone().acquire_owned();
        match tokio::time::timeout(self.wait, acquire).await {
            Ok(Ok(permit)) => Ok(permit),
            _ => Err(Busy),
        }
    }

    /// The PHC string of a new Argon2id hash of `password`.
    pub async fn hash(&self, password: String) -> Result<String, HashError> {
        let turn = self.turn().await.map_err(|Busy| HashError::Busy)?;
        let made = tokio::task::spawn_blocking(move || {
            let _turn = turn;
            hash_now(&password)
        });
        let failed = |e: &dyn std::fmt::Display| {
            tracing::error!(error = %e, "hashing a password failed");
            HashError::Failed
        };
        match made.await {
            Ok(r) => r.map_err(|e| failed(&e)),
            Err(e) => Err(failed(&e)),
        }
    }

    /// Whether `password` matches the PHC string `phc` (a malformed hash never matches).
    pub async fn verify(&self, password: String, phc: String) -> Result<bool, Busy> {
        let turn = self.turn().await?;
        let checked = tokio::task::spawn_blocking(move || {
            let _turn = turn;
            verify_now(&password, &phc)
        });
        Ok(checked.await.unwrap_or(false))
    }
}

/// "Try again in N minutes." for a throttled client that must `wait`.
pub fn try_again_in(wait: Duration) -> String {
    let minutes = wait.as_secs().div_ceil(60).max(1);
    let s = if minutes == 1 { "" } else { "s" };
    format!("Try again in {minutes} minute{s}.")
}

/// Failed logins (or, [`Throttle::resets`], reset mails asked for), counted per account and
/// client address, per account, and per address.
///
/// A stranger's wrong guesses lock out only the stranger's address: the owner, from another
/// address, still logs in. The account-wide count stops guessing from many addresses; it
/// ends with its window, a successful login, or a password reset ([`Throttle::clear`]).
pub struct Throttle {
    failures: Mutex<HashMap<String, (u32, Instant)>>,
    limits: [u32; 3],
}

impl Default for Throttle {
    /// The login throttle.
    fn default() -> Self {
        Throttle::new([PER_ACCOUNT_AND_ADDRESS, PER_ACCOUNT, PER_ADDRESS])
    }
}

/// The keys counted for one try, in the order of [`Throttle::limits`].
fn keys(account: &str, address: &str) -> [String; 3] {
    [
        format!("a:{account}|{address}"),
        format!("a:{account}"),
        format!("ip:{address}"),
    ]
}

impl Throttle {
    fn new(limits: [u32; 3]) -> Self {
        Throttle {
            failures: Mutex::default(),
            limits,
        }
    }

    /// The reset mail throttle: a few mails per address asked for, a few more per client,
    /// so that the form cannot be used to flood a mailbox.
    pub fn resets() -> Self {
        Throttle::new([3, 3, 10])
    }

    fn map(&self) -> std::sync::MutexGuard<'_, HashMap<String, (u32, Instant)>> {
        self.failures.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// How long until `account` (its normalised email) may be tried from `address` again;
    /// `None` when it may be now.
    pub fn blocked(&self, account: &str, address: &str, now: Instant) -> Option<Duration> {
        let map = self.map();
        let wait = |key: &String, max: u32| {
            map.get(key).and_then(|&(n, since)| {
                let left = WINDOW.saturating_sub(now.duration_since(since));
                (n >= max && !left.is_zero()).then_some(left)
            })
        };
        let keys = keys(account, address);
        (keys.iter().zip(self.limits))
            .filter_map(|(key, max)| wait(key, max))
            .max()
    }

    /// Count a failed try against all three.
    pub fn failed(&self, account: &str, address: &str, now: Instant) {
        let mut map = self.map();
        if map.len() >= MAX_ENTRIES {
            map.retain(|_, (_, since)| now.duration_since(*since) < WINDOW);
        }
        for key in keys(account, address) {
            let entry = map.entry(key).or_insert((0, now));
            if now.duration_since(entry.1) >= WINDOW {
                *entry = (0, now);
            }
            entry.0 += 1;
        }
    }

    /// A successful login clears the account's counts from this address and from all (not
    /// the address's own).
    pub fn succeeded(&self, account: &str, address: &str) {
        let [from_here, anywhere, _] = keys(account, address);
        let mut map = self.map();
        map.remove(&from_here);
        map.remove(&anywhere);
    }

    /// A password reset lifts every lock on the account: its owner proved the mailbox.
    pub fn clear(&self, account: &str) {
        let (all, each) = (format!("a:{account}"), format!("a:{account}|"));
        self.map().retain(|k, _| *k != all && !k.starts_with(&each));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn hashes_verify_and_differ() {
        let hasher = Hasher::new(2, Duration::from_secs(60));
        let a = hash("correct horse battery".into()).await.unwrap();
        let b = hasher.hash("correct horse battery".into()).await.unwrap();
        assert!(a.starts_with("$argon2id$v=19$m=19456,t=2,p=1$"), "{a}");
        assert_ne!(a, b, "salted");
        let verify = |p: &str, h: &str| hasher.verify(p.into(), h.into());
        assert_eq!(verify("correct horse battery", &b).await, Ok(true));
        assert_eq!(verify("wrong horse battery", &a).await, Ok(false));
        assert_eq!(verify("x", "not a hash").await, Ok(false));
    }

    #[tokio::test]
    async fn a_full_hasher_answers_busy_and_frees_its_turns() {
        let hasher = Arc::new(Hasher::new(1, Duration::from_millis(20)));
        let held = hasher.turn().await.unwrap();
        let busy = hasher.hash("correct horse battery".into()).await;
        assert!(matches!(busy, Err(HashError::Busy)), "{busy:?}");
        assert_eq!(hasher.verify("x".into(), "y".into()).await, Err(Busy));
        drop(held);
        assert_eq!(hasher.verify("x".into(), "y".into()).await, Ok(false));
        assert_eq!(hasher.turns.available_permits(), 1, "the turn came back");
    }

    #[test]
    fn throttles_per_account_and_address() {
        let t = Throttle::default();
        let now = Instant::now();
        for _ in 0..PER_ACCOUNT_AND_ADDRESS {
            assert_eq!(t.blocked("a@x", "1.2.3.4", now), None);
            t.failed("a@x", "1.2.3.4", now);
        }
        assert!(
            t.blocked("a@x", "1.2.3.4", now).is_some(),
            "the account from there"
        );
        assert_eq!(
            t.blocked("a@x", "5.6.7.8", now),
            None,
            "the owner elsewhere"
        );
        assert_eq!(t.blocked("b@x", "1.2.3.4", now), None);
        for i in 0..PER_ADDRESS {
            t.failed(&format!("c{i}@x"), "9.9.9.9", now);
        }
        assert!(t.blocked("new@x", "9.9.9.9", now).is_some(), "the address");
        for i in 0..PER_ACCOUNT {
            t.failed("d@x", &format!("10.0.0.{i}"), now);
        }
        assert!(t.blocked("d@x", "5.6.7.8", now).is_some(), "the account");
        t.clear("d@x");
        assert_eq!(t.blocked("d@x", "10.0.0.1", now), None, "a reset lifts it");
        assert_eq!(
            t.blocked("a@x", "1.2.3.4", now + WINDOW),
            None,
            "the window ends"
        );
        t.succeeded("a@x", "1.2.3.4");
        assert_eq!(t.blocked("a@x", "1.2.3.4", now), None);
    }
}
