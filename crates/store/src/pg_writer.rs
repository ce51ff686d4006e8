//! The PostgreSQL ledger writer: a task with its own connection that commits waiting holds
//! and settles in batches.
//!
//! A movement as its own transaction costs a durable commit (a WAL flush) and, on a busy
//! account, holds the account's row lock until that flush is done, so every request of that
//! account waits for the previous one's flush. So holds and settles go to a queue, and the
//! writer ([`WRITERS`] of them, in general) takes every job waiting there and sends them as
//! one call of `shoal_ledger_batch` (a function from the migrations): one round trip, one
//! transaction, one commit for the batch, after which each job gets its result. Nothing is
//! answered before its commit. A job alone in the queue is sent as one statement instead
//! (`pg_ledger`): same rules, half the database time of a call for one job.
//!
//! The function never raises an error for an outcome (duplicate request id, unknown
//! account, insufficient credit), so a job cannot abort its neighbours. Should a batch still
//! fail inside the database (a deadlock with a reaper, say), nothing of it was committed and
//! its jobs are run again one by one.
//!
//! **The writer never waits for a row lock.** A batch locks its accounts first with `SKIP
//! LOCKED`, and a single statement with `NOWAIT`; a job whose account another session holds
//! locked (another gateway's batch, or a session frozen inside a transaction) is handed to
//! the *contended lane*: it runs alone on one of the store's pooled connections, waiting for
//! the lock at most `lock_timeout`. So one account's lock never holds up another account's
//! jobs, however long it lasts.
//!
//! **A dead connection is dropped at once**: when the session ended (the server restarted,
//! the socket broke, no answer within the client's deadline) the jobs of the failed call
//! get a [`Failure`] saying so, and the next batch opens a fresh connection. Whether the
//! failed call committed is then unknown; callers settle that with the ledger's idempotence
//! (`postgres.rs`, `Store::settle`).
//!
//! Jobs run to completion even if whoever asked stops waiting: once queued, a writer owns
//! them.

use std::sync::Arc;
use std::time::Duration;

use sqlx::postgres::{PgConnectOptions, PgConnection, PgRow};
use sqlx::{Connection, Postgres, Row};
use tokio::sync::{mpsc, oneshot, watch};

use crate::conns::{connect_within, within, Conns, Retry};
use crate::fault::{self, DbResult, Fault};
use crate::ledger::{self, EndKind};
use crate::pg_ledger::{self, AVAILABLE, BATCH, HOLD_ATTEMPTS};
use crate::{money, Charge, HoldOutcome, HoldRequest, Millis, SettleOutcome, StoreError};

/// Connections committing batches at once. One measured best (bench/ledger): with more, the
/// jobs waiting are split into smaller batches, so more commits, and on a busy account the
/// batches only queue behind each other's row lock and flush. More writers would overlap
/// one batch's flush with the next one's work on other accounts; the code allows any
/// number.
const WRITERS: usize = 1;
/// Most jobs in one batch.
const MAX_BATCH: usize = 128;
/// Jobs waiting beyond this make senders wait.
const QUEUE: usize = 4096;
/// SQLSTATE `lock_not_available`: a `NOWAIT` lock found the row taken, or `lock_timeout`
/// ran out.
const LOCK_NOT_AVAILABLE: &str = "55P03";

pub(crate) enum Movement {
    Hold(HoldRequest),
    End {
        request_id: String,
        kind: EndKind,
        charge: Option<Charge>,
    },
}

struct Job {
    movement: Movement,
    now: Millis,
    reply: oneshot::Sender<Result<Done, Failure>>,
}

/// What a job did: one row of `shoal_ledger_batch`.
pub(crate) struct Done {
    outcome: String,
    hold: Option<i64>,
    free: Option<i64>,
    plan: Option<i64>,
    balance: Option<i64>,
    /// Insufficient: the account's available credit; key limit: the key's remaining.
    available: Option<i64>,
    /// Key limit: the key's limit and its reset.
    limit: Option<i64>,
    reset: Option<String>,
}

impl Done {
    fn outcome(outcome: &str) -> Done {
        Done {
            outcome: outcome.to_string(),
            hold: None,
            free: None,
            plan: None,
            balance: None,
            available: None,
            limit: None,
            reset: None,
        }
    }
}

/// Why a job has no outcome.
#[derive(Debug, Clone)]
pub(crate) struct Failure {
    pub error: StoreError,
    /// The connection died under the job: whether it committed is unknown.
    pub session_ended: bool,
}

impl Failure {
    fn of(f: &Fault) -> Failure {
        Failure {
            error: match f {
                Fault::Db(e) => fault::classify(e),
                Fault::Store(e) => e.clone(),
            },
            session_ended: f.ends_session(),
        }
    }

    fn closed() -> Failure {
        Failure {
            error: fault::closed(),
            session_ended: false,
        }
    }
}

struct Shared {
    rx: tokio::sync::Mutex<mpsc::Receiver<Job>>,
    closing: watch::Sender<bool>,
    tasks: std::sync::Mutex<Vec<tokio::task::JoinHandle<()>>>,
    /// The store's pooled connections: the contended lane runs there.
    conns: Arc<Conns<Postgres>>,
    /// The longest the client waits for one call before it drops the connection.
    deadline: Duration,
}

/// Handle to the writer tasks. Cheap to clone; they end when the last handle is dropped or
/// on [`Writers::close`].
#[derive(Clone)]
pub(crate) struct Writers {
    tx: mpsc::Sender<Job>,
    shared: Arc<Shared>,
}

impl Writers {
    /// Start the writer tasks; each connects with `options` at once, and again after its
    /// connection broke.
    pub(crate) fn start(
        options: PgConnectOptions,
        conns: Arc<Conns<Postgres>>,
        deadline: Duration,
        connect_timeout: Duration,
    ) -> Writers {
        let (tx, rx) = mpsc::channel(QUEUE);
        let shared = Arc::new(Shared {
            rx: tokio::sync::Mutex::new(rx),
            closing: watch::channel(false).0,
            tasks: std::sync::Mutex::new(Vec::new()),
            conns,
            deadline,
        });
        let tasks = (0..WRITERS)
            .map(|_| {
                let conn = WriterConn {
                    options: options.clone(),
                    conn: None,
                    pool: shared.conns.clone(),
                    deadline,
                    connect_timeout,
                };
                tokio::spawn(writer(shared.clone(), conn))
            })
            .collect();
        *shared.tasks.lock().expect("writer tasks") = tasks;
        Writers { tx, shared }
    }

    /// Finish the jobs already queued, close the connections, and refuse new jobs.
    pub(crate) async fn close(&self) {
        self.shared.closing.send_replace(true);
        let tasks = std::mem::take(&mut *self.shared.tasks.lock().expect("writer tasks"));
        for task in tasks {
            let _ = task.await;
        }
        // Jobs sent since are dropped: their callers learn the store is closed.
        let mut rx = self.shared.rx.lock().await;
        rx.close();
        while rx.try_recv().is_ok() {}
    }

    async fn run(&self, movement: Movement, now: Millis) -> Result<Done, Failure> {
        let (reply, rx) = oneshot::channel();
        let job = Job {
            movement,
            now,
            reply,
        };
        self.tx.send(job).await.map_err(|_| Failure::closed())?;
        rx.await.map_err(|_| Failure::closed())?
    }

    pub(crate) async fn hold(&self, req: &HoldRequest, now: Millis) -> Result<Done, Failure> {
        self.run(Movement::Hold(req.clone()), now).await
    }

    pub(crate) async fn end_hold(
        &self,
        request_id: &str,
        kind: EndKind,
        charge: Option<&Charge>,
        now: Millis,
    ) -> Result<Done, Failure> {
        let movement = Movement::End {
            request_id: request_id.to_string(),
            kind,
            charge: charge.cloned(),
        };
        self.run(movement, now).await
    }
}

/// What a hold's row of the batch says, for `needed` credits at `now`. A duplicate request
/// id is an error of its own: [`ledger::duplicate_hold`].
pub(crate) fn hold_outcome(
    done: &Done,
    needed: i64,
    now: Millis,
) -> Result<HoldOutcome, StoreError> {
    match done.outcome.as_str() {
        "held" => Ok(HoldOutcome::Held),
        "insufficient" => Ok(HoldOutcome::Insufficient {
            needed,
            available: done.available.unwrap_or(0),
        }),
        "key_limit" => {
            let reset = done
                .reset
                .as_deref()
                .and_then(money::LimitReset::parse)
                .ok_or_else(|| unexpected("key_limit without a reset"))?;
            Ok(ledger::key_limit_exceeded(
                needed,
                done.limit.unwrap_or(0),
                done.available.unwrap_or(0),
                reset,
                now,
            ))
        }
        "management_key" => Err(ledger::management_key_holds()),
        "duplicate" => Err(ledger::duplicate_hold()),
        "no_account" => Err(StoreError::NotFound("account")),
        other => Err(unexpected(other)),
    }
}

/// What an end's row of the batch says.
pub(crate) fn end_outcome(done: &Done) -> Result<SettleOutcome, StoreError> {
    let kind = match done.outcome.as_str() {
        "ended" => return Ok(SettleOutcome::AlreadyEnded),
        "unknown" => return Ok(SettleOutcome::UnknownHold),
        "settle" => EndKind::Settle,
        "void" => EndKind::Void,
        "expire" => EndKind::Expire,
        other => return Err(unexpected(other)),
    };
    let end = ledger::Ending {
        kind,
        from_free: done.free.unwrap_or(0),
        from_plan: done.plan.unwrap_or(0),
        from_balance: done.balance.unwrap_or(0),
    };
    Ok(end.outcome(done.hold.unwrap_or(0)))
}

fn unexpected(outcome: &str) -> StoreError {
    StoreError::Internal(format!("unexpected ledger outcome {outcome:?}"))
}

/// The writer's own connection, opened when needed and dropped when its session ended.
struct WriterConn {
    options: PgConnectOptions,
    conn: Option<PgConnection>,
    /// The store's pooled connections, told when this one's session ended.
    pool: Arc<Conns<Postgres>>,
    deadline: Duration,
    connect_timeout: Duration,
}

impl WriterConn {
    /// The connection, opened first if needed.
    async fn open(&mut self) -> DbResult<&mut PgConnection> {
        if self.conn.is_none() {
            self.conn = Some(connect_within(&self.options, self.connect_timeout).await?);
        }
        Ok(self.conn.as_mut().expect("connected"))
    }

    /// After an operation: a fault that ended the session, or no answer in time, drops the
    /// connection (the next operation opens a new one), and the pooled connections opened
    /// before it, most likely to the same server that went away.
    fn after<T>(&mut self, out: &DbResult<T>) {
        let dead = out.as_ref().is_err_and(|f| {
            f.ends_session() || matches!(f, Fault::Store(StoreError::Unavailable(_)))
        });
        if dead && self.conn.take().is_some() {
            self.pool.session_ended_elsewhere();
        }
    }

    async fn close(self) {
        if let Some(conn) = self.conn {
            let _ = conn.close().await;
        }
    }
}

/// Evaluate `$body` (a `DbResult`) with `$c` bound to the writer's connection, within its
/// deadline; the connection is dropped if the session ended.
macro_rules! on_writer {
    ($w:expr, $c:ident => $body:expr) => {{
        let w: &mut WriterConn = $w;
        let deadline = w.deadline;
        let out = match w.open().await {
            Ok($c) => within(deadline, $body).await,
            Err(f) => Err(f),
        };
        w.after(&out);
        out
    }};
}

async fn writer(shared: Arc<Shared>, mut conn: WriterConn) {
    let mut closing = shared.closing.subscribe();
    // Connect now rather than on the first batch (a failure is retried then).
    let _ = conn.open().await;
    while let Some(batch) = next_batch(&shared, &mut closing).await {
        run_batch(&shared, &mut conn, batch).await;
    }
    conn.close().await;
}

/// Every job waiting (at most [`MAX_BATCH`]), once there is one; `None` once closing and
/// the queue is empty.
async fn next_batch(shared: &Shared, closing: &mut watch::Receiver<bool>) -> Option<Vec<Job>> {
    let mut rx = shared.rx.lock().await;
    let first = if *closing.borrow() {
        rx.try_recv().ok()
    } else {
        tokio::select! {
            job = rx.recv() => job,
            _ = closing.changed() => rx.try_recv().ok(),
        }
    }?;
    let mut batch = vec![first];
    while batch.len() < MAX_BATCH {
        match rx.try_recv() {
            Ok(job) => batch.push(job),
            Err(_) => break,
        }
    }
    Some(batch)
}

async fn run_batch(shared: &Arc<Shared>, conn: &mut WriterConn, mut batch: Vec<Job>) {
    if batch.len() == 1 {
        let job = batch.pop().expect("one job");
        return run_alone(shared, conn, job).await;
    }
    match on_writer!(conn, c => call(c, &batch)) {
        Ok(rows) => deliver(shared, batch, rows),
        // Failed inside the database with the session intact: the transaction rolled back,
        // nothing of the batch was committed. Each job again on its own, so that one cannot
        // fail the others.
        Err(f) if f.db().is_some() && !f.ends_session() => {
            for job in batch {
                run_alone(shared, conn, job).await;
            }
        }
        Err(f) => fail(batch, &f),
    }
}

/// One job, as its own statement and transaction, never waiting for a lock: a job whose
/// account is locked goes to the contended lane.
async fn run_alone(shared: &Arc<Shared>, conn: &mut WriterConn, job: Job) {
    let result = on_writer!(conn, c => run_job(c, &job.movement, job.now, Lock::NoWait));
    match result {
        Ok(done) => {
            let _ = job.reply.send(Ok(done));
        }
        Err(f) if is_locked(&f) => contend(shared, job),
        Err(f) => fail(vec![job], &f),
    }
}

fn is_locked(f: &Fault) -> bool {
    f.db()
        .and_then(|e| e.as_database_error())
        .and_then(|d| d.code())
        .is_some_and(|code| code == LOCK_NOT_AVAILABLE)
}

/// Run `job` alone on a pooled connection, waiting for its account's lock (at most the
/// session's `lock_timeout`), without holding up the writer. As many run at once as the
/// pool has connections; each is a job some caller is waiting for (the queue bounds them).
fn contend(shared: &Arc<Shared>, job: Job) {
    let shared = shared.clone();
    tokio::spawn(async move {
        // An end is idempotent by request id: safe to send again. A hold sent again after
        // its commit went unseen would find its own request id taken: only one the server
        // never ran is (a dead connection is reported, and `PgStore::hold` judges it).
        let retry = match job.movement {
            Movement::Hold(_) => Retry::IfNotRun,
            Movement::End { .. } => Retry::Idempotent,
        };
        let result = leased!(&*shared.conns, retry, shared.deadline, c => {
            run_job(c, &job.movement, job.now, Lock::Wait).await
        });
        let _ = job.reply.send(result.map_err(|f| Failure::of(&f)));
    });
}

/// Whether a single statement may wait for its account's row lock.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Lock {
    NoWait,
    Wait,
}

async fn run_job(
    c: &mut PgConnection,
    movement: &Movement,
    now: Millis,
    lock: Lock,
) -> DbResult<Done> {
    match movement {
        Movement::Hold(req) => hold_alone(c, req, now, lock).await,
        Movement::End {
            request_id,
            kind,
            charge,
        } => end_alone(c, request_id, *kind, charge.as_ref(), now, lock).await,
    }
}

async fn hold_alone(
    conn: &mut PgConnection,
    req: &HoldRequest,
    now: Millis,
    lock: Lock,
) -> DbResult<Done> {
    let sql = match (lock, req.key_id.is_some()) {
        (Lock::NoWait, false) => pg_ledger::HOLD_NOWAIT,
        (Lock::Wait, false) => pg_ledger::HOLD_WAIT,
        (Lock::NoWait, true) => pg_ledger::HOLD_KEY_NOWAIT,
        (Lock::Wait, true) => pg_ledger::HOLD_KEY_WAIT,
    };
    let today = money::utc_day(now);
    let mut attempt = 0;
    loop {
        attempt += 1;
        let admitted = sqlx::query(sql)
            .bind(req.account_id)
            .bind(req.credits)
            .bind(today)
            .bind(&req.request_id)
            .bind(&req.model)
            .bind(now)
            .bind(req.expires_at)
            .bind(req.free_daily)
            .bind(req.key_id)
            .fetch_one(&mut *conn)
            .await
            .map_err(Fault::from);
        let row = match admitted {
            Ok(row) => row,
            Err(f) if f.is_unique_violation() => return Ok(Done::outcome("duplicate")),
            Err(f) => return Err(f),
        };
        if row.try_get::<i64, _>("admitted")? == 1 {
            return Ok(Done::outcome("held"));
        }
        if let Some(refused) = key_refusal(&row, req.credits)? {
            return Ok(refused);
        }
        // Not admitted. Under READ COMMITTED a settle may have freed credit since the write
        // looked; a fresh read tells, and a retry is a new conditional write.
        let available: Option<i64> = sqlx::query_scalar(AVAILABLE)
            .bind(req.account_id)
            .bind(today)
            .bind(req.free_daily)
            .fetch_optional(&mut *conn)
            .await?;
        let Some(available) = available else {
            return Ok(Done::outcome("no_account"));
        };
        if available < req.credits || attempt >= HOLD_ATTEMPTS {
            return Ok(Done {
                available: Some(available.clamp(0, req.credits - 1)),
                ..Done::outcome("insufficient")
            });
        }
    }
}

async fn end_alone(
    conn: &mut PgConnection,
    request_id: &str,
    kind: EndKind,
    charge: Option<&Charge>,
    now: Millis,
    lock: Lock,
) -> DbResult<Done> {
    let sql = match lock {
        Lock::NoWait => pg_ledger::END_NOWAIT,
        Lock::Wait => pg_ledger::END_WAIT,
    };
    let billed = match kind {
        EndKind::Settle => charge.map(|c| c.credits),
        EndKind::Void | EndKind::Expire => Some(0),
    };
    let tokens = charge
        .filter(|_| kind == EndKind::Settle)
        .cloned()
        .unwrap_or_default();
    let row = sqlx::query(sql)
        .bind(request_id)
        .bind(now)
        .bind(money::utc_day(now))
        .bind(kind.journal_kind())
        .bind(billed)
        .bind(tokens.input_tokens)
        .bind(tokens.output_tokens)
        .bind(tokens.reasoning_tokens)
        .fetch_optional(&mut *conn)
        .await?;
    let Some(row) = row else {
        let exists = sqlx::query("SELECT 1 FROM holds WHERE request_id = $1")
            .bind(request_id)
            .fetch_optional(&mut *conn)
            .await?
            .is_some();
        return Ok(Done::outcome(if exists { "ended" } else { "unknown" }));
    };
    Ok(Done {
        hold: Some(row.try_get("hold")?),
        free: Some(row.try_get("from_free")?),
        plan: Some(row.try_get("from_plan")?),
        balance: Some(row.try_get("from_balance")?),
        ..Done::outcome(row.try_get::<&str, _>("kind")?)
    })
}

/// Hands each job its row; a job whose account was locked goes to the contended lane.
fn deliver(shared: &Arc<Shared>, batch: Vec<Job>, rows: Vec<(usize, Done)>) {
    let mut done: Vec<Option<Done>> = batch.iter().map(|_| None).collect();
    for (ord, row) in rows {
        if let Some(slot) = ord.checked_sub(1).and_then(|i| done.get_mut(i)) {
            *slot = Some(row);
        }
    }
    for (job, row) in batch.into_iter().zip(done) {
        match row {
            Some(row) if row.outcome == "locked" => contend(shared, job),
            Some(row) => {
                let _ = job.reply.send(Ok(row));
            }
            None => {
                let _ = job
                    .reply
                    .send(Err(Failure::of(&unexpected("(none)").into())));
            }
        }
    }
}

fn fail(batch: Vec<Job>, f: &Fault) {
    let failure = Failure::of(f);
    for job in batch {
        let _ = job.reply.send(Err(failure.clone()));
    }
}

/// The arguments of one `shoal_ledger_batch` call, one array per column.
#[derive(Default)]
struct BatchArgs<'a> {
    kind: Vec<&'static str>,
    request_id: Vec<&'a str>,
    account: Vec<Option<i64>>,
    credits: Vec<Option<i64>>,
    model: Vec<Option<&'a str>>,
    expires_at: Vec<Option<i64>>,
    input_tokens: Vec<i64>,
    output_tokens: Vec<i64>,
    reasoning_tokens: Vec<i64>,
    now: Vec<i64>,
    today: Vec<i64>,
    free_daily: Vec<Option<i64>>,
    key_id: Vec<Option<i64>>,
}

impl<'a> BatchArgs<'a> {
    fn of(jobs: &'a [Job]) -> BatchArgs<'a> {
        let mut args = BatchArgs::default();
        for job in jobs {
            args.now.push(job.now);
            args.today.push(money::utc_day(job.now));
            match &job.movement {
                Movement::Hold(req) => args.push_hold(req),
                Movement::End {
                    request_id,
                    kind,
                    charge,
                } => args.push_end(request_id, *kind, charge.as_ref()),
            }
        }
        args
    }

    fn push_hold(&mut self, req: &'a HoldRequest) {
        self.kind.push("hold");
        self.free_daily.push(Some(req.free_daily));
        self.key_id.push(req.key_id);
        self.request_id.push(&req.request_id);
        self.account.push(Some(req.account_id));
        self.credits.push(Some(req.credits));
        self.model.push(Some(&req.model));
        self.expires_at.push(Some(req.expires_at));
        self.input_tokens.push(0);
        self.output_tokens.push(0);
        self.reasoning_tokens.push(0);
    }

    fn push_end(&mut self, request_id: &'a str, kind: EndKind, charge: Option<&Charge>) {
        let settle = kind == EndKind::Settle;
        self.kind.push(if settle { "settle" } else { "void" });
        self.free_daily.push(None);
        self.key_id.push(None);
        self.request_id.push(request_id);
        self.account.push(None);
        // Void charges 0; a settle without usage (NULL) charges the whole hold.
        self.credits.push(if settle {
            charge.map(|c| c.credits)
        } else {
            Some(0)
        });
        self.model.push(None);
        self.expires_at.push(None);
        let tokens = charge.filter(|_| settle);
        self.input_tokens.push(tokens.map_or(0, |c| c.input_tokens));
        self.output_tokens
            .push(tokens.map_or(0, |c| c.output_tokens));
        self.reasoning_tokens
            .push(tokens.map_or(0, |c| c.reasoning_tokens));
    }
}

/// One call of `shoal_ledger_batch` for `jobs`: one transaction. Rows are `(index from 1,
/// outcome)`.
async fn call(conn: &mut PgConnection, jobs: &[Job]) -> DbResult<Vec<(usize, Done)>> {
    let a = BatchArgs::of(jobs);
    debug_assert_eq!(a.kind.len(), jobs.len());
    let rows = sqlx::query(BATCH)
        .bind(a.kind)
        .bind(a.request_id)
        .bind(a.account)
        .bind(a.credits)
        .bind(a.model)
        .bind(a.expires_at)
        .bind(a.input_tokens)
        .bind(a.output_tokens)
        .bind(a.reasoning_tokens)
        .bind(a.now)
        .bind(a.today)
        .bind(a.free_daily)
        .bind(a.key_id)
        .fetch_all(&mut *conn)
        .await?;
    rows.iter().map(batch_row).collect()
}

fn batch_row(r: &PgRow) -> DbResult<(usize, Done)> {
    let ord: i32 = r.try_get("r_ord")?;
    Ok((
        usize::try_from(ord).unwrap_or(0),
        Done {
            outcome: r.try_get("r_outcome")?,
            hold: r.try_get("r_hold")?,
            free: r.try_get("r_free")?,
            plan: r.try_get("r_plan")?,
            balance: r.try_get("r_balance")?,
            available: r.try_get("r_available")?,
            limit: r.try_get("r_limit")?,
            reset: r.try_get("r_reset")?,
        },
    ))
}

/// A hold refused by its key (a management key, or one whose limit has less than `needed`
/// left), from the single statement's row; `None` when the key allowed it.
fn key_refusal(row: &PgRow, needed: i64) -> DbResult<Option<Done>> {
    if row.try_get::<Option<bool>, _>("management")? == Some(true) {
        return Ok(Some(Done::outcome("management_key")));
    }
    let left: Option<i64> = row.try_get("key_left")?;
    Ok(left.filter(|left| *left < needed).map(|left| Done {
        available: Some(left.max(0)),
        limit: row.try_get("limit_credits").ok().flatten(),
        reset: row.try_get("limit_reset").ok().flatten(),
        ..Done::outcome("key_limit")
    }))
}
