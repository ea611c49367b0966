//! havannah rules (in progress).
