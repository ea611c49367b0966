//! Hex boards: sizes, cells, cell names, colours and the validated position.
//!
//! Convention (spec `hex.md`, "Board and notation", the Hayward / Benzene / HexGui convention):
//! an `n x n` rhombus, cell `(r, c)` 0-based with `r` the row from the top and `c` the column
//! from the left; each row is drawn half a cell to the right of the row above. The name of a
//! cell is its column letter followed by its 1-based row: `(0, 0)` = `a1`, `(2, 1)` = `b3`.
//! Black (`B`, first player) joins the top row to the bottom row, White (`W`) joins the left
//! column to the right column.
//!
//! Cells are bit indices `r * n + c` of a `u128`, so every board up to 11 x 11 (121 cells) is a
//! pair of bitboards.

use std::fmt;

use super::geometry::Geometry;

/// Smallest board side.
pub const MIN_SIZE: usize = 1;
/// Largest board side: 11 x 11 = 121 cells fit a `u128`.
pub const MAX_SIZE: usize = 11;

/// A player. Black moves first on the empty board.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Color {
    /// Black, `B`: joins the top row to the bottom row.
    Black,
    /// White, `W`: joins the left column to the right column.
    White,
}

impl Color {
    /// The other player.
    pub fn opponent(self) -> Color {
        match self {
            Color::Black => Color::White,
            Color::White => Color::Black,
        }
    }

    /// The board character: `'B'` or `'W'`.
    pub fn to_char(self) -> char {
        match self {
            Color::Black => 'B',
            Color::White => 'W',
        }
    }

    /// Parses `"B"` or `"W"` (also `"black"` / `"white"`, any case).
    ///
    /// # Errors
    /// [`HexError::BadColor`] carrying the rejected text.
    pub fn parse(s: &str) -> Result<Color, HexError> {
        match s.to_ascii_lowercase().as_str() {
            "b" | "black" => Ok(Color::Black),
            "w" | "white" => Ok(Color::White),
            _ => Err(HexError::BadColor(s.to_string())),
        }
    }
}

impl fmt::Display for Color {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.to_char())
    }
}

/// A cell `(row, col)`, 0-based, of a board of a known side `n`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Cell {
    /// Row from the top, `0..n`.
    pub row: u8,
    /// Column from the left, `0..n`.
    pub col: u8,
}

impl Cell {
    /// The cell `(row, col)`.
    pub fn new(row: u8, col: u8) -> Cell {
        Cell { row, col }
    }

    /// The bit index `row * n + col` on a board of side `n`.
    pub fn index(self, n: usize) -> u32 {
        self.row as u32 * n as u32 + self.col as u32
    }

    /// The cell of bit index `i` on a board of side `n`.
    pub fn from_index(i: u32, n: usize) -> Cell {
        Cell::new((i / n as u32) as u8, (i % n as u32) as u8)
    }

    /// The name: column letter then 1-based row (`(2, 1)` = `b3`).
    pub fn name(self) -> String {
        format!("{}{}", (b'a' + self.col) as char, self.row as u32 + 1)
    }

    /// Parses a name such as `a1` or `k11` for a board of side `n`.
    ///
    /// # Errors
    /// [`HexError::BadCellName`] carrying the text when it is not a letter and a number, or
    /// names a cell outside the board.
    pub fn parse(s: &str, n: usize) -> Result<Cell, HexError> {
        let bad = || HexError::BadCellName {
            name: s.to_string(),
            n,
        };
        let mut chars = s.chars();
        let letter = chars.next().ok_or_else(bad)?.to_ascii_lowercase();
        if !letter.is_ascii_lowercase() {
            return Err(bad());
        }
        let row: usize = chars.as_str().parse().map_err(|_| bad())?;
        let col = (letter as u8 - b'a') as usize;
        if row == 0 || row > n || col >= n {
            return Err(bad());
        }
        Ok(Cell::new((row - 1) as u8, col as u8))
    }
}

impl fmt::Display for Cell {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.name())
    }
}

/// Everything that makes a board or a request malformed. Each variant carries what was rejected.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum HexError {
    /// The side `n` is outside `1..=11`.
    #[error("board size {0} is out of range: n must be from {MIN_SIZE} to {MAX_SIZE}")]
    Size(usize),
    /// The number of rows differs from `n`.
    #[error("the board has {rows} rows, expected {n} (one per row, square board)")]
    RowCount {
        /// Rows given.
        rows: usize,
        /// Board side.
        n: usize,
    },
    /// A row of the wrong length.
    #[error("row {row} has {len} cells, expected {n} (square board)")]
    RowLength {
        /// 1-based row.
        row: usize,
        /// Its length in characters.
        len: usize,
        /// Board side.
        n: usize,
    },
    /// A character other than `.`, `B`, `W`.
    #[error("row {row}, column {col}: {ch:?} is not '.', 'B' or 'W'")]
    BadChar {
        /// 1-based row.
        row: usize,
        /// 1-based column.
        col: usize,
        /// The character.
        ch: char,
    },
    /// Both sides have a winning chain. The Hex theorem (two winning chains would cross) makes
    /// this unreachable on any board; the check is kept as a guard.
    #[error("both sides are connected, which no game of Hex can reach")]
    BothConnected,
    /// A colour other than `B` / `W`.
    #[error("{0:?} is not a side: expected \"B\" or \"W\"")]
    BadColor(String),
    /// A cell name that is not a letter and a row on this board.
    #[error("{name:?} is not a cell of the {n}x{n} board (column letter + 1-based row, e.g. a1)")]
    BadCellName {
        /// The text.
        name: String,
        /// Board side.
        n: usize,
    },
    /// A move on an occupied cell.
    #[error("cell {0} is occupied")]
    Occupied(String),
}

/// A validated Hex board: side `n` in `1..=11`, disjoint black and white bitboards, and at most
/// one side connected. The side to move is never part of the board (spec: "given by the
/// request, never inferred from stone counts").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Board {
    n: u8,
    black: u128,
    white: u128,
}

impl Board {
    /// The empty board of side `n`.
    ///
    /// # Errors
    /// [`HexError::Size`] when `n` is outside `1..=11`.
    pub fn empty(n: usize) -> Result<Board, HexError> {
        if !(MIN_SIZE..=MAX_SIZE).contains(&n) {
            return Err(HexError::Size(n));
        }
        Ok(Board {
            n: n as u8,
            black: 0,
            white: 0,
        })
    }

    /// Parses `n` rows, top row first, of `n` characters `.`, `B`, `W` each.
    ///
    /// # Errors
    /// [`HexError::Size`], [`HexError::RowCount`], [`HexError::RowLength`],
    /// [`HexError::BadChar`], or [`HexError::BothConnected`].
    pub fn parse<S: AsRef<str>>(n: usize, rows: &[S]) -> Result<Board, HexError> {
        let mut board = Board::empty(n)?;
        if rows.len() != n {
            return Err(HexError::RowCount {
                rows: rows.len(),
                n,
            });
        }
        for (r, row) in rows.iter().enumerate() {
            let row = row.as_ref();
            let len = row.chars().count();
            if len != n {
                return Err(HexError::RowLength { row: r + 1, len, n });
            }
            for (c, ch) in row.chars().enumerate() {
                let bit = 1u128 << (r * n + c);
                match ch {
                    '.' => {}
                    'B' => board.black |= bit,
                    'W' => board.white |= bit,
                    _ => {
                        return Err(HexError::BadChar {
                            row: r + 1,
                            col: c + 1,
                            ch,
                        });
                    }
                }
            }
        }
        if board.is_connected(Color::Black) && board.is_connected(Color::White) {
            return Err(HexError::BothConnected);
        }
        Ok(board)
    }

    /// Parses rows whose count gives `n`.
    ///
    /// # Errors
    /// As [`Board::parse`].
    pub fn parse_rows<S: AsRef<str>>(rows: &[S]) -> Result<Board, HexError> {
        Board::parse(rows.len(), rows)
    }

    /// A board from two bitboards (bit `r * n + c`).
    ///
    /// # Errors
    /// [`HexError::Size`]; [`HexError::Occupied`] when the masks overlap or leave the board;
    /// [`HexError::BothConnected`].
    pub fn from_masks(n: usize, black: u128, white: u128) -> Result<Board, HexError> {
        let mut board = Board::empty(n)?;
        let stray = (black & white) | ((black | white) & !board.geometry().full);
        if stray != 0 {
            let i = stray.trailing_zeros();
            return Err(HexError::Occupied(format!("bit {i}")));
        }
        board.black = black;
        board.white = white;
        if board.is_connected(Color::Black) && board.is_connected(Color::White) {
            return Err(HexError::BothConnected);
        }
        Ok(board)
    }

    /// The side `n`.
    pub fn size(&self) -> usize {
        self.n as usize
    }

    /// The masks of the board's geometry (rows, columns, neighbourhoods).
    pub(crate) fn geometry(&self) -> Geometry {
        Geometry::new(self.n as usize)
    }

    /// Black stones as a bitboard (bit `r * n + c`).
    pub fn black(&self) -> u128 {
        self.black
    }

    /// White stones as a bitboard (bit `r * n + c`).
    pub fn white(&self) -> u128 {
        self.white
    }

    /// Stones of `color` as a bitboard.
    pub fn stones(&self, color: Color) -> u128 {
        match color {
            Color::Black => self.black,
            Color::White => self.white,
        }
    }

    /// Empty cells as a bitboard.
    pub fn empty_cells(&self) -> u128 {
        self.geometry().full & !(self.black | self.white)
    }

    /// What stands on `cell`: `None` for empty. `cell` must be on the board: an off-board
    /// cell reads another cell's stone, or panics in debug builds (a bit index past 127).
    pub fn get(&self, cell: Cell) -> Option<Color> {
        let bit = 1u128 << cell.index(self.size());
        if self.black & bit != 0 {
            Some(Color::Black)
        } else if self.white & bit != 0 {
            Some(Color::White)
        } else {
            None
        }
    }

    /// The board with a `color` stone on `cell`.
    ///
    /// # Errors
    /// [`HexError::Occupied`] when the cell is not empty or not on the board.
    pub fn play(&self, cell: Cell, color: Color) -> Result<Board, HexError> {
        let n = self.size();
        if cell.row as usize >= n || cell.col as usize >= n || self.get(cell).is_some() {
            return Err(HexError::Occupied(cell.name()));
        }
        let mut b = *self;
        match color {
            Color::Black => b.black |= 1u128 << cell.index(n),
            Color::White => b.white |= 1u128 << cell.index(n),
        }
        Ok(b)
    }

    /// Whether `color` has a chain of its stones joining its two sides (spec, "Connectivity").
    pub fn is_connected(&self, color: Color) -> bool {
        self.geometry().connects(color, self.stones(color))
    }

    /// The connected side, if any (at most one by construction).
    pub fn winner(&self) -> Option<Color> {
        [Color::Black, Color::White]
            .into_iter()
            .find(|&c| self.is_connected(c))
    }

    /// A shortest chain of `color` stones joining its two sides, from the first side (top for
    /// Black, left for White) to the second; `None` when `color` is not connected.
    pub fn winning_chain(&self, color: Color) -> Option<Vec<Cell>> {
        let n = self.size();
        let chain = self.geometry().shortest_chain(color, self.stones(color))?;
        Some(chain.into_iter().map(|i| Cell::from_index(i, n)).collect())
    }

    /// The rows, top row first, as `.`/`B`/`W` strings (the input format).
    pub fn rows(&self) -> Vec<String> {
        let n = self.size();
        (0..n)
            .map(|r| {
                (0..n)
                    .map(|c| match self.get(Cell::new(r as u8, c as u8)) {
                        None => '.',
                        Some(col) => col.to_char(),
                    })
                    .collect()
            })
            .collect()
    }

    /// The board drawn as a rhombus for people: column letters on top, row numbers on the
    /// left, each row shifted half a cell right of the row above. Cells in `marked` are drawn
    /// as `*` when empty (used to show winning moves or a chain).
    pub fn draw(&self, marked: &[Cell]) -> String {
        let n = self.size();
        let mut out = String::from("   ");
        for c in 0..n {
            out.push((b'a' + c as u8) as char);
            out.push(' ');
        }
        out.push('\n');
        for r in 0..n {
            out.push_str(&" ".repeat(r));
            out.push_str(&format!("{:>2} ", r + 1));
            for c in 0..n {
                let cell = Cell::new(r as u8, c as u8);
                let ch = match self.get(cell) {
                    Some(col) => col.to_char(),
                    None if marked.contains(&cell) => '*',
                    None => '.',
                };
                out.push(ch);
                out.push(' ');
            }
            out.push('\n');
        }
        out
    }
}

/// The cells of a bitboard on a board of side `n`, in index order (row by row).
pub fn cells_of(mask: u128, n: usize) -> Vec<Cell> {
    let mut m = mask;
    let mut out = Vec::with_capacity(m.count_ones() as usize);
    while m != 0 {
        let i = m.trailing_zeros();
        out.push(Cell::from_index(i, n));
        m &= m - 1;
    }
    out
}
