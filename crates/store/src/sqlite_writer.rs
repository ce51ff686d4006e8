//! The SQLite writer: one task owns the one write connection and commits in groups.
//!
//! A commit is most of what a small write costs on SQLite (here about 45 µs of WAL frames,
//! locks and system calls, more than the statements of a hold). So the writer drains every
//! job waiting in its queue and runs them in one `BEGIN IMMEDIATE ... COMMIT`, each inside
//! its own savepoint (`SAVEPOINT op ... RELEASE op`), so that a failing job rolls back alone.
//! Results are handed out only after the commit: durability is the same as one transaction
//! per job. A job alone in the queue runs as its own transaction (`BEGIN IMMEDIATE ...
//! COMMIT` in the same text), one round trip.
//!
//! Jobs run to completion even if whoever asked stops waiting, so a client that goes away
//! never leaves a half-sent transaction behind.

use std::future::Future;
use std::pin::Pin;

use sqlx::sqlite::SqliteConnection;
use sqlx::Connection;
use tokio::sync::{mpsc, oneshot};

use crate::{Result, StoreError};

pub(crate) type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

const GROUP_FAILED: &str = "a write in the same group failed; nothing was committed";

/// Most jobs committed together.
const MAX_BATCH: usize = 128;
/// Jobs waiting beyond this make senders wait (back-pressure instead of unbounded memory).
const QUEUE: usize = 4096;

/// How a job is wrapped: alone (its text opens and commits the transaction) or in a group
/// (its text opens and releases a savepoint inside the group's transaction).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Mode {
    Solo = 0,
    Grouped = 1,
}

/// `[solo, grouped]` texts of one job: the body between the opening and closing statements.
macro_rules! job_sql {
    ($($body:expr),+ $(,)?) => {
        [
            concat!("BEGIN IMMEDIATE;\n", $($body),+, "\nCOMMIT;"),
            concat!("SAVEPOINT op;\n", $($body),+, "\nRELEASE op;"),
        ]
    };
}
pub(crate) use job_sql;

/// Open and close a job's transaction or savepoint as separate statements (for jobs that
/// are not one text).
pub(crate) async fn open(conn: &mut SqliteConnection, mode: Mode) -> Result<()> {
    let sql = ["BEGIN IMMEDIATE", "SAVEPOINT op"][mode as usize];
    sqlx::query(sql).execute(conn).await?;
    Ok(())
}

pub(crate) async fn close(conn: &mut SqliteConnection, mode: Mode) -> Result<()> {
    let sql = ["COMMIT", "RELEASE op"][mode as usize];
    sqlx::query(sql).execute(conn).await?;
    Ok(())
}

/// Undo a failed job. Errors ("no transaction is active", "no such savepoint": the job
/// failed before opening it) mean there is nothing to undo.
async fn abort(conn: &mut SqliteConnection, mode: Mode) {
    let sql = ["ROLLBACK", "ROLLBACK TO op; RELEASE op"][mode as usize];
    let _ = sqlx::query(sql).execute(conn).await;
}

/// How a job went.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Ran {
    Ok,
    /// It failed on its own terms (a constraint, a missing row): roll back its part only.
    Failed,
    /// It failed in a way that may have ended the group's transaction (I/O, busy, ...):
    /// roll back the whole group and fail every job in it.
    Broke,
}

trait Job: Send {
    fn run<'c>(&'c mut self, conn: &'c mut SqliteConnection, mode: Mode) -> BoxFuture<'c, Ran>;
    /// Hand the result over, once its transaction committed (`Ok`) or failed (`Err`).
    fn finish(self: Box<Self>, committed: std::result::Result<(), String>);
}

struct FnJob<T, F> {
    f: Option<F>,
    out: Option<Result<T>>,
    reply: oneshot::Sender<Result<T>>,
}

impl<T, F> Job for FnJob<T, F>
where
    T: Send + 'static,
    F: for<'c> FnOnce(&'c mut SqliteConnection, Mode) -> BoxFuture<'c, Result<T>> + Send,
{
    fn run<'c>(&'c mut self, conn: &'c mut SqliteConnection, mode: Mode) -> BoxFuture<'c, Ran> {
        Box::pin(async move {
            let f = self.f.take().expect("a job runs once");
            let out = f(conn, mode).await;
            let ran = match &out {
                Ok(_) => Ran::Ok,
                Err(StoreError::Database(e))
                    if !e.as_database_error().is_some_and(|d| {
                        d.is_unique_violation()
                            || d.is_foreign_key_violation()
                            || d.is_check_violation()
                    }) =>
                {
                    Ran::Broke
                }
                Err(_) => Ran::Failed,
            };
            self.out = Some(out);
            ran
        })
    }

    fn finish(self: Box<Self>, committed: std::result::Result<(), String>) {
        let out = match (self.out, committed) {
            (Some(Err(e)), _) => Err(e),
            (Some(Ok(v)), Ok(())) => Ok(v),
            (_, Err(msg)) => Err(commit_failed(msg)),
            (None, Ok(())) => Err(commit_failed("the job did not run".into())),
        };
        let _ = self.reply.send(out);
    }
}

fn commit_failed(msg: String) -> StoreError {
    StoreError::Database(sqlx::Error::Protocol(format!(
        "SQLite transaction failed: {msg}"
    )))
}

enum Msg {
    Job(Box<dyn Job>),
    Close(oneshot::Sender<()>),
}

/// Handle to the writer task. Cheap to clone; the task ends when the last handle is dropped
/// or on [`Writer::close`].
#[derive(Clone)]
pub(crate) struct Writer {
    tx: mpsc::Sender<Msg>,
}

fn closed() -> StoreError {
    StoreError::Database(sqlx::Error::PoolClosed)
}

impl Writer {
    /// Start the writer task on `conn`, which it owns from now on. `keep` is dropped after
    /// the connection is closed (e.g. a temporary file that removes itself).
    pub(crate) fn start(conn: SqliteConnection, keep: Option<Box<dyn Send>>) -> Writer {
        let (tx, rx) = mpsc::channel(QUEUE);
        tokio::spawn(async move {
            run(conn, rx).await;
            drop(keep);
        });
        Writer { tx }
    }

    /// Run `f` on the write connection, in its own transaction or within a group's.
    /// `f` must open and close it (see [`job_sql`], [`open`], [`close`]); when `f` fails, the
    /// writer rolls its part back.
    pub(crate) async fn run<T, F>(&self, f: F) -> Result<T>
    where
        T: Send + 'static,
        F: for<'c> FnOnce(&'c mut SqliteConnection, Mode) -> BoxFuture<'c, Result<T>>
            + Send
            + 'static,
    {
        let (reply, rx) = oneshot::channel();
        let job = FnJob {
            f: Some(f),
            out: None,
            reply,
        };
        self.tx
            .send(Msg::Job(Box::new(job)))
            .await
            .map_err(|_| closed())?;
        rx.await.map_err(|_| closed())?
    }

    /// Finish the jobs already queued, close the connection, and refuse new jobs.
    pub(crate) async fn close(&self) {
        let (done, rx) = oneshot::channel();
        if self.tx.send(Msg::Close(done)).await.is_ok() {
            let _ = rx.await;
        }
    }
}

async fn run(mut conn: SqliteConnection, mut rx: mpsc::Receiver<Msg>) {
    let mut closing = None;
    let mut batch: Vec<Box<dyn Job>> = Vec::new();
    while closing.is_none() {
        match rx.recv().await {
            Some(Msg::Job(job)) => batch.push(job),
            Some(Msg::Close(done)) => closing = Some(done),
            None => break,
        }
        while batch.len() < MAX_BATCH && closing.is_none() {
            match rx.try_recv() {
                Ok(Msg::Job(job)) => batch.push(job),
                Ok(Msg::Close(done)) => closing = Some(done),
                Err(_) => break,
            }
        }
        run_batch(&mut conn, std::mem::take(&mut batch)).await;
    }
    rx.close();
    let _ = conn.close().await;
    if let Some(done) = closing {
        let _ = done.send(());
    }
}

async fn run_batch(conn: &mut SqliteConnection, mut batch: Vec<Box<dyn Job>>) {
    match batch.len() {
        0 => {}
        1 => {
            let mut job = batch.pop().expect("one job");
            if job.run(conn, Mode::Solo).await != Ran::Ok {
                abort(conn, Mode::Solo).await;
            }
            job.finish(Ok(()));
        }
        _ => {
            if let Err(e) = sqlx::query("BEGIN IMMEDIATE").execute(&mut *conn).await {
                let msg = e.to_string();
                for job in batch {
                    job.finish(Err(msg.clone()));
                }
                return;
            }
            for job in batch.iter_mut() {
                match job.run(conn, Mode::Grouped).await {
                    Ran::Ok => {}
                    Ran::Failed => abort(conn, Mode::Grouped).await,
                    Ran::Broke => {
                        // SQLite may have rolled the whole transaction back already; make
                        // sure, and tell every job (those after this one never ran).
                        abort(conn, Mode::Solo).await;
                        for job in batch {
                            job.finish(Err(GROUP_FAILED.into()));
                        }
                        return;
                    }
                }
            }
            match sqlx::query("COMMIT").execute(&mut *conn).await {
                Ok(_) => {
                    for job in batch {
                        job.finish(Ok(()));
                    }
                }
                Err(e) => {
                    let msg = e.to_string();
                    abort(conn, Mode::Solo).await;
                    for job in batch {
                        job.finish(Err(msg.clone()));
                    }
                }
            }
        }
    }
}
