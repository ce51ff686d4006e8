//! How long the store waits for the database, and when it gives up.
//!
//! On PostgreSQL every session of the store starts with these settings, so that no lock
//! outlives its holder by long: a statement waits at most `lock_timeout` for a row lock and
//! runs at most `statement_timeout`; a session left idle inside a transaction (a frozen or
//! partitioned gateway) is ended by the server after `idle_in_transaction_timeout`, which
//! releases its locks; the server probes an idle client connection with TCP keepalives and
//! drops it when the client's host is gone. The client side has its own deadlines: a new
//! connection must open within `connect_timeout`, and an operation must answer within
//! `statement_timeout` + [`CLIENT_GRACE`], or the connection is dropped and the operation
//! fails as unavailable (a server that vanished from the network never answers at all).
//! SQLite uses `connect_timeout` for its readers only; its own waits are `busy_timeout`.

use std::time::Duration;

/// What a client-side deadline adds to the server's `statement_timeout`: the server's own
/// timeout answers first when the server is there.
pub const CLIENT_GRACE: Duration = Duration::from_secs(5);

/// The store's waits and timeouts. [`StoreOptions::default`] suits a gateway; a zero
/// duration turns that timeout off.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoreOptions {
    /// The longest a statement waits for a row lock (PostgreSQL `lock_timeout`). A write
    /// that runs out of it fails as unavailable; ledger writes are retried (see `Store`).
    pub lock_timeout: Duration,
    /// The longest one statement runs (`statement_timeout`). `verify_ledger` and the
    /// migrations are exempt: they read or rewrite whole tables.
    pub statement_timeout: Duration,
    /// A session idle inside a transaction this long is ended by the server, and its locks
    /// released (`idle_in_transaction_session_timeout`).
    pub idle_in_transaction_timeout: Duration,
    /// Idle time of a connection before the server's first TCP keepalive probe
    /// (`tcp_keepalives_idle`); probes then go every `keepalive_interval`, and after
    /// `keepalive_count` unanswered ones the server drops the session.
    pub keepalive_idle: Duration,
    pub keepalive_interval: Duration,
    pub keepalive_count: u32,
    /// The longest opening a connection may take.
    pub connect_timeout: Duration,
}

impl Default for StoreOptions {
    fn default() -> StoreOptions {
        StoreOptions {
            lock_timeout: Duration::from_secs(2),
            statement_timeout: Duration::from_secs(30),
            idle_in_transaction_timeout: Duration::from_secs(10),
            keepalive_idle: Duration::from_secs(30),
            keepalive_interval: Duration::from_secs(10),
            keepalive_count: 3,
            connect_timeout: Duration::from_secs(5),
        }
    }
}

impl StoreOptions {
    /// The PostgreSQL settings every session of the store starts with. A zero duration is
    /// PostgreSQL's 0: no timeout (or, for keepalives, the system's default).
    pub(crate) fn session_settings(&self) -> Vec<(&'static str, String)> {
        let ms = |d: Duration| match d.as_millis() {
            0 => "0".to_string(),
            n => format!("{n}ms"),
        };
        let secs = |d: Duration| match (d.as_secs(), d.is_zero()) {
            (_, true) => "0".to_string(),
            (s, false) => s.max(1).to_string(),
        };
        vec![
            ("lock_timeout", ms(self.lock_timeout)),
            ("statement_timeout", ms(self.statement_timeout)),
            (
                "idle_in_transaction_session_timeout",
                ms(self.idle_in_transaction_timeout),
            ),
            ("tcp_keepalives_idle", secs(self.keepalive_idle)),
            ("tcp_keepalives_interval", secs(self.keepalive_interval)),
            ("tcp_keepalives_count", self.keepalive_count.to_string()),
        ]
    }

    /// How long the client waits for one operation before it drops the connection (without
    /// a statement timeout: an hour, for a server that vanished).
    pub(crate) fn client_deadline(&self) -> Duration {
        if self.statement_timeout.is_zero() {
            Duration::from_secs(3_600)
        } else {
            self.statement_timeout + CLIENT_GRACE
        }
    }

    /// No timeouts at all (PostgreSQL's defaults): for comparison in benchmarks.
    pub fn without_timeouts() -> StoreOptions {
        StoreOptions {
            lock_timeout: Duration::ZERO,
            statement_timeout: Duration::ZERO,
            idle_in_transaction_timeout: Duration::ZERO,
            keepalive_idle: Duration::ZERO,
            keepalive_interval: Duration::ZERO,
            keepalive_count: 0,
            ..StoreOptions::default()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn settings_as_postgres_reads_them() {
        let s = StoreOptions::default().session_settings();
        assert!(s.contains(&("lock_timeout", "2000ms".into())));
        assert!(s.contains(&("tcp_keepalives_idle", "30".into())));
        let off = StoreOptions::without_timeouts().session_settings();
        assert!(off.iter().all(|(_, v)| v == "0"), "{off:?}");
        assert_eq!(
            StoreOptions::without_timeouts().client_deadline(),
            Duration::from_secs(3_600)
        );
    }
}
