//! A small fixed set of database connections, leased one task at a time.
//!
//! Why not `sqlx::Pool`: on every release it spawns a task and pings the connection, a full
//! round trip (to SQLite's worker thread, or to the PostgreSQL server) that cost more than
//! the ledger statements themselves (about 24 µs of the 30 µs a one-statement read took
//! through the pool here). The ledger needs no more than this: N connections, each behind
//! a mutex, opened lazily, and replaced when one breaks.
//!
//! A lease is a mutex guard. A task dropped mid-statement leaves the connection to sqlx's
//! own recovery (a queued rollback, unread replies drained on next use). Nothing here sends
//! raw `BEGIN ...; COMMIT` text, which sqlx would not track. (SQLite's writes do not come
//! here at all: its writer thread owns a rusqlite connection.)
//!
//! A connection that saw an error after which its session is unusable ([`Fault::ends_session`]:
//! the server shut down or restarted, the socket broke) is dropped at once, and the set's
//! *generation* moves on: the other idle connections were opened before that failure, most
//! likely to the same server process that just went away, so each is replaced on its next
//! lease instead of failing one request first.

use std::ops::{Deref, DerefMut};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use sqlx::{ConnectOptions, Connection, Database};
use tokio::sync::{Mutex, MutexGuard, Semaphore, SemaphorePermit};

use crate::fault::{self, DbResult, Fault};

/// A slot's connection and the generation of the set it was opened in.
type Slot<C> = Option<(C, u64)>;

pub(crate) struct Conns<DB: Database> {
    options: <DB::Connection as Connection>::Options,
    slots: Box<[Mutex<Slot<DB::Connection>>]>,
    /// One permit per slot: whoever holds a permit finds a slot unlocked.
    permits: Semaphore,
    closed: AtomicBool,
    /// Moves on when a connection's session ended: connections of earlier generations are
    /// replaced when next leased.
    generation: AtomicU64,
    /// The longest a new connection may take to open.
    connect_timeout: std::time::Duration,
}

/// A leased connection. Fields drop in order: the slot is unlocked before the permit is
/// returned, so a task that gets a permit always finds a free slot.
pub(crate) struct Lease<'a, DB: Database> {
    guard: MutexGuard<'a, Slot<DB::Connection>>,
    generation: &'a AtomicU64,
    _permit: SemaphorePermit<'a>,
}

/// What an operation that did not answer within `deadline` fails with.
pub(crate) fn no_answer(deadline: std::time::Duration) -> Fault {
    Fault::Store(crate::StoreError::Unavailable(format!(
        "no answer from the database within {} ms",
        deadline.as_millis()
    )))
}

/// `op` within `deadline`, or [`no_answer`].
pub(crate) async fn within<T>(
    deadline: std::time::Duration,
    op: impl std::future::Future<Output = DbResult<T>>,
) -> DbResult<T> {
    tokio::time::timeout(deadline, op)
        .await
        .unwrap_or_else(|_| Err(no_answer(deadline)))
}

/// Open a connection within `timeout`: a server that does not answer (a network split)
/// must fail the request, not hang it.
pub(crate) async fn connect_within<C: Connection>(
    options: &C::Options,
    timeout: std::time::Duration,
) -> DbResult<C> {
    match tokio::time::timeout(timeout, options.connect()).await {
        Ok(conn) => Ok(conn?),
        Err(_) => Err(Fault::Store(crate::StoreError::Unavailable(format!(
            "no connection to the database within {} ms",
            timeout.as_millis()
        )))),
    }
}

impl<DB: Database> Conns<DB> {
    /// `first` (already open, e.g. the one migrations ran on) becomes the first slot.
    pub(crate) fn new(
        options: <DB::Connection as Connection>::Options,
        size: usize,
        first: Option<DB::Connection>,
        connect_timeout: std::time::Duration,
    ) -> Conns<DB> {
        let mut first = first.map(|c| (c, 0));
        let size = size.max(1);
        let slots = (0..size).map(|_| Mutex::new(first.take())).collect();
        Conns {
            options,
            slots,
            permits: Semaphore::new(size),
            closed: AtomicBool::new(false),
            generation: AtomicU64::new(0),
            connect_timeout,
        }
    }

    /// A free connection, waiting (first come, first served) if all are in use; opened if
    /// needed. The lowest free slot is taken, so a quiet store keeps one connection warm.
    pub(crate) async fn acquire(&self) -> DbResult<Lease<'_, DB>> {
        if self.closed.load(Ordering::Acquire) {
            return Err(fault::closed().into());
        }
        let permit = self
            .permits
            .acquire()
            .await
            .map_err(|_| Fault::from(fault::closed()))?;
        let mut guard = self
            .slots
            .iter()
            .find_map(|slot| slot.try_lock().ok())
            .expect("a permit guarantees a free slot");
        let generation = self.generation.load(Ordering::Acquire);
        if guard.as_ref().is_some_and(|(_, g)| *g < generation) {
            // Opened before a session of this set ended: likely dead too. Closing it would
            // wait on the socket; dropping it is enough.
            *guard = None;
        }
        if guard.is_none() {
            let conn =
                connect_within::<DB::Connection>(&self.options, self.connect_timeout).await?;
            *guard = Some((conn, generation));
        }
        Ok(Lease {
            guard,
            generation: &self.generation,
            _permit: permit,
        })
    }

    /// Close every connection, waiting for leased ones to come back.
    pub(crate) async fn close(&self) {
        self.closed.store(true, Ordering::Release);
        self.permits.close();
        for slot in self.slots.iter() {
            if let Some((c, _)) = slot.lock().await.take() {
                let _ = c.close().await;
            }
        }
    }
}

/// Whether an operation that failed on a dead session may run again on a fresh one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Retry {
    /// Reads, and writes that do the same however often they run: always.
    Idempotent,
    /// Other writes: only when the server ended the session before running them.
    IfNotRun,
}

impl Retry {
    pub(crate) fn allows(self, fault: &Fault) -> bool {
        match self {
            Retry::Idempotent => true,
            Retry::IfNotRun => fault.not_run(),
        }
    }
}

impl<DB: Database> Conns<DB> {
    /// A session to the same server ended elsewhere (the writer's): the idle connections are
    /// as likely dead, and are replaced when next leased.
    pub(crate) fn session_ended_elsewhere(&self) {
        self.generation.fetch_add(1, Ordering::AcqRel);
    }
}

impl<DB: Database> Lease<'_, DB> {
    /// Drop the connection (its state is unknown); the next lease opens a new one.
    pub(crate) fn forget(&mut self) {
        *self.guard = None;
    }

    /// Forget the connection if `fault` ended its session, and move the set's generation on
    /// so that connections opened before are replaced too. True when it did.
    pub(crate) fn check(&mut self, fault: &Fault) -> bool {
        if !fault.ends_session() {
            return false;
        }
        if let Some((_, g)) = self.guard.take() {
            // Only the first failure of a generation moves it on.
            let _ = self
                .generation
                .compare_exchange(g, g + 1, Ordering::AcqRel, Ordering::Acquire);
        }
        true
    }
}

impl<DB: Database> Deref for Lease<'_, DB> {
    type Target = DB::Connection;
    fn deref(&self) -> &DB::Connection {
        &self.guard.as_ref().expect("leased connection is open").0
    }
}

impl<DB: Database> DerefMut for Lease<'_, DB> {
    fn deref_mut(&mut self) -> &mut DB::Connection {
        &mut self.guard.as_mut().expect("leased connection is open").0
    }
}
