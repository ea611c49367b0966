//! Win and forbidden-move queries (spec "The rules (RIF)" and "The query"; RIF rules of
//! 2 May 1996, corrected 3 May 1998).
//!
//! For a black move `m` (the stone counted as placed):
//! - **five**: an unbroken black row of exactly 5 through `m` in some direction;
//! - **overline**: an unbroken black row of 6 or more through `m`;
//! - **four**: 4 black stones in a 5-cell window containing `m`, the fifth cell empty and
//!   neither cell just outside the window black; counted by stone set, so `X.XXX.X` with `m`
//!   in the middle is two fours and `.XXXX.` is one;
//! - **three** in a direction: an empty `e` on that line such that playing `e` makes a straight
//!   four containing `m` and `e`, where `e` makes **no five** (a three whose only straight-four
//!   point also makes five is not a three: the literal RIF text; ForbiddenPointFinder and Rapfi
//!   agree) and `e` is **not itself forbidden** for Black (checked recursively with `m` on the
//!   board, memoised on the set of added stones and the point);
//! - **forbidden**: `not five and (overline or fours >= 2 or threes in >= 2 directions)`.
//!
//! White has no forbidden moves and wins with five or more.
//!
//! Speed: one `scan` per direction (bit arithmetic on a whole line), and recursion only when
//! two directions both have candidate key points of a three.

use std::collections::HashMap;

use super::board::{Board, BoardError, Color, LINE_OF, POINT_AT, run_length};
use super::line::{LineScan, scan};
use super::point::Point;

/// One label for a move, by priority five > overline > double-four > double-three > allowed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Kind {
    /// The move makes a five (Black: exactly five; White: five or more): a win.
    Five,
    /// Black makes a row of six or more (forbidden).
    Overline,
    /// Black makes two or more fours (forbidden); includes two fours on one line.
    DoubleFour,
    /// Black makes threes in two or more directions (forbidden); includes 4-3-3.
    DoubleThree,
    /// Neither a win nor forbidden.
    Allowed,
}

impl Kind {
    /// The snake-case label used by the wire and the test data: `five`, `overline`,
    /// `double_four`, `double_three`, `allowed`.
    pub fn label(self) -> &'static str {
        match self {
            Kind::Five => "five",
            Kind::Overline => "overline",
            Kind::DoubleFour => "double_four",
            Kind::DoubleThree => "double_three",
            Kind::Allowed => "allowed",
        }
    }

    /// True for the three forbidden kinds.
    pub fn is_forbidden(self) -> bool {
        matches!(self, Kind::Overline | Kind::DoubleFour | Kind::DoubleThree)
    }
}

/// Each shape on its own, ignoring the rule that five has priority.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct ShapeFlags {
    /// A five through the move (Black: exactly 5; White: 5 or more).
    pub five: bool,
    /// Black: a row of 6 or more through the move (always false for White).
    pub overline: bool,
    /// Black: two or more fours (always false for White).
    pub double_four: bool,
    /// Black: threes in two or more directions (always false for White).
    pub double_three: bool,
}

/// The answer to a single-move query ([`Board::check`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Check {
    /// The mover.
    pub color: Color,
    /// The move wins (five; for White five or more).
    pub win: bool,
    /// The move is forbidden for Black (never for White).
    pub forbidden: bool,
    /// One label by priority five > overline > double-four > double-three > allowed.
    pub kind: Kind,
    /// Every shape on its own.
    pub flags: ShapeFlags,
    /// Number of fours through the move (stone sets, all directions). 0 for White.
    pub fours: u32,
    /// Number of directions holding a three through the move. 0 for White.
    pub threes: u32,
    /// Longest unbroken row of the mover's colour through the move, the move included.
    pub longest_line: u32,
}

/// Every empty point's verdict on one board ([`Board::forbidden_map`]). Lists are sorted in
/// reading order (row, then column).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ForbiddenMap {
    /// Black's forbidden points with their kind (overline > double-four > double-three).
    pub black_forbidden: Vec<(Point, Kind)>,
    /// The points where Black makes five (a win, never forbidden).
    pub black_five_points: Vec<Point>,
    /// The points where White makes five or more.
    pub white_win_points: Vec<Point>,
}

/// The four line scans of a black move on `p`.
#[inline]
fn scans(board: &Board, p: Point) -> [LineScan; 4] {
    LINE_OF[p.index()].map(|(line, bit)| {
        let (black, empty) = board.line(usize::from(line), Color::Black);
        let m = 1u32 << bit;
        scan(black | m, empty & !m, u32::from(bit))
    })
}

/// The verdict from the scans when no recursion is needed: `Some` unless the answer depends on
/// whether two directions hold real threes.
#[inline]
fn quick_verdict(s: &[LineScan; 4]) -> Option<Kind> {
    if s.iter().any(|x| x.run == 5) {
        return Some(Kind::Five);
    }
    if s.iter().any(|x| x.run >= 6) {
        return Some(Kind::Overline);
    }
    if s.iter().map(|x| x.fours).sum::<u32>() >= 2 {
        return Some(Kind::DoubleFour);
    }
    if s.iter().filter(|x| x.three_points != 0).count() < 2 {
        return Some(Kind::Allowed);
    }
    None
}

/// Key of the memo: (black stones added since the base board, point).
type MemoKey = ([u64; 4], u8);

/// The recursive three test on a private copy of the board. The memo stays valid for as long
/// as the base board is unchanged, so one `Threes` serves a whole forbidden map.
struct Threes {
    /// The base board plus the stones on the current recursion path.
    board: Board,
    /// The stones on the current recursion path, as a bit set of point indices.
    added: [u64; 4],
    /// Whether a black move on a point makes threes in two directions, for a given path.
    memo: HashMap<MemoKey, bool>,
}

impl Threes {
    fn new(board: &Board) -> Threes {
        Threes {
            board: board.clone(),
            added: [0; 4],
            memo: HashMap::new(),
        }
    }

    /// Black's verdict for a move on empty `p` of the current board.
    fn verdict(&mut self, p: Point) -> Kind {
        let s = scans(&self.board, p);
        match quick_verdict(&s) {
            Some(kind) => kind,
            None if self.double_three(p, &s) => Kind::DoubleThree,
            None => Kind::Allowed,
        }
    }

    fn push(&mut self, p: Point) {
        self.board.put(p, Color::Black);
        self.added[p.index() / 64] |= 1 << (p.index() % 64);
    }

    fn pop(&mut self, p: Point) {
        self.board.remove(p);
        self.added[p.index() / 64] &= !(1 << (p.index() % 64));
    }

    /// True when `p` makes real threes in at least two directions (memoised).
    fn double_three(&mut self, p: Point, s: &[LineScan; 4]) -> bool {
        let key = (self.added, p.index() as u8);
        if let Some(&v) = self.memo.get(&key) {
            return v;
        }
        self.push(p);
        let mut n = 0;
        for (d, scan) in s.iter().enumerate() {
            if scan.three_points != 0 && self.is_three(p, d, scan.three_points) {
                n += 1;
                if n == 2 {
                    break;
                }
            }
        }
        self.pop(p);
        self.memo.insert(key, n >= 2);
        n >= 2
    }

    /// Number of directions with a real three through `p` (all four examined).
    fn count_threes(&mut self, p: Point, s: &[LineScan; 4]) -> u32 {
        self.push(p);
        let mut n = 0;
        for (d, scan) in s.iter().enumerate() {
            if scan.three_points != 0 && self.is_three(p, d, scan.three_points) {
                n += 1;
            }
        }
        self.pop(p);
        n
    }

    /// With `p` on the board: does some candidate key point on direction `d` (bits of the
    /// line) make a straight four that is neither a five nor forbidden?
    fn is_three(&mut self, p: Point, d: usize, mut points: u32) -> bool {
        let line = usize::from(LINE_OF[p.index()][d].0);
        while points != 0 {
            let bit = points.trailing_zeros() as usize;
            points &= points - 1;
            let e = Point::from_index(usize::from(POINT_AT[line][bit]));
            if self.verdict(e) == Kind::Allowed {
                return true;
            }
        }
        false
    }
}

impl Board {
    /// The full answer for `color` playing on `p` (spec "The query").
    ///
    /// # Errors
    /// [`BoardError::Occupied`] when `p` holds a stone.
    pub fn check(&self, color: Color, p: Point) -> Result<Check, BoardError> {
        if self.get(p).is_some() {
            return Err(BoardError::Occupied(p));
        }
        if color == Color::White {
            let longest = self.run_if_placed(p, Color::White) as u32;
            let win = longest >= 5;
            return Ok(Check {
                color,
                win,
                forbidden: false,
                kind: if win { Kind::Five } else { Kind::Allowed },
                flags: ShapeFlags {
                    five: win,
                    ..ShapeFlags::default()
                },
                fours: 0,
                threes: 0,
                longest_line: longest,
            });
        }
        let s = scans(self, p);
        let five = s.iter().any(|x| x.run == 5);
        let overline = s.iter().any(|x| x.run >= 6);
        let fours: u32 = s.iter().map(|x| x.fours).sum();
        let threes = if s.iter().filter(|x| x.three_points != 0).count() == 0 {
            0
        } else {
            Threes::new(self).count_threes(p, &s)
        };
        let flags = ShapeFlags {
            five,
            overline,
            double_four: fours >= 2,
            double_three: threes >= 2,
        };
        let kind = if five {
            Kind::Five
        } else if overline {
            Kind::Overline
        } else if flags.double_four {
            Kind::DoubleFour
        } else if flags.double_three {
            Kind::DoubleThree
        } else {
            Kind::Allowed
        };
        Ok(Check {
            color,
            win: five,
            forbidden: kind.is_forbidden(),
            kind,
            flags,
            fours,
            threes,
            longest_line: s.iter().map(|x| x.run).max().unwrap_or(1),
        })
    }

    /// Black's verdict for a move on `p` (one [`Kind`], by priority), with the recursion
    /// short-cut: cheaper than [`Board::check`] when only the label matters.
    ///
    /// # Errors
    /// [`BoardError::Occupied`] when `p` holds a stone.
    pub fn black_verdict(&self, p: Point) -> Result<Kind, BoardError> {
        if self.get(p).is_some() {
            return Err(BoardError::Occupied(p));
        }
        let s = scans(self, p);
        Ok(match quick_verdict(&s) {
            Some(kind) => kind,
            None => {
                if Threes::new(self).double_three(p, &s) {
                    Kind::DoubleThree
                } else {
                    Kind::Allowed
                }
            }
        })
    }

    /// Every empty point's verdict: Black's forbidden points with their kind, Black's five
    /// points and White's winning points, each in reading order.
    pub fn forbidden_map(&self) -> ForbiddenMap {
        let mut map = ForbiddenMap::default();
        let mut threes: Option<Threes> = None;
        for (i, lines) in LINE_OF.iter().enumerate() {
            let p = Point::from_index(i);
            if self.get(p).is_some() {
                continue;
            }
            let s = scans(self, p);
            let kind = match quick_verdict(&s) {
                Some(kind) => kind,
                None => {
                    let t = threes.get_or_insert_with(|| Threes::new(self));
                    if t.double_three(p, &s) {
                        Kind::DoubleThree
                    } else {
                        Kind::Allowed
                    }
                }
            };
            match kind {
                Kind::Five => map.black_five_points.push(p),
                Kind::Allowed => {}
                k => map.black_forbidden.push((p, k)),
            }
            let white_wins = lines.iter().any(|&(line, bit)| {
                let (white, _) = self.line(usize::from(line), Color::White);
                run_length(white | (1 << bit), u32::from(bit)) >= 5
            });
            if white_wins {
                map.white_win_points.push(p);
            }
        }
        map
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn board(rows: &[&str]) -> Board {
        let mut all = vec![".".repeat(15); 15];
        for (i, r) in rows.iter().enumerate() {
            all[i + 5] = format!("{r:.<15}");
        }
        Board::from_rows(&all).unwrap()
    }

    #[test]
    fn double_three_and_four_three() {
        // H-three ..X.X.. plus V-three: m at (7, 5).
        let b = board(&["", ".....X", ".....X", "...X..X", ""]);
        let c = b.check(Color::Black, Point::new(8, 5).unwrap()).unwrap();
        assert_eq!(c.threes, 2, "{c:?}");
        assert_eq!(c.kind, Kind::DoubleThree);
        let b = board(&["", ".....X", ".....X", ".....X", "...X..X"]);
        let c = b.check(Color::Black, Point::new(9, 5).unwrap()).unwrap();
        assert_eq!((c.fours, c.threes, c.kind), (1, 1, Kind::Allowed), "{c:?}");
    }

    #[test]
    fn white_overline_wins() {
        let b = board(&["OOO.OO"]);
        let c = b.check(Color::White, Point::new(5, 3).unwrap()).unwrap();
        assert!(c.win && !c.forbidden && c.longest_line == 6);
        let c = b.check(Color::Black, Point::new(5, 3).unwrap()).unwrap();
        assert!(!c.win);
    }
}
