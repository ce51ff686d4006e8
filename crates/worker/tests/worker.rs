//! The worker against an in-process fake gateway (an axum WebSocket, like the real one) and
//! the scripted upstream of `shoal-test-support` (named scripts: `hello`, `think`, `tools`, …).

use std::io::Write;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use axum::extract::ws::{Message, WebSocket, WebSocketUpgrade};
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::any;
use axum::Router;
use serde_json::{json, Value};
use shoal_protocol::worker::{
    ErrorCode, FinishReason, GatewayMessage, JobUsage, ServedModel, WorkerKind, WorkerMessage,
};
use shoal_test_support::upstream::{Options, Recorded, Upstream, CANARY};
use shoal_worker::{BackendKind, WorkerArgs};
use tokio::sync::{mpsc, oneshot};

const TIMEOUT: Duration = Duration::from_secs(10);

// ---- logs: everything the worker and its dependencies log ----

#[derive(Clone, Default)]
struct LogBuffer(Arc<Mutex<Vec<u8>>>);

impl Write for LogBuffer {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

fn logs() -> &'static LogBuffer {
    static LOGS: OnceLock<LogBuffer> = OnceLock::new();
    LOGS.get_or_init(|| {
        let buffer = LogBuffer::default();
        let writer = buffer.clone();
        tracing_subscriber::fmt()
            // Everything at TRACE, except tungstenite's frame dumps: at TRACE it logs every
            // payload (prompts included), so the binary must cap it at DEBUG.
            .with_env_filter("trace,tungstenite=debug,tokio_tungstenite=debug")
            .with_writer(move || writer.clone())
            .with_ansi(false)
            .init();
        buffer
    })
}

fn assert_no_canary_in_logs() {
    let text = String::from_utf8_lossy(&logs().0.lock().unwrap()).into_owned();
    assert!(text.contains("job done"), "logs were captured");
    assert!(
        !text.contains(CANARY),
        "prompt or completion text in the logs:\n{text}"
    );
}

// ---- the fake gateway ----

struct Connection {
    auth: Option<String>,
    socket: WebSocket,
}

#[derive(Clone)]
struct Gateway {
    sockets: mpsc::UnboundedSender<Connection>,
    token: &'static str,
}

async fn worker_ws(
    State(gw): State<Gateway>,
    headers: HeaderMap,
    upgrade: WebSocketUpgrade,
) -> Response {
    let auth = headers
        .get("authorization")
        .map(|v| v.to_str().unwrap().to_owned());
    if auth.as_deref() != Some(&format!("Bearer {}", gw.token)) {
        return (StatusCode::UNAUTHORIZED, "invalid worker token").into_response();
    }
    upgrade.on_upgrade(move |socket| async move {
        let _ = gw.sockets.send(Connection { auth, socket });
    })
}

async fn fake_gateway(token: &'static str) -> (SocketAddr, mpsc::UnboundedReceiver<Connection>) {
    let (sockets, accepted) = mpsc::unbounded_channel();
    let app = Router::new()
        .route("/api/worker/ws", any(worker_ws))
        .with_state(Gateway { sockets, token });
    (serve(app).await, accepted)
}

async fn serve(app: Router) -> SocketAddr {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    addr
}

async fn send(socket: &mut WebSocket, msg: Value) {
    // Through the real type, so the test speaks what the gateway speaks.
    let msg: GatewayMessage = serde_json::from_value(msg).unwrap();
    socket
        .send(Message::Text(serde_json::to_string(&msg).unwrap().into()))
        .await
        .unwrap();
}

/// The next message that is not a heartbeat; `None` when the socket closed.
async fn recv(socket: &mut WebSocket) -> Option<WorkerMessage> {
    loop {
        let frame = tokio::time::timeout(TIMEOUT, socket.recv())
            .await
            .expect("a message from the worker in time");
        match frame {
            Some(Ok(Message::Text(text))) => match serde_json::from_str(text.as_str()).unwrap() {
                WorkerMessage::Heartbeat => continue,
                msg => return Some(msg),
            },
            Some(Ok(Message::Close(_))) | None | Some(Err(_)) => return None,
            Some(Ok(_)) => continue,
        }
    }
}

async fn accept(accepted: &mut mpsc::UnboundedReceiver<Connection>) -> Connection {
    tokio::time::timeout(TIMEOUT, accepted.recv())
        .await
        .expect("the worker connects in time")
        .unwrap()
}

/// Reads the hello and welcomes the worker.
async fn welcome(socket: &mut WebSocket, heartbeat_ms: u64) -> WorkerMessage {
    let hello = recv(socket).await.expect("hello");
    send(
        socket,
        json!({"type": "welcome", "protocol": 1, "worker_id": "wrk_1",
        "heartbeat_interval_ms": heartbeat_ms, "ignored_models": []}),
    )
    .await;
    hello
}

fn job(job_id: &str, model: &str, prompt: &str) -> Value {
    json!({"type": "job", "job_id": job_id, "model": model, "request": {
        "messages": [
            {"role": "system", "content": format!("be brief {CANARY}")},
            {"role": "user", "content": prompt}
        ],
        "max_tokens": 64, "temperature": 0.2,
        "tools": [{"type": "function", "function": {"name": "get_weather",
            "parameters": {"type": "object", "properties": {"city": {"type": "string"}}}}}]
    }})
}

/// Deltas until the job's `done` or `error`, which is returned last.
async fn until_end(socket: &mut WebSocket, job_id: &str) -> (Vec<WorkerMessage>, WorkerMessage) {
    let mut deltas = Vec::new();
    loop {
        let msg = recv(socket)
            .await
            .expect("the job ends before the socket closes");
        match &msg {
            WorkerMessage::Delta { job_id: id, .. } if id == job_id => deltas.push(msg),
            WorkerMessage::Done { job_id: id, .. } | WorkerMessage::Error { job_id: id, .. }
                if id == job_id =>
            {
                return (deltas, msg)
            }
            other => panic!("unexpected message {other:?}"),
        }
    }
}

fn content(deltas: &[WorkerMessage]) -> String {
    deltas
        .iter()
        .filter_map(|d| match d {
            WorkerMessage::Delta { content, .. } => content.clone(),
            _ => None,
        })
        .collect()
}

struct Worker {
    task: tokio::task::JoinHandle<anyhow::Result<()>>,
    stop: Option<oneshot::Sender<()>>,
}

/// The flags the tests run with: three models, two slots, a short grace.
fn worker_args(gateway: String, upstream: String, token: &str) -> WorkerArgs {
    WorkerArgs {
        gateway: shoal_worker::Gateways {
            urls: vec![gateway],
        },
        token: token.to_owned(),
        backend: BackendKind::Openai,
        upstream: Some(upstream),
        upstream_key: Some("upstream-key".into()),
        serve: vec![
            "small-8b=org/Small-8B-Instruct".parse().unwrap(),
            "large-27b=gemma3:27b,vision,context=131072"
                .parse()
                .unwrap(),
            "small-8b-think".parse().unwrap(),
        ],
        concurrency: 2,
        name: Some("test-worker".into()),
        shutdown_grace: 5,
        upstream_timeout: 5,
        gguf: None,
        mmproj: None,
        ctx: None,
        threads: None,
        frame_dtype: "f32".into(),
    }
}

impl Worker {
    fn start(gateway: SocketAddr, upstream: SocketAddr, token: &str) -> Self {
        Self::start_args(worker_args(
            format!("http://{gateway}"),
            format!("http://{upstream}/v1"),
            token,
        ))
    }

    fn start_args(args: WorkerArgs) -> Self {
        let (stop, stopped) = oneshot::channel::<()>();
        let task = tokio::spawn(shoal_worker::run_until(args, async move {
            let _ = stopped.await;
        }));
        Worker {
            task,
            stop: Some(stop),
        }
    }

    async fn stop(mut self) -> anyhow::Result<()> {
        let _ = self.stop.take().unwrap().send(());
        tokio::time::timeout(TIMEOUT, self.task)
            .await
            .expect("the worker stops in time")
            .unwrap()
    }
}

async fn wait_for(what: &str, cond: impl Fn() -> bool) {
    let deadline = tokio::time::Instant::now() + TIMEOUT;
    while !cond() {
        assert!(
            tokio::time::Instant::now() < deadline,
            "timed out waiting for {what}"
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

#[tokio::test]
async fn serves_jobs_end_to_end() {
    logs();
    let up = Upstream::start(Options::default()).await;
    let up_addr = up.addr;
    let (gw_addr, mut accepted) = fake_gateway("shoal-wt-good").await;
    let worker = Worker::start(gw_addr, up_addr, "shoal-wt-good");

    let Connection { auth, mut socket } = accept(&mut accepted).await;
    assert_eq!(auth.as_deref(), Some("Bearer shoal-wt-good"));
    let hello = welcome(&mut socket, 300).await;
    assert_eq!(
        hello,
        WorkerMessage::Hello {
            protocol: 1,
            kind: WorkerKind::Upstream,
            name: Some("test-worker".into()),
            models: vec![
                ServedModel {
                    id: "small-8b".into(),
                    tools: true,
                    vision: false,
                    reasoning: false,
                    context_length: None,
                    structured_outputs: true
                },
                ServedModel {
                    id: "large-27b".into(),
                    tools: true,
                    vision: true,
                    reasoning: false,
                    context_length: Some(131072),
                    structured_outputs: true
                },
                ServedModel {
                    id: "small-8b-think".into(),
                    tools: true,
                    vision: false,
                    reasoning: true,
                    context_length: None,
                    structured_outputs: true
                },
            ],
            concurrency: 2,
            variant: None,
        }
    );

    // Content, with usage; what the upstream was asked.
    send(&mut socket, job("job_1", "small-8b", "hello")).await;
    let (deltas, end) = until_end(&mut socket, "job_1").await;
    assert_eq!(content(&deltas), format!("Héllo, world {CANARY}"));
    assert_eq!(deltas.len(), 3, "the role-only chunk is no delta");
    assert_eq!(
        end,
        WorkerMessage::Done {
            job_id: "job_1".into(),
            finish_reason: FinishReason::Stop,
            usage: JobUsage {
                prompt_tokens: 12,
                completion_tokens: 3,
                reasoning_tokens: 0,
                cached_tokens: 0,
            }
        }
    );
    let Recorded {
        auth: upstream_auth,
        body,
    } = up.recorded()[0].clone();
    assert_eq!(upstream_auth.as_deref(), Some("Bearer upstream-key"));
    assert_eq!(body["model"], "org/Small-8B-Instruct");
    assert_eq!(body["stream"], true);
    assert_eq!(body["stream_options"]["include_usage"], true);
    assert_eq!(body["max_tokens"], 64);
    assert_eq!(body["temperature"], 0.2);
    assert_eq!(body["messages"][1]["content"], "hello");
    assert_eq!(body["tools"][0]["function"]["name"], "get_weather");
    assert!(body.get("user").is_none(), "no user field upstream");

    // Reasoning, under either name, with reasoning tokens; the bare id maps to itself.
    send(&mut socket, job("job_2", "small-8b-think", "think")).await;
    let (deltas, end) = until_end(&mut socket, "job_2").await;
    let reasoning: Vec<_> = deltas
        .iter()
        .filter_map(|d| match d {
            WorkerMessage::Delta { reasoning, .. } => reasoning.clone(),
            _ => None,
        })
        .collect();
    assert_eq!(reasoning, ["Let me think", "Hmm"]);
    assert_eq!(content(&deltas), "42");
    assert!(matches!(
        end,
        WorkerMessage::Done {
            usage: JobUsage {
                reasoning_tokens: 2,
                completion_tokens: 3,
                ..
            },
            ..
        }
    ));
    assert_eq!(up.recorded()[1].body["model"], "small-8b-think");

    // Tool-call fragments keep their index.
    send(&mut socket, job("job_3", "large-27b", "tools")).await;
    let (deltas, end) = until_end(&mut socket, "job_3").await;
    let fragments: Vec<Value> = deltas
        .iter()
        .map(|d| match d {
            WorkerMessage::Delta {
                tool_calls: Some(calls),
                content: None,
                ..
            } => serde_json::to_value(calls).unwrap(),
            other => panic!("expected a tool-call delta, got {other:?}"),
        })
        .collect();
    assert_eq!(
        fragments,
        [
            json!([{"index": 0, "id": "call_1", "type": "function", "function": {"name": "get_weather", "arguments": ""}}]),
            json!([{"index": 0, "function": {"arguments": "{\"city\":"}}]),
            json!([{"index": 0, "function": {"arguments": "\"Paris\"}"}}]),
        ]
    );
    assert!(
        matches!(&end, WorkerMessage::Done { finish_reason, usage: JobUsage { prompt_tokens: 20, .. }, .. } if *finish_reason == FinishReason::ToolCalls)
    );
    assert_eq!(up.recorded()[2].body["model"], "gemma3:27b");

    // No usage from the upstream: the deltas are counted.
    send(&mut socket, job("job_4", "small-8b", "nousage")).await;
    let (_, end) = until_end(&mut socket, "job_4").await;
    assert_eq!(
        end,
        WorkerMessage::Done {
            job_id: "job_4".into(),
            finish_reason: FinishReason::Length,
            usage: JobUsage {
                prompt_tokens: 0,
                completion_tokens: 2,
                reasoning_tokens: 0,
                cached_tokens: 0,
            }
        }
    );

    // Upstream failures become short codes.
    send(&mut socket, job("job_5", "small-8b", "fail500")).await;
    let (deltas, end) = until_end(&mut socket, "job_5").await;
    assert!(deltas.is_empty());
    assert_eq!(
        end,
        WorkerMessage::Error {
            job_id: "job_5".into(),
            code: ErrorCode::UpstreamUnavailable,
            retryable: true
        }
    );
    send(&mut socket, job("job_6", "small-8b", "reject")).await;
    let (_, end) = until_end(&mut socket, "job_6").await;
    assert_eq!(
        end,
        WorkerMessage::Error {
            job_id: "job_6".into(),
            code: ErrorCode::UpstreamRejected,
            retryable: false
        }
    );
    send(&mut socket, job("job_7", "small-8b", "broken")).await;
    let (deltas, end) = until_end(&mut socket, "job_7").await;
    assert_eq!(deltas.len(), 1);
    assert_eq!(
        end,
        WorkerMessage::Error {
            job_id: "job_7".into(),
            code: ErrorCode::UpstreamStreamBroken,
            retryable: false
        }
    );
    send(&mut socket, job("job_8", "unknown-model", "hello")).await;
    let (_, end) = until_end(&mut socket, "job_8").await;
    assert!(
        matches!(end, WorkerMessage::Error { code, retryable: true, .. } if code == ErrorCode::ModelNotServed)
    );

    // Heartbeats keep coming while idle (every 300 ms here), and pings are answered: the
    // worker stays connected through three silent intervals.
    let mut heartbeats = 0;
    let idle_until = tokio::time::Instant::now() + Duration::from_millis(1500);
    while let Ok(frame) = tokio::time::timeout_at(idle_until, socket.recv()).await {
        match frame {
            Some(Ok(Message::Text(text))) => {
                assert_eq!(
                    serde_json::from_str::<WorkerMessage>(text.as_str()).unwrap(),
                    WorkerMessage::Heartbeat
                );
                heartbeats += 1;
            }
            Some(Ok(_)) => {}
            other => panic!("the worker went away: {other:?}"),
        }
    }
    assert!(heartbeats >= 3, "{heartbeats} heartbeats in 1.5 s");
    assert!(
        accepted.try_recv().is_err(),
        "no reconnect while the gateway answers pings"
    );

    worker.stop().await.unwrap();
    assert!(
        recv(&mut socket).await.is_none(),
        "the socket is closed on shutdown"
    );
    assert_no_canary_in_logs();
}

#[tokio::test]
async fn cancel_stops_the_upstream_and_reports_what_was_delivered() {
    let up = Upstream::start(Options::default()).await;
    let up_addr = up.addr;
    let (gw_addr, mut accepted) = fake_gateway("tok").await;
    let worker = Worker::start(gw_addr, up_addr, "tok");
    let Connection { mut socket, .. } = accept(&mut accepted).await;
    welcome(&mut socket, 1000).await;

    send(&mut socket, job("job_slow", "small-8b", "slow")).await;
    let mut relayed = 0;
    while relayed < 3 {
        match recv(&mut socket).await.unwrap() {
            WorkerMessage::Delta { .. } => relayed += 1,
            other => panic!("unexpected {other:?}"),
        }
    }
    send(&mut socket, json!({"type": "cancel", "job_id": "job_slow"})).await;
    let (late, end) = until_end(&mut socket, "job_slow").await;
    let WorkerMessage::Done {
        finish_reason,
        usage,
        ..
    } = end
    else {
        panic!("expected done, got {end:?}")
    };
    assert_eq!(finish_reason, FinishReason::Stop);
    // Only chunks already on their way (one every 50 ms) may follow the cancel.
    assert!(late.len() <= 3, "{} deltas after the cancel", late.len());
    assert_eq!(
        usage,
        JobUsage {
            prompt_tokens: 0,
            completion_tokens: (relayed + late.len()) as u64,
            reasoning_tokens: 0,
            cached_tokens: 0,
        }
    );
    wait_for("the upstream stream to be dropped", || up.hung_up() == 1).await;

    // The slot is free again: two slow jobs fill both, a third is turned away.
    send(&mut socket, job("a", "small-8b", "slow")).await;
    send(&mut socket, job("b", "small-8b", "slow")).await;
    send(&mut socket, job("c", "small-8b", "slow")).await;
    loop {
        match recv(&mut socket).await.unwrap() {
            WorkerMessage::Delta { job_id, .. } => assert_ne!(job_id, "c"),
            WorkerMessage::Error {
                job_id,
                code,
                retryable,
            } => {
                assert_eq!(
                    (job_id.as_str(), code.as_str(), retryable),
                    ("c", "worker_busy", true)
                );
                break;
            }
            other => panic!("unexpected {other:?}"),
        }
    }
    send(&mut socket, json!({"type": "cancel", "job_id": "a"})).await;
    send(&mut socket, json!({"type": "cancel", "job_id": "b"})).await;
    let mut done = 0;
    while done < 2 {
        if let WorkerMessage::Done { .. } = recv(&mut socket).await.unwrap() {
            done += 1;
        }
    }
    wait_for("both upstream streams to be dropped", || up.hung_up() == 3).await;
    worker.stop().await.unwrap();
}

#[tokio::test]
async fn reconnects_after_the_gateway_drops_it_and_aborts_the_orphaned_job() {
    let up = Upstream::start(Options::default()).await;
    let up_addr = up.addr;
    let (gw_addr, mut accepted) = fake_gateway("tok").await;
    let worker = Worker::start(gw_addr, up_addr, "tok");

    let Connection { mut socket, .. } = accept(&mut accepted).await;
    welcome(&mut socket, 1000).await;
    send(&mut socket, job("job_1", "small-8b", "slow")).await;
    assert!(matches!(
        recv(&mut socket).await,
        Some(WorkerMessage::Delta { .. })
    ));
    drop(socket);

    // The job died with its connection, and the worker dials again.
    wait_for("the orphaned upstream stream to be dropped", || {
        up.hung_up() == 1
    })
    .await;
    let Connection { mut socket, .. } = accept(&mut accepted).await;
    assert!(matches!(
        welcome(&mut socket, 1000).await,
        WorkerMessage::Hello { .. }
    ));
    send(&mut socket, job("job_2", "small-8b", "hello")).await;
    let (_, end) = until_end(&mut socket, "job_2").await;
    assert!(matches!(end, WorkerMessage::Done { .. }));

    worker.stop().await.unwrap();
}

#[tokio::test]
async fn shutdown_finishes_running_jobs_and_refuses_new_ones() {
    let up = Upstream::start(Options::default()).await;
    let up_addr = up.addr;
    let (gw_addr, mut accepted) = fake_gateway("tok").await;
    let Worker { task, stop } = Worker::start(gw_addr, up_addr, "tok");
    let Connection { mut socket, .. } = accept(&mut accepted).await;
    welcome(&mut socket, 1000).await;

    // A job of ~0.3 s that must still complete after the signal.
    send(&mut socket, job("job_1", "small-8b", "slow")).await;
    assert!(matches!(
        recv(&mut socket).await,
        Some(WorkerMessage::Delta { .. })
    ));
    stop.unwrap().send(()).unwrap();
    tokio::time::sleep(Duration::from_millis(100)).await;
    send(&mut socket, job("job_2", "small-8b", "hello")).await;
    let mut refused = false;
    let end = loop {
        match recv(&mut socket)
            .await
            .expect("job_1 ends before the socket closes")
        {
            WorkerMessage::Delta { job_id, .. } => assert_eq!(job_id, "job_1"),
            WorkerMessage::Error {
                job_id,
                code,
                retryable,
            } if job_id == "job_2" => {
                assert_eq!((code, retryable), (ErrorCode::WorkerShuttingDown, true));
                refused = true;
            }
            end => break end,
        }
    };
    assert!(refused);
    // 400 ticks at 50 ms outlast the 5 s grace: the job is handed back, not faked as done.
    assert!(
        matches!(&end, WorkerMessage::Error { job_id, code, retryable: false } if job_id == "job_1" && *code == ErrorCode::WorkerShutdown),
        "{end:?}"
    );
    assert!(recv(&mut socket).await.is_none(), "then the socket closes");
    tokio::time::timeout(TIMEOUT, task)
        .await
        .unwrap()
        .unwrap()
        .unwrap();
}

#[tokio::test]
async fn shutdown_waits_for_a_job_that_finishes_in_time() {
    let up = Upstream::start(Options::default()).await;
    let up_addr = up.addr;
    let (gw_addr, mut accepted) = fake_gateway("tok").await;
    let Worker { task, stop } = Worker::start(gw_addr, up_addr, "tok");
    let Connection { mut socket, .. } = accept(&mut accepted).await;
    welcome(&mut socket, 1000).await;
    send(&mut socket, job("job_1", "small-8b", "think")).await;
    assert!(matches!(
        recv(&mut socket).await,
        Some(WorkerMessage::Delta { .. })
    ));
    stop.unwrap().send(()).unwrap();
    let (_, end) = until_end(&mut socket, "job_1").await;
    assert!(matches!(end, WorkerMessage::Done { .. }), "{end:?}");
    assert!(recv(&mut socket).await.is_none());
    tokio::time::timeout(TIMEOUT, task)
        .await
        .unwrap()
        .unwrap()
        .unwrap();
}

#[tokio::test]
async fn refused_and_bad_tokens_end_the_worker_with_an_error() {
    let up = Upstream::start(Options::default()).await;
    let up_addr = up.addr;
    let (gw_addr, mut accepted) = fake_gateway("tok").await;

    let worker = Worker::start(gw_addr, up_addr, "wrong");
    let err = tokio::time::timeout(TIMEOUT, worker.task)
        .await
        .unwrap()
        .unwrap()
        .unwrap_err();
    assert!(err.to_string().contains("401"), "{err}");

    let worker = Worker::start(gw_addr, up_addr, "tok");
    let Connection { mut socket, .. } = accept(&mut accepted).await;
    assert!(matches!(
        recv(&mut socket).await,
        Some(WorkerMessage::Hello { .. })
    ));
    send(
        &mut socket,
        json!({"type": "refused", "message": "unsupported protocol version"}),
    )
    .await;
    let err = tokio::time::timeout(TIMEOUT, worker.task)
        .await
        .unwrap()
        .unwrap()
        .unwrap_err();
    assert!(
        err.to_string().contains("unsupported protocol version"),
        "{err}"
    );
}

#[tokio::test]
async fn an_unreachable_upstream_is_a_retryable_error() {
    // A port nobody listens on (bound, then released).
    let closed = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .unwrap()
        .local_addr()
        .unwrap();
    let (gw_addr, mut accepted) = fake_gateway("tok").await;
    let worker = Worker::start_args(worker_args(
        format!("http://{gw_addr}"),
        format!("http://{closed}/v1"),
        "tok",
    ));
    let Connection { mut socket, .. } = accept(&mut accepted).await;
    welcome(&mut socket, 1000).await;
    send(&mut socket, job("job_1", "small-8b", "hello")).await;
    let (deltas, end) = until_end(&mut socket, "job_1").await;
    assert!(deltas.is_empty());
    assert_eq!(
        end,
        WorkerMessage::Error {
            job_id: "job_1".into(),
            code: ErrorCode::UpstreamUnavailable,
            retryable: true
        }
    );
    worker.stop().await.unwrap();
}

#[tokio::test]
async fn https_gateways_are_dialled_over_tls_and_retried() {
    // A "gateway" that accepts TCP and hangs up: the TLS handshake fails, and the worker keeps
    // dialling (two attempts seen) instead of exiting or panicking.
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let gw_addr = listener.local_addr().unwrap();
    let worker = Worker::start_args(worker_args(
        format!("https://{gw_addr}"),
        "http://127.0.0.1:9/v1".into(),
        "tok",
    ));
    for _ in 0..2 {
        let (tcp, _) = tokio::time::timeout(TIMEOUT, listener.accept())
            .await
            .unwrap()
            .unwrap();
        drop(tcp);
    }
    worker.stop().await.unwrap();
}
