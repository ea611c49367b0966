//! `Rules.CheckHavannahWin`: every structure (ring, bridge, fork) the mover has after a move.

use solver_proto::convert::havannah::Query;
use solver_proto::v1::{CheckHavannahWinRequest, CheckHavannahWinResponse};

use crate::error::Error;

/// Validates the request (INVALID_ARGUMENT naming `layers`, `board`, `move` or `player`) and
/// answers it.
pub fn check_win(req: CheckHavannahWinRequest) -> Result<CheckHavannahWinResponse, Error> {
    let query = Query::try_from(&req)?;
    let analysis = query.answer()?;
    Ok(CheckHavannahWinResponse::from(&analysis))
}
