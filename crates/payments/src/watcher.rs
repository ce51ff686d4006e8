//! The chain watcher: one task per configured chain and token, inside `shoal serve`.
//!
//! Each tick it takes (or renews) the chain's lease in the shared database, so that one
//! gateway scans at a time; asks the node for the last final block (the `finalized` tag, or
//! `latest − N`); reads the token's Transfer logs to known deposit addresses from the stored
//! cursor up to that block, at most `max_blocks_per_scan` blocks per call; records each one
//! ([`Store::record_deposit`], idempotent on chain, tx and log index); then moves the cursor.
//! Only final blocks are ever read, so a transfer that a reorg removes was never seen. An
//! error leaves the cursor where it was: the same range is tried again after a backoff
//! (doubling up to a minute), never skipped. A crash between recording and moving the cursor
//! rescans a range whose deposits are already recorded: nothing is credited twice.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use shoal_store::deposits::{DepositOutcome, NewDeposit};
use shoal_store::{AccountId, Store};

use crate::address::{Address, DepositKeys};
use crate::config::{Chain, Finality};
use crate::metrics::{ChainLabels, WatcherMetrics};
use crate::rpc::{Rpc, TransferLog};

/// Addresses per `eth_getLogs` topic list (nodes limit filter sizes).
const ADDRESSES_PER_CALL: usize = 500;
const MAX_BACKOFF: Duration = Duration::from_secs(60);

/// Deposit addresses of every account, derived as accounts appear.
#[derive(Default)]
struct AddressBook {
    owner: HashMap<Address, AccountId>,
    list: Vec<Address>,
    last_id: AccountId,
}

pub struct Watcher {
    chain: Chain,
    rpc: Rpc,
    store: Store,
    keys: DepositKeys,
    credits_per_usd: i64,
    metrics: Arc<WatcherMetrics>,
    labels: ChainLabels,
    holder: String,
    book: AddressBook,
    chain_checked: bool,
}

fn now_ms() -> i64 {
    shoal_gateway::now_ms()
}

impl Watcher {
    pub fn new(
        chain: Chain,
        store: Store,
        keys: DepositKeys,
        credits_per_usd: i64,
        metrics: Arc<WatcherMetrics>,
        holder: String,
    ) -> anyhow::Result<Watcher> {
        let labels = ChainLabels {
            chain: chain.name.clone(),
            token: chain.symbol.clone(),
        };
        Ok(Watcher {
            rpc: Rpc::new(&chain.rpc_url)?,
            chain,
            store,
            keys,
            credits_per_usd,
            metrics,
            labels,
            holder,
            book: AddressBook::default(),
            chain_checked: false,
        })
    }

    fn lease_name(&self) -> String {
        format!(
            "deposit-watcher:{}:{}",
            self.chain.chain_id,
            self.chain.token.lower()
        )
    }

    /// Runs until the task is aborted.
    pub async fn run(mut self) {
        let mut backoff = Duration::ZERO;
        let mut more = false;
        loop {
            if !more {
                tokio::time::sleep(backoff.max(self.chain.poll_interval)).await;
            }
            match self.tick().await {
                Ok(m) => {
                    more = m;
                    backoff = Duration::ZERO;
                }
                Err(e) => {
                    more = false;
                    self.metrics.rpc_errors.get_or_create(&self.labels).inc();
                    backoff = (backoff * 2).clamp(self.chain.poll_interval, MAX_BACKOFF);
                    tracing::warn!(chain = %self.chain.name, error = %e, retry_in_ms = backoff.as_millis() as u64, "deposit watcher: scan failed; the same range is retried");
                }
            }
        }
    }

    /// One step. `Ok(true)` when final blocks remain to scan at once.
    pub async fn tick(&mut self) -> anyhow::Result<bool> {
        let lease_ms = self.chain.lease.as_millis() as i64;
        let leader = (self.store)
            .try_lease(&self.lease_name(), &self.holder, lease_ms, now_ms())
            .await?;
        self.metrics
            .active
            .get_or_create(&self.labels)
            .set(i64::from(leader));
        if !leader {
            return Ok(false);
        }
        self.check_chain().await?;
        let Some(final_head) = self.final_head().await? else {
            return Ok(false);
        };
        let labels = &self.labels;
        (self.metrics.last_final_block.get_or_create(labels)).set(final_head as i64);
        let token = self.chain.token.lower();
        let chain_id = self.chain.chain_id as i64;
        let from = match self.store.deposit_cursor(chain_id, &token).await? {
            Some(next) => next as u64,
            None => {
                let start = self.chain.start_block.unwrap_or(final_head);
                (self.store)
                    .set_deposit_cursor(chain_id, &token, start as i64, now_ms())
                    .await?;
                start
            }
        };
        if from > final_head {
            (self.metrics.lag_blocks.get_or_create(labels)).set(0);
            return Ok(false);
        }
        let to = final_head.min(from + self.chain.max_blocks_per_scan - 1);
        let started = Instant::now();
        self.scan(from, to).await?;
        (self.store)
            .set_deposit_cursor(chain_id, &token, to as i64 + 1, now_ms())
            .await?;
        let labels = &self.labels;
        (self.metrics.scan_seconds.get_or_create(labels)).observe(started.elapsed().as_secs_f64());
        (self.metrics.last_scanned_block.get_or_create(labels)).set(to as i64);
        (self.metrics.lag_blocks.get_or_create(labels)).set((final_head - to) as i64);
        Ok(to < final_head)
    }

    /// The node must be on the configured chain: a wrong RPC URL must not credit anyone.
    async fn check_chain(&mut self) -> anyhow::Result<()> {
        if self.chain_checked {
            return Ok(());
        }
        let id = self.rpc.chain_id().await?;
        anyhow::ensure!(
            id == self.chain.chain_id,
            "the node at payments chain {}'s rpc_url is on chain {id}, not {}",
            self.chain.name,
            self.chain.chain_id
        );
        self.chain_checked = true;
        Ok(())
    }

    async fn final_head(&self) -> anyhow::Result<Option<u64>> {
        Ok(match self.chain.finality {
            Finality::Finalized => Some(self.rpc.block_number("finalized").await?),
            Finality::Confirmations(n) => self.rpc.block_number("latest").await?.checked_sub(n),
        })
    }

    /// Reads and records the deposits of blocks `from..=to`.
    async fn scan(&mut self, from: u64, to: u64) -> anyhow::Result<()> {
        self.refresh_addresses().await?;
        let mut logs: Vec<TransferLog> = Vec::new();
        for chunk in self.book.list.chunks(ADDRESSES_PER_CALL) {
            let found = self
                .rpc
                .transfers(&self.chain.token, chunk, from, to)
                .await?;
            logs.extend(found);
        }
        logs.sort_by_key(|l| (l.block_number, l.log_index));
        for log in logs {
            let owner = self.book.owner.get(&log.to).copied();
            let in_range = (from..=to).contains(&log.block_number);
            match owner {
                Some(account) if in_range && log.token == self.chain.token => {
                    self.record(&log, account).await?
                }
                _ => {
                    tracing::warn!(chain = %self.chain.name, block = log.block_number, "deposit watcher: the node returned a log outside the filter; ignored")
                }
            }
        }
        Ok(())
    }

    async fn record(&self, log: &TransferLog, account: AccountId) -> anyhow::Result<()> {
        let deposit = NewDeposit {
            chain_id: self.chain.chain_id as i64,
            tx_hash: log.tx_hash.clone(),
            log_index: log.log_index as i64,
            block_number: log.block_number as i64,
            token: self.chain.token.lower(),
            account_id: account,
            // Beyond 128 bits is beyond what the ledger holds: recorded as too large.
            amount: log.amount.unwrap_or(u128::MAX),
            decimals: self.chain.decimals,
            minimum: self.chain.minimum,
            credits_per_usd: self.credits_per_usd,
        };
        let labels = &self.labels;
        match self.store.record_deposit(&deposit, now_ms()).await? {
            DepositOutcome::Credited { credits } => {
                self.metrics.deposits_credited.get_or_create(labels).inc();
                (self.metrics.credits_deposited.get_or_create(labels)).inc_by(credits as u64);
                tracing::info!(chain = %self.chain.name, account, credits, tx = %log.tx_hash, "deposit credited");
            }
            DepositOutcome::BelowMinimum { .. } => {
                self.metrics
                    .deposits_below_minimum
                    .get_or_create(labels)
                    .inc();
                tracing::info!(chain = %self.chain.name, account, tx = %log.tx_hash, "deposit below the minimum: waiting for more");
            }
            DepositOutcome::TooLarge => {
                tracing::error!(chain = %self.chain.name, account, tx = %log.tx_hash, "deposit too large for the ledger: recorded, not credited")
            }
            DepositOutcome::AlreadyRecorded => {}
        }
        Ok(())
    }

    /// Derives the addresses of accounts created since the last scan.
    async fn refresh_addresses(&mut self) -> anyhow::Result<()> {
        loop {
            let ids = self
                .store
                .account_ids_after(self.book.last_id, 1000)
                .await?;
            let Some(&last) = ids.last() else {
                return Ok(());
            };
            for id in ids {
                // Ids beyond the non-hardened range have no address (and never occur).
                if let Ok(address) = u32::try_from(id)
                    .map_err(drop)
                    .and_then(|i| self.keys.address(i).map_err(drop))
                {
                    self.book.owner.insert(address, id);
                    self.book.list.push(address);
                }
            }
            self.book.last_id = last;
        }
    }
}
