//! `"stream": true` on either image endpoint: the render's progress as Server-Sent Events,
//! then one final event carrying the same result as the JSON answer, or an error event.
//!
//! A failure before the first progress event (step 0: a worker has the job) is the ordinary
//! error response with its status (400, 402, 503 with `Retry-After`, …), as without
//! `stream`; from then on, and for every success, the answer is `200 text/event-stream`:
//!
//! | endpoint | progress | success | failure |
//! | --- | --- | --- | --- |
//! | `/api/images/generate` | `progress`: `{"step", "steps"}` | `result`: the image result object | `error`: `{"error": {…}}` |
//! | `/api/v1/images/generations` | `image_generation.progress`: `{"type", "step", "steps"}` | `image_generation.completed`: `{"type", "b64_json", "created_at", "size", "output_format", "model", "seed"}` | `error`: `{"error": {…}}` |
//!
//! (the SSE `event:` name, then its JSON `data:`). The first progress event is step 0 of
//! `steps`: a worker has the job. Billing is the JSON answer's: the hold is settled before
//! the success event is written and voided on any failure, including the client going away
//! (the body stream, and with it the render's future, is dropped).

use std::collections::VecDeque;
use std::future::Future;
use std::pin::Pin;
use std::time::{Duration, Instant};

use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use futures::stream;
use serde_json::json;
use shoal_protocol::error::ErrorBody;
use shoal_protocol::worker::ImageJobRequest;
use tokio::sync::watch;
use utoipa::openapi::schema::{ObjectBuilder, Schema, Type};
use utoipa::openapi::RefOr;
use utoipa::{PartialSchema, ToSchema};

use shoal_gateway::now_ms;
use shoal_gateway::ApiError;
use shoal_gateway::Caller;

use crate::params::ImageParams;
use crate::render::{Progress, Rendered};
use crate::Images;

/// A comment line this often keeps proxies from closing a quiet stream (a step can take
/// seconds on a CPU).
const KEEP_ALIVE: Duration = Duration::from_secs(10);

/// Which endpoint's event names and payloads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flavor {
    /// `/api/images/generate`.
    Site,
    /// `/api/v1/images/generations`, after OpenAI's image stream events.
    OpenAi,
}

type Outcome = Result<(ImageJobRequest, Rendered), ApiError>;
type Rendering = Pin<Box<dyn Future<Output = Outcome> + Send>>;

/// Starts the render and answers: an error response if it fails before a worker has the
/// job, else the event stream.
pub async fn respond(
    state: Images,
    caller: Caller,
    arrived: Instant,
    params: ImageParams,
    flavor: Flavor,
) -> Result<Response, ApiError> {
    let (tx, mut rx) = watch::channel(Progress::default());
    let render_state = state.clone();
    let mut rendering: Rendering =
        Box::pin(async move { crate::generate(&render_state, caller, params, Some(tx)).await });
    let dispatched = tokio::select! {
        biased;
        outcome = &mut rendering => Err(outcome),
        changed = rx.changed() => Ok(changed.is_ok()),
    };
    let mut live = Live {
        rendering: Some(rendering),
        rx,
        pending: VecDeque::new(),
        flavor,
        state,
        arrived,
    };
    match dispatched {
        Err(outcome) => {
            // Ended before its progress was read: a failure keeps its status; a success
            // streams its last progress (step 0 at least) and the result.
            let done = outcome?;
            live.rendering = None;
            let last = *live.rx.borrow_and_update();
            if last.steps > 0 {
                live.pending.push_back(flavor.progress(last));
            }
            let result = live.finish(Ok(done));
            live.pending.push_back(result);
        }
        Ok(true) => {
            let first = *live.rx.borrow_and_update();
            live.pending.push_back(flavor.progress(first));
        }
        Ok(false) => {}
    }
    let events = stream::unfold(live, |mut live| async move {
        let event = live.next().await?;
        Some((Ok::<_, std::convert::Infallible>(event), live))
    });
    Ok(Sse::new(events)
        .keep_alive(KeepAlive::new().interval(KEEP_ALIVE))
        .into_response())
}

/// One streamed answer in progress.
struct Live {
    /// `None` once the result (or error) event is made.
    rendering: Option<Rendering>,
    rx: watch::Receiver<Progress>,
    /// Events made before the stream started, sent first.
    pending: VecDeque<Event>,
    flavor: Flavor,
    state: Images,
    arrived: Instant,
}

enum Step {
    Done(Outcome),
    Changed(bool),
}

impl Live {
    /// The next event: the newest progress, or the end. Progress that arrives faster than the
    /// client reads is coalesced (the newest step wins).
    async fn next(&mut self) -> Option<Event> {
        if let Some(event) = self.pending.pop_front() {
            return Some(event);
        }
        let rendering = self.rendering.as_mut()?;
        let watching = self.rx.has_changed().is_ok();
        let step = tokio::select! {
            biased;
            outcome = rendering.as_mut() => Step::Done(outcome),
            changed = self.rx.changed(), if watching => Step::Changed(changed.is_ok()),
        };
        let outcome = match step {
            Step::Done(outcome) => outcome,
            Step::Changed(true) => {
                let progress = *self.rx.borrow_and_update();
                return Some(self.flavor.progress(progress));
            }
            // The driver has ended: only the outcome is left.
            Step::Changed(false) => self.rendering.as_mut()?.await,
        };
        self.rendering = None;
        Some(self.finish(outcome))
    }

    /// The last event: the result, or the error in the one error shape.
    fn finish(&self, outcome: Outcome) -> Event {
        match outcome {
            Ok((job, rendered)) => {
                let worker_time = rendered.worker_time;
                let event = match self.flavor {
                    Flavor::Site => {
                        let result = crate::image_result(&job, rendered);
                        event("result", &result)
                    }
                    Flavor::OpenAi => completed(&job, rendered),
                };
                crate::observe_overhead(&self.state, self.arrived, worker_time);
                event
            }
            Err(e) => {
                let mut body = ErrorBody::new(e.message, e.kind, e.code);
                body.error.param = e.param;
                event("error", &body)
            }
        }
    }
}

impl Flavor {
    fn progress(self, p: Progress) -> Event {
        match self {
            Flavor::Site => event("progress", &json!({"step": p.step, "steps": p.steps})),
            Flavor::OpenAi => event(
                "image_generation.progress",
                &json!({"type": "image_generation.progress", "step": p.step, "steps": p.steps}),
            ),
        }
    }
}

/// OpenAI's `image_generation.completed`, with what reproduces the image.
fn completed(job: &ImageJobRequest, rendered: Rendered) -> Event {
    let data = json!({
        "type": "image_generation.completed",
        "b64_json": rendered.png_base64,
        "created_at": now_ms() / 1000,
        "size": format!("{}x{}", job.width, job.height),
        "output_format": "png",
        "model": rendered.model,
        "seed": job.seed,
    });
    event("image_generation.completed", &data)
}

fn event(name: &str, data: &impl serde::Serialize) -> Event {
    // The payloads are plain structs and JSON values: serializing them cannot fail.
    let text = serde_json::to_string(data).unwrap_or_else(|_| "{}".to_owned());
    Event::default().event(name).data(text)
}

/// One Server-Sent Event of a streamed image generation (`stream: true`): its `event` name
/// and its JSON `data`: `image_generation.progress` (`{"type", "step", "steps"}`) while the
/// image renders, then `image_generation.completed` (`{"type", "b64_json", "created_at",
/// "size", "output_format", "model", "seed"}`) or `error` (`{"error": {…}}`).
pub struct ImageStreamEvent;

impl PartialSchema for ImageStreamEvent {
    fn schema() -> RefOr<Schema> {
        let names = [
            "image_generation.progress",
            "image_generation.completed",
            "error",
        ];
        let event = ObjectBuilder::new()
            .schema_type(Type::String)
            .enum_values(Some(names));
        let data = ObjectBuilder::new()
            .schema_type(Type::String)
            .content_media_type("application/json");
        ObjectBuilder::new()
            .description(Some(
                "One event of the stream: progress events, then `image_generation.completed` or `error` last",
            ))
            .property("event", event)
            .property("data", data)
            .required("event")
            .required("data")
            .into()
    }
}

impl ToSchema for ImageStreamEvent {}
