//! The worker page (`/worker`), its scripts, the vendored wllama, and the model files.
//!
//! Every response carries the cross-origin isolation headers (COOP/COEP, and CORP on the
//! files), which the browser requires before it gives the page `SharedArrayBuffer` and so
//! wllama its threads. Model files are served with range requests and caching headers.

use std::path::PathBuf;
use std::sync::Arc;

use axum::extract::{Path, Request, State};
use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::{Json, Router};
use tower::ServiceExt;
use tower_http::services::ServeFile;

use crate::engine::Models;

/// The page's files, embedded in the binary: (path under /worker/, content type, bytes).
const ASSETS: &[(&str, &str, &[u8])] = &[
    (
        "app.js",
        "text/javascript",
        include_bytes!("../../../web/worker/app.js"),
    ),
    (
        "tiers.js",
        "text/javascript",
        include_bytes!("../../../web/worker/tiers.js"),
    ),
    (
        "beat.js",
        "text/javascript",
        include_bytes!("../../../web/worker/beat.js"),
    ),
    (
        "style.css",
        "text/css",
        include_bytes!("../../../web/worker/style.css"),
    ),
    (
        "vendor/wllama/index.js",
        "text/javascript",
        include_bytes!("../../../web/worker/vendor/wllama/index.js"),
    ),
    (
        "vendor/wllama/wllama.wasm",
        "application/wasm",
        include_bytes!("../../../web/worker/vendor/wllama/wllama.wasm"),
    ),
];

const PAGE: &[u8] = include_bytes!("../../../web/worker/index.html");

#[derive(Clone)]
struct Files {
    variants: Arc<Vec<(String, PathBuf, u64, u32)>>,
    /// `/worker/config.json`, made once.
    config: Arc<serde_json::Value>,
}

pub fn routes(models: &Models) -> Router {
    let files = Files {
        variants: Arc::new(
            (models.variants.iter())
                .map(|(name, v)| (name.clone(), v.path.clone(), v.bytes, v.context))
                .collect(),
        ),
        config: Arc::new(config_json(models)),
    };
    Router::new()
        .route("/worker", get(page))
        .route("/worker/config.json", get(config))
        .route("/worker/models/{file}", get(model_file))
        .route("/worker/{*path}", get(asset))
        .with_state(files)
        .layer(axum::middleware::map_response(isolate))
}

/// The cross-origin isolation headers, on every response of the page's routes.
const ISOLATION: [(&str, &str); 4] = [
    ("cross-origin-opener-policy", "same-origin"),
    ("cross-origin-embedder-policy", "require-corp"),
    ("cross-origin-resource-policy", "same-origin"),
    ("x-content-type-options", "nosniff"),
];

async fn isolate(mut res: Response) -> Response {
    for (name, value) in ISOLATION {
        res.headers_mut()
            .insert(name, HeaderValue::from_static(value));
    }
    res
}

async fn page() -> Response {
    let headers = [
        (header::CONTENT_TYPE, "text/html; charset=utf-8"),
        (header::CACHE_CONTROL, "no-cache"),
        (header::REFERRER_POLICY, "no-referrer"),
    ];
    (headers, PAGE).into_response()
}

async fn asset(Path(path): Path<String>) -> Response {
    match ASSETS.iter().find(|(p, _, _)| *p == path) {
        Some((_, ty, body)) => {
            let headers = [
                (header::CONTENT_TYPE, *ty),
                (header::CACHE_CONTROL, "no-cache"),
            ];
            (headers, *body).into_response()
        }
        None => not_found(),
    }
}

fn not_found() -> Response {
    let body = serde_json::json!({"error": {"message": "no such file", "type": "invalid_request_error", "param": null, "code": "not_found"}});
    (StatusCode::NOT_FOUND, Json(body)).into_response()
}

/// What the page needs to pick, fetch and run a model file.
fn config_json(models: &Models) -> serde_json::Value {
    let variants: Vec<_> = (models.variants.iter())
        .map(|(name, v)| {
            serde_json::json!({
                "variant": name,
                "url": format!("/worker/models/{name}.gguf"),
                "bytes": v.bytes,
                "modified": modified_secs(&v.path),
                "context": v.context,
                "banned_tokens": v.banned_tokens(),
            })
        })
        .collect();
    serde_json::json!({"model": models.model, "variants": variants})
}

/// The file's modification time in seconds (0 when unknown): part of the name a tab keeps
/// its copy under, so that a replaced file of the same size is downloaded again.
fn modified_secs(path: &std::path::Path) -> u64 {
    (std::fs::metadata(path).and_then(|m| m.modified()).ok())
        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
        .map_or(0, |d| d.as_secs())
}

async fn config(State(files): State<Files>) -> Response {
    let body = Json(files.config.as_ref().clone());
    ([(header::CACHE_CONTROL, "no-cache")], body).into_response()
}

/// A model file: ranges, `Last-Modified`, and a week in any cache (a new file is a new
/// `Last-Modified` and size, which the page checks before it trusts its stored copy).
async fn model_file(
    State(files): State<Files>,
    Path(file): Path<String>,
    req: Request,
) -> Response {
    let Some(name) = file.strip_suffix(".gguf") else {
        return not_found();
    };
    let Some((_, path, _, _)) = files.variants.iter().find(|(n, ..)| n == name) else {
        return not_found();
    };
    match ServeFile::new(path).oneshot(req).await {
        Ok(res) => {
            let mut res = res.into_response();
            res.headers_mut().insert(
                header::CACHE_CONTROL,
                HeaderValue::from_static("public, max-age=604800"),
            );
            res
        }
        Err(_) => not_found(),
    }
}
