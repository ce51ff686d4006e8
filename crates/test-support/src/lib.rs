//! What Shoal's Rust tests and benchmarks share, so that each exists once:
//!
//! - [`pg::TempDb`]: a throwaway PostgreSQL database, dropped when the guard is;
//! - [`upstream::Upstream`]: a scripted OpenAI-compatible server, the stand-in for vLLM or
//!   llama-server that `shoal worker --backend openai` fronts (Shoal ships no such server);
//! - [`process`]: real `shoal serve`, `shoal admin` and `shoal worker` processes on ephemeral
//!   ports, the one way a test starts a gateway and its workers.
//!
//! Only tests and benchmarks depend on it; nothing here is in a shipped binary.

pub mod pg;
pub mod process;
pub mod upstream;
