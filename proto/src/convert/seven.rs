//! (4, n, 7^tr) conversions: wire positions into validated [`Position`]s and back.

use solver_core::games::seven::{Cols, Position, Side};

use super::WireError;
use crate::v1;

/// Validates a board width from the wire; `field` names it in the error.
///
/// # Errors
/// [`WireError`] when n is outside 4..=32.
pub fn cols(n: u32, field: &str) -> Result<Cols, WireError> {
    Cols::try_from(n).map_err(|e| WireError::new(field, e.to_string()))
}

/// Validates a side to move; `SIDE_UNSPECIFIED` is rejected.
///
/// # Errors
/// [`WireError`] naming `field`.
pub fn side(raw: i32, field: &str) -> Result<Side, WireError> {
    match v1::Side::try_from(raw) {
        Ok(v1::Side::Maker) => Ok(Side::Maker),
        Ok(v1::Side::Breaker) => Ok(Side::Breaker),
        _ => Err(WireError::new(field, "must be SIDE_MAKER or SIDE_BREAKER")),
    }
}

/// The wire form of a side.
pub fn side_to_wire(side: Side) -> v1::Side {
    match side {
        Side::Maker => v1::Side::Maker,
        Side::Breaker => v1::Side::Breaker,
    }
}

impl TryFrom<&v1::SevenPosition> for Position {
    type Error = WireError;

    /// Validates rows, width and side. `cols`, when non-zero, must equal the rows' width.
    fn try_from(p: &v1::SevenPosition) -> Result<Self, WireError> {
        let to_move = side(p.to_move, "position.to_move")?;
        let pos = Position::from_rows(&p.rows, to_move)
            .map_err(|e| WireError::new("position.rows", e.to_string()))?;
        if p.cols != 0 && p.cols != pos.cols().get() {
            return Err(WireError::new(
                "position.cols",
                format!("is {} but the rows are {} wide", p.cols, pos.cols()),
            ));
        }
        Ok(pos)
    }
}

impl From<&Position> for v1::SevenPosition {
    fn from(p: &Position) -> Self {
        v1::SevenPosition {
            cols: p.cols().get(),
            rows: p.rows(),
            to_move: side_to_wire(p.to_move()).into(),
        }
    }
}
