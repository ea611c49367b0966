//! The coordinator's proof-number DAG of one problem, with in-flight marking for many workers.
//!
//! Pure data structure: no I/O, no locks, no time. Nodes are (4, n, 7^tr) transposition keys
//! (canonical simplified positions, as workers report them). A leaf is expanded from a worker's
//! report (its children with their (pn, dn)); interior numbers follow the PNS recurrences
//! ([`pns::combine`]: OR = Maker to move: pn = min, dn = sum; AND: pn = sum, dn = min) and are
//! propagated to every parent.
//!
//! In-flight marking (DESIGN.md, "Jobs and the worker protocol"): a leased leaf is *busy*; an
//! expanded node is busy when every unsolved child is busy. Selection descends from the root by
//! the most-proving rule over the children that are neither solved nor busy, so that many
//! workers get distinct leaves; when the root is busy there is no job.

use rustc_hash::FxHashMap;
use solver_core::games::seven::{Key, Side};
use solver_core::pns::{self, INFINITY, NodeType, Number, Value};

/// Index of a node in its [`Dag`].
pub type NodeId = u32;

/// The root's id.
pub const ROOT: NodeId = 0;

/// Most nodes [`Dag::select_for`] walks looking for a searcher's own leaf: a bound for
/// searchers that share a bit of [`Node::owners`] (more than 64 searchers); with their own bit
/// the walk goes straight down to the leaf.
const OWN_LEAF_SCAN: usize = 100_000;

/// One DAG node.
#[derive(Debug, Clone)]
pub struct Node {
    /// The position (its transposition key).
    pub key: Key,
    /// Proof number (0 = Maker wins, [`INFINITY`] = Breaker wins).
    pub pn: Number,
    /// Disproof number (0 = Breaker wins, [`INFINITY`] = Maker wins).
    pub dn: Number,
    /// Children known (from a report); an unexpanded unsolved node is a leaf to lease.
    pub expanded: bool,
    /// Child ids, each once.
    pub children: Vec<NodeId>,
    /// Parent ids, each once: propagation goes to every parent.
    pub parents: Vec<NodeId>,
    /// A worker holds a lease on this leaf now.
    pub leased: bool,
    /// Leased leaf, or expanded with every unsolved child busy: selection skips it.
    busy: bool,
    /// Leases of this leaf that expired or failed: the job budget shrinks with them.
    pub tries: u32,
    /// In the propagation queue now.
    queued: bool,
    /// The searcher (a worker's search table, see [`Searcher`]) whose report created the node:
    /// its subtree is in that searcher's table. 0 for none (the root, nodes restored after a
    /// restart).
    pub owner: Searcher,
    /// The searchers with an open own leaf ([`Node::open_own`]) that the walk of
    /// [`Dag::select_for`] reaches from here (through unsolved, not busy nodes), as the bits
    /// [`owner_bit`]: the walk enters only the children that have its searcher's bit. Kept by
    /// back-propagation with the numbers.
    owners: u64,
}

/// The bit of searcher `s` in [`Node::owners`]: bit `s` mod 64; none for searcher 0 (nobody).
/// Searchers 64 apart share a bit, and the walk may then enter a subtree in vain.
fn owner_bit(s: Searcher) -> u64 {
    if s == 0 { 0 } else { 1 << (s % 64) }
}

/// A search table of a worker, named by its (worker, `LeaseRequest.slot`) pair, as the
/// coordinator numbers them (from 1; 0 = nobody). The reference worker's threads share one
/// table and send slot 0, so a worker is one searcher. Not persisted: it only steers selection.
pub type Searcher = u16;

impl Node {
    fn new(key: Key, pn: Number, dn: Number) -> Self {
        Node {
            key,
            pn,
            dn,
            expanded: false,
            children: Vec::new(),
            parents: Vec::new(),
            leased: false,
            busy: false,
            tries: 0,
            queued: false,
            owner: 0,
            owners: 0,
        }
    }

    /// The node's value once proven or disproven.
    pub fn value(&self) -> Option<Value> {
        match (self.pn, self.dn) {
            (0, _) => Some(Value::Proven),
            (_, 0) => Some(Value::Disproven),
            _ => None,
        }
    }

    /// A leaf its owner could be leased as its own ([`Dag::select_for`]): owned, unexpanded,
    /// unsolved and not leased (it may still be out of the walk's reach, below a solved node).
    fn open_own(&self) -> bool {
        self.owner != 0 && !self.expanded && !self.leased && self.value().is_none()
    }

    fn node_type(&self) -> NodeType {
        match self.key.to_move {
            Side::Maker => NodeType::Or,
            Side::Breaker => NodeType::And,
        }
    }
}

/// The (pn, dn) of a solved node.
pub fn solved_numbers(value: Value) -> (Number, Number) {
    match value {
        Value::Proven => (0, INFINITY),
        Value::Disproven => (INFINITY, 0),
    }
}

/// A problem's DAG. The root is node [`ROOT`].
#[derive(Debug, Clone)]
pub struct Dag {
    nodes: Vec<Node>,
    index: FxHashMap<Key, NodeId>,
    /// Nodes with a value, kept so progress needs no scan.
    solved: u64,
    /// Per searcher, its open own leaves ([`Node::open_own`], reachable or not), so that
    /// [`Dag::select_for`] skips the walk for one when the searcher has none, which
    /// [`Node::owners`] cannot tell where searchers share a bit: a searcher restarted under
    /// a new number 64 past an old one's would otherwise walk into the subtrees of the old
    /// one's leaves, whose worker is gone, for nothing. Searchers without any are not kept.
    open_own: FxHashMap<Searcher, u32>,
}

/// A node's stored state, as [`Dag::restore`] takes it back.
#[derive(Debug, Clone)]
pub struct StoredNode {
    /// The node's key.
    pub key: Key,
    /// Its numbers: the leaf estimate, or a solved value; stale for interior nodes.
    pub pn: Number,
    /// See `pn`.
    pub dn: Number,
    /// Its children's keys once expanded.
    pub children: Option<Vec<Key>>,
    /// Failed or expired leases.
    pub tries: u32,
}

impl Dag {
    /// A DAG holding only the root leaf with the given numbers.
    pub fn new(root: Key, pn: Number, dn: Number) -> Self {
        let mut dag = Dag {
            nodes: Vec::new(),
            index: FxHashMap::default(),
            solved: 0,
            open_own: FxHashMap::default(),
        };
        dag.add(root, pn, dn);
        dag
    }

    /// Rebuilds a DAG from stored nodes: `root` first, then any order. Interior numbers are
    /// recomputed from the leaves (only leaf estimates and solved values are authoritative);
    /// no node is leased.
    ///
    /// # Errors
    /// A message when the root is missing or a child key has no stored node.
    pub fn restore(root: Key, stored: Vec<StoredNode>) -> Result<Self, String> {
        // Restored nodes have no owner: nothing to count in `open_own`, no bits in
        // `Node::owners`.
        let mut dag = Dag {
            nodes: Vec::with_capacity(stored.len()),
            index: FxHashMap::default(),
            solved: 0,
            open_own: FxHashMap::default(),
        };
        let root_pos = stored
            .iter()
            .position(|s| s.key == root)
            .ok_or("the root node is not stored")?;
        let mut order: Vec<usize> = (0..stored.len()).collect();
        order.swap(0, root_pos);
        for &i in &order {
            let s = &stored[i];
            let id = dag.add(s.key, s.pn, s.dn);
            dag.nodes[id as usize].tries = s.tries;
        }
        for &i in &order {
            let s = &stored[i];
            let Some(children) = &s.children else {
                continue;
            };
            let id = dag.index[&s.key];
            for k in children {
                let c = *dag
                    .index
                    .get(k)
                    .ok_or_else(|| format!("child {k:?} of {:?} is not stored", s.key))?;
                dag.link(id, c);
            }
            dag.nodes[id as usize].expanded = true;
        }
        // Post-order from every node: children before parents.
        let mut done = vec![false; dag.nodes.len()];
        for start in 0..dag.nodes.len() as NodeId {
            let mut stack = vec![(start, false)];
            while let Some((id, children_done)) = stack.pop() {
                if done[id as usize] {
                    continue;
                }
                if children_done {
                    done[id as usize] = true;
                    let (pn, dn, ..) = dag.recompute(id);
                    dag.set_numbers(id, pn, dn);
                } else {
                    stack.push((id, true));
                    for &c in &dag.nodes[id as usize].children {
                        if !done[c as usize] {
                            stack.push((c, false));
                        }
                    }
                }
            }
        }
        Ok(dag)
    }

    fn add(&mut self, key: Key, pn: Number, dn: Number) -> NodeId {
        let id = NodeId::try_from(self.nodes.len()).expect("fewer than 2^32 DAG nodes");
        self.nodes.push(Node::new(key, pn, dn));
        self.index.insert(key, id);
        if pn == 0 || dn == 0 {
            self.solved += 1;
        }
        id
    }

    fn link(&mut self, parent: NodeId, child: NodeId) {
        if !self.nodes[parent as usize].children.contains(&child) {
            self.nodes[parent as usize].children.push(child);
            self.nodes[child as usize].parents.push(parent);
        }
    }

    fn set_numbers(&mut self, id: NodeId, pn: Number, dn: Number) {
        let n = &mut self.nodes[id as usize];
        let was = n.value().is_some();
        (n.pn, n.dn) = (pn, dn);
        if !was && n.value().is_some() {
            self.solved += 1;
        }
    }

    /// Counts `id` in `open_own` if it became open (`was` false) or uncounts it if it stopped
    /// being open.
    fn recount(&mut self, id: NodeId, was: bool) {
        let n = self.node(id);
        let (now, owner) = (n.open_own(), n.owner);
        if was == now {
            return;
        }
        let count = self.open_own.entry(owner).or_default();
        if now {
            *count += 1;
        } else {
            debug_assert!(*count > 0, "an open own leaf was counted");
            *count = count.saturating_sub(1);
            if *count == 0 {
                self.open_own.remove(&owner);
            }
        }
    }

    /// The node `id`.
    pub fn node(&self, id: NodeId) -> &Node {
        &self.nodes[id as usize]
    }

    /// The root node.
    pub fn root(&self) -> &Node {
        self.node(ROOT)
    }

    /// The node of `key`, if in the DAG.
    pub fn get(&self, key: &Key) -> Option<NodeId> {
        self.index.get(key).copied()
    }

    /// Number of nodes.
    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    /// Whether the DAG is empty (never: it has a root).
    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }

    /// Number of solved nodes.
    pub fn solved_count(&self) -> u64 {
        self.solved
    }

    /// Every node with its id.
    pub fn iter(&self) -> impl Iterator<Item = (NodeId, &Node)> {
        (0..).zip(self.nodes.iter())
    }

    /// The most-proving leaf that is neither solved nor busy, or `None` when the root is solved
    /// or busy (every open leaf is leased).
    pub fn select(&self) -> Option<NodeId> {
        self.select_with_thresholds().map(|(id, _)| id)
    }

    /// [`Dag::select`] with the leaf's thresholds (tpn, tdn), as depth-first proof-number
    /// search computes them along the path (Nagai 2002, with the 1 + ε trick of Pawlewicz and
    /// Lew 2007, ε = 1, measured in `Dag::child_thresholds`): the leaf stays on the
    /// most-proving path while its pn < tpn and its dn < tdn, give or take that margin. The
    /// root's are infinite ([`INFINITY`] = no threshold).
    pub fn select_with_thresholds(&self) -> Option<(NodeId, (Number, Number))> {
        let (mut id, mut t) = (ROOT, (INFINITY, INFINITY));
        loop {
            let n = self.node(id);
            if n.value().is_some() || n.busy {
                return None;
            }
            if !n.expanded {
                return Some((id, t));
            }
            let open = self.open_children(id);
            let best = *open.first()?;
            let second = open.get(1).map_or(INFINITY, |&c| self.ranking(id, c).0);
            t = self.child_thresholds(id, t, best, second);
            id = best;
        }
    }

    /// The children of expanded node `id` that are neither solved nor busy, most-proving first
    /// (OR: least pn, then least dn; AND: least dn, then least pn).
    fn open_children(&self, id: NodeId) -> Vec<NodeId> {
        let mut open: Vec<NodeId> = self
            .node(id)
            .children
            .iter()
            .copied()
            .filter(|&c| self.node(c).value().is_none() && !self.node(c).busy)
            .collect();
        open.sort_by_key(|&c| self.ranking(id, c));
        open
    }

    /// The numbers of child `c` of `id` in the order the most-proving choice at `id` compares
    /// them: (pn, dn) at an OR node, (dn, pn) at an AND node.
    fn ranking(&self, id: NodeId, c: NodeId) -> (Number, Number) {
        let c = self.node(c);
        match self.node(id).node_type() {
            NodeType::Or => (c.pn, c.dn),
            NodeType::And => (c.dn, c.pn),
        }
    }

    /// The thresholds of child `c` of expanded node `id`, whose thresholds are `t` = (tpn,
    /// tdn), when the best of its other open children has `other` as its first
    /// [`Dag::ranking`] number. At an OR node `c` may grow its pn until it passes
    /// `other` (times 1 + ε) or `id`'s tpn, and its dn until `id`'s dn would reach `id`'s tdn;
    /// at an AND node the same with pn and dn swapped.
    fn child_thresholds(
        &self,
        id: NodeId,
        t: (Number, Number),
        c: NodeId,
        other: Number,
    ) -> (Number, Number) {
        let n = self.node(id);
        let or = n.node_type() == NodeType::Or;
        let (t_min, t_sum) = if or { t } else { (t.1, t.0) };
        let node_sum = if or { n.dn } else { n.pn };
        // ε = 1. Measured with one worker slot (solver seven bench --workers 1 [--job-budget
        // B]), nodes searched by the workers with ε = 1/4 and ε = 1: (4, 13, 7^tr) with the
        // default budget 2,843,252 and 2,218,565; with B = 300,000 2,464,280 and 3,181,302;
        // (4, 12, 7^tr) with B = 50,000 606,754 and 452,742, with B = 20,000 1,786,930 and
        // 1,105,026. With two slots, whose search drifts past tight thresholds sooner, the
        // (4, 13, 7^tr) solve took 15.6 to 23.2 s in twelve runs with ε = 1/4 (28 to 72 jobs),
        // 10.4 to 13.2 s in ten runs of twelve with ε = 1 (3 to 6 jobs; README, "Distributed
        // solve against the engine").
        let child_min = t_min.min(other.saturating_mul(2).saturating_add(1));
        // At least 1: the child is already past it, and stops after its minimum share (0 would
        // say "no threshold" on the wire).
        let child_sum = if t_sum == INFINITY {
            INFINITY
        } else {
            t_sum
                .saturating_sub(node_sum.saturating_sub(self.ranking(id, c).1))
                .max(1)
        };
        if or {
            (child_min, child_sum)
        } else {
            (child_sum, child_min)
        }
    }

    /// The leaf to lease to `searcher`: the most-proving leaf ([`Dag::select`]) unless another
    /// searcher's report created it, that searcher is `present`, and `searcher` has leaves of
    /// its own; then the first of its own leaves in most-proving order (a depth-first walk
    /// that tries better children first, entering only the subtrees that hold one of its
    /// leaves ([`Node::owners`]), over at most `OWN_LEAF_SCAN` nodes). Another
    /// searcher's leaf would be searched again from scratch, its subtree being in that
    /// searcher's table; but the leaves of a searcher that is gone (a worker killed or
    /// stopped) are anyone's, or the search would go round them for good. With the leaf come its
    /// thresholds ([`Dag::select_with_thresholds`]; for a leaf off the most-proving path, each
    /// step's "other" child is the best one, so such a job stops once it is past the best
    /// leaf by the 1 + ε margin, often soon after its minimum share). Searcher 0 (nobody: the
    /// coordinator ran out of searcher numbers) has no leaves of its own (`open_own` never
    /// counts owner 0, and it has no bit in [`Node::owners`]) and gets the best.
    pub fn select_for(
        &self,
        searcher: Searcher,
        present: impl Fn(Searcher) -> bool,
    ) -> Option<(NodeId, (Number, Number))> {
        let best = self.select_with_thresholds()?;
        let owner = self.node(best.0).owner;
        if owner == 0
            || owner == searcher
            || !self.open_own.contains_key(&searcher)
            || self.root().owners & owner_bit(searcher) == 0
            || !present(owner)
        {
            return Some(best);
        }
        self.own_leaf(searcher).or(Some(best))
    }

    /// The first leaf created by `searcher` in most-proving order, with its thresholds.
    fn own_leaf(&self, searcher: Searcher) -> Option<(NodeId, (Number, Number))> {
        let bit = owner_bit(searcher);
        let mut seen = rustc_hash::FxHashSet::default();
        let mut stack = vec![(ROOT, (INFINITY, INFINITY))];
        while let Some((id, t)) = stack.pop() {
            if seen.len() >= OWN_LEAF_SCAN {
                return None;
            }
            if !seen.insert(id) {
                continue;
            }
            let n = self.node(id);
            if n.value().is_some() || n.busy {
                continue;
            }
            if !n.expanded {
                if n.owner == searcher {
                    return Some((id, t));
                }
                continue;
            }
            let open = self.open_children(id);
            let rank = |i: usize| open.get(i).map_or(INFINITY, |&c| self.ranking(id, c).0);
            // Worst first on the stack, so the best is walked first.
            for (i, &c) in open.iter().enumerate().rev() {
                if self.node(c).owners & bit == 0 {
                    continue;
                }
                let other = if i == 0 { rank(1) } else { rank(0) };
                stack.push((c, self.child_thresholds(id, t, c, other)));
            }
        }
        None
    }

    /// Marks leaf `id` leased or released, and updates the busy marks above it.
    pub fn set_leased(&mut self, id: NodeId, leased: bool) {
        let was = self.node(id).open_own();
        self.nodes[id as usize].leased = leased;
        self.recount(id, was);
        self.propagate(id);
    }

    /// Counts a failed or expired lease of `id`.
    pub fn add_try(&mut self, id: NodeId) -> u32 {
        let n = &mut self.nodes[id as usize];
        n.tries = n.tries.saturating_add(1);
        n.tries
    }

    /// Expands leaf `id` with `children` (key, pn, dn), creating the nodes not yet in the DAG
    /// (owned by `owner`, the searcher that reported them) and linking existing ones (their
    /// numbers and owners are kept). Returns the ids of the new nodes. Does nothing (and
    /// returns nothing) when `id` is already expanded or solved.
    pub fn expand(
        &mut self,
        id: NodeId,
        children: &[(Key, Number, Number)],
        owner: Searcher,
    ) -> Vec<NodeId> {
        let n = self.node(id);
        if n.expanded || n.value().is_some() || children.is_empty() {
            return Vec::new();
        }
        let was = n.open_own();
        let mut created = Vec::new();
        for &(key, pn, dn) in children {
            let c = match self.get(&key) {
                Some(c) => c,
                None => {
                    let c = self.add(key, pn, dn);
                    self.nodes[c as usize].owner = owner;
                    self.recount(c, false);
                    self.nodes[c as usize].owners = self.recompute(c).3;
                    created.push(c);
                    c
                }
            };
            if c != id {
                self.link(id, c);
            }
        }
        self.nodes[id as usize].expanded = true;
        self.recount(id, was);
        self.propagate(id);
        created
    }

    /// Records that `id` has `value` (a fact from a worker or the solved-value table) and
    /// propagates it. Returns false when the node was solved already.
    pub fn solve(&mut self, id: NodeId, value: Value) -> bool {
        if self.node(id).value().is_some() {
            return false;
        }
        let was = self.node(id).open_own();
        let (pn, dn) = solved_numbers(value);
        self.set_numbers(id, pn, dn);
        self.recount(id, was);
        self.propagate(id);
        true
    }

    /// The (pn, dn, busy, owners) of `id` from its children (its own numbers when it is a
    /// leaf or solved: a value is a fact and never recomputed; see [`Node::owners`]).
    fn recompute(&self, id: NodeId) -> (Number, Number, bool, u64) {
        let n = self.node(id);
        if n.value().is_some() {
            return (n.pn, n.dn, false, 0);
        }
        if !n.expanded {
            let owners = if n.open_own() { owner_bit(n.owner) } else { 0 };
            return (n.pn, n.dn, n.leased, owners);
        }
        let (pn, dn) = pns::combine(
            n.node_type(),
            n.children.iter().map(|&c| {
                let c = self.node(c);
                (c.pn, c.dn)
            }),
        );
        let busy = pn != 0
            && dn != 0
            && n.children.iter().all(|&c| {
                let c = self.node(c);
                c.value().is_some() || c.busy
            });
        let owners = if pn == 0 || dn == 0 {
            0
        } else {
            n.children
                .iter()
                .map(|&c| self.node(c))
                .filter(|c| c.value().is_none() && !c.busy)
                .fold(0, |bits, c| bits | c.owners)
        };
        (pn, dn, busy, owners)
    }

    /// Recomputes `from` and, breadth-first, every ancestor whose (pn, dn, busy, owners)
    /// changes.
    fn propagate(&mut self, from: NodeId) {
        let mut queue = std::collections::VecDeque::from([from]);
        let mut first = true;
        while let Some(id) = queue.pop_front() {
            self.nodes[id as usize].queued = false;
            let (pn, dn, busy, owners) = self.recompute(id);
            let n = self.node(id);
            if !first && (pn, dn, busy, owners) == (n.pn, n.dn, n.busy, n.owners) {
                continue;
            }
            first = false;
            self.set_numbers(id, pn, dn);
            self.nodes[id as usize].busy = busy;
            self.nodes[id as usize].owners = owners;
            for i in 0..self.nodes[id as usize].parents.len() {
                let p = self.nodes[id as usize].parents[i];
                if !self.nodes[p as usize].queued {
                    self.nodes[p as usize].queued = true;
                    queue.push_back(p);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use solver_core::games::seven::{Cols, Position};

    /// Every node's `owners` is the bits of the open own leaves a walk from it reaches
    /// through unsolved, not busy nodes, found by such a walk from each node; every node's
    /// (pn, dn, busy, owners) is what its children give it (so, bottom up, the whole DAG's);
    /// and `open_own` counts what a scan of every node counts.
    fn assert_owners_kept(dag: &Dag) {
        let mut counts: FxHashMap<Searcher, u32> = FxHashMap::default();
        for n in dag.nodes.iter().filter(|n| n.open_own()) {
            *counts.entry(n.owner).or_default() += 1;
        }
        assert_eq!(dag.open_own, counts);
        for (id, n) in dag.iter() {
            assert_eq!(
                dag.recompute(id),
                (n.pn, n.dn, n.busy, n.owners),
                "node {id}"
            );
            let mut bits = 0;
            let mut seen = rustc_hash::FxHashSet::default();
            let mut stack = vec![id];
            while let Some(x) = stack.pop() {
                let m = dag.node(x);
                if !seen.insert(x) || m.value().is_some() || m.busy {
                    continue;
                }
                if m.open_own() {
                    bits |= owner_bit(m.owner);
                }
                stack.extend(&m.children);
            }
            assert_eq!(n.owners, bits, "node {id}");
        }
    }

    /// Whether [`Dag::select_for`] would walk for an own leaf of `searcher` (when the best
    /// leaf is another present searcher's): it has one, and one reachable from the root.
    fn has_own_leaf(dag: &Dag, searcher: Searcher) -> bool {
        dag.open_own.contains_key(&searcher) && dag.root().owners & owner_bit(searcher) != 0
    }

    /// Distinct keys: Maker to move for even `i`, Breaker for odd; `i` Breaker stones.
    fn key(i: u32, to_move: Side) -> Key {
        let cols = Cols::try_from(32u32).expect("valid width");
        let breaker = if i == 0 { 0 } else { u128::MAX >> (128 - i) };
        Position::from_masks(cols, 0, breaker, to_move)
            .expect("valid masks")
            .key()
    }

    #[test]
    fn expansion_selection_and_in_flight_marking() {
        let root = key(0, Side::Maker);
        let mut dag = Dag::new(root, 1, 1);
        assert_eq!(dag.select(), Some(ROOT));
        dag.set_leased(ROOT, true);
        assert_eq!(dag.select(), None, "the only leaf is leased");
        dag.set_leased(ROOT, false);
        let (a, b) = (key(1, Side::Breaker), key(2, Side::Breaker));
        let created = dag.expand(ROOT, &[(a, 3, 1), (b, 2, 5)], 0);
        assert_eq!(created.len(), 2);
        assert_eq!((dag.root().pn, dag.root().dn), (2, 6));
        // OR root: most-proving child is the one with the smaller pn.
        let bid = dag.get(&b).expect("b");
        let aid = dag.get(&a).expect("a");
        assert_eq!(dag.select(), Some(bid));
        dag.set_leased(bid, true);
        assert_eq!(dag.select(), Some(aid), "in-flight b is skipped");
        dag.set_leased(aid, true);
        assert_eq!(dag.select(), None, "root busy");
        dag.set_leased(aid, false);
        assert!(dag.solve(aid, Value::Proven));
        assert_eq!(dag.root().value(), Some(Value::Proven));
        assert_eq!(dag.solved_count(), 2);
        assert_eq!(dag.select(), None);
    }

    #[test]
    fn thresholds_follow_depth_first_proof_number_search() {
        let mut dag = Dag::new(key(0, Side::Maker), 1, 1);
        assert_eq!(
            dag.select_with_thresholds(),
            Some((ROOT, (INFINITY, INFINITY)))
        );
        // OR root: children (pn, dn) a = (3, 1), b = (2, 5), c = (8, 2). b is most-proving; it
        // may grow its pn to just past a's 3 (times 1 + 1: 3 + 3 + 1 = 7); no dn threshold
        // below an infinite one.
        let (a, b, c) = (
            key(1, Side::Breaker),
            key(2, Side::Breaker),
            key(3, Side::Breaker),
        );
        dag.expand(ROOT, &[(a, 3, 1), (b, 2, 5), (c, 8, 2)], 0);
        let bid = dag.get(&b).expect("b");
        assert_eq!(dag.select_with_thresholds(), Some((bid, (7, INFINITY))));
        // AND node b: children d = (1, 2), e = (1, 4). d is most-proving (least dn); its dn may
        // grow to just past e's 4 (4 + 4 + 1 = 9) and its pn until b's pn (2) reaches b's
        // tpn 7: 7 - (2 - 1) = 6.
        let (d, e) = (key(4, Side::Maker), key(5, Side::Maker));
        dag.expand(bid, &[(d, 1, 2), (e, 1, 4)], 0);
        let did = dag.get(&d).expect("d");
        assert_eq!(dag.select_with_thresholds(), Some((did, (6, 9))));
    }

    #[test]
    fn a_threshold_already_passed_is_1_not_0() {
        // Searcher 2 expanded the root: a = (1, 3), b = (20, 1). Searcher 1 expanded b (AND):
        // d = (10, 1), e = (10, 2). Searcher 1's own leaf is d, off the most-proving path (a):
        // b may grow its pn to just past a's 1 (3), so d's pn threshold is 3 - (20 - 10) < 0,
        // which is 1, stop after the minimum share; 0 would say "no threshold" on the wire.
        let mut dag = Dag::new(key(0, Side::Maker), 1, 1);
        let (a, b) = (key(1, Side::Breaker), key(2, Side::Breaker));
        dag.expand(ROOT, &[(a, 1, 3), (b, 20, 1)], 2);
        let bid = dag.get(&b).expect("b");
        let (d, e) = (key(3, Side::Maker), key(4, Side::Maker));
        dag.expand(bid, &[(d, 10, 1), (e, 10, 2)], 1);
        let did = dag.get(&d).expect("d");
        assert_eq!(dag.select_for(1, |_| true), Some((did, (1, 5))));
    }

    /// The leaf [`Dag::select_for`] leases `searcher` (without its thresholds), every
    /// searcher present.
    fn leaf_for(dag: &Dag, searcher: Searcher) -> Option<NodeId> {
        dag.select_for(searcher, |_| true).map(|(id, _)| id)
    }

    #[test]
    fn a_searcher_is_leased_its_own_leaves_before_anothers() {
        let mut dag = Dag::new(key(0, Side::Maker), 1, 1);
        let (a, b, c) = (
            key(1, Side::Breaker),
            key(2, Side::Breaker),
            key(3, Side::Maker),
        );
        // Searcher 1 expanded the root: both children are in its table.
        dag.expand(ROOT, &[(a, 1, 3), (b, 2, 3)], 1);
        let (aid, bid) = (dag.get(&a).expect("a"), dag.get(&b).expect("b"));
        assert_eq!(leaf_for(&dag, 1), Some(aid));
        assert_eq!(leaf_for(&dag, 2), Some(aid), "no leaf of its own: the best");
        // Searcher 2 searched a: a's child is its own.
        dag.expand(aid, &[(c, 5, 1)], 2);
        let cid = dag.get(&c).expect("c");
        assert_eq!(dag.node(cid).owner, 2);
        assert_eq!(dag.select(), Some(bid), "a's pn grew past b's");
        assert_eq!(leaf_for(&dag, 1), Some(bid));
        assert_eq!(
            leaf_for(&dag, 2),
            Some(cid),
            "its own leaf, not searcher 1's b"
        );
        assert_eq!(leaf_for(&dag, 3), Some(bid));
        // Once searcher 1 is gone, its leaf b is anyone's.
        assert_eq!(
            dag.select_for(2, |s| s != 1).map(|(id, _)| id),
            Some(bid),
            "searcher 1 is gone: its leaf is the best, and nobody else has it"
        );
        assert_owners_kept(&dag);
        assert!(has_own_leaf(&dag, 2));
        dag.set_leased(cid, true);
        assert_owners_kept(&dag);
        assert!(
            !has_own_leaf(&dag, 2),
            "searcher 2 has no open leaf: no walk"
        );
        assert_eq!(leaf_for(&dag, 2), Some(bid), "its own leaf is busy");
        dag.set_leased(cid, false);
        assert!(has_own_leaf(&dag, 2));
        // Solving and expanding end a leaf's openness; a new node of another searcher counts
        // for that one.
        dag.solve(bid, Value::Disproven);
        assert_owners_kept(&dag);
        assert!(!has_own_leaf(&dag, 1));
        let d = key(4, Side::Breaker);
        dag.expand(cid, &[(d, 1, 1)], 3);
        assert_owners_kept(&dag);
        assert!(!has_own_leaf(&dag, 2) && has_own_leaf(&dag, 3));
        assert_eq!(
            leaf_for(&dag, 2),
            dag.select(),
            "nothing of its own: the best"
        );
    }

    /// [`Dag::own_leaf`] as it was before [`Node::owners`]: the same walk into every open
    /// child, over the whole DAG.
    fn own_leaf_by_full_walk(dag: &Dag, searcher: Searcher) -> Option<(NodeId, (Number, Number))> {
        let mut seen = rustc_hash::FxHashSet::default();
        let mut stack = vec![(ROOT, (INFINITY, INFINITY))];
        while let Some((id, t)) = stack.pop() {
            let n = dag.node(id);
            if !seen.insert(id) || n.value().is_some() || n.busy {
                continue;
            }
            if !n.expanded {
                if n.owner == searcher && searcher != 0 {
                    return Some((id, t));
                }
                continue;
            }
            let open = dag.open_children(id);
            let rank = |i: usize| open.get(i).map_or(INFINITY, |&c| dag.ranking(id, c).0);
            for (i, &c) in open.iter().enumerate().rev() {
                let other = if i == 0 { rank(1) } else { rank(0) };
                stack.push((c, dag.child_thresholds(id, t, c, other)));
            }
        }
        None
    }

    /// One change to a random DAG ([`random_dags_keep_owners_and_lease_as_a_full_walk`]).
    #[derive(Debug, Clone)]
    enum Change {
        /// Expand the `leaf`-th unsolved, unleased leaf with children of these key offsets and
        /// numbers (some of them solved, as a table value makes a new child), reported by
        /// `owner`.
        Expand {
            leaf: usize,
            children: Vec<(u32, (Number, Number))>,
            owner: Searcher,
        },
        /// Release the `leaf`-th leaf if leased (also once solved), else lease it if unsolved.
        Lease { leaf: usize },
        /// Solve the `node`-th unsolved node (a leaf, or an inner node as a reported fact
        /// solves one).
        Solve { node: usize, proven: bool },
    }

    fn change() -> impl proptest::strategy::Strategy<Value = Change> {
        use proptest::prelude::*;
        let numbers = prop_oneof![
            4 => (1..20u64, 1..20u64),
            1 => Just((0, INFINITY)),
            1 => Just((INFINITY, 0)),
        ];
        prop_oneof![
            3 => (
                any::<usize>(),
                proptest::collection::vec((1u32..6, numbers), 1..4),
                // 1 and 65, 2 and 66 share a bit of `Node::owners`.
                proptest::sample::select(vec![0u16, 1, 2, 65, 66]),
            )
                .prop_map(|(leaf, children, owner)| Change::Expand { leaf, children, owner }),
            2 => any::<usize>().prop_map(|leaf| Change::Lease { leaf }),
            1 => (any::<usize>(), any::<bool>()).prop_map(|(node, proven)| Change::Solve { node, proven }),
        ]
    }

    proptest::proptest! {
        /// After every change to a DAG with transpositions (a child's key some stones on from
        /// its parent's, so that positions meet again), several searchers (two pairs of them
        /// sharing a bit) and searcher 0, every node's numbers, busy mark and `owners` are
        /// what its children give it, `owners` is what a walk finds, and each searcher is
        /// leased the leaf the walk into every open child would lease it (the same thresholds
        /// too), whoever is present; and the DAG restored from its stored nodes is consistent.
        #[test]
        fn random_dags_keep_owners_and_lease_as_a_full_walk(
            changes in proptest::collection::vec(change(), 1..60),
        ) {
            let side = |i: u32| if i.is_multiple_of(2) { Side::Maker } else { Side::Breaker };
            let mut dag = Dag::new(key(0, side(0)), 1, 1);
            let mut stones: FxHashMap<NodeId, u32> = FxHashMap::default();
            stones.insert(ROOT, 0);
            for change in changes {
                let pick = |ids: Vec<NodeId>, i: usize| (!ids.is_empty()).then(|| ids[i % ids.len()]);
                let unexpanded: Vec<NodeId> =
                    dag.iter().filter(|(_, n)| !n.expanded).map(|(id, _)| id).collect();
                match change {
                    Change::Expand { leaf, children, owner } => {
                        let open = unexpanded
                            .iter()
                            .copied()
                            .filter(|&id| dag.node(id).value().is_none() && !dag.node(id).leased)
                            .collect();
                        let Some(id) = pick(open, leaf) else { continue };
                        let at = stones[&id];
                        let children: Vec<(u32, Number, Number)> = children
                            .iter()
                            .map(|&(more, (pn, dn))| (at + more, pn, dn))
                            .collect();
                        let keyed: Vec<(Key, Number, Number)> = children
                            .iter()
                            .map(|&(i, pn, dn)| (key(i, side(i)), pn, dn))
                            .collect();
                        dag.expand(id, &keyed, owner);
                        for (&(i, ..), &(k, ..)) in children.iter().zip(&keyed) {
                            stones.insert(dag.get(&k).expect("linked"), i);
                        }
                    }
                    Change::Lease { leaf } => {
                        let Some(id) = pick(unexpanded, leaf) else { continue };
                        let n = dag.node(id);
                        if n.leased {
                            dag.set_leased(id, false);
                        } else if n.value().is_none() {
                            dag.set_leased(id, true);
                        }
                    }
                    Change::Solve { node, proven } => {
                        let unsolved = dag
                            .iter()
                            .filter(|(_, n)| n.value().is_none())
                            .map(|(id, _)| id)
                            .collect();
                        let Some(id) = pick(unsolved, node) else { continue };
                        dag.solve(id, if proven { Value::Proven } else { Value::Disproven });
                    }
                }
                assert_owners_kept(&dag);
                for searcher in [0, 1, 2, 65, 66] {
                    for gone in [None, Some(1), Some(2), Some(65)] {
                        let present = |s: Searcher| Some(s) != gone;
                        let full = match dag.select_with_thresholds() {
                            None => None,
                            Some(best) => {
                                let owner = dag.node(best.0).owner;
                                if owner == 0 || owner == searcher || !present(owner) {
                                    Some(best)
                                } else {
                                    own_leaf_by_full_walk(&dag, searcher).or(Some(best))
                                }
                            }
                        };
                        proptest::prop_assert_eq!(dag.select_for(searcher, present), full);
                    }
                }
            }
            let stored: Vec<StoredNode> = dag
                .iter()
                .map(|(_, n)| StoredNode {
                    key: n.key,
                    pn: n.pn,
                    dn: n.dn,
                    children: n
                        .expanded
                        .then(|| n.children.iter().map(|&c| dag.node(c).key).collect()),
                    tries: n.tries,
                })
                .collect();
            let restored = Dag::restore(dag.root().key, stored).expect("restore");
            assert_owners_kept(&restored);
            proptest::prop_assert_eq!(restored.root().value(), dag.root().value());
        }
    }

    /// Nodes of nobody (searcher 0, or restored) are in no searcher's table: nobody is leased
    /// the best leaf, not the first node of nobody's.
    #[test]
    fn nobody_is_leased_the_best_leaf() {
        let mut dag = Dag::new(key(0, Side::Maker), 1, 1);
        let (x, y, z) = (
            key(1, Side::Breaker),
            key(2, Side::Breaker),
            key(3, Side::Maker),
        );
        dag.expand(ROOT, &[(x, 1, 3), (y, 2, 3)], 0);
        let xid = dag.get(&x).expect("x");
        dag.expand(xid, &[(z, 1, 1)], 1);
        let zid = dag.get(&z).expect("z");
        assert_eq!(dag.select(), Some(zid));
        assert_eq!(leaf_for(&dag, 0), Some(zid), "not y, nobody's open leaf");
        assert_eq!(leaf_for(&dag, 2), Some(zid));
        assert_owners_kept(&dag);
    }

    #[test]
    fn a_shared_child_updates_every_parent_and_restore_recomputes() {
        let root = key(0, Side::Breaker);
        let mut dag = Dag::new(root, 1, 1);
        let (a, b, c) = (
            key(1, Side::Maker),
            key(2, Side::Maker),
            key(3, Side::Breaker),
        );
        dag.expand(ROOT, &[(a, 1, 1), (b, 1, 1)], 0);
        let (aid, bid) = (dag.get(&a).expect("a"), dag.get(&b).expect("b"));
        dag.expand(aid, &[(c, 4, 4)], 0);
        dag.expand(bid, &[(c, 9, 9)], 0);
        let cid = dag.get(&c).expect("c");
        assert_eq!(dag.node(cid).parents.len(), 2);
        assert_eq!((dag.root().pn, dag.root().dn), (8, 4));
        dag.solve(cid, Value::Disproven);
        assert_eq!(dag.root().value(), Some(Value::Disproven));

        // Only leaf numbers and solved values survive a restore; the rest is recomputed.
        let stored: Vec<StoredNode> = dag
            .iter()
            .map(|(_, n)| StoredNode {
                key: n.key,
                pn: if n.expanded { 77 } else { n.pn },
                dn: if n.expanded { 77 } else { n.dn },
                children: n
                    .expanded
                    .then(|| n.children.iter().map(|&c| dag.node(c).key).collect()),
                tries: n.tries,
            })
            .collect();
        let back = Dag::restore(root, stored).expect("restores");
        assert_eq!(back.len(), 4);
        assert_eq!(back.root().value(), Some(Value::Disproven));
        assert_eq!(back.solved_count(), dag.solved_count());
    }
}
