//! The workers: the pool that dispatches jobs to them, the socket they dial in on, the rules
//! for browser tabs, the swarm ring of span nodes, and other replicas' workers as peers.

pub mod browser;
pub mod peers;
pub mod pool;
pub mod socket;
pub mod swarm;
