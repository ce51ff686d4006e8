//! The cross-replica hops on `/metrics` (`shoal_cluster_*`).

use prometheus_client::encoding::{EncodeLabelSet, EncodeLabelValue, LabelValueEncoder};
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::{exponential_buckets, Histogram};
use prometheus_client::registry::Registry;

/// How a forwarded job's hand-over ended.
#[derive(Debug, Clone, Copy, Hash, PartialEq, Eq)]
pub enum HandOver {
    /// A worker of the other replica took it.
    Accepted,
    /// The other replica had no free worker for it.
    Refused,
    /// The other replica did not answer (gone, or NATS is down).
    Unreachable,
    /// Larger than NATS's `max_payload`: not sent.
    TooLarge,
}

impl EncodeLabelValue for HandOver {
    fn encode(&self, out: &mut LabelValueEncoder) -> std::fmt::Result {
        use std::fmt::Write;
        out.write_str(match self {
            HandOver::Accepted => "accepted",
            HandOver::Refused => "refused",
            HandOver::Unreachable => "unreachable",
            HandOver::TooLarge => "too_large",
        })
    }
}

#[derive(Debug, Clone, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct HandOverLabels {
    pub outcome: HandOver,
}

#[derive(Clone)]
pub struct JobMetrics {
    /// Jobs this replica sent to another one, by how the hand-over ended.
    pub forwarded: Family<HandOverLabels, Counter>,
    /// From sending a job to another replica to its answer that a worker took it.
    pub hop_seconds: Histogram,
    /// From sending a job to another replica to the job's first event arriving back here.
    pub first_event_seconds: Histogram,
    /// Jobs this replica's workers ran for other replicas.
    pub served: Counter,
    /// Other replicas this one hears now.
    pub replicas: Gauge,
    /// Other replicas' models this one can dispatch to (one peer per replica and model).
    pub peers: Gauge,
    /// Replicas that went silent (their jobs here failed over or ended with an error).
    pub replicas_lost: Counter,
    /// Replicas that shut down cleanly and said so.
    pub replicas_left: Counter,
    /// Jobs cancelled by their origin while they waited here for a worker.
    pub cancelled_queued: Counter,
    /// 1 while the NATS connection is up.
    pub nats_up: Gauge,
}

impl Default for JobMetrics {
    fn default() -> Self {
        JobMetrics {
            forwarded: Family::default(),
            // 20 µs … ~10 s
            hop_seconds: Histogram::new(exponential_buckets(0.000_02, 2.0, 20)),
            first_event_seconds: Histogram::new(exponential_buckets(0.000_02, 2.0, 24)),
            served: Counter::default(),
            replicas: Gauge::default(),
            peers: Gauge::default(),
            replicas_lost: Counter::default(),
            replicas_left: Counter::default(),
            cancelled_queued: Counter::default(),
            nats_up: Gauge::default(),
        }
    }
}

impl JobMetrics {
    pub fn register(&self, registry: &mut Registry) {
        let r = registry.sub_registry_with_prefix("cluster");
        r.register(
            "forwarded_jobs",
            "Jobs sent to another replica's workers, by how the hand-over ended",
            self.forwarded.clone(),
        );
        r.register(
            "hop_seconds",
            "From sending a job to another replica to its answer that a worker took it",
            self.hop_seconds.clone(),
        );
        r.register(
            "forwarded_first_event_seconds",
            "From sending a job to another replica to its first event arriving back",
            self.first_event_seconds.clone(),
        );
        r.register(
            "served_jobs",
            "Jobs this replica's workers ran for other replicas",
            self.served.clone(),
        );
        r.register(
            "replicas",
            "Other replicas heard within the last three heartbeats",
            self.replicas.clone(),
        );
        r.register(
            "peers",
            "Other replicas' models this one can dispatch to, one per replica and model",
            self.peers.clone(),
        );
        r.register(
            "replicas_lost",
            "Replicas that went silent",
            self.replicas_lost.clone(),
        );
        r.register(
            "replicas_left",
            "Replicas that shut down cleanly and said so",
            self.replicas_left.clone(),
        );
        r.register(
            "cancelled_queued_jobs",
            "Jobs for other replicas cancelled by their origin while waiting here for a worker",
            self.cancelled_queued.clone(),
        );
        r.register(
            "nats_up",
            "1 while the NATS connection is up",
            self.nats_up.clone(),
        );
    }

    pub fn handed_over(&self, outcome: HandOver) {
        self.forwarded
            .get_or_create(&HandOverLabels { outcome })
            .inc();
    }
}
