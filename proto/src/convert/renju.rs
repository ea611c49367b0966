//! Renju conversions: wire boards, colours and points into validated core values, and the
//! core's answers into wire messages. Field names in errors: `board`, `board[<row>]`, `color`,
//! `move`, `move.row`, `move.col`, `move.name`.
//!
//! Points on the wire are `(row, col)` with row 0 = the top line, or a name like `H8`; the
//! Gomocup `x,y` order is never used here.

use solver_core::games::renju::{Board, BoardError, Check, Color, ForbiddenMap, Kind, Point};

use super::WireError;
use crate::v1;

/// Validates a board given as 15 rows; `field` names it in errors (`field` or `field[row]`).
///
/// # Errors
/// [`WireError`] for a wrong row count, a row of the wrong length or with a character other
/// than `X`, `O`, `.`, or a board already holding a row of five or more.
pub fn board(rows: &[String], field: &str) -> Result<Board, WireError> {
    Board::from_rows(rows).map_err(|e| match e {
        BoardError::RowLength { row, .. } | BoardError::BadChar { row, .. } => {
            WireError::new(format!("{field}[{row}]"), e.to_string())
        }
        _ => WireError::new(field, e.to_string()),
    })
}

/// Validates a colour; `RENJU_COLOR_UNSPECIFIED` and unknown values are rejected.
///
/// # Errors
/// [`WireError`] naming `field`.
pub fn color(raw: i32, field: &str) -> Result<Color, WireError> {
    match v1::RenjuColor::try_from(raw) {
        Ok(v1::RenjuColor::Black) => Ok(Color::Black),
        Ok(v1::RenjuColor::White) => Ok(Color::White),
        _ => Err(WireError::new(
            field,
            "must be RENJU_COLOR_BLACK or RENJU_COLOR_WHITE",
        )),
    }
}

/// The wire form of a colour.
pub fn color_to_wire(color: Color) -> v1::RenjuColor {
    match color {
        Color::Black => v1::RenjuColor::Black,
        Color::White => v1::RenjuColor::White,
    }
}

/// Validates a point: the name when non-empty (row and col must then be 0 or agree), else
/// row and col. A missing point is rejected.
///
/// # Errors
/// [`WireError`] naming `field`, `field.row`, `field.col` or `field.name`.
pub fn point(p: Option<&v1::RenjuPoint>, field: &str) -> Result<Point, WireError> {
    let p = p.ok_or_else(|| WireError::new(field, "is required"))?;
    if !p.name.is_empty() {
        let named: Point = p
            .name
            .parse()
            .map_err(|e: solver_core::games::renju::PointError| {
                WireError::new(format!("{field}.name"), e.to_string())
            })?;
        let rc_given = p.row != 0 || p.col != 0;
        if rc_given && (p.row as usize != named.row() || p.col as usize != named.col()) {
            return Err(WireError::new(
                field,
                format!(
                    "name {} is (row {}, col {}) but row/col say ({}, {})",
                    p.name,
                    named.row(),
                    named.col(),
                    p.row,
                    p.col
                ),
            ));
        }
        return Ok(named);
    }
    let off = |axis: &str, v: u32| {
        WireError::new(
            format!("{field}.{axis}"),
            format!("{v} is off the board (0..=14)"),
        )
    };
    if p.row >= 15 {
        return Err(off("row", p.row));
    }
    if p.col >= 15 {
        return Err(off("col", p.col));
    }
    Ok(Point::new(i64::from(p.row), i64::from(p.col)).expect("row, col < 15"))
}

/// The wire form of a point: row, col and name all filled.
pub fn point_to_wire(p: Point) -> v1::RenjuPoint {
    v1::RenjuPoint {
        row: p.row() as u32,
        col: p.col() as u32,
        name: p.name(),
    }
}

/// The wire form of a kind.
pub fn kind_to_wire(kind: Kind) -> v1::RenjuKind {
    match kind {
        Kind::Five => v1::RenjuKind::Five,
        Kind::Overline => v1::RenjuKind::Overline,
        Kind::DoubleFour => v1::RenjuKind::DoubleFour,
        Kind::DoubleThree => v1::RenjuKind::DoubleThree,
        Kind::Allowed => v1::RenjuKind::Allowed,
    }
}

/// The core kind of a wire kind; `None` for `RENJU_KIND_UNSPECIFIED` or unknown values.
pub fn kind_from_wire(raw: i32) -> Option<Kind> {
    match v1::RenjuKind::try_from(raw).ok()? {
        v1::RenjuKind::Five => Some(Kind::Five),
        v1::RenjuKind::Overline => Some(Kind::Overline),
        v1::RenjuKind::DoubleFour => Some(Kind::DoubleFour),
        v1::RenjuKind::DoubleThree => Some(Kind::DoubleThree),
        v1::RenjuKind::Allowed => Some(Kind::Allowed),
        v1::RenjuKind::Unspecified => None,
    }
}

/// Validates a whole `CheckRenju` request into (board, colour, move).
///
/// # Errors
/// [`WireError`] for any malformed field, and on `move` when the point holds a stone.
pub fn check_request(req: &v1::CheckRenjuRequest) -> Result<(Board, Color, Point), WireError> {
    let board = board(&req.board, "board")?;
    let color = color(req.color, "color")?;
    let p = point(req.r#move.as_ref(), "move")?;
    if let Some(stone) = board.get(p) {
        return Err(WireError::new(
            "move",
            format!("{p} holds a {} stone", stone.name()),
        ));
    }
    Ok((board, color, p))
}

/// The wire answer for a check of the move `p`.
pub fn check_response(c: &Check, p: Point) -> v1::CheckRenjuResponse {
    v1::CheckRenjuResponse {
        win: c.win,
        forbidden: c.forbidden,
        kind: kind_to_wire(c.kind).into(),
        shape_flags: Some(v1::RenjuShapeFlags {
            five: c.flags.five,
            overline: c.flags.overline,
            double_four: c.flags.double_four,
            double_three: c.flags.double_three,
        }),
        fours: c.fours,
        threes: c.threes,
        longest_line: c.longest_line,
        r#move: Some(point_to_wire(p)),
    }
}

impl From<&ForbiddenMap> for v1::RenjuForbiddenMapResponse {
    fn from(map: &ForbiddenMap) -> Self {
        v1::RenjuForbiddenMapResponse {
            black_forbidden: map
                .black_forbidden
                .iter()
                .map(|&(p, kind)| v1::RenjuForbiddenPoint {
                    point: Some(point_to_wire(p)),
                    kind: kind_to_wire(kind).into(),
                })
                .collect(),
            black_five_points: map
                .black_five_points
                .iter()
                .map(|&p| point_to_wire(p))
                .collect(),
            white_win_points: map
                .white_win_points
                .iter()
                .map(|&p| point_to_wire(p))
                .collect(),
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn empty_rows() -> Vec<String> {
        vec![".".repeat(15); 15]
    }

    #[test]
    fn points_by_name_or_row_col() {
        let rc = v1::RenjuPoint {
            row: 7,
            col: 7,
            name: String::new(),
        };
        let named = v1::RenjuPoint {
            row: 0,
            col: 0,
            name: "h8".into(),
        };
        assert_eq!(
            point(Some(&rc), "move").unwrap(),
            point(Some(&named), "move").unwrap()
        );
        let clash = v1::RenjuPoint {
            row: 3,
            col: 7,
            name: "H8".into(),
        };
        assert_eq!(point(Some(&clash), "move").unwrap_err().field, "move");
        assert_eq!(point(None, "move").unwrap_err().field, "move");
        let off = v1::RenjuPoint {
            row: 2,
            col: 15,
            name: String::new(),
        };
        assert_eq!(point(Some(&off), "move").unwrap_err().field, "move.col");
        let bad = v1::RenjuPoint {
            name: "Z9".into(),
            ..rc
        };
        assert_eq!(point(Some(&bad), "move").unwrap_err().field, "move.name");
    }

    #[test]
    fn board_errors_name_the_row() {
        let mut rows = empty_rows();
        rows[4] = "....X..Y.......".into();
        assert_eq!(board(&rows, "board").unwrap_err().field, "board[4]");
        rows.pop();
        assert_eq!(board(&rows, "board").unwrap_err().field, "board");
        assert!(board(&empty_rows(), "board").is_ok());
    }
}
