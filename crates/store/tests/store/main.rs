//! The store's test suite. Every test body runs against both backends (see `harness`).

mod fixtures;
mod harness;
mod private_pg;

mod accounts;
mod batches;
mod deposits;
mod faults;
mod image_blocks;
mod keys;
mod ledger;
mod people;
mod pruning;
mod rules;
mod sim_deposits;
mod sim_model;
mod simulation;
mod status;
