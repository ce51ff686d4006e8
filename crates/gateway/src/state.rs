//! The state every handler and socket shares: the config, the store, the pool and the
//! seams, built once per process.

use std::sync::Arc;

use shoal_store::Store;

use crate::config::GatewayConfig;
use crate::http::{KeyCache, KeySlots};
use crate::metrics::Metrics;
use crate::ratelimit::RateLimiter;
use crate::seams::Seams;
use crate::seams::UpProbe;
use crate::workers::browser::BrowserWorkers;
use crate::workers::pool::Pool;
use crate::workers::swarm::SwarmRing;

/// Shared state of one gateway process.
#[derive(Clone)]
pub struct AppState(Arc<Inner>);

pub struct Inner {
    pub config: GatewayConfig,
    pub store: Store,
    pub limiter: Arc<dyn RateLimiter>,
    pub pool: Pool,
    pub key_cache: KeyCache,
    /// Requests each API key has in flight on this replica (`key_concurrency`).
    pub key_slots: Arc<KeySlots>,
    pub metrics: Metrics,
    /// Browser workers (`shoal-browser`), when the binary wires them in.
    pub browser: Option<Arc<dyn BrowserWorkers>>,
    /// `service-swarm`'s ring of span nodes (`shoal-swarm`); `None`: span nodes are refused.
    pub swarm: Option<Arc<dyn SwarmRing>>,
    /// Whether the link to other replicas is up (`shoal-cluster`); `None` on a single node.
    pub peers_up: Option<UpProbe>,
}

impl std::ops::Deref for AppState {
    type Target = Inner;
    fn deref(&self) -> &Inner {
        &self.0
    }
}

impl AppState {
    pub fn new(config: GatewayConfig, store: Store) -> Self {
        Self::with_seams(config, store, Seams::default())
    }

    /// The gateway on the given seams; must be called inside the runtime when `peers` is set.
    pub fn with_seams(config: GatewayConfig, store: Store, seams: Seams) -> Self {
        let Seams {
            limiter,
            peers,
            swarm,
            browser,
        } = seams;
        let pool = Pool::new(config.queue_timeout, config.max_queued);
        let mut metrics = Metrics::default();
        limiter.register_metrics(metrics.registry_mut());
        metrics.register_pool(&pool.counters);
        if let Some(p) = &peers {
            p.register_metrics(metrics.registry_mut());
        }
        if let Some(s) = &swarm {
            s.register_metrics(metrics.registry_mut());
        }
        let state = AppState(Arc::new(Inner {
            swarm,
            pool,
            config,
            store,
            limiter,
            key_cache: KeyCache::default(),
            key_slots: Arc::default(),
            metrics,
            browser,
            peers_up: peers.as_ref().map(|p| p.up_probe()),
        }));
        if let Some(p) = peers {
            p.join(state.clone());
        }
        state
    }
}

/// Current Unix time in milliseconds.
pub fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis() as i64)
        .unwrap_or(0)
}

/// Releases expired holds now and then every `reaper_interval`, and deletes holds that ended
/// longer than `hold_retention` ago (the journal keeps their record), expired sessions, and
/// request records older than `GENERATION_RETENTION`, until the process ends.
pub fn spawn_hold_reaper(state: AppState) -> tokio::task::JoinHandle<()> {
    tokio::spawn(async move {
        let mut tick = tokio::time::interval(state.config.reaper_interval);
        loop {
            tick.tick().await;
            let now = now_ms();
            match state.store.expire_holds(now).await {
                Ok(0) => {}
                Ok(n) => tracing::info!(released = n, "expired credit holds released"),
                Err(e) => tracing::warn!(error = %e, "hold reaper failed; will retry"),
            }
            let before = now - state.config.hold_retention.as_millis() as i64;
            match state.store.prune_holds(before).await {
                Ok(0) => {}
                Ok(n) => tracing::debug!(pruned = n, "ended credit holds pruned"),
                Err(e) => tracing::warn!(error = %e, "pruning ended holds failed; will retry"),
            }
            if let Err(e) = state.store.prune_sessions(now).await {
                tracing::warn!(error = %e, "pruning expired sessions failed; will retry");
            }
            let before = now - shoal_store::GENERATION_RETENTION;
            if let Err(e) = state.store.prune_generations(before).await {
                tracing::warn!(error = %e, "pruning old request records failed; will retry");
            }
        }
    })
}
