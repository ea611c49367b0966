//! Renju on the 15 x 15 board: five, and Black's forbidden moves (overline, double-four,
//! double-three) under the rules of the Renju International Federation (RIF, decided 2 May
//! 1996, corrected 3 May 1998), as stated literally in `shared/specs/renju.md`.
//!
//! # Layout
//!
//! - [`point`]: points and both notations. **Every API here takes `(row, col)`**, row 0 = the
//!   top line as printed; names are `A`..`O` + `15 - row` (`H8` = centre). The Gomocup `x,y`
//!   (= `col,row`) order goes only through [`Point::from_gomocup`].
//! - [`board`]: the board, its text form (`X` black, `O` white, `.` empty, top row first) and
//!   per-line bit masks updated on every placement.
//! - `line`: the single line-scanning routine used for all four directions.
//! - [`rules`]: the queries [`Board::check`], [`Board::black_verdict`] and
//!   [`Board::forbidden_map`], with the recursive, memoised three.
//!
//! Reading choice (spec): a three whose only straight-four point also makes a five is **not** a
//! three (the literal RIF text; the classic ForbiddenPointFinder and Rapfi agree).
//!
//! This module is pure: no I/O, no dependency on the search engine.
//!
//! # Examples
//!
//! ```
//! use solver_core::games::renju::{Board, Color, Kind, Point};
//! let mut rows = vec![".".repeat(15); 15];
//! rows[7] = "....X.XX.......".into(); // X.XX with a gap: playing F8 fills it
//! rows[6] = ".....X.........".into();
//! rows[5] = ".....X.........".into();
//! let board = Board::from_rows(&rows).unwrap();
//! let m: Point = "F8".parse().unwrap(); // (row 7, col 5)
//! let c = board.check(Color::Black, m).unwrap();
//! assert_eq!((c.fours, c.threes), (1, 1)); // a four across, a three down: allowed
//! assert_eq!(c.kind, Kind::Allowed);
//! ```

pub mod board;
mod line;
pub mod point;
pub mod rules;

pub use board::{Board, BoardError, Color, DIRECTIONS, transform};
pub use point::{POINTS, Point, PointError, SIZE};
pub use rules::{Check, ForbiddenMap, Kind, ShapeFlags};
