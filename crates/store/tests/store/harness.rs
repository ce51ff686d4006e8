//! Runs one test body against SQLite (a temp folder) and PostgreSQL (a throwaway database).
//!
//! PostgreSQL: the admin URL comes from `SHOAL_TEST_POSTGRES_URL` (default
//! `postgres://postgres@127.0.0.1:5432/postgres`); each test creates a database with a random
//! name and drops it at the end, even when the test fails. `SHOAL_TEST_POSTGRES=skip` skips
//! the PostgreSQL variants; otherwise an unreachable server fails them.

use std::future::Future;
use std::path::PathBuf;

use rand::Rng;
use shoal_store::Store;
use sqlx::Connection;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Sqlite,
    Postgres,
}

pub struct TestDb {
    pub kind: Kind,
    dir: Option<tempfile::TempDir>,
    pg: Option<PgDb>,
}

struct PgDb {
    admin_url: String,
    name: String,
    url: String,
}

pub fn admin_url() -> String {
    std::env::var("SHOAL_TEST_POSTGRES_URL")
        .unwrap_or_else(|_| "postgres://postgres@127.0.0.1:5432/postgres".into())
}

/// The URL of database `name` on the server of `admin`.
fn with_database(admin: &str, name: &str) -> String {
    let (base, query) = match admin.split_once('?') {
        Some((b, q)) => (b, Some(q)),
        None => (admin, None),
    };
    let after_scheme = base.find("://").map(|i| i + 3).unwrap_or(0);
    let base = match base[after_scheme..].find('/') {
        Some(i) => &base[..after_scheme + i],
        None => base,
    };
    match query {
        Some(q) => format!("{base}/{name}?{q}"),
        None => format!("{base}/{name}"),
    }
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
            Kind::Postgres => {
                if std::env::var("SHOAL_TEST_POSTGRES").as_deref() == Ok("skip") {
                    eprintln!("SHOAL_TEST_POSTGRES=skip: PostgreSQL variant skipped");
                    return None;
                }
                let admin_url = admin_url();
                let name = format!("shoal_test_{:016x}", rand::rng().random::<u64>());
                let mut admin = sqlx::PgConnection::connect(&admin_url)
                    .await
                    .unwrap_or_else(|e| {
                        panic!(
                            "PostgreSQL at {admin_url} is unreachable ({e}); start it, or set \
                         SHOAL_TEST_POSTGRES=skip to skip the PostgreSQL variants"
                        )
                    });
                sqlx::query(&format!("CREATE DATABASE {name}"))
                    .execute(&mut admin)
                    .await
                    .expect("create test database");
                admin.close().await.ok();
                let url = with_database(&admin_url, &name);
                Some(TestDb {
                    kind,
                    dir: None,
                    pg: Some(PgDb {
                        admin_url,
                        name,
                        url,
                    }),
                })
            }
        }
    }

    /// Open a new `Store` on this database (again: that is how a restart looks).
    pub async fn open(&self) -> Store {
        match self.kind {
            Kind::Sqlite => Store::open_data_dir(self.dir.as_ref().unwrap().path())
                .await
                .expect("open SQLite store"),
            Kind::Postgres => Store::open(&self.pg.as_ref().unwrap().url)
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
            let sql = format!("ALTER DATABASE {} SET synchronous_commit = off", pg.name);
            self.exec_raw(&sql).await.expect("set synchronous_commit");
        }
    }

    pub fn url(&self) -> String {
        match self.kind {
            Kind::Sqlite => format!("sqlite://{}", self.sqlite_path().display()),
            Kind::Postgres => self.pg.as_ref().unwrap().url.clone(),
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

impl Drop for PgDb {
    fn drop(&mut self) {
        let admin_url = self.admin_url.clone();
        let name = self.name.clone();
        // Drop runs outside any async context we may block: use a thread of our own.
        let done = std::thread::spawn(move || {
            let rt = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .unwrap();
            rt.block_on(async {
                if let Ok(mut c) = sqlx::PgConnection::connect(&admin_url).await {
                    let _ = sqlx::query(&format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)"))
                        .execute(&mut c)
                        .await;
                    let _ = c.close().await;
                }
            })
        })
        .join();
        if done.is_err() {
            eprintln!("could not drop test database {}", self.name);
        }
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
