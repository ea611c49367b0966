//! `solver-core`: the game rules and the proof-number search engine.
//!
//! # Layout
//!
//! - [`pns`]: proof-number search over AND/OR DAGs, generic over a [`pns::Game`].
//! - [`games`]: one module per game (`seven`, `havannah`, `hex`, `renju`) with its board,
//!   rules and notation.
//!
//! This crate is pure: no tokio, tonic, RocksDB, files or network. Everything here is
//! deterministic and testable without a runtime.
#![deny(missing_docs)]

pub mod games;
pub mod pns;
