//! `solver-server`: the coordinator library and the stateless rule RPCs.
//!
//! # Layout
//!
//! - [`config`]: command-line flags and `SOLVER_*` environment variables, parsed into valid
//!   types.
//! - [`server`]: [`server::run`], the entry point that serves every gRPC service on a
//!   listener until a shutdown future resolves.
//! - [`store`]: the [`store::Store`] trait over the column families `problems`, `nodes`, `tt`
//!   and `meta`, with a RocksDB and an in-memory implementation.
//! - [`error`]: the server's error type and its one mapping to `tonic::Status`.
//! - [`rules`]: the stateless `Rules` service (win queries, (4, n, 7^tr) helpers).
//! - [`coordinator`]: problems, their PN DAGs, job leases and their persistence.
//! - [`service`]: the `Solver` and `Work` gRPC services over the coordinator, and the bearer
//!   token check.
//!
//! The binary (`src/main.rs`) only parses the configuration, sets up logging and signals,
//! binds the address and calls [`server::run`].

pub mod config;
pub mod coordinator;
pub mod error;
pub mod rules;
pub mod server;
pub mod service;
pub mod store;
