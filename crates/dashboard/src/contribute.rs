//! `POST /dashboard/contribute`: the "contribute this browser" button. A signed-in user gets
//! a browser invite of their own (a worker token that admits only a `kind: browser` worker,
//! for [`CONTRIBUTE_TTL`]) and is sent to the worker page with it, in the link's fragment,
//! which browsers never send to a server.

use std::time::Duration;

use axum::extract::State;
use axum::http::header::LOCATION;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use serde_json::json;

use super::session;
use super::templates::render;
use shoal_gateway::now_ms;
use shoal_gateway::ApiError;

use crate::Site;

/// How long the invite admits a tab: a working day, after which the page must be opened again
/// from the dashboard (a tab reconnecting after a drop needs a live token).
pub const CONTRIBUTE_TTL: Duration = Duration::from_secs(8 * 3600);

pub async fn contribute(State(state): State<Site>, headers: HeaderMap) -> Response {
    let account = match session::account(&state, &headers).await {
        Ok(Some(account)) => account,
        Ok(None) => {
            return (StatusCode::SEE_OTHER, [(LOCATION, "/dashboard/login")]).into_response()
        }
        Err(e) => return e.into_response(),
    };
    if state.browser.is_none() {
        let page = json!({"heading": "No browser workers here",
            "text": "This gateway does not run models in browser tabs."});
        return render(StatusCode::NOT_FOUND, "message.html", page);
    }
    let now = now_ms();
    let expires = now + CONTRIBUTE_TTL.as_millis() as i64;
    let name = format!("dashboard account {account}");
    match state.store.create_browser_invite(&name, expires, now).await {
        Ok(invite) => {
            let to = format!("/worker#invite={}", invite.token);
            (StatusCode::SEE_OTHER, [(LOCATION, to)]).into_response()
        }
        Err(e) => ApiError::from(e).into_response(),
    }
}
