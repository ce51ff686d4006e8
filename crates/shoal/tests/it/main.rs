//! The `shoal` binary's integration tests, one test binary: each module starts real
//! `shoal serve` (and `shoal worker`, `shoal admin`) processes with
//! `shoal_test_support::process` and drives them over HTTP, the worker socket and the admin
//! command line.

mod accounts;
mod api;
mod browser;
mod churn;
mod cluster;
mod cluster_jobs;
mod dashboard;
mod exposed;
mod key_limits;
mod key_slots;
mod keys_api;
mod kill;
mod structured;
mod swarm_step;
mod worker_failover;
mod worker_socket;
