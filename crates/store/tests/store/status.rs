//! Accounts an operator disables, enables and deletes.

use shoal_store::{AccountState, StoreError};

use crate::both_backends;
use crate::fixtures::{assert_clean, charge, req, DAY, T0};
use crate::harness::TestDb;

both_backends!(
    disabled_accounts_open_nothing,
    deleted_accounts_keep_the_money_trail
);

async fn disabled_accounts_open_nothing(db: TestDb) {
    let store = db.open().await;
    let a = store
        .create_account_with_password("d@example.com", "$argon2id$v=19$fake", T0)
        .await
        .unwrap();
    let other = store.create_account("o@example.com", T0).await.unwrap();
    let key = store.create_api_key(a, Some("k"), None, T0).await.unwrap();
    let theirs = store.create_api_key(other, None, None, T0).await.unwrap();
    let session = store.create_session(a, T0, T0 + DAY).await.unwrap();
    assert_eq!(store.account_state(a).await.unwrap(), AccountState::Active);

    store.disable_account(a, T0 + 1).await.unwrap();
    store.disable_account(a, T0 + 2).await.unwrap();
    assert_eq!(
        store.account_state(a).await.unwrap(),
        AccountState::Disabled(T0 + 1)
    );
    assert_eq!(store.authenticate_api_key(&key.key).await.unwrap(), None);
    assert_eq!(store.session_account(&session, T0).await.unwrap(), None);
    assert!(
        store
            .login_of("d@example.com")
            .await
            .unwrap()
            .unwrap()
            .disabled
    );
    // Nobody else is touched.
    assert!(store
        .authenticate_api_key(&theirs.key)
        .await
        .unwrap()
        .is_some());

    store.enable_account(a).await.unwrap();
    assert_eq!(store.account_state(a).await.unwrap(), AccountState::Active);
    assert_eq!(
        store
            .authenticate_api_key(&key.key)
            .await
            .unwrap()
            .map(|p| p.key_id),
        Some(key.id)
    );
    assert_eq!(store.session_account(&session, T0).await.unwrap(), Some(a));
    assert!(
        !store
            .login_of("d@example.com")
            .await
            .unwrap()
            .unwrap()
            .disabled
    );
    assert!(matches!(
        store.disable_account(a + 100, T0).await,
        Err(StoreError::NotFound(_))
    ));
    store.close().await;
}

async fn deleted_accounts_keep_the_money_trail(db: TestDb) {
    let store = db.open().await;
    let a = store
        .create_account_with_password("gone@example.com", "$argon2id$v=19$fake", T0)
        .await
        .unwrap();
    store.grant_credits(a, 1_000, T0).await.unwrap();
    let key = store
        .create_api_key(a, Some("laptop"), None, T0)
        .await
        .unwrap();
    let session = store.create_session(a, T0, T0 + DAY).await.unwrap();
    store.create_password_reset(a, T0, T0 + DAY).await.unwrap();
    store
        .hold(&req("r1", a, 10, T0 + 60_000), T0)
        .await
        .unwrap();
    store.settle("r1", Some(&charge(7)), T0).await.unwrap();
    // A hold still running when the account goes: it ends as any other.
    store
        .hold(&req("r2", a, 10, T0 + 60_000), T0)
        .await
        .unwrap();

    store.delete_account(a, T0 + 5).await.unwrap();
    store.delete_account(a, T0 + 9).await.unwrap();
    assert_eq!(
        store.account_state(a).await.unwrap(),
        AccountState::Deleted(T0 + 5)
    );
    assert_eq!(
        store.account_email(a).await.unwrap(),
        format!("deleted:{a}")
    );
    assert_eq!(store.login_of("gone@example.com").await.unwrap(), None);
    assert_eq!(store.authenticate_api_key(&key.key).await.unwrap(), None);
    assert_eq!(store.session_account(&session, T0).await.unwrap(), None);
    let keys = store.list_api_keys(a).await.unwrap();
    assert_eq!(keys.len(), 1);
    assert_eq!(keys[0].name, None);
    assert_eq!(keys[0].revoked_at, Some(T0 + 5));
    assert!(matches!(
        store.enable_account(a).await,
        Err(StoreError::Invalid(_))
    ));
    // The address is free again; the money stays where it was.
    store
        .create_account("gone@example.com", T0 + 10)
        .await
        .unwrap();
    store.settle("r2", Some(&charge(2)), T0 + 10).await.unwrap();
    let balance = store.balance(a, T0 + 10).await.unwrap();
    assert_eq!(balance.credits, 1_000 - 9);
    assert_eq!(balance.total_spent, 9);
    assert_clean(&store).await;
    store.close().await;
}
