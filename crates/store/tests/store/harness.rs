//! Runs one test body against SQLite (a temp folder) and PostgreSQL (a throwaway database).
//!
//! PostgreSQL: the admin URL comes from `SHOAL_TEST_POSTGRES_URL` (default
//! `postgres://postgres@127.0.0.1:5432/postgres`); each test creates a database with a random
//! name and drops it at the end, even when the test fails. `SHOAL_TEST_POSTGRES=skip` skips
//! the PostgreSQL variants; otherwise an unreachable server fails them.

use std::future::Future;
use std::path::PathBuf;

use shoal_store::Store;
use shoal_test_support::pg::TempDb;
use sqlx::Connection;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Sqlite,
    Postgres,
}

pub struct TestDb {
    pub kind: Kind,
    dir: Option<tempfile::TempDir>,
    pg: Option<TempDb>,
}

impl TestDb {
    /// `None` when PostgreSQL tests are skipped.
    pub async fn new(kind: Kind) -> Option<TestDb> {
        match kind {
            Kind::Sqlite => Some(TestDb {
                kind,
                dir: Some(tempfile::tempdir().expect("temp dir")),
                pg: None,
            }),
            Kind::Postgres => Some(TestDb {
                kind,
                dir: None,
                pg: Some(TempDb::for_test().await?),
            }),
        }
    }

    /// Open a new `Store` on this database (again: that is how a restart looks).
    pub async fn open(&self) -> Store {
        match self.kind {
            Kind::Sqlite => Store::open_data_dir(self.dir.as_ref().unwrap().path())
                .await
                .expect("open SQLite store"),
            Kind::Postgres => Store::open(self.pg.as_ref().unwrap().url())
                .await
                .expect("open PostgreSQL store"),
        }
    }

    /// PostgreSQL: commit without waiting for the WAL flush (`synchronous_commit = off`)
    /// in this database's new sessions; committed data stays visible to every session, only
    /// a crash of the server itself could lose the last commits. SQLite: nothing to do
    /// (WAL with `synchronous = NORMAL` does not sync on commit).
    pub async fn relax_durability(&self) {
        if let Some(pg) = &self.pg {
            pg.relax_durability().await.expect("set synchronous_commit");
        }
    }

    pub fn url(&self) -> String {
        match self.kind {
            Kind::Sqlite => format!("sqlite://{}", self.sqlite_path().display()),
            Kind::Postgres => self.pg.as_ref().unwrap().url().to_owned(),
        }
    }

    pub fn sqlite_path(&self) -> PathBuf {
        self.dir
            .as_ref()
            .expect("SQLite test database")
            .path()
            .join("shoal.db")
    }

    /// Run a statement behind the store's back (to tamper with rows in tests).
    pub async fn exec_raw(&self, sql: &str) -> Result<u64, sqlx::Error> {
        match self.kind {
            Kind::Sqlite => {
                let mut c = sqlx::SqliteConnection::connect(&self.url()).await?;
                let n = sqlx::query(sql).execute(&mut c).await?.rows_affected();
                c.close().await?;
                Ok(n)
            }
            Kind::Postgres => {
                let mut c = sqlx::PgConnection::connect(&self.url()).await?;
                let n = sqlx::query(sql).execute(&mut c).await?.rows_affected();
                c.close().await?;
                Ok(n)
            }
        }
    }

    /// Whether any stored text or blob contains `needle` (PostgreSQL: every row of the
    /// tables as text).
    pub async fn pg_rows_contain(&self, needle: &str) -> bool {
        let mut c = sqlx::PgConnection::connect(&self.url()).await.unwrap();
        let n: i64 = sqlx::query_scalar(
            "SELECT count(*) FROM (
                SELECT t::text AS s FROM accounts t UNION ALL
                SELECT t::text FROM api_keys t UNION ALL
                SELECT t::text FROM worker_tokens t UNION ALL
                SELECT t::text FROM holds t UNION ALL
                SELECT t::text FROM journal t
             ) x WHERE position($1 in s) > 0",
        )
        .bind(needle)
        .fetch_one(&mut c)
        .await
        .unwrap();
        n > 0
    }
}

pub async fn run<F, Fut>(kind: Kind, body: F)
where
    F: FnOnce(TestDb) -> Fut,
    Fut: Future<Output = ()>,
{
    if let Some(db) = TestDb::new(kind).await {
        body(db).await;
    }
}

/// `both_backends!(a, b)` makes `a::sqlite`, `a::postgres`, ... from `async fn a(db: TestDb)`.
#[macro_export]
macro_rules! both_backends {
    ($($name:ident),* $(,)?) => {
        $(
            mod $name {
                #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
                async fn sqlite() {
                    $crate::harness::run($crate::harness::Kind::Sqlite, super::$name).await
                }
                #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
                async fn postgres() {
                    $crate::harness::run($crate::harness::Kind::Postgres, super::$name).await
                }
            }
        )*
    };
}
