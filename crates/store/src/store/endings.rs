//! Ending holds durably: a settle or void that meets a database failure is retried until it
//! commits or the hold turns out to be ended otherwise.
//!
//! The retry lives in memory, in a task of its own (the caller leaving does not stop it):
//! bounded exponential backoff from [`FIRST_BACKOFF`] to [`MAX_BACKOFF`], so a settle lands
//! within about a second of the database answering again. Every attempt carries the time
//! the request ended (`now`), not the time of the attempt: a hold whose request finished
//! before its expiry is settled with its real charge however long the database was away,
//! unless the reaper expired it first (then it stays expired, charging nothing).
//!
//! A failed attempt may have committed after all (the connection died after the commit and
//! before the answer). The ledger is idempotent by request id, so the next attempt finds
//! the hold ended; the hold's own row, written in the same transaction as the journal rows
//! (`verify_ledger` checks one against the other), then says how it ended, and that is the
//! answer: the charge of the attempt that committed.
//!
//! How many retries run at once is bounded by the holds that were active when the database
//! went away: a hold cannot be taken while it is away, and each hold is ended once.
//!
//! What is not covered: the process stopping between the answer and the commit of its
//! settle (a crash, or [`Store::close`] giving up after [`CLOSE_GRACE`] with the database
//! still away). That hold stays active until its `expires_at`, then the reaper releases it
//! charging nothing: the request was served free, and the account was never charged more
//! than its hold.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Duration;

use tokio::sync::Notify;

use super::Store;
use crate::ledger::EndKind;
use crate::{Charge, Millis, Result, SettleOutcome};

/// The wait after the first failure; it doubles up to [`MAX_BACKOFF`].
pub(crate) const FIRST_BACKOFF: Duration = Duration::from_millis(25);
/// The longest wait between two attempts.
pub(crate) const MAX_BACKOFF: Duration = Duration::from_secs(1);
/// How long [`Store::close`] keeps retrying endings that have not committed yet.
pub const CLOSE_GRACE: Duration = Duration::from_secs(5);

/// The endings being retried, so that `close` can wait for them.
#[derive(Default)]
pub(crate) struct Retries {
    running: AtomicUsize,
    done: Notify,
    closing: AtomicBool,
}

/// One ending being retried; counted until dropped.
struct Running<'a>(&'a Retries);

impl Drop for Running<'_> {
    fn drop(&mut self) {
        if self.0.running.fetch_sub(1, Ordering::AcqRel) == 1 {
            self.0.done.notify_waiters();
        }
    }
}

impl Retries {
    fn start(&self) -> Running<'_> {
        self.running.fetch_add(1, Ordering::AcqRel);
        Running(self)
    }

    /// Stop retrying once the grace has passed; wait (at most that long) for the endings
    /// being retried to commit.
    pub(crate) async fn close(&self, grace: Duration) {
        self.closing.store(true, Ordering::Release);
        let _ = tokio::time::timeout(grace, async {
            loop {
                let done = self.done.notified();
                if self.running.load(Ordering::Acquire) == 0 {
                    return;
                }
                done.await;
            }
        })
        .await;
    }

    fn closing(&self) -> bool {
        self.closing.load(Ordering::Acquire)
    }
}

/// Bounded exponential backoff with jitter (so that many retries do not come back at once).
struct Backoff {
    next: Duration,
}

impl Backoff {
    fn new() -> Backoff {
        Backoff {
            next: FIRST_BACKOFF,
        }
    }

    async fn wait(&mut self) {
        let jitter = 0.8 + 0.4 * rand::random::<f64>();
        tokio::time::sleep(self.next.mul_f64(jitter)).await;
        self.next = (self.next * 2).min(MAX_BACKOFF);
    }
}

impl Store {
    /// End a hold, retrying database failures until it commits (see the module docs).
    pub(super) async fn end_durably(
        &self,
        request_id: &str,
        kind: EndKind,
        charge: Option<&Charge>,
        now: Millis,
    ) -> Result<SettleOutcome> {
        let _running = self.retries.start();
        let mut backoff = Backoff::new();
        let mut failures = 0u32;
        let mut gave_up_at = None;
        loop {
            let out = match self.end_hold_once(request_id, kind, charge, now).await {
                Ok(SettleOutcome::AlreadyEnded) if failures > 0 => self.ending_of(request_id).await,
                out => out,
            };
            match out {
                Err(e) if e.is_retryable() => {
                    failures += 1;
                    if failures == 1 {
                        tracing::warn!(request_id, error = %e, "ending a hold failed; retrying until the database answers");
                    }
                    if self.retries.closing() {
                        let since = *gave_up_at.get_or_insert_with(tokio::time::Instant::now);
                        if since.elapsed() >= CLOSE_GRACE {
                            tracing::error!(request_id, error = %e, "the store closed before this hold could be ended; the reaper will release it at its expiry, charging nothing");
                            return Err(e);
                        }
                    }
                    backoff.wait().await;
                }
                out => {
                    if failures > 0 {
                        tracing::info!(request_id, failures, "hold ended after retries");
                    }
                    return out;
                }
            }
        }
    }
}
