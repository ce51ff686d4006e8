//! Randomized simulation of the ledger, replayable from a seed.
//!
//! Interleaves holds (API-key ones, through keys with and without spending limits that reset
//! daily, weekly, monthly or never; session ones that may spend the free daily credits
//! first; image holds of a fixed price, settled at exactly that price or voided), settles
//! (random usage: missing, negative, over the hold), voids,
//! expiries by advancing time, deposits, plan changes, UTC day rollovers, lagging clocks,
//! duplicate and unknown request ids, and crashes (the `Store` is dropped and reopened from
//! the same file or database, active holds and all). After every step every account row
//! must agree with a small in-memory model (plan day and counter included), every key's limit
//! counters too, and one account's `balance` in turn; no key's window ever counts more than
//! its limit; `verify_ledger` must find nothing every `VERIFY_EVERY` steps and at the end,
//! after the last sweep.
//!
//! `SHOAL_SIM_SEED=N` replays one seed (`N,M,...`: several, at once); `SHOAL_SIM_STEPS=N`
//! changes the number of steps per seed. `bench/sim` runs fresh seeds for a number of steps
//! or minutes.

use std::collections::{BTreeMap, VecDeque};

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use shoal_store::money::LimitReset;
use shoal_store::{
    money, AccountId, Charge, HoldOutcome, HoldRequest, KeyLimit, NewKey, SettleOutcome, Store,
    StoreError,
};

use crate::both_backends;
use crate::harness::{Kind, TestDb};
use crate::sim_model::{Model, ModelAccount, ModelHold, ModelKey, DAY};

both_backends!(simulation);

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
const MUST_SEE: [&str; 21] = [
    "key limit refused",
    "settled under a key limit",
    "key window reset",
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

/// One seed's run: the store, the model, and where the run is.
struct Run<'a> {
    db: &'a TestDb,
    seed: u64,
    rng: StdRng,
    sim: Sim,
    store: Store,
    model: Model,
    /// The run's clock; an operation may see it lag (`op_now`).
    now: i64,
    next_request: u64,
    rows: RowReader,
    chain: crate::sim_deposits::DepositModel,
}

async fn run_seed(db: &TestDb, seed: u64, steps: usize) -> BTreeMap<&'static str, u32> {
    let mut run = Run::start(db, seed).await;
    for step in 0..steps {
        run.sim.step = step;
        run.step().await;
        // The accounts' and keys' rows after every step, and one account's balance in turn;
        // the whole ledger every VERIFY_EVERY steps.
        run.check_rows().await;
        check_balances(
            &run.sim,
            &run.store,
            &run.model,
            run.now,
            &[step % ACCOUNTS],
        )
        .await;
        if step % VERIFY_EVERY == VERIFY_EVERY - 1 {
            verify(&run.sim, &run.store).await;
        }
    }
    run.sim.step = steps;
    run.finish().await
}

impl Run<'_> {
    async fn start(db: &TestDb, seed: u64) -> Run<'_> {
        let mut rng = StdRng::seed_from_u64(seed);
        let store = db.open().await;
        // Start a few hours before a UTC midnight so that days roll over during the run.
        let now: i64 = 20_000 * DAY + DAY - rng.random_range(1..6 * 3_600_000);
        let mut model = Model::default();
        for i in 0..ACCOUNTS {
            let id = store
                .create_account(&format!("sim-{seed:x}-{i}@example.com"), now)
                .await
                .unwrap();
            model.accounts.push(ModelAccount {
                id,
                ..ModelAccount::default()
            });
            for limit in key_limits(&mut rng) {
                let new = NewKey {
                    limit: limit.map(|(credits, reset)| KeyLimit { credits, reset }),
                    ..NewKey::default()
                };
                let key = store.create_key(id, &new, now).await.unwrap();
                model.keys.push(ModelKey {
                    id: key.id,
                    limit,
                    window: 0,
                    spent: 0,
                    held: 0,
                });
            }
        }
        Run {
            db,
            seed,
            rng,
            sim: Sim {
                seed,
                step: 0,
                log: VecDeque::new(),
                seen: BTreeMap::new(),
            },
            store,
            model,
            now,
            next_request: 0,
            rows: RowReader::open(db).await,
            chain: crate::sim_deposits::DepositModel::default(),
        }
    }

    async fn step(&mut self) {
        // Now and then a request lands on a gateway whose clock lags by up to 2 s.
        let op_now = if self.rng.random_bool(0.15) {
            self.now - self.rng.random_range(0..MAX_LAG)
        } else {
            self.now
        };
        match self.rng.random_range(0..100) {
            0..=29 => self.hold(op_now).await,
            30..=56 => self.settle(op_now).await,
            57..=63 => self.void(op_now).await,
            64..=75 => {
                let by = self.rng.random_range(0..3_000);
                self.advance(by)
            }
            76..=79 => {
                let by = self.rng.random_range(30_000..180_000);
                self.advance(by)
            }
            80..=81 => self.advance_to_midnight(),
            82..=87 => self.expire().await,
            88..=89 => self.chain_deposit(op_now).await,
            90..=92 => self.deposit(op_now).await,
            93..=96 => self.plan(op_now).await,
            _ => {
                self.sim.note("crash and reopen".into());
                self.sim.saw("crash");
                self.store = self.db.open().await;
            }
        }
    }

    fn advance(&mut self, by: i64) {
        self.now += by;
        self.sim.note(format!("advance {by} ms"));
    }

    /// To just before or just after the next 00:00 UTC.
    fn advance_to_midnight(&mut self) {
        let midnight = (self.now.div_euclid(DAY) + 1) * DAY;
        self.now = midnight + self.rng.random_range(-3..=3);
        self.sim
            .note(format!("advance to {} (midnight {midnight})", self.now));
        if self.now >= midnight {
            self.sim.saw("new day");
        }
    }

    /// A request for a hold, as the model decides it.
    fn new_request(&mut self, op_now: i64) -> (HoldRequest, bool, Option<usize>, bool) {
        let acc = self.rng.random_range(0..ACCOUNTS);
        let image = self.rng.random_bool(0.15);
        let credits = if image {
            IMAGE_CREDITS
        } else {
            self.rng.random_range(1..=60)
        };
        let duplicate = self.rng.random_bool(0.05) && !self.model.holds.is_empty();
        let id = if duplicate {
            let n = self.rng.random_range(0..self.model.holds.len());
            self.model.holds.keys().nth(n).unwrap().clone()
        } else {
            self.next_request += 1;
            format!("sim-{:x}-{}", self.seed, self.next_request)
        };
        // Half the requests come from the dashboard's session, with the operator's free daily
        // amount of the moment (it may be changed between requests); the others name one of
        // the account's keys, with a spending limit or without.
        let session = self.rng.random_bool(0.5);
        let payer = if session {
            money::Payer::Session
        } else {
            money::Payer::ApiKey
        };
        let free_daily = money::free_allowance(payer, self.rng.random_range(0..=50));
        let key =
            (!session).then(|| KEYS_PER_ACCOUNT * acc + self.rng.random_range(0..KEYS_PER_ACCOUNT));
        let req = HoldRequest {
            request_id: id,
            account_id: self.model.accounts[acc].id,
            credits,
            model: if image { "image" } else { "service-pro" }.into(),
            expires_at: op_now + self.rng.random_range(1_000..=120_000),
            free_daily,
            key_id: key.map(|k| self.model.keys[k].id),
        };
        (req, image, key, duplicate)
    }

    async fn hold(&mut self, op_now: i64) {
        let (req, image, key, duplicate) = self.new_request(op_now);
        let acc = self.account_index(req.account_id);
        let (id, credits) = (req.request_id.clone(), req.credits);
        self.sim.note(format!(
            "hold {id} acc{acc} key {key:?} {credits} free {} until {} image {image} at {op_now}",
            req.free_daily, req.expires_at
        ));
        let today = op_now.div_euclid(DAY);
        let got = self.store.hold(&req, op_now).await;
        if let Some(want) = self.model.key_refusal(key, credits, op_now) {
            match got {
                Ok(got) => self.sim.eq(got, want, "hold refused by its key"),
                Err(e) => self.sim.fail(format!("hold: {e}")),
            }
            self.sim.saw("key limit refused");
            return;
        }
        let available = self.model.available(acc, today, req.free_daily);
        if available < credits {
            let want = HoldOutcome::Insufficient {
                needed: credits,
                available: available.max(0),
            };
            match got {
                Ok(got) => self.sim.eq(got, want, "insufficient hold"),
                Err(e) => self.sim.fail(format!("hold: {e}")),
            }
            self.sim.saw("insufficient");
        } else if duplicate {
            if !matches!(got, Err(StoreError::Conflict(_))) {
                self.sim.fail(format!("duplicate hold {id}: {got:?}"));
            }
            self.sim.saw("duplicate");
        } else {
            self.sim.eq(got.unwrap(), HoldOutcome::Held, "hold");
            self.sim.saw("held");
            if req.free_daily > 0 {
                self.sim.saw("held for a session");
            }
            if image {
                self.sim.saw("image held");
            }
            let hold = ModelHold {
                account: acc,
                credits,
                expires_at: req.expires_at,
                active: true,
                free_daily: req.free_daily,
                image,
                limited_key: None,
            };
            self.model.held_by(id, hold, key);
        }
    }

    fn account_index(&self, id: AccountId) -> usize {
        self.model
            .accounts
            .iter()
            .position(|a| a.id == id)
            .expect("one of the run's accounts")
    }

    async fn settle(&mut self, op_now: i64) {
        let id = pick_request(&mut self.rng, &self.model, self.seed);
        let before = self.model.holds.get(&id).cloned();
        let image = before.as_ref().is_some_and(|h| h.image);
        let charge = if image {
            Some(image_charge())
        } else {
            random_charge(&mut self.rng)
        };
        let billed = charge.as_ref().map(|c| c.credits);
        self.sim.note(format!("settle {id} {billed:?} at {op_now}"));
        let window = before
            .as_ref()
            .and_then(|h| h.limited_key)
            .map(|k| self.model.keys[k].window);
        let want = self.model.end(&id, true, billed, op_now);
        let got = self
            .store
            .settle(&id, charge.as_ref(), op_now)
            .await
            .unwrap();
        self.sim.eq(got.clone(), want, "settle");
        match (&got, before) {
            (SettleOutcome::Settled { .. }, before) => self.saw_settled(&id, &got, before, window),
            (SettleOutcome::AlreadyEnded, Some(h)) if h.active => {
                self.sim.saw("ended after expiry")
            }
            (SettleOutcome::AlreadyEnded, _) => self.sim.saw("already ended"),
            (SettleOutcome::UnknownHold, _) => self.sim.saw("unknown"),
        }
    }

    /// The paths a settle reached, and the rules no model may break.
    fn saw_settled(
        &mut self,
        id: &str,
        got: &SettleOutcome,
        before: Option<ModelHold>,
        window: Option<i64>,
    ) {
        let SettleOutcome::Settled {
            charged,
            from_free,
            from_plan,
            from_balance,
            released,
        } = *got
        else {
            return;
        };
        if from_free > 0 {
            self.sim.saw("settled from free");
            // Rule 5 of the spec, whatever the model says.
            if before.as_ref().is_some_and(|h| h.free_daily == 0) {
                self.sim
                    .fail(format!("API-key request {id} spent free credits"));
            }
        }
        for (spent, what) in [
            (from_plan, "settled from plan"),
            (from_balance, "settled from balance"),
        ] {
            if spent > 0 {
                self.sim.saw(what);
            }
        }
        if charged == 0 {
            self.sim.saw("settled at 0");
        }
        if released == 0 {
            self.sim.saw("settled at the whole hold");
        }
        if let Some(k) = before.as_ref().and_then(|h| h.limited_key) {
            self.sim.saw("settled under a key limit");
            if window.is_some_and(|w| w < self.model.keys[k].window) && charged > 0 {
                self.sim.saw("key window reset");
            }
        }
        if before.as_ref().is_some_and(|h| h.image) {
            self.sim.saw("image settled");
            // Less than the price only when the account no longer covers it (its plan
            // lowered since the hold): the model says the same.
            if charged > IMAGE_CREDITS {
                self.sim.fail(format!("image {id} charged {charged}"));
            }
        }
    }

    async fn void(&mut self, op_now: i64) {
        let id = pick_request(&mut self.rng, &self.model, self.seed);
        self.sim.note(format!("void {id} at {op_now}"));
        let want = self.model.end(&id, false, None, op_now);
        let got = self.store.void(&id, op_now).await.unwrap();
        if matches!(got, SettleOutcome::Settled { .. }) {
            self.sim.saw("voided");
        }
        self.sim.eq(got, want, "void");
    }

    async fn expire(&mut self) {
        let now = self.now;
        self.sim.note(format!("expire at {now}"));
        let due: Vec<String> = self
            .model
            .holds
            .iter()
            .filter(|(_, h)| h.active && h.expires_at <= now)
            .map(|(id, _)| id.clone())
            .collect();
        for id in &due {
            self.model.expired(id);
        }
        let got = self.store.expire_holds(now).await.unwrap();
        self.sim.eq(got, due.len() as u64, "expired holds");
        if got > 0 {
            self.sim.saw("reaped");
        }
    }

    async fn chain_deposit(&mut self, op_now: i64) {
        let acc = self.rng.random_range(0..ACCOUNTS);
        let id = self.model.accounts[acc].id;
        let (what, got, want) = self
            .chain
            .step(&mut self.rng, &self.store, acc, id, op_now)
            .await;
        self.sim.note(what);
        self.sim.eq(got, want, "chain deposit");
        if let shoal_store::deposits::DepositOutcome::Credited { credits } = got {
            self.sim.saw("chain deposit");
            self.model.accounts[acc].balance += credits;
            self.model.accounts[acc].deposited += credits;
        }
        if !self.chain.check_remainder(&self.store, acc, id).await {
            self.sim
                .fail(format!("acc{acc}: the carried fraction differs"));
        }
    }

    async fn deposit(&mut self, op_now: i64) {
        let acc = self.rng.random_range(0..ACCOUNTS);
        let credits = self.rng.random_range(1..=300);
        self.sim.note(format!("deposit acc{acc} {credits}"));
        let a = &mut self.model.accounts[acc];
        a.balance += credits;
        a.deposited += credits;
        let (id, balance) = (a.id, a.balance);
        let got = self.store.grant_credits(id, credits, op_now).await.unwrap();
        self.sim.eq(got, balance, "balance after deposit");
    }

    async fn plan(&mut self, op_now: i64) {
        let acc = self.rng.random_range(0..ACCOUNTS);
        let daily = if self.rng.random_bool(0.3) {
            0
        } else {
            self.rng.random_range(1..=80)
        };
        self.sim.note(format!("plan acc{acc} {daily}"));
        self.model.accounts[acc].daily = daily;
        self.store
            .set_plan(self.model.accounts[acc].id, daily, op_now)
            .await
            .unwrap();
    }

    /// Every account's and every key's row against the model, and no key's window over its
    /// limit.
    async fn check_rows(&mut self) {
        check_rows(&self.sim, &mut self.rows, &self.model).await;
        let got = self.rows.keys(self.model.keys[0].id).await;
        let want: Vec<KeyRow> = self
            .model
            .keys
            .iter()
            .map(|k| (k.id, k.window, k.spent, k.held))
            .collect();
        self.sim.eq(got, want, "keys (id, window, spent, held)");
        for (&(k, window), &spent) in &self.model.key_windows {
            let (limit, _) = self.model.keys[k].limit.expect("a limited key");
            if spent > limit {
                self.sim.fail(format!(
                    "key {k} spent {spent} in window {window}, over its {limit}"
                ));
            }
        }
    }

    /// The end: every hold still active is released by a last sweep, and every account is
    /// whole: deposited - spent = balance, nothing held.
    async fn finish(mut self) -> BTreeMap<&'static str, u32> {
        self.check_rows().await;
        let all: Vec<usize> = (0..ACCOUNTS).collect();
        check_balances(&self.sim, &self.store, &self.model, self.now, &all).await;
        verify(&self.sim, &self.store).await;
        let active = self.model.holds.values().filter(|h| h.active).count() as u64;
        self.sim.eq(
            self.store.expire_holds(i64::MAX).await.unwrap(),
            active,
            "final sweep",
        );
        for (i, a) in self.model.accounts.iter().enumerate() {
            let b = self.store.balance(a.id, self.now).await.unwrap();
            self.sim.eq(
                (b.credits, b.credits_held, b.total_deposited - b.total_spent),
                (a.balance, 0, a.balance),
                &format!("acc{i} at the end"),
            );
        }
        verify(&self.sim, &self.store).await;
        self.store.close().await;
        self.sim.seen
    }
}

/// Keys per account: one without a limit, and limits that reset daily, and weekly, monthly
/// or never (chosen by the seed), tight enough to be reached.
const KEYS_PER_ACCOUNT: usize = 3;

fn key_limits(rng: &mut StdRng) -> [Option<(i64, LimitReset)>; KEYS_PER_ACCOUNT] {
    let long = [LimitReset::Weekly, LimitReset::Monthly, LimitReset::Never][rng.random_range(0..3)];
    [
        None,
        Some((rng.random_range(60..200), LimitReset::Daily)),
        Some((rng.random_range(150..600), long)),
    ]
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

/// (id, limit window, spent in it, held)
type KeyRow = (i64, i64, i64, i64);

const KEY_ROWS: &str = "SELECT id, limit_window, limit_spent, limit_held FROM api_keys
        WHERE id >= $1 ORDER BY id";

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

    /// The keys' limit counters, of keys `first` and after.
    async fn keys(&mut self, first: i64) -> Vec<KeyRow> {
        match self {
            RowReader::Sqlite(c) => sqlx::query_as(KEY_ROWS).bind(first).fetch_all(c).await,
            RowReader::Postgres(c) => sqlx::query_as(KEY_ROWS).bind(first).fetch_all(c).await,
        }
        .unwrap()
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
