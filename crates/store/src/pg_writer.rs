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
//! (`HOLD`, `END`): same rules, half the database time of a call for one job.
//!
//! The function never raises an error for an outcome (duplicate request id, unknown
//! account, insufficient credit), so a job cannot abort its neighbours. Every ledger
//! transaction locks the account before the hold, and a batch takes its accounts in id
//! order, so that batches of different connections or gateways take row locks in the same
//! order. Should a batch still fail inside the database (a deadlock with a reaper, say),
//! nothing of it was committed and its jobs are run again one by one.
//!
//! Jobs run to completion even if whoever asked stops waiting: once queued, a writer owns
//! them.

use std::sync::Arc;

use sqlx::postgres::{PgConnectOptions, PgConnection};
use sqlx::{ConnectOptions, Connection, Row};
use tokio::sync::{mpsc, oneshot, watch};

use crate::ledger::{self, EndKind};
use crate::{money, Charge, HoldOutcome, HoldRequest, Millis, Result, SettleOutcome, StoreError};

/// Connections committing batches at once. One measured best (bench/ledger): with more, the
/// jobs waiting are split into smaller batches, so more commits, and on a busy account the
/// batches only queue behind each other's row lock and flush. More writers would overlap
/// one batch's flush with the next one's work on other accounts; the code allows any
/// number (batches lock accounts in id order).
const WRITERS: usize = 1;
/// Most jobs in one batch.
const MAX_BATCH: usize = 128;
/// Jobs waiting beyond this make senders wait.
const QUEUE: usize = 4096;

const BATCH: &str = "SELECT r_ord, r_outcome, r_hold, r_plan, r_balance, r_available, r_free
       FROM shoal_ledger_batch($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)";

// A job alone in the queue (low load) is one statement instead: a call of the function for
// one job costs about twice the database time of these (an executor start-up for each
// statement inside it), which a batch shares out and a single job cannot.

/// Available credit for new holds: free credits left within the allowance (`$FREE`) + plan
/// credits left today (`$DAY`) + balance − holds. The rules are SQL functions of the
/// migrations (`shoal_available_free` and its neighbours), shared with `shoal_ledger_batch`.
macro_rules! available_sql {
    ($free:literal, $day:literal) => {
        concat!(
            "shoal_available_free(",
            $free,
            ", free_day, free_used, plan_daily_credits, plan_day, plan_used, credits, held, ",
            $day,
            ")"
        )
    };
}

/// $1 account, $2 credits, $3 today, $4 request id, $5 model, $6 now, $7 expires at, $8 free
/// allowance, $9 key id. A duplicate request id fails the statement (unique violation): nothing is
/// written.
const HOLD: &str = concat!(
    "WITH a AS (
        UPDATE accounts SET held = held + $2
         WHERE id = $1 AND ",
    available_sql!("$8", "$3"),
    " >= $2
         RETURNING id
     ), h AS (
        INSERT INTO holds (request_id, account_id, credits, model, created_at, expires_at,
                           free_daily, key_id)
        SELECT $4, id, $2, $5, $6, $7, $8, $9 FROM a
     ), j AS (
        INSERT INTO journal (at, kind, account_id, request_id, model, credits, key_id)
        SELECT $6, 'hold', id, $4, $5, $2, $9 FROM a
     )
     SELECT count(*) AS admitted FROM a"
);

/// $1 account, $2 today, $3 free allowance.
const AVAILABLE: &str = concat!(
    "SELECT ",
    available_sql!("$3", "$2"),
    " AS available FROM accounts WHERE id = $1"
);

/// Attempts at a hold whose conditional write failed while a fresh read says it fits
/// (credit freed by a concurrent settle between the two).
const HOLD_ATTEMPTS: usize = 3;

/// Ends a hold: $1 request id, $2 now, $3 today, $4 'settle' or 'void', $5 billed credits
/// (NULL: usage missing), $6-$8 input/output/reasoning tokens. Same rules as the function.
/// Settle rows also add to `usage_daily` (a trigger of the migrations).
/// Locks the account, then the hold (`h` cannot lock its row before `a` is evaluated: it
/// filters on it). No row: no active hold with that id.
const END: &str = "WITH o AS (
    SELECT account_id FROM holds WHERE request_id = $1
 ), a AS MATERIALIZED (
    SELECT id, plan_day, plan_used, free_day, free_used,
           shoal_plan_left(plan_daily_credits, plan_day, plan_used, $3) AS plan_left,
           credits AS balance
      FROM accounts WHERE id = (SELECT account_id FROM o)
       FOR UPDATE
 ), h AS MATERIALIZED (
    SELECT request_id, account_id, credits, model, expires_at <= $2 AS expired, free_daily,
           key_id
      FROM holds
     WHERE request_id = $1 AND state = 'active' AND EXISTS (SELECT 1 FROM a)
       FOR UPDATE
 ), c AS (
    SELECT h.account_id, h.credits AS hold, h.model, h.key_id,
           CASE WHEN h.expired THEN 'expire' ELSE $4::TEXT END AS kind,
           shoal_charge($4::TEXT = 'settle', h.expired, $5::BIGINT, h.credits) AS charge,
           a.plan_day, a.plan_used, a.plan_left, a.balance, a.free_day, a.free_used,
           shoal_plan_left(h.free_daily, a.free_day, a.free_used, $3) AS free_left
      FROM h JOIN a ON a.id = h.account_id
 ), f AS (
    SELECT c.*, shoal_from_free(c.charge, c.free_left) AS from_free FROM c
 ), p AS (
    SELECT f.*, shoal_from_plan(f.charge - f.from_free, f.plan_left) AS from_plan,
           shoal_from_balance(f.charge - f.from_free, f.plan_left, f.balance) AS from_balance
      FROM f
 ), s AS (
    SELECT p.*, shoal_plan_day_after(p.plan_day, $3, p.from_plan) AS day,
           shoal_plan_used_after(p.plan_day, p.plan_used, $3, p.from_plan) AS used,
           shoal_plan_day_after(p.free_day, $3, p.from_free) AS fday,
           shoal_plan_used_after(p.free_day, p.free_used, $3, p.from_free) AS fused
      FROM p
 ), uh AS (
    UPDATE holds SET state = CASE s.kind WHEN 'settle' THEN 'settled'
                                         WHEN 'void' THEN 'voided'
                                         ELSE 'expired' END,
                     ended_at = $2,
                     charged_plan = s.from_plan,
                     charged_balance = s.from_balance,
                     charged_free = s.from_free
      FROM s WHERE holds.request_id = $1
 ), ua AS (
    UPDATE accounts SET held = accounts.held - s.hold,
                        credits = accounts.credits - s.from_balance,
                        total_spent = accounts.total_spent + s.from_balance,
                        plan_used = s.used,
                        plan_day = s.day,
                        free_used = s.fused,
                        free_day = s.fday
      FROM s WHERE accounts.id = s.account_id
 ), j AS (
    INSERT INTO journal (at, kind, account_id, request_id, model, input_tokens,
                         output_tokens, reasoning_tokens, credits, bucket, plan_day, key_id)
    SELECT $2, s.kind, s.account_id, $1, s.model,
           CASE WHEN s.kind = 'settle' THEN $6::BIGINT ELSE 0 END,
           CASE WHEN s.kind = 'settle' THEN $7::BIGINT ELSE 0 END,
           CASE WHEN s.kind = 'settle' THEN $8::BIGINT ELSE 0 END,
           s.from_balance,
           CASE WHEN s.kind = 'settle' THEN 'balance' END, NULL::BIGINT, s.key_id
      FROM s
    UNION ALL
    SELECT $2, 'settle', s.account_id, $1, s.model, 0, 0, 0, s.from_plan, 'plan', s.day,
           s.key_id
      FROM s WHERE s.from_plan > 0
    UNION ALL
    SELECT $2, 'settle', s.account_id, $1, s.model, 0, 0, 0, s.from_free, 'free', s.fday,
           s.key_id
      FROM s WHERE s.from_free > 0
 )
 SELECT kind, hold, from_free, from_plan, from_balance FROM s";

enum Movement {
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
    reply: oneshot::Sender<Result<Done>>,
}

/// What a job did: one row of `shoal_ledger_batch`.
struct Done {
    outcome: String,
    hold: Option<i64>,
    free: Option<i64>,
    plan: Option<i64>,
    balance: Option<i64>,
    available: Option<i64>,
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
        }
    }
}

struct Shared {
    rx: tokio::sync::Mutex<mpsc::Receiver<Job>>,
    closing: watch::Sender<bool>,
    tasks: std::sync::Mutex<Vec<tokio::task::JoinHandle<()>>>,
}

/// Handle to the writer tasks. Cheap to clone; they end when the last handle is dropped or
/// on [`Writers::close`].
#[derive(Clone)]
pub(crate) struct Writers {
    tx: mpsc::Sender<Job>,
    shared: Arc<Shared>,
}

fn closed() -> StoreError {
    StoreError::Database(sqlx::Error::PoolClosed)
}

impl Writers {
    /// Start the writer tasks; each connects with `options` at once, and again after its
    /// connection broke.
    pub(crate) fn start(options: PgConnectOptions) -> Writers {
        let (tx, rx) = mpsc::channel(QUEUE);
        let shared = Arc::new(Shared {
            rx: tokio::sync::Mutex::new(rx),
            closing: watch::channel(false).0,
            tasks: std::sync::Mutex::new(Vec::new()),
        });
        let tasks = (0..WRITERS)
            .map(|_| tokio::spawn(writer(shared.clone(), options.clone())))
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

    async fn run(&self, movement: Movement, now: Millis) -> Result<Done> {
        let (reply, rx) = oneshot::channel();
        self.tx
            .send(Job {
                movement,
                now,
                reply,
            })
            .await
            .map_err(|_| closed())?;
        rx.await.map_err(|_| closed())?
    }

    pub(crate) async fn hold(&self, req: &HoldRequest, now: Millis) -> Result<HoldOutcome> {
        let needed = req.credits;
        let done = self.run(Movement::Hold(req.clone()), now).await?;
        match done.outcome.as_str() {
            "held" => Ok(HoldOutcome::Held),
            "insufficient" => Ok(HoldOutcome::Insufficient {
                needed,
                available: done.available.unwrap_or(0),
            }),
            "duplicate" => Err(StoreError::Conflict(
                "a hold with this request id already exists".into(),
            )),
            "no_account" => Err(StoreError::NotFound("account")),
            other => Err(unexpected(other)),
        }
    }

    pub(crate) async fn end_hold(
        &self,
        request_id: &str,
        kind: EndKind,
        charge: Option<&Charge>,
        now: Millis,
    ) -> Result<SettleOutcome> {
        let movement = Movement::End {
            request_id: request_id.to_string(),
            kind,
            charge: charge.cloned(),
        };
        let done = self.run(movement, now).await?;
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
}

fn unexpected(outcome: &str) -> StoreError {
    StoreError::Database(sqlx::Error::Protocol(format!(
        "unexpected ledger outcome {outcome:?}"
    )))
}

async fn writer(shared: Arc<Shared>, options: PgConnectOptions) {
    let mut closing = shared.closing.subscribe();
    // Connect now rather than on the first batch (a failure is retried then).
    let mut conn: Option<PgConnection> = options.connect().await.ok();
    loop {
        let batch = {
            let mut rx = shared.rx.lock().await;
            let first = if *closing.borrow() {
                rx.try_recv().ok()
            } else {
                tokio::select! {
                    job = rx.recv() => job,
                    _ = closing.changed() => rx.try_recv().ok(),
                }
            };
            let Some(first) = first else { break };
            let mut batch = vec![first];
            while batch.len() < MAX_BATCH {
                match rx.try_recv() {
                    Ok(job) => batch.push(job),
                    Err(_) => break,
                }
            }
            batch
        };
        run_batch(&options, &mut conn, batch).await;
    }
    if let Some(conn) = conn {
        let _ = conn.close().await;
    }
}

async fn run_batch(options: &PgConnectOptions, conn: &mut Option<PgConnection>, batch: Vec<Job>) {
    if batch.len() == 1 {
        return run_alone(options, conn, batch).await;
    }
    match call(options, conn, &batch).await {
        Ok(rows) => deliver(batch, rows),
        // Failed inside the database: the transaction rolled back, nothing of the batch was
        // committed. Each job again on its own, so that one cannot fail the others.
        Err(sqlx::Error::Database(_)) => {
            for job in batch {
                run_alone(options, conn, vec![job]).await;
            }
        }
        Err(e) => fail(batch, e),
    }
}

/// One job, as its own statement(s) and transaction.
async fn run_alone(options: &PgConnectOptions, conn: &mut Option<PgConnection>, job: Vec<Job>) {
    let result = async {
        if conn.is_none() {
            *conn = Some(options.connect().await?);
        }
        let c = conn.as_mut().expect("connected");
        let result = match &job[0].movement {
            Movement::Hold(req) => hold_alone(c, req, job[0].now).await,
            Movement::End {
                request_id,
                kind,
                charge,
            } => end_alone(c, request_id, *kind, charge.as_ref(), job[0].now).await,
        };
        if matches!(&result, Err(e) if !matches!(e, sqlx::Error::Database(_))) {
            *conn = None;
        }
        result
    }
    .await;
    match result {
        Ok(done) => deliver(job, vec![(1, done)]),
        Err(e) => fail(job, e),
    }
}

async fn hold_alone(
    conn: &mut PgConnection,
    req: &HoldRequest,
    now: Millis,
) -> std::result::Result<Done, sqlx::Error> {
    let today = money::utc_day(now);
    let mut attempt = 0;
    loop {
        attempt += 1;
        let admitted = sqlx::query(HOLD)
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
            .await;
        let admitted: i64 = match admitted {
            Ok(row) => row.try_get("admitted")?,
            Err(e) if ledger::is_unique_violation(&e) => return Ok(Done::outcome("duplicate")),
            Err(e) => return Err(e),
        };
        if admitted == 1 {
            return Ok(Done::outcome("held"));
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
) -> std::result::Result<Done, sqlx::Error> {
    let billed = match kind {
        EndKind::Settle => charge.map(|c| c.credits),
        EndKind::Void | EndKind::Expire => Some(0),
    };
    let tokens = charge
        .filter(|_| kind == EndKind::Settle)
        .cloned()
        .unwrap_or_default();
    let row = sqlx::query(END)
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

fn deliver(batch: Vec<Job>, rows: Vec<(usize, Done)>) {
    let mut done: Vec<Option<Done>> = batch.iter().map(|_| None).collect();
    for (ord, row) in rows {
        if let Some(slot) = ord.checked_sub(1).and_then(|i| done.get_mut(i)) {
            *slot = Some(row);
        }
    }
    for (job, row) in batch.into_iter().zip(done) {
        let _ = job.reply.send(row.ok_or_else(|| unexpected("(none)")));
    }
}

fn fail(batch: Vec<Job>, e: sqlx::Error) {
    let msg = e.to_string();
    let mut e = Some(e);
    for job in batch {
        // The first job gets the error itself, the others its text.
        let err = match e.take() {
            Some(e) => StoreError::Database(e),
            None => StoreError::Database(sqlx::Error::Protocol(msg.clone())),
        };
        let _ = job.reply.send(Err(err));
    }
}

/// One call of `shoal_ledger_batch` for `jobs`: one transaction. Rows are `(index from 1,
/// outcome)`.
async fn call(
    options: &PgConnectOptions,
    conn: &mut Option<PgConnection>,
    jobs: &[Job],
) -> std::result::Result<Vec<(usize, Done)>, sqlx::Error> {
    let n = jobs.len();
    let mut kind = Vec::with_capacity(n);
    let mut request_id = Vec::with_capacity(n);
    let mut account = Vec::with_capacity(n);
    let mut credits = Vec::with_capacity(n);
    let mut model = Vec::with_capacity(n);
    let mut expires_at = Vec::with_capacity(n);
    let mut input_tokens = Vec::with_capacity(n);
    let mut output_tokens = Vec::with_capacity(n);
    let mut reasoning_tokens = Vec::with_capacity(n);
    let mut now = Vec::with_capacity(n);
    let mut today = Vec::with_capacity(n);
    let mut free_daily = Vec::with_capacity(n);
    let mut key_id = Vec::with_capacity(n);
    for job in jobs {
        now.push(job.now);
        today.push(money::utc_day(job.now));
        match &job.movement {
            Movement::Hold(req) => {
                kind.push("hold");
                free_daily.push(Some(req.free_daily));
                key_id.push(req.key_id);
                request_id.push(req.request_id.as_str());
                account.push(Some(req.account_id));
                credits.push(Some(req.credits));
                model.push(Some(req.model.as_str()));
                expires_at.push(Some(req.expires_at));
                input_tokens.push(0);
                output_tokens.push(0);
                reasoning_tokens.push(0);
            }
            Movement::End {
                request_id: id,
                kind: end,
                charge,
            } => {
                let settle = *end == EndKind::Settle;
                kind.push(if settle { "settle" } else { "void" });
                free_daily.push(None);
                key_id.push(None);
                request_id.push(id.as_str());
                account.push(None);
                // Void charges 0; a settle without usage (NULL) charges the whole hold.
                credits.push(if settle {
                    charge.as_ref().map(|c| c.credits)
                } else {
                    Some(0)
                });
                model.push(None);
                expires_at.push(None);
                let tokens = charge.as_ref().filter(|_| settle);
                input_tokens.push(tokens.map_or(0, |c| c.input_tokens));
                output_tokens.push(tokens.map_or(0, |c| c.output_tokens));
                reasoning_tokens.push(tokens.map_or(0, |c| c.reasoning_tokens));
            }
        }
    }
    if conn.is_none() {
        *conn = Some(options.connect().await?);
    }
    let c = conn.as_mut().expect("connected");
    let result = sqlx::query(BATCH)
        .bind(kind)
        .bind(request_id)
        .bind(account)
        .bind(credits)
        .bind(model)
        .bind(expires_at)
        .bind(input_tokens)
        .bind(output_tokens)
        .bind(reasoning_tokens)
        .bind(now)
        .bind(today)
        .bind(free_daily)
        .bind(key_id)
        .fetch_all(&mut *c)
        .await;
    let rows = match result {
        Ok(rows) => rows,
        Err(e) => {
            if !matches!(e, sqlx::Error::Database(_)) {
                // The connection may be unusable (and whether the batch committed is
                // unknown): the next batch opens a new one.
                *conn = None;
            }
            return Err(e);
        }
    };
    rows.iter()
        .map(|r| {
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
                },
            ))
        })
        .collect()
}
