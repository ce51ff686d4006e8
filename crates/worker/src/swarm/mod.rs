//! The swarm backend's pieces: a span node runs layers `[a, b)` of a model too large for one
//! machine; a chain of span nodes that covers every layer serves it (`service-swarm`).
//!
//! [`slice`] cuts span files out of a GGUF model ([`gguf`] is the format, just enough of it);
//! `span` (feature `llama`) runs a span file in llama.cpp: hidden states in, hidden states
//! (or, in the last span, logits) out; `node` is `--backend swarm` around it, and `entry` the
//! text side of a chain's first node.

#[cfg(feature = "llama")]
mod entry;
pub mod gguf;
#[cfg(feature = "llama")]
pub mod node;
pub mod slice;
#[cfg(feature = "llama")]
pub mod span;
