//! Keys for agents through a real `shoal serve`: the cost in every answer (equal to what the
//! balance lost, on the three routes, streamed and whole), `GET /key`, the keys API with a
//! management key (create, list, update, revoke; kept apart from inference keys and from
//! other accounts), `GET /generation`, and `shoal admin key update`.

use std::time::Duration;

use reqwest::StatusCode;
use serde_json::{json, Value};
use shoal_test_support::process::worker::{answer_with_usage, welcomed_worker};
use shoal_test_support::process::{
    account_with_key, admin, admin_lines, balance_of, error_of, wait_until, Server,
};

/// Completion tokens the worker reports: at the default prices (900 nano-USD per output
/// token) 4,000 of them cost 4 credits, so a cost of 1 (the minimum) can't pass by chance.
const COMPLETION_TOKENS: u64 = 4_000;

fn client() -> reqwest::Client {
    reqwest::Client::new()
}

/// A route's request body, asking for `COMPLETION_TOKENS` at most.
fn body(path: &str, stream: bool) -> Value {
    let max = COMPLETION_TOKENS;
    let user = json!([{"role": "user", "content": "hello"}]);
    match path {
        "/api/v1/chat/completions" => json!({"model": "service-pro", "messages": user,
            "max_tokens": max, "stream": stream, "stream_options": {"include_usage": true}}),
        "/api/v1/responses" => json!({"model": "service-pro", "input": "hello",
            "max_output_tokens": max, "stream": stream}),
        _ => json!({"model": "service-pro", "messages": user, "max_tokens": max, "stream": stream}),
    }
}

/// The `data:` payloads of an SSE body that hold JSON.
fn events(text: &str) -> Vec<Value> {
    text.lines()
        .filter_map(|l| l.strip_prefix("data: "))
        .filter_map(|d| serde_json::from_str(d).ok())
        .collect()
}

/// The usage block with the cost, and the answer's id, from a route's answer.
fn usage_of(path: &str, stream: bool, text: &str) -> (Value, String) {
    let whole = |v: Value| (v["usage"].clone(), v["id"].as_str().unwrap().to_owned());
    if !stream {
        return whole(serde_json::from_str(text).unwrap());
    }
    let evs = events(text);
    match path {
        "/api/v1/chat/completions" => {
            let last = evs.iter().rev().find(|e| !e["usage"].is_null()).unwrap();
            whole(last.clone())
        }
        "/api/v1/responses" => {
            let done = evs
                .iter()
                .find(|e| e["type"] == "response.completed")
                .unwrap();
            whole(done["response"].clone())
        }
        _ => {
            let start = evs.iter().find(|e| e["type"] == "message_start").unwrap();
            let delta = evs.iter().find(|e| e["type"] == "message_delta").unwrap();
            let id = start["message"]["id"].as_str().unwrap().to_owned();
            (delta["usage"].clone(), id)
        }
    }
}

async fn settled_balance(s: &Server, key: &str) -> i64 {
    wait_until("no hold is left", Duration::from_secs(10), async || {
        balance_of(s, key).await.1 == 0
    })
    .await;
    balance_of(s, key).await.0
}

#[tokio::test]
async fn the_cost_in_every_answer_is_what_the_balance_lost() {
    let s = Server::start(None);
    let (_, key) = account_with_key(&s.data_dir, "cost@example.com", 100_000, None);
    let worker = answer_with_usage(welcomed_worker(&s, &s.store, 4).await, COMPLETION_TOKENS);
    for path in [
        "/api/v1/chat/completions",
        "/api/v1/responses",
        "/api/v1/messages",
    ] {
        for stream in [false, true] {
            let before = settled_balance(&s, &key).await;
            let r = (client().post(s.url(path)).bearer_auth(&key))
                .json(&body(path, stream))
                .send()
                .await
                .unwrap();
            assert_eq!(r.status(), StatusCode::OK, "{path} stream={stream}");
            let (usage, id) = usage_of(path, stream, &r.text().await.unwrap());
            let lost = before - settled_balance(&s, &key).await;
            assert!(
                lost > 1,
                "{path}: the worker's usage costs more than the minimum"
            );
            assert_eq!(usage["cost"], lost, "{path} stream={stream}: {usage}");
            let usd = format!("{}.{:03}", lost / 1000, lost % 1000);
            assert_eq!(usage["cost_usd"], usd, "{path} stream={stream}");
            // The request's record says the same.
            let g = get(&s, &format!("/api/v1/generation?id={id}"), &key).await;
            assert_eq!(g.0, StatusCode::OK, "{id}: {}", g.1);
            assert_eq!(g.1["data"]["total_cost"], lost);
            assert_eq!(g.1["data"]["tokens_completion"], COMPLETION_TOKENS);
        }
    }
    worker.abort();
}

async fn get(s: &Server, path: &str, key: &str) -> (StatusCode, Value) {
    let r = client()
        .get(s.url(path))
        .bearer_auth(key)
        .send()
        .await
        .unwrap();
    let status = r.status();
    (status, r.json().await.unwrap_or(Value::Null))
}

async fn call(
    s: &Server,
    method: &str,
    path: &str,
    key: &str,
    body: Option<Value>,
) -> (StatusCode, Value) {
    let method = reqwest::Method::from_bytes(method.as_bytes()).unwrap();
    let mut req = client().request(method, s.url(path)).bearer_auth(key);
    if let Some(b) = body {
        req = req.json(&b);
    }
    let r = req.send().await.unwrap();
    let status = r.status();
    (status, r.json().await.unwrap_or(Value::Null))
}

/// An account's management key.
fn management_key(s: &Server, email: &str) -> String {
    let account = admin(&s.data_dir, &["account", "create", "--email", email]);
    admin(
        &s.data_dir,
        &["key", "create", "--account", &account, "--management"],
    )
}

#[tokio::test]
async fn a_management_key_creates_lists_updates_and_revokes_keys() {
    let s = Server::start(None);
    let manager = management_key(&s, "owner@example.com");
    let ask = json!({"name": "agent", "limit": 50, "limit_reset": "daily", "concurrency": 3});
    let (status, created) = call(&s, "POST", "/api/v1/keys", &manager, Some(ask)).await;
    assert_eq!(status, StatusCode::CREATED, "{created}");
    let key = created["key"].as_str().unwrap().to_owned();
    assert!(key.starts_with("sk-shoal-"));
    let id = created["data"]["id"].as_i64().unwrap();
    assert_eq!(created["data"]["limit"], 50);
    assert_eq!(created["data"]["limit_remaining"], 50);
    assert_eq!(created["data"]["limit_reset"], "daily");
    assert_eq!(created["data"]["kind"], "inference");
    assert_eq!(created["data"]["concurrency"], 3);

    // Listed by their first characters only, the management key too.
    let (status, list) = get(&s, "/api/v1/keys", &manager).await;
    assert_eq!(status, StatusCode::OK);
    let text = list.to_string();
    assert!(!text.contains(&key[12..]) && !text.contains(&manager[12..]));
    let kinds: Vec<&str> = (list["data"].as_array().unwrap().iter())
        .map(|k| k["kind"].as_str().unwrap())
        .collect();
    assert_eq!(kinds, ["management", "inference"]);

    // The new key sees itself.
    let (status, me) = get(&s, "/api/v1/key", &key).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(
        (me["data"]["id"].as_i64(), &me["data"]["name"]),
        (Some(id), &json!("agent"))
    );
    assert!(me["data"]["limit_resets_at"].as_i64().unwrap() > 0);

    let path = format!("/api/v1/keys/{id}");
    let (status, v) = call(&s, "PATCH", &path, &manager, Some(json!({"limit": 10}))).await;
    assert_eq!(status, StatusCode::OK, "{v}");
    assert_eq!(
        (&v["data"]["limit"], &v["data"]["limit_reset"]),
        (&json!(10), &json!("daily"))
    );
    let (_, v) = call(&s, "PATCH", &path, &manager, Some(json!({"limit": null}))).await;
    assert_eq!(
        (&v["data"]["limit"], &v["data"]["limit_remaining"]),
        (&Value::Null, &Value::Null)
    );
    let (_, v) = call(
        &s,
        "PATCH",
        &path,
        &manager,
        Some(json!({"concurrency": 7})),
    )
    .await;
    assert_eq!(v["data"]["concurrency"], 7, "{v}");
    let (_, v) = call(
        &s,
        "PATCH",
        &path,
        &manager,
        Some(json!({"concurrency": null})),
    )
    .await;
    assert_eq!(
        v["data"]["concurrency"], 64,
        "the gateway's key_concurrency: {v}"
    );
    let bad = json!({"limit": -3});
    let (status, _) = call(&s, "PATCH", &path, &manager, Some(bad)).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);

    // Revoked: 401 within the key cache's lifetime (auth_cache_ms, 1 s by default).
    let (status, v) = call(&s, "DELETE", &path, &manager, None).await;
    assert_eq!((status, &v["deleted"]), (StatusCode::OK, &json!(true)));
    wait_until(
        "the revoked key is refused",
        Duration::from_secs(3),
        async || get(&s, "/api/v1/key", &key).await.0 == StatusCode::UNAUTHORIZED,
    )
    .await;
    let (_, v) = get(&s, &path, &manager).await;
    assert_eq!(v["data"]["disabled"], true);
}

#[tokio::test]
async fn management_and_inference_keys_stay_apart() {
    let s = Server::start(None);
    let manager = management_key(&s, "m@example.com");
    let (_, key) = account_with_key(&s.data_dir, "i@example.com", 1000, None);
    let chat = json!({"model": "service-pro", "messages": [{"role": "user", "content": "hi"}]});
    for path in [
        "/api/v1/chat/completions",
        "/api/v1/responses",
        "/api/v1/messages",
    ] {
        let r = (client().post(s.url(path)).bearer_auth(&manager))
            .json(&chat)
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), StatusCode::FORBIDDEN, "{path}");
    }
    let r = client()
        .get(s.url("/api/v1/balance"))
        .bearer_auth(&manager)
        .send()
        .await
        .unwrap();
    let (code, message, _) = error_of(r).await;
    assert_eq!(code, "forbidden", "{message}");
    // A management key may read itself.
    assert_eq!(get(&s, "/api/v1/key", &manager).await.0, StatusCode::OK);

    assert_eq!(get(&s, "/api/v1/keys", &key).await.0, StatusCode::FORBIDDEN);
    let (status, _) = call(&s, "POST", "/api/v1/keys", &key, Some(json!({}))).await;
    assert_eq!(status, StatusCode::FORBIDDEN);
}

#[tokio::test]
async fn one_account_cannot_see_or_touch_anothers_keys_or_requests() {
    let s = Server::start(None);
    let (_, a_key) = account_with_key(&s.data_dir, "a@example.com", 100_000, None);
    let b_manager = management_key(&s, "b@example.com");
    let (_, b_key) = account_with_key(&s.data_dir, "b2@example.com", 100, None);
    let a_id = get(&s, "/api/v1/key", &a_key).await.1["data"]["id"]
        .as_i64()
        .unwrap();
    let path = format!("/api/v1/keys/{a_id}");
    for (method, body) in [
        ("GET", None),
        ("PATCH", Some(json!({"limit": 1}))),
        ("DELETE", None),
    ] {
        let (status, v) = call(&s, method, &path, &b_manager, body).await;
        assert_eq!(status, StatusCode::NOT_FOUND, "{method}: {v}");
    }
    let (_, list) = get(&s, "/api/v1/keys", &b_manager).await;
    assert_eq!(
        list["data"].as_array().unwrap().len(),
        1,
        "only B's own key: {list}"
    );
    let (status, me) = get(&s, "/api/v1/key", &a_key).await;
    assert_eq!(
        (status, &me["data"]["limit"]),
        (StatusCode::OK, &Value::Null)
    );

    // A's request: A reads its record, B (another account) cannot.
    let worker = answer_with_usage(welcomed_worker(&s, &s.store, 1).await, COMPLETION_TOKENS);
    let ask = body("/api/v1/chat/completions", false);
    let r = client()
        .post(s.url("/api/v1/chat/completions"))
        .bearer_auth(&a_key)
        .json(&ask);
    let answer: Value = r.send().await.unwrap().json().await.unwrap();
    let id = answer["id"].as_str().unwrap();
    let generation = format!("/api/v1/generation?id={id}");
    let mut own = (StatusCode::NOT_FOUND, Value::Null);
    wait_until(
        "the request's record is kept",
        Duration::from_secs(10),
        async || {
            own = get(&s, &generation, &a_key).await;
            own.0 == StatusCode::OK
        },
    )
    .await;
    let g = &own.1["data"];
    assert_eq!((&g["id"], &g["model"]), (&json!(id), &json!("service-pro")));
    assert_eq!(
        (&g["finish_reason"], &g["worker_kind"]),
        (&json!("stop"), &json!("upstream"))
    );
    assert_eq!(g["total_cost"], answer["usage"]["cost"]);
    assert!(g["latency"].as_i64().unwrap() >= g["time_to_first_token"].as_i64().unwrap());
    assert_eq!(get(&s, &generation, &b_key).await.0, StatusCode::NOT_FOUND);
    assert_eq!(
        get(&s, "/api/v1/generation?id=chatcmpl-none", &a_key)
            .await
            .0,
        StatusCode::NOT_FOUND
    );
    assert_eq!(
        get(&s, "/api/v1/generation", &a_key).await.0,
        StatusCode::BAD_REQUEST
    );
    worker.abort();
}

#[tokio::test]
async fn admin_sets_and_changes_a_keys_limit() {
    let s = Server::start(None);
    let account = admin(
        &s.data_dir,
        &["account", "create", "--email", "l@example.com"],
    );
    let create = [
        "key",
        "create",
        "--account",
        &account,
        "--limit-credits",
        "5",
        "--limit-reset",
        "weekly",
    ];
    let key = admin(&s.data_dir, &create);
    let row = || admin_lines(&s.data_dir, &["key", "list", "--account", &account])[0].clone();
    let id = row().split('\t').next().unwrap().to_owned();
    assert!(
        row().ends_with("\tinference\t5/weekly\tdefault"),
        "{}",
        row()
    );
    admin_lines(&s.data_dir, &["key", "update", &id, "--limit-credits", "9"]);
    assert!(row().ends_with("\t9/weekly\tdefault"), "{}", row());
    admin_lines(
        &s.data_dir,
        &["key", "update", &id, "--limit-reset", "monthly"],
    );
    assert!(row().ends_with("\t9/monthly\tdefault"), "{}", row());
    let (status, me) = get(&s, "/api/v1/key", &key).await;
    assert_eq!(
        (status, &me["data"]["limit_remaining"]),
        (StatusCode::OK, &json!(9))
    );
    admin_lines(&s.data_dir, &["key", "update", &id, "--no-limit"]);
    assert!(row().ends_with("\t-\tdefault"), "{}", row());
}
