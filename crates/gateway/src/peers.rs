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
