//! `Rules.CheckHexWin` and `Rules.SolveHex`: Hex connectivity and solving. Validation and the
//! response shape live in `solver_proto::convert::hex` (shared with the in-process client);
//! the search runs on a blocking thread within the request's node / time budget.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use solver_core::games::hex::pns;
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
/// search waits for one of `searches`' permits (one per core) and holds it until it ends; its
/// time limit counts from the request's arrival, waiting included. When the request is
/// dropped (the client cancelled or its deadline passed), the search stops at its next check.
///
/// # Errors
/// `INVALID_ARGUMENT` naming the field for a malformed request; `INTERNAL` when the search
/// thread failed (a panic: a bug).
pub async fn solve(
    req: SolveHexRequest,
    searches: Arc<Semaphore>,
) -> Result<SolveHexResponse, Error> {
    let start = Instant::now();
    let q = conv::SolveQuery::try_from(&req)?;
    // Held by the search thread until the search ends, also after the request is gone.
    let turn = searches
        .acquire_owned()
        .await
        .map_err(|_| Error::Internal("the Hex searches' turns were closed".into()))?;
    let cancel = CancelOnDrop(Arc::default());
    let mut opts = q.options;
    opts.deadline = Some(start + q.time_limit);
    opts.cancel = Some(Arc::clone(&cancel.0));
    tokio::task::spawn_blocking(move || {
        let _turn = turn;
        let outcome = pns::solve(&q.board, q.to_move, &opts);
        conv::solve_answer(&outcome, start.elapsed())
    })
    .await
    .map_err(|e| Error::Internal(format!("the Hex search failed: {e}")))
}

/// Sets its flag when dropped: the search of a request that is gone stops.
struct CancelOnDrop(Arc<AtomicBool>);

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Relaxed);
    }
}
