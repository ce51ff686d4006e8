//! The seams a gateway is assembled from: traits other crates implement, each with its
//! in-process choice here. `shoal-cluster` implements [`RateLimiter`] (Redis) and [`Peers`]
//! (NATS), `shoal-payments` [`DepositSource`], `shoal-browser` [`BrowserModels`]; the binary
//! picks them. The traits live beside their in-process implementations.

use std::sync::Arc;

pub use crate::deposits::{DepositSource, NoDeposits};
pub use crate::ratelimit::{LocalGcra, RateLimiter};
pub use crate::workers::browser::{BrowserJob, BrowserModels};
pub use crate::workers::peers::{Peers, UpProbe};

/// The seams a gateway is assembled from. Each defaults to its single-node, in-process
/// choice; the binary swaps in the shared or configured ones (`shoal-cluster`,
/// `shoal-payments`).
pub struct Seams {
    pub limiter: Arc<dyn RateLimiter>,
    /// Other replicas' workers (see `peers`); `None` on a single node.
    pub peers: Option<Arc<dyn Peers>>,
    pub deposits: Arc<dyn DepositSource>,
}

impl Default for Seams {
    fn default() -> Self {
        Seams {
            limiter: Arc::new(LocalGcra::default()),
            peers: None,
            deposits: Arc::new(NoDeposits),
        }
    }
}
