//! The image endpoints' answers: `POST /api/v1/images/generations` (the OpenAI images shape)
//! and `POST /api/images/generate` (the image result object). Images are inline base64;
//! nothing is stored, so there are no URLs.

use serde::{Deserialize, Serialize};

/// The body of `POST /api/v1/images/generations`, for the OpenAPI document: the gateway
/// reads bodies field by field (`shoal-gateway`'s `images::params`), so that every bad field
/// gets its own 400; this type states the same rules as a schema.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct ImageGenerationRequest {
    /// What to draw; at most 4,000 characters, not blank.
    #[cfg_attr(feature = "openapi", schema(min_length = 1, max_length = 4000))]
    pub prompt: String,
    /// `WIDTHxHEIGHT`, each side 512 to 1536, snapped to the nearest multiple of 64; `auto` or
    /// absent: `1024x1024`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "openapi", schema(example = "1024x1024"))]
    pub size: Option<String>,
    /// What to avoid; the service always adds its own anti-artifact negative prompt.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "openapi", schema(max_length = 4000))]
    pub negative_prompt: Option<String>,
    /// The seed; absent: the service picks one and reports it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "openapi", schema(format = Int64, minimum = 0, maximum = 4_294_967_295_u64))]
    pub seed: Option<u64>,
    /// Sampling steps, 10 to 60 (default 32).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "openapi", schema(format = Int64, minimum = 10, maximum = 60))]
    pub steps: Option<u32>,
    /// Classifier-free guidance scale, 1 to 15 (default 4).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "openapi", schema(minimum = 1, maximum = 15))]
    pub cfg: Option<f64>,
    /// Allow adult content (default false). Content involving minors is refused either way.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nsfw: Option<bool>,
    /// Only 1.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "openapi", schema(format = Int64, minimum = 1, maximum = 1))]
    pub n: Option<u32>,
    /// Only `b64_json`: images are never stored, so there is no URL.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "openapi", schema(pattern = "^b64_json$"))]
    pub response_format: Option<String>,
    /// Answer with Server-Sent Events: `image_generation.progress` events, then one
    /// `image_generation.completed` (or an `error` event).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stream: Option<bool>,
    /// 0 to 3, as OpenAI's; no partial images are sent (workers report steps, not previews).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "openapi", schema(format = Int64, minimum = 0, maximum = 3))]
    pub partial_images: Option<u32>,
    /// Accepted for compatibility and ignored: the image model is the worker's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// Accepted for compatibility; never forwarded to a worker.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub user: Option<String>,
}

/// The answer of `POST /api/v1/images/generations`: what the OpenAI SDKs read (`created`,
/// `data[0].b64_json`), plus what reproduces the image (`seed`, `size`, `model`).
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ImagesResponse {
    /// Unix seconds.
    pub created: i64,
    pub data: Vec<ImageData>,
    /// The image model that rendered it.
    pub model: String,
    /// The seed used (the caller's, or the one the service picked).
    pub seed: u64,
    /// The size rendered, `WIDTHxHEIGHT`, after snapping to multiples of 64.
    pub size: String,
}

/// One image of an [`ImagesResponse`].
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ImageData {
    /// The PNG, standard base64.
    pub b64_json: String,
    pub seed: u64,
}

/// The image result object of `POST /api/images/generate`.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ImageResult {
    /// `data:image/png;base64,…`
    pub image: String,
    pub model: String,
    pub seed: u64,
    pub width: u32,
    pub height: u32,
    pub credits_charged: i64,
}
