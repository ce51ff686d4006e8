//! Prometheus metrics, served on `GET /metrics`.
//!
//! Labels come from small fixed sets (route templates, status codes, model ids from the
//! catalog): nothing from a request body can become a label.

use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::{exponential_buckets, Histogram};
use std::sync::Mutex;

use prometheus_client::registry::Registry;

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct RequestLabels {
    pub route: String,
    pub status: u16,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct WorkerLabels {
    /// `wrk_<id>`, as the worker's `welcome` and the gateway's log name it.
    pub worker: String,
}

pub struct Metrics {
    /// Locked only to register (at start) and to encode (a scrape).
    registry: Mutex<Registry>,
    pub requests: Family<RequestLabels, Counter>,
    /// Time spent in the gateway on a chat request, minus the time spent waiting on the
    /// worker: what Shoal adds to a request's latency (to the whole body, or to the first
    /// chunk of a stream).
    pub overhead: Histogram,
    /// From a request's arrival to its job being handed to a worker's socket.
    pub dispatch_wait: Histogram,
    pub workers_connected: Gauge,
    pub credits_charged: Counter,
    /// Usage reports cut to the job's bounds, per worker.
    pub usage_clamped: Family<WorkerLabels, Counter>,
    /// Structured answers that failed the gateway's check (`shoal-answer-check`), per worker.
    pub answers_rejected: Family<WorkerLabels, Counter>,
}

impl Default for Metrics {
    fn default() -> Self {
        let mut registry = Registry::with_prefix("shoal");
        let requests = Family::<RequestLabels, Counter>::default();
        registry.register(
            "http_requests",
            "HTTP requests answered, by route and status",
            requests.clone(),
        );
        // 10 µs … ~5 s
        let overhead = Histogram::new(exponential_buckets(0.000_01, 2.0, 20));
        registry.register(
            "gateway_overhead_seconds",
            "Time in the gateway minus time waiting on the worker, per chat request",
            overhead.clone(),
        );
        let dispatch_wait = Histogram::new(exponential_buckets(0.000_01, 2.0, 24));
        registry.register(
            "dispatch_wait_seconds",
            "Time from a chat request's arrival to its job reaching a worker",
            dispatch_wait.clone(),
        );
        let workers_connected = Gauge::default();
        registry.register(
            "workers_connected",
            "Workers connected now",
            workers_connected.clone(),
        );
        let credits_charged = Counter::default();
        registry.register(
            "credits_charged",
            "Credits charged by settled requests",
            credits_charged.clone(),
        );
        let usage_clamped = Family::<WorkerLabels, Counter>::default();
        registry.register(
            "worker_usage_clamped",
            "Usage reports a worker sent beyond the job's bounds (prompt bound, output cap), cut to them",
            usage_clamped.clone(),
        );
        let answers_rejected = Family::<WorkerLabels, Counter>::default();
        registry.register(
            "worker_answers_rejected",
            "Structured answers (response_format json_object / json_schema, strict tools) a worker sent that did not match what the request asked for",
            answers_rejected.clone(),
        );
        Metrics {
            registry: Mutex::new(registry),
            usage_clamped,
            answers_rejected,
            requests,
            overhead,
            dispatch_wait,
            workers_connected,
            credits_charged,
        }
    }
}

impl Metrics {
    /// Where other parts (a shared rate limiter) register metrics of their own.
    pub fn registry_mut(&mut self) -> &mut Registry {
        self.registry
            .get_mut()
            .expect("the metrics registry is never poisoned")
    }

    /// Registers metrics of another crate (images) on a running gateway.
    pub fn register(&self, add: impl FnOnce(&mut Registry)) {
        add(&mut self
            .registry
            .lock()
            .expect("the metrics registry is never poisoned"))
    }

    pub fn usage_clamped(&self, worker: u64) {
        self.usage_clamped
            .get_or_create(&WorkerLabels {
                worker: format!("wrk_{worker}"),
            })
            .inc();
    }

    pub fn answer_rejected(&self, worker: u64) {
        self.answers_rejected
            .get_or_create(&WorkerLabels {
                worker: format!("wrk_{worker}"),
            })
            .inc();
    }

    /// Serves the pool's counters beside the rest.
    pub fn register_pool(&mut self, counters: &crate::workers::pool::PoolCounters) {
        let r = self.registry_mut();
        r.register(
            "jobs_dispatched",
            "Jobs sent to a worker (failovers included)",
            counters.dispatched.clone(),
        );
        r.register(
            "job_failovers",
            "Jobs sent to another worker after one failed the same request before its first token",
            counters.failovers.clone(),
        );
        r.register(
            "job_slots_freed",
            "Worker slots freed, by what ended the job (done, error, worker_lost, abandoned)",
            counters.freed.clone(),
        );
    }

    pub fn encode(&self) -> String {
        let mut out = String::new();
        let registry = self
            .registry
            .lock()
            .expect("the metrics registry is never poisoned");
        prometheus_client::encoding::text::encode(&mut out, &registry)
            .expect("writing to a String");
        out
    }
}
