//! The SQLite writer: one OS thread owns the one write connection and commits in groups.
//!
//! The connection is a `rusqlite` one, driven synchronously on its own thread: a job is a
//! closure that runs there from its first statement to its last, with the thread's cached
//! prepared statements, so a ledger movement crosses threads twice (the job in, its result
//! out) however many statements it has. (Through sqlx, every statement's result crossed a
//! channel from SQLite's worker thread: most of the CPU went to those hand-offs.)
//!
//! A commit is most of what a small write costs on SQLite (WAL frames, locks, system
//! calls). So the thread drains every job waiting in its queue and runs them in one
//! `BEGIN IMMEDIATE ... COMMIT`, each inside its own savepoint (`SAVEPOINT op ... RELEASE
//! op`) when there are several, so that a failing job rolls back alone. Results are handed
//! out only after the commit: durability is the same as one transaction per job.
//!
//! Checkpoints (copying the WAL back into the database file, with two `fsync`s) run on a
//! second thread with its own connection, nudged once the WAL holds [`CHECKPOINT_FRAMES`]
//! frames (SQLite's own auto-checkpoint threshold, which is turned off for the writer), so the
//! writer neither does that work nor waits for those flushes. SQLite can restart the WAL from
//! its beginning only once a checkpoint has caught up with the last commit, which a
//! checkpoint running beside a busy writer may not do: past [`WAL_LIMIT`] frames the writer
//! checkpoints itself, between two transactions, as the auto-checkpoint would have. The
//! frame count comes from SQLite's WAL hook after each commit. Durability does not change:
//! in WAL mode with `synchronous = NORMAL` a commit is in the WAL whoever checkpoints it.
//!
//! Jobs run to completion even if whoever asked stops waiting, so a client that goes away
//! never leaves a half-written movement behind.

use std::borrow::Cow;
use std::ffi::{c_char, c_int, c_void};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::{Arc, Mutex};

use rusqlite::{ffi, Connection};
use sqlx::error::{DatabaseError, ErrorKind};
use tokio::sync::{mpsc, oneshot};

use crate::{Result, StoreError};

const GROUP_FAILED: &str = "a write in the same group failed; nothing was committed";

/// Most jobs committed together.
const MAX_BATCH: usize = 128;
/// Jobs waiting beyond this make senders wait (back-pressure instead of unbounded memory).
const QUEUE: usize = 4096;
/// Prepared statements kept per connection (the ledger uses about twenty).
pub(crate) const STATEMENT_CACHE: usize = 64;
/// WAL frames (pages) from which the checkpointer is nudged after each commit.
const CHECKPOINT_FRAMES: i64 = 1_000;
/// WAL frames past which the writer checkpoints itself (about 40 MB).
const WAL_LIMIT: i64 = 10_000;
/// The WAL file is truncated back to this size when it restarts after growing larger.
pub(crate) const WAL_SIZE_LIMIT: i64 = 64 << 20;

/// An error SQLite reported, as the `sqlx` database error the rest of the crate (and
/// [`StoreError::Database`]) speaks: constraint violations keep their kind, so that
/// `is_unique_violation` and friends work on both drivers alike.
#[derive(Debug)]
pub(crate) struct SqliteFailure {
    /// The extended result code (`SQLITE_CONSTRAINT_UNIQUE`, ...).
    code: i32,
    message: String,
}

impl std::fmt::Display for SqliteFailure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for SqliteFailure {}

impl DatabaseError for SqliteFailure {
    fn message(&self) -> &str {
        &self.message
    }

    fn code(&self) -> Option<Cow<'_, str>> {
        Some(self.code.to_string().into())
    }

    fn as_error(&self) -> &(dyn std::error::Error + Send + Sync + 'static) {
        self
    }

    fn as_error_mut(&mut self) -> &mut (dyn std::error::Error + Send + Sync + 'static) {
        self
    }

    fn into_error(self: Box<Self>) -> Box<dyn std::error::Error + Send + Sync + 'static> {
        self
    }

    fn kind(&self) -> ErrorKind {
        use rusqlite::ffi;
        match self.code {
            ffi::SQLITE_CONSTRAINT_UNIQUE | ffi::SQLITE_CONSTRAINT_PRIMARYKEY => {
                ErrorKind::UniqueViolation
            }
            ffi::SQLITE_CONSTRAINT_FOREIGNKEY => ErrorKind::ForeignKeyViolation,
            ffi::SQLITE_CONSTRAINT_NOTNULL => ErrorKind::NotNullViolation,
            ffi::SQLITE_CONSTRAINT_CHECK => ErrorKind::CheckViolation,
            _ => ErrorKind::Other,
        }
    }
}

/// A rusqlite error as a `sqlx` one.
pub(crate) fn sqlx_error(e: rusqlite::Error) -> sqlx::Error {
    match e {
        rusqlite::Error::SqliteFailure(f, message) => {
            sqlx::Error::Database(Box::new(SqliteFailure {
                code: f.extended_code,
                message: message.unwrap_or_else(|| f.to_string()),
            }))
        }
        // Not from SQLite itself (a column of an unexpected type, ...): a bug of ours, and
        // treated like a broken connection (the whole group rolls back).
        other => sqlx::Error::Protocol(format!("SQLite: {other}")),
    }
}

/// `.db()?` turns a rusqlite result into the crate's.
pub(crate) trait Db<T> {
    fn db(self) -> Result<T>;
}

impl<T> Db<T> for rusqlite::Result<T> {
    fn db(self) -> Result<T> {
        self.map_err(|e| StoreError::Database(sqlx_error(e)))
    }
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

fn classify(e: &StoreError) -> Ran {
    match e {
        StoreError::Database(sqlx::Error::Database(d))
            if matches!(
                d.kind(),
                ErrorKind::UniqueViolation
                    | ErrorKind::ForeignKeyViolation
                    | ErrorKind::CheckViolation
                    | ErrorKind::NotNullViolation
            ) =>
        {
            Ran::Failed
        }
        StoreError::Database(_) | StoreError::Migrate(_) => Ran::Broke,
        StoreError::NotFound(_) | StoreError::Conflict(_) | StoreError::Invalid(_) => Ran::Failed,
    }
}

trait Job: Send {
    fn run(&mut self, conn: &Connection) -> Ran;
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
    T: Send,
    F: FnOnce(&Connection) -> Result<T> + Send,
{
    fn run(&mut self, conn: &Connection) -> Ran {
        let f = self.f.take().expect("a job runs once");
        // A panicking job must not take the writer (and every later write) down with it.
        let out = catch_unwind(AssertUnwindSafe(|| f(conn))).unwrap_or_else(|_| {
            Err(StoreError::Database(sqlx::Error::Protocol(
                "a ledger write panicked; its group was rolled back".into(),
            )))
        });
        let ran = match &out {
            Ok(_) => Ran::Ok,
            Err(e) => classify(e),
        };
        self.out = Some(out);
        ran
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

/// Handle to the writer thread. Cheap to clone; the thread ends when the last handle is
/// dropped or on [`Writer::close`].
#[derive(Clone)]
pub(crate) struct Writer {
    tx: mpsc::Sender<Msg>,
}

fn closed() -> StoreError {
    StoreError::Database(sqlx::Error::PoolClosed)
}

fn spawn_failed(e: std::io::Error) -> StoreError {
    StoreError::Database(sqlx::Error::Io(e))
}

impl Writer {
    /// Start the writer thread on `conn`, which it owns from now on, and the checkpointer
    /// on `checkpoints` (a second connection to the same file). `keep` is dropped after both
    /// connections are closed (e.g. a temporary file that removes itself).
    pub(crate) fn start(
        conn: Connection,
        checkpoints: Connection,
        keep: Option<Box<dyn Send>>,
    ) -> Result<Writer> {
        let (nudge, nudged) = std::sync::mpsc::sync_channel(1);
        let one_at_a_time = Arc::new(Mutex::new(()));
        let checkpointer = {
            let one_at_a_time = one_at_a_time.clone();
            std::thread::Builder::new()
                .name("shoal-sqlite-ckpt".into())
                .spawn(move || checkpointer(checkpoints, nudged, &one_at_a_time))
                .map_err(spawn_failed)?
        };
        let (tx, rx) = mpsc::channel(QUEUE);
        std::thread::Builder::new()
            .name("shoal-sqlite-writer".into())
            .spawn(move || {
                let wal = WalWatch::new(&conn);
                let checkpoints = Checkpoints {
                    nudge,
                    one_at_a_time,
                    inline_at: WAL_LIMIT,
                };
                let closing = run(&conn, rx, &wal, checkpoints);
                wal.unwatch(&conn);
                let _ = conn.close();
                // After the writer's connection: the last one closed checkpoints the WAL.
                let _ = checkpointer.join();
                drop(wal);
                drop(keep);
                if let Some(done) = closing {
                    let _ = done.send(());
                }
            })
            .map_err(spawn_failed)?;
        Ok(Writer { tx })
    }

    /// Run `f` on the write connection, inside the writer's transaction (and its own
    /// savepoint when grouped). When `f` fails, its writes are rolled back.
    pub(crate) async fn run<T, F>(&self, f: F) -> Result<T>
    where
        T: Send + 'static,
        F: FnOnce(&Connection) -> Result<T> + Send + 'static,
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

/// The WAL's size in frames after the last commit, from SQLite's WAL hook. Registering a
/// hook turns the connection's automatic checkpoints off.
struct WalWatch {
    frames: Box<AtomicI64>,
}

/// SQLite calls this after each commit on the connection, with the frames now in the WAL.
unsafe extern "C" fn wal_committed(
    frames_seen: *mut c_void,
    _db: *mut ffi::sqlite3,
    _schema: *const c_char,
    frames: c_int,
) -> c_int {
    // SAFETY: `frames_seen` is the `AtomicI64` of the `WalWatch` that registered this hook;
    // it is unregistered before that `WalWatch` is dropped.
    let frames_seen = unsafe { &*(frames_seen as *const AtomicI64) };
    frames_seen.store(i64::from(frames), Ordering::Relaxed);
    ffi::SQLITE_OK
}

impl WalWatch {
    fn new(conn: &Connection) -> WalWatch {
        let frames = Box::new(AtomicI64::new(0));
        let arg = &*frames as *const AtomicI64 as *mut c_void;
        // SAFETY: a valid open connection; `arg` lives until `unwatch` (the box is not moved
        // out of, and `WalWatch` outlives the registration: see `Writer::start`).
        unsafe {
            ffi::sqlite3_wal_hook(conn.handle(), Some(wal_committed), arg);
        }
        WalWatch { frames }
    }

    fn frames(&self) -> i64 {
        self.frames.load(Ordering::Relaxed)
    }

    fn unwatch(&self, conn: &Connection) {
        // SAFETY: a valid open connection; removes the hook registered by `new`.
        unsafe {
            ffi::sqlite3_wal_hook(conn.handle(), None, std::ptr::null_mut());
        }
    }
}

/// The writer's side of checkpointing.
struct Checkpoints {
    nudge: std::sync::mpsc::SyncSender<()>,
    /// Held while either thread checkpoints: a checkpoint that finds another running does
    /// nothing, and the writer's must not.
    one_at_a_time: Arc<Mutex<()>>,
    /// WAL frames at which the writer checkpoints itself next.
    inline_at: i64,
}

impl Checkpoints {
    /// After each commit, between transactions.
    fn committed(&mut self, conn: &Connection, frames: i64) {
        if frames >= self.inline_at {
            let _running = self.one_at_a_time.lock();
            let _ = checkpoint(conn);
            // Should a reader keep it from catching up, not again at every commit.
            self.inline_at = frames + WAL_LIMIT / 4;
        } else if frames < WAL_LIMIT {
            self.inline_at = WAL_LIMIT;
        }
        if frames >= CHECKPOINT_FRAMES {
            // Full: a checkpoint is queued already.
            let _ = self.nudge.try_send(());
        }
    }
}

/// A passive checkpoint: copies what it can without waiting for readers or writers.
fn checkpoint(conn: &Connection) -> rusqlite::Result<()> {
    conn.query_row("PRAGMA wal_checkpoint(PASSIVE)", [], |_| Ok(()))
}

fn checkpointer(
    conn: Connection,
    nudged: std::sync::mpsc::Receiver<()>,
    one_at_a_time: &Mutex<()>,
) {
    // Ends when the writer does (the sender is dropped).
    while nudged.recv().is_ok() {
        let _running = one_at_a_time.lock();
        // Busy (another process checkpoints) or failed: the next nudge tries again.
        let _ = checkpoint(&conn);
    }
    let _ = conn.close();
}

/// Runs jobs until the last handle is dropped or [`Writer::close`]; returns the latter's
/// reply.
fn run(
    conn: &Connection,
    mut rx: mpsc::Receiver<Msg>,
    wal: &WalWatch,
    mut checkpoints: Checkpoints,
) -> Option<oneshot::Sender<()>> {
    let mut closing = None;
    let mut batch: Vec<Box<dyn Job>> = Vec::new();
    while closing.is_none() {
        match rx.blocking_recv() {
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
        if !batch.is_empty() && run_batch(conn, std::mem::take(&mut batch)) {
            checkpoints.committed(conn, wal.frames());
        }
    }
    // Jobs sent after the close are dropped with the queue: their callers learn the store
    // is closed.
    rx.close();
    closing
}

/// Run one control statement (`BEGIN IMMEDIATE`, `SAVEPOINT op`, ...).
fn exec(conn: &Connection, sql: &str) -> rusqlite::Result<()> {
    conn.prepare_cached(sql)?.execute([])?;
    Ok(())
}

/// Roll back everything since `BEGIN`. An error means there is no transaction left to undo.
fn rollback(conn: &Connection) {
    if !conn.is_autocommit() {
        let _ = exec(conn, "ROLLBACK");
    }
}

fn fail_all(batch: Vec<Box<dyn Job>>, msg: &str) {
    for job in batch {
        job.finish(Err(msg.to_string()));
    }
}

/// Runs one group; true when it committed.
fn run_batch(conn: &Connection, mut batch: Vec<Box<dyn Job>>) -> bool {
    if let Err(e) = exec(conn, "BEGIN IMMEDIATE") {
        // Another process kept the write lock past the busy timeout, or worse.
        rollback(conn);
        fail_all(batch, &e.to_string());
        return false;
    }
    let grouped = batch.len() > 1;
    for i in 0..batch.len() {
        if grouped {
            if let Err(e) = exec(conn, "SAVEPOINT op") {
                rollback(conn);
                fail_all(batch, &e.to_string());
                return false;
            }
        }
        let ran = batch[i].run(conn);
        let undone = match ran {
            Ran::Ok if grouped => exec(conn, "RELEASE op").map_err(|e| e.to_string()),
            Ran::Ok => Ok(()),
            Ran::Failed if grouped => exec(conn, "ROLLBACK TO op")
                .and_then(|()| exec(conn, "RELEASE op"))
                .map_err(|e| e.to_string()),
            // Alone in its transaction: rolling it all back undoes this job only.
            Ran::Failed => {
                rollback(conn);
                batch.pop().expect("one job").finish(Ok(()));
                return false;
            }
            Ran::Broke => Err(GROUP_FAILED.to_string()),
        };
        if let Err(msg) = undone {
            // SQLite may have rolled the whole transaction back already; make sure, and
            // tell every job (those after this one never ran).
            rollback(conn);
            fail_all(batch, &msg);
            return false;
        }
    }
    match exec(conn, "COMMIT") {
        Ok(()) => {
            for job in batch {
                job.finish(Ok(()));
            }
            true
        }
        Err(e) => {
            rollback(conn);
            fail_all(batch, &e.to_string());
            false
        }
    }
}
