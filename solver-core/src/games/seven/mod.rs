//! The Maker-Breaker game (4, n, 7^tr): the finite reduction of 7-in-a-row from Czifra, Csóka,
//! Zombori and Makay, "Towards solving the 7-in-a-row game" (IEEE CoG 2021), Sec. III.
//!
//! # Layout
//!
//! - [`board`]: board widths, cells, cell names (`a1` = top-left) and the left-right mirror.
//! - [`hypergraph`]: the paper's hyperedges (and the seed harness's edge set, for comparison).
//! - [`position`]: positions, their text form, l-lines, `pot` / `phi`, win and certificate tests,
//!   and the mirror-canonical key.
//! - [`solver`]: the game as a proof-number-search [`crate::pns::Game`] with the PNS+ reductions.
//!
//! Cells are bits of a `u128`, column-major: cell `(r, c)` is bit `4 c + r`, so a board of up to
//! 32 columns fits and the mirror `c -> n-1-c` is a bit reversal.
//!
//! # Examples
//!
//! ```
//! use solver_core::games::seven::{Hypergraph, Position};
//! let hg = Hypergraph::paper(8.try_into().unwrap());
//! assert_eq!(hg.edges().len(), 32);
//! let pos = Position::empty(hg.cols(), solver_core::games::seven::Side::Maker);
//! assert_eq!(pos.potential(&hg).pot().to_string(), "21/4");
//! ```

pub mod board;
pub mod hypergraph;
pub mod position;
pub mod solver;

pub use board::{Cell, Cols, ParseCellError};
pub use hypergraph::{EdgeSet, Hypergraph};
pub use position::{Dyadic, Key, ParsePositionError, Position, Potential, Side};
pub use solver::{Rules, SevenGame, SolveReport, Technique, UnknownTechnique, solve};
