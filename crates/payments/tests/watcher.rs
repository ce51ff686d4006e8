//! The watcher against a scripted JSON-RPC node (a stand-in for a third-party server, in
//! this folder) and a real SQLite store: node failures delay but never skip a range, logs the
//! node should not have returned are ignored, rescans and a second watcher credit nothing twice,
//! a node on the wrong chain credits nobody, and transfers not final yet are shown as pending
//! (never credited) until they are final or gone.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use axum::{Json, Router};
use serde_json::{json, Value};
use shoal_payments::address::DepositKeys;
use shoal_payments::config::{Chain, Finality};
use shoal_payments::metrics::WatcherMetrics;
use shoal_payments::rpc::TRANSFER_TOPIC;
use shoal_payments::watcher::Watcher;
use shoal_store::Store;

const XPUB: &str = "xpub6DyUKdwoLWmUJ4Tn9Bbsdtx7B5Ws18mEN19e5HT52ikE53FiUheSQXrZUNPovqfyKmw4579A1Mm3GXXKM39N64uooBfJ4tNAzFsEbodRTx4";
const TOKEN: &str = "0x5fbdb2315678afecb367f032d93f642f64180aa3";
const OTHER_TOKEN: &str = "0xe7f1725e7734ce288f8367e1bb143e90bb3f0512";

/// What the scripted node does: its head, its logs, failures to inject, what it was asked.
#[derive(Default)]
struct Node {
    chain_id: u64,
    latest: u64,
    logs: Vec<Value>,
    /// Answers for the next eth_getLogs calls, in order: a status or a JSON-RPC error.
    failures: Vec<Failure>,
    ranges: Vec<(u64, u64)>,
}

#[derive(Clone, Copy)]
enum Failure {
    Status(u16),
    RpcError,
    Garbage,
}

type Shared = Arc<Mutex<Node>>;

fn hex_u64(v: &Value) -> u64 {
    u64::from_str_radix(v.as_str().unwrap().trim_start_matches("0x"), 16).unwrap()
}

async fn rpc(State(node): State<Shared>, Json(req): Json<Value>) -> Response {
    let mut n = node.lock().unwrap();
    let result = match req["method"].as_str().unwrap() {
        "eth_chainId" => json!(format!("{:#x}", n.chain_id)),
        "eth_blockNumber" => json!(format!("{:#x}", n.latest)),
        "eth_getLogs" => {
            let filter = &req["params"][0];
            let (from, to) = (hex_u64(&filter["fromBlock"]), hex_u64(&filter["toBlock"]));
            n.ranges.push((from, to));
            if !n.failures.is_empty() {
                return match n.failures.remove(0) {
                    Failure::Status(s) => StatusCode::from_u16(s).unwrap().into_response(),
                    Failure::RpcError => Json(json!({"jsonrpc": "2.0", "id": 1,
                        "error": {"code": -32005, "message": "query returned more than 10000 results"}}))
                    .into_response(),
                    Failure::Garbage => "{not json".into_response(),
                };
            }
            // Like a careless node: everything in the range, whatever the filter says.
            let inside = |l: &&Value| (from..=to).contains(&hex_u64(&l["blockNumber"]));
            Value::Array(n.logs.iter().filter(inside).cloned().collect())
        }
        other => panic!("unexpected method {other}"),
    };
    Json(json!({"jsonrpc": "2.0", "id": 1, "result": result})).into_response()
}

async fn start_node(node: Shared) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let app = Router::new().route("/", post(rpc)).with_state(node);
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    format!("http://{addr}/")
}

fn transfer(token: &str, to: &str, units: u64, block: u64, tx: u8) -> Value {
    json!({
        "address": token,
        "topics": [TRANSFER_TOPIC,
                   format!("0x{:0>64}", "f39fd6e51aad88f6f4ce6ab8827279cfffb92266"),
                   format!("0x{:0>64}", to.trim_start_matches("0x"))],
        "data": format!("0x{units:064x}"),
        "blockNumber": format!("{block:#x}"),
        "transactionHash": format!("0x{}", hex::encode([tx; 32])),
        "logIndex": "0x0",
        "removed": false,
    })
}

fn chain(url: &str, chain_id: u64) -> Chain {
    Chain {
        name: "dev".into(),
        rpc_url: url.into(),
        chain_id,
        token: TOKEN.parse().unwrap(),
        symbol: "USDC".into(),
        decimals: 6,
        minimum: 0,
        finality: Finality::Confirmations(2),
        start_block: Some(0),
        max_blocks_per_scan: 10,
        pending_blocks: 10,
        poll_interval: Duration::from_millis(10),
        lease: Duration::from_secs(60),
    }
}

fn watcher(url: &str, chain_id: u64, store: &Store, holder: &str) -> Watcher {
    let keys = DepositKeys::parse(XPUB).unwrap();
    let metrics = Arc::new(WatcherMetrics::default());
    Watcher::new(
        chain(url, chain_id),
        store.clone(),
        keys,
        500,
        metrics,
        holder.into(),
    )
    .unwrap()
}

/// A SQLite store in a temporary folder (kept while the first value lives) with one account.
async fn store_with_account() -> (tempfile::TempDir, Store, i64) {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open_data_dir(dir.path()).await.unwrap();
    let account = store.create_account("a@example.com", 0).await.unwrap();
    (dir, store, account)
}

/// Deposit address `index`, lowercase.
fn address_of(index: u32) -> String {
    DepositKeys::parse(XPUB)
        .unwrap()
        .address(index)
        .unwrap()
        .lower()
}

/// Ticks until the cursor reaches `next`; returns how many ticks failed.
async fn run_to(w: &mut Watcher, store: &Store, next: i64) -> usize {
    let mut failed = 0;
    for _ in 0..100 {
        if store.deposit_cursor(31337, TOKEN).await.unwrap() == Some(next) {
            return failed;
        }
        if w.tick().await.is_err() {
            failed += 1;
        }
    }
    panic!("the cursor never reached {next}");
}

#[tokio::test]
async fn failures_retry_the_same_range_and_nothing_is_credited_twice() {
    let (_dir, store, account) = store_with_account().await;
    let mine = address_of(account as u32);
    let stranger = address_of(999);
    let node = Arc::new(Mutex::new(Node {
        chain_id: 31337,
        latest: 50,
        logs: vec![
            transfer(TOKEN, &mine, 1_000_000, 5, 1),
            transfer(TOKEN, &mine, 2_000_000, 25, 2),
            transfer(TOKEN, &stranger, 7_000_000, 30, 3),
            transfer(OTHER_TOKEN, &mine, 9_000_000, 31, 4),
            transfer(TOKEN, &mine, 500_000, 48, 5),
            // Not final yet (latest 50, two confirmations: final up to 48).
            transfer(TOKEN, &mine, 4_000_000, 49, 6),
        ],
        failures: vec![
            Failure::Status(429),
            Failure::RpcError,
            Failure::Status(502),
            Failure::Garbage,
        ],
        ..Node::default()
    }));
    let url = start_node(node.clone()).await;
    let mut w = watcher(&url, 31337, &store, "gw-a");

    // Blocks 0..=48 in ranges of ten; the four failures hit the first range.
    assert_eq!(run_to(&mut w, &store, 49).await, 4);
    let ranges = node.lock().unwrap().ranges.clone();
    assert_eq!(
        ranges,
        [
            (0, 9),
            (0, 9),
            (0, 9),
            (0, 9),
            (0, 9),
            (10, 19),
            (20, 29),
            (30, 39),
            (40, 48),
            // Caught up: the blocks after the last final one, for the pending set.
            (49, 50)
        ]
    );
    let b = store.balance(account, 0).await.unwrap();
    assert_eq!(b.credits, 500 + 1000 + 250);
    assert!(!w.tick().await.unwrap(), "nothing more is final");

    // Block 49 becomes final; then a rescan from 0 and a second watcher credit nothing again.
    node.lock().unwrap().latest = 51;
    run_to(&mut w, &store, 50).await;
    assert_eq!(store.balance(account, 0).await.unwrap().credits, 3750);
    store.set_deposit_cursor(31337, TOKEN, 0, 0).await.unwrap();
    run_to(&mut w, &store, 50).await;
    assert_eq!(store.balance(account, 0).await.unwrap().credits, 3750);
    assert_eq!(store.list_deposits(None, None, 100).await.unwrap().len(), 4);

    // While gw-a's lease lasts, gw-b does nothing at all.
    let asked = node.lock().unwrap().ranges.len();
    let mut b = watcher(&url, 31337, &store, "gw-b");
    assert!(!b.tick().await.unwrap());
    assert_eq!(node.lock().unwrap().ranges.len(), asked);
    assert!(store
        .verify_ledger()
        .await
        .unwrap()
        .discrepancies
        .is_empty());
}

#[tokio::test]
async fn a_node_on_another_chain_credits_nobody() {
    let (_dir, store, account) = store_with_account().await;
    let mine = address_of(account as u32);
    let node = Arc::new(Mutex::new(Node {
        chain_id: 1,
        latest: 20,
        logs: vec![transfer(TOKEN, &mine, 1_000_000, 5, 1)],
        ..Node::default()
    }));
    let url = start_node(node.clone()).await;
    let mut w = watcher(&url, 31337, &store, "gw-a");
    for _ in 0..3 {
        let err = w.tick().await.unwrap_err().to_string();
        assert!(err.contains("is on chain 1, not 31337"), "{err}");
    }
    assert!(node.lock().unwrap().ranges.is_empty());
    assert_eq!(store.balance(account, 0).await.unwrap().credits, 0);
}

#[tokio::test]
async fn pending_transfers_show_until_final_and_vanish_when_reorged() {
    let (_dir, store, account) = store_with_account().await;
    let mine = address_of(account as u32);
    let node = Arc::new(Mutex::new(Node {
        chain_id: 31337,
        latest: 20,
        logs: vec![
            transfer(TOKEN, &mine, 1_000_000, 19, 1),
            transfer(TOKEN, &mine, 3_000_000, 20, 2),
            transfer(OTHER_TOKEN, &mine, 9_000_000, 20, 3),
        ],
        ..Node::default()
    }));
    let url = start_node(node.clone()).await;
    let mut w = watcher(&url, 31337, &store, "gw-a");
    let pending_txs = |store: Store| async move {
        (store.pending_deposits(account).await.unwrap().into_iter())
            .map(|p| (p.tx_hash[2..4].to_string(), p.block_number, p.amount))
            .collect::<Vec<_>>()
    };

    // Final up to 18: both transfers of the token are pending, the other token's is not.
    run_to(&mut w, &store, 19).await;
    assert_eq!(
        pending_txs(store.clone()).await,
        [("02".into(), 20, 3_000_000), ("01".into(), 19, 1_000_000)]
    );
    let head = store.chain_head(31337, TOKEN).await.unwrap().unwrap();
    assert_eq!((head.head_block, head.final_block), (20, 18));
    assert_eq!(store.balance(account, 0).await.unwrap().credits, 0);

    // A reorg drops transfer 2; block 19 becomes final: 1 is credited, 2 is gone.
    node.lock()
        .unwrap()
        .logs
        .retain(|l| l["blockNumber"] != "0x14");
    node.lock().unwrap().latest = 21;
    run_to(&mut w, &store, 20).await;
    assert!(pending_txs(store.clone()).await.is_empty());
    assert_eq!(store.balance(account, 0).await.unwrap().credits, 500);
    let head = store.chain_head(31337, TOKEN).await.unwrap().unwrap();
    assert_eq!((head.head_block, head.final_block), (21, 19));

    // The node fails the pending read: the tick is not an error and the set stays; the next
    // read finds the new transfer.
    {
        let mut node_now = node.lock().unwrap();
        node_now.logs.push(transfer(TOKEN, &mine, 2_000_000, 21, 4));
        node_now.failures.push(Failure::Status(503));
    }
    assert!(!w.tick().await.unwrap());
    assert!(pending_txs(store.clone()).await.is_empty());
    assert!(!w.tick().await.unwrap());
    assert_eq!(
        pending_txs(store.clone()).await,
        [("04".into(), 21, 2_000_000)]
    );
    assert_eq!(store.balance(account, 0).await.unwrap().credits, 500);
}

#[tokio::test]
async fn zero_value_and_oversized_transfers_make_no_row() {
    let (_dir, store, account) = store_with_account().await;
    let mine = address_of(account as u32);
    let mut oversized = transfer(TOKEN, &mine, 0, 4, 3);
    oversized["data"] = json!(format!("0x{:0>64}", "1".to_owned() + &"0".repeat(32)));
    let node = Arc::new(Mutex::new(Node {
        chain_id: 31337,
        latest: 8,
        logs: vec![
            transfer(TOKEN, &mine, 0, 3, 1),
            transfer(TOKEN, &mine, 1_000_000, 3, 2),
            oversized,
            // Pending (final up to 6): a zero-value one shows nowhere either.
            transfer(TOKEN, &mine, 0, 8, 4),
        ],
        ..Node::default()
    }));
    let url = start_node(node.clone()).await;
    let mut w = watcher(&url, 31337, &store, "gw-a");

    run_to(&mut w, &store, 7).await;
    let recorded = store.list_deposits(Some(account), None, 10).await.unwrap();
    assert_eq!(
        (recorded.iter().map(|d| d.amount.as_str())).collect::<Vec<_>>(),
        ["1000000"]
    );
    assert!(store.pending_deposits(account).await.unwrap().is_empty());
    assert_eq!(store.balance(account, 0).await.unwrap().credits, 500);
}
