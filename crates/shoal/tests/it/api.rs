//! The /api/v1 surface through a real `shoal serve` process over HTTP: statuses, the error
//! shape, auth, rate limits, the catalog, the balance, and the admin contract.

use reqwest::StatusCode;
use serde_json::{json, Value};
use shoal_test_support::process::{account_with_key, admin, error_of, Server};
use std::time::{Duration, Instant};

fn client() -> reqwest::Client {
    reqwest::Client::new()
}

fn chat(model: &str, text: &str) -> Value {
    json!({"model": model, "messages": [{"role": "user", "content": text}], "max_tokens": 16})
}

#[tokio::test]
async fn models_list_the_catalog_with_pricing_and_aliases() {
    let s = Server::start(None);
    let (_, key) = account_with_key(&s.data_dir, "m@example.com", 0, None);
    let resp = client()
        .get(s.url("/api/v1/models"))
        .bearer_auth(&key)
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), StatusCode::OK);
    let body: Value = resp.json().await.unwrap();
    assert_eq!(body["object"], "list");
    let data = body["data"].as_array().unwrap();
    let ids: Vec<&str> = data.iter().map(|m| m["id"].as_str().unwrap()).collect();
    for id in [
        "large-27b-uncensored",
        "large-27b-uncensored-think",
        "service-pro",
        "service-swarm",
        "code",
        "large-26b-uncensored",
    ] {
        assert!(ids.contains(&id), "{id} missing from {ids:?}");
    }
    for m in data {
        assert_eq!(m["object"], "model");
        assert!(m["created"].as_i64().unwrap() > 0);
        assert!(m["owned_by"].is_string());
        assert_eq!(m["available"], false, "no worker is connected: {m}");
        assert_eq!(
            m["pricing"],
            json!({"type": "per_token", "usd_per_m_input": 0.15, "usd_per_m_output": 0.90})
        );
        assert!(m["context_length"].as_u64().unwrap() > 0);
        assert!(m["capabilities"]["tools"].is_boolean());
    }
    let by_id = |id: &str| data.iter().find(|m| m["id"] == id).unwrap();
    assert_eq!(by_id("code")["deprecated"], true);
    assert_eq!(by_id("code")["alias_of"], "large-27b-uncensored");
    assert_eq!(
        by_id("large-27b-uncensored")["capabilities"]["vision"],
        true
    );
    assert_eq!(by_id("service-pro")["capabilities"]["vision"], false);
    assert_eq!(
        by_id("large-27b-uncensored-think")["capabilities"]["reasoning"],
        true
    );
    assert_ne!(by_id("service-pro")["deprecated"], true);
}

#[tokio::test]
async fn config_models_table_replaces_the_catalog() {
    let s = Server::start(Some(
        r#"
[[models]]
id = "tiny"
context_length = 2048
max_output_tokens = 256
tools = true
[[models]]
id = "tiny-old"
alias_of = "tiny"
"#,
    ));
    let (_, key) = account_with_key(&s.data_dir, "c@example.com", 100, None);
    let body: Value = client()
        .get(s.url("/api/v1/models"))
        .bearer_auth(&key)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let ids: Vec<&str> = body["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, ["tiny", "tiny-old"]);
    // A built-in id is now unknown; the alias resolves (and reaches dispatch: 503, no worker).
    let r = client()
        .post(s.url("/api/v1/chat/completions"))
        .bearer_auth(&key)
        .json(&chat("service-pro", "hi"))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::NOT_FOUND);
    let r = client()
        .post(s.url("/api/v1/chat/completions"))
        .bearer_auth(&key)
        .json(&chat("tiny-old", "hi"))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::SERVICE_UNAVAILABLE);
}

#[tokio::test]
async fn balance_reports_the_account_of_the_key() {
    let s = Server::start(None);
    let (account, key) = account_with_key(&s.data_dir, "b@example.com", 0, None);
    assert_eq!(
        admin(
            &s.data_dir,
            &[
                "credits",
                "grant",
                "--account",
                &account,
                "--credits",
                "1500"
            ]
        ),
        "1500"
    );
    assert_eq!(
        admin(
            &s.data_dir,
            &[
                "credits",
                "grant",
                "--account",
                &account,
                "--credits",
                "250"
            ]
        ),
        "1750"
    );
    let (_, other_key) = account_with_key(&s.data_dir, "other@example.com", 7, None);

    let body: Value = client()
        .get(s.url("/api/v1/balance"))
        .bearer_auth(&key)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(body["object"], "balance");
    assert_eq!(body["credits"], 1750);
    assert_eq!(body["usd"].as_f64().unwrap(), 1.75);
    assert_eq!(body["total_deposited"], 1750);
    assert_eq!(body["total_spent"], 0);
    assert_eq!(body["credits_held"], 0);
    assert_eq!(body["daily_credits_left"], 0);

    let other: Value = client()
        .get(s.url("/api/v1/balance"))
        .bearer_auth(&other_key)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(other["credits"], 7);

    let printed = shoal_test_support::process::admin_lines(
        &s.data_dir,
        &[
            "plan",
            "set",
            "--account",
            &account,
            "--daily-credits",
            "40",
        ],
    );
    assert!(printed.is_empty(), "plan set names no value: {printed:?}");
    let body: Value = client()
        .get(s.url("/api/v1/balance"))
        .bearer_auth(&key)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(body["daily_credits_left"], 40);
    assert_eq!(body["credits"], 1750);
}

#[tokio::test]
async fn bad_keys_get_401_in_the_error_shape() {
    let s = Server::start(None);
    let (account, key) = account_with_key(&s.data_dir, "k@example.com", 10, None);
    let c = client();
    let url = s.url("/api/v1/balance");

    let r = c.get(&url).send().await.unwrap();
    assert_eq!(r.status(), StatusCode::UNAUTHORIZED);
    let (code, message, kind) = error_of(r).await;
    assert_eq!(
        (code.as_str(), kind.as_str()),
        ("invalid_api_key", "authentication_error")
    );
    assert!(message.contains("missing"), "{message}");

    for bad in [
        "sk-shoal-short",
        "not-a-key",
        "sk-shoal-AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
        &format!("{key}x!"),
    ] {
        let r = c.get(&url).bearer_auth(bad).send().await.unwrap();
        assert_eq!(r.status(), StatusCode::UNAUTHORIZED, "key {bad}");
        error_of(r).await;
    }
    let r = c
        .get(&url)
        .header("authorization", format!("Basic {key}"))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::UNAUTHORIZED);

    assert_eq!(
        c.get(&url).bearer_auth(&key).send().await.unwrap().status(),
        StatusCode::OK
    );
    let listed = std::process::Command::new(shoal_test_support::process::shoal_bin())
        .args(["admin", "--data-dir"])
        .arg(&s.data_dir)
        .args(["key", "list", "--account", &account])
        .output()
        .unwrap();
    let listed = String::from_utf8(listed.stdout).unwrap();
    let key_id = listed.split('\t').next().unwrap().to_string();
    assert!(
        listed.contains("active") && !listed.contains(&key[12..]),
        "key list shows only a prefix: {listed}"
    );
    let out = std::process::Command::new(shoal_test_support::process::shoal_bin())
        .args(["admin", "--data-dir"])
        .arg(&s.data_dir)
        .args(["key", "revoke", "--key-id", &key_id])
        .output()
        .unwrap();
    assert!(out.status.success());
    // Revocation reaches a running gateway within its key cache lifetime (1 s by default).
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        let status = c.get(&url).bearer_auth(&key).send().await.unwrap().status();
        if status == StatusCode::UNAUTHORIZED {
            break;
        }
        assert_eq!(status, StatusCode::OK);
        assert!(
            Instant::now() < deadline,
            "revoked key still accepted after 5 s"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

#[tokio::test]
async fn every_failure_has_the_error_shape_and_status() {
    let s = Server::start(Some("body_limit_bytes = 4096\n"));
    let (_, key) = account_with_key(&s.data_dir, "e@example.com", 10_000, None);
    let (_, broke_key) = account_with_key(&s.data_dir, "broke@example.com", 0, None);
    let c = client();
    let chat_url = s.url("/api/v1/chat/completions");
    let post = |body: String| {
        c.post(&chat_url)
            .bearer_auth(&key)
            .header("content-type", "application/json")
            .body(body)
    };

    // Unknown routes, inside and outside /api/v1, and a wrong method.
    for path in ["/api/v1/nope", "/nope", "/api/v2/models"] {
        let r = c.get(s.url(path)).bearer_auth(&key).send().await.unwrap();
        assert_eq!(r.status(), StatusCode::NOT_FOUND, "{path}");
        error_of(r).await;
    }
    let r = c
        .delete(s.url("/api/v1/models"))
        .bearer_auth(&key)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::METHOD_NOT_ALLOWED);
    error_of(r).await;
    let r = c.get(&chat_url).bearer_auth(&key).send().await.unwrap();
    assert_eq!(r.status(), StatusCode::METHOD_NOT_ALLOWED);
    error_of(r).await;

    // 400s name the field.
    let cases: Vec<(String, Option<&str>)> = vec![
        ("{not json".into(), None),
        ("[]".into(), None),
        (json!({"messages": [{"role": "user", "content": "hi"}]}).to_string(), Some("model")),
        (json!({"model": "service-pro"}).to_string(), Some("messages")),
        (json!({"model": "service-pro", "messages": []}).to_string(), Some("messages")),
        (json!({"model": "service-pro", "messages": [{"role": "wizard", "content": "x"}]}).to_string(), Some("messages[0].role")),
        (json!({"model": "service-pro", "messages": [{"role": "tool", "content": "x"}]}).to_string(), Some("messages[0].tool_call_id")),
        (json!({"model": "service-pro", "messages": [{"role": "user", "content": 42}]}).to_string(), Some("messages[0].content")),
        (json!({"model": "service-pro", "messages": [{"role": "user", "content": "x"}], "tools": [{"type": "function"}]}).to_string(), Some("tools[0].function")),
        (json!({"model": "large-27b-uncensored", "messages": [{"role": "user", "content": [{"type": "image_url", "image_url": {"url": "https://example.com/cat.png"}}]}]}).to_string(), Some("messages[0].content[0].image_url.url")),
    ];
    for (body, param) in cases {
        let r = post(body.clone()).send().await.unwrap();
        assert_eq!(r.status(), StatusCode::BAD_REQUEST, "{body}");
        let raw: Value = r.json().await.unwrap();
        assert_eq!(raw["error"]["type"], "invalid_request_error", "{raw}");
        assert!(raw["error"]["message"].as_str().unwrap().len() > 5);
        if let Some(p) = param {
            assert_eq!(raw["error"]["param"], p, "{body} -> {raw}");
            assert!(
                raw["error"]["message"]
                    .as_str()
                    .unwrap()
                    .contains(p.split('[').next().unwrap())
                    || raw["error"]["param"] == p
            );
        }
    }
    // Remote image URLs are never fetched, and the message says so.
    let remote = json!({"model": "large-27b-uncensored", "messages": [{"role": "user", "content": [{"type": "image_url", "image_url": {"url": "https://example.com/cat.png"}}]}]});
    let (_, message, _) = error_of(post(remote.to_string()).send().await.unwrap()).await;
    assert!(message.contains("data:"), "{message}");
    // Image parts on a model without vision.
    let png = "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";
    let img = |model: &str| json!({"model": model, "messages": [{"role": "user", "content": [{"type": "text", "text": "what is this"}, {"type": "image_url", "image_url": {"url": png}}]}]});
    let r = post(img("service-pro").to_string()).send().await.unwrap();
    assert_eq!(r.status(), StatusCode::BAD_REQUEST);
    let (_, message, _) = error_of(r).await;
    assert!(message.contains("image"), "{message}");
    // The same image on the vision model passes validation and reaches dispatch.
    assert_eq!(
        post(img("large-27b-uncensored").to_string())
            .send()
            .await
            .unwrap()
            .status(),
        StatusCode::SERVICE_UNAVAILABLE
    );

    // 404 for an unknown model.
    let r = post(chat("no-such-model", "hi").to_string())
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::NOT_FOUND);
    let (code, _, _) = error_of(r).await;
    assert_eq!(code, "model_not_found");

    // 413 over the body limit.
    let big = chat("service-pro", &"a".repeat(10_000)).to_string();
    let r = post(big).send().await.unwrap();
    assert_eq!(r.status(), StatusCode::PAYLOAD_TOO_LARGE);
    let (code, _, _) = error_of(r).await;
    assert_eq!(code, "request_too_large");

    // 415 for a body that is not JSON.
    let r = c
        .post(&chat_url)
        .bearer_auth(&key)
        .header("content-type", "text/plain")
        .body("hi")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::UNSUPPORTED_MEDIA_TYPE);
    error_of(r).await;

    // 402 without credits; the message states needed and available.
    let r = c
        .post(&chat_url)
        .bearer_auth(&broke_key)
        .json(&chat("service-pro", "hi"))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::PAYMENT_REQUIRED);
    let (code, message, _) = error_of(r).await;
    assert_eq!(code, "insufficient_credits");
    assert!(
        message.contains("needs") && message.contains(" 0 "),
        "{message}"
    );

    // 503 with credits but no worker: the hold is voided, nothing is charged.
    let r = post(chat("service-pro", "hi").to_string())
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::SERVICE_UNAVAILABLE);
    assert!(r.headers().get("retry-after").is_some());
    let (code, _, _) = error_of(r).await;
    assert_eq!(code, "no_worker_available");
    let bal: Value = c
        .get(s.url("/api/v1/balance"))
        .bearer_auth(&key)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(
        (
            bal["credits"].as_i64(),
            bal["credits_held"].as_i64(),
            bal["total_spent"].as_i64()
        ),
        (Some(10_000), Some(0), Some(0))
    );

    let logs = s.logs();
    assert!(!logs.contains("panicked"), "{logs}");
}

#[tokio::test]
async fn sixty_first_request_in_a_minute_is_rate_limited() {
    let s = Server::start(None);
    let (_, key) = account_with_key(&s.data_dir, "r@example.com", 0, None);
    let (_, slow_key) = account_with_key(&s.data_dir, "slow@example.com", 0, Some(3));
    let c = client();
    let url = s.url("/api/v1/models");
    for i in 0..60 {
        let r = c.get(&url).bearer_auth(&key).send().await.unwrap();
        assert_eq!(r.status(), StatusCode::OK, "request {}", i + 1);
        let h = r.headers();
        assert_eq!(h["x-ratelimit-limit-requests"], "60");
        assert_eq!(
            h["x-ratelimit-remaining-requests"].to_str().unwrap(),
            (59 - i).to_string()
        );
        assert!(h.get("x-ratelimit-reset-requests").is_some());
        assert!(h.get("x-request-id").is_some());
    }
    let r = c.get(&url).bearer_auth(&key).send().await.unwrap();
    assert_eq!(r.status(), StatusCode::TOO_MANY_REQUESTS);
    let retry: u64 = r.headers()["retry-after"]
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!((1..=60).contains(&retry), "retry-after {retry}");
    assert_eq!(r.headers()["x-ratelimit-remaining-requests"], "0");
    let (code, _, kind) = error_of(r).await;
    assert_eq!(
        (code.as_str(), kind.as_str()),
        ("rate_limit_exceeded", "rate_limit_error")
    );

    // A per-key limit set at creation.
    for _ in 0..3 {
        let r = c.get(&url).bearer_auth(&slow_key).send().await.unwrap();
        assert_eq!(r.status(), StatusCode::OK);
        assert_eq!(r.headers()["x-ratelimit-limit-requests"], "3");
    }
    let r = c.get(&url).bearer_auth(&slow_key).send().await.unwrap();
    assert_eq!(r.status(), StatusCode::TOO_MANY_REQUESTS);
    let retry: u64 = r.headers()["retry-after"]
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!(
        (15..=20).contains(&retry),
        "one request per 20 s: retry-after {retry}"
    );
}

#[tokio::test]
async fn keys_are_stored_only_as_hashes() {
    let s = Server::start(None);
    let (account, key) = account_with_key(&s.data_dir, "h@example.com", 5, None);
    assert!(key.starts_with("sk-shoal-"));
    let random = &key["sk-shoal-".len()..];
    assert!(
        random.len() >= 32 && random.chars().all(|c| c.is_ascii_alphanumeric()),
        "{key}"
    );
    let key2 = admin(
        &s.data_dir,
        &["key", "create", "--account", &account, "--name", "second"],
    );
    assert_ne!(key, key2);
    let token = admin(&s.data_dir, &["worker-token", "create", "--name", "gpu-1"]);
    // Use the key so the server has seen it too.
    assert_eq!(
        client()
            .get(s.url("/api/v1/balance"))
            .bearer_auth(&key)
            .send()
            .await
            .unwrap()
            .status(),
        StatusCode::OK
    );

    let mut scanned = 0;
    for entry in std::fs::read_dir(&s.data_dir).unwrap() {
        let path = entry.unwrap().path();
        let bytes = std::fs::read(&path).unwrap();
        scanned += bytes.len();
        for secret in [
            &key,
            &key2,
            &token,
            &random.to_string(),
            &token["shoal-wt-".len()..].to_string(),
        ] {
            assert!(
                !bytes.windows(secret.len()).any(|w| w == secret.as_bytes()),
                "{} contains a plaintext secret",
                path.display()
            );
        }
    }
    assert!(scanned > 0);
    assert!(s.data_dir.join("shoal.db").exists());
}

#[tokio::test]
async fn admin_errors_go_to_stderr_with_a_failing_status() {
    let dir = tempfile::tempdir().unwrap();
    let run = |args: &[&str]| {
        std::process::Command::new(shoal_test_support::process::shoal_bin())
            .args(["admin", "--data-dir"])
            .arg(dir.path())
            .args(args)
            .output()
            .unwrap()
    };
    let id = admin(
        dir.path(),
        &["account", "create", "--email", "a@example.com"],
    );
    assert!(id.parse::<i64>().is_ok(), "{id}");
    let found = admin(
        dir.path(),
        &["account", "find", "--email", " A@Example.com"],
    );
    assert_eq!(found, id);
    for args in [
        vec!["account", "create", "--email", "a@example.com"],
        vec!["account", "find", "--email", "b@example.com"],
        vec!["credits", "grant", "--account", "999999", "--credits", "5"],
        vec![
            "credits",
            "grant",
            "--account",
            id.as_str(),
            "--credits",
            "-5",
        ],
        vec!["key", "create", "--account", "999999"],
        vec!["key", "revoke", "--key-id", "999999"],
    ] {
        let out = run(&args);
        assert!(!out.status.success(), "{args:?} succeeded");
        assert!(out.stdout.is_empty(), "{args:?} printed to stdout");
        assert!(!out.stderr.is_empty());
    }
    assert_eq!(admin(dir.path(), &["ledger", "verify"]), "ok");
}

#[tokio::test]
async fn sigterm_shuts_down_gracefully() {
    let mut s = Server::start(None);
    assert_eq!(
        client()
            .get(s.url("/health"))
            .send()
            .await
            .unwrap()
            .status(),
        StatusCode::OK
    );
    let status = s.terminate();
    assert!(status.success(), "exit status {status:?}");
    // stderr is a file here, not a terminal: plain text, no colour codes.
    let log = std::fs::read_to_string(&s.stderr_log).unwrap();
    assert!(log.contains("shoal gateway started"), "{log}");
    assert!(
        !log.contains('\u{1b}'),
        "colour codes in a log file: {log:?}"
    );
}

/// The reaper deletes holds that ended longer than `hold_retention_secs` ago; the journal
/// keeps their record, so the ledger still verifies.
#[tokio::test]
async fn ended_holds_are_pruned_after_the_retention() {
    use sqlx::{Connection, SqliteConnection};
    let config = "request_timeout_secs = 1\nhold_ttl_secs = 2\nhold_retention_secs = 2\nreaper_interval_secs = 1\n";
    let s = Server::start(Some(config));
    let (_, key) = account_with_key(&s.data_dir, "prune@example.com", 1000, None);
    // No worker serves the model: 503, and the hold taken for it is voided at once.
    let r = reqwest::Client::new()
        .post(s.url("/api/v1/chat/completions"))
        .bearer_auth(&key)
        .json(&json!({"model": "service-pro", "messages": [{"role": "user", "content": "hi"}]}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::SERVICE_UNAVAILABLE);

    let url = format!("sqlite://{}?mode=ro", s.data_dir.join("shoal.db").display());
    let count = async |sql: &str| -> i64 {
        let mut c = SqliteConnection::connect(&url).await.unwrap();
        sqlx::query_scalar(sql).fetch_one(&mut c).await.unwrap()
    };
    assert_eq!(
        count("SELECT count(*) FROM holds").await,
        1,
        "the voided hold is kept for a while"
    );
    let deadline = Instant::now() + Duration::from_secs(10);
    while count("SELECT count(*) FROM holds").await > 0 {
        assert!(Instant::now() < deadline, "the ended hold was never pruned");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(count("SELECT count(*) FROM journal WHERE kind = 'hold'").await >= 1);
    assert_eq!(admin(&s.data_dir, &["ledger", "verify"]), "ok");
}

/// `--runtime-threads` sets how many runtime threads serve and worker run on (serve: one per
/// CPU but one, at least one; a worker: 1 unless told), and 0 is refused.
#[tokio::test]
async fn runtime_threads_sets_the_runtime_size() {
    let dir = tempfile::tempdir().unwrap();
    let refused = std::process::Command::new(shoal_test_support::process::shoal_bin())
        .args(["--runtime-threads", "0", "serve", "--data-dir"])
        .arg(dir.path())
        .output()
        .unwrap();
    assert_eq!(refused.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&refused.stderr).contains("--runtime-threads"));

    // The gateway's start-up line says how many runtime threads it runs on.
    let runtime_threads = |threads: Option<&str>| {
        let log = dir
            .path()
            .join(format!("serve-{}.log", threads.unwrap_or("default")));
        let mut cmd = std::process::Command::new(shoal_test_support::process::shoal_bin());
        cmd.env_remove("SHOAL_RUNTIME_THREADS");
        if let Some(n) = threads {
            cmd.env("SHOAL_RUNTIME_THREADS", n);
        }
        let mut child = cmd
            .args(["serve", "--listen", "127.0.0.1:0", "--data-dir"])
            .arg(dir.path())
            .env("SHOAL_LOG", "info")
            .env("SHOAL_LOG_FORMAT", "json")
            .stdout(std::process::Stdio::piped())
            .stderr(std::fs::File::create(&log).unwrap())
            .spawn()
            .unwrap();
        // "listening on" is printed after the start-up line is logged.
        let mut line = String::new();
        std::io::BufRead::read_line(
            &mut std::io::BufReader::new(child.stdout.take().unwrap()),
            &mut line,
        )
        .unwrap();
        assert!(line.starts_with("listening on "), "{line}");
        child.kill().unwrap();
        child.wait().unwrap();
        let text = std::fs::read_to_string(&log).unwrap();
        let started = text
            .lines()
            .find(|l| l.contains("shoal gateway started"))
            .unwrap_or_else(|| panic!("no start-up line in {text}"));
        let started: Value = serde_json::from_str(started).unwrap();
        started["fields"]["runtime_threads"].clone()
    };
    assert_eq!(runtime_threads(Some("1")), json!(1));
    assert_eq!(runtime_threads(Some("3")), json!(3));
    let cpus = std::thread::available_parallelism().unwrap().get();
    assert_eq!(runtime_threads(None), json!(cpus.saturating_sub(1).max(1)));

    // A worker runs on one thread unless told otherwise; its start-up line says so. (No
    // gateway listens: the line comes before the first dial.)
    let worker_threads = |threads: Option<&str>| {
        let mut cmd = std::process::Command::new(shoal_test_support::process::shoal_bin());
        cmd.args([
            "worker",
            "--gateway",
            "http://127.0.0.1:9",
            "--token",
            "sk-worker-none",
            "--backend",
            "openai",
            "--upstream",
            "http://127.0.0.1:9/v1",
            "--serve",
            "m=m",
        ])
        .env("SHOAL_LOG", "info")
        .env("SHOAL_LOG_FORMAT", "json")
        .env_remove("SHOAL_RUNTIME_THREADS")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped());
        if let Some(n) = threads {
            cmd.env("SHOAL_RUNTIME_THREADS", n);
        }
        let mut child = cmd.spawn().unwrap();
        let mut lines =
            std::io::BufRead::lines(std::io::BufReader::new(child.stderr.take().unwrap()));
        let started = lines
            .find_map(|l| l.ok().filter(|l| l.contains("shoal worker started")))
            .expect("a start-up line");
        child.kill().unwrap();
        child.wait().unwrap();
        let started: Value = serde_json::from_str(&started).unwrap();
        started["fields"]["runtime_threads"].clone()
    };
    assert_eq!(worker_threads(None), json!(1));
    assert_eq!(worker_threads(Some("2")), json!(2));
}

async fn ready(s: &Server) -> (StatusCode, Value) {
    let r = client().get(s.url("/ready")).send().await.unwrap();
    (r.status(), r.json().await.unwrap())
}

#[tokio::test]
async fn ready_reports_each_service_and_fails_without_the_database() {
    // One node on SQLite: ready, with nothing shared to report.
    let s = Server::start(None);
    let (status, body) = ready(&s).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["status"], "ready");
    assert_eq!(body["database"]["state"], "up");
    assert!(body["database"]["latency_ms"].is_u64(), "{body}");
    assert_eq!(body["redis"]["state"], "not_configured");
    assert_eq!(body["nats"]["state"], "not_configured");
    drop(s);

    // On PostgreSQL: ready, then the database is gone: 503 not_ready, while /health (the
    // liveness check) stays 200 and requests get a 503, never a 500.
    let Some(db) = shoal_test_support::pg::TempDb::for_test().await else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let store = shoal_test_support::process::Loc::Url(db.url().to_owned());
    let s = Server::start_on(tmp.path(), store.clone(), None);
    let (_, key) = account_with_key(&store, "ready@example.com", 10, None);
    assert_eq!(ready(&s).await.0, StatusCode::OK);
    drop(db);
    let (status, body) = ready(&s).await;
    assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE, "{body}");
    assert_eq!(
        (&body["status"], &body["database"]["state"]),
        (&json!("not_ready"), &json!("down"))
    );
    let health = client().get(s.url("/health")).send().await.unwrap();
    assert_eq!(health.status(), StatusCode::OK);
    let balance = (client().get(s.url("/api/v1/balance")).bearer_auth(&key))
        .send()
        .await
        .unwrap();
    assert_eq!(balance.status(), StatusCode::SERVICE_UNAVAILABLE);
}
