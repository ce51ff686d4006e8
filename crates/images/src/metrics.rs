//! The image endpoints' metrics, served with the gateway's on `GET /metrics`.
//!
//! Labels come from fixed sets (outcomes, policy rules): nothing from a request.

use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::histogram::{exponential_buckets, Histogram};
use prometheus_client::registry::Registry;

/// Labels of `shoal_image_requests`: how each image request ended (a fixed set).
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct OutcomeLabels {
    pub outcome: &'static str,
}

/// Labels of `shoal_image_prompts_blocked`: the policy rule that fired (a fixed set).
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct RuleLabels {
    pub rule: &'static str,
}

pub struct ImageMetrics {
    /// Image requests by how they ended (`ok`, `invalid`, `prompt_blocked`, …).
    pub requests: Family<OutcomeLabels, Counter>,
    /// Prompts the content policy blocked, by the rule that fired.
    pub prompts_blocked: Family<RuleLabels, Counter>,
    /// Keys suspended from image generation after repeated blocked prompts (no labels: who
    /// was suspended is in the store and the log, never in a metric).
    pub keys_suspended: Counter,
    /// Time in the gateway on an image request, minus the render.
    pub overhead: Histogram,
    /// Sampling steps reported by image workers.
    pub steps: Counter,
    /// Rendered images the output check withheld, by rule (`adult` in SFW mode;
    /// `minor_with_adult`, the absolute line, in both modes; `minor_in_nsfw`).
    pub outputs_blocked: Family<RuleLabels, Counter>,
    /// Time the output check took per image (decode, classifier), waiting for it included.
    pub check_seconds: Histogram,
}

impl Default for ImageMetrics {
    fn default() -> Self {
        ImageMetrics {
            requests: Family::default(),
            prompts_blocked: Family::default(),
            keys_suspended: Counter::default(),
            // 10 µs … ~5 s
            overhead: Histogram::new(exponential_buckets(0.000_01, 2.0, 20)),
            steps: Counter::default(),
            outputs_blocked: Family::default(),
            // 1 ms … ~33 s
            check_seconds: Histogram::new(exponential_buckets(0.001, 2.0, 16)),
        }
    }
}

impl ImageMetrics {
    pub fn register(&self, registry: &mut Registry) {
        registry.register(
            "image_requests",
            "Image requests, by how they ended",
            self.requests.clone(),
        );
        registry.register(
            "image_prompts_blocked",
            "Image prompts blocked by the content policy, by rule",
            self.prompts_blocked.clone(),
        );
        registry.register(
            "image_keys_suspended",
            "Keys suspended from image generation after repeated blocked prompts",
            self.keys_suspended.clone(),
        );
        registry.register(
            "image_gateway_overhead_seconds",
            "Time in the gateway minus the render, per successful image request",
            self.overhead.clone(),
        );
        registry.register(
            "image_steps",
            "Sampling steps reported by image workers",
            self.steps.clone(),
        );
        registry.register(
            "image_outputs_blocked",
            "Rendered images withheld by the output check, by rule",
            self.outputs_blocked.clone(),
        );
        registry.register(
            "image_check_seconds",
            "Time the output check took per rendered image, its queue included",
            self.check_seconds.clone(),
        );
    }
}
