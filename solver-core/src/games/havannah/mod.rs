//! Havannah win detection: ring, bridge and fork, on hexagonal boards of 2 to 32 cells per
//! side, in the array format of the course helper ("ExtendedHavannah") that
//! `shared/specs/havannah.md` describes, with its blocked cells (`3` inside the hexagon).
//!
//! # Layout
//!
//! - [`board`]: [`Layers`], [`Cell`], [`Player`], the validated [`Board`], and its
//!   [`Geometry`] (neighbours, corners, sides).
//! - [`kinds`]: [`Kind`] (bridge, fork, ring) and [`KindSet`], with the seed's and Castro's
//!   single-label priorities.
//! - [`tracker`]: [`Tracker`], the incremental detector (union-find with corner and side masks,
//!   local ring test), [`play_game`] for playouts and [`random_positions`] for benchmarks.
//! - [`analysis`]: [`check_win`] / [`analyze`], every structure of a whole position with a
//!   witness for each.
//!
//! # Examples
//!
//! ```
//! use solver_core::games::havannah::{check_win, Board, Cell, Kind, Layers, Player};
//! let layers = Layers::new(2).unwrap();
//! // Player 1 holds corners (0,0) and (0,1) of the 7-cell board: a bridge.
//! let board = Board::from_rows(layers, &[[1, 0, 0], [0, 0, 0], [3, 0, 3]]).unwrap();
//! let answer = check_win(&board, Cell::new(0, 1), Player::One).unwrap();
//! assert_eq!(answer.kinds(), vec![Kind::Bridge]);
//! assert_eq!(answer.bridge.unwrap().chain, vec![Cell::new(0, 0), Cell::new(0, 1)]);
//! ```

pub mod analysis;
pub mod board;
pub mod kinds;
pub mod tracker;

pub use analysis::{Analysis, BridgeWitness, ForkWitness, analyze, check_win};
pub use board::{Board, Cell, Geometry, HavannahError, Layers, Player, Point, Side};
pub use kinds::{Kind, KindSet};
pub use tracker::{GameResult, Tracker, play_game, random_positions};
