//! Hex on `n x n` boards (`1 <= n <= 11`): the board and its notation, connectivity with the
//! winning chain, and solvers (spec `hex.md`).
//!
//! # Layout
//!
//! - [`board`]: sizes, cells, names (`a1`), colours and the validated [`Board`] (two `u128`
//!   bitboards), with connectivity ([`Board::winner`], [`Board::winning_chain`]).
//! - `geometry`: the bitboard masks, neighbour shifts and flood fill behind it.
//! - [`reference`](mod@reference): the seed's plain mustplay / winset search `win_move`, kept
//!   as a reference.
//! - [`solver`]: the fast solver (dead-cell fill-in, bridge virtual connections, transposition
//!   table, move ordering, node / time budget).
//! - [`pns`]: Hex as a game of the generic proof-number search ([`crate::pns`]) over the same
//!   mustplay, and [`pns::solve`], the solver the CLI and `Rules.SolveHex` answer with: the
//!   proof-number search decides, then the winset search above, ordered by its proof, returns
//!   the carrier.
//! - `dead`, `vc`: the sound reductions the solver uses, each with its proof.
//!
//! # Example
//!
//! ```
//! use solver_core::games::hex::{Board, Color, pns, solver::{Outcome, SolveOptions}};
//!
//! let board = Board::empty(3).expect("3 is a valid size");
//! let opts = SolveOptions { all_moves: true, ..SolveOptions::default() };
//! let Outcome::Solved(s) = pns::solve(&board, Color::Black, &opts) else { panic!("no budget") };
//! assert_eq!(s.winner, Color::Black);
//! let names: Vec<String> = s.winning_moves.unwrap().iter().map(|c| c.name()).collect();
//! assert_eq!(names, ["c1", "a2", "b2", "c2", "a3"]);
//! ```

pub mod board;
mod dead;
mod geometry;
pub mod pns;
pub mod reference;
pub mod solver;
mod vc;

pub use board::{Board, Cell, Color, HexError, MAX_SIZE, MIN_SIZE, cells_of};
