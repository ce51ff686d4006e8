//! Reading a request body that must be JSON.

use axum::body::Bytes;
use axum::extract::{FromRequest, Request};
use axum::http::header;

use crate::http::ApiError;

/// A request body that must be JSON, read whole within the configured size limit.
/// Its rejections are [`ApiError`]s, so they have the one error shape.
pub struct JsonBytes(pub Bytes);

impl<S: Send + Sync> FromRequest<S> for JsonBytes {
    type Rejection = ApiError;

    async fn from_request(req: Request, state: &S) -> Result<Self, Self::Rejection> {
        if let Some(ct) = req.headers().get(header::CONTENT_TYPE) {
            let ct = ct.to_str().unwrap_or("");
            let mime = ct.split(';').next().unwrap_or("").trim();
            if !(mime.eq_ignore_ascii_case("application/json") || mime.ends_with("+json")) {
                return Err(ApiError::unsupported_media_type());
            }
        }
        let limit = req
            .extensions()
            .get::<BodyLimit>()
            .map(|l| l.0)
            .unwrap_or(crate::config::DEFAULT_BODY_LIMIT);
        match Bytes::from_request(req, state).await {
            Ok(bytes) => Ok(JsonBytes(bytes)),
            Err(rejection) if rejection.status() == axum::http::StatusCode::PAYLOAD_TOO_LARGE => {
                Err(ApiError::payload_too_large(limit))
            }
            Err(_) => Err(ApiError::invalid_request(
                "could not read the request body",
                None,
            )),
        }
    }
}

/// The configured body limit, for error messages.
#[derive(Debug, Clone, Copy)]
pub struct BodyLimit(pub usize);
