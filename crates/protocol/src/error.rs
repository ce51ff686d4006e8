//! The one error body of the HTTP surface: `{"error":{"message","type","param","code"}}`.
//!
//! Which status, `type` and `code` go with which failure is the gateway's decision; this is
//! only the shape, so that every producer and every test agrees on it.

use serde::{Deserialize, Serialize};

/// `{"error": {...}}`, the body of every non-2xx response.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ErrorBody {
    pub error: ErrorDetail,
}

/// The inside of an [`ErrorBody`].
///
/// `param` and `code` are always serialized, as `null` when absent, the way the OpenAI API
/// does, so clients that index them directly find the key.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ErrorDetail {
    /// Human-readable; never contains prompt or completion text.
    pub message: String,
    /// Error class, e.g. `invalid_request_error`.
    #[serde(rename = "type")]
    pub r#type: String,
    /// The request field at fault, as a path like `messages[2].tool_call_id`.
    #[serde(default)]
    pub param: Option<String>,
    /// Machine-readable code, e.g. `model_not_found`, `insufficient_credits`.
    #[serde(default)]
    pub code: Option<String>,
}

impl ErrorBody {
    /// An error body with `param` unset.
    pub fn new(
        message: impl Into<String>,
        r#type: impl Into<String>,
        code: impl Into<String>,
    ) -> Self {
        ErrorBody {
            error: ErrorDetail {
                message: message.into(),
                r#type: r#type.into(),
                param: None,
                code: Some(code.into()),
            },
        }
    }

    /// The same body naming the request field at fault.
    pub fn with_param(mut self, param: impl Into<String>) -> Self {
        self.error.param = Some(param.into());
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn serializes_to_the_one_error_shape() {
        let body = ErrorBody::new("no such model", "invalid_request_error", "model_not_found");
        assert_eq!(
            serde_json::to_value(&body).unwrap(),
            json!({"error": {"message": "no such model", "type": "invalid_request_error",
                             "param": null, "code": "model_not_found"}})
        );
        let body = body.with_param("model");
        assert_eq!(
            serde_json::to_value(&body).unwrap()["error"]["param"],
            "model"
        );
    }

    #[test]
    fn parses_bodies_without_param_or_code() {
        let body: ErrorBody =
            serde_json::from_value(json!({"error": {"message": "m", "type": "t"}})).unwrap();
        assert_eq!(body.error.code, None);
        assert_eq!(body.error.param, None);
    }
}
