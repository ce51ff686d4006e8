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

use std::ops::{Deref, DerefMut};
use std::sync::atomic::{AtomicBool, Ordering};

use sqlx::{ConnectOptions, Connection, Database};
use tokio::sync::{Mutex, MutexGuard, Semaphore, SemaphorePermit};

use crate::{Result, StoreError};

pub(crate) struct Conns<DB: Database> {
    options: <DB::Connection as Connection>::Options,
    slots: Box<[Mutex<Option<DB::Connection>>]>,
    /// One permit per slot: whoever holds a permit finds a slot unlocked.
    permits: Semaphore,
    closed: AtomicBool,
}

/// A leased connection. Fields drop in order: the slot is unlocked before the permit is
/// returned, so a task that gets a permit always finds a free slot.
pub(crate) struct Lease<'a, DB: Database> {
    guard: MutexGuard<'a, Option<DB::Connection>>,
    _permit: SemaphorePermit<'a>,
}

impl<DB: Database> Conns<DB> {
    /// `first` (already open, e.g. the one migrations ran on) becomes the first slot.
    pub(crate) fn new(
        options: <DB::Connection as Connection>::Options,
        size: usize,
        first: Option<DB::Connection>,
    ) -> Conns<DB> {
        let mut first = first;
        let size = size.max(1);
        let slots = (0..size).map(|_| Mutex::new(first.take())).collect();
        Conns {
            options,
            slots,
            permits: Semaphore::new(size),
            closed: AtomicBool::new(false),
        }
    }

    /// A free connection, waiting (first come, first served) if all are in use; opened if
    /// needed. The lowest free slot is taken, so a quiet store keeps one connection warm.
    pub(crate) async fn acquire(&self) -> Result<Lease<'_, DB>> {
        let closed = || StoreError::Database(sqlx::Error::PoolClosed);
        if self.closed.load(Ordering::Acquire) {
            return Err(closed());
        }
        let permit = self.permits.acquire().await.map_err(|_| closed())?;
        let mut guard = self
            .slots
            .iter()
            .find_map(|slot| slot.try_lock().ok())
            .expect("a permit guarantees a free slot");
        if guard.is_none() {
            *guard = Some(self.options.connect().await?);
        }
        Ok(Lease {
            guard,
            _permit: permit,
        })
    }

    /// Close every connection, waiting for leased ones to come back.
    pub(crate) async fn close(&self) {
        self.closed.store(true, Ordering::Release);
        self.permits.close();
        for slot in self.slots.iter() {
            if let Some(c) = slot.lock().await.take() {
                let _ = c.close().await;
            }
        }
    }
}

impl<DB: Database> Lease<'_, DB> {
    /// Forget the connection if `err` means it may be unusable; the next lease reconnects.
    pub(crate) fn check(&mut self, err: &StoreError) {
        if let StoreError::Database(e) = err {
            if matches!(
                e,
                sqlx::Error::Io(_)
                    | sqlx::Error::Protocol(_)
                    | sqlx::Error::Tls(_)
                    | sqlx::Error::WorkerCrashed
                    | sqlx::Error::PoolClosed
            ) {
                *self.guard = None;
            }
        }
    }
}

impl<DB: Database> Deref for Lease<'_, DB> {
    type Target = DB::Connection;
    fn deref(&self) -> &DB::Connection {
        self.guard.as_ref().expect("leased connection is open")
    }
}

impl<DB: Database> DerefMut for Lease<'_, DB> {
    fn deref_mut(&mut self) -> &mut DB::Connection {
        self.guard.as_mut().expect("leased connection is open")
    }
}
