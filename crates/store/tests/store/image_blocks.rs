//! Blocked image prompts counted per key and account, and the suspension past the rule.

use shoal_store::{BlockRule, StoreError};

use crate::both_backends;
use crate::fixtures::T0;
use crate::harness::TestDb;

both_backends!(
    blocks_suspend_a_key_past_the_limit_within_the_window,
    an_accounts_blocks_over_its_keys_suspend_a_new_key
);

const RULE: BlockRule = BlockRule {
    limit: 3,
    window_ms: 60_000,
};

async fn blocks_suspend_a_key_past_the_limit_within_the_window(db: TestDb) {
    let store = db.open().await;
    let a = store.create_account("a@example.com", T0).await.unwrap();
    let key = Some(7);
    let first = store.record_image_block(a, key, RULE, T0).await.unwrap();
    assert_eq!((first.key_blocks, first.suspended), (1, false));
    // A window that ended starts the count again.
    let later = T0 + RULE.window_ms;
    let again = store.record_image_block(a, key, RULE, later).await.unwrap();
    assert_eq!((again.key_blocks, again.account_blocks), (1, 1));
    let second = store
        .record_image_block(a, key, RULE, later + 1)
        .await
        .unwrap();
    assert_eq!((second.key_blocks, second.suspended), (2, false));
    assert!(!store.image_suspended(a, key).await.unwrap());
    let third = store
        .record_image_block(a, key, RULE, later + 2)
        .await
        .unwrap();
    assert_eq!((third.key_blocks, third.suspended), (3, true));
    assert!(store.image_suspended(a, key).await.unwrap());
    assert!(
        !store.image_suspended(a, None).await.unwrap(),
        "the session is not the key"
    );
    // Suspended once: a later block does not suspend it again.
    let fourth = store
        .record_image_block(a, key, RULE, later + 3)
        .await
        .unwrap();
    assert!(!fourth.suspended);

    let rows = store.image_blocks(Some(a)).await.unwrap();
    assert_eq!(rows.len(), 1);
    assert_eq!((rows[0].key_id, rows[0].blocks), (Some(7), 4));
    assert_eq!(rows[0].suspended_at, Some(later + 2));
    store.clear_image_blocks(a, Some(key)).await.unwrap();
    assert!(!store.image_suspended(a, key).await.unwrap());
    assert!(store.image_blocks(None).await.unwrap().is_empty());

    // Limit 0 counts and never suspends; a block for no account is NotFound.
    let off = BlockRule { limit: 0, ..RULE };
    for i in 0..5 {
        assert!(
            !store
                .record_image_block(a, key, off, T0 + i)
                .await
                .unwrap()
                .suspended
        );
    }
    let missing = store.record_image_block(a + 100, key, RULE, T0).await;
    assert!(
        matches!(missing, Err(StoreError::NotFound(_))),
        "{missing:?}"
    );
}

async fn an_accounts_blocks_over_its_keys_suspend_a_new_key(db: TestDb) {
    let store = db.open().await;
    let a = store.create_account("a@example.com", T0).await.unwrap();
    let b = store.create_account("b@example.com", T0).await.unwrap();
    store
        .record_image_block(a, Some(1), RULE, T0)
        .await
        .unwrap();
    store
        .record_image_block(a, None, RULE, T0 + 1)
        .await
        .unwrap();
    store
        .record_image_block(b, Some(9), RULE, T0 + 1)
        .await
        .unwrap();
    let third = store
        .record_image_block(a, Some(2), RULE, T0 + 2)
        .await
        .unwrap();
    assert_eq!((third.key_blocks, third.account_blocks), (1, 3));
    assert!(
        third.suspended,
        "the account's third block suspends the key that made it"
    );
    assert!(store.image_suspended(a, Some(2)).await.unwrap());
    assert!(!store.image_suspended(a, Some(1)).await.unwrap());
    assert!(
        !store.image_suspended(b, Some(9)).await.unwrap(),
        "another account"
    );
    let all = store.image_blocks(None).await.unwrap();
    assert_eq!(all.len(), 4);
    assert_eq!(all[0].key_id, Some(2), "suspended first");
    store.clear_image_blocks(a, None).await.unwrap();
    assert_eq!(store.image_blocks(None).await.unwrap().len(), 1);
}
