//! `solver-proto`: the `solver.v1` gRPC protocol and the wire <-> domain conversions.
//!
//! The `.proto` files live in `proto/solver/v1/` and are compiled by `build.rs` with `protox`
//! (no system `protoc`). Invalid wire data is rejected at this boundary by the `TryFrom`
//! conversions, with an error naming the field.

/// Generated code of package `solver.v1`.
#[allow(missing_docs, clippy::all)]
pub mod v1 {
    tonic::include_proto!("solver.v1");
}

/// Encoded `FileDescriptorSet` of every `solver.v1` file, for gRPC reflection.
pub const FILE_DESCRIPTOR_SET: &[u8] =
    include_bytes!(concat!(env!("OUT_DIR"), "/solver_descriptor.bin"));

/// Problems in a `Solver.ListProblems` answer that asks for no number (`page_size` 0).
pub const DEFAULT_LIST_PAGE_SIZE: u32 = 100;
/// Most problems in one `Solver.ListProblems` answer: a larger `page_size` is
/// `INVALID_ARGUMENT`.
pub const MAX_LIST_PAGE_SIZE: u32 = 1_000;

pub mod auth;
pub mod convert;
pub mod report;
pub mod work;
