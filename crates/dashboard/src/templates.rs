//! The dashboard's templates and static files, from `web/dashboard/`, compiled into the
//! binary (the pages work offline, with nothing to install beside it).
//!
//! Templates are minijinja with HTML auto-escaping on (every `.html` template): whatever a
//! user typed (an email, a key's name) renders as text.

use std::sync::OnceLock;

use axum::extract::Path;
use axum::http::header::{CACHE_CONTROL, CONTENT_TYPE};
use axum::http::StatusCode;
use axum::response::{Html, IntoResponse, Response};
use minijinja::Environment;
use serde::Serialize;

macro_rules! web {
    ($file:literal) => {
        include_str!(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../web/dashboard/",
            $file
        ))
    };
}

const TEMPLATES: [(&str, &str); 11] = [
    ("base.html", web!("templates/base.html")),
    ("signup.html", web!("templates/signup.html")),
    ("login.html", web!("templates/login.html")),
    ("reset.html", web!("templates/reset.html")),
    ("new_password.html", web!("templates/new_password.html")),
    ("keys.html", web!("templates/keys.html")),
    ("usage.html", web!("templates/usage.html")),
    ("playground.html", web!("templates/playground.html")),
    ("images.html", web!("templates/images.html")),
    ("buy.html", web!("templates/buy.html")),
    ("message.html", web!("templates/message.html")),
];

/// Static files: name, content type, body.
const STATIC: [(&str, &str, &str); 5] = [
    ("icon.svg", "image/svg+xml", web!("static/icon.svg")),
    ("app.css", "text/css; charset=utf-8", web!("static/app.css")),
    (
        "app.js",
        "text/javascript; charset=utf-8",
        web!("static/app.js"),
    ),
    ("buy.css", "text/css; charset=utf-8", web!("static/buy.css")),
    (
        "buy.js",
        "text/javascript; charset=utf-8",
        web!("static/buy.js"),
    ),
];

fn env() -> &'static Environment<'static> {
    static ENV: OnceLock<Environment<'static>> = OnceLock::new();
    ENV.get_or_init(|| {
        let mut env = Environment::new();
        for (name, source) in TEMPLATES {
            env.add_template(name, source)
                .expect("the dashboard's templates parse (a test renders each)");
        }
        env
    })
}

/// A page, or a plain 500 if the template fails (a bug: a test renders every page).
pub fn render<S: Serialize>(status: StatusCode, name: &str, ctx: S) -> Response {
    let page = env()
        .get_template(name)
        .and_then(|t| t.render(minijinja::value::Serde(ctx)));
    match page {
        Ok(html) => (status, Html(html)).into_response(),
        Err(e) => {
            tracing::error!(template = name, error = %e, "dashboard template failed");
            (StatusCode::INTERNAL_SERVER_ERROR, "page failed").into_response()
        }
    }
}

/// `GET /dashboard/static/{file}`.
pub async fn static_file(Path(file): Path<String>) -> Response {
    match STATIC.iter().find(|(name, _, _)| *name == file) {
        Some((_, kind, body)) => (
            [
                (CONTENT_TYPE, *kind),
                (CACHE_CONTROL, "public, max-age=300"),
            ],
            *body,
        )
            .into_response(),
        None => (StatusCode::NOT_FOUND, "not found").into_response(),
    }
}

/// Bytes of a static file.
#[cfg(test)]
fn static_size(file: &str) -> Option<usize> {
    STATIC
        .iter()
        .find(|(name, _, _)| *name == file)
        .map(|(_, _, body)| body.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every template parses and renders with what its handler gives it, escaping text.
    #[test]
    fn every_page_renders_and_escapes() {
        let balance = serde_json::json!({
            "credits": 5, "usd": "0.005", "total_deposited": 5, "total_spent": 0, "held": 0,
            "plan_daily_credits": 0, "plan_left": 0, "free_daily_credits": 50, "free_left": 50,
        });
        let ctx = serde_json::json!({
            "tab": "keys", "email": "<b>@x", "balance": balance, "days": 30,
            "keys": [
                {"id": 1, "name": "<script>", "prefix": "sk-shoal-AbCd", "created": "2026-01-01",
                 "state": "active", "kind": "inference", "limit": 20, "limit_reset": "daily",
                 "remaining": 7, "spent": 13, "resets": "2026-01-02 00:00 UTC"},
                {"id": 2, "name": "m", "prefix": "sk-shoal-EfGh", "created": "2026-01-01",
                 "state": "active", "kind": "management", "limit": null, "remaining": null},
            ],
            "resets": ["daily", "never"], "limit_error": {"id": 1, "message": "<e>"},
            "new_key": {"key": "sk-shoal-x", "name": "<i>"},
            "by_day": [], "by_model": [], "total": {}, "chart": "<svg></svg>",
            "models": ["m<1>"], "image_credits": 10, "credits_per_usd": 500,
            "heading": "h", "text": "t", "error": "<e>", "notice": "<i>n</i>",
            "token": "shoal-r-<i>", "mail": true, "key": "1",
        });
        for (name, _) in TEMPLATES {
            let html = env()
                .get_template(name)
                .and_then(|t| t.render(minijinja::value::Serde(&ctx)))
                .unwrap_or_else(|e| panic!("{name}: {e}"));
            assert!(
                !html.contains("<script>") && !html.contains("<b>@x"),
                "{name}"
            );
            assert!(!html.contains("<e>") && !html.contains("<i>"), "{name}");
        }
    }

    #[test]
    fn static_files_are_served_with_their_type() {
        assert!(static_size("app.css").unwrap() > 1_000);
        assert!(static_size("app.js").unwrap() > 1_000);
        assert_eq!(static_size("../Cargo.toml"), None);
    }
}
