//! Accounts, API keys and worker tokens.

use shoal_store::credentials::{self, API_KEY_PREFIX};
use shoal_store::{Store, StoreError};

use crate::both_backends;
use crate::harness::{Kind, TestDb};

both_backends!(
    accounts_crud,
    api_keys,
    worker_tokens,
    plaintext_never_stored,
    open_by_url
);

const T0: i64 = 1_760_000_000_000;

async fn accounts_crud(db: TestDb) {
    let store = db.open().await;
    let a = store.create_account("alice@example.com", T0).await.unwrap();
    let b = store.create_account("bob@example.com", T0).await.unwrap();
    assert_ne!(a, b);
    assert!(matches!(
        store.create_account("Alice@Example.com", T0).await,
        Err(StoreError::Conflict(_))
    ));
    for bad in ["", "alice", "  ", "a b@c"] {
        assert!(
            matches!(
                store.create_account(bad, T0).await,
                Err(StoreError::Invalid(_))
            ),
            "{bad:?}"
        );
    }

    let bal = store.balance(a, T0).await.unwrap();
    assert_eq!(
        (
            bal.credits,
            bal.credits_held,
            bal.plan_daily_credits,
            bal.daily_credits_left
        ),
        (0, 0, 0, 0)
    );
    assert_eq!((bal.total_deposited, bal.total_spent), (0, 0));
    assert_eq!(store.grant_credits(a, 100, T0).await.unwrap(), 100);
    assert_eq!(store.grant_credits(a, 5, T0).await.unwrap(), 105);
    for bad in [0, -1, shoal_store::MAX_CREDITS + 1] {
        assert!(matches!(
            store.grant_credits(a, bad, T0).await,
            Err(StoreError::Invalid(_))
        ));
    }
    assert!(matches!(
        store.grant_credits(9_999, 5, T0).await,
        Err(StoreError::NotFound(_))
    ));
    // Lifetime deposits are capped far from overflow.
    store
        .grant_credits(b, shoal_store::MAX_CREDITS, T0)
        .await
        .unwrap();
    assert!(matches!(
        store.grant_credits(b, 1, T0).await,
        Err(StoreError::Invalid(_))
    ));

    store.set_plan(a, 50, T0).await.unwrap();
    let bal = store.balance(a, T0).await.unwrap();
    assert_eq!(
        (bal.credits, bal.plan_daily_credits, bal.daily_credits_left),
        (105, 50, 50)
    );
    assert_eq!(bal.total_deposited, 105);
    assert!(matches!(
        store.set_plan(a, -1, T0).await,
        Err(StoreError::Invalid(_))
    ));
    assert!(matches!(
        store.set_plan(9_999, 1, T0).await,
        Err(StoreError::NotFound(_))
    ));
    assert!(matches!(
        store.balance(9_999, T0).await,
        Err(StoreError::NotFound(_))
    ));
    store.set_plan(a, 0, T0).await.unwrap();
    assert_eq!(store.balance(a, T0).await.unwrap().daily_credits_left, 0);

    let report = store.verify_ledger().await.unwrap();
    assert_eq!(report.accounts_checked, 2);
    assert!(report.discrepancies.is_empty(), "{report:?}");
}

async fn api_keys(db: TestDb) {
    let store = db.open().await;
    let a = store.create_account("keys@example.com", T0).await.unwrap();
    assert!(matches!(
        store.create_api_key(9_999, None, None, T0).await,
        Err(StoreError::NotFound(_))
    ));
    assert!(matches!(
        store.create_api_key(a, None, Some(0), T0).await,
        Err(StoreError::Invalid(_))
    ));
    assert!(matches!(
        store.list_api_keys(9_999).await,
        Err(StoreError::NotFound(_))
    ));
    assert!(store.list_api_keys(a).await.unwrap().is_empty());

    let k1 = store
        .create_api_key(a, Some("laptop"), Some(120), T0)
        .await
        .unwrap();
    let k2 = store.create_api_key(a, None, None, T0 + 1).await.unwrap();
    assert!(credentials::is_well_formed_api_key(&k1.key));
    assert!(k1.key.starts_with(API_KEY_PREFIX));
    assert_eq!(k1.prefix, credentials::display_prefix(&k1.key));
    assert_eq!(k1.prefix.len(), API_KEY_PREFIX.len() + 4);
    assert_ne!(k1.key, k2.key);

    let p1 = store
        .authenticate_api_key(&k1.key)
        .await
        .unwrap()
        .expect("key 1 valid");
    assert_eq!((p1.key_id, p1.account_id, p1.rpm), (k1.id, a, Some(120)));
    let p2 = store
        .authenticate_api_key(&k2.key)
        .await
        .unwrap()
        .expect("key 2 valid");
    assert_eq!((p2.key_id, p2.rpm), (k2.id, None));

    let list = store.list_api_keys(a).await.unwrap();
    assert_eq!(list.len(), 2);
    assert_eq!(list[0].id, k1.id);
    assert_eq!(list[0].name.as_deref(), Some("laptop"));
    assert_eq!(list[0].prefix, k1.prefix);
    assert_eq!(
        (list[0].rpm, list[0].created_at, list[0].revoked_at),
        (Some(120), T0, None)
    );
    assert_eq!((list[1].name.as_deref(), list[1].rpm), (None, None));

    store.revoke_api_key(k1.id, T0 + 10).await.unwrap();
    assert_eq!(store.authenticate_api_key(&k1.key).await.unwrap(), None);
    store.revoke_api_key(k1.id, T0 + 20).await.unwrap(); // twice is fine
    let list = store.list_api_keys(a).await.unwrap();
    assert_eq!(
        list[0].revoked_at,
        Some(T0 + 10),
        "the first revocation time is kept"
    );
    assert!(store.authenticate_api_key(&k2.key).await.unwrap().is_some());
    assert!(matches!(
        store.revoke_api_key(9_999, T0).await,
        Err(StoreError::NotFound(_))
    ));

    // Malformed and unknown keys.
    let unknown = credentials::generate_api_key();
    let mut wrong_char = k2.key.clone();
    wrong_char.push('!');
    for bad in [
        String::new(),
        "sk-shoal-".to_string(),
        k2.key[..k2.key.len() - 10].to_string(),
        wrong_char,
        format!(" {}", k2.key),
        k2.key.to_uppercase(),
        unknown,
        "x".repeat(10_000),
        "'; DROP TABLE api_keys; --".to_string(),
    ] {
        assert_eq!(
            store.authenticate_api_key(&bad).await.unwrap(),
            None,
            "{bad:?}"
        );
    }
    assert!(store.authenticate_api_key(&k2.key).await.unwrap().is_some());
}

async fn worker_tokens(db: TestDb) {
    let store = db.open().await;
    let t = store.create_worker_token("gpu-box-1", T0).await.unwrap();
    assert!(credentials::is_well_formed_worker_token(&t.token));
    let info = store
        .authenticate_worker_token(&t.token)
        .await
        .unwrap()
        .expect("valid token");
    assert_eq!((info.id, info.name.as_str()), (t.id, "gpu-box-1"));
    assert!(!info.browser_only && info.live_at(T0 + 1_000_000_000));
    // A browser invite admits browsers only, until it expires.
    let b = store
        .create_browser_invite("tabs", T0 + 60_000, T0)
        .await
        .unwrap();
    let binfo = store
        .authenticate_worker_token(&b.token)
        .await
        .unwrap()
        .expect("valid invite");
    assert!(binfo.browser_only);
    assert!(binfo.live_at(T0 + 59_999) && !binfo.live_at(T0 + 60_000));
    assert!(matches!(
        store.create_browser_invite("tabs", T0, T0).await,
        Err(StoreError::Invalid(_))
    ));
    let t2 = store.create_worker_token("gpu-box-2", T0).await.unwrap();
    assert_ne!(t.token, t2.token);
    assert!(matches!(
        store.create_worker_token("  ", T0).await,
        Err(StoreError::Invalid(_))
    ));
    assert_eq!(
        store
            .authenticate_worker_token("shoal-wt-short")
            .await
            .unwrap(),
        None
    );
    assert_eq!(
        store
            .authenticate_worker_token(&credentials::generate_worker_token())
            .await
            .unwrap(),
        None
    );
    // An API key is not a worker token, and the reverse.
    let a = store.create_account("w@example.com", T0).await.unwrap();
    let k = store.create_api_key(a, None, None, T0).await.unwrap();
    assert_eq!(store.authenticate_worker_token(&k.key).await.unwrap(), None);
    assert_eq!(store.authenticate_api_key(&t.token).await.unwrap(), None);
}

async fn plaintext_never_stored(db: TestDb) {
    let store = db.open().await;
    let a = store
        .create_account("secret@example.com", T0)
        .await
        .unwrap();
    let key = store.create_api_key(a, Some("ci"), None, T0).await.unwrap();
    let token = store.create_worker_token("w", T0).await.unwrap();
    assert!(store
        .authenticate_api_key(&key.key)
        .await
        .unwrap()
        .is_some());
    let secrets = [
        key.key.clone(),
        key.key[API_KEY_PREFIX.len()..].to_string(),
        token.token.clone(),
        token.token["shoal-wt-".len()..].to_string(),
    ];
    match db.kind {
        Kind::Sqlite => {
            let path = db.sqlite_path();
            let mut files = 0;
            for suffix in ["", "-wal", "-shm"] {
                let p = std::path::PathBuf::from(format!("{}{suffix}", path.display()));
                let Ok(bytes) = std::fs::read(&p) else {
                    continue;
                };
                files += 1;
                for s in &secrets {
                    assert!(
                        !bytes.windows(s.len()).any(|w| w == s.as_bytes()),
                        "plaintext secret found in {}",
                        p.display()
                    );
                }
            }
            assert!(files >= 2, "expected the database file and its WAL");
            // The hash is what is stored.
            let hash = credentials::hash_secret(&key.key);
            let mut all = std::fs::read(&path).unwrap();
            all.extend(std::fs::read(format!("{}-wal", path.display())).unwrap_or_default());
            assert!(
                all.windows(32).any(|w| w == hash),
                "key hash not found in the files"
            );
        }
        Kind::Postgres => {
            for s in &secrets {
                assert!(!db.pg_rows_contain(s).await, "plaintext secret stored");
            }
            assert!(
                db.pg_rows_contain(&key.prefix).await,
                "display prefix is stored"
            );
        }
    }
    store.close().await;
}

async fn open_by_url(db: TestDb) {
    for bad in [
        "mysql://localhost/x",
        "",
        "file:/tmp/x.db",
        "postgres:nohost",
    ] {
        assert!(
            matches!(Store::open(bad).await, Err(StoreError::Invalid(_))),
            "{bad:?}"
        );
    }
    let store = Store::open(&db.url()).await.unwrap();
    let expected = match db.kind {
        Kind::Sqlite => "sqlite",
        Kind::Postgres => "postgres",
    };
    assert_eq!(store.backend(), expected);
    let a = store.create_account("url@example.com", T0).await.unwrap();
    store.close().await;
    // The other spelling of each scheme, and the data is still there.
    let other = match db.kind {
        Kind::Sqlite => format!("sqlite:{}", db.sqlite_path().display()),
        Kind::Postgres => db.url().replacen("postgres://", "postgresql://", 1),
    };
    let store = Store::open(&other).await.unwrap();
    assert_eq!(store.balance(a, T0).await.unwrap().credits, 0);
    store.close().await;
}

/// SQLite only: an in-memory store works (one connection for everything).
#[tokio::test]
async fn sqlite_in_memory() {
    let store = Store::open("sqlite::memory:").await.unwrap();
    let a = store.create_account("mem@example.com", T0).await.unwrap();
    store.grant_credits(a, 10, T0).await.unwrap();
    assert_eq!(store.balance(a, T0).await.unwrap().credits, 10);
    assert!(store
        .verify_ledger()
        .await
        .unwrap()
        .discrepancies
        .is_empty());
}

/// SQLite only: the server and `shoal admin` open the same file at once; concurrent writes
/// from both wait for each other (busy timeout) instead of failing.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn sqlite_two_processes_share_a_file() {
    let db = TestDb::new(Kind::Sqlite).await.unwrap();
    // Both start on a new file at once: both run migrations.
    let (server, admin) = tokio::join!(db.open(), db.open());
    let a = server
        .create_account("shared@example.com", T0)
        .await
        .unwrap();
    let mut tasks = Vec::new();
    for (i, s) in [server.clone(), admin.clone()].into_iter().enumerate() {
        tasks.push(tokio::spawn(async move {
            for n in 0..100 {
                s.grant_credits(a, 1, T0).await.unwrap();
                let req = shoal_store::HoldRequest {
                    request_id: format!("r-{i}-{n}"),
                    account_id: a,
                    credits: 1,
                    model: "m".into(),
                    expires_at: T0 + 60_000,
                    free_daily: 0,
                    key_id: None,
                };
                assert_eq!(
                    s.hold(&req, T0).await.unwrap(),
                    shoal_store::HoldOutcome::Held
                );
                s.settle(&req.request_id, None, T0).await.unwrap();
            }
        }));
    }
    for t in tasks {
        t.await.unwrap();
    }
    let b = admin.balance(a, T0).await.unwrap();
    assert_eq!(
        (b.credits, b.total_deposited, b.total_spent, b.credits_held),
        (0, 200, 200, 0)
    );
    assert!(server
        .verify_ledger()
        .await
        .unwrap()
        .discrepancies
        .is_empty());
}
