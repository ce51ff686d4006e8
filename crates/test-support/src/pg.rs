//! A throwaway PostgreSQL database.
//!
//! The server comes from `SHOAL_TEST_POSTGRES_URL` (default
//! `postgres://postgres@127.0.0.1:5432/postgres`) unless a caller names one; each database
//! gets a random name and is dropped with its guard, also when a test fails.
//! `SHOAL_TEST_POSTGRES=skip` skips what needs one ([`TempDb::for_test`] answers `None`).

use rand::Rng;
use sqlx::Connection;

/// The server tests create their databases on.
pub fn server_url() -> String {
    std::env::var("SHOAL_TEST_POSTGRES_URL")
        .unwrap_or_else(|_| "postgres://postgres@127.0.0.1:5432/postgres".into())
}

/// A database of its own on a PostgreSQL server, dropped (`WITH (FORCE)`) with the guard.
pub struct TempDb {
    server: String,
    name: String,
    url: String,
}

impl TempDb {
    /// A database for one test on [`server_url`]; `None` when `SHOAL_TEST_POSTGRES=skip`.
    /// Panics when the server cannot be reached: a test that needs it must not pass
    /// without it.
    pub async fn for_test() -> Option<TempDb> {
        if std::env::var("SHOAL_TEST_POSTGRES").as_deref() == Ok("skip") {
            eprintln!("SHOAL_TEST_POSTGRES=skip: the PostgreSQL variant is skipped");
            return None;
        }
        let server = server_url();
        let db = TempDb::create(&server).await.unwrap_or_else(|e| {
            panic!(
                "PostgreSQL at {server} is unreachable ({e}); start it, or set \
                 SHOAL_TEST_POSTGRES=skip to skip the PostgreSQL variants"
            )
        });
        Some(db)
    }

    /// A new database on the server of `server` (a URL to any of its databases).
    pub async fn create(server: &str) -> Result<TempDb, sqlx::Error> {
        let name = format!("shoal_test_{:016x}", rand::rng().random::<u64>());
        let mut conn = sqlx::PgConnection::connect(server).await?;
        sqlx::query(&format!("CREATE DATABASE {name}"))
            .execute(&mut conn)
            .await?;
        conn.close().await.ok();
        Ok(TempDb {
            url: with_database(server, &name),
            server: server.to_owned(),
            name,
        })
    }

    /// The database's URL.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// Its name on the server.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Commits without waiting for the WAL flush (`synchronous_commit = off`) in the
    /// database's new sessions: committed data stays visible to every session; only a crash
    /// of the server itself could lose the last commits.
    pub async fn relax_durability(&self) -> Result<(), sqlx::Error> {
        let mut conn = sqlx::PgConnection::connect(&self.server).await?;
        let sql = format!("ALTER DATABASE {} SET synchronous_commit = off", self.name);
        sqlx::query(&sql).execute(&mut conn).await?;
        conn.close().await.ok();
        Ok(())
    }
}

impl Drop for TempDb {
    fn drop(&mut self) {
        let server = self.server.clone();
        let name = self.name.clone();
        // Drop may run inside a runtime that must not be blocked: a thread of its own.
        let done = std::thread::spawn(move || {
            let rt = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .expect("a runtime for dropping the test database");
            rt.block_on(async {
                if let Ok(mut c) = sqlx::PgConnection::connect(&server).await {
                    let sql = format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)");
                    let _ = sqlx::query(&sql).execute(&mut c).await;
                    let _ = c.close().await;
                }
            })
        })
        .join();
        if done.is_err() {
            eprintln!("could not drop the test database {}", self.name);
        }
    }
}

/// The URL of database `name` on the server of `server`, its query string kept.
fn with_database(server: &str, name: &str) -> String {
    let (base, query) = match server.split_once('?') {
        Some((b, q)) => (b, Some(q)),
        None => (server, None),
    };
    let after_scheme = base.find("://").map_or(0, |i| i + 3);
    let base = match base[after_scheme..].find('/') {
        Some(i) => &base[..after_scheme + i],
        None => base,
    };
    match query {
        Some(q) => format!("{base}/{name}?{q}"),
        None => format!("{base}/{name}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_database_replaces_the_path_and_keeps_the_query() {
        assert_eq!(
            with_database("postgres://u@h:5432/postgres", "d"),
            "postgres://u@h:5432/d"
        );
        assert_eq!(
            with_database("postgres://u@h/postgres?sslmode=disable", "d"),
            "postgres://u@h/d?sslmode=disable"
        );
        assert_eq!(with_database("postgres://h", "d"), "postgres://h/d");
    }
}
