//! How much a chat request could cost at most (the size of its hold), and the most tokens a
//! worker can truthfully report for it.

use shoal_protocol::chat::ChatCompletionRequest;
use shoal_protocol::worker::JobUsage;
use shoal_store::money::RateCard;

use crate::chat::catalog::ModelSpec;

/// Output tokens the worker will be allowed to generate: the request's own limit, capped by
/// the model's. The job sent to a worker carries this number, so the hold always covers it.
pub fn output_token_cap(req: &ChatCompletionRequest, model: &ModelSpec) -> u32 {
    req.max_output_tokens()
        .map(|n| n.min(model.max_output_tokens))
        .unwrap_or(model.max_output_tokens)
}

/// The most tokens a job can use, known before dispatch: the prompt's upper bound (a prompt
/// longer than the context can't run, so the context caps it) and the job's output cap.
/// A worker's report beyond them counts tokens that could not exist.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UsageBounds {
    pub prompt_tokens: u64,
    pub completion_tokens: u32,
}

impl UsageBounds {
    pub fn of(req: &ChatCompletionRequest, model: &ModelSpec) -> Self {
        UsageBounds {
            prompt_tokens: req
                .prompt_token_upper_bound()
                .min(u64::from(model.context_length)),
            completion_tokens: output_token_cap(req, model),
        }
    }

    /// Credits to hold: the bounds at the rate card's prices, rounded up, at least 1.
    pub fn hold_credits(&self, card: &RateCard) -> i64 {
        let input = i64::try_from(self.prompt_tokens).unwrap_or(i64::MAX);
        card.credits(input, i64::from(self.completion_tokens))
    }

    /// `usage` with each count cut to its bound (reasoning tokens are part of the completion
    /// tokens, so they are cut to those); true when any count was cut.
    pub fn clamp(&self, usage: &mut JobUsage) -> bool {
        let before = *usage;
        usage.prompt_tokens = usage.prompt_tokens.min(self.prompt_tokens);
        usage.completion_tokens = usage
            .completion_tokens
            .min(u64::from(self.completion_tokens));
        usage.reasoning_tokens = usage.reasoning_tokens.min(usage.completion_tokens);
        usage.cached_tokens = usage.cached_tokens.min(usage.prompt_tokens);
        *usage != before
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clamp_cuts_each_count_to_its_bound() {
        let bounds = UsageBounds {
            prompt_tokens: 150,
            completion_tokens: 16,
        };
        let mut honest = JobUsage {
            prompt_tokens: 150,
            completion_tokens: 16,
            reasoning_tokens: 16,
            cached_tokens: 0,
        };
        assert!(!bounds.clamp(&mut honest));
        assert_eq!(honest.prompt_tokens, 150);
        let mut inflated = JobUsage {
            prompt_tokens: 100_000,
            completion_tokens: 100_000,
            reasoning_tokens: 100_000,
            cached_tokens: 0,
        };
        assert!(bounds.clamp(&mut inflated));
        assert_eq!(
            inflated,
            JobUsage {
                prompt_tokens: 150,
                completion_tokens: 16,
                reasoning_tokens: 16,
                cached_tokens: 0,
            }
        );
        let mut reasoning_only = JobUsage {
            prompt_tokens: 3,
            completion_tokens: 4,
            reasoning_tokens: 9,
            cached_tokens: 0,
        };
        assert!(bounds.clamp(&mut reasoning_only));
        assert_eq!(reasoning_only.reasoning_tokens, 4);
    }
}
