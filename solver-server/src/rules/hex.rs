//! `Rules.CheckHexWin` and `Rules.SolveHex`: Hex connectivity and solving. Validation and the
//! response shape live in `solver_proto::convert::hex` (shared with the in-process client);
//! the search runs on a blocking thread within the request's node / time budget.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use solver_core::games::hex::solver::Outcome;
use solver_proto::convert::hex as conv;
use solver_proto::v1::{
    CheckHexWinRequest, CheckHexWinResponse, SolveHexRequest, SolveHexResponse,
};
use tokio::sync::Semaphore;

use crate::error::Error;

/// Which side has connected, with a shortest winning chain.
pub fn check_win(req: CheckHexWinRequest) -> Result<CheckHexWinResponse, Error> {
    let board = conv::board(req.board.as_ref(), "board")?;
    Ok(conv::check_answer(&board))
}

/// Solves the board for the side to move, or answers "unknown" when the budget runs out. The
/// search waits for one of `searches`' permits (one per core by default) and holds it until it
/// ends; its time limit counts from the request's arrival, so a request still waiting when it
/// is spent is answered "unknown" (0 nodes) without a search. When the request is dropped (the
/// client cancelled or its deadline passed), the search stops at its next check.
///
/// # Errors
/// `INVALID_ARGUMENT` naming the field for a malformed request; `INTERNAL` when the search
/// thread panicked (a bug); `UNAVAILABLE` when the server stops under it.
pub async fn solve(
    req: SolveHexRequest,
    searches: Arc<Semaphore>,
) -> Result<SolveHexResponse, Error> {
    let start = Instant::now();
    let q = conv::SolveQuery::try_from(&req)?;
    let deadline = tokio::time::Instant::from_std(start + q.time_limit);
    // Held by the search thread until the search ends, also after the request is gone.
    let turn = match tokio::time::timeout_at(deadline, searches.acquire_owned()).await {
        Ok(turn) => {
            turn.map_err(|_| Error::Internal("the Hex searches' turns were closed".into()))?
        }
        Err(_) => {
            let waited = Outcome::Unknown { nodes: 0 };
            return Ok(conv::solve_answer(&waited, start.elapsed()));
        }
    };
    let cancel = CancelOnDrop(Arc::default());
    let flag = Arc::clone(&cancel.0);
    tokio::task::spawn_blocking(move || {
        let _turn = turn;
        q.solve(start, Some(flag))
    })
    .await
    .map_err(|e| {
        if e.is_cancelled() {
            Error::Unavailable("the server is stopping".into())
        } else {
            Error::Internal(format!("the Hex search failed: {e}"))
        }
    })
}

/// Sets its flag when dropped: the search of a request that is gone stops.
struct CancelOnDrop(Arc<AtomicBool>);

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Relaxed);
    }
}
