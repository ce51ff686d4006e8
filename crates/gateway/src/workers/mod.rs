//! The workers: the pool that dispatches jobs to them, the socket they dial in on (`socket`:
//! the handshake and the read loop; one module per kind for what its messages may do: `chat`,
//! `image`, `span`, `browser`), the seams to the swarm ring (`swarm`) and to browser tabs
//! (`browser`), and other replicas' workers as peers.

pub mod browser;
mod chat;
mod image;
pub mod peers;
pub mod pool;
pub mod socket;
mod span;
pub mod swarm;
