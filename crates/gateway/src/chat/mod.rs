//! Chat completions past the handler: the catalog of models, the price of a request's hold,
//! the check of a request's images, and the relay that runs its job on a worker, holds a
//! structured answer to its check (`shoal-answer-check`) and answers the client.

pub mod catalog;
pub mod images;
pub mod pricing;
pub mod relay;
pub mod shape;
