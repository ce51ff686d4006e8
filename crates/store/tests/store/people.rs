//! Passwords, login sessions and usage, as the dashboard uses them.

use shoal_store::{KeyFilter, StoreError, UsageRow};

use crate::both_backends;
use crate::fixtures::{assert_clean, charge, req, DAY, T0};
use crate::harness::{Kind, TestDb};

both_backends!(
    sessions_expire_and_end,
    usage_by_day_and_model,
    usage_by_key_and_last_use,
    reset_tokens_work_once,
    emails_are_normalised,
    stored_emails_are_normalised_once_and_twins_left
);

async fn sessions_expire_and_end(db: TestDb) {
    let store = db.open().await;
    let a = store
        .create_account_with_password("Ann@example.com", "$argon2id$v=19$fake", T0)
        .await
        .unwrap();
    let dup = store
        .create_account_with_password("ann@EXAMPLE.com", "$argon2id$v=19$x", T0)
        .await;
    assert!(matches!(dup, Err(StoreError::Conflict(_))), "{dup:?}");
    let login = store.login_of(" ANN@example.com ").await.unwrap().unwrap();
    assert_eq!(login.account_id, a);
    assert_eq!(login.password_hash.as_deref(), Some("$argon2id$v=19$fake"));
    assert_eq!(store.login_of("nobody@example.com").await.unwrap(), None);

    let s1 = store.create_session(a, T0, T0 + 1_000).await.unwrap();
    let s2 = store.create_session(a, T0, T0 + DAY).await.unwrap();
    assert_ne!(s1, s2);
    assert_eq!(store.session_account(&s1, T0).await.unwrap(), Some(a));
    // Expired at its expiry; a token that is not one is never looked up.
    assert_eq!(store.session_account(&s1, T0 + 1_000).await.unwrap(), None);
    assert_eq!(store.session_account("sk-shoal-x", T0).await.unwrap(), None);
    store.end_session(&s2).await.unwrap();
    assert_eq!(store.session_account(&s2, T0).await.unwrap(), None);
    // Log out everywhere, and a new password, end every session.
    let s3 = store.create_session(a, T0, T0 + DAY).await.unwrap();
    let s4 = store.create_session(a, T0, T0 + DAY).await.unwrap();
    store.end_all_sessions(a).await.unwrap();
    assert_eq!(store.session_account(&s3, T0).await.unwrap(), None);
    let s5 = store.create_session(a, T0, T0 + DAY).await.unwrap();
    store.set_password(a, "$argon2id$v=19$new").await.unwrap();
    assert_eq!(store.session_account(&s5, T0).await.unwrap(), None);
    assert_eq!(store.session_account(&s4, T0).await.unwrap(), None);
    let short = store.create_session(a, T0, T0 + 10).await.unwrap();
    let long = store.create_session(a, T0, T0 + DAY).await.unwrap();
    store.prune_sessions(T0 + 10).await.unwrap();
    assert_eq!(
        store.session_account(&short, T0).await.unwrap(),
        None,
        "pruned"
    );
    assert_eq!(store.session_account(&long, T0).await.unwrap(), Some(a));
    assert!(matches!(
        store.create_session(a + 100, T0, T0 + DAY).await,
        Err(StoreError::NotFound(_))
    ));
    store.close().await;
}

async fn usage_by_day_and_model(db: TestDb) {
    let store = db.open().await;
    let a = store.create_account("u@example.com", T0).await.unwrap();
    let other = store.create_account("o@example.com", T0).await.unwrap();
    store.grant_credits(a, 1_000, T0).await.unwrap();
    store.grant_credits(other, 1_000, T0).await.unwrap();
    store.set_plan(a, 3, T0).await.unwrap();
    let yesterday = T0 - DAY;
    for (id, acc, at, credits) in [
        ("r1", a, yesterday, 5),
        ("r2", a, T0, 4),
        ("r3", a, T0, 6),
        ("r4", other, T0, 9),
    ] {
        store
            .hold(&req(id, acc, 10, at + 60_000), at)
            .await
            .unwrap();
        store.settle(id, Some(&charge(credits)), at).await.unwrap();
    }
    // Voided: no usage.
    store
        .hold(&req("r5", a, 10, T0 + 60_000), T0)
        .await
        .unwrap();
    store.void("r5", T0).await.unwrap();
    let rows = store.usage(a, T0, 30, KeyFilter::All).await.unwrap();
    let day = T0.div_euclid(DAY);
    let row = |day, requests, credits| UsageRow {
        day,
        model: "large-27b-uncensored".into(),
        requests,
        input_tokens: 1_200 * requests,
        output_tokens: 600 * requests,
        credits,
    };
    // The plan's 3 credits a day count as spent as well as the balance.
    assert_eq!(rows, vec![row(day - 1, 1, 5), row(day, 2, 10)]);
    assert_eq!(
        store.usage(a, T0, 1, KeyFilter::All).await.unwrap(),
        vec![row(day, 2, 10)]
    );
    assert_clean(&store).await;
    store.close().await;
}

async fn usage_by_key_and_last_use(db: TestDb) {
    let store = db.open().await;
    let a = store.create_account("k@example.com", T0).await.unwrap();
    store.grant_credits(a, 1_000, T0).await.unwrap();
    let k1 = store
        .create_api_key(a, Some("one"), None, T0)
        .await
        .unwrap()
        .id;
    let k2 = store
        .create_api_key(a, Some("two"), None, T0)
        .await
        .unwrap()
        .id;
    // (request, key, at, credits): key 1 twice (the later one first), the session once, key
    // 2 only voided.
    for (id, key, at, credits) in [
        ("r1", Some(k1), T0 + 5_000, 3),
        ("r2", Some(k1), T0 + 1_000, 4),
        ("r3", None, T0 + 2_000, 5),
    ] {
        let hold = shoal_store::HoldRequest {
            key_id: key,
            ..req(id, a, 10, at + 60_000)
        };
        store.hold(&hold, at).await.unwrap();
        store.settle(id, Some(&charge(credits)), at).await.unwrap();
    }
    let voided = shoal_store::HoldRequest {
        key_id: Some(k2),
        ..req("r4", a, 10, T0 + 60_000)
    };
    store.hold(&voided, T0).await.unwrap();
    store.void("r4", T0).await.unwrap();

    let day = T0.div_euclid(DAY);
    let row = |requests, credits| UsageRow {
        day,
        model: "large-27b-uncensored".into(),
        requests,
        input_tokens: 1_200 * requests,
        output_tokens: 600 * requests,
        credits,
    };
    let usage = |f| store.usage(a, T0, 30, f);
    assert_eq!(usage(KeyFilter::All).await.unwrap(), vec![row(3, 12)]);
    assert_eq!(usage(KeyFilter::Key(k1)).await.unwrap(), vec![row(2, 7)]);
    assert_eq!(usage(KeyFilter::Dashboard).await.unwrap(), vec![row(1, 5)]);
    assert_eq!(usage(KeyFilter::Key(k2)).await.unwrap(), vec![]);
    let last = store.keys_last_used(a).await.unwrap();
    assert_eq!(
        last.get(&k1),
        Some(&(T0 + 5_000)),
        "the latest settle, not the last written"
    );
    assert_eq!(last.get(&k2), None, "a voided request is not a use");
    assert_eq!(last.len(), 1);
    assert_clean(&store).await;
    // A rollup that drifts from the journal is reported.
    db.exec_raw(&format!(
        "UPDATE usage_daily SET credits = credits + 1 WHERE key_id = {k1}"
    ))
    .await
    .unwrap();
    let report = store.verify_ledger().await.unwrap();
    assert!(
        report
            .discrepancies
            .iter()
            .any(|d| d.account_id == a && d.what.contains(&format!("usage of key {k1}"))),
        "{report:?}"
    );
    store.close().await;
}

async fn reset_tokens_work_once(db: TestDb) {
    let store = db.open().await;
    let a = store
        .create_account_with_password("r@example.com", "$argon2id$v=19$old", T0)
        .await
        .unwrap();
    let session = store.create_session(a, T0, T0 + DAY).await.unwrap();
    let t1 = store
        .create_password_reset(a, T0, T0 + 3_600_000)
        .await
        .unwrap();
    let t2 = store
        .create_password_reset(a, T0, T0 + 3_600_000)
        .await
        .unwrap();
    let short = store.create_password_reset(a, T0, T0 + 10).await.unwrap();
    assert!(t1.starts_with("shoal-r-") && t1 != t2);
    assert_eq!(
        store.password_reset_account(&t1, T0).await.unwrap(),
        Some(a)
    );
    assert_eq!(
        store.password_reset_account(&short, T0 + 10).await.unwrap(),
        None
    );
    assert_eq!(
        store
            .reset_password(&short, "$argon2id$v=19$x", T0 + 10)
            .await
            .unwrap(),
        None,
        "expired"
    );
    assert_eq!(
        store
            .reset_password("shoal-s-not-a-reset", "$argon2id$v=19$x", T0)
            .await
            .unwrap(),
        None
    );
    assert_eq!(
        store
            .reset_password(&t1, "$argon2id$v=19$new", T0)
            .await
            .unwrap(),
        Some(a)
    );
    let login = store.login_of("r@example.com").await.unwrap().unwrap();
    assert_eq!(login.password_hash.as_deref(), Some("$argon2id$v=19$new"));
    assert_eq!(
        store.session_account(&session, T0).await.unwrap(),
        None,
        "logged out"
    );
    // Used once; the account's other link ended with the new password.
    for t in [&t1, &t2] {
        assert_eq!(store.password_reset_account(t, T0).await.unwrap(), None);
        assert_eq!(
            store
                .reset_password(t, "$argon2id$v=19$again", T0)
                .await
                .unwrap(),
            None
        );
    }
    let login = store.login_of("r@example.com").await.unwrap().unwrap();
    assert_eq!(login.password_hash.as_deref(), Some("$argon2id$v=19$new"));
    store.close().await;
}

/// Sign-up and login compare normalised emails: `ÉMILEx` logs in as itself, and `émilex` is
/// the same address.
async fn emails_are_normalised(db: TestDb) {
    let store = db.open().await;
    let a = store
        .create_account("ÉMILEx@Example.com", T0)
        .await
        .unwrap();
    assert_eq!(store.account_email(a).await.unwrap(), "émilex@example.com");
    for typed in [
        "ÉMILEx@example.com",
        "émilex@EXAMPLE.com",
        "E\u{301}MILEX@example.com",
    ] {
        let found = store.login_of(typed).await.unwrap().map(|l| l.account_id);
        assert_eq!(found, Some(a), "{typed:?}");
    }
    let twin = store.create_account("émilex@example.com", T0).await;
    assert!(matches!(twin, Err(StoreError::Conflict(_))), "{twin:?}");
}

/// Emails stored before the rule are normalised at the next open, once; addresses that would
/// become one are left as they were.
async fn stored_emails_are_normalised_once_and_twins_left(db: TestDb) {
    let store = db.open().await;
    drop(store);
    db.exec_raw(
        "INSERT INTO accounts (id, email, created_at) VALUES
            (101, 'Zoë@Example.com', 0), (103, 'émilex@example.com', 0),
            (104, 'ＢＯＢ@example.com', 0), (105, 'bob@example.com', 0)",
    )
    .await
    .unwrap();
    // PostgreSQL's `lower()` (in a UTF-8 locale) folds É, so its unique index refused this
    // twin; SQLite's folds ASCII only.
    let sqlite = matches!(db.kind, Kind::Sqlite);
    if sqlite {
        let twin =
            "INSERT INTO accounts (id, email, created_at) VALUES (102, 'ÉMILEx@example.com', 0)";
        db.exec_raw(twin).await.unwrap();
    }
    db.exec_raw("INSERT INTO store_fixups (name) VALUES ('normalize_emails')")
        .await
        .unwrap();
    let store = db.open().await;
    let email = |id| store.account_email(id);
    assert_eq!(email(101).await.unwrap(), "zoë@example.com");
    if sqlite {
        assert_eq!(
            email(102).await.unwrap(),
            "ÉMILEx@example.com",
            "a twin: left"
        );
    }
    assert_eq!(email(103).await.unwrap(), "émilex@example.com");
    assert_eq!(
        email(104).await.unwrap(),
        "ＢＯＢ@example.com",
        "a twin: left"
    );
    let found = |typed| store.login_of(typed);
    let zoe = found("ZOË@example.com").await.unwrap();
    assert_eq!(zoe.map(|l| l.account_id), Some(101));
    let emile = found("ÉMILEx@example.com").await.unwrap();
    assert_eq!(
        emile.map(|l| l.account_id),
        Some(103),
        "the normalised twin"
    );
    assert_eq!(
        db.exec_raw("DELETE FROM store_fixups").await.unwrap(),
        0,
        "done once"
    );
}
