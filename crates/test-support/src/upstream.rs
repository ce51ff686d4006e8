//! A scripted OpenAI-compatible server: the stand-in for vLLM, SGLang or llama-server, which
//! Shoal does not ship, in front of which `shoal worker --backend openai` runs its jobs. Tests
//! start it in process ([`Upstream::start`]); the benchmarks' `mock-upstream` binary serves
//! [`router`] on its own runtime.
//!
//! `POST /v1/chat/completions` (and `/chat/completions`) answers from the last message's text:
//!
//! - It starts with a script's name (what the worker's tests drive): `hello` (a reply with a
//!   non-ASCII character and [`CANARY`], cut into 7-byte pieces so that events and characters
//!   straddle reads, usage 12 + 3), `think` (reasoning under both field names, then `42`),
//!   `tools` (one `get_weather` call in three pieces), `nousage` (ends `length` with no usage
//!   chunk), `broken` (one chunk, then the stream ends), `slow` (400 chunks 50 ms apart),
//!   `fail500` and `reject` (an error status whose body quotes the prompt, as real servers'
//!   bodies may).
//! - Otherwise the reply is [`Options::reply`]'s words, or with `[[chunks N]]` N chunks of
//!   `tok`, or with `[[tool]]` one `get_weather` call with `{"city":"Paris"}`; `[[delay_ms D]]`
//!   waits D ms between content chunks, [`Options::first_token_after`] before the first. A
//!   directive survives a gateway that forwards messages unchanged.
//!
//! Without `"stream": true` the answer is one JSON body of the default reply. Streams end
//! with a usage chunk when the request asks (`stream_options.include_usage`, as the worker
//! always does) and `data: [DONE]`. `GET /v1/models` lists one model; `GET /_stats` counts the
//! chat requests. Every request is recorded ([`Upstream::recorded`]) and counted.

use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::body::{Body, Bytes};
use axum::extract::State;
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::Router;
use serde_json::{json, Value};

/// Stands for prompt text: the `hello` script's reply carries it, and tests check that it
/// never reaches a log.
pub const CANARY: &str = "canary-7f3a9c-prompt-text";

/// `prompt_tokens` of the default reply's usage.
pub const PROMPT_TOKENS: u64 = 7;

const CREATED: u64 = 1_700_000_000;

/// What an instance answers when a request names no script.
#[derive(Debug, Clone)]
pub struct Options {
    /// The default reply, one content chunk per word.
    pub reply: &'static [&'static str],
    /// `prompt_tokens` of the default reply's usage.
    pub prompt_tokens: u64,
    /// Content chunks of the default reply when the request says nothing (`None`: the words).
    pub chunks: Option<u64>,
    /// Between content chunks when the request says nothing.
    pub delay: Duration,
    /// Before the first content chunk of a default reply.
    pub first_token_after: Duration,
    /// Keep every request ([`Upstream::recorded`]); a benchmark's millions would only cost.
    pub record: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            reply: &["Hello", " from", " upstream"],
            prompt_tokens: PROMPT_TOKENS,
            chunks: None,
            delay: Duration::ZERO,
            first_token_after: Duration::ZERO,
            record: true,
        }
    }
}

/// One request as it reached the upstream.
#[derive(Debug, Clone)]
pub struct Recorded {
    /// Its `Authorization` header.
    pub auth: Option<String>,
    pub body: Value,
}

/// What the upstream saw.
#[derive(Default)]
pub struct Counts {
    /// Chat requests received.
    pub requests: AtomicU64,
    /// Streams whose reader went away before their end.
    pub hung_up: AtomicU64,
    /// Streams sent to their end.
    pub finished: AtomicU64,
    recorded: Mutex<Vec<Recorded>>,
}

struct Script {
    options: Options,
    counts: Arc<Counts>,
}

/// The stand-in's routes; `counts` fills as requests arrive.
pub fn router(options: Options, counts: Arc<Counts>) -> Router {
    let script = Arc::new(Script { options, counts });
    Router::new()
        .route("/v1/chat/completions", post(chat))
        .route("/chat/completions", post(chat))
        .route("/v1/models", get(models))
        .route("/models", get(models))
        .route("/_stats", get(stats))
        .with_state(script)
}

/// An instance serving on 127.0.0.1 from a task of the caller's runtime, stopped when
/// dropped.
pub struct Upstream {
    pub addr: SocketAddr,
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
    pub async fn start(options: Options) -> Upstream {
        let counts = Arc::new(Counts::default());
        let app = router(options, counts.clone());
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind 127.0.0.1:0");
        let addr = listener.local_addr().expect("a bound address");
        let task = tokio::spawn(async move {
            axum::serve(listener, app)
                .await
                .expect("serve the upstream");
        });
        Upstream {
            addr,
            url: format!("http://{addr}/v1"),
            counts,
            task,
        }
    }

    /// The default instance whose first content chunk waits `first_token_after`.
    pub async fn with_first_token_after(first_token_after: Duration) -> Upstream {
        Upstream::start(Options {
            first_token_after,
            ..Options::default()
        })
        .await
    }

    pub fn requests(&self) -> u64 {
        self.counts.requests.load(Ordering::SeqCst)
    }

    pub fn hung_up(&self) -> u64 {
        self.counts.hung_up.load(Ordering::SeqCst)
    }

    /// Every request so far, in arrival order.
    pub fn recorded(&self) -> Vec<Recorded> {
        self.counts.recorded.lock().expect("not poisoned").clone()
    }
}

async fn chat(State(script): State<Arc<Script>>, headers: HeaderMap, body: Bytes) -> Response {
    let Ok(body) = serde_json::from_slice::<Value>(&body) else {
        let error = json!({"error": {"message": "body is not JSON",
                                     "type": "invalid_request_error", "code": null}});
        return json_response(StatusCode::BAD_REQUEST, &error);
    };
    let counts = &script.counts;
    counts.requests.fetch_add(1, Ordering::SeqCst);
    if script.options.record {
        let auth = headers
            .get(header::AUTHORIZATION)
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned);
        let recorded = Recorded {
            auth,
            body: body.clone(),
        };
        counts.recorded.lock().expect("not poisoned").push(recorded);
    }
    let text = last_message_text(&body);
    if let Some(answer) = named_script(&text) {
        return answer.respond(counts.clone());
    }
    let model = body["model"].as_str().unwrap_or("mock-model").to_owned();
    if body["stream"].as_bool() != Some(true) {
        return whole(&script.options, &model);
    }
    let usage = body
        .pointer("/stream_options/include_usage")
        .and_then(Value::as_bool)
        .unwrap_or(false);
    default_stream(&script.options, &model, &text, usage).respond(counts.clone())
}

fn last_message_text(body: &Value) -> String {
    let last = body["messages"].as_array().and_then(|m| m.last());
    match last.map(|m| &m["content"]) {
        Some(Value::String(s)) => s.clone(),
        Some(other) => other.to_string(),
        None => String::new(),
    }
}

/// The number after `[[name ` in `text`.
fn directive(text: &str, name: &str) -> Option<u64> {
    let rest = text.split_once(&format!("[[{name} "))?.1;
    rest.split_once("]]")?.0.trim().parse().ok()
}

/// An answer: an error status, or a stream of pieces, each sent after its pause.
enum Answer {
    Status(StatusCode, String),
    Stream(Vec<(Duration, Bytes)>),
}

impl Answer {
    fn respond(self, counts: Arc<Counts>) -> Response {
        let pieces = match self {
            Answer::Status(status, body) => return (status, body).into_response(),
            Answer::Stream(pieces) => pieces,
        };
        let body = if pieces.iter().all(|(pause, _)| pause.is_zero()) {
            // Nothing to wait for: the whole stream in one body, as fast as it can go.
            counts.finished.fetch_add(1, Ordering::SeqCst);
            Body::from(pieces.into_iter().flat_map(|(_, b)| b).collect::<Vec<u8>>())
        } else {
            paced(pieces, counts)
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
}

/// A body fed by a task, one piece after each pause; counts a reader that left early.
fn paced(pieces: Vec<(Duration, Bytes)>, counts: Arc<Counts>) -> Body {
    let (tx, rx) = tokio::sync::mpsc::channel::<Bytes>(1);
    tokio::spawn(async move {
        for (pause, piece) in pieces {
            tokio::time::sleep(pause).await;
            if tx.send(piece).await.is_err() {
                counts.hung_up.fetch_add(1, Ordering::SeqCst);
                return;
            }
        }
        counts.finished.fetch_add(1, Ordering::SeqCst);
    });
    let stream = futures::stream::unfold(rx, |mut rx| async move {
        let piece = rx.recv().await?;
        Some((Ok::<Bytes, Infallible>(piece), rx))
    });
    Body::from_stream(stream)
}

fn event(data: &Value) -> Bytes {
    Bytes::from(format!("data: {data}\n\n"))
}

fn chunk(model: &str, delta: Value, finish_reason: Option<&str>) -> Value {
    json!({"id": "chatcmpl-up", "object": "chat.completion.chunk", "created": CREATED,
           "model": model, "choices": [{"index": 0, "delta": delta, "logprobs": null,
           "finish_reason": finish_reason}]})
}

fn usage_chunk(model: &str, prompt: u64, completion: u64, reasoning: Option<u64>) -> Value {
    let mut usage = json!({"prompt_tokens": prompt, "completion_tokens": completion,
                           "total_tokens": prompt + completion});
    if let Some(r) = reasoning {
        usage["completion_tokens_details"] = json!({"reasoning_tokens": r});
    }
    json!({"id": "chatcmpl-up", "object": "chat.completion.chunk", "created": CREATED,
           "model": model, "choices": [], "usage": usage})
}

const DONE: &[u8] = b"data: [DONE]\n\n";

/// The default reply (or what the directives ask for) as a stream.
fn default_stream(options: &Options, model: &str, text: &str, usage: bool) -> Answer {
    let delay = directive(text, "delay_ms").map_or(options.delay, Duration::from_millis);
    let (pieces, finish): (Vec<Value>, _) = if text.contains("[[tool]]") {
        let call = json!({"tool_calls": [{"index": 0, "id": "call_1", "type": "function",
            "function": {"name": "get_weather", "arguments": "{\"city\":\"Paris\"}"}}]});
        (vec![call], "tool_calls")
    } else {
        let words: Vec<Value> = match directive(text, "chunks").or(options.chunks) {
            Some(n) => (0..n).map(|_| json!({"content": "tok"})).collect(),
            None => (options.reply.iter())
                .map(|w| json!({"content": w}))
                .collect(),
        };
        (words, "stop")
    };
    let completion = pieces.len() as u64;
    let mut out = vec![(
        Duration::ZERO,
        event(&chunk(
            model,
            json!({"role": "assistant", "content": ""}),
            None,
        )),
    )];
    for (i, p) in pieces.into_iter().enumerate() {
        let pause = if i == 0 {
            options.first_token_after
        } else {
            delay
        };
        out.push((pause, event(&chunk(model, p, None))));
    }
    out.push((
        Duration::ZERO,
        event(&chunk(model, json!({}), Some(finish))),
    ));
    if usage {
        let last = usage_chunk(model, options.prompt_tokens, completion, None);
        out.push((Duration::ZERO, event(&last)));
    }
    out.push((Duration::ZERO, Bytes::from_static(DONE)));
    Answer::Stream(out)
}

/// The default reply as one JSON body.
fn whole(options: &Options, model: &str) -> Response {
    let completion = options.reply.len() as u64;
    let prompt = options.prompt_tokens;
    let body = json!({
        "id": "chatcmpl-up", "object": "chat.completion", "created": CREATED, "model": model,
        "choices": [{"index": 0, "message": {"role": "assistant", "content": options.reply.concat()},
                     "logprobs": null, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": prompt, "completion_tokens": completion,
                  "total_tokens": prompt + completion}
    });
    json_response(StatusCode::OK, &body)
}

/// The script the text's first word names, if any.
fn named_script(text: &str) -> Option<Answer> {
    let name = text.split_whitespace().next()?;
    let m = "up";
    let fast = |events: Vec<Value>, tail: Option<Value>| {
        let mut pieces: Vec<(Duration, Bytes)> = events
            .iter()
            .map(|e| (Duration::from_millis(1), event(e)))
            .collect();
        if let Some(t) = tail {
            pieces.push((Duration::from_millis(1), usage_event(&t)));
        }
        pieces.push((Duration::from_millis(1), Bytes::from_static(DONE)));
        Answer::Stream(pieces)
    };
    let answer = match name {
        "hello" => hello(m),
        "think" => fast(
            vec![
                chunk(m, json!({"reasoning_content": "Let me think"}), None),
                chunk(m, json!({"reasoning": "Hmm"}), None),
                chunk(m, json!({"content": "42"}), None),
                chunk(m, json!({}), Some("stop")),
            ],
            Some(usage_chunk(m, 5, 3, Some(2))),
        ),
        "tools" => fast(tool_call_pieces(m), Some(usage_chunk(m, 20, 9, Some(0)))),
        "nousage" => fast(
            vec![
                chunk(m, json!({"content": "a"}), None),
                chunk(m, json!({"content": "b"}), None),
                chunk(m, json!({}), Some("length")),
            ],
            None,
        ),
        "broken" => Answer::Stream(vec![(
            Duration::from_millis(1),
            event(&chunk(m, json!({"content": "partial"}), None)),
        )]),
        "slow" => slow(m),
        "fail500" => Answer::Status(StatusCode::INTERNAL_SERVER_ERROR, format!("boom: {text}")),
        "reject" => Answer::Status(StatusCode::BAD_REQUEST, format!("bad prompt: {text}")),
        _ => return None,
    };
    Some(answer)
}

/// A usage chunk after a comment line, which a parser must skip.
fn usage_event(usage: &Value) -> Bytes {
    Bytes::from(format!(": a comment\ndata: {usage}\n\n"))
}

fn hello(m: &str) -> Answer {
    let mut body = Vec::new();
    for e in [
        chunk(m, json!({"role": "assistant", "content": ""}), None),
        chunk(m, json!({"content": "Héllo"}), None),
        chunk(m, json!({"content": ", "}), None),
        chunk(m, json!({"content": format!("world {CANARY}")}), None),
        chunk(m, json!({}), Some("stop")),
    ] {
        body.extend_from_slice(&event(&e));
    }
    body.extend_from_slice(&usage_event(&usage_chunk(m, 12, 3, Some(0))));
    body.extend_from_slice(DONE);
    let pieces = body
        .chunks(7)
        .map(|p| (Duration::from_millis(1), Bytes::copy_from_slice(p)))
        .collect();
    Answer::Stream(pieces)
}

fn tool_call_pieces(m: &str) -> Vec<Value> {
    vec![
        chunk(
            m,
            json!({"role": "assistant", "content": null, "tool_calls": [{"index": 0,
                "id": "call_1", "type": "function",
                "function": {"name": "get_weather", "arguments": ""}}]}),
            None,
        ),
        chunk(
            m,
            json!({"tool_calls": [{"index": 0, "function": {"arguments": "{\"city\":"}}]}),
            None,
        ),
        chunk(
            m,
            json!({"tool_calls": [{"index": 0, "id": null, "function": {"arguments": "\"Paris\"}"}}]}),
            None,
        ),
        chunk(m, json!({}), Some("tool_calls")),
    ]
}

fn slow(m: &str) -> Answer {
    let pause = Duration::from_millis(50);
    let mut pieces: Vec<(Duration, Bytes)> = (0..400)
        .map(|_| (pause, event(&chunk(m, json!({"content": "tick"}), None))))
        .collect();
    pieces.push((pause, event(&chunk(m, json!({}), Some("stop")))));
    pieces.push((pause, Bytes::from_static(DONE)));
    Answer::Stream(pieces)
}

async fn models() -> Response {
    let list = json!({"object": "list", "data": [
        {"id": "mock-model", "object": "model", "created": CREATED, "owned_by": "mock"}
    ]});
    json_response(StatusCode::OK, &list)
}

async fn stats(State(script): State<Arc<Script>>) -> Response {
    let n = script.counts.requests.load(Ordering::Relaxed);
    json_response(StatusCode::OK, &json!({"chat_requests": n}))
}

fn json_response(status: StatusCode, value: &Value) -> Response {
    let mut r = (status, value.to_string()).into_response();
    r.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    r
}
