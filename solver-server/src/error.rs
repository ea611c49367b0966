//! The server's error type and its one mapping to `tonic::Status`.

use solver_proto::convert::WireError;

/// Everything an RPC of this server can fail with.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The request is malformed; the message names the field and the problem.
    #[error(transparent)]
    InvalidArgument(#[from] WireError),
    /// The named entity does not exist.
    #[error("{0} not found")]
    NotFound(String),
    /// The request does not fit the current state (a stale or foreign lease).
    #[error("{0}")]
    FailedPrecondition(String),
    /// The server cannot take the request now (draining, or stopping after a failure of its
    /// store or a panic while a request changed its state).
    #[error("{0}")]
    Unavailable(String),
    /// The entity to create exists already with other contents (a reused request id).
    #[error("{0}")]
    AlreadyExists(String),
    /// The server failed: its store (the request may be retried), or a bug (a panic in a
    /// search thread).
    #[error("{0}")]
    Internal(String),
}

/// Most bytes of a status message: a message may quote what the request sent (an id, a name),
/// and a client refuses a status whose message is longer than its header limit (16 KiB for
/// many), so a longer message is [`shortened`](solver_proto::report::shortened).
pub const MAX_STATUS_MESSAGE_BYTES: usize = 1024;

impl From<Error> for tonic::Status {
    fn from(e: Error) -> Self {
        let msg = e.to_string();
        let msg = solver_proto::report::shortened(&msg, MAX_STATUS_MESSAGE_BYTES).into_owned();
        match e {
            Error::InvalidArgument(_) => tonic::Status::invalid_argument(msg),
            Error::NotFound(_) => tonic::Status::not_found(msg),
            Error::FailedPrecondition(_) => tonic::Status::failed_precondition(msg),
            Error::Unavailable(_) => tonic::Status::unavailable(msg),
            Error::AlreadyExists(_) => tonic::Status::already_exists(msg),
            Error::Internal(_) => tonic::Status::internal(msg),
        }
    }
}
