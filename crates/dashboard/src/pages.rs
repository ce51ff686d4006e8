//! The dashboard's pages and forms.
//!
//! Pages read the session cookie only (never an API key); a page without a live session
//! leads to the login form. Forms answer with a redirect (303) on success, or the same page
//! with a message.

use std::time::Instant;

use axum::extract::rejection::QueryRejection;
use axum::extract::{Query, RawQuery, State};
use axum::http::header::{LOCATION, RETRY_AFTER, SET_COOKIE};
use axum::http::{HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::{Extension, Form, Json};
use serde::{Deserialize, Serialize};
use serde_json::json;
use shoal_store::money::{self, credits_to_usd};
use shoal_store::{normalize_email, AccountId, ApiKeyInfo, KeyFilter, KeyId, StoreError};

use super::password::{self, HashError, BUSY_RETRY_SECS, MAX_PASSWORD, MIN_PASSWORD};
use super::templates::render;
use super::{chart, mail, session};
use shoal_gateway::ApiError;
use shoal_gateway::{now_ms, AppState};
use shoal_gateway::{Caller, ClientAddr};

use crate::Site;

/// Days of usage shown.
const USAGE_DAYS: i64 = 30;
/// Checked when an email is unknown (or has no password), so that a login takes as long
/// either way: a hash of a random password, made once.
async fn dummy_hash() -> String {
    static DUMMY: tokio::sync::OnceCell<String> = tokio::sync::OnceCell::const_new();
    DUMMY
        .get_or_init(|| async {
            let random = shoal_store::credentials::generate_session_token();
            password::hash(random).await.unwrap_or_default()
        })
        .await
        .clone()
}

/// The logged-in account and its email, or the response that sends the browser to log in.
pub(super) struct SignedIn {
    pub(super) account: AccountId,
    pub(super) email: String,
    /// Whether the header offers "Contribute this browser": only where browser models run.
    pub(super) contribute: bool,
}

pub(super) async fn signed_in(state: &AppState, headers: &HeaderMap) -> Result<SignedIn, Response> {
    match session::account(state, headers).await {
        Ok(Some(account)) => match state.store.account_email(account).await {
            Ok(email) => Ok(SignedIn {
                account,
                email,
                contribute: state.browser.is_some(),
            }),
            Err(e) => Err(ApiError::from(e).into_response()),
        },
        Ok(None) => Err(see_other("/dashboard/login")),
        Err(e) => Err(e.into_response()),
    }
}

/// The form's `page` again, 503 with `Retry-After`: no hashing turn came in time.
pub(super) fn busy(page: &str, mut ctx: serde_json::Value) -> Response {
    let msg = format!("The server is busy. Try again in {BUSY_RETRY_SECS} seconds.");
    ctx["error"] = json!(msg);
    let mut response = render(StatusCode::SERVICE_UNAVAILABLE, page, ctx);
    (response.headers_mut()).insert(RETRY_AFTER, HeaderValue::from(BUSY_RETRY_SECS));
    response
}

pub(super) fn see_other(to: &str) -> Response {
    (StatusCode::SEE_OTHER, [(LOCATION, to.to_string())]).into_response()
}

fn see_other_with_cookie(to: &str, cookie: String) -> Response {
    (
        StatusCode::SEE_OTHER,
        [(LOCATION, to.to_string()), (SET_COOKIE, cookie)],
    )
        .into_response()
}

/// The client's address: the socket's, or the one a trusted proxy forwarded
/// (`trusted_proxies`; a client's own `X-Forwarded-For` is never believed).
pub(super) fn client_address(addr: Option<Extension<ClientAddr>>) -> String {
    addr.map(|Extension(ClientAddr(a))| a.to_string())
        .unwrap_or_else(|| "unknown".into())
}

/// `GET /` and `GET /dashboard`.
pub async fn home(State(state): State<Site>, headers: HeaderMap) -> Response {
    match session::account(&state, &headers).await {
        Ok(Some(_)) => see_other("/dashboard/usage"),
        _ => see_other("/dashboard/login"),
    }
}

#[derive(Deserialize)]
pub struct Credentials {
    email: String,
    password: String,
}

/// `GET /dashboard/signup`.
pub async fn signup_page() -> Response {
    render(StatusCode::OK, "signup.html", json!({ "tab": "signup" }))
}

fn signup_error(status: StatusCode, email: &str, message: &str) -> Response {
    let ctx = json!({ "tab": "signup", "error": message, "typed_email": email });
    render(status, "signup.html", ctx)
}

/// `POST /dashboard/signup`: creates the account, then sends the browser to log in. The
/// answer is the same whether or not the email already had an account, so that it tells a
/// stranger nothing; that address's owner is mailed instead (with `[smtp]`).
pub async fn signup(
    State(state): State<Site>,
    addr: Option<Extension<ClientAddr>>,
    Form(form): Form<Credentials>,
) -> Response {
    let n = form.password.chars().count();
    if !(MIN_PASSWORD..=MAX_PASSWORD).contains(&n) {
        let msg = format!("Choose a password of {MIN_PASSWORD} to {MAX_PASSWORD} characters.");
        return signup_error(StatusCode::BAD_REQUEST, &form.email, &msg);
    }
    let hash = match state.dashboard.hasher.hash(form.password).await {
        Ok(h) => h,
        Err(HashError::Busy) => {
            return busy(
                "signup.html",
                json!({ "tab": "signup", "email": form.email }),
            )
        }
        Err(HashError::Failed) => return ApiError::internal().into_response(),
    };
    let email = normalize_email(&form.email);
    match (state.store)
        .create_account_with_password(&email, &hash, now_ms())
        .await
    {
        Ok(_) => {}
        Err(StoreError::Conflict(_)) => tell_owner(&state, email, client_address(addr)),
        Err(StoreError::Invalid(_)) => {
            let msg = "Enter an email address like name@example.com.";
            return signup_error(StatusCode::BAD_REQUEST, &form.email, msg);
        }
        Err(e) => return ApiError::from(e).into_response(),
    }
    see_other("/dashboard/login?new")
}

/// Mails the owner of `email` that someone tried to sign up with it, throttled as reset
/// mails are (so the form cannot flood a mailbox); without `[smtp]`, nothing.
fn tell_owner(state: &Site, email: String, address: String) {
    let Some(smtp) = state.dashboard.config.smtp.clone() else {
        return;
    };
    let throttle = &state.dashboard.resets;
    if throttle.blocked(&email, &address, Instant::now()).is_some() {
        return;
    }
    throttle.failed(&email, &address, Instant::now());
    tokio::spawn(async move {
        if let Err(e) = smtp.send_account_exists(&email).await {
            tracing::warn!(error = %mail::failure(&e), "a sign-up notice mail was not sent");
        }
    });
}

async fn start_session(state: &Site, account: AccountId, to: &str) -> Response {
    let now = now_ms();
    let expires = now + state.dashboard.config.session_ttl.as_millis() as i64;
    match state.store.create_session(account, now, expires).await {
        Ok(token) => see_other_with_cookie(to, session::set_cookie(state, &token)),
        Err(e) => ApiError::from(e).into_response(),
    }
}

/// `GET /dashboard/login` (`?new`: after signing up).
pub async fn login_page(RawQuery(query): RawQuery) -> Response {
    let notice = (query.as_deref() == Some("new"))
        .then_some("Now log in with the email and password you chose.");
    let ctx = json!({ "tab": "login", "notice": notice });
    render(StatusCode::OK, "login.html", ctx)
}

/// `POST /dashboard/login`: throttled per account and per address; a new session each time
/// (the one the browser had, if any, ends).
pub async fn login(
    State(state): State<Site>,
    headers: HeaderMap,
    addr: Option<Extension<ClientAddr>>,
    Form(form): Form<Credentials>,
) -> Response {
    let address = client_address(addr);
    let email = normalize_email(&form.email);
    let throttle = &state.dashboard.throttle;
    if let Some(wait) = throttle.blocked(&email, &address, Instant::now()) {
        let msg = format!("Too many failed attempts. {}", password::try_again_in(wait));
        let ctx = json!({ "tab": "login", "error": msg, "typed_email": form.email });
        return render(StatusCode::TOO_MANY_REQUESTS, "login.html", ctx);
    }
    let login = match state.store.login_of(&email).await {
        Ok(l) => l,
        Err(e) => return ApiError::from(e).into_response(),
    };
    let (account, hash, disabled) = match login {
        Some(l) => (Some(l.account_id), l.password_hash, l.disabled),
        None => (None, None, false),
    };
    let hash = match hash {
        Some(h) => h,
        None => dummy_hash().await,
    };
    let Ok(matched) = state.dashboard.hasher.verify(form.password, hash).await else {
        return busy("login.html", json!({ "tab": "login", "email": form.email }));
    };
    let Some(account) = account.filter(|_| matched) else {
        throttle.failed(&email, &address, Instant::now());
        let ctx = json!({ "tab": "login", "error": "Wrong email or password.", "typed_email": form.email });
        return render(StatusCode::UNAUTHORIZED, "login.html", ctx);
    };
    throttle.succeeded(&email, &address);
    if disabled {
        // Said only to whoever knows the password.
        let ctx = json!({ "tab": "login", "error": "This account is disabled.", "typed_email": form.email });
        return render(StatusCode::FORBIDDEN, "login.html", ctx);
    }
    if let Some(old) = session::token(&headers) {
        let _ = state.store.end_session(old).await;
    }
    start_session(&state, account, "/dashboard/usage").await
}

/// `POST /dashboard/logout`.
pub async fn logout(State(state): State<Site>, headers: HeaderMap) -> Response {
    if let Some(token) = session::token(&headers) {
        if let Err(e) = state.store.end_session(token).await {
            return ApiError::from(e).into_response();
        }
    }
    see_other_with_cookie("/dashboard/login", session::clear_cookie(&state))
}

/// `POST /dashboard/logout-everywhere`: ends every session of the account.
pub async fn logout_everywhere(State(state): State<Site>, headers: HeaderMap) -> Response {
    let me = match signed_in(&state, &headers).await {
        Ok(me) => me,
        Err(r) => return r,
    };
    if let Err(e) = state.store.end_all_sessions(me.account).await {
        return ApiError::from(e).into_response();
    }
    see_other_with_cookie("/dashboard/login", session::clear_cookie(&state))
}

/// What the balance panel shows.
#[derive(Serialize)]
pub(super) struct BalanceView {
    credits: i64,
    usd: String,
    total_deposited: i64,
    total_spent: i64,
    held: i64,
    plan_daily_credits: i64,
    plan_left: i64,
    free_daily_credits: i64,
    free_left: i64,
}

pub(super) async fn balance_view(
    state: &AppState,
    account: AccountId,
) -> Result<BalanceView, ApiError> {
    let b = state.store.balance(account, now_ms()).await?;
    let free = state.config.free_daily_credits;
    Ok(BalanceView {
        credits: b.credits,
        usd: format!("{:.3}", credits_to_usd(b.credits)),
        total_deposited: b.total_deposited,
        total_spent: b.total_spent,
        held: b.credits_held,
        plan_daily_credits: b.plan_daily_credits,
        plan_left: b.daily_credits_left,
        free_daily_credits: free,
        // Today's use can exceed an allowance the operator lowered since: none is left.
        free_left: (free - b.free_used_today).max(0),
    })
}

#[derive(Deserialize)]
pub struct UsageQuery {
    /// `all` (or absent), `dashboard`, or a key's id.
    key: Option<String>,
}

/// The usage filter that `key` names among the account's `keys`.
fn key_filter(key: Option<&str>, keys: &[ApiKeyInfo]) -> Result<KeyFilter, ApiError> {
    let unknown = || ApiError::invalid_request("no such key", Some("key".into()));
    match key {
        None | Some("" | "all") => Ok(KeyFilter::All),
        Some("dashboard") => Ok(KeyFilter::Dashboard),
        Some(id) => {
            let id: KeyId = id.parse().map_err(|_| unknown())?;
            keys.iter()
                .any(|k| k.id == id)
                .then_some(KeyFilter::Key(id))
                .ok_or_else(unknown)
        }
    }
}

/// `GET /dashboard/usage[?key=all|dashboard|ID]`: balance, usage by day and model, the
/// chart, of every request or those of one key (or of the dashboard's session).
pub async fn usage_page(
    State(state): State<Site>,
    headers: HeaderMap,
    query: Result<Query<UsageQuery>, QueryRejection>,
) -> Response {
    let me = match signed_in(&state, &headers).await {
        Ok(me) => me,
        Err(r) => return r,
    };
    let Ok(Query(query)) = query else {
        let e = ApiError::invalid_request("expected ?key=all, dashboard or a key's id", None);
        return e.into_response();
    };
    match usage_context(&state, &me, query.key.as_deref()).await {
        Ok(ctx) => render(StatusCode::OK, "usage.html", ctx),
        Err(e) => e.into_response(),
    }
}

async fn usage_context(
    state: &AppState,
    me: &SignedIn,
    key: Option<&str>,
) -> Result<serde_json::Value, ApiError> {
    let now = now_ms();
    let keys = state.store.list_api_keys(me.account).await?;
    let filter = key_filter(key, &keys)?;
    let (balance, rows) = tokio::try_join!(balance_view(state, me.account), async {
        let rows = state.store.usage(me.account, now, USAGE_DAYS, filter);
        rows.await.map_err(ApiError::from)
    })?;
    let usage = chart::usage(&rows, money::utc_day(now), USAGE_DAYS);
    let svg = chart::svg(&usage.by_day);
    let mut by_day = usage.by_day;
    by_day.reverse();
    let selected = match filter {
        KeyFilter::All => "all".to_string(),
        KeyFilter::Dashboard => "dashboard".to_string(),
        KeyFilter::Key(id) => id.to_string(),
    };
    let key_options: Vec<serde_json::Value> = keys
        .iter()
        .rev()
        .map(|k| json!({ "id": k.id.to_string(), "name": k.name, "prefix": k.prefix }))
        .collect();
    Ok(json!({
        "tab": "usage", "email": me.email, "contribute": me.contribute, "balance": balance, "days": USAGE_DAYS,
        "by_day": by_day, "by_model": usage.by_model, "total": usage.total, "chart": svg,
        "keys": key_options, "key": selected,
    }))
}

/// `GET /dashboard/api/balance` (session): the balance panel's figures, for the pages'
/// scripts.
pub async fn balance_json(
    State(state): State<Site>,
    caller: Caller,
) -> Result<Json<serde_json::Value>, ApiError> {
    let b = balance_view(&state, caller.account_id).await?;
    Ok(Json(json!(b)))
}

/// `GET /dashboard/playground`.
pub async fn playground_page(State(state): State<Site>, headers: HeaderMap) -> Response {
    let me = match signed_in(&state, &headers).await {
        Ok(me) => me,
        Err(r) => return r,
    };
    let models: Vec<&str> = state
        .config
        .catalog
        .entries()
        .iter()
        .map(|m| m.id.as_str())
        .collect();
    match balance_view(&state, me.account).await {
        Ok(b) => render(
            StatusCode::OK,
            "playground.html",
            json!({ "tab": "playground", "email": me.email, "contribute": me.contribute, "models": models, "balance": b }),
        ),
        Err(e) => e.into_response(),
    }
}

/// `GET /dashboard/images`.
pub async fn images_page(State(state): State<Site>, headers: HeaderMap) -> Response {
    let me = match signed_in(&state, &headers).await {
        Ok(me) => me,
        Err(r) => return r,
    };
    match balance_view(&state, me.account).await {
        Ok(b) => render(
            StatusCode::OK,
            "images.html",
            json!({ "tab": "images", "email": me.email, "contribute": me.contribute, "balance": b,
                    "image_credits": money::IMAGE_CREDITS }),
        ),
        Err(e) => e.into_response(),
    }
}
