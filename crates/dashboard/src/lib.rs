//! The dashboard: pages for people, served by the gateway outside `/api/v1`.
//!
//! Sign-up and login (`password`: Argon2id, throttling), login sessions (`session`: cookies,
//! the cross-site check), the pages (`pages`: API keys, balance and usage with a chart,
//! playground, images; `buy`: buying credits) rendered from the templates of `web/dashboard/`
//! (`templates`, compiled into the binary with the static files) and the usage chart
//! (`chart`, SVG drawn on the server). Nothing here is on the `/api/v1` path: a session never
//! authorises `/api/v1` (it reads only bearer keys), and a key never opens a page (pages read
//! only the session cookie).
//!
//! Every response carries the security headers of [`security_headers`]: a Content-Security-
//! Policy with no inline script or style, `frame-ancestors 'none'`, no referrer, no sniffing.
//! Every state-changing request passes `session::refuse_cross_site`.

pub mod buy;
pub mod chart;
pub mod contribute;
pub mod mail;
pub mod pages;
pub mod password;
pub mod reset;
pub mod session;
pub mod templates;

use axum::extract::Request;
use axum::http::header::{
    CACHE_CONTROL, CONTENT_SECURITY_POLICY, REFERRER_POLICY, X_CONTENT_TYPE_OPTIONS,
    X_FRAME_OPTIONS,
};
use axum::http::HeaderValue;
use axum::middleware::{from_fn, from_fn_with_state, Next};
use axum::response::Response;
use axum::routing::{get, post};
use axum::Router;

use crate::AppState;

/// The dashboard's state in the gateway.
pub struct Dashboard {
    /// Failed logins.
    pub throttle: password::Throttle,
    /// Password reset mails asked for.
    pub resets: password::Throttle,
}

impl Default for Dashboard {
    fn default() -> Self {
        Dashboard {
            throttle: password::Throttle::default(),
            resets: password::Throttle::resets(),
        }
    }
}

const CSP: &str = "default-src 'none'; script-src 'self'; style-src 'self'; \
                   img-src 'self' data: blob:; connect-src 'self'; form-action 'self'; \
                   frame-ancestors 'none'; base-uri 'none'";

/// The dashboard's routes (pages under `/dashboard`, and `/` leading there).
pub fn routes(state: &AppState) -> Router<AppState> {
    let calls = Router::new()
        .route("/dashboard/api/chat", post(crate::api::chat_completions))
        .route("/dashboard/api/balance", get(pages::balance_json))
        .route("/dashboard/api/deposits", get(buy::deposits_json))
        .route_layer(from_fn_with_state(state.clone(), session::authenticate));
    Router::new()
        .route("/", get(pages::home))
        .route("/dashboard", get(pages::home))
        .route(
            "/dashboard/signup",
            get(pages::signup_page).post(pages::signup),
        )
        .route(
            "/dashboard/login",
            get(pages::login_page).post(pages::login),
        )
        .route("/dashboard/logout", post(pages::logout))
        .route(
            "/dashboard/logout-everywhere",
            post(pages::logout_everywhere),
        )
        .route(
            "/dashboard/reset",
            get(reset::reset_page).post(reset::request_reset),
        )
        .route(
            "/dashboard/reset/{token}",
            get(reset::new_password_page).post(reset::set_new_password),
        )
        .route(
            "/dashboard/keys",
            get(pages::keys_page).post(pages::create_key),
        )
        .route("/dashboard/keys/{id}/revoke", post(pages::revoke_key))
        .route("/dashboard/usage", get(pages::usage_page))
        .route("/dashboard/playground", get(pages::playground_page))
        .route("/dashboard/images", get(pages::images_page))
        .route("/dashboard/buy", get(buy::buy_page))
        .route("/dashboard/contribute", post(contribute::contribute))
        .route("/dashboard/static/{file}", get(templates::static_file))
        .merge(calls)
        .layer(from_fn(session::refuse_cross_site))
        .layer(from_fn(security_headers))
}

/// Security headers on every dashboard response.
pub async fn security_headers(req: Request, next: Next) -> Response {
    let mut response = next.run(req).await;
    let h = response.headers_mut();
    h.insert(CONTENT_SECURITY_POLICY, HeaderValue::from_static(CSP));
    h.insert(X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
    h.insert(REFERRER_POLICY, HeaderValue::from_static("no-referrer"));
    h.insert(X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    h.entry(CACHE_CONTROL)
        .or_insert(HeaderValue::from_static("no-store"));
    response
}
