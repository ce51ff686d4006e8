//! Browser workers on a real `shoal serve --browser-gguf-4b`, driven by a hand-written tab:
//! an invite admits browsers only, a tab gets a rendered prompt and is billed by the gateway's
//! own count (never its claims), and a tab that breaks the rules loses its token for a while.
//! (The page itself, in Chromium, is tested in tests/e2e/test_browser.py.)

use serde_json::{json, Value};
use shoal_test_support::process::worker::{connect, recv, send};
use shoal_test_support::process::{account_with_key, admin, Loc, Server};

fn browser_hello(variant: Option<&str>) -> Value {
    let mut h = json!({"type": "hello", "protocol": 1, "kind": "browser", "concurrency": 1,
        "models": [{"id": "service-pro", "tools": true}]});
    if let Some(v) = variant {
        h["variant"] = json!(v);
    }
    h
}

fn start() -> (Server, tempfile::TempDir, std::path::PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let gguf = tmp.path().join("tiny.gguf");
    shoal_worker::llama::test_model::write(&gguf, 4096).unwrap();
    let dir = tmp.path().join("gw");
    let args = ["--browser-gguf-4b", gguf.to_str().unwrap()];
    let s = Server::start_with(&dir, Loc::Dir(dir.clone()), None, &args);
    (s, tmp, gguf)
}

#[tokio::test]
async fn an_invite_admits_a_tab_that_is_billed_by_the_gateways_count() {
    let (s, _tmp, gguf) = start();
    let link = admin(
        &s.data_dir,
        &["browser-invite", "create", "--base-url", &s.base],
    );
    let invite = link.split_once("#invite=").unwrap().1.to_owned();
    let page = reqwest::get(s.url("/worker")).await.unwrap();
    assert_eq!(
        page.headers()["cross-origin-embedder-policy"],
        "require-corp"
    );
    assert_eq!(page.headers()["cross-origin-opener-policy"], "same-origin");

    // Not as a native or upstream worker; not without a variant the gateway serves.
    let mut ws = connect(&s, &invite).await.unwrap();
    let mut native = browser_hello(None);
    native["kind"] = json!("upstream");
    send(&mut ws, native).await;
    let refused = recv(&mut ws).await;
    assert!(
        refused["message"]
            .as_str()
            .unwrap()
            .contains("browser workers only"),
        "{refused}"
    );
    for variant in [None, Some("70b")] {
        let mut ws = connect(&s, &invite).await.unwrap();
        send(&mut ws, browser_hello(variant)).await;
        assert_eq!(recv(&mut ws).await["type"], "refused");
    }

    let mut tab = connect(&s, &invite).await.unwrap();
    send(&mut tab, browser_hello(Some("4b"))).await;
    assert_eq!(recv(&mut tab).await["type"], "welcome");
    let (_, key) = account_with_key(&s.data_dir, "tab@example.com", 100, None);
    let url = s.url("/api/v1/chat/completions");
    let asked = tokio::spawn(async move {
        let body = json!({"model": "service-pro", "max_tokens": 20,
            "messages": [{"role": "user", "content": "Tell me about tide pools"}]});
        let resp = reqwest::Client::new()
            .post(url)
            .bearer_auth(key)
            .json(&body)
            .send()
            .await
            .unwrap();
        resp.json::<Value>().await.unwrap()
    });
    let job = recv(&mut tab).await;
    assert_eq!(job["type"], "prompt_job", "{job}");
    let prompt = job["prompt"].as_str().unwrap();
    assert!(
        prompt.contains("Tell me about tide pools") && prompt.ends_with("<|im_start|>assistant\n")
    );
    assert!(job.get("request").is_none() && job["params"]["max_tokens"] == 20);
    let id = job["job_id"].clone();
    for piece in ["Tide pools ", "hold anemones"] {
        send(
            &mut tab,
            json!({"type": "delta", "job_id": id, "content": piece}),
        )
        .await;
    }
    // The tab claims far more than it did: the bill is the gateway's count.
    let claim = json!({"prompt_tokens": 9999, "completion_tokens": 9999});
    send(
        &mut tab,
        json!({"type": "done", "job_id": id, "finish_reason": "stop", "usage": claim}),
    )
    .await;
    let answer = asked.await.unwrap();
    assert_eq!(
        answer["choices"][0]["message"]["content"],
        "Tide pools hold anemones"
    );
    let variant = shoal_browser::engine::Variant::open(gguf).unwrap();
    assert_eq!(answer["usage"]["prompt_tokens"], variant.count(prompt));
    assert_eq!(
        answer["usage"]["completion_tokens"],
        variant.count("Tide pools hold anemones")
    );

    // A delta for a job it never got: dropped, and its token refused for a while.
    send(
        &mut tab,
        json!({"type": "delta", "job_id": "job_made_up", "content": "x"}),
    )
    .await;
    let end = tokio::time::timeout(std::time::Duration::from_secs(5), async {
        use futures::StreamExt;
        while let Some(Ok(m)) = tab.next().await {
            if m.is_close() {
                break;
            }
        }
    });
    end.await.expect("the gateway closes the socket");
    match connect(&s, &invite).await {
        Err(tokio_tungstenite::tungstenite::Error::Http(resp)) => assert_eq!(resp.status(), 401),
        other => panic!(
            "a dropped tab's token was not refused: {:?}",
            other.map(|_| ())
        ),
    }
    // Other tokens are unaffected.
    let token = admin(&s.data_dir, &["worker-token", "create", "--name", "native"]);
    assert!(connect(&s, &token).await.is_ok());
}

#[tokio::test]
async fn the_dashboard_button_gives_a_signed_in_user_a_browser_only_invite() {
    let (s, _tmp, _) = start();
    let http = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap();
    let contribute = |origin: &str, cookie: &str| {
        (http.post(s.url("/dashboard/contribute")))
            .header("origin", origin)
            .header("cookie", cookie)
            .send()
    };
    let signed_out = contribute(&s.base, "").await.unwrap();
    assert_eq!(signed_out.status(), 303);
    assert_eq!(signed_out.headers()["location"], "/dashboard/login");

    let form = [
        ("email", "giver@example.com"),
        ("password", "tide pools at dawn"),
    ];
    let post = |page: &str| {
        (http.post(s.url(page)).header("origin", &s.base))
            .form(&form)
            .send()
    };
    assert_eq!(post("/dashboard/signup").await.unwrap().status(), 303);
    let login = post("/dashboard/login").await.unwrap();
    assert_eq!(login.status(), 303);
    let set = login.headers()["set-cookie"].to_str().unwrap();
    let cookie = set.split(';').next().unwrap().to_owned();
    let usage = (http.get(s.url("/dashboard/usage")))
        .header("cookie", &cookie)
        .send()
        .await
        .unwrap();
    assert!(usage
        .text()
        .await
        .unwrap()
        .contains("action=\"/dashboard/contribute\""));

    let cross_site = contribute("https://elsewhere.example", &cookie)
        .await
        .unwrap();
    assert_eq!(cross_site.status(), 403);
    let sent = contribute(&s.base, &cookie).await.unwrap();
    assert_eq!(sent.status(), 303);
    let to = sent.headers()["location"].to_str().unwrap().to_owned();
    let invite = to.strip_prefix("/worker#invite=").expect(&to).to_owned();

    // It admits a tab, and nothing else: no other worker kind, no API call.
    let mut ws = connect(&s, &invite).await.unwrap();
    let mut native = browser_hello(None);
    native["kind"] = json!("upstream");
    send(&mut ws, native).await;
    assert_eq!(recv(&mut ws).await["type"], "refused");
    let mut tab = connect(&s, &invite).await.unwrap();
    send(&mut tab, browser_hello(Some("4b"))).await;
    assert_eq!(recv(&mut tab).await["type"], "welcome");
    let api = (http.post(s.url("/api/v1/chat/completions")))
        .bearer_auth(&invite)
        .json(&json!({"model": "service-pro", "messages": [{"role": "user", "content": "hi"}]}))
        .send()
        .await
        .unwrap();
    assert_eq!(api.status(), 401);
}

#[tokio::test]
async fn a_forced_tool_choice_is_checked_before_anything_reaches_the_client() {
    let (s, _tmp, _) = start();
    let link = admin(
        &s.data_dir,
        &["browser-invite", "create", "--base-url", &s.base],
    );
    let invite = link.split_once("#invite=").unwrap().1.to_owned();
    let mut tab = connect(&s, &invite).await.unwrap();
    send(&mut tab, browser_hello(Some("4b"))).await;
    assert_eq!(recv(&mut tab).await["type"], "welcome");
    let (_, key) = account_with_key(&s.data_dir, "tools@example.com", 1000, None);
    let ask = || {
        let (url, key) = (s.url("/api/v1/chat/completions"), key.clone());
        tokio::spawn(async move {
            let body = json!({"model": "service-pro", "max_tokens": 60,
                "messages": [{"role": "user", "content": "Weather in Paris?"}],
                "tools": [{"type": "function", "function": {"name": "get_weather",
                    "parameters": {"type": "object", "properties": {"city": {"type": "string"}}}}}],
                "tool_choice": {"type": "function", "function": {"name": "get_weather"}}});
            let http = reqwest::Client::new();
            let resp = http.post(url).bearer_auth(key).json(&body).send().await;
            let resp = resp.unwrap();
            (resp.status().as_u16(), resp.text().await.unwrap())
        })
    };
    // The tab obeys: the prompt opened the call, the tab finished it.
    let asked = ask();
    let job = recv(&mut tab).await;
    let prompt = job["prompt"].as_str().unwrap();
    assert!(
        prompt.ends_with("<tool_call>\n{\"name\": \"get_weather\", \"arguments\": "),
        "{prompt:?}"
    );
    tab_says(&mut tab, &job, "{\"city\": \"Paris\"}}\n</tool_call>").await;
    let (status, body) = asked.await.unwrap();
    let answer: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(status, 200, "{body}");
    let call = &answer["choices"][0]["message"]["tool_calls"][0]["function"];
    assert_eq!(call["name"], "get_weather");
    let args: Value = serde_json::from_str(call["arguments"].as_str().unwrap()).unwrap();
    assert_eq!(args, json!({"city": "Paris"}));
    assert_eq!(answer["choices"][0]["finish_reason"], "tool_calls");

    // The tab answers with text: nothing of it reaches the client, no other worker can try,
    // so the request fails as unavailable, and nothing is billed.
    let before = shoal_test_support::process::balance_of(&s, &key).await;
    let asked = ask();
    let job = recv(&mut tab).await;
    tab_says(&mut tab, &job, "It is sunny in Paris.").await;
    let (status, body) = asked.await.unwrap();
    assert_eq!(status, 503, "{body}");
    assert!(!body.contains("sunny"), "{body}");
    let error: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(error["error"]["code"], "no_worker_available");
    assert_eq!(
        shoal_test_support::process::balance_of(&s, &key).await,
        before
    );
}

/// The tab answers `job` with `text` in one delta, then `done`.
async fn tab_says(tab: &mut shoal_test_support::process::worker::Socket, job: &Value, text: &str) {
    let id = &job["job_id"];
    send(tab, json!({"type": "delta", "job_id": id, "content": text})).await;
    let claim = json!({"prompt_tokens": 1, "completion_tokens": 1});
    let done = json!({"type": "done", "job_id": id, "finish_reason": "stop", "usage": claim});
    send(tab, done).await;
}
