//! The seams a gateway is assembled from: traits other crates implement. `shoal-cluster`
//! implements [`RateLimiter`] (Redis; [`LocalGcra`] is the in-process one) and [`Peers`]
//! (NATS), `shoal-swarm` [`SwarmRing`], `shoal-browser` [`BrowserWorkers`]; the binary picks
//! them. Each trait lives beside the gateway code that calls it.

use std::sync::Arc;

pub use crate::ratelimit::{LocalGcra, RateLimiter};
pub use crate::workers::browser::{BrowserWorkers, Tab, Verdict};
pub use crate::workers::peers::{Peers, UpProbe};
pub use crate::workers::swarm::SwarmRing;

/// The seams a gateway is assembled from. Each defaults to its single-node, in-process
/// choice or to none; the binary swaps in the shared or configured ones.
pub struct Seams {
    pub limiter: Arc<dyn RateLimiter>,
    /// Other replicas' workers (see `peers`); `None` on a single node.
    pub peers: Option<Arc<dyn Peers>>,
    /// `service-swarm`'s ring; `None` (the default): no ring here, span nodes are refused.
    pub swarm: Option<Arc<dyn SwarmRing>>,
    /// Browser tabs' model files and rules; `None` (the default): tabs are refused.
    pub browser: Option<Arc<dyn BrowserWorkers>>,
}

impl Default for Seams {
    fn default() -> Self {
        Seams {
            limiter: Arc::new(LocalGcra::default()),
            peers: None,
            swarm: None,
            browser: None,
        }
    }
}
