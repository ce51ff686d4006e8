//! Randomized simulation of the ledger, replayable from a seed.
//!
//! Interleaves holds (API-key ones, and session ones that may spend the free daily credits
//! first; image holds of a fixed price, settled at exactly that price or voided), settles (random usage: missing, negative, over the hold), voids,
//! expiries by advancing time, deposits, plan changes, UTC day rollovers, lagging clocks,
//! duplicate and unknown request ids, and crashes (the `Store` is dropped and reopened from
//! the same file or database, active holds and all). After every step every account row
//! must agree with a small in-memory model (plan day and counter included), and one
//! account's `balance` in turn; `verify_ledger` must find nothing every `VERIFY_EVERY`
//! steps and at the end, after the last sweep.
//!
//! `SHOAL_SIM_SEED=N` replays one seed (`N,M,...`: several, at once); `SHOAL_SIM_STEPS=N`
//! changes the number of steps per seed. `bench/sim` runs fresh seeds for a number of steps
//! or minutes.

use std::collections::{BTreeMap, VecDeque};

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use shoal_store::{
    money, AccountId, Charge, HoldOutcome, HoldRequest, SettleOutcome, Store, StoreError,
};

use crate::both_backends;
use crate::harness::{Kind, TestDb};

both_backends!(simulation);

const DAY: i64 = 86_400_000;
const DEFAULT_SEEDS: [u64; 4] = [0x5EED_0001, 0x5EED_0002, 0x5EED_0003, 0x5EED_0004];
/// 4 × 5,000 = 20,000 steps per backend in the default test run.
const DEFAULT_STEPS: usize = 5_000;
const ACCOUNTS: usize = 3;
/// Most a lagging gateway's clock is behind, in ms.
const MAX_LAG: i64 = 2_000;
/// Steps between two full `verify_ledger` runs (it reads the whole journal, so running it
/// every step makes a run quadratic); it also runs at the end of every seed.
const VERIFY_EVERY: usize = 250;
/// What one image costs: the gateway holds it before dispatch and settles exactly it on
/// success (`gateway::images::render::IMAGE_CREDITS`).
const IMAGE_CREDITS: i64 = 10;

#[derive(Debug, Clone, Default)]
struct ModelAccount {
    id: AccountId,
    balance: i64,
    deposited: i64,
    spent: i64,
    daily: i64,
    plan_day: i64,
    plan_used: i64,
    free_day: i64,
    free_used: i64,
}

impl ModelAccount {
    fn plan_left(&self, today: i64) -> i64 {
        money::plan_left(self.daily, self.plan_day, self.plan_used, today)
    }

    fn free_left(&self, free_daily: i64, today: i64) -> i64 {
        money::plan_left(free_daily, self.free_day, self.free_used, today)
    }
}

#[derive(Debug, Clone)]
struct ModelHold {
    account: usize,
    credits: i64,
    expires_at: i64,
    active: bool,
    /// The free daily credits it may spend (0: an API-key request).
    free_daily: i64,
    /// An image request's hold: settled at its whole price, with no token counts.
    image: bool,
}

#[derive(Default)]
struct Model {
    accounts: Vec<ModelAccount>,
    holds: BTreeMap<String, ModelHold>,
}

impl Model {
    fn held(&self, account: usize) -> i64 {
        self.holds
            .values()
            .filter(|h| h.active && h.account == account)
            .map(|h| h.credits)
            .sum()
    }

    fn available(&self, account: usize, today: i64, free_daily: i64) -> i64 {
        let a = &self.accounts[account];
        money::available(
            a.free_left(free_daily, today),
            a.plan_left(today),
            a.balance,
            self.held(account),
        )
    }

    /// What ending a hold should do (and does, to the model).
    fn end(&mut self, id: &str, settle: bool, billed: Option<i64>, now: i64) -> SettleOutcome {
        let Some(h) = self.holds.get_mut(id) else {
            return SettleOutcome::UnknownHold;
        };
        if !h.active {
            return SettleOutcome::AlreadyEnded;
        }
        h.active = false;
        if h.expires_at <= now {
            return SettleOutcome::AlreadyEnded;
        }
        // The store must do exactly what the pure rules of `money` say.
        let hold = h.credits;
        let free_daily = h.free_daily;
        let charge = if settle {
            money::clamp_charge(billed, hold)
        } else {
            0
        };
        let today = money::utc_day(now);
        let a = &mut self.accounts[h.account];
        let spend = money::split_spend(
            charge,
            a.free_left(free_daily, today),
            a.plan_left(today),
            a.balance,
        );
        let (from_free, from_plan, from_balance) = (spend.free, spend.plan, spend.balance);
        (a.plan_day, a.plan_used) = money::plan_after(a.plan_day, a.plan_used, today, from_plan);
        (a.free_day, a.free_used) = money::plan_after(a.free_day, a.free_used, today, from_free);
        a.balance -= from_balance;
        a.spent += from_balance;
        let charged = from_free + from_plan + from_balance;
        SettleOutcome::Settled {
            charged,
            from_free,
            from_plan,
            from_balance,
            released: hold - charged,
        }
    }
}

struct Sim {
    seed: u64,
    step: usize,
    log: VecDeque<String>,
    /// How often each kind of event happened: a run that never reaches a path tests nothing.
    seen: BTreeMap<&'static str, u32>,
}

impl Sim {
    fn saw(&mut self, what: &'static str) {
        *self.seen.entry(what).or_default() += 1;
    }

    fn note(&mut self, s: String) {
        if self.log.len() == 30 {
            self.log.pop_front();
        }
        self.log.push_back(format!("step {}: {s}", self.step));
    }

    #[track_caller]
    fn fail(&self, what: String) -> ! {
        eprintln!("---- last operations (seed {}):", self.seed);
        for l in &self.log {
            eprintln!("  {l}");
        }
        panic!(
            "simulation failed at step {} with seed {seed}: {what}\n  replay: SHOAL_SIM_SEED={seed} cargo test -p shoal-store --test store simulation",
            self.step,
            seed = self.seed
        );
    }

    #[track_caller]
    fn eq<T: PartialEq + std::fmt::Debug>(&self, got: T, want: T, what: &str) {
        if got != want {
            self.fail(format!("{what}: store says {got:?}, model says {want:?}"));
        }
    }
}

fn seeds() -> (Vec<u64>, usize) {
    let steps = std::env::var("SHOAL_SIM_STEPS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(DEFAULT_STEPS);
    match std::env::var("SHOAL_SIM_SEED") {
        Ok(s) => (s.split(',').map(parse_seed).collect(), steps),
        Err(_) => (DEFAULT_SEEDS.to_vec(), steps),
    }
}

/// A seed in decimal or `0x` hex.
fn parse_seed(s: &str) -> u64 {
    let s = s.trim();
    match s.strip_prefix("0x") {
        Some(hex) => u64::from_str_radix(hex, 16),
        None => s.parse(),
    }
    .expect("SHOAL_SIM_SEED must be integers, separated by commas")
}

/// Paths every default run must reach.
const MUST_SEE: [&str; 18] = [
    "held",
    "held for a session",
    "settled from free",
    "insufficient",
    "duplicate",
    "settled from plan",
    "settled from balance",
    "settled at 0",
    "settled at the whole hold",
    "voided",
    "ended after expiry",
    "already ended",
    "unknown",
    "reaped",
    "crash",
    "new day",
    "image held",
    "image settled",
];

async fn simulation(db: TestDb) {
    let (seeds, steps) = seeds();
    let default_run = seeds == DEFAULT_SEEDS && steps == DEFAULT_STEPS;
    let started = std::time::Instant::now();
    // Seeds run at once, each on a database of its own (the first on `db`): a step is a few
    // round trips to the database, mostly waiting.
    let kind = db.kind;
    let mut dbs = vec![db];
    while dbs.len() < seeds.len() {
        dbs.push(TestDb::new(kind).await.expect("a database for each seed"));
    }
    let runs = dbs.iter().zip(&seeds).map(|(db, &seed)| async move {
        // What the simulation checks does not depend on commits surviving a power loss (its
        // crashes drop the store, not the server): PostgreSQL may skip the WAL flush.
        db.relax_durability().await;
        run_seed(db, seed, steps).await
    });
    let mut seen: BTreeMap<&'static str, u32> = BTreeMap::new();
    for run in futures::future::join_all(runs).await {
        for (k, n) in run {
            *seen.entry(k).or_default() += n;
        }
    }
    let secs = started.elapsed().as_secs_f64();
    let total = steps * seeds.len();
    eprintln!(
        "simulation ({kind:?}): {} seeds x {steps} steps = {total} steps in {secs:.1} s ({:.0} steps/s); reached: {seen:?}",
        seeds.len(),
        total as f64 / secs
    );
    if default_run {
        for what in MUST_SEE {
            let n = seen.get(what).copied().unwrap_or(0);
            assert!(n > 0, "the simulation never reached {what:?}");
        }
    }
}

async fn run_seed(db: &TestDb, seed: u64, steps: usize) -> BTreeMap<&'static str, u32> {
    let mut rng = StdRng::seed_from_u64(seed);
    let mut sim = Sim {
        seed,
        step: 0,
        log: VecDeque::new(),
        seen: BTreeMap::new(),
    };
    let mut store = db.open().await;
    let mut model = Model::default();
    // Start a few hours before a UTC midnight so that days roll over during the run.
    let mut now: i64 = 20_000 * DAY + DAY - rng.random_range(1..6 * 3_600_000);
    for i in 0..ACCOUNTS {
        let id = store
            .create_account(&format!("sim-{seed:x}-{i}@example.com"), now)
            .await
            .unwrap();
        model.accounts.push(ModelAccount {
            id,
            ..ModelAccount::default()
        });
    }
    let mut next_request = 0u64;
    let mut rows = RowReader::open(db).await;
    let mut chain = crate::sim_deposits::DepositModel::default();

    for step in 0..steps {
        sim.step = step;
        // Now and then a request lands on a gateway whose clock lags by up to 2 s.
        let op_now = if rng.random_bool(0.15) {
            now - rng.random_range(0..MAX_LAG)
        } else {
            now
        };
        let today = op_now.div_euclid(DAY);
        let roll = rng.random_range(0..100);
        match roll {
            0..=29 => {
                let acc = rng.random_range(0..ACCOUNTS);
                let image = rng.random_bool(0.15);
                let credits = if image {
                    IMAGE_CREDITS
                } else {
                    rng.random_range(1..=60)
                };
                let duplicate = rng.random_bool(0.05) && !model.holds.is_empty();
                let id = if duplicate {
                    let n = rng.random_range(0..model.holds.len());
                    model.holds.keys().nth(n).unwrap().clone()
                } else {
                    next_request += 1;
                    format!("sim-{seed:x}-{next_request}")
                };
                let ttl = rng.random_range(1_000..=120_000);
                // Half the requests come from the dashboard's session, with the operator's
                // free daily amount of the moment (it may be changed between requests).
                let payer = if rng.random_bool(0.5) {
                    money::Payer::Session
                } else {
                    money::Payer::ApiKey
                };
                let free_daily = money::free_allowance(payer, rng.random_range(0..=50));
                // A key request names one of a few keys; `verify_ledger` checks the usage
                // rollup by key against the journal.
                let key_id = (payer == money::Payer::ApiKey).then(|| rng.random_range(1..=3));
                let req = HoldRequest {
                    request_id: id.clone(),
                    account_id: model.accounts[acc].id,
                    credits,
                    model: if image { "image" } else { "service-pro" }.into(),
                    expires_at: op_now + ttl,
                    free_daily,
                    key_id,
                };
                sim.note(format!(
                    "hold {id} acc{acc} {credits} free {free_daily} ttl {ttl} image {image} at {op_now}"
                ));
                let available = model.available(acc, today, free_daily);
                let got = store.hold(&req, op_now).await;
                if available >= credits {
                    if duplicate {
                        if !matches!(got, Err(StoreError::Conflict(_))) {
                            sim.fail(format!("duplicate hold {id}: {got:?}"));
                        }
                        sim.saw("duplicate");
                    } else {
                        sim.eq(got.unwrap(), HoldOutcome::Held, "hold");
                        sim.saw("held");
                        if free_daily > 0 {
                            sim.saw("held for a session");
                        }
                        if image {
                            sim.saw("image held");
                        }
                        model.holds.insert(
                            id,
                            ModelHold {
                                account: acc,
                                credits,
                                expires_at: req.expires_at,
                                active: true,
                                free_daily,
                                image,
                            },
                        );
                    }
                } else {
                    let want = HoldOutcome::Insufficient {
                        needed: credits,
                        available: available.max(0),
                    };
                    match got {
                        Ok(got) => sim.eq(got, want, "insufficient hold"),
                        Err(e) => sim.fail(format!("hold: {e}")),
                    }
                    sim.saw("insufficient");
                }
            }
            30..=56 => {
                let id = pick_request(&mut rng, &model, seed);
                let image = model.holds.get(&id).is_some_and(|h| h.image);
                let charge = if image {
                    Some(image_charge())
                } else {
                    random_charge(&mut rng)
                };
                let billed = charge.as_ref().map(|c| c.credits);
                sim.note(format!("settle {id} {billed:?} at {op_now}"));
                let before = model.holds.get(&id).cloned();
                let want = model.end(&id, true, billed, op_now);
                let got = store.settle(&id, charge.as_ref(), op_now).await.unwrap();
                sim.eq(got.clone(), want, "settle");
                match (&got, before) {
                    (
                        SettleOutcome::Settled {
                            charged,
                            from_free,
                            from_plan,
                            from_balance,
                            released,
                        },
                        before,
                    ) => {
                        if *from_free > 0 {
                            sim.saw("settled from free");
                            // Rule 5 of the spec, whatever the model says.
                            if before.is_some_and(|h| h.free_daily == 0) {
                                sim.fail(format!("API-key request {id} spent free credits"));
                            }
                        }
                        if *from_plan > 0 {
                            sim.saw("settled from plan");
                        }
                        if *from_balance > 0 {
                            sim.saw("settled from balance");
                        }
                        if *charged == 0 {
                            sim.saw("settled at 0");
                        }
                        if *released == 0 {
                            sim.saw("settled at the whole hold");
                        }
                        if image {
                            sim.saw("image settled");
                            // Less than the price only when the account no longer covers it
                            // (its plan lowered since the hold): the model says the same.
                            if *charged > IMAGE_CREDITS {
                                sim.fail(format!("image {id} charged {charged}"));
                            }
                        }
                    }
                    (SettleOutcome::AlreadyEnded, Some(h)) if h.active => {
                        sim.saw("ended after expiry")
                    }
                    (SettleOutcome::AlreadyEnded, _) => sim.saw("already ended"),
                    (SettleOutcome::UnknownHold, _) => sim.saw("unknown"),
                }
            }
            57..=63 => {
                let id = pick_request(&mut rng, &model, seed);
                sim.note(format!("void {id} at {op_now}"));
                let want = model.end(&id, false, None, op_now);
                let got = store.void(&id, op_now).await.unwrap();
                if matches!(got, SettleOutcome::Settled { .. }) {
                    sim.saw("voided");
                }
                sim.eq(got, want, "void");
            }
            64..=75 => {
                let by = rng.random_range(0..3_000);
                now += by;
                sim.note(format!("advance {by} ms"));
            }
            76..=79 => {
                let by = rng.random_range(30_000..180_000);
                now += by;
                sim.note(format!("advance {by} ms"));
            }
            80..=81 => {
                // To just before or just after the next 00:00 UTC.
                let midnight = (now.div_euclid(DAY) + 1) * DAY;
                now = midnight + rng.random_range(-3..=3);
                sim.note(format!("advance to {now} (midnight {midnight})"));
                if now >= midnight {
                    sim.saw("new day");
                }
            }
            82..=87 => {
                sim.note(format!("expire at {now}"));
                let mut want = 0u64;
                for h in model.holds.values_mut() {
                    if h.active && h.expires_at <= now {
                        h.active = false;
                        want += 1;
                    }
                }
                let got = store.expire_holds(now).await.unwrap();
                sim.eq(got, want, "expired holds");
                if got > 0 {
                    sim.saw("reaped");
                }
            }
            88..=89 => {
                let acc = rng.random_range(0..ACCOUNTS);
                let id = model.accounts[acc].id;
                let (what, got, want) = chain.step(&mut rng, &store, acc, id, op_now).await;
                sim.note(what);
                sim.eq(got, want, "chain deposit");
                if let shoal_store::deposits::DepositOutcome::Credited { credits } = got {
                    sim.saw("chain deposit");
                    model.accounts[acc].balance += credits;
                    model.accounts[acc].deposited += credits;
                }
                if !chain.check_remainder(&store, acc, id).await {
                    sim.fail(format!("acc{acc}: the carried fraction differs"));
                }
            }
            90..=92 => {
                let acc = rng.random_range(0..ACCOUNTS);
                let credits = rng.random_range(1..=300);
                sim.note(format!("deposit acc{acc} {credits}"));
                let a = &mut model.accounts[acc];
                a.balance += credits;
                a.deposited += credits;
                let got = store.grant_credits(a.id, credits, op_now).await.unwrap();
                sim.eq(got, a.balance, "balance after deposit");
            }
            93..=96 => {
                let acc = rng.random_range(0..ACCOUNTS);
                let daily = if rng.random_bool(0.3) {
                    0
                } else {
                    rng.random_range(1..=80)
                };
                sim.note(format!("plan acc{acc} {daily}"));
                model.accounts[acc].daily = daily;
                store
                    .set_plan(model.accounts[acc].id, daily, op_now)
                    .await
                    .unwrap();
            }
            _ => {
                sim.note("crash and reopen".into());
                sim.saw("crash");
                drop(store);
                store = db.open().await;
            }
        }

        // The accounts' rows after every step, and one account's balance in turn; the
        // whole ledger every VERIFY_EVERY steps.
        check_rows(&sim, &mut rows, &model).await;
        check_balances(&sim, &store, &model, now, &[step % ACCOUNTS]).await;
        if step % VERIFY_EVERY == VERIFY_EVERY - 1 {
            verify(&sim, &store).await;
        }
    }

    // The end: every hold still active is released by a last sweep, and every account is
    // whole: deposited - spent = balance, nothing held.
    sim.step = steps;
    check_rows(&sim, &mut rows, &model).await;
    let all: Vec<usize> = (0..ACCOUNTS).collect();
    check_balances(&sim, &store, &model, now, &all).await;
    verify(&sim, &store).await;
    let active = model.holds.values().filter(|h| h.active).count() as u64;
    sim.eq(
        store.expire_holds(i64::MAX).await.unwrap(),
        active,
        "final sweep",
    );
    for (i, a) in model.accounts.iter().enumerate() {
        let b = store.balance(a.id, now).await.unwrap();
        sim.eq(
            (b.credits, b.credits_held, b.total_deposited - b.total_spent),
            (a.balance, 0, a.balance),
            &format!("acc{i} at the end"),
        );
    }
    verify(&sim, &store).await;
    store.close().await;
    sim.seen
}

/// The accounts' rows, read behind the store's back on a connection of the test's own: one
/// round trip for every account, and the plan's day and counter too, which `balance` only
/// shows through the plan credits left on the day asked about.
enum RowReader {
    Sqlite(sqlx::SqliteConnection),
    Postgres(sqlx::PgConnection),
}

/// (id, credits, held, deposited, spent, plan daily, plan day, plan used, free day, free used)
type AccountRow = (i64, i64, i64, i64, i64, i64, i64, i64, i64, i64);

const ACCOUNT_ROWS: &str = "SELECT id, credits, held, total_deposited, total_spent,
        plan_daily_credits, plan_day, plan_used, free_day, free_used
        FROM accounts WHERE id >= $1 ORDER BY id";

impl RowReader {
    async fn open(db: &TestDb) -> RowReader {
        use sqlx::Connection;
        match db.kind {
            Kind::Sqlite => {
                RowReader::Sqlite(sqlx::SqliteConnection::connect(&db.url()).await.unwrap())
            }
            Kind::Postgres => {
                RowReader::Postgres(sqlx::PgConnection::connect(&db.url()).await.unwrap())
            }
        }
    }

    /// The rows of accounts `first` and after (earlier seeds' accounts are before it).
    async fn accounts(&mut self, first: AccountId) -> Vec<AccountRow> {
        match self {
            RowReader::Sqlite(c) => sqlx::query_as(ACCOUNT_ROWS).bind(first).fetch_all(c).await,
            RowReader::Postgres(c) => sqlx::query_as(ACCOUNT_ROWS).bind(first).fetch_all(c).await,
        }
        .unwrap()
    }
}

/// Every account's row against the model, exactly.
async fn check_rows(sim: &Sim, rows: &mut RowReader, model: &Model) {
    let got = rows.accounts(model.accounts[0].id).await;
    let want: Vec<AccountRow> = model
        .accounts
        .iter()
        .enumerate()
        .map(|(i, a)| {
            (
                a.id,
                a.balance,
                model.held(i),
                a.deposited,
                a.spent,
                a.daily,
                a.plan_day,
                a.plan_used,
                a.free_day,
                a.free_used,
            )
        })
        .collect();
    sim.eq(
        got,
        want,
        "accounts (id, credits, held, deposited, spent, plan daily, plan day, plan used, \
         free day, free used)",
    );
}

/// Accounts as `Store::balance` reports them, against the model: as of `now`, and as of the
/// lagging clocks' earliest `now` when that is the day before.
async fn check_balances(sim: &Sim, store: &Store, model: &Model, now: i64, which: &[usize]) {
    let today = now.div_euclid(DAY);
    let lag_day = (now - MAX_LAG).div_euclid(DAY);
    for &i in which {
        let a = &model.accounts[i];
        if lag_day != today {
            let b = store.balance(a.id, now - MAX_LAG).await.unwrap();
            sim.eq(
                b.daily_credits_left,
                a.plan_left(lag_day),
                &format!("acc{i} plan left on the lagging clock's day"),
            );
        }
        let b = store.balance(a.id, now).await.unwrap();
        let got = (b.credits, b.credits_held, b.total_deposited, b.total_spent);
        let want = (a.balance, model.held(i), a.deposited, a.spent);
        sim.eq(
            got,
            want,
            &format!("acc{i} (credits, held, deposited, spent)"),
        );
        sim.eq(
            (b.plan_daily_credits, b.daily_credits_left),
            (a.daily, a.plan_left(today)),
            &format!("acc{i} (plan daily, plan left)"),
        );
        sim.eq(
            b.free_used_today,
            money::used_on(a.free_day, a.free_used, today),
            &format!("acc{i} free credits used today"),
        );
        if b.credits < 0 || b.credits != b.total_deposited - b.total_spent {
            sim.fail(format!("acc{i}: broken balance {b:?}"));
        }
    }
}

async fn verify(sim: &Sim, store: &Store) {
    let report = store.verify_ledger().await.unwrap();
    if !report.discrepancies.is_empty() {
        sim.fail(format!("verify_ledger: {:#?}", report.discrepancies));
    }
}

/// A request id to end: mostly known ones (active first), sometimes an unknown one.
/// A chat request's usage: missing, negative, over any hold, or within it.
fn random_charge(rng: &mut StdRng) -> Option<Charge> {
    let billed = match rng.random_range(0..10) {
        0 => None,
        1 => Some(-rng.random_range(1..50)),
        2 => Some(rng.random_range(60..200)),
        _ => Some(rng.random_range(0..=60)),
    };
    billed.map(|credits| Charge {
        input_tokens: rng.random_range(0..100_000),
        output_tokens: rng.random_range(0..10_000),
        reasoning_tokens: rng.random_range(0..1_000),
        credits,
    })
}

/// What the gateway settles an image with: the price, no tokens.
fn image_charge() -> Charge {
    Charge {
        input_tokens: 0,
        output_tokens: 0,
        reasoning_tokens: 0,
        credits: IMAGE_CREDITS,
    }
}

fn pick_request(rng: &mut StdRng, model: &Model, seed: u64) -> String {
    if model.holds.is_empty() || rng.random_bool(0.05) {
        return format!("sim-{seed:x}-unknown-{}", rng.random_range(0..1_000));
    }
    let active: Vec<&String> = model
        .holds
        .iter()
        .filter(|(_, h)| h.active)
        .map(|(k, _)| k)
        .collect();
    if !active.is_empty() && rng.random_bool(0.8) {
        return active[rng.random_range(0..active.len())].clone();
    }
    let n = rng.random_range(0..model.holds.len());
    model.holds.keys().nth(n).unwrap().clone()
}
