//! What replicas say to each other over NATS, and on which subjects.
//!
//! Under a deployment's prefix `P` (default `shoal`):
//!
//! | subject | from → to | message |
//! | --- | --- | --- |
//! | `P.replicas` | every replica → all | [`Announce`]: its workers' models and free slots |
//! | `P.jobs.R` | origin → replica `R`, request/reply | [`Forward`] → [`Accepted`] |
//! | `P.events.O.J` | runner → origin `O`, job `J` | the worker protocol's `delta`/`done`/`error` |
//! | `P.cancel.R` | origin → replica `R` | [`Cancel`] |
//!
//! Only a forwarded job carries a prompt, to the replica whose worker runs it; nothing here
//! names a key or an account, and NATS core keeps no message once delivered.

use serde::{Deserialize, Serialize};
use shoal_gateway::pool::JobEvent;
use shoal_protocol::worker::{ErrorCode, JobRequest, ServedModel, WorkerMessage};

/// One replica's offer, published every heartbeat and when it changes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Announce {
    pub replica: String,
    pub offers: Vec<OfferWire>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct OfferWire {
    pub model: ServedModel,
    pub free: u32,
}

/// A job for a worker of the replica it is sent to. `job_id` is the origin's.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Forward {
    pub origin: String,
    pub job_id: String,
    pub model: String,
    pub request: JobRequest,
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
}
