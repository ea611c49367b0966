//! `Rules.CheckHexWin` and `Rules.SolveHex`: Hex connectivity and solving. Validation and the
//! response shape live in `solver_proto::convert::hex` (shared with the in-process client);
//! the search runs on a blocking thread within the request's node / time budget.

use std::time::Instant;

use solver_core::games::hex::pns;
use solver_proto::convert::hex as conv;
use solver_proto::v1::{
    CheckHexWinRequest, CheckHexWinResponse, SolveHexRequest, SolveHexResponse,
};

use crate::error::Error;

/// Which side has connected, with a shortest winning chain.
pub fn check_win(req: CheckHexWinRequest) -> Result<CheckHexWinResponse, Error> {
    let board = conv::board(req.board.as_ref(), "board")?;
    Ok(conv::check_answer(&board))
}

/// Solves the board for the side to move, or answers "unknown" when the budget runs out.
pub async fn solve(req: SolveHexRequest) -> Result<SolveHexResponse, Error> {
    let q = conv::SolveQuery::try_from(&req)?;
    let answer = tokio::task::spawn_blocking(move || {
        let start = Instant::now();
        let mut opts = q.options;
        opts.deadline = Some(start + q.time_limit);
        let outcome = pns::solve(&q.board, q.to_move, &opts);
        conv::solve_answer(&outcome, start.elapsed())
    })
    .await
    .map_err(|e| Error::Unavailable(format!("the Hex search task failed: {e}")))?;
    Ok(answer)
}
