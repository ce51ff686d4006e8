//! The dashboard through real `shoal serve` processes: a session's requests spend the free
//! daily credits first and a key's never do; sessions shared by replicas on one PostgreSQL
//! database; a session never opens `/api/v1`. (The pages themselves are driven in a browser
//! by tests/e2e/test_dashboard.py.)

mod common;

use common::worker::{answer_every_job, welcomed_worker};
use common::{admin, PgDb, Server};
use reqwest::redirect::Policy;
use reqwest::StatusCode;
use serde_json::{json, Value};

const PASSWORD: &str = "a long enough password";

fn client() -> reqwest::Client {
    reqwest::Client::builder()
        .redirect(Policy::none())
        .build()
        .unwrap()
}

/// Signs up on `s`; returns the session cookie (`name=value`).
async fn sign_up(s: &Server, email: &str) -> String {
    let r = client()
        .post(s.url("/dashboard/signup"))
        .header("origin", &s.base)
        .form(&[("email", email), ("password", PASSWORD)])
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::SEE_OTHER);
    let set = r.headers()["set-cookie"].to_str().unwrap().to_string();
    assert!(
        set.contains("HttpOnly") && set.contains("SameSite=Strict"),
        "{set}"
    );
    set.split(';').next().unwrap().to_string()
}

async fn session_get(s: &Server, cookie: &str, path: &str) -> reqwest::Response {
    client()
        .get(s.url(path))
        .header("cookie", cookie)
        .header("sec-fetch-site", "same-origin")
        .send()
        .await
        .unwrap()
}

/// Waits (bounded) until the account shows `want` (free left, credits): a request's settle is
/// written just after its answer.
/// A playground request with the session `cookie`, as sent from `site` (`Sec-Fetch-Site`).
async fn session_chat(s: &Server, cookie: &str, site: &str) -> reqwest::Response {
    client()
        .post(s.url("/dashboard/api/chat"))
        .header("cookie", cookie)
        .header("sec-fetch-site", site)
        .json(&chat())
        .send()
        .await
        .unwrap()
}

async fn expect_balance(s: &Server, cookie: &str, want: (i64, i64)) {
    let mut last = (-1, -1);
    let check = async {
        for _ in 0..200 {
            last = free_and_credits(s, cookie).await;
            if last == want {
                return true;
            }
            tokio::time::sleep(std::time::Duration::from_millis(25)).await;
        }
        false
    };
    assert!(
        check.await,
        "balance (free left, credits) is {last:?}, expected {want:?}"
    );
}

async fn free_and_credits(s: &Server, cookie: &str) -> (i64, i64) {
    let r = session_get(s, cookie, "/dashboard/api/balance").await;
    assert_eq!(r.status(), StatusCode::OK);
    let b: Value = r.json().await.unwrap();
    (
        b["free_left"].as_i64().unwrap(),
        b["credits"].as_i64().unwrap(),
    )
}

fn chat() -> Value {
    json!({"model": "service-pro", "messages": [{"role": "user", "content": "hi"}], "max_tokens": 16})
}

#[tokio::test]
async fn sessions_spend_free_credits_first_and_keys_never() {
    let s = Server::start(Some("free_daily_credits = 5\n"));
    let cookie = sign_up(&s, "free@example.com").await;
    // The first account of a fresh store.
    admin(
        &s.data_dir,
        &["credits", "grant", "--account", "1", "--credits", "100"],
    );
    let key = admin(&s.data_dir, &["key", "create", "--account", "1"]);
    let ws = welcomed_worker(&s, &(&s.data_dir).into(), 4).await;
    let worker = answer_every_job(ws, Some("hello"));
    expect_balance(&s, &cookie, (5, 100)).await;

    // A key request: the balance pays, free credits untouched.
    let r = client()
        .post(s.url("/api/v1/chat/completions"))
        .bearer_auth(&key)
        .json(&chat())
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::OK, "{}", r.text().await.unwrap());
    expect_balance(&s, &cookie, (5, 99)).await;

    // Session requests: free credits first (1 each here), the balance only once they are gone.
    for free_left in (0..5).rev() {
        let r = session_chat(&s, &cookie, "same-origin").await;
        assert_eq!(r.status(), StatusCode::OK, "{}", r.text().await.unwrap());
        expect_balance(&s, &cookie, (free_left, 99)).await;
    }
    // The free credits are gone: only the hold's size decides now (plan 0, balance 99).
    let r = session_chat(&s, &cookie, "same-origin").await;
    assert_eq!(r.status(), StatusCode::OK);
    expect_balance(&s, &cookie, (0, 98)).await;

    // Cross-site, or without a session: refused before anything is held.
    let r = session_chat(&s, &cookie, "cross-site").await;
    assert_eq!(r.status(), StatusCode::FORBIDDEN);
    // A session never opens /api/v1; a key never opens the dashboard's calls.
    let r = client()
        .get(s.url("/api/v1/balance"))
        .header("cookie", &cookie)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::UNAUTHORIZED);
    let r = client()
        .get(s.url("/dashboard/api/balance"))
        .bearer_auth(&key)
        .header("sec-fetch-site", "same-origin")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::UNAUTHORIZED);
    assert_eq!(admin(&s.data_dir, &["ledger", "verify"]), "ok");
    worker.abort();
}

#[tokio::test]
async fn a_session_made_on_one_replica_works_on_another() {
    let Some(db) = PgDb::create("dash").await else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let store = common::Loc::Url(db.url.clone());
    let a = Server::start_on(&dir.path().join("a"), store.clone(), None);
    let b = Server::start_on(&dir.path().join("b"), store, None);
    let cookie = sign_up(&a, "replicas@example.com").await;
    assert_eq!(
        session_get(&b, &cookie, "/dashboard/usage").await.status(),
        StatusCode::OK
    );
    // Logged out on A: over on B at once.
    let r = client()
        .post(a.url("/dashboard/logout"))
        .header("cookie", &cookie)
        .header("origin", &a.base)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::SEE_OTHER);
    assert!(r.headers()["set-cookie"]
        .to_str()
        .unwrap()
        .contains("Max-Age=0"));
    let r = session_get(&b, &cookie, "/dashboard/usage").await;
    assert_eq!(r.status(), StatusCode::SEE_OTHER);
    assert_eq!(r.headers()["location"], "/dashboard/login");
    drop((a, b));
    db.drop_db().await;
}
