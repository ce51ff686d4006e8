//! Stablecoin deposits in the ledger simulation: new deposits of random amounts (fractions of
//! a credit included) and replays of deposits already recorded, with the carried fractions
//! modelled per account.

use rand::rngs::StdRng;
use rand::Rng;
use shoal_store::deposits::{DepositOutcome, NewDeposit, REMAINDER_UNIT};
use shoal_store::{AccountId, Store};

#[derive(Default)]
pub struct DepositModel {
    /// Carried fraction per account index, in `REMAINDER_UNIT`.
    remainders: Vec<u128>,
    recorded: Vec<NewDeposit>,
    next_tx: u64,
}

impl DepositModel {
    /// Records a new deposit (or replays an old one) for account `acc`; returns what the
    /// store answered and what the model expects: the credits to add when they agree.
    pub async fn step(
        &mut self,
        rng: &mut StdRng,
        store: &Store,
        acc: usize,
        account: AccountId,
        now: i64,
    ) -> (String, DepositOutcome, DepositOutcome) {
        if self.remainders.len() <= acc {
            self.remainders.resize(acc + 1, 0);
        }
        if rng.random_bool(0.2) && !self.recorded.is_empty() {
            let old = self.recorded[rng.random_range(0..self.recorded.len())].clone();
            let got = store.record_deposit(&old, now).await.unwrap();
            let what = format!("replay deposit {}:{}", old.tx_hash, old.log_index);
            return (what, got, DepositOutcome::AlreadyRecorded);
        }
        self.next_tx += 1;
        // Whole tokens, fractions of a credit (0.002 token = 1 credit) and everything between.
        let amount: u128 = match rng.random_range(0..3) {
            0 => rng.random_range(1..=3) * 1_000_000,
            1 => rng.random_range(1..2_000),
            _ => rng.random_range(1..=700_000),
        };
        let d = NewDeposit {
            chain_id: 31337,
            tx_hash: format!("0x{:064x}", self.next_tx),
            log_index: rng.random_range(0..4),
            block_number: self.next_tx as i64,
            token: format!("0x{}", "a0".repeat(20)),
            account_id: account,
            amount,
            decimals: 6,
            minimum: 0,
            credits_per_usd: 500,
        };
        let value = amount * 500 * 1_000_000_000_000 + self.remainders[acc];
        self.remainders[acc] = value % REMAINDER_UNIT;
        let want = DepositOutcome::Credited {
            credits: (value / REMAINDER_UNIT) as i64,
        };
        let got = store.record_deposit(&d, now).await.unwrap();
        let what = format!("deposit {} acc{acc} {amount} units", d.tx_hash);
        self.recorded.push(d);
        (what, got, want)
    }

    /// The carried fraction must match the store's.
    pub async fn check_remainder(&self, store: &Store, acc: usize, account: AccountId) -> bool {
        let want = self.remainders.get(acc).copied().unwrap_or(0) as i64;
        store.deposit_remainder(account).await.unwrap() == want
    }
}
