//! A minimal, fast OpenAI-compatible upstream for the benchmarks: it answers at once with a
//! fixed reply, so what a gateway in front of it adds is what gets measured.
//!
//! ```text
//! mock-upstream [--listen 127.0.0.1:0] [--threads 1] [--chunks 0] [--delay-ms 0]
//! ```
//!
//! Prints `listening on http://ADDR` on stdout once it accepts connections.
//!
//! - `POST /v1/chat/completions` without `stream`: one JSON body, `"Hello! This is a mock
//!   reply."`, with usage.
//! - with `"stream": true`: SSE — a role chunk, N content chunks (`"tok "` each, one token
//!   apiece), a finish chunk, a usage chunk when `stream_options.include_usage` is set, then
//!   `data: [DONE]`. Without `--chunks` or a directive, N = the reply's 6 words, so a small
//!   request costs about the same streamed or not.
//! - Per request, the last message's text may carry `[[chunks N]]` (N content chunks) and
//!   `[[delay_ms D]]` (D ms between chunks; the first content chunk is not delayed). Flags set
//!   the defaults. A directive survives any gateway that forwards messages unchanged.
//! - `GET /v1/models`: one model, `mock-model` (any model name is answered).
//! - `GET /_stats`: `{"chat_requests": n}`, chat requests answered so far (a sanity check that
//!   a gateway did not answer from a cache).

use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use axum::body::{Body, Bytes};
use axum::extract::State;
use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::serve::ListenerExt;
use axum::Router;
use futures::StreamExt;
use serde_json::{json, Value};

const REPLY: &str = "Hello! This is a mock reply.";
const REPLY_WORDS: [&str; 6] = ["Hello! ", "This ", "is ", "a ", "mock ", "reply."];
const PROMPT_TOKENS: u64 = 12;
const CREATED: u64 = 1_700_000_000;

struct Config {
    chunks: Option<u32>,
    delay_ms: u64,
}

#[derive(Clone)]
struct AppState {
    config: Arc<Config>,
    chat_requests: Arc<AtomicU64>,
}

fn usage() -> ! {
    eprintln!("usage: mock-upstream [--listen ADDR] [--threads N] [--chunks N] [--delay-ms D]");
    std::process::exit(2)
}

fn main() {
    let mut listen: SocketAddr = "127.0.0.1:0".parse().unwrap();
    let mut threads = 1usize;
    let mut config = Config {
        chunks: None,
        delay_ms: 0,
    };
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let mut value = || args.next().unwrap_or_else(|| usage());
        match a.as_str() {
            "--listen" => listen = value().parse().unwrap_or_else(|_| usage()),
            "--threads" => threads = value().parse().unwrap_or_else(|_| usage()),
            "--chunks" => config.chunks = Some(value().parse().unwrap_or_else(|_| usage())),
            "--delay-ms" => config.delay_ms = value().parse().unwrap_or_else(|_| usage()),
            "-h" | "--help" => usage(),
            _ => usage(),
        }
    }
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(threads.max(1))
        .enable_all()
        .build()
        .expect("tokio runtime");
    rt.block_on(serve(listen, config));
}

async fn serve(listen: SocketAddr, config: Config) {
    let state = AppState {
        config: Arc::new(config),
        chat_requests: Arc::new(AtomicU64::new(0)),
    };
    let app = Router::new()
        .route("/v1/chat/completions", post(chat))
        .route("/chat/completions", post(chat))
        .route("/v1/models", get(models))
        .route("/models", get(models))
        .route("/_stats", get(stats))
        .with_state(state);
    let listener = tokio::net::TcpListener::bind(listen).await.expect("bind");
    let addr = listener.local_addr().expect("local addr");
    // Small SSE events must leave at once: with Nagle on, an event written while the previous
    // one is unacknowledged waits for the peer's (delayed, up to 40 ms) ACK.
    let listener = listener.tap_io(|tcp| {
        let _ = tcp.set_nodelay(true);
    });
    println!("listening on http://{addr}");
    use std::io::Write;
    let _ = std::io::stdout().flush();
    axum::serve(listener, app).await.expect("serve");
}

async fn models() -> Response {
    json_response(
        StatusCode::OK,
        json!({"object": "list", "data": [
            {"id": "mock-model", "object": "model", "created": CREATED, "owned_by": "mock"}
        ]}),
    )
}

async fn stats(State(state): State<AppState>) -> Response {
    json_response(
        StatusCode::OK,
        json!({"chat_requests": state.chat_requests.load(Ordering::Relaxed)}),
    )
}

fn json_response(status: StatusCode, value: Value) -> Response {
    let mut r = (status, value.to_string()).into_response();
    r.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    r
}

/// `[[name N]]` in `text`, if present.
fn directive(text: &str, name: &str) -> Option<u64> {
    let open = format!("[[{name} ");
    let start = text.find(&open)? + open.len();
    let end = text[start..].find("]]")? + start;
    text[start..end].trim().parse().ok()
}

fn last_message_text(body: &Value) -> &str {
    body.get("messages")
        .and_then(Value::as_array)
        .and_then(|m| m.last())
        .and_then(|m| m.get("content"))
        .and_then(Value::as_str)
        .unwrap_or("")
}

async fn chat(State(state): State<AppState>, body: Bytes) -> Response {
    let Ok(body) = serde_json::from_slice::<Value>(&body) else {
        return json_response(
            StatusCode::BAD_REQUEST,
            json!({"error": {"message": "body is not JSON", "type": "invalid_request_error", "code": null}}),
        );
    };
    state.chat_requests.fetch_add(1, Ordering::Relaxed);
    let model = body
        .get("model")
        .and_then(Value::as_str)
        .unwrap_or("mock-model")
        .to_owned();
    let stream = body.get("stream").and_then(Value::as_bool).unwrap_or(false);
    if !stream {
        let completion = REPLY_WORDS.len() as u64;
        return json_response(
            StatusCode::OK,
            json!({
                "id": "chatcmpl-mock", "object": "chat.completion", "created": CREATED, "model": model,
                "choices": [{"index": 0, "message": {"role": "assistant", "content": REPLY},
                             "logprobs": null, "finish_reason": "stop"}],
                "usage": {"prompt_tokens": PROMPT_TOKENS, "completion_tokens": completion,
                          "total_tokens": PROMPT_TOKENS + completion}
            }),
        );
    }

    let text = last_message_text(&body);
    let chunks = directive(text, "chunks")
        .map(|n| n as u32)
        .or(state.config.chunks);
    let delay_ms = directive(text, "delay_ms").unwrap_or(state.config.delay_ms);
    let include_usage = body
        .pointer("/stream_options/include_usage")
        .and_then(Value::as_bool)
        .unwrap_or(false);
    let pieces: Vec<String> = match chunks {
        None => REPLY_WORDS.iter().map(|w| w.to_string()).collect(),
        Some(n) => (0..n).map(|_| "tok ".to_string()).collect(),
    };
    let events = sse_events(&model, &pieces, include_usage);

    let body = if delay_ms == 0 {
        Body::from(events.concat())
    } else {
        // The role chunk and the first content chunk go at once; each later content chunk
        // waits `delay_ms`; finish, usage and [DONE] follow the last one at once.
        let delay = Duration::from_millis(delay_ms);
        let last_content = pieces.len();
        let stream = futures::stream::iter(events.into_iter().enumerate()).then(
            move |(i, event)| async move {
                if i >= 2 && i <= last_content {
                    tokio::time::sleep(delay).await;
                }
                Ok::<Bytes, std::io::Error>(Bytes::from(event))
            },
        );
        Body::from_stream(stream)
    };
    let mut r = Response::new(body);
    let h = r.headers_mut();
    h.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/event-stream"),
    );
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    r
}

fn sse_events(model: &str, pieces: &[String], include_usage: bool) -> Vec<String> {
    let chunk = |delta: Value, finish: Value| {
        let v = json!({
            "id": "chatcmpl-mock", "object": "chat.completion.chunk", "created": CREATED, "model": model,
            "choices": [{"index": 0, "delta": delta, "logprobs": null, "finish_reason": finish}]
        });
        format!("data: {v}\n\n")
    };
    let mut out = Vec::with_capacity(pieces.len() + 4);
    out.push(chunk(
        json!({"role": "assistant", "content": ""}),
        Value::Null,
    ));
    for p in pieces {
        out.push(chunk(json!({"content": p}), Value::Null));
    }
    out.push(chunk(json!({}), json!("stop")));
    if include_usage {
        let completion = pieces.len() as u64;
        let v = json!({
            "id": "chatcmpl-mock", "object": "chat.completion.chunk", "created": CREATED, "model": model,
            "choices": [],
            "usage": {"prompt_tokens": PROMPT_TOKENS, "completion_tokens": completion,
                      "total_tokens": PROMPT_TOKENS + completion}
        });
        out.push(format!("data: {v}\n\n"));
    }
    out.push("data: [DONE]\n\n".to_string());
    out
}
