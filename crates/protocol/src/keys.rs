//! The keys API (`/api/v1/keys`, for a management key), a key's own view of itself
//! (`GET /api/v1/key`) and a request's record (`GET /api/v1/generation`), after OpenRouter's
//! endpoints of the same names: every answer's object is under `data`.
//!
//! Money is whole credits (1 credit = USD 0.001), times are Unix seconds (UTC).

use serde::{Deserialize, Deserializer, Serialize};

use crate::codes::FinishReason;
use crate::cost::UsdOfCredits;
use crate::parse::json_error::Vocabulary;
use crate::parse::{parse_body, InvalidRequest};
use crate::worker::WorkerKind;

/// How often a key's spending limit starts again (UTC boundaries: the day, the week from
/// Monday, the month), or `never` (a lifetime limit).
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LimitReset {
    Daily,
    Weekly,
    Monthly,
    Never,
}

/// What a key may do: run requests, or manage the account's keys (and nothing else).
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum KeyKind {
    Inference,
    Management,
}

/// `POST /api/v1/keys`: a new inference key. Unknown fields are ignored.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
pub struct CreateKeyRequest {
    /// A label for people (at most 256 bytes).
    #[serde(default)]
    pub name: Option<String>,
    /// A spending limit in credits per window; absent or null: none.
    #[cfg_attr(feature = "openapi", schema(minimum = 0))]
    #[serde(default)]
    pub limit: Option<i64>,
    /// The limit's window; `never` when absent. Only with `limit`.
    #[serde(default)]
    pub limit_reset: Option<LimitReset>,
    /// Requests per minute; absent: the gateway's default.
    #[cfg_attr(feature = "openapi", schema(minimum = 1, maximum = 1_000_000))]
    #[serde(default)]
    pub rpm: Option<u32>,
    /// Requests in flight at once, per replica; absent: the gateway's `key_concurrency`.
    #[cfg_attr(feature = "openapi", schema(minimum = 1, maximum = 100_000))]
    #[serde(default)]
    pub concurrency: Option<u32>,
}

/// `PATCH /api/v1/keys/{id}`: what to change; a field left out stays as it is.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
pub struct UpdateKeyRequest {
    /// A new label; null removes it.
    #[cfg_attr(feature = "openapi", schema(value_type = Option<String>))]
    #[serde(default, deserialize_with = "present")]
    pub name: Option<Option<String>>,
    /// A new limit in credits; null removes the limit.
    #[cfg_attr(feature = "openapi", schema(value_type = Option<i64>, minimum = 0))]
    #[serde(default, deserialize_with = "present")]
    pub limit: Option<Option<i64>>,
    /// The limit's window (with `limit`, or changing the window of the key's limit).
    #[serde(default)]
    pub limit_reset: Option<LimitReset>,
    /// Requests in flight at once, per replica; null: the gateway's `key_concurrency`.
    #[cfg_attr(feature = "openapi", schema(value_type = Option<u32>, minimum = 1, maximum = 100_000))]
    #[serde(default, deserialize_with = "present")]
    pub concurrency: Option<Option<u32>>,
}

/// A field that was sent, null or not (`Some(None)` is an explicit null).
fn present<'de, D, T>(d: D) -> Result<Option<Option<T>>, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de>,
{
    Option::<T>::deserialize(d).map(Some)
}

/// A key's request rate limit.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RateLimit {
    /// Requests allowed per `interval`.
    pub requests: u32,
    /// Always `"1m"`.
    pub interval: String,
}

/// One API key as the keys API and `GET /api/v1/key` show it: never the key itself, only its
/// first characters (`label`).
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct KeyObject {
    pub id: i64,
    /// The key's first characters, e.g. `sk-shoal-AbCd…`.
    pub label: String,
    pub name: Option<String>,
    pub kind: KeyKind,
    /// Revoked: it authenticates nothing any more.
    pub disabled: bool,
    /// Spending limit in credits per window; null: none.
    pub limit: Option<i64>,
    /// The limit's window; null without a limit.
    pub limit_reset: Option<LimitReset>,
    /// Credits left of the limit in this window, requests in flight counted; null without a
    /// limit.
    pub limit_remaining: Option<i64>,
    /// When the next window starts (Unix seconds); null without a limit or for `never`.
    pub limit_resets_at: Option<i64>,
    /// Credits this key spent in the limit's current window (0 without a limit).
    pub usage: i64,
    /// Credits this key spent today (UTC), limit or not.
    pub usage_daily: i64,
    /// Requests this key settled today (UTC).
    pub requests_daily: i64,
    pub rate_limit: RateLimit,
    /// Requests it may have in flight at once on one replica: its own cap, or the gateway's
    /// `key_concurrency`; one more is refused with 429.
    pub concurrency: u32,
    /// Unix seconds.
    pub created_at: i64,
}

/// `{"data": KeyObject}`: `GET /key`, `GET /keys/{id}` and `PATCH /keys/{id}`.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct KeyData {
    pub data: KeyObject,
}

/// `POST /keys`'s answer: the key, shown this once, and its object.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CreatedKey {
    pub data: KeyObject,
    /// The key itself (`sk-shoal-…`). Only its hash is kept: it is never shown again.
    pub key: String,
}

/// `GET /keys`: every key of the account, revoked ones included, oldest first.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct KeyList {
    pub data: Vec<KeyObject>,
}

/// `DELETE /keys/{id}`'s answer.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DeletedKey {
    pub id: i64,
    /// Always true: the key is revoked (again is not an error).
    pub deleted: bool,
}

/// One request's record: what it ran on, used, cost and how long it took. No text, no worker,
/// no key.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct GenerationObject {
    /// The answer's id (`chatcmpl-…`, `resp_…`, `msg_…`).
    pub id: String,
    pub model: String,
    /// Unix seconds.
    pub created_at: i64,
    pub tokens_prompt: i64,
    pub tokens_completion: i64,
    /// What the request was charged, in credits: its answer's `usage.cost`.
    pub total_cost: i64,
    /// `total_cost` in USD, a decimal string.
    #[cfg_attr(feature = "openapi", schema(value_type = String, example = "0.007"))]
    pub total_cost_usd: UsdOfCredits,
    /// Milliseconds from the request's arrival to its end.
    pub latency: i64,
    /// Milliseconds from the request's arrival to the worker's first event; null when there
    /// was none.
    pub time_to_first_token: Option<i64>,
    /// Null when the answer did not finish (the worker failed, the client left).
    pub finish_reason: Option<FinishReason>,
    /// What kind of worker served it (never which one).
    pub worker_kind: WorkerKind,
}

/// `{"data": GenerationObject}`.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct GenerationData {
    pub data: GenerationObject,
}

/// The most requests per minute a key made through the API may have.
pub const MAX_RPM: u32 = 1_000_000;

const FIELD_NAMES: &[&str] = &["name", "limit", "limit_reset", "rpm", "concurrency"];

const VOCABULARY: Vocabulary = Vocabulary {
    fields: FIELD_NAMES,
    expected,
};

fn expected(path: &str) -> Option<&'static str> {
    Some(match path {
        "name" => "a string or null",
        "limit" => "a whole number of credits (0 or more) or null",
        "limit_reset" => "`daily`, `weekly`, `monthly` or `never`",
        "rpm" => "a whole number of requests per minute, 1 to 1000000",
        "concurrency" => "a whole number of requests in flight, 1 to 100000, or null",
        _ => return None,
    })
}

/// Parses and checks a `POST /keys` body.
pub fn parse_create_key(body: &[u8]) -> Result<CreateKeyRequest, InvalidRequest> {
    let req: CreateKeyRequest = parse_body(body, &VOCABULARY)?;
    check_limit(req.limit)?;
    if req.limit.is_none() && req.limit_reset.is_some() {
        return Err(InvalidRequest::new(
            "limit_reset",
            "`limit_reset` needs a `limit`",
        ));
    }
    if req.rpm.is_some_and(|r| !(1..=MAX_RPM).contains(&r)) {
        return Err(InvalidRequest::new(
            "rpm",
            format!("`rpm` must be 1 to {MAX_RPM}"),
        ));
    }
    check_concurrency(req.concurrency)?;
    Ok(req)
}

/// Parses and checks a `PATCH /keys/{id}` body.
pub fn parse_update_key(body: &[u8]) -> Result<UpdateKeyRequest, InvalidRequest> {
    let req: UpdateKeyRequest = parse_body(body, &VOCABULARY)?;
    check_limit(req.limit.flatten())?;
    check_concurrency(req.concurrency.flatten())?;
    if req.limit == Some(None) && req.limit_reset.is_some() {
        return Err(InvalidRequest::new(
            "limit_reset",
            "`limit_reset` needs a `limit`; `limit: null` removes the limit",
        ));
    }
    Ok(req)
}

/// The most requests in flight a key may be given.
const MAX_CONCURRENCY: u32 = 100_000;

fn check_concurrency(concurrency: Option<u32>) -> Result<(), InvalidRequest> {
    match concurrency {
        Some(n) if !(1..=MAX_CONCURRENCY).contains(&n) => Err(InvalidRequest::new(
            "concurrency",
            format!("`concurrency` must be 1 to {MAX_CONCURRENCY}"),
        )),
        _ => Ok(()),
    }
}

fn check_limit(limit: Option<i64>) -> Result<(), InvalidRequest> {
    match limit {
        Some(n) if n < 0 => Err(InvalidRequest::new(
            "limit",
            "`limit` must be 0 or more credits",
        )),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn create_bodies() {
        let r = parse_create_key(br#"{"name":"agent","limit":20,"limit_reset":"daily"}"#).unwrap();
        assert_eq!(r.limit, Some(20));
        assert_eq!(r.limit_reset, Some(LimitReset::Daily));
        assert_eq!(
            parse_create_key(b"{}").unwrap(),
            CreateKeyRequest::default()
        );
        for (body, param) in [
            (&br#"{"limit":-1}"#[..], "limit"),
            (br#"{"limit":"x"}"#, "limit"),
            (br#"{"limit":1,"limit_reset":"hourly"}"#, "limit_reset"),
            (br#"{"limit_reset":"daily"}"#, "limit_reset"),
            (br#"{"rpm":0}"#, "rpm"),
            (br#"{"rpm":2147483648}"#, "rpm"),
            (br#"{"concurrency":0}"#, "concurrency"),
            (br#"{"concurrency":100001}"#, "concurrency"),
        ] {
            let e = parse_create_key(body).unwrap_err();
            assert_eq!(e.param.as_deref(), Some(param), "{e:?}");
            assert!(!e.message.contains("hourly") && !e.message.contains("\"x\""));
        }
        assert!(parse_create_key(b"[]").unwrap_err().param.is_none());
    }

    #[test]
    fn update_tells_null_from_absent() {
        let r = parse_update_key(br#"{"limit":null}"#).unwrap();
        assert_eq!((r.limit, r.name), (Some(None), None));
        let r = parse_update_key(br#"{"limit":5,"name":null}"#).unwrap();
        assert_eq!((r.limit, r.name), (Some(Some(5)), Some(None)));
        let e = parse_update_key(br#"{"limit":null,"limit_reset":"weekly"}"#).unwrap_err();
        assert_eq!(e.param.as_deref(), Some("limit_reset"));
        let r = parse_update_key(br#"{"concurrency":null}"#).unwrap();
        assert_eq!(r.concurrency, Some(None));
        let r = parse_update_key(br#"{"concurrency":4}"#).unwrap();
        assert_eq!(r.concurrency, Some(Some(4)));
        let e = parse_update_key(br#"{"concurrency":0}"#).unwrap_err();
        assert_eq!(e.param.as_deref(), Some("concurrency"));
    }
}
