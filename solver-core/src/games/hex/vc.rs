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
//! - the *ziggurat* (edge template IIIa) from a stone on the third row to its edge: it is the
//!   OR of two semi-connections with disjoint carriers (a key next to the stone with its own
//!   template II, and a key bridged from the stone with its template II), 8 empty cells;
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
    /// Ziggurats from a group to an edge: (group node, edge node, carrier), all cells empty.
    zigs: Vec<(usize, usize, u128)>,
}

impl Graph {
    fn build(g: &Geometry, color: Color, stones: u128, empty: u128) -> Option<Graph> {
        let (a, b) = g.sides(color);
        let mut graph = Graph {
            body: [0; MAX_NODES],
            libs: [0; MAX_NODES],
            touch: [0; MAX_NODES],
            len: 2,
            zigs: Vec::new(),
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
            for (edge, carrier) in ziggurats(g, color, group, empty) {
                graph.zigs.push((i, edge, carrier));
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
        for &(a, b, carrier) in &gr.zigs {
            let j = if a == node {
                b
            } else if b == node {
                a
            } else {
                continue;
            };
            if visited & (1 << j) == 0 && carrier & used == 0 && count < MAX_NODES {
                cands[count] = (3, j, carrier, None);
                count += 1;
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

/// The ziggurats (edge template IIIa) of `group`'s stones towards `color`'s two edges whose
/// carriers are empty: `(edge node, carrier)`, edge node 0 = first side, 1 = second side.
///
/// For the top edge and a stone `(2, c)`, the two shapes (derived in the module docs) are
/// `{(1,c), (0,c), (0,c+1)} + {(1,c+2), (1,c+1), (2,c+1), (0,c+2), (0,c+3)}` and
/// `{(1,c+1), (0,c+1), (0,c+2)} + {(1,c-1), (1,c), (2,c-1), (0,c-1), (0,c)}`. The other edges
/// are their images under the 180-degree rotation and, for White, the transposition.
fn ziggurats(g: &Geometry, color: Color, group: u128, empty: u128) -> Vec<(usize, u128)> {
    const SHAPES: [&[(i32, i32)]; 2] = [
        &[
            (1, 0),
            (0, 0),
            (0, 1),
            (1, 2),
            (1, 1),
            (2, 1),
            (0, 2),
            (0, 3),
        ],
        &[
            (1, 1),
            (0, 1),
            (0, 2),
            (1, -1),
            (1, 0),
            (2, -1),
            (0, -1),
            (0, 0),
        ],
    ];
    let n = g.n as i32;
    let mut out = Vec::new();
    if n < 4 {
        return out;
    }
    // Cell (r, c) in the frame of the top edge, mapped to the real board.
    let map = |edge: usize, r: i32, c: i32| -> (i32, i32) {
        let (r, c) = if edge == 1 {
            (n - 1 - r, n - 1 - c)
        } else {
            (r, c)
        };
        match color {
            Color::Black => (r, c),
            Color::White => (c, r),
        }
    };
    for edge in 0..2 {
        for c in 0..n {
            let (sr, sc) = map(edge, 2, c);
            if group & (1u128 << (sr * n + sc)) == 0 {
                continue;
            }
            for shape in SHAPES {
                let mut carrier = 0u128;
                let mut ok = true;
                for &(r, dc) in shape {
                    let cc = c + dc;
                    if !(0..n).contains(&cc) {
                        ok = false;
                        break;
                    }
                    let (mr, mc) = map(edge, r, cc);
                    carrier |= 1u128 << (mr * n + mc);
                }
                if ok && carrier & !empty == 0 {
                    out.push((edge, carrier));
                }
            }
        }
    }
    out
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
    fn the_ziggurat_is_a_virtual_connection() {
        use crate::games::hex::reference;
        let mut checked = 0;
        // Every ziggurat found on an otherwise white-filled board (plus a black stem to the far
        // edge) is a second-player win for its owner, by the reference search.
        for n in 4..=5usize {
            for color in [Color::Black, Color::White] {
                let g = Geometry::new(n);
                for s in 0..n * n {
                    let stone = 1u128 << s;
                    for (edge, carrier) in ziggurats(&g, color, stone, g.full & !stone) {
                        // The stone's own line to the other edge, in the stone's colour.
                        let (r, c) = (s / n, s % n);
                        let mut own = stone;
                        for k in 0..n {
                            let (rr, cc) = match (color, edge) {
                                (Color::Black, 0) => (k.max(r), c),
                                (Color::Black, _) => (k.min(r), c),
                                (Color::White, 0) => (r, k.max(c)),
                                (Color::White, _) => (r, k.min(c)),
                            };
                            own |= 1u128 << (rr * n + cc);
                        }
                        own &= !carrier;
                        let other = g.full & !own & !carrier;
                        let (b, w) = match color {
                            Color::Black => (own, other),
                            Color::White => (other, own),
                        };
                        let board = Board::from_masks(n, b, w).expect("valid");
                        let r = reference::win_move(&board, color.opponent());
                        assert_eq!(r.winner, color, "n={n} {color:?} stone {s} edge {edge}");
                        assert_eq!(carrier.count_ones(), 8);
                        checked += 1;
                    }
                }
            }
        }
        // 4x4: 1 + 1 stones per edge; 5x5: 2 + 2; both shapes, four edges, two colours.
        assert!(checked >= 16, "only {checked} ziggurats checked");
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
