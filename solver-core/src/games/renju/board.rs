//! The 15 x 15 board: stones, its text form, and per-line bit masks kept up to date on every
//! placement so that the rule module reads a whole line in two loads.
//!
//! Text form (spec "Board and notation"): 15 strings of 15 characters, row 0 = the top line as
//! printed, `X` = black, `O` = white, `.` = empty; `rows[row][col]`.
//!
//! A [`Board`] never holds a row of five or more stones of one colour: such a game is over, so
//! [`Board::from_rows`] and [`Board::place`] reject it.
//!
//! # Line layout
//! The 4 directions are horizontal `(0, 1)`, vertical `(1, 0)`, diagonal `(1, 1)` and
//! anti-diagonal `(1, -1)`. Every line of the board is one `u32` of black stones and one of
//! empty points; the point at position `k` of its line (the column, or the row for vertical
//! lines) is bit `k + MARGIN`, so a window reaching 8 cells past either end never shifts by a
//! negative amount. Bits off the board are neither black nor empty: they act like white
//! stones, which is exactly how the rules treat the edge.

use std::fmt;

use super::point::{POINTS, Point, SIZE};

/// A stone colour. Black moves first and is restricted; White is not.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Color {
    /// Black (`X`), who may not play forbidden moves.
    Black,
    /// White (`O`), unrestricted; five or more wins.
    White,
}

impl Color {
    /// The character of the text form: `X` or `O`.
    pub fn symbol(self) -> char {
        match self {
            Color::Black => 'X',
            Color::White => 'O',
        }
    }

    /// The lower-case English name, `black` or `white`.
    pub fn name(self) -> &'static str {
        match self {
            Color::Black => "black",
            Color::White => "white",
        }
    }
}

impl std::str::FromStr for Color {
    type Err = BoardError;

    /// Accepts `black` / `white` (any case) and `X` / `O` / `B` / `W`.
    fn from_str(s: &str) -> Result<Color, BoardError> {
        match s.trim().to_ascii_lowercase().as_str() {
            "black" | "x" | "b" => Ok(Color::Black),
            "white" | "o" | "w" => Ok(Color::White),
            _ => Err(BoardError::BadColor(s.to_string())),
        }
    }
}

/// Why a board, colour or placement was rejected; every variant carries the rejected input.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BoardError {
    /// The board does not have 15 rows.
    #[error("the board has {0} rows; it must have 15")]
    RowCount(usize),
    /// A row does not have 15 characters.
    #[error("row {row} has {len} characters; it must have 15")]
    RowLength {
        /// 0-based row from the top.
        row: usize,
        /// Its number of characters.
        len: usize,
    },
    /// A character other than `X`, `O` and `.`.
    #[error("row {row}, column {col}: {ch:?} is not one of 'X', 'O', '.'")]
    BadChar {
        /// 0-based row from the top.
        row: usize,
        /// 0-based column.
        col: usize,
        /// The rejected character.
        ch: char,
    },
    /// The board already holds a row of five or more stones of one colour (the game is over).
    #[error("the board already holds a row of {len} {} stones through {point}", color.name())]
    HoldsFive {
        /// The colour of the row.
        color: Color,
        /// A point of the row.
        point: Point,
        /// The row's length (5 or more).
        len: usize,
    },
    /// A placement on a point that holds a stone.
    #[error("{0} is not empty")]
    Occupied(Point),
    /// A colour name that is not black or white.
    #[error("{0:?} is not a colour: expected black or white")]
    BadColor(String),
}

/// Number of lines: 15 rows, 15 columns, 29 diagonals, 29 anti-diagonals.
pub(crate) const LINES: usize = 88;

/// Position `k` of a line is bit `k + MARGIN` of its masks.
pub(crate) const MARGIN: u32 = 8;

/// The four line directions `(d_row, d_col)`: horizontal, vertical, diagonal, anti-diagonal.
pub const DIRECTIONS: [(i64, i64); 4] = [(0, 1), (1, 0), (1, 1), (1, -1)];

/// For every point and direction: the line index and the point's bit in that line.
const fn line_table() -> [[(u8, u8); 4]; POINTS] {
    let mut t = [[(0u8, 0u8); 4]; POINTS];
    let mut i = 0;
    while i < POINTS {
        let r = i / SIZE;
        let c = i % SIZE;
        let m = MARGIN as usize;
        t[i][0] = (r as u8, (c + m) as u8);
        t[i][1] = ((15 + c) as u8, (r + m) as u8);
        t[i][2] = ((30 + r + 14 - c) as u8, (c + m) as u8);
        t[i][3] = ((59 + r + c) as u8, (c + m) as u8);
        i += 1;
    }
    t
}

/// `LINE_OF[point][dir]` = (line index, bit).
pub(crate) const LINE_OF: [[(u8, u8); 4]; POINTS] = line_table();

/// The bits of each line that are on the board.
const fn valid_table() -> [u32; LINES] {
    let mut v = [0u32; LINES];
    let mut i = 0;
    while i < POINTS {
        let mut d = 0;
        while d < 4 {
            let (line, bit) = LINE_OF[i][d];
            v[line as usize] |= 1 << bit;
            d += 1;
        }
        i += 1;
    }
    v
}

/// Bits on the board, per line.
pub(crate) const VALID: [u32; LINES] = valid_table();

/// For every line and bit: the point there (`u8::MAX` off the board).
const fn point_table() -> [[u8; 32]; LINES] {
    let mut t = [[u8::MAX; 32]; LINES];
    let mut i = 0;
    while i < POINTS {
        let mut d = 0;
        while d < 4 {
            let (line, bit) = LINE_OF[i][d];
            t[line as usize][bit as usize] = i as u8;
            d += 1;
        }
        i += 1;
    }
    t
}

/// `POINT_AT[line][bit]` = point index.
pub(crate) const POINT_AT: [[u8; 32]; LINES] = point_table();

/// A 15 x 15 renju board with no row of five or more (see the module docs).
#[derive(Clone, PartialEq, Eq)]
pub struct Board {
    /// The stone on each point, by [`Point::index`].
    cells: [Option<Color>; POINTS],
    /// Black stones of each line (bit layout in the module docs).
    black: [u32; LINES],
    /// White stones of each line.
    white: [u32; LINES],
    /// Number of stones, for cheap statistics.
    stones: u16,
}

impl Default for Board {
    fn default() -> Self {
        Board::empty()
    }
}

impl Board {
    /// The empty board.
    pub fn empty() -> Board {
        Board {
            cells: [None; POINTS],
            black: [0; LINES],
            white: [0; LINES],
            stones: 0,
        }
    }

    /// Reads the text form: 15 rows of 15 characters `X` / `O` / `.`, top row first.
    ///
    /// # Errors
    /// [`BoardError::RowCount`], [`BoardError::RowLength`], [`BoardError::BadChar`], or
    /// [`BoardError::HoldsFive`] when some colour already has five or more in a row.
    pub fn from_rows<S: AsRef<str>>(rows: &[S]) -> Result<Board, BoardError> {
        if rows.len() != SIZE {
            return Err(BoardError::RowCount(rows.len()));
        }
        let mut board = Board::empty();
        for (r, row) in rows.iter().enumerate() {
            let row = row.as_ref();
            let len = row.chars().count();
            if len != SIZE {
                return Err(BoardError::RowLength { row: r, len });
            }
            for (c, ch) in row.chars().enumerate() {
                let color = match ch {
                    'X' => Color::Black,
                    'O' => Color::White,
                    '.' => continue,
                    _ => return Err(BoardError::BadChar { row: r, col: c, ch }),
                };
                let p = Point::new(r as i64, c as i64).expect("r, c < 15");
                board.put(p, color);
            }
        }
        for p in Point::all() {
            if let Some(color) = board.get(p) {
                let len = board.longest_run(p, color);
                if len >= 5 {
                    return Err(BoardError::HoldsFive {
                        color,
                        point: p,
                        len,
                    });
                }
            }
        }
        Ok(board)
    }

    /// The text form: 15 rows, top first.
    pub fn rows(&self) -> Vec<String> {
        (0..SIZE)
            .map(|r| {
                (0..SIZE)
                    .map(|c| match self.cells[r * SIZE + c] {
                        Some(color) => color.symbol(),
                        None => '.',
                    })
                    .collect()
            })
            .collect()
    }

    /// The stone on `p`, if any.
    pub fn get(&self, p: Point) -> Option<Color> {
        self.cells[p.index()]
    }

    /// Number of stones on the board.
    pub fn stones(&self) -> usize {
        usize::from(self.stones)
    }

    /// Places a stone of `color` on `p`, keeping the board free of fives.
    ///
    /// # Errors
    /// [`BoardError::Occupied`] when `p` holds a stone; [`BoardError::HoldsFive`] when the stone
    /// would make a row of five or more (the board is then unchanged).
    pub fn place(&mut self, p: Point, color: Color) -> Result<(), BoardError> {
        if self.get(p).is_some() {
            return Err(BoardError::Occupied(p));
        }
        let len = self.run_if_placed(p, color);
        if len >= 5 {
            return Err(BoardError::HoldsFive {
                color,
                point: p,
                len,
            });
        }
        self.put(p, color);
        Ok(())
    }

    /// Removes the stone on `p`, if any.
    pub fn remove(&mut self, p: Point) {
        if self.cells[p.index()].take().is_some() {
            for (line, bit) in LINE_OF[p.index()] {
                self.black[line as usize] &= !(1 << bit);
                self.white[line as usize] &= !(1 << bit);
            }
            self.stones -= 1;
        }
    }

    /// Puts a stone without the five check. `p` must be empty.
    pub(crate) fn put(&mut self, p: Point, color: Color) {
        debug_assert!(self.cells[p.index()].is_none());
        self.cells[p.index()] = Some(color);
        let masks = match color {
            Color::Black => &mut self.black,
            Color::White => &mut self.white,
        };
        for (line, bit) in LINE_OF[p.index()] {
            masks[line as usize] |= 1 << bit;
        }
        self.stones += 1;
    }

    /// The masks of line `line`: (stones of `color`, empty points).
    #[inline]
    pub(crate) fn line(&self, line: usize, color: Color) -> (u32, u32) {
        let (b, w) = (self.black[line], self.white[line]);
        let own = match color {
            Color::Black => b,
            Color::White => w,
        };
        (own, VALID[line] & !(b | w))
    }

    /// The longest unbroken row of `color` through `p` over the 4 directions, counting `p` as a
    /// stone of `color` whatever it holds.
    pub fn run_if_placed(&self, p: Point, color: Color) -> usize {
        LINE_OF[p.index()]
            .iter()
            .map(|&(line, bit)| {
                let (own, _) = self.line(line as usize, color);
                run_length(own | (1 << bit), u32::from(bit)) as usize
            })
            .max()
            .unwrap_or(0)
    }

    /// The longest row of `color` through `p` (a stone of that colour is assumed on `p`).
    fn longest_run(&self, p: Point, color: Color) -> usize {
        self.run_if_placed(p, color)
    }

    /// The board under symmetry `s` (0..8) of the square: see [`transform`].
    pub fn transformed(&self, s: usize) -> Board {
        let mut out = Board::empty();
        for p in Point::all() {
            if let Some(color) = self.get(p) {
                out.put(transform(p, s), color);
            }
        }
        out
    }
}

/// The image of `p` under symmetry `s` of the square, `s` in 0..8: bit 0 mirrors the columns,
/// bit 1 mirrors the rows, bit 2 transposes (applied last). `s = 0` is the identity.
///
/// # Panics
/// Never: `s` is reduced modulo 8.
pub fn transform(p: Point, s: usize) -> Point {
    let n = SIZE - 1;
    let (mut r, mut c) = (p.row(), p.col());
    if s & 1 != 0 {
        c = n - c;
    }
    if s & 2 != 0 {
        r = n - r;
    }
    if s & 4 != 0 {
        std::mem::swap(&mut r, &mut c);
    }
    Point::new(r as i64, c as i64).expect("a symmetry maps the board onto itself")
}

/// Length of the unbroken run of set bits of `mask` through bit `bit` (0 if that bit is clear).
#[inline]
pub(crate) fn run_length(mask: u32, bit: u32) -> u32 {
    if mask & (1 << bit) == 0 {
        return 0;
    }
    let up = (mask >> bit).trailing_ones();
    let down = (mask << (31 - bit)).leading_ones();
    up + down - 1
}

impl fmt::Display for Board {
    /// The text form, one row per line.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for row in self.rows() {
            writeln!(f, "{row}")?;
        }
        Ok(())
    }
}

impl fmt::Debug for Board {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "Board(")?;
        fmt::Display::fmt(self, f)?;
        write!(f, ")")
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn line_table_is_a_bijection_per_direction() {
        for d in 0..4 {
            let mut seen = std::collections::HashSet::new();
            for p in Point::all() {
                let (line, bit) = LINE_OF[p.index()][d];
                assert!(seen.insert((line, bit)));
                assert_eq!(POINT_AT[line as usize][bit as usize] as usize, p.index());
                // The next point along the direction is the next bit of the same line
                // (anti-diagonals run towards lower columns, hence lower bits).
                if let Some(q) = p.offset(DIRECTIONS[d].0, DIRECTIONS[d].1, 1) {
                    let (l2, b2) = LINE_OF[q.index()][d];
                    assert_eq!(l2, line);
                    assert_eq!((i32::from(b2) - i32::from(bit)).abs(), 1);
                }
            }
        }
        assert_eq!(VALID.iter().map(|v| v.count_ones()).sum::<u32>(), 4 * 225);
    }

    #[test]
    fn text_round_trip_and_errors() {
        let mut rows = vec![".".repeat(15); 15];
        rows[7] = ".......XO......".into();
        let b = Board::from_rows(&rows).unwrap();
        assert_eq!(b.rows(), rows);
        assert_eq!(b.stones(), 2);
        assert_eq!(
            Board::from_rows(&rows[..14]).unwrap_err(),
            BoardError::RowCount(14)
        );
        let mut bad = rows.clone();
        bad[3] = "..............".into();
        assert!(matches!(
            Board::from_rows(&bad),
            Err(BoardError::RowLength { row: 3, len: 14 })
        ));
        bad[3] = "......x........".into();
        assert!(matches!(
            Board::from_rows(&bad),
            Err(BoardError::BadChar { ch: 'x', .. })
        ));
        bad[3] = "OOOOOO.........".into();
        assert!(matches!(
            Board::from_rows(&bad),
            Err(BoardError::HoldsFive {
                color: Color::White,
                len: 6,
                ..
            })
        ));
    }

    #[test]
    fn place_rejects_fives_and_occupied() {
        let mut b = Board::empty();
        for c in 0..4 {
            b.place(Point::new(0, c).unwrap(), Color::Black).unwrap();
        }
        let p = Point::new(0, 4).unwrap();
        assert!(matches!(
            b.place(p, Color::Black),
            Err(BoardError::HoldsFive { len: 5, .. })
        ));
        assert_eq!(
            b.place(Point::new(0, 0).unwrap(), Color::White),
            Err(BoardError::Occupied(Point::new(0, 0).unwrap()))
        );
        b.place(p, Color::White).unwrap();
        b.remove(p);
        assert_eq!(b.get(p), None);
        assert_eq!(b.stones(), 4);
    }
}
