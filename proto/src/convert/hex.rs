//! Hex conversions: wire boards, sides and solve requests into validated domain values, and
//! solver answers back into wire responses (shared by the server and the in-process client).

use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use solver_core::games::hex::pns;
use solver_core::games::hex::solver::{Outcome, SolveOptions};
use solver_core::games::hex::{Board, Cell, Color};

use super::WireError;
use crate::v1;

/// Default search time of `SolveHex` when the request sets none.
pub const DEFAULT_TIME_LIMIT: Duration = Duration::from_millis(10_000);
/// Largest search time a `SolveHex` request may ask for.
pub const MAX_TIME_LIMIT: Duration = Duration::from_millis(600_000);

/// Validates a board; `field` is its path in the request (e.g. `board`).
///
/// # Errors
/// [`WireError`] on `{field}` when missing, on `{field}.n` when it disagrees with the rows or
/// is out of range, on `{field}.rows` for a non-square board, other characters, or both sides
/// connected.
pub fn board(wire: Option<&v1::HexBoard>, field: &str) -> Result<Board, WireError> {
    let b = wire.ok_or_else(|| WireError::new(field, "is required"))?;
    let rows = b.rows.len();
    let n = if b.n == 0 { rows } else { b.n as usize };
    let sizes = solver_core::games::hex::MIN_SIZE..=solver_core::games::hex::MAX_SIZE;
    if !sizes.contains(&n) {
        let which = if b.n == 0 { "rows" } else { "n" };
        return Err(WireError::new(
            format!("{field}.{which}"),
            format!(
                "board size {n} is out of range: n must be from {} to {}",
                sizes.start(),
                sizes.end()
            ),
        ));
    }
    if b.n != 0 && rows != n {
        return Err(WireError::new(
            format!("{field}.n"),
            format!("is {n} but there are {rows} rows"),
        ));
    }
    Board::parse(n, &b.rows).map_err(|e| WireError::new(format!("{field}.rows"), e.to_string()))
}

/// Validates a side; `HEX_COLOR_UNSPECIFIED` and unknown values are rejected.
///
/// # Errors
/// [`WireError`] naming `field`.
pub fn color(raw: i32, field: &str) -> Result<Color, WireError> {
    match v1::HexColor::try_from(raw) {
        Ok(v1::HexColor::Black) => Ok(Color::Black),
        Ok(v1::HexColor::White) => Ok(Color::White),
        _ => Err(WireError::new(
            field,
            "must be HEX_COLOR_BLACK or HEX_COLOR_WHITE",
        )),
    }
}

/// The wire form of a side, `HEX_COLOR_UNSPECIFIED` for none.
pub fn color_to_wire(c: Option<Color>) -> v1::HexColor {
    match c {
        None => v1::HexColor::Unspecified,
        Some(Color::Black) => v1::HexColor::Black,
        Some(Color::White) => v1::HexColor::White,
    }
}

/// The wire form of a cell.
pub fn cell_to_wire(c: Cell) -> v1::HexCell {
    v1::HexCell {
        row: c.row.into(),
        col: c.col.into(),
        name: c.name(),
    }
}

/// The answer of `CheckHexWin` for a validated board.
pub fn check_answer(board: &Board) -> v1::CheckHexWinResponse {
    let connected = board.winner();
    let chain = connected
        .and_then(|c| board.winning_chain(c))
        .unwrap_or_default();
    v1::CheckHexWinResponse {
        connected: color_to_wire(connected).into(),
        chain: chain.into_iter().map(cell_to_wire).collect(),
    }
}

impl SolveQuery {
    /// Runs the search of a request that arrived at `start` (its time limit counts from then)
    /// and answers it; it stops early, "unknown", once `cancel` is set. CPU-bound for up to the
    /// time limit (at most [`MAX_TIME_LIMIT`]): an async caller runs it on a blocking thread.
    pub fn solve(self, start: Instant, cancel: Option<Arc<AtomicBool>>) -> v1::SolveHexResponse {
        let opts = SolveOptions {
            deadline: Some(start + self.time_limit),
            cancel,
            ..self.options
        };
        let outcome = pns::solve(&self.board, self.to_move, &opts);
        solve_answer(&outcome, start.elapsed())
    }
}

/// A validated `SolveHex` request.
#[derive(Debug, Clone)]
pub struct SolveQuery {
    /// The board.
    pub board: Board,
    /// The side to move.
    pub to_move: Color,
    /// Solver options (all moves, node limit); [`SolveQuery::solve`] sets the deadline.
    pub options: SolveOptions,
    /// Wall-clock budget.
    pub time_limit: Duration,
}

impl TryFrom<&v1::SolveHexRequest> for SolveQuery {
    type Error = WireError;

    /// Validates board, side and budget (see `SolveHexRequest` in `hex.proto`).
    fn try_from(req: &v1::SolveHexRequest) -> Result<Self, WireError> {
        let board = board(req.board.as_ref(), "board")?;
        let to_move = color(req.to_move, "to_move")?;
        let time_limit = match req.time_limit_ms {
            0 => DEFAULT_TIME_LIMIT,
            ms => Duration::from_millis(ms),
        };
        if time_limit > MAX_TIME_LIMIT {
            return Err(WireError::new(
                "time_limit_ms",
                format!(
                    "is {} but at most {} is allowed",
                    req.time_limit_ms,
                    MAX_TIME_LIMIT.as_millis()
                ),
            ));
        }
        Ok(SolveQuery {
            board,
            to_move,
            options: SolveOptions {
                all_moves: req.all_moves,
                max_nodes: (req.max_nodes != 0).then_some(req.max_nodes),
                ..SolveOptions::default()
            },
            time_limit,
        })
    }
}

/// The answer of `SolveHex` for a solver outcome that took `elapsed`.
pub fn solve_answer(outcome: &Outcome, elapsed: Duration) -> v1::SolveHexResponse {
    let time_ms = elapsed.as_millis() as u64;
    match outcome {
        Outcome::Unknown { nodes } => v1::SolveHexResponse {
            status: v1::HexSolveStatus::Unknown.into(),
            nodes: *nodes,
            time_ms,
            ..Default::default()
        },
        Outcome::Solved(s) => v1::SolveHexResponse {
            status: v1::HexSolveStatus::Solved.into(),
            winner: color_to_wire(Some(s.winner)).into(),
            winning_move: s.winning_move.map(cell_to_wire),
            carrier: s.carrier.iter().copied().map(cell_to_wire).collect(),
            winning_moves: s
                .winning_moves
                .iter()
                .flatten()
                .copied()
                .map(cell_to_wire)
                .collect(),
            all_moves: s.winning_moves.is_some(),
            nodes: s.nodes,
            time_ms,
        },
    }
}
