//! `solver-server`: the coordinator library and the stateless rule RPCs.
//!
//! # Layout
//!
//! - [`error`]: the server's error type and its one mapping to `tonic::Status`.
//! - [`rules`]: the stateless `Rules` service (win queries, (4, n, 7^tr) helpers).

pub mod error;
pub mod rules;
