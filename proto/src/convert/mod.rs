//! Wire <-> domain conversions. Invalid wire data is rejected here, once, with a
//! [`WireError`] naming the offending field.

pub mod havannah;
pub mod hex;
pub mod renju;
pub mod seven;

/// A request field that does not hold a valid value.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{field}: {message}")]
pub struct WireError {
    /// The field's path in the request, e.g. `position.rows`.
    pub field: String,
    /// What is wrong with it.
    pub message: String,
}

impl WireError {
    /// A new error for `field`.
    pub fn new(field: impl Into<String>, message: impl Into<String>) -> Self {
        Self {
            field: field.into(),
            message: message.into(),
        }
    }
}
