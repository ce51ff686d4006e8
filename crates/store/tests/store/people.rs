//! Passwords, login sessions and usage, as the dashboard uses them.

use shoal_store::{StoreError, UsageRow};

use crate::both_backends;
use crate::fixtures::{charge, req, DAY, T0};
use crate::harness::TestDb;

both_backends!(sessions_expire_and_end, usage_by_day_and_model);

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
    let rows = store.usage(a, T0, 30).await.unwrap();
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
    assert_eq!(store.usage(a, T0, 1).await.unwrap(), vec![row(day, 2, 10)]);
    store.close().await;
}
