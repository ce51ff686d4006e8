//! The dashboard: pages for people, merged into the gateway's router by the binary, outside
//! `/api/v1`.
//!
//! Sign-up and login (`password`: Argon2id, throttling), login sessions (`session`: cookies,
//! the cross-site check), the pages (`keys`: API keys and their spending limits; `pages`:
//! balance and usage with a chart, playground, images; `buy`: buying credits) rendered from the templates of `web/dashboard/`
//! (`templates`, compiled into the binary with the static files) and the usage chart
//! (`chart`, SVG drawn on the server); password reset by mail (`reset`, `mail`); the site's
//! image endpoint, which the images page calls with its session; the keys API
//! (`/dashboard/api/keys`, the gateway's handlers) for a session. Nothing here is on the `/api/v1` path: a session never
//! authorises `/api/v1` (it reads only bearer keys), and a key never opens a page (pages read
//! only the session cookie).
//!
//! Every page carries the security headers of `security_headers`: a Content-Security-
//! Policy with no inline script or style, `frame-ancestors 'none'`, no referrer, no sniffing.
//! Every state-changing request passes `session::refuse_cross_site`.

mod buy;
mod chart;
mod contribute;
mod keys;
mod mail;
mod once;
mod pages;
mod password;
mod reset;
mod session;
mod templates;

pub use mail::{SmtpConfig, SmtpTls};
pub use password::{hash as hash_password, MAX_PASSWORD, MIN_PASSWORD};

use std::sync::Arc;
use std::time::Duration;

use axum::extract::{FromRef, Request, State};
use axum::http::header::{
    AUTHORIZATION, CACHE_CONTROL, CONTENT_SECURITY_POLICY, REFERRER_POLICY, X_CONTENT_TYPE_OPTIONS,
    X_FRAME_OPTIONS,
};
use axum::http::HeaderValue;
use axum::middleware::{from_fn, from_fn_with_state, Next};
use axum::response::Response;
use axum::routing::{get, post};
use axum::Router;
use shoal_gateway::FileConfig;

use shoal_images::Images;

use shoal_gateway::AppState;
use shoal_payments::Deposits;

/// The dashboard's own state, beside the gateway's.
struct Dashboard {
    config: Config,
    /// Failed logins.
    throttle: password::Throttle,
    /// Password reset mails asked for.
    resets: password::Throttle,
    /// Password hashing, a few at once.
    hasher: password::Hasher,
    /// The key form's spent one-time tokens.
    forms: once::FormOnce,
}

impl Dashboard {
    fn new(config: Config) -> Self {
        Dashboard {
            hasher: password::Hasher::new(config.hash_concurrency, config.hash_wait),
            config,
            throttle: password::Throttle::default(),
            resets: password::Throttle::resets(),
            forms: once::FormOnce::default(),
        }
    }
}

/// What the dashboard's handlers see: the gateway's state (through `Deref`) and the
/// dashboard's own.
#[derive(Clone)]
struct Site {
    app: AppState,
    dashboard: Arc<Dashboard>,
    /// What the Buy page offers (`shoal-payments`).
    deposits: Deposits,
}

impl std::ops::Deref for Site {
    type Target = AppState;
    fn deref(&self) -> &AppState {
        &self.app
    }
}

impl FromRef<Site> for AppState {
    fn from_ref(site: &Site) -> AppState {
        site.app.clone()
    }
}

/// The dashboard's settings, from the gateway's config file.
#[derive(Debug, Clone)]
pub struct Config {
    /// Mark the session cookie `Secure`.
    pub cookie_secure: bool,
    /// How long a login lasts.
    pub session_ttl: Duration,
    /// Password reset by mail; `None`: the operator resets passwords.
    pub smtp: Option<SmtpConfig>,
    /// Password hashes (sign-up, login, reset) computed at once.
    pub hash_concurrency: usize,
    /// How long a form waits for a hashing turn before it answers 503 "busy".
    pub hash_wait: Duration,
}

impl Config {
    /// Reads the dashboard's keys of the config file (`cookie_secure`, `session_ttl_hours`,
    /// `[smtp]`, `password_hash_*`), checking what can be checked without connecting.
    pub fn from_file(file: &FileConfig) -> anyhow::Result<Config> {
        let smtp = match &file.smtp {
            Some(table) => {
                let smtp: SmtpConfig = table
                    .clone()
                    .try_into()
                    .map_err(|e| anyhow::anyhow!("[smtp]: {e}"))?;
                Some(smtp.validate()?)
            }
            None => None,
        };
        let hash_concurrency =
            (file.password_hash_concurrency).unwrap_or(password::DEFAULT_HASH_CONCURRENCY);
        anyhow::ensure!(
            hash_concurrency >= 1,
            "password_hash_concurrency must be at least 1"
        );
        let hash_wait = (file.password_hash_wait_ms.map(Duration::from_millis))
            .unwrap_or(password::DEFAULT_HASH_WAIT);
        Ok(Config {
            cookie_secure: file.cookie_secure.unwrap_or(false),
            session_ttl: Duration::from_secs(3600 * file.session_ttl_hours.unwrap_or(168).max(1)),
            smtp,
            hash_concurrency,
            hash_wait,
        })
    }
}

impl Default for Config {
    fn default() -> Self {
        Config::from_file(&FileConfig::default()).expect("defaults are valid")
    }
}

const CSP: &str = "default-src 'none'; script-src 'self'; style-src 'self'; \
                   img-src 'self' data: blob:; connect-src 'self'; form-action 'self'; \
                   frame-ancestors 'none'; base-uri 'none'";

/// The dashboard's routes (pages under `/dashboard`, and `/` leading there), and the site's
/// image endpoint, which its images page calls.
pub fn routes(
    state: &AppState,
    config: Config,
    images: &Images,
    deposits: Deposits,
) -> Router<AppState> {
    let site = Site {
        app: state.clone(),
        dashboard: Arc::new(Dashboard::new(config)),
        deposits,
    };
    let site_images = images
        .site_routes()
        .route_layer(from_fn_with_state(state.clone(), key_or_session));
    pages(site).merge(site_images)
}

fn pages(site: Site) -> Router<AppState> {
    let calls = Router::new()
        .route("/dashboard/api/chat", post(shoal_gateway::chat_completions))
        .route("/dashboard/api/balance", get(pages::balance_json))
        .route("/dashboard/api/deposits", get(buy::deposits_json))
        .route(
            "/dashboard/api/keys",
            get(shoal_keys::list_keys).post(shoal_keys::create_key),
        )
        .route(
            "/dashboard/api/keys/{id}",
            get(shoal_keys::get_key)
                .patch(shoal_keys::update_key)
                .delete(shoal_keys::delete_key),
        )
        .route_layer(from_fn_with_state(site.app.clone(), session::authenticate));
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
            get(keys::keys_page).post(keys::create_key),
        )
        .route("/dashboard/keys/{id}/limit", post(keys::set_limit))
        .route("/dashboard/keys/{id}/revoke", post(keys::revoke_key))
        .route("/dashboard/usage", get(pages::usage_page))
        .route("/dashboard/playground", get(pages::playground_page))
        .route("/dashboard/images", get(pages::images_page))
        .route("/dashboard/buy", get(buy::buy_page))
        .route("/dashboard/contribute", post(contribute::contribute))
        .route("/dashboard/static/{file}", get(templates::static_file))
        .merge(calls)
        .layer(from_fn(session::refuse_cross_site))
        .layer(from_fn(security_headers))
        .with_state(site)
}

/// Who may generate images on the site's endpoint: the bearer key (with its rate limit), or,
/// on a request without an `Authorization` header, a dashboard session from this site's own
/// pages. Handlers only read the `Caller` this puts in the request.
async fn key_or_session(state: State<AppState>, req: Request, next: Next) -> Response {
    let has_key = req.headers().contains_key(AUTHORIZATION);
    if !has_key && session::token(req.headers()).is_some() {
        return session::authenticate(state, req, next).await;
    }
    shoal_gateway::authenticate(state, req, next).await
}

/// Security headers on every dashboard response.
async fn security_headers(req: Request, next: Next) -> Response {
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
