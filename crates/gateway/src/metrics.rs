//! Prometheus metrics, served on `GET /metrics`.
//!
//! Labels come from small fixed sets (route templates, status codes, model ids from the
//! catalog): nothing from a request body can become a label.

use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::{exponential_buckets, Histogram};
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
    registry: Registry,
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
    /// Image requests by how they ended (`ok`, `invalid`, `prompt_blocked`, …).
    pub image_requests: Family<crate::images::OutcomeLabels, Counter>,
    /// Prompts the content policy blocked, by the rule that fired.
    pub image_prompts_blocked: Family<crate::images::RuleLabels, Counter>,
    /// Time in the gateway on an image request, minus the render.
    pub image_overhead: Histogram,
    /// Sampling steps reported by image workers.
    pub image_steps: Counter,
    /// Rendered images the output check withheld, by rule (`adult` in SFW mode;
    /// `minor_with_adult`, the absolute line, in both modes).
    pub image_outputs_blocked: Family<crate::images::RuleLabels, Counter>,
    /// Time the output check took per image (decode, classifier), waiting for it included.
    pub image_check: Histogram,
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
        let image_requests = Family::default();
        registry.register(
            "image_requests",
            "Image requests, by how they ended",
            image_requests.clone(),
        );
        let image_prompts_blocked = Family::default();
        registry.register(
            "image_prompts_blocked",
            "Image prompts blocked by the content policy, by rule",
            image_prompts_blocked.clone(),
        );
        let image_overhead = Histogram::new(exponential_buckets(0.000_01, 2.0, 20));
        registry.register(
            "image_gateway_overhead_seconds",
            "Time in the gateway minus the render, per successful image request",
            image_overhead.clone(),
        );
        let image_steps = Counter::default();
        registry.register(
            "image_steps",
            "Sampling steps reported by image workers",
            image_steps.clone(),
        );
        let image_outputs_blocked = Family::default();
        registry.register(
            "image_outputs_blocked",
            "Rendered images withheld by the output check, by rule",
            image_outputs_blocked.clone(),
        );
        // 1 ms … ~33 s
        let image_check = Histogram::new(exponential_buckets(0.001, 2.0, 16));
        registry.register(
            "image_check_seconds",
            "Time the output check took per rendered image, its queue included",
            image_check.clone(),
        );
        Metrics {
            registry,
            image_outputs_blocked,
            image_check,
            usage_clamped,
            image_requests,
            image_prompts_blocked,
            image_overhead,
            image_steps,
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
        &mut self.registry
    }

    pub fn usage_clamped(&self, worker: u64) {
        self.usage_clamped
            .get_or_create(&WorkerLabels {
                worker: format!("wrk_{worker}"),
            })
            .inc();
    }

    /// Serves the pool's counters beside the rest.
    pub fn register_pool(&mut self, counters: &crate::pool::PoolCounters) {
        self.registry.register(
            "jobs_dispatched",
            "Jobs sent to a worker (failovers included)",
            counters.dispatched.clone(),
        );
        self.registry.register(
            "job_failovers",
            "Jobs sent to another worker after one failed the same request before its first token",
            counters.failovers.clone(),
        );
        self.registry.register(
            "job_slots_freed",
            "Worker slots freed, by what ended the job (done, error, worker_lost, abandoned)",
            counters.freed.clone(),
        );
    }

    pub fn register_swarm(&mut self, m: &crate::swarm::SwarmMetrics) {
        let r = &mut self.registry;
        r.register(
            "swarm_available",
            "1 while live swarm spans cover every layer of a model",
            m.available.clone(),
        );
        r.register("swarm_nodes", "Live swarm span nodes", m.nodes.clone());
        r.register(
            "swarm_gap_layers",
            "Layers of swarm models that no live span holds",
            m.gap_layers.clone(),
        );
        r.register(
            "swarm_sessions",
            "Swarm sessions opened (one per job on a chain)",
            m.sessions.clone(),
        );
        r.register(
            "swarm_sessions_broken",
            "Swarm sessions that lost a node while running",
            m.broken.clone(),
        );
        r.register(
            "swarm_sessions_rerouted",
            "Swarm sessions that lost a node and went on through another chain",
            m.rerouted.clone(),
        );
        r.register(
            "swarm_sessions_resumed",
            "Swarm sessions that lost their entry mid-generation and went on from another entry \
             (also counted as rerouted)",
            m.resumed.clone(),
        );
        r.register(
            "swarm_covered",
            "Per swarm model (fingerprint): 1 while live spans cover its layers",
            m.covered.clone(),
        );
        r.register(
            "swarm_gap",
            "Per layer range no live span of a swarm model holds: its size in layers",
            m.gaps.clone(),
        );
        r.register(
            "swarm_node_sessions",
            "Per live span node: sessions running on it",
            m.node_sessions.clone(),
        );
        r.register(
            "swarm_node_capacity",
            "Per live span node: sessions it takes at once",
            m.node_capacity.clone(),
        );
        r.register(
            "swarm_frames",
            "Swarm frames relayed between span nodes",
            m.frames.clone(),
        );
        r.register(
            "swarm_frame_bytes",
            "Bytes of swarm frames relayed",
            m.frame_bytes.clone(),
        );
    }

    pub fn encode(&self) -> String {
        let mut out = String::new();
        prometheus_client::encoding::text::encode(&mut out, &self.registry)
            .expect("writing to a String");
        out
    }
}
