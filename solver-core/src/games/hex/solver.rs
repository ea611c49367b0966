//! The fast Hex solver: the seed's mustplay / winset search (see [`super::reference`]) made
//! fast with sound Hex knowledge, a transposition table and move ordering.
//!
//! Every node of the search, in order (the step numbers appear in `Solver::search`):
//! 1. dead-cell fill-in (module `hex::dead`), which never changes the value: an empty cell
//!    with four consecutive neighbours of one colour (stones or that colour's edge) lies in no
//!    minimal winning set (Hayward, "A puzzling Hex primer", Games of No Chance 3, 2009; the
//!    inferior-cell analysis of Henderson and Hayward);
//! 2. transposition table, keyed by the position up to the 180-degree rotation;
//! 3. win at once when a move connects;
//! 4. lose when the opponent has two different one-move wins (one move blocks only one), and
//!    play the only block when it has exactly one;
//! 5. win when the side to move has a virtual connection or semi-connection
//!    (module `hex::vc`: chains of bridges and of edge templates II and IIIa with disjoint
//!    carriers, combined by the AND rule of Anshelevich's H-search; every one found is sound,
//!    some are missed); lose when the opponent has a VC; restrict mustplay to the carrier of an
//!    opponent semi-connection;
//! 6. try the mustplay moves, best first (history heuristic, then nearness to the centre);
//!    each refutation's winset shrinks mustplay as in the seed.
//!
//! A winset (carrier) of the winner is a set of empty cells such that the winner still wins
//! when every other empty cell is given to the loser; Hex is monotone, so carriers combine as
//! in the seed. The search counts nodes and stops with "unknown" when a node budget or a
//! deadline is spent.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use rustc_hash::FxHashMap;

use super::board::{Board, Cell, Color, cells_of};
use super::dead::fill_dead;
use super::geometry::Geometry;
use super::vc;

/// Limits and options of one [`solve`] call, or of one [`super::pns::solve`] call, which
/// reads them as its docs say (both passes share the limits; its tables differ).
#[derive(Debug, Clone, Default)]
pub struct SolveOptions {
    /// Also find the complete list of winning moves of the side to move.
    pub all_moves: bool,
    /// Stop with [`Outcome::Unknown`] after this many search nodes.
    pub max_nodes: Option<u64>,
    /// Stop with [`Outcome::Unknown`] at this instant (checked every 1024 nodes; every 256
    /// expansions in the proof-number pass of [`super::pns::solve`]).
    pub deadline: Option<Instant>,
    /// Stop with [`Outcome::Unknown`] once this is set (checked with the deadline, and before
    /// every expansion of the proof-number pass): for a caller that no longer wants the answer.
    pub cancel: Option<Arc<AtomicBool>>,
    /// The transposition table holds `2^tt_bits` entries of 64 bytes (`tt_bits` at most 26,
    /// 4 GiB: larger values are taken as 26); `None` picks a size from the board side (16 KiB
    /// on 3x3 up to 256 MiB from 6x6 on).
    pub tt_bits: Option<u32>,
    /// Cap on the proof-number search's DAG in [`super::pns::solve`], in bytes; `None` means
    /// [`super::pns::DEFAULT_MAX_BYTES`]. Unused by this module's search.
    pub max_bytes: Option<usize>,
}

/// Known winners of positions, by the canonical key of [`super::pns::Key`] (the dead-cell
/// filled position up to the 180-degree rotation, and whether White is to move). The search
/// uses them only to try a move the table says wins first; its values never depend on them.
pub type Winners = FxHashMap<(u128, u128, bool), Color>;

/// A solved position.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Solution {
    /// The side that wins with perfect play.
    pub winner: Color,
    /// One winning move of the side to move, when it is the winner (none on a board that is
    /// already connected).
    pub winning_move: Option<Cell>,
    /// The winner's carrier (winset): empty cells, row by row, such that the winner wins even
    /// if every other empty cell is given to the loser. Empty on a connected board.
    pub carrier: Vec<Cell>,
    /// With [`SolveOptions::all_moves`]: every winning move of the side to move, row by row
    /// (empty when it loses).
    pub winning_moves: Option<Vec<Cell>>,
    /// Search nodes visited.
    pub nodes: u64,
}

/// The answer of [`solve`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// The value was found.
    Solved(Solution),
    /// The node budget, the deadline or the memory cap ([`SolveOptions::max_bytes`]) ran out
    /// first, or the caller cancelled.
    Unknown {
        /// Search nodes visited before stopping.
        nodes: u64,
    },
}

/// Solves `board` with `to_move` to play (spec `hex.md`, "Solving"). A board where one side
/// is already connected is answered at once with that side as winner.
pub fn solve(board: &Board, to_move: Color, opts: &SolveOptions) -> Outcome {
    let mut solver = Solver::new(board.size(), opts);
    solver.solve(board, to_move, opts.all_moves)
}

/// One search's result: `Win(winset, move)` for the side to move, or `Loss(carrier of the
/// opponent)`. Bitboards of empty cells.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Value {
    Win(u128, u32),
    Loss(u128),
}

/// Budget exhausted: unwinds the search.
#[derive(Debug)]
struct OutOfBudget;

/// A reusable solver for one board side: transposition table, history table and counters.
#[derive(Debug)]
pub struct Solver {
    geometry: Geometry,
    tt: Table,
    /// History heuristic: credit of each cell for refuting moves found so far.
    history: [u32; 128],
    /// Static order: cells sorted by distance from the centre.
    static_rank: [u32; 128],
    nodes: u64,
    max_nodes: u64,
    deadline: Option<Instant>,
    cancel: Option<Arc<AtomicBool>>,
    /// See [`Solver::set_winners`].
    winners: Winners,
}

impl Solver {
    /// A solver for boards of side `n` (`1..=11`) with the limits of `opts`. Its node count
    /// and `opts.max_nodes` run over every [`Solver::solve`] call on it.
    ///
    /// # Panics
    /// When `n` is outside `1..=11`.
    pub fn new(n: usize, opts: &SolveOptions) -> Solver {
        assert!(
            (super::MIN_SIZE..=super::MAX_SIZE).contains(&n),
            "a Hex board's side is 1 to 11, not {n}"
        );
        let geometry = Geometry::new(n);
        let bits = opts.tt_bits.unwrap_or(match n {
            0..=3 => 8,
            4 => 14,
            5 => 20,
            _ => 22,
        });
        let mut static_rank = [0u32; 128];
        let centre = (n as i32 - 1) as f64 / 2.0;
        for r in 0..n {
            for c in 0..n {
                // Hex distance from the centre in axial coordinates (dr, dc).
                let dr = r as f64 - centre;
                let dc = c as f64 - centre;
                let d = (dr.abs() + dc.abs() + (dr + dc).abs()) / 2.0;
                static_rank[r * n + c] = (d * 4.0) as u32;
            }
        }
        Solver {
            geometry,
            tt: Table::new(bits.min(26)),
            history: [0; 128],
            static_rank,
            nodes: 0,
            max_nodes: opts.max_nodes.unwrap_or(u64::MAX),
            deadline: opts.deadline,
            cancel: opts.cancel.clone(),
            winners: Winners::default(),
        }
    }

    /// Move ordering from known winners (e.g. a proof-number search's solved positions): at
    /// every node, a move after which the table says the mover wins is tried first. Values,
    /// carriers and soundness do not depend on the table; only the order and so the cost do.
    pub fn set_winners(&mut self, winners: Winners) {
        self.winners = winners;
    }

    /// Whether [`Solver::set_winners`] says `color` wins after playing `bit` on
    /// (`own`, `opp`) (`color`'s and its opponent's stones).
    fn known_win(&self, own: u128, opp: u128, color: Color, bit: u128) -> bool {
        let g = &self.geometry;
        let (b, w) = match color {
            Color::Black => (own | bit, opp),
            Color::White => (opp, own | bit),
        };
        let (b, w) = fill_dead(g, b, w);
        let (b, w, _) = Table::canonical(g, b, w);
        self.winners.get(&(b, w, color == Color::Black)) == Some(&color)
    }

    /// Search nodes visited so far.
    pub fn nodes(&self) -> u64 {
        self.nodes
    }

    /// Solves `board` with `to_move` to play; with `all_moves`, also lists every winning move.
    /// The board's side must be the solver's `n`: nothing checks it, and another side gives
    /// meaningless answers.
    pub fn solve(&mut self, board: &Board, to_move: Color, all_moves: bool) -> Outcome {
        let n = board.size();
        if let Some(winner) = board.winner() {
            return Outcome::Solved(Solution {
                winner,
                winning_move: None,
                carrier: Vec::new(),
                winning_moves: all_moves.then(Vec::new),
                nodes: self.nodes,
            });
        }
        let (black, white) = (board.black(), board.white());
        let Ok(value) = self.search(black, white, to_move) else {
            return Outcome::Unknown { nodes: self.nodes };
        };
        let (winner, winning_move, carrier) = match value {
            Value::Win(set, m) => (to_move, Some(Cell::from_index(m, n)), set),
            Value::Loss(set) => (to_move.opponent(), None, set),
        };
        let winning_moves = if all_moves && winner == to_move {
            match self.all_winning_moves(board, to_move) {
                Ok(moves) => Some(moves),
                Err(OutOfBudget) => return Outcome::Unknown { nodes: self.nodes },
            }
        } else {
            all_moves.then(Vec::new)
        };
        Outcome::Solved(Solution {
            winner,
            winning_move,
            carrier: cells_of(carrier, n),
            winning_moves,
            nodes: self.nodes,
        })
    }

    /// Every empty cell after which the opponent loses (dead cells included: a dead move can
    /// still win when the position is won anyway).
    fn all_winning_moves(
        &mut self,
        board: &Board,
        to_move: Color,
    ) -> Result<Vec<Cell>, OutOfBudget> {
        let g = self.geometry;
        let n = board.size();
        let own = board.stones(to_move);
        let mut out = Vec::new();
        let mut empty = board.empty_cells();
        while empty != 0 {
            let m = empty.trailing_zeros();
            empty &= empty - 1;
            let bit = 1u128 << m;
            let wins = g.connects(to_move, own | bit) || {
                let (b, w) = match to_move {
                    Color::Black => (board.black() | bit, board.white()),
                    Color::White => (board.black(), board.white() | bit),
                };
                matches!(self.search(b, w, to_move.opponent())?, Value::Loss(_))
            };
            if wins {
                out.push(Cell::from_index(m, n));
            }
        }
        Ok(out)
    }

    /// Counts a node and checks the budget.
    fn tick(&mut self) -> Result<(), OutOfBudget> {
        self.nodes += 1;
        if self.nodes > self.max_nodes {
            return Err(OutOfBudget);
        }
        if self.nodes & 1023 == 0
            && (self.deadline.is_some_and(|d| Instant::now() >= d)
                || self
                    .cancel
                    .as_ref()
                    .is_some_and(|c| c.load(Ordering::Relaxed)))
        {
            return Err(OutOfBudget);
        }
        Ok(())
    }

    /// The value of the position (`black`, `white`, `color` to move); nobody is connected.
    fn search(&mut self, black: u128, white: u128, color: Color) -> Result<Value, OutOfBudget> {
        self.tick()?;
        let g = self.geometry;
        // 1. Dead-cell fill-in.
        let (black, white) = fill_dead(&g, black, white);
        debug_assert!(!g.connects(Color::Black, black) && !g.connects(Color::White, white));
        let (own, opp) = match color {
            Color::Black => (black, white),
            Color::White => (white, black),
        };
        let empty = g.full & !(black | white);
        // 2. Transposition table.
        if let Some(v) = self.tt.probe(&g, black, white, color) {
            return Ok(v);
        }
        let value = self.evaluate(own, opp, empty, color)?;
        self.tt.store(&g, black, white, color, value);
        Ok(value)
    }

    /// Steps 3 to 6 of the search at one node.
    fn evaluate(
        &mut self,
        own: u128,
        opp: u128,
        empty: u128,
        color: Color,
    ) -> Result<Value, OutOfBudget> {
        let g = self.geometry;
        // 3. Win at once.
        let wins = g.one_move_wins(color, own, empty);
        if wins != 0 {
            let m = wins.trailing_zeros();
            return Ok(Value::Win(1u128 << m, m));
        }
        // 4. The opponent's one-move wins.
        let threats = g.one_move_wins(color.opponent(), opp, empty);
        let (mut mustplay, mut carrier) = match threats.count_ones() {
            0 => (empty, 0),
            1 => (threats, threats),
            _ => {
                let first = threats & threats.wrapping_neg();
                let rest = threats & !first;
                return Ok(Value::Loss(first | (rest & rest.wrapping_neg())));
            }
        };
        // 5. Bridge virtual connections.
        if threats == 0 {
            if let Some(c) = vc::find(&g, color, own, empty, true) {
                let m = c.key.unwrap_or_else(|| {
                    let pool = if c.carrier != 0 { c.carrier } else { empty };
                    pool.trailing_zeros()
                });
                return Ok(Value::Win(c.carrier | (1u128 << m), m));
            }
            if let Some(c) = vc::find(&g, color.opponent(), opp, empty, true) {
                if c.key.is_none() {
                    return Ok(Value::Loss(c.carrier));
                }
                mustplay = c.carrier;
                carrier = c.carrier;
            }
        }
        // 6. Mustplay moves, best first.
        let mut moves = [0u8; 128];
        let mut count = 0;
        let mut m = mustplay;
        while m != 0 {
            moves[count] = m.trailing_zeros() as u8;
            count += 1;
            m &= m - 1;
        }
        let history = &self.history;
        let rank = &self.static_rank;
        let known: u128 = if self.winners.is_empty() {
            0
        } else {
            moves[..count]
                .iter()
                .map(|&c| 1u128 << c)
                .filter(|&bit| self.known_win(own, opp, color, bit))
                .fold(0, |acc, bit| acc | bit)
        };
        moves[..count].sort_unstable_by_key(|&c| {
            (
                known & (1u128 << c) == 0,
                std::cmp::Reverse(history[c as usize]),
                rank[c as usize],
            )
        });
        let depth_bonus = empty.count_ones() * empty.count_ones();
        for &mv in &moves[..count] {
            let bit = 1u128 << mv;
            if mustplay & bit == 0 {
                continue;
            }
            let (b, w) = match color {
                Color::Black => (own | bit, opp),
                Color::White => (opp, own | bit),
            };
            match self.search(b, w, color.opponent())? {
                Value::Loss(ours) => {
                    self.history[mv as usize] += depth_bonus;
                    return Ok(Value::Win(ours | bit, mv as u32));
                }
                Value::Win(theirs, _) => {
                    carrier |= theirs;
                    mustplay &= theirs;
                }
            }
        }
        Ok(Value::Loss(carrier))
    }
}

/// One transposition-table slot: the canonical position and its value.
#[derive(Debug, Clone, Copy, Default)]
struct Entry {
    black: u128,
    white: u128,
    /// Carrier of the value, in canonical orientation.
    carrier: u128,
    /// Winning move (canonical orientation) when `win`.
    mv: u8,
    /// Bit 0: slot used; bit 1: White to move; bit 2: the side to move wins.
    flags: u8,
}

/// A direct-mapped transposition table, keyed by the position under the 180-degree rotation
/// `(r, c) -> (n-1-r, n-1-c)` (which keeps both colours' goals).
#[derive(Debug)]
struct Table {
    slots: Vec<Entry>,
    mask: usize,
}

impl Table {
    fn new(bits: u32) -> Table {
        Table {
            slots: vec![Entry::default(); 1 << bits],
            mask: (1 << bits) - 1,
        }
    }

    /// The rotation of a bitboard: bit `i` -> bit `n*n - 1 - i`.
    fn rotate(g: &Geometry, x: u128) -> u128 {
        x.reverse_bits() >> (128 - g.n * g.n)
    }

    /// Canonical `(black, white, rotated)` of a position.
    fn canonical(g: &Geometry, black: u128, white: u128) -> (u128, u128, bool) {
        let (rb, rw) = (Self::rotate(g, black), Self::rotate(g, white));
        if (rb, rw) < (black, white) {
            (rb, rw, true)
        } else {
            (black, white, false)
        }
    }

    fn index(&self, black: u128, white: u128, color: Color) -> usize {
        let mut h = (black as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15)
            ^ ((black >> 64) as u64).wrapping_mul(0xC2B2_AE3D_27D4_EB4F)
            ^ (white as u64).wrapping_mul(0x1656_67B1_9E37_79F9)
            ^ ((white >> 64) as u64).wrapping_mul(0x85EB_CA77_C2B2_AE63)
            ^ (color as u64);
        h ^= h >> 31;
        h = h.wrapping_mul(0xBF58_476D_1CE4_E5B9);
        h ^= h >> 29;
        (h as usize) & self.mask
    }

    fn flags(color: Color) -> u8 {
        1 | (u8::from(color == Color::White) << 1)
    }

    fn probe(&self, g: &Geometry, black: u128, white: u128, color: Color) -> Option<Value> {
        let (b, w, rotated) = Self::canonical(g, black, white);
        let e = &self.slots[self.index(b, w, color)];
        if e.flags & 3 != Self::flags(color) || e.black != b || e.white != w {
            return None;
        }
        let back = |x: u128| if rotated { Self::rotate(g, x) } else { x };
        Some(if e.flags & 4 != 0 {
            let mv = if rotated {
                g.n * g.n - 1 - e.mv as u32
            } else {
                e.mv as u32
            };
            Value::Win(back(e.carrier), mv)
        } else {
            Value::Loss(back(e.carrier))
        })
    }

    fn store(&mut self, g: &Geometry, black: u128, white: u128, color: Color, value: Value) {
        let (b, w, rotated) = Self::canonical(g, black, white);
        let fwd = |x: u128| if rotated { Self::rotate(g, x) } else { x };
        let i = self.index(b, w, color);
        self.slots[i] = match value {
            Value::Win(set, mv) => Entry {
                black: b,
                white: w,
                carrier: fwd(set),
                mv: if rotated {
                    (g.n * g.n - 1 - mv) as u8
                } else {
                    mv as u8
                },
                flags: Self::flags(color) | 4,
            },
            Value::Loss(set) => Entry {
                black: b,
                white: w,
                carrier: fwd(set),
                mv: 0,
                flags: Self::flags(color),
            },
        };
    }
}
