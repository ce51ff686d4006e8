//! Chat completions past the handler: the catalog of models, the price of a request's hold,
//! the check of a request's images and of a structured answer, and the relay that runs its
//! job on a worker and answers the client.

pub mod catalog;
pub mod check;
pub mod images;
pub mod pricing;
pub mod relay;
pub mod shape;
