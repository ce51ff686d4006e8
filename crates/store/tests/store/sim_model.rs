//! The simulation's model of the ledger: accounts, keys with spending limits, holds, built
//! on `money`'s rules only. The store must do exactly what it says.

use std::collections::BTreeMap;

use shoal_store::money::{self, LimitReset};
use shoal_store::{AccountId, HoldOutcome, KeyId, SettleOutcome};

pub const DAY: i64 = 86_400_000;

#[derive(Debug, Clone, Default)]
pub struct ModelAccount {
    pub id: AccountId,
    pub balance: i64,
    pub deposited: i64,
    pub spent: i64,
    pub daily: i64,
    pub plan_day: i64,
    pub plan_used: i64,
    pub free_day: i64,
    pub free_used: i64,
}

impl ModelAccount {
    pub fn plan_left(&self, today: i64) -> i64 {
        money::plan_left(self.daily, self.plan_day, self.plan_used, today)
    }

    pub fn free_left(&self, free_daily: i64, today: i64) -> i64 {
        money::plan_left(free_daily, self.free_day, self.free_used, today)
    }
}

/// A key and its limit's counters (`money`'s key limits).
#[derive(Debug, Clone)]
pub struct ModelKey {
    pub id: KeyId,
    pub limit: Option<(i64, LimitReset)>,
    pub window: i64,
    pub spent: i64,
    pub held: i64,
}

impl ModelKey {
    /// What is left of the limit on `today`'s window; `None` without a limit.
    pub fn left(&self, today: i64) -> Option<i64> {
        self.limit.map(|(limit, reset)| {
            let current = money::limit_window(reset, today);
            money::key_left(limit, self.window, self.spent, self.held, current)
        })
    }
}

#[derive(Debug, Clone)]
pub struct ModelHold {
    pub account: usize,
    pub credits: i64,
    pub expires_at: i64,
    pub active: bool,
    /// The free daily credits it may spend (0: an API-key request).
    pub free_daily: i64,
    /// An image request's hold: settled at its whole price, with no token counts.
    pub image: bool,
    /// The key whose limit it counted towards (an index into `Model::keys`).
    pub limited_key: Option<usize>,
}

#[derive(Default)]
pub struct Model {
    pub accounts: Vec<ModelAccount>,
    pub keys: Vec<ModelKey>,
    pub holds: BTreeMap<String, ModelHold>,
    /// Credits charged per (key, window) through the key's limit: never above the limit.
    pub key_windows: BTreeMap<(usize, i64), i64>,
}

impl Model {
    pub fn held(&self, account: usize) -> i64 {
        self.holds
            .values()
            .filter(|h| h.active && h.account == account)
            .map(|h| h.credits)
            .sum()
    }

    pub fn available(&self, account: usize, today: i64, free_daily: i64) -> i64 {
        let a = &self.accounts[account];
        money::available(
            a.free_left(free_daily, today),
            a.plan_left(today),
            a.balance,
            self.held(account),
        )
    }

    /// What a hold of `credits` by key `key` (an index) on `now` should get, before the
    /// account's credit is looked at: `Some` refusal by the key's limit.
    pub fn key_refusal(&self, key: Option<usize>, credits: i64, now: i64) -> Option<HoldOutcome> {
        let k = &self.keys[key?];
        let (limit, reset) = k.limit?;
        let today = now.div_euclid(DAY);
        let left = k.left(today).expect("a limit");
        (left < credits).then(|| HoldOutcome::KeyLimitExceeded {
            needed: credits,
            limit,
            remaining: left.max(0),
            reset,
            resets_at: money::limit_resets_on(reset, today).map(|d| d * DAY),
        })
    }

    /// A hold was admitted: the key's limit reserves it too, if it has one.
    pub fn held_by(&mut self, id: String, mut hold: ModelHold, key: Option<usize>) {
        if let Some(k) = key.filter(|k| self.keys[*k].limit.is_some()) {
            self.keys[k].held += hold.credits;
            hold.limited_key = Some(k);
        }
        self.holds.insert(id, hold);
    }

    /// The reaper released the hold of `id`.
    pub fn expired(&mut self, id: &str) {
        let h = self.holds.get_mut(id).expect("a hold");
        h.active = false;
        if let Some(k) = h.limited_key {
            self.keys[k].held -= h.credits;
        }
    }

    /// What ending a hold should do (and does, to the model).
    pub fn end(&mut self, id: &str, settle: bool, billed: Option<i64>, now: i64) -> SettleOutcome {
        let Some(h) = self.holds.get_mut(id) else {
            return SettleOutcome::UnknownHold;
        };
        if !h.active {
            return SettleOutcome::AlreadyEnded;
        }
        h.active = false;
        let h = h.clone();
        let today = money::utc_day(now);
        let expired = h.expires_at <= now;
        // The store must do exactly what the pure rules of `money` say.
        let charge = if settle && !expired {
            money::clamp_charge(billed, h.credits)
        } else {
            0
        };
        let a = &mut self.accounts[h.account];
        let spend = money::split_spend(
            charge,
            a.free_left(h.free_daily, today),
            a.plan_left(today),
            a.balance,
        );
        (a.plan_day, a.plan_used) = money::plan_after(a.plan_day, a.plan_used, today, spend.plan);
        (a.free_day, a.free_used) = money::plan_after(a.free_day, a.free_used, today, spend.free);
        a.balance -= spend.balance;
        a.spent += spend.balance;
        let charged = spend.free + spend.plan + spend.balance;
        if let Some(k) = h.limited_key {
            self.key_end(k, h.credits, charged, today);
        }
        if expired {
            return SettleOutcome::AlreadyEnded;
        }
        SettleOutcome::Settled {
            charged,
            from_free: spend.free,
            from_plan: spend.plan,
            from_balance: spend.balance,
            released: h.credits - charged,
        }
    }

    fn key_end(&mut self, k: usize, hold: i64, charged: i64, today: i64) {
        let key = &mut self.keys[k];
        let (_, reset) = key.limit.expect("a limited hold's key has a limit");
        let current = money::limit_window(reset, today);
        key.held -= hold;
        (key.window, key.spent) = money::plan_after(key.window, key.spent, current, charged);
        *self.key_windows.entry((k, key.window)).or_default() += charged;
    }
}
