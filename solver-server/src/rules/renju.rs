//! `Rules.CheckRenju` and `Rules.RenjuForbiddenMap`: five and Black's forbidden moves
//! (spec `shared/specs/renju.md`). Validation lives in `solver_proto::convert::renju`; the
//! rules in `solver_core::games::renju`. This module only joins the two.

use solver_proto::convert::renju;
use solver_proto::v1::{
    CheckRenjuRequest, CheckRenjuResponse, RenjuForbiddenMapRequest, RenjuForbiddenMapResponse,
};

use crate::error::Error;

/// Checks one move: win, forbidden, kind, shapes, fours, threes and the longest row.
///
/// # Errors
/// [`Error::InvalidArgument`] naming `board`, `board[<row>]`, `color`, `move`, `move.row`,
/// `move.col` or `move.name`.
pub fn check(req: CheckRenjuRequest) -> Result<CheckRenjuResponse, Error> {
    let (board, color, point) = renju::check_request(&req)?;
    let answer = board
        .check(color, point)
        .map_err(|e| solver_proto::convert::WireError::new("move", e.to_string()))?;
    Ok(renju::check_response(&answer, point))
}

/// Every black forbidden point with its kind, every black five point, every white win point.
///
/// # Errors
/// [`Error::InvalidArgument`] naming `board` or `board[<row>]`.
pub fn forbidden_map(req: RenjuForbiddenMapRequest) -> Result<RenjuForbiddenMapResponse, Error> {
    let board = renju::board(&req.board, "board")?;
    Ok((&board.forbidden_map()).into())
}
