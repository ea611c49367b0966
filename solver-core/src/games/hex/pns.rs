//! Hex as a [`pns::Game`]: proof-number search over the mustplay of the side to move.
//!
//! A node is a position (two bitboards and the side to move); the OR player is the side to move
//! at the root. Every position is simplified before it enters the search, with the same sound
//! knowledge (and sources) as the alpha-beta solver ([`super::solver`]):
//! 1. dead-cell fill-in (module `hex::dead`), which never changes the value;
//! 2. a connected side has won;
//! 3. the side to move wins when it has a one-move win;
//! 4. it loses against two different one-move wins of the opponent (one stone blocks one);
//!    against exactly one, its mustplay is that cell;
//! 5. it wins with a virtual connection or semi-connection of its own (module `hex::vc`) and loses
//!    against a virtual connection of the opponent; an opponent semi-connection restricts the
//!    mustplay to its carrier.
//!
//! When a node is expanded its mustplay is refined further: for each cell `x` of it, a
//! semi-connection of the opponent whose carrier avoids `x` shows that `x` does not stop the
//! opponent (it still completes that semi-connection), so the mustplay is intersected with that
//! carrier; an opponent virtual connection avoiding `x` is a virtual connection of the position
//! and empties the mustplay (the side to move loses). The children are the mustplay moves, one per
//! position up to the 180-degree rotation.
//!
//! Transposition key: the simplified position up to the 180-degree rotation
//! `(r, c) -> (n-1-r, n-1-c)`, which keeps both players' goals. Leaf estimate (optional,
//! [`Estimate::Mustplay`]): the side to move needs one good move but the other side must refute
//! every mustplay move, so an OR leaf gets `(1, m)` and an AND leaf `(m, 1)`, `m` the size of its
//! mustplay after simplification.

use super::board::{Board, Cell, Color, cells_of};
use super::dead::fill_dead;
use super::geometry::Geometry;
use super::solver::{self, SolveOptions, Solver, Winners};
use super::vc;
use crate::pns::{self, Limits, NodeType, Number, Outcome, Search, Value};

/// How new leaves are initialised.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Estimate {
    /// `(1, 1)` for every leaf: plain proof-number search.
    Unit,
    /// `(1, m)` for an OR leaf, `(m, 1)` for an AND leaf, `m` = the leaf's mustplay size.
    #[default]
    Mustplay,
}

/// A Hex position in the proof-number search. See the module docs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HexGame {
    n: u8,
    black: u128,
    white: u128,
    to_move: Color,
    /// The player the search tries to prove a win for (the side to move at the root).
    prover: Color,
    /// After [`pns::Game::simplify`]: the cells the side to move must play in (before the
    /// refinement done at expansion).
    mustplay: u128,
    estimate: Estimate,
}

/// Transposition key: `(black, white, White to move)` of the canonical orientation.
pub type Key = (u128, u128, bool);

/// The rotation by 180 degrees of a bitboard of side `n`: bit `i` -> bit `n*n - 1 - i`.
fn rotate(n: u32, x: u128) -> u128 {
    x.reverse_bits() >> (128 - n * n)
}

/// The smaller of a position and its rotation (both colours rotate together).
fn canonical(n: u32, black: u128, white: u128) -> (u128, u128) {
    let rotated = (rotate(n, black), rotate(n, white));
    rotated.min((black, white))
}

impl HexGame {
    /// The position `board` with `to_move` to play; the search proves or disproves a win of
    /// `to_move`.
    pub fn new(board: &Board, to_move: Color, estimate: Estimate) -> HexGame {
        HexGame {
            n: board.size() as u8,
            black: board.black(),
            white: board.white(),
            to_move,
            prover: to_move,
            mustplay: board.empty_cells(),
            estimate,
        }
    }

    fn geometry(&self) -> Geometry {
        Geometry::new(self.n as usize)
    }

    /// The board (after fill-in, once simplified).
    pub fn board(&self) -> Board {
        Board::from_masks(self.n as usize, self.black, self.white)
            .expect("positions of the search stay valid")
    }

    /// The side to move.
    pub fn to_move(&self) -> Color {
        self.to_move
    }

    fn stones(&self, color: Color) -> u128 {
        match color {
            Color::Black => self.black,
            Color::White => self.white,
        }
    }

    /// The value of a win of `winner`, for the prover.
    fn won_by(&self, winner: Color) -> Value {
        if winner == self.prover {
            Value::Proven
        } else {
            Value::Disproven
        }
    }

    /// The mustplay refined by opponent semi-connections avoiding each of its cells (module
    /// docs). Empty when the opponent has a virtual connection.
    fn refined_mustplay(&self, g: &Geometry) -> u128 {
        let mut mustplay = self.mustplay;
        if mustplay.count_ones() <= 1 {
            return mustplay;
        }
        let opp = self.to_move.opponent();
        let stones = self.stones(opp);
        let empty = g.full & !(self.black | self.white);
        let mut unchecked = mustplay;
        while unchecked != 0 {
            let x = unchecked & unchecked.wrapping_neg();
            unchecked &= !x;
            if let Some(c) = vc::find(g, opp, stones, empty & !x, true) {
                if c.key.is_none() {
                    return 0;
                }
                mustplay &= c.carrier;
                unchecked &= c.carrier;
            }
        }
        mustplay
    }
}

impl pns::Game for HexGame {
    type Key = Key;
    type Move = Cell;

    fn node_type(&self) -> NodeType {
        if self.to_move == self.prover {
            NodeType::Or
        } else {
            NodeType::And
        }
    }

    fn simplify(&mut self) -> Option<Value> {
        let g = self.geometry();
        // 1. Dead-cell fill-in.
        let (black, white) = fill_dead(&g, self.black, self.white);
        self.black = black;
        self.white = white;
        // 2. A connected side.
        for color in [Color::Black, Color::White] {
            if g.connects(color, self.stones(color)) {
                self.mustplay = 0;
                return Some(self.won_by(color));
            }
        }
        let me = self.to_move;
        let opp = me.opponent();
        let (own, theirs) = (self.stones(me), self.stones(opp));
        let empty = g.full & !(black | white);
        // 3. Win at once.
        if g.one_move_wins(me, own, empty) != 0 {
            return Some(self.won_by(me));
        }
        // 4. The opponent's one-move wins.
        let threats = g.one_move_wins(opp, theirs, empty);
        match threats.count_ones() {
            0 => {}
            1 => {
                self.mustplay = threats;
                return None;
            }
            _ => return Some(self.won_by(opp)),
        }
        // 5. Virtual connections and semi-connections.
        if vc::find(&g, me, own, empty, true).is_some() {
            return Some(self.won_by(me));
        }
        self.mustplay = match vc::find(&g, opp, theirs, empty, true) {
            Some(c) if c.key.is_none() => return Some(self.won_by(opp)),
            Some(c) => c.carrier,
            None => empty,
        };
        None
    }

    fn children(&self) -> Vec<(Cell, HexGame)> {
        let g = self.geometry();
        let n = g.n;
        let mustplay = self.refined_mustplay(&g);
        let mut seen: Vec<(u128, u128)> = Vec::new();
        let mut out = Vec::new();
        let mut rest = mustplay;
        while rest != 0 {
            let i = rest.trailing_zeros();
            rest &= rest - 1;
            let bit = 1u128 << i;
            let mut child = *self;
            match self.to_move {
                Color::Black => child.black |= bit,
                Color::White => child.white |= bit,
            }
            child.to_move = self.to_move.opponent();
            child.mustplay = g.full & !(child.black | child.white);
            let key = canonical(n, child.black, child.white);
            if seen.contains(&key) {
                continue;
            }
            seen.push(key);
            out.push((Cell::from_index(i, n as usize), child));
        }
        out
    }

    fn key(&self) -> Key {
        let (black, white) = canonical(self.n as u32, self.black, self.white);
        (black, white, self.to_move == Color::White)
    }

    fn estimate(&self) -> (Number, Number) {
        match self.estimate {
            Estimate::Unit => (1, 1),
            Estimate::Mustplay => {
                let m = Number::from(self.mustplay.count_ones().max(1));
                match self.node_type() {
                    NodeType::Or => (1, m),
                    NodeType::And => (m, 1),
                }
            }
        }
    }
}

/// Default cap on the DAG of [`solve`]'s proof-number search: 1 GiB (of
/// [`Search::approx_bytes`]). Past it the search drops solved subtrees, and stops with
/// "unknown" when the unsolved part alone is too large.
pub const DEFAULT_MAX_BYTES: usize = 1 << 30;

/// Transposition table of the carrier pass of [`solve`]: `2^18` entries of 64 bytes (16 MiB).
/// That search follows the proof, so it visits few positions.
const CARRIER_TT_BITS: u32 = 18;

/// Solves `board` with `to_move` to play (spec `hex.md`, "Solving") with the
/// [`Estimate::Mustplay`] leaf estimate. See [`solve_with`].
pub fn solve(board: &Board, to_move: Color, opts: &SolveOptions) -> solver::Outcome {
    solve_with(board, to_move, opts, Estimate::Mustplay)
}

/// Solves `board` in two passes:
/// 1. proof-number search decides the position (with [`SolveOptions::all_moves`], every move of
///    `to_move` in turn, in one shared DAG: the complete list of winning moves);
/// 2. the alpha-beta winset search of [`solver`], ordered by the first pass's solved positions
///    ([`Solver::set_winners`]), follows the proof and returns the winner's carrier with a
///    winning move. It is sound on its own: the first pass only makes it cheap.
///
/// `opts.max_nodes` bounds both passes together (DAG nodes created plus search nodes), and
/// `opts.deadline` and `opts.cancel` both; `opts.max_bytes` caps the DAG
/// ([`DEFAULT_MAX_BYTES`] when `None`) and `opts.tt_bits` the second pass's table (16 MiB when
/// `None`). [`solver::Solution::nodes`]
/// counts both passes.
pub fn solve_with(
    board: &Board,
    to_move: Color,
    opts: &SolveOptions,
    estimate: Estimate,
) -> solver::Outcome {
    let limits = Limits {
        max_nodes: opts.max_nodes,
        deadline: opts.deadline,
        max_bytes: Some(opts.max_bytes.unwrap_or(DEFAULT_MAX_BYTES)),
        cancel: opts.cancel.clone(),
        ..Limits::default()
    };
    let connected = board.winner().is_some();
    let (winners, winning_moves, proof_nodes) = if connected {
        (Winners::default(), Vec::new(), 0)
    } else {
        match prove(board, to_move, &limits, estimate, opts.all_moves) {
            Ok(proof) => proof,
            Err(nodes) => return solver::Outcome::Unknown { nodes },
        }
    };
    let carrier_opts = SolveOptions {
        all_moves: false,
        max_nodes: opts.max_nodes.map(|m| m.saturating_sub(proof_nodes)),
        deadline: opts.deadline,
        cancel: opts.cancel.clone(),
        tt_bits: Some(opts.tt_bits.unwrap_or(CARRIER_TT_BITS)),
        max_bytes: None,
    };
    let mut search = Solver::new(board.size(), &carrier_opts);
    search.set_winners(winners);
    match search.solve(board, to_move, false) {
        solver::Outcome::Solved(mut s) => {
            s.nodes += proof_nodes;
            if opts.all_moves {
                // A board already connected has no winning moves, whoever is to move.
                debug_assert!(connected || winning_moves.is_empty() == (s.winner != to_move));
                s.winning_moves = Some(winning_moves);
            }
            solver::Outcome::Solved(s)
        }
        solver::Outcome::Unknown { nodes } => solver::Outcome::Unknown {
            nodes: nodes + proof_nodes,
        },
    }
}

/// The first pass of [`solve_with`]: the winner of every position the search solved, the
/// winning moves of `to_move` (only with `all_moves`, row by row) and the DAG nodes created;
/// `Err(nodes)` when a budget ran out.
fn prove(
    board: &Board,
    to_move: Color,
    limits: &Limits,
    estimate: Estimate,
    all_moves: bool,
) -> Result<(Winners, Vec<Cell>, u64), u64> {
    let mut search: Option<Search<HexGame>> = None;
    let mut wins = Vec::new();
    let roots = if all_moves {
        cells_of(board.empty_cells(), board.size())
            .into_iter()
            .map(Some)
            .collect()
    } else {
        vec![None]
    };
    for cell in roots {
        let root = match cell {
            None => HexGame::new(board, to_move, estimate),
            Some(cell) => {
                let after = board.play(cell, to_move).expect("an empty cell");
                if after.is_connected(to_move) {
                    wins.push(cell);
                    continue;
                }
                HexGame {
                    prover: to_move,
                    ..HexGame::new(&after, to_move.opponent(), estimate)
                }
            }
        };
        let s = match search.as_mut() {
            Some(s) => {
                s.set_root(root);
                s
            }
            None => search.insert(Search::new(root)),
        };
        match s.run(limits) {
            Outcome::Solved(Value::Proven) => wins.extend(cell),
            Outcome::Solved(Value::Disproven) => {}
            Outcome::Unknown { .. } => return Err(s.stats().nodes_created),
        }
    }
    let Some(search) = search else {
        return Ok((Winners::default(), wins, 0));
    };
    let winners = search
        .solved()
        .map(|(key, value)| {
            let winner = match value {
                Value::Proven => to_move,
                Value::Disproven => to_move.opponent(),
            };
            (key, winner)
        })
        .collect();
    Ok((winners, wins, search.stats().nodes_created))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::hex::reference;
    use crate::games::hex::solver::Outcome::Solved;
    use rand::rngs::StdRng;
    use rand::{Rng, SeedableRng};

    /// A random position of side `n` with nobody connected, and a random side to move.
    fn random_position(rng: &mut StdRng, n: usize) -> (Board, Color) {
        let color = |black: bool| if black { Color::Black } else { Color::White };
        loop {
            let stones = rng.random_range(0..=n * n / 2);
            let mut board = Board::empty(n).expect("valid");
            for _ in 0..stones {
                let i = rng.random_range(0..n * n) as u32;
                if let Ok(b) = board.play(Cell::from_index(i, n), color(rng.random())) {
                    board = b;
                }
            }
            let to_move = color(rng.random());
            if board.winner().is_none() {
                return (board, to_move);
            }
        }
    }

    /// The solution of [`solve_with`] without a budget.
    fn solved(board: &Board, to_move: Color, estimate: Estimate) -> solver::Solution {
        match solve_with(board, to_move, &SolveOptions::default(), estimate) {
            solver::Outcome::Solved(s) => s,
            solver::Outcome::Unknown { .. } => panic!("no budget was set"),
        }
    }

    /// The winner by the seed's reference search on small positions (at most 9 empty cells),
    /// else by the alpha-beta solver.
    fn expected(board: &Board, to_move: Color) -> Color {
        if board.empty_cells().count_ones() <= 9 {
            return reference::win_move(board, to_move).winner;
        }
        match solver::solve(board, to_move, &SolveOptions::default()) {
            solver::Outcome::Solved(s) => s.winner,
            solver::Outcome::Unknown { .. } => panic!("no budget was set"),
        }
    }

    /// The winner agrees with [`expected`], a claimed winning move really wins (the opponent
    /// loses after it), and the winner still wins with every empty cell outside its carrier
    /// given to the loser. Returns whether the proof-number search had to expand the root
    /// (simplification did not decide it).
    fn check(board: &Board, to_move: Color, estimate: Estimate) -> bool {
        let s = solved(board, to_move, estimate);
        let want = expected(board, to_move);
        assert_eq!(s.winner, want, "{:?} to move\n{}", to_move, board.draw(&[]));
        if s.winner == to_move {
            let mv = s.winning_move.expect("a winning move");
            let after = board.play(mv, to_move).expect("the move is legal");
            let ok = after.is_connected(to_move) || expected(&after, to_move.opponent()) == to_move;
            assert!(ok, "{mv} does not win\n{}", board.draw(&[mv]));
        } else {
            assert_eq!(s.winning_move, None);
        }
        let mut filled = *board;
        for cell in cells_of(board.empty_cells(), board.size()) {
            if !s.carrier.contains(&cell) {
                filled = filled.play(cell, want.opponent()).expect("an empty cell");
            }
        }
        let holds = filled
            .winner()
            .unwrap_or_else(|| expected(&filled, to_move));
        assert_eq!(
            holds,
            want,
            "the carrier does not hold\n{}",
            board.draw(&s.carrier)
        );
        use crate::pns::Game;
        HexGame::new(board, to_move, estimate).simplify().is_none()
    }

    #[test]
    fn empty_boards_up_to_four_are_first_player_wins() {
        for n in 1..=4 {
            for estimate in [Estimate::Unit, Estimate::Mustplay] {
                for to_move in [Color::Black, Color::White] {
                    check(&Board::empty(n).expect("valid"), to_move, estimate);
                }
            }
        }
    }

    #[test]
    fn random_small_positions_agree_with_the_reference() {
        let mut rng = StdRng::seed_from_u64(0x9E37_79B9_7F4A_7C15);
        let mut searched = 0;
        for k in 0..2000 {
            let n = 1 + k % 4;
            let (board, to_move) = random_position(&mut rng, n);
            let estimate = if k % 2 == 0 {
                Estimate::Mustplay
            } else {
                Estimate::Unit
            };
            searched += usize::from(check(&board, to_move, estimate));
        }
        // Most positions are decided by simplification; enough of them need a real search.
        assert!(searched >= 500, "only {searched} positions were searched");
    }

    #[test]
    fn every_opening_of_four_by_four() {
        let board = Board::empty(4).expect("valid");
        let opts = SolveOptions {
            all_moves: true,
            ..SolveOptions::default()
        };
        let Solved(s) = solve(&board, Color::Black, &opts) else {
            panic!("no budget was set");
        };
        let names: Vec<String> = s
            .winning_moves
            .expect("asked")
            .iter()
            .map(|c| c.name())
            .collect();
        assert_eq!(names, ["d1", "c2", "b3", "a4"]);
    }

    #[test]
    fn a_connected_board_has_its_winner_and_no_moves() {
        let opts = SolveOptions {
            all_moves: true,
            ..SolveOptions::default()
        };
        let boards: [(usize, &[&str], Color); 3] = [
            (1, &["B"], Color::Black),
            (2, &["B.", "B."], Color::Black),
            (2, &["WW", ".."], Color::White),
        ];
        for (n, rows, winner) in boards {
            let board = Board::parse(n, rows).expect("valid");
            for to_move in [Color::Black, Color::White] {
                let Solved(s) = solve(&board, to_move, &opts) else {
                    panic!("no budget was set");
                };
                assert_eq!(s.winner, winner, "{rows:?}, {to_move:?} to move");
                assert_eq!(s.winning_move, None, "{rows:?}, {to_move:?} to move");
                assert_eq!(s.winning_moves, Some(Vec::new()), "{rows:?}");
            }
        }
    }

    #[test]
    fn the_key_is_invariant_under_rotation() {
        use crate::pns::Game;
        let b = Board::parse(4, &["B...", "..W.", "....", "...."]).expect("valid");
        let r = Board::parse(4, &["....", "....", ".W..", "...B"]).expect("valid");
        let k1 = HexGame::new(&b, Color::White, Estimate::Unit).key();
        let k2 = HexGame::new(&r, Color::White, Estimate::Unit).key();
        assert_eq!(k1, k2);
    }

    #[test]
    fn a_cancelled_solve_gives_unknown() {
        use std::sync::Arc;
        use std::sync::atomic::AtomicBool;
        let board = Board::empty(4).expect("valid");
        for all_moves in [false, true] {
            let opts = SolveOptions {
                all_moves,
                cancel: Some(Arc::new(AtomicBool::new(true))),
                ..SolveOptions::default()
            };
            let out = solve(&board, Color::Black, &opts);
            assert!(
                matches!(out, solver::Outcome::Unknown { .. }),
                "all_moves {all_moves}: {out:?}"
            );
        }
    }

    #[test]
    fn a_budget_gives_unknown() {
        let board = Board::empty(5).expect("valid");
        let opts = SolveOptions {
            max_nodes: Some(3),
            all_moves: true,
            ..SolveOptions::default()
        };
        match solve(&board, Color::Black, &opts) {
            Solved(s) => panic!("solved within 3 nodes: {s:?}"),
            // The budget is checked between expansions: one expansion (at most 25 children)
            // may go past it.
            solver::Outcome::Unknown { nodes } => assert!(nodes <= 3 + 25, "{nodes} nodes"),
        }
    }
}
