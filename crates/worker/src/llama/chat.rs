//! The parts of the llama backend that need no llama.cpp, for builds with the `chat` feature
//! alone: the module tree matches `llama/mod.rs`, so paths are the same in both builds.

pub mod grammar;
pub mod output;
pub mod template;
pub mod test_model;
