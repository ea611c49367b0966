//! Positions of (4, n, 7^tr): Maker's and Breaker's cells and the side to move, their text
//! form, l-lines, the potential, the end-of-game tests and the mirror-canonical key.

use std::fmt;

use super::board::{Cell, Cols, ColsError, ROWS};
use super::hypergraph::Hypergraph;

/// The side to move. In proof-number search Maker to move is an OR node, Breaker to move an AND
/// node, and "proven" means Maker wins.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Side {
    /// Maker: wins by owning every cell of some edge.
    Maker,
    /// Breaker: wins when no edge can be completed any more.
    Breaker,
}

impl Side {
    /// The other side.
    pub fn other(self) -> Side {
        match self {
            Side::Maker => Side::Breaker,
            Side::Breaker => Side::Maker,
        }
    }

    /// `"maker"` or `"breaker"`, as in the test data and the command line.
    pub fn as_str(self) -> &'static str {
        match self {
            Side::Maker => "maker",
            Side::Breaker => "breaker",
        }
    }
}

impl fmt::Display for Side {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::str::FromStr for Side {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s.to_ascii_lowercase().as_str() {
            "maker" | "m" => Ok(Side::Maker),
            "breaker" | "b" => Ok(Side::Breaker),
            _ => Err(format!("side must be maker or breaker, not {s:?}")),
        }
    }
}

/// A position: the cells each side owns and the side to move. Valid when built by its
/// constructors and [`Position::play`]: the two sides' cells are disjoint and on the board
/// ([`Position::assign`] checks that only in debug builds).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Position {
    cols: Cols,
    maker: u128,
    breaker: u128,
    to_move: Side,
}

/// Why a position's text was rejected. Each variant names the problem.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ParsePositionError {
    /// Not 4 rows.
    #[error("a board has 4 rows, this one has {0}")]
    RowCount(usize),
    /// A row whose length is not the board's width (the width given, or else the first
    /// row's length).
    #[error("row {row} has {len} cells but the board is {expected} wide (one cell per column)")]
    RowLength {
        /// 1-based row.
        row: usize,
        /// Its length.
        len: usize,
        /// The board width.
        expected: u32,
    },
    /// The first row's length, taken as the width when none is given, is out of range.
    #[error(transparent)]
    Cols(#[from] ColsError),
    /// A character other than `.`, `M`, `B`.
    #[error("row {row}, column {col}: {ch:?} is not '.', 'M' or 'B'")]
    BadChar {
        /// 1-based row.
        row: usize,
        /// 1-based column.
        col: usize,
        /// The character.
        ch: char,
    },
}

impl Position {
    /// The empty board of width `cols` with `to_move` to move.
    pub fn empty(cols: Cols, to_move: Side) -> Self {
        Position {
            cols,
            maker: 0,
            breaker: 0,
            to_move,
        }
    }

    /// A position from cell masks.
    ///
    /// # Errors
    /// A message when the masks overlap or leave the board.
    pub fn from_masks(
        cols: Cols,
        maker: u128,
        breaker: u128,
        to_move: Side,
    ) -> Result<Self, String> {
        if maker & breaker != 0 {
            return Err("a cell belongs to both Maker and Breaker".into());
        }
        if (maker | breaker) & !cols.full_mask() != 0 {
            return Err(format!("a cell is off a board of width {cols}"));
        }
        Ok(Position {
            cols,
            maker,
            breaker,
            to_move,
        })
    }

    /// Parses the 4 rows, top row first, each `n` characters of `.` (empty), `M` (Maker) and
    /// `B` (Breaker); lower case is accepted. The board is `width` wide, or, when `None`, as
    /// wide as the first row.
    ///
    /// # Errors
    /// [`ParsePositionError`] naming the row, column or count that is wrong; `Cols` when
    /// `width` is `None` and the first row's length is not a width (4 to 32).
    pub fn from_rows<S: AsRef<str>>(
        rows: &[S],
        width: Option<Cols>,
        to_move: Side,
    ) -> Result<Self, ParsePositionError> {
        if rows.len() != ROWS as usize {
            return Err(ParsePositionError::RowCount(rows.len()));
        }
        let cols = match width {
            Some(cols) => cols,
            None => Cols::try_from(rows[0].as_ref().chars().count() as u64)?,
        };
        let mut pos = Position::empty(cols, to_move);
        for (r, row) in rows.iter().enumerate() {
            let row = row.as_ref();
            let len = row.chars().count();
            if len != cols.get() as usize {
                return Err(ParsePositionError::RowLength {
                    row: r + 1,
                    len,
                    expected: cols.get(),
                });
            }
            for (c, ch) in row.chars().enumerate() {
                let bit = Cell::new(r as u32, c as u32).bit();
                match ch {
                    '.' => {}
                    'M' | 'm' => pos.maker |= bit,
                    'B' | 'b' => pos.breaker |= bit,
                    _ => {
                        return Err(ParsePositionError::BadChar {
                            row: r + 1,
                            col: c + 1,
                            ch,
                        });
                    }
                }
            }
        }
        Ok(pos)
    }

    /// Parses the compact form, the 4 rows joined by `/`.
    ///
    /// # Errors
    /// As [`Self::from_rows`].
    pub fn from_compact(
        text: &str,
        width: Option<Cols>,
        to_move: Side,
    ) -> Result<Self, ParsePositionError> {
        let rows: Vec<&str> = text.trim().split('/').collect();
        Self::from_rows(&rows, width, to_move)
    }

    /// The 4 rows, top row first.
    pub fn rows(&self) -> Vec<String> {
        (0..ROWS)
            .map(|r| {
                (0..self.cols.get())
                    .map(|c| {
                        let bit = Cell::new(r, c).bit();
                        if self.maker & bit != 0 {
                            'M'
                        } else if self.breaker & bit != 0 {
                            'B'
                        } else {
                            '.'
                        }
                    })
                    .collect()
            })
            .collect()
    }

    /// The board width.
    pub fn cols(&self) -> Cols {
        self.cols
    }
    /// Maker's cells.
    pub fn maker(&self) -> u128 {
        self.maker
    }
    /// Breaker's cells.
    pub fn breaker(&self) -> u128 {
        self.breaker
    }
    /// The side to move.
    pub fn to_move(&self) -> Side {
        self.to_move
    }
    /// The empty cells.
    pub fn empty_cells(&self) -> u128 {
        self.cols.full_mask() & !(self.maker | self.breaker)
    }

    /// The same cells with `side` to move.
    pub fn with_to_move(mut self, side: Side) -> Self {
        self.to_move = side;
        self
    }

    /// Gives `cells` (a bit set of [`Cell::bit`]s) to `side` without changing the side to
    /// move (used by reductions). `cells` must be empty cells on the board.
    ///
    /// # Panics
    /// In debug builds, when a cell of `cells` is taken; nothing checks, in release builds,
    /// that they are empty or on the board.
    pub fn assign(&mut self, side: Side, cells: u128) {
        debug_assert_eq!(cells & (self.maker | self.breaker), 0);
        match side {
            Side::Maker => self.maker |= cells,
            Side::Breaker => self.breaker |= cells,
        }
    }

    /// The side to move claims `cell` and the turn passes.
    ///
    /// # Errors
    /// A message when the cell is taken or off the board.
    pub fn play(&self, cell: Cell) -> Result<Self, String> {
        if self.empty_cells() & cell.bit() == 0 {
            return Err(format!("{} is not an empty cell", cell.name()));
        }
        let mut next = *self;
        next.assign(self.to_move, cell.bit());
        next.to_move = self.to_move.other();
        Ok(next)
    }

    /// True when Maker owns every cell of some edge.
    pub fn maker_won(&self, hg: &Hypergraph) -> bool {
        hg.edges().iter().any(|&e| e & !self.maker == 0)
    }

    /// The l-line histogram and potential (see [`Potential`]).
    pub fn potential(&self, hg: &Hypergraph) -> Potential {
        let mut lines = [0u32; 8];
        for &e in hg.edges() {
            if e & self.breaker == 0 {
                lines[(e & !self.maker).count_ones() as usize] += 1;
            }
        }
        Potential { lines }
    }

    /// Erdős–Selfridge certificate (paper Thm II.1): Breaker is to move, Maker has not won, and
    /// `pot < 1`. Breaker then wins.
    pub fn breaker_certificate(&self, hg: &Hypergraph) -> bool {
        let p = self.potential(hg);
        self.to_move == Side::Breaker && p.lines[0] == 0 && p.pot() < Dyadic::ONE
    }

    /// The mirror image `c -> n-1-c`, same side to move.
    pub fn mirror(&self) -> Self {
        Position {
            maker: self.cols.mirror(self.maker),
            breaker: self.cols.mirror(self.breaker),
            ..*self
        }
    }

    /// The exact key of this position (no symmetry).
    pub fn key(&self) -> Key {
        Key::of(self)
    }

    /// The mirror-canonical transposition key: the smaller of the keys of the position and of
    /// its mirror, so a position and its mirror share it.
    pub fn canonical_key(&self) -> Key {
        self.key().canonical()
    }
}

impl fmt::Display for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.rows().join("/"))
    }
}

/// A transposition key: the exact position (width, cells, side to move).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Key {
    /// Board width.
    pub cols: u8,
    /// Side to move.
    pub to_move: Side,
    /// Maker's cells.
    pub maker: u128,
    /// Breaker's cells.
    pub breaker: u128,
}

impl Key {
    fn of(p: &Position) -> Key {
        Key {
            cols: p.cols.get() as u8,
            to_move: p.to_move,
            maker: p.maker,
            breaker: p.breaker,
        }
    }

    /// The key of the mirror image `c -> n-1-c` ([`Position::mirror`]), same side to move; the
    /// key itself when its width is no board's (4..=32).
    pub fn mirror(&self) -> Key {
        match Cols::try_from(u32::from(self.cols)) {
            Ok(cols) => Key {
                maker: cols.mirror(self.maker),
                breaker: cols.mirror(self.breaker),
                ..*self
            },
            Err(_) => *self,
        }
    }

    /// The mirror-canonical form: the smaller of this key and its mirror's, which a position
    /// and its mirror share ([`Position::canonical_key`]).
    pub fn canonical(&self) -> Key {
        (*self).min(self.mirror())
    }

    /// The stones the key holds, Maker's and Breaker's (0..=4n).
    pub fn stones(&self) -> u32 {
        (self.maker | self.breaker).count_ones()
    }
}

/// The l-line histogram of a position and the potentials derived from it.
///
/// An l-line is an edge with no Breaker cell and exactly `l` empty cells; `lines[l]` = x_l for
/// `l = 0..=7` (x_0 counts edges Maker already owns). `pot = Σ x_l 2^-(l-1)` (paper Sec. II)
/// and `phi = pot / 2 = Σ x_l 2^-l` (the anchor code's potential).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Potential {
    /// `lines[l]` = number of l-lines, `l = 0..=7`.
    pub lines: [u32; 8],
}

impl Potential {
    /// `phi = Σ x_l 2^-l`, exact.
    pub fn phi(&self) -> Dyadic {
        let num = self
            .lines
            .iter()
            .enumerate()
            .map(|(l, &x)| u64::from(x) << (7 - l))
            .sum();
        Dyadic::new(num, 7)
    }

    /// `pot = Σ x_l 2^-(l-1) = 2 phi`, exact.
    pub fn pot(&self) -> Dyadic {
        let phi = self.phi();
        Dyadic::new(phi.num, 6)
    }
}

/// An exact non-negative dyadic rational `num / 2^log2_den`.
#[derive(Debug, Clone, Copy)]
pub struct Dyadic {
    num: u64,
    log2_den: u32,
}

impl Dyadic {
    /// One.
    pub const ONE: Dyadic = Dyadic {
        num: 1,
        log2_den: 0,
    };

    /// `num / 2^log2_den`.
    pub fn new(num: u64, log2_den: u32) -> Self {
        Dyadic { num, log2_den }
    }

    /// The value in lowest terms: `(numerator, denominator)`.
    pub fn reduced(&self) -> (u64, u64) {
        if self.num == 0 {
            return (0, 1);
        }
        let shift = self.num.trailing_zeros().min(self.log2_den);
        (self.num >> shift, 1u64 << (self.log2_den - shift))
    }

    /// The value as a float (exact for every value that occurs here).
    pub fn to_f64(&self) -> f64 {
        self.num as f64 / (1u64 << self.log2_den) as f64
    }
}

impl PartialEq for Dyadic {
    fn eq(&self, other: &Self) -> bool {
        self.reduced() == other.reduced()
    }
}
impl Eq for Dyadic {}
impl PartialOrd for Dyadic {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Dyadic {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        let d = self.log2_den.max(other.log2_den);
        let a = u128::from(self.num) << (d - self.log2_den);
        let b = u128::from(other.num) << (d - other.log2_den);
        a.cmp(&b)
    }
}

/// Lowest terms, `p/q`, or `p` when the value is an integer (the test data's form).
impl fmt::Display for Dyadic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.reduced() {
            (p, 1) => write!(f, "{p}"),
            (p, q) => write!(f, "{p}/{q}"),
        }
    }
}
