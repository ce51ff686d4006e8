//! `metrics_token`: when set, `GET /metrics` answers only a request that presents it as a
//! bearer token; anything else gets 401 in the one error shape. Only the token's SHA-256 is
//! kept, and presented tokens are compared by their digests, so the comparison's time says
//! nothing about the token.

use axum::http::{header, HeaderMap};
use shoal_store::credentials::hash_secret;

use crate::http::ApiError;

/// The shortest token accepted: shorter ones could be guessed over the network.
const MIN_LEN: usize = 16;

/// The configured token, as its digest.
#[derive(Clone, PartialEq, Eq)]
pub struct MetricsToken([u8; 32]);

impl std::fmt::Debug for MetricsToken {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("MetricsToken(…)")
    }
}

impl MetricsToken {
    pub fn new(token: &str) -> anyhow::Result<MetricsToken> {
        anyhow::ensure!(
            token.len() >= MIN_LEN && token.bytes().all(|b| b.is_ascii_graphic()),
            "metrics_token must be at least {MIN_LEN} printable characters without spaces"
        );
        Ok(MetricsToken(hash_secret(token)))
    }

    /// Whether `headers` carry `Authorization: Bearer <this token>`.
    pub fn check(&self, headers: &HeaderMap) -> Result<(), ApiError> {
        let presented = headers
            .get(header::AUTHORIZATION)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.split_once(' '))
            .filter(|(scheme, _)| scheme.eq_ignore_ascii_case("bearer"))
            .map(|(_, token)| token.trim());
        match presented {
            Some(t) if hash_secret(t) == self.0 => Ok(()),
            Some(_) => Err(ApiError::unauthorized("wrong metrics token")),
            None => Err(ApiError::unauthorized(
                "/metrics needs the operator's metrics_token: `Authorization: Bearer <token>`",
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn with(value: &str) -> HeaderMap {
        let mut h = HeaderMap::new();
        h.insert(header::AUTHORIZATION, value.parse().expect("header value"));
        h
    }

    #[test]
    fn only_the_token_opens_metrics() {
        let t = MetricsToken::new("0123456789abcdef-x").expect("a long token");
        assert!(t.check(&with("Bearer 0123456789abcdef-x")).is_ok());
        assert!(t.check(&with("bearer 0123456789abcdef-x")).is_ok());
        for wrong in [
            "Bearer 0123456789abcdef-y",
            "Basic 0123456789abcdef-x",
            "Bearer",
        ] {
            let e = t.check(&with(wrong)).expect_err(wrong);
            assert_eq!(e.status, axum::http::StatusCode::UNAUTHORIZED);
        }
        assert!(t.check(&HeaderMap::new()).is_err());
        assert!(MetricsToken::new("short").is_err());
        assert!(MetricsToken::new("has a space in it, long").is_err());
    }
}
