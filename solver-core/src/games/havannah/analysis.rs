//! Whole-position queries: every structure a player has, each with a witness (spec "The
//! query"). Built on the incremental [`Tracker`]: the player's stones are placed one by one,
//! the move last, so no flood fill is needed; witnesses are short breadth-first paths.

use std::collections::VecDeque;

use super::board::{Board, Cell, Geometry, HavannahError, Player, Side};
use super::kinds::{Kind, KindSet};
use super::tracker::{RingTrigger, Tracker, nb};

/// A bridge: a chain of stones joining two corners.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BridgeWitness {
    /// The two corners joined (the chain's first and last cells).
    pub corners: [Cell; 2],
    /// The chain, from `corners[0]` to `corners[1]`, each cell adjacent to the next.
    pub chain: Vec<Cell>,
}

/// A fork: stones of one group that reach three sides.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ForkWitness {
    /// The three sides reached.
    pub sides: [Side; 3],
    /// A connected set of the group's stones touching the three sides: a path from a cell of
    /// `sides[1]` to one of `sides[0]`, then the branch on to `sides[2]`.
    pub cells: Vec<Cell>,
}

/// Every structure a player has in a position, with one witness per kind.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Analysis {
    /// The structures, as a set.
    pub kinds: KindSet,
    /// The ring's cells in order around the loop (each adjacent to the next and the last to
    /// the first), if the player has a ring. When the move closed the ring the loop passes
    /// through it, unless the move is itself the centre of six own stones (then those six).
    pub ring: Option<Vec<Cell>>,
    /// A bridge, if any.
    pub bridge: Option<BridgeWitness>,
    /// A fork, if any.
    pub fork: Option<ForkWitness>,
}

impl Analysis {
    /// True iff the player has any structure.
    pub fn win(&self) -> bool {
        !self.kinds.is_empty()
    }

    /// The kinds, sorted by name (`bridge`, `fork`, `ring`).
    pub fn kinds(&self) -> Vec<Kind> {
        self.kinds.iter().collect()
    }
}

/// The seed's `check_win(board, move, player)`: `board` is the position after the move; an
/// empty move cell is filled with `player`'s stone first. Returns every structure `player` has
/// in the resulting position; where a group qualifies, the move's group is the witness.
///
/// # Errors
/// [`HavannahError::CellOffBoard`], [`HavannahError::CellBlocked`] or
/// [`HavannahError::CellTaken`] (the opponent's stone) for the move.
pub fn check_win(board: &Board, mv: Cell, player: Player) -> Result<Analysis, HavannahError> {
    let mut after = board.clone();
    after.place(mv, player)?;
    Ok(analyze(&after, player, Some(mv)))
}

/// Every structure `player` has on `board`. Stones are placed in board order with `last` (if it
/// is `player`'s stone) placed last, so a ring closed by `last` is witnessed through it.
pub fn analyze(board: &Board, player: Player, last: Option<Cell>) -> Analysis {
    let g = board.geometry();
    let p = player.number();
    let mut t = Tracker::blank(board);
    let codes = board.codes();
    let last = last
        .filter(|&c| g.on_board(c))
        .map(|c| g.index(c))
        .filter(|&i| codes[i] == p);
    let mut trigger = None;
    // Branch-free gather of the player's stones (the move excluded).
    let mut stones = vec![0usize; codes.len() + 1];
    let mut n = 0;
    for (i, &c) in codes.iter().enumerate() {
        stones[n] = i;
        n += usize::from(c == p && Some(i) != last);
    }
    stones.truncate(n);
    stones.extend(last);
    for &i in &stones {
        let placed = t.put(i, p);
        if trigger.is_none() {
            trigger = placed.ring;
        }
    }
    let mut out = Analysis::default();
    if let Some(tr) = trigger {
        out.kinds.insert(Kind::Ring);
        out.ring = Some(ring_witness(&t, &g, tr, p));
    }
    // Groups in order of preference: the move's first; only groups with a border stone can
    // hold a corner or touch a side.
    for &i in stones.iter().rev() {
        if out.bridge.is_some() && out.fork.is_some() {
            break;
        }
        if t.edge_bits(i) == 0 && Some(i) != last {
            continue;
        }
        let r = t.find(i);
        let mask = t.root_mask(r);
        let kinds = KindSet::of_mask(mask);
        if kinds.contains(Kind::Bridge) && out.bridge.is_none() {
            out.kinds.insert(Kind::Bridge);
            out.bridge = Some(bridge_witness(&mut t, &g, r));
        }
        if kinds.contains(Kind::Fork) && out.fork.is_none() {
            out.kinds.insert(Kind::Fork);
            out.fork = Some(fork_witness(&mut t, &g, r, mask));
        }
    }
    out
}

/// Breadth-first search from `start` over padded indices allowed by `ok`; returns the parent
/// of every reached index (`usize::MAX` for the start and unreached) and the visit order.
fn bfs(
    t: &Tracker,
    g: &Geometry,
    start: usize,
    ok: impl Fn(usize) -> bool,
) -> (Vec<usize>, Vec<usize>) {
    let offs = g.offsets();
    let mut parent = vec![usize::MAX; g.w * g.w];
    let mut seen = vec![false; g.w * g.w];
    let mut order = Vec::new();
    let mut queue = VecDeque::from([start]);
    seen[start] = true;
    while let Some(i) = queue.pop_front() {
        order.push(i);
        for &o in &offs {
            let j = nb(i, o);
            if !seen[j] && t.on_board_index(j) && ok(j) {
                seen[j] = true;
                parent[j] = i;
                queue.push_back(j);
            }
        }
    }
    (parent, order)
}

/// The path from the BFS start to `end`, start first.
fn path(parent: &[usize], end: usize) -> Vec<usize> {
    let mut out = vec![end];
    let mut i = end;
    while parent[i] != usize::MAX {
        i = parent[i];
        out.push(i);
    }
    out.reverse();
    out
}

fn ring_witness(t: &Tracker, g: &Geometry, tr: RingTrigger, p: u8) -> Vec<Cell> {
    match tr {
        RingTrigger::Filled { centre } => g
            .offsets()
            .iter()
            .map(|&o| g.cell_of(nb(centre, o)))
            .collect(),
        RingTrigger::Loop { stone, a, b } => {
            // Only stones placed before `stone`: the gap between the arcs stays enclosed.
            let before = t.seq(stone);
            let (parent, _) = bfs(t, g, a, |j| t.code(j) == p && t.seq(j) < before);
            let mut ring = vec![g.cell_of(stone)];
            ring.extend(path(&parent, b).into_iter().map(|i| g.cell_of(i)));
            ring
        }
    }
}

fn bridge_witness(t: &mut Tracker, g: &Geometry, root: usize) -> BridgeWitness {
    let corners: Vec<usize> = g
        .corners()
        .iter()
        .map(|&c| g.index(c))
        .filter(|&i| t.seq(i) != u32::MAX && t.find(i) == root)
        .collect();
    let start = corners[0];
    let p = t.code(start);
    let (parent, order) = bfs(t, g, start, |j| t.code(j) == p);
    let end = order
        .into_iter()
        .find(|i| *i != start && corners.contains(i))
        .expect("a bridge group holds two corners");
    let chain: Vec<Cell> = path(&parent, end)
        .into_iter()
        .map(|i| g.cell_of(i))
        .collect();
    BridgeWitness {
        corners: [g.cell_of(start), g.cell_of(end)],
        chain,
    }
}

fn fork_witness(t: &mut Tracker, g: &Geometry, root: usize, mask: u16) -> ForkWitness {
    let side_of = |i: usize| g.side_of(g.cell_of(i));
    let first_side = Side::ALL[(mask >> 6).trailing_zeros() as usize];
    let start = g
        .side_cells(first_side)
        .into_iter()
        .map(|c| g.index(c))
        .find(|&i| t.seq(i) != u32::MAX && t.find(i) == root)
        .expect("the group's mask names this side");
    let p = t.code(start);
    let (parent, order) = bfs(t, g, start, |j| t.code(j) == p);
    let mut reached: Vec<(Side, usize)> = Vec::new();
    for i in order {
        if let Some(s) = side_of(i)
            && s != first_side
            && reached.iter().all(|&(r, _)| r != s)
        {
            reached.push((s, i));
            if reached.len() == 2 {
                break;
            }
        }
    }
    let (b, c) = (reached[0], reached[1]);
    let mut cells = path(&parent, b.1);
    cells.reverse();
    for i in path(&parent, c.1) {
        if !cells.contains(&i) {
            cells.push(i);
        }
    }
    ForkWitness {
        sides: [first_side, b.0, c.0],
        cells: cells.into_iter().map(|i| g.cell_of(i)).collect(),
    }
}
