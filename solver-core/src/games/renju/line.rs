//! The one line-scanning routine, used for all four directions (spec "The rules (RIF)").
//!
//! A line is two bit masks in the layout of [`super::board`]: Black's stones and the empty
//! points; anything else (a white stone, or a bit off the board) blocks. The move under test
//! is bit `bit`, already set in `black`. Everything here is branch-light bit arithmetic on one
//! `u32`; the caller never copies a direction by hand, which is how the seed's four
//! hand-copied scanners drifted apart.
//!
//! This module knows nothing about points, colours or recursion.

/// What one line says about a black move on it. All counts are through the move.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct LineScan {
    /// Length of the unbroken black row through the move (1..=15).
    pub run: u32,
    /// Number of fours through the move, counted as distinct stone sets: 4 black stones in a
    /// 5-cell window containing the move, the fifth cell empty, and neither cell just outside
    /// the window black (so the fifth stone makes exactly five).
    pub fours: u32,
    /// The move is part of a straight four: exactly 4 in a row, both ends empty, and the cell
    /// beyond each end not black (two different exact-five completions).
    pub straight_four: bool,
    /// The empty points `e` (as bits of this line) such that playing `e` makes a straight four
    /// that contains both the move and `e`: the candidate key points of a three. Whether `e`
    /// is really a three's key point (no five, not forbidden) is decided by the caller.
    pub three_points: u32,
}

/// True when bit `i` of `mask` is set.
#[inline(always)]
fn has(mask: u32, i: u32) -> bool {
    mask & (1 << i) != 0
}

/// Bounds `(lo, hi)` of the unbroken run of `mask` through bit `bit` (which must be set).
#[inline(always)]
fn run_bounds(mask: u32, bit: u32) -> (u32, u32) {
    let up = (mask >> bit).trailing_ones();
    let down = (mask << (31 - bit)).leading_ones();
    (bit + 1 - down, bit + up - 1)
}

/// True when the run `lo..=hi` of `black` is a straight four: 4 long, both end cells empty,
/// and the cells beyond them not black.
#[inline(always)]
fn is_straight_four(black: u32, empty: u32, lo: u32, hi: u32) -> bool {
    hi - lo == 3
        && has(empty, lo - 1)
        && has(empty, hi + 1)
        && !has(black, lo - 2)
        && !has(black, hi + 2)
}

/// Scans one line for a black move on bit `bit`.
///
/// `black` holds Black's stones including the move; `empty` the empty points (the move's bit
/// clear). `bit` must be at least 8 and at most 23 (the layout's margins guarantee it), so
/// every window below stays inside the `u32`.
#[inline]
pub(crate) fn scan(black: u32, empty: u32, bit: u32) -> LineScan {
    debug_assert!((8..24).contains(&bit) && has(black, bit) && !has(empty, bit));
    let (lo, hi) = run_bounds(black, bit);
    let mut out = LineScan {
        run: hi - lo + 1,
        straight_four: is_straight_four(black, empty, lo, hi),
        ..LineScan::default()
    };

    // Fours: at least 4 black stones within 4 cells of the move, else none.
    let near = black & (0x1FF << (bit - 4));
    if near.count_ones() >= 4 {
        let mut last = 0u32;
        for s in (bit - 4)..=bit {
            let window = 0x1F << s;
            let set = black & window;
            if set.count_ones() == 4
                && empty & window != 0
                && !has(black, s - 1)
                && !has(black, s + 5)
                && set != last
            {
                // Adjacent windows share a stone set only for `.XXXX.`: count it once.
                out.fours += 1;
                last = set;
            }
        }
    }

    // Three candidates: a straight four needs 3 black stones (with the move) within 3 cells.
    let near3 = black & (0x7F << (bit - 3));
    if near3.count_ones() >= 3 && out.run <= 3 {
        let mut cands = empty & (0x7F << (bit - 3));
        while cands != 0 {
            let e = cands.trailing_zeros();
            cands &= cands - 1;
            let b2 = black | (1 << e);
            let (lo, hi) = run_bounds(b2, bit);
            if lo <= e && e <= hi && is_straight_four(b2, empty & !(1 << e), lo, hi) {
                out.three_points |= 1 << e;
            }
        }
    }
    out
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    /// Scans a pattern written with `X` black, `O` white, `.` empty, `|` edge, `m` the move.
    fn pat(s: &str) -> LineScan {
        let mut black = 0;
        let mut empty = 0;
        let mut bit = 0;
        for (i, ch) in s.chars().enumerate() {
            let b = 8 + i as u32;
            match ch {
                'X' => black |= 1 << b,
                'm' => {
                    black |= 1 << b;
                    bit = b;
                }
                '.' => empty |= 1 << b,
                _ => {}
            }
        }
        scan(black, empty, bit)
    }

    #[test]
    fn fives_and_overlines() {
        assert_eq!(pat(".XXmXX.").run, 5);
        assert_eq!(pat("XXXmXX").run, 6);
        assert_eq!(pat("mXXX.").run, 4);
    }

    #[test]
    fn fours_by_stone_set() {
        assert_eq!(pat(".XXmX.").fours, 1, "straight four is one four");
        assert!(pat(".XXmX.").straight_four);
        assert_eq!(pat("X.XmX.X").fours, 2);
        assert_eq!(pat("XX.mX.XX").fours, 2);
        assert_eq!(pat("XXX.m.XXX").fours, 2);
        assert_eq!(pat("OXXmX.").fours, 1);
        assert!(!pat("OXXmX.").straight_four);
        assert_eq!(pat("|XXmX.").fours, 1, "open end at the last cell");
        assert_eq!(pat("XX.XmX.X").fours, 1, "the real four of XX.XXX.X");
        assert_eq!(pat("X.XXmX").fours, 0, "filling makes six");
        assert_eq!(pat(".XmX.X.").fours, 1);
    }

    #[test]
    fn three_candidates() {
        assert_eq!(pat("..XmX..").three_points.count_ones(), 2);
        assert_eq!(pat(".X.mX..").three_points.count_ones(), 1);
        assert_eq!(
            pat("O.XmX.O").three_points,
            0,
            "no room for a straight four"
        );
        assert_eq!(
            pat("X.XmX..").three_points,
            0,
            "left makes five, right is not straight"
        );
        assert_eq!(
            pat("..XmX.X").three_points,
            0,
            "a black stone beyond an end"
        );
        assert_eq!(pat("..mX...").three_points, 0);
    }
}
