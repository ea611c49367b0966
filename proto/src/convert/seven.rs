//! (4, n, 7^tr) conversions: wire positions into validated [`Position`]s and back.

use solver_core::games::seven::{Cols, Key, Position, Side};

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

    /// Validates rows, width and side. `cols`, when non-zero, is the width every row must
    /// have; when zero, the first row's length is.
    fn try_from(p: &v1::SevenPosition) -> Result<Self, WireError> {
        let to_move = side(p.to_move, "position.to_move")?;
        let width = match p.cols {
            0 => None,
            n => Some(cols(n, "position.cols")?),
        };
        Position::from_rows(&p.rows, width, to_move)
            .map_err(|e| WireError::new("position.rows", e.to_string()))
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

/// Bytes of a packed position: width (1 byte), side to move (1 byte: 1 Maker, 2 Breaker),
/// Maker's cells (16 bytes), Breaker's cells (16 bytes); cell sets are big-endian `u128` masks
/// with bit `4c + r` for row `r` (0 = top) and column `c` (0 = left).
pub const PACKED_LEN: usize = 34;

/// Packs a transposition key (a position) into [`PACKED_LEN`] bytes.
pub fn pack_key(k: &Key) -> Vec<u8> {
    let mut out = Vec::with_capacity(PACKED_LEN);
    out.push(k.cols);
    out.push(match k.to_move {
        Side::Maker => 1,
        Side::Breaker => 2,
    });
    out.extend_from_slice(&k.maker.to_be_bytes());
    out.extend_from_slice(&k.breaker.to_be_bytes());
    out
}

/// Packs a position into [`PACKED_LEN`] bytes.
pub fn pack(p: &Position) -> Vec<u8> {
    pack_key(&p.key())
}

/// Unpacks a position; `field` names the bytes in the error.
///
/// # Errors
/// [`WireError`] when the length is not [`PACKED_LEN`], the width is outside 4..=32, the side
/// byte is not 1 or 2, or the cell sets overlap or leave the board.
pub fn unpack(bytes: &[u8], field: &str) -> Result<Position, WireError> {
    if bytes.len() != PACKED_LEN {
        return Err(WireError::new(
            field,
            format!(
                "a packed position has {PACKED_LEN} bytes, this one {}",
                bytes.len()
            ),
        ));
    }
    let cols = cols(u32::from(bytes[0]), field)?;
    let to_move = match bytes[1] {
        1 => Side::Maker,
        2 => Side::Breaker,
        b => {
            return Err(WireError::new(
                field,
                format!("side byte is {b}, expected 1 (Maker) or 2 (Breaker)"),
            ));
        }
    };
    let mask = |r: std::ops::Range<usize>| {
        u128::from_be_bytes(bytes[r].try_into().expect("16 bytes by the length check"))
    };
    Position::from_masks(cols, mask(2..18), mask(18..34), to_move)
        .map_err(|e| WireError::new(field, e))
}

/// A proof-number threshold as `Job.pn_threshold` / `dn_threshold` carry it: 0 for none
/// ([`INFINITY`](solver_core::pns::INFINITY)), else the number itself.
pub fn threshold_to_wire(t: solver_core::pns::Number) -> u64 {
    if t == solver_core::pns::INFINITY {
        0
    } else {
        t
    }
}

/// The inverse of [`threshold_to_wire`]: 0 is [`INFINITY`](solver_core::pns::INFINITY), no
/// threshold.
pub fn threshold_from_wire(raw: u64) -> solver_core::pns::Number {
    if raw == 0 {
        solver_core::pns::INFINITY
    } else {
        raw
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packing_round_trips_and_rejects_bad_bytes() {
        let p = Position::from_rows(&["M..B", ".B..", "....", "..M."], None, Side::Breaker)
            .expect("valid rows");
        let bytes = pack(&p);
        assert_eq!(bytes.len(), PACKED_LEN);
        assert_eq!(unpack(&bytes, "x"), Ok(p));
        assert_eq!(
            unpack(&bytes[1..], "x").map_err(|e| e.field),
            Err("x".into())
        );
        let mut bad = bytes.clone();
        bad[1] = 3;
        assert!(unpack(&bad, "x").is_err());
        let mut bad = bytes.clone();
        bad[0] = 40;
        assert!(unpack(&bad, "x").is_err());
        let mut bad = bytes;
        bad[2..18].copy_from_slice(&u128::MAX.to_be_bytes());
        assert!(unpack(&bad, "x").is_err());
    }

    #[test]
    fn positions_name_the_bad_field_and_check_rows_against_cols() {
        let wire = |cols: u32, first: &str| v1::SevenPosition {
            cols,
            rows: [first, "........", "........", "........"]
                .map(String::from)
                .to_vec(),
            to_move: v1::Side::Maker.into(),
        };
        let err = |p: v1::SevenPosition| {
            let e = Position::try_from(&p).expect_err("invalid");
            (e.field, e.message)
        };
        // cols is the width every row must have, the first row's too.
        assert_eq!(
            err(wire(8, ".......")),
            (
                "position.rows".into(),
                "row 1 has 7 cells but the board is 8 wide (one cell per column)".into()
            )
        );
        assert_eq!(err(wire(40, "........")).0, "position.cols");
        // Without cols the first row sets the width.
        assert_eq!(
            err(wire(0, "........."))
                .1
                .split(" but")
                .next()
                .expect("a message"),
            "row 2 has 8 cells"
        );
        let p = Position::try_from(&wire(0, "M.......")).expect("valid");
        assert_eq!(p.cols().get(), 8);
        assert_eq!(Position::try_from(&wire(8, "M.......")), Ok(p));
    }

    #[test]
    fn thresholds_round_trip_with_zero_for_none() {
        use solver_core::pns::INFINITY;
        assert_eq!(threshold_to_wire(INFINITY), 0);
        assert_eq!(threshold_from_wire(0), INFINITY);
        for t in [1, 7, INFINITY - 1] {
            assert_eq!(threshold_from_wire(threshold_to_wire(t)), t);
        }
    }
}
