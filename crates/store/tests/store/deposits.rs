//! Stablecoin deposits: credited once per (chain, tx, log), fractions carried, the minimum,
//! the scan cursor and the watcher's lease.

use shoal_store::deposits::{
    ChainHead, DepositOutcome, NewDeposit, PendingDeposit, REMAINDER_UNIT,
};
use shoal_store::Store;

use crate::both_backends;
use crate::harness::TestDb;

both_backends!(
    deposit_credits_once,
    fractions_carry_between_deposits,
    below_minimum_accumulates,
    too_large_is_recorded_not_credited,
    racing_watchers_credit_once,
    concurrent_deposits_carry_every_fraction,
    cursor_and_lease,
    pending_set_is_replaced_and_never_credited
);

const T0: i64 = 1_760_000_000_000;

fn usdc(account: i64, tx: u8, log_index: i64, amount: u128) -> NewDeposit {
    NewDeposit {
        chain_id: 31337,
        tx_hash: format!("0x{}", hex::encode([tx; 32])),
        log_index,
        block_number: 7,
        token: format!("0x{}", "a0".repeat(20)),
        account_id: account,
        amount,
        decimals: 6,
        minimum: 0,
        credits_per_usd: 500,
    }
}

async fn account(store: &Store, email: &str) -> i64 {
    store.create_account(email, T0).await.unwrap()
}

async fn assert_verified(store: &Store) {
    let report = store.verify_ledger().await.unwrap();
    assert!(report.discrepancies.is_empty(), "{report:?}");
}

async fn deposit_credits_once(db: TestDb) {
    let store = db.open().await;
    let a = account(&store, "a@example.com").await;
    let d = usdc(a, 1, 0, 1_000_000);
    let got = store.record_deposit(&d, T0).await.unwrap();
    assert_eq!(got, DepositOutcome::Credited { credits: 500 });
    for _ in 0..3 {
        let again = store.record_deposit(&d, T0 + 1).await.unwrap();
        assert_eq!(again, DepositOutcome::AlreadyRecorded);
    }
    // Same transaction, another log: a second deposit.
    let other = usdc(a, 1, 1, 2_000_000);
    assert_eq!(
        store.record_deposit(&other, T0).await.unwrap(),
        DepositOutcome::Credited { credits: 1000 }
    );
    let b = store.balance(a, T0).await.unwrap();
    assert_eq!((b.credits, b.total_deposited), (1500, 1500));
    let list = store.list_deposits(Some(a), None, 10).await.unwrap();
    assert_eq!(list.len(), 2);
    assert_eq!(list[1].amount, "1000000");
    assert_eq!((list[1].credits, list[1].state.as_str()), (500, "credited"));
    assert_eq!(list[1].credited_at, Some(T0));
    // Pages: the newest one, then those before it.
    let first = store.list_deposits(Some(a), None, 1).await.unwrap();
    assert_eq!(first[0].id, list[0].id);
    let next = (store.list_deposits(Some(a), Some(first[0].id), 10).await).unwrap();
    assert_eq!(next.iter().map(|d| d.id).collect::<Vec<_>>(), [list[1].id]);
    assert!(store
        .list_deposits(Some(a + 99), None, 10)
        .await
        .unwrap()
        .is_empty());
    assert_verified(&store).await;
}

async fn fractions_carry_between_deposits(db: TestDb) {
    let store = db.open().await;
    let a = account(&store, "a@example.com").await;
    // 0.0013 token: 0.65 credit, nothing credited, the fraction kept.
    let got = store
        .record_deposit(&usdc(a, 1, 0, 1_300), T0)
        .await
        .unwrap();
    assert_eq!(got, DepositOutcome::Credited { credits: 0 });
    assert_eq!(store.balance(a, T0).await.unwrap().credits, 0);
    assert_eq!(
        store.deposit_remainder(a).await.unwrap() as u128,
        65 * REMAINDER_UNIT / 100
    );
    // 0.0007 more: 0.35 + 0.65 = exactly one credit.
    let got = store.record_deposit(&usdc(a, 2, 0, 700), T0).await.unwrap();
    assert_eq!(got, DepositOutcome::Credited { credits: 1 });
    assert_eq!(store.deposit_remainder(a).await.unwrap(), 0);
    let b = store.balance(a, T0).await.unwrap();
    assert_eq!((b.credits, b.total_deposited), (1, 1));
    // Another account's fraction is its own.
    let other = account(&store, "b@example.com").await;
    store
        .record_deposit(&usdc(other, 3, 0, 1_999), T0)
        .await
        .unwrap();
    assert_eq!(store.balance(other, T0).await.unwrap().credits, 0);
    assert_eq!(store.deposit_remainder(a).await.unwrap(), 0);
    assert_verified(&store).await;
}

async fn below_minimum_accumulates(db: TestDb) {
    let store = db.open().await;
    let a = account(&store, "a@example.com").await;
    let min = |mut d: NewDeposit| {
        d.minimum = 1_000_000;
        d
    };
    let got = store
        .record_deposit(&min(usdc(a, 1, 0, 400_000)), T0)
        .await
        .unwrap();
    assert_eq!(got, DepositOutcome::BelowMinimum { pending: 400_000 });
    let got = store
        .record_deposit(&min(usdc(a, 2, 0, 500_000)), T0)
        .await
        .unwrap();
    assert_eq!(got, DepositOutcome::BelowMinimum { pending: 900_000 });
    assert_eq!(store.balance(a, T0).await.unwrap().credits, 0);
    // A different token's deposits do not count towards this one's minimum.
    let mut dai = min(usdc(a, 3, 0, 999_999));
    dai.token = format!("0x{}", "6b".repeat(20));
    let got = store.record_deposit(&dai, T0).await.unwrap();
    assert_eq!(got, DepositOutcome::BelowMinimum { pending: 999_999 });
    // 0.2 more reaches the minimum: 1.1 tokens credited together.
    let got = store
        .record_deposit(&min(usdc(a, 4, 0, 200_000)), T0 + 5)
        .await
        .unwrap();
    assert_eq!(got, DepositOutcome::Credited { credits: 550 });
    let list = store.list_deposits(Some(a), None, 10).await.unwrap();
    let states: Vec<(&str, i64)> = list.iter().map(|d| (d.state.as_str(), d.credits)).collect();
    assert_eq!(
        states,
        [
            ("credited", 550),
            ("below_minimum", 0),
            ("credited", 0),
            ("credited", 0)
        ]
    );
    assert!(list
        .iter()
        .filter(|d| d.state == "credited")
        .all(|d| d.credited_at == Some(T0 + 5)));
    assert_eq!(store.balance(a, T0).await.unwrap().total_deposited, 550);
    assert_verified(&store).await;
}

async fn too_large_is_recorded_not_credited(db: TestDb) {
    let store = db.open().await;
    let a = account(&store, "a@example.com").await;
    let got = store
        .record_deposit(&usdc(a, 1, 0, u128::MAX), T0)
        .await
        .unwrap();
    assert_eq!(got, DepositOutcome::TooLarge);
    assert_eq!(store.balance(a, T0).await.unwrap().credits, 0);
    let list = store.list_deposits(None, None, 10).await.unwrap();
    assert_eq!(list[0].state, "too_large");
    assert_eq!(list[0].amount, u128::MAX.to_string());
    // A normal deposit after it is credited as usual.
    let got = store
        .record_deposit(&usdc(a, 2, 0, 1_000_000), T0)
        .await
        .unwrap();
    assert_eq!(got, DepositOutcome::Credited { credits: 500 });
    let mut bad = usdc(a, 3, 0, 1);
    bad.tx_hash = "0xABC".into();
    assert!(store.record_deposit(&bad, T0).await.is_err());
    assert_verified(&store).await;
}

async fn racing_watchers_credit_once(db: TestDb) {
    let store = db.open().await;
    let a = account(&store, "a@example.com").await;
    // Two "watchers" (separate stores on the same database) record the same ten deposits.
    let other = db.open().await;
    let deposits: Vec<NewDeposit> = (0..10).map(|i| usdc(a, i, 0, 1_000_000)).collect();
    let run = |s: Store, ds: Vec<NewDeposit>| {
        tokio::spawn(async move {
            let mut credited = 0;
            for d in &ds {
                if let DepositOutcome::Credited { .. } = s.record_deposit(d, T0).await.unwrap() {
                    credited += 1;
                }
            }
            credited
        })
    };
    let mut reversed = deposits.clone();
    reversed.reverse();
    let (x, y) = (run(store.clone(), deposits), run(other.clone(), reversed));
    let (x, y) = (x.await.unwrap(), y.await.unwrap());
    assert_eq!(x + y, 10);
    assert_eq!(store.balance(a, T0).await.unwrap().credits, 5000);
    assert_verified(&store).await;
    other.close().await;
}

/// Many different transfers to one account recorded at once (several watchers, one chain):
/// each is decided on what it read and applied only if nothing changed meanwhile, so every
/// fraction is carried exactly once.
async fn concurrent_deposits_carry_every_fraction(db: TestDb) {
    let store = db.open().await;
    let a = account(&store, "many@example.com").await;
    // 0.001301 token = 0.6505 credit each; 40 of them = 26.02 credits.
    let records = (0..40u8).map(|tx| {
        let store = store.clone();
        async move { store.record_deposit(&usdc(a, tx, 0, 1_301), T0).await }
    });
    for out in futures::future::join_all(records).await {
        assert!(
            matches!(out, Ok(DepositOutcome::Credited { .. })),
            "{out:?}"
        );
    }
    assert_eq!(store.balance(a, T0).await.unwrap().credits, 26);
    assert_eq!(
        store.deposit_remainder(a).await.unwrap() as u128,
        REMAINDER_UNIT / 50
    );
    assert_verified(&store).await;
    store.close().await;
}

async fn cursor_and_lease(db: TestDb) {
    let store = db.open().await;
    let token = format!("0x{}", "a0".repeat(20));
    assert_eq!(store.deposit_cursor(1, &token).await.unwrap(), None);
    store.set_deposit_cursor(1, &token, 100, T0).await.unwrap();
    store.set_deposit_cursor(1, &token, 150, T0).await.unwrap();
    assert_eq!(store.deposit_cursor(1, &token).await.unwrap(), Some(150));
    assert_eq!(store.deposit_cursor(2, &token).await.unwrap(), None);
    assert!(store.set_deposit_cursor(1, &token, -1, T0).await.is_err());

    assert!(store.try_lease("watcher", "gw-a", 1_000, T0).await.unwrap());
    assert!(!store
        .try_lease("watcher", "gw-b", 1_000, T0 + 10)
        .await
        .unwrap());
    // The holder renews; the other gets it only once it has expired.
    assert!(store
        .try_lease("watcher", "gw-a", 1_000, T0 + 500)
        .await
        .unwrap());
    assert!(!store
        .try_lease("watcher", "gw-b", 1_000, T0 + 1_400)
        .await
        .unwrap());
    assert!(store
        .try_lease("watcher", "gw-b", 1_000, T0 + 1_500)
        .await
        .unwrap());
    assert!(!store
        .try_lease("watcher", "gw-a", 1_000, T0 + 1_600)
        .await
        .unwrap());
    assert!(store
        .try_lease("other", "gw-a", 1_000, T0 + 1_600)
        .await
        .unwrap());
}

fn pending(d: &NewDeposit, block: i64) -> PendingDeposit {
    PendingDeposit {
        chain_id: d.chain_id,
        token: d.token.clone(),
        tx_hash: d.tx_hash.clone(),
        log_index: d.log_index,
        block_number: block,
        account_id: d.account_id,
        amount: d.amount,
    }
}

async fn pending_set_is_replaced_and_never_credited(db: TestDb) {
    let store = db.open().await;
    let a = account(&store, "a@example.com").await;
    let b = account(&store, "b@example.com").await;
    let token = format!("0x{}", "a0".repeat(20));
    let head = |head_block, final_block| ChainHead {
        head_block,
        final_block,
        observed_at: T0 + head_block,
    };
    assert_eq!(store.chain_head(31337, &token).await.unwrap(), None);
    let (first, second, theirs) = (
        usdc(a, 1, 0, 1_000_000),
        usdc(a, 2, 0, 2_000),
        usdc(b, 3, 0, 5),
    );
    let seen = vec![
        pending(&first, 10),
        pending(&second, 11),
        pending(&theirs, 11),
    ];
    store
        .replace_pending_deposits(31337, &token, head(12, 9), seen)
        .await
        .unwrap();
    assert_eq!(
        store.chain_head(31337, &token).await.unwrap(),
        Some(head(12, 9))
    );
    let mine = store.pending_deposits(a).await.unwrap();
    assert_eq!(
        mine,
        vec![pending(&second, 11), pending(&first, 10)],
        "newest first"
    );
    assert_eq!(store.pending_deposits(b).await.unwrap().len(), 1);
    let bal = store.balance(a, T0).await.unwrap();
    assert_eq!(
        (bal.credits, bal.total_deposited),
        (0, 0),
        "pending is never credited"
    );

    // The next scan: `second` was reorged away, `first` became final and was recorded.
    store.record_deposit(&first, T0).await.unwrap();
    assert_eq!(
        store.pending_deposits(a).await.unwrap(),
        vec![pending(&second, 11)],
        "a recorded deposit is no longer pending, even before the set is replaced"
    );
    store
        .replace_pending_deposits(31337, &token, head(13, 10), vec![pending(&theirs, 11)])
        .await
        .unwrap();
    assert!(store.pending_deposits(a).await.unwrap().is_empty());
    assert_eq!(
        store.chain_head(31337, &token).await.unwrap(),
        Some(head(13, 10))
    );
    // Another token's set is its own.
    let other = format!("0x{}", "b0".repeat(20));
    store
        .replace_pending_deposits(31337, &other, head(13, 10), vec![])
        .await
        .unwrap();
    assert_eq!(store.pending_deposits(b).await.unwrap().len(), 1);
    // Malformed rows are refused whole.
    let mut bad = pending(&theirs, 11);
    bad.tx_hash = "0xABC".into();
    assert!(store
        .replace_pending_deposits(31337, &token, head(14, 11), vec![bad])
        .await
        .is_err());
    assert_eq!(store.pending_deposits(b).await.unwrap().len(), 1);
    assert_verified(&store).await;
}
