//! How much credit a chat request could cost at most: the size of its hold.

use shoal_protocol::chat::ChatCompletionRequest;
use shoal_store::money::RateCard;

use crate::catalog::ModelSpec;

/// Output tokens the worker will be allowed to generate: the request's own limit, capped by
/// the model's. The job sent to a worker carries this number, so the hold always covers it.
pub fn output_token_cap(req: &ChatCompletionRequest, model: &ModelSpec) -> u32 {
    req.max_output_tokens()
        .map(|n| n.min(model.max_output_tokens))
        .unwrap_or(model.max_output_tokens)
}

/// Credits to hold: an upper bound of the prompt's tokens (at most the context length) at the
/// input price plus the output cap at the output price, rounded up, at least 1.
pub fn hold_credits(card: &RateCard, req: &ChatCompletionRequest, model: &ModelSpec) -> i64 {
    // A prompt longer than the context can't run, so the context caps the bound.
    let input = req
        .prompt_token_upper_bound()
        .min(u64::from(model.context_length));
    let input = i64::try_from(input).unwrap_or(i64::MAX);
    card.credits(input, i64::from(output_token_cap(req, model)))
}

/// [`output_token_cap`] as a closure over the model, for building the job.
pub fn output_token_cap_for(model: &ModelSpec) -> impl FnOnce(&ChatCompletionRequest) -> u32 + '_ {
    move |req| output_token_cap(req, model)
}
