//! One client request and the judgement of how it ended: a correct answer, a documented
//! error, or a violation (a wrong answer, a broken stream, a request that hung).

use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::Shared;

/// How one request ended.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Outcome {
    /// 200 with exactly the text the worker generated for this request.
    Answered,
    /// 503 `no_worker_available`: nothing could serve it.
    Unavailable,
    /// 502 `worker_error`: the worker failed after its first token (or refused the job).
    WorkerFailed,
    /// 504 `timeout` (a whole body), or a stream's `timeout` error event.
    TimedOut,
    /// A stream that ended with an error event after its first token.
    StreamError,
    /// The client hung up on purpose.
    HungUp,
    /// A violation: anything else (the text says what, never the generated content).
    Wrong(String),
    /// A violation: no end within the gateway's timeout plus a margin.
    Hung,
}

impl Outcome {
    pub fn is_violation(&self) -> bool {
        matches!(self, Outcome::Wrong(_) | Outcome::Hung)
    }
}

/// Sends request `nonce` and judges its end; `hang_up` drops it after that long.
pub async fn request(
    shared: Arc<Shared>,
    http: reqwest::Client,
    key: String,
    nonce: u64,
    stream: bool,
    hang_up: Option<Duration>,
) -> Outcome {
    let body = json!({
        "model": shared.model,
        "stream": stream,
        "max_tokens": 16,
        "messages": [{"role": "user", "content": format!("churn {nonce}")}],
    });
    let url = format!("{}/api/v1/chat/completions", shared.base);
    shared.request_sent(nonce, Instant::now());
    let run = async {
        let resp = http.post(url).bearer_auth(key).json(&body).send().await;
        let resp = match resp {
            Ok(r) => r,
            Err(e) => return Outcome::Wrong(format!("transport: {}", kind_of(&e))),
        };
        match resp.status().as_u16() {
            200 if stream => read_stream(resp, nonce).await,
            200 => read_whole(resp, nonce).await,
            status => read_error(resp, status).await,
        }
    };
    let outcome = match hang_up {
        Some(after) => match tokio::time::timeout(after, run).await {
            Ok(o) => o,
            Err(_) => Outcome::HungUp,
        },
        None => match tokio::time::timeout(shared.client_timeout, run).await {
            Ok(o) => o,
            Err(_) => Outcome::Hung,
        },
    };
    shared.request_ended(nonce);
    outcome
}

fn kind_of(e: &reqwest::Error) -> &'static str {
    if e.is_timeout() {
        "timeout"
    } else if e.is_connect() {
        "connect"
    } else if e.is_body() || e.is_decode() {
        "body"
    } else {
        "request"
    }
}

fn expected(nonce: u64) -> String {
    format!("ok-{nonce}")
}

async fn read_whole(resp: reqwest::Response, nonce: u64) -> Outcome {
    let Ok(v) = resp.json::<Value>().await else {
        return Outcome::Wrong("200 body is not JSON".into());
    };
    if v["choices"][0]["message"]["content"].as_str() == Some(expected(nonce).as_str()) {
        Outcome::Answered
    } else {
        Outcome::Wrong("200 with another request's text or none".into())
    }
}

/// An error before the first token; a stream is answered like a whole body then.
async fn read_error(resp: reqwest::Response, status: u16) -> Outcome {
    let v: Value = resp.json().await.unwrap_or(Value::Null);
    let code = v["error"]["code"].as_str().unwrap_or("").to_owned();
    match (status, code.as_str()) {
        (503, "no_worker_available") => Outcome::Unavailable,
        (502, "worker_error") => Outcome::WorkerFailed,
        (504, "timeout") => Outcome::TimedOut,
        _ => Outcome::Wrong(format!("status {status} with code {code:?}")),
    }
}

/// Reads SSE events; a stream must end with `[DONE]` after exactly this request's text, or
/// with one error event whose text before it is a prefix of that.
async fn read_stream(mut resp: reqwest::Response, nonce: u64) -> Outcome {
    let want = expected(nonce);
    let mut buf: Vec<u8> = Vec::new();
    let mut text = String::new();
    loop {
        let chunk = match resp.chunk().await {
            Ok(Some(c)) => c,
            Ok(None) => return Outcome::Wrong("stream ended without [DONE] or an error".into()),
            Err(e) => return Outcome::Wrong(format!("stream broke: {}", kind_of(&e))),
        };
        buf.extend_from_slice(&chunk);
        while let Some(end) = find(&buf, b"\n\n") {
            let event: Vec<u8> = buf.drain(..end + 2).collect();
            let Some(data) = event.strip_prefix(b"data: ") else {
                return Outcome::Wrong("an SSE event without data".into());
            };
            let data = &data[..data.len() - 2];
            if data == b"[DONE]" {
                return if text == want {
                    Outcome::Answered
                } else {
                    Outcome::Wrong("[DONE] after another request's text".into())
                };
            }
            let Ok(v) = serde_json::from_slice::<Value>(data) else {
                return Outcome::Wrong("an SSE event that is not JSON".into());
            };
            if let Some(code) = v["error"]["code"].as_str() {
                if !want.starts_with(&text) {
                    return Outcome::Wrong("error event after another request's text".into());
                }
                return if code == "timeout" {
                    Outcome::TimedOut
                } else {
                    Outcome::StreamError
                };
            }
            if let Some(c) = v["choices"][0]["delta"]["content"].as_str() {
                text.push_str(c);
            }
        }
    }
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}
