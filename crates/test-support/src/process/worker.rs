//! A hand-written worker on a real gateway's worker socket.

use std::time::Duration;

use futures::{SinkExt, StreamExt};
use serde_json::{json, Value};
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::Message;

use super::{admin, Loc, Server};

pub type Socket =
    tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

pub async fn connect(
    s: &Server,
    token: &str,
) -> Result<Socket, tokio_tungstenite::tungstenite::Error> {
    let url = s.url("/api/worker/ws").replace("http://", "ws://");
    let mut req = url.into_client_request().unwrap();
    req.headers_mut()
        .insert("authorization", format!("Bearer {token}").parse().unwrap());
    tokio_tungstenite::connect_async(req)
        .await
        .map(|(ws, _)| ws)
}

pub async fn send(ws: &mut Socket, v: Value) {
    ws.send(Message::Text(v.to_string().into())).await.unwrap();
}

pub async fn recv(ws: &mut Socket) -> Value {
    loop {
        let msg = tokio::time::timeout(Duration::from_secs(10), ws.next())
            .await
            .expect("a message within 10 s")
            .expect("socket open")
            .unwrap();
        if let Message::Text(t) = msg {
            return serde_json::from_str(&t).unwrap();
        }
    }
}

pub fn hello(models: &[&str]) -> Value {
    let models: Vec<Value> = models
        .iter()
        .map(|m| json!({"id": m, "tools": true}))
        .collect();
    json!({"type": "hello", "protocol": 1, "kind": "upstream", "models": models, "concurrency": 1})
}

/// A worker token made in `store`, a socket on `s`, and a `welcome` for serving
/// `service-pro` with `concurrency` slots.
pub async fn welcomed_worker(s: &Server, store: &Loc, concurrency: u32) -> Socket {
    let token = admin(store, &["worker-token", "create", "--name", "t"]);
    let mut ws = connect(s, &token).await.unwrap();
    let mut hello = hello(&["service-pro"]);
    hello["concurrency"] = json!(concurrency);
    send(&mut ws, hello).await;
    assert_eq!(recv(&mut ws).await["type"], "welcome");
    ws
}

/// Answers every job (with one `content` delta, when given) and every cancel with `done`,
/// until the socket has been silent for 3 s.
pub fn answer_every_job(
    mut ws: Socket,
    content: Option<&'static str>,
) -> tokio::task::JoinHandle<()> {
    tokio::spawn(async move {
        let completion_tokens = u32::from(content.is_some());
        while let Ok(Some(Ok(msg))) = tokio::time::timeout(Duration::from_secs(3), ws.next()).await
        {
            let Message::Text(t) = msg else { continue };
            let msg: Value = serde_json::from_str(&t).unwrap();
            let id = msg["job_id"].clone();
            if msg["type"] == "job" {
                if let Some(c) = content {
                    send(
                        &mut ws,
                        json!({"type": "delta", "job_id": id, "content": c}),
                    )
                    .await;
                }
            } else if msg["type"] != "cancel" {
                continue;
            }
            send(&mut ws, json!({"type": "done", "job_id": id, "finish_reason": "stop", "usage": {"prompt_tokens": 3, "completion_tokens": completion_tokens}})).await;
        }
    })
}

/// Answers every job with one delta and a `done` whose usage is `completion_tokens` (at the
/// default prices, 900 nano-USD an output token, 4,000 of them cost 4 credits, a price no
/// minimum charge can fake), and every cancel with `done`, until the socket has been silent
/// for 5 s.
pub fn answer_with_usage(mut ws: Socket, completion_tokens: u64) -> tokio::task::JoinHandle<()> {
    tokio::spawn(async move {
        while let Ok(Some(Ok(msg))) = tokio::time::timeout(Duration::from_secs(5), ws.next()).await
        {
            let Message::Text(t) = msg else { continue };
            let msg: Value = serde_json::from_str(&t).unwrap();
            if msg["type"] != "job" && msg["type"] != "cancel" {
                continue;
            }
            let id = msg["job_id"].clone();
            if msg["type"] == "job" {
                send(
                    &mut ws,
                    json!({"type": "delta", "job_id": id, "content": "hi"}),
                )
                .await;
            }
            let usage = json!({"prompt_tokens": 5, "completion_tokens": completion_tokens});
            send(
                &mut ws,
                json!({"type": "done", "job_id": id, "finish_reason": "stop", "usage": usage}),
            )
            .await;
        }
    })
}

/// Answers each job after `delay` (so holds overlap) with one delta and `usage`; counts the
/// jobs it got, until the socket has been silent for 3 s.
pub fn answer_after(
    mut ws: Socket,
    delay: Duration,
    usage: Value,
) -> tokio::task::JoinHandle<usize> {
    tokio::spawn(async move {
        let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel::<Value>();
        let mut jobs = 0;
        loop {
            tokio::select! {
                msg = tokio::time::timeout(Duration::from_secs(3), ws.next()) => {
                    let Ok(Some(Ok(msg))) = msg else { return jobs };
                    let Message::Text(t) = msg else { continue };
                    let msg: Value = serde_json::from_str(&t).unwrap();
                    if msg["type"] == "job" {
                        jobs += 1;
                        let (tx, id) = (tx.clone(), msg["job_id"].clone());
                        tokio::spawn(async move {
                            tokio::time::sleep(delay).await;
                            let _ = tx.send(id);
                        });
                    }
                }
                Some(id) = rx.recv() => {
                    send(&mut ws, json!({"type": "delta", "job_id": id, "content": "ok"})).await;
                    send(&mut ws, json!({"type": "done", "job_id": id, "finish_reason": "stop",
                        "usage": usage.clone()})).await;
                }
            }
        }
    })
}
