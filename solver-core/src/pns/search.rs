//! The best-first proof-number search loop over a DAG with a transposition table.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use rustc_hash::FxHashMap;

use super::{Game, INFINITY, NodeType, Number, Value};

/// Budgets of one [`Search::run`]. The default has none: run until solved.
#[derive(Debug, Clone, Default)]
pub struct Limits {
    /// Stop once this many DAG nodes exist (counting the root).
    pub max_nodes: Option<u64>,
    /// Stop at this instant (checked every few hundred expansions).
    pub deadline: Option<Instant>,
    /// Stop when this flag becomes true.
    pub cancel: Option<Arc<AtomicBool>>,
}

/// What a run ended with. Budgets running out are outcomes, not errors.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// The root is solved.
    Solved(Value),
    /// A budget ran out or the search was cancelled; the root's current (pn, dn).
    Unknown {
        /// Root proof number.
        pn: Number,
        /// Root disproof number.
        dn: Number,
    },
}

/// Counters of a search.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Stats {
    /// DAG nodes created (each distinct simplified position once).
    pub nodes_created: u64,
    /// Nodes expanded (children generated).
    pub nodes_expanded: u64,
    /// Children found already in the transposition table.
    pub tt_hits: u64,
    /// Wall time spent in [`Search::run`], summed over calls.
    pub elapsed: Duration,
}

/// A root move and what the search knows of the position it leads to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RootChild<M> {
    /// The move.
    pub mv: M,
    /// The child's value, if solved.
    pub value: Option<Value>,
    /// The child's proof number.
    pub pn: Number,
    /// The child's disproof number.
    pub dn: Number,
}

/// A child of a searched position, as a worker reports it (see [`Search::child_reports`]).
#[derive(Debug, Clone)]
pub struct ChildReport<G: Game> {
    /// The move leading to the child.
    pub mv: G::Move,
    /// The child's transposition key.
    pub key: G::Key,
    /// The child's simplified position.
    pub position: G,
    /// Its proof number.
    pub pn: Number,
    /// Its disproof number.
    pub dn: Number,
    /// Its value, if solved.
    pub value: Option<Value>,
}

struct Node {
    pn: Number,
    dn: Number,
    or: bool,
    expanded: bool,
    /// In the propagation queue now.
    queued: bool,
    children: Vec<u32>,
    parents: Vec<u32>,
}

/// A proof-number search of one root position. Call [`Search::run`] (repeatedly, with budgets,
/// if wanted) and read the outcome, the root's children and the statistics.
pub struct Search<G: Game> {
    nodes: Vec<Node>,
    /// The position of every unexpanded, unsolved node (taken at expansion).
    states: Vec<Option<G>>,
    table: FxHashMap<G::Key, u32>,
    root_moves: Vec<(G::Move, u32)>,
    stats: Stats,
    /// The propagation queue, kept to reuse its allocation.
    queue: std::collections::VecDeque<u32>,
    /// Values known from outside this search (a worker's table of solved positions), asked for
    /// every new node that simplification does not decide.
    known: Option<Known<G::Key>>,
}

/// A lookup of solved values known from outside a search, by transposition key.
pub type Known<K> = Box<dyn Fn(&K) -> Option<Value>>;

const ROOT: u32 = 0;

impl<G: Game> Search<G> {
    /// A search whose DAG holds only the (simplified) root.
    pub fn new(root: G) -> Self {
        Self::build(root, None)
    }

    /// Like [`Search::new`], but every new node that simplification leaves undecided is first
    /// looked up in `known`; a value found there solves the node without search.
    pub fn with_known(root: G, known: Known<G::Key>) -> Self {
        Self::build(root, Some(known))
    }

    fn build(root: G, known: Option<Known<G::Key>>) -> Self {
        let mut s = Search {
            nodes: Vec::new(),
            states: Vec::new(),
            table: FxHashMap::default(),
            root_moves: Vec::new(),
            stats: Stats::default(),
            queue: std::collections::VecDeque::new(),
            known,
        };
        s.node_for(root);
        s
    }

    /// Searches until the root is solved or a limit is reached.
    pub fn run(&mut self, limits: &Limits) -> Outcome {
        let start = Instant::now();
        let mut iterations: u64 = 0;
        while !self.root_solved() {
            if limits
                .max_nodes
                .is_some_and(|max| self.stats.nodes_created >= max)
            {
                break;
            }
            iterations += 1;
            if iterations % 256 == 0 && Self::interrupted(limits) {
                break;
            }
            // 1. Select the most-proving node.
            let leaf = self.most_proving();
            // 2. Expand it.
            self.expand(leaf);
            // 3. Back up the new values to every ancestor whose numbers change.
            self.propagate(leaf);
        }
        self.stats.elapsed += start.elapsed();
        self.outcome()
    }

    fn interrupted(limits: &Limits) -> bool {
        limits.deadline.is_some_and(|d| Instant::now() >= d)
            || limits
                .cancel
                .as_ref()
                .is_some_and(|c| c.load(Ordering::Relaxed))
    }

    /// The root's state now.
    pub fn outcome(&self) -> Outcome {
        let root = &self.nodes[ROOT as usize];
        match (root.pn, root.dn) {
            (0, _) => Outcome::Solved(Value::Proven),
            (_, 0) => Outcome::Solved(Value::Disproven),
            (pn, dn) => Outcome::Unknown { pn, dn },
        }
    }

    /// The root's moves (all of them, once expanded) and their children's state.
    pub fn root_children(&self) -> Vec<RootChild<G::Move>> {
        self.root_moves
            .iter()
            .map(|&(mv, id)| {
                let n = &self.nodes[id as usize];
                RootChild {
                    mv,
                    value: value_of(n),
                    pn: n.pn,
                    dn: n.dn,
                }
            })
            .collect()
    }

    /// The bounded-mode report of a worker's job: for each child of `root` (the position this
    /// search started from), its simplified position, key, (pn, dn) and value if solved. Children
    /// the search never generated are simplified now and get their initial numbers.
    pub fn child_reports(&self, root: &G) -> Vec<ChildReport<G>> {
        let mut root = root.clone();
        if root.simplify().is_some() {
            return Vec::new();
        }
        root.children()
            .into_iter()
            .map(|(mv, mut child)| {
                let solved = child.simplify();
                let key = child.key();
                let (pn, dn) = match (self.table.get(&key), solved) {
                    (Some(&id), _) => (self.nodes[id as usize].pn, self.nodes[id as usize].dn),
                    (None, Some(Value::Proven)) => (0, INFINITY),
                    (None, Some(Value::Disproven)) => (INFINITY, 0),
                    (None, None) => child.estimate(),
                };
                let value = match (pn, dn) {
                    (0, _) => Some(Value::Proven),
                    (_, 0) => Some(Value::Disproven),
                    _ => None,
                };
                ChildReport {
                    mv,
                    key,
                    position: child,
                    pn,
                    dn,
                    value,
                }
            })
            .collect()
    }

    /// Every solved position in the DAG, by key: the facts a worker reports back.
    pub fn solved(&self) -> impl Iterator<Item = (G::Key, Value)> + '_ {
        self.table
            .iter()
            .filter_map(|(k, &id)| value_of(&self.nodes[id as usize]).map(|v| (*k, v)))
    }

    /// Counters so far.
    pub fn stats(&self) -> Stats {
        self.stats
    }

    /// Number of entries in the transposition table (= DAG nodes).
    pub fn table_len(&self) -> usize {
        self.table.len()
    }

    /// Approximate heap bytes held by the DAG and the table.
    pub fn approx_bytes(&self) -> usize {
        let edges: usize = self
            .nodes
            .iter()
            .map(|n| n.children.capacity() + n.parents.capacity())
            .sum();
        self.nodes.capacity() * std::mem::size_of::<Node>()
            + self.states.capacity() * std::mem::size_of::<Option<G>>()
            + edges * std::mem::size_of::<u32>()
            + self.table.capacity() * (std::mem::size_of::<(G::Key, u32)>() + 1)
    }

    fn root_solved(&self) -> bool {
        let r = &self.nodes[ROOT as usize];
        r.pn == 0 || r.dn == 0
    }

    /// Simplifies `g`, then finds or creates its node.
    fn node_for(&mut self, mut g: G) -> u32 {
        let value = g.simplify();
        let key = g.key();
        if let Some(&id) = self.table.get(&key) {
            self.stats.tt_hits += 1;
            return id;
        }
        let value = value.or_else(|| self.known.as_ref().and_then(|k| k(&key)));
        let (pn, dn) = match value {
            Some(Value::Proven) => (0, INFINITY),
            Some(Value::Disproven) => (INFINITY, 0),
            None => {
                let (pn, dn) = g.estimate();
                (pn.clamp(1, INFINITY - 1), dn.clamp(1, INFINITY - 1))
            }
        };
        let id = u32::try_from(self.nodes.len()).expect("fewer than 2^32 nodes");
        self.nodes.push(Node {
            pn,
            dn,
            or: g.node_type() == NodeType::Or,
            expanded: false,
            queued: false,
            children: Vec::new(),
            parents: Vec::new(),
        });
        self.states.push(value.is_none().then_some(g));
        self.table.insert(key, id);
        self.stats.nodes_created += 1;
        id
    }

    fn most_proving(&self) -> u32 {
        let mut id = ROOT;
        loop {
            let n = &self.nodes[id as usize];
            if !n.expanded {
                return id;
            }
            let pick = |&c: &u32| {
                let c = &self.nodes[c as usize];
                if n.or { (c.pn, c.dn) } else { (c.dn, c.pn) }
            };
            id = *n
                .children
                .iter()
                .min_by_key(|c| pick(c))
                .expect("an expanded unsolved node has children");
        }
    }

    fn expand(&mut self, id: u32) {
        let g = self.states[id as usize]
            .take()
            .expect("an unexpanded unsolved node keeps its position");
        let mut children: Vec<u32> = Vec::new();
        for (mv, child) in g.children() {
            let cid = self.node_for(child);
            if id == ROOT {
                self.root_moves.push((mv, cid));
            }
            if !children.contains(&cid) {
                children.push(cid);
                self.nodes[cid as usize].parents.push(id);
            }
        }
        self.stats.nodes_expanded += 1;
        let node = &mut self.nodes[id as usize];
        node.expanded = true;
        if children.is_empty() {
            // No move: the side to move has nothing to play and loses the search's sense.
            (node.pn, node.dn) = if node.or {
                (INFINITY, 0)
            } else {
                (0, INFINITY)
            };
        }
        node.children = children;
    }

    fn recompute(&self, id: u32) -> (Number, Number) {
        let n = &self.nodes[id as usize];
        if n.children.is_empty() {
            return (n.pn, n.dn);
        }
        let node_type = if n.or { NodeType::Or } else { NodeType::And };
        super::combine(
            node_type,
            n.children.iter().map(|&c| {
                let c = &self.nodes[c as usize];
                (c.pn, c.dn)
            }),
        )
    }

    /// Recomputes `leaf` and, breadth-first, every ancestor whose numbers change. A node is in
    /// the queue at most once at a time, so shared ancestors are not updated once per path.
    fn propagate(&mut self, leaf: u32) {
        let mut queue = std::mem::take(&mut self.queue);
        queue.push_back(leaf);
        let mut first = true;
        while let Some(id) = queue.pop_front() {
            self.nodes[id as usize].queued = false;
            let (pn, dn) = self.recompute(id);
            let node = &mut self.nodes[id as usize];
            if !first && (pn, dn) == (node.pn, node.dn) {
                continue;
            }
            first = false;
            (node.pn, node.dn) = (pn, dn);
            for i in 0..self.nodes[id as usize].parents.len() {
                let p = self.nodes[id as usize].parents[i];
                let parent = &mut self.nodes[p as usize];
                if !parent.queued {
                    parent.queued = true;
                    queue.push_back(p);
                }
            }
        }
        self.queue = queue;
    }
}

fn value_of(n: &Node) -> Option<Value> {
    match (n.pn, n.dn) {
        (0, _) => Some(Value::Proven),
        (_, 0) => Some(Value::Disproven),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Toy game: a pile of `n` stones, take 1 or 2, who takes the last stone wins. The OR player
    /// wins iff it is to move with n % 3 != 0.
    #[derive(Clone, Debug)]
    struct Nim {
        n: u32,
        or_to_move: bool,
    }

    impl Game for Nim {
        type Key = (u32, bool);
        type Move = u32;
        fn node_type(&self) -> NodeType {
            if self.or_to_move {
                NodeType::Or
            } else {
                NodeType::And
            }
        }
        fn simplify(&mut self) -> Option<Value> {
            (self.n == 0).then(|| {
                // The previous player took the last stone.
                if self.or_to_move {
                    Value::Disproven
                } else {
                    Value::Proven
                }
            })
        }
        fn children(&self) -> Vec<(u32, Self)> {
            (1..=self.n.min(2))
                .map(|t| {
                    (
                        t,
                        Nim {
                            n: self.n - t,
                            or_to_move: !self.or_to_move,
                        },
                    )
                })
                .collect()
        }
        fn key(&self) -> (u32, bool) {
            (self.n, self.or_to_move)
        }
    }

    #[test]
    fn solves_the_toy_game() {
        for n in 0..40 {
            for or_to_move in [true, false] {
                let mut s = Search::new(Nim { n, or_to_move });
                let want = if (n % 3 != 0) == or_to_move {
                    Value::Proven
                } else {
                    Value::Disproven
                };
                assert_eq!(
                    s.run(&Limits::default()),
                    Outcome::Solved(want),
                    "n={n} {or_to_move}"
                );
            }
        }
    }

    #[test]
    fn bounded_mode_reports_children_and_facts() {
        let root = Nim {
            n: 30,
            or_to_move: true,
        };
        let mut s = Search::new(root.clone());
        assert!(matches!(
            s.run(&Limits {
                max_nodes: Some(8),
                ..Limits::default()
            }),
            Outcome::Unknown { .. }
        ));
        let kids = s.child_reports(&root);
        assert_eq!(kids.iter().map(|c| c.mv).collect::<Vec<_>>(), vec![1, 2]);
        assert!(kids.iter().all(|c| c.pn > 0 && c.dn > 0));
        assert_eq!(s.run(&Limits::default()), Outcome::Solved(Value::Disproven));
        let kids = s.child_reports(&root);
        assert!(kids.iter().all(|c| c.value == Some(Value::Disproven)));
        assert!(
            s.solved()
                .any(|(k, v)| k == (0, true) && v == Value::Disproven)
        );
    }

    #[test]
    fn budgets_stop_the_search() {
        let mut s = Search::new(Nim {
            n: 1000,
            or_to_move: true,
        });
        let out = s.run(&Limits {
            max_nodes: Some(10),
            ..Limits::default()
        });
        assert!(matches!(out, Outcome::Unknown { .. }));
        assert_eq!(s.stats().nodes_created, 10);
        assert_eq!(s.run(&Limits::default()), Outcome::Solved(Value::Proven));
    }
}
