//! What can go wrong talking to a database, classified once for the whole crate.
//!
//! Inside the crate a failure is a [`Fault`]: the driver's error as it came (so that a caller
//! can still ask whether it was a unique violation, or whether the connection is dead), or a
//! [`StoreError`] already decided. At the crate's edge every `Fault` becomes a `StoreError`
//! through [`classify`]: the public type never names the driver.
//!
//! Three questions are answered here and nowhere else:
//!
//! - [`ends_session`]: after this error the connection cannot be used again (the server said
//!   FATAL or PANIC, or SQLSTATE class 08, `57P01`–`57P03`, `25P03`; or the socket or the
//!   protocol broke). Whoever holds the connection drops it at once.
//! - [`not_run`]: the server ended the session before it ran what was sent (it announced its
//!   own shutdown, `57P01`–`57P03`), so anything may be sent again on a fresh connection.
//!   An I/O error is not proof of that: the statement may have committed before the socket
//!   broke.
//! - [`classify`]: `Unavailable` (worth retrying later: the database is down, restarting,
//!   overloaded, the connection died, or a lock or statement timeout) or one of the others.

use sqlx::error::ErrorKind;
use sqlx::postgres::{PgDatabaseError, PgSeverity};

use crate::StoreError;

/// A failure inside the crate: the driver's own error, or one already decided.
#[derive(Debug)]
pub(crate) enum Fault {
    Db(sqlx::Error),
    Store(StoreError),
}

pub(crate) type DbResult<T> = std::result::Result<T, Fault>;

impl From<sqlx::Error> for Fault {
    fn from(e: sqlx::Error) -> Fault {
        Fault::Db(e)
    }
}

impl From<StoreError> for Fault {
    fn from(e: StoreError) -> Fault {
        Fault::Store(e)
    }
}

impl From<sqlx::migrate::MigrateError> for Fault {
    fn from(e: sqlx::migrate::MigrateError) -> Fault {
        match e {
            sqlx::migrate::MigrateError::Execute(e) => Fault::Db(e),
            other => Fault::Store(StoreError::Internal(format!("migration: {other}"))),
        }
    }
}

impl From<Fault> for StoreError {
    fn from(f: Fault) -> StoreError {
        match f {
            Fault::Db(e) => classify(&e),
            Fault::Store(e) => e,
        }
    }
}

impl Fault {
    /// The driver's error, when this is one.
    pub(crate) fn db(&self) -> Option<&sqlx::Error> {
        match self {
            Fault::Db(e) => Some(e),
            Fault::Store(_) => None,
        }
    }

    pub(crate) fn ends_session(&self) -> bool {
        self.db().is_some_and(ends_session)
    }

    pub(crate) fn not_run(&self) -> bool {
        self.db().is_some_and(not_run)
    }

    pub(crate) fn is_unique_violation(&self) -> bool {
        self.db()
            .is_some_and(|e| kind(e) == Some(ErrorKind::UniqueViolation))
    }

    pub(crate) fn is_foreign_key_violation(&self) -> bool {
        self.db()
            .is_some_and(|e| kind(e) == Some(ErrorKind::ForeignKeyViolation))
    }
}

fn kind(e: &sqlx::Error) -> Option<ErrorKind> {
    e.as_database_error().map(|d| d.kind())
}

/// The SQLSTATE of a PostgreSQL error (SQLite's codes are numbers, never five characters
/// with a letter class, so they match none of the patterns below).
fn pg_code(e: &sqlx::Error) -> Option<&str> {
    e.as_database_error()
        .and_then(|d| d.try_downcast_ref::<PgDatabaseError>())
        .map(PgDatabaseError::code)
}

/// The server is going away or refused to start a session: `57P01` admin shutdown, `57P02`
/// crash shutdown, `57P03` cannot connect now (starting up, shutting down).
fn server_going_away(code: &str) -> bool {
    matches!(code, "57P01" | "57P02" | "57P03")
}

/// After `e` the connection must not be used again.
pub(crate) fn ends_session(e: &sqlx::Error) -> bool {
    match e {
        sqlx::Error::Io(_)
        | sqlx::Error::Tls(_)
        | sqlx::Error::Protocol(_)
        | sqlx::Error::WorkerCrashed
        | sqlx::Error::PoolClosed
        | sqlx::Error::PoolTimedOut => true,
        sqlx::Error::Database(d) => {
            if let Some(pg) = d.try_downcast_ref::<PgDatabaseError>() {
                matches!(pg.severity(), PgSeverity::Fatal | PgSeverity::Panic)
                    || pg.code().starts_with("08")
                    || server_going_away(pg.code())
                    // idle_in_transaction_session_timeout: the server closed the session.
                    || pg.code() == "25P03"
            } else {
                false
            }
        }
        _ => false,
    }
}

/// The server ended the session before running what was sent: safe to send again.
pub(crate) fn not_run(e: &sqlx::Error) -> bool {
    pg_code(e).is_some_and(server_going_away)
}

/// SQLite result codes (primary, the low byte of the extended code) that a retry may clear:
/// busy, locked, I/O error, disk full, cannot open, protocol (a lock race).
fn sqlite_transient(code: &str) -> bool {
    code.parse::<i32>().is_ok_and(|c| {
        use rusqlite::ffi;
        matches!(
            c & 0xff,
            ffi::SQLITE_BUSY
                | ffi::SQLITE_LOCKED
                | ffi::SQLITE_IOERR
                | ffi::SQLITE_FULL
                | ffi::SQLITE_CANTOPEN
                | ffi::SQLITE_PROTOCOL
        )
    })
}

/// A PostgreSQL SQLSTATE worth retrying later: connection exceptions (08), the server going
/// away (57P01-03), a statement or lock timeout (57014, 55P03), a serialization failure or
/// deadlock (40001, 40P01), insufficient resources (53: disk full, out of memory, too many
/// connections), an idle transaction ended by the server (25P03).
fn pg_transient(code: &str) -> bool {
    code.starts_with("08")
        || code.starts_with("53")
        || server_going_away(code)
        || matches!(code, "57014" | "55P03" | "40001" | "40P01" | "25P03")
}

/// The public meaning of a driver error. Messages name what failed, never values a caller
/// passed (a database message may quote a row; the constraint's name is enough).
pub(crate) fn classify(e: &sqlx::Error) -> StoreError {
    match e {
        sqlx::Error::Database(d) => {
            let code = d.code().unwrap_or_default();
            if ends_session(e) || pg_transient(&code) || sqlite_transient(&code) {
                return StoreError::Unavailable(format!("database: {}", d.message()));
            }
            let what = d.constraint().unwrap_or("a constraint").to_string();
            match d.kind() {
                ErrorKind::UniqueViolation => {
                    StoreError::Conflict(format!("{what}: already exists"))
                }
                ErrorKind::ForeignKeyViolation => StoreError::NotFound("referenced row"),
                ErrorKind::CheckViolation => {
                    StoreError::Invalid(format!("the database refused the value ({what})"))
                }
                _ => StoreError::Internal(format!("database: {}", d.message())),
            }
        }
        sqlx::Error::Io(_)
        | sqlx::Error::Tls(_)
        | sqlx::Error::Protocol(_)
        | sqlx::Error::WorkerCrashed
        | sqlx::Error::PoolTimedOut
        | sqlx::Error::PoolClosed => StoreError::Unavailable(format!("database: {e}")),
        sqlx::Error::RowNotFound => StoreError::NotFound("row"),
        other => StoreError::Internal(format!("database: {other}")),
    }
}

/// The store, or its writer, was closed: nothing more will run.
pub(crate) fn closed() -> StoreError {
    StoreError::Unavailable("the store is closed".into())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn transient_codes() {
        for code in [
            "08006", "08P01", "57P01", "57P03", "57014", "55P03", "40P01", "53300",
        ] {
            assert!(pg_transient(code), "{code}");
        }
        for code in ["23505", "42P01", "22003", "57P04", "XX000"] {
            assert!(!pg_transient(code), "{code}");
        }
        // SQLITE_BUSY (5) and its extended codes; SQLITE_CONSTRAINT_UNIQUE (2067) is not.
        assert!(sqlite_transient("5") && sqlite_transient("261") && sqlite_transient("13"));
        assert!(!sqlite_transient("2067") && !sqlite_transient("57P01"));
    }

    #[test]
    fn broken_connections_are_unavailable_and_end_the_session() {
        let io = sqlx::Error::Io(std::io::Error::from(std::io::ErrorKind::ConnectionReset));
        assert!(ends_session(&io));
        assert!(
            !not_run(&io),
            "an I/O error may have happened after the commit"
        );
        assert!(matches!(classify(&io), StoreError::Unavailable(_)));
        assert!(matches!(
            classify(&sqlx::Error::ColumnNotFound("x".into())),
            StoreError::Internal(_)
        ));
        assert!(matches!(
            classify(&sqlx::Error::RowNotFound),
            StoreError::NotFound(_)
        ));
    }
}
