//! One search DAG that several threads work on at once. A run ([`Shared::run`]) selects its
//! leaves, adds their children and backs up the numbers under the lock (the DAG's
//! bookkeeping); the expansions themselves (the game's work: move generation, simplification,
//! decomposition) are computed outside it, split into pieces (a leaf's opening, one piece per
//! child; see pipeline.rs) that any thread takes: the run's own while it waits, helpers
//! ([`Shared::help`]), other runs. So one run is the only thread that changes the DAG on its
//! behalf, and the order of its expansions does not depend on which thread computed what.
//!
//! Shared among more than one thread ([`Shared::new`]), a run keeps [`LEAVES_IN_FLIGHT`]
//! leaves taken at once, so that helpers compute the next leaves' pieces while the run updates
//! the DAG. A taken leaf shows virtual proof and disproof numbers, those of a leaf whose
//! expansion went against the way it leans (`VIRTUAL_FACTOR` in search.rs: a leaf that leans
//! to a proof shows its pn 64 times over and its dn a 64th), so that the next selection turns
//! to the node that would be most-proving if that leaf disappointed; a leaf still taken at the
//! end of a selection is passed by, for the next one in most-proving order (see
//! [`Search::select`]). This is how shared-memory parallel proof-number searches keep threads
//! apart (Kaneko, "Parallel depth first proof number search", AAAI 2010, with virtual proof
//! numbers; Wu et al.'s job-level PNS, IEEE TCIAIG 2013, with virtual wins and losses; Saito,
//! Winands and van den Herik, "Randomized parallel proof-number search", ACG 2009, by
//! near-best selection). Reports and thresholds see the DAG's own numbers ([`Shared::lock`],
//! [`Search::set_virtual`]; a threshold that only the own numbers reach is seen within 64
//! expansions, see [`Search::stops`]).

use std::collections::VecDeque;
use std::panic::{AssertUnwindSafe, catch_unwind, resume_unwind};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Instant;

use super::pipeline::{Cursor, Panic, Pipeline, RunGuard, Work};
use super::search::Expansion;
use super::{Game, Limits, Outcome, Search};

/// Attempts to take the lock, spinning, before a thread sleeps on it: the lock is held for a
/// few microseconds per expansion, less than a sleep and wake-up cost.
const SPINS: u32 = 4_000;

/// Leaves a run keeps taken at once when more than one thread works on the search
/// ([`Shared::new`]): enough that a helper finds a piece to compute while the run updates the
/// DAG. The order of a run's expansions is then that of [`Search::run_interleaved`] with this
/// many leaves and equal times, whichever thread computes what. On the empty board (nodes
/// created, root included; a worker's report counts one fewer), with the virtual numbers
/// against a taken leaf's lean (`VIRTUAL_FACTOR` in search.rs; 2026-11-30): 480,058 at n = 12
/// against one leaf's 486,316, 2,696,562 at n = 13 against 3,122,364, and two slots' jobs
/// 2,221,962 at n = 13 (one slot's 2,218,565); with 2 leaves 490,106, 3,537,923 and 2,429,127;
/// 3: 525,604, 3,583,068 and 2,707,486; 5: 503,763, 2,892,633 and 2,423,161; 6: 513,342,
/// 3,309,510 and 3,125,529; 8: 525,396, 3,066,775 and 2,389,199. With both numbers 4 times
/// over (the virtual numbers until session 45): 538,460 at n = 12, 2,876,912 at n = 13;
/// with 2 leaves 542,149 and 2,867,344;
/// 3: 556,459 and 2,723,049; 5: 554,995 and 3,022,135; 6: 565,424 and 3,242,917; 8: 569,549 and
/// 3,193,689. With 2, a worker's jobs took 8.6 M nodes at n = 13, against 2.2 M with 3 or 4. A
/// build with one leaf in flight on two threads (its pieces computed by both) creates the
/// direct search's nodes, but its next leaf waits for the whole expansion and back-up: two
/// threads were then 1.33x (n = 12) and 1.22x (n = 13) faster than one (medians of 3
/// alternating rounds, 2026-11-27), against 1.51x and 1.58x with 4 in the same session. A build
/// with one leaf taken whose helper computes ahead the expansion of the leaf most-proving
/// selection would take next if the taken one showed its virtual numbers (its nodes the direct
/// search's; the next leaf had been computed ahead in 75% of the selections at n = 12) was no
/// faster than 4 leaves in flight: medians of `--threads 1 2 --repeat 6` 1.21x and 1.36x
/// against 1.37x and 1.43x, of `--workers 1 2 --repeat 5` 1.32x and 1.44x against 1.37x and
/// 1.30x (n = 12, alternating invocations, 2026-11-27). Its two threads spent 2.26 s on pieces
/// where one thread spends 1.69 s (the guesses not taken, and slower pieces), and its helper
/// spun 8% to 13% of the time.
pub const LEAVES_IN_FLIGHT: usize = 4;

/// A [`Search`] behind a lock, run by several threads at once ([`Shared::run`],
/// [`Shared::help`]).
pub struct Shared<G: Game> {
    search: Mutex<Search<G>>,
    /// The expansions under way, which every thread computes pieces of.
    pipeline: Pipeline<G>,
    /// Leaves a run keeps taken at once: 1, or [`LEAVES_IN_FLIGHT`].
    in_flight: usize,
}

/// A thread panicked while it held the search's lock: the DAG may be half updated and is not
/// to be used again.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Poisoned;

impl std::fmt::Display for Poisoned {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a search thread panicked while updating the shared DAG")
    }
}

impl std::error::Error for Poisoned {}

impl<G: Game> Shared<G> {
    /// Shares `search` (its DAG, table, known values and solved-position log) among `threads`
    /// threads that run or help it at once. With one, a run expands one leaf at a time, whole,
    /// in its own thread, as the engine's [`Search::run`] does (a helper would find nothing to
    /// do); with more, a run keeps [`LEAVES_IN_FLIGHT`] leaves taken, so that the other threads
    /// ([`Shared::help`], or other runs) have pieces of their expansions to compute.
    pub fn new(search: Search<G>, threads: usize) -> Self {
        Self {
            search: Mutex::new(search),
            pipeline: Pipeline::new(threads),
            in_flight: if threads > 1 { LEAVES_IN_FLIGHT } else { 1 },
        }
    }

    /// The search, locked: for reports between runs ([`Search::child_reports`],
    /// [`Search::take_solved`], [`Search::stats`]). Runs wait meanwhile; the leaves they are
    /// expanding show their own numbers, not their virtual ones, until the guard is dropped.
    ///
    /// # Errors
    /// [`Poisoned`] when a thread panicked while holding the lock.
    pub fn lock(&self) -> Result<Locked<'_, G>, Poisoned> {
        let mut search = self.lock_raw()?;
        search.set_virtual(false);
        Ok(Locked(search))
    }

    /// The search, locked, as the runs see it (with virtual numbers).
    fn lock_raw(&self) -> Result<MutexGuard<'_, Search<G>>, Poisoned> {
        for _ in 0..SPINS {
            match self.search.try_lock() {
                Ok(g) => return Ok(g),
                Err(std::sync::TryLockError::Poisoned(_)) => return Err(Poisoned),
                Err(std::sync::TryLockError::WouldBlock) => std::hint::spin_loop(),
            }
        }
        self.search.lock().map_err(|_| Poisoned)
    }

    /// Searches from `root` (found in the table or added to it) until it is solved or a limit
    /// is reached, while other threads may run from other roots (or the same one) or help, and
    /// returns the root's outcome. Every node this run creates is added to `nodes`, which the
    /// runs of one job share, and [`Limits::max_nodes`] is compared with `nodes`, not with the
    /// search's total. [`Limits::max_bytes`] applies to the whole DAG. The root is made the
    /// search's root ([`Search::set_root`]) and is kept, with every leaf being expanded, by the
    /// garbage collector until the run ends. It is expanded by its moves, not by a
    /// decomposition ([`Game::decompose`]), and one held by its parts is expanded again by its
    /// moves: a job reports the root's move children ([`Search::child_reports`]).
    ///
    /// The run selects its leaves and adds their children to the DAG under the lock; the
    /// expansions themselves (the game's work) are computed outside it. A search shared by
    /// more than one thread ([`Shared::new`]) splits them into pieces (one child's
    /// simplification, or a leaf's opening: its decomposition or its list of moves) that this
    /// thread and any other that helps compute, and this thread computes pieces of other runs'
    /// expansions while it waits for its own.
    ///
    /// # Errors
    /// [`Poisoned`] when a thread panicked while holding the lock.
    ///
    /// # Panics
    /// A panic inside the game's code, outside the lock (in this thread or in one computing a
    /// piece of this run's expansions), is passed on to the caller and leaves the search
    /// usable.
    pub fn run(&self, root: G, limits: &Limits, nodes: &AtomicU64) -> Result<Outcome, Poisoned> {
        let start = Instant::now();
        let _running = self.pipeline.run();
        // The root's moves, computed outside the lock: a run's root is expanded by its moves,
        // also where it decomposes, since its move children are what a job reports.
        let mut position = root.clone();
        let moves = position
            .simplify()
            .is_none()
            .then(|| Expansion::moves(&position, true));
        let mut s = self.lock_raw()?;
        s.set_root(root);
        let root = s.root_id();
        s.pins.push(root);
        let mut hint = s.hint();
        // A run that stops at once (cancelled, or out of budget) creates nothing.
        if let Some(moves) = moves
            && !s.stops(root, limits, nodes.load(Ordering::Relaxed))
        {
            nodes.fetch_add(s.hold_moves(root, &position, moves), Ordering::Relaxed);
        }
        let mut cursor = Cursor::default();
        let mut taken = Taken {
            works: VecDeque::with_capacity(self.in_flight),
            pipeline: &self.pipeline,
        };
        while !s.stops(root, limits, nodes.load(Ordering::Relaxed)) {
            if s.check_due() && !s.within(limits) {
                break;
            }
            // Virtual numbers for this run's other leaves and for other runs to see: one run
            // alone with one leaf at a time is the engine's search.
            let show = self.in_flight > 1 || s.pins.len() > 1;
            while taken.works.len() < self.in_flight {
                let Some(leaf) = s.select(root) else {
                    break;
                };
                // Put up at once: helpers start on it while this thread selects, or backs up
                // and expands, the next leaves.
                let work = Arc::new(Work::new(leaf, s.position(leaf)));
                if self.in_flight > 1 {
                    self.pipeline.push(&work);
                }
                taken.works.push_back(work);
                s.take(leaf, show);
            }
            s.refresh_hint(&mut hint);
            drop(s);
            let Some(work) = taken.works.pop_front() else {
                // Every leaf below the root is being expanded by another run.
                if !self.pipeline.work_one(&mut cursor) {
                    std::thread::yield_now();
                }
                s = self.lock_raw()?;
                continue;
            };
            // Outside the lock, every panic goes to the one path below that gives the leaves back.
            let expansion = catch_unwind(AssertUnwindSafe(|| -> Result<Expansion<G>, Panic> {
                let expansion = if self.in_flight == 1 {
                    // One thread: the engine's expansion, whole, in this thread.
                    Expansion::of(&work.position, true)
                } else {
                    let mut spins = 0u32;
                    while !work.complete() {
                        if !self.pipeline.work_on(&work) && !self.pipeline.work_one(&mut cursor) {
                            spin(&mut spins);
                        }
                    }
                    self.pipeline.remove(&work);
                    work.expansion()?
                };
                hint.touch(expansion.keys());
                Ok(expansion)
            }))
            .unwrap_or_else(Err);
            s = self.lock_raw()?;
            let expansion = match expansion {
                Ok(e) => e,
                Err(panic) => {
                    s.finish(work.leaf, None);
                    taken.give_back(&mut s);
                    unpin(&mut s, root);
                    drop(s);
                    resume_unwind(panic);
                }
            };
            let before = s.stats().nodes_created;
            s.finish(work.leaf, Some((&work.position, expansion)));
            nodes.fetch_add(s.stats().nodes_created - before, Ordering::Relaxed);
        }
        taken.give_back(&mut s);
        unpin(&mut s, root);
        s.sample_bytes();
        s.add_elapsed(start.elapsed());
        // Other runs' leaves may still show virtual numbers: the root's own ones.
        Ok(s.with_own_numbers(|s| s.outcome_of(root)))
    }

    /// Computes pieces of the expansions the runs of this search have under way (see
    /// [`Shared::run`]) until no run is under way, or `stop` returns true; returns whether
    /// `stop` ended it. A panic in the game's code while it computes a piece is passed on to
    /// the run whose expansion it was, not to the helper.
    pub fn help(&self, stop: impl Fn() -> bool) -> bool {
        let mut cursor = Cursor::default();
        let mut spins = 0u32;
        loop {
            if stop() {
                return true;
            }
            if !self.pipeline.running() {
                return false;
            }
            if !self.pipeline.work_one(&mut cursor) {
                spin(&mut spins);
            }
        }
    }

    /// [`Shared::run`] in this thread while `helpers` other threads [help](Shared::help) it,
    /// as a worker's slots do; the helpers stop when the run ends, also when it panics. The
    /// run's result, or its panic (the game's, passed on by the run), to resume or report.
    ///
    /// # Errors
    /// The outer `Err` is the run's panic; the inner one is [`Shared::run`]'s [`Poisoned`].
    pub fn run_helped(
        &self,
        helpers: usize,
        root: G,
        limits: &Limits,
        nodes: &AtomicU64,
    ) -> std::thread::Result<Result<Outcome, Poisoned>>
    where
        Self: Sync,
    {
        let done = AtomicBool::new(false);
        std::thread::scope(|scope| {
            for _ in 0..helpers {
                scope.spawn(|| while !self.help(|| done.load(Ordering::Relaxed)) {});
            }
            let ran = catch_unwind(AssertUnwindSafe(|| self.run(root, limits, nodes)));
            done.store(true, Ordering::Relaxed);
            ran
        })
    }

    /// Counts as a run under way until dropped, so that helpers wait for the next run rather
    /// than return ([`Shared::help`]): for a job between its runs.
    pub fn hold(&self) -> Held<'_, G> {
        Held {
            _running: self.pipeline.run(),
        }
    }
}

/// A hold on a [`Shared`] search ([`Shared::hold`]).
pub struct Held<'a, G: Game> {
    _running: RunGuard<'a, G>,
}

/// Waits a moment for a piece to compute: spins, and every 1,024 spins lets other threads
/// run (more threads than cores).
fn spin(spins: &mut u32) {
    *spins = spins.wrapping_add(1);
    if spins.is_multiple_of(1024) {
        std::thread::yield_now();
    } else {
        std::hint::spin_loop();
    }
}

/// The leaves a run has taken, whose expansions are under way.
struct Taken<'a, G: Game> {
    works: VecDeque<Arc<Work<G>>>,
    pipeline: &'a Pipeline<G>,
}

impl<G: Game> Taken<'_, G> {
    /// Frees the leaves, unexpanded (with their own numbers back).
    fn give_back(&mut self, s: &mut Search<G>) {
        for work in std::mem::take(&mut self.works) {
            self.pipeline.drop_work(&work);
            s.finish(work.leaf, None);
        }
    }
}

impl<G: Game> Drop for Taken<'_, G> {
    /// A run that ends without [`Taken::give_back`] (its lock poisoned) still takes its
    /// works down.
    fn drop(&mut self) {
        for work in &self.works {
            self.pipeline.drop_work(work);
        }
    }
}

/// A [`Shared`] search, locked, with the DAG's own numbers (see [`Shared::lock`]), for reports
/// and statistics: it reads the search, and changes it only by [`Locked::take_solved`].
pub struct Locked<'a, G: Game>(MutexGuard<'a, Search<G>>);

impl<G: Game> std::ops::Deref for Locked<'_, G> {
    type Target = Search<G>;
    fn deref(&self) -> &Search<G> {
        &self.0
    }
}

impl<G: Game> Locked<'_, G> {
    /// [`Search::take_solved`]: the only change a report makes (a search through the guard
    /// would not pass by the leaves other threads are expanding, so it gives no `&mut`).
    pub fn take_solved(&mut self) -> Vec<(G::Key, super::Value)> {
        self.0.take_solved()
    }
}

impl<G: Game> Drop for Locked<'_, G> {
    fn drop(&mut self) {
        self.0.set_virtual(true);
    }
}

/// Ends one run's hold on `root` (another run may hold it too).
fn unpin<G: Game>(s: &mut Search<G>, root: u32) {
    if let Some(i) = s.pins.iter().position(|&p| p == root) {
        s.pins.swap_remove(i);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pns::search::OWN_CHECK_EVERY;
    use crate::pns::{Formula, INFINITY, NodeType, Number, Value};
    use std::collections::HashMap;

    /// A random game tree given by its seed: each node has 2..=5 moves, leaves at depth 14 or
    /// earlier (by the hash), won for OR when the hash says so. Keys are positions in the tree,
    /// with transpositions (251 positions per depth) from depth 7 on.
    #[derive(Clone, Debug)]
    struct Random {
        id: u64,
        depth: u32,
    }

    fn mix(x: u64) -> u64 {
        let mut z = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    impl Random {
        fn value(&self) -> Option<Value> {
            let h = mix(self.id ^ 0x5555);
            (self.depth >= 14 || (self.depth >= 3 && h.is_multiple_of(23))).then_some(
                if h.is_multiple_of(2) {
                    Value::Proven
                } else {
                    Value::Disproven
                },
            )
        }

        /// Plain minimax (with a memo): the reference.
        fn solve(&self) -> Value {
            fn go(g: &Random, memo: &mut HashMap<(u64, u32), Value>) -> Value {
                if let Some(v) = g.value() {
                    return v;
                }
                if let Some(&v) = memo.get(&g.key()) {
                    return v;
                }
                let or = g.node_type() == NodeType::Or;
                let win = if or { Value::Proven } else { Value::Disproven };
                let v = if g.children().iter().any(|(_, c)| go(c, memo) == win) {
                    win
                } else if or {
                    Value::Disproven
                } else {
                    Value::Proven
                };
                memo.insert(g.key(), v);
                v
            }
            go(self, &mut HashMap::new())
        }
    }

    impl Game for Random {
        type Key = (u64, u32);
        type Move = u64;
        fn node_type(&self) -> NodeType {
            if self.depth.is_multiple_of(2) {
                NodeType::Or
            } else {
                NodeType::And
            }
        }
        fn simplify(&mut self) -> Option<Value> {
            self.value()
        }
        fn children(&self) -> Vec<(u64, Self)> {
            let n = 2 + mix(self.id) % 4;
            (0..n)
                .map(|m| {
                    let id = if self.depth >= 6 {
                        mix(self.id.wrapping_add(m)) % 251
                    } else {
                        mix(self.id.wrapping_mul(31).wrapping_add(m + 1))
                    };
                    (
                        m,
                        Random {
                            id,
                            depth: self.depth + 1,
                        },
                    )
                })
                .collect()
        }
        fn key(&self) -> (u64, u32) {
            (self.id, self.depth)
        }
        fn estimate(&self) -> (u64, u64) {
            (1 + mix(self.id) % 3, 1 + mix(self.id >> 1) % 3)
        }
    }

    /// The interleaved search (one thread driving several taken leaves, the order they end in
    /// drawn from a seed): one leaf at a time is the plain search; several give the minimax
    /// value, and a run stopped by its budget gives every taken leaf its own numbers back.
    #[test]
    fn an_interleaved_search_agrees_with_minimax_and_with_the_plain_search() {
        use rand::{Rng, SeedableRng, rngs::StdRng};
        // Searches whose node count differs from the plain search's, and runs of one root
        // whose count differs between two orders of ending.
        let (mut other_than_plain, mut other_than_order) = (0, 0);
        for seed in 0..40u64 {
            let root = Random { id: seed, depth: 0 };
            let want = root.solve();
            let mut plain = Search::new(root.clone());
            let out = plain.run(&Limits::default());
            let plain_nodes = plain.stats().nodes_created;
            // One leaf at a time (what `run` is, with times of 0): the times do not matter.
            let mut one = Search::new(root.clone());
            let mut rng = StdRng::seed_from_u64(seed);
            let out_one = one.run_interleaved(1, &Limits::default(), || rng.random());
            assert_eq!(out_one, out);
            assert_eq!(one.stats().nodes_created, plain_nodes);
            for threads in [2, 3, 8] {
                let mut nodes = Vec::new();
                for order in 0..2 {
                    let mut rng = StdRng::seed_from_u64(seed * 10 + order);
                    let mut time = || -(1.0 - rng.random::<f64>()).ln();
                    let mut s = Search::new(root.clone());
                    let out = s.run_interleaved(threads, &Limits::default(), &mut time);
                    assert_eq!(out, Outcome::Solved(want), "seed {seed}, {threads} threads");
                    assert_eq!(s.taken(), 0);
                    s.assert_consistent();
                    s.assert_numbers_consistent();
                    nodes.push(s.stats().nodes_created);
                    let mut cut = Search::new(root.clone());
                    let budget = Limits {
                        max_nodes: Some((plain_nodes / 4).max(2)),
                        ..Limits::default()
                    };
                    let out = cut.run_interleaved(threads, &budget, &mut time);
                    assert!(
                        matches!(out, Outcome::Unknown { .. }),
                        "seed {seed}: {out:?}"
                    );
                    assert_eq!(cut.taken(), 0);
                    cut.assert_numbers_consistent();
                    // The stopped search goes on where it stopped.
                    assert_eq!(cut.run(&Limits::default()), Outcome::Solved(want));
                }
                other_than_plain += nodes.iter().filter(|&&n| n != plain_nodes).count();
                other_than_order += usize::from(nodes[0] != nodes[1]);
            }
        }
        // Several leaves at once change the search, and the order they end in does too.
        assert!(other_than_plain > 100, "{other_than_plain} of 240");
        assert!(other_than_order > 30, "{other_than_order} of 120");
    }

    #[test]
    fn threads_sharing_one_dag_agree_with_minimax() {
        let mut collections = 0;
        for seed in 0..40u64 {
            let root = Random { id: seed, depth: 0 };
            let want = root.solve();
            let kids: Vec<Random> = root.children().into_iter().map(|(_, c)| c).collect();
            let mut free = Search::new(root.clone());
            free.run(&Limits::default());
            let cap = free.stats().peak_bytes as usize / 3;
            let shared = Shared::new(Search::new(root.clone()), 3);
            // Each thread runs the children in its own order, in small runs, then the root.
            std::thread::scope(|scope| {
                for t in 0..3 {
                    let (shared, kids) = (&shared, &kids);
                    scope.spawn(move || {
                        for i in 0..kids.len() {
                            let kid = kids[(i + t) % kids.len()].clone();
                            // Runs long enough to check the cap, which makes the
                            // collector run while other threads hold leaves.
                            let limits = Limits {
                                max_nodes: Some(2_000),
                                max_bytes: Some(cap),
                                ..Limits::default()
                            };
                            shared
                                .run(kid, &limits, &AtomicU64::new(0))
                                .expect("no panic");
                        }
                    });
                }
            });
            shared.lock().expect("no panic").assert_numbers_consistent();
            let out = shared
                .run(root.clone(), &Limits::default(), &AtomicU64::new(0))
                .expect("no panic");
            assert_eq!(out, Outcome::Solved(want), "seed {seed}");
            let s = shared.lock().expect("no panic");
            assert!(s.pins.is_empty());
            s.assert_consistent();
            s.assert_numbers_consistent();
            collections += s.stats().gc_runs;
            for c in s.child_reports(&root) {
                if let Some(v) = c.value {
                    assert_eq!(v, c.position.solve(), "seed {seed}: child {:?}", c.key);
                }
            }
        }
        assert!(collections > 0, "the cap made the collector run");
    }

    /// A run with threads helping it expands its leaves in a fixed order, whatever thread
    /// computes what: that of the interleaved search with [`LEAVES_IN_FLIGHT`] leaves and
    /// equal times. So its node count is the same with or without a helper.
    #[test]
    fn a_run_with_helpers_is_the_interleaved_search_with_equal_times() {
        for seed in 0..30u64 {
            let root = Random { id: seed, depth: 0 };
            let want = root.solve();
            let mut interleaved = Search::new(root.clone());
            let out = interleaved.run_interleaved(LEAVES_IN_FLIGHT, &Limits::default(), || 1.0);
            assert_eq!(out, Outcome::Solved(want), "seed {seed}");
            let nodes = interleaved.stats().nodes_created;
            for helpers in [0, 1, 2] {
                let shared = Shared::new(Search::new(root.clone()), 2);
                let out = shared
                    .run_helped(
                        helpers,
                        root.clone(),
                        &Limits::default(),
                        &AtomicU64::new(0),
                    )
                    .expect("no panic");
                assert_eq!(out, Ok(Outcome::Solved(want)), "seed {seed}");
                let s = shared.lock().expect("no panic");
                assert_eq!(
                    s.stats().nodes_created,
                    nodes,
                    "seed {seed}, {helpers} helpers"
                );
                assert_eq!(s.taken(), 0);
                s.assert_consistent();
                s.assert_numbers_consistent();
            }
        }
    }

    #[test]
    fn a_leaf_being_expanded_shows_its_virtual_numbers_to_the_runs_only() {
        let (mut moved, mut hidden) = (0, 0);
        for seed in 0..20u64 {
            let root = Random { id: seed, depth: 0 };
            let mut search = Search::new(root.clone());
            search.run(&Limits {
                max_nodes: Some(300),
                ..Limits::default()
            });
            let Outcome::Unknown { pn, dn } = search.outcome() else {
                continue;
            };
            let own = search.all_numbers();
            let shared = Shared::new(search, 1);
            {
                // What a run does before it expands a leaf outside the lock.
                let mut s = shared.lock_raw().expect("no panic");
                let root = s.root_id();
                let leaf = s.select(root).expect("a free leaf");
                s.take(leaf, true);
                // Backed up by the next selection, or by the next leaf's back-up, until
                // which the DAG above the leaf shows its own numbers.
                assert_eq!(s.outcome(), Outcome::Unknown { pn, dn });
                s.settle();
                let Outcome::Unknown { pn: vpn, dn: vdn } = s.outcome() else {
                    panic!("virtual numbers solved the root");
                };
                // The most-proving leaf's numbers count in the root's, unless ties hide them:
                // one of its numbers grows (the other shrinks, or stays).
                moved += usize::from(vpn > pn || vdn > dn);
                // Thresholds between the own and the virtual numbers are not reached.
                let limits = Limits {
                    thresholds: Some((pn + 1, dn + 1)),
                    ..Limits::default()
                };
                assert!(!s.stops(root, &limits, 0), "seed {seed}");
                assert_eq!(s.outcome(), Outcome::Unknown { pn: vpn, dn: vdn });
                // A threshold that the own numbers reach and the shown ones do not (one of
                // them shrank) is seen within `OWN_CHECK_EVERY` expansions.
                if vpn < pn || vdn < dn {
                    hidden += 1;
                    let limits = Limits {
                        thresholds: Some(if vpn < pn {
                            (pn, INFINITY)
                        } else {
                            (INFINITY, dn)
                        }),
                        ..Limits::default()
                    };
                    let seen = (0..OWN_CHECK_EVERY).any(|_| {
                        let stops = s.stops(root, &limits, 0);
                        s.check_due();
                        stops
                    });
                    assert!(seen, "seed {seed}");
                    assert_eq!(s.outcome(), Outcome::Unknown { pn: vpn, dn: vdn });
                }
            }
            // Reports see the DAG's own numbers, and the runs the virtual ones again after.
            let virtual_numbers = shared.lock_raw().expect("no panic").all_numbers();
            assert_ne!(virtual_numbers, own);
            assert_eq!(shared.lock().expect("no panic").all_numbers(), own);
            assert_eq!(
                shared.lock_raw().expect("no panic").all_numbers(),
                virtual_numbers
            );
            shared.lock().expect("no panic").assert_consistent();
        }
        assert!(moved > 5, "{moved} roots showed virtual numbers");
        assert!(hidden > 5, "{hidden} roots showed a number shrunk");
    }

    /// A taken leaf's virtual numbers, backed up with the next leaf's expansion
    /// ([`Search::settle`]), leave every node's numbers as backing them up at once does, and
    /// the DAG consistent after each expansion (four leaves taken at a time): in a DAG with
    /// transpositions, where one leaf's expansion can reach a leaf still taken, in one whose
    /// decompositions make inner nodes whose parts can be such leaves ([`Nested`]), and in
    /// the (4, n, 7^tr) game.
    #[test]
    fn virtual_numbers_backed_up_late_give_the_numbers_of_an_immediate_back_up() {
        for seed in 0..30u64 {
            let root = Random { id: seed, depth: 0 };
            let want = root.solve();
            assert_eq!(
                late_and_immediate_back_ups(root.clone()),
                Outcome::Solved(want)
            );
            let nested = Nested(root);
            let want = Search::new(nested.clone()).run(&Limits::default());
            assert_eq!(late_and_immediate_back_ups(nested), want);
        }
        use crate::games::seven::{Cols, Position, Rules, SevenGame, Side};
        for n in 7..=10u32 {
            let cols = Cols::try_from(n).expect("in range");
            let root = SevenGame::new(Position::empty(cols, Side::Maker), Rules::new(cols, &[]))
                .expect("the rules fit the position");
            // Maker, moving first, wins the empty board: up to n = 8 by the spec's brute
            // force (`seven-in-a-row.md`, "Small values"), beyond by the engine's own solves
            // (README, "(4, n, 7^tr)").
            assert_eq!(
                late_and_immediate_back_ups(root),
                Outcome::Solved(Value::Proven),
                "n = {n}"
            );
        }

        fn late_and_immediate_back_ups<G: Game>(root: G) -> Outcome {
            let (mut late, mut now) = (Search::new(root.clone()), Search::new(root));
            let start = late.root_id();
            let mut taken = std::collections::VecDeque::new();
            while matches!(late.outcome(), Outcome::Unknown { .. }) {
                while taken.len() < 4 {
                    let Some(leaf) = late.select(start) else {
                        break;
                    };
                    assert_eq!(now.select(start), Some(leaf));
                    late.take(leaf, true);
                    now.take(leaf, true);
                    now.settle();
                    taken.push_back(leaf);
                }
                let leaf = taken.pop_front().expect("an unsolved root has a free leaf");
                let g = late.position(leaf);
                late.finish(leaf, Some((&g, Expansion::of(&g, true))));
                now.finish(leaf, Some((&g, Expansion::of(&g, true))));
                assert_eq!(late.all_numbers(), now.all_numbers());
                late.assert_numbers_consistent();
            }
            late.outcome()
        }
    }

    /// [`Random`] with 7 positions a depth from depth 5 on, where a position from depth 4 on
    /// with three children or more decomposes, where its hash says so, into its first two
    /// children under an inner node and the others, all under its own connective (the value
    /// its moves give): parts that are often nodes elsewhere in the DAG, leaves taken among
    /// them.
    #[derive(Clone, Debug)]
    struct Nested(Random);

    impl Game for Nested {
        type Key = (u64, u32);
        type Move = u64;
        fn node_type(&self) -> NodeType {
            self.0.node_type()
        }
        fn simplify(&mut self) -> Option<Value> {
            self.0.simplify()
        }
        fn children(&self) -> Vec<(u64, Self)> {
            let few = |g: Random| match g.depth {
                5.. => Random { id: g.id % 7, ..g },
                _ => g,
            };
            let children = self.0.children().into_iter();
            children.map(|(m, g)| (m, Nested(few(g)))).collect()
        }
        fn key(&self) -> (u64, u32) {
            self.0.key()
        }
        fn estimate(&self) -> (u64, u64) {
            self.0.estimate()
        }
        fn decompose(&self) -> Option<Formula<Self>> {
            let children = self.children();
            if self.0.depth < 4 || children.len() < 3 || !mix(self.0.id ^ 7).is_multiple_of(2) {
                return None;
            }
            let connective = |parts| match self.node_type() {
                NodeType::Or => Formula::Any(parts),
                NodeType::And => Formula::All(parts),
            };
            let mut parts = children.into_iter().map(|(_, g)| Formula::Position(g));
            let inner = connective(parts.by_ref().take(2).collect());
            Some(connective(std::iter::once(inner).chain(parts).collect()))
        }
    }

    /// [`Random`] with two twists for tests. Its game code panics at depth 2 while `fuse`
    /// says so: 1 in [`Game::children`] (outside the lock), 2 in [`Game::estimate_children`]
    /// (under it). With `twins`, a position at an even depth whose hash says so decomposes
    /// into its twin: the same position under another key (a one-part formula under the other
    /// connective), searched by its moves.
    #[derive(Clone, Debug)]
    struct Variant {
        game: Random,
        fuse: std::sync::Arc<std::sync::atomic::AtomicU8>,
        twins: bool,
        twin: bool,
    }

    impl Variant {
        fn new(seed: u64, fuse: u8, twins: bool) -> Self {
            Variant {
                game: Random { id: seed, depth: 0 },
                fuse: std::sync::Arc::new(std::sync::atomic::AtomicU8::new(fuse)),
                twins,
                twin: false,
            }
        }

        fn blows(&self, at: u8) -> bool {
            self.game.depth == 2 && self.fuse.load(Ordering::Relaxed) == at
        }
    }

    impl Game for Variant {
        type Key = (u64, u32, bool);
        type Move = u64;
        fn node_type(&self) -> NodeType {
            self.game.node_type()
        }
        fn simplify(&mut self) -> Option<Value> {
            self.game.simplify()
        }
        fn children(&self) -> Vec<(u64, Self)> {
            assert!(!self.blows(1), "children at depth 2");
            let wrap = |(m, game)| {
                let child = Variant {
                    game,
                    fuse: self.fuse.clone(),
                    twins: self.twins,
                    twin: false,
                };
                (m, child)
            };
            self.game.children().into_iter().map(wrap).collect()
        }
        fn key(&self) -> (u64, u32, bool) {
            (self.game.id, self.game.depth, self.twin)
        }
        fn estimate_children(&self, children: &[&Self]) -> Vec<(Number, Number)> {
            assert!(!self.blows(2), "estimates at depth 2");
            children.iter().map(|c| c.game.estimate()).collect()
        }
        fn decompose(&self) -> Option<Formula<Self>> {
            let splits = self.twins
                && !self.twin
                && self.game.depth.is_multiple_of(2)
                && !mix(self.game.id).is_multiple_of(3);
            // One part under the connective opposite to the node's own (either gives the
            // part's value), so that the node takes another combination while it holds it.
            splits.then(|| {
                let twin = vec![Formula::Position(Variant {
                    twin: true,
                    ..self.clone()
                })];
                match self.node_type() {
                    NodeType::Or => Formula::All(twin),
                    NodeType::And => Formula::Any(twin),
                }
            })
        }
    }

    #[test]
    fn a_panic_outside_the_lock_reaches_the_caller_and_leaves_the_search_usable() {
        let root = Variant::new(3, 1, false);
        let shared = Shared::new(Search::new(root.clone()), 1);
        let nodes = AtomicU64::new(0);
        let run = || shared.run(root.clone(), &Limits::default(), &nodes);
        let panic = catch_unwind(AssertUnwindSafe(run)).expect_err("the game's panic");
        assert_eq!(panic.downcast_ref::<&str>(), Some(&"children at depth 2"));
        {
            let s = shared.lock().expect("the lock is not poisoned");
            assert!(s.pins.is_empty(), "the run let go of its root");
            s.assert_consistent();
            s.assert_numbers_consistent();
        }
        root.fuse.store(0, Ordering::Relaxed);
        let out = run().expect("no panic");
        assert_eq!(out, Outcome::Solved(root.game.solve()));
    }

    /// A panic in a piece a helper computes reaches the run whose leaf it was; the helper goes
    /// on, and the search stays usable.
    #[test]
    fn a_panic_in_a_helped_expansion_reaches_its_run() {
        for seed in 0..10u64 {
            let root = Variant::new(seed, 1, false);
            let shared = Shared::new(Search::new(root.clone()), 2);
            let nodes = AtomicU64::new(0);
            let run = || shared.run(root.clone(), &Limits::default(), &nodes);
            // A helper's panic would end the scope in `run_helped` with a panic of its own.
            let panic = shared
                .run_helped(1, root.clone(), &Limits::default(), &nodes)
                .expect_err("the game's panic");
            assert_eq!(panic.downcast_ref::<&str>(), Some(&"children at depth 2"));
            {
                let s = shared.lock().expect("the lock is not poisoned");
                assert!(s.pins.is_empty(), "the run let go of its root");
                assert_eq!(s.taken(), 0, "the run gave back its leaves");
                s.assert_consistent();
                s.assert_numbers_consistent();
            }
            root.fuse.store(0, Ordering::Relaxed);
            assert_eq!(run(), Ok(Outcome::Solved(root.game.solve())));
        }
    }

    #[test]
    fn a_panic_under_the_lock_poisons_the_search_for_every_thread() {
        let root = Variant::new(3, 2, false);
        let shared = Shared::new(Search::new(root.clone()), 1);
        let nodes = AtomicU64::new(0);
        let run = || shared.run(root.clone(), &Limits::default(), &nodes);
        std::thread::scope(|scope| {
            let panicked = scope.spawn(run).join().expect_err("the game's panic");
            assert_eq!(
                panicked.downcast_ref::<&str>(),
                Some(&"estimates at depth 2")
            );
        });
        root.fuse.store(0, Ordering::Relaxed);
        assert_eq!(run(), Err(Poisoned));
        assert!(matches!(shared.lock(), Err(Poisoned)));
    }

    #[test]
    fn a_runs_root_is_expanded_by_its_moves_also_where_it_decomposes() {
        let mut checked = 0;
        for seed in 0..30u64 {
            let root = Variant::new(seed, 0, true);
            if root.decompose().is_none() {
                continue;
            }
            // The engine alone expands the root by its decomposition (into its twin; the root
            // is the first node) ...
            let mut search = Search::new(root.clone());
            search.run(&Limits {
                max_nodes: Some(2),
                ..Limits::default()
            });
            assert_eq!(search.stats().nodes_expanded, 1);
            let one = Limits {
                max_nodes: Some(1),
                ..Limits::default()
            };
            let shared = Shared::new(search, 1);
            let moves_known = |shared: &Shared<Variant>| {
                let s = shared.lock().expect("no panic");
                let reports = s.child_reports(&root);
                reports.iter().all(|c| s.in_table(&c.key))
            };
            assert!(!moves_known(&shared), "seed {seed}: only the twin is there");
            // ... and a run from it, even one whose budget is spent at once, by its moves.
            let nodes = AtomicU64::new(0);
            shared.run(root.clone(), &one, &nodes).expect("no panic");
            assert!(moves_known(&shared), "seed {seed}");
            // ... combining its moves as the side to move does, not as the formula did.
            {
                let s = shared.lock().expect("no panic");
                let moves = s.child_reports(&root);
                let (pn, dn) =
                    crate::pns::combine(root.node_type(), moves.iter().map(|c| (c.pn, c.dn)));
                let want = match (pn, dn) {
                    (0, _) => Outcome::Solved(Value::Proven),
                    (_, 0) => Outcome::Solved(Value::Disproven),
                    _ => Outcome::Unknown { pn, dn },
                };
                assert_eq!(s.outcome(), want, "seed {seed}");
            }
            shared.lock().expect("no panic").assert_consistent();
            shared.lock().expect("no panic").assert_numbers_consistent();
            let out = shared
                .run(root.clone(), &Limits::default(), &nodes)
                .expect("no panic");
            assert_eq!(out, Outcome::Solved(root.game.solve()), "seed {seed}");
            checked += 1;
        }
        assert!(checked > 10, "{checked} roots decomposed");
    }

    #[test]
    fn runs_count_their_nodes_together() {
        let root = Random { id: 7, depth: 0 };
        let shared = Shared::new(Search::new(root.clone()), 1);
        let nodes = AtomicU64::new(0);
        let limits = Limits {
            max_nodes: Some(3),
            ..Limits::default()
        };
        let out = shared.run(root.clone(), &limits, &nodes).expect("no panic");
        // One expansion creates at most five nodes.
        let first = nodes.load(Ordering::Relaxed);
        assert!((3..3 + 5).contains(&first), "{first}");
        assert_eq!(out, shared.lock().expect("no panic").outcome());
        // The count is the job's: a second run with the same counter is already over budget.
        shared.run(root.clone(), &limits, &nodes).expect("no panic");
        assert_eq!(nodes.load(Ordering::Relaxed), first);
        let out = shared
            .run(root.clone(), &Limits::default(), &nodes)
            .expect("no panic");
        assert_eq!(out, Outcome::Solved(root.solve()));
        assert!(nodes.load(Ordering::Relaxed) > first);
    }
}
