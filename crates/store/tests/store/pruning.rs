//! `prune_holds`: ended holds go, active ones stay, and the ledger still verifies.

use shoal_store::{AccountId, HoldOutcome, SettleOutcome, Store};

use crate::both_backends;
use crate::fixtures::{assert_clean, charge, req, DAY, T0};
use crate::harness::TestDb;

both_backends!(
    prune_ended_holds,
    prune_in_batches,
    verify_compares_remaining_holds
);

async fn held(store: &Store, id: &str, account: AccountId, credits: i64, expires_at: i64) {
    assert_eq!(
        store
            .hold(&req(id, account, credits, expires_at), T0)
            .await
            .unwrap(),
        HoldOutcome::Held,
        "{id}"
    );
}

async fn prune_ended_holds(db: TestDb) {
    let store = db.open().await;
    let a = store.create_account("prune@example.com", T0).await.unwrap();
    store.grant_credits(a, 1_000, T0).await.unwrap();
    store.set_plan(a, 10, T0).await.unwrap();
    held(&store, "settled", a, 50, T0 + 60_000).await;
    held(&store, "voided", a, 40, T0 + 60_000).await;
    held(&store, "expired", a, 30, T0 + 5_000).await;
    held(&store, "late", a, 20, T0 + 60_000).await;
    held(&store, "active", a, 25, T0 + 3_600_000).await;
    // Ended at T0 + 1, + 2 and + 5_000 (the reaper); "late" ends after the cut-off.
    store
        .settle("settled", Some(&charge(15)), T0 + 1)
        .await
        .unwrap();
    store.void("voided", T0 + 2).await.unwrap();
    assert_eq!(store.expire_holds(T0 + 5_000).await.unwrap(), 1);
    store
        .settle("late", Some(&charge(4)), T0 + 9_000)
        .await
        .unwrap();
    let before = store.balance(a, T0 + 9_000).await.unwrap();
    assert_eq!(before.credits_held, 25);

    // Strictly before the cut-off: "late" (ended at T0 + 9_000) stays.
    assert_eq!(store.prune_holds(T0 + 9_000).await.unwrap(), 3);
    assert_eq!(
        store.prune_holds(T0 + 9_000).await.unwrap(),
        0,
        "idempotent"
    );
    assert_eq!(store.balance(a, T0 + 9_000).await.unwrap(), before);
    assert_clean(&store).await;

    // Pruned holds are forgotten; the others behave as before.
    for id in ["settled", "voided", "expired"] {
        assert_eq!(
            store
                .settle(id, Some(&charge(1)), T0 + 10_000)
                .await
                .unwrap(),
            SettleOutcome::UnknownHold,
            "{id}"
        );
    }
    assert_eq!(
        store.void("late", T0 + 10_000).await.unwrap(),
        SettleOutcome::AlreadyEnded
    );

    // However late the cut-off, an active hold is never pruned.
    assert_eq!(store.prune_holds(T0 + 100 * DAY).await.unwrap(), 1);
    assert_eq!(
        store.balance(a, T0 + 10_000).await.unwrap().credits_held,
        25
    );
    assert_eq!(
        store
            .settle("active", Some(&charge(5)), T0 + 10_000)
            .await
            .unwrap(),
        SettleOutcome::Settled {
            charged: 5,
            from_free: 0,
            from_plan: 0,
            from_balance: 5,
            released: 20,
        },
        "today's plan credits went to the first settle"
    );
    let b = store.balance(a, T0 + 10_000).await.unwrap();
    assert_eq!((b.credits_held, b.total_spent), (0, before.total_spent + 5));
    assert_clean(&store).await;

    // A restart changes nothing.
    drop(store);
    let store = db.open().await;
    assert_eq!(store.prune_holds(T0 + 100 * DAY).await.unwrap(), 1);
    assert_eq!(store.balance(a, T0 + 10_000).await.unwrap(), b);
    assert_clean(&store).await;
}

/// More ended holds than one pruning batch.
async fn prune_in_batches(db: TestDb) {
    let store = db.open().await;
    let a = store.create_account("bulk@example.com", T0).await.unwrap();
    store.grant_credits(a, 5_000, T0).await.unwrap();
    for i in 0..2_100 {
        held(&store, &format!("bulk-{i}"), a, 1, T0 + 1_000 + i % 3).await;
    }
    held(&store, "keep", a, 7, T0 + DAY).await;
    assert_eq!(store.expire_holds(T0 + 2_000).await.unwrap(), 2_100);
    assert_eq!(store.prune_holds(T0 + 2_001).await.unwrap(), 2_100);
    assert_eq!(store.prune_holds(T0 + 2_001).await.unwrap(), 0);
    let b = store.balance(a, T0 + 2_001).await.unwrap();
    assert_eq!((b.credits, b.credits_held), (5_000, 7));
    assert_clean(&store).await;
}

/// After pruning, `verify_ledger` still compares what the remaining holds charged with the
/// journal, request by request.
async fn verify_compares_remaining_holds(db: TestDb) {
    let store = db.open().await;
    let a = store.create_account("v@example.com", T0).await.unwrap();
    store.grant_credits(a, 100, T0).await.unwrap();
    held(&store, "old", a, 10, T0 + 60_000).await;
    held(&store, "new", a, 10, T0 + 60_000).await;
    store.settle("old", Some(&charge(6)), T0 + 1).await.unwrap();
    store
        .settle("new", Some(&charge(3)), T0 + 5_000)
        .await
        .unwrap();
    assert_eq!(store.prune_holds(T0 + 2).await.unwrap(), 1);
    assert_clean(&store).await;

    // A remaining hold whose recorded charge disagrees with the journal is reported.
    db.exec_raw("UPDATE holds SET charged_balance = 4 WHERE request_id = 'new'")
        .await
        .unwrap();
    let report = store.verify_ledger().await.unwrap();
    assert!(
        report
            .discrepancies
            .iter()
            .any(|d| d.account_id == a && d.what.contains("holds table charged")),
        "{report:?}"
    );
    db.exec_raw("UPDATE holds SET charged_balance = 3 WHERE request_id = 'new'")
        .await
        .unwrap();
    assert_clean(&store).await;
}
