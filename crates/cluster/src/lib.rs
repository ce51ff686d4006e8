//! What several `shoal serve` replicas share so that they act as one service.
//!
//! PostgreSQL already holds what must be durable (the ledger, keys; `shoal-store`). This
//! crate holds the rest of what replicas share: rate limits, exact across replicas, in Redis
//! ([`ratelimit::RedisGcra`]). Each piece implements a seam the gateway defines (here its
//! `RateLimiter` trait), so the gateway knows nothing of Redis, and a single replica without
//! any of this runs exactly as before.

pub mod ratelimit;

use std::sync::Arc;

use shoal_gateway::ratelimit::{LocalGcra, RateLimiter};

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
        Ok(Arc::new(RedisGcra::connect(url, prefix).await?))
    }
}
