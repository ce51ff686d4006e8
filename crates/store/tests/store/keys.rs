//! Keys for agents: spending limits that hold under any concurrency, management keys, keys
//! scoped to their account, and the per-request generation record.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use shoal_protocol::codes::FinishReason;
use shoal_protocol::worker::WorkerKind;
use shoal_store::money::LimitReset;
use shoal_store::{
    Generation, HoldOutcome, HoldRequest, KeyKind, KeyLimit, NewKey, SettleOutcome, Store,
    StoreError,
};

use crate::both_backends;
use crate::fixtures::{assert_clean, charge, req, DAY, T0};
use crate::harness::{run, Kind, TestDb};

both_backends!(
    a_key_limit_admits_counts_and_resets,
    sixty_four_holds_on_one_key_never_pass_its_limit,
    ends_and_expiry_give_the_hold_back_to_the_key,
    a_limit_counts_requests_started_after_it,
    management_keys_and_account_scope,
    generations_are_the_owners_alone,
    a_keys_own_concurrency_reaches_its_check
);

async fn a_keys_own_concurrency_reaches_its_check(db: TestDb) {
    let store = db.open().await;
    let a = funded(&store, "c@example.com").await;
    let b = funded(&store, "d@example.com").await;
    let k = store.create_api_key(a, None, None, T0).await.unwrap();
    let who = || async { store.authenticate_api_key(&k.key).await.unwrap().unwrap() };
    assert_eq!(who().await.concurrency, None, "the gateway's default");
    store.set_key_concurrency(a, k.id, Some(3)).await.unwrap();
    assert_eq!(who().await.concurrency, Some(3));
    assert_eq!(store.api_key(a, k.id).await.unwrap().concurrency, Some(3));
    assert!(matches!(
        store.set_key_concurrency(a, k.id, Some(0)).await,
        Err(StoreError::Invalid(_))
    ));
    assert!(matches!(
        store.set_key_concurrency(b, k.id, Some(9)).await,
        Err(StoreError::NotFound(_))
    ));
    store.set_key_concurrency(a, k.id, None).await.unwrap();
    assert_eq!(who().await.concurrency, None);
    store.close().await;
}

fn keyed(id: &str, account: i64, key: i64, credits: i64) -> HoldRequest {
    HoldRequest {
        key_id: Some(key),
        ..req(id, account, credits, T0 + DAY * 40)
    }
}

async fn funded(store: &Store, email: &str) -> i64 {
    let a = store.create_account(email, T0).await.unwrap();
    store.grant_credits(a, 100_000, T0).await.unwrap();
    a
}

async fn limited_key(store: &Store, account: i64, credits: i64, reset: LimitReset) -> i64 {
    let new = NewKey {
        name: Some("agent"),
        limit: Some(KeyLimit { credits, reset }),
        ..NewKey::default()
    };
    store.create_key(account, &new, T0).await.unwrap().id
}

async fn a_key_limit_admits_counts_and_resets(db: TestDb) {
    let store = db.open().await;
    let a = funded(&store, "limit@example.com").await;
    let k = limited_key(&store, a, 20, LimitReset::Daily).await;
    let midnight = (T0 / DAY + 1) * DAY;
    assert_eq!(
        store.hold(&keyed("l1", a, k, 15), T0).await.unwrap(),
        HoldOutcome::Held
    );
    let refused = store.hold(&keyed("l2", a, k, 6), T0).await.unwrap();
    assert_eq!(
        refused,
        HoldOutcome::KeyLimitExceeded {
            needed: 6,
            limit: 20,
            remaining: 5,
            reset: LimitReset::Daily,
            resets_at: Some(midnight),
        }
    );
    // The refusal reserved nothing, on the key or the account.
    assert_eq!(store.balance(a, T0).await.unwrap().credits_held, 15);
    // A settle below the hold gives the rest back to the key's window.
    store.settle("l1", Some(&charge(10)), T0).await.unwrap();
    let u = store.key_usage(k, T0).await.unwrap();
    assert_eq!((u.window_spent, u.held, u.remaining), (10, 0, Some(10)));
    assert_eq!((u.spent_today, u.requests_today), (10, 1));
    assert_eq!(u.resets_at, Some(midnight));
    assert_eq!(
        store.hold(&keyed("l3", a, k, 10), T0).await.unwrap(),
        HoldOutcome::Held
    );
    assert!(matches!(
        store.hold(&keyed("l4", a, k, 1), T0).await.unwrap(),
        HoldOutcome::KeyLimitExceeded { remaining: 0, .. }
    ));
    // The next UTC day: what was spent is gone; what is held still counts.
    let tomorrow = midnight + 1;
    let u = store.key_usage(k, tomorrow).await.unwrap();
    assert_eq!((u.window_spent, u.held, u.remaining), (0, 10, Some(10)));
    assert_eq!(
        store.hold(&keyed("l5", a, k, 10), tomorrow).await.unwrap(),
        HoldOutcome::Held
    );
    store
        .settle("l3", Some(&charge(4)), tomorrow)
        .await
        .unwrap();
    store
        .settle("l5", Some(&charge(7)), tomorrow)
        .await
        .unwrap();
    let u = store.key_usage(k, tomorrow).await.unwrap();
    assert_eq!((u.window_spent, u.held, u.remaining), (11, 0, Some(9)));
    // The account paid exactly what was charged.
    assert_eq!(store.balance(a, tomorrow).await.unwrap().total_spent, 21);
    assert_clean(&store).await;
    store.close().await;
}

/// 64 requests at once on one key with a limit of 20: never more than 20 reserved or spent,
/// sampled all along; exactly 20 spent at the end, and the account charged exactly that.
async fn sixty_four_holds_on_one_key_never_pass_its_limit(db: TestDb) {
    let store = db.open().await;
    race_on_one_key(std::slice::from_ref(&store)).await;
    store.close().await;
}

/// The same race through two stores on one PostgreSQL database, as two replicas' writers.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn two_stores_on_one_postgres_database_share_a_key_limit() {
    run(Kind::Postgres, async |db: TestDb| {
        let stores = [db.open().await, db.open().await];
        race_on_one_key(&stores).await;
        for s in stores {
            s.close().await;
        }
    })
    .await
}

/// 64 holds of 1 to 3 credits on one key with a limit of 20, taken and settled in full
/// through `stores` in turn, while a sampler (on the first store) checks what the key spent
/// and holds never passes 20.
async fn race_on_one_key(stores: &[Store]) {
    let store = &stores[0];
    let a = funded(store, "race@example.com").await;
    let k = limited_key(store, a, 20, LimitReset::Monthly).await;
    let done = Arc::new(AtomicBool::new(false));
    let sampler = {
        let (store, done) = (store.clone(), done.clone());
        tokio::spawn(async move {
            let mut samples = 0;
            while !done.load(Ordering::Relaxed) {
                let u = store.key_usage(k, T0).await.unwrap();
                assert!(u.window_spent + u.held <= 20, "over the limit: {u:?}");
                samples += 1;
                tokio::task::yield_now().await;
            }
            samples
        })
    };
    let requests = (0..64).map(|i| {
        let store = stores[i as usize % stores.len()].clone();
        async move {
            let id = format!("race-{i}");
            let credits = 1 + i % 3;
            match store.hold(&keyed(&id, a, k, credits), T0).await.unwrap() {
                HoldOutcome::Held => {
                    let out = store.settle(&id, Some(&charge(credits)), T0).await;
                    assert!(matches!(out, Ok(SettleOutcome::Settled { .. })), "{out:?}");
                    credits
                }
                HoldOutcome::KeyLimitExceeded { .. } => 0,
                other => panic!("{other:?}"),
            }
        }
    });
    let spent: i64 = futures::future::join_all(requests).await.into_iter().sum();
    done.store(true, Ordering::Relaxed);
    assert!(sampler.await.unwrap() > 0);
    assert!(spent <= 20, "{spent} spent");
    for store in stores {
        let u = store.key_usage(k, T0).await.unwrap();
        assert_eq!((u.window_spent, u.held), (spent, 0));
        assert_eq!(store.balance(a, T0).await.unwrap().total_spent, spent);
        // Whatever is left is less than the smallest request that was refused would need.
        assert!(u.remaining.unwrap() < 3, "room was left: {:?}", u.remaining);
        assert_clean(store).await;
    }
}

async fn ends_and_expiry_give_the_hold_back_to_the_key(db: TestDb) {
    let store = db.open().await;
    let a = funded(&store, "ends@example.com").await;
    let k = limited_key(&store, a, 50, LimitReset::Never).await;
    store.hold(&keyed("v", a, k, 20), T0).await.unwrap();
    store
        .hold(
            &HoldRequest {
                expires_at: T0 + 1_000,
                ..keyed("x", a, k, 20)
            },
            T0,
        )
        .await
        .unwrap();
    store.hold(&keyed("s", a, k, 10), T0).await.unwrap();
    assert_eq!(store.key_usage(k, T0).await.unwrap().remaining, Some(0));
    store.void("v", T0).await.unwrap();
    assert_eq!(store.expire_holds(T0 + 1_000).await.unwrap(), 1);
    // A settle without usage charges the whole hold.
    store.settle("s", None, T0 + 2_000).await.unwrap();
    let u = store.key_usage(k, T0 + 2_000).await.unwrap();
    assert_eq!((u.window_spent, u.held, u.remaining), (10, 0, Some(40)));
    assert_eq!((u.window_started_at, u.resets_at), (None, None));
    assert_clean(&store).await;
    store.close().await;
}

async fn a_limit_counts_requests_started_after_it(db: TestDb) {
    let store = db.open().await;
    let a = funded(&store, "later@example.com").await;
    let k = store.create_api_key(a, None, None, T0).await.unwrap().id;
    store.hold(&keyed("before", a, k, 30), T0).await.unwrap();
    let weekly = KeyLimit {
        credits: 25,
        reset: LimitReset::Weekly,
    };
    store.set_key_limit(a, k, Some(weekly)).await.unwrap();
    assert_eq!(store.api_key(a, k).await.unwrap().limit, Some(weekly));
    // The request in flight does not count; a new one does.
    assert_eq!(
        store.hold(&keyed("after", a, k, 25), T0).await.unwrap(),
        HoldOutcome::Held
    );
    store.settle("before", Some(&charge(30)), T0).await.unwrap();
    store.settle("after", Some(&charge(5)), T0).await.unwrap();
    let u = store.key_usage(k, T0).await.unwrap();
    assert_eq!((u.window_spent, u.remaining), (5, Some(20)));
    // 2025-10-09 is a Thursday: the week started on Monday the 6th.
    assert_eq!(u.window_started_at, Some((T0 / DAY - 3) * DAY));
    // Lowered below what is spent: nothing more fits, nothing is negative.
    store
        .set_key_limit(
            a,
            k,
            Some(KeyLimit {
                credits: 3,
                ..weekly
            }),
        )
        .await
        .unwrap();
    assert!(matches!(
        store.hold(&keyed("low", a, k, 1), T0).await.unwrap(),
        HoldOutcome::KeyLimitExceeded {
            remaining: 0,
            limit: 3,
            ..
        }
    ));
    store.set_key_limit(a, k, None).await.unwrap();
    assert_eq!(
        store.hold(&keyed("free", a, k, 1), T0).await.unwrap(),
        HoldOutcome::Held
    );
    assert_eq!(store.key_usage(k, T0).await.unwrap().remaining, None);
    assert_clean(&store).await;
    store.close().await;
}

async fn management_keys_and_account_scope(db: TestDb) {
    let store = db.open().await;
    let a = funded(&store, "owner@example.com").await;
    let b = funded(&store, "other@example.com").await;
    let manage = NewKey {
        kind: KeyKind::Management,
        ..NewKey::default()
    };
    let m = store.create_key(a, &manage, T0).await.unwrap();
    let who = store.authenticate_api_key(&m.key).await.unwrap().unwrap();
    assert_eq!((who.account_id, who.kind), (a, KeyKind::Management));
    // A management key runs no request.
    let held = store.hold(&keyed("m", a, m.id, 1), T0).await;
    assert!(matches!(held, Err(StoreError::Invalid(_))), "{held:?}");
    // Nor does it take a limit.
    let limited = NewKey {
        limit: Some(KeyLimit {
            credits: 5,
            reset: LimitReset::Daily,
        }),
        ..manage
    };
    assert!(matches!(
        store.create_key(a, &limited, T0).await,
        Err(StoreError::Invalid(_))
    ));
    let k = limited_key(&store, a, 10, LimitReset::Daily).await;
    // Account B reaches none of A's keys.
    assert!(matches!(
        store.api_key(b, k).await,
        Err(StoreError::NotFound(_))
    ));
    let limit = Some(KeyLimit {
        credits: 1_000,
        reset: LimitReset::Never,
    });
    assert!(matches!(
        store.set_key_limit(b, k, limit).await,
        Err(StoreError::NotFound(_))
    ));
    assert!(matches!(
        store.revoke_key(b, k, T0).await,
        Err(StoreError::NotFound(_))
    ));
    assert!(store.list_api_keys(b).await.unwrap().is_empty());
    let listed = store.list_api_keys(a).await.unwrap();
    assert_eq!(listed.len(), 2);
    assert!(listed
        .iter()
        .all(|k| k.prefix.len() < 20 && !k.prefix.contains(&m.key)));
    store.set_key_name(a, k, Some("renamed")).await.unwrap();
    store.revoke_key(a, k, T0 + 5).await.unwrap();
    let info = store.api_key(a, k).await.unwrap();
    assert_eq!(
        (info.name.as_deref(), info.revoked_at),
        (Some("renamed"), Some(T0 + 5))
    );
    assert_clean(&store).await;
    store.close().await;
}

async fn generations_are_the_owners_alone(db: TestDb) {
    let store = db.open().await;
    let a = funded(&store, "gen-a@example.com").await;
    let b = funded(&store, "gen-b@example.com").await;
    let g = Generation {
        id: "chatcmpl-0193".into(),
        account_id: a,
        created_at: T0,
        model: "smollm2".into(),
        input_tokens: 12,
        output_tokens: 34,
        credits: 2,
        latency_ms: 850,
        time_to_first_token_ms: Some(120),
        finish_reason: Some(FinishReason::Length),
        worker_kind: WorkerKind::Native,
    };
    store.record_generation(&g).await.unwrap();
    // Recorded once: a second write of the same id changes nothing.
    store
        .record_generation(&Generation {
            credits: 99,
            ..g.clone()
        })
        .await
        .unwrap();
    assert_eq!(store.generation(a, &g.id).await.unwrap(), Some(g.clone()));
    assert_eq!(store.generation(b, &g.id).await.unwrap(), None);
    let bad = Generation {
        input_tokens: -1,
        ..g.clone()
    };
    assert!(matches!(
        store.record_generation(&bad).await,
        Err(StoreError::Invalid(_))
    ));
    store.prune_generations(T0 + 1).await.unwrap();
    assert_eq!(store.generation(a, &g.id).await.unwrap(), None);
    store.close().await;
}
