//! The watcher's state on `/metrics`, per chain and token.

use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::{exponential_buckets, Histogram};
use prometheus_client::registry::Registry;

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct ChainLabels {
    /// The chain's configured name.
    pub chain: String,
    /// The token's symbol.
    pub token: String,
}

pub struct WatcherMetrics {
    /// 1 while this gateway holds the watcher's lease (one gateway at a time scans).
    pub active: Family<ChainLabels, Gauge>,
    pub last_scanned_block: Family<ChainLabels, Gauge>,
    pub last_final_block: Family<ChainLabels, Gauge>,
    /// Final blocks not yet scanned.
    pub lag_blocks: Family<ChainLabels, Gauge>,
    pub deposits_credited: Family<ChainLabels, Counter>,
    pub credits_deposited: Family<ChainLabels, Counter>,
    pub deposits_below_minimum: Family<ChainLabels, Counter>,
    /// Node errors, timeouts and rate limits (each retried after a backoff).
    pub rpc_errors: Family<ChainLabels, Counter>,
    pub scan_seconds: Family<ChainLabels, Histogram, fn() -> Histogram>,
    /// Transfers seen in blocks not final yet (shown as pending, never credited from there).
    pub pending_deposits: Family<ChainLabels, Gauge>,
    /// Reading the blocks after the last final one and writing the pending set.
    pub pending_scan_seconds: Family<ChainLabels, Histogram, fn() -> Histogram>,
}

fn scan_buckets() -> Histogram {
    // 100 µs … ~50 s
    Histogram::new(exponential_buckets(0.000_1, 2.0, 20))
}

impl Default for WatcherMetrics {
    fn default() -> Self {
        WatcherMetrics {
            active: Family::default(),
            last_scanned_block: Family::default(),
            last_final_block: Family::default(),
            lag_blocks: Family::default(),
            deposits_credited: Family::default(),
            credits_deposited: Family::default(),
            deposits_below_minimum: Family::default(),
            rpc_errors: Family::default(),
            scan_seconds: Family::new_with_constructor(scan_buckets),
            pending_deposits: Family::default(),
            pending_scan_seconds: Family::new_with_constructor(scan_buckets),
        }
    }
}

impl WatcherMetrics {
    pub fn register(&self, r: &mut Registry) {
        r.register(
            "deposit_watcher_active",
            "1 while this gateway holds the chain watcher's lease",
            self.active.clone(),
        );
        r.register(
            "deposit_last_scanned_block",
            "Last block scanned for deposits",
            self.last_scanned_block.clone(),
        );
        r.register(
            "deposit_last_final_block",
            "Last final block the node reported",
            self.last_final_block.clone(),
        );
        r.register(
            "deposit_lag_blocks",
            "Final blocks not yet scanned",
            self.lag_blocks.clone(),
        );
        r.register(
            "deposits_credited",
            "Deposits credited by this gateway",
            self.deposits_credited.clone(),
        );
        r.register(
            "deposit_credits",
            "Credits added by deposits this gateway credited",
            self.credits_deposited.clone(),
        );
        r.register(
            "deposits_below_minimum",
            "Deposits recorded below the minimum, waiting for more",
            self.deposits_below_minimum.clone(),
        );
        r.register(
            "deposit_rpc_errors",
            "Failed calls to the chain's node (retried after a backoff)",
            self.rpc_errors.clone(),
        );
        r.register(
            "deposit_scan_seconds",
            "Time to scan one block range for deposits and record them",
            self.scan_seconds.clone(),
        );
        r.register(
            "deposits_pending",
            "Transfers seen in blocks not final yet (shown, not credited)",
            self.pending_deposits.clone(),
        );
        r.register(
            "deposit_pending_scan_seconds",
            "Time to read the blocks after the last final one and write the pending set",
            self.pending_scan_seconds.clone(),
        );
    }
}
