//! The seam to other replicas of this gateway.
//!
//! A replica alone reaches only the workers connected to it. [`Peers`] is what joins it to
//! others: it registers their workers in this replica's pool as peers (`Pool::register_peer`),
//! carries the jobs and cancels the pool sends them to the replica that runs them, and brings
//! their events back through `Pool::deliver`; it also runs the jobs other replicas send here.
//! `shoal-cluster` implements it over NATS, so the gateway links no messaging client; without
//! one the gateway is a single node.

use prometheus_client::registry::Registry;

use crate::AppState;

pub trait Peers: Send + Sync + 'static {
    /// Adds the link's own metrics (hops and their latency) to `/metrics`; called once, when
    /// the gateway's state is built.
    fn register_metrics(&self, _registry: &mut Registry) {}

    /// Starts exchanging workers and jobs with the other replicas; called once, inside the
    /// runtime, with the built state.
    fn join(&self, state: AppState);
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;
    use std::time::Duration;

    use shoal_protocol::worker::{GatewayMessage, JobRequest, ServedModel, WorkerKind};
    use tokio::sync::mpsc;

    use crate::pool::{DispatchError, Offer, Pool};

    fn model(id: &str) -> ServedModel {
        ServedModel {
            id: id.into(),
            tools: true,
            ..Default::default()
        }
    }

    fn request() -> JobRequest {
        serde_json::from_value(serde_json::json!({
            "messages": [{"role": "user", "content": "hi"}], "max_tokens": 4
        }))
        .unwrap()
    }

    type Outbox = mpsc::UnboundedReceiver<GatewayMessage>;

    fn worker(pool: &Pool, kind: WorkerKind, capacity: u32) -> (u64, Outbox) {
        let (tx, rx) = mpsc::unbounded_channel();
        let models = vec![model("m")];
        (
            pool.register(kind, models, HashMap::new(), capacity, tx),
            rx,
        )
    }

    fn peer(pool: &Pool, free: u32) -> (u64, Outbox) {
        let (tx, rx) = mpsc::unbounded_channel();
        (pool.register_peer(model("m"), free, tx), rx)
    }

    #[tokio::test]
    async fn a_worker_here_comes_first_and_a_peer_takes_what_it_cannot() {
        let pool = Pool::new(Duration::from_millis(50), 8);
        let (here, mut here_rx) = worker(&pool, WorkerKind::Upstream, 1);
        let (there, mut there_rx) = peer(&pool, 4);
        let first = pool.dispatch("m", &request(), &[]).await.unwrap();
        assert_eq!(first.worker, here);
        assert!(matches!(here_rx.try_recv(), Ok(GatewayMessage::Job { .. })));
        let second = pool.dispatch("m", &request(), &[]).await.unwrap();
        assert_eq!(second.worker, there);
        match there_rx.try_recv() {
            Ok(GatewayMessage::Job { model, .. }) => assert_eq!(model, "m"),
            other => panic!("{other:?}"),
        }
        // A job another replica forwarded never travels on to a peer.
        let here_only = pool.dispatch_here("m", &request()).await;
        assert_eq!(here_only.err(), Some(DispatchError::Busy));
        pool.unregister(here);
        let here_only = pool.dispatch_here("m", &request()).await;
        assert_eq!(here_only.err(), Some(DispatchError::NoWorker));
        assert!(pool.available("m"), "a peer's model is available here");
    }

    #[tokio::test]
    async fn a_peer_takes_as_many_jobs_as_it_has_free_slots() {
        let pool = Pool::new(Duration::from_millis(50), 8);
        let (id, _rx) = peer(&pool, 0);
        let busy = pool.dispatch("m", &request(), &[]).await;
        assert_eq!(busy.err(), Some(DispatchError::Busy));
        pool.update_peer(id, model("m"), 1);
        let job = pool.dispatch("m", &request(), &[]).await.unwrap();
        assert!(pool.runs(id, &job.id));
        // Its next announcement counts the job running there: no slot is free any more.
        pool.update_peer(id, model("m"), 0);
        let busy = pool.dispatch("m", &request(), &[]).await;
        assert_eq!(busy.err(), Some(DispatchError::Busy));
        pool.unregister(id);
        assert!(!pool.runs(id, &job.id));
        assert!(!pool.available("m"));
    }

    #[tokio::test]
    async fn offers_count_free_slots_of_the_workers_here_only() {
        let pool = Pool::new(Duration::from_millis(50), 8);
        let _a = worker(&pool, WorkerKind::Upstream, 2);
        let _b = worker(&pool, WorkerKind::Native, 3);
        let _image = worker(&pool, WorkerKind::Image, 5);
        let _peer = peer(&pool, 7);
        let _job = pool.dispatch("m", &request(), &[]).await.unwrap();
        assert_eq!(
            pool.offers(),
            [Offer {
                model: model("m"),
                free: 4
            }]
        );
    }
}
