//! Points of the 15 x 15 board and their two notations (spec "Board and notation").
//!
//! - **Row/column**: `(row, col)`, 0-based, row 0 = the **top** line as printed, col 0 = the
//!   left column. This is the order of every API of this module (`Point::new(row, col)`) and
//!   of the seed's `record_board[x][y]` (x = row from the top, y = column).
//! - **Name**: column letter `A`..`O` (A = column 0; the letter `I` is used) followed by the
//!   line number `15 - row`: the top row is 15, the bottom row is 1, the centre `(7, 7)` is
//!   `H8`. Parsing accepts lower-case letters.
//! - **Gomocup/Piskvork** writes `x,y` = `col,row`: use [`Point::from_gomocup`], which takes the
//!   column first, and never `Point::new` with those numbers.
//!
//! This module knows nothing about stones; it must not depend on the rules.

use std::fmt;
use std::str::FromStr;

/// Side length of the renju board.
pub const SIZE: usize = 15;

/// Number of points of the board, `15 * 15`.
pub const POINTS: usize = SIZE * SIZE;

/// A point of the board, always on it. Ordered by row then column (reading order).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Point {
    /// 0-based row from the top (0..15).
    row: u8,
    /// 0-based column from the left (0..15).
    col: u8,
}

/// A point that is off the board or a name that cannot be read; it carries the rejected input.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PointError {
    /// `(row, col)` is outside `0..15 x 0..15`.
    #[error("point (row {row}, col {col}) is off the 15 x 15 board")]
    OffBoard {
        /// The rejected row.
        row: i64,
        /// The rejected column.
        col: i64,
    },
    /// The text is not a column letter `A`..`O` followed by a line number 1..=15.
    #[error(
        "{0:?} is not a point name: expected a column letter A..O then a line number 1..15, like H8"
    )]
    BadName(String),
}

impl Point {
    /// The point at `row` (from the top) and `col` (from the left), both 0-based.
    ///
    /// # Errors
    /// [`PointError::OffBoard`] when either is outside `0..15`.
    pub fn new(row: i64, col: i64) -> Result<Point, PointError> {
        if (0..SIZE as i64).contains(&row) && (0..SIZE as i64).contains(&col) {
            Ok(Point {
                row: row as u8,
                col: col as u8,
            })
        } else {
            Err(PointError::OffBoard { row, col })
        }
    }

    /// The point written `x,y` by the Gomocup/Piskvork protocol: `x` = column, `y` = row from
    /// the top, both 0-based. Note the order: column first.
    ///
    /// # Errors
    /// [`PointError::OffBoard`] when either is outside `0..15`.
    pub fn from_gomocup(x: i64, y: i64) -> Result<Point, PointError> {
        Point::new(y, x)
    }

    /// The point with index `row * 15 + col`.
    ///
    /// # Panics
    /// When `index >= 225` (an internal invariant: indices come from this module).
    pub fn from_index(index: usize) -> Point {
        assert!(index < POINTS, "point index {index} out of range");
        Point {
            row: (index / SIZE) as u8,
            col: (index % SIZE) as u8,
        }
    }

    /// 0-based row from the top.
    pub fn row(self) -> usize {
        usize::from(self.row)
    }

    /// 0-based column from the left.
    pub fn col(self) -> usize {
        usize::from(self.col)
    }

    /// The index `row * 15 + col` (0..225).
    pub fn index(self) -> usize {
        self.row() * SIZE + self.col()
    }

    /// The Gomocup/Piskvork pair `(x, y)` = `(col, row)`.
    pub fn to_gomocup(self) -> (usize, usize) {
        (self.col(), self.row())
    }

    /// The point's name, e.g. `H8` for `(7, 7)` and `A15` for `(0, 0)`.
    pub fn name(self) -> String {
        self.to_string()
    }

    /// The neighbour `k` steps along `(dr, dc)`, if it is on the board.
    pub fn offset(self, dr: i64, dc: i64, k: i64) -> Option<Point> {
        Point::new(self.row as i64 + dr * k, self.col as i64 + dc * k).ok()
    }

    /// Every point, in reading order (row by row from the top).
    pub fn all() -> impl Iterator<Item = Point> {
        (0..POINTS).map(Point::from_index)
    }
}

impl fmt::Display for Point {
    /// Writes the name: column letter then `15 - row`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", char::from(b'A' + self.col), SIZE - self.row())
    }
}

impl FromStr for Point {
    type Err = PointError;

    /// Parses a name such as `H8` or `a15` (letter = column A..O, number = `15 - row`).
    fn from_str(s: &str) -> Result<Point, PointError> {
        let bad = || PointError::BadName(s.to_string());
        let t = s.trim();
        let mut chars = t.chars();
        let letter = chars.next().ok_or_else(bad)?.to_ascii_uppercase();
        if !('A'..='O').contains(&letter) {
            return Err(bad());
        }
        let digits = chars.as_str();
        if digits.is_empty() || digits.len() > 2 || !digits.bytes().all(|b| b.is_ascii_digit()) {
            return Err(bad());
        }
        let line: i64 = digits.parse().map_err(|_| bad())?;
        if !(1..=SIZE as i64).contains(&line) {
            return Err(bad());
        }
        Point::new(SIZE as i64 - line, i64::from(letter as u8 - b'A'))
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_anchor() {
        assert_eq!(Point::new(7, 7).unwrap().name(), "H8");
        assert_eq!(Point::new(0, 0).unwrap().name(), "A15");
        assert_eq!(Point::new(14, 14).unwrap().name(), "O1");
        assert_eq!(Point::new(0, 8).unwrap().name(), "I15");
        for p in Point::all() {
            assert_eq!(p.name().parse::<Point>().unwrap(), p);
            assert_eq!(Point::from_index(p.index()), p);
            let (x, y) = p.to_gomocup();
            assert_eq!(Point::from_gomocup(x as i64, y as i64).unwrap(), p);
        }
        assert_eq!("h8".parse::<Point>().unwrap(), Point::new(7, 7).unwrap());
    }

    #[test]
    fn bad_names_and_points() {
        for s in ["", "H", "P8", "H0", "H16", "8H", "H8x", "H-1", "H008"] {
            assert!(s.parse::<Point>().is_err(), "{s}");
        }
        assert!(Point::new(15, 0).is_err());
        assert!(Point::new(0, -1).is_err());
        assert_eq!(
            Point::from_gomocup(3, 1).unwrap(),
            Point::new(1, 3).unwrap(),
            "gomocup is col,row"
        );
    }
}
