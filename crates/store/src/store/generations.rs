//! A record of each request (`GET /api/v1/generation?id=`): its model, token counts, credits
//! charged, timings, how it finished and what kind of worker served it.
//!
//! Never a prompt or a completion (there is no column for text), never which worker, and no
//! key: only the account that made the request can read it back, and only for
//! [`GENERATION_RETENTION`] (`Store::prune_generations`, run by the gateway's reaper).

use shoal_protocol::codes::FinishReason;
use shoal_protocol::worker::WorkerKind;
use sqlx::Row;

use super::{account_missing, Store};
use crate::conns::Retry;
use crate::ledger::MAX_ID_LEN;
use crate::{AccountId, Millis, Result, StoreError};

/// How long a generation's record is kept (30 days), unless the operator prunes sooner.
pub const GENERATION_RETENTION: Millis = 30 * crate::money::DAY_MS;

/// One request's record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Generation {
    /// The completion's id (`chatcmpl-…`): what the client was given.
    pub id: String,
    pub account_id: AccountId,
    pub created_at: Millis,
    pub model: String,
    pub input_tokens: i64,
    pub output_tokens: i64,
    /// What the request was charged, to the credit.
    pub credits: i64,
    /// From the request's arrival to its last byte.
    pub latency_ms: i64,
    /// From the request's arrival to its first token, for a request that had one.
    pub time_to_first_token_ms: Option<i64>,
    pub finish_reason: Option<FinishReason>,
    pub worker_kind: WorkerKind,
}

/// How a worker kind is stored: its name on the wire.
fn worker_kind_code(kind: WorkerKind) -> &'static str {
    match kind {
        WorkerKind::Native => "native",
        WorkerKind::Upstream => "upstream",
        WorkerKind::Browser => "browser",
        WorkerKind::Swarm => "swarm",
        WorkerKind::Image => "image",
    }
}

fn worker_kind_of(code: &str) -> Result<WorkerKind> {
    [
        WorkerKind::Native,
        WorkerKind::Upstream,
        WorkerKind::Browser,
        WorkerKind::Swarm,
        WorkerKind::Image,
    ]
    .into_iter()
    .find(|k| worker_kind_code(*k) == code)
    .ok_or_else(|| StoreError::Internal(format!("a generation's worker kind is {code:?}")))
}

fn finish_reason_of(code: &str) -> Result<FinishReason> {
    [
        FinishReason::Stop,
        FinishReason::Length,
        FinishReason::ToolCalls,
        FinishReason::ContentFilter,
    ]
    .into_iter()
    .find(|r| r.as_str() == code)
    .ok_or_else(|| StoreError::Internal(format!("a generation's finish reason is {code:?}")))
}

fn check(g: &Generation) -> Result<()> {
    let ok = !g.id.is_empty()
        && g.id.len() <= MAX_ID_LEN
        && g.model.len() <= MAX_ID_LEN
        && [g.input_tokens, g.output_tokens, g.credits, g.latency_ms]
            .iter()
            .all(|n| *n >= 0)
        && g.time_to_first_token_ms.is_none_or(|t| t >= 0);
    if ok {
        Ok(())
    } else {
        Err(StoreError::Invalid(
            "a generation needs an id and a model of at most 256 bytes and no negative counts"
                .into(),
        ))
    }
}

impl Store {
    /// Keep a request's record. Recording the same id again changes nothing.
    pub async fn record_generation(&self, g: &Generation) -> Result<()> {
        check(g)?;
        write_id!(
            self,
            Retry::Idempotent,
            "INSERT INTO generations (id, account_id, created_at, model, input_tokens,
                                      output_tokens, credits, latency_ms, ttft_ms,
                                      finish_reason, worker_kind)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
             ON CONFLICT (id) DO NOTHING",
            g.id.clone(),
            g.account_id,
            g.created_at,
            g.model.clone(),
            g.input_tokens,
            g.output_tokens,
            g.credits,
            g.latency_ms,
            g.time_to_first_token_ms,
            g.finish_reason.map(|r| r.as_str().to_string()),
            worker_kind_code(g.worker_kind).to_string(),
        )
        .map_err(account_missing)?;
        Ok(())
    }

    /// The record of request `id`, if `account` made it (another account's id reads as
    /// unknown) and it is still kept.
    pub async fn generation(&self, account: AccountId, id: &str) -> Result<Option<Generation>> {
        if id.is_empty() || id.len() > MAX_ID_LEN {
            return Ok(None);
        }
        read!(self, c => {
            let row = sqlx::query(
                    "SELECT id, account_id, created_at, model, input_tokens, output_tokens,
                            credits, latency_ms, ttft_ms, finish_reason, worker_kind
                       FROM generations WHERE id = $1 AND account_id = $2")
                .bind(id)
                .bind(account)
                .fetch_optional(c)
                .await?;
            match row {
                Some(r) => Ok(Some(Generation {
                    id: r.try_get("id")?,
                    account_id: r.try_get("account_id")?,
                    created_at: r.try_get("created_at")?,
                    model: r.try_get("model")?,
                    input_tokens: r.try_get("input_tokens")?,
                    output_tokens: r.try_get("output_tokens")?,
                    credits: r.try_get("credits")?,
                    latency_ms: r.try_get("latency_ms")?,
                    time_to_first_token_ms: r.try_get("ttft_ms")?,
                    finish_reason: r
                        .try_get::<Option<String>, _>("finish_reason")?
                        .map(|c| finish_reason_of(&c))
                        .transpose()?,
                    worker_kind: worker_kind_of(&r.try_get::<String, _>("worker_kind")?)?,
                })),
                None => Ok(None),
            }
        })
    }

    /// Delete the records made before `before` (the reaper: `now - GENERATION_RETENTION`).
    pub async fn prune_generations(&self, before: Millis) -> Result<()> {
        write_id!(
            self,
            Retry::Idempotent,
            "DELETE FROM generations WHERE created_at < $1",
            before
        )?;
        Ok(())
    }
}
