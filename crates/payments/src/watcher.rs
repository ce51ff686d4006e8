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
//!
//! Once the final blocks are all scanned, the same tick reads the newest blocks after them
//! (at most `pending_blocks`) and replaces the chain's pending set in the database with what
//! it found ([`Store::replace_pending_deposits`]), with the head, so that every gateway shows
//! transfers on their way and their confirmations. That set is for display only: crediting
//! reads final blocks and nothing else, and a transfer that a reorg removed is missing from
//! the next set. A failure there is logged and counted, and changes neither the cursor nor the
//! backoff.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use shoal_store::deposits::{ChainHead, DepositOutcome, NewDeposit, PendingDeposit};
use shoal_store::{AccountId, Store};

use crate::address::{Address, DepositKeys};
use crate::config::{Chain, Finality};
use crate::metrics::{ChainLabels, WatcherMetrics};
use crate::rpc::{Rpc, TransferLog};

/// Addresses per `eth_getLogs` topic list (nodes limit filter sizes).
const ADDRESSES_PER_CALL: usize = 500;
const MAX_BACKOFF: Duration = Duration::from_secs(60);
/// The pending set and head are written again after this long even when unchanged, so that
/// readers can tell a live watcher from a stopped one (`observed_at`).
const HEARTBEAT_MS: i64 = 30_000;

/// The node's latest block and the last final one (`None` while the chain is shorter than
/// the confirmations asked for).
#[derive(Debug, Clone, Copy)]
struct Heads {
    latest: u64,
    final_block: Option<u64>,
}

/// What was last written to the pending table, to skip writing the same again.
#[derive(Default)]
struct LastPending {
    rows: Vec<PendingDeposit>,
    heads: (i64, i64),
    written_at: i64,
}

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
    last_pending: Option<LastPending>,
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
            last_pending: None,
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
            // Another gateway writes the pending set meanwhile: write it afresh when back.
            self.last_pending = None;
            return Ok(false);
        }
        self.check_chain().await?;
        let heads = self.heads().await?;
        let Some(final_head) = heads.final_block else {
            // A chain shorter than the confirmations asked for: nothing is final yet.
            let first = self.chain.start_block.unwrap_or(0);
            self.refresh_pending(first, heads).await;
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
            self.refresh_pending(from, heads).await;
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
        if to < final_head {
            return Ok(true);
        }
        self.refresh_pending(to + 1, heads).await;
        Ok(false)
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

    async fn heads(&self) -> anyhow::Result<Heads> {
        let latest = self.rpc.block_number("latest").await?;
        let final_block = match self.chain.finality {
            Finality::Finalized => Some(self.rpc.block_number("finalized").await?),
            Finality::Confirmations(n) => latest.checked_sub(n),
        };
        // Behind a load balancer the two answers may come from nodes a block apart.
        let latest = latest.max(final_block.unwrap_or(0));
        Ok(Heads {
            latest,
            final_block,
        })
    }

    /// The token's Transfer logs to known deposit addresses in blocks `from..=to`, oldest
    /// first, with their accounts and units; logs the node should not have returned, and
    /// transfers that are never deposits, are dropped.
    async fn read_transfers(
        &mut self,
        from: u64,
        to: u64,
    ) -> anyhow::Result<Vec<(TransferLog, AccountId, u128)>> {
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
        let mut owned = Vec::with_capacity(logs.len());
        for log in logs {
            let owner = self.book.owner.get(&log.to).copied();
            let in_range = (from..=to).contains(&log.block_number);
            match owner {
                Some(account) if in_range && log.token == self.chain.token => {
                    if let Some(units) = self.worth_recording(&log) {
                        owned.push((log, account, units));
                    }
                }
                _ => {
                    tracing::warn!(chain = %self.chain.name, block = log.block_number, "deposit watcher: the node returned a log outside the filter; ignored")
                }
            }
        }
        Ok(owned)
    }

    /// The transfer's units, or `None` for one that is never a deposit: a zero-value transfer
    /// moves nothing (address-poisoning spam sends them by the thousand), and no ERC-20 token
    /// with a real supply can move 2^128 units or more, so such a log is refused rather than
    /// recorded as a made-up amount.
    fn worth_recording(&self, log: &TransferLog) -> Option<u128> {
        match log.amount {
            Some(0) => None,
            Some(units) => Some(units),
            None => {
                tracing::error!(chain = %self.chain.name, tx = %log.tx_hash, "deposit watcher: a transfer of 2^128 units or more; refused");
                None
            }
        }
    }

    /// Reads and records the deposits of blocks `from..=to`.
    async fn scan(&mut self, from: u64, to: u64) -> anyhow::Result<()> {
        for (log, account, units) in self.read_transfers(from, to).await? {
            self.record(&log, account, units).await?;
        }
        Ok(())
    }

    /// Reads the blocks from `next` (the first not final) to the head, the newest
    /// `pending_blocks` of them at most, and replaces the pending set with their transfers.
    async fn refresh_pending(&mut self, next: u64, heads: Heads) {
        let started = Instant::now();
        match self.read_pending(next, heads).await {
            Ok(count) => {
                let labels = &self.labels;
                (self.metrics.pending_deposits.get_or_create(labels)).set(count as i64);
                (self.metrics.pending_scan_seconds.get_or_create(labels))
                    .observe(started.elapsed().as_secs_f64());
            }
            Err(e) => {
                self.metrics.rpc_errors.get_or_create(&self.labels).inc();
                tracing::warn!(chain = %self.chain.name, error = %e, "deposit watcher: reading pending transfers failed; the last set stays");
            }
        }
    }

    async fn read_pending(&mut self, next: u64, heads: Heads) -> anyhow::Result<usize> {
        let window = self.chain.pending_blocks;
        let from = next.max((heads.latest + 1).saturating_sub(window));
        let mut rows = Vec::new();
        let mut start = from;
        while window > 0 && start <= heads.latest {
            let end = heads.latest.min(start + self.chain.max_blocks_per_scan - 1);
            for (log, account, units) in self.read_transfers(start, end).await? {
                rows.push(self.pending_row(&log, account, units));
            }
            start = end + 1;
        }
        let count = rows.len();
        let final_block = heads.final_block.unwrap_or(0) as i64;
        let now = now_ms();
        let head = ChainHead {
            head_block: heads.latest as i64,
            final_block,
            observed_at: now,
        };
        let unchanged = self.last_pending.as_ref().is_some_and(|last| {
            last.rows == rows
                && last.heads == (head.head_block, final_block)
                && now - last.written_at < HEARTBEAT_MS
        });
        if !unchanged {
            let (chain_id, token) = (self.chain.chain_id as i64, self.chain.token.lower());
            (self.store)
                .replace_pending_deposits(chain_id, &token, head, rows.clone())
                .await?;
            self.last_pending = Some(LastPending {
                rows,
                heads: (head.head_block, final_block),
                written_at: now,
            });
        }
        Ok(count)
    }

    fn pending_row(&self, log: &TransferLog, account: AccountId, units: u128) -> PendingDeposit {
        PendingDeposit {
            chain_id: self.chain.chain_id as i64,
            token: self.chain.token.lower(),
            tx_hash: log.tx_hash.clone(),
            log_index: log.log_index as i64,
            block_number: log.block_number as i64,
            account_id: account,
            amount: units,
        }
    }

    async fn record(
        &self,
        log: &TransferLog,
        account: AccountId,
        units: u128,
    ) -> anyhow::Result<()> {
        let deposit = NewDeposit {
            chain_id: self.chain.chain_id as i64,
            tx_hash: log.tx_hash.clone(),
            log_index: log.log_index as i64,
            block_number: log.block_number as i64,
            token: self.chain.token.lower(),
            account_id: account,
            amount: units,
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
