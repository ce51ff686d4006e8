//! N hold + settle pairs one after another on a fresh SQLite store, with a key that has a
//! spending limit or one without: a fixed amount of work whose instruction count (under
//! `valgrind --tool=callgrind`) does not move with the machine's load, unlike a rate.
//!
//! ```sh
//! cargo build --release -p shoal-bench-ledger --example sequential
//! valgrind --tool=callgrind --callgrind-out-file=/dev/null \
//!     target/release/examples/sequential limited 3000
//! ```
//! Run it for two N with each key kind: the difference over the difference in N is the
//! instructions per pair (start-up cancels out).

use shoal_store::money::LimitReset;
use shoal_store::{Charge, HoldRequest, KeyLimit, NewKey, Store};

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let mut args = std::env::args().skip(1);
    let limited = match args.next().as_deref() {
        Some("limited") => true,
        Some("unlimited") => false,
        _ => usage(),
    };
    let pairs: usize = match args.next().map(|n| n.parse()) {
        Some(Ok(n)) => n,
        _ => usage(),
    };
    let dir = tempfile::tempdir().expect("a temp folder");
    let store = Store::open_data_dir(dir.path()).await.expect("a store");
    let now = 1_800_000_000_000;
    let account = store
        .create_account("bench@example.com", now)
        .await
        .unwrap();
    store
        .grant_credits(account, 1_000_000_000, now)
        .await
        .unwrap();
    let limit = KeyLimit {
        credits: 1_000_000_000_000,
        reset: LimitReset::Daily,
    };
    let new = NewKey {
        limit: limited.then_some(limit),
        ..NewKey::default()
    };
    let key = store.create_key(account, &new, now).await.unwrap().id;
    let charge = Charge {
        input_tokens: 10,
        output_tokens: 3,
        reasoning_tokens: 0,
        credits: 3,
    };
    for i in 0..pairs {
        let req = HoldRequest {
            request_id: format!("seq-{i}"),
            account_id: account,
            credits: 50,
            model: "bench".into(),
            expires_at: now + 600_000,
            free_daily: 0,
            key_id: Some(key),
        };
        store.hold(&req, now).await.unwrap();
        store
            .settle(&req.request_id, Some(&charge), now)
            .await
            .unwrap();
    }
    // Checked in O(1), so that the count stays per pair (the bench proper verifies the ledger).
    let spent = store.balance(account, now).await.unwrap().total_spent;
    assert_eq!(spent, 3 * pairs as i64, "every pair charged 3 credits");
    store.close().await;
}

fn usage() -> ! {
    eprintln!("usage: sequential limited|unlimited PAIRS");
    std::process::exit(2)
}
