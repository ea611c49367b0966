//! Incremental win detection: a union-find over stones with corner and side masks at each
//! group's root (bridge, fork), and a local ring test on the new stone's six neighbours (the
//! method of Ewalds' Castro, re-derived in the spec's "Winning structures").
//!
//! # The local ring test
//!
//! Going round the new stone `s`, its own-coloured neighbours fall into maximal runs ("arcs")
//! separated by cells that are not the player's (empty, opponent, blocked or off the board).
//! A ring appears with `s` exactly when
//!
//! 1. two different arcs already belong to one group: a path of the group joins them, and with
//!    `s` it closes a loop; the non-player cells between the arcs on one side of `s` are inside
//!    it (centres of adjacent cells form a triangular lattice whose edges cross only at
//!    vertices, so no path of non-player cells leaves the loop); or
//! 2. `s` or one of its own neighbours now has six own neighbours (a ring around an own stone,
//!    which case 1 cannot see when all neighbours of the centre form one arc around `s`).
//!
//! Conversely, if `s` cuts a non-player region off the border, the cut is a loop of own stones
//! through `s`, which leaves `s` through two different arcs of one group (case 1). Owning more
//! stones never breaks a ring, so checking every stone as it is placed finds every ring,
//! whatever the order of placement.

use super::board::{
    BLOCKED, Board, Cell, EMPTY, Geometry, HavannahError, Layers, OFF, Player, Point,
};
use super::kinds::{Kind, KindSet};

/// Why the ring test fired for a stone (crate-internal: the witness is built from it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum RingTrigger {
    /// `stone` joined two arcs (`a`, `b`, padded indices) of the same group.
    Loop { stone: usize, a: usize, b: usize },
    /// The stone at `centre` has six own neighbours.
    Filled { centre: usize },
}

/// What one placement produced.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Placed {
    /// Structures of the new stone's group, and `ring` if the stone completed one.
    pub kinds: KindSet,
    /// The ring test's reason, if it fired.
    pub ring: Option<RingTrigger>,
}

/// A position that follows moves one at a time and reports, for each move, the structures of
/// the mover's group (bridge, fork) and whether the move completed a ring.
///
/// Each move costs a handful of union-find operations: no flood fill. Stones already on the
/// board when the tracker is built are taken in as they are (their structures are not reported;
/// use [`super::analyze`] for a whole position).
#[derive(Debug, Clone)]
pub struct Tracker {
    geo: Geometry,
    /// Padded cell codes (0 empty, 1/2 stones, 3 blocked, 4 off the hexagon).
    cells: Vec<u8>,
    /// Union-find parent per padded index (meaningful for stones only).
    parent: Vec<u32>,
    /// Corner bits 0..6 and side bits 6..12 of each group, valid at its root.
    mask: Vec<u16>,
    /// The fixed corner / side bit of each cell (shared table of the board size).
    edge: &'static [u16],
    /// Order in which each stone was placed (`u32::MAX` for no stone): witnesses of a ring
    /// use only the stones that were there when it closed.
    seq: Vec<u32>,
    /// Stones placed so far.
    placed: u32,
}

impl Tracker {
    /// A tracker for `board` with its stones taken in (row by row).
    pub fn new(board: &Board) -> Self {
        let mut t = Self::blank(board);
        let g = t.geo;
        for cell in g.cells() {
            if let Some(Point::Stone(p)) = board.get(cell) {
                t.put(g.index(cell), p.number());
            }
        }
        t
    }

    /// A tracker for `board` with no stones (blocked cells kept).
    pub(crate) fn blank(board: &Board) -> Self {
        let geo = board.geometry();
        let mut cells = board.codes().to_vec();
        for c in &mut cells {
            // Stones (1, 2) become EMPTY (0); branch-free, positions are random.
            *c *= u8::from(c.wrapping_sub(1) >= 2);
        }
        let n = cells.len();
        Self {
            geo,
            cells,
            // Set for each stone when it is placed; never read for other cells.
            parent: vec![0; n],
            mask: vec![0; n],
            edge: geo.edge_table(),
            seq: vec![u32::MAX; n],
            placed: 0,
        }
    }

    /// The board's geometry.
    pub fn geometry(&self) -> Geometry {
        self.geo
    }

    /// Plays `player` on the empty `cell` and returns the structures the move gives: bridge and
    /// fork of the group the stone joins, ring if the stone closed a ring.
    ///
    /// # Errors
    /// [`HavannahError::CellOffBoard`], [`HavannahError::CellBlocked`], or
    /// [`HavannahError::CellTaken`] for any stone already there.
    pub fn play(&mut self, cell: Cell, player: Player) -> Result<KindSet, HavannahError> {
        let (row, col) = (cell.row, cell.col);
        if !self.geo.on_board(cell) {
            return Err(HavannahError::CellOffBoard {
                row,
                col,
                layers: self.geo.layers.get(),
            });
        }
        let i = self.geo.index(cell);
        match self.cells[i] {
            EMPTY => Ok(self.put(i, player.number()).kinds),
            BLOCKED => Err(HavannahError::CellBlocked { row, col }),
            owner => Err(HavannahError::CellTaken { row, col, owner }),
        }
    }

    /// What `cell` holds now, or `None` off the board.
    pub fn get(&self, cell: Cell) -> Option<Point> {
        if !self.geo.on_board(cell) {
            return None;
        }
        Some(match self.cells[self.geo.index(cell)] {
            EMPTY => Point::Empty,
            1 => Point::Stone(Player::One),
            2 => Point::Stone(Player::Two),
            _ => Point::Blocked,
        })
    }

    /// Root of `i`'s group, halving the path on the way.
    pub(crate) fn find(&mut self, mut i: usize) -> usize {
        while self.parent[i] as usize != i {
            let up = self.parent[self.parent[i] as usize];
            self.parent[i] = up;
            i = up as usize;
        }
        i
    }

    /// Places stone `p` (1 or 2) on the empty padded index `i`.
    pub(crate) fn put(&mut self, i: usize, p: u8) -> Placed {
        debug_assert_eq!(self.cells[i], EMPTY);
        let offs = self.geo.offsets();
        // 1. Which neighbours are own stones: bit k for the k-th in circular order.
        let mut own = 0u8;
        for (k, &o) in offs.iter().enumerate() {
            own |= u8::from(self.cells[nb(i, o)] == p) << k;
        }
        let prev = ((own << 1) | (own >> 5)) & 0x3f; // bit k: neighbour k-1 is own
        let next = ((own >> 1) | (own << 5)) & 0x3f; // bit k: neighbour k+1 is own
        // 2. Arcs: maximal runs of own neighbours, each starting where the previous one is not
        //    own; remember one cell and the root of each.
        let mut ring = None;
        let mut arcs = [(0usize, 0usize); 3];
        let mut n_arcs = 0;
        if own == 0x3f {
            ring = Some(RingTrigger::Filled { centre: i });
        }
        // Six own neighbours form one arc with no start: take neighbour 0 as its start.
        let mut starts = if own == 0x3f { 1 } else { own & !prev };
        while starts != 0 {
            let cell = nb(i, offs[starts.trailing_zeros() as usize]);
            arcs[n_arcs] = (cell, self.find(cell));
            n_arcs += 1;
            starts &= starts - 1;
        }
        'pairs: for x in 0..n_arcs {
            for y in x + 1..n_arcs {
                if arcs[x].1 == arcs[y].1 {
                    ring = Some(RingTrigger::Loop {
                        stone: i,
                        a: arcs[x].0,
                        b: arcs[y].0,
                    });
                    break 'pairs;
                }
            }
        }
        // 3. Place the stone and merge it with its arcs' groups.
        self.cells[i] = p;
        self.seq[i] = self.placed;
        self.placed += 1;
        self.parent[i] = i as u32;
        let mut mask = self.edge[i];
        for &(_, r) in &arcs[..n_arcs] {
            // Arcs of one group share a root: link it once, to the new stone.
            if self.parent[r] as usize == r && r != i {
                mask |= self.mask[r];
                self.parent[r] = i as u32;
            }
        }
        self.mask[i] = mask;
        // 4. A neighbour that now has six own neighbours (only one whose two neighbours shared
        //    with `i` are own can qualify).
        if ring.is_none() {
            let mut candidates = own & prev & next;
            while candidates != 0 {
                let t = nb(i, offs[candidates.trailing_zeros() as usize]);
                candidates &= candidates - 1;
                if offs.iter().all(|&o| self.cells[nb(t, o)] == p) {
                    ring = Some(RingTrigger::Filled { centre: t });
                    break;
                }
            }
        }
        let mut kinds = KindSet::of_mask(mask);
        if ring.is_some() {
            kinds.insert(Kind::Ring);
        }
        Placed { kinds, ring }
    }

    /// Structures (bridge, fork) of the group rooted at `root`.
    pub(crate) fn root_mask(&self, root: usize) -> u16 {
        self.mask[root]
    }

    /// The fixed corner / side bit of padded index `i` (0 for inner cells).
    pub(crate) fn edge_bits(&self, i: usize) -> u16 {
        self.edge[i]
    }

    /// The code at padded index `i`.
    pub(crate) fn code(&self, i: usize) -> u8 {
        self.cells[i]
    }

    /// Placement order of the stone at padded index `i` (`u32::MAX` for none).
    pub(crate) fn seq(&self, i: usize) -> u32 {
        self.seq[i]
    }

    /// True iff padded index `i` is on the hexagon.
    pub(crate) fn on_board_index(&self, i: usize) -> bool {
        self.cells[i] != OFF
    }
}

/// The neighbour of padded index `i` at offset `o` (never leaves the padded array for an
/// on-board `i`).
pub(crate) fn nb(i: usize, o: isize) -> usize {
    i.wrapping_add_signed(o)
}

/// The end of a uniformly random game (or any game given by its move order).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GameResult {
    /// The player who made the winning move, `None` if the moves ran out first.
    pub winner: Option<Player>,
    /// Moves played, the winning move included.
    pub ply: usize,
    /// Every structure the winning move made.
    pub kinds: KindSet,
}

/// Plays the cells of `order` alternately, `first` moving first, until a move wins.
///
/// `order` should list empty cells, each once (e.g. a uniform shuffle of all empty cells for a
/// random playout).
///
/// # Errors
/// The first cell of `order` that cannot be played (off the board, blocked or taken).
pub fn play_game(
    board: &Board,
    order: impl IntoIterator<Item = Cell>,
    first: Player,
) -> Result<GameResult, HavannahError> {
    let mut t = Tracker::new(board);
    let mut player = first;
    let mut ply = 0;
    for cell in order {
        ply += 1;
        let kinds = t.play(cell, player)?;
        if !kinds.is_empty() {
            return Ok(GameResult {
                winner: Some(player),
                ply,
                kinds,
            });
        }
        player = player.opponent();
    }
    Ok(GameResult {
        winner: None,
        ply,
        kinds: KindSet::default(),
    })
}

/// `n` positions of random games, for benchmarks: game `k` plays the board's cells from the
/// empty board, [`Player::One`] first, in the order `shuffle` leaves them (it is handed the
/// previous game's order, the first time the cells in reading order), and stops after its last
/// move (the winning one, or the last cell of a board filled without a win) when `k` is a
/// multiple of 3, else after move 1 + (7,919 `k` mod the game's length). Returns each position
/// with its last move and the player who made it.
///
/// # Errors
/// The first cell a game cannot play, where `shuffle` left one off the board or twice in the
/// order (a permutation, as a shuffle gives, never does).
pub fn random_positions(
    layers: Layers,
    n: usize,
    mut shuffle: impl FnMut(&mut [Cell]),
) -> Result<Vec<(Board, Cell, Player)>, HavannahError> {
    let empty = Board::empty(layers);
    let mut cells: Vec<Cell> = Geometry::new(layers).cells().collect();
    (0..n)
        .map(|k| {
            shuffle(&mut cells);
            let end = play_game(&empty, cells.iter().copied(), Player::One)?.ply;
            let ply = if k % 3 == 0 { end } else { 1 + k * 7919 % end };
            let mut board = empty.clone();
            let mut mover = Player::Two;
            for &c in &cells[..ply] {
                mover = mover.opponent();
                board.place(c, mover)?;
            }
            Ok((board, cells[ply - 1], mover))
        })
        .collect()
}
