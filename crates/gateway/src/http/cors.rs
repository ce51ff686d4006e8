//! Cross-origin access to the bearer-key API, so browser apps can call `/api/v1` directly.
//!
//! Only the `/api/v1` router carries this layer. Those routes authenticate with a bearer key
//! that the calling page holds itself, never with a cookie, so letting any origin call them
//! gives a page nothing it does not already have. Credentialed requests are never allowed:
//! no response carries `Access-Control-Allow-Credentials`, so a browser refuses to send
//! cookies cross-site and to show such a response to the page. Routes that authenticate
//! with a session cookie live outside `/api/v1` and get no CORS headers at all, so other
//! sites cannot call them.
//!
//! The layer answers preflights (`OPTIONS`) itself, before authentication, and adds its
//! headers to every response of the router, errors (401, 402, 429 …) included, so a page can
//! read why a call failed. Only requests that carry an `Origin` go through it: a browser sends
//! one on every cross-origin call, and the SDKs and servers that make most calls send none, so
//! their requests skip the work (a header map built and merged per request) and their
//! responses stay as small as before.

use std::task::{Context, Poll};
use std::time::Duration;

use axum::http::{header, HeaderName, HeaderValue, Method, Request, Response};
use futures::future::Either;
use tower::{Layer, Service};
use tower_http::cors::{AllowHeaders, AllowOrigin, Cors, CorsLayer};

/// The config value that allows every origin (the default).
pub const ANY_ORIGIN: &str = "*";

/// How long a browser may cache a preflight's answer.
const PREFLIGHT_MAX_AGE: Duration = Duration::from_secs(600);

/// Response headers a page may read besides the CORS-safelisted ones.
const EXPOSED: [&str; 5] = [
    "x-request-id",
    "x-ratelimit-limit-requests",
    "x-ratelimit-remaining-requests",
    "x-ratelimit-reset-requests",
    "retry-after",
];

/// Which origins may call `/api/v1` from a browser.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AllowedOrigins {
    Any,
    /// Exact origins (`https://app.example.com`, `http://localhost:3000`).
    List(Vec<HeaderValue>),
}

impl AllowedOrigins {
    /// Reads the config's `cors_allowed_origins`: `["*"]` (any) or a list of origins, each
    /// `scheme://host[:port]` with no path.
    pub fn parse(origins: &[String]) -> anyhow::Result<Self> {
        if origins.iter().any(|o| o == ANY_ORIGIN) {
            anyhow::ensure!(
                origins.len() == 1,
                "cors_allowed_origins: \"*\" allows every origin and cannot be combined with others"
            );
            return Ok(AllowedOrigins::Any);
        }
        anyhow::ensure!(
            !origins.is_empty(),
            "cors_allowed_origins must name at least one origin, or be [\"*\"]"
        );
        let parsed = origins
            .iter()
            .map(|o| {
                let host = o
                    .strip_prefix("https://")
                    .or_else(|| o.strip_prefix("http://"));
                let valid = host.is_some_and(|h| !h.is_empty() && !h.contains('/'));
                anyhow::ensure!(
                    valid,
                    "cors_allowed_origins: `{o}` is not an origin (scheme://host[:port], no path)"
                );
                HeaderValue::from_str(o)
                    .map_err(|_| anyhow::anyhow!("cors_allowed_origins: `{o}` is not ASCII"))
            })
            .collect::<anyhow::Result<Vec<_>>>()?;
        Ok(AllowedOrigins::List(parsed))
    }
}

/// The CORS layer of the `/api/v1` router, for requests that carry an `Origin`.
pub fn layer(origins: &AllowedOrigins) -> WithOrigin {
    WithOrigin(cors(origins))
}

fn cors(origins: &AllowedOrigins) -> CorsLayer {
    let allow_origin = match origins {
        AllowedOrigins::Any => AllowOrigin::any(),
        AllowedOrigins::List(list) => AllowOrigin::list(list.iter().cloned()),
    };
    CorsLayer::new()
        .allow_origin(allow_origin)
        .allow_methods([Method::GET, Method::POST])
        // The headers the preflight asks for, by name: `authorization` then appears
        // explicitly (a `*` would not cover it), and the SDKs' own `x-stainless-*` headers
        // pass without a list to keep up to date.
        .allow_headers(AllowHeaders::mirror_request())
        .expose_headers(EXPOSED.map(HeaderName::from_static))
        .max_age(PREFLIGHT_MAX_AGE)
        .allow_credentials(false)
}

/// Applies a CORS layer to the requests that carry an `Origin` header only.
#[derive(Clone)]
pub struct WithOrigin(CorsLayer);

impl<S: Clone> Layer<S> for WithOrigin {
    type Service = WithOriginService<S>;

    fn layer(&self, inner: S) -> Self::Service {
        WithOriginService {
            cors: self.0.layer(inner.clone()),
            plain: inner,
        }
    }
}

#[derive(Clone)]
pub struct WithOriginService<S> {
    plain: S,
    cors: Cors<S>,
}

impl<S, ReqBody, ResBody> Service<Request<ReqBody>> for WithOriginService<S>
where
    S: Service<Request<ReqBody>, Response = Response<ResBody>>,
    ResBody: Default,
{
    type Response = Response<ResBody>;
    type Error = S::Error;
    type Future = Either<S::Future, <Cors<S> as Service<Request<ReqBody>>>::Future>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        // Either may take the request, so both must be ready.
        match self.plain.poll_ready(cx) {
            Poll::Ready(Ok(())) => self.cors.poll_ready(cx),
            other => other,
        }
    }

    fn call(&mut self, req: Request<ReqBody>) -> Self::Future {
        if req.headers().contains_key(header::ORIGIN) {
            Either::Right(self.cors.call(req))
        } else {
            Either::Left(self.plain.call(req))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(list: &[&str]) -> anyhow::Result<AllowedOrigins> {
        AllowedOrigins::parse(&list.iter().map(|s| s.to_string()).collect::<Vec<_>>())
    }

    #[test]
    fn origins_config() {
        assert_eq!(parse(&["*"]).unwrap(), AllowedOrigins::Any);
        let list = parse(&["https://app.example.com", "http://localhost:3000"]).unwrap();
        assert_eq!(
            list,
            AllowedOrigins::List(vec![
                HeaderValue::from_static("https://app.example.com"),
                HeaderValue::from_static("http://localhost:3000"),
            ])
        );
        for bad in [
            &[][..],
            &["*", "https://a.example"],
            &["app.example.com"],
            &["https://app.example.com/"],
            &["https://app.example.com/path"],
            &["https://"],
            &["ftp://a.example"],
        ] {
            assert!(parse(bad).is_err(), "{bad:?}");
        }
    }
}
