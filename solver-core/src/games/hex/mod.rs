//! hex rules (in progress).
