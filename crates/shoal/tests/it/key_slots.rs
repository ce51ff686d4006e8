//! A key's cap on requests in flight (`key_concurrency`): one more than the cap gets 429 in
//! the one error shape with `Retry-After`; a slot comes back when its request ends, whether
//! it was answered whole, streamed to the end, or abandoned by its client mid-stream.

use std::time::Duration;

use futures::StreamExt;
use reqwest::StatusCode;
use serde_json::{json, Value};
use shoal_test_support::process::worker::{recv, send, welcomed_worker, Socket};
use shoal_test_support::process::{account_with_key, error_of, Loc, Server};

fn chat(s: &Server, key: &str, stream: bool) -> reqwest::RequestBuilder {
    let body = json!({"model": "service-pro", "max_tokens": 8, "stream": stream,
        "messages": [{"role": "user", "content": "hold on"}]});
    reqwest::Client::new()
        .post(s.url("/api/v1/chat/completions"))
        .bearer_auth(key)
        .json(&body)
}

/// The next message of `kind` the worker gets; other messages are skipped.
async fn next_of(ws: &mut Socket, kind: &str) -> Value {
    loop {
        let msg = tokio::time::timeout(Duration::from_secs(10), recv(ws))
            .await
            .unwrap_or_else(|_| panic!("no {kind} within 10 s"));
        if msg["type"] == kind {
            return msg;
        }
    }
}

async fn finish(ws: &mut Socket, job: &Value) {
    let id = job["job_id"].clone();
    send(ws, json!({"type": "delta", "job_id": id, "content": "ok"})).await;
    send(
        ws,
        json!({"type": "done", "job_id": id, "finish_reason": "stop",
        "usage": {"prompt_tokens": 3, "completion_tokens": 1}}),
    )
    .await;
}

/// `GET /api/v1/balance`'s status with `key`.
async fn balance(s: &Server, key: &str) -> reqwest::Response {
    reqwest::Client::new()
        .get(s.url("/api/v1/balance"))
        .bearer_auth(key)
        .send()
        .await
        .unwrap()
}

/// Polls the balance until a slot is free (200), within 5 s.
async fn slot_frees(s: &Server, key: &str) {
    crate::accounts::balance_turns(s, key, StatusCode::OK).await;
}

#[tokio::test]
async fn the_request_past_a_keys_cap_waits_for_one_to_end() {
    let s = Server::start(Some("key_concurrency = 2\n"));
    let (_, key) = account_with_key(&s.data_dir, "c@example.com", 10_000, None);
    let (_, other) = account_with_key(&s.data_dir, "d@example.com", 10_000, None);
    let mut ws = welcomed_worker(&s, &Loc::Dir(s.data_dir.clone()), 8).await;

    let whole = tokio::spawn(chat(&s, &key, false).send());
    let job1 = next_of(&mut ws, "job").await;
    let streamed = tokio::spawn(chat(&s, &key, true).send());
    let job2 = next_of(&mut ws, "job").await;

    let refused = balance(&s, &key).await;
    assert_eq!(refused.status(), StatusCode::TOO_MANY_REQUESTS);
    let retry = refused
        .headers()
        .get("retry-after")
        .map(|v| v.to_str().unwrap().to_owned());
    assert_eq!(retry.as_deref(), Some("1"));
    let (code, _, kind) = error_of(refused).await;
    assert_eq!(
        (code.as_str(), kind.as_str()),
        ("concurrency_limit_exceeded", "rate_limit_error")
    );
    assert_eq!(
        balance(&s, &other).await.status(),
        StatusCode::OK,
        "another key is not capped"
    );

    // Answered whole: its slot comes back.
    finish(&mut ws, &job1).await;
    assert_eq!(whole.await.unwrap().unwrap().status(), StatusCode::OK);
    slot_frees(&s, &key).await;

    // Abandoned mid-stream: its slot comes back too.
    let id2 = job2["job_id"].clone();
    send(
        &mut ws,
        json!({"type": "delta", "job_id": id2, "content": "o"}),
    )
    .await;
    let stream = streamed.await.unwrap().unwrap();
    assert_eq!(stream.status(), StatusCode::OK);
    let mut body = stream.bytes_stream();
    assert!(body.next().await.is_some(), "the stream started");
    let third = tokio::spawn(chat(&s, &key, true).send());
    let job3 = next_of(&mut ws, "job").await;
    assert_eq!(
        balance(&s, &key).await.status(),
        StatusCode::TOO_MANY_REQUESTS
    );
    drop(body);
    assert_eq!(next_of(&mut ws, "cancel").await["job_id"], id2);
    slot_frees(&s, &key).await;

    // Streamed to the end: freed as well (the key ends with nothing in flight).
    finish(&mut ws, &job3).await;
    let text = third.await.unwrap().unwrap().text().await.unwrap();
    assert!(text.contains("[DONE]"), "{text}");
    let _again = tokio::spawn(chat(&s, &key, false).send());
    next_of(&mut ws, "job").await;
    slot_frees(&s, &key).await;
}
