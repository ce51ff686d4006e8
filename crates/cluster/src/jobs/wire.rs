//! What replicas say to each other over NATS, and on which subjects.
//!
//! Under a deployment's prefix `P` (default `shoal`):
//!
//! | subject | from → to | message |
//! | --- | --- | --- |
//! | `P.replicas` | every replica → all | [`Announce`]: its workers' models and free slots |
//! | `P.jobs.R` | origin → replica `R`, request/reply | [`Forward`] → [`Accepted`] |
//! | `P.events.O.J` | runner → origin `O`, job `J` | the worker protocol's `delta`/`done`/`error`, `progress`; image parts |
//! | `P.cancel.R` | origin → replica `R` | [`Cancel`] |
//!
//! An image crosses back in parts (NATS refuses messages over its `max_payload`, 1 MiB by
//! default, and a PNG is often larger): messages with the header [`IMAGE_PART`] = `i/n`
//! whose payloads, in order, are the PNG's base64 text; the last part ends the job.
//!
//! Only a forwarded job carries a prompt, to the replica whose worker runs it, and only its
//! events carry the completion or the image back; nothing here names a key or an account, and
//! NATS core keeps no message once delivered.

use bytes::Bytes;
use serde::{Deserialize, Serialize};
use shoal_gateway::pool::{ImageEvent, JobEvent};
use shoal_protocol::worker::{ErrorCode, ImageJobRequest, JobRequest, ServedModel, WorkerMessage};

/// The header that marks a part of an image, `index/count` (index from 0).
pub const IMAGE_PART: &str = "Shoal-Image-Part";
/// Room left in a part's message for its subject and headers.
const PART_OVERHEAD: usize = 512;

/// One replica's offer, published every heartbeat and when it changes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Announce {
    pub replica: String,
    /// Chat models.
    pub offers: Vec<OfferWire>,
    /// Image workers, by the model they render with.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub images: Vec<OfferWire>,
    #[serde(default, skip_serializing_if = "ReplicaState::is_serving")]
    pub state: ReplicaState,
}

/// Where a replica is in its life; a clean shutdown is `draining`, then `gone`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ReplicaState {
    #[default]
    Serving,
    /// Shutting down: it takes no new job, and finishes those it runs.
    Draining,
    /// Stopped: whatever it still ran for others is lost.
    Gone,
}

impl ReplicaState {
    fn is_serving(&self) -> bool {
        *self == ReplicaState::Serving
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct OfferWire {
    pub model: ServedModel,
    pub free: u32,
}

/// A job for a worker of the replica it is sent to. `job_id` is the origin's. Exactly one of
/// `request` (a chat job) and `image` (an image job, `model` the one its workers render with)
/// is set.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Forward {
    pub origin: String,
    pub job_id: String,
    pub model: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request: Option<JobRequest>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub image: Option<ImageJobRequest>,
}

/// The work a [`Forward`] carries.
// Made once per job and moved once: boxing the larger one would only add an allocation.
#[allow(clippy::large_enum_variant)]
pub enum Work {
    Chat(JobRequest),
    Image(ImageJobRequest),
}

impl Forward {
    /// Its work, or `None` when it carries none or both.
    pub fn into_work(self) -> Option<Work> {
        match (self.request, self.image) {
            (Some(r), None) => Some(Work::Chat(r)),
            (None, Some(i)) => Some(Work::Image(i)),
            _ => None,
        }
    }
}

/// The answer to a [`Forward`]: taken by a worker there, or why not.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Accepted {
    pub accepted: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub refused: Option<ErrorCode>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Cancel {
    pub origin: String,
    pub job_id: String,
}

/// The subjects of one deployment.
#[derive(Debug, Clone)]
pub struct Subjects {
    prefix: String,
}

impl Subjects {
    pub fn new(prefix: &str) -> Self {
        Subjects {
            prefix: prefix.trim_end_matches('.').to_owned(),
        }
    }
    pub fn replicas(&self) -> String {
        format!("{}.replicas", self.prefix)
    }
    pub fn jobs(&self, replica: &str) -> String {
        format!("{}.jobs.{replica}", self.prefix)
    }
    pub fn events(&self, origin: &str, job_id: &str) -> String {
        format!("{}.events.{origin}.{job_id}", self.prefix)
    }
    pub fn cancel(&self, replica: &str) -> String {
        format!("{}.cancel.{replica}", self.prefix)
    }
}

/// A job's event as it crosses to the origin: the worker protocol's own message.
pub fn event_to_wire(job_id: String, event: JobEvent) -> WorkerMessage {
    match event {
        JobEvent::Delta {
            content,
            reasoning,
            tool_calls,
        } => WorkerMessage::Delta {
            job_id,
            content,
            reasoning,
            tool_calls,
        },
        JobEvent::Done {
            finish_reason,
            usage,
        } => WorkerMessage::Done {
            job_id,
            finish_reason,
            usage,
        },
        JobEvent::Failed { code, retryable } => WorkerMessage::Error {
            job_id,
            code,
            retryable,
        },
    }
}

/// The event a message from the runner stands for; `None` for what a chat job never sends.
pub fn event_from_wire(message: WorkerMessage) -> Option<JobEvent> {
    match message {
        WorkerMessage::Delta {
            content,
            reasoning,
            tool_calls,
            ..
        } => Some(JobEvent::Delta {
            content,
            reasoning,
            tool_calls,
        }),
        WorkerMessage::Done {
            finish_reason,
            usage,
            ..
        } => Some(JobEvent::Done {
            finish_reason,
            usage,
        }),
        WorkerMessage::Error {
            code, retryable, ..
        } => Some(JobEvent::Failed { code, retryable }),
        _ => None,
    }
}

/// An image job's event as it crosses to the origin: JSON for progress and errors, the
/// image as parts of at most `max_payload` bytes each (see the module documentation).
pub fn image_event_to_wire(
    job_id: String,
    event: ImageEvent,
    max_payload: usize,
) -> Vec<(Option<async_nats::HeaderMap>, Bytes)> {
    let message = match event {
        ImageEvent::Image { png_base64 } => return image_parts(png_base64, max_payload),
        ImageEvent::Progress { step, steps } => WorkerMessage::Progress {
            job_id,
            step,
            steps,
        },
        ImageEvent::Failed { code, retryable } => WorkerMessage::Error {
            job_id,
            code,
            retryable,
        },
    };
    let body = serde_json::to_vec(&message).expect("events serialize");
    vec![(None, body.into())]
}

fn image_parts(
    png_base64: String,
    max_payload: usize,
) -> Vec<(Option<async_nats::HeaderMap>, Bytes)> {
    let size = max_payload.saturating_sub(PART_OVERHEAD).max(1024);
    let whole = Bytes::from(png_base64.into_bytes());
    let count = whole.len().div_ceil(size).max(1);
    (0..count)
        .map(|i| {
            let mut headers = async_nats::HeaderMap::new();
            headers.insert(IMAGE_PART, format!("{i}/{count}").as_str());
            let end = ((i + 1) * size).min(whole.len());
            (Some(headers), whole.slice(i * size..end))
        })
        .collect()
}

/// An image's parts came out of order, too large in all, or not base64 text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BrokenImage;

/// The origin's side of a job's image parts: joins them, in order, into the PNG's base64.
pub struct ImageParts {
    next: usize,
    text: Vec<u8>,
    /// The most bytes an image may take (as on the worker socket).
    limit: usize,
}

impl ImageParts {
    pub fn new(limit: usize) -> Self {
        ImageParts {
            next: 0,
            text: Vec::new(),
            limit,
        }
    }

    /// Adds the part `header` (the [`IMAGE_PART`] value) names: `Ok(Some(png_base64))` once
    /// the last is in, `Ok(None)` before.
    pub fn add(&mut self, header: &str, payload: &[u8]) -> Result<Option<String>, BrokenImage> {
        let (index, count) = header.split_once('/').ok_or(BrokenImage)?;
        let (index, count) = (
            index.parse::<usize>().map_err(|_| BrokenImage)?,
            count.parse::<usize>().map_err(|_| BrokenImage)?,
        );
        if index != self.next || index >= count || self.text.len() + payload.len() > self.limit {
            return Err(BrokenImage);
        }
        if !payload
            .iter()
            .all(|b| b.is_ascii_alphanumeric() || b"+/=".contains(b))
        {
            return Err(BrokenImage);
        }
        self.text.extend_from_slice(payload);
        self.next += 1;
        if self.next < count {
            return Ok(None);
        }
        let text = std::mem::take(&mut self.text);
        Ok(Some(String::from_utf8(text).map_err(|_| BrokenImage)?))
    }
}

/// The event an image job's JSON message stands for; `None` for what an image job never sends.
pub fn image_event_from_wire(message: WorkerMessage) -> Option<ImageEvent> {
    match message {
        WorkerMessage::Progress { step, steps, .. } => Some(ImageEvent::Progress { step, steps }),
        WorkerMessage::Error {
            code, retryable, ..
        } => Some(ImageEvent::Failed { code, retryable }),
        _ => None,
    }
}

/// A subject token from a peer: no separators or wildcards, so it addresses one subject.
pub fn is_token(s: &str) -> bool {
    !s.is_empty()
        && s.len() <= 64
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_cannot_reach_other_subjects() {
        assert!(is_token("job_12"));
        assert!(is_token("0f3a9c"));
        for bad in ["", "a.b", "*", ">", "a b", "job\n", &"x".repeat(65)] {
            assert!(!is_token(bad), "{bad:?}");
        }
    }

    #[test]
    fn subjects_under_the_prefix() {
        let s = Subjects::new("shoal.test.");
        assert_eq!(s.replicas(), "shoal.test.replicas");
        assert_eq!(s.jobs("r1"), "shoal.test.jobs.r1");
        assert_eq!(s.events("r1", "job_3"), "shoal.test.events.r1.job_3");
        assert_eq!(s.cancel("r2"), "shoal.test.cancel.r2");
    }

    fn parts_of(png_base64: &str, max_payload: usize) -> Vec<(String, Bytes)> {
        let event = ImageEvent::Image {
            png_base64: png_base64.to_owned(),
        };
        image_event_to_wire("job_1".into(), event, max_payload)
            .into_iter()
            .map(|(h, body)| (h.unwrap().get(IMAGE_PART).unwrap().to_string(), body))
            .collect()
    }

    #[test]
    fn an_image_crosses_in_parts_that_fit_and_joins_back() {
        let png: String = (0..5000)
            .map(|i| ["A", "b", "9", "+", "/"][i % 5])
            .collect();
        let parts = parts_of(&png, 1024 + PART_OVERHEAD);
        assert_eq!(parts.len(), 5);
        assert!(parts.iter().all(|(_, p)| p.len() <= 1024));
        assert_eq!(parts[4].0, "4/5");
        let mut joined = ImageParts::new(png.len());
        for (h, p) in &parts[..4] {
            assert_eq!(joined.add(h, p), Ok(None));
        }
        assert_eq!(joined.add(&parts[4].0, &parts[4].1), Ok(Some(png.clone())));
        // A small image is one part.
        assert_eq!(parts_of("iVBORw0KGgo=", 1 << 20).len(), 1);
    }

    #[test]
    fn broken_parts_are_refused() {
        let png = "QUJD".repeat(700);
        let parts = parts_of(&png, 1024 + PART_OVERHEAD);
        let mut skipped = ImageParts::new(1 << 20);
        assert_eq!(skipped.add(&parts[1].0, &parts[1].1), Err(BrokenImage));
        let mut small = ImageParts::new(png.len() - 1);
        let all: Result<Vec<_>, _> = parts.iter().map(|(h, p)| small.add(h, p)).collect();
        assert_eq!(all, Err(BrokenImage), "over the limit");
        let mut garbage = ImageParts::new(1 << 20);
        assert_eq!(garbage.add("0/1", b"not base64 {}"), Err(BrokenImage));
        assert_eq!(ImageParts::new(1 << 20).add("x", b"QUJD"), Err(BrokenImage));
        assert_eq!(
            ImageParts::new(1 << 20).add("1/1", b"QUJD"),
            Err(BrokenImage)
        );
    }

    #[test]
    fn progress_and_errors_cross_as_worker_messages() {
        let wire = image_event_to_wire(
            "job_2".into(),
            ImageEvent::Progress { step: 3, steps: 9 },
            1 << 20,
        );
        assert_eq!(wire.len(), 1);
        assert!(wire[0].0.is_none());
        let message: WorkerMessage = serde_json::from_slice(&wire[0].1).unwrap();
        assert_eq!(
            image_event_from_wire(message),
            Some(ImageEvent::Progress { step: 3, steps: 9 })
        );
    }

    #[test]
    fn a_forward_carries_exactly_one_kind_of_work() {
        let image = ImageJobRequest {
            prompt: "p".into(),
            negative_prompt: "n".into(),
            width: 512,
            height: 512,
            steps: 10,
            cfg: 4.0,
            seed: 7,
        };
        let f = Forward {
            origin: "o".into(),
            job_id: "job_1".into(),
            model: "sd".into(),
            request: None,
            image: Some(image),
        };
        let back: Forward = serde_json::from_slice(&serde_json::to_vec(&f).unwrap()).unwrap();
        assert!(matches!(back.clone().into_work(), Some(Work::Image(_))));
        let neither = Forward {
            image: None,
            ..back
        };
        assert!(neither.into_work().is_none());
    }
}
