//! A scripted stand-in for an OpenAI-compatible server (vLLM, llama-server), which Shoal does
//! not ship: `shoal worker --backend openai` runs its jobs against it. It always streams (the
//! worker always asks for a stream with usage) and counts what reached it.
//!
//! Script, per instance: `first_token_after` before the first chunk. Per request, the last
//! message may carry `[[chunks N]]` (N content chunks `tok`, default the 3 of
//! "Hello from upstream"), `[[delay_ms D]]` between chunks, and `[[tool]]` (one call of
//! `get_weather` with `{"city":"Paris"}` instead of text).

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use axum::body::{Body, Bytes};
use axum::extract::State;
use axum::response::Response;
use axum::routing::post;
use serde_json::{json, Value};

const WORDS: [&str; 3] = ["Hello", " from", " upstream"];
pub const PROMPT_TOKENS: u64 = 7;

#[derive(Default)]
pub struct Counts {
    /// Chat requests received.
    pub requests: AtomicU64,
    /// Streams whose client (the worker) went away before the end.
    pub hung_up: AtomicU64,
    /// Streams sent to their end.
    pub finished: AtomicU64,
}

struct Script {
    first_token_after: Duration,
    counts: Arc<Counts>,
}

pub struct Upstream {
    /// `http://ADDR/v1`, for `--upstream`.
    pub url: String,
    pub counts: Arc<Counts>,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for Upstream {
    fn drop(&mut self) {
        self.task.abort();
    }
}

impl Upstream {
    pub async fn start(first_token_after: Duration) -> Upstream {
        let counts = Arc::new(Counts::default());
        let script = Arc::new(Script {
            first_token_after,
            counts: counts.clone(),
        });
        let app = axum::Router::new()
            .route("/v1/chat/completions", post(chat))
            .with_state(script);
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let task = tokio::spawn(async move {
            axum::serve(listener, app).await.unwrap();
        });
        Upstream {
            url: format!("http://{addr}/v1"),
            counts,
            task,
        }
    }

    pub fn requests(&self) -> u64 {
        self.counts.requests.load(Ordering::SeqCst)
    }
    pub fn hung_up(&self) -> u64 {
        self.counts.hung_up.load(Ordering::SeqCst)
    }
}

/// The number after `[[name ` in `text`.
fn directive(text: &str, name: &str) -> Option<u64> {
    let rest = text.split_once(&format!("[[{name} "))?.1;
    rest.split_once("]]")?.0.trim().parse().ok()
}

fn chunk(delta: Value, finish: Option<&str>) -> Value {
    json!({"id": "up-1", "object": "chat.completion.chunk", "created": 1, "model": "m",
           "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]})
}

/// The frames of one answer, in order: (delay before it, the SSE data).
fn frames(script: &Script, body: &Value) -> Vec<(Duration, Value)> {
    let last = body["messages"].as_array().and_then(|m| m.last());
    let text = last.map(|m| m["content"].to_string()).unwrap_or_default();
    let delay = Duration::from_millis(directive(&text, "delay_ms").unwrap_or(0));
    let mut out = vec![(Duration::ZERO, chunk(json!({"role": "assistant"}), None))];
    let (pieces, finish): (Vec<Value>, _) = if text.contains("[[tool]]") {
        let call = json!({"tool_calls": [{"index": 0, "id": "call_1", "type": "function",
            "function": {"name": "get_weather", "arguments": "{\"city\":\"Paris\"}"}}]});
        (vec![call], "tool_calls")
    } else {
        let n = directive(&text, "chunks");
        let words: Vec<Value> = match n {
            Some(n) => (0..n).map(|_| json!({"content": "tok"})).collect(),
            None => WORDS.iter().map(|w| json!({"content": w})).collect(),
        };
        (words, "stop")
    };
    let completion = pieces.len() as u64;
    for (i, p) in pieces.into_iter().enumerate() {
        let wait = if i == 0 {
            script.first_token_after
        } else {
            delay
        };
        out.push((wait, chunk(p, None)));
    }
    out.push((Duration::ZERO, chunk(json!({}), Some(finish))));
    let usage = json!({"prompt_tokens": PROMPT_TOKENS, "completion_tokens": completion,
                       "total_tokens": PROMPT_TOKENS + completion});
    out.push((
        Duration::ZERO,
        json!({"id": "up-1", "object": "chat.completion.chunk", "created": 1, "model": "m",
               "choices": [], "usage": usage}),
    ));
    out
}

async fn chat(State(script): State<Arc<Script>>, body: Bytes) -> Response {
    script.counts.requests.fetch_add(1, Ordering::SeqCst);
    let body: Value = serde_json::from_slice(&body).unwrap_or_default();
    let frames = frames(&script, &body);
    let (tx, rx) = tokio::sync::mpsc::channel::<Bytes>(4);
    let counts = script.counts.clone();
    tokio::spawn(async move {
        for (wait, data) in frames {
            tokio::time::sleep(wait).await;
            let frame = Bytes::from(format!("data: {data}\n\n"));
            if tx.send(frame).await.is_err() {
                counts.hung_up.fetch_add(1, Ordering::SeqCst);
                return;
            }
        }
        if tx
            .send(Bytes::from_static(b"data: [DONE]\n\n"))
            .await
            .is_err()
        {
            counts.hung_up.fetch_add(1, Ordering::SeqCst);
            return;
        }
        counts.finished.fetch_add(1, Ordering::SeqCst);
    });
    let stream = futures::stream::unfold(rx, |mut rx| async move {
        let b = rx.recv().await?;
        Some((Ok::<Bytes, std::convert::Infallible>(b), rx))
    });
    Response::builder()
        .header("content-type", "text/event-stream")
        .body(Body::from_stream(stream))
        .unwrap()
}
