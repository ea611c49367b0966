//! Board widths, cells and cell names of the 4 x n board.
//!
//! A cell `(r, c)` has `r` = row from the top (0..=3) and `c` = column from the left (0..n).
//! Its name is the column letter(s) followed by the 1-based row: `(0, 0)` = `a1` (top-left),
//! `(3, n-1)` = bottom-right. Columns past `z` are named like spreadsheet columns (`aa`, `ab`, ..).

use std::fmt;

/// Number of rows of every board.
pub const ROWS: u32 = 4;

/// A validated board width n (number of columns), `4..=32`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Cols(u8);

/// The error for a width outside `4..=32`; it carries the rejected width (0 for a negative
/// one).
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("board width {0} is out of range: n must be from {min} to {max}", min = Cols::MIN, max = Cols::MAX)]
pub struct ColsError(pub u64);

impl Cols {
    /// Smallest width: the four-column board (the two end 4-edges of a row coincide).
    pub const MIN: u32 = 4;
    /// Largest width: `4 * 32 = 128` cells fill a `u128`.
    pub const MAX: u32 = 32;

    /// The width as a number.
    pub fn get(self) -> u32 {
        u32::from(self.0)
    }

    /// Number of cells, `4 n`.
    pub fn cells(self) -> u32 {
        ROWS * self.get()
    }

    /// The mask of every cell of the board.
    pub fn full_mask(self) -> u128 {
        if self.cells() == 128 {
            u128::MAX
        } else {
            (1u128 << self.cells()) - 1
        }
    }

    /// Mirror of a set of cells under `c -> n-1-c` (the only symmetry of the game).
    pub fn mirror(self, mask: u128) -> u128 {
        // reverse_bits maps (r, c) to (3-r, 31-c); reversing each nibble restores r.
        let mut x = mask.reverse_bits();
        const M1: u128 = 0x5555_5555_5555_5555_5555_5555_5555_5555;
        const M2: u128 = 0x3333_3333_3333_3333_3333_3333_3333_3333;
        x = ((x & M1) << 1) | ((x >> 1) & M1);
        x = ((x & M2) << 2) | ((x >> 2) & M2);
        x >> (ROWS * (Self::MAX - self.get()))
    }

    /// Iterates over every cell of the board in index order (column-major).
    pub fn iter_cells(self) -> impl Iterator<Item = Cell> {
        (0..self.cells()).map(|i| Cell(i as u8))
    }
}

impl TryFrom<u64> for Cols {
    type Error = ColsError;
    fn try_from(n: u64) -> Result<Self, ColsError> {
        if (u64::from(Self::MIN)..=u64::from(Self::MAX)).contains(&n) {
            Ok(Cols(n as u8))
        } else {
            Err(ColsError(n))
        }
    }
}

impl TryFrom<u32> for Cols {
    type Error = ColsError;
    fn try_from(n: u32) -> Result<Self, ColsError> {
        Self::try_from(u64::from(n))
    }
}

impl TryFrom<i32> for Cols {
    type Error = ColsError;
    fn try_from(n: i32) -> Result<Self, ColsError> {
        u64::try_from(n)
            .map_err(|_| ColsError(0))
            .and_then(Self::try_from)
    }
}

impl fmt::Display for Cols {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

/// A cell, stored as its bit index `4 c + r`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Cell(pub u8);

/// The error for a cell name that is not on the board; it carries the rejected name.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("bad cell name {name:?}: {reason}")]
pub struct ParseCellError {
    /// The rejected text.
    pub name: String,
    /// Why it was rejected.
    pub reason: String,
}

impl Cell {
    /// The cell at row `r` (0..4, from the top) and column `c` (0..n, from the left).
    ///
    /// # Panics
    /// In debug builds, for `r` or `c` out of range; a release build then gives another cell.
    pub fn new(r: u32, c: u32) -> Cell {
        debug_assert!(r < ROWS && c < Cols::MAX);
        Cell((ROWS * c + r) as u8)
    }

    /// Row from the top, 0..=3.
    pub fn row(self) -> u32 {
        u32::from(self.0) % ROWS
    }

    /// Column from the left, 0-based.
    pub fn col(self) -> u32 {
        u32::from(self.0) / ROWS
    }

    /// The cell's bit.
    pub fn bit(self) -> u128 {
        1u128 << self.0
    }

    /// The cell's bit index, `4 c + r`.
    pub fn index(self) -> usize {
        usize::from(self.0)
    }

    /// The name of this cell, e.g. `a1` for the top-left cell.
    pub fn name(self) -> String {
        let mut col = String::new();
        let mut c = self.col() + 1;
        while c > 0 {
            let d = (c - 1) % 26;
            col.insert(0, char::from(b'a' + d as u8));
            c = (c - 1) / 26;
        }
        format!("{col}{}", self.row() + 1)
    }

    /// Parses a cell name (`a1`, case-insensitive) on a board of width `cols`.
    ///
    /// # Errors
    /// [`ParseCellError`] when the text is not letters then a row digit 1..=4, or the column is
    /// past the board's width.
    pub fn parse(name: &str, cols: Cols) -> Result<Cell, ParseCellError> {
        let err = |reason: &str| ParseCellError {
            name: name.to_string(),
            reason: reason.to_string(),
        };
        let lower = name.trim().to_ascii_lowercase();
        let split = lower
            .find(|ch: char| !ch.is_ascii_lowercase())
            .ok_or_else(|| err("expected a column letter then a row number 1-4"))?;
        let (letters, digits) = lower.split_at(split);
        if letters.is_empty() || letters.len() > 2 {
            return Err(err("expected a column letter then a row number 1-4"));
        }
        let col = letters
            .bytes()
            .fold(0u32, |acc, b| acc * 26 + u32::from(b - b'a') + 1);
        let row: u32 = digits
            .parse()
            .map_err(|_| err("expected a row number 1-4 after the column"))?;
        if !(1..=ROWS).contains(&row) {
            return Err(err("row must be 1-4"));
        }
        if col > cols.get() {
            return Err(err(&format!("column is off a board of width {cols}")));
        }
        Ok(Cell::new(row - 1, col - 1))
    }
}

/// Iterates over the cells of a mask in index order.
pub fn cells_of(mut mask: u128) -> impl Iterator<Item = Cell> {
    std::iter::from_fn(move || {
        if mask == 0 {
            None
        } else {
            let i = mask.trailing_zeros();
            mask &= mask - 1;
            Some(Cell(i as u8))
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        let cols = Cols::try_from(32u32).expect("32 is in range");
        for cell in cols.iter_cells() {
            assert_eq!(Cell::parse(&cell.name(), cols), Ok(cell));
        }
        assert_eq!(Cell::new(0, 0).name(), "a1");
        assert_eq!(Cell::new(3, 26).name(), "aa4");
    }

    #[test]
    fn mirror_maps_columns() {
        for n in 4..=32u32 {
            let cols = Cols::try_from(n).expect("in range");
            for cell in cols.iter_cells() {
                let m = Cell::new(cell.row(), n - 1 - cell.col());
                assert_eq!(cols.mirror(cell.bit()), m.bit(), "n={n} {}", cell.name());
            }
        }
    }

    #[test]
    fn widths_out_of_range_are_rejected() {
        assert!(Cols::try_from(3u32).is_err());
        assert!(Cols::try_from(33u32).is_err());
        assert!(Cell::parse("e1", Cols::try_from(4u32).expect("in range")).is_err());
        assert!(Cell::parse("a5", Cols::try_from(4u32).expect("in range")).is_err());
    }
}
