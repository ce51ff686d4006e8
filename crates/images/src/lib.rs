//! Image generation's gateway side: `POST /api/v1/images/generations` (the OpenAI images
//! shape) and `POST /api/images/generate` (the site's image endpoint), apart from the chat hot
//! path. The binary merges [`Images::api_routes`] into the gateway's `/api/v1` (behind its key
//! check) and the dashboard mounts [`Images::site_routes`] behind a key or its session. The
//! gateway's pool carries the jobs to image workers; everything about an image request before
//! and after the worker is here.
//!
//! The path of one request, in order: authenticate (a key; on the site's endpoint a
//! dashboard session will also do), validate (`params`), refuse a key suspended for
//! repeated blocked prompts (`offenders`), the content policy on the prompt
//! (`policy`, `shoal-image-policy` over the prompt and negative prompt together: blocked
//! prompts are never held, dispatched or charged), then `render`: hold 10
//! credits, dispatch to an image worker, the output check (`check`, the seam
//! [`OutputCheck`] that `shoal-classifier` implements), settle, or void the hold on any
//! failure; `stream` answers `"stream": true` with the render's progress.

mod check;
mod metrics;
mod offenders;
mod params;
mod policy;
mod render;
mod stream;

pub use check::{Asked, OutputCheck, PngOnly, Unconfigured, Verdict};
pub use offenders::Suspension;
pub use policy::ContentPolicy;

use std::sync::Arc;
use std::time::Instant;

use axum::extract::State;
use axum::http::header;
use axum::response::{IntoResponse, Response};
use axum::Extension;
use shoal_protocol::error::ErrorBody;
use shoal_protocol::images::{ImageData, ImageGenerationRequest, ImageResult, ImagesResponse};
use shoal_protocol::worker::ImageJobRequest;

use axum::routing::post;
use axum::Router;
use shoal_gateway::ApiError;
use shoal_gateway::Caller;
use shoal_gateway::JsonBytes;
use shoal_gateway::RequestStart;
use shoal_gateway::{now_ms, AppState};
use shoal_store::money::IMAGE_CREDITS;
use tokio::sync::watch;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::metrics::{ImageMetrics, OutcomeLabels, RuleLabels};
use crate::params::ImageParams;
use crate::render::{ImageContext, Progress, Rendered};
use crate::stream::ImageStreamEvent;

/// Always added to the caller's negative prompt: the usual rendering faults.
pub const BASELINE_NEGATIVE_PROMPT: &str = "lowres, worst quality, low quality, blurry, jpeg artifacts, watermark, signature, text, deformed, bad anatomy, extra limbs, extra fingers, mutated hands, poorly drawn face, cropped";

/// Image generation in one gateway: its state, beside the gateway's.
#[derive(Clone)]
pub struct Images {
    app: AppState,
    /// The prompt policy every request passes before anything is held.
    policy: ContentPolicy,
    /// The check every rendered image passes before it is returned.
    check: Arc<dyn OutputCheck>,
    /// When blocked prompts suspend a key.
    suspension: Suspension,
    metrics: Arc<ImageMetrics>,
}

impl Images {
    /// Image generation on `app`'s pool and store, its metrics served with the gateway's.
    pub fn new(app: &AppState, policy: ContentPolicy, check: Arc<dyn OutputCheck>) -> Images {
        let metrics = ImageMetrics::default();
        app.metrics.register(|registry| metrics.register(registry));
        Images {
            app: app.clone(),
            policy,
            check,
            suspension: Suspension::default(),
            metrics: Arc::new(metrics),
        }
    }

    /// When blocked prompts suspend a key ([`Suspension::default`] unless set).
    pub fn with_suspension(mut self, suspension: Suspension) -> Images {
        self.suspension = suspension;
        self
    }

    /// `POST /images/generations`, for the gateway's `/api/v1` (its key check, its OpenAPI
    /// document).
    pub fn api_routes(&self) -> OpenApiRouter<AppState> {
        OpenApiRouter::new()
            .routes(routes!(generations))
            .with_state(self.clone())
    }

    /// `POST /api/images/generate`, the site's endpoint; the caller adds the authentication
    /// that puts a `Caller` in the request.
    pub fn site_routes(&self) -> Router<AppState> {
        Router::new()
            .route("/api/images/generate", post(generate_image))
            .with_state(self.clone())
    }
}

/// An image from a prompt (the OpenAI images shape; `client.images.generate` works as is):
/// one PNG as base64, 10 credits, refunded on any failure. With `stream: true`,
/// Server-Sent Events: `image_generation.progress` while it renders, then
/// `image_generation.completed` (or `error`).
#[utoipa::path(
    post,
    path = "/images/generations",
    tag = "images",
    request_body(content = ImageGenerationRequest, content_type = "application/json",
        example = json!({"prompt": "a lighthouse at dusk", "size": "1024x1024", "seed": 42})),
    security(("bearer" = [])),
    responses(
        (status = 200, description = "The image (`stream` false) or its progress and result events (`stream` true); `seed` and `size` reproduce it",
            content(
                (ImagesResponse = "application/json"),
                (ImageStreamEvent = "text/event-stream"),
            )),
        (status = 400, description = "A field is invalid (`param` names it), or the prompt is refused by the content policy (`content_policy_violation`), or the image was withheld by the output check; nothing was charged", body = ErrorBody),
        (status = 401, description = "Missing, malformed or revoked API key", body = ErrorBody),
        (status = 402, description = "Fewer than 10 credits available (`insufficient_credits`); nothing was dispatched", body = ErrorBody),
        (status = 403, description = "The key is suspended from image generation after repeated blocked prompts (`images_suspended`), until the operator lifts it", body = ErrorBody),
        (status = 413, description = "The body exceeds the size limit", body = ErrorBody),
        (status = 415, description = "The body is not JSON", body = ErrorBody),
        (status = 429, description = "The key's rate limit is exceeded", body = ErrorBody,
            headers(("retry-after" = u64, description = "Seconds until a retry can succeed"))),
        (status = 500, description = "The gateway failed; nothing was charged", body = ErrorBody),
        (status = 502, description = "The image worker failed; nothing was charged", body = ErrorBody),
        (status = 503, description = "No image worker is online or free (`no_worker_available`), or no output check is configured; nothing was charged", body = ErrorBody,
            headers(("retry-after" = u64, description = "Seconds to wait before retrying"))),
        (status = 504, description = "The render ran past the time limit; nothing was charged", body = ErrorBody),
    )
)]
async fn generations(
    State(state): State<Images>,
    caller: Caller,
    start: Option<Extension<RequestStart>>,
    JsonBytes(body): JsonBytes,
) -> Result<Response, ApiError> {
    let parsed = params::parse_generations(&body);
    drop(body);
    respond(
        state,
        caller,
        arrival(start),
        parsed,
        stream::Flavor::OpenAi,
    )
    .await
}

/// `POST /api/images/generate`.
async fn generate_image(
    State(state): State<Images>,
    caller: Caller,
    start: Option<Extension<RequestStart>>,
    JsonBytes(body): JsonBytes,
) -> Result<Response, ApiError> {
    let parsed = params::parse_generate(&body);
    drop(body);
    respond(state, caller, arrival(start), parsed, stream::Flavor::Site).await
}

/// Either endpoint's answer to a parsed body: the image in `flavor`'s JSON, or with
/// `stream` its events.
async fn respond(
    state: Images,
    caller: Caller,
    arrived: Instant,
    parsed: Result<ImageParams, ApiError>,
    flavor: stream::Flavor,
) -> Result<Response, ApiError> {
    let params = counted(&state, parsed)?;
    if params.stream {
        return stream::respond(state, caller, arrived, params, flavor).await;
    }
    let (job, rendered) = generate(&state, caller, params, None).await?;
    let worker_time = rendered.worker_time;
    Ok(match flavor {
        stream::Flavor::OpenAi => {
            let body = openai_response(&job, rendered);
            answer(&state, arrived, worker_time, &body)
        }
        stream::Flavor::Site => {
            let body = image_result(&job, rendered);
            answer(&state, arrived, worker_time, &body)
        }
    })
}

/// The answer of `/api/v1/images/generations`.
fn openai_response(job: &ImageJobRequest, rendered: Rendered) -> ImagesResponse {
    ImagesResponse {
        created: now_ms() / 1000,
        data: vec![ImageData {
            b64_json: rendered.png_base64,
            seed: job.seed,
        }],
        model: rendered.model,
        seed: job.seed,
        size: format!("{}x{}", job.width, job.height),
    }
}

/// The image result object of `/api/images/generate`.
fn image_result(job: &ImageJobRequest, rendered: Rendered) -> ImageResult {
    let mut image = String::with_capacity(22 + rendered.png_base64.len());
    image.push_str("data:image/png;base64,");
    image.push_str(&rendered.png_base64);
    ImageResult {
        image,
        model: rendered.model,
        seed: job.seed,
        width: job.width,
        height: job.height,
        credits_charged: IMAGE_CREDITS,
    }
}

fn arrival(start: Option<Extension<RequestStart>>) -> Instant {
    start.map(|s| s.0 .0).unwrap_or_else(Instant::now)
}

/// The policy check, then the render; returns the job as sent (its seed and size). The
/// worker's progress goes to `progress` when given.
async fn generate(
    state: &Images,
    caller: Caller,
    params: ImageParams,
    progress: Option<watch::Sender<Progress>>,
) -> Result<(ImageJobRequest, Rendered), ApiError> {
    screen(state, &caller, &params).await?;
    if !state.check.available() {
        record(state, "check_unavailable");
        return Err(ApiError::output_check_unavailable(
            "image generation is unavailable: no image output classifier is configured \
             (image_classifier_path), and images are never returned unchecked",
        ));
    }
    let nsfw = params.nsfw;
    let job = job_request(params);
    let ctx = ImageContext {
        request_id: request_id(),
        account_id: caller.account_id,
        free_daily: caller.free_daily,
        key_id: caller.key_id,
        job: job.clone(),
        nsfw,
        progress,
    };
    match render::run(state.clone(), ctx).await {
        Ok(rendered) => {
            record(state, "ok");
            Ok((job, rendered))
        }
        Err((failure, e)) => {
            record(state, failure.label());
            if failure == render::Failure::PromptRefused {
                // The worker's semantic check: a blocked prompt like the policy's.
                let labels = RuleLabels {
                    rule: "worker_prompt_check",
                };
                state.metrics.prompts_blocked.get_or_create(&labels).inc();
                offenders::count_block(state, &caller).await;
            }
            Err(e)
        }
    }
}

/// What stops a request before anything is held: a suspended key, then the prompt policy
/// (a block is counted against the key).
async fn screen(state: &Images, caller: &Caller, params: &ImageParams) -> Result<(), ApiError> {
    if let Err(e) = offenders::admit(state, caller).await {
        let suspended = e.code == ApiError::images_suspended().code;
        record(state, if suspended { "suspended" } else { "internal" });
        return Err(e);
    }
    let checked = state
        .policy
        .check(&params.prompt, &params.negative_prompt, params.nsfw);
    let Err(rule) = checked else {
        return Ok(());
    };
    record(state, "prompt_blocked");
    let labels = RuleLabels { rule: rule.code() };
    state.metrics.prompts_blocked.get_or_create(&labels).inc();
    offenders::count_block(state, caller).await;
    Err(ApiError::content_policy_violation(
        "the prompt was blocked by the content policy; nothing was charged",
    ))
}

/// The generation input and nothing else: the service's baseline negative prompt joined on,
/// and a seed picked here when the caller gave none, so the answer can always report it.
fn job_request(params: ImageParams) -> ImageJobRequest {
    let caller_negative = params.negative_prompt.trim();
    let negative_prompt = if caller_negative.is_empty() {
        BASELINE_NEGATIVE_PROMPT.to_owned()
    } else {
        format!("{caller_negative}, {BASELINE_NEGATIVE_PROMPT}")
    };
    ImageJobRequest {
        prompt: params.prompt,
        negative_prompt,
        width: params.width,
        height: params.height,
        steps: params.steps,
        cfg: params.cfg,
        seed: params
            .seed
            .unwrap_or_else(|| rand::random_range(0..=params::MAX_SEED)),
    }
}

/// Time-ordered like chat ids (UUIDv7), under its own prefix.
fn request_id() -> String {
    let millis = u64::try_from(now_ms()).unwrap_or(0);
    let id = uuid::Builder::from_unix_timestamp_millis(millis, &rand::random()).into_uuid();
    format!("img-{}", id.simple())
}

fn counted<T>(state: &Images, parsed: Result<T, ApiError>) -> Result<T, ApiError> {
    if parsed.is_err() {
        record(state, "invalid");
    }
    parsed
}

fn record(state: &Images, outcome: &'static str) {
    state
        .metrics
        .requests
        .get_or_create(&OutcomeLabels { outcome })
        .inc();
}

/// The JSON answer, written here so that the gateway's overhead (everything but the render)
/// includes writing a body of several MB.
fn answer(
    state: &Images,
    arrived: Instant,
    worker_time: std::time::Duration,
    body: &impl serde::Serialize,
) -> Response {
    let bytes = serde_json::to_vec(body).expect("image answers serialize");
    let response = ([(header::CONTENT_TYPE, "application/json")], bytes).into_response();
    observe_overhead(state, arrived, worker_time);
    response
}

/// The gateway's own share of one image request: everything but the render.
fn observe_overhead(state: &Images, arrived: Instant, worker_time: std::time::Duration) {
    let overhead = arrived.elapsed().saturating_sub(worker_time);
    state.metrics.overhead.observe(overhead.as_secs_f64());
}

#[cfg(test)]
mod tests;
