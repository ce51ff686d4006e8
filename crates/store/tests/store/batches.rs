//! Many movements at once on many accounts. On PostgreSQL the writer commits what is waiting
//! as one batch (one call of `shoal_ledger_batch`), on SQLite as one group: every request
//! must still get exactly its own outcome, whatever else is in its batch.

use std::sync::Arc;

use shoal_store::{HoldOutcome, SettleOutcome, StoreError};

use crate::both_backends;
use crate::fixtures::{charge, req, T0};
use crate::harness::TestDb;

both_backends!(concurrent_mixed_movements);

const ACCOUNTS: usize = 8;

/// What one task did, and what it charged.
enum Expect {
    Charged(usize, i64),
    Nothing,
}

async fn concurrent_mixed_movements(db: TestDb) {
    let store = db.open().await;
    let mut accounts = Vec::new();
    for i in 0..ACCOUNTS {
        let a = store
            .create_account(&format!("batch-{i}@example.com"), T0)
            .await
            .unwrap();
        store.grant_credits(a, 1_000, T0).await.unwrap();
        accounts.push(a);
    }
    // The first account also has plan credits: the plan-then-balance split depends on the
    // order within a batch, the total charged does not.
    store.set_plan(accounts[0], 100, T0).await.unwrap();
    // Holds to end during the burst; every fourth is past its expiry by then.
    for i in 0..32 {
        let expires = if i % 4 == 3 { T0 + 500 } else { T0 + 60_000 };
        let r = req(&format!("pre-{i}"), accounts[i % ACCOUNTS], 10, expires);
        assert_eq!(store.hold(&r, T0).await.unwrap(), HoldOutcome::Held);
    }

    let now = T0 + 1_000;
    let start = Arc::new(tokio::sync::Barrier::new(96));
    let mut tasks = Vec::new();
    for t in 0..96usize {
        let store = store.clone();
        let start = start.clone();
        let accounts = accounts.clone();
        tasks.push(tokio::spawn(async move {
            start.wait().await;
            let i = t % 32;
            let account = accounts[i % ACCOUNTS];
            match t / 32 {
                // A new request: hold, then settle.
                0 => {
                    let id = format!("new-{i}");
                    let held = store.hold(&req(&id, account, 20, now + 60_000), now).await;
                    assert_eq!(held.unwrap(), HoldOutcome::Held, "{id}");
                    let c = (i as i64) % 25;
                    let SettleOutcome::Settled {
                        charged,
                        from_plan,
                        from_balance,
                        released,
                        ..
                    } = store.settle(&id, Some(&charge(c)), now + 1).await.unwrap()
                    else {
                        panic!("{id} not settled")
                    };
                    assert_eq!(charged, c.min(20), "{id}");
                    assert_eq!(charged, from_plan + from_balance, "{id}");
                    assert_eq!(released, 20 - charged, "{id}");
                    Expect::Charged(i % ACCOUNTS, charged)
                }
                // The end of an earlier hold: settled, voided, settled without usage, or
                // found expired.
                1 => {
                    let id = format!("pre-{i}");
                    let (outcome, want) = match i % 4 {
                        0 => (store.settle(&id, Some(&charge(7)), now).await, Some(7)),
                        1 => (store.void(&id, now).await, Some(0)),
                        2 => (store.settle(&id, None, now).await, Some(10)),
                        _ => (store.settle(&id, Some(&charge(7)), now).await, None),
                    };
                    match (outcome.unwrap(), want) {
                        (
                            SettleOutcome::Settled {
                                charged, released, ..
                            },
                            Some(want),
                        ) => {
                            assert_eq!((charged, released), (want, 10 - want), "{id}");
                            Expect::Charged(i % ACCOUNTS, charged)
                        }
                        (SettleOutcome::AlreadyEnded, None) => Expect::Nothing,
                        (other, want) => panic!("{id}: {other:?}, wanted {want:?}"),
                    }
                }
                // Requests that change nothing: a taken request id, an unknown account,
                // an unknown hold.
                _ => {
                    let id = format!("pre-{i}");
                    match i % 3 {
                        0 => assert!(matches!(
                            store.hold(&req(&id, account, 1, now + 60_000), now).await,
                            Err(StoreError::Conflict(_))
                        )),
                        1 => assert!(matches!(
                            store
                                .hold(&req(&format!("x-{i}"), 999_999, 1, now + 60_000), now)
                                .await,
                            Err(StoreError::NotFound(_))
                        )),
                        _ => assert_eq!(
                            store.void(&format!("nobody-{i}"), now).await.unwrap(),
                            SettleOutcome::UnknownHold
                        ),
                    }
                    Expect::Nothing
                }
            }
        }));
    }
    let mut charged = [0i64; ACCOUNTS];
    for t in tasks {
        if let Expect::Charged(k, c) = t.await.unwrap() {
            charged[k] += c;
        }
    }
    for (k, &a) in accounts.iter().enumerate() {
        let b = store.balance(a, now + 1).await.unwrap();
        let plan_spent = b.plan_daily_credits - b.daily_credits_left;
        assert_eq!(b.credits_held, 0, "account {k}");
        assert_eq!(b.total_spent + plan_spent, charged[k], "account {k}");
        assert_eq!(b.credits, 1_000 - b.total_spent, "account {k}");
    }
    let report = store.verify_ledger().await.unwrap();
    assert!(report.discrepancies.is_empty(), "{report:#?}");
}
