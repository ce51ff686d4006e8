//! The SQLite writer: one OS thread commits the jobs queued on the one write connection in
//! groups (a hold that finds it idle commits in place, see below).
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
//! checkpoint running beside a busy writer may not do. Then the WAL goes on growing and the
//! checkpointer is nudged again only every [`CHECKPOINT_STEP`] frames, not after every
//! commit (which had it copying a frame or two, with two `fsync`s, per request, for as long
//! as the race kept being lost). Past [`WAL_LIMIT`] frames the writer
//! checkpoints itself, between two transactions, as the auto-checkpoint would have. The
//! frame count comes from SQLite's WAL hook after each commit. Durability does not change:
//! in WAL mode with `synchronous = NORMAL` a commit is in the WAL whoever checkpoints it.
//!
//! Jobs run to completion even if whoever asked stops waiting, so a client that goes away
//! never leaves a half-written movement behind.
//!
//! At low load the queue is a detour: a hold would wake the writer thread and then wait for
//! it to wake the request's thread again, two hand-offs that cost more than the commit. So a
//! short job that a client is waiting on ([`Writer::run_urgent`]: the hold) that finds the
//! queue empty and the connection free runs right there, on the caller's thread, as a group
//! of one; the lock around the connection keeps one writer at a time. Under load the
//! connection is busy or jobs are waiting, and jobs queue and commit in groups as before.
//! The caller's thread never waits for another process's write lock (that fails over to the
//! queue) nor checkpoints. Everything else queues: a settle, say, is written after its
//! answer went out, and on the writer thread it neither delays that answer nor breaks a
//! group.

use std::borrow::Cow;
use std::ffi::{c_char, c_int, c_void};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError, TryLockError};
use std::time::Duration;

use rusqlite::{ffi, Connection};
use sqlx::error::{DatabaseError, ErrorKind};
use tokio::sync::{mpsc, oneshot};

use crate::fault::{self, DbResult, Fault};
use crate::StoreError;

const GROUP_FAILED: &str = "a write in the same group failed; nothing was committed";

/// Most jobs committed together.
const MAX_BATCH: usize = 128;
/// Jobs waiting beyond this make senders wait (back-pressure instead of unbounded memory).
const QUEUE: usize = 4096;
/// Prepared statements kept per connection (the ledger uses about twenty).
pub(crate) const STATEMENT_CACHE: usize = 64;
/// WAL frames (pages) from which the checkpointer is nudged.
const CHECKPOINT_FRAMES: i64 = 1_000;
/// WAL frames added since the last nudge before the next one, while the WAL has not
/// restarted.
const CHECKPOINT_STEP: i64 = CHECKPOINT_FRAMES / 4;
/// WAL frames past which the writer checkpoints itself (about 40 MB).
const WAL_LIMIT: i64 = 10_000;
/// How long a write waits for another process's write lock before giving up.
pub(crate) const BUSY_TIMEOUT: Duration = Duration::from_secs(10);
/// The WAL file is truncated back to this size when it restarts after growing larger.
pub(crate) const WAL_SIZE_LIMIT: i64 = 64 << 20;

/// An error SQLite reported, as the `sqlx` database error the rest of the crate speaks
/// (`fault.rs` classifies both drivers' errors alike): constraint violations keep their kind,
/// so that `is_unique_violation` and friends work on both drivers.
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
    fn db(self) -> DbResult<T>;
}

impl<T> Db<T> for rusqlite::Result<T> {
    fn db(self) -> DbResult<T> {
        self.map_err(|e| Fault::Db(sqlx_error(e)))
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

fn classify(e: &Fault) -> Ran {
    match e {
        Fault::Db(sqlx::Error::Database(d))
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
        Fault::Db(_) => Ran::Broke,
        // Decided by the job itself (not found, refused, ...): its own statements only.
        Fault::Store(_) => Ran::Failed,
    }
}

trait Job: Send {
    fn run(&mut self, conn: &Connection) -> Ran;
    /// Hand the result over, once its transaction committed (`Ok`) or failed (`Err`).
    fn finish(self: Box<Self>, committed: std::result::Result<(), String>);
}

struct FnJob<T, F> {
    f: Option<F>,
    out: Option<DbResult<T>>,
    reply: oneshot::Sender<DbResult<T>>,
}

impl<T, F> FnJob<T, F>
where
    T: Send + 'static,
    F: FnOnce(&Connection) -> DbResult<T> + Send + 'static,
{
    /// The job, and where its result will arrive.
    fn boxed(f: F) -> (Box<dyn Job>, oneshot::Receiver<DbResult<T>>) {
        let (reply, rx) = oneshot::channel();
        let job = FnJob {
            f: Some(f),
            out: None,
            reply,
        };
        (Box::new(job), rx)
    }
}

impl<T, F> Job for FnJob<T, F>
where
    T: Send,
    F: FnOnce(&Connection) -> DbResult<T> + Send,
{
    fn run(&mut self, conn: &Connection) -> Ran {
        let f = self.f.take().expect("a job runs once");
        // A panicking job must not take the writer (and every later write) down with it.
        let out = catch_unwind(AssertUnwindSafe(|| f(conn))).unwrap_or_else(|_| {
            Err(Fault::Store(StoreError::Internal(
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

/// The group's transaction did not commit (another process kept the write lock, an I/O
/// error, ...): nothing of it was written, and trying again may work.
fn commit_failed(msg: String) -> Fault {
    Fault::Store(StoreError::Unavailable(format!(
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
    /// The write connection, taken out (`None`) when the writer closes.
    core: Arc<Mutex<Option<Core>>>,
}

/// The write connection and what goes with it. Whoever holds its lock may write: the writer
/// thread, or a caller running an urgent job in place.
struct Core {
    conn: Connection,
    wal: WalWatch,
    checkpoints: Checkpoints,
}

impl Core {
    /// Runs `job` on the calling thread as a group of one, unless the WAL is due for the
    /// writer thread's checkpoint or another process holds the write lock: then `job` is
    /// handed back, not run, to be queued.
    fn run_in_place(&mut self, job: Box<dyn Job>) -> std::result::Result<(), Box<dyn Job>> {
        if self.wal.frames() >= self.checkpoints.inline_at {
            return Err(job);
        }
        // Taking the write lock is the one place SQLite could wait (for another process).
        let _ = self.conn.busy_timeout(Duration::ZERO);
        let begun = exec(&self.conn, "BEGIN IMMEDIATE");
        let _ = self.conn.busy_timeout(BUSY_TIMEOUT);
        if begun.is_err() {
            rollback(&self.conn);
            return Err(job);
        }
        if run_begun(&self.conn, vec![job]) {
            self.checkpoints.committed(self.wal.frames());
        }
        Ok(())
    }
}

fn lock(core: &Mutex<Option<Core>>) -> MutexGuard<'_, Option<Core>> {
    // Jobs run under `catch_unwind`; a poisoned lock still guards a usable connection.
    core.lock().unwrap_or_else(PoisonError::into_inner)
}

fn spawn_failed(e: std::io::Error) -> StoreError {
    StoreError::Internal(format!("cannot start the SQLite writer thread: {e}"))
}

impl Writer {
    /// Start the writer thread on `conn`, which it owns from now on, and the checkpointer
    /// on `checkpoints` (a second connection to the same file). `keep` is dropped after both
    /// connections are closed (e.g. a temporary file that removes itself).
    pub(crate) fn start(
        conn: Connection,
        checkpoints: Connection,
        keep: Option<Box<dyn Send>>,
    ) -> std::result::Result<Writer, StoreError> {
        let (nudge, nudged) = std::sync::mpsc::sync_channel(1);
        let one_at_a_time = Arc::new(Mutex::new(()));
        let checkpointer = {
            let one_at_a_time = one_at_a_time.clone();
            std::thread::Builder::new()
                .name("shoal-sqlite-ckpt".into())
                .spawn(move || checkpointer(checkpoints, nudged, &one_at_a_time))
                .map_err(spawn_failed)?
        };
        let wal = WalWatch::new(&conn);
        let core = Arc::new(Mutex::new(Some(Core {
            conn,
            wal,
            checkpoints: Checkpoints {
                nudge,
                one_at_a_time,
                inline_at: WAL_LIMIT,
                nudged_at: 0,
            },
        })));
        let (tx, rx) = mpsc::channel(QUEUE);
        let shared = core.clone();
        std::thread::Builder::new()
            .name("shoal-sqlite-writer".into())
            .spawn(move || {
                let closing = run(&shared, rx);
                let core = lock(&shared).take();
                if let Some(Core {
                    conn,
                    wal,
                    checkpoints,
                }) = core
                {
                    // Ends the checkpointer's loop.
                    drop(checkpoints);
                    wal.unwatch(&conn);
                    let _ = conn.close();
                    // After the writer's connection: the last one closed checkpoints the WAL.
                    let _ = checkpointer.join();
                    drop(wal);
                }
                drop(keep);
                if let Some(done) = closing {
                    let _ = done.send(());
                }
            })
            .map_err(spawn_failed)?;
        Ok(Writer { tx, core })
    }

    /// Run `f` on the write connection, inside the writer's transaction (and its own
    /// savepoint when grouped). When `f` fails, its writes are rolled back.
    pub(crate) async fn run<T, F>(&self, f: F) -> DbResult<T>
    where
        T: Send + 'static,
        F: FnOnce(&Connection) -> DbResult<T> + Send + 'static,
    {
        let (job, rx) = FnJob::boxed(f);
        self.queue(job).await?;
        rx.await.map_err(|_| Fault::from(fault::closed()))?
    }

    /// [`Writer::run`] for a job of a few statements that a client is waiting on (a hold):
    /// when nothing is queued and the connection is free, it runs at once on the calling
    /// thread, sparing the two thread hand-offs of the queue.
    pub(crate) async fn run_urgent<T, F>(&self, f: F) -> DbResult<T>
    where
        T: Send + 'static,
        F: FnOnce(&Connection) -> DbResult<T> + Send + 'static,
    {
        let (job, rx) = FnJob::boxed(f);
        if let Some(job) = self.try_in_place(job) {
            self.queue(job).await?;
        }
        rx.await.map_err(|_| Fault::from(fault::closed()))?
    }

    /// Runs `job` here if the writer is idle; hands it back otherwise.
    fn try_in_place(&self, job: Box<dyn Job>) -> Option<Box<dyn Job>> {
        // Jobs waiting go first (and the writer thread is about to take the connection).
        if self.tx.capacity() != self.tx.max_capacity() {
            return Some(job);
        }
        let mut guard = match self.core.try_lock() {
            Ok(guard) => guard,
            Err(TryLockError::Poisoned(p)) => p.into_inner(),
            Err(TryLockError::WouldBlock) => return Some(job),
        };
        match guard.as_mut() {
            Some(core) => core.run_in_place(job).err(),
            None => Some(job),
        }
    }

    async fn queue(&self, job: Box<dyn Job>) -> DbResult<()> {
        self.tx
            .send(Msg::Job(job))
            .await
            .map_err(|_| fault::closed().into())
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
    /// WAL frames at the last nudge (0 once the WAL restarted).
    nudged_at: i64,
}

impl Checkpoints {
    /// On the writer thread after each group, between transactions: past the WAL's limit it
    /// checkpoints itself. (A commit in place leaves that to the next group.)
    fn checkpoint_if_due(&mut self, conn: &Connection, frames: i64) {
        if frames >= self.inline_at {
            let _running = self.one_at_a_time.lock();
            let _ = checkpoint(conn);
            // Should a reader keep it from catching up, not again at every commit.
            self.inline_at = frames + WAL_LIMIT / 4;
        }
    }

    /// After each commit, wherever it ran: nudges the checkpointer when due.
    fn committed(&mut self, frames: i64) {
        // (`inline_at` is never below the limit, so under it no checkpoint is due.)
        if frames < WAL_LIMIT {
            self.inline_at = WAL_LIMIT;
        }
        if frames < self.nudged_at {
            // The WAL restarted from its beginning.
            self.nudged_at = 0;
        }
        // (A full channel: a checkpoint is queued already.)
        if frames >= CHECKPOINT_FRAMES
            && frames >= self.nudged_at + CHECKPOINT_STEP
            && self.nudge.try_send(()).is_ok()
        {
            self.nudged_at = frames;
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
fn run(core: &Mutex<Option<Core>>, mut rx: mpsc::Receiver<Msg>) -> Option<oneshot::Sender<()>> {
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
        if batch.is_empty() {
            continue;
        }
        let mut guard = lock(core);
        let Some(core) = guard.as_mut() else {
            // Only this thread takes the connection out, after this loop.
            fail_all(std::mem::take(&mut batch), "the writer is closed");
            continue;
        };
        if run_batch(&core.conn, std::mem::take(&mut batch)) {
            let frames = core.wal.frames();
            core.checkpoints.checkpoint_if_due(&core.conn, frames);
            core.checkpoints.committed(frames);
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
fn run_batch(conn: &Connection, batch: Vec<Box<dyn Job>>) -> bool {
    if let Err(e) = exec(conn, "BEGIN IMMEDIATE") {
        // Another process kept the write lock past the busy timeout, or worse.
        rollback(conn);
        fail_all(batch, &e.to_string());
        return false;
    }
    run_begun(conn, batch)
}

/// Runs one group inside the transaction just begun; true when it committed.
fn run_begun(conn: &Connection, mut batch: Vec<Box<dyn Job>>) -> bool {
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

#[cfg(test)]
mod tests {
    use std::pin::pin;
    use std::thread::ThreadId;

    use super::*;
    use crate::sqlite::open_writer;

    /// A writer on a new file with one table, and the file's folder.
    fn writer() -> (Writer, tempfile::TempDir) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("w.db");
        let conn = open_writer(&path).unwrap();
        conn.execute_batch("CREATE TABLE t (x INTEGER NOT NULL UNIQUE)")
            .unwrap();
        let writer = Writer::start(conn, open_writer(&path).unwrap(), None).unwrap();
        (writer, dir)
    }

    /// Where a job ran: its thread, and its thread's name.
    fn insert(x: i64) -> impl FnOnce(&Connection) -> DbResult<(ThreadId, String)> + Send {
        move |conn| {
            conn.execute("INSERT INTO t (x) VALUES (?1)", [x]).db()?;
            let me = std::thread::current();
            Ok((me.id(), me.name().unwrap_or_default().to_string()))
        }
    }

    fn rows(dir: &tempfile::TempDir) -> i64 {
        let conn = open_writer(&dir.path().join("w.db")).unwrap();
        conn.query_row("SELECT count(*) FROM t", [], |r| r.get(0))
            .unwrap()
    }

    #[tokio::test]
    async fn an_idle_writer_runs_an_urgent_job_in_place() {
        let (writer, dir) = writer();
        let (thread, _) = writer.run_urgent(insert(1)).await.unwrap();
        assert_eq!(thread, std::thread::current().id());
        // Committed: another connection sees it.
        assert_eq!(rows(&dir), 1);
        // A failing job in place rolls back alone and reports its own error.
        let dup = writer.run_urgent(insert(1)).await.unwrap_err();
        assert!(dup.is_unique_violation(), "{dup:?}");
        writer.run_urgent(insert(2)).await.unwrap();
        assert_eq!(rows(&dir), 2);
        // Other jobs always take the queue.
        let (_, name) = writer.run(insert(3)).await.unwrap();
        assert_eq!(name, "shoal-sqlite-writer");
        writer.close().await;
    }

    // The lock is held on purpose across single polls (`poll!`), to keep the writer busy.
    #[allow(clippy::await_holding_lock)]
    #[tokio::test]
    async fn a_busy_writer_queues_urgent_jobs_and_commits_them_together() {
        const N: i64 = 50;
        let (writer, dir) = writer();
        let jobs: Vec<_> = {
            // The connection is busy: every job finds it taken and queues.
            let held = writer.core.lock().unwrap();
            let mut jobs: Vec<_> = (0..N)
                .map(|x| Box::pin(writer.run_urgent(insert(x))))
                .collect();
            for job in &mut jobs {
                assert!(futures::poll!(job.as_mut()).is_pending());
            }
            drop(held);
            jobs
        };
        for job in futures::future::join_all(jobs).await {
            let (_, name) = job.unwrap();
            assert_eq!(name, "shoal-sqlite-writer");
        }
        assert_eq!(rows(&dir), N);
        // Grouped: a commit apiece would have written at least one WAL frame each.
        let frames = writer.core.lock().unwrap().as_ref().unwrap().wal.frames();
        assert!(frames < N / 2, "{frames} WAL frames for {N} queued inserts");
        writer.close().await;
    }

    #[tokio::test]
    async fn an_urgent_job_waits_for_another_process_on_the_writer_thread() {
        let (writer, dir) = writer();
        // Another connection (as another process would) holds the file's write lock.
        let other = open_writer(&dir.path().join("w.db")).unwrap();
        other.execute_batch("BEGIN IMMEDIATE").unwrap();
        let mut job = pin!(writer.run_urgent(insert(1)));
        // Not run in place (that would have waited, or failed): queued.
        assert!(futures::poll!(job.as_mut()).is_pending());
        other.execute_batch("COMMIT").unwrap();
        let (_, name) = job.await.unwrap();
        assert_eq!(name, "shoal-sqlite-writer");
        // The writer thread hands results out before it lets go of the connection: wait
        // until it has. Then the in-place path still waits for nobody.
        drop(writer.core.lock().unwrap());
        let (thread, _) = writer.run_urgent(insert(2)).await.unwrap();
        assert_eq!(thread, std::thread::current().id());
        writer.close().await;
    }

    #[tokio::test]
    async fn a_closed_writer_refuses_urgent_jobs() {
        let (writer, _dir) = writer();
        writer.close().await;
        let err = writer.run_urgent(insert(1)).await.unwrap_err();
        assert!(
            matches!(err, Fault::Store(StoreError::Unavailable(_))),
            "{err:?}"
        );
    }

    #[test]
    fn the_checkpointer_is_nudged_once_per_step_until_the_wal_restarts() {
        let (nudge, nudged) = std::sync::mpsc::sync_channel(1);
        let mut checkpoints = Checkpoints {
            nudge,
            one_at_a_time: Arc::new(Mutex::new(())),
            inline_at: WAL_LIMIT,
            nudged_at: 0,
        };
        // Commits of 3 frames each, with an idle checkpointer that takes every nudge.
        let mut nudges = 0;
        let mut commit = |frames: i64| {
            checkpoints.committed(frames);
            nudged.try_iter().count()
        };
        for frames in (3..CHECKPOINT_FRAMES).step_by(3) {
            nudges += commit(frames);
        }
        assert_eq!(nudges, 0, "below the threshold");
        // The checkpoints lose the race: the WAL grows on without restarting.
        let grown = 2 * CHECKPOINT_FRAMES;
        for frames in (CHECKPOINT_FRAMES..grown).step_by(3) {
            nudges += commit(frames);
        }
        let steps = (grown - CHECKPOINT_FRAMES) / CHECKPOINT_STEP;
        assert_eq!(nudges, steps as usize, "one nudge per step, not per commit");
        // Restarted, then full again: nudged at once.
        nudges += commit(3);
        nudges += commit(CHECKPOINT_FRAMES);
        assert_eq!(nudges, steps as usize + 1);
    }
}
