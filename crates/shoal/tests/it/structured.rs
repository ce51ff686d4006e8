//! Structured outputs at a real `shoal serve`, with hand-written workers: a structured request
//! goes only to a worker that announced `structured_outputs`, and an answer that fails the
//! gateway's check never reaches the client as a success: another worker is asked, or the
//! client gets a clear error; only the answer delivered is billed.

use serde_json::{json, Value};
use shoal_test_support::process::worker::{connect, hello, recv, send, Socket};
use shoal_test_support::process::{account_with_key, admin, balance_of, metric, Server};

/// One credit per token, so that a bill says which usage it is for.
const PRICING: &str =
    "[pricing]\ninput_nano_usd_per_token = 1000000\noutput_nano_usd_per_token = 1000000\n";

/// A worker serving `service-pro`, announcing structured outputs or not; its `wrk_N` id.
async fn worker(s: &Server, structured: bool) -> (Socket, String) {
    let token = admin(&s.data_dir, &["worker-token", "create", "--name", "t"]);
    let mut ws = connect(s, &token).await.unwrap();
    let mut hello = hello(&["service-pro"]);
    hello["models"][0]["structured_outputs"] = json!(structured);
    send(&mut ws, hello).await;
    let welcome = recv(&mut ws).await;
    assert_eq!(welcome["type"], "welcome");
    (ws, welcome["worker_id"].as_str().unwrap().to_owned())
}

fn schema_request(stream: bool) -> Value {
    json!({
        "model": "service-pro",
        "messages": [{"role": "user", "content": "a person"}],
        "max_tokens": 100,
        "stream": stream,
        "response_format": {"type": "json_schema", "json_schema": {"name": "person", "strict": true,
            "schema": {"type": "object", "properties": {"name": {"type": "string"}},
                "required": ["name"], "additionalProperties": false}}}
    })
}

fn post(s: &Server, key: &str, body: Value) -> tokio::task::JoinHandle<reqwest::Response> {
    let (url, key) = (s.url("/api/v1/chat/completions"), key.to_owned());
    tokio::spawn(async move {
        reqwest::Client::new()
            .post(url)
            .bearer_auth(key)
            .json(&body)
            .send()
            .await
            .unwrap()
    })
}

/// Answers the job just received with `content`, ending with `finish` and this usage.
async fn answer(ws: &mut Socket, job: &Value, content: &str, finish: &str, completion: u32) {
    let id = &job["job_id"];
    send(
        ws,
        json!({"type": "delta", "job_id": id, "content": content}),
    )
    .await;
    send(
        ws,
        json!({"type": "done", "job_id": id, "finish_reason": finish,
        "usage": {"prompt_tokens": 3, "completion_tokens": completion}}),
    )
    .await;
}

async fn next_job(ws: &mut Socket) -> Value {
    let job = recv(ws).await;
    assert_eq!(job["type"], "job", "{job}");
    job
}

#[tokio::test]
async fn a_worker_without_structured_outputs_never_gets_a_structured_job() {
    let s = Server::start(None);
    let (_, key) = account_with_key(&s.data_dir, "p@example.com", 10_000, None);
    let (mut plain, _) = worker(&s, false).await;

    // The only worker cannot enforce it: a 503 that says why, and no job reaches it.
    let refused = post(&s, &key, schema_request(false)).await.unwrap();
    assert_eq!(refused.status(), 503);
    let body: Value = refused.json().await.unwrap();
    assert_eq!(body["error"]["code"], "no_worker_available");
    let message = body["error"]["message"].as_str().unwrap();
    assert!(message.contains("structured outputs"), "{message}");
    // A strict tool needs it as much as a JSON format does.
    let strict_tool = json!({"model": "service-pro", "max_tokens": 10,
        "messages": [{"role": "user", "content": "hi"}],
        "tools": [{"type": "function", "function": {"name": "f", "strict": true,
            "parameters": {"type": "object", "properties": {}, "additionalProperties": false}}}]});
    assert_eq!(
        post(&s, &key, strict_tool.clone()).await.unwrap().status(),
        503
    );

    // A plain request does reach it (so the refusals were not for want of a worker).
    let client = post(
        &s,
        &key,
        json!({"model": "service-pro", "max_tokens": 10,
        "messages": [{"role": "user", "content": "hi"}]}),
    );
    let job = next_job(&mut plain).await;
    assert!(job["request"].get("response_format").is_none(), "{job}");
    answer(&mut plain, &job, "hello", "stop", 1).await;
    assert_eq!(client.await.unwrap().status(), 200);

    // Beside a worker that enforces them, structured jobs all go there, however free the
    // other one is.
    let (mut capable, _) = worker(&s, true).await;
    for i in 0..3 {
        let body = if i == 2 {
            strict_tool.clone()
        } else {
            schema_request(false)
        };
        let client = post(&s, &key, body);
        let job = next_job(&mut capable).await;
        let content = if i == 2 { "" } else { r#"{"name": "Ada"}"# };
        answer(&mut capable, &job, content, "stop", 1).await;
        assert_eq!(client.await.unwrap().status(), 200);
    }
}

#[tokio::test]
async fn an_invalid_answer_is_asked_of_another_worker_and_never_delivered() {
    let s = Server::start(Some(PRICING));
    let (_, key) = account_with_key(&s.data_dir, "i@example.com", 10_000, None);
    let (mut bad, bad_id) = worker(&s, true).await;
    let rejected = format!("shoal_worker_answers_rejected_total{{worker=\"{bad_id}\"}}");

    // Alone, the worker's prose fails the check: a clear error, and nothing billed.
    let (credits, _) = balance_of(&s, &key).await;
    let client = post(&s, &key, schema_request(false));
    let job = next_job(&mut bad).await;
    answer(
        &mut bad,
        &job,
        "Sure! Here is a person: {\"name\": \"Ada\"}",
        "stop",
        50,
    )
    .await;
    let resp = client.await.unwrap();
    assert_eq!(resp.status(), 502);
    let body: Value = resp.json().await.unwrap();
    assert_eq!(body["error"]["code"], "invalid_structured_output");
    assert!(!body.to_string().contains("Ada"), "{body}");
    assert_eq!(balance_of(&s, &key).await, (credits, 0));
    assert_eq!(metric(&s, &rejected).await, 1);

    // With another worker online by the time the answer fails, the client gets that one's
    // valid answer, billed alone.
    let client = post(&s, &key, schema_request(false));
    let job = next_job(&mut bad).await;
    let (mut good, _) = worker(&s, true).await;
    answer(&mut bad, &job, "{\"name\": 7}", "stop", 50).await;
    let retry = next_job(&mut good).await;
    assert_eq!(retry["request"], job["request"]);
    let valid = r#"{"name": "Ada"}"#;
    answer(&mut good, &retry, valid, "stop", 5).await;
    let resp = client.await.unwrap();
    assert_eq!(resp.status(), 200);
    let completion: Value = resp.json().await.unwrap();
    assert_eq!(completion["choices"][0]["message"]["content"], valid);
    assert_eq!(completion["usage"]["completion_tokens"], 5);
    assert_eq!(balance_of(&s, &key).await, (credits - 8, 0));
    assert_eq!(metric(&s, &rejected).await, 2);
}

#[tokio::test]
async fn a_cut_answer_is_relayed_and_a_failing_stream_ends_with_an_error() {
    let s = Server::start(Some(PRICING));
    let (_, key) = account_with_key(&s.data_dir, "c@example.com", 10_000, None);
    let (mut ws, _) = worker(&s, true).await;

    // Cut by max_tokens: incomplete by definition, relayed as such.
    let client = post(&s, &key, schema_request(false));
    let job = next_job(&mut ws).await;
    answer(&mut ws, &job, "{\"name\": \"Ad", "length", 100).await;
    let resp = client.await.unwrap();
    assert_eq!(resp.status(), 200);
    let completion: Value = resp.json().await.unwrap();
    assert_eq!(completion["choices"][0]["finish_reason"], "length");

    // A stream is checked at its end: what was sent stays sent, and the stream ends with an
    // error event instead of its finish; only the delivered output is billed.
    let (credits, _) = balance_of(&s, &key).await;
    let client = post(&s, &key, schema_request(true));
    let job = next_job(&mut ws).await;
    answer(&mut ws, &job, "not json", "stop", 2).await;
    let resp = client.await.unwrap();
    assert_eq!(resp.status(), 200);
    let text = resp.text().await.unwrap();
    assert!(text.contains("not json"), "{text}");
    assert!(
        text.contains("\"code\":\"invalid_structured_output\""),
        "{text}"
    );
    assert!(!text.contains("[DONE]"), "{text}");
    assert!(!text.contains("\"finish_reason\":\"stop\""), "{text}");
    assert_eq!(balance_of(&s, &key).await, (credits - 2, 0));
}
