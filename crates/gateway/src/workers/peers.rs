//! The seam to other replicas of this gateway.
//!
//! A replica alone reaches only the workers connected to it. [`Peers`] is what joins it to
//! others: it registers their workers in this replica's pool as peers (`Pool::register_peer`),
//! carries the jobs and cancels the pool sends them to the replica that runs them, and brings
//! their events back through `Pool::deliver`; it also runs the jobs other replicas send here.
//! `shoal-cluster` implements it over NATS, so the gateway links no messaging client; without
//! one the gateway is a single node.

use std::future::Future;
use std::pin::Pin;

use prometheus_client::registry::Registry;

use crate::AppState;

/// Says, when called, whether a link is up.
pub type UpProbe = std::sync::Arc<dyn Fn() -> bool + Send + Sync>;

pub trait Peers: Send + Sync + 'static {
    /// Adds the link's own metrics (hops and their latency) to `/metrics`; called once, when
    /// the gateway's state is built.
    fn register_metrics(&self, _registry: &mut Registry) {}

    /// A probe of whether the link to the other replicas (NATS) is connected (`/ready`). A
    /// probe rather than the peers themselves, which hold the gateway's state once joined.
    fn up_probe(&self) -> UpProbe;

    /// Starts exchanging workers and jobs with the other replicas; called once, inside the
    /// runtime, with the built state.
    fn join(&self, state: AppState);

    /// A clean shutdown begins: the other replicas stop sending jobs here at once (those
    /// running finish), rather than when this one falls silent.
    fn drain(&self) {}

    /// The gateway has stopped serving: waits, bounded, for the jobs run here for other
    /// replicas, then tells them this replica is gone.
    fn leave(&self) -> Pin<Box<dyn Future<Output = ()> + Send + '_>> {
        Box::pin(async {})
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;
    use std::time::Duration;

    use shoal_protocol::worker::{
        GatewayMessage, ImageJobRequest, JobRequest, ServedModel, WorkerKind,
    };
    use tokio::sync::mpsc;

    use crate::workers::pool::{DispatchError, Offer, Pool};

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

    fn structured_request() -> JobRequest {
        serde_json::from_value(serde_json::json!({
            "messages": [{"role": "user", "content": "hi"}], "max_tokens": 4,
            "response_format": {"type": "json_object"}
        }))
        .unwrap()
    }

    #[tokio::test]
    async fn a_structured_job_goes_only_where_structured_outputs_were_announced() {
        let pool = Pool::new(Duration::from_millis(50), 8);
        // An older worker (or a backend without them) here, free; a peer without them.
        let (_old, mut old_rx) = worker(&pool, WorkerKind::Upstream, 4);
        let (_peer, mut peer_rx) = peer(&pool, 4);
        let none = pool.dispatch("m", &structured_request(), &[]).await;
        assert_eq!(none.err(), Some(DispatchError::NoWorker));
        assert!(old_rx.try_recv().is_err() && peer_rx.try_recv().is_err());
        assert!(pool
            .capabilities("m")
            .is_some_and(|m| !m.structured_outputs));

        // A peer whose replica has a worker that enforces them takes it; plain jobs still go
        // to the worker here first.
        let (tx, mut capable_rx) = mpsc::unbounded_channel();
        let structured = ServedModel {
            structured_outputs: true,
            ..model("m")
        };
        let capable = pool.register_peer(structured.clone(), 4, tx);
        let job = pool
            .dispatch("m", &structured_request(), &[])
            .await
            .unwrap();
        assert_eq!(job.worker, capable);
        assert!(matches!(
            capable_rx.try_recv(),
            Ok(GatewayMessage::Job { .. })
        ));
        assert!(old_rx.try_recv().is_err() && peer_rx.try_recv().is_err());
        assert!(pool.capabilities("m").is_some_and(|m| m.structured_outputs));
        let plain = pool.dispatch("m", &request(), &[]).await.unwrap();
        assert_ne!(plain.worker, capable);

        // What this replica offers others says it only when a worker here announced it.
        let offered = |pool: &Pool| pool.offers().iter().any(|o| o.model.structured_outputs);
        assert!(!offered(&pool));
        let (tx, _rx) = mpsc::unbounded_channel();
        pool.register(WorkerKind::Native, vec![structured], HashMap::new(), 1, tx);
        assert!(offered(&pool));
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
        // A span node serves `service-swarm` only through this replica's own ring.
        let _span = worker(&pool, WorkerKind::Swarm, 6);
        assert_eq!(
            pool.offers(),
            [Offer {
                model: model("m"),
                free: 4
            }]
        );
    }

    fn image_request() -> ImageJobRequest {
        ImageJobRequest {
            prompt: "a boat".into(),
            negative_prompt: "blur".into(),
            width: 512,
            height: 512,
            steps: 10,
            cfg: 4.0,
            seed: 1,
        }
    }

    #[tokio::test]
    async fn image_jobs_go_to_an_image_peer_when_no_image_worker_here_is_free() {
        let pool = Pool::new(Duration::from_millis(50), 8);
        let (tx, mut here_rx) = mpsc::unbounded_channel();
        let sd = vec![model("sd")];
        let here = pool.register(WorkerKind::Image, sd, HashMap::new(), 1, tx);
        let (tx, mut there_rx) = mpsc::unbounded_channel();
        let there = pool.register_image_peer(model("sd-xl"), 1, tx);
        assert_eq!(
            pool.image_offers(),
            [Offer {
                model: model("sd"),
                free: 1
            }]
        );
        assert!(
            pool.offers().is_empty(),
            "image workers are not chat offers"
        );
        let first = pool.dispatch_image(&image_request(), &[]).await.unwrap();
        assert_eq!((first.worker, first.model.as_str()), (here, "sd"));
        assert!(matches!(
            here_rx.try_recv(),
            Ok(GatewayMessage::ImageJob { .. })
        ));
        let second = pool.dispatch_image(&image_request(), &[]).await.unwrap();
        assert_eq!((second.worker, second.model.as_str()), (there, "sd-xl"));
        assert!(matches!(
            there_rx.try_recv(),
            Ok(GatewayMessage::ImageJob { .. })
        ));
        // A forwarded image job stays here, on a worker rendering with the model it names.
        let wrong = pool.dispatch_image_here("sd-xl", &image_request()).await;
        assert_eq!(wrong.err(), Some(DispatchError::NoWorker));
        let busy = pool.dispatch_image_here("sd", &image_request()).await;
        assert_eq!(busy.err(), Some(DispatchError::Busy));
    }

    #[tokio::test]
    async fn a_retired_peer_takes_nothing_new_and_leaves_when_its_jobs_end() {
        let pool = Pool::new(Duration::from_millis(50), 8);
        let (busy, _rx) = peer(&pool, 2);
        let (idle, _idle_rx) = peer(&pool, 2);
        let job = pool.dispatch("m", &request(), &[idle]).await.unwrap();
        assert_eq!(job.worker, busy);
        pool.retire_peer(busy);
        pool.retire_peer(idle);
        assert!(!pool.available("m"));
        assert_eq!(pool.connected(), 1, "the idle peer left at once");
        let none = pool.dispatch("m", &request(), &[]).await;
        assert_eq!(none.err(), Some(DispatchError::NoWorker));
        assert!(pool.runs(busy, &job.id), "its job still runs");
        pool.cancel(&job.id);
        pool.abandon(&job.id);
        assert_eq!(pool.connected(), 0);
    }

    #[tokio::test]
    async fn a_dispatch_given_up_while_waiting_gives_its_place_back() {
        let pool = Pool::new(Duration::from_secs(60), 1);
        let (_id, _rx) = peer(&pool, 0);
        let first = request();
        let wait = pool.dispatch("m", &first, &[]);
        let gave_up = tokio::time::timeout(Duration::from_millis(20), wait).await;
        assert!(gave_up.is_err());
        // The one waiting place is free again: a second request waits rather than failing.
        let second = request();
        let second =
            tokio::time::timeout(Duration::from_millis(20), pool.dispatch("m", &second, &[])).await;
        assert!(second.is_err(), "it waited for a slot");
    }
}
