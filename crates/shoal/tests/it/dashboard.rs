//! The dashboard through real `shoal serve` processes: a session's requests spend the free
//! daily credits first and a key's never do; sessions shared by replicas on one PostgreSQL
//! database; a session never opens `/api/v1`; the API tab's spending limits, and the keys API
//! for a session. (The pages themselves are driven in a browser
//! by tests/e2e/test_dashboard.py.)

use reqwest::redirect::Policy;
use reqwest::StatusCode;
use serde_json::{json, Value};
use shoal_test_support::pg::TempDb;
use shoal_test_support::process::worker::{answer_every_job, answer_with_usage, welcomed_worker};
use shoal_test_support::process::{admin, wait_until, Server};

const PASSWORD: &str = "a long enough password";

fn client() -> reqwest::Client {
    reqwest::Client::builder()
        .redirect(Policy::none())
        .build()
        .unwrap()
}

/// Signs up on `s` and logs in; returns the session cookie (`name=value`).
async fn sign_up(s: &Server, email: &str) -> String {
    let form = [("email", email), ("password", PASSWORD)];
    let r = (client().post(s.url("/dashboard/signup")))
        .header("origin", &s.base)
        .form(&form)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::SEE_OTHER);
    assert_eq!(r.headers()["location"], "/dashboard/login?new");
    let r = (client().post(s.url("/dashboard/login")))
        .header("origin", &s.base)
        .form(&form)
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
    usage_by_key_and_last_used(&s, &cookie).await;
    assert_eq!(admin(&s.data_dir, &["ledger", "verify"]), "ok");
    worker.abort();
}

/// Requests (and credits) of the usage page's `service-pro` row.
async fn usage_row(s: &Server, cookie: &str, filter: &str) -> Option<(i64, i64)> {
    let r = session_get(s, cookie, &format!("/dashboard/usage?key={filter}")).await;
    assert_eq!(r.status(), StatusCode::OK);
    let html = r.text().await.unwrap();
    let (_, row) = html.split_once("<td>service-pro</td>")?;
    let cells: Vec<i64> = row
        .split("</tr>")
        .next()
        .unwrap()
        .split("<td class=\"num")
        .skip(1)
        .map(|c| {
            let v = c.split_once('>').unwrap().1.split('<').next().unwrap();
            v.parse().unwrap()
        })
        .collect();
    // Requests, input tokens, output tokens, credits.
    Some((cells[0], cells[3]))
}

/// After `sessions_spend_free_credits_first_and_keys_never`: one key request (1 credit),
/// six session requests (1 credit each).
async fn usage_by_key_and_last_used(s: &Server, cookie: &str) {
    // The settles are written just after the answers (`expect_balance` waited for them).
    assert_eq!(usage_row(s, cookie, "all").await, Some((7, 7)));
    assert_eq!(usage_row(s, cookie, "dashboard").await, Some((6, 6)));
    // The fresh store's first key.
    assert_eq!(usage_row(s, cookie, "1").await, Some((1, 1)));
    for bad in ["2", "x", "-1"] {
        let r = session_get(s, cookie, &format!("/dashboard/usage?key={bad}")).await;
        assert_eq!(r.status(), StatusCode::BAD_REQUEST, "key={bad}");
    }
    let keys = session_get(s, cookie, "/dashboard/keys").await;
    let html = keys.text().await.unwrap();
    let last_used = html
        .split_once("<td class=\"last-used wide-only\">")
        .map(|(_, rest)| rest.split('<').next().unwrap().to_string());
    let last_used = last_used.expect("a last-used cell");
    assert!(
        last_used.len() == 20 && last_used.ends_with(" UTC"),
        "last used: {last_used:?}"
    );
    // A new key: never used.
    let r = client()
        .post(s.url("/dashboard/keys"))
        .header("cookie", cookie)
        .header("origin", &s.base)
        .form(&[("name", "fresh")])
        .send()
        .await
        .unwrap();
    let html = r.text().await.unwrap();
    assert!(
        html.contains("<span class=\"muted\">never</span>"),
        "{html}"
    );
    assert_eq!(usage_row(s, cookie, "2").await, None, "no usage yet");
}

/// The reset form without `[smtp]` names the operator's command; with it, it answers the same
/// for an unknown email as for a known one, and is throttled.
#[tokio::test]
async fn password_reset_never_tells_who_has_an_account() {
    let s = Server::start(None);
    let r = client()
        .get(s.url("/dashboard/reset"))
        .send()
        .await
        .unwrap();
    assert!(r
        .text()
        .await
        .unwrap()
        .contains("shoal admin account set-password"));
    let r = client()
        .post(s.url("/dashboard/reset"))
        .header("origin", &s.base)
        .form(&[("email", "a@example.com")])
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::NOT_FOUND);
    drop(s);

    // A mail server that is not there: the answer is the same, the failure goes to the log.
    let smtp = "[smtp]\nhost = \"127.0.0.1\"\nport = 9\ntls = \"none\"\n\
                from = \"Shoal <no-reply@example.com>\"\nsite_url = \"http://shoal.test\"\n";
    let s = Server::start(Some(smtp));
    sign_up(&s, "known@example.com").await;
    let ask = |email: &'static str| {
        client()
            .post(s.url("/dashboard/reset"))
            .header("origin", &s.base)
            .form(&[("email", email)])
            .send()
    };
    let known = ask("known@example.com").await.unwrap();
    assert_eq!(known.status(), StatusCode::OK);
    let known = known.text().await.unwrap().replace("known@", "X@");
    let unknown = ask("nobody@example.com").await.unwrap();
    assert_eq!(unknown.status(), StatusCode::OK);
    assert_eq!(
        unknown.text().await.unwrap().replace("nobody@", "X@"),
        known
    );
    for _ in 0..2 {
        assert_eq!(
            ask("nobody@example.com").await.unwrap().status(),
            StatusCode::OK
        );
    }
    let r = ask("nobody@example.com").await.unwrap();
    assert_eq!(r.status(), StatusCode::TOO_MANY_REQUESTS);
    assert!(r.text().await.unwrap().contains("Too many reset requests"));
    let r = client()
        .get(s.url("/dashboard/reset/shoal-r-0123456789012345678901234567890123456789"))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::NOT_FOUND);
    assert!(r
        .text()
        .await
        .unwrap()
        .contains("expired or was already used"));
}

#[tokio::test]
async fn a_session_made_on_one_replica_works_on_another() {
    let Some(db) = TempDb::for_test().await else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let store = shoal_test_support::process::Loc::Url(db.url().to_owned());
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
    drop(db);
}

/// A form's POST with the session `cookie`, from the site's own page (or, with `site`
/// `cross-site`, from another).
async fn form_post(
    s: &Server,
    cookie: &str,
    path: &str,
    site: &str,
    form: &[(&str, &str)],
) -> reqwest::Response {
    client()
        .post(s.url(path))
        .header("cookie", cookie)
        .header("sec-fetch-site", site)
        .form(form)
        .send()
        .await
        .unwrap()
}

/// What the API tab shows of key `id`: its limit cell's text, what is left and the reset
/// line (`None` without a limit).
#[derive(Debug, PartialEq)]
struct LimitCells {
    limit: String,
    remaining: Option<i64>,
    resets: Option<String>,
}

fn limit_cells(html: &str, id: i64) -> LimitCells {
    let (_, row) = html
        .split_once(&format!("id=\"key-{id}\""))
        .unwrap_or_else(|| panic!("no row for key {id}: {html}"));
    let row = row.split("</tr>").next().unwrap();
    let span = |class: &str| {
        let (_, rest) = row.split_once(&format!("<span class=\"{class}\">"))?;
        Some(rest.split('<').next().unwrap().to_string())
    };
    LimitCells {
        limit: span("limit-value").expect("a limit cell"),
        remaining: span("remaining").map(|r| r.parse().unwrap()),
        resets: span("resets muted small"),
    }
}

async fn key_cells(s: &Server, cookie: &str, id: i64) -> LimitCells {
    let r = session_get(s, cookie, "/dashboard/keys").await;
    assert_eq!(r.status(), StatusCode::OK);
    limit_cells(&r.text().await.unwrap(), id)
}

/// Waits (bounded) until key `id` shows `left` credits left: a request's settle is written
/// just after its answer.
async fn expect_left(s: &Server, cookie: &str, id: i64, left: i64) {
    wait_until(
        "the key's limit to show its settle",
        std::time::Duration::from_secs(10),
        async || key_cells(s, cookie, id).await.remaining == Some(left),
    )
    .await;
}

/// A request with `key` that the worker answers with 4,000 completion tokens; its cost.
async fn key_request(s: &Server, key: &str) -> i64 {
    let body = json!({"model": "service-pro", "messages": [{"role": "user", "content": "hi"}],
                      "max_tokens": 4_000});
    let r = client()
        .post(s.url("/api/v1/chat/completions"))
        .bearer_auth(key)
        .json(&body)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::OK);
    let answer: Value = r.json().await.unwrap();
    answer["usage"]["cost"].as_i64().expect("usage.cost")
}

/// The API tab: a limit of 20 a day set on a key through its form (a redirect, so a reload
/// sends nothing again), seen on the page, and what is left dropping by what each of the key's
/// requests was charged; a bad value or a cross-site form changes nothing; the limit removed;
/// a key created with a limit; the keys API answering the session.
#[tokio::test]
async fn the_api_tab_sets_a_keys_limit_and_shows_what_is_left() {
    let s = Server::start(None);
    let cookie = sign_up(&s, "limits@example.com").await;
    admin(
        &s.data_dir,
        &["credits", "grant", "--account", "1", "--credits", "1000"],
    );
    // The fresh store's first key.
    let key = admin(&s.data_dir, &["key", "create", "--account", "1"]);
    let worker = answer_with_usage(welcomed_worker(&s, &s.store, 4).await, 4_000);
    let no_limit = LimitCells {
        limit: "none".into(),
        remaining: None,
        resets: None,
    };
    assert_eq!(key_cells(&s, &cookie, 1).await, no_limit);

    let daily = [("limit", "20"), ("limit_reset", "daily")];
    let r = form_post(
        &s,
        &cookie,
        "/dashboard/keys/1/limit",
        "same-origin",
        &daily,
    )
    .await;
    assert_eq!(r.status(), StatusCode::SEE_OTHER);
    assert_eq!(r.headers()["location"], "/dashboard/keys");
    let cells = key_cells(&s, &cookie, 1).await;
    assert_eq!(
        (cells.limit.as_str(), cells.remaining),
        ("20 daily", Some(20))
    );
    let resets = cells.resets.expect("a reset time");
    assert!(
        resets.starts_with("resets ") && resets.ends_with(" 00:00 UTC"),
        "{resets}"
    );

    let first = key_request(&s, &key).await;
    assert!(first > 1, "the worker's usage costs more than the minimum");
    expect_left(&s, &cookie, 1, 20 - first).await;
    let second = key_request(&s, &key).await;
    expect_left(&s, &cookie, 1, 20 - first - second).await;

    // The keys API, with the session, says the same.
    let r = session_get(&s, &cookie, "/dashboard/api/keys").await;
    assert_eq!(r.status(), StatusCode::OK);
    let list: Value = r.json().await.unwrap();
    let k = &list["data"][0];
    assert_eq!(
        (k["limit"].as_i64(), k["limit_reset"].as_str()),
        (Some(20), Some("daily"))
    );
    assert_eq!(k["limit_remaining"], 20 - first - second);
    assert_eq!(k["usage"], first + second);

    refused_limit_forms(&s, &cookie).await;
    assert_eq!(
        key_cells(&s, &cookie, 1).await.remaining,
        Some(20 - first - second)
    );

    // Removed: no limit, nothing left to show.
    let r = form_post(
        &s,
        &cookie,
        "/dashboard/keys/1/limit",
        "same-origin",
        &[("limit", "")],
    )
    .await;
    assert_eq!(r.status(), StatusCode::SEE_OTHER);
    assert_eq!(key_cells(&s, &cookie, 1).await, no_limit);

    // A key created with a limit, with the form's one-time token as the page wrote it.
    let page = session_get(&s, &cookie, "/dashboard/keys").await;
    let page = page.text().await.unwrap();
    let once = page.split("name=\"once\" value=\"").nth(1).unwrap();
    let once = once.split('"').next().unwrap().to_owned();
    let new = [
        ("name", "capped"),
        ("limit", "5"),
        ("limit_reset", "weekly"),
        ("once", once.as_str()),
    ];
    let r = form_post(&s, &cookie, "/dashboard/keys", "same-origin", &new).await;
    assert_eq!(r.status(), StatusCode::OK);
    let html = r.text().await.unwrap();
    // A reload re-posts the form: back to the tab, no second key.
    let again = form_post(&s, &cookie, "/dashboard/keys", "same-origin", &new).await;
    assert_eq!(again.status(), StatusCode::SEE_OTHER);
    assert_eq!(again.headers()["location"], "/dashboard/keys");
    let tab = session_get(&s, &cookie, "/dashboard/keys").await;
    assert_eq!(
        tab.text()
            .await
            .unwrap()
            .matches("<td class=\"name\">capped<")
            .count(),
        1
    );
    assert!(
        html.contains("id=\"new-key-value\""),
        "the new key is shown"
    );
    let cells = limit_cells(&html, 2);
    assert_eq!(
        (cells.limit.as_str(), cells.remaining),
        ("5 weekly", Some(5))
    );
    // The keys API changes it for the session too (from the site's own pages only).
    let patch = |site: &str| {
        client()
            .patch(s.url("/dashboard/api/keys/2"))
            .header("cookie", &cookie)
            .header("sec-fetch-site", site)
            .json(&json!({"limit": 7}))
            .send()
    };
    assert_eq!(
        patch("cross-site").await.unwrap().status(),
        StatusCode::FORBIDDEN
    );
    let r = patch("same-origin").await.unwrap();
    assert_eq!(r.status(), StatusCode::OK);
    let k: Value = r.json().await.unwrap();
    assert_eq!(
        (
            k["data"]["limit"].as_i64(),
            k["data"]["limit_reset"].as_str()
        ),
        (Some(7), Some("weekly"))
    );
    assert_eq!(key_cells(&s, &cookie, 2).await.limit, "7 weekly");
    assert_eq!(admin(&s.data_dir, &["ledger", "verify"]), "ok");
    worker.abort();
}

/// Forms that change nothing: a limit that is no whole number (the page says why), a form from
/// another site, a key of no such id.
async fn refused_limit_forms(s: &Server, cookie: &str) {
    let bad = [("limit", "-3"), ("limit_reset", "daily")];
    let r = form_post(s, cookie, "/dashboard/keys/1/limit", "same-origin", &bad).await;
    assert_eq!(r.status(), StatusCode::BAD_REQUEST);
    assert!(r.text().await.unwrap().contains("whole number of credits"));
    let hourly = [("limit", "3"), ("limit_reset", "hourly")];
    let r = form_post(s, cookie, "/dashboard/keys/1/limit", "same-origin", &hourly).await;
    assert_eq!(r.status(), StatusCode::BAD_REQUEST);
    let small = [("limit", "1"), ("limit_reset", "daily")];
    let r = form_post(s, cookie, "/dashboard/keys/1/limit", "cross-site", &small).await;
    assert_eq!(r.status(), StatusCode::FORBIDDEN);
    let r = form_post(s, cookie, "/dashboard/keys/99/limit", "same-origin", &small).await;
    assert_eq!(r.status(), StatusCode::BAD_REQUEST);
    let r = client()
        .post(s.url("/dashboard/keys/1/limit"))
        .header("sec-fetch-site", "same-origin")
        .form(&small)
        .send()
        .await
        .unwrap();
    assert_eq!(
        r.status(),
        StatusCode::SEE_OTHER,
        "no session: to the login page"
    );
    assert_eq!(r.headers()["location"], "/dashboard/login");
}
