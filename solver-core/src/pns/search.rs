//! The best-first proof-number search loop over a DAG with a transposition table, and its
//! memory cap (a mark-and-sweep collection of solved and unreachable subtrees).

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use super::table::{Hint, Table};
use smallvec::SmallVec;

use super::{Formula, Game, INFINITY, NodeType, Number, Value};

/// Budgets of one [`Search::run`]. The default has none: run until solved.
#[derive(Debug, Clone, Default)]
pub struct Limits {
    /// Stop once this many DAG nodes have been created (counting the root), since the
    /// [`Search`] was made and over all its runs, not per run: a second run with the same
    /// limits stops at once.
    pub max_nodes: Option<u64>,
    /// Stop at this instant (checked every few hundred expansions).
    pub deadline: Option<Instant>,
    /// Stop when this flag becomes true (checked before every expansion).
    pub cancel: Option<Arc<AtomicBool>>,
    /// Cap on [`Search::approx_bytes`], in bytes. When the DAG grows past it the search
    /// collects garbage ([`Search::collect_garbage`]); when the unsolved part alone is still
    /// above half the cap it collapses the least recently used unsolved subtrees into leaves
    /// (each keeps its (pn, dn) and position, and is expanded again when it is most-proving)
    /// until it is below, and stops with [`Outcome::Unknown`] only when
    /// even that leaves more than 7/8 of the cap. Checked every few hundred expansions.
    pub max_bytes: Option<usize>,
    /// Stop once the root's proof number reaches `.0` or its disproof number reaches `.1`
    /// (checked before every expansion): the thresholds of depth-first proof-number search,
    /// past which the root is no longer on its caller's most-proving path.
    pub thresholds: Option<(Number, Number)>,
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
    /// DAG nodes created (each distinct simplified position once while it is in the table,
    /// plus the inner nodes of decompositions). The node-count signature of a search.
    pub nodes_created: u64,
    /// Nodes expanded (children generated or a decomposition built).
    pub nodes_expanded: u64,
    /// Children found already in the transposition table.
    pub tt_hits: u64,
    /// Wall time spent in [`Search::run`] (and [`super::Shared::run`]), summed over calls
    /// (concurrent runs each add theirs).
    pub elapsed: Duration,
    /// Most nodes alive in the DAG at once.
    pub peak_nodes: u64,
    /// Largest [`Search::approx_bytes`] seen (sampled every few hundred expansions and at the
    /// end of a run), in bytes.
    pub peak_bytes: u64,
    /// Garbage collections run because of [`Limits::max_bytes`].
    pub gc_runs: u64,
    /// Nodes freed by those collections.
    pub nodes_freed: u64,
    /// Unsolved subtrees collapsed back into leaves by those collections (see
    /// [`Limits::max_bytes`]).
    pub collapsed: u64,
}

impl Stats {
    /// Adds the counters of `other`, a search run after this one (not beside it): counts and
    /// times add up, peaks take the larger.
    pub fn add_after(&mut self, other: &Stats) {
        // Every field named, so that a new one cannot be left out.
        let Stats {
            nodes_created,
            nodes_expanded,
            tt_hits,
            elapsed,
            peak_nodes,
            peak_bytes,
            gc_runs,
            nodes_freed,
            collapsed,
        } = *other;
        self.nodes_created += nodes_created;
        self.nodes_expanded += nodes_expanded;
        self.tt_hits += tt_hits;
        self.elapsed += elapsed;
        self.peak_nodes = self.peak_nodes.max(peak_nodes);
        self.peak_bytes = self.peak_bytes.max(peak_bytes);
        self.gc_runs += gc_runs;
        self.nodes_freed += nodes_freed;
        self.collapsed += collapsed;
    }
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
    /// OR combination (pn = min, dn = sum); else AND.
    or: bool,
    expanded: bool,
    /// The slot holds a node (false after the garbage collector freed it).
    alive: bool,
    /// The selection in which the node was last on the most-proving path (or created), to
    /// within [`STAMP_GRAIN`] selections: the recency [`Search::collapse`] goes by.
    touched: u32,
    children: Vec<u32>,
    /// The second least of the children's numbers that the node takes the least of (pn at an
    /// OR node, dn at an AND node), counting equal numbers apart: [`INFINITY`] with fewer than
    /// two children. With it back-propagation updates most nodes from the one child that
    /// changed instead of reading every child ([`Search::update`]). Stale in a node that
    /// was collapsed or freed, which is refreshed from its children before it is read again.
    second: Number,
    /// The position in `children` of the best child most-proving selection found last time
    /// ([`Search::best_child`]; `u8::MAX` past 254), tried first next time.
    best: u8,
    /// Most nodes have one parent, kept inline (a list on the heap would be an allocation for
    /// every node created, under a [`super::Shared`] search's lock).
    parents: SmallVec<[u32; 4]>,
}

/// A node in the propagation queue ([`Search::propagate`]) and what put it there.
struct Pending {
    id: u32,
    from: Reached,
}

/// Why a node is in the propagation queue.
enum Reached {
    /// A child's change, (numbers before, numbers after), or `None` where the node reads all
    /// its children; its parents were computed with the numbers it holds.
    Child(Option<((Number, Number), (Number, Number))>),
    /// A leaf the back-up starts from: it reads its children, and its parents were computed
    /// with these numbers, where they may differ from those it holds (a leaf taken by a thread
    /// of a [`super::Shared`] search, whose virtual numbers go up now, or one freed or given
    /// its own numbers back), so that they are updated from its change too; `None` where that
    /// is unknown and they read all their children.
    Leaf(Option<(Number, Number)>),
}

/// Writes `value` where it differs: a node's cache line that is only read stays in the caches of
/// the other threads of a [`super::Shared`] search.
fn set_if_changed<T: PartialEq>(place: &mut T, value: T) {
    if *place != value {
        *place = value;
    }
}

/// The numbers of an expanded node (OR with `or`) and the second least of its children's
/// numbers it takes the least of ([`Node::second`]) after one child's went from `old` to `new`,
/// the other children's unchanged, from what they were before alone; `None` where that does
/// not tell: a least or second least number that grows past the second least (the third least
/// is not kept), or a sum capped below [`INFINITY`] or infinite before (see
/// [`super::combine`]). Back-propagation takes most nodes on its way this way, where the
/// node's children ([`super::combine_with_second`]) would cost a read of each.
fn updated(
    or: bool,
    (numbers, second): ((Number, Number), Number),
    old: (Number, Number),
    new: (Number, Number),
) -> Option<((Number, Number), Number)> {
    // The number the node takes the least of, and the one it sums.
    let split = |(pn, dn): (Number, Number)| if or { (pn, dn) } else { (dn, pn) };
    let ((m_old, s_old), (m_new, s_new)) = (split(old), split(new));
    let (min, sum) = split(numbers);
    if sum >= INFINITY - 1 {
        return None;
    }
    // Below INFINITY - 1 the node's sum is the exact total, which includes `s_old`.
    let sum = if s_new == INFINITY {
        INFINITY
    } else {
        (sum - s_old).saturating_add(s_new).min(INFINITY - 1)
    };
    // The least two of the children's numbers, counting equal ones apart: the least, and
    // every other child's at least `second`.
    let (min, second) = if m_old > second {
        // Neither of the least two.
        if m_new < min {
            (m_new, min)
        } else {
            (min, second.min(m_new))
        }
    } else if m_old == min {
        // The least (or one of the equal least): down, or up to the second least at most.
        if m_new > second {
            return None;
        }
        (m_new, second)
    } else {
        // The second least, above the least: down.
        if m_new > m_old {
            return None;
        }
        (min.min(m_new), min.max(m_new))
    };
    Some((if or { (min, sum) } else { (sum, min) }, second))
}

/// Whether a node of these (pn, dn) is solved.
fn solved((pn, dn): (Number, Number)) -> bool {
    pn == 0 || dn == 0
}

/// A proof-number search of one root position. Call [`Search::run`] (repeatedly, with budgets,
/// if wanted) and read the outcome, the root's children and the statistics.
pub struct Search<G: Game> {
    nodes: Vec<Node>,
    /// The (pn, dn) of every node, by id: apart from the nodes, so that back-propagation and
    /// most-proving selection, which read every child of each node on their path, read 16
    /// bytes a child, several in one cache line.
    nums: Vec<(Number, Number)>,
    /// The position of every position node created unsolved, kept after its expansion so that
    /// a collapsed node ([`Search::collapse`]) can be expanded again.
    states: Vec<Option<G>>,
    table: Table<G::Key>,
    root_moves: Vec<(G::Move, u32)>,
    stats: Stats,
    /// The propagation queue, kept to reuse its allocation.
    queue: std::collections::VecDeque<Pending>,
    /// The last most-proving path, root first ([`Search::most_proving`]), kept to reuse its
    /// allocation.
    path: Vec<u32>,
    /// Values known from outside this search (a worker's table of solved positions), asked for
    /// every new node that simplification does not decide.
    known: Option<Known<G::Key>>,
    /// Slots freed by the garbage collector, reused before the vectors grow.
    free: Vec<u32>,
    /// Child and parent links in the DAG (for [`Search::approx_bytes`] without a scan).
    links: usize,
    /// The node searched from (see [`Search::set_root`]).
    root: u32,
    /// Positions solved since the last [`Search::take_solved`], when [`Search::record_solved`]
    /// is on.
    solved_log: Option<SolvedLog<G::Key>>,
    /// The roots of the runs of a [`super::Shared`] search under way (kept by the garbage
    /// collector and never collapsed, like `root`).
    pub(super) pins: Vec<u32>,
    /// The leaves that threads of a [`super::Shared`] search are expanding outside the lock,
    /// with their own numbers while they hold virtual ones ([`VIRTUAL_FACTOR`]): other
    /// threads pass them by, the garbage collector keeps them (a few, so a list; a flag per
    /// node would cost 8 bytes of every node).
    busy: Vec<Busy>,
    /// Iterations over all runs, for [`Search::check_due`].
    ticks: u64,
    /// Selections so far, over all runs, halved with every stamp when it would overflow
    /// ([`Search::halve_stamps`]): the clock of `Node::touched`.
    clock: u32,
}

/// A lookup of solved values known from outside a search, by transposition key.
pub type Known<K> = Box<dyn Fn(&K) -> Option<Value> + Send>;

/// While a thread of a [`super::Shared`] search expands a leaf, the leaf shows the other threads
/// the numbers of a leaf that went against the way it leans: one that looks no harder to prove
/// than to disprove (pn <= dn) shows its pn this many times over and its dn divided by it (at
/// least 1), as if its proof were failing; one that leans to a disproof, the reverse. Its
/// ancestors' numbers follow, so that the next selection turns, at the first ancestor where
/// another child is now better (an OR node above a leaf that leans to a proof, an AND node
/// above one that leans to a disproof), to the node that would be most-proving if that leaf's
/// expansion disappointed. Job-level proof-number search (Wu et al., IEEE TCIAIG 2013) counts
/// a leased leaf as virtually won or lost; this is a bounded form of that, against the leaf's
/// lean. Measured by the nodes of two slots (threads) against one slot's, where they differ
/// only by this rule and the order of [`super::LEAVES_IN_FLIGHT`] leaves (2026-11-30; nodes
/// are the same in every run of a build):
/// - the empty board (`solver seven bench --cols 12 13 --threads 2 --workers 2`; one slot:
///   486,315 and 2,218,565 nodes, the direct search 486,316 and 3,122,364): with this rule two
///   slots 480,057 at n = 12 and 2,221,962 at n = 13 (two threads 480,058 and 2,696,562);
///   with factors 16, 32, 128 and 256 instead of 64, 512,891, 496,360, 480,079 and 495,304 at
///   n = 12 and 2.68 M, 2.42 M, 2.51 M and 2.22 M at n = 13; solved against the lean ((1,
///   infinity - 1) and the reverse) 497 k and 2.35 M; solved as it leans 5.36 M at n = 12;
///   always virtually won 5.74 M at n = 12; always virtually lost 495 k at n = 12 and 12.0 M
///   at n = 13; both numbers 4 times (Kaneko's virtual proof numbers for parallel df-pn, AAAI
///   2010; the rule until then) 538,459 and 2,235,045.
/// - 70 random positions of n = 9 to 11 (3 to 10 stones, 5,000 to 2 M nodes for the direct
///   search; 63 won by Breaker), two slots of `solver seven solve` against one, geometric mean
///   of the ratios (and the worst): this rule 0.984 (1.23), factor 16 0.987 (1.28), 32 0.979
///   (1.26), 128 0.981 (1.23), solved against the lean 1.01 (4.45), both numbers 4 times 1.118
///   (4.75).
/// - Maker's first moves in the left half at n = 9, 10 and 11 (64 positions, all won by
///   Maker; the five largest took 1.4 M to 8.3 M nodes on one slot, over several jobs): this
///   rule 1.052 (1.99), factor 32 1.071 (1.99), 128 1.086 (3.33), 256 1.09 (3.33), both
///   numbers 4 times 1.121 (2.46); in the sum of the nodes this rule took 1.169 times one
///   slot's (the 8.3 M position 14.6 M), factor 32 0.981, both numbers 4 times 1.043.
///
/// The n = 13 figures of two slots are of a worker's jobs (the coordinator's thresholds), and
/// move a lot with the rule. The factor 64 is the best of those tried on the empty boards,
/// which are also the benchmark's: fitted to them; on the two sets of positions the factors
/// from 16 to 256 are close, and all ahead of both numbers 4 times over.
///
/// Kaneko's rule before it (both numbers multiplied), with two threads and leaves taken as
/// threads took them then: without virtual numbers (a taken leaf passed by for the nearest
/// alternative), (4, 12, 7^tr) took 610 to 810 k nodes; the proof number alone was worse at n
/// = 13 (3.4 to 3.6 M nodes, against 3.0 to 3.3 M), the disproof number alone worse at n = 12
/// (0.57 to 2.4 M); 16 times had more runs than 4 times that searched other first moves too
/// (n = 12: five of 42 runs at 1.96 to 2.36 M nodes, mean 709 k against 550 k); for 25 pairs
/// of factors (pn and dn 2 to 8 each) the empty board at n = 12 took 500 k to 2.16 M nodes
/// with four leaves in flight, and for 24 pairs Maker's 20 first moves in the left half at n =
/// 10 took 1.12 to 1.32 times one leaf's nodes (geometric mean), no pair ahead in a pattern.
pub(super) const VIRTUAL_FACTOR: Number = 64;

/// The grain of the recency stamps ([`Search::collapse`]): a node on the most-proving path gets
/// the clock as its stamp only when its stamp is this many selections old, so that the nodes
/// near the root, on the path at every selection, are written once per this many selections,
/// not at each (each write takes the node's cache line from the other threads of a
/// [`super::Shared`] search, which read it).
const STAMP_GRAIN: u32 = 64;

/// How often (in expansions) the deadline and memory cap are checked.
pub(super) const CHECK_EVERY: u64 = 256;

/// How often (in expansions) a run whose taken leaves show virtual numbers judges its
/// thresholds by the DAG's own numbers when the numbers shown have not reached them
/// ([`Search::stops`]): a taken leaf shows one of its numbers shrunk ([`VIRTUAL_FACTOR`]), so
/// the root's own numbers can reach a threshold its shown ones do not, and judging the own ones
/// takes two back-ups of every taken leaf. A run then passes such a threshold by fewer than
/// this many expansions. Two slots of a worker at n = 13 (`solver seven bench --cols 13
/// --workers 2`, 2026-11-30), judging at every expansion: 4.2 to 4.5 s (three runs); only
/// where the shown numbers reach the thresholds (which missed a threshold for as long as taken
/// leaves hid it): 3.6 and 3.7 s; every 16 or 64 expansions: 3.5 to 4.1 s (four runs). The
/// same nodes in all of them: no job there met such a threshold.
pub(super) const OWN_CHECK_EVERY: u64 = 64;

/// The share of the expanded unsolved nodes one collapse step turns back into leaves (the
/// least recently used ones; see [`Limits::max_bytes`]).
const COLLAPSE_SHARE: f64 = 0.125;

fn numbers_of(value: Value) -> (Number, Number) {
    match value {
        Value::Proven => (0, INFINITY),
        Value::Disproven => (INFINITY, 0),
    }
}

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
            nums: Vec::new(),
            states: Vec::new(),
            table: Table::new(),
            root_moves: Vec::new(),
            stats: Stats::default(),
            queue: std::collections::VecDeque::new(),
            path: Vec::new(),
            known,
            free: Vec::new(),
            links: 0,
            root: 0,
            solved_log: None,
            pins: Vec::new(),
            busy: Vec::new(),
            ticks: 0,
            clock: 0,
        };
        s.set_root(root);
        s
    }

    /// Makes `root` the position searched from, keeping the whole DAG: a position already in
    /// the table goes on from its subtree (a worker's next job below its previous one repeats
    /// nothing), a new one is added. The root's move list ([`Search::root_children`]) starts
    /// empty, unless `root` is the current root (another thread of a [`super::Shared`] search
    /// joining a run from it keeps the list). Node budgets ([`Limits::max_nodes`]) count from
    /// the search's creation.
    pub fn set_root(&mut self, root: G) {
        let id = self.node_of(root);
        if id != self.root {
            self.root = id;
            self.root_moves.clear();
        }
    }

    /// The node of `root` (simplified): the one in the table, or a new one.
    pub(super) fn node_of(&mut self, root: G) -> u32 {
        let mut root = root;
        let value = root.simplify();
        let key = root.key();
        match self.table.get(&key) {
            Some(id) => id,
            None => {
                let value = value.or_else(|| self.lookup(&key));
                let numbers = match value {
                    Some(v) => numbers_of(v),
                    None => root.estimate(),
                };
                self.insert(key, root, value, numbers)
            }
        }
    }

    /// Searches until the root is solved or a limit is reached: the classic loop (Allis et
    /// al., 1994) of selecting the most-proving node, expanding it and backing up the new
    /// numbers to every ancestor whose numbers change ([`Search::run_interleaved`] with one
    /// leaf at a time).
    pub fn run(&mut self, limits: &Limits) -> Outcome {
        self.run_interleaved(1, limits, || 0.0)
    }

    /// Searches as `threads` threads of a [`super::Shared`] search would, but in this thread
    /// and reproducibly: up to `threads` leaves are taken at once, each showing the others its
    /// virtual numbers (`VIRTUAL_FACTOR`) and selected as a thread selects its
    /// leaf (the most-proving leaf, passing by taken ones), and the taken leaf whose expansion
    /// ends first is expanded and backed up next. `duration` gives the time a leaf's expansion
    /// takes (in any unit, drawn when the leaf is taken; ties end in the order taken). With
    /// equal times this is the order a [`super::Shared`] run follows whichever thread computes
    /// what ([`super::LEAVES_IN_FLIGHT`] leaves). Random times model threads that each select
    /// and expand their own leaf, whose order moves from run to run with the machine's timing:
    /// `solver seven bench --interleaved` draws them from a seed.
    /// With `threads` ≤ 1, whatever the durations, this is [`Search::run`].
    /// Unlike a [`super::Shared`] run, the root is expanded as the plain search expands it (by
    /// a decomposition where it decomposes).
    pub fn run_interleaved(
        &mut self,
        threads: usize,
        limits: &Limits,
        mut duration: impl FnMut() -> f64,
    ) -> Outcome {
        let start = Instant::now();
        let root = self.root;
        // (time the expansion ends, leaf), in the order taken.
        let mut taken: Vec<(f64, u32)> = Vec::with_capacity(threads);
        let mut now = 0.0;
        while !self.stops(root, limits, self.stats.nodes_created) {
            if self.check_due() && !self.within(limits) {
                break;
            }
            while taken.len() < threads.max(1) {
                let Some(leaf) = self.select(root) else {
                    break;
                };
                self.take(leaf, threads > 1);
                taken.push((now + duration(), leaf));
            }
            let Some(first) = (0..taken.len()).min_by(|&a, &b| taken[a].0.total_cmp(&taken[b].0))
            else {
                debug_assert!(false, "an unsolved root with no leaf to select");
                break;
            };
            let (end, leaf) = taken.remove(first);
            now = end;
            let g = self.position(leaf);
            let expansion = Expansion::of(&g, false);
            self.finish(leaf, Some((&g, expansion)));
        }
        // Leaves still taken get their own numbers back, unexpanded.
        for (_, leaf) in taken {
            self.finish(leaf, None);
        }
        self.sample_bytes();
        self.stats.elapsed += start.elapsed();
        self.outcome()
    }

    /// True every [`CHECK_EVERY`] iterations, counted over all runs (a run shorter than that
    /// still gets its share of checks).
    pub(super) fn check_due(&mut self) -> bool {
        self.ticks += 1;
        self.ticks.is_multiple_of(CHECK_EVERY)
    }

    /// Whether a run from `root` is over: solved, `nodes` reached the node budget, cancelled,
    /// or the root reached its thresholds (with its own numbers, not the virtual ones of
    /// leaves being expanded: see [`Search::set_virtual`]; where only the own numbers reach
    /// them, seen within [`OWN_CHECK_EVERY`] expansions).
    pub(super) fn stops(&mut self, root: u32, limits: &Limits, nodes: u64) -> bool {
        self.settle();
        if solved(self.nums[root as usize])
            || limits.max_nodes.is_some_and(|max| nodes >= max)
            || limits
                .cancel
                .as_ref()
                .is_some_and(|c| c.load(Ordering::Relaxed))
        {
            return true;
        }
        let Some((tpn, tdn)) = limits.thresholds else {
            return false;
        };
        let reached = |(pn, dn): (Number, Number)| pn >= tpn || dn >= tdn;
        (reached(self.nums[root as usize]) || self.ticks.is_multiple_of(OWN_CHECK_EVERY))
            && self.with_own_numbers(|s| reached(s.nums[root as usize]))
    }

    /// The position of an unsolved position node (kept after its expansion, so that a
    /// collapsed node is expanded again from it).
    pub(super) fn position(&self, id: u32) -> G {
        self.states[id as usize]
            .clone()
            .expect("an unsolved position node keeps its position")
    }

    /// False when the run must stop: deadline, or a memory cap that garbage collection cannot
    /// bring the DAG under.
    pub(super) fn within(&mut self, limits: &Limits) -> bool {
        if limits.deadline.is_some_and(|d| Instant::now() >= d) {
            return false;
        }
        if let Some(cap) = limits.max_bytes {
            self.reserve_slots(cap);
        }
        let bytes = self.sample_bytes() + self.table_growth();
        match limits.max_bytes {
            // A collapsed node keeps its numbers: they must be its own.
            Some(cap) if bytes > cap => self.with_own_numbers(|s| {
                s.collect_garbage();
                // Collapse the least recently used eighth of the expanded unsolved nodes, then
                // an eighth of the rest, ..., until the DAG is below half the cap (a collapsed
                // node frees its whole subtree: halving at once freed 90% at n = 14).
                for _ in 0..64 {
                    if s.approx_bytes() <= cap / 2 || s.collapse(COLLAPSE_SHARE) == 0 {
                        break;
                    }
                }
                s.approx_bytes() <= cap - cap / 8
            }),
            _ => true,
        }
    }

    /// Reserves, once, node slots for as many nodes as `cap` bytes can hold: the vectors then
    /// never grow under the cap (growing one of several GiB copies it, holding the old and
    /// the new allocation at once: at n = 14 that lifted the process's peak by 4 GB). The
    /// reserved memory is only address space until the slots are used. A reservation the
    /// system refuses (a cap beyond the address space it grants, which would abort the
    /// process) is left out: those vectors grow as they fill, as under no cap.
    fn reserve_slots(&mut self, cap: usize) {
        let slots = cap / Self::SLOT_BYTES;
        if self.nodes.capacity() < slots {
            let _refused = self
                .nodes
                .try_reserve_exact(slots - self.nodes.len())
                .and_then(|()| self.nums.try_reserve_exact(slots - self.nums.len()))
                .and_then(|()| self.states.try_reserve_exact(slots - self.states.len()))
                .and_then(|()| self.table.try_reserve_slots(slots));
        }
    }

    /// The bytes the table adds if it grows before the next check of [`Limits::max_bytes`]
    /// (a growth allocates twice its index's buckets, holding the old ones too while it moves
    /// the entries), so that the cap is enforced before, not after, the jump; 0 when it has
    /// room.
    fn table_growth(&self) -> usize {
        // Insertions until the next check, at most: a few dozen children per expansion, by
        // each of a few threads (see [`super::Shared`]).
        let soon = (CHECK_EVERY as usize * 256).min(self.table.capacity() / 4);
        if self.table.len() + soon >= self.table.capacity() {
            2 * self.table.index_bytes()
        } else {
            0
        }
    }

    pub(super) fn sample_bytes(&mut self) -> usize {
        let bytes = self.approx_bytes();
        self.stats.peak_bytes = self.stats.peak_bytes.max(bytes as u64);
        bytes
    }

    pub(super) fn root_id(&self) -> u32 {
        self.root
    }

    pub(super) fn add_elapsed(&mut self, elapsed: Duration) {
        self.stats.elapsed += elapsed;
    }

    /// The root's state now.
    pub fn outcome(&self) -> Outcome {
        self.outcome_of(self.root)
    }

    pub(super) fn outcome_of(&self, id: u32) -> Outcome {
        match self.nums[id as usize] {
            (0, _) => Outcome::Solved(Value::Proven),
            (_, 0) => Outcome::Solved(Value::Disproven),
            (pn, dn) => Outcome::Unknown { pn, dn },
        }
    }

    /// The root's moves generated so far and their children's state. An expansion stops
    /// generating moves at the first one that solves the root (an OR root's proven child, an
    /// AND root's disproven child), so a solved root may list only some of its moves; a root
    /// that was decomposed instead of expanded by moves lists none, and moves whose child the
    /// garbage collector freed ([`Search::collect_garbage`]) are left out.
    pub fn root_children(&self) -> Vec<RootChild<G::Move>> {
        self.root_moves
            .iter()
            .map(|&(mv, id)| {
                let (pn, dn) = self.nums[id as usize];
                RootChild {
                    mv,
                    value: value_of((pn, dn)),
                    pn,
                    dn,
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
                    (Some(id), _) => self.nums[id as usize],
                    (None, Some(v)) => numbers_of(v),
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

    /// Every solved position in the DAG, by key.
    pub fn solved(&self) -> impl Iterator<Item = (G::Key, Value)> + '_ {
        self.table
            .iter()
            .filter_map(|(k, id)| value_of(self.nums[id as usize]).map(|v| (k, v)))
    }

    /// Turns on (`Some(limit)`) or off (`None`) the record of the positions the search
    /// solves, drained with [`Search::take_solved`]: what a worker's job learned, without
    /// scanning the table. Off by default. The record holds at most `limit` positions (at
    /// least 2): when it is full, the older half is dropped. Its bytes count in
    /// [`Search::approx_bytes`], so in [`Limits::max_bytes`].
    pub fn record_solved(&mut self, limit: Option<usize>) {
        self.solved_log = limit.map(|limit| SolvedLog {
            entries: Vec::new(),
            limit: limit.max(2),
        });
    }

    /// The positions solved (by simplification, by a known value or by search) since the last
    /// call, by any run, in the order they were solved; empty unless [`Search::record_solved`]
    /// is on. A position is logged when it becomes solved (again, if the garbage collector
    /// freed it and it was solved anew).
    pub fn take_solved(&mut self) -> Vec<(G::Key, Value)> {
        self.solved_log
            .as_mut()
            .map(|log| std::mem::take(&mut log.entries))
            .unwrap_or_default()
    }

    /// Counters so far.
    pub fn stats(&self) -> Stats {
        self.stats
    }

    /// Number of entries in the transposition table (= DAG nodes with a position).
    pub fn table_len(&self) -> usize {
        self.table.len()
    }

    /// Bytes of one node slot: the node, its numbers, its position and its key's slot.
    const SLOT_BYTES: usize = std::mem::size_of::<Node>()
        + std::mem::size_of::<(Number, Number)>()
        + std::mem::size_of::<Option<G>>()
        + Table::<G::Key>::KEY_BYTES;

    /// Approximate heap bytes held by the DAG and the table: node slots with their numbers,
    /// positions and key slots, 4 bytes a link (each end, also where up to four parents sit
    /// inline in the node: a small over-count), the table's index and the record of solved
    /// positions. Computed from counts, without a scan; slots freed by
    /// [`Search::collect_garbage`] are not counted (they are reused before the vectors grow),
    /// nor is the allocator's share (the child lists' spare capacity and headers): a process's
    /// peak RSS was 1.0 to 1.4 times this figure (the engine's bench, n = 12 to 14, README).
    pub fn approx_bytes(&self) -> usize {
        let live = self.nodes.len() - self.free.len();
        live * Self::SLOT_BYTES
            + self.links * std::mem::size_of::<u32>()
            + self.table.index_bytes()
            + self.solved_log.as_ref().map_or(0, |log| {
                log.entries.capacity() * std::mem::size_of::<(G::Key, Value)>()
            })
    }

    fn lookup(&self, key: &G::Key) -> Option<Value> {
        self.known.as_ref().and_then(|k| k(key))
    }

    /// Stores a new node (in a freed slot if there is one) and, for a position, its table entry.
    fn insert(
        &mut self,
        key: G::Key,
        g: G,
        value: Option<Value>,
        numbers: (Number, Number),
    ) -> u32 {
        let or = g.node_type() == NodeType::Or;
        let (pn, dn) = match value {
            Some(v) => numbers_of(v),
            None => (
                numbers.0.clamp(1, INFINITY - 1),
                numbers.1.clamp(1, INFINITY - 1),
            ),
        };
        let id = self.slot(or, false, (pn, dn));
        self.states[id as usize] = value.is_none().then_some(g);
        if let (Some(log), Some(v)) = (self.solved_log.as_mut(), value) {
            log.push(key, v);
        }
        self.table.insert(key, id);
        id
    }

    /// A new node (`or`: its type; `expanded`: an inner node of a decomposition, expanded at
    /// birth) with `numbers`, in a freed slot or a new one.
    fn slot(&mut self, or: bool, expanded: bool, numbers: (Number, Number)) -> u32 {
        self.stats.nodes_created += 1;
        let node = Node {
            or,
            expanded,
            second: INFINITY,
            best: 0,
            alive: true,
            touched: self.clock,
            children: Vec::new(),
            parents: SmallVec::new(),
        };
        let id = if let Some(id) = self.free.pop() {
            self.nodes[id as usize] = node;
            self.nums[id as usize] = numbers;
            id
        } else {
            self.nodes.push(node);
            self.nums.push(numbers);
            self.states.push(None);
            // The table's index stores `id + 1` in 32 bits: ids up to 2^32 - 2.
            u32::try_from(self.nodes.len()).expect("fewer than 2^32 nodes") - 1
        };
        let live = (self.nodes.len() - self.free.len()) as u64;
        self.stats.peak_nodes = self.stats.peak_nodes.max(live);
        id
    }

    fn link(&mut self, parent: u32, child: u32) {
        self.nodes[parent as usize].children.push(child);
        self.nodes[child as usize].parents.push(parent);
        self.links += 2;
    }

    /// The most-proving node below `root`: at an OR node the child of least pn, at an AND
    /// node the child of least dn, down to a leaf. Marks the path as recently used and leaves
    /// it in `self.path` (root first, the leaf last).
    fn most_proving(&mut self, root: u32) -> u32 {
        if self.clock == u32::MAX {
            self.halve_stamps();
        }
        self.clock += 1;
        self.path.clear();
        let mut id = root;
        loop {
            let n = &mut self.nodes[id as usize];
            if self.clock - n.touched >= STAMP_GRAIN {
                n.touched = self.clock;
            }
            self.path.push(id);
            if !self.nodes[id as usize].expanded {
                return id;
            }
            id = self.best_child(id);
        }
    }

    /// Halves the clock and every node's stamp when the clock is about to overflow (after
    /// 2^32 selections, hours for a worker with many threads): the stamps keep their order,
    /// which is all [`Search::collapse`] reads, where a saturated clock would give every node
    /// touched since the same stamp, and collapse nothing.
    fn halve_stamps(&mut self) {
        for n in &mut self.nodes {
            n.touched /= 2;
        }
        self.clock /= 2;
    }

    /// The child of the expanded, unsolved node `id` that most-proving selection takes.
    fn best_child(&mut self, id: u32) -> u32 {
        let n = &self.nodes[id as usize];
        // Where one child alone has the least number (below the second least), it is the
        // best; the one found last time is looked at first.
        let (pn, dn) = self.nums[id as usize];
        let least = if n.or { pn } else { dn };
        if n.second > least
            && let Some(&c) = n.children.get(usize::from(n.best))
            && self.pick(n, c).0 == least
        {
            return c;
        }
        let (i, &c) = n
            .children
            .iter()
            .enumerate()
            .min_by_key(|&(_, &c)| self.pick(n, c))
            .expect("an expanded unsolved node has children");
        set_if_changed(
            &mut self.nodes[id as usize].best,
            u8::try_from(i).unwrap_or(u8::MAX),
        );
        c
    }

    /// The order of most-proving selection among the children of `n`.
    fn pick(&self, n: &Node, child: u32) -> (Number, Number) {
        let (pn, dn) = self.nums[child as usize];
        if n.or { (pn, dn) } else { (dn, pn) }
    }

    /// The leaf to expand next below `root` while other threads expand their own (whose
    /// leaves show virtual numbers, [`VIRTUAL_FACTOR`]): the most-proving node if no thread
    /// has it, else the nearest alternative: going up the
    /// most-proving path from its end, the first node whose best other unsolved child leads
    /// (by most-proving selection) to a free leaf; failing that, the first free leaf in
    /// most-proving order (depth first, each node's children best first). `None` when every
    /// leaf below `root` is taken.
    pub(super) fn select(&mut self, root: u32) -> Option<u32> {
        self.settle();
        let leaf = self.most_proving(root);
        if !self.is_busy(leaf) {
            return Some(leaf);
        }
        for i in (1..self.path.len()).rev() {
            let (parent, taken) = (self.path[i - 1], self.path[i]);
            let n = &self.nodes[parent as usize];
            let alternative = n
                .children
                .iter()
                .copied()
                .filter(|&c| c != taken && !solved(self.nums[c as usize]))
                .min_by_key(|&c| self.pick(n, c));
            if let Some(mut id) = alternative {
                while self.nodes[id as usize].expanded {
                    id = self.best_child(id);
                }
                if !self.is_busy(id) {
                    return Some(id);
                }
            }
        }
        let mut seen = rustc_hash::FxHashSet::default();
        let mut stack = vec![root];
        while let Some(id) = stack.pop() {
            let n = &self.nodes[id as usize];
            if solved(self.nums[id as usize]) || !seen.insert(id) {
                continue;
            }
            if !n.expanded {
                if !self.is_busy(id) {
                    return Some(id);
                }
                continue;
            }
            let mut children = n.children.clone();
            children.sort_by_key(|&c| std::cmp::Reverse(self.pick(n, c)));
            stack.extend(children);
        }
        None
    }

    /// Marks the leaf `id` as taken by a thread of a [`super::Shared`] search; with `show`,
    /// gives it its virtual numbers ([`VIRTUAL_FACTOR`]), which the next selection, or the
    /// next back-up, backs up ([`Search::settle`]). Without, the leaf keeps its own numbers
    /// and other runs only pass it by: for a run that is alone, whose virtual numbers no other
    /// run would see. Virtual numbers never solve or unsolve a node: a leaf's numbers stay
    /// finite and non-zero, and the minima and sums above it are zero exactly when they were
    /// (so which nodes are solved does not wait for their back-up).
    pub(super) fn take(&mut self, id: u32, show: bool) {
        let own = self.nums[id as usize];
        self.busy.push(Busy {
            id,
            own,
            shown: show,
            unseen: show,
        });
        if show {
            self.nums[id as usize] = virtual_numbers(own);
        }
    }

    /// Backs up the virtual numbers of the leaves taken since the last back-up
    /// ([`Search::take`]), which the DAG above them does not show yet: before a selection, a
    /// check of the root's numbers, a change to the taken leaves' numbers, or an expansion by
    /// a decomposition (whose inner nodes read their parts at once, [`Search::finish`]).
    /// Otherwise the next back-up ([`Search::propagate_from`], as of the expansion a run adds
    /// next) takes them along, so that the ancestors they share with its leaf are updated
    /// once: in the order of four leaves taken at a time, 0.79% fewer instructions for
    /// (4, 11, 7^tr) than a back-up of its own at each take (20% fewer in back-propagation;
    /// 2026-11-29, one seeded order of `solver seven bench --cols 11 --interleaved 4`, counted
    /// by `valgrind --tool=cachegrind`). The search is the same (the numbers at every
    /// selection are).
    pub(super) fn settle(&mut self) {
        if self.busy.iter().any(|b| b.unseen) {
            self.back_up(None);
        }
    }

    /// Ends the expansion of the taken leaf `id`: frees it ([`Search::free`]), adds the
    /// children of `expansion` (of position `g`), if any ([`Search::apply`]), and backs up its
    /// change from the numbers its parents saw ([`Search::propagate_from`]).
    pub(super) fn finish(&mut self, id: u32, expansion: Option<(&G, Expansion<G>)>) {
        if let Some((_, Expansion::Parts(_))) = expansion {
            // A decomposition's inner nodes take their numbers from their parts at once (not
            // by a back-up): a taken leaf among the parts must show its virtual numbers
            // above it already. And before the leaf is freed: its parents saw the numbers it
            // holds until then.
            self.settle();
        }
        let shown = self.free(id);
        if let Some((g, expansion)) = expansion {
            self.apply(id, g, expansion);
        }
        self.propagate_from(id, Some(shown));
    }

    /// Marks the taken leaf `id` free again, with its own numbers back, and returns the
    /// numbers its parents saw (the virtual ones, if it showed them and they were backed up).
    fn free(&mut self, id: u32) -> (Number, Number) {
        let mut seen = self.nums[id as usize];
        if let Some(i) = self.busy.iter().position(|b| b.id == id) {
            let busy = self.busy.swap_remove(i);
            if busy.unseen {
                seen = busy.own;
            }
            self.nums[id as usize] = busy.own;
        }
        seen
    }

    /// Gives the leaves being expanded their own numbers back (`on` false), or their
    /// virtual ones again, and propagates: with `on` false the DAG's numbers are those of a
    /// search without threads expanding, as reports and thresholds need them.
    pub(super) fn set_virtual(&mut self, on: bool) {
        self.settle();
        for i in 0..self.busy.len() {
            let Busy { id, own, shown, .. } = self.busy[i];
            // A taken leaf stays an unsolved leaf until it is freed (`Shared::lock` gives no
            // way to run a search of its own).
            if !shown || self.nodes[id as usize].expanded || solved(self.nums[id as usize]) {
                continue;
            }
            let shown = std::mem::replace(
                &mut self.nums[id as usize],
                if on { virtual_numbers(own) } else { own },
            );
            self.propagate_from(id, Some(shown));
        }
    }

    /// Runs `f` with the DAG's own numbers (the leaves being expanded without their virtual
    /// numbers), then gives those leaves their virtual numbers back.
    pub(super) fn with_own_numbers<T>(&mut self, f: impl FnOnce(&mut Self) -> T) -> T {
        if self.busy.is_empty() {
            return f(self);
        }
        self.set_virtual(false);
        let t = f(self);
        self.set_virtual(true);
        t
    }

    /// Makes `hint` show the table's index as it is now ([`Hint`]).
    pub(super) fn refresh_hint(&self, hint: &mut Hint) {
        if !self.table.is_current(hint) {
            *hint = self.table.hint();
        }
    }

    /// A [`Hint`] of the table's index as it is now.
    pub(super) fn hint(&self) -> Hint {
        self.table.hint()
    }

    /// Whether a thread of a [`super::Shared`] search is expanding the leaf `id`.
    fn is_busy(&self, id: u32) -> bool {
        self.busy.iter().any(|b| b.id == id)
    }

    /// Adds the children of an [`Expansion`] of the leaf `id` (position `g`) to the DAG;
    /// does nothing if `id` was expanded or freed meanwhile. Call [`Search::propagate`] next,
    /// or [`Search::propagate_from`] with the numbers the parents saw. A leaf without moves is
    /// solved (and logged) here.
    pub(super) fn apply(&mut self, id: u32, g: &G, expansion: Expansion<G>) {
        let n = &self.nodes[id as usize];
        if !n.alive || n.expanded {
            return;
        }
        debug_assert!(
            matches!(expansion, Expansion::Moves(_)) || !self.busy.iter().any(|b| b.unseen),
            "a decomposition's parts are backed up"
        );
        self.stats.nodes_expanded += 1;
        self.nodes[id as usize].expanded = true;
        match expansion {
            Expansion::Parts(formula) => self.expand_formula(id, formula),
            Expansion::Moves(children) => self.expand_moves(id, g, children),
        }
        let node = &self.nodes[id as usize];
        if node.children.is_empty() {
            // No move: the side to move has nothing to play and loses the search's sense.
            self.nums[id as usize] = if node.or {
                (INFINITY, 0)
            } else {
                (0, INFINITY)
            };
            self.log_solved(id);
        }
    }

    /// Makes the unsolved node `id` (position `g`) expanded by its moves (`children`, from
    /// [`Expansion::moves`]): as it is if it already is, else expanded now, after forgetting
    /// a decomposition it was expanded by (its numbers are kept until the moves' replace them;
    /// the parts stay in the table, where the moves' own decompositions find them, until the
    /// next garbage collection frees them). For the root of a run whose move children are
    /// reported ([`Search::child_reports`]). Returns the nodes created.
    pub(super) fn hold_moves(&mut self, id: u32, g: &G, children: Vec<Child<G>>) -> u64 {
        // `id` may be a leaf another run has taken: its virtual numbers go up before it is
        // expanded (a back-up after would read its children, with any change of theirs
        // still to come, then that change again).
        self.settle();
        if solved(self.nums[id as usize]) {
            return 0;
        }
        let n = &self.nodes[id as usize];
        if n.expanded {
            let linked = |c: &Child<G>| {
                self.table
                    .get(&c.key)
                    .is_some_and(|cid| n.children.contains(&cid))
            };
            if children.iter().all(linked) {
                return 0;
            }
            self.unlink_children(id);
            self.nodes[id as usize].expanded = false;
        }
        let before = self.stats.nodes_created;
        self.apply(id, g, Expansion::Moves(children));
        self.propagate(id);
        self.stats.nodes_created - before
    }

    /// Records a position node that has just become solved, if [`Search::record_solved`] is
    /// on (inner nodes of decompositions are not positions and are skipped).
    fn log_solved(&mut self, id: u32) {
        if let (Some(log), Some(g), Some(v)) = (
            self.solved_log.as_mut(),
            self.states[id as usize].as_ref(),
            value_of(self.nums[id as usize]),
        ) {
            log.push(g.key(), v);
        }
    }

    /// Expands `id` (position `g`) by its moves: the simplified `children` of an
    /// [`Expansion`], looked up one by one; the expansion stops at the first child that solves
    /// the node. The new, undecided children are then estimated together
    /// ([`Game::estimate_children`]) and stored.
    fn expand_moves(&mut self, id: u32, g: &G, children: Vec<Child<G>>) {
        // The side to move's combination: a node expanded by a decomposition before (and
        // collapsed, or held by its moves since) took the formula's connective instead.
        let or = g.node_type() == NodeType::Or;
        self.nodes[id as usize].or = or;
        self.table.touch(children.iter().map(|c| &c.key));
        // Each child: an existing node, or an index into `fresh`.
        let mut slots: Vec<(G::Move, Result<u32, usize>)> = Vec::new();
        let mut fresh: Vec<(G::Key, G)> = Vec::new();
        for Child {
            mv,
            position: child,
            key,
            value,
        } in children
        {
            let existing = self.table.get(&key);
            let decisive = |v: Value| (v == Value::Proven) == or;
            if let Some(cid) = existing {
                self.stats.tt_hits += 1;
                slots.push((mv, Ok(cid)));
                if value_of(self.nums[cid as usize]).is_some_and(decisive) {
                    break;
                }
                continue;
            }
            if let Some(i) = fresh.iter().position(|(k, _)| *k == key) {
                self.stats.tt_hits += 1;
                slots.push((mv, Err(i)));
                continue;
            }
            let value = value.or_else(|| self.lookup(&key));
            if let Some(v) = value {
                let cid = self.insert(key, child, Some(v), (0, 0));
                slots.push((mv, Ok(cid)));
                if decisive(v) {
                    break;
                }
                continue;
            }
            slots.push((mv, Err(fresh.len())));
            fresh.push((key, child));
        }
        let estimates = {
            let refs: Vec<&G> = fresh.iter().map(|(_, c)| c).collect();
            g.estimate_children(&refs)
        };
        debug_assert_eq!(estimates.len(), fresh.len());
        let ids: Vec<u32> = fresh
            .into_iter()
            .zip(estimates)
            .map(|((key, child), numbers)| self.insert(key, child, None, numbers))
            .collect();
        for (mv, slot) in slots {
            let cid = slot.unwrap_or_else(|i| ids[i]);
            if id == self.root {
                self.root_moves.push((mv, cid));
            }
            if !self.nodes[id as usize].children.contains(&cid) {
                self.link(id, cid);
            }
        }
    }

    /// Expands `id` by a decomposition: the node takes the formula's top connective, inner
    /// connectives become inner nodes (no position, no table entry) and leaves are positions.
    fn expand_formula(&mut self, id: u32, formula: Formula<G>) {
        let parts = match formula {
            Formula::Any(parts) => {
                self.nodes[id as usize].or = true;
                parts
            }
            Formula::All(parts) => {
                self.nodes[id as usize].or = false;
                parts
            }
            leaf @ Formula::Position(_) => vec![leaf],
        };
        for part in parts {
            let cid = self.formula_node(part);
            if !self.nodes[id as usize].children.contains(&cid) {
                self.link(id, cid);
            }
        }
    }

    /// The node of one part of a decomposition.
    fn formula_node(&mut self, part: Formula<G>) -> u32 {
        let (or, parts) = match part {
            Formula::Position(mut g) => {
                let value = g.simplify();
                let key = g.key();
                if let Some(cid) = self.table.get(&key) {
                    self.stats.tt_hits += 1;
                    return cid;
                }
                let value = value.or_else(|| self.lookup(&key));
                let numbers = if value.is_none() {
                    g.estimate()
                } else {
                    (0, 0)
                };
                return self.insert(key, g, value, numbers);
            }
            Formula::Any(parts) => (true, parts),
            Formula::All(parts) => (false, parts),
        };
        let id = self.slot(or, true, (1, 1));
        for part in parts {
            let cid = self.formula_node(part);
            if !self.nodes[id as usize].children.contains(&cid) {
                self.link(id, cid);
            }
        }
        self.nums[id as usize] = self.refresh(id);
        id
    }

    /// The numbers of node `id` from its children's (its own at a leaf), and the second least
    /// of the children's numbers it takes the least of ([`Node::second`]).
    fn recompute(&self, id: u32) -> ((Number, Number), Number) {
        let n = &self.nodes[id as usize];
        if n.children.is_empty() {
            if n.expanded && !solved(self.nums[id as usize]) {
                // An inner node with no parts: an empty OR is false, an empty AND true.
                let numbers = if n.or { (INFINITY, 0) } else { (0, INFINITY) };
                return (numbers, INFINITY);
            }
            return (self.nums[id as usize], INFINITY);
        }
        let node_type = if n.or { NodeType::Or } else { NodeType::And };
        super::combine_with_second(node_type, n.children.iter().map(|&c| self.nums[c as usize]))
    }

    /// [`Search::recompute`], keeping the second least number in the node; returns the
    /// numbers.
    fn refresh(&mut self, id: u32) -> (Number, Number) {
        let (numbers, second) = self.recompute(id);
        set_if_changed(&mut self.nodes[id as usize].second, second);
        numbers
    }

    /// The numbers of the expanded node `id` after one child's went from `old` to `new`
    /// ([`updated`]), keeping [`Node::second`] up to date; `None` where they need a scan of the
    /// children.
    fn update(
        &mut self,
        id: u32,
        old: (Number, Number),
        new: (Number, Number),
    ) -> Option<(Number, Number)> {
        let n = &mut self.nodes[id as usize];
        let (numbers, second) = updated(n.or, (self.nums[id as usize], n.second), old, new)?;
        set_if_changed(&mut n.second, second);
        Some(numbers)
    }

    /// Recomputes `leaf` and, breadth-first, every ancestor whose numbers change. A node is in
    /// the queue at most once at a time, so shared ancestors are not updated once per path.
    /// An ancestor that one child's change reached is updated from that change
    /// ([`Search::update`]) where it can be; one that several changes reached, or whose change
    /// does not tell, reads all its children, as do the leaf's parents here (see
    /// [`Search::propagate_from`]). The virtual numbers of leaves taken since the last back-up
    /// go up in the same pass ([`Search::settle`]).
    pub(super) fn propagate(&mut self, leaf: u32) {
        self.propagate_from(leaf, None);
    }

    /// [`Search::propagate`], told the numbers `leaf`'s parents were computed with, where they
    /// may differ from the numbers it holds now (a leaf freed by a thread of a
    /// [`super::Shared`] search, or given its own or its virtual numbers back by
    /// [`Search::set_virtual`]): its parents are then updated from its change too, and not at
    /// all if it has none.
    pub(super) fn propagate_from(&mut self, leaf: u32, seen: Option<(Number, Number)>) {
        // Its callers free `leaf` first (`Search::finish`) or settle first
        // (`Search::set_virtual`, `Search::hold_moves`).
        debug_assert!(
            !self.busy.iter().any(|b| b.unseen && b.id == leaf),
            "a leaf whose virtual numbers are not backed up starts no back-up"
        );
        self.back_up(Some((leaf, seen)));
    }

    /// Backs up the change of `leaf` ([`Search::propagate_from`]), if any, and the virtual
    /// numbers of the leaves taken since the last back-up ([`Search::settle`]) in one pass:
    /// those leaves first, before any node reads their numbers, each with the numbers its
    /// parents saw ([`Busy::own`]).
    fn back_up(&mut self, leaf: Option<(u32, Option<(Number, Number)>)>) {
        let mut queue = std::mem::take(&mut self.queue);
        for b in self.busy.iter_mut().filter(|b| b.unseen) {
            b.unseen = false;
            queue.push_back(Pending {
                id: b.id,
                from: Reached::Leaf(Some(b.own)),
            });
        }
        if let Some((id, seen)) = leaf {
            queue.push_back(Pending {
                id,
                from: Reached::Leaf(seen),
            });
        }
        while let Some(Pending { id, from }) = queue.pop_front() {
            let change = match from {
                Reached::Child(change) => change,
                Reached::Leaf(_) => None,
            };
            let numbers = match change.and_then(|(old, new)| self.update(id, old, new)) {
                Some(numbers) => {
                    debug_assert_eq!(
                        (numbers, self.nodes[id as usize].second),
                        self.recompute(id),
                        "node {id}"
                    );
                    numbers
                }
                None => self.refresh(id),
            };
            let prior = std::mem::replace(&mut self.nums[id as usize], numbers);
            // A leaf that `apply` solved (no moves) holds its value already and was logged
            // there; its parents still saw `seen`.
            if !solved(prior) && solved(numbers) {
                self.log_solved(id);
            }
            let change = match from {
                Reached::Child(_) => Some((prior, numbers)),
                Reached::Leaf(seen) => seen.map(|seen| (seen, numbers)),
            };
            if change.is_some_and(|(old, new)| old == new) {
                continue;
            }
            for &p in &self.nodes[id as usize].parents {
                // The queue is short (mostly one path up; at n = 12 of the (4, n, 7^tr) game at
                // most 92 entries, 2 to 4 on average): a scan finds a node in it, which
                // a second change makes read all its children. No mark in the nodes, whose
                // cache lines the selections of other threads read.
                match queue.iter_mut().find(|q| q.id == p) {
                    Some(Pending {
                        from: Reached::Child(queued),
                        ..
                    }) => *queued = None,
                    // A leaf the back-up starts from reads all its children anyway.
                    Some(_) => {}
                    None => queue.push_back(Pending {
                        id: p,
                        from: Reached::Child(change),
                    }),
                }
            }
        }
        self.queue = queue;
    }

    /// Collapses the least recently used unsolved subtrees back into leaves, then collects
    /// garbage. Of the expanded, unsolved position nodes other than the root, the `share`
    /// (0..1) least recently on the most-proving path forget their children: each keeps its
    /// (pn, dn), so the search's choices stay the same until it is selected again, and is then
    /// expanded again from its kept position (its subtree is rebuilt, with table hits where
    /// parts of it are still held). Children no longer reachable are freed. The search stays
    /// sound; it trades time for memory, as depth-first proof-number search does. Returns the
    /// nodes collapsed.
    fn collapse(&mut self, share: f64) -> u64 {
        let candidates: Vec<u32> = (0..self.nodes.len() as u32)
            .filter(|&id| {
                let n = &self.nodes[id as usize];
                id != self.root
                    && !self.pins.contains(&id)
                    && n.alive
                    && n.expanded
                    && !solved(self.nums[id as usize])
                    && self.states[id as usize].is_some()
            })
            .collect();
        if candidates.is_empty() {
            return 0;
        }
        let mut stamps: Vec<u32> = candidates
            .iter()
            .map(|&id| self.nodes[id as usize].touched)
            .collect();
        let k = ((stamps.len() as f64 * share) as usize).min(stamps.len() - 1);
        let cutoff = *stamps.select_nth_unstable(k).1;
        let mut collapsed = 0;
        for id in candidates {
            if self.nodes[id as usize].touched < cutoff {
                self.unlink_children(id);
                self.nodes[id as usize].expanded = false;
                collapsed += 1;
            }
        }
        self.stats.collapsed += collapsed;
        self.collect_garbage();
        collapsed
    }

    /// Frees what the search no longer needs, and returns the number of nodes freed. Policy:
    /// (1) every solved node forgets its children (its value is all the search needs of it);
    /// (2) every node no longer reachable from the root (or from the roots of runs under way
    /// and the leaves being expanded, see [`super::Shared`]) is freed, its table entry too.
    /// Unsolved nodes reachable from the root are kept, so the search goes on exactly as before
    /// except that a freed solved position met again is searched again. Runs on its own when
    /// [`Limits::max_bytes`] is exceeded.
    pub fn collect_garbage(&mut self) -> u64 {
        // 1. Solved nodes drop their children.
        for id in 0..self.nodes.len() as u32 {
            let n = &self.nodes[id as usize];
            if n.alive && solved(self.nums[id as usize]) && !n.children.is_empty() {
                self.unlink_children(id);
            }
        }
        // 2. Mark from the root, the roots of runs under way and the leaves being expanded.
        let mut marked = vec![false; self.nodes.len()];
        let mut stack = vec![self.root];
        stack.extend(&self.pins);
        stack.extend(self.busy.iter().map(|b| b.id));
        for &id in &stack {
            marked[id as usize] = true;
        }
        while let Some(id) = stack.pop() {
            for &c in &self.nodes[id as usize].children {
                if !marked[c as usize] {
                    marked[c as usize] = true;
                    stack.push(c);
                }
            }
        }
        // 3. Sweep. A kept node's children are kept, so a freed node's parents are freed too;
        // only its kept children's parent lists need mending.
        let mut freed = 0;
        for id in 0..self.nodes.len() {
            if !self.nodes[id].alive || marked[id] {
                continue;
            }
            let n = &mut self.nodes[id];
            n.alive = false;
            n.parents = SmallVec::new();
            let children = std::mem::take(&mut n.children);
            self.links -= 2 * children.len();
            for c in children {
                if marked[c as usize] {
                    remove_one(&mut self.nodes[c as usize].parents, id as u32);
                }
            }
            self.states[id] = None;
            self.free.push(id as u32);
            freed += 1;
        }
        let nodes = &self.nodes;
        self.table.retain(|id| nodes[id as usize].alive);
        // A freed slot may hold another node later: the root's moves forget freed children.
        self.root_moves.retain(|&(_, id)| nodes[id as usize].alive);
        // The table keeps its buckets unless it is nearly empty: growing again would rehash
        // it, holding the old and the new buckets at once (at n = 14 a 2.7 GiB table doubling
        // to 5.5 GiB lifted the process's peak from 15 to 23 GB).
        if self.table.len() < self.table.capacity() / 8 {
            self.table.shrink_to_fit();
        }
        self.stats.gc_runs += 1;
        self.stats.nodes_freed += freed;
        freed
    }

    /// Drops the children of `id`, and `id` from their parent lists.
    fn unlink_children(&mut self, id: u32) {
        let children = std::mem::take(&mut self.nodes[id as usize].children);
        self.links -= 2 * children.len();
        for c in children {
            remove_one(&mut self.nodes[c as usize].parents, id);
        }
    }
}

/// The (pn, dn) a leaf being expanded shows the other threads ([`VIRTUAL_FACTOR`]): finite
/// and non-zero, as the leaf's own are.
fn virtual_numbers((pn, dn): (Number, Number)) -> (Number, Number) {
    let up = |x: Number| x.saturating_mul(VIRTUAL_FACTOR).min(INFINITY - 1);
    let down = |x: Number| (x / VIRTUAL_FACTOR).max(1);
    if pn <= dn {
        (up(pn), down(dn))
    } else {
        (down(pn), up(dn))
    }
}

/// The record of solved positions ([`Search::record_solved`]).
struct SolvedLog<K> {
    entries: Vec<(K, Value)>,
    limit: usize,
}

impl<K> SolvedLog<K> {
    fn push(&mut self, key: K, value: Value) {
        if self.entries.len() >= self.limit {
            self.entries.drain(..self.limit / 2);
        }
        // Grown by doubling up to the limit, never past it (its bytes count in the cap).
        let (len, capacity) = (self.entries.len(), self.entries.capacity());
        if len == capacity {
            self.entries
                .reserve_exact(capacity.max(4).min(self.limit - len));
        }
        self.entries.push((key, value));
    }
}

/// A leaf a thread of a [`super::Shared`] search is expanding, with its own (pn, dn), and
/// whether it shows its virtual numbers ([`Search::take`]).
#[derive(Debug, Clone, Copy)]
struct Busy {
    id: u32,
    own: (Number, Number),
    shown: bool,
    /// Shows its virtual numbers, which the DAG above it does not show yet
    /// ([`Search::settle`]).
    unseen: bool,
}

/// Removes one occurrence of `x` from `v` (order not kept).
fn remove_one(v: &mut SmallVec<[u32; 4]>, x: u32) {
    if let Some(i) = v.iter().position(|&y| y == x) {
        v.swap_remove(i);
    }
}

/// A child of an expanded position: the move, the simplified position, its key, and its
/// value if simplification decided it.
pub(super) struct Child<G: Game> {
    mv: G::Move,
    position: G,
    key: G::Key,
    value: Option<Value>,
}

impl<G: Game> Child<G> {
    /// The child by move `mv`: `position` simplified and keyed, and with `prepare`, if
    /// simplification left it undecided, [prepared](Game::prepare) for its estimate.
    pub(super) fn new(mv: G::Move, mut position: G, prepare: bool) -> Self {
        let value = position.simplify();
        let key = position.key();
        if prepare && value.is_none() {
            position.prepare();
        }
        Child {
            mv,
            position,
            key,
            value,
        }
    }

    /// Whether simplification decided it in favour of the side to move at its parent (OR when
    /// `or`): the parent's other children cannot change the parent's value.
    pub(super) fn decides(&self, or: bool) -> bool {
        self.value.is_some_and(|v| (v == Value::Proven) == or)
    }
}

/// What expanding a leaf yields, computed from its position alone (no DAG, no table), so that
/// the threads of a [`super::Shared`] search compute it outside the lock.
pub(super) enum Expansion<G: Game> {
    /// A decomposition ([`Game::decompose`]).
    Parts(Formula<G>),
    /// The children, simplified, in move order, up to the first that simplification decides
    /// in favour of the side to move (the rest cannot change the node's value).
    Moves(Vec<Child<G>>),
}

impl<G: Game> Expansion<G> {
    /// The keys of the children it holds by their moves.
    pub(super) fn keys(&self) -> impl Iterator<Item = &G::Key> {
        let children = match self {
            Expansion::Moves(children) => &children[..],
            Expansion::Parts(_) => &[],
        };
        children.iter().map(|c| &c.key)
    }

    /// The expansion of `g`; with `prepare`, every undecided child is also
    /// [prepared](Game::prepare) for its estimate.
    pub(super) fn of(g: &G, prepare: bool) -> Self {
        match g.decompose() {
            Some(formula) => Expansion::Parts(formula),
            None => Expansion::Moves(Self::moves(g, prepare)),
        }
    }

    /// The children of `g` by its moves (as in [`Expansion::of`]), even where `g` decomposes.
    pub(super) fn moves(g: &G, prepare: bool) -> Vec<Child<G>> {
        let or = g.node_type() == NodeType::Or;
        let mut children = Vec::new();
        for (mv, position) in g.children() {
            let child = Child::new(mv, position, prepare);
            let decides = child.decides(or);
            children.push(child);
            if decides {
                break;
            }
        }
        children
    }
}

fn value_of(numbers: (Number, Number)) -> Option<Value> {
    match numbers {
        (0, _) => Some(Value::Proven),
        (_, 0) => Some(Value::Disproven),
        _ => None,
    }
}

#[cfg(test)]
impl<G: Game> Search<G> {
    /// Whether the table holds a node for `key`.
    pub(super) fn in_table(&self, key: &G::Key) -> bool {
        self.table.get(key).is_some()
    }

    /// How many leaves threads (or an interleaved run) have taken.
    pub(super) fn taken(&self) -> usize {
        self.busy.len()
    }

    /// The (pn, dn) of every node, dead ones included.
    pub(super) fn all_numbers(&self) -> Vec<(Number, Number)> {
        self.nums.clone()
    }

    /// Panics unless every expanded, unsolved live node's numbers, and the second least number
    /// it keeps ([`Node::second`]), are those of its children.
    pub(super) fn assert_numbers_consistent(&self) {
        for (id, n) in self.nodes.iter().enumerate().filter(|(_, n)| n.alive) {
            if n.expanded && !solved(self.nums[id]) && !n.children.is_empty() {
                let kept = (self.nums[id], n.second);
                assert_eq!(kept, self.recompute(id as u32), "node {id}");
            }
        }
    }

    /// Panics unless the DAG's links agree: every child of a live node is live and lists the
    /// node among its parents exactly once, every parent of a live node is live and lists it
    /// among its children, and the link count is right.
    pub(super) fn assert_consistent(&self) {
        let mut links = 0;
        for (id, n) in self.nodes.iter().enumerate().filter(|(_, n)| n.alive) {
            links += 2 * n.children.len();
            for &c in &n.children {
                let c = &self.nodes[c as usize];
                assert!(c.alive, "a child of {id} was freed");
                let up = c.parents.iter().filter(|&&p| p as usize == id).count();
                assert_eq!(up, 1, "a child of {id} lists it {up} times");
            }
            for &p in &n.parents {
                assert!(self.nodes[p as usize].alive, "a parent of {id} was freed");
                assert!(self.nodes[p as usize].children.contains(&(id as u32)));
            }
        }
        assert_eq!(links, self.links);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicU64;

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
            // The previous player took the last stone.
            let last_mover_wins = if self.or_to_move {
                Value::Disproven
            } else {
                Value::Proven
            };
            (self.n == 0).then_some(last_mover_wins)
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

    /// [`updated`] against [`super::super::combine_with_second`] on every child's change of
    /// random nodes: small numbers (so that many are equal), the edges, and sums that overflow.
    #[test]
    fn an_update_from_one_child_agrees_with_the_childrens_combination() {
        use rand::{Rng, SeedableRng, rngs::StdRng};
        let mut rng = StdRng::seed_from_u64(7);
        let number = |rng: &mut StdRng| match rng.random_range(0..8) {
            0 => INFINITY,
            1 => INFINITY - 1,
            2 => INFINITY / 2 + rng.random_range(0..4),
            3 => rng.random(),
            _ => rng.random_range(0..6),
        };
        let (mut told, mut cases) = (0, 0);
        for _ in 0..20_000 {
            let or = rng.random_bool(0.5);
            let node_type = if or { NodeType::Or } else { NodeType::And };
            let k = rng.random_range(1..6);
            let mut children: Vec<(Number, Number)> = (0..k)
                .map(|_| (number(&mut rng), number(&mut rng)))
                .collect();
            let before = super::super::combine_with_second(node_type, children.iter().copied());
            let i = rng.random_range(0..k);
            let old = children[i];
            children[i] = (number(&mut rng), number(&mut rng));
            let want = super::super::combine_with_second(node_type, children.iter().copied());
            cases += 1;
            if let Some(got) = updated(or, before, old, children[i]) {
                assert_eq!(got, want, "{or} {before:?} {old:?} -> {children:?}");
                told += 1;
            }
        }
        assert!(told * 4 > cases, "the update told {told} of {cases}");
    }

    /// Nim whose empty pile is left to the expansion: no move, so the side to move loses
    /// (the same values as [`Nim`]'s).
    #[derive(Clone, Debug)]
    struct NoMoveNim(Nim);

    impl Game for NoMoveNim {
        type Key = (u32, bool);
        type Move = u32;
        fn node_type(&self) -> NodeType {
            self.0.node_type()
        }
        fn simplify(&mut self) -> Option<Value> {
            None
        }
        fn children(&self) -> Vec<(u32, Self)> {
            let moves = self.0.children().into_iter();
            moves.map(|(m, g)| (m, NoMoveNim(g))).collect()
        }
        fn key(&self) -> (u32, bool) {
            self.0.key()
        }
    }

    #[test]
    fn a_position_without_moves_is_logged_once() {
        let mut s = Search::new(NoMoveNim(Nim {
            n: 9,
            or_to_move: true,
        }));
        s.record_solved(Some(usize::MAX));
        assert_eq!(s.run(&Limits::default()), Outcome::Solved(Value::Disproven));
        let log = s.take_solved();
        let mut keys: Vec<_> = log.iter().map(|&(k, _)| k).collect();
        keys.sort();
        keys.dedup();
        assert_eq!(keys.len(), log.len(), "{log:?}");
        assert!(log.iter().any(|&(k, _)| k.0 == 0), "{log:?}");
        for ((n, or_to_move), v) in log {
            let or_wins = (n % 3 != 0) == or_to_move;
            assert_eq!(v == Value::Proven, or_wins, "{n} {or_to_move}");
        }
    }

    /// A taken leaf's virtual numbers go against its lean, by [`VIRTUAL_FACTOR`], and stay
    /// finite and non-zero (so that they never solve a node), also at the edges.
    #[test]
    fn virtual_numbers_go_against_the_leafs_lean() {
        let f = VIRTUAL_FACTOR;
        assert_eq!(virtual_numbers((3, 3)), (3 * f, 1));
        assert_eq!(virtual_numbers((2, 5 * f)), (2 * f, 5));
        assert_eq!(virtual_numbers((5 * f + 7, 2)), (5, 2 * f));
        assert_eq!(virtual_numbers((1, 1)), (f, 1));
        let top = INFINITY - 1;
        assert_eq!(virtual_numbers((top, top)), (top, top / f));
        assert_eq!(virtual_numbers((top, 1)), (top / f, f));
        assert_eq!(virtual_numbers((1, top)), (f, top / f));
        for pn in [1, 2, 63, 64, 65, 1000, top / f, top / 2, top] {
            for dn in [1, 2, 63, 64, 65, 1000, top / f, top / 2, top] {
                let (vpn, vdn) = virtual_numbers((pn, dn));
                assert!((1..INFINITY).contains(&vpn) && (1..INFINITY).contains(&vdn));
                if pn <= dn {
                    assert!(vpn >= pn && vdn <= dn, "{pn} {dn}");
                } else {
                    assert!(vpn <= pn && vdn >= dn, "{pn} {dn}");
                }
            }
        }
    }

    #[test]
    fn a_node_stays_small() {
        // A search holds one per position, with its numbers (16 bytes), its key's slot (48
        // for (4, n, 7^tr)) and its position (64): 8 bytes more is 4% more memory. (The last
        // 8 were `Node::second`, which spares back-propagation reading every child.)
        assert!(std::mem::size_of::<Node>() <= 64);
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

    /// Nim's value for the side to move: OR wins where `n` is not a multiple of 3.
    fn nim_value((n, or_to_move): (u32, bool)) -> Value {
        if (n % 3 != 0) == or_to_move {
            Value::Proven
        } else {
            Value::Disproven
        }
    }

    /// Values known from outside the search ([`Search::with_known`]) solve nodes without
    /// search: with every position but the root known, only the root is expanded; with those
    /// 6 stones or more below the root known, fewer than half the nodes are created; the value
    /// is right either way, also in a shared search.
    #[test]
    fn known_values_solve_nodes_without_search() {
        let root = Nim {
            n: 30,
            or_to_move: true,
        };
        let all_but_root: Known<(u32, bool)> = Box::new(|&k| (k.0 != 30).then(|| nim_value(k)));
        let mut s = Search::with_known(root.clone(), all_but_root);
        s.record_solved(Some(usize::MAX));
        assert_eq!(s.run(&Limits::default()), Outcome::Solved(Value::Disproven));
        assert_eq!(s.stats().nodes_expanded, 1, "the root alone");
        assert_eq!(s.stats().nodes_created, 3);
        let logged = s.take_solved();
        for key in [(29, false), (28, false), (30, true)] {
            assert!(logged.contains(&(key, nim_value(key))), "{key:?} logged");
        }
        for n in 20..40 {
            for or_to_move in [true, false] {
                let root = Nim { n, or_to_move };
                // The positions 6 stones or more below the root.
                let small = || -> Known<(u32, bool)> {
                    Box::new(move |&k| (k.0 + 6 <= n).then(|| nim_value(k)))
                };
                let mut known = Search::with_known(root.clone(), small());
                let mut plain = Search::new(root.clone());
                let want = Outcome::Solved(nim_value((n, or_to_move)));
                assert_eq!(known.run(&Limits::default()), want, "n={n} {or_to_move}");
                assert_eq!(plain.run(&Limits::default()), want);
                assert!(2 * known.stats().nodes_created < plain.stats().nodes_created);
                let shared =
                    super::super::Shared::new(Search::with_known(root.clone(), small()), 2);
                let nodes = AtomicU64::new(0);
                let ran = shared.run_helped(1, root, &Limits::default(), &nodes);
                assert_eq!(
                    ran.expect("no panic"),
                    Ok(want),
                    "shared, n={n} {or_to_move}"
                );
                assert!(2 * nodes.into_inner() < plain.stats().nodes_created);
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

    #[test]
    fn the_record_of_solved_positions_keeps_the_latest_up_to_its_limit() {
        let root = TreeNim {
            nim: Nim {
                n: 14,
                or_to_move: true,
            },
            path: 0,
        };
        let limits = Limits {
            max_nodes: Some(3_000),
            ..Limits::default()
        };
        let mut all = Search::new(root.clone());
        all.record_solved(Some(usize::MAX));
        all.run(&limits);
        let all = all.take_solved();
        assert!(all.len() > 40, "{}", all.len());
        let mut capped = Search::new(root);
        capped.record_solved(Some(20));
        capped.run(&limits);
        let kept = capped.take_solved();
        // Full at 20, the older 10 dropped, then refilled: the latest 10 to 20, in order.
        assert!((10..=20).contains(&kept.len()), "{}", kept.len());
        assert_eq!(kept[..], all[all.len() - kept.len()..]);
        // The record never holds room for more than its limit (its bytes count in the cap).
        let mut log = SolvedLog {
            entries: Vec::new(),
            limit: 1_000,
        };
        for i in 0..10_000u32 {
            log.push(i, Value::Proven);
            assert!(
                log.entries.capacity() <= 1_000,
                "{}",
                log.entries.capacity()
            );
        }
    }

    #[test]
    fn a_new_root_reuses_the_dag_and_reports_only_new_facts() {
        let tree = |n: u32, or_to_move: bool, path: u64| TreeNim {
            nim: Nim { n, or_to_move },
            path,
        };
        let root = tree(14, true, 0);
        let mut s = Search::new(root.clone());
        let out = s.run(&Limits {
            max_nodes: Some(300),
            ..Limits::default()
        });
        assert!(matches!(out, Outcome::Unknown { .. }));
        let first = s.take_solved();
        assert!(first.is_empty(), "not recorded unless asked");
        let mut s = Search::new(root.clone());
        s.record_solved(Some(usize::MAX));
        let out = s.run(&Limits {
            max_nodes: Some(300),
            ..Limits::default()
        });
        assert!(matches!(out, Outcome::Unknown { .. }));
        let first = s.take_solved();
        let mut all: Vec<_> = s.solved().collect();
        let mut logged = first.clone();
        all.sort_by_key(|&(k, _)| k);
        logged.sort_by_key(|&(k, _)| k);
        assert_eq!(
            logged, all,
            "the log holds every position the run solved, once"
        );
        assert!(!first.is_empty());
        // The same root again keeps its move list; another root starts with none.
        let moves = s.root_children().len();
        assert!(moves > 0);
        s.set_root(root.clone());
        assert_eq!(s.root_children().len(), moves);
        // Each child of the root as the next job: the subtree already built is reused (no
        // node is created again) and the value agrees with a fresh search.
        for (_, child) in root.children() {
            let key = child.key();
            let created = s.stats().nodes_created;
            s.set_root(child.clone());
            assert_eq!(s.stats().nodes_created, created, "{key:?} is in the table");
            assert!(s.root_children().is_empty());
            let out = s.run(&Limits::default());
            assert_eq!(out, Search::new(child).run(&Limits::default()));
            let new = s.take_solved();
            assert!(new.iter().all(|f| !first.contains(f)), "only new facts");
        }
        // A position new to the table is added; the old nodes stay.
        let len = s.table_len();
        s.set_root(tree(5, false, 99));
        assert_eq!(s.table_len(), len + 1);
        let fresh = Search::new(tree(5, false, 99)).run(&Limits::default());
        assert_eq!(s.run(&Limits::default()), fresh);
    }

    /// Nim whose key also holds the moves so far: a tree, no transpositions.
    #[derive(Clone, Debug)]
    struct TreeNim {
        nim: Nim,
        path: u64,
    }

    impl Game for TreeNim {
        type Key = ((u32, bool), u64);
        type Move = u32;
        fn node_type(&self) -> NodeType {
            self.nim.node_type()
        }
        fn simplify(&mut self) -> Option<Value> {
            self.nim.simplify()
        }
        fn children(&self) -> Vec<(u32, Self)> {
            self.nim
                .children()
                .into_iter()
                .map(|(t, nim)| {
                    let path = self.path.wrapping_mul(3).wrapping_add(u64::from(t));
                    (t, TreeNim { nim, path })
                })
                .collect()
        }
        fn key(&self) -> Self::Key {
            (self.nim.key(), self.path)
        }
    }

    #[test]
    fn garbage_collection_frees_solved_subtrees_and_keeps_the_value() {
        let root = TreeNim {
            nim: Nim {
                n: 14,
                or_to_move: true,
            },
            path: 0,
        };
        let mut s = Search::new(root);
        let out = s.run(&Limits {
            max_nodes: Some(300),
            ..Limits::default()
        });
        assert!(matches!(out, Outcome::Unknown { .. }));
        let before = s.table_len();
        s.assert_consistent();
        let freed = s.collect_garbage();
        s.assert_consistent();
        assert!(freed > 0, "solved subtrees are freed");
        assert_eq!(s.table_len(), before - freed as usize);
        assert_eq!(s.stats().gc_runs, 1);
        assert_eq!(s.run(&Limits::default()), Outcome::Solved(Value::Proven));
        // Under a cap well below the uncapped peak, collections run and free nodes; the run
        // ends solved (rightly) or, when the unsolved part alone is too big, unknown.
        let (root, cap, _) = tree_and_cap(23, 2);
        let mut capped = Search::new(root);
        let out = capped.run(&Limits {
            max_bytes: Some(cap),
            ..Limits::default()
        });
        assert_ne!(out, Outcome::Solved(Value::Disproven));
        assert!(capped.stats().gc_runs > 0);
        assert!(capped.stats().nodes_freed > 0);
    }

    #[test]
    fn thresholds_stop_the_search_once_the_root_reaches_them() {
        let root = Nim {
            n: 40,
            or_to_move: true,
        };
        let mut s = Search::new(root);
        let (pn, dn) = match s.run(&Limits {
            max_nodes: Some(2),
            ..Limits::default()
        }) {
            Outcome::Unknown { pn, dn } => (pn, dn),
            solved => panic!("{solved:?}"),
        };
        let out = s.run(&Limits {
            thresholds: Some((pn + 1, dn + 1)),
            ..Limits::default()
        });
        let Outcome::Unknown { pn: p, dn: d } = out else {
            panic!("stopped at the thresholds, not solved: {out:?}");
        };
        assert!(
            p > pn || d > dn,
            "({p}, {d}) reached ({}, {})",
            pn + 1,
            dn + 1
        );
        // Thresholds already reached: no expansion at all.
        let expanded = s.stats().nodes_expanded;
        s.run(&Limits {
            thresholds: Some((1, 1)),
            ..Limits::default()
        });
        assert_eq!(s.stats().nodes_expanded, expanded);
    }

    /// The tree of Nim(n), OR to move, its uncapped search's peak bytes over `share`, and that
    /// search's outcome.
    fn tree_and_cap(n: u32, share: usize) -> (TreeNim, usize, Outcome) {
        let root = TreeNim {
            nim: Nim {
                n,
                or_to_move: true,
            },
            path: 0,
        };
        let mut free = Search::new(root.clone());
        let out = free.run(&Limits::default());
        (root, free.stats().peak_bytes as usize / share, out)
    }

    #[test]
    fn collapsing_unsolved_subtrees_solves_within_a_small_cap() {
        // A tree (no transpositions) whose unsolved part outgrows a quarter of the uncapped
        // peak: only collapsing unsolved subtrees keeps it under the cap.
        for (n, want) in [(26, Value::Proven), (27, Value::Disproven)] {
            let (root, cap, free) = tree_and_cap(n, 4);
            assert_eq!(free, Outcome::Solved(want));
            let mut capped = Search::new(root);
            let out = capped.run(&Limits {
                max_bytes: Some(cap),
                ..Limits::default()
            });
            assert_eq!(out, Outcome::Solved(want), "n = {n}");
            capped.assert_consistent();
            assert!(
                capped.stats().collapsed > 0,
                "n = {n}: {:?}",
                capped.stats()
            );
            let peak = capped.stats().peak_bytes as usize;
            assert!(peak <= cap + cap / 4, "n = {n}: peak {peak}, cap {cap}");
        }
    }

    #[test]
    fn a_cap_beyond_the_address_space_is_not_reserved() {
        // Slots for usize::MAX bytes: a reservation no system grants (reserve_exact aborts).
        let (root, _, _) = tree_and_cap(26, 4);
        let mut s = Search::new(root);
        let out = s.run(&Limits {
            max_bytes: Some(usize::MAX),
            ..Limits::default()
        });
        assert_eq!(out, Outcome::Solved(Value::Proven));
        s.assert_consistent();
    }

    #[test]
    fn collapsing_goes_on_when_the_clock_wraps() {
        // The same capped search, with the clock 2,000 selections short of overflowing: it is
        // halved with the stamps along the way and the least recently used nodes still go.
        let (root, cap, _) = tree_and_cap(26, 4);
        let mut capped = Search::new(root);
        capped.clock = u32::MAX - 2_000;
        for n in &mut capped.nodes {
            n.touched = capped.clock;
        }
        let out = capped.run(&Limits {
            max_bytes: Some(cap),
            ..Limits::default()
        });
        assert_eq!(out, Outcome::Solved(Value::Proven));
        assert!(capped.clock < u32::MAX / 2 + 1_000_000, "{}", capped.clock);
        capped.assert_consistent();
        assert!(capped.stats().collapsed > 0, "{:?}", capped.stats());
        let peak = capped.stats().peak_bytes as usize;
        assert!(peak <= cap + cap / 4, "peak {peak}, cap {cap}");
    }
}
