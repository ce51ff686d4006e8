//! The image endpoints' answers: `POST /api/v1/images/generations` (the OpenAI images shape)
//! and `POST /api/images/generate` (the image result object). Images are inline base64;
//! nothing is stored, so there are no URLs.

use serde::{Deserialize, Serialize};

/// The answer of `POST /api/v1/images/generations`: what the OpenAI SDKs read (`created`,
/// `data[0].b64_json`), plus what reproduces the image (`seed`, `size`, `model`).
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
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ImageData {
    /// The PNG, standard base64.
    pub b64_json: String,
    pub seed: u64,
}

/// The image result object of `POST /api/images/generate`.
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
