//! One job, off the async runtime: decode the leaf, simplify it to a fixpoint, search it within
//! the node budget and the deadline, and build the report. No I/O here: the caller sends the
//! report.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError, RwLock};

use rustc_hash::FxHashMap;
use solver_core::games::seven::{Key, Rules, SevenGame, Technique};
use solver_core::pns::{Game, Limits, Outcome, Search, Shared, Value};
use solver_proto::convert::seven::{pack_key, threshold_from_wire, unpack};
use solver_proto::v1;

/// Most solved positions one report carries: the ones with the fewest stones (the most
/// valuable to other jobs), as a worker's search solves far more than the coordinator needs.
pub const MAX_REPORTED_FACTS: usize = 2_000;

/// Nodes a job searches before it heeds its thresholds (`Job.pn_threshold`, `dn_threshold`):
/// a job costs a round trip and a report, so it always does at least this much search.
pub const MIN_THRESHOLD_NODES: u64 = 1_000;

/// Bytes of one slot of a [`SolvedCache`] generation's hash table: the entry and its control
/// byte (hashbrown's layout).
const CACHE_SLOT_BYTES: usize = std::mem::size_of::<(Key, Value)>() + 1;

/// Positions [`SolvedCache::extend`] adds under one hold of the lock: about 0.7 ms in a fresh
/// generation's table, whose pages the insertions fault in (46,574 positions took 32 ms in a
/// generation's table at the worker's default `--table-mb`, 1,024: 2^20 slots, about 65 MiB).
const CACHE_WRITE_CHUNK: usize = 1_024;

/// Jobs' solved positions waiting for the thread that adds them to the cache
/// ([`JobContext::remember`]); past them a job's thread adds its own.
const CACHE_WRITES_QUEUED: usize = 2;

/// What the cache's thread is given ([`JobContext::remember`], [`JobContext::flush`]).
enum CacheWrite {
    /// A job's solved positions, to add.
    Facts(Vec<(Key, Value)>),
    /// Answered once everything given before is added.
    Flush(std::sync::mpsc::SyncSender<()>),
}

/// Solved positions this worker learned, shared by its jobs and bounded in memory: two
/// generations; when the young one is full the old one is dropped (the young one ages).
#[derive(Debug)]
pub struct SolvedCache {
    generations: RwLock<[FxHashMap<Key, Value>; 2]>,
    /// Entries per generation: a generation's table is made for this many and never grows.
    capacity: usize,
}

impl SolvedCache {
    /// A cache of at most `mib` MiB (besides the allocator's share), at least one entry per
    /// generation. A hash table keeps a power of two of slots, at most 7/8 of them full, so
    /// each generation gets the most slots that fit in half of `mib` and holds 7/8 as many
    /// entries.
    pub fn new(mib: usize) -> Self {
        let slots = (mib.saturating_mul(1024 * 1024) / 2 / CACHE_SLOT_BYTES).max(1);
        // The largest power of two at most `slots`.
        let slots = 1usize << slots.ilog2();
        Self {
            generations: RwLock::new(Default::default()),
            capacity: (slots / 8 * 7).max(1),
        }
    }

    /// A young generation's table, made for [`SolvedCache::capacity`] entries at once (growing
    /// to it would hold the old and the new allocation at once).
    fn young(&self) -> FxHashMap<Key, Value> {
        FxHashMap::with_capacity_and_hasher(self.capacity, Default::default())
    }

    /// The value of `key`, if known.
    pub fn get(&self, key: &Key) -> Option<Value> {
        let g = self
            .generations
            .read()
            .unwrap_or_else(PoisonError::into_inner);
        g[0].get(key).or_else(|| g[1].get(key)).copied()
    }

    /// Remembers solved positions, at most [`CACHE_WRITE_CHUNK`] under one hold of the lock,
    /// so that a search looking positions up (under its own lock, holding up the job's other
    /// threads) waits for about one chunk's time at a time rather than for all of them.
    pub fn extend(&self, facts: impl IntoIterator<Item = (Key, Value)>) {
        let mut facts = facts.into_iter().peekable();
        while facts.peek().is_some() {
            let mut old = None;
            let mut g = self
                .generations
                .write()
                .unwrap_or_else(PoisonError::into_inner);
            if g[0].len() >= self.capacity {
                // The young generation ages; the old one is freed once the lock is released,
                // before the next hold makes the young one's table.
                let young = std::mem::take(&mut g[0]);
                old = Some(std::mem::replace(&mut g[1], young));
            } else {
                if g[0].capacity() == 0 {
                    g[0] = self.young();
                }
                let room = self.capacity - g[0].len();
                for (k, v) in facts.by_ref().take(room.min(CACHE_WRITE_CHUNK)) {
                    g[0].insert(k, v);
                }
            }
            drop(g);
            drop(old);
        }
    }

    /// Entries held now.
    pub fn len(&self) -> usize {
        let g = self
            .generations
            .read()
            .unwrap_or_else(PoisonError::into_inner);
        g[0].len() + g[1].len()
    }

    /// Whether the cache holds nothing.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// What jobs share: the solved cache and the search DAG kept from job to job ([`Retained`]).
#[derive(Debug)]
pub struct JobContext {
    /// Solved positions from earlier jobs of every slot.
    pub cache: Arc<SolvedCache>,
    /// The search every slot runs its jobs in.
    retained: Mutex<Option<Retained>>,
    /// The jobs under way, oldest first, which idle slots help ([`help`]).
    running: Mutex<Vec<Arc<Running>>>,
    /// Cap of the retained search DAG, in bytes ([`Limits::max_bytes`]).
    search_bytes: usize,
    /// The worker's slots, every one of which searches the one DAG ([`Shared::new`]).
    slots: usize,
    /// Notified when a job starts, for the slots waiting to [`help`].
    pub(crate) started: tokio::sync::Notify,
    /// Jobs' solved positions to the thread that adds them to the cache (`None` if it could
    /// not be started): see [`JobContext::remember`]. The thread adds what it was given and
    /// ends once the context is dropped.
    cache_writes: Option<std::sync::mpsc::SyncSender<CacheWrite>>,
}

impl JobContext {
    /// A context for `slots` job slots sharing `table_mib` MiB: at most a quarter for the
    /// solved cache, the rest for the retained search DAG.
    pub fn new(table_mib: usize, slots: usize) -> Self {
        let bytes = table_mib.max(1) * 1024 * 1024;
        let cache = Arc::new(SolvedCache::new(table_mib / 4));
        let (tx, rx) = std::sync::mpsc::sync_channel(CACHE_WRITES_QUEUED);
        let writer = {
            // Weak, so that the context's drop, not this thread, frees the cache.
            let cache = Arc::downgrade(&cache);
            std::thread::Builder::new()
                .name("solved-cache".into())
                .spawn(move || {
                    for write in rx {
                        match write {
                            CacheWrite::Facts(facts) => {
                                if let Some(cache) = cache.upgrade() {
                                    cache.extend(facts);
                                }
                            }
                            CacheWrite::Flush(done) => {
                                let _ = done.send(());
                            }
                        }
                    }
                })
        };
        Self {
            cache,
            retained: Mutex::new(None),
            running: Mutex::new(Vec::new()),
            search_bytes: bytes - bytes / 4,
            slots,
            started: tokio::sync::Notify::new(),
            cache_writes: writer.is_ok().then_some(tx),
        }
    }

    /// Adds a job's solved positions to the cache, on the cache's own thread once the job's
    /// report is built, so that the report does not wait: a generation's table is made whole
    /// ([`SolvedCache::young`]), and the first positions put in it fault in its pages (at
    /// n = 12, with the worker's default `--table-mb`, the job's 46,574 positions took 32 ms,
    /// 4% of a two-slot solve's 0.72 s). With [`CACHE_WRITES_QUEUED`] jobs' positions already
    /// waiting, or without that thread, the caller adds them itself, at once (ahead of those
    /// waiting, which changes only which positions a later generation's turn drops). A later
    /// job may start before they are all in, and a search then made anew (a job with other
    /// rules) may find fewer of them.
    fn remember(&self, facts: Vec<(Key, Value)>) {
        use std::sync::mpsc::TrySendError;
        if facts.is_empty() {
            return;
        }
        let unsent = match &self.cache_writes {
            Some(tx) => match tx.try_send(CacheWrite::Facts(facts)) {
                Ok(()) => return,
                Err(TrySendError::Full(write) | TrySendError::Disconnected(write)) => write,
            },
            None => CacheWrite::Facts(facts),
        };
        if let CacheWrite::Facts(facts) = unsent {
            self.cache.extend(facts);
        }
    }

    /// Waits until the cache's thread has added every position [`JobContext::remember`] was
    /// given so far (for a worker that stops: what follows its end, such as the next row of
    /// `seven bench`, then shares the machine with no leftover work). Blocks the calling
    /// thread.
    pub fn flush(&self) {
        let Some(tx) = &self.cache_writes else {
            return;
        };
        let (done, added) = std::sync::mpsc::sync_channel(1);
        if tx.send(CacheWrite::Flush(done)).is_ok() {
            let _ = added.recv();
        }
    }

    /// Most solved positions the search records between two reports: an eighth of the
    /// search's bytes (the record counts in them), at least [`MAX_REPORTED_FACTS`]. With the
    /// default `--table-mb` that is 1,572,864 positions, more than a job of the default budget
    /// (1,000,000 nodes) can solve; past it the oldest half is dropped.
    fn solved_log_limit(&self) -> usize {
        (self.search_bytes / 8 / std::mem::size_of::<(Key, Value)>()).max(MAX_REPORTED_FACTS)
    }

    /// Whether a job of this worker is under way (one that slots can [`help`]).
    pub fn job_under_way(&self) -> bool {
        !self
            .running
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .is_empty()
    }

    /// The retained search for `rules`, or a new one (starting at `root`) that replaces it: a
    /// job with other rules (width or techniques) starts over, and so does every job after a
    /// search panicked while it updated the DAG.
    fn search(&self, rules: Rules, root: &SevenGame) -> Arc<Shared<SevenGame>> {
        let mut kept = self.retained.lock().unwrap_or_else(PoisonError::into_inner);
        match kept.as_ref() {
            Some(r) if r.rules == rules && r.search.lock().is_ok() => Arc::clone(&r.search),
            _ => {
                let cache = Arc::clone(&self.cache);
                let mut search = Search::with_known(root.clone(), Box::new(move |k| cache.get(k)));
                search.record_solved(Some(self.solved_log_limit()));
                let search = Arc::new(Shared::new(search, self.slots));
                *kept = Some(Retained {
                    rules,
                    search: Arc::clone(&search),
                });
                search
            }
        }
    }
}

/// The worker's search, kept from job to job, which all its slots work on (one DAG, one
/// transposition table; the job's slot runs it, the others help: see [`Shared`]): a job whose
/// leaf is already in the DAG (a child of an earlier leaf, typically) goes on from the subtree
/// built so far instead of searching it again. Replaced when a job comes with other rules (width or
/// techniques); trimmed by garbage collection and collapsing when it reaches its memory cap.
pub struct Retained {
    rules: Rules,
    search: Arc<Shared<SevenGame>>,
}

impl std::fmt::Debug for Retained {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Retained").finish_non_exhaustive()
    }
}

/// A job under way, as a helping slot sees it.
struct Running {
    search: Arc<Shared<SevenGame>>,
    /// Set when the job has ended: helpers stop.
    done: AtomicBool,
}

impl std::fmt::Debug for Running {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Running").finish_non_exhaustive()
    }
}

/// Registers a job as under way for the slots that [`help`], until dropped.
struct Registration<'a> {
    ctx: &'a JobContext,
    job: Arc<Running>,
}

impl Drop for Registration<'_> {
    fn drop(&mut self) {
        self.job.done.store(true, Ordering::Relaxed);
        let mut running = self
            .ctx
            .running
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        running.retain(|r| !Arc::ptr_eq(r, &self.job));
    }
}

/// What a slot's turn at helping did ([`help`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Help {
    /// No job of this worker is under way.
    NoJob,
    /// It helped the job's search until its slice was over: the job may want more.
    Searched,
    /// It stopped early: the job has ended, or its search has no run under way and is not held
    /// ([`Shared::hold`]; [`run_job`] holds it from the job's start to its end). The slot waits
    /// a little before it asks again.
    Idle,
}

/// Lets a slot help the oldest job under way for at most `slice`: it computes pieces of the
/// expansions the job's own thread has under way in the worker's shared search (see
/// [`Shared::help`]), until the job ends or the slice is over. The nodes are the job's run's,
/// counted in its report. A panic of the game's code in a piece it computes goes to the job's
/// run.
pub fn help(ctx: &JobContext, slice: std::time::Duration) -> Help {
    let job = {
        let running = ctx.running.lock().unwrap_or_else(PoisonError::into_inner);
        match running.first() {
            Some(job) => Arc::clone(job),
            None => return Help::NoJob,
        }
    };
    let deadline = std::time::Instant::now() + slice;
    // Asked once per claim (a leaf's opening, or a run of its children: one child takes about
    // 1.5 us at n = 12) or per spin while waiting, so the clock is read every 256th time (a
    // slice may overrun by up to 255 claims); read every time, it cost the helper about 1% of
    // its pieces when each claim was one child.
    let calls = std::cell::Cell::new(0u32);
    let over = || {
        calls.set(calls.get().wrapping_add(1));
        job.done.load(Ordering::Relaxed)
            || (calls.get().is_multiple_of(256) && std::time::Instant::now() >= deadline)
    };
    // Only the end of the slice means that the job may want more help.
    if job.search.help(over) && !job.done.load(Ordering::Relaxed) {
        Help::Searched
    } else {
        Help::Idle
    }
}

/// A job's outcome, ready to be sent (the caller fills in `worker`).
pub type JobReport = v1::ReportRequest;

/// The nodes `job` may create: its `node_budget` held to 1..=[`MAX_JOB_NODE_BUDGET`] (the
/// protocol's range), so that a coordinator's 0 or `u64::MAX` cannot make a job without end.
///
/// [`MAX_JOB_NODE_BUDGET`]: solver_proto::work::MAX_JOB_NODE_BUDGET
pub fn node_budget(job: &v1::Job) -> u64 {
    job.node_budget
        .clamp(1, solver_proto::work::MAX_JOB_NODE_BUDGET)
}

/// When the search of `job`, started at `start`, has to stop: its `deadline_ms` later (at
/// least [`MIN_JOB_DEADLINE_MS`] ms), or never for 0.
///
/// [`MIN_JOB_DEADLINE_MS`]: solver_proto::work::MIN_JOB_DEADLINE_MS
pub fn deadline(job: &v1::Job, start: std::time::Instant) -> Option<std::time::Instant> {
    let ms = job.deadline_ms.max(solver_proto::work::MIN_JOB_DEADLINE_MS);
    (job.deadline_ms > 0).then(|| start + std::time::Duration::from_millis(u64::from(ms)))
}

/// Searches `job` until its leaf is solved, its [`node_budget`] is spent, its [`deadline`]
/// passes or `cancel` is set, and builds the report: the leaf's value, or its children with
/// (pn, dn); the solved positions found since the last report (by this job or another slot's,
/// at most [`MAX_REPORTED_FACTS`]); nodes created and time. The search is the worker's
/// retained one (see [`Retained`]), which the other slots help meanwhile ([`help`]).
///
/// # Errors
/// A message when the job cannot be run (bad position bytes, an unknown technique, a search
/// that another job's panic left unusable); the caller reports it as a failed job.
pub fn run_job(
    job: &v1::Job,
    ctx: &JobContext,
    cancel: Arc<AtomicBool>,
) -> Result<JobReport, String> {
    let start = std::time::Instant::now();
    let position = unpack(&job.position, "position").map_err(|e| e.to_string())?;
    let disabled = job
        .disabled_techniques
        .iter()
        .map(|t| t.parse::<Technique>().map_err(|e| e.to_string()))
        .collect::<Result<Vec<_>, _>>()?;
    let rules = Rules::new(position.cols(), &disabled);
    let root = SevenGame::new(position, rules)?;
    let mut report = JobReport {
        job_id: job.job_id.clone(),
        ..Default::default()
    };
    // A solved leaf is also among the report's solved positions: a coordinator restarted since
    // the lease no longer knows the job's leaf, and takes only the solved positions of its
    // report (work.proto, `ReportRequest.solved`; proto/README.md, "Work: leases").
    let mut simplified = root.clone();
    if let Some(v) = simplified.simplify() {
        report.maker_wins = Some(v == Value::Proven);
        report.solved = vec![solved_position(&root.key(), v)];
        report.elapsed_ms = start.elapsed().as_millis() as u64;
        return Ok(report);
    }
    let shared = ctx.search(rules, &root);
    let budget = node_budget(job);
    let thresholds = ((job.pn_threshold, job.dn_threshold) != (0, 0)).then(|| {
        (
            threshold_from_wire(job.pn_threshold),
            threshold_from_wire(job.dn_threshold),
        )
    });
    // First MIN_THRESHOLD_NODES nodes (or the whole budget without thresholds), then, if that
    // run stopped at its node count (not solved, cancelled or at the memory cap), on until
    // the leaf reaches its thresholds or the budget.
    let first = match thresholds {
        Some(_) => budget.min(MIN_THRESHOLD_NODES),
        None => budget,
    };
    let deadline = deadline(job, start);
    let mut limits = Limits {
        max_nodes: Some(first),
        deadline,
        cancel: Some(cancel),
        max_bytes: Some(ctx.search_bytes),
        ..Limits::default()
    };
    let registration = Registration {
        ctx,
        job: Arc::new(Running {
            search: Arc::clone(&shared),
            done: AtomicBool::new(false),
        }),
    };
    // Helpers wait for the job's next run, rather than stop, until the job ends.
    let held = shared.hold();
    ctx.running
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .push(Arc::clone(&registration.job));
    ctx.started.notify_waiters();
    // Nodes the job's runs create (with the pieces helpers compute for them).
    let counted = &AtomicU64::new(0);
    let poisoned = |e: solver_core::pns::Poisoned| e.to_string();
    let mut outcome = shared
        .run(root.clone(), &limits, counted)
        .map_err(poisoned)?;
    if first < budget
        && matches!(outcome, Outcome::Unknown { .. })
        && counted.load(Ordering::Relaxed) >= first
        && deadline.is_none_or(|d| std::time::Instant::now() < d)
    {
        limits.max_nodes = Some(budget);
        limits.thresholds = thresholds;
        outcome = shared
            .run(root.clone(), &limits, counted)
            .map_err(poisoned)?;
    }
    let nodes = counted.load(Ordering::Relaxed);
    drop(registration);
    drop(held);
    let (children, found) = {
        let mut search = shared.lock().map_err(poisoned)?;
        (search.child_reports(&root), search.take_solved())
    };
    let mut facts = fewest_stones(&found, MAX_REPORTED_FACTS);
    match outcome {
        Outcome::Solved(v) => {
            report.maker_wins = Some(v == Value::Proven);
            // The leaf itself, then its solved children: at a problem's root they name its
            // winning moves, so the coordinator need not search again for them.
            let solved = children.iter().filter_map(|c| c.value.map(|v| (c.key, v)));
            facts = std::iter::once((root.key(), v))
                .chain(solved)
                .chain(facts)
                .collect();
        }
        Outcome::Unknown { .. } => {
            report.children = children
                .into_iter()
                .map(|c| v1::ChildEstimate {
                    position: pack_key(&c.key),
                    pn: c.pn,
                    dn: c.dn,
                })
                .collect();
        }
    }
    facts.truncate(MAX_REPORTED_FACTS);
    report.solved = facts
        .into_iter()
        .map(|(k, v)| solved_position(&k, v))
        .collect();
    report.nodes = nodes;
    report.elapsed_ms = start.elapsed().as_millis() as u64;
    ctx.remember(found);
    Ok(report)
}

/// The `n` solved positions with the fewest stones, fewest first and in the search's order
/// among equals: the first `n` of a stable sort by stones, chosen in linear time (a job at
/// n = 12 solves about 46,000 positions, which a sort took 6 ms of the report's time for).
fn fewest_stones(facts: &[(Key, Value)], n: usize) -> Vec<(Key, Value)> {
    let mut order: Vec<(u32, usize)> = facts
        .iter()
        .enumerate()
        .map(|(i, (k, _))| (k.stones(), i))
        .collect();
    if order.len() > n {
        // Every (stones, index) pair differs, so the first `n` are the least `n` exactly.
        if n > 0 {
            order.select_nth_unstable(n - 1);
        }
        order.truncate(n);
    }
    order.sort_unstable();
    order.into_iter().map(|(_, i)| facts[i]).collect()
}

/// A solved position as a report carries it.
fn solved_position(key: &Key, value: Value) -> v1::SolvedPosition {
    v1::SolvedPosition {
        position: pack_key(key),
        maker_wins: value == Value::Proven,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use solver_core::games::seven::{Cols, Position, Side};

    fn job(pos: &Position, budget: u64) -> v1::Job {
        v1::Job {
            job_id: "7".into(),
            problem_id: "1".into(),
            position: solver_proto::convert::seven::pack(pos),
            disabled_techniques: vec![],
            node_budget: budget,
            lease_ms: 1000,
            ..v1::Job::default()
        }
    }

    #[test]
    fn a_job_stops_at_its_thresholds_after_its_minimum_share() {
        let ctx = JobContext::new(64, 1);
        let big = Position::empty(Cols::try_from(12u32).expect("width"), Side::Maker);
        let reached = v1::Job {
            pn_threshold: 1,
            dn_threshold: 0,
            ..job(&big, 1_000_000)
        };
        let r = run_job(&reached, &ctx, Arc::default()).expect("runs");
        assert_eq!(r.maker_wins, None);
        assert!(!r.children.is_empty());
        // One expansion may create a few dozen nodes past the minimum.
        assert!(
            (MIN_THRESHOLD_NODES..MIN_THRESHOLD_NODES + 200).contains(&r.nodes),
            "{} nodes",
            r.nodes
        );
        // Without thresholds the same job runs on (here, to a budget of 5,000).
        let r = run_job(&job(&big, 5_000), &ctx, Arc::default()).expect("runs");
        assert!(r.nodes >= 5_000, "{} nodes", r.nodes);
    }

    /// A job whose budget would take minutes stops at its deadline and reports its children,
    /// with thresholds (two runs) or without (one).
    #[test]
    fn a_job_stops_at_its_deadline() {
        let ctx = JobContext::new(64, 1);
        let big = Position::empty(Cols::try_from(14u32).expect("width"), Side::Maker);
        let endless = v1::Job {
            deadline_ms: 1_000,
            ..job(&big, solver_proto::work::MAX_JOB_NODE_BUDGET)
        };
        let far = v1::Job {
            pn_threshold: u64::MAX - 1,
            dn_threshold: u64::MAX - 1,
            ..endless.clone()
        };
        for j in [endless, far] {
            let r = run_job(&j, &ctx, Arc::default()).expect("runs");
            assert_eq!(r.maker_wins, None);
            assert!(!r.children.is_empty());
            assert!(r.nodes < solver_proto::work::MAX_JOB_NODE_BUDGET);
            // The clock is read every 256 expansions: the search ends soon after 1 s (the
            // bound leaves room for a slow machine).
            assert!(
                (1_000..20_000).contains(&r.elapsed_ms),
                "{} ms",
                r.elapsed_ms
            );
        }
        let now = std::time::Instant::now();
        assert_eq!(deadline(&v1::Job::default(), now), None);
        // A shorter deadline than a coordinator may set is held to the shortest.
        let short = v1::Job {
            deadline_ms: 5,
            ..v1::Job::default()
        };
        assert_eq!(
            deadline(&short, now),
            Some(now + std::time::Duration::from_secs(1))
        );
    }

    #[test]
    fn a_cancelled_job_searches_nothing() {
        let ctx = JobContext::new(64, 1);
        let big = Position::empty(Cols::try_from(12u32).expect("width"), Side::Maker);
        let far = v1::Job {
            pn_threshold: u64::MAX - 1,
            dn_threshold: u64::MAX - 1,
            ..job(&big, 1_000_000)
        };
        // Cancelled before it starts: neither run expands anything (the flag is read before
        // every expansion; it used to be read every 256, and a cancelled job searched 6,738
        // nodes here).
        let r = run_job(&far, &ctx, Arc::new(AtomicBool::new(true))).expect("runs");
        assert_eq!(r.nodes, 0);
    }

    #[test]
    fn a_small_board_is_solved_and_a_big_one_reports_children() {
        let ctx = JobContext::new(1, 1);
        let small = Position::empty(Cols::try_from(6u32).expect("width"), Side::Maker);
        let r = run_job(&job(&small, 1_000_000), &ctx, Arc::default()).expect("runs");
        assert_eq!(
            r.maker_wins,
            Some(true),
            "(4, 6, 7^tr), Maker first: Maker wins"
        );
        assert_eq!(r.job_id, "7");

        let big = Position::empty(Cols::try_from(12u32).expect("width"), Side::Maker);
        let r = run_job(&job(&big, 50), &ctx, Arc::default()).expect("runs");
        assert_eq!(r.maker_wins, None);
        assert!(!r.children.is_empty());
        assert!(r.children.iter().all(|c| c.pn > 0 && c.dn > 0));
        assert!(r.nodes >= 50);
    }

    /// A solved job lists its own leaf among its solved positions, also when simplification
    /// alone decided it: what a coordinator restarted since the lease still takes of a late
    /// report.
    #[test]
    fn a_solved_job_lists_its_own_leaf_among_its_solved_positions() {
        let ctx = JobContext::new(16, 1);
        let mut by_simplification = 0;
        for cols in 4..=7u32 {
            for side in [Side::Maker, Side::Breaker] {
                let pos = Position::empty(Cols::try_from(cols).expect("width"), side);
                let leaf = SevenGame::new(pos, Rules::new(pos.cols(), &[]))
                    .expect("a valid position")
                    .key();
                let leased = v1::Job {
                    position: pack_key(&leaf),
                    ..job(&pos, 1_000_000)
                };
                let r = run_job(&leased, &ctx, Arc::default()).expect("runs");
                let wins = r.maker_wins.expect("small boards are solved");
                assert_eq!(
                    r.solved.first(),
                    Some(&solved_position(
                        &leaf,
                        if wins {
                            Value::Proven
                        } else {
                            Value::Disproven
                        }
                    )),
                    "n = {cols}, {side:?} to move"
                );
                by_simplification += usize::from(r.nodes == 0);
            }
        }
        assert!(
            by_simplification > 0,
            "some leaf decided by simplification alone"
        );
    }

    #[test]
    fn a_retained_search_goes_on_below_the_previous_leaf() {
        let ctx = JobContext::new(64, 1);
        let root = Position::empty(Cols::try_from(8u32).expect("width"), Side::Maker);
        let first = run_job(&job(&root, 1_000), &ctx, Arc::default()).expect("runs");
        assert_eq!(first.maker_wins, None);
        let child_job = |c: &v1::ChildEstimate| v1::Job {
            position: c.position.clone(),
            ..job(&root, 10_000_000)
        };
        // Six children solved, once going on from the kept search, once from scratch.
        let (mut reused, mut fresh) = (0, 0);
        for c in first
            .children
            .iter()
            .filter(|c| c.pn > 0 && c.dn > 0)
            .take(6)
        {
            let a = run_job(&child_job(c), &ctx, Arc::default()).expect("runs");
            let b = run_job(&child_job(c), &JobContext::new(64, 1), Arc::default()).expect("runs");
            assert_eq!(a.maker_wins, b.maker_wins);
            assert!(a.maker_wins.is_some());
            reused += a.nodes;
            fresh += b.nodes;
        }
        assert!(
            reused < fresh,
            "{reused} nodes going on vs {fresh} from scratch"
        );
    }

    #[test]
    fn a_helping_thread_searches_the_same_job() {
        let ctx = JobContext::new(256, 2);
        let root = Position::empty(Cols::try_from(11u32).expect("width"), Side::Maker);
        let alone = run_job(
            &job(&root, 100_000_000),
            &JobContext::new(256, 2),
            Arc::default(),
        )
        .expect("runs");
        let (report, helped) = std::thread::scope(|s| {
            let running = s.spawn(|| run_job(&job(&root, 100_000_000), &ctx, Arc::default()));
            let mut helped = false;
            while !running.is_finished() {
                helped |= help(&ctx, std::time::Duration::from_millis(20)) == Help::Searched;
            }
            (running.join().expect("no panic").expect("runs"), helped)
        });
        assert!(helped, "the job was under way while the test helped");
        assert_eq!(report.maker_wins, Some(true), "Maker wins (4, 11, 7^tr)");
        assert_eq!(report.maker_wins, alone.maker_wins);
        assert_eq!(
            help(&ctx, std::time::Duration::from_millis(20)),
            Help::NoJob,
            "no job under way"
        );
    }

    /// A helper returns at once, idle, while the job's search has no run under way and is not
    /// held ([`Shared::hold`]), or the job has ended, rather than waiting for its slice or
    /// returning as if it had searched; while a run is under way it helps to its slice's end.
    #[test]
    fn a_helper_is_idle_while_the_job_has_no_run_under_way() {
        let ctx = JobContext::new(64, 2);
        let pos = Position::empty(Cols::try_from(11u32).expect("width"), Side::Maker);
        let rules = Rules::new(pos.cols(), &[]);
        let root = SevenGame::new(pos, rules).expect("width");
        let register = || {
            let job = Arc::new(Running {
                search: ctx.search(rules, &root),
                done: AtomicBool::new(false),
            });
            *ctx.running.lock().expect("unpoisoned") = vec![Arc::clone(&job)];
            job
        };
        let slice = std::time::Duration::from_secs(30);
        let start = std::time::Instant::now();
        let job = register();
        assert_eq!(help(&ctx, slice), Help::Idle, "no run under way");
        job.done.store(true, Ordering::Relaxed);
        assert_eq!(help(&ctx, slice), Help::Idle, "job ended");
        assert!(
            start.elapsed() < slice,
            "idle helpers return at once, not at the end of their slice"
        );
        let job = register();
        let cancel = Arc::new(AtomicBool::new(false));
        let limits = Limits {
            cancel: Some(Arc::clone(&cancel)),
            ..Limits::default()
        };
        let short = std::time::Duration::from_millis(20);
        std::thread::scope(|s| {
            let run = s.spawn(|| job.search.run(root.clone(), &limits, &AtomicU64::new(0)));
            let mut helped = Help::Idle;
            while helped != Help::Searched && !run.is_finished() {
                helped = help(&ctx, short);
            }
            cancel.store(true, Ordering::Relaxed);
            run.join().expect("no panic").expect("not poisoned");
            assert_eq!(
                helped,
                Help::Searched,
                "a run under way is helped to the slice's end"
            );
        });
    }

    #[test]
    fn bad_bytes_and_unknown_techniques_are_errors() {
        let ctx = JobContext::new(1, 1);
        let mut j = job(
            &Position::empty(Cols::try_from(6u32).expect("width"), Side::Maker),
            10,
        );
        j.disabled_techniques = vec!["nope".into()];
        assert!(run_job(&j, &ctx, Arc::default()).is_err());
        j.disabled_techniques.clear();
        j.position.truncate(3);
        assert!(
            run_job(&j, &ctx, Arc::default())
                .expect_err("bad bytes fail")
                .contains("34 bytes")
        );
    }

    /// Two generations' tables stay within the cache's MiB, and a generation's table never
    /// grows past the one it was made with.
    #[test]
    fn the_cache_stays_within_its_size() {
        for mib in [1, 3, 16, 256, 1024] {
            let c = SolvedCache::new(mib);
            let table = c.young();
            // hashbrown: 8 slots per 7 entries (a power of two), each an entry and a byte.
            let slots = (table.capacity() / 7 * 8).next_power_of_two();
            assert!(2 * slots * CACHE_SLOT_BYTES <= mib << 20, "{mib} MiB");
            assert!(
                4 * slots * CACHE_SLOT_BYTES > mib << 20,
                "{mib} MiB: a fair share"
            );
            assert!(table.capacity() >= c.capacity);
        }
        let c = SolvedCache::new(1);
        let made = c.young().capacity();
        let k = |i: usize| {
            Position::from_masks(
                Cols::try_from(32u32).expect("w"),
                i as u128,
                1u128 << 127,
                Side::Maker,
            )
            .expect("valid")
            .key()
        };
        for i in 0..3 * c.capacity + 5 {
            c.extend([(k(i), Value::Proven)]);
            let g = c.generations.read().expect("lock");
            assert!(g[0].capacity() <= made && g[1].capacity() <= made);
        }
        assert_eq!(c.len(), c.capacity + 5);
    }

    #[test]
    fn the_cache_keeps_two_generations() {
        let c = SolvedCache::new(0);
        assert_eq!(c.capacity, 1);
        let k = |i: u32| {
            Position::from_masks(Cols::try_from(8u32).expect("w"), 0, 1u128 << i, Side::Maker)
                .expect("valid")
                .key()
        };
        c.extend([(k(0), Value::Proven), (k(1), Value::Disproven)]);
        assert_eq!(c.get(&k(0)), Some(Value::Proven));
        c.extend([(k(2), Value::Proven)]);
        assert_eq!(c.get(&k(0)), None, "the oldest generation is gone");
        assert_eq!(c.len(), 2);
    }

    /// Positions added over several holds of the lock ([`CACHE_WRITE_CHUNK`]) are all kept,
    /// and with generations smaller than a chunk the latest two are.
    #[test]
    fn a_cache_write_of_several_chunks_keeps_every_position() {
        let c = SolvedCache::new(1);
        let n = 2 * CACHE_WRITE_CHUNK + 5;
        assert!(c.capacity >= n);
        let cols = Cols::try_from(12u32).expect("w");
        let fact = |i: usize| {
            let value = if i.is_multiple_of(2) {
                Value::Proven
            } else {
                Value::Disproven
            };
            let key = Position::from_masks(cols, i as u128, 0, Side::Maker)
                .expect("valid")
                .key();
            (key, value)
        };
        c.extend((0..n).map(fact));
        assert_eq!(c.len(), n);
        for (key, value) in (0..n).map(fact) {
            assert_eq!(c.get(&key), Some(value));
        }
        let small = SolvedCache {
            generations: RwLock::default(),
            capacity: 100,
        };
        small.extend((0..n).map(fact));
        // The young generation holds the last (n - 1) % 100 + 1, the old one the 100 before.
        let kept = (n - 1) % 100 + 1 + 100;
        assert_eq!(small.len(), kept);
        for (i, (key, value)) in (0..n).map(fact).enumerate() {
            let want = (i >= n - kept).then_some(value);
            assert_eq!(small.get(&key), want, "position {i}");
        }
    }

    /// Every job's positions reach the cache, all of them once [`JobContext::flush`] returns
    /// (which waits for the cache's thread): through that thread, also past its queue (more
    /// jobs than it holds, the caller adding its own), and from the caller itself without it.
    #[test]
    fn remembered_positions_all_reach_the_cache() {
        let cols = Cols::try_from(12u32).expect("w");
        let batch = |b: u128| -> Vec<(Key, Value)> {
            (0..3_000u128)
                .map(|i| {
                    let pos = Position::from_masks(cols, i, 1 << (40 + b), Side::Maker);
                    (pos.expect("valid").key(), Value::Proven)
                })
                .collect()
        };
        let ctx = JobContext::new(64, 1);
        let batches: Vec<_> = (0..6).map(batch).collect();
        for b in &batches {
            ctx.remember(b.clone());
        }
        ctx.flush();
        for (key, value) in batches.iter().flatten() {
            assert_eq!(ctx.cache.get(key), Some(*value));
        }
        // While the cache's thread cannot add (its lock held here), a flush waits.
        let held = ctx.cache.generations.write().expect("unpoisoned");
        ctx.remember(batch(6));
        let flushed = AtomicBool::new(false);
        std::thread::scope(|s| {
            s.spawn(|| {
                ctx.flush();
                flushed.store(true, Ordering::Relaxed);
            });
            std::thread::sleep(std::time::Duration::from_millis(50));
            assert!(
                !flushed.load(Ordering::Relaxed),
                "a flush waits for the cache"
            );
            drop(held);
        });
        assert_eq!(ctx.cache.len(), 7 * 3_000);
        let mut alone = JobContext::new(64, 1);
        alone.cache_writes = None;
        alone.remember(batch(7));
        assert_eq!(alone.cache.len(), 3_000, "added by the caller, at once");
    }

    /// The report's solved positions are the first of a stable sort by stones, however many
    /// the search found.
    #[test]
    fn a_report_carries_the_solved_positions_with_the_fewest_stones() {
        let cols = Cols::try_from(12u32).expect("w");
        // Maker's stones (0 to 5) cycling with `i` and one of Breaker's on 8 cells: every count
        // many times over, in no sorted order (some positions come twice; the choice must not
        // mind).
        let facts: Vec<(Key, Value)> = (0u32..300)
            .map(|i| {
                let stones = i % 6;
                let cells = (1u128 << stones) - 1;
                let (maker, breaker) = (cells << (i % 20), 1u128 << (40 + i % 8));
                let value = if i % 3 == 0 {
                    Value::Proven
                } else {
                    Value::Disproven
                };
                let key = Position::from_masks(cols, maker, breaker, Side::Maker)
                    .expect("valid")
                    .key();
                (key, value)
            })
            .collect();
        let mut sorted = facts.clone();
        sorted.sort_by_key(|(k, _)| k.stones());
        for n in [0, 1, 37, 50, 299, 300, 301, 2_000] {
            let want = &sorted[..n.min(sorted.len())];
            assert_eq!(fewest_stones(&facts, n), want, "n = {n}");
        }
        assert_eq!(fewest_stones(&[], 5), []);
    }

    /// A job's solved positions reach the worker's cache (on the cache's own thread, after
    /// the report is built), where the next jobs' searches look them up.
    #[test]
    fn a_jobs_solved_positions_reach_the_cache() {
        let ctx = JobContext::new(64, 1);
        let root = Position::empty(Cols::try_from(9u32).expect("width"), Side::Maker);
        let r = run_job(&job(&root, 10_000_000), &ctx, Arc::default()).expect("runs");
        assert_eq!(r.maker_wins, Some(true), "Maker wins (4, 9, 7^tr)");
        assert!(r.solved.len() > 100, "{} solved positions", r.solved.len());
        ctx.flush();
        // The job's leaf comes first, from the job, not from its search's record.
        for s in &r.solved[1..] {
            let key = unpack(&s.position, "position").expect("packed").key();
            let want = if s.maker_wins {
                Value::Proven
            } else {
                Value::Disproven
            };
            assert_eq!(ctx.cache.get(&key), Some(want));
        }
    }
}
