//! Repeat offenders of the prompt policy. Every blocked prompt is counted for its key and
//! account in the store (counts only); a key whose blocks, or whose account's, reach the
//! operator's limit within the window is suspended from image generation: its image requests
//! are answered 403 `images_suspended` before anything else, until an operator clears it
//! (`shoal admin image-blocks clear`). The operator is told by a counter without labels and
//! a log line naming the account, never the key's prompt.

use std::time::Duration;

use shoal_gateway::{now_ms, ApiError, Caller, FileConfig};
use shoal_store::BlockRule;

use crate::Images;

const DEFAULT_LIMIT: u32 = 10;
const DEFAULT_WINDOW: Duration = Duration::from_secs(24 * 3600);

/// When blocked prompts suspend a key (`image_block_limit`, `image_block_window_secs`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Suspension {
    rule: BlockRule,
}

impl Default for Suspension {
    fn default() -> Self {
        Suspension::new(DEFAULT_LIMIT, DEFAULT_WINDOW)
    }
}

impl Suspension {
    /// `limit` blocks within `window` (at least a second); a limit of 0 never suspends.
    pub fn new(limit: u32, window: Duration) -> Suspension {
        let window_ms = i64::try_from(window.as_millis()).unwrap_or(i64::MAX);
        Suspension {
            rule: BlockRule {
                limit: i64::from(limit),
                window_ms: window_ms.max(1000),
            },
        }
    }

    pub fn from_file(file: &FileConfig) -> anyhow::Result<Suspension> {
        let window = match file.image_block_window_secs {
            Some(0) => anyhow::bail!("image_block_window_secs must be at least 1"),
            Some(secs) => Duration::from_secs(secs),
            None => DEFAULT_WINDOW,
        };
        let limit = file.image_block_limit.unwrap_or(DEFAULT_LIMIT);
        Ok(Suspension::new(limit, window))
    }
}

/// 403 when the caller's key is suspended from image generation.
pub async fn admit(state: &Images, caller: &Caller) -> Result<(), ApiError> {
    let store = &state.app.store;
    if store
        .image_suspended(caller.account_id, caller.key_id)
        .await?
    {
        return Err(ApiError::images_suspended());
    }
    Ok(())
}

/// Counts a blocked prompt for the caller's key, suspending it past the rule. Runs to the
/// end even when the client leaves, so a block is never lost by hanging up; a store failure
/// is logged and the request still answered as blocked.
pub async fn count_block(state: &Images, caller: &Caller) {
    let (store, rule) = (state.app.store.clone(), state.suspension.rule);
    let (account, key) = (caller.account_id, caller.key_id);
    let counted =
        tokio::spawn(async move { store.record_image_block(account, key, rule, now_ms()).await })
            .await;
    match counted {
        Ok(Ok(recorded)) if recorded.suspended => {
            state.metrics.keys_suspended.inc();
            tracing::warn!(
                account_id = account,
                "an API key was suspended from image generation after repeated blocked prompts \
                 (shoal admin image-blocks list)"
            );
        }
        Ok(Ok(_)) => {}
        Ok(Err(e)) => {
            tracing::error!(account_id = account, error = %e, "counting a blocked image prompt failed")
        }
        Err(_) => tracing::error!(
            account_id = account,
            "counting a blocked image prompt was cancelled"
        ),
    }
}
