//! The `openai` backend: forwards each job to an OpenAI-compatible server's
//! `/chat/completions` (vLLM, SGLang, llama-server, Ollama), streamed, with usage requested,
//! and maps its chunks to worker-protocol deltas.
//!
//! Nothing from the upstream's bodies is logged or forwarded as text: an error body may quote
//! the prompt, so a failure becomes a short code ([`JobEnd::Failed`]).

use std::time::Duration;

use futures::future::BoxFuture;
use futures::StreamExt;
use reqwest::header::{ACCEPT, CONTENT_TYPE};
use reqwest::{StatusCode, Url};
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use shoal_protocol::chat::ToolCallDelta;
use shoal_protocol::worker::{
    ErrorCode, FinishReason, JobRequest, JobUsage, ServedModel, WorkerKind,
};
use tokio_util::sync::CancellationToken;

use crate::backend::{ChatBackend, Delta, Job, JobEnd, JobOutput};
use crate::serve::ServeSpec;
use crate::sse::SseParser;

/// A backend in front of an OpenAI-compatible server.
pub struct OpenAiBackend {
    client: reqwest::Client,
    endpoint: Url,
    api_key: Option<String>,
    models: Vec<ServeSpec>,
    idle_timeout: Duration,
}

impl OpenAiBackend {
    /// `upstream` is the API's base URL (`http://127.0.0.1:8000/v1`); requests go to
    /// `{upstream}/chat/completions`. `idle_timeout` bounds the wait for each piece of the
    /// response (the headers, then every chunk).
    pub fn new(
        upstream: &str,
        api_key: Option<String>,
        models: Vec<ServeSpec>,
        idle_timeout: Duration,
    ) -> anyhow::Result<Self> {
        let endpoint = chat_completions_url(upstream)?;
        let client = reqwest::Client::builder()
            .connect_timeout(Duration::from_secs(10))
            .build()?;
        tracing::info!(
            upstream = %redacted(&endpoint),
            models = ?models.iter().map(|s| format!("{}={}", s.model.id, s.upstream_model)).collect::<Vec<_>>(),
            "openai backend ready"
        );
        Ok(Self {
            client,
            endpoint,
            api_key,
            models,
            idle_timeout,
        })
    }

    async fn run(&self, job: Job, out: &mut JobOutput, cancel: CancellationToken) -> JobEnd {
        let mut tally = Tally::default();
        let response = match self.send(&job, &cancel).await {
            Ok(Some(response)) => response,
            Ok(None) => return tally.cancelled(out),
            Err(end) => return end,
        };
        self.relay(&job.id, response, out, &cancel, &mut tally)
            .await
    }

    /// Posts the job to the upstream as a stream; `None` when it was cancelled first, the
    /// job's end when the upstream cannot take it.
    async fn send(
        &self,
        job: &Job,
        cancel: &CancellationToken,
    ) -> Result<Option<reqwest::Response>, JobEnd> {
        let failed = |code, retryable| JobEnd::Failed { code, retryable };
        let Some(spec) = self.models.iter().find(|s| s.model.id == job.model) else {
            tracing::warn!(job_id = %job.id, model = %job.model, "job for a model this worker does not serve");
            return Err(failed(ErrorCode::ModelNotServed, true));
        };
        let Ok(body) = request_body(&job.request, &spec.upstream_model) else {
            return Err(failed(ErrorCode::BadRequest, false));
        };
        let mut request = self
            .client
            .post(self.endpoint.clone())
            .header(ACCEPT, "text/event-stream")
            .header(CONTENT_TYPE, "application/json")
            .body(body);
        if let Some(key) = &self.api_key {
            request = request.bearer_auth(key);
        }
        let sent = tokio::select! {
            biased;
            _ = cancel.cancelled() => return Ok(None),
            sent = tokio::time::timeout(self.idle_timeout, request.send()) => sent,
        };
        let response = match sent {
            Err(_) => {
                tracing::warn!(job_id = %job.id, "upstream did not answer in time");
                return Err(failed(ErrorCode::UpstreamTimeout, true));
            }
            Ok(Err(e)) => {
                tracing::warn!(job_id = %job.id, error = %error_chain(e), "upstream unreachable");
                return Err(failed(ErrorCode::UpstreamUnavailable, true));
            }
            Ok(Ok(response)) => response,
        };
        let status = response.status();
        if !status.is_success() {
            // The body is dropped unread: it may quote the prompt.
            tracing::warn!(job_id = %job.id, status = status.as_u16(), "upstream answered with an error status");
            let retryable = !status.is_client_error() || status == StatusCode::TOO_MANY_REQUESTS;
            let code = if retryable {
                ErrorCode::UpstreamUnavailable
            } else {
                ErrorCode::UpstreamRejected
            };
            return Err(failed(code, retryable));
        }
        Ok(Some(response))
    }

    /// Relays the upstream's event stream as deltas until it ends, breaks or is cancelled.
    async fn relay(
        &self,
        job_id: &str,
        response: reqwest::Response,
        out: &mut JobOutput,
        cancel: &CancellationToken,
        tally: &mut Tally,
    ) -> JobEnd {
        let mut body = response.bytes_stream();
        let mut parser = SseParser::new();
        loop {
            let next = tokio::select! {
                biased;
                // Dropping `body` on return closes the upstream request.
                _ = cancel.cancelled() => return tally.cancelled(out),
                next = tokio::time::timeout(self.idle_timeout, body.next()) => next,
            };
            let (events, ended) = match next {
                Err(_) => {
                    tracing::warn!(job_id, "upstream stream stalled");
                    return tally.broken(out, ErrorCode::UpstreamTimeout);
                }
                Ok(Some(Err(e))) => {
                    tracing::warn!(job_id, error = %error_chain(e), "upstream stream failed");
                    return tally.broken(out, ErrorCode::UpstreamUnavailable);
                }
                Ok(Some(Ok(bytes))) => (parser.push(&bytes), false),
                Ok(None) => (parser.finish().into_iter().collect(), true),
            };
            if let Some(end) = forward(job_id, events, out, cancel, tally).await {
                return end;
            }
            if ended {
                // No `[DONE]`: complete if the upstream said how it finished, else cut short.
                if tally.finish_reason.is_some() {
                    return tally.finished(job_id, out);
                }
                tracing::warn!(job_id, "upstream stream ended early");
                return tally.broken(out, ErrorCode::UpstreamUnavailable);
            }
        }
    }
}

/// Sends the deltas of the upstream's `events` on; the job's end when one of them ends it.
async fn forward(
    job_id: &str,
    events: Vec<String>,
    out: &mut JobOutput,
    cancel: &CancellationToken,
    tally: &mut Tally,
) -> Option<JobEnd> {
    for data in events {
        if cancel.is_cancelled() {
            return Some(tally.cancelled(out));
        }
        if data.trim() == "[DONE]" {
            return Some(tally.finished(job_id, out));
        }
        let update = match map_chunk(&data) {
            Ok(update) => update,
            Err(ChunkError::UpstreamError) => {
                tracing::warn!(job_id, "upstream sent an error event");
                return Some(tally.broken(out, ErrorCode::UpstreamRejected));
            }
            Err(ChunkError::Malformed) => {
                tracing::warn!(job_id, "upstream sent an unreadable chunk");
                return Some(tally.broken(out, ErrorCode::UpstreamUnavailable));
            }
        };
        tally.absorb(&update);
        if out.send(update.delta).await.is_err() {
            return Some(JobEnd::Failed {
                code: ErrorCode::Disconnected,
                retryable: false,
            });
        }
    }
    None
}

impl ChatBackend for OpenAiBackend {
    fn kind(&self) -> WorkerKind {
        WorkerKind::Upstream
    }

    fn models(&self) -> Vec<ServedModel> {
        self.models.iter().map(|s| s.model.clone()).collect()
    }

    fn generate<'a>(
        &'a self,
        job: Job,
        out: &'a mut JobOutput,
        cancel: CancellationToken,
    ) -> BoxFuture<'a, JobEnd> {
        Box::pin(self.run(job, out, cancel))
    }
}

/// What a job learned from its stream so far.
#[derive(Debug, Default)]
struct Tally {
    finish_reason: Option<String>,
    usage: Option<JobUsage>,
    tool_calls: bool,
}

impl Tally {
    fn absorb(&mut self, update: &ChunkUpdate) {
        if let Some(reason) = &update.finish_reason {
            self.finish_reason = Some(reason.clone());
        }
        if let Some(usage) = update.usage {
            self.usage = Some(usage);
        }
        self.tool_calls |= update.delta.tool_calls.is_some();
    }

    /// The upstream's usage, or else the deltas relayed (prompt unknown: 0).
    fn usage(&self, out: &JobOutput) -> JobUsage {
        self.usage.unwrap_or(JobUsage {
            prompt_tokens: 0,
            completion_tokens: out.relayed(),
            reasoning_tokens: out.reasoning_relayed(),
            cached_tokens: 0,
        })
    }

    fn finished(&self, job_id: &str, out: &JobOutput) -> JobEnd {
        if self.usage.is_none() {
            tracing::warn!(
                job_id,
                deltas = out.relayed(),
                "upstream sent no usage; billing the count of deltas"
            );
        }
        JobEnd::Done {
            finish_reason: normalize_finish_reason(self.finish_reason.as_deref(), self.tool_calls),
            usage: self.usage(out),
        }
    }

    fn cancelled(&self, out: &JobOutput) -> JobEnd {
        JobEnd::Done {
            finish_reason: FinishReason::Stop,
            usage: self.usage(out),
        }
    }

    /// Before any delta the job can go elsewhere; after, the client has seen a partial answer.
    fn broken(&self, out: &JobOutput, code_before_tokens: ErrorCode) -> JobEnd {
        if out.relayed() == 0 {
            JobEnd::Failed {
                code: code_before_tokens,
                retryable: code_before_tokens != ErrorCode::UpstreamRejected,
            }
        } else {
            JobEnd::Failed {
                code: ErrorCode::UpstreamStreamBroken,
                retryable: false,
            }
        }
    }
}

/// `stop`, `length`, `tool_calls` or `content_filter`, as the protocol allows. A stream that
/// called tools but says `stop` (some servers do) finished with `tool_calls`.
fn normalize_finish_reason(reason: Option<&str>, called_tools: bool) -> FinishReason {
    match reason {
        Some("length") => FinishReason::Length,
        Some("content_filter") => FinishReason::ContentFilter,
        Some("tool_calls" | "function_call") => FinishReason::ToolCalls,
        _ if called_tools => FinishReason::ToolCalls,
        _ => FinishReason::Stop,
    }
}

/// A transport error and its causes, without the URL (it may hold credentials). These come
/// from the connection (refused, reset, timed out), never from a body.
fn error_chain(e: reqwest::Error) -> String {
    let e = e.without_url();
    let mut text = e.to_string();
    let mut source = std::error::Error::source(&e);
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}

/// A URL fit for a log line: no user name or password.
pub fn redacted(url: &Url) -> String {
    let mut url = url.clone();
    let _ = url.set_username("");
    let _ = url.set_password(None);
    url.into()
}

/// `{upstream}/chat/completions`, for an http(s) base URL.
pub fn chat_completions_url(upstream: &str) -> anyhow::Result<Url> {
    let base = Url::parse(upstream.trim_end_matches('/'))
        .map_err(|e| anyhow::anyhow!("--upstream {upstream:?} is not a URL: {e}"))?;
    if !matches!(base.scheme(), "http" | "https") {
        anyhow::bail!("--upstream must be an http:// or https:// URL");
    }
    let url = format!("{}/chat/completions", base.as_str().trim_end_matches('/'));
    Ok(Url::parse(&url)?)
}

/// The upstream request: the job's generation input, the upstream's name for the model, and
/// a stream with usage (always requested, so billing never misses it). A job has no `user`
/// (or any other field naming who asked), so none can reach the upstream.
pub fn request_body(request: &JobRequest, upstream_model: &str) -> serde_json::Result<Vec<u8>> {
    // Written straight from the job (flattened), not through a `serde_json::Value` map: the
    // map cost the worker an allocation per field and a second pass on every request.
    #[derive(Serialize)]
    struct UpstreamRequest<'a> {
        model: &'a str,
        #[serde(flatten)]
        request: &'a JobRequest,
        stream: bool,
        stream_options: StreamOptions,
    }
    #[derive(Serialize)]
    struct StreamOptions {
        include_usage: bool,
    }
    serde_json::to_vec(&UpstreamRequest {
        model: upstream_model,
        request,
        stream: true,
        stream_options: StreamOptions {
            include_usage: true,
        },
    })
}

/// What one upstream chunk means for the job.
#[derive(Debug, Default, PartialEq)]
pub struct ChunkUpdate {
    pub delta: Delta,
    pub finish_reason: Option<String>,
    pub usage: Option<JobUsage>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChunkError {
    /// Not a chunk we can read.
    Malformed,
    /// `{"error": …}` in the stream (vLLM and others report mid-stream failures this way).
    UpstreamError,
}

#[derive(Deserialize)]
struct Chunk {
    #[serde(default)]
    choices: Option<Vec<ChunkChoice>>,
    #[serde(default)]
    usage: Option<ChunkUsage>,
    #[serde(default)]
    error: Option<Value>,
}

#[derive(Deserialize)]
struct ChunkChoice {
    #[serde(default)]
    index: Option<u32>,
    #[serde(default)]
    delta: Option<ChunkDelta>,
    #[serde(default)]
    finish_reason: Option<String>,
}

#[derive(Deserialize)]
struct ChunkDelta {
    #[serde(default)]
    content: Option<String>,
    #[serde(default)]
    reasoning_content: Option<String>,
    /// Newer vLLM and Ollama call it `reasoning`.
    #[serde(default)]
    reasoning: Option<String>,
    #[serde(default)]
    tool_calls: Option<Vec<Value>>,
}

#[derive(Deserialize)]
struct ChunkUsage {
    #[serde(default)]
    prompt_tokens: Option<u64>,
    #[serde(default)]
    completion_tokens: Option<u64>,
    #[serde(default)]
    completion_tokens_details: Option<ChunkUsageDetails>,
    #[serde(default)]
    prompt_tokens_details: Option<ChunkPromptDetails>,
}

#[derive(Deserialize)]
struct ChunkUsageDetails {
    #[serde(default)]
    reasoning_tokens: Option<u64>,
}

#[derive(Deserialize)]
struct ChunkPromptDetails {
    #[serde(default)]
    cached_tokens: Option<u64>,
}

/// Maps one `data:` payload (other than `[DONE]`) to a delta, a finish reason and usage.
pub fn map_chunk(data: &str) -> Result<ChunkUpdate, ChunkError> {
    let chunk: Chunk = serde_json::from_str(data).map_err(|_| ChunkError::Malformed)?;
    if chunk.error.is_some_and(|e| !e.is_null()) {
        return Err(ChunkError::UpstreamError);
    }
    let mut update = ChunkUpdate {
        usage: chunk.usage.map(|u| JobUsage {
            prompt_tokens: u.prompt_tokens.unwrap_or(0),
            completion_tokens: u.completion_tokens.unwrap_or(0),
            reasoning_tokens: u
                .completion_tokens_details
                .and_then(|d| d.reasoning_tokens)
                .unwrap_or(0),
            cached_tokens: u
                .prompt_tokens_details
                .and_then(|d| d.cached_tokens)
                .unwrap_or(0),
        }),
        ..ChunkUpdate::default()
    };
    // Jobs never ask for `n` > 1: only the first choice exists.
    let Some(choice) = chunk
        .choices
        .unwrap_or_default()
        .into_iter()
        .find(|c| c.index.unwrap_or(0) == 0)
    else {
        return Ok(update);
    };
    update.finish_reason = choice.finish_reason.filter(|r| !r.is_empty());
    let Some(delta) = choice.delta else {
        return Ok(update);
    };
    let non_empty = |s: Option<String>| s.filter(|s| !s.is_empty());
    update.delta.content = non_empty(delta.content);
    // Some servers send both names with the same text: take one, never both.
    update.delta.reasoning = non_empty(delta.reasoning_content).or(non_empty(delta.reasoning));
    if let Some(calls) = delta.tool_calls.filter(|c| !c.is_empty()) {
        let calls = calls
            .into_iter()
            .enumerate()
            .map(|(position, call)| tool_call_delta(call, position))
            .collect::<Result<Vec<_>, _>>()?;
        update.delta.tool_calls = Some(calls);
    }
    Ok(update)
}

/// Reads a tool-call fragment leniently: `null`s count as absent, and a missing `index` (a few
/// servers leave it out) is the fragment's position.
fn tool_call_delta(mut call: Value, position: usize) -> Result<ToolCallDelta, ChunkError> {
    let Value::Object(map) = &mut call else {
        return Err(ChunkError::Malformed);
    };
    map.retain(|_, v| !v.is_null());
    if let Some(Value::Object(function)) = map.get_mut("function") {
        function.retain(|_, v| !v.is_null());
    }
    map.entry("index").or_insert(json!(position));
    serde_json::from_value(call).map_err(|_| ChunkError::Malformed)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn map(data: &str) -> ChunkUpdate {
        map_chunk(data).unwrap()
    }

    #[test]
    fn content() {
        let u = map(
            r#"{"id":"x","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"Hel"},"finish_reason":null}]}"#,
        );
        assert_eq!(u.delta.content.as_deref(), Some("Hel"));
        assert_eq!(u.delta.reasoning, None);
        assert_eq!(u.finish_reason, None);
        assert_eq!(u.usage, None);
    }

    #[test]
    fn role_only_and_empty_content_are_empty_deltas() {
        let u = map(r#"{"choices":[{"index":0,"delta":{"role":"assistant","content":""}}]}"#);
        assert!(u.delta.is_empty());
        let u = map(r#"{"choices":[{"index":0,"delta":{"content":null,"tool_calls":[]}}]}"#);
        assert!(u.delta.is_empty());
    }

    #[test]
    fn reasoning_under_either_name_never_both() {
        let u = map(r#"{"choices":[{"index":0,"delta":{"reasoning_content":"hmm"}}]}"#);
        assert_eq!(u.delta.reasoning.as_deref(), Some("hmm"));
        let u = map(r#"{"choices":[{"index":0,"delta":{"reasoning":"hmm"}}]}"#);
        assert_eq!(u.delta.reasoning.as_deref(), Some("hmm"));
        let u = map(
            r#"{"choices":[{"index":0,"delta":{"reasoning_content":"hmm","reasoning":"hmm"}}]}"#,
        );
        assert_eq!(u.delta.reasoning.as_deref(), Some("hmm"));
    }

    /// The tool-call deltas of a chunk as they will travel to the gateway.
    fn tool_calls_json(data: &str) -> Value {
        serde_json::to_value(map(data).delta.tool_calls).unwrap()
    }

    #[test]
    fn tool_call_fragments_keep_index_id_and_function() {
        assert_eq!(
            tool_calls_json(
                r#"{"choices":[{"index":0,"delta":{"tool_calls":[
                    {"index":1,"id":"call_1","type":"function","function":{"name":"get_weather","arguments":""}}
                ]}}]}"#
            ),
            json!([{"index": 1, "id": "call_1", "type": "function",
                    "function": {"name": "get_weather", "arguments": ""}}])
        );
        assert_eq!(
            tool_calls_json(
                r#"{"choices":[{"index":0,"delta":{"content":null,"tool_calls":[
                    {"index":1,"id":null,"type":null,"function":{"name":null,"arguments":"{\"ci"}}
                ]}}]}"#
            ),
            json!([{"index": 1, "function": {"arguments": "{\"ci"}}])
        );
    }

    #[test]
    fn tool_call_without_index_takes_its_position() {
        assert_eq!(
            tool_calls_json(
                r#"{"choices":[{"delta":{"tool_calls":[
                    {"id":"a","function":{"name":"f","arguments":"{}"}},
                    {"id":"b","function":null}
                ]}}]}"#
            ),
            json!([{"index": 0, "id": "a", "function": {"name": "f", "arguments": "{}"}},
                   {"index": 1, "id": "b"}])
        );
    }

    #[test]
    fn finish_reason_and_usage() {
        let u = map(r#"{"choices":[{"index":0,"delta":{},"finish_reason":"length"}]}"#);
        assert_eq!(u.finish_reason.as_deref(), Some("length"));
        let u = map(
            r#"{"choices":[],"usage":{"prompt_tokens":12,"completion_tokens":30,"total_tokens":42,
                "completion_tokens_details":{"reasoning_tokens":7},
                "prompt_tokens_details":{"cached_tokens":8}}}"#,
        );
        assert_eq!(
            u.usage,
            Some(JobUsage {
                prompt_tokens: 12,
                completion_tokens: 30,
                reasoning_tokens: 7,
                cached_tokens: 8,
            })
        );
        assert!(u.delta.is_empty());
        let u = map(
            r#"{"choices":[],"usage":{"prompt_tokens":3,"completion_tokens":4,"completion_tokens_details":null}}"#,
        );
        assert_eq!(u.usage.unwrap().reasoning_tokens, 0);
        // vLLM sends `"usage": null` on every ordinary chunk.
        let u = map(r#"{"choices":[{"index":0,"delta":{"content":"a"}}],"usage":null}"#);
        assert_eq!(u.usage, None);
    }

    #[test]
    fn other_choices_are_ignored() {
        let u = map(r#"{"choices":[{"index":1,"delta":{"content":"no"}}]}"#);
        assert!(u.delta.is_empty());
    }

    #[test]
    fn errors() {
        assert_eq!(
            map_chunk(r#"{"error":{"message":"secret prompt quoted","code":400}}"#),
            Err(ChunkError::UpstreamError)
        );
        assert_eq!(map_chunk("not json"), Err(ChunkError::Malformed));
        assert_eq!(
            map_chunk(r#"{"choices":[{"index":0,"delta":{"tool_calls":["x"]}}]}"#),
            Err(ChunkError::Malformed)
        );
    }

    #[test]
    fn finish_reasons_are_normalized() {
        let n = |r, tools| normalize_finish_reason(r, tools).as_str();
        assert_eq!(n(None, false), "stop");
        assert_eq!(n(Some("eos"), false), "stop");
        assert_eq!(n(Some("length"), true), "length");
        assert_eq!(n(Some("function_call"), false), "tool_calls");
        assert_eq!(n(Some("stop"), true), "tool_calls");
    }

    #[test]
    fn upstream_url() {
        for base in ["http://127.0.0.1:8000/v1", "http://127.0.0.1:8000/v1/"] {
            assert_eq!(
                chat_completions_url(base).unwrap().as_str(),
                "http://127.0.0.1:8000/v1/chat/completions"
            );
        }
        assert_eq!(
            chat_completions_url("https://host").unwrap().as_str(),
            "https://host/chat/completions"
        );
        assert!(chat_completions_url("ftp://host").is_err());
        assert!(chat_completions_url("nonsense").is_err());
    }

    #[test]
    fn body_asks_for_a_stream_with_usage_under_the_upstream_name() {
        let request: JobRequest = serde_json::from_value(json!({
            "messages": [{"role": "user", "content": "hi"}],
            "max_tokens": 16,
            "temperature": 0.5
        }))
        .unwrap();
        let body: Value =
            serde_json::from_slice(&request_body(&request, "org/model:7b").unwrap()).unwrap();
        assert_eq!(body["model"], "org/model:7b");
        assert_eq!(body["stream"], true);
        assert_eq!(body["stream_options"], json!({"include_usage": true}));
        assert_eq!(body["max_tokens"], 16);
        assert_eq!(body["temperature"], 0.5);
        assert_eq!(body["messages"][0]["content"], "hi");
        let mut keys: Vec<&str> = body
            .as_object()
            .unwrap()
            .keys()
            .map(|k| k.as_str())
            .collect();
        keys.sort_unstable();
        assert_eq!(
            keys,
            [
                "max_tokens",
                "messages",
                "model",
                "stream",
                "stream_options",
                "temperature"
            ]
        );
    }
}
