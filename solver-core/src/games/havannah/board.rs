//! The Havannah board in the seed's array format (spec "Board format"), validated once into a
//! [`Board`] that is always well formed: board sizes, cells, players, corners and sides.
//!
//! Internally the board is stored in axial coordinates with a one-cell padding ring, so that
//! the six neighbours of an on-board cell are fixed index offsets and never leave the array.
//! Axial `x = col`, `y = row + max(0, col - m)` (spec "Axial view"); padded index
//! `(y + 1) * w + (x + 1)` with `w = dim + 2`.

use std::fmt;
use std::sync::OnceLock;

/// The board size: `layers` = cells per side, from [`Layers::MIN`] to [`Layers::MAX`].
///
/// The seed's array is `dim x dim` with `dim = 2 * layers - 1`; the hexagon holds
/// `3 L^2 - 3 L + 1` cells.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Layers(u8);

impl Layers {
    /// The smallest board: 7 cells.
    pub const MIN: u32 = 2;
    /// The largest board this module supports: `dim = 63`.
    pub const MAX: u32 = 32;

    /// Validates a layer count.
    ///
    /// # Errors
    /// [`HavannahError::Layers`] unless `MIN <= layers <= MAX`.
    pub fn new(layers: u32) -> Result<Self, HavannahError> {
        if (Self::MIN..=Self::MAX).contains(&layers) {
            Ok(Self(layers as u8))
        } else {
            Err(HavannahError::Layers { layers })
        }
    }

    /// Cells per side.
    pub fn get(self) -> usize {
        usize::from(self.0)
    }

    /// Side length of the seed's square array, `2 L - 1`.
    pub fn dim(self) -> usize {
        2 * self.get() - 1
    }

    /// Number of cells of the hexagon, `3 L^2 - 3 L + 1`.
    pub fn cell_count(self) -> usize {
        let l = self.get();
        3 * l * l - 3 * l + 1
    }
}

/// One of the two players, `1` or `2` in the seed's format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Player {
    /// Player 1 (array value `1`, moves first in the test games).
    One,
    /// Player 2 (array value `2`).
    Two,
}

impl Player {
    /// Parses the seed's player number.
    ///
    /// # Errors
    /// [`HavannahError::Player`] for anything but 1 and 2.
    pub fn new(player: u32) -> Result<Self, HavannahError> {
        match player {
            1 => Ok(Self::One),
            2 => Ok(Self::Two),
            _ => Err(HavannahError::Player { player }),
        }
    }

    /// The seed's number: 1 or 2.
    pub fn number(self) -> u8 {
        match self {
            Self::One => 1,
            Self::Two => 2,
        }
    }

    /// The other player.
    pub fn opponent(self) -> Self {
        match self {
            Self::One => Self::Two,
            Self::Two => Self::One,
        }
    }
}

/// What an on-board cell holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Point {
    /// Array value 0.
    Empty,
    /// Array value 1 or 2.
    Stone(Player),
    /// Array value 3 inside the hexagon: nobody plays or connects there (the course's variant),
    /// but a ring may enclose it.
    Blocked,
}

/// A cell in the seed's array coordinates: `row` 0 = top, `col` 0 = left.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Cell {
    /// Row of the seed's array, 0 = top.
    pub row: usize,
    /// Column of the seed's array, 0 = left.
    pub col: usize,
}

impl Cell {
    /// The cell at `(row, col)`.
    pub fn new(row: usize, col: usize) -> Self {
        Self { row, col }
    }
}

impl fmt::Display for Cell {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{},{}", self.row, self.col)
    }
}

/// The six sides of the hexagon (spec "Board format"): edge cells without the corners, `L - 2`
/// cells each. Ordered clockwise from the top-left side.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Side {
    /// `(0, 1..m-1)`.
    TopLeft,
    /// `(0, m+1..dim-2)`.
    TopRight,
    /// `(1..m-1, dim-1)`.
    Right,
    /// `(m+k, dim-1-k)`, `k = 1..m-1`.
    BottomRight,
    /// `(m+k, k)`, `k = 1..m-1`.
    BottomLeft,
    /// `(1..m-1, 0)`.
    Left,
}

impl Side {
    /// All six, in bit order of the side masks.
    pub const ALL: [Side; 6] = [
        Side::TopLeft,
        Side::TopRight,
        Side::Right,
        Side::BottomRight,
        Side::BottomLeft,
        Side::Left,
    ];

    /// The side's name: `top-left`, `top-right`, `right`, `bottom-right`, `bottom-left`, `left`.
    pub fn name(self) -> &'static str {
        match self {
            Side::TopLeft => "top-left",
            Side::TopRight => "top-right",
            Side::Right => "right",
            Side::BottomRight => "bottom-right",
            Side::BottomLeft => "bottom-left",
            Side::Left => "left",
        }
    }
}

impl fmt::Display for Side {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Everything a board, a move or a player can be rejected for. Each variant carries the
/// rejected input. Rows and columns are 0-based indices into the seed's `dim x dim` array
/// (row 0 at the top), as in the input, also in `Size`'s `entries in row R`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum HavannahError {
    /// The layer count is outside `2..=32`.
    #[error("layers {layers} is out of range: must be from 2 to 32")]
    Layers {
        /// The rejected layer count.
        layers: u32,
    },
    /// The array does not have `dim * dim` entries (or `dim` rows of `dim`).
    #[error("the board must be {dim} x {dim} ({expected} entries), got {got} {what}")]
    Size {
        /// `2 L - 1`.
        dim: usize,
        /// Expected count of `what`.
        expected: usize,
        /// Count received.
        got: usize,
        /// What was counted: `entries`, `rows` or `entries in row R`.
        what: String,
    },
    /// An entry is not one of 0, 1, 2, 3.
    #[error("entry ({row},{col}) is {value}: values must be 0 (empty), 1, 2 or 3 (not playable)")]
    Value {
        /// Row of the entry.
        row: usize,
        /// Column of the entry.
        col: usize,
        /// The rejected value.
        value: u32,
    },
    /// An entry outside the hexagon is not 3.
    #[error("entry ({row},{col}) is off the hexagon and must be 3, got {value}")]
    OffBoard {
        /// Row of the entry.
        row: usize,
        /// Column of the entry.
        col: usize,
        /// The rejected value.
        value: u32,
    },
    /// The player number is not 1 or 2.
    #[error("player {player} is not 1 or 2")]
    Player {
        /// The rejected number.
        player: u32,
    },
    /// The cell is outside the hexagon.
    #[error("cell ({row},{col}) is not on the board of {layers} layers")]
    CellOffBoard {
        /// Row of the cell.
        row: usize,
        /// Column of the cell.
        col: usize,
        /// The board's layer count.
        layers: usize,
    },
    /// The cell is a blocked (`3`) cell inside the hexagon.
    #[error("cell ({row},{col}) is blocked (3): nobody can play there")]
    CellBlocked {
        /// Row of the cell.
        row: usize,
        /// Column of the cell.
        col: usize,
    },
    /// The cell holds a stone that is not the mover's.
    #[error("cell ({row},{col}) holds player {owner}'s stone, not the mover's")]
    CellTaken {
        /// Row of the cell.
        row: usize,
        /// Column of the cell.
        col: usize,
        /// The player whose stone is there.
        owner: u8,
    },
}

/// Internal cell codes of the padded array.
pub(crate) const EMPTY: u8 = 0;
pub(crate) const BLOCKED: u8 = 3;
/// Off the hexagon (array entries that must be 3, and the padding ring).
pub(crate) const OFF: u8 = 4;

/// A validated Havannah position: every array entry off the hexagon is 3, every on-board entry
/// is 0..=3. Cheap to clone (one byte per padded cell).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Board {
    layers: Layers,
    /// Padded axial array of cell codes (0 empty, 1/2 stones, 3 blocked, 4 off the hexagon).
    cells: Vec<u8>,
}

impl Board {
    /// The empty board (no stones, no blocked cells).
    pub fn empty(layers: Layers) -> Self {
        let g = Geometry::new(layers);
        let mut cells = vec![OFF; g.w * g.w];
        for cell in g.cells() {
            cells[g.index(cell)] = EMPTY;
        }
        Self { layers, cells }
    }

    /// Validates the seed's `dim x dim` array given as rows (`rows[row][col]`).
    ///
    /// # Errors
    /// [`HavannahError::Size`] for a wrong row count or row length, [`HavannahError::Value`] for
    /// an entry outside 0..=3, [`HavannahError::OffBoard`] for an off-hexagon entry that is not 3.
    pub fn from_rows<R: AsRef<[u32]>>(layers: Layers, rows: &[R]) -> Result<Self, HavannahError> {
        let dim = layers.dim();
        if rows.len() != dim {
            return Err(HavannahError::Size {
                dim,
                expected: dim,
                got: rows.len(),
                what: "rows".into(),
            });
        }
        for (r, row) in rows.iter().enumerate() {
            if row.as_ref().len() != dim {
                return Err(HavannahError::Size {
                    dim,
                    expected: dim,
                    got: row.as_ref().len(),
                    what: format!("entries in row {r}"),
                });
            }
        }
        Self::build(layers, |r, c| rows[r].as_ref()[c])
    }

    /// Validates the seed's array flattened row-major (`flat[row * dim + col]`).
    ///
    /// # Errors
    /// As [`Board::from_rows`]; a wrong length is [`HavannahError::Size`].
    pub fn from_flat(layers: Layers, flat: &[u32]) -> Result<Self, HavannahError> {
        let dim = layers.dim();
        if flat.len() != dim * dim {
            return Err(HavannahError::Size {
                dim,
                expected: dim * dim,
                got: flat.len(),
                what: "entries".into(),
            });
        }
        Self::build(layers, |r, c| flat[r * dim + c])
    }

    fn build(layers: Layers, at: impl Fn(usize, usize) -> u32) -> Result<Self, HavannahError> {
        let g = Geometry::new(layers);
        let mut board = Self::empty(layers);
        for row in 0..g.dim {
            for col in 0..g.dim {
                let value = at(row, col);
                if value > 3 {
                    return Err(HavannahError::Value { row, col, value });
                }
                let cell = Cell::new(row, col);
                if g.on_board(cell) {
                    board.cells[g.index(cell)] = value as u8;
                } else if value != 3 {
                    return Err(HavannahError::OffBoard { row, col, value });
                }
            }
        }
        Ok(board)
    }

    /// The board size.
    pub fn layers(&self) -> Layers {
        self.layers
    }

    /// The geometry (coordinates, neighbours, corners, sides) of this board size.
    pub fn geometry(&self) -> Geometry {
        Geometry::new(self.layers)
    }

    /// What the cell holds, or `None` off the hexagon.
    pub fn get(&self, cell: Cell) -> Option<Point> {
        let g = self.geometry();
        g.on_board(cell).then(|| point(self.cells[g.index(cell)]))
    }

    /// Puts `player`'s stone on `cell` if it is empty; a cell already holding `player`'s stone
    /// is left as it is (the seed's `check_win` takes the position after the move).
    ///
    /// # Errors
    /// [`HavannahError::CellOffBoard`], [`HavannahError::CellBlocked`], or
    /// [`HavannahError::CellTaken`] when the opponent's stone is there.
    pub fn place(&mut self, cell: Cell, player: Player) -> Result<(), HavannahError> {
        let g = self.geometry();
        let (row, col) = (cell.row, cell.col);
        if !g.on_board(cell) {
            return Err(HavannahError::CellOffBoard {
                row,
                col,
                layers: self.layers.get(),
            });
        }
        let i = g.index(cell);
        match point(self.cells[i]) {
            Point::Empty => {
                self.cells[i] = player.number();
                Ok(())
            }
            Point::Stone(p) if p == player => Ok(()),
            Point::Stone(p) => Err(HavannahError::CellTaken {
                row,
                col,
                owner: p.number(),
            }),
            Point::Blocked => Err(HavannahError::CellBlocked { row, col }),
        }
    }

    /// The seed's array, `dim` rows of `dim` values (3 off the hexagon).
    pub fn to_rows(&self) -> Vec<Vec<u32>> {
        let g = self.geometry();
        (0..g.dim)
            .map(|row| {
                (0..g.dim)
                    .map(|col| {
                        let cell = Cell::new(row, col);
                        if g.on_board(cell) {
                            u32::from(self.cells[g.index(cell)])
                        } else {
                            3
                        }
                    })
                    .collect()
            })
            .collect()
    }

    /// The padded cell codes (crate-internal fast path).
    pub(crate) fn codes(&self) -> &[u8] {
        &self.cells
    }
}

fn point(code: u8) -> Point {
    match code {
        1 => Point::Stone(Player::One),
        2 => Point::Stone(Player::Two),
        EMPTY => Point::Empty,
        _ => Point::Blocked,
    }
}

/// Coordinates of one board size: on-board test, neighbours, corners and sides, and the padded
/// axial index used internally.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Geometry {
    /// Board size.
    pub layers: Layers,
    /// `2 L - 1`.
    pub dim: usize,
    /// `L - 1`, the centre column.
    pub m: usize,
    /// Row stride of the padded axial array, `dim + 2`.
    pub(crate) w: usize,
}

impl Geometry {
    /// The geometry of `layers`.
    pub fn new(layers: Layers) -> Self {
        let dim = layers.dim();
        Self {
            layers,
            dim,
            m: layers.get() - 1,
            w: dim + 2,
        }
    }

    /// True iff `cell` is in the hexagon: `row <= m + min(col, dim - 1 - col)`.
    pub fn on_board(&self, cell: Cell) -> bool {
        cell.col < self.dim && cell.row <= self.m + cell.col.min(self.dim - 1 - cell.col)
    }

    /// Every on-board cell, row by row.
    pub fn cells(&self) -> impl Iterator<Item = Cell> + '_ {
        (0..self.dim)
            .flat_map(move |row| (0..self.dim).map(move |col| Cell::new(row, col)))
            .filter(|&c| self.on_board(c))
    }

    /// Axial coordinates `(x, y)` of a cell: `x = col`, `y = row + max(0, col - m)`.
    pub fn axial(&self, cell: Cell) -> (usize, usize) {
        (cell.col, cell.row + cell.col.saturating_sub(self.m))
    }

    /// The cell at axial `(x, y)`, if on the board.
    pub fn from_axial(&self, x: usize, y: usize) -> Option<Cell> {
        let row = y.checked_sub(x.saturating_sub(self.m))?;
        let cell = Cell::new(row, x);
        self.on_board(cell).then_some(cell)
    }

    /// Padded index of an on-board cell.
    pub(crate) fn index(&self, cell: Cell) -> usize {
        let (x, y) = self.axial(cell);
        (y + 1) * self.w + x + 1
    }

    /// The cell of a padded index (which must be on the board).
    pub(crate) fn cell_of(&self, index: usize) -> Cell {
        let (x, y) = (index % self.w - 1, index / self.w - 1);
        Cell::new(y - x.saturating_sub(self.m), x)
    }

    /// Padded-index offsets of the six neighbours in circular (counter-clockwise in axial
    /// terms) order: axial `(1,0), (1,1), (0,1), (-1,0), (-1,-1), (0,-1)`.
    pub(crate) fn offsets(&self) -> [isize; 6] {
        let w = self.w as isize;
        [1, w + 1, w, -1, -w - 1, -w]
    }

    /// The on-board neighbours of `cell` in circular order (spec "Neighbours"); at most six.
    pub fn neighbours(&self, cell: Cell) -> Vec<Cell> {
        let (x, y) = self.axial(cell);
        [(1, 0), (1, 1), (0, 1), (-1, 0), (-1, -1), (0, -1)]
            .iter()
            .filter_map(|&(dx, dy): &(isize, isize)| {
                let nx = x.checked_add_signed(dx)?;
                let ny = y.checked_add_signed(dy)?;
                self.from_axial(nx, ny)
            })
            .collect()
    }

    /// The six corners in the spec's order: `(0,0)`, `(0,m)`, `(0,dim-1)`, `(m,dim-1)`,
    /// `(dim-1,m)`, `(m,0)`.
    pub fn corners(&self) -> [Cell; 6] {
        let (m, d) = (self.m, self.dim - 1);
        [
            Cell::new(0, 0),
            Cell::new(0, m),
            Cell::new(0, d),
            Cell::new(m, d),
            Cell::new(d, m),
            Cell::new(m, 0),
        ]
    }

    /// Index (0..6, as in [`Geometry::corners`]) of the corner at `cell`, if it is one.
    pub fn corner_of(&self, cell: Cell) -> Option<usize> {
        self.corners().iter().position(|&c| c == cell)
    }

    /// The side `cell` lies on (corners belong to no side).
    pub fn side_of(&self, cell: Cell) -> Option<Side> {
        if !self.on_board(cell) || self.corner_of(cell).is_some() {
            return None;
        }
        let (x, y) = self.axial(cell);
        let m2 = 2 * self.m;
        if y == 0 {
            Some(Side::TopLeft)
        } else if x == y + self.m {
            Some(Side::TopRight)
        } else if x == m2 {
            Some(Side::Right)
        } else if y == m2 {
            Some(Side::BottomRight)
        } else if y == x + self.m {
            Some(Side::BottomLeft)
        } else if x == 0 {
            Some(Side::Left)
        } else {
            None
        }
    }

    /// The cells of `side`, in order along the border (`L - 2` cells; none for `L = 2`).
    pub fn side_cells(&self, side: Side) -> Vec<Cell> {
        let (m, d) = (self.m, self.dim - 1);
        let k = 1..m;
        match side {
            Side::TopLeft => k.map(|c| Cell::new(0, c)).collect(),
            Side::TopRight => k.map(|t| Cell::new(0, m + t)).collect(),
            Side::Right => k.map(|r| Cell::new(r, d)).collect(),
            Side::BottomRight => k.map(|t| Cell::new(m + t, d - t)).collect(),
            Side::BottomLeft => k.map(|t| Cell::new(m + t, t)).collect(),
            Side::Left => k.map(|r| Cell::new(r, 0)).collect(),
        }
    }

    /// [`Geometry::edge_mask`] of every padded index (0 off the board), computed once per
    /// board size.
    pub(crate) fn edge_table(&self) -> &'static [u16] {
        static TABLES: [OnceLock<Vec<u16>>; Layers::MAX as usize + 1] =
            [const { OnceLock::new() }; Layers::MAX as usize + 1];
        TABLES[self.layers.get()].get_or_init(|| {
            let mut t = vec![0; self.w * self.w];
            for cell in self.cells() {
                t[self.index(cell)] = self.edge_mask(cell);
            }
            t
        })
    }

    /// The structure mask of a cell: bit `c` (0..6) for corner `c`, bit `6 + s` for side `s`
    /// (in [`Side::ALL`] order); 0 for inner cells.
    pub(crate) fn edge_mask(&self, cell: Cell) -> u16 {
        if let Some(c) = self.corner_of(cell) {
            1 << c
        } else if let Some(s) = self.side_of(cell) {
            1 << (6 + s as u16)
        } else {
            0
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_and_round_trips() {
        for l in 2..=32 {
            let layers = Layers::new(l).expect("in range");
            let g = Geometry::new(layers);
            assert_eq!(g.cells().count(), layers.cell_count());
            for cell in g.cells() {
                assert_eq!(g.cell_of(g.index(cell)), cell);
                let (x, y) = g.axial(cell);
                assert_eq!(g.from_axial(x, y), Some(cell));
            }
            let board = Board::empty(layers);
            assert_eq!(Board::from_rows(layers, &board.to_rows()), Ok(board));
        }
        assert!(Layers::new(1).is_err());
        assert!(Layers::new(33).is_err());
    }

    /// The spec's neighbour rule, written in array coordinates as the seed states it.
    fn spec_neighbours(g: &Geometry, c: Cell) -> Vec<Cell> {
        let (i, j, m) = (c.row as isize, c.col as isize, g.m as isize);
        let mut v = vec![(i - 1, j), (i + 1, j), (i, j - 1), (i, j + 1)];
        if j < m {
            v.extend([(i - 1, j - 1), (i + 1, j + 1)]);
        } else if j == m {
            v.extend([(i - 1, j - 1), (i - 1, j + 1)]);
        } else {
            v.extend([(i - 1, j + 1), (i + 1, j - 1)]);
        }
        let mut out: Vec<Cell> = v
            .into_iter()
            .filter(|&(r, c)| r >= 0 && c >= 0)
            .map(|(r, c)| Cell::new(r as usize, c as usize))
            .filter(|&c| g.on_board(c))
            .collect();
        out.sort();
        out
    }

    #[test]
    fn neighbours_match_the_spec() {
        for l in 2..=12 {
            let g = Geometry::new(Layers::new(l).expect("in range"));
            for cell in g.cells() {
                let mut ours = g.neighbours(cell);
                ours.sort();
                assert_eq!(ours, spec_neighbours(&g, cell), "L={l} {cell}");
            }
        }
    }

    #[test]
    fn corners_and_sides_partition_the_border() {
        for l in 2..=12 {
            let g = Geometry::new(Layers::new(l).expect("in range"));
            for side in Side::ALL {
                let cells = g.side_cells(side);
                assert_eq!(cells.len(), g.layers.get() - 2);
                for c in cells {
                    assert_eq!(g.side_of(c), Some(side), "L={l} {c}");
                }
            }
            let border = g.cells().filter(|&c| g.neighbours(c).len() < 6).count();
            assert_eq!(border, 6 * (g.layers.get() - 1));
            let labelled = g
                .cells()
                .filter(|&c| g.corner_of(c).is_some() || g.side_of(c).is_some())
                .count();
            assert_eq!(labelled, border);
            for c in g.corners() {
                assert!(g.neighbours(c).len() == 3, "L={l} corner {c}");
            }
        }
    }
}
