//! Game rules, one module per game. Nothing here depends on the search engine's internals.

pub mod havannah;
pub mod hex;
pub mod renju;
pub mod seven;
