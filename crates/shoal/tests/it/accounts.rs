//! `shoal admin account disable / enable / delete` against a running gateway: the account's
//! key stops within the auth cache time, comes back when enabled, and a deleted account
//! leaves a ledger that still verifies.

use std::time::{Duration, Instant};

use reqwest::StatusCode;
use shoal_test_support::process::{account_with_key, admin, admin_lines, error_of, Server};

/// Polls `GET /api/v1/balance` with `key` until it answers `want`, within 5 s; the last
/// response.
pub(crate) async fn balance_turns(s: &Server, key: &str, want: StatusCode) -> reqwest::Response {
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        let r = reqwest::Client::new()
            .get(s.url("/api/v1/balance"))
            .bearer_auth(key)
            .send()
            .await
            .unwrap();
        if r.status() == want {
            return r;
        }
        assert!(
            Instant::now() < deadline,
            "still {} after 5 s, wanted {want}",
            r.status()
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[tokio::test]
async fn disabled_and_deleted_accounts_lose_their_keys() {
    let s = Server::start(Some("auth_cache_ms = 300\n"));
    let (account, key) = account_with_key(&s.data_dir, "off@example.com", 1_000, None);
    let (_, other) = account_with_key(&s.data_dir, "on@example.com", 1_000, None);
    balance_turns(&s, &key, StatusCode::OK).await;

    assert!(admin_lines(&s.data_dir, &["account", "disable", &account]).is_empty());
    let r = balance_turns(&s, &key, StatusCode::UNAUTHORIZED).await;
    let (code, _, kind) = error_of(r).await;
    assert_eq!(
        (code.as_str(), kind.as_str()),
        ("invalid_api_key", "authentication_error")
    );
    balance_turns(&s, &other, StatusCode::OK).await;

    admin_lines(
        &s.data_dir,
        &["account", "enable", "--email", "OFF@example.com"],
    );
    balance_turns(&s, &key, StatusCode::OK).await;

    admin_lines(
        &s.data_dir,
        &["account", "delete", "--email", "off@example.com"],
    );
    balance_turns(&s, &key, StatusCode::UNAUTHORIZED).await;
    let out = std::process::Command::new(shoal_test_support::process::shoal_bin())
        .args(["admin", "--data-dir"])
        .arg(&s.data_dir)
        .args(["account", "find", "--email", "off@example.com"])
        .output()
        .unwrap();
    assert!(!out.status.success(), "a deleted account's email is gone");
    admin_lines(&s.data_dir, &["ledger", "verify"]);
    // The address may sign up again, as a new account.
    let again = admin(
        &s.data_dir,
        &["account", "create", "--email", "off@example.com"],
    );
    assert_ne!(again, account);
}
