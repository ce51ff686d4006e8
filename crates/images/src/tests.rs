//! The image driver in process: a real SQLite store, the real pool, and a worker played by
//! the test on the pool's side of the socket.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use base64::Engine as _;
use shoal_protocol::worker::{ErrorCode, GatewayMessage, ServedModel, WorkerKind};
use shoal_store::{AccountId, Store};
use tokio::sync::{mpsc, watch};

use shoal_gateway::pool::{ImageEvent, WorkerId};
use shoal_gateway::{FileConfig, GatewayConfig};

use super::*;
use crate::check::{Asked, OutputCheck, PngOnly, Verdict};
use crate::render::{self, Failure, ImageContext, Progress};

struct Withhold;
impl OutputCheck for Withhold {
    fn check(&self, _: &[u8], _: Asked) -> Verdict {
        Verdict::Withheld
    }
}

/// Judges every image the same way.
struct Always(Verdict);
impl OutputCheck for Always {
    fn check(&self, _: &[u8], _: Asked) -> Verdict {
        self.0
    }
}

/// Compiled once: the lexicons take a while to build, and every test uses the same ones.
static POLICY: std::sync::LazyLock<ContentPolicy> =
    std::sync::LazyLock::new(ContentPolicy::builtin);

async fn setup(credits: i64, check: Arc<dyn OutputCheck>) -> (Images, AccountId) {
    let file = FileConfig {
        request_timeout_secs: Some(2),
        queue_timeout_secs: Some(1),
        ..Default::default()
    };
    let config = GatewayConfig::from_file(file).unwrap();
    let store = Store::open("sqlite::memory:").await.unwrap();
    let account = store
        .create_account("a@example.com", now_ms())
        .await
        .unwrap();
    if credits > 0 {
        store
            .grant_credits(account, credits, now_ms())
            .await
            .unwrap();
    }
    let app = AppState::new(config, store);
    let state = Images::new(&app, POLICY.clone(), check);
    (state, account)
}

/// A worker on the pool: its outbox is what the gateway sends it.
fn connect(state: &Images, capacity: u32) -> (WorkerId, mpsc::UnboundedReceiver<GatewayMessage>) {
    let (tx, rx) = mpsc::unbounded_channel();
    let model = ServedModel {
        id: "sd-test".into(),
        ..Default::default()
    };
    let id = state
        .app
        .pool
        .register(WorkerKind::Image, vec![model], HashMap::new(), capacity, tx);
    (id, rx)
}

fn png_header(width: u32, height: u32) -> String {
    let mut png = b"\x89PNG\r\n\x1a\n\x00\x00\x00\x0dIHDR".to_vec();
    png.extend_from_slice(&width.to_be_bytes());
    png.extend_from_slice(&height.to_be_bytes());
    png.extend_from_slice(&[8, 2, 0, 0, 0]);
    base64::engine::general_purpose::STANDARD.encode(png)
}

fn context(account: AccountId, progress: Option<watch::Sender<Progress>>) -> ImageContext {
    let params = params::parse_generate(
        br#"{"prompt": "a lighthouse", "width": 512, "height": 640, "seed": 42}"#,
    )
    .unwrap();
    ImageContext {
        request_id: request_id(),
        account_id: account,
        free_daily: 0,
        key_id: None,
        job: job_request(params),
        nsfw: false,
        progress,
    }
}

/// Answers every image job on this worker with progress and a PNG of the asked size.
fn render_everything(
    state: Images,
    worker: WorkerId,
    mut jobs: mpsc::UnboundedReceiver<GatewayMessage>,
) {
    tokio::spawn(async move {
        while let Some(msg) = jobs.recv().await {
            if let GatewayMessage::ImageJob {
                job_id, request, ..
            } = msg
            {
                let progress = ImageEvent::Progress {
                    step: 1,
                    steps: request.steps,
                };
                state.app.pool.deliver_image(worker, &job_id, progress);
                let png_base64 = png_header(request.width, request.height);
                state
                    .app
                    .pool
                    .deliver_image(worker, &job_id, ImageEvent::Image { png_base64 });
            }
        }
    });
}

async fn next_job(jobs: &mut mpsc::UnboundedReceiver<GatewayMessage>) -> String {
    match tokio::time::timeout(Duration::from_secs(5), jobs.recv()).await {
        Ok(Some(GatewayMessage::ImageJob { job_id, .. })) => job_id,
        other => panic!("expected an image job, got {other:?}"),
    }
}

async fn credits(state: &Images, account: AccountId) -> (i64, i64) {
    let b = state.app.store.balance(account, now_ms()).await.unwrap();
    (b.credits, b.credits_held)
}

#[tokio::test]
async fn an_image_is_charged_10_credits_and_progress_is_relayed() {
    let (state, account) = setup(100, Arc::new(PngOnly)).await;
    let (worker, jobs) = connect(&state, 1);
    render_everything(state.clone(), worker, jobs);
    let (tx, rx) = watch::channel(Progress::default());
    let rendered = render::run(state.clone(), context(account, Some(tx)))
        .await
        .unwrap();
    assert_eq!(rendered.model, "sd-test");
    assert_eq!(rendered.png_base64, png_header(512, 640));
    assert_eq!(*rx.borrow(), Progress { step: 1, steps: 32 });
    assert_eq!(credits(&state, account).await, (90, 0));
    assert!(state
        .app
        .store
        .verify_ledger()
        .await
        .unwrap()
        .discrepancies
        .is_empty());
}

#[tokio::test]
async fn nine_credits_are_not_enough_and_nothing_is_dispatched() {
    let (state, account) = setup(9, Arc::new(PngOnly)).await;
    let (_, mut jobs) = connect(&state, 1);
    let (failure, e) = render::run(state.clone(), context(account, None))
        .await
        .unwrap_err();
    assert_eq!(
        (failure, e.status.as_u16(), e.code),
        (Failure::InsufficientCredits, 402, "insufficient_credits")
    );
    assert!(jobs.try_recv().is_err(), "nothing may reach a worker");
    assert_eq!(credits(&state, account).await, (9, 0));
}

#[tokio::test]
async fn no_image_worker_is_a_503_and_the_hold_is_voided() {
    let (state, account) = setup(100, Arc::new(PngOnly)).await;
    // A text worker does not render images.
    let (tx, _text_jobs) = mpsc::unbounded_channel();
    let chat = ServedModel {
        id: "large-27b-uncensored".into(),
        ..Default::default()
    };
    state
        .app
        .pool
        .register(WorkerKind::Upstream, vec![chat], HashMap::new(), 4, tx);
    let (failure, e) = render::run(state.clone(), context(account, None))
        .await
        .unwrap_err();
    assert_eq!(
        (failure, e.status.as_u16(), e.retry_after),
        (Failure::NoWorker, 503, Some(5))
    );
    assert_eq!(credits(&state, account).await, (100, 0));
}

#[tokio::test]
async fn a_failing_worker_is_refunded_and_a_retryable_failure_fails_over() {
    let (state, account) = setup(100, Arc::new(PngOnly)).await;
    let (worker, mut jobs) = connect(&state, 1);
    let task = tokio::spawn(render::run(state.clone(), context(account, None)));
    let job = next_job(&mut jobs).await;
    let failed = ImageEvent::Failed {
        code: ErrorCode::InferenceFailed,
        retryable: false,
    };
    state.app.pool.deliver_image(worker, &job, failed);
    let (failure, e) = task.await.unwrap().unwrap_err();
    assert_eq!((failure, e.status.as_u16()), (Failure::WorkerFailed, 502));
    assert_eq!(credits(&state, account).await, (100, 0));

    let (second, second_jobs) = connect(&state, 1);
    render_everything(state.clone(), second, second_jobs);
    let task = tokio::spawn(render::run(state.clone(), context(account, None)));
    // Whichever worker got it first: the test's worker fails it retryably, or the other
    // renders it.
    if let Ok(Some(GatewayMessage::ImageJob { job_id, .. })) =
        tokio::time::timeout(Duration::from_secs(1), jobs.recv()).await
    {
        let lost = ImageEvent::Failed {
            code: ErrorCode::UpstreamUnavailable,
            retryable: true,
        };
        state.app.pool.deliver_image(worker, &job_id, lost);
    }
    assert_eq!(task.await.unwrap().unwrap().model, "sd-test");
    assert_eq!(credits(&state, account).await, (90, 0));
}

#[tokio::test]
async fn a_withheld_image_voids_the_hold() {
    let (state, account) = setup(100, Arc::new(Withhold)).await;
    let (worker, jobs) = connect(&state, 1);
    render_everything(state.clone(), worker, jobs);
    let (failure, e) = render::run(state.clone(), context(account, None))
        .await
        .unwrap_err();
    assert_eq!(
        (failure, e.status.as_u16(), e.code),
        (Failure::OutputWithheld, 400, "content_policy_violation")
    );
    assert_eq!(credits(&state, account).await, (100, 0));
}

#[tokio::test]
async fn classifier_verdicts_are_refunded_answers_and_blocks_are_counted_by_rule() {
    let cases = [
        (
            Verdict::AdultInSfw,
            Failure::NsfwOutputBlocked,
            400,
            "nsfw_output_blocked",
        ),
        (
            Verdict::MinorWithAdult,
            Failure::AbsoluteLine,
            400,
            "content_policy_violation",
        ),
        (
            Verdict::MinorInNsfw,
            Failure::AbsoluteLine,
            400,
            "content_policy_violation",
        ),
        (
            Verdict::Unavailable,
            Failure::CheckUnavailable,
            503,
            "image_check_unavailable",
        ),
    ];
    for (verdict, failure, status, code) in cases {
        let (state, account) = setup(100, Arc::new(Always(verdict))).await;
        let (worker, jobs) = connect(&state, 1);
        render_everything(state.clone(), worker, jobs);
        let (got, e) = render::run(state.clone(), context(account, None))
            .await
            .unwrap_err();
        assert_eq!((got, e.status.as_u16(), e.code), (failure, status, code));
        assert_eq!(credits(&state, account).await, (100, 0), "{code}");
        let metrics = state.app.metrics.encode();
        let line = |rule: &str| format!("shoal_image_outputs_blocked_total{{rule=\"{rule}\"}} 1");
        assert_eq!(
            metrics.contains(&line("adult")),
            verdict == Verdict::AdultInSfw
        );
        assert_eq!(
            metrics.contains(&line("minor_with_adult")),
            verdict == Verdict::MinorWithAdult
        );
        assert_eq!(
            metrics.contains(&line("minor_in_nsfw")),
            verdict == Verdict::MinorInNsfw
        );
    }
}

#[tokio::test]
async fn a_malformed_image_is_not_returned_or_charged() {
    let (state, account) = setup(100, Arc::new(PngOnly)).await;
    let (worker, mut jobs) = connect(&state, 1);
    let task = tokio::spawn(render::run(state.clone(), context(account, None)));
    let job = next_job(&mut jobs).await;
    let wrong_size = ImageEvent::Image {
        png_base64: png_header(64, 64),
    };
    state.app.pool.deliver_image(worker, &job, wrong_size);
    let (failure, _) = task.await.unwrap().unwrap_err();
    assert_eq!(failure, Failure::WorkerFailed);
    assert_eq!(credits(&state, account).await, (100, 0));
}

#[tokio::test]
async fn a_client_that_leaves_cancels_the_job_and_voids_the_hold() {
    let (state, account) = setup(100, Arc::new(PngOnly)).await;
    let (_, mut jobs) = connect(&state, 1);
    let task = tokio::spawn(render::run(state.clone(), context(account, None)));
    let job = next_job(&mut jobs).await;
    assert_eq!(credits(&state, account).await, (100, 10), "10 held");
    task.abort();
    match tokio::time::timeout(Duration::from_secs(5), jobs.recv()).await {
        Ok(Some(GatewayMessage::Cancel { job_id })) => assert_eq!(job_id, job),
        other => panic!("expected a cancel, got {other:?}"),
    }
    let deadline = std::time::Instant::now() + Duration::from_secs(5);
    while credits(&state, account).await != (100, 0) {
        assert!(
            std::time::Instant::now() < deadline,
            "the hold was not voided"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

#[tokio::test]
async fn a_silent_worker_times_out_and_is_refunded() {
    let (state, account) = setup(100, Arc::new(PngOnly)).await;
    let (_, mut jobs) = connect(&state, 1);
    let task = tokio::spawn(render::run(state.clone(), context(account, None)));
    next_job(&mut jobs).await;
    let (failure, e) = task.await.unwrap().unwrap_err();
    assert_eq!((failure, e.status.as_u16()), (Failure::Timeout, 504));
    assert_eq!(credits(&state, account).await, (100, 0));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn concurrent_image_requests_never_overspend() {
    let (state, account) = setup(35, Arc::new(PngOnly)).await;
    let (worker, jobs) = connect(&state, 16);
    render_everything(state.clone(), worker, jobs);
    let requests: Vec<_> = (0..16)
        .map(|_| tokio::spawn(render::run(state.clone(), context(account, None))))
        .collect();
    let mut ok = 0;
    for r in requests {
        match r.await.unwrap() {
            Ok(_) => ok += 1,
            Err((failure, _)) => assert_eq!(failure, Failure::InsufficientCredits),
        }
    }
    assert_eq!(ok, 3);
    assert_eq!(credits(&state, account).await, (5, 0));
    assert!(state
        .app
        .store
        .verify_ledger()
        .await
        .unwrap()
        .discrepancies
        .is_empty());
}

#[test]
fn the_job_carries_the_baseline_negative_prompt_and_a_seed() {
    let params = params::parse_generate(br#"{"prompt": "p", "negative_prompt": "cats"}"#).unwrap();
    let job = job_request(params.clone());
    assert_eq!(
        job.negative_prompt,
        format!("cats, {BASELINE_NEGATIVE_PROMPT}")
    );
    assert!(job.seed <= params::MAX_SEED);
    let bare = job_request(ImageParams {
        negative_prompt: String::new(),
        ..params
    });
    assert_eq!(bare.negative_prompt, BASELINE_NEGATIVE_PROMPT);
    assert!(request_id().starts_with("img-"));
}

/// A streamed request for a 512×640 image with seed 42, as an API key's.
async fn start_stream(
    state: &Images,
    account: AccountId,
    flavor: stream::Flavor,
) -> Result<axum::response::Response, ApiError> {
    let body =
        br#"{"prompt": "a lighthouse", "width": 512, "height": 640, "seed": 42, "stream": true}"#;
    let params = params::parse_generate(body).unwrap();
    let caller = Caller {
        key_id: None,
        account_id: account,
        free_daily: 0,
    };
    let arrived = std::time::Instant::now();
    stream::respond(state.clone(), caller, arrived, params, flavor).await
}

/// Complete SSE events from a streamed body: `(event name, JSON data)`, reading until `want`
/// have arrived or the body ends.
async fn read_events(
    body: &mut axum::body::BodyDataStream,
    buffer: &mut String,
    want: usize,
) -> Vec<(String, serde_json::Value)> {
    use futures::StreamExt;
    let mut events = Vec::new();
    loop {
        while let Some(cut) = buffer.find("\n\n") {
            let block: String = buffer.drain(..cut + 2).collect();
            let mut name = String::new();
            let mut data = String::new();
            for line in block.lines() {
                if let Some(n) = line.strip_prefix("event: ") {
                    name = n.to_owned();
                } else if let Some(d) = line.strip_prefix("data: ") {
                    data.push_str(d);
                }
            }
            if !data.is_empty() {
                events.push((name, serde_json::from_str(&data).unwrap()));
            }
        }
        if events.len() >= want {
            return events;
        }
        let next = tokio::time::timeout(Duration::from_secs(5), body.next()).await;
        match next.expect("the stream stalled") {
            Some(chunk) => buffer.push_str(std::str::from_utf8(&chunk.unwrap()).unwrap()),
            None => return events,
        }
    }
}

#[tokio::test]
async fn a_streamed_answer_sends_progress_then_the_same_result() {
    let (state, account) = setup(100, Arc::new(PngOnly)).await;
    let (worker, jobs) = connect(&state, 1);
    render_everything(state.clone(), worker, jobs);
    let response = start_stream(&state, account, stream::Flavor::Site)
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    assert_eq!(
        response.headers()[axum::http::header::CONTENT_TYPE],
        "text/event-stream"
    );
    let mut body = response.into_body().into_data_stream();
    let events = read_events(&mut body, &mut String::new(), usize::MAX).await;
    let names: Vec<&str> = events.iter().map(|(n, _)| n.as_str()).collect();
    // The worker's step 1 may have replaced step 0 before it was read: the newest wins.
    assert!(names.len() >= 2, "{names:?}");
    assert!(
        names[..names.len() - 1].iter().all(|n| *n == "progress"),
        "{names:?}"
    );
    assert_eq!(events[0].1["steps"], 32);
    let (last, result) = events.last().unwrap();
    assert_eq!(last, "result");
    let expected = format!("data:image/png;base64,{}", png_header(512, 640));
    assert_eq!(result["image"], expected.as_str());
    assert_eq!(
        (&result["seed"], &result["width"], &result["height"]),
        (
            &serde_json::json!(42),
            &serde_json::json!(512),
            &serde_json::json!(640)
        )
    );
    assert_eq!(result["credits_charged"], 10);
    assert_eq!(credits(&state, account).await, (90, 0));
}

#[tokio::test]
async fn a_stream_refused_before_dispatch_keeps_its_status() {
    let (state, account) = setup(9, Arc::new(PngOnly)).await;
    let (_, mut jobs) = connect(&state, 1);
    let e = start_stream(&state, account, stream::Flavor::OpenAi)
        .await
        .unwrap_err();
    assert_eq!((e.status.as_u16(), e.code), (402, "insufficient_credits"));
    assert!(jobs.try_recv().is_err());
}

#[tokio::test]
async fn an_openai_stream_relays_steps_then_a_failure_as_an_error_event_and_refunds() {
    let (state, account) = setup(100, Arc::new(PngOnly)).await;
    let (worker, mut jobs) = connect(&state, 1);
    let response = start_stream(&state, account, stream::Flavor::OpenAi)
        .await
        .unwrap();
    let job = next_job(&mut jobs).await;
    let mut body = response.into_body().into_data_stream();
    let mut buffer = String::new();
    let first = read_events(&mut body, &mut buffer, 1).await;
    let progress = serde_json::json!({"type": "image_generation.progress", "step": 0, "steps": 32});
    assert_eq!(first, vec![("image_generation.progress".into(), progress)]);
    assert_eq!(
        credits(&state, account).await,
        (100, 10),
        "held while rendering"
    );
    let step = ImageEvent::Progress { step: 7, steps: 32 };
    state.app.pool.deliver_image(worker, &job, step);
    let seventh = read_events(&mut body, &mut buffer, 1).await;
    assert_eq!(seventh[0].1["step"], 7);
    let failed = ImageEvent::Failed {
        code: ErrorCode::InferenceFailed,
        retryable: false,
    };
    state.app.pool.deliver_image(worker, &job, failed);
    let rest = read_events(&mut body, &mut buffer, usize::MAX).await;
    assert_eq!(rest.len(), 1, "{rest:?}");
    let (name, error) = &rest[0];
    assert_eq!(name, "error");
    assert_eq!(error["error"]["code"], "worker_error");
    assert_eq!(error["error"]["type"], "server_error");
    assert_eq!(credits(&state, account).await, (100, 0));
}

#[tokio::test]
async fn a_client_leaving_a_stream_voids_the_hold_and_cancels_the_job() {
    let (state, account) = setup(100, Arc::new(PngOnly)).await;
    let (_, mut jobs) = connect(&state, 1);
    let response = start_stream(&state, account, stream::Flavor::Site)
        .await
        .unwrap();
    next_job(&mut jobs).await;
    assert_eq!(credits(&state, account).await, (100, 10));
    drop(response);
    match tokio::time::timeout(Duration::from_secs(5), jobs.recv()).await {
        Ok(Some(GatewayMessage::Cancel { .. })) => {}
        other => panic!("expected a cancel, got {other:?}"),
    }
    for _ in 0..100 {
        if credits(&state, account).await == (100, 0) {
            return;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    panic!("the hold was not voided");
}

fn params(prompt: &str, negative: &str, nsfw: bool) -> ImageParams {
    let body = serde_json::json!({
        "prompt": prompt, "negative_prompt": negative, "nsfw": nsfw,
        "width": 512, "height": 512,
    });
    params::parse_generate(body.to_string().as_bytes()).unwrap()
}

#[tokio::test]
async fn blocked_prompts_suspend_the_key_past_the_limit_and_nothing_is_dispatched() {
    let (state, account) = setup(100, Arc::new(PngOnly)).await;
    let state = state.with_suspension(Suspension::new(2, Duration::from_secs(60)));
    let (worker, mut jobs) = connect(&state, 1);
    let caller = |key_id| Caller {
        key_id,
        account_id: account,
        free_daily: 0,
    };
    let blocked = [
        ("niña desnuda", "", false),
        ("nude, explicit", "old, mature, woman", false),
    ];
    for (prompt, negative, nsfw) in blocked {
        let e = generate(
            &state,
            caller(Some(1)),
            params(prompt, negative, nsfw),
            None,
        )
        .await
        .unwrap_err();
        assert_eq!(
            (e.status.as_u16(), e.code),
            (400, "content_policy_violation")
        );
    }
    // Suspended: even an innocent prompt is refused, before the policy and the hold.
    let e = generate(
        &state,
        caller(Some(1)),
        params("a lighthouse", "", false),
        None,
    )
    .await
    .unwrap_err();
    assert_eq!((e.status.as_u16(), e.code), (403, "images_suspended"));
    assert!(jobs.try_recv().is_err(), "nothing was dispatched");
    assert_eq!(credits(&state, account).await, (100, 0));
    let metrics = state.app.metrics.encode();
    assert!(
        metrics.contains("shoal_image_keys_suspended_total 1"),
        "{metrics}"
    );
    assert!(metrics.contains("shoal_image_requests_total{outcome=\"suspended\"} 1"));

    // Another key of the account still renders; cleared, the first one does too.
    render_everything(state.clone(), worker, jobs);
    let p = || params("a lighthouse", "", false);
    generate(&state, caller(Some(2)), p(), None).await.unwrap();
    state
        .app
        .store
        .clear_image_blocks(account, Some(Some(1)))
        .await
        .unwrap();
    generate(&state, caller(Some(1)), p(), None).await.unwrap();
    assert_eq!(credits(&state, account).await, (80, 0));
}

#[tokio::test]
async fn a_worker_refusing_the_prompt_is_a_blocked_prompt_refunded_and_counted() {
    let (state, account) = setup(100, Arc::new(PngOnly)).await;
    let (worker, mut jobs) = connect(&state, 1);
    let caller = Caller {
        key_id: Some(4),
        account_id: account,
        free_daily: 0,
    };
    let p = params("a lighthouse", "", false);
    let task = tokio::spawn({
        let state = state.clone();
        async move { generate(&state, caller, p, None).await.map(|_| ()) }
    });
    let job = next_job(&mut jobs).await;
    let refused = ImageEvent::Failed {
        code: ErrorCode::PromptRefused,
        retryable: false,
    };
    state.app.pool.deliver_image(worker, &job, refused);
    let e = task.await.unwrap().unwrap_err();
    assert_eq!(
        (e.status.as_u16(), e.code),
        (400, "content_policy_violation")
    );
    assert_eq!(credits(&state, account).await, (100, 0));
    let metrics = state.app.metrics.encode();
    assert!(metrics.contains("shoal_image_prompts_blocked_total{rule=\"worker_prompt_check\"} 1"));
    let rows = state.app.store.image_blocks(Some(account)).await.unwrap();
    assert_eq!((rows[0].key_id, rows[0].blocks), (Some(4), 1));
}
