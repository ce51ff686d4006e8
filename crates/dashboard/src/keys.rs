//! The API tab: the account's keys with their spending limits (what is left, when the window
//! starts again), and the forms that create a key (with a limit if asked), set, change or
//! remove a key's limit, and revoke a key.
//!
//! A new key is in the answer to its form and nowhere else (so that answer is a page, not a
//! redirect); the other forms answer with a redirect to the tab, so a reload re-sends nothing.
//! Every form passes `session::refuse_cross_site`, as all of the dashboard's do.

use std::time::Instant;

use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Form;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use shoal_gateway::{now_ms, ApiError, AppState};
use shoal_store::money::{self, LimitReset};
use shoal_store::{
    ApiKeyInfo, KeyId, KeyKind, KeyLimit, KeyUsage, NewKey, StoreError, MAX_CREDITS,
};

use super::chart;
use super::once::FormOnce;
use super::pages::{see_other, signed_in, SignedIn};
use super::templates::render;
use crate::Site;

/// Longest key name.
const MAX_KEY_NAME: usize = 64;

#[derive(Serialize)]
struct KeyRow {
    id: KeyId,
    name: String,
    prefix: String,
    kind: &'static str,
    created: String,
    /// The latest settled request's time, `None`: never used.
    last_used: Option<String>,
    state: &'static str,
    /// The limit's credits and window (`daily`…), `None` without one.
    limit: Option<i64>,
    limit_reset: Option<&'static str>,
    /// What is left in this window (requests in flight counted), and when the next window
    /// starts (`None` for a lifetime limit).
    remaining: Option<i64>,
    resets: Option<String>,
    /// Credits spent in this window.
    spent: i64,
}

fn row_of(k: ApiKeyInfo, usage: &KeyUsage, last_used: Option<i64>) -> KeyRow {
    KeyRow {
        id: k.id,
        name: k.name.unwrap_or_default(),
        prefix: k.prefix,
        kind: k.kind.as_str(),
        created: chart::date(money::utc_day(k.created_at)),
        last_used: last_used.map(chart::date_time),
        state: if k.revoked_at.is_some() {
            "revoked"
        } else {
            "active"
        },
        limit: k.limit.map(|l| l.credits),
        limit_reset: k.limit.map(|l| l.reset.as_str()),
        remaining: usage.remaining,
        resets: usage.resets_at.map(chart::date_time),
        spent: usage.window_spent,
    }
}

/// The tab, with `extra` (`new_key`, `limit_error`) beside the keys.
async fn keys_view(state: &AppState, me: &SignedIn, status: StatusCode, extra: Value) -> Response {
    match key_rows(state, me).await {
        Ok(rows) => {
            let mut ctx = json!({ "tab": "keys", "email": me.email, "contribute": me.contribute, "keys": rows,
                                  "once": FormOnce::issue(),
                                  "resets": ["daily", "weekly", "monthly", "never"] });
            if let (Some(ctx), Value::Object(extra)) = (ctx.as_object_mut(), extra) {
                ctx.extend(extra);
            }
            render(status, "keys.html", ctx)
        }
        Err(e) => e.into_response(),
    }
}

/// The account's keys, newest first, each with its limit's state as of now.
async fn key_rows(state: &AppState, me: &SignedIn) -> Result<Vec<KeyRow>, ApiError> {
    let (keys, last_used) = tokio::try_join!(
        state.store.list_api_keys(me.account),
        state.store.keys_last_used(me.account)
    )?;
    let now = now_ms();
    let mut rows = Vec::with_capacity(keys.len());
    for k in keys.into_iter().rev() {
        let usage = state.store.key_usage(k.id, now).await?;
        let used = last_used.get(&k.id).copied();
        rows.push(row_of(k, &usage, used));
    }
    Ok(rows)
}

/// `GET /dashboard/keys`: the API tab.
pub async fn keys_page(State(state): State<Site>, headers: HeaderMap) -> Response {
    match signed_in(&state, &headers).await {
        Ok(me) => keys_view(&state, &me, StatusCode::OK, json!({})).await,
        Err(r) => r,
    }
}

/// A spending limit as a form sends it: an empty `limit` is none, an empty `limit_reset`
/// `never`. The error is a sentence for the page.
fn form_limit(limit: Option<&str>, reset: Option<&str>) -> Result<Option<KeyLimit>, String> {
    let limit = limit.map_or("", str::trim);
    if limit.is_empty() {
        return Ok(None);
    }
    let credits = (limit.parse::<i64>().ok())
        .filter(|c| (0..=MAX_CREDITS).contains(c))
        .ok_or_else(|| {
            format!(
                "Set the limit as a whole number of credits from 0 to {MAX_CREDITS}, or leave \
                 it empty for none."
            )
        })?;
    let reset = match reset.map_or("", str::trim) {
        "" => LimitReset::Never,
        r => LimitReset::parse(r)
            .ok_or("Choose when the limit starts again: daily, weekly, monthly or never.")?,
    };
    Ok(Some(KeyLimit { credits, reset }))
}

#[derive(Deserialize)]
pub struct CreateForm {
    name: String,
    #[serde(default)]
    limit: Option<String>,
    #[serde(default)]
    limit_reset: Option<String>,
    /// The form's one-time token: a second post of it (a reload) creates nothing.
    #[serde(default)]
    once: Option<String>,
}

/// `POST /dashboard/keys`: an inference key, with a spending limit if one is given; the new
/// key is in this answer only. A re-post of the same form goes back to the tab.
pub async fn create_key(
    State(state): State<Site>,
    headers: HeaderMap,
    Form(form): Form<CreateForm>,
) -> Response {
    let me = match signed_in(&state, &headers).await {
        Ok(me) => me,
        Err(r) => return r,
    };
    if let Some(token) = form.once.as_deref() {
        if !(state.dashboard.forms).spend(me.account, token, Instant::now()) {
            return see_other("/dashboard/keys");
        }
    }
    let refuse = |message: String| {
        let extra = json!({ "new_key": { "error": message } });
        keys_view(&state, &me, StatusCode::BAD_REQUEST, extra)
    };
    let name = form.name.trim();
    if name.is_empty() || name.chars().count() > MAX_KEY_NAME {
        return refuse(format!("Name the key (1 to {MAX_KEY_NAME} characters).")).await;
    }
    let limit = match form_limit(form.limit.as_deref(), form.limit_reset.as_deref()) {
        Ok(limit) => limit,
        Err(message) => return refuse(message).await,
    };
    let new = NewKey {
        name: Some(name),
        kind: KeyKind::Inference,
        limit,
        rpm: None,
    };
    match state.store.create_key(me.account, &new, now_ms()).await {
        Ok(k) => {
            let extra = json!({ "new_key": { "key": k.key, "name": name } });
            keys_view(&state, &me, StatusCode::OK, extra).await
        }
        Err(e) => ApiError::from(e).into_response(),
    }
}

#[derive(Deserialize)]
pub struct LimitForm {
    #[serde(default)]
    limit: Option<String>,
    #[serde(default)]
    limit_reset: Option<String>,
}

/// `POST /dashboard/keys/{id}/limit`: set, change or (with an empty `limit`) remove the
/// limit of one of the account's inference keys, then back to the tab. What the key spent in
/// the current window stays counted.
pub async fn set_limit(
    State(state): State<Site>,
    headers: HeaderMap,
    Path(id): Path<KeyId>,
    Form(form): Form<LimitForm>,
) -> Response {
    let me = match signed_in(&state, &headers).await {
        Ok(me) => me,
        Err(r) => return r,
    };
    let limit = match form_limit(form.limit.as_deref(), form.limit_reset.as_deref()) {
        Ok(limit) => limit,
        Err(message) => {
            let extra = json!({ "limit_error": { "id": id, "message": message } });
            return keys_view(&state, &me, StatusCode::BAD_REQUEST, extra).await;
        }
    };
    match state.store.set_key_limit(me.account, id, limit).await {
        Ok(()) => see_other("/dashboard/keys"),
        Err(StoreError::NotFound(_)) => no_such_key(),
        Err(e) => ApiError::from(e).into_response(),
    }
}

/// `POST /dashboard/keys/{id}/revoke`: only the account's own keys.
pub async fn revoke_key(
    State(state): State<Site>,
    headers: HeaderMap,
    Path(id): Path<KeyId>,
) -> Response {
    let me = match signed_in(&state, &headers).await {
        Ok(me) => me,
        Err(r) => return r,
    };
    match state.store.revoke_key(me.account, id, now_ms()).await {
        Ok(()) => see_other("/dashboard/keys"),
        Err(StoreError::NotFound(_)) => no_such_key(),
        Err(e) => ApiError::from(e).into_response(),
    }
}

/// Another account's key (or an unknown id) is named the same as none.
fn no_such_key() -> Response {
    ApiError::invalid_request("no such key", Some("id".into())).into_response()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_form_limit_is_a_whole_number_or_none() {
        assert_eq!(form_limit(None, None), Ok(None));
        assert_eq!(form_limit(Some(" "), Some("daily")), Ok(None));
        let daily = KeyLimit {
            credits: 20,
            reset: LimitReset::Daily,
        };
        assert_eq!(form_limit(Some("20"), Some("daily")), Ok(Some(daily)));
        let zero = form_limit(Some("0"), None).unwrap().unwrap();
        assert_eq!((zero.credits, zero.reset), (0, LimitReset::Never));
        for bad in ["-1", "1.5", "x", "1000000000000000001"] {
            assert!(form_limit(Some(bad), None).is_err(), "{bad}");
        }
        assert!(form_limit(Some("5"), Some("hourly")).is_err());
    }
}
