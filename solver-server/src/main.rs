//! The `solver-server` binary.
fn main() {}
