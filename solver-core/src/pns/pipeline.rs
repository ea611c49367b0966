//! The expansions a [`super::Shared`] search has under way, shared by every thread that runs
//! or helps it: a leaf's expansion is split into its opening (its decomposition, or its list of
//! moves) and one piece of work per child (simplification to the fixpoint, key, features for
//! the estimate), and any thread takes the next pieces of any expansion (the children in runs,
//! guided self-scheduling, [`Work::work_one`]). The leaf's own run adds the children to the
//! DAG once every piece is done, so the DAG sees exactly the expansion [`Expansion::of`]
//! gives, whoever computed its parts.

use std::any::Any;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock, PoisonError};

use super::search::{Child, Expansion};
use super::{Formula, Game, NodeType};

/// A panic's payload, passed on to the run whose leaf it came from.
pub(super) type Panic = Box<dyn Any + Send + 'static>;

/// One child of an opened leaf: its move and position, then what simplifying it gave.
enum Piece<G: Game> {
    Raw(G::Move, G),
    Done(Child<G>),
    Taken,
}

/// `T` with 64 bytes on either side: two of them side by side, or one beside other data, share
/// no cache line (of 64 bytes) whatever the address, so that two cores writing neighbours do
/// not pass lines to and fro. Padding, not alignment (as `crossbeam_utils::CachePadded` gives):
/// Rust's system allocator serves an alignment past 16 bytes with glibc's `posix_memalign`,
/// which took 38 ns an allocation and free here where `malloc` took 5.5 ns (one thread, glibc
/// 2.36, 640 bytes), from the arena under its lock, and every leaf's work and pieces are
/// allocated by one thread and often freed by another. With the pieces and the work's counters
/// aligned instead, two threads ran 1.53x one thread at n = 12 in 19 rounds where the round
/// trip between the cores (`solver seven bench`) was below 120 ns and 1.25x in 34 rounds where
/// it was above 250 ns, against 1.56x (16 rounds) and 1.27x (37) padded (medians; 2026-11-29,
/// alternating invocations of `--cols 12 --threads 1 2 --repeat 3`).
#[repr(C)]
struct Spaced<T> {
    _before: [u8; 64],
    value: T,
    _after: [u8; 64],
}

impl<T> Spaced<T> {
    fn new(value: T) -> Self {
        Self {
            _before: [0; 64],
            value,
            _after: [0; 64],
        }
    }
}

impl<T> std::ops::Deref for Spaced<T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.value
    }
}

/// A leaf after its opening.
enum Opened<G: Game> {
    Parts(Mutex<Option<Formula<G>>>),
    /// Each child on cache lines of its own: two threads compute neighbours.
    Moves(Vec<Spaced<Mutex<Piece<G>>>>),
}

/// The expansion of one taken leaf, computed by whichever threads take its pieces.
pub(super) struct Work<G: Game> {
    /// The leaf's node.
    pub(super) leaf: u32,
    /// The leaf's position.
    pub(super) position: G,
    or: bool,
    /// Set by the thread that opens the leaf.
    opening: AtomicBool,
    opened: OnceLock<Opened<G>>,
    /// The next child to take, and how many are done (or passed by), each on cache lines of
    /// its own, apart from the fields read at every piece.
    next: Spaced<AtomicUsize>,
    done: Spaced<AtomicUsize>,
    /// The first child found to decide the leaf for the side to move: the children after it
    /// are passed by, as [`Expansion::moves`] stops there.
    cut: AtomicUsize,
    /// The first child whose piece panicked, and the earliest such panic (piece 0 for the
    /// opening): the leaf's run passes it on, unless a child before it decides the leaf.
    failed: AtomicUsize,
    panic: Mutex<Option<(usize, Panic)>>,
    /// Set once no piece is left to compute: the opening panicked, or the leaf's run no
    /// longer wants it (it panicked, or stopped with the leaf taken).
    dropped: AtomicBool,
}

impl<G: Game> Work<G> {
    pub(super) fn new(leaf: u32, position: G) -> Self {
        Self {
            leaf,
            or: position.node_type() == NodeType::Or,
            position,
            opening: AtomicBool::new(false),
            opened: OnceLock::new(),
            next: Spaced::new(AtomicUsize::new(0)),
            done: Spaced::new(AtomicUsize::new(0)),
            cut: AtomicUsize::new(usize::MAX),
            failed: AtomicUsize::new(usize::MAX),
            panic: Mutex::new(None),
            dropped: AtomicBool::new(false),
        }
    }

    /// Whether a piece of it is left to take.
    fn wants(&self) -> bool {
        if self.dropped.load(Ordering::Relaxed) {
            return false;
        }
        match self.opened.get() {
            None => !self.opening.load(Ordering::Relaxed),
            Some(Opened::Parts(_)) => false,
            Some(Opened::Moves(pieces)) => self.next.load(Ordering::Relaxed) < pieces.len(),
        }
    }

    /// Takes and computes one piece (the opening), or the next run of children; false when
    /// none was left. A panic of the game's code is kept for the leaf's run
    /// ([`Work::expansion`]). An opening bumps `version`, since it makes pieces to take.
    ///
    /// A run is one in `threads` of the children left untaken (at least one): with two threads
    /// a leaf of 11 children costs 5 claims instead of 11 (each claim, and each count of
    /// children done, takes a cache line from the other core), while the last children still
    /// go one by one to whichever thread is free. This is guided self-scheduling
    /// (Polychronopoulos and Kuck, IEEE Trans. Computers 1987), rounded down where theirs
    /// rounds up (4 claims for 11 children; no faster, README "Tried and left out"). Two
    /// threads against one at n = 12 (`solver seven bench --cols 12 --threads 1 2 --repeat
    /// 3`, invocations alternating, 2026-11-29; rounds split by the cores' round trip as in
    /// the README), medians: one child per claim 1.52x (31 rounds below 120 ns) and 1.25x (13
    /// above 250 ns); halves (this rule) 1.56x (28) and 1.35x (18); thirds 1.56x (9) and
    /// 1.32x (4); quarters 1.56x (15) and 1.32x (13); the whole leaf 1.46x (6) and 1.31x (9).
    /// Two slots of a worker against one (`--workers 1 2`): one child per claim 1.59x (5) and
    /// 1.30x (19), halves 1.58x (9) and 1.36x (21). Only two threads were measured (a 2-core
    /// machine).
    fn work_one(&self, version: &AtomicUsize, threads: usize) -> bool {
        if self.dropped.load(Ordering::Relaxed) {
            return false;
        }
        let pieces = match self.opened.get() {
            None => {
                if self.opening.swap(true, Ordering::AcqRel) {
                    return false;
                }
                match catch_unwind(AssertUnwindSafe(|| self.open())) {
                    Ok(opened) => {
                        let _ = self.opened.set(opened);
                        version.fetch_add(1, Ordering::Release);
                    }
                    Err(panic) => {
                        self.keep(0, panic);
                        self.dropped.store(true, Ordering::Release);
                    }
                }
                return true;
            }
            Some(Opened::Parts(_)) => return false,
            Some(Opened::Moves(pieces)) => pieces,
        };
        // Read first: a thread that waits for the last pieces asks again and again.
        let seen = self.next.load(Ordering::Relaxed);
        if seen >= pieces.len() {
            return false;
        }
        let k = ((pieces.len() - seen) / threads.max(1)).max(1);
        let first = self.next.fetch_add(k, Ordering::Relaxed);
        if first >= pieces.len() {
            return false;
        }
        let end = (first + k).min(pieces.len());
        for (i, piece) in pieces.iter().enumerate().take(end).skip(first) {
            // Children past a deciding one, or past one that panicked, do not matter, nor any
            // once the leaf's run dropped the work.
            if i <= self.cut.load(Ordering::Relaxed)
                && i <= self.failed.load(Ordering::Relaxed)
                && !self.dropped.load(Ordering::Relaxed)
            {
                let raw = std::mem::replace(&mut *lock(piece), Piece::Taken);
                let Piece::Raw(mv, position) = raw else {
                    unreachable!("each child is taken once")
                };
                match catch_unwind(AssertUnwindSafe(|| Child::new(mv, position, true))) {
                    Ok(child) => {
                        if child.decides(self.or) {
                            self.cut.fetch_min(i, Ordering::Relaxed);
                        }
                        *lock(piece) = Piece::Done(child);
                    }
                    Err(panic) => self.keep(i, panic),
                }
            }
        }
        self.done.fetch_add(end - first, Ordering::Release);
        true
    }

    /// The leaf's opening: its decomposition, or its children by its moves, unsimplified.
    fn open(&self) -> Opened<G> {
        match self.position.decompose() {
            Some(formula) => Opened::Parts(Mutex::new(Some(formula))),
            None => Opened::Moves(
                self.position
                    .children()
                    .into_iter()
                    .map(|(mv, g)| Spaced::new(Mutex::new(Piece::Raw(mv, g))))
                    .collect(),
            ),
        }
    }

    /// Keeps the panic of piece `i` (0 for the opening) if no earlier piece panicked.
    fn keep(&self, i: usize, panic: Panic) {
        self.failed.fetch_min(i, Ordering::Relaxed);
        let mut kept = lock(&self.panic);
        if kept.as_ref().is_none_or(|(j, _)| i < *j) {
            *kept = Some((i, panic));
        }
    }

    /// Whether every piece is done, or the work ended in a panic.
    pub(super) fn complete(&self) -> bool {
        if self.dropped.load(Ordering::Acquire) {
            return true;
        }
        match self.opened.get() {
            None => false,
            Some(Opened::Parts(_)) => true,
            Some(Opened::Moves(pieces)) => self.done.load(Ordering::Acquire) >= pieces.len(),
        }
    }

    /// The expansion, once [complete](Work::complete): the one [`Expansion::of`] gives, or
    /// the panic it would have met (of the opening, or of a child up to the first that decides
    /// the leaf).
    pub(super) fn expansion(&self) -> Result<Expansion<G>, Panic> {
        let cut = self.cut.load(Ordering::Relaxed);
        if let Some((i, panic)) = lock(&self.panic).take()
            && i <= cut
        {
            return Err(panic);
        }
        let pieces = match self.opened.get() {
            Some(Opened::Parts(formula)) => {
                let formula = lock(formula).take().expect("an expansion is taken once");
                return Ok(Expansion::Parts(formula));
            }
            Some(Opened::Moves(pieces)) => pieces,
            None => unreachable!("a complete work is opened, or its opening panicked"),
        };
        let children = pieces
            .iter()
            .take(cut.saturating_add(1))
            .map(|p| match std::mem::replace(&mut *lock(p), Piece::Taken) {
                Piece::Done(child) => child,
                _ => unreachable!("every child up to the cut is done"),
            })
            .collect();
        Ok(Expansion::Moves(children))
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

/// The works under way in a [`super::Shared`] search, oldest first, and how many runs are
/// under way.
pub(super) struct Pipeline<G: Game> {
    works: Mutex<Vec<Arc<Work<G>>>>,
    /// Bumped when a work is put up or opened (when pieces may have appeared), so that a
    /// thread that found nothing to take looks again only then.
    version: AtomicUsize,
    runs: AtomicUsize,
    /// The threads that share the search, which divide a leaf's children among them in runs
    /// ([`Work::work_one`]).
    threads: usize,
}

/// Where a thread takes its pieces: the work it took its last claim from, and the
/// [`Pipeline`]'s version when it last found nothing to take.
pub(super) struct Cursor<G: Game> {
    current: Option<Arc<Work<G>>>,
    seen: usize,
}

impl<G: Game> Default for Cursor<G> {
    fn default() -> Self {
        Self {
            current: None,
            seen: usize::MAX,
        }
    }
}

impl<G: Game> Pipeline<G> {
    pub(super) fn new(threads: usize) -> Self {
        Self {
            works: Mutex::new(Vec::new()),
            version: AtomicUsize::new(0),
            runs: AtomicUsize::new(0),
            threads,
        }
    }

    /// Puts `work` up for every thread to take pieces of.
    pub(super) fn push(&self, work: &Arc<Work<G>>) {
        lock(&self.works).push(Arc::clone(work));
        self.version.fetch_add(1, Ordering::Release);
    }

    /// Takes `work` down (complete, or dropped by its run).
    pub(super) fn remove(&self, work: &Arc<Work<G>>) {
        lock(&self.works).retain(|w| !Arc::ptr_eq(w, work));
    }

    /// Takes down `work`, which its run no longer wants: no thread starts a piece of it again.
    pub(super) fn drop_work(&self, work: &Arc<Work<G>>) {
        work.dropped.store(true, Ordering::Release);
        self.remove(work);
    }

    /// Computes one claim of `work` (its opening, or a run of its children,
    /// [`Work::work_one`]); false when none was left.
    pub(super) fn work_on(&self, work: &Work<G>) -> bool {
        work.work_one(&self.version, self.threads)
    }

    /// Computes one claim (an opening, or a run of children): of the cursor's work while it
    /// has one, else of the oldest work that has one; false when none has.
    pub(super) fn work_one(&self, cursor: &mut Cursor<G>) -> bool {
        if let Some(work) = &cursor.current {
            if work.work_one(&self.version, self.threads) {
                return true;
            }
            cursor.current = None;
        }
        let version = self.version.load(Ordering::Acquire);
        if version == cursor.seen {
            return false;
        }
        let work = lock(&self.works).iter().find(|w| w.wants()).cloned();
        match work {
            Some(work) => {
                let worked = work.work_one(&self.version, self.threads);
                cursor.current = Some(work);
                worked
            }
            None => {
                cursor.seen = version;
                false
            }
        }
    }

    /// Counts a run under way until the guard is dropped.
    pub(super) fn run(&self) -> RunGuard<'_, G> {
        self.runs.fetch_add(1, Ordering::AcqRel);
        RunGuard(self)
    }

    /// Whether a run is under way.
    pub(super) fn running(&self) -> bool {
        self.runs.load(Ordering::Acquire) > 0
    }
}

/// A run under way ([`Pipeline::run`]).
pub(super) struct RunGuard<'a, G: Game>(&'a Pipeline<G>);

impl<G: Game> Drop for RunGuard<'_, G> {
    fn drop(&mut self) {
        self.0.runs.fetch_sub(1, Ordering::AcqRel);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pns::Value;
    use std::sync::Condvar;
    use std::time::Duration;

    /// A gate that one thread opens and another waits for; a wait longer than 10 s panics, so
    /// that a change that keeps a gate shut fails the test instead of hanging it.
    #[derive(Default)]
    struct Gate {
        open: Mutex<bool>,
        opened: Condvar,
    }

    impl Gate {
        fn open(&self) {
            *lock(&self.open) = true;
            self.opened.notify_all();
        }

        fn wait(&self) {
            let open = lock(&self.open);
            let (_open, waited) = self
                .opened
                .wait_timeout_while(open, Duration::from_secs(10), |open| !*open)
                .unwrap_or_else(PoisonError::into_inner);
            assert!(!waited.timed_out(), "a gate stayed shut");
        }
    }

    /// What simplifying a child of a [`Scripted`] leaf does.
    #[derive(Clone, Copy)]
    enum Act {
        Undecided,
        /// Won for the leaf's side (OR): decides the leaf. Opens the leaf's first gate when it
        /// starts and ends once the second is open.
        Wins,
        /// Opens the leaf's second gate and panics.
        Panics,
    }

    /// A leaf (OR to move) whose children (AND to move), in order, do what `acts` says, with
    /// two gates that the acts open and wait for, so that a test can order two threads' pieces.
    #[derive(Clone)]
    struct Scripted {
        child: Option<usize>,
        acts: [Act; 3],
        gates: Arc<[Gate; 2]>,
    }

    impl Scripted {
        /// The leaf; with `open` its gates start open (one thread computes every piece).
        fn leaf(acts: [Act; 3], open: bool) -> Self {
            let gates: Arc<[Gate; 2]> = Arc::default();
            if open {
                gates.iter().for_each(Gate::open);
            }
            Scripted {
                child: None,
                acts,
                gates,
            }
        }
    }

    impl Game for Scripted {
        type Key = Option<usize>;
        type Move = usize;
        fn node_type(&self) -> NodeType {
            if self.child.is_none() {
                NodeType::Or
            } else {
                NodeType::And
            }
        }
        fn simplify(&mut self) -> Option<Value> {
            match self.child.map(|i| self.acts[i]) {
                None | Some(Act::Undecided) => None,
                Some(Act::Wins) => {
                    self.gates[0].open();
                    self.gates[1].wait();
                    Some(Value::Proven)
                }
                Some(Act::Panics) => {
                    self.gates[1].open();
                    panic!("a scripted panic")
                }
            }
        }
        fn children(&self) -> Vec<(usize, Self)> {
            (0..3)
                .map(|i| {
                    let child = Scripted {
                        child: Some(i),
                        ..self.clone()
                    };
                    (i, child)
                })
                .collect()
        }
        fn key(&self) -> Option<usize> {
            self.child
        }
    }

    /// One thread takes all three children in one run, and within it stops at the first child
    /// that decides the leaf (the panic after it is never met), or at the first that panics
    /// (the expansion is that panic, as `Expansion::of` meets it).
    #[test]
    fn a_run_of_children_stops_at_a_deciding_child_or_a_panic() {
        let run = |acts: [Act; 3]| {
            let work = Work::new(0, Scripted::leaf(acts, true));
            let version = AtomicUsize::new(0);
            assert!(work.work_one(&version, 1), "the opening");
            assert!(!work.complete());
            assert!(work.work_one(&version, 1), "every child, in one run");
            assert!(work.complete(), "one claim took them all");
            assert!(!work.work_one(&version, 1), "nothing left");
            work.expansion()
        };
        let Ok(Expansion::Moves(children)) = run([Act::Undecided, Act::Wins, Act::Panics]) else {
            panic!("the expansion by moves up to the deciding child");
        };
        assert_eq!(children.len(), 2);
        assert!(children[1].decides(true));
        let panic = run([Act::Undecided, Act::Panics, Act::Wins])
            .err()
            .expect("the panic before the deciding child");
        assert_eq!(panic.downcast_ref::<&str>(), Some(&"a scripted panic"));
    }

    /// A leaf's work and its pieces, in the (4, n, 7^tr) game too, are allocated by `malloc`
    /// (aligned to at most 16 bytes), and two pieces side by side share no cache line (see
    /// [`Spaced`]).
    #[test]
    fn works_and_pieces_are_padded_not_aligned() {
        use crate::games::seven::SevenGame;
        assert!(std::mem::align_of::<Work<Scripted>>() <= 16);
        assert!(std::mem::align_of::<Work<SevenGame>>() <= 16);
        assert!(std::mem::align_of::<Spaced<Mutex<Piece<SevenGame>>>>() <= 16);
        let pieces: Vec<Spaced<[u8; 3]>> = (0..3).map(|i| Spaced::new([i; 3])).collect();
        for pair in pieces.windows(2) {
            let end = std::ptr::from_ref(&*pair[0]).addr() + 3;
            let start = std::ptr::from_ref(&*pair[1]).addr();
            // The last byte of one and the first of the next lie at least 64 bytes apart.
            assert!(start - (end - 1) >= 64, "{start} {end}");
            assert_eq!(*pair[1], [pair[0][0] + 1; 3]);
        }
    }

    /// Two threads compute a leaf's pieces: one is still on the child that decides the leaf
    /// (child 1, which waits for child 2 to start) when the other takes the child after it,
    /// which panics. The expansion is the one `Expansion::of` gives (children up to the
    /// deciding one), not the panic, which `Expansion::of` would never have met.
    #[test]
    fn a_panic_past_the_deciding_child_is_not_the_expansions() {
        let leaf = Scripted::leaf([Act::Undecided, Act::Wins, Act::Panics], false);
        let gates = Arc::clone(&leaf.gates);
        let work = Arc::new(Work::new(0, leaf));
        let version = AtomicUsize::new(0);
        // Two threads: of three children, each claim takes one.
        assert!(work.work_one(&version, 2), "the opening");
        assert!(work.work_one(&version, 2), "child 0");
        let helper = {
            let work = Arc::clone(&work);
            std::thread::spawn(move || work.work_one(&AtomicUsize::new(0), 2))
        };
        // The helper has taken child 1, which waits for child 2 to start.
        gates[0].wait();
        assert!(work.work_one(&version, 2), "child 2, which panics");
        assert!(helper.join().expect("a piece keeps its panic"), "child 1");
        assert!(work.complete());
        let Ok(Expansion::Moves(children)) = work.expansion() else {
            panic!("the expansion by moves, without the panic past the cut");
        };
        assert_eq!(children.len(), 2, "children 0 and 1");
        assert!(children[1].decides(true));
        assert!(!children[0].decides(true));
    }
}
