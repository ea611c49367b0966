//! Problems: submit, get, list, watch, cancel, results, and reloading them after a restart.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use solver_core::games::seven::{Key, Position, Rules, SevenGame, Side, Technique};
use solver_core::pns::{Game, Limits, Outcome, Value};
use solver_proto::convert::seven::{pack_key, unpack};
use solver_proto::v1;
use solver_proto::work::check_job_node_budget;
use solver_proto::{DEFAULT_LIST_PAGE_SIZE, MAX_LIST_PAGE_SIZE};
use tokio::sync::watch;
use tokio::time::Instant;
use tracing::{info, warn};

use super::dag::{Dag, StoredNode, solved_numbers};
use super::{
    Coordinator, Error, ProblemState, State, check_name, invalid, parse_id, parse_problem_id,
    parse_techniques,
};
use crate::store::records::{NodeRecord, ProblemRecord};
use crate::store::{Batch, BatchOp, ColumnFamily, Store, StoreError, keys};

/// A validated problem spec: the position, the techniques switched off, and the spec in
/// normal form (width filled in, techniques sorted), as stored and compared for idempotency.
struct ValidSpec {
    position: Position,
    disabled: Vec<Technique>,
    spec: v1::ProblemSpec,
}

fn validate_spec(spec: Option<v1::ProblemSpec>) -> Result<ValidSpec, Error> {
    let spec = spec.ok_or_else(|| invalid("spec", "is missing"))?;
    let wire = spec
        .position
        .as_ref()
        .ok_or_else(|| invalid("spec.position", "is missing"))?;
    let position =
        Position::try_from(wire).map_err(|e| invalid(format!("spec.{}", e.field), e.message))?;
    let disabled = parse_techniques(&spec.disabled_techniques, "spec.disabled_techniques")?;
    check_job_node_budget(spec.job_node_budget).map_err(|e| invalid("spec.job_node_budget", e))?;
    let spec = v1::ProblemSpec {
        position: Some(v1::SevenPosition::from(&position)),
        disabled_techniques: disabled.iter().map(|t| t.name().to_owned()).collect(),
        job_node_budget: spec.job_node_budget,
    };
    Ok(ValidSpec {
        position,
        disabled,
        spec,
    })
}

/// The stored solved value of `key`, if any, in whichever form the asking problem keys its
/// positions (mirror-canonical, or exact with `--disable mirror-tt`): `tt` holds a position
/// under its mirror-canonical key ([`put_tt`]), which a position and its mirror share, since
/// they have one value. A value stored by an earlier version under the other, not canonical,
/// exact key of the two is found too.
pub(super) fn tt_value(store: &dyn Store, key: &Key) -> Result<Option<Value>, StoreError> {
    let stored = |key: &Key| -> Result<Option<Value>, StoreError> {
        Ok(store
            .get(ColumnFamily::Tt, &keys::seven_tt(&pack_key(key)))?
            .and_then(|v| match v.as_slice() {
                [1] => Some(Value::Proven),
                [0] => Some(Value::Disproven),
                _ => None,
            }))
    };
    let canonical = key.canonical();
    let other = if canonical == *key {
        key.mirror()
    } else {
        *key
    };
    match stored(&canonical)? {
        None if other != canonical => stored(&other),
        found => Ok(found),
    }
}

/// Adds the solved value of `key` to `batch`'s `tt` writes, under its mirror-canonical key
/// (see [`tt_value`]).
pub(super) fn put_tt(batch: &mut Batch, key: &Key, value: Value) {
    batch.put(
        ColumnFamily::Tt,
        tt_key(key),
        vec![u8::from(value == Value::Proven)],
    );
}

/// The key of a position's value in `tt`: its mirror-canonical form's, so that a position and
/// its mirror image share one entry.
fn tt_key(key: &Key) -> Vec<u8> {
    keys::seven_tt(&pack_key(&key.canonical()))
}

fn winner(value: Value) -> v1::Winner {
    match value {
        Value::Proven => v1::Winner::Maker,
        Value::Disproven => v1::Winner::Breaker,
    }
}

impl Coordinator {
    /// Submits a problem (`Solver.Submit`).
    ///
    /// # Errors
    /// `INVALID_ARGUMENT` naming the field for a bad request id, position (also one where
    /// Maker owns an edge already: a finished game), technique or budget; `ALREADY_EXISTS`
    /// when the request id names a problem with another spec; `INTERNAL` when the store fails.
    pub fn submit(&self, req: v1::SubmitRequest) -> Result<v1::SubmitResponse, Error> {
        check_name("request_id", &req.request_id, true)?;
        let valid = validate_spec(req.spec)?;
        // The game's work (the reductions to the fixpoint, threat-space search included) before
        // the coordinator's lock, which leases and reports wait for.
        let rules = Rules::new(valid.position.cols(), &valid.disabled);
        if valid.position.maker_won(rules.hypergraph()) {
            return Err(invalid(
                "spec.position.rows",
                "Maker already owns an edge; the game is over",
            ));
        }
        let mut game = SevenGame::new(valid.position, rules)
            .expect("the rules are built for the position's width");
        let decided = game.simplify();
        let root = game.key();
        // The root's numbers as the position shows them (the store may know it solved).
        let numbers = match decided {
            Some(v) => solved_numbers(v),
            None => {
                let (pn, dn) = game.estimate();
                (pn.max(1), dn.max(1))
            }
        };
        let mut st = self.lock()?;
        if let Some(&id) = st.request_ids.get(&req.request_id) {
            let same = st.problems[&id].problem.spec.as_ref() == Some(&valid.spec);
            if !same {
                return Err(Error::AlreadyExists(format!(
                    "request_id {:?} was used for problem {id} with another spec",
                    req.request_id
                )));
            }
            return Ok(v1::SubmitResponse {
                problem_id: id.to_string(),
                created: false,
            });
        }
        let id = st.next_problem;
        let value = match decided {
            Some(v) => Some(v),
            None => tt_value(self.store.as_ref(), &root)?,
        };
        let (changed, _) = watch::channel(false);
        let mut ps = ProblemState {
            problem: v1::Problem {
                problem_id: id.to_string(),
                spec: Some(valid.spec),
                status: v1::ProblemStatus::Running as i32,
                progress: Some(v1::Progress::default()),
                result: None,
                submitted_unix_ms: unix_ms(),
            },
            request_id: req.request_id.clone(),
            position: valid.position,
            disabled: valid.disabled,
            rules,
            root: pack_key(&root),
            dag: None,
            dirty: Vec::new(),
            in_flight: 0,
            workers: Default::default(),
            elapsed_before_ms: 0,
            started: Instant::now(),
            changed,
        };
        // A decided root is a solved one-node DAG until the problem ends (which may wait for
        // a search of its winning moves, see `finish`).
        let (pn, dn) = match value {
            Some(v) => solved_numbers(v),
            None => numbers,
        };
        ps.dag = Some(Dag::new(root, pn, dn));
        ps.dirty.push(super::dag::ROOT);
        let mut batch = Batch::new();
        // An accepted problem survives a crash of the machine too.
        batch.make_durable();
        batch.put(
            ColumnFamily::Meta,
            keys::NEXT_PROBLEM_ID_KEY,
            (id + 1).to_be_bytes(),
        );
        st.problems.insert(id, ps);
        if let Some(ps) = st.problems.get_mut(&id) {
            ps.persist(id, &mut batch);
        }
        if let Some(v) = value {
            finish(&mut st, self.store.as_ref(), id, v, &mut batch, &[])?;
        }
        self.write(&mut st, batch)?;
        self.wake_moves(&st);
        st.next_problem = id + 1;
        if !req.request_id.is_empty() {
            st.request_ids.insert(req.request_id, id);
        }
        info!(problem = id, root = %pack_hex(&root), "problem submitted");
        metrics::counter!("solver_problems_submitted_total").increment(1);
        drop(st);
        self.work_may_be_free();
        Ok(v1::SubmitResponse {
            problem_id: id.to_string(),
            created: true,
        })
    }

    /// The problem `raw_id` as it is now (`Solver.GetProblem`).
    ///
    /// # Errors
    /// `INVALID_ARGUMENT` for an id that is not decimal digits below 2^64; `NOT_FOUND` for an
    /// unknown one; `UNAVAILABLE` after a failure ([`Coordinator::failure`]).
    pub fn problem(&self, raw_id: &str) -> Result<v1::Problem, Error> {
        let id = parse_problem_id(raw_id)?;
        let st = self.lock()?;
        st.problems
            .get(&id)
            .map(ProblemState::snapshot)
            .ok_or_else(|| Error::NotFound(format!("problem {id}")))
    }

    /// One page of the problems, newest first (`Solver.ListProblems`).
    ///
    /// # Errors
    /// `INVALID_ARGUMENT` for a `page_size` past [`MAX_LIST_PAGE_SIZE`] or a `page_token`
    /// that no answer could have given (not a problem id); `UNAVAILABLE` after a failure
    /// ([`Coordinator::failure`]).
    pub fn list(&self, req: &v1::ListProblemsRequest) -> Result<v1::ListProblemsResponse, Error> {
        let size = match req.page_size {
            0 => DEFAULT_LIST_PAGE_SIZE,
            s if s <= MAX_LIST_PAGE_SIZE => s,
            s => {
                return Err(invalid(
                    "page_size",
                    format!("is {s}; at most {MAX_LIST_PAGE_SIZE} (0 = {DEFAULT_LIST_PAGE_SIZE})"),
                ));
            }
        };
        // A token is the id of the previous page's last problem; the page goes on below it.
        let below = match req.page_token.as_str() {
            "" => u64::MAX,
            t => parse_id(t, "page_token", "problem").map_err(|_| {
                invalid(
                    "page_token",
                    format!("{t:?} is not the next_page_token of a ListProblems answer"),
                )
            })?,
        };
        let st = self.lock()?;
        let mut older = st.problems.range(..below).rev();
        let problems: Vec<v1::Problem> = older
            .by_ref()
            .take(size as usize)
            .map(|(_, p)| p.snapshot())
            .collect();
        let next_page_token = match (older.next(), problems.last()) {
            (Some(_), Some(last)) => last.problem_id.clone(),
            _ => String::new(),
        };
        Ok(v1::ListProblemsResponse {
            problems,
            next_page_token,
        })
    }

    /// A receiver that changes whenever problem `raw_id` does (for `WatchProblem`), holding
    /// whether the problem has finished (false until a change).
    ///
    /// # Errors
    /// As [`Coordinator::problem`].
    pub fn subscribe(&self, raw_id: &str) -> Result<watch::Receiver<bool>, Error> {
        let id = parse_problem_id(raw_id)?;
        let st = self.lock()?;
        st.problems
            .get(&id)
            .map(|p| p.changed.subscribe())
            .ok_or_else(|| Error::NotFound(format!("problem {id}")))
    }

    /// Cancels a running problem; a finished one is left as it is (`Solver.CancelProblem`).
    ///
    /// # Errors
    /// As [`Coordinator::problem`]; `INTERNAL` when the store fails.
    pub fn cancel(&self, raw_id: &str) -> Result<v1::Problem, Error> {
        let id = parse_problem_id(raw_id)?;
        let mut st = self.lock()?;
        let ps = st
            .problems
            .get_mut(&id)
            .ok_or_else(|| Error::NotFound(format!("problem {id}")))?;
        if ps.running() {
            let mut batch = Batch::new();
            end(&mut st, id, v1::ProblemStatus::Cancelled, None, &mut batch);
            self.write(&mut st, batch)?;
            info!(problem = id, "problem cancelled");
        }
        Ok(st.problems[&id].snapshot())
    }

    /// The verdict of a solved problem (`Solver.GetResult`).
    ///
    /// # Errors
    /// As [`Coordinator::problem`]; `FAILED_PRECONDITION` while it runs or when cancelled.
    pub fn result(&self, raw_id: &str) -> Result<v1::ProblemResult, Error> {
        let p = self.problem(raw_id)?;
        p.result.ok_or_else(|| {
            let status =
                v1::ProblemStatus::try_from(p.status).map_or("unknown", |s| s.as_str_name());
            Error::FailedPrecondition(format!("problem {raw_id} has no result: it is {status}"))
        })
    }
}

/// Solves problem `id` with `value`: names the winning first moves, ends the problem and
/// writes it to `batch`. Where no known value names a winning move, the problem stays running
/// (its DAG's root solved, so nothing is leased) and waits (`State::waiting`) for a search of
/// them outside the lock ([`Coordinator::name_winning_moves`]), which ends it, for a value
/// stored in `tt` that names one ([`end_waiting`]), or for its DAG to prove one (a report's
/// values solving the positions below one of its moves: checked here, as each report that
/// changes its DAG settles it).
pub(super) fn finish(
    st: &mut State,
    store: &dyn Store,
    id: u64,
    value: Value,
    batch: &mut Batch,
    facts: &[(Key, Value)],
) -> Result<(), Error> {
    if let Some(open) = st.waiting.get(&id) {
        // Waiting already: a report's values changed its DAG, which may now prove a move (a
        // value below one of the root's moves); else they bring progress and solved nodes to
        // store.
        let ps = &st.problems[&id];
        let moves: Vec<String> = open
            .iter()
            .filter(|m| dag_value(ps, &m.key) == Some(value))
            .map(|m| m.cell.clone())
            .collect();
        if !moves.is_empty() {
            return complete(st, id, value, moves, batch);
        }
    } else {
        let ps = &st.problems[&id];
        let open = match root_moves(ps, store, value, facts)? {
            RootMoves::Named(moves) => return complete(st, id, value, moves, batch),
            RootMoves::Open(open) => open,
        };
        st.waiting.insert(id, open);
        let ps = &st.problems[&id];
        let spec = ps.problem.spec.as_ref().expect("every problem has a spec");
        let search = MovesSearch {
            id,
            value,
            position: ps.position,
            disabled: ps.disabled.clone(),
            job_node_budget: spec.job_node_budget,
        };
        st.moves_wanted.push_back(search);
        // Its other leaves have no more to prove: the jobs stop at their next heartbeat.
        drop_leases(st, id);
    }
    let ps = st
        .problems
        .get_mut(&id)
        .expect("the caller found the problem");
    ps.persist(id, batch);
    ps.notify();
    Ok(())
}

/// One of the root's moves that no value decided when the problem began to wait for its winning
/// moves (`State::waiting`).
#[derive(Debug)]
pub(super) struct OpenMove {
    /// The move's cell name.
    cell: String,
    /// The key of the position it makes, as a worker's search keys it.
    key: Key,
    /// That position's key in `tt` ([`tt_key`]).
    tt_key: Vec<u8>,
}

/// Ends the problems waiting for their winning moves (`State::waiting`) whose moves a value
/// `batch` stores in `tt` names (a report's solved positions, or the values a finished
/// problem leaves there), with those moves: as a restart would end them, finding the values
/// in `tt` ([`Coordinator::open`]). The ends add values of their own to `batch`, which are
/// looked at in turn. Only the open moves' keys are looked up, in one pass over the batch's
/// writes.
pub(super) fn end_waiting(st: &mut State, batch: &mut Batch) -> Result<(), Error> {
    // The last value `batch` puts under each open move's key, and the writes looked at.
    let mut stored: rustc_hash::FxHashMap<Vec<u8>, bool> = rustc_hash::FxHashMap::default();
    let mut scanned = 0;
    loop {
        let open: rustc_hash::FxHashSet<&[u8]> = st
            .waiting
            .values()
            .flatten()
            .map(|m| m.tt_key.as_slice())
            .collect();
        if open.is_empty() {
            return Ok(());
        }
        for op in &batch.ops()[scanned..] {
            if let BatchOp::Put {
                cf: ColumnFamily::Tt,
                key,
                value,
            } = op
                && open.contains(key.as_slice())
            {
                stored.insert(key.clone(), value[..] == [1]);
            }
        }
        scanned = batch.len();
        let named: Vec<(u64, Value, Vec<String>)> = st
            .waiting
            .iter()
            .filter_map(|(&id, open)| {
                let mover = mover(&st.problems[&id]);
                let maker_wins = mover == Value::Proven;
                let moves: Vec<String> = open
                    .iter()
                    .filter(|m| stored.get(&m.tt_key) == Some(&maker_wins))
                    .map(|m| m.cell.clone())
                    .collect();
                (!moves.is_empty()).then_some((id, mover, moves))
            })
            .collect();
        if named.is_empty() {
            return Ok(());
        }
        for (id, value, moves) in named {
            complete(st, id, value, moves, batch)?;
        }
    }
}

/// Stops the search of problem `id`'s winning moves if it is the one under way (the problem
/// has ended: [`Coordinator::name_winning_moves`] goes on with the next).
fn stop_moves_search_of(st: &State, id: u64) {
    if let Some((searched, stop)) = &st.moves_search
        && *searched == id
    {
        stop.store(true, Ordering::Relaxed);
    }
}

/// Ends the live leases of problem `id` (their reports still count as facts).
fn drop_leases(st: &mut State, id: u64) {
    let leased: Vec<u64> = st
        .leases
        .iter()
        .filter(|(_, l)| l.problem == id)
        .map(|(&j, _)| j)
        .collect();
    for job in leased {
        st.drop_lease(job);
    }
}

/// A solved problem whose winning first moves no known value names (its root was solved inside
/// one job, or decided by the reductions or the table alone): they are searched for outside
/// the lock, as a job would, with room for four jobs' work.
#[derive(Debug)]
pub(super) struct MovesSearch {
    pub(super) id: u64,
    pub(super) value: Value,
    position: Position,
    disabled: Vec<Technique>,
    /// The spec's (0 = the server's default).
    pub(super) job_node_budget: u64,
}

impl MovesSearch {
    /// The winning first moves, or `None` when `cancel` stopped the search (the problem has
    /// ended, or waits for the next server run). [`solver_core::games::seven::solve`] searches the
    /// position, then, when its proof names no winning move, each open move in turn until one
    /// wins; each of those searches may create four times `job_budget` nodes and hold about
    /// `max_bytes` bytes ([`Limits::max_bytes`]; they run one after the other). An empty list
    /// (logged as a warning) when none is found within those limits.
    pub(super) fn run(
        &self,
        job_budget: u64,
        max_bytes: usize,
        cancel: &Arc<AtomicBool>,
    ) -> Option<Vec<String>> {
        let limits = Limits {
            max_nodes: Some(job_budget.saturating_mul(4)),
            max_bytes: Some(max_bytes),
            cancel: Some(Arc::clone(cancel)),
            ..Limits::default()
        };
        let report =
            solver_core::games::seven::solve(self.position, &self.disabled, &limits, false);
        if cancel.load(Ordering::Relaxed) {
            return None;
        }
        // Only a side to move that wins is searched for moves, so an empty list is a failure.
        if report.outcome != Outcome::Solved(self.value) || report.winning_moves.is_empty() {
            warn!(
                problem = self.id,
                "no winning first move found within the node budget and --moves-search-mb"
            );
            return Some(Vec::new());
        }
        Some(report.winning_moves.iter().map(|c| c.name()).collect())
    }
}

/// Ends the solved problem `id` with `value` and its winning first `moves`, and writes it to
/// `batch`.
pub(super) fn complete(
    st: &mut State,
    id: u64,
    value: Value,
    winning_moves: Vec<String>,
    batch: &mut Batch,
) -> Result<(), Error> {
    // The root's value answers later problems at once, as the DAG's values do (`end`).
    let root = unpack(&st.problems[&id].root, "root")
        .map_err(corrupt)?
        .key();
    put_tt(batch, &root, value);
    let result = v1::ProblemResult {
        winner: winner(value) as i32,
        winning_moves,
        progress: None,
    };
    end(st, id, v1::ProblemStatus::Solved, Some(result), batch);
    info!(problem = id, winner = ?winner(value), "problem solved");
    metrics::counter!("solver_problems_solved_total").increment(1);
    Ok(())
}

/// Ends problem `id` with `status`: freezes its progress, keeps every value its DAG proved in
/// the transposition table (a cancelled problem's too: they answer later problems at once),
/// drops its DAG (stored nodes too) and its leases (their reports still count as facts), and
/// writes it to `batch`.
fn end(
    st: &mut State,
    id: u64,
    status: v1::ProblemStatus,
    result: Option<v1::ProblemResult>,
    batch: &mut Batch,
) {
    drop_leases(st, id);
    let ps = st
        .problems
        .get_mut(&id)
        .expect("the caller found the problem");
    let progress = ps.snapshot().progress;
    ps.problem.progress = progress;
    ps.problem.status = status as i32;
    ps.problem.result = result.map(|r| v1::ProblemResult { progress, ..r });
    if let Some(dag) = ps.dag.take() {
        for (_, n) in dag.iter() {
            if let Some(v) = n.value() {
                put_tt(batch, &n.key, v);
            }
            batch.delete(ColumnFamily::Nodes, keys::node(id, &pack_key(&n.key)));
        }
    }
    ps.persist(id, batch);
    // So does a result, or a cancel.
    batch.make_durable();
    ps.notify();
    st.waiting.remove(&id);
    stop_moves_search_of(st, id);
}

/// The side to move's winning first moves, or the moves no known value decides yet.
enum RootMoves {
    /// The winning moves by cell name (none when the side to move loses).
    Named(Vec<String>),
    /// No known value names a winning move: the moves no value decides. They need a search
    /// ([`MovesSearch`]).
    Open(Vec<OpenMove>),
}

/// The value the problem's DAG holds for the position `key` or its mirror image (a problem
/// keying its positions exactly, with `--disable mirror-tt`, may hold the two under two keys).
fn dag_value(ps: &ProblemState, key: &Key) -> Option<Value> {
    let in_dag = |k: &Key| {
        ps.dag
            .as_ref()
            .and_then(|d| d.get(k).and_then(|id| d.node(id).value()))
    };
    in_dag(key).or_else(|| in_dag(&key.mirror()))
}

/// The value of the problem's root when its side to move wins.
fn mover(ps: &ProblemState) -> Value {
    match ps.position.to_move() {
        Side::Maker => Value::Proven,
        Side::Breaker => Value::Disproven,
    }
}

/// The winning first moves of the side to move when `value` says it wins (none when it
/// loses): every empty cell whose resulting position simplifies to a win or is a win in the
/// DAG, then in `facts` (solved positions of the report being applied, not yet in the store),
/// then in the store's `tt`, each under the position's key or its mirror image's; or, when no
/// known value names one, the moves still open.
fn root_moves(
    ps: &ProblemState,
    store: &dyn Store,
    value: Value,
    facts: &[(Key, Value)],
) -> Result<RootMoves, Error> {
    let mover = mover(ps);
    if value != mover {
        return Ok(RootMoves::Named(Vec::new()));
    }
    // A position and its mirror image have one value: a problem keying its positions exactly
    // (`--disable mirror-tt`) holds the two under two keys, of which one may be solved.
    let mut by_canonical = rustc_hash::FxHashMap::default();
    for &(k, v) in facts {
        by_canonical.entry(k.canonical()).or_insert(v);
    }
    let known = |k: &Key| -> Result<Option<Value>, StoreError> {
        if let Some(v) = dag_value(ps, k) {
            return Ok(Some(v));
        }
        if let Some(&v) = by_canonical.get(&k.canonical()) {
            return Ok(Some(v));
        }
        tt_value(store, k)
    };
    // The root's children exactly as a worker's search makes them (their keys are the ones in
    // the DAG, the facts and the tt).
    let mut root = SevenGame::new(ps.position, ps.rules).map_err(corrupt)?;
    let children = match root.simplify() {
        Some(_) => Vec::new(),
        None => root.children(),
    };
    let (mut moves, mut open) = (Vec::new(), Vec::new());
    for (cell, mut game) in children {
        let simplified = game.simplify();
        let key = game.key();
        let v = match simplified {
            Some(v) => Some(v),
            None => known(&key)?,
        };
        match v {
            Some(v) if v == mover => moves.push(cell.name()),
            Some(_) => {}
            None => open.push(OpenMove {
                cell: cell.name(),
                tt_key: tt_key(&key),
                key,
            }),
        }
    }
    Ok(if moves.is_empty() {
        RootMoves::Open(open)
    } else {
        RootMoves::Named(moves)
    })
}

fn unix_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}

/// A packed key in hex, for logs.
pub(super) fn pack_hex(key: &Key) -> String {
    pack_key(key).iter().map(|b| format!("{b:02x}")).collect()
}

fn corrupt(what: impl std::fmt::Display) -> Error {
    Error::Internal(format!("stored data is corrupt: {what}"))
}

/// Reloads every problem from `store`, and the DAG of every running one.
pub(super) fn load(store: &dyn Store) -> Result<State, Error> {
    let meta = |k: &[u8]| -> Result<Option<u64>, Error> {
        Ok(store
            .get(ColumnFamily::Meta, k)?
            .and_then(|v| keys::decode_u64(&v)))
    };
    let mut st = State {
        next_problem: meta(keys::NEXT_PROBLEM_ID_KEY)?.unwrap_or(1),
        job_ceiling: meta(keys::JOB_ID_CEILING_KEY)?.unwrap_or(1),
        ..State::default()
    };
    st.next_job = st.job_ceiling;
    for (k, v) in store.scan_prefix(ColumnFamily::Problems, b"")? {
        let id = keys::problem_id(&k).ok_or_else(|| corrupt("a problem key"))?;
        let rec: ProblemRecord = prost::Message::decode(v.as_slice())
            .map_err(|e| corrupt(format!("problem {id}: {e}")))?;
        let problem = rec
            .problem
            .ok_or_else(|| corrupt(format!("problem {id} has no body")))?;
        let valid = validate_spec(problem.spec.clone())
            .map_err(|e| corrupt(format!("problem {id}: {e}")))?;
        let rules = Rules::new(valid.position.cols(), &valid.disabled);
        let mut ps = ProblemState {
            elapsed_before_ms: problem.progress.as_ref().map_or(0, |p| p.elapsed_ms),
            problem,
            request_id: rec.request_id,
            position: valid.position,
            disabled: valid.disabled,
            rules,
            root: rec.root,
            dag: None,
            dirty: Vec::new(),
            in_flight: 0,
            workers: Default::default(),
            started: Instant::now(),
            changed: watch::channel(false).0,
        };
        if ps.running() {
            ps.dag = Some(load_dag(store, id, &ps.root)?);
        }
        if !ps.request_id.is_empty() {
            st.request_ids.insert(ps.request_id.clone(), id);
        }
        st.next_problem = st.next_problem.max(id + 1);
        st.problems.insert(id, ps);
    }
    Ok(st)
}

fn load_dag(store: &dyn Store, id: u64, root: &[u8]) -> Result<Dag, Error> {
    let unpack_key = |b: &[u8]| -> Result<Key, Error> {
        unpack(b, "key")
            .map(|p| p.key())
            .map_err(|e| corrupt(format!("problem {id}: {e}")))
    };
    let mut nodes = Vec::new();
    for (k, v) in store.scan_prefix(ColumnFamily::Nodes, &keys::problem(id))? {
        let rec: NodeRecord = prost::Message::decode(v.as_slice())
            .map_err(|e| corrupt(format!("problem {id} node: {e}")))?;
        nodes.push(StoredNode {
            key: unpack_key(&k[8..])?,
            pn: rec.pn,
            dn: rec.dn,
            children: if rec.expanded {
                Some(
                    rec.children
                        .iter()
                        .map(|c| unpack_key(c))
                        .collect::<Result<_, _>>()?,
                )
            } else {
                None
            },
            tries: rec.tries,
        });
    }
    let count = nodes.len();
    let dag = Dag::restore(unpack_key(root)?, nodes)
        .map_err(|e| corrupt(format!("problem {id}: {e}")))?;
    info!(problem = id, nodes = count, "DAG reloaded");
    Ok(dag)
}
