//! Per-key request rate limits.
//!
//! [`RateLimiter`] is the seam: [`LocalGcra`] keeps state in this process (right for one
//! gateway); a limiter shared by several gateways (Redis, in `shoal-cluster`) implements the
//! same trait, because per-replica counters would let N replicas admit N times the limit.
//!
//! The algorithm is GCRA (the generic cell rate algorithm): one timestamp per key, the
//! "theoretical arrival time". A limit of R per minute admits a burst of R and then one request
//! every 60/R seconds.

use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use prometheus_client::registry::Registry;
use shoal_store::KeyId;

const WINDOW: Duration = Duration::from_secs(60);

/// The limiter's answer, with what the rate-limit headers report.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Decision {
    pub allowed: bool,
    pub limit: u32,
    pub remaining: u32,
    /// Until the key's full burst is available again.
    pub reset_after: Duration,
    /// When refused: until one request would be admitted.
    pub retry_after: Duration,
}

pub type DecisionFuture<'a> = Pin<Box<dyn Future<Output = Decision> + Send + 'a>>;

pub trait RateLimiter: Send + Sync + 'static {
    /// Counts one request for `key` against `limit_per_minute` and says whether it may pass.
    fn check(&self, key: KeyId, limit_per_minute: u32) -> DecisionFuture<'_>;

    /// Adds the limiter's own metrics (a shared limiter's round trips and failures) to the
    /// gateway's `/metrics`; called once, when the gateway's state is built.
    fn register_metrics(&self, _registry: &mut Registry) {}

    /// Whether the shared store behind the limiter answers (`/ready`); `None` for a limiter
    /// in this process, which has none.
    fn up(&self) -> Option<bool> {
        None
    }
}

/// GCRA with state in this process.
pub struct LocalGcra {
    epoch: Instant,
    /// Theoretical arrival time per key, in nanoseconds since `epoch`.
    tat: Mutex<HashMap<KeyId, u64>>,
}

impl Default for LocalGcra {
    fn default() -> Self {
        LocalGcra {
            epoch: Instant::now(),
            tat: Mutex::new(HashMap::new()),
        }
    }
}

impl LocalGcra {
    /// The decision at a given time; separate from the clock so tests can drive it.
    pub fn check_at(&self, key: KeyId, limit_per_minute: u32, now: Instant) -> Decision {
        let limit = limit_per_minute.max(1);
        let window = WINDOW.as_nanos() as u64;
        let interval = window / u64::from(limit);
        let tolerance = window - interval;
        let now = now.saturating_duration_since(self.epoch).as_nanos() as u64;

        let mut map = self.tat.lock().unwrap_or_else(|p| p.into_inner());
        if map.len() > 100_000 {
            // Keys whose TAT has passed are back at a full burst: forgetting them changes nothing.
            map.retain(|_, tat| *tat > now);
        }
        let tat = map.get(&key).copied().unwrap_or(now).max(now);
        if tat - now > tolerance {
            let retry = tat - tolerance - now;
            return Decision {
                allowed: false,
                limit,
                remaining: 0,
                reset_after: Duration::from_nanos(tat - now),
                retry_after: Duration::from_nanos(retry),
            };
        }
        let new_tat = tat + interval;
        map.insert(key, new_tat);
        let used = new_tat - now;
        Decision {
            allowed: true,
            limit,
            remaining: ((window - used.min(window)) / interval) as u32,
            reset_after: Duration::from_nanos(used),
            retry_after: Duration::ZERO,
        }
    }
}

impl RateLimiter for LocalGcra {
    fn check(&self, key: KeyId, limit_per_minute: u32) -> DecisionFuture<'_> {
        let decision = self.check_at(key, limit_per_minute, Instant::now());
        Box::pin(std::future::ready(decision))
    }
}

/// Formats a duration the way OpenAI's `x-ratelimit-reset-*` headers do: `1s`, `6m0s`, `250ms`.
pub fn format_reset(d: Duration) -> String {
    let ms = d.as_millis();
    if ms < 1000 {
        return format!("{ms}ms");
    }
    let total_secs = d.as_secs_f64();
    if total_secs < 60.0 {
        let s = format!("{:.3}", total_secs);
        let s = s.trim_end_matches('0').trim_end_matches('.');
        return format!("{s}s");
    }
    let mins = d.as_secs() / 60;
    let secs = d.as_secs() % 60;
    format!("{mins}m{secs}s")
}

/// Whole seconds for `Retry-After`, rounded up, at least 1.
pub fn retry_after_secs(d: Duration) -> u64 {
    d.as_nanos().div_ceil(1_000_000_000).max(1) as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn admits_a_full_burst_then_refuses() {
        let gcra = LocalGcra::default();
        let t0 = Instant::now();
        for i in 0..60u32 {
            let d = gcra.check_at(7, 60, t0);
            assert!(d.allowed, "request {} refused", i + 1);
            assert_eq!(d.remaining, 59 - i);
        }
        let d = gcra.check_at(7, 60, t0);
        assert!(!d.allowed);
        assert_eq!(d.remaining, 0);
        assert_eq!(retry_after_secs(d.retry_after), 1);
        // Another key is untouched.
        assert!(gcra.check_at(8, 60, t0).allowed);
    }

    #[test]
    fn refills_one_request_per_interval() {
        let gcra = LocalGcra::default();
        let t0 = Instant::now();
        for _ in 0..6 {
            assert!(gcra.check_at(1, 6, t0).allowed);
        }
        assert!(!gcra.check_at(1, 6, t0 + Duration::from_secs(9)).allowed);
        let d = gcra.check_at(1, 6, t0 + Duration::from_secs(10));
        assert!(d.allowed);
        assert_eq!(d.remaining, 0);
        // After a full window of silence the whole burst is back.
        let d = gcra.check_at(1, 6, t0 + Duration::from_secs(80));
        assert!(d.allowed);
        assert_eq!(d.remaining, 5);
    }

    #[test]
    fn refused_requests_do_not_consume() {
        let gcra = LocalGcra::default();
        let t0 = Instant::now();
        assert!(gcra.check_at(1, 1, t0).allowed);
        for s in 1..60 {
            assert!(!gcra.check_at(1, 1, t0 + Duration::from_secs(s)).allowed);
        }
        assert!(gcra.check_at(1, 1, t0 + Duration::from_secs(60)).allowed);
    }

    #[test]
    fn reset_header_format() {
        assert_eq!(format_reset(Duration::from_millis(250)), "250ms");
        assert_eq!(format_reset(Duration::from_secs(1)), "1s");
        assert_eq!(format_reset(Duration::from_millis(1500)), "1.5s");
        assert_eq!(format_reset(Duration::from_secs(360)), "6m0s");
    }
}
