//! The hyperedges (winning sets) of the 4 x n board.
//!
//! [`Hypergraph::paper`] is the paper's (4, n, 7^tr) edge set (Sec. III, as the authors' code
//! builds it; `shared/specs/seven-in-a-row.md`): per row the two end 4-cells and the 7-windows
//! starting at columns `1..=n-8`; every column; the 4-cell diagonals; the extra 3-edges
//! `{a3, b2, c1}`, `{a2, b3, c4}` and 2-edge `{a2, b1}` with their left-right mirrors; then
//! every edge that contains another edge is dropped.
//!
//! [`Hypergraph::seed_harness`] is the seed harness's different edge set (7-windows clipped at
//! the left end only, no short extra edges, no superset removal), kept only so that its printed
//! numbers can be reproduced. The solver always uses the paper's edges.

use super::board::{Cell, Cols, cells_of};

/// Which edge set to build.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum EdgeSet {
    /// The paper's (4, n, 7^tr) hypergraph.
    #[default]
    Paper,
    /// The seed harness's edge set (not the paper's game; for reproducing its output only).
    SeedHarness,
}

/// The hyperedges of one board width, as cell masks, in canonical order: sorted by their cell
/// index lists (column-major), which for n <= 26 is the lexicographic order of the edges' sorted
/// cell names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hypergraph {
    cols: Cols,
    edges: Vec<u128>,
    /// For each cell index, the indices (into `edges`) of the edges through it.
    edges_of_cell: Vec<Vec<u16>>,
}

impl Hypergraph {
    /// The paper's hypergraph for width `cols`.
    pub fn paper(cols: Cols) -> Self {
        let n = cols.get();
        let mut edges = Vec::new();
        let line = |cells: &[(u32, u32)]| -> u128 {
            cells.iter().fold(0, |m, &(r, c)| m | Cell::new(r, c).bit())
        };
        for r in 0..4 {
            edges.push(line(&(0..4).map(|c| (r, c)).collect::<Vec<_>>()));
            edges.push(line(&(n - 4..n).map(|c| (r, c)).collect::<Vec<_>>()));
            for s in 1..=n.saturating_sub(8) {
                edges.push(line(&(s..s + 7).map(|c| (r, c)).collect::<Vec<_>>()));
            }
        }
        push_columns_and_diagonals(n, &mut edges);
        let left = [
            line(&[(2, 0), (1, 1), (0, 2)]),
            line(&[(1, 0), (2, 1), (3, 2)]),
            line(&[(1, 0), (0, 1)]),
        ];
        for e in left {
            edges.push(e);
            edges.push(cols.mirror(e));
        }
        edges.sort_unstable();
        edges.dedup();
        let minimal: Vec<u128> = edges
            .iter()
            .copied()
            .filter(|&e| !edges.iter().any(|&f| f != e && f & e == f))
            .collect();
        Self::from_edges(cols, minimal)
    }

    /// The seed harness's edge set for width `cols` (see the module docs).
    pub fn seed_harness(cols: Cols) -> Self {
        let n = cols.get() as i64;
        let mut edges = Vec::new();
        for r in 0..4 {
            for s in -3..=n - 7 {
                let m = (s.max(0)..s + 7)
                    .filter(|&c| c < n)
                    .fold(0u128, |m, c| m | Cell::new(r, c as u32).bit());
                edges.push(m);
            }
        }
        push_columns_and_diagonals(cols.get(), &mut edges);
        Self::from_edges(cols, edges)
    }

    /// The edge set `which` for width `cols`.
    pub fn build(cols: Cols, which: EdgeSet) -> Self {
        match which {
            EdgeSet::Paper => Self::paper(cols),
            EdgeSet::SeedHarness => Self::seed_harness(cols),
        }
    }

    fn from_edges(cols: Cols, mut edges: Vec<u128>) -> Self {
        edges.sort_by_cached_key(|&e| cells_of(e).map(|c| c.0).collect::<Vec<_>>());
        let mut edges_of_cell = vec![Vec::new(); cols.cells() as usize];
        for (i, &e) in edges.iter().enumerate() {
            for cell in cells_of(e) {
                edges_of_cell[cell.index()].push(i as u16);
            }
        }
        Hypergraph {
            cols,
            edges,
            edges_of_cell,
        }
    }

    /// The board width.
    pub fn cols(&self) -> Cols {
        self.cols
    }

    /// Every edge as a cell mask, in canonical order.
    pub fn edges(&self) -> &[u128] {
        &self.edges
    }

    /// Indices into [`Self::edges`] of the edges through `cell`.
    ///
    /// # Panics
    /// When `cell` is off this hypergraph's board (its index is 4n or more).
    pub fn edges_through(&self, cell: Cell) -> &[u16] {
        &self.edges_of_cell[cell.index()]
    }

    /// The cell names of an edge, in index order.
    pub fn edge_names(edge: u128) -> Vec<String> {
        cells_of(edge).map(Cell::name).collect()
    }

    /// Number of edges of each size: index `k` holds the number of `k`-cell edges (0..=7).
    pub fn size_histogram(&self) -> [u32; 8] {
        let mut h = [0; 8];
        for e in &self.edges {
            h[e.count_ones() as usize] += 1;
        }
        h
    }
}

/// Every full column and both families of 4-cell diagonals.
fn push_columns_and_diagonals(n: u32, edges: &mut Vec<u128>) {
    for c in 0..n {
        edges.push((0..4).fold(0, |m, r| m | Cell::new(r, c).bit()));
    }
    for c in 0..=n - 4 {
        edges.push((0..4).fold(0, |m, r| m | Cell::new(r, c + r).bit()));
    }
    for c in 3..n {
        edges.push((0..4).fold(0, |m, r| m | Cell::new(r, c - r).bit()));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cols(n: u32) -> Cols {
        Cols::try_from(n).expect("in range")
    }

    #[test]
    fn paper_counts_follow_the_formula() {
        for n in 8..=32 {
            let h = Hypergraph::paper(cols(n)).size_histogram();
            assert_eq!(h[2], 2, "n={n}");
            assert_eq!(h[3], 4, "n={n}");
            assert_eq!(h[4], 3 * n + 2, "n={n}");
            assert_eq!(h[7], 4 * (n - 8), "n={n}");
        }
    }

    #[test]
    fn paper_edges_are_mirror_symmetric() {
        for n in 4..=32 {
            let hg = Hypergraph::paper(cols(n));
            let mut mirrored: Vec<u128> = hg.edges().iter().map(|&e| hg.cols().mirror(e)).collect();
            mirrored.sort_unstable();
            let mut edges = hg.edges().to_vec();
            edges.sort_unstable();
            assert_eq!(mirrored, edges, "n={n}");
        }
    }

    #[test]
    fn seed_harness_n8_histogram() {
        let h = Hypergraph::seed_harness(cols(8)).size_histogram();
        assert_eq!(&h[4..], &[22, 4, 4, 8]);
    }
}
