//! Bridge-based virtual connections, used by the solver for instant wins and for mustplay.
//!
//! A *virtual connection* (VC) of a player between its two sides is a set of empty cells, the
//! *carrier*, inside which the player connects even when the opponent moves first; a
//! *semi-connection* additionally needs one move, its *key*, after which it is a VC. Both are
//! built here from chains of the player's groups and its two edges, linked by:
//! - adjacency: a group touching an edge (empty carrier);
//! - a *bridge*: two empty cells each adjacent to both ends of the link (if the opponent takes
//!   one, the player takes the other). Towards an edge this is the edge template II (a stone on
//!   the second row with its two empty edge cells);
//! - for a semi-connection, exactly one link may be a single empty common neighbour (the key).
//!
//! Links with pairwise disjoint carriers combine into a VC (the AND rule of Anshelevich's
//! H-search): the player answers every intrusion inside the link it hits. Every VC found is
//! therefore sound; the search is a bounded depth-first search and may miss some.

use super::board::Color;
use super::geometry::Geometry;

/// A connection found by [`find`]: the carrier (bitboard, key included) and the key of a
/// semi-connection (`None` for a full VC).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Connection {
    /// Empty cells the connection depends on, the key included.
    pub carrier: u128,
    /// The move that completes a semi-connection; `None` for a full VC.
    pub key: Option<u32>,
}

/// Most nodes (two edges plus groups) handled; positions with more groups are skipped.
const MAX_NODES: usize = 64;
/// Step budget of one depth-first search (keeps a failed search cheap).
const MAX_STEPS: u32 = 4_000;

/// The link graph of one player: its two edges (nodes 0 and 1) and its groups.
struct Graph {
    /// Stones of each node (0 for the edges).
    body: [u128; MAX_NODES],
    /// Empty cells adjacent to each node (for an edge: the empty cells on it).
    libs: [u128; MAX_NODES],
    /// Bit `j` of `touch[i]`: nodes `i` and `j` are joined without empty cells.
    touch: [u64; MAX_NODES],
    /// Number of nodes.
    len: usize,
}

impl Graph {
    fn build(g: &Geometry, color: Color, stones: u128, empty: u128) -> Option<Graph> {
        let (a, b) = g.sides(color);
        let mut graph = Graph {
            body: [0; MAX_NODES],
            libs: [0; MAX_NODES],
            touch: [0; MAX_NODES],
            len: 2,
        };
        graph.libs[0] = a & empty;
        graph.libs[1] = b & empty;
        let mut rest = stones;
        while rest != 0 {
            if graph.len == MAX_NODES {
                return None;
            }
            let seed = rest & rest.wrapping_neg();
            let group = g.flood(seed, stones);
            rest &= !group;
            let i = graph.len;
            graph.body[i] = group;
            graph.libs[i] = g.neighbours(group) & empty;
            for (side, node) in [(a, 0usize), (b, 1usize)] {
                if group & side != 0 {
                    graph.touch[i] |= 1 << node;
                    graph.touch[node] |= 1 << i;
                }
            }
            graph.len += 1;
        }
        Some(graph)
    }
}

/// State of one depth-first search.
struct Dfs<'a> {
    graph: &'a Graph,
    steps: u32,
    allow_semi: bool,
}

impl Dfs<'_> {
    /// Extends a chain ending at `node` to node 1. `used` is the union of the carriers so
    /// far, `key` the semi-connection's key if one was spent, `visited` the chain's nodes.
    fn extend(
        &mut self,
        node: usize,
        used: u128,
        key: Option<u32>,
        visited: u64,
    ) -> Option<Connection> {
        if node == 1 {
            return Some(Connection { carrier: used, key });
        }
        self.steps += 1;
        if self.steps > MAX_STEPS {
            return None;
        }
        let gr = self.graph;
        // Candidate links: (rank, node, carrier, key). Rank 0 reaches the target, then free
        // links, bridges, and single-cell (semi) links last.
        let mut cands: [(u8, usize, u128, Option<u32>); MAX_NODES] = [(0, 0, 0, None); MAX_NODES];
        let mut count = 0;
        for j in 1..gr.len {
            if visited & (1 << j) != 0 {
                continue;
            }
            let target = u8::from(j != 1);
            if gr.touch[node] & (1 << j) != 0 {
                cands[count] = (target, j, 0, None);
                count += 1;
                continue;
            }
            let common = gr.libs[node] & gr.libs[j] & !used;
            match common.count_ones() {
                0 => {}
                1 => {
                    if self.allow_semi && key.is_none() {
                        cands[count] = (4 + target, j, common, Some(common.trailing_zeros()));
                        count += 1;
                    }
                }
                _ => {
                    let first = common & common.wrapping_neg();
                    let rest = common & !first;
                    let pair = first | (rest & rest.wrapping_neg());
                    cands[count] = (2 + target, j, pair, None);
                    count += 1;
                }
            }
        }
        let cands = &mut cands[..count];
        cands.sort_unstable_by_key(|c| c.0);
        for &(_, j, carrier, link_key) in cands.iter() {
            let found = self.extend(j, used | carrier, key.or(link_key), visited | (1 << j));
            if found.is_some() {
                return found;
            }
            if self.steps > MAX_STEPS {
                return None;
            }
        }
        None
    }
}

/// Looks for a VC (or, with `allow_semi`, a semi-connection) of `color` between its sides.
/// `stones` are its stones, `empty` the empty cells. Prefers connections without a key.
pub(crate) fn find(
    g: &Geometry,
    color: Color,
    stones: u128,
    empty: u128,
    allow_semi: bool,
) -> Option<Connection> {
    let graph = Graph::build(g, color, stones, empty)?;
    let mut dfs = Dfs {
        graph: &graph,
        steps: 0,
        allow_semi,
    };
    dfs.extend(0, 0, None, 1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::hex::Board;

    fn conn(rows: &[&str], color: Color, semi: bool) -> Option<Connection> {
        let b = Board::parse_rows(rows).expect("valid");
        find(&b.geometry(), color, b.stones(color), b.empty_cells(), semi)
    }

    #[test]
    fn bridges_and_edge_templates_make_a_vc() {
        // Black b2 and c4... on 4x4: b2 reaches the top by template II (b1, c1); b2 and a4
        // share a3 and b3; a4 touches the bottom.
        let c = conn(&["....", ".B..", "....", "B..."], Color::Black, false).expect("a VC");
        assert_eq!(c.key, None);
        assert_eq!(c.carrier.count_ones(), 4);
    }

    #[test]
    fn a_single_gap_is_a_semi_connection() {
        let c = conn(&["B..", "...", "..."], Color::Black, true);
        assert!(c.is_none(), "two gaps are not a semi-connection");
        let c = conn(&["B..", "B..", "..."], Color::Black, true).expect("semi");
        assert!(c.key.is_some());
        assert!(conn(&["B..", "B..", "..."], Color::Black, false).is_none());
    }
}
