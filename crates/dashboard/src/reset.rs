//! "Forgot your password?": a reset link by mail when `[smtp]` is configured.
//!
//! Asking for a link answers the same page, at the same speed, whether or not an account
//! has that email: the lookup, the token and the mail happen after the answer, in a task of
//! their own. Asking is throttled per email and per client address whether the account
//! exists or not. A link carries a single-use token (stored as its SHA-256) that expires
//! after [`mail::RESET_TTL`]; using it sets the new password, which ends every session and
//! every other link of the account. Without `[smtp]` the page says that the operator resets
//! passwords with `shoal admin account set-password`.

use std::time::Instant;

use axum::extract::{Path, State};
use axum::http::header::SET_COOKIE;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::{Extension, Form};
use serde::Deserialize;
use serde_json::json;

use super::mail::{self, SmtpConfig};
use super::pages::{busy, client_address, see_other};
use super::password::{self, HashError, MAX_PASSWORD, MIN_PASSWORD};
use super::session;
use super::templates::render;
use shoal_gateway::{now_ms, AppState};
use shoal_gateway::{ApiError, ClientAddr};

use crate::Site;

/// `GET /dashboard/reset`: the form asking for a link, or, without mail, the operator's
/// command.
pub async fn reset_page(State(state): State<Site>) -> Response {
    let mail = state.dashboard.config.smtp.is_some();
    render(
        StatusCode::OK,
        "reset.html",
        json!({ "tab": "login", "mail": mail }),
    )
}

#[derive(Deserialize)]
pub struct ResetRequest {
    email: String,
}

/// `POST /dashboard/reset`: mails a link if the account exists; says the same either way.
pub async fn request_reset(
    State(state): State<Site>,
    addr: Option<Extension<ClientAddr>>,
    Form(form): Form<ResetRequest>,
) -> Response {
    let Some(smtp) = state.dashboard.config.smtp.clone() else {
        let ctx = json!({ "tab": "login", "mail": false });
        return render(StatusCode::NOT_FOUND, "reset.html", ctx);
    };
    let email = shoal_store::normalize_email(&form.email);
    let address = client_address(addr);
    let throttle = &state.dashboard.resets;
    if let Some(wait) = throttle.blocked(&email, &address, Instant::now()) {
        let msg = format!("Too many reset requests. {}", password::try_again_in(wait));
        let ctx = json!({ "tab": "login", "mail": true, "error": msg, "typed_email": form.email });
        return render(StatusCode::TOO_MANY_REQUESTS, "reset.html", ctx);
    }
    throttle.failed(&email, &address, Instant::now());
    tokio::spawn(mail_link(state.app.clone(), smtp, email));
    let minutes = mail::RESET_TTL.as_secs() / 60;
    let text = format!(
        "If an account uses {}, a link to choose a new password is on its way there. \
         It works once, within {minutes} minutes.",
        form.email.trim()
    );
    render(
        StatusCode::OK,
        "message.html",
        json!({ "tab": "login", "heading": "Check your email", "text": text }),
    )
}

/// Looks the account up and mails it a link. Failures go to the log only: the page has
/// already answered, the same whatever happens here.
async fn mail_link(state: AppState, smtp: SmtpConfig, email: String) {
    let result = async {
        let Some(login) = state.store.login_of(&email).await? else {
            return anyhow::Ok(());
        };
        let to = state.store.account_email(login.account_id).await?;
        let now = now_ms();
        let expires = now + mail::RESET_TTL.as_millis() as i64;
        let token = state
            .store
            .create_password_reset(login.account_id, now, expires)
            .await?;
        smtp.send_reset(&to, &smtp.reset_link(&token)).await
    }
    .await;
    if let Err(e) = result {
        tracing::warn!(error = %mail::failure(&e), "a password reset mail was not sent");
    }
}

fn link_not_valid() -> Response {
    let text = "This reset link has expired or was already used. Ask for a new one from the \
                log-in page.";
    render(
        StatusCode::NOT_FOUND,
        "message.html",
        json!({ "tab": "login", "heading": "Link not valid", "text": text }),
    )
}

fn new_password_form(status: StatusCode, token: &str, error: Option<String>) -> Response {
    let ctx = json!({ "tab": "login", "token": token, "error": error,
                      "min": MIN_PASSWORD, "max": MAX_PASSWORD });
    render(status, "new_password.html", ctx)
}

/// `GET /dashboard/reset/{token}`: the form for the new password, if the link is valid.
pub async fn new_password_page(State(state): State<Site>, Path(token): Path<String>) -> Response {
    if state.dashboard.config.smtp.is_none() {
        return see_other("/dashboard/reset");
    }
    match state.store.password_reset_account(&token, now_ms()).await {
        Ok(Some(_)) => new_password_form(StatusCode::OK, &token, None),
        Ok(None) => link_not_valid(),
        Err(e) => ApiError::from(e).into_response(),
    }
}

#[derive(Deserialize)]
pub struct NewPassword {
    password: String,
    confirm: String,
}

/// `POST /dashboard/reset/{token}`: uses the link once; every session of the account ends.
pub async fn set_new_password(
    State(state): State<Site>,
    Path(token): Path<String>,
    Form(form): Form<NewPassword>,
) -> Response {
    if state.dashboard.config.smtp.is_none() {
        return see_other("/dashboard/reset");
    }
    let n = form.password.chars().count();
    if !(MIN_PASSWORD..=MAX_PASSWORD).contains(&n) {
        let msg = format!("Choose a password of {MIN_PASSWORD} to {MAX_PASSWORD} characters.");
        return new_password_form(StatusCode::BAD_REQUEST, &token, Some(msg));
    }
    if form.password != form.confirm {
        let msg = "The two passwords differ.".to_string();
        return new_password_form(StatusCode::BAD_REQUEST, &token, Some(msg));
    }
    let hash = match state.dashboard.hasher.hash(form.password).await {
        Ok(h) => h,
        Err(HashError::Busy) => {
            let ctx = json!({ "tab": "login", "token": token, "min": MIN_PASSWORD,
                              "max": MAX_PASSWORD });
            return busy("new_password.html", ctx);
        }
        Err(HashError::Failed) => return ApiError::internal().into_response(),
    };
    match state.store.reset_password(&token, &hash, now_ms()).await {
        Ok(Some(account)) => {
            if let Ok(email) = state.store.account_email(account).await {
                state
                    .dashboard
                    .throttle
                    .clear(&shoal_store::normalize_email(&email));
            }
            let notice = "Your password was changed and every session logged out. Log in \
                          with the new password.";
            let mut page = render(
                StatusCode::OK,
                "login.html",
                json!({ "tab": "login", "notice": notice }),
            );
            if let Ok(v) = session::clear_cookie(&state).parse() {
                page.headers_mut().insert(SET_COOKIE, v);
            }
            page
        }
        Ok(None) => link_not_valid(),
        Err(e) => ApiError::from(e).into_response(),
    }
}
