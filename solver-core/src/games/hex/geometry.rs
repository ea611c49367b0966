//! Bitboard geometry of the `n x n` rhombus: row and column masks, the six neighbour shifts,
//! flood fill, connectivity with the winning chain, and the one-move winning cells.
//!
//! Bit `r * n + c` is cell `(r, c)`. The neighbours of `(r, c)` are `(r, c-1)`, `(r, c+1)`,
//! `(r-1, c)`, `(r+1, c)`, `(r-1, c+1)`, `(r+1, c-1)` (spec `hex.md`, "Board and notation").

use super::board::Color;

/// The six neighbour directions in cyclic order around a cell, as `(dr, dc)`: consecutive
/// directions point at cells that are adjacent to each other.
#[cfg(test)]
pub(crate) const DIRECTIONS: [(i32, i32); 6] = [(0, 1), (-1, 1), (-1, 0), (0, -1), (1, -1), (1, 0)];

/// The masks of one board side `n`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Geometry {
    /// Board side.
    pub n: u32,
    /// Every cell of the board.
    pub full: u128,
    /// Row 0.
    pub top: u128,
    /// Row n-1.
    pub bottom: u128,
    /// Column 0.
    pub left: u128,
    /// Column n-1.
    pub right: u128,
}

impl Geometry {
    /// The masks of side `n` (`1..=11`).
    pub fn new(n: usize) -> Geometry {
        let n = n as u32;
        let cells = n * n;
        let full = if cells >= 128 {
            u128::MAX
        } else {
            (1u128 << cells) - 1
        };
        let top = (1u128 << n) - 1;
        let bottom = top << (n * (n - 1));
        let mut left = 0u128;
        for r in 0..n {
            left |= 1u128 << (r * n);
        }
        let right = left << (n - 1);
        Geometry {
            n,
            full,
            top,
            bottom,
            left,
            right,
        }
    }

    /// The two sides of `color`: (top, bottom) for Black, (left, right) for White.
    #[inline]
    pub fn sides(&self, color: Color) -> (u128, u128) {
        match color {
            Color::Black => (self.top, self.bottom),
            Color::White => (self.left, self.right),
        }
    }

    /// Moves every cell of `s` one step in direction `dir` (index into [`DIRECTIONS`]),
    /// dropping cells that leave the board.
    #[inline]
    pub fn shift(&self, s: u128, dir: usize) -> u128 {
        let n = self.n;
        match dir {
            0 => (s & !self.right) << 1,
            1 => (s & !self.right) >> (n - 1),
            2 => s >> n,
            3 => (s & !self.left) >> 1,
            4 => ((s & !self.left) << (n - 1)) & self.full,
            _ => (s << n) & self.full,
        }
    }

    /// `s` together with every neighbour of a cell of `s`.
    #[inline]
    pub fn expand(&self, s: u128) -> u128 {
        let n = self.n;
        let not_right = s & !self.right;
        let not_left = s & !self.left;
        let grown = s
            | (not_right << 1)
            | (not_left >> 1)
            | (s >> n)
            | (s << n)
            | (not_right >> (n - 1))
            | (not_left << (n - 1));
        grown & self.full
    }

    /// The neighbours of the cells of `s` that are not in `s`.
    #[inline]
    pub fn neighbours(&self, s: u128) -> u128 {
        self.expand(s) & !s
    }

    /// Every cell of `within` reachable from `seed & within` through `within`.
    #[inline]
    pub fn flood(&self, seed: u128, within: u128) -> u128 {
        let mut cur = seed & within;
        loop {
            let next = self.expand(cur) & within;
            if next == cur {
                return cur;
            }
            cur = next;
        }
    }

    /// Whether `stones` of `color` join its two sides.
    #[inline]
    pub fn connects(&self, color: Color, stones: u128) -> bool {
        let (a, b) = self.sides(color);
        self.flood(a & stones, stones) & b != 0
    }

    /// The empty cells where one `color` stone joins its two sides (`stones` its stones,
    /// `empty` the empty cells). A cell wins at once when it touches (or lies on) the first side
    /// or a group touching it, and likewise the second side.
    #[inline]
    pub fn one_move_wins(&self, color: Color, stones: u128, empty: u128) -> u128 {
        let (a, b) = self.sides(color);
        let from_a = self.flood(a & stones, stones);
        let from_b = self.flood(b & stones, stones);
        let near_a = (self.expand(from_a) | a) & empty;
        let near_b = (self.expand(from_b) | b) & empty;
        near_a & near_b
    }

    /// A shortest chain of `stones` from the first side of `color` to the second, as bit
    /// indices in path order; `None` when not connected. Breadth-first layers, then a walk
    /// back from the second side.
    pub fn shortest_chain(&self, color: Color, stones: u128) -> Option<Vec<u32>> {
        let (a, b) = self.sides(color);
        let mut layers = vec![a & stones];
        let mut seen = a & stones;
        while layers.last().is_some_and(|l| *l & b == 0) {
            let last = *layers.last().expect("non-empty by construction");
            let next = self.expand(last) & stones & !seen;
            if next == 0 {
                return None;
            }
            seen |= next;
            layers.push(next);
        }
        let last = *layers.last().expect("non-empty by construction");
        if last == 0 {
            return None;
        }
        let mut cur = (last & b).trailing_zeros();
        let mut path = vec![cur];
        for layer in layers.iter().rev().skip(1) {
            let prev = self.expand(1u128 << cur) & *layer;
            cur = prev.trailing_zeros();
            path.push(cur);
        }
        path.reverse();
        Some(path)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bit(n: u32, r: i32, c: i32) -> u128 {
        1u128 << (r as u32 * n + c as u32)
    }

    #[test]
    fn shifts_match_the_neighbour_rule() {
        for n in 1..=11u32 {
            let g = Geometry::new(n as usize);
            for r in 0..n as i32 {
                for c in 0..n as i32 {
                    let mut expect = 0u128;
                    for (d, (dr, dc)) in DIRECTIONS.iter().enumerate() {
                        let (rr, cc) = (r + dr, c + dc);
                        let inside = (0..n as i32).contains(&rr) && (0..n as i32).contains(&cc);
                        let want = if inside { bit(n, rr, cc) } else { 0 };
                        assert_eq!(g.shift(bit(n, r, c), d), want, "n={n} ({r},{c}) dir {d}");
                        expect |= want;
                    }
                    assert_eq!(g.neighbours(bit(n, r, c)), expect, "n={n} ({r},{c})");
                }
            }
        }
    }
}
