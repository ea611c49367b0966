//! The coordinator: problems, their PN DAGs, job leases and the persistence of all of it.
//!
//! One [`Coordinator`] owns every problem. Its state sits behind one `std::sync::Mutex` that is
//! never held across an `.await`: each RPC locks, applies its change to the DAG, writes the
//! change to the [`Store`] as one [`Batch`], and unlocks. The gRPC services
//! ([`crate::service`]) are thin adapters over the methods here.
//!
//! - [`dag`]: one problem's PN DAG with in-flight marking (pure).
//! - `problems` (this file): submit, get, list, cancel, results, loading after a restart.
//! - `jobs`: lease, heartbeat, report, abandon, and the expiry of leases (the sweeper calls
//!   [`Coordinator::expire`]).
//!
//! Persistence (DESIGN.md, "Persistence"): problems and DAG nodes are written as they change;
//! solved values go to `tt`, shared by every problem of the same width, and answer later
//! problems at once. Leases live in memory only: after a restart every old lease counts as
//! expired (its leaf is leased again; a late report still contributes its solved values).

pub mod dag;
mod jobs;
mod problems;

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet, VecDeque};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use rustc_hash::FxHashMap;
use solver_core::games::seven::{Key, Position, Rules, Technique};
use solver_proto::convert::seven::pack_key;
use solver_proto::v1;
use tokio::sync::watch;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;
use tracing::error;

use crate::error::Error;
use crate::store::records::{NodeRecord, ProblemRecord};
use crate::store::{Batch, ColumnFamily, Store, StoreError, keys};
use dag::{Dag, NodeId};

/// Tunables of the coordinator.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CoordinatorConfig {
    /// A lease expires this long after it was granted or last renewed by a heartbeat.
    pub lease: Duration,
    /// Node budget of a job when the problem does not set one. The binary's
    /// `--job-node-budget` keeps it at least `solver_proto::work::MIN_JOB_NODE_BUDGET`, as
    /// `Submit` keeps a problem's; a smaller one here gives smaller jobs (tests that want many).
    pub default_job_budget: u64,
    /// Longest search of one job ([`v1::Job`]'s `deadline_ms`), from when the worker starts
    /// it; zero for none (the node budget alone).
    pub job_deadline: Duration,
    /// With no job to lease, workers are told to ask again after this long.
    pub retry_after: Duration,
    /// Cap of the search of a solved problem's winning first moves, in bytes
    /// ([`solver_core::pns::Limits::max_bytes`]).
    pub moves_search_bytes: usize,
}

impl CoordinatorConfig {
    /// The node budget of a job (before failures shrink it) of a problem whose spec says
    /// `job_node_budget`: that, else the server's default (for 0).
    fn job_budget(&self, job_node_budget: u64) -> u64 {
        match job_node_budget {
            0 => self.default_job_budget,
            b => b,
        }
    }
}

impl Default for CoordinatorConfig {
    fn default() -> Self {
        Self {
            lease: Duration::from_secs(30),
            default_job_budget: DEFAULT_JOB_BUDGET,
            job_deadline: Duration::from_millis(DEFAULT_JOB_DEADLINE_MS),
            retry_after: Duration::from_millis(250),
            moves_search_bytes: mib_bytes(DEFAULT_MOVES_SEARCH_MB),
        }
    }
}

/// MiB the search of a solved problem's winning first moves may hold unless the server says
/// otherwise: as a worker's default table. Without a cap, a search of four 100,000,000-node
/// budgets grew by about 28 MB a second (2.5 GB in 85 s, debug build) until the server was
/// killed for its memory.
pub const DEFAULT_MOVES_SEARCH_MB: u64 = 1024;

/// `mib` MiB in bytes, saturating at `usize::MAX`.
pub fn mib_bytes(mib: u64) -> usize {
    usize::try_from(mib.saturating_mul(1 << 20)).unwrap_or(usize::MAX)
}

/// Node budget of a job unless the problem or the server says otherwise. Jobs usually end
/// earlier, at their leaf's thresholds (proto/README.md, "Work: leases"); the budget bounds
/// a job whose leaf has none (the root) and the time between reports. Measured with a
/// 10,000-node cap on the root's job instead (so that a second worker starts sooner): two
/// workers searched 15.7 M nodes at n = 12 instead of 6.2 M.
pub const DEFAULT_JOB_BUDGET: u64 = 1_000_000;
/// A job's deadline unless the server says otherwise, in ms: a minute. A job of the default
/// budget takes seconds (1,000,000 nodes of (4, n, 7^tr) at the 200,000 to 450,000 nodes per
/// second one core of the project's machine searches: README, "Performance of the engine"), so
/// the deadline bounds the large budgets a problem may ask for (up to 100,000,000 nodes,
/// minutes of search) and keeps a worker's graceful stop, which finishes its running jobs,
/// within a container's grace period (deploy/: 120 s).
pub const DEFAULT_JOB_DEADLINE_MS: u64 = 60_000;
/// Job ids are reserved in blocks of this many; the ceiling is persisted per block.
const JOB_ID_BLOCK: u64 = 100_000;
/// Leases that ended without a report (expired, abandoned, their problem finished) whose
/// target is remembered, so a late report's value still lands. Oldest forgotten first.
const MAX_ORPHANS: usize = 100_000;
/// Most worker names a problem's `workers_seen` counts (a cluster whose pods get new names at
/// each restart would otherwise grow the set without end).
const MAX_WORKERS_SEEN: usize = 65_535;

/// The coordinator. Cheap to share: wrap it in an `Arc`. After a failure of its store, or a
/// panic while a request changed its state, every method answers `UNAVAILABLE`
/// ([`Coordinator::failure`]).
#[derive(Debug)]
pub struct Coordinator {
    state: Mutex<State>,
    store: Arc<dyn Store>,
    config: CoordinatorConfig,
    /// Woken when leaves may have become free (a submit, a report, an abandon, an expiry):
    /// leases waiting for work ([`Coordinator::lease_or_wait`]) try again.
    work: tokio::sync::Notify,
    /// Fired by the first failure of the store or panic under the lock
    /// ([`Coordinator::failure`]).
    failed: CancellationToken,
    /// Woken when a solved problem waits for its winning first moves
    /// ([`Coordinator::moves_wanted`]).
    moves: tokio::sync::Notify,
}

/// Distinct worker names, counted up to [`MAX_WORKERS_SEEN`]: later names are not kept.
#[derive(Debug, Default)]
struct WorkersSeen(HashSet<Arc<str>>);

impl WorkersSeen {
    fn insert(&mut self, worker: &Arc<str>) {
        if self.0.len() < MAX_WORKERS_SEEN {
            self.0.insert(Arc::clone(worker));
        }
    }

    fn count(&self) -> u32 {
        self.0.len() as u32
    }
}

/// Everything the lock protects.
#[derive(Debug, Default)]
struct State {
    /// Every problem by id, running or not.
    problems: BTreeMap<u64, ProblemState>,
    /// Idempotency keys of submits -> problem id.
    request_ids: HashMap<String, u64>,
    /// Live leases by job id.
    leases: FxHashMap<u64, Lease>,
    /// Live leases by deadline, for the sweeper.
    deadlines: BTreeSet<(Instant, u64)>,
    /// Ended leases not reported yet: job id -> (problem, key).
    orphans: BTreeMap<u64, (u64, Key)>,
    /// The next job id to hand out.
    next_job: u64,
    /// Job ids below this are reserved in the store.
    job_ceiling: u64,
    /// The next problem id.
    next_problem: u64,
    /// Round-robin cursor over problems for leasing.
    cursor: u64,
    /// Numbers of the searchers (worker, slot) seen since start, from 1 (see `dag::Searcher`);
    /// once every number is taken, a gone searcher's number is reused, and while none is gone
    /// later searchers are 0 (nobody) and not kept.
    searchers: HashMap<(Arc<str>, u32), dag::Searcher>,
    /// When each numbered searcher last leased, reported or sent a heartbeat. One not seen for
    /// a lease's length is gone, and its leaves are anyone's ([`dag::Dag::select_for`]).
    searchers_seen: FxHashMap<dag::Searcher, Instant>,
    /// The last lease answer with jobs of each numbered searcher: its request id and job ids,
    /// for a retry of that request (`LeaseRequest.request_id`).
    answers: HashMap<(Arc<str>, u32), (String, Vec<u64>)>,
    /// Solved problems waiting for a search of their winning first moves, oldest first
    /// ([`Coordinator::name_winning_moves`]).
    moves_wanted: VecDeque<problems::MovesSearch>,
    /// The running problems whose root is solved and whose winning first moves no value
    /// named when it was: for each, the root's moves no value decided then
    /// ([`problems::OpenMove`]). They wait for a search of their moves (queued in
    /// `moves_wanted` or under way; after [`Coordinator::stop_moves_search`], for the next
    /// server run), for a value stored in `tt` that names one ([`problems::end_waiting`]), or
    /// for their DAG to prove one ([`problems::finish`]).
    waiting: BTreeMap<u64, Vec<problems::OpenMove>>,
    /// The problem whose winning moves are being searched, and the flag that stops that search
    /// (set when the problem ends meanwhile: cancelled, or its moves named by a value stored in
    /// `tt` or proved by its DAG; or by [`Coordinator::stop_moves_search`]).
    moves_search: Option<(u64, Arc<AtomicBool>)>,
    /// No more searches of winning moves in this run ([`Coordinator::stop_moves_search`]).
    moves_stopped: bool,
}

/// A leased leaf.
#[derive(Debug, Clone)]
struct Lease {
    problem: u64,
    node: NodeId,
    worker: Arc<str>,
    deadline: Instant,
    /// The worker slot that holds it (its report's new nodes are that slot's).
    searcher: dag::Searcher,
    /// The job's node budget and (pn, dn) thresholds, as leased.
    budget: u64,
    thresholds: (u64, u64),
}

/// A problem in memory.
#[derive(Debug)]
struct ProblemState {
    /// The problem as shown to clients; `progress` holds the counters (jobs done and expired,
    /// worker nodes), the rest of it is filled in by [`ProblemState::snapshot`].
    problem: v1::Problem,
    request_id: String,
    /// The submitted position.
    position: Position,
    /// The techniques switched off.
    disabled: Vec<Technique>,
    /// The rules with the problem's techniques (for the root and the winning moves).
    rules: Rules,
    /// The packed root key.
    root: Vec<u8>,
    /// The DAG while running; `None` once solved or cancelled.
    dag: Option<Dag>,
    /// Nodes whose stored record is out of date.
    dirty: Vec<NodeId>,
    /// Leases of this problem now.
    in_flight: u64,
    /// Worker names that leased a job of this problem since the server started (up to
    /// [`MAX_WORKERS_SEEN`]).
    workers: WorkersSeen,
    /// Running time before this server run, in ms.
    elapsed_before_ms: u64,
    /// When this server run started counting the problem's time.
    started: Instant,
    /// Ticks on every change, for watchers, with whether the problem has finished.
    changed: watch::Sender<bool>,
}

impl ProblemState {
    fn running(&self) -> bool {
        self.problem.status == v1::ProblemStatus::Running as i32
    }

    fn elapsed_ms(&self) -> u64 {
        if self.running() {
            self.elapsed_before_ms + self.started.elapsed().as_millis() as u64
        } else {
            self.problem.progress.as_ref().map_or(0, |p| p.elapsed_ms)
        }
    }

    /// The problem as clients see it now.
    fn snapshot(&self) -> v1::Problem {
        let mut p = self.problem.clone();
        if !self.running() {
            return p;
        }
        let progress = p.progress.get_or_insert_with(Default::default);
        progress.elapsed_ms = self.elapsed_ms();
        if let Some(dag) = &self.dag {
            progress.root_pn = dag.root().pn;
            progress.root_dn = dag.root().dn;
            progress.dag_nodes = dag.len() as u64;
            progress.dag_solved = dag.solved_count();
        }
        progress.jobs_in_flight = self.in_flight;
        progress.workers_seen = self.workers.count();
        progress.nodes_per_second = if progress.elapsed_ms == 0 {
            0.0
        } else {
            progress.worker_nodes as f64 * 1000.0 / progress.elapsed_ms as f64
        };
        p
    }

    fn progress_mut(&mut self) -> &mut v1::Progress {
        self.problem.progress.get_or_insert_with(Default::default)
    }

    fn notify(&self) {
        let finished = !self.running();
        self.changed.send_modify(|f| *f = finished);
    }

    /// Adds the problem record and every dirty node to `batch`.
    fn persist(&mut self, id: u64, batch: &mut Batch) {
        let record = ProblemRecord {
            problem: Some(self.snapshot()),
            request_id: self.request_id.clone(),
            root: self.root.clone(),
        };
        batch.put(
            ColumnFamily::Problems,
            keys::problem(id),
            prost::Message::encode_to_vec(&record),
        );
        let Some(dag) = &self.dag else {
            self.dirty.clear();
            return;
        };
        self.dirty.sort_unstable();
        self.dirty.dedup();
        for &n in &self.dirty {
            let node = dag.node(n);
            let rec = NodeRecord {
                pn: node.pn,
                dn: node.dn,
                expanded: node.expanded,
                children: node
                    .children
                    .iter()
                    .map(|&c| pack_key(&dag.node(c).key))
                    .collect(),
                tries: node.tries,
            };
            batch.put(
                ColumnFamily::Nodes,
                keys::node(id, &pack_key(&node.key)),
                prost::Message::encode_to_vec(&rec),
            );
        }
        self.dirty.clear();
    }
}

impl Coordinator {
    /// `Work.Lease` held open: when no leaf is free, waits up to the configured retry interval
    /// for one to become free (a submit, a report, an abandon, an expiry) and tries again, so a
    /// worker gets new work at once instead of at its next poll. With still nothing, the answer
    /// tells the worker to ask again at once (`retry_after_ms` 0).
    ///
    /// # Errors
    /// As [`Coordinator::lease`].
    pub async fn lease_or_wait(&self, req: v1::LeaseRequest) -> Result<v1::LeaseResponse, Error> {
        let deadline = Instant::now() + self.config.retry_after;
        loop {
            // Registered before the attempt, so a wake-up between the two is not lost.
            let notified = self.work.notified();
            tokio::pin!(notified);
            notified.as_mut().enable();
            let resp = self.lease(req.clone())?;
            if !resp.jobs.is_empty() {
                return Ok(resp);
            }
            tokio::select! {
                () = notified => {}
                () = tokio::time::sleep_until(deadline) => {
                    return Ok(v1::LeaseResponse { retry_after_ms: 0, ..resp });
                }
            }
        }
    }

    /// Wakes the leases waiting for work.
    fn work_may_be_free(&self) {
        self.work.notify_waiters();
    }

    /// Opens the coordinator on `store`, reloading every problem and the DAG of every running
    /// one. Leases do not survive: every leaf is free to lease again.
    ///
    /// # Errors
    /// [`Error::Internal`] when the store fails or holds a record this build cannot read.
    pub fn open(store: Arc<dyn Store>, config: CoordinatorConfig) -> Result<Self, Error> {
        let state = problems::load(store.as_ref())?;
        let failed = CancellationToken::new();
        let coordinator = Self {
            state: Mutex::new(state),
            store: Arc::new(FailStop {
                inner: store,
                failed: failed.clone(),
            }),
            config,
            work: tokio::sync::Notify::new(),
            moves: tokio::sync::Notify::new(),
            failed,
        };
        coordinator.settle_loaded()?;
        Ok(coordinator)
    }

    /// Finishes reloaded problems whose root is solved already, or queues the search of their
    /// winning moves (a problem waiting for it when the server stopped; also a DAG that comes
    /// back solved when its solved values were all stored).
    fn settle_loaded(&self) -> Result<(), Error> {
        let mut st = self.lock()?;
        let done: Vec<(u64, solver_core::pns::Value)> = st
            .problems
            .iter()
            .filter_map(|(&id, p)| Some((id, p.dag.as_ref()?.root().value()?)))
            .collect();
        let mut batch = Batch::new();
        for (id, v) in done {
            problems::finish(&mut st, self.store.as_ref(), id, v, &mut batch, &[])?;
        }
        self.write(&mut st, batch)?;
        self.wake_moves(&st);
        Ok(())
    }

    /// Wakes [`Coordinator::moves_wanted`] if a solved problem waits for its winning moves.
    fn wake_moves(&self, st: &State) {
        if !st.moves_wanted.is_empty() {
            self.moves.notify_one();
        }
    }

    /// Returns once a solved problem waits for a search of its winning first moves (at once
    /// if one came since the last call): then call [`Coordinator::name_winning_moves`].
    pub async fn moves_wanted(&self) {
        self.moves.notified().await;
    }

    /// Searches the winning first moves of every solved problem waiting for them, one at a
    /// time and outside the lock (four job budgets of nodes per search, the problem's or the
    /// server's default (`--job-node-budget`) if that is larger, with a search per open
    /// move when the first names none: seconds to minutes; see `MovesSearch::run`),
    /// and ends each problem that is still running with its result. After
    /// [`Coordinator::stop_moves_search`] the search under way stops and its problem, like
    /// every one still waiting, waits for the next server run; the search of a problem that
    /// ended meanwhile (cancelled, or its moves named otherwise: `State::waiting`) stops, and the
    /// next waiting problem's follows. Returns the problems ended.
    ///
    /// # Errors
    /// `UNAVAILABLE` after a failure ([`Coordinator::failure`]); `INTERNAL` when the store
    /// fails.
    pub fn name_winning_moves(&self) -> Result<usize, Error> {
        let mut ended = 0;
        loop {
            let (search, stop) = {
                let mut st = self.lock()?;
                st.moves_search = None;
                if st.moves_stopped {
                    return Ok(ended);
                }
                // A problem cancelled while it waited is not searched.
                let search = loop {
                    match st.moves_wanted.pop_front() {
                        None => return Ok(ended),
                        Some(s) if st.problems.get(&s.id).is_some_and(ProblemState::running) => {
                            break s;
                        }
                        Some(_) => {}
                    }
                };
                let stop = Arc::new(AtomicBool::new(false));
                st.moves_search = Some((search.id, Arc::clone(&stop)));
                (search, stop)
            };
            // The problem's job budget, but at least the server's: a problem of small jobs
            // still gets a search that finds its moves.
            let budget = self
                .config
                .job_budget(search.job_node_budget)
                .max(self.config.default_job_budget);
            let moves = match catch_unwind(AssertUnwindSafe(|| {
                search.run(budget, self.config.moves_search_bytes, &stop)
            })) {
                Ok(Some(moves)) => moves,
                // Cancelled: the problem ended meanwhile (it is not completed below), or the
                // server stops (checked above).
                Ok(None) => continue,
                Err(_) => {
                    error!(
                        problem = search.id,
                        "the search of the winning moves panicked"
                    );
                    Vec::new()
                }
            };
            let mut st = self.lock()?;
            let mut batch = Batch::new();
            if st
                .problems
                .get(&search.id)
                .is_some_and(ProblemState::running)
            {
                problems::complete(&mut st, search.id, search.value, moves, &mut batch)?;
                ended += 1;
            }
            self.write(&mut st, batch)?;
        }
    }

    /// Stops the search of winning moves under way, if any, and every later one in this run
    /// ([`Coordinator::name_winning_moves`] then returns): for a server that stops.
    pub fn stop_moves_search(&self) {
        let mut st = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        st.moves_stopped = true;
        if let Some((_, stop)) = &st.moves_search {
            stop.store(true, Ordering::Relaxed);
        }
    }

    /// The configuration.
    pub fn config(&self) -> &CoordinatorConfig {
        &self.config
    }

    /// Fired when the store failed (a read or a write: a full disk, an I/O error) or a panic
    /// interrupted a change. The state in memory may then be ahead of the store (a report's
    /// lease dropped, its expansion not stored), so from that moment every request is refused
    /// with `UNAVAILABLE` and the server stops (`server::run` returns an error): a restart
    /// reloads the last complete state from the store, and workers retry their reports
    /// against it.
    pub fn failure(&self) -> CancellationToken {
        self.failed.clone()
    }

    /// Locks the state. Every store operation runs with the state locked, so a failure fires
    /// [`Coordinator::failure`] before any other request can see what the store lacks.
    ///
    /// # Errors
    /// `UNAVAILABLE` after a failure ([`Coordinator::failure`]), a panic under the lock
    /// included.
    fn lock(&self) -> Result<MutexGuard<'_, State>, Error> {
        let st = self.state.lock().unwrap_or_else(|poisoned| {
            fail(&self.failed, "a request panicked while changing the state");
            poisoned.into_inner()
        });
        if self.failed.is_cancelled() {
            return Err(Error::Unavailable(
                "the coordinator is stopping after a failure (of its store, or a panic)".to_owned(),
            ));
        }
        Ok(st)
    }

    /// Writes `batch` (with the state locked), after ending the problems waiting for their
    /// winning moves that a value it stores in `tt` names ([`problems::end_waiting`]).
    fn write(&self, st: &mut State, mut batch: Batch) -> Result<(), Error> {
        problems::end_waiting(st, &mut batch)?;
        if batch.is_empty() {
            return Ok(());
        }
        self.store.write(batch).map_err(Error::from)
    }
}

/// The coordinator's store: the first error of any operation fires `failed`
/// ([`Coordinator::failure`]).
#[derive(Debug)]
struct FailStop {
    inner: Arc<dyn Store>,
    failed: CancellationToken,
}

impl FailStop {
    fn check<T>(&self, r: Result<T, StoreError>) -> Result<T, StoreError> {
        if let Err(e) = &r {
            fail(&self.failed, &format!("the store failed: {e}"));
        }
        r
    }
}

/// Fires `failed` ([`Coordinator::failure`]), logging `why` the first time.
fn fail(failed: &CancellationToken, why: &str) {
    if !failed.is_cancelled() {
        error!("{why}: refusing every request and stopping");
    }
    failed.cancel();
}

impl Store for FailStop {
    fn get(&self, cf: ColumnFamily, key: &[u8]) -> Result<Option<Vec<u8>>, StoreError> {
        self.check(self.inner.get(cf, key))
    }

    fn put(&self, cf: ColumnFamily, key: &[u8], value: &[u8]) -> Result<(), StoreError> {
        self.check(self.inner.put(cf, key, value))
    }

    fn write(&self, batch: Batch) -> Result<(), StoreError> {
        self.check(self.inner.write(batch))
    }

    fn scan_prefix(
        &self,
        cf: ColumnFamily,
        prefix: &[u8],
    ) -> Result<Vec<crate::store::KeyValue>, StoreError> {
        self.check(self.inner.scan_prefix(cf, prefix))
    }

    fn flush(&self) -> Result<(), StoreError> {
        self.check(self.inner.flush())
    }
}

impl From<StoreError> for Error {
    fn from(e: StoreError) -> Self {
        Error::Internal(format!("storage: {e}"))
    }
}

/// An `INVALID_ARGUMENT` error naming `field`.
fn invalid(field: impl Into<String>, message: impl Into<String>) -> Error {
    Error::InvalidArgument(solver_proto::convert::WireError::new(field, message))
}

/// Parses a problem id from the wire.
fn parse_problem_id(raw: &str) -> Result<u64, Error> {
    parse_id(raw, "problem_id", "problem")
}

/// Parses the id of a `what` (`problem`, `job`) from the wire field `field`: decimal digits
/// alone (`str::parse` also takes a leading `+`) of a `u64`.
fn parse_id(raw: &str, field: &str, what: &str) -> Result<u64, Error> {
    raw.bytes()
        .all(|b| b.is_ascii_digit())
        .then(|| raw.parse().ok())
        .flatten()
        .ok_or_else(|| {
            invalid(
                field,
                format!("{raw:?} is not a {what} id (decimal digits, below 2^64)"),
            )
        })
}

/// Validates a worker name or a request id ([`solver_proto::work::check_name`]).
fn check_name(field: &str, value: &str, allow_empty: bool) -> Result<(), Error> {
    solver_proto::work::check_name(value, allow_empty).map_err(|e| invalid(field, e))
}

/// Parses technique names, sorted and without duplicates.
fn parse_techniques(names: &[String], field: &str) -> Result<Vec<Technique>, Error> {
    let mut out = Vec::with_capacity(names.len());
    for (i, n) in names.iter().enumerate() {
        let t: Technique =
            n.parse()
                .map_err(|e: solver_core::games::seven::UnknownTechnique| {
                    invalid(format!("{field}[{i}]"), e.to_string())
                })?;
        out.push(t);
    }
    out.sort();
    out.dedup();
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn workers_seen_count_each_name_once_up_to_the_cap() {
        let mut seen = WorkersSeen::default();
        let a: Arc<str> = Arc::from("a");
        seen.insert(&a);
        seen.insert(&a);
        assert_eq!(seen.count(), 1);
        for i in 0..MAX_WORKERS_SEEN + 10 {
            seen.insert(&Arc::from(format!("w{i}")));
        }
        assert_eq!(seen.count() as usize, MAX_WORKERS_SEEN);
    }
}
