//! `solver-server`: the coordinator library.
