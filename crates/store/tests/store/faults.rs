//! The store through database faults, on a PostgreSQL server of the test's own
//! (`private_pg`): a restart and a 10 s stop while requests are in flight, and a session
//! frozen with an account's row lock.

use std::time::{Duration, Instant};

use shoal_store::{HoldOutcome, SettleOutcome, Store, StoreError, StoreOptions};
use sqlx::ConnectOptions;

use crate::fixtures::{assert_clean, charge, req};
use crate::private_pg::PrivatePg;

const REQUESTS: usize = 50;
const HOLD: i64 = 100;
/// How soon after the database is back every settle must have committed.
const WITHIN: Duration = Duration::from_secs(5);

fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as i64
}

enum Outage {
    Restart,
    Stop(Duration),
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn settles_survive_a_restart() {
    outage(Outage::Restart).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn settles_survive_a_ten_second_stop() {
    outage(Outage::Stop(Duration::from_secs(10))).await
}

/// 50 requests hold credits, then settle with their own real charge one after another while
/// the server restarts (or stops for a while): every settle commits with its charge within
/// seconds of the server's return, nothing fails once it answers again, the ledger verifies.
async fn outage(outage: Outage) {
    let Some(pg) = PrivatePg::start() else { return };
    let store = Store::open_with(&pg.url(), &StoreOptions::default())
        .await
        .unwrap();
    let (account, key) = in_flight(&store).await;
    // The fault from 300 ms on; the settles go out every 40 ms from 0 to 2 s, most of them
    // into the fault.
    let started = Instant::now();
    let (back, settled) = tokio::join!(
        fault(&pg, outage, &store, account),
        futures::future::join_all((0..REQUESTS).map(|i| settle_later(&store, i)))
    );
    let mut last = started;
    for (i, out, at) in settled {
        match out {
            Ok(SettleOutcome::Settled { charged, .. }) => {
                assert_eq!(charged, i as i64 + 1, "request {i} charged its own usage")
            }
            other => panic!("request {i}: {other:?}"),
        }
        last = last.max(at);
    }
    let late = last.saturating_duration_since(back);
    eprintln!(
        "every settle committed {} ms after the server was back",
        late.as_millis()
    );
    assert!(
        late < WITHIN,
        "the last settle came {late:?} after the return"
    );
    after_the_return(&store, account, &key).await;
    let b = store.balance(account, now_ms()).await.unwrap();
    let spent = (1..=REQUESTS as i64).sum::<i64>() + REQUESTS as i64;
    assert_eq!((b.total_spent, b.credits_held), (spent, 0));
    assert_clean(&store).await;
    store.close().await;
}

/// An account with a key, several pooled connections open (each stale once the server
/// restarts), and [`REQUESTS`] holds taken.
async fn in_flight(store: &Store) -> (i64, String) {
    let t0 = now_ms();
    let account = store
        .create_account("outage@example.com", t0)
        .await
        .unwrap();
    store.grant_credits(account, 1_000_000, t0).await.unwrap();
    let key = store.create_api_key(account, None, None, t0).await.unwrap();
    let reads = (0..8).map(|_| store.balance(account, t0));
    for b in futures::future::join_all(reads).await {
        b.unwrap();
    }
    for i in 0..REQUESTS {
        let held = store
            .hold(&req(&format!("out-{i}"), account, HOLD, t0 + 3_600_000), t0)
            .await
            .unwrap();
        assert_eq!(held, HoldOutcome::Held);
    }
    (account, key.key)
}

/// The fault, 300 ms from now (`pg_ctl` blocks: on a thread of its own). Returns when the
/// server accepts connections again.
async fn fault(pg: &PrivatePg, outage: Outage, store: &Store, account: i64) -> Instant {
    tokio::time::sleep(Duration::from_millis(300)).await;
    match outage {
        Outage::Restart => tokio::task::block_in_place(|| pg.restart_fast()),
        Outage::Stop(down) => {
            tokio::task::block_in_place(|| pg.stop());
            // Meanwhile a new request cannot hold, and readiness says why.
            let refused = store
                .hold(&req("during", account, 1, now_ms() + 60_000), now_ms())
                .await;
            assert!(
                matches!(refused, Err(StoreError::Unavailable(_))),
                "{refused:?}"
            );
            let ready = store.ready(Duration::from_secs(1)).await;
            assert!(
                matches!(ready, Err(StoreError::Unavailable(_))),
                "{ready:?}"
            );
            tokio::time::sleep(down).await;
            tokio::task::block_in_place(|| pg.start_server());
        }
    }
    Instant::now()
}

/// Request `i` ends `40 × i` ms from now with its own charge (`i + 1` credits).
async fn settle_later(
    store: &Store,
    i: usize,
) -> (usize, Result<SettleOutcome, StoreError>, Instant) {
    tokio::time::sleep(Duration::from_millis(40 * i as u64)).await;
    let c = charge(i as i64 + 1);
    let out = store.settle(&format!("out-{i}"), Some(&c), now_ms()).await;
    (i, out, Instant::now())
}

/// Once the server answers: not one failure, on stale connections or fresh ones (the first
/// read after the return, `verify_ledger`'s, meets one if any is left).
async fn after_the_return(store: &Store, account: i64, key: &str) {
    assert_clean(store).await;
    store.ready(Duration::from_secs(5)).await.unwrap();
    let after = (0..REQUESTS).map(|i| async move {
        let now = now_ms();
        let id = format!("after-{i}");
        let held = store
            .hold(&req(&id, account, HOLD, now + 60_000), now)
            .await?;
        assert_eq!(held, HoldOutcome::Held);
        store.settle(&id, Some(&charge(1)), now).await?;
        store.balance(account, now).await?;
        assert!(store.authenticate_api_key(key).await?.is_some());
        Ok::<_, StoreError>(())
    });
    for out in futures::future::join_all(after).await {
        out.unwrap();
    }
}

/// Another session holds account A's row locked inside a transaction and goes quiet (a
/// frozen gateway). B's holds and settles, alone or batched with A's, never wait for it;
/// A's new holds fail as unavailable after `lock_timeout`; a settle of A's is retried until
/// the server ends the frozen session (its `idle_in_transaction_session_timeout`), then
/// commits with its charge.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_frozen_lock_stalls_no_other_account() {
    let Some(pg) = PrivatePg::start() else { return };
    let lock_timeout = Duration::from_millis(1_500);
    let options = StoreOptions {
        lock_timeout,
        ..StoreOptions::default()
    };
    let store = Store::open_with(&pg.url(), &options).await.unwrap();
    let t0 = now_ms();
    let [a, b] = ["frozen-a@example.com", "frozen-b@example.com"]
        .map(|email| async { store.create_account(email, t0).await.unwrap() });
    let (a, b) = (a.await, b.await);
    for acc in [a, b] {
        store.grant_credits(acc, 100_000, t0).await.unwrap();
    }
    let far = t0 + 3_600_000;
    store.hold(&req("a-before", a, 50, far), t0).await.unwrap();
    let mut freezer = freeze(&pg, a).await;
    let frozen_at = Instant::now();

    let a_settle = async {
        let out = store.settle("a-before", Some(&charge(7)), now_ms()).await;
        (out, frozen_at.elapsed())
    };
    let a_holds = (0..10).map(|i| {
        let store = &store;
        async move {
            let t = Instant::now();
            let out = store
                .hold(&req(&format!("a-{i}"), a, 5, far), now_ms())
                .await;
            (out, t.elapsed())
        }
    });
    let b_pairs = (0..40).map(|i| pair(&store, b, format!("b-{i}"), far));
    let (a_settle, a_holds, b_pairs) = tokio::join!(
        a_settle,
        futures::future::join_all(a_holds),
        futures::future::join_all(b_pairs)
    );
    let slowest_b = b_pairs.iter().max().unwrap();
    eprintln!("slowest hold + settle of the other account: {slowest_b:?}");
    assert!(
        *slowest_b < lock_timeout,
        "B waited {slowest_b:?} behind A's lock"
    );
    for (out, took) in a_holds {
        assert!(matches!(out, Err(StoreError::Unavailable(_))), "{out:?}");
        assert!(took >= lock_timeout, "A's hold gave up after {took:?}");
    }
    let (out, took) = a_settle;
    assert!(
        matches!(out, Ok(SettleOutcome::Settled { charged: 7, .. })),
        "{out:?}"
    );
    eprintln!("A's settle committed {took:?} after the freeze");
    assert!(
        took >= Duration::from_secs(3),
        "committed while A was locked"
    );
    // The server ended the frozen session, and with it the lock.
    assert!(sqlx::query("SELECT 1").execute(&mut freezer).await.is_err());
    assert_clean(&store).await;
    store.close().await;
}

/// A session of its own that locks account `a`'s row inside a transaction and goes quiet;
/// the server ends it after 4 s idle in the transaction, as it would a store's session.
async fn freeze(pg: &PrivatePg, a: i64) -> sqlx::PgConnection {
    let mut freezer = pg
        .url()
        .parse::<sqlx::postgres::PgConnectOptions>()
        .unwrap()
        .options([("idle_in_transaction_session_timeout", "4000ms")])
        .connect()
        .await
        .unwrap();
    sqlx::query("BEGIN").execute(&mut freezer).await.unwrap();
    sqlx::query("SELECT id FROM accounts WHERE id = $1 FOR UPDATE")
        .bind(a)
        .execute(&mut freezer)
        .await
        .unwrap();
    freezer
}

/// A hold and its settle (2 credits) on `account`: how long the pair took.
async fn pair(store: &Store, account: i64, id: String, expires_at: i64) -> Duration {
    let t = Instant::now();
    let held = store
        .hold(&req(&id, account, 5, expires_at), now_ms())
        .await
        .unwrap();
    assert_eq!(held, HoldOutcome::Held);
    let settled = store.settle(&id, Some(&charge(2)), now_ms()).await.unwrap();
    assert!(matches!(settled, SettleOutcome::Settled { charged: 2, .. }));
    t.elapsed()
}
