//! The reference solver: the plain mustplay / winset search `win_move` of the seed
//! (`seeds/hex-simple-solver.md`, after Hayward's teaching code), written from its description.
//! No transpositions, no ordering, no pruning beyond mustplay: slow (about 4x4), but simple
//! enough to trust, and used to check the fast solver in [`super::solver`].
//!
//! `win_move`: mustplay starts as every empty cell. Try a move from it; if it connects, `{move}`
//! is a winset. Otherwise ask recursively whether the opponent wins after it; if not, the
//! opponent's answer (our winset) plus the move is a winset; if yes, remember the opponent's
//! winset and intersect mustplay with it. When mustplay is empty we lose, and the union of the
//! remembered opponent winsets is the opponent's carrier. Sound because Hex is monotone.

use super::board::{Board, Cell, Color};
use super::geometry::Geometry;

/// The answer of [`win_move`]: whether the side to move wins, with one winning move, and the
/// winner's winset (carrier) as a bitboard of empty cells (bit `r * n + c`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Reference {
    /// The side that wins with perfect play.
    pub winner: Color,
    /// A winning move of the side to move, when it wins.
    pub winning_move: Option<Cell>,
    /// The winner's winset: it wins even if every other empty cell goes to the loser.
    pub carrier: u128,
}

/// Solves `board` with `to_move` to play by the seed's `win_move`. The board must have no
/// connected side (a connected board is answered with that side and an empty carrier).
pub fn win_move(board: &Board, to_move: Color) -> Reference {
    if let Some(winner) = board.winner() {
        return Reference {
            winner,
            winning_move: None,
            carrier: 0,
        };
    }
    let g = board.geometry();
    let n = board.size();
    let (own, opp) = (board.stones(to_move), board.stones(to_move.opponent()));
    match search(&g, to_move, own, opp) {
        (Some(m), set) => Reference {
            winner: to_move,
            winning_move: Some(Cell::from_index(m, n)),
            carrier: set,
        },
        (None, set) => Reference {
            winner: to_move.opponent(),
            winning_move: None,
            carrier: set,
        },
    }
}

/// Every winning move of `to_move` by the reference search (row by row order); empty when
/// `to_move` loses.
pub fn winning_moves(board: &Board, to_move: Color) -> Vec<Cell> {
    let g = board.geometry();
    let n = board.size();
    let (own, opp) = (board.stones(to_move), board.stones(to_move.opponent()));
    let mut out = Vec::new();
    let mut empty = board.empty_cells();
    while empty != 0 {
        let m = empty.trailing_zeros();
        empty &= empty - 1;
        let bit = 1u128 << m;
        if g.connects(to_move, own | bit)
            || search(&g, to_move.opponent(), opp, own | bit).0.is_none()
        {
            out.push(Cell::from_index(m, n));
        }
    }
    out
}

/// `win_move` on bitboards: `(Some(move), winset)` when `color` (stones `own`) wins, else
/// `(None, opponent's carrier)`.
fn search(g: &Geometry, color: Color, own: u128, opp: u128) -> (Option<u32>, u128) {
    let empty = g.full & !(own | opp);
    let mut mustplay = empty;
    let mut opp_carrier = 0u128;
    while mustplay != 0 {
        let m = mustplay.trailing_zeros();
        let bit = 1u128 << m;
        if g.connects(color, own | bit) {
            return (Some(m), bit);
        }
        match search(g, color.opponent(), opp, own | bit) {
            (None, ours) => return (Some(m), ours | bit),
            (Some(_), theirs) => {
                opp_carrier |= theirs;
                mustplay &= theirs;
            }
        }
    }
    (None, opp_carrier)
}
