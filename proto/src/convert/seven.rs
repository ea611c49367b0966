//! (4, n, 7^tr) conversions.
