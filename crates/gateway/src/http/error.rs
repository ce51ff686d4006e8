//! The one error type of the HTTP surface. Every failure, including framework rejections and
//! unknown routes, becomes `{"error":{"message","type","code"}}` with the right status.
//!
//! Messages are written here or come from validators that never echo request values, so an
//! error can't carry prompt text back out or into a log.

use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use shoal_protocol::error::ErrorBody;

/// What a 503 for an unavailable database asks the client to wait: about as long as a
/// database restart, and the store's connection recovery, take.
const DATABASE_RETRY_AFTER_SECS: u64 = 2;

#[derive(Debug, Clone)]
pub struct ApiError {
    pub status: StatusCode,
    pub kind: &'static str,
    pub code: &'static str,
    pub message: String,
    pub param: Option<String>,
    /// Seconds, for 429 and 503.
    pub retry_after: Option<u64>,
}

impl ApiError {
    fn new(status: StatusCode, kind: &'static str, code: &'static str, message: String) -> Self {
        ApiError {
            status,
            kind,
            code,
            message,
            param: None,
            retry_after: None,
        }
    }

    pub fn invalid_request(message: impl Into<String>, param: Option<String>) -> Self {
        let mut e = Self::new(
            StatusCode::BAD_REQUEST,
            "invalid_request_error",
            "invalid_request",
            message.into(),
        );
        e.param = param;
        e
    }

    pub fn unauthorized(message: impl Into<String>) -> Self {
        Self::new(
            StatusCode::UNAUTHORIZED,
            "authentication_error",
            "invalid_api_key",
            message.into(),
        )
    }

    /// 403: a request the caller may never make this way (a cross-site one).
    pub fn forbidden(message: impl Into<String>) -> Self {
        Self::new(
            StatusCode::FORBIDDEN,
            "permission_error",
            "forbidden",
            message.into(),
        )
    }

    pub fn insufficient_credits(needed: i64, available: i64) -> Self {
        Self::new(
            StatusCode::PAYMENT_REQUIRED,
            "insufficient_credits",
            "insufficient_credits",
            format!(
                "insufficient credits: this request needs a hold of {needed} credits and {available} are available"
            ),
        )
    }

    /// 402: the API key's own spending limit leaves less than the request's hold (distinct
    /// from the account's credits). Names the limit and when it resets.
    pub fn key_limit_exceeded(
        needed: i64,
        limit: i64,
        remaining: i64,
        resets_at: Option<i64>,
    ) -> Self {
        let resets = match resets_at {
            Some(ms) => {
                let (y, m, d) = shoal_store::money::civil_from_days(ms.div_euclid(86_400_000));
                format!("it resets at {y:04}-{m:02}-{d:02}T00:00:00Z")
            }
            None => "it does not reset".to_string(),
        };
        Self::new(
            StatusCode::PAYMENT_REQUIRED,
            "insufficient_credits",
            "key_limit_exceeded",
            format!(
                "this API key's spending limit of {limit} credits has {remaining} left and this \
                 request needs a hold of {needed}; {resets}"
            ),
        )
    }

    pub fn model_not_found() -> Self {
        Self::new(
            StatusCode::NOT_FOUND,
            "invalid_request_error",
            "model_not_found",
            "the requested model does not exist; GET /api/v1/models lists the models".into(),
        )
        .with_param("model")
    }

    /// 404 for `GET /responses/{id}`: the Responses API here is stateless.
    pub fn response_not_stored() -> Self {
        Self::new(
            StatusCode::NOT_FOUND,
            "invalid_request_error",
            "not_found",
            "responses are not stored: this service is stateless; send the whole conversation \
             in `input` instead of referring to an earlier response"
                .into(),
        )
    }

    /// 404 for something the caller named that it cannot see: unknown, or another account's
    /// (the two read the same).
    pub fn not_found(message: impl Into<String>, param: &str) -> Self {
        Self::new(
            StatusCode::NOT_FOUND,
            "invalid_request_error",
            "not_found",
            message.into(),
        )
        .with_param(param)
    }

    pub fn route_not_found() -> Self {
        Self::new(
            StatusCode::NOT_FOUND,
            "invalid_request_error",
            "not_found",
            "no such route".into(),
        )
    }

    pub fn method_not_allowed() -> Self {
        Self::new(
            StatusCode::METHOD_NOT_ALLOWED,
            "invalid_request_error",
            "method_not_allowed",
            "this method is not allowed on this route".into(),
        )
    }

    pub fn payload_too_large(limit: usize) -> Self {
        Self::new(
            StatusCode::PAYLOAD_TOO_LARGE,
            "invalid_request_error",
            "request_too_large",
            format!("request body exceeds the limit of {limit} bytes"),
        )
    }

    /// No worker here could take the job, and it is too large to send to a replica whose
    /// worker could (NATS's `max_payload`): retrying cannot help.
    pub fn too_large_for_cluster() -> Self {
        Self::new(
            StatusCode::PAYLOAD_TOO_LARGE,
            "invalid_request_error",
            "request_too_large",
            "the request is too large to send to another replica (over the cluster's message \
             size, NATS max_payload) and no worker connected to this one can serve it; send a \
             smaller request"
                .into(),
        )
    }

    pub fn rate_limited(limit: u32, retry_after: u64) -> Self {
        let mut e = Self::new(
            StatusCode::TOO_MANY_REQUESTS,
            "rate_limit_error",
            "rate_limit_exceeded",
            format!("rate limit of {limit} requests per minute exceeded; retry in {retry_after} s"),
        );
        e.retry_after = Some(retry_after);
        e
    }

    /// 429: the key has `cap` requests in flight already (`key_concurrency`).
    pub fn too_many_in_flight(cap: u32) -> Self {
        let mut e = Self::new(
            StatusCode::TOO_MANY_REQUESTS,
            "rate_limit_error",
            "concurrency_limit_exceeded",
            format!(
                "this key already has {cap} requests in flight, its limit; retry when one ends"
            ),
        );
        e.retry_after = Some(1);
        e
    }

    pub fn no_worker(message: impl Into<String>) -> Self {
        let mut e = Self::new(
            StatusCode::SERVICE_UNAVAILABLE,
            "service_unavailable",
            "no_worker_available",
            message.into(),
        );
        e.retry_after = Some(5);
        e
    }

    /// The database cannot answer now (down, restarting, a lock timeout). The request is not
    /// billed; the client may retry shortly.
    pub fn database_unavailable() -> Self {
        let mut e = Self::new(
            StatusCode::SERVICE_UNAVAILABLE,
            "service_unavailable",
            "database_unavailable",
            "the service's database is unavailable; retry shortly".into(),
        );
        e.retry_after = Some(DATABASE_RETRY_AFTER_SECS);
        e
    }

    /// The worker failed in a way another worker would not fix. The worker's code is named;
    /// its message never travels (it may quote the prompt).
    pub fn worker_failed(code: &shoal_protocol::worker::ErrorCode) -> Self {
        Self::new(
            StatusCode::BAD_GATEWAY,
            "server_error",
            "worker_error",
            format!("the worker failed to complete the request ({code}); only delivered output is billed"),
        )
    }

    /// Every worker asked answered a structured request (a JSON format, a strict tool) with
    /// something that failed the gateway's check; nothing was billed.
    pub fn invalid_structured_output() -> Self {
        Self::new(
            StatusCode::BAD_GATEWAY,
            "server_error",
            shoal_answer_check::ERROR_CODE,
            "the workers' answers did not match the requested response_format or strict tool \
             parameters; nothing was billed"
                .into(),
        )
    }

    /// Whether this is a 503 for want of a worker.
    pub fn is_no_worker(&self) -> bool {
        self.code == "no_worker_available"
    }

    /// An image prompt blocked by the content policy, or an image withheld by the output
    /// check. The message never says which words or what was seen.
    pub fn content_policy_violation(message: impl Into<String>) -> Self {
        Self::new(
            StatusCode::BAD_REQUEST,
            "invalid_request_error",
            "content_policy_violation",
            message.into(),
        )
    }

    /// The key was suspended from image generation after repeated blocked prompts: a 403,
    /// which clients do not retry, until an operator lifts it.
    pub fn images_suspended() -> Self {
        Self::new(
            StatusCode::FORBIDDEN,
            "permission_error",
            "images_suspended",
            "image generation is suspended for this API key after repeated prompts blocked by \
             the content policy, until the operator lifts it; nothing was charged"
                .into(),
        )
    }

    /// A rendered image showed adult content and the request asked for none (SFW mode).
    pub fn nsfw_output_blocked() -> Self {
        Self::new(
            StatusCode::BAD_REQUEST,
            "invalid_request_error",
            "nsfw_output_blocked",
            "the generated image was withheld: it was classified as adult content and the request \
             did not set nsfw; nothing was charged"
                .into(),
        )
    }

    /// Images cannot be checked, so none are generated (fail closed): no classifier is
    /// configured, or it failed on this image.
    pub fn output_check_unavailable(message: impl Into<String>) -> Self {
        Self::new(
            StatusCode::SERVICE_UNAVAILABLE,
            "service_unavailable",
            "image_check_unavailable",
            message.into(),
        )
    }

    pub fn timeout() -> Self {
        Self::new(
            StatusCode::GATEWAY_TIMEOUT,
            "server_error",
            "timeout",
            "the request ran past the gateway's time limit; only delivered output is billed".into(),
        )
    }

    pub fn unsupported_media_type() -> Self {
        Self::new(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "invalid_request_error",
            "unsupported_media_type",
            "the request body must be JSON (Content-Type: application/json)".into(),
        )
    }

    /// A failure of ours, not the caller's. The detail goes to the log, not to the client.
    pub fn internal() -> Self {
        Self::new(
            StatusCode::INTERNAL_SERVER_ERROR,
            "server_error",
            "internal_error",
            "internal error; the request was not billed".into(),
        )
    }

    pub fn with_param(mut self, param: &str) -> Self {
        self.param = Some(param.to_owned());
        self
    }
}

impl std::fmt::Display for ApiError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} {}: {}",
            self.status.as_u16(),
            self.code,
            self.message
        )
    }
}

impl std::error::Error for ApiError {}

impl From<shoal_store::StoreError> for ApiError {
    fn from(err: shoal_store::StoreError) -> Self {
        if err.is_retryable() {
            // Down, restarting, or a lock that did not come free in time: the caller may
            // try again shortly. Never a 500.
            tracing::warn!(error = %err, "database unavailable");
            return ApiError::database_unavailable();
        }
        tracing::error!(error = %err, "store error");
        ApiError::internal()
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let mut body = ErrorBody::new(self.message, self.kind, self.code);
        body.error.param = self.param;
        let mut response = (self.status, axum::Json(body)).into_response();
        if let Some(secs) = self.retry_after {
            response
                .headers_mut()
                .insert(header::RETRY_AFTER, HeaderValue::from(secs));
        }
        // Handlers' own errors are logged by the request log line; the code is enough there.
        response.extensions_mut().insert(ErrorCode(self.code));
        response
    }
}

/// Marks a response as an error of ours, so the access log can name its code.
#[derive(Debug, Clone, Copy)]
pub struct ErrorCode(pub &'static str);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_unavailable_database_is_503_with_retry_after_never_500() {
        let e = ApiError::from(shoal_store::StoreError::Unavailable("restarting".into()));
        let r = e.into_response();
        assert_eq!(r.status(), StatusCode::SERVICE_UNAVAILABLE);
        assert_eq!(r.headers()[header::RETRY_AFTER], "2");
        let e = ApiError::from(shoal_store::StoreError::Internal("bad row".into()));
        assert_eq!(e.status, StatusCode::INTERNAL_SERVER_ERROR);
    }
}
