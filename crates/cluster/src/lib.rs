//! What several `shoal serve` replicas share so that they act as one service.
//!
//! PostgreSQL already holds what must be durable (the ledger, keys; `shoal-store`). This
//! crate holds the rest of what replicas share: rate limits, exact across replicas, in Redis
//! ([`ratelimit::RedisGcra`]), and jobs that cross to the replica whose worker runs them,
//! over NATS ([`jobs::NatsPeers`]). Each piece implements a seam the gateway defines (its
//! `RateLimiter` and `Peers` traits), so the gateway knows nothing of Redis or NATS, and a
//! single replica without any of this runs exactly as before.

pub mod jobs;
pub mod ratelimit;

use std::sync::Arc;

use shoal_gateway::Peers;
use shoal_gateway::{LocalGcra, RateLimiter};

pub use jobs::NatsPeers;
pub use ratelimit::RedisGcra;

/// Prefix of every Redis key Shoal writes unless configured otherwise.
pub const DEFAULT_KEY_PREFIX: &str = "shoal:";

/// What replicas share, resolved from flags, environment and the config file.
#[derive(Debug, Clone, Default)]
pub struct ClusterConfig {
    /// `redis://…`; absent, rate limits are kept in this process.
    pub redis_url: Option<String>,
    /// Prefix of every Redis key; [`DEFAULT_KEY_PREFIX`] when absent.
    pub redis_key_prefix: Option<String>,
    /// Longest a rate-limit check waits for Redis; [`ratelimit::DEFAULT_TIMEOUT`] when absent.
    pub redis_timeout: Option<std::time::Duration>,
    /// `nats://…`; absent, requests reach only the workers connected to this replica.
    pub nats_url: Option<String>,
    /// Prefix of every NATS subject; [`jobs::DEFAULT_SUBJECT_PREFIX`] when absent.
    pub nats_subject_prefix: Option<String>,
}

impl ClusterConfig {
    /// The rate limiter this configuration asks for: Redis when a URL is set, else in-process.
    pub async fn rate_limiter(&self) -> anyhow::Result<Arc<dyn RateLimiter>> {
        let Some(url) = &self.redis_url else {
            return Ok(Arc::new(LocalGcra::default()));
        };
        let prefix = self
            .redis_key_prefix
            .as_deref()
            .unwrap_or(DEFAULT_KEY_PREFIX);
        let timeout = self.redis_timeout.unwrap_or(ratelimit::DEFAULT_TIMEOUT);
        Ok(Arc::new(RedisGcra::connect(url, prefix, timeout).await?))
    }

    /// The link to other replicas this configuration asks for: NATS when a URL is set.
    pub async fn peers(&self) -> anyhow::Result<Option<Arc<dyn Peers>>> {
        let Some(url) = &self.nats_url else {
            return Ok(None);
        };
        let prefix = (self.nats_subject_prefix.as_deref()).unwrap_or(jobs::DEFAULT_SUBJECT_PREFIX);
        Ok(Some(Arc::new(NatsPeers::connect(url, prefix).await?)))
    }
}
