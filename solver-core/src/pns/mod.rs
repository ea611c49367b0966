//! Proof-number search (PNS) over AND/OR DAGs, generic over a [`Game`].
//!
//! The engine never names a game. A [`Game`] is a position that knows whose move it is (OR = the
//! player we try to prove a win for, AND = the opponent), how to simplify itself to a fixpoint
//! (sound reductions that may decide it), its children, a canonical transposition key, and an
//! optional heuristic (pn, dn) for new leaves.
//!
//! Proof number (pn): the least number of leaves to prove to prove the node; disproof number
//! (dn): likewise to disprove. OR node: pn = min over children, dn = sum; AND node: pn = sum,
//! dn = min (Allis, van der Meulen, van den Herik, "Proof-number search", AI 66, 1994). Nodes
//! reached by several paths are one node (a transposition table keyed by [`Game::key`]), so the
//! tree is a DAG; summing over a DAG counts a shared child once per parent (the known
//! over-estimate of DAG PNS), which affects only the search order, never the values.

mod pipeline;
mod search;
mod shared;
mod table;

pub use search::{ChildReport, Known, Limits, Outcome, RootChild, Search, Stats};
pub use shared::{Held, LEAVES_IN_FLIGHT, Locked, Poisoned, Shared};

use std::fmt::Debug;
use std::hash::Hash;

/// Proof and disproof numbers: `INFINITY` marks a solved node; finite sums saturate below it.
pub type Number = u64;

/// The infinite proof or disproof number of a solved node.
pub const INFINITY: Number = u64::MAX;

/// Whose move it is, in AND/OR terms.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum NodeType {
    /// The player we try to prove a win for is to move: pn = min, dn = sum.
    Or,
    /// The opponent is to move: pn = sum, dn = min.
    And,
}

/// The value of a solved position.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Value {
    /// The OR player wins.
    Proven,
    /// The AND player wins.
    Disproven,
}

/// A position the engine can search. See the module docs.
pub trait Game: Clone {
    /// Transposition key: equal for positions with equal values (symmetry-reduced).
    type Key: Copy + Eq + Hash + Debug;
    /// A move, reported at the root.
    type Move: Copy + Debug + Eq;

    /// OR when the player we try to prove a win for is to move.
    fn node_type(&self) -> NodeType;

    /// Applies the game's sound reductions until nothing changes; `Some` when that decides the
    /// position (including terminal positions).
    fn simplify(&mut self) -> Option<Value>;

    /// The children of a simplified, undecided position, each with the move leading to it.
    /// Children need not be simplified; the engine simplifies them.
    fn children(&self) -> Vec<(Self::Move, Self)>;

    /// The transposition key of a simplified position.
    fn key(&self) -> Self::Key;

    /// Heuristic (pn, dn) of a new, simplified, undecided leaf, both at least 1. Default (1, 1).
    fn estimate(&self) -> (Number, Number) {
        (1, 1)
    }

    /// Heuristic (pn, dn) of the new leaves among the children of this expanded node, in the
    /// order given, estimated together so that a leaf's numbers may depend on its siblings (as
    /// in the paper's sibling-relative disproof numbers). Only children that are new to the
    /// search and undecided by [`Game::simplify`] are passed. Default: [`Game::estimate`] of each.
    fn estimate_children(&self, children: &[&Self]) -> Vec<(Number, Number)> {
        children.iter().map(|c| c.estimate()).collect()
    }

    /// Computes now, and keeps, what [`Game::estimate_children`] will read of this simplified,
    /// undecided position. The threads of a [`Shared`] search call it on each new child
    /// outside their lock, so that the estimate made under the lock is cheap. Default: nothing.
    fn prepare(&mut self) {}

    /// A split of this simplified, undecided position into sub-positions whose values decide
    /// it by the returned formula (for example independent components of a sum of games), or
    /// `None` to expand it by its moves. Default `None`.
    fn decompose(&self) -> Option<Formula<Self>> {
        None
    }
}

/// A sound AND/OR formula over sub-positions: the value of a decomposed position is the
/// formula's value, where a position leaf counts as true when it is [`Value::Proven`].
#[derive(Debug, Clone)]
pub enum Formula<G> {
    /// A sub-position, searched as a node of its own (shared through the transposition table).
    Position(G),
    /// True when some part is true (an OR node of the DAG).
    Any(Vec<Formula<G>>),
    /// True when every part is true (an AND node of the DAG).
    All(Vec<Formula<G>>),
}

/// The (pn, dn) of an expanded node of type `node_type` from its children's (pn, dn): OR: pn =
/// min, dn = sum; AND: pn = sum, dn = min. Sums saturate below [`INFINITY`] unless a term is
/// infinite. With no children the side to move has no move and loses.
pub fn combine(
    node_type: NodeType,
    children: impl IntoIterator<Item = (Number, Number)>,
) -> (Number, Number) {
    combine_with_second(node_type, children).0
}

/// [`combine`], and the second least of the children's numbers that the node takes the least
/// of (pn at an OR node, dn at an AND node), counting equal numbers apart: [`INFINITY`] with
/// fewer than two children.
pub(crate) fn combine_with_second(
    node_type: NodeType,
    children: impl IntoIterator<Item = (Number, Number)>,
) -> ((Number, Number), Number) {
    let or = node_type == NodeType::Or;
    let mut min = INFINITY;
    let mut second = INFINITY;
    let mut sum: Number = 0;
    let mut infinite = false;
    let mut any = false;
    for (pn, dn) in children {
        any = true;
        let (m, s) = if or { (pn, dn) } else { (dn, pn) };
        second = second.min(min.max(m));
        min = min.min(m);
        // Branch-free (this loop is most of a full recomputation): the sum saturates at
        // INFINITY here; after the loop a finite total is capped at INFINITY - 1.
        sum = sum.saturating_add(s);
        infinite |= s == INFINITY;
    }
    if !any {
        let numbers = if or { (INFINITY, 0) } else { (0, INFINITY) };
        return (numbers, INFINITY);
    }
    let sum = if infinite {
        INFINITY
    } else {
        sum.min(INFINITY - 1)
    };
    (if or { (min, sum) } else { (sum, min) }, second)
}
