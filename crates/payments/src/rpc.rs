//! A plain Ethereum JSON-RPC client: the three calls the watcher needs, over reqwest.
//!
//! Every failure (transport, timeout, HTTP status such as 429, a JSON-RPC error object, an
//! answer of the wrong shape) is an [`RpcError`]; the watcher backs off and retries the same
//! range, so a node problem can delay a deposit but never skip one.

use std::time::Duration;

use serde_json::{json, Value};

use crate::address::Address;

/// `keccak256("Transfer(address,address,uint256)")`, the ERC-20 Transfer event's topic 0.
pub const TRANSFER_TOPIC: &str =
    "0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef";

#[derive(Debug)]
pub enum RpcError {
    Transport(String),
    Status(u16),
    Node { code: i64, message: String },
    Shape(&'static str),
}

impl std::error::Error for RpcError {}

impl std::fmt::Display for RpcError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RpcError::Transport(e) => write!(f, "node unreachable: {e}"),
            RpcError::Status(s) => write!(f, "node answered HTTP {s}"),
            RpcError::Node { code, message } => write!(f, "node error {code}: {message}"),
            RpcError::Shape(what) => write!(f, "unexpected answer from the node: {what}"),
        }
    }
}

/// One Transfer log, decoded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TransferLog {
    pub token: Address,
    pub to: Address,
    /// `None` when the uint256 does not fit 128 bits.
    pub amount: Option<u128>,
    pub block_number: u64,
    /// `0x` + 64 lowercase hex digits.
    pub tx_hash: String,
    pub log_index: u64,
}

#[derive(Clone)]
pub struct Rpc {
    http: reqwest::Client,
    url: String,
}

impl Rpc {
    pub fn new(url: &str) -> anyhow::Result<Rpc> {
        let http = reqwest::Client::builder()
            .timeout(Duration::from_secs(15))
            .connect_timeout(Duration::from_secs(5))
            .build()?;
        Ok(Rpc {
            http,
            url: url.to_string(),
        })
    }

    async fn call(&self, method: &str, params: Value) -> Result<Value, RpcError> {
        let body = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
        let resp = (self.http.post(&self.url).json(&body).send().await)
            .map_err(|e| RpcError::Transport(e.without_url().to_string()))?;
        if !resp.status().is_success() {
            return Err(RpcError::Status(resp.status().as_u16()));
        }
        let mut v: Value =
            (resp.json().await).map_err(|e| RpcError::Transport(e.without_url().to_string()))?;
        if let Some(err) = v.get("error") {
            return Err(RpcError::Node {
                code: err.get("code").and_then(Value::as_i64).unwrap_or(0),
                message: (err.get("message").and_then(Value::as_str))
                    .unwrap_or("")
                    .chars()
                    .take(200)
                    .collect(),
            });
        }
        v.get_mut("result")
            .map(Value::take)
            .ok_or(RpcError::Shape("no result"))
    }

    pub async fn chain_id(&self) -> Result<u64, RpcError> {
        quantity(&self.call("eth_chainId", json!([])).await?)
    }

    /// The number of the block the tag names (`latest`, `finalized`).
    pub async fn block_number(&self, tag: &str) -> Result<u64, RpcError> {
        if tag == "latest" {
            return quantity(&self.call("eth_blockNumber", json!([])).await?);
        }
        let block = self
            .call("eth_getBlockByNumber", json!([tag, false]))
            .await?;
        quantity(
            block
                .get("number")
                .ok_or(RpcError::Shape("block without number"))?,
        )
    }

    /// Transfer logs of `token` to any of `to` in blocks `from..=to_block`.
    pub async fn transfers(
        &self,
        token: &Address,
        to: &[Address],
        from: u64,
        to_block: u64,
    ) -> Result<Vec<TransferLog>, RpcError> {
        let topics: Vec<String> = to.iter().map(Address::topic).collect();
        let filter = json!({
            "fromBlock": format!("{from:#x}"),
            "toBlock": format!("{to_block:#x}"),
            "address": token.lower(),
            "topics": [TRANSFER_TOPIC, null, topics],
        });
        let logs = self.call("eth_getLogs", json!([filter])).await?;
        let logs = logs
            .as_array()
            .ok_or(RpcError::Shape("logs are not a list"))?;
        logs.iter()
            .filter_map(|l| decode_transfer(l).transpose())
            .collect()
    }
}

/// A hex quantity (`0x1a`).
fn quantity(v: &Value) -> Result<u64, RpcError> {
    let s = v
        .as_str()
        .ok_or(RpcError::Shape("quantity is not a string"))?;
    let digits = s
        .strip_prefix("0x")
        .ok_or(RpcError::Shape("quantity without 0x"))?;
    u64::from_str_radix(digits, 16).map_err(|_| RpcError::Shape("quantity is not hex"))
}

fn word(s: &str) -> Result<[u8; 32], RpcError> {
    let digits = s
        .strip_prefix("0x")
        .ok_or(RpcError::Shape("word without 0x"))?;
    let mut out = [0u8; 32];
    hex::decode_to_slice(digits, &mut out).map_err(|_| RpcError::Shape("word is not 32 bytes"))?;
    Ok(out)
}

/// Decodes one log; `Ok(None)` for a log that is not an ERC-20 Transfer (another event, an
/// ERC-721 Transfer with the id indexed) or one the node marks `removed`.
pub fn decode_transfer(log: &Value) -> Result<Option<TransferLog>, RpcError> {
    let get = |k: &'static str| log.get(k).ok_or(RpcError::Shape(k));
    if log.get("removed").and_then(Value::as_bool) == Some(true) {
        return Ok(None);
    }
    let topics = get("topics")?.as_array().ok_or(RpcError::Shape("topics"))?;
    let data = get("data")?.as_str().ok_or(RpcError::Shape("data"))?;
    if topics.len() != 3
        || topics[0].as_str().map(str::to_ascii_lowercase).as_deref() != Some(TRANSFER_TOPIC)
        || data.len() != 66
    {
        return Ok(None);
    }
    let to = word(topics[2].as_str().ok_or(RpcError::Shape("topic"))?)?;
    let amount = word(data)?;
    let token: Address = (get("address")?.as_str().ok_or(RpcError::Shape("address"))?)
        .parse()
        .map_err(|_| RpcError::Shape("address"))?;
    let tx = word(
        get("transactionHash")?
            .as_str()
            .ok_or(RpcError::Shape("tx"))?,
    )?;
    let mut to_addr = [0u8; 20];
    to_addr.copy_from_slice(&to[12..]);
    let fits = amount[..16].iter().all(|b| *b == 0);
    Ok(Some(TransferLog {
        token,
        to: Address(to_addr),
        amount: fits.then(|| u128::from_be_bytes(amount[16..].try_into().unwrap_or([0; 16]))),
        block_number: quantity(get("blockNumber")?)?,
        tx_hash: format!("0x{}", hex::encode(tx)),
        log_index: quantity(get("logIndex")?)?,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn log(amount_hex: &str) -> Value {
        json!({
            "address": "0x5FbDB2315678afecb367f032d93F642f64180aa3",
            "topics": [
                TRANSFER_TOPIC,
                "0x000000000000000000000000f39fd6e51aad88f6f4ce6ab8827279cfffb92266",
                "0x00000000000000000000000070997970c51812dc3a010c7d01b50e0d17dc79c8"
            ],
            "data": format!("0x{amount_hex:0>64}"),
            "blockNumber": "0x1b",
            "transactionHash": format!("0x{}", "AB".repeat(32)),
            "logIndex": "0x2",
            "removed": false
        })
    }

    #[test]
    fn decodes_a_transfer() {
        let t = decode_transfer(&log("f4240")).unwrap().unwrap();
        assert_eq!(t.amount, Some(1_000_000));
        assert_eq!(t.to.lower(), "0x70997970c51812dc3a010c7d01b50e0d17dc79c8");
        assert_eq!(
            t.token.lower(),
            "0x5fbdb2315678afecb367f032d93f642f64180aa3"
        );
        assert_eq!((t.block_number, t.log_index), (27, 2));
        assert_eq!(t.tx_hash, format!("0x{}", "ab".repeat(32)));
    }

    #[test]
    fn skips_what_is_not_a_final_erc20_transfer() {
        let mut removed = log("1");
        removed["removed"] = json!(true);
        assert_eq!(decode_transfer(&removed).unwrap(), None);
        let mut nft = log("1");
        nft["topics"]
            .as_array_mut()
            .unwrap()
            .push(json!(TRANSFER_TOPIC));
        assert_eq!(decode_transfer(&nft).unwrap(), None);
        let huge = decode_transfer(&log(&"f".repeat(64))).unwrap().unwrap();
        assert_eq!(huge.amount, None);
        let mut bad = log("1");
        bad["blockNumber"] = json!(27);
        assert!(decode_transfer(&bad).is_err());
    }
}
