//! Per-key concurrency: how many requests one API key has in flight at once on this replica,
//! beside the per-minute rate limit. A request takes a slot after the key check and keeps it
//! until its response body is dropped: sent to the end (a stream included), failed, or
//! abandoned by a client that went away. Counted per replica, in memory.

use std::collections::HashMap;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};

use axum::body::{Body, Bytes, HttpBody};
use axum::response::Response;
use hyper::body::{Frame, SizeHint};
use shoal_store::KeyId;

/// Requests in flight, by key; a key with none has no entry.
#[derive(Default)]
pub struct KeySlots {
    in_flight: Mutex<HashMap<KeyId, u32>>,
}

/// One request's slot; dropping it frees the slot.
pub struct Slot {
    slots: Arc<KeySlots>,
    key: KeyId,
}

impl KeySlots {
    /// A slot for `key` if it has fewer than `cap` requests in flight.
    pub fn take(self: &Arc<Self>, key: KeyId, cap: u32) -> Option<Slot> {
        let mut map = self.in_flight.lock().unwrap_or_else(|p| p.into_inner());
        let n = map.get(&key).copied().unwrap_or(0);
        if n >= cap {
            return None;
        }
        map.insert(key, n + 1);
        Some(Slot {
            slots: Arc::clone(self),
            key,
        })
    }

    /// Requests `key` has in flight now.
    pub fn in_flight(&self, key: KeyId) -> u32 {
        let map = self.in_flight.lock().unwrap_or_else(|p| p.into_inner());
        map.get(&key).copied().unwrap_or(0)
    }
}

impl Drop for Slot {
    fn drop(&mut self) {
        let mut map = self
            .slots
            .in_flight
            .lock()
            .unwrap_or_else(|p| p.into_inner());
        if let Some(n) = map.get_mut(&self.key) {
            *n = n.saturating_sub(1);
            if *n == 0 {
                map.remove(&self.key);
            }
        }
    }
}

/// `response` with `slot` tied to its body: freed when the body is dropped.
pub fn hold_until_sent(response: Response, slot: Slot) -> Response {
    response.map(|inner| Body::new(Held { inner, _slot: slot }))
}

/// A response body that keeps a slot while it lives; otherwise the body it wraps.
struct Held {
    inner: Body,
    _slot: Slot,
}

impl HttpBody for Held {
    type Data = Bytes;
    type Error = axum::Error;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, axum::Error>>> {
        Pin::new(&mut self.get_mut().inner).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.inner.size_hint()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_slot_is_freed_when_the_body_is_dropped() {
        let slots = Arc::new(KeySlots::default());
        let first = slots.take(7, 2).expect("first slot");
        let second = slots.take(7, 2).expect("second slot");
        assert!(slots.take(7, 2).is_none(), "a third is over the cap");
        assert!(slots.take(8, 2).is_some(), "another key has its own slots");
        drop(first);
        let third = slots.take(7, 2).expect("a freed slot is taken again");
        let response = hold_until_sent(Response::new(Body::from("body")), second);
        assert_eq!(slots.in_flight(7), 2);
        let bytes = axum::body::to_bytes(response.into_body(), 1024).await;
        assert_eq!(bytes.ok().as_deref(), Some(&b"body"[..]));
        assert_eq!(slots.in_flight(7), 1, "sent to the end: freed");
        drop(third);
        assert_eq!(slots.in_flight(7), 0);
        assert!(slots.in_flight.lock().unwrap().is_empty());
    }
}
