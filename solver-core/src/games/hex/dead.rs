//! Dead-cell fill-in: the one inferior-cell pattern this solver uses, with its proof.
//!
//! A cell is *dead* when it lies in no minimal winning set of either player; colouring a dead
//! cell either way does not change the value of the position, so it can be filled in (Hayward,
//! "A puzzling Hex primer", and the inferior-cell analysis of Henderson and Hayward).
//!
//! The pattern: an empty cell `x` whose six neighbours, read around `x`, contain four
//! consecutive ones that are stones of one colour `C` or `C`'s own edge. Proof that `x` is dead:
//! consecutive neighbours are adjacent, so those four form one connected unit `G` for `C`; the
//! two remaining neighbours are adjacent to each other and each to an end of `G`.
//! - For `C`: a minimal winning set through `x` needs two path neighbours of `x` that cannot
//!   be joined without `x`; every usable neighbour is in `G` or adjacent to `G`, so `x` is
//!   never needed.
//! - For the opponent: its usable neighbours of `x` are among the remaining two, which are
//!   adjacent, so no minimal path passes through `x`.
//!
//! Off-board neighbours count as the edge they face; the two beyond the obtuse corners
//! (`(0, n-1)` towards north-east, `(n-1, 0)` towards south-west) face two edges and count for
//! nobody. Adding stones keeps a pattern, so fill-in is repeated to a fixpoint.

use super::board::Color;
use super::geometry::Geometry;

/// Cells whose neighbour in direction `dir` is a stone of `color` or `color`'s own edge.
fn neighbour_is(g: &Geometry, color: Color, stones: u128, dir: usize) -> u128 {
    let on_board = g.shift(stones, (dir + 3) % 6);
    let off = g.full & !g.shift(g.full, (dir + 3) % 6);
    let edge = match (color, dir) {
        (Color::Black, 1) => off & g.top & !g.right,
        (Color::Black, 2) => off,
        (Color::Black, 4) => off & g.bottom & !g.left,
        (Color::Black, 5) => off,
        (Color::White, 0) => off,
        (Color::White, 1) => off & g.right & !g.top,
        (Color::White, 3) => off,
        (Color::White, 4) => off & g.left & !g.bottom,
        _ => 0,
    };
    on_board | edge
}

/// The empty cells showing four consecutive `color` neighbours (stones or own edge).
pub(crate) fn dead_by(g: &Geometry, color: Color, stones: u128, empty: u128) -> u128 {
    let m: [u128; 6] = std::array::from_fn(|d| neighbour_is(g, color, stones, d));
    let mut dead = 0u128;
    for k in 0..6 {
        dead |= m[k] & m[(k + 1) % 6] & m[(k + 2) % 6] & m[(k + 3) % 6];
    }
    dead & empty
}

/// Fills dead cells to a fixpoint, each with the colour of the run that kills it. Returns the
/// new `(black, white)` bitboards. Boards of side 1 and 2 are returned unchanged.
pub(crate) fn fill_dead(g: &Geometry, mut black: u128, mut white: u128) -> (u128, u128) {
    if g.n < 3 {
        return (black, white);
    }
    loop {
        let empty = g.full & !(black | white);
        let by_black = dead_by(g, Color::Black, black, empty);
        let by_white = dead_by(g, Color::White, white, empty) & !by_black;
        if by_black | by_white == 0 {
            return (black, white);
        }
        black |= by_black;
        white |= by_white;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::hex::Board;

    #[test]
    fn a_cell_walled_by_four_white_stones_is_dead() {
        // b2 has W on c2 (east), c1 (north-east), b1 (north), a2 (west).
        let b = Board::parse(4, &[".WW.", "W.W.", "....", "...."]).expect("valid");
        let g = b.geometry();
        let empty = b.empty_cells();
        let dead = dead_by(&g, Color::White, b.white(), empty);
        assert_ne!(dead & (1 << 5), 0, "b2 is dead");
    }

    #[test]
    fn empty_board_has_no_dead_cells() {
        for n in 1..=11 {
            let b = Board::empty(n).expect("valid");
            let g = b.geometry();
            assert_eq!(fill_dead(&g, 0, 0), (0, 0), "n={n}");
        }
    }
}
