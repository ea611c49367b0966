//! Jobs: lease most-proving leaves, keep leases alive, apply reports, take jobs back, and
//! expire leases whose worker went silent.

use std::sync::Arc;
use std::time::Duration;

use solver_core::games::seven::Key;
use solver_core::pns::{INFINITY, Number, Value};
use solver_proto::convert::seven::{pack_key, threshold_to_wire, unpack};
use solver_proto::report::MAX_JOB_ERROR_BYTES;
use solver_proto::v1;
use solver_proto::work::{MAX_JOB_IDS, MAX_REPORT_NODES, MIN_JOB_NODE_BUDGET};
use tokio::time::Instant;
use tracing::{debug, info, warn};

use super::dag::solved_numbers;
use super::problems::{finish, pack_hex, put_tt, tt_value};
use super::{Coordinator, Error, JOB_ID_BLOCK, Lease, MAX_ORPHANS, State, check_name, invalid};
use crate::store::{Batch, ColumnFamily, keys};

/// Most jobs one `Lease` call may ask for.
pub const MAX_JOBS_PER_LEASE: u32 = 256;
/// Most children one report may carry.
pub const MAX_REPORT_CHILDREN: usize = 1024;
/// Most solved positions one report may carry.
pub const MAX_REPORT_SOLVED: usize = 100_000;

fn parse_job_id(raw: &str, field: &str) -> Result<u64, Error> {
    super::parse_id(raw, field, "job")
}

impl State {
    /// Removes a live lease, releases its leaf, and remembers its target for a late report.
    pub(super) fn drop_lease(&mut self, job: u64) -> Option<Lease> {
        let lease = self.leases.remove(&job)?;
        self.deadlines.remove(&(lease.deadline, job));
        if let Some(ps) = self.problems.get_mut(&lease.problem) {
            ps.in_flight = ps.in_flight.saturating_sub(1);
            if let Some(dag) = ps.dag.as_mut() {
                dag.set_leased(lease.node, false);
                let key = dag.node(lease.node).key;
                self.orphans.insert(job, (lease.problem, key));
                while self.orphans.len() > MAX_ORPHANS {
                    self.orphans.pop_first();
                }
            }
        }
        metrics::gauge!("solver_jobs_in_flight").set(self.leases.len() as f64);
        Some(lease)
    }

    /// The lease of `job` held by `worker`, or an error when another worker holds it.
    fn own_lease(&self, job: u64, worker: &str) -> Result<Option<&Lease>, Error> {
        match self.leases.get(&job) {
            Some(l) if &*l.worker != worker => Err(Error::FailedPrecondition(format!(
                "job {job} is leased to another worker"
            ))),
            other => Ok(other),
        }
    }
}

/// A report checked against the wire rules, before anything changes.
struct CheckedReport {
    job: u64,
    value: Option<Value>,
    children: Vec<(Key, Number, Number)>,
    facts: Vec<(Key, Value)>,
}

fn check_report(req: &v1::ReportRequest) -> Result<CheckedReport, Error> {
    check_name("worker", &req.worker, false)?;
    let job = parse_job_id(&req.job_id, "job_id")?;
    if req.children.len() > MAX_REPORT_CHILDREN {
        return Err(invalid(
            "children",
            format!(
                "{} children; at most {MAX_REPORT_CHILDREN}",
                req.children.len()
            ),
        ));
    }
    if req.solved.len() > MAX_REPORT_SOLVED {
        return Err(invalid(
            "solved",
            format!(
                "{} positions; at most {MAX_REPORT_SOLVED}",
                req.solved.len()
            ),
        ));
    }
    if req.nodes > MAX_REPORT_NODES {
        return Err(invalid(
            "nodes",
            format!("{}; at most {MAX_REPORT_NODES}", req.nodes),
        ));
    }
    if req.error.len() > MAX_JOB_ERROR_BYTES {
        return Err(invalid(
            "error",
            format!("{} bytes; at most {MAX_JOB_ERROR_BYTES}", req.error.len()),
        ));
    }
    if !req.error.is_empty() && req.maker_wins.is_some() {
        return Err(invalid(
            "maker_wins",
            "is set, but so is error: a failed job has no verdict",
        ));
    }
    let value = req.maker_wins.map(maker_value);
    let mut children = Vec::with_capacity(req.children.len());
    for (i, c) in req.children.iter().enumerate() {
        let key = unpack(&c.position, &format!("children[{i}].position"))?.key();
        // A solved child gets the numbers of its value: the other number is infinite.
        let (pn, dn) = match (c.pn, c.dn) {
            (0, 0) => return Err(invalid(format!("children[{i}]"), "pn and dn are both 0")),
            (0, _) => solved_numbers(Value::Proven),
            (_, 0) => solved_numbers(Value::Disproven),
            (pn, dn) if pn == INFINITY || dn == INFINITY => {
                return Err(invalid(
                    format!("children[{i}]"),
                    format!("pn {pn}, dn {dn}: an unsolved child's numbers are below {INFINITY}"),
                ));
            }
            numbers => numbers,
        };
        children.push((key, pn, dn));
    }
    let mut facts = Vec::with_capacity(req.solved.len());
    for (i, s) in req.solved.iter().enumerate() {
        let key = unpack(&s.position, &format!("solved[{i}].position"))?.key();
        facts.push((key, maker_value(s.maker_wins)));
    }
    for &(key, pn, dn) in &children {
        match (pn, dn) {
            (0, _) => facts.push((key, Value::Proven)),
            (_, 0) => facts.push((key, Value::Disproven)),
            _ => {}
        }
    }
    if req.error.is_empty() && value.is_none() && children.is_empty() {
        return Err(invalid(
            "children",
            "empty, but neither maker_wins nor error is set",
        ));
    }
    Ok(CheckedReport {
        job,
        value,
        children,
        facts,
    })
}

fn maker_value(maker_wins: bool) -> Value {
    if maker_wins {
        Value::Proven
    } else {
        Value::Disproven
    }
}

impl Coordinator {
    /// Leases up to `max_jobs` leaves, round-robin over the running problems (`Work.Lease`).
    ///
    /// # Errors
    /// `INVALID_ARGUMENT` for a bad worker name or request id, or `max_jobs` outside
    /// 1..=256; `INTERNAL` when the store fails.
    pub fn lease(&self, req: v1::LeaseRequest) -> Result<v1::LeaseResponse, Error> {
        check_name("worker", &req.worker, false)?;
        check_name("request_id", &req.request_id, true)?;
        if !(1..=MAX_JOBS_PER_LEASE).contains(&req.max_jobs) {
            return Err(invalid(
                "max_jobs",
                format!("is {}; must be 1..={MAX_JOBS_PER_LEASE}", req.max_jobs),
            ));
        }
        let worker: Arc<str> = Arc::from(req.worker.as_str());
        let now = Instant::now();
        let lease_ms = self.config.lease.as_millis().min(u128::from(u32::MAX)) as u32;
        let mut guard = self.lock()?;
        // Borrows of distinct fields below (the DAG, and the searchers seen).
        let st = &mut *guard;
        let pair = (Arc::clone(&worker), req.slot);
        let searcher = st.searcher(&pair, now, self.config.lease);
        st.seen(searcher, now);
        let mut jobs = st.answer_again(&pair, &req.request_id, now + self.config.lease);
        let again = !jobs.is_empty();
        let mut batch = Batch::new();
        let running: Vec<u64> = st
            .problems
            .iter()
            .filter(|(_, p)| p.dag.is_some())
            .map(|(&id, _)| id)
            .collect();
        let mut exhausted = 0;
        let mut turn = running.iter().position(|&id| id >= st.cursor).unwrap_or(0);
        while !again && jobs.len() < req.max_jobs as usize && exhausted < running.len() {
            let id = running[turn % running.len()];
            turn += 1;
            let ps = st.problems.get_mut(&id).expect("listed above");
            let dag = ps.dag.as_mut().expect("listed as running");
            let present = |owner| {
                let seen = st.searchers_seen.get(&owner);
                seen.is_some_and(|&t| now.saturating_duration_since(t) <= self.config.lease)
            };
            let Some((node, (pn_threshold, dn_threshold))) = dag.select_for(searcher, present)
            else {
                exhausted += 1;
                continue;
            };
            exhausted = 0;
            dag.set_leased(node, true);
            let n = dag.node(node);
            let spec = ps.problem.spec.as_ref().expect("every problem has a spec");
            let base = self.config.job_budget(spec.job_node_budget);
            let shrink = 2 * (n.tries / 3).min(16);
            let budget = (base >> shrink).max(MIN_JOB_NODE_BUDGET.min(base));
            ps.in_flight += 1;
            ps.workers.insert(&worker);
            // Watchers see the job in flight.
            ps.notify();
            let job = st.next_job_id(&mut batch);
            let deadline = now + self.config.lease;
            st.leases.insert(
                job,
                Lease {
                    problem: id,
                    node,
                    worker: Arc::clone(&worker),
                    deadline,
                    searcher,
                    budget,
                    thresholds: (
                        threshold_to_wire(pn_threshold),
                        threshold_to_wire(dn_threshold),
                    ),
                },
            );
            st.deadlines.insert((deadline, job));
            st.cursor = id + 1;
            jobs.push(job);
        }
        self.write(st, batch)?;
        if !again {
            metrics::counter!("solver_jobs_leased_total").increment(jobs.len() as u64);
            if !jobs.is_empty() && !req.request_id.is_empty() && searcher != 0 {
                st.answers.insert(pair, (req.request_id, jobs.clone()));
            }
        }
        let deadline_ms = u32::try_from(self.config.job_deadline.as_millis()).unwrap_or(u32::MAX);
        let jobs: Vec<v1::Job> = jobs
            .iter()
            .map(|&j| st.job(j, lease_ms, deadline_ms))
            .collect();
        metrics::gauge!("solver_jobs_in_flight").set(st.leases.len() as f64);
        debug!(worker = %worker, jobs = jobs.len(), "leased");
        Ok(v1::LeaseResponse {
            retry_after_ms: if jobs.is_empty() {
                self.config.retry_after.as_millis() as u32
            } else {
                0
            },
            heartbeat_interval_ms: lease_ms / 3,
            jobs,
        })
    }

    /// Checks a worker's name and job ids, locks the state, and checks that no job is leased
    /// to another worker; returns the lock and the parsed ids.
    fn lock_own_jobs(
        &self,
        worker: &str,
        job_ids: &[String],
    ) -> Result<(std::sync::MutexGuard<'_, State>, Vec<u64>), Error> {
        check_name("worker", worker, false)?;
        if job_ids.len() > MAX_JOB_IDS {
            return Err(invalid(
                "job_ids",
                format!("{} ids; at most {MAX_JOB_IDS}", job_ids.len()),
            ));
        }
        let jobs = job_ids
            .iter()
            .enumerate()
            .map(|(i, j)| parse_job_id(j, &format!("job_ids[{i}]")))
            .collect::<Result<Vec<u64>, Error>>()?;
        let st = self.lock()?;
        for &job in &jobs {
            st.own_lease(job, worker)?;
        }
        Ok((st, jobs))
    }

    /// Renews the worker's leases and names the jobs to stop (`Work.Heartbeat`): a job whose
    /// leaf is solved, or whose problem has ended, loses its lease at once (its report, if one
    /// comes, still counts once), so that it never expires as a failure.
    ///
    /// # Errors
    /// `INVALID_ARGUMENT` for a bad worker name or job id, or more than 4,096 ids;
    /// `FAILED_PRECONDITION` when a job is leased to another worker.
    pub fn heartbeat(&self, req: v1::HeartbeatRequest) -> Result<v1::HeartbeatResponse, Error> {
        let now = Instant::now();
        let deadline = now + self.config.lease;
        let (mut st, jobs) = self.lock_own_jobs(&req.worker, &req.job_ids)?;
        let mut cancelled = Vec::new();
        for job in jobs {
            let Some(lease) = st.leases.get(&job) else {
                cancelled.push(job.to_string());
                continue;
            };
            let (problem, node, searcher) = (lease.problem, lease.node, lease.searcher);
            st.seen(searcher, now);
            let solved = st.problems[&problem]
                .dag
                .as_ref()
                .is_none_or(|d| d.node(node).value().is_some());
            if solved {
                if st.drop_lease(job).is_some()
                    && let Some(ps) = st.problems.get(&problem)
                {
                    ps.notify();
                }
                cancelled.push(job.to_string());
            } else {
                st.renew(job, deadline);
            }
        }
        Ok(v1::HeartbeatResponse {
            cancelled_job_ids: cancelled,
        })
    }

    /// Applies a job's report (`Work.Report`); idempotent by job id. A live lease's report
    /// expands or solves its leaf; any report's solved values are facts for every running
    /// problem of that width and for `tt`.
    ///
    /// # Errors
    /// `INVALID_ARGUMENT` naming the field for malformed positions or counts, children that
    /// are not successors of the leaf or of another width, an `error` longer than
    /// [`MAX_JOB_ERROR_BYTES`]; `NOT_FOUND` for a job id never
    /// handed out; `FAILED_PRECONDITION` when the job is leased to another worker; `INTERNAL`
    /// when the store fails.
    pub fn report(&self, req: v1::ReportRequest) -> Result<v1::ReportResponse, Error> {
        let mut r = check_report(&req)?;
        let mut st = self.lock()?;
        let live = st.own_lease(r.job, &req.worker)?.cloned();
        // Job ids start at 1.
        if live.is_none() && (r.job == 0 || r.job >= st.next_job) {
            return Err(Error::NotFound(format!("job {}", r.job)));
        }
        let target = match &live {
            Some(l) => {
                let dag = st.problems[&l.problem].dag.as_ref();
                dag.map(|d| (l.problem, d.node(l.node).key))
            }
            None => st.orphans.get(&r.job).copied(),
        };
        if let (Some(_), Some((_, leaf))) = (&live, target) {
            check_children(&r.children, &leaf)?;
        }
        if let (Some((_, leaf)), Some(v)) = (target, r.value) {
            r.facts.push((leaf, v));
        }
        let mut batch = Batch::new();
        let mut applied = false;
        if let Some(lease) = live {
            st.seen(lease.searcher, Instant::now());
            st.drop_lease(r.job);
            st.orphans.remove(&r.job);
            applied = self.apply_fresh(&mut st, &lease, &r, &req.error)?;
        } else {
            st.orphans.remove(&r.job);
        }
        let touched = self.apply_facts(&mut st, &r.facts, &mut batch)?;
        // A job counts once: its first report ends its lease or orphan, so a repeat has no
        // target. A finished problem's progress stays as its result shows it.
        if let Some((problem, _)) = target
            && let Some(ps) = st.problems.get_mut(&problem)
            && ps.running()
        {
            let p = ps.progress_mut();
            p.jobs_done += 1;
            p.worker_nodes = p.worker_nodes.saturating_add(req.nodes);
        }
        let mut ids: Vec<u64> = touched;
        ids.extend(target.map(|(p, _)| p));
        ids.sort_unstable();
        ids.dedup();
        for id in ids {
            self.settle(&mut st, id, &mut batch, &r.facts)?;
        }
        self.write(&mut st, batch)?;
        self.wake_moves(&st);
        metrics::counter!("solver_reports_total", "applied" => applied.to_string()).increment(1);
        if !req.error.is_empty() {
            // Quoted: the text is the worker's, and may hold line breaks or control characters.
            warn!(job = r.job, worker = %req.worker, error = ?req.error, "job failed");
        }
        drop(st);
        self.work_may_be_free();
        Ok(v1::ReportResponse { applied })
    }

    /// Applies a live lease's report to its leaf: a failure counts a try; a value solves the
    /// leaf; children expand it. Returns whether estimates were applied.
    fn apply_fresh(
        &self,
        st: &mut State,
        lease: &Lease,
        r: &CheckedReport,
        error: &str,
    ) -> Result<bool, Error> {
        let Some(ps) = st.problems.get_mut(&lease.problem) else {
            return Ok(false);
        };
        let Some(dag) = ps.dag.as_mut() else {
            return Ok(false);
        };
        if !error.is_empty() {
            dag.add_try(lease.node);
            ps.dirty.push(lease.node);
            return Ok(false);
        }
        if r.value.is_some() {
            // The value is among the facts, applied next.
            return Ok(true);
        }
        let mut children = Vec::with_capacity(r.children.len());
        for &(key, pn, dn) in &r.children {
            let known = if pn == 0 || dn == 0 || dag.get(&key).is_some() {
                None
            } else {
                tt_value(self.store.as_ref(), &key)?
            };
            let (pn, dn) = known.map_or((pn, dn), solved_numbers);
            children.push((key, pn, dn));
        }
        let created = dag.expand(lease.node, &children, lease.searcher);
        ps.dirty.push(lease.node);
        ps.dirty.extend(created);
        Ok(true)
    }

    /// Applies solved values to every running problem's DAG (where the position is a node)
    /// and to `tt`. Returns the problems whose DAG changed.
    ///
    /// This runs under the lock, so each DAG is matched from its smaller side: a report may
    /// carry up to [`MAX_REPORT_SOLVED`] facts and many problems may run, and a DAG with fewer
    /// nodes than the report has facts (with their mirror images) is scanned against them
    /// instead of looked up once per fact. So the work per problem is the fewer of its DAG's
    /// nodes and the facts (looking up every fact in every DAG, 100,000 facts with 1,000
    /// one-node problems running held the lock for 25 s in a debug build).
    fn apply_facts(
        &self,
        st: &mut State,
        facts: &[(Key, Value)],
        batch: &mut Batch,
    ) -> Result<Vec<u64>, Error> {
        let mut touched = Vec::new();
        // Each key's first fact and its place in the report: the first fact of a key counts.
        let mut by_key = rustc_hash::FxHashMap::default();
        for (i, &(key, v)) in facts.iter().enumerate() {
            by_key.entry(key).or_insert((i, v));
        }
        for (key, &(_, v)) in &by_key {
            put_tt(batch, key, v);
        }
        // A problem that keys its positions in the other form (mirror-canonical against exact,
        // `--disable mirror-tt`) holds a fact's position, or its mirror image, which has the
        // same value, under the fact's mirrored key: a key no fact names takes its mirror
        // image's fact.
        let mirrored: Vec<_> = by_key
            .iter()
            .map(|(key, &first)| (key.mirror(), first))
            .filter(|(mirror, _)| !by_key.contains_key(mirror))
            .collect();
        by_key.extend(mirrored);
        // (place in the report, node, value), applied in the report's order either way, so
        // that both branches give the same DAG even for facts that contradict each other.
        let mut hits = Vec::new();
        for (&id, ps) in st.problems.iter_mut() {
            let Some(dag) = ps.dag.as_mut() else {
                continue;
            };
            hits.clear();
            if dag.len() < by_key.len() {
                hits.extend(
                    dag.iter()
                        .filter_map(|(n, node)| by_key.get(&node.key).map(|&(i, v)| (i, n, v))),
                );
            } else {
                hits.extend(
                    by_key
                        .iter()
                        .filter_map(|(key, &(i, v))| dag.get(key).map(|n| (i, n, v))),
                );
            }
            hits.sort_unstable_by_key(|&(i, _, _)| i);
            let mut any = false;
            for &(_, n, v) in &hits {
                if dag.solve(n, v) {
                    ps.dirty.push(n);
                    any = true;
                }
            }
            if any {
                touched.push(id);
            }
        }
        Ok(touched)
    }

    /// Finishes problem `id` if its root is solved (`facts`: the solved positions of the report
    /// being applied), or queues the search of its winning moves ([`finish`]); otherwise
    /// writes its changes and tells watchers.
    fn settle(
        &self,
        st: &mut State,
        id: u64,
        batch: &mut Batch,
        facts: &[(Key, Value)],
    ) -> Result<(), Error> {
        let Some(ps) = st.problems.get_mut(&id) else {
            return Ok(());
        };
        match ps.dag.as_ref().and_then(|d| d.root().value()) {
            Some(v) => finish(st, self.store.as_ref(), id, v, batch, facts),
            None => {
                ps.persist(id, batch);
                ps.notify();
                Ok(())
            }
        }
    }

    /// Hands jobs back unfinished (`Work.Abandon`): their leaves are free at once. A report
    /// that comes after all is stale, like one of an expired lease: its value still lands.
    ///
    /// # Errors
    /// `INVALID_ARGUMENT` for a bad worker name or job id; `FAILED_PRECONDITION` when a job is
    /// leased to another worker.
    pub fn abandon(&self, req: v1::AbandonRequest) -> Result<v1::AbandonResponse, Error> {
        let (mut st, jobs) = self.lock_own_jobs(&req.worker, &req.job_ids)?;
        for job in jobs {
            if let Some(l) = st.drop_lease(job) {
                if let Some(ps) = st.problems.get(&l.problem) {
                    ps.notify();
                }
                info!(job, worker = %req.worker, "job abandoned");
            }
        }
        drop(st);
        self.work_may_be_free();
        Ok(v1::AbandonResponse {})
    }

    /// Expires every lease whose deadline is at or before `now`: its leaf is free again and
    /// counts a try. Returns how many expired. The sweeper calls this periodically.
    ///
    /// # Errors
    /// `INTERNAL` when the store fails.
    pub fn expire(&self, now: Instant) -> Result<usize, Error> {
        let mut st = self.lock()?;
        let due: Vec<u64> = st
            .deadlines
            .iter()
            .take_while(|(d, _)| *d <= now)
            .map(|&(_, j)| j)
            .collect();
        let mut batch = Batch::new();
        let mut problems = Vec::new();
        for &job in &due {
            let Some(lease) = st.drop_lease(job) else {
                continue;
            };
            if let Some(ps) = st.problems.get_mut(&lease.problem)
                && let Some(dag) = ps.dag.as_mut()
            {
                let tries = dag.add_try(lease.node);
                let leaf = pack_hex(&dag.node(lease.node).key);
                ps.dirty.push(lease.node);
                ps.progress_mut().jobs_expired += 1;
                problems.push(lease.problem);
                warn!(job, worker = %lease.worker, leaf, tries, "lease expired");
            }
        }
        problems.sort_unstable();
        problems.dedup();
        for id in problems {
            self.settle(&mut st, id, &mut batch, &[])?;
        }
        self.write(&mut st, batch)?;
        metrics::counter!("solver_leases_expired_total").increment(due.len() as u64);
        drop(st);
        if !due.is_empty() {
            self.work_may_be_free();
        }
        Ok(due.len())
    }
}

impl State {
    /// The number of the searcher `pair` (worker, slot): its number since it was first seen, or a
    /// new one. Once every number is taken, the number of the searcher seen longest ago is
    /// reused if that one is gone (not seen for `gone_after`, a lease's length: its leases have
    /// ended, and its leaves are anyone's already), its pair and last answer forgotten, so that
    /// workers restarting with new slots for the server's whole life keep getting numbers;
    /// else 0 (nobody), without keeping the pair, so that the map never grows past
    /// `Searcher::MAX`.
    fn searcher(
        &mut self,
        pair: &(Arc<str>, u32),
        now: Instant,
        gone_after: Duration,
    ) -> super::dag::Searcher {
        if let Some(&known) = self.searchers.get(pair) {
            return known;
        }
        let n = match super::dag::Searcher::try_from(self.searchers.len() + 1) {
            Ok(n) => n,
            Err(_) => {
                let seen = |n| self.searchers_seen.get(&n).copied();
                let Some((old, n)) = self
                    .searchers
                    .iter()
                    .min_by_key(|&(_, &n)| seen(n))
                    .filter(|&(_, &n)| {
                        seen(n).is_none_or(|t| now.saturating_duration_since(t) > gone_after)
                    })
                    .map(|(old, &n)| (old.clone(), n))
                else {
                    return 0;
                };
                self.searchers.remove(&old);
                self.searchers_seen.remove(&n);
                self.answers.remove(&old);
                n
            }
        };
        self.searchers.insert(pair.clone(), n);
        n
    }

    /// Notes that the numbered searcher `searcher` was seen at `now` (nobody, 0, is not kept).
    fn seen(&mut self, searcher: super::dag::Searcher, now: Instant) {
        if searcher != 0 {
            // The latest: a call that waited for the lock may bring an older time.
            let seen = self.searchers_seen.entry(searcher).or_insert(now);
            *seen = (*seen).max(now);
        }
    }

    /// Moves the live lease `job`'s deadline to `deadline`.
    fn renew(&mut self, job: u64, deadline: Instant) {
        if let Some(lease) = self.leases.get_mut(&job) {
            let old = std::mem::replace(&mut lease.deadline, deadline);
            self.deadlines.remove(&(old, job));
            self.deadlines.insert((deadline, job));
        }
    }

    /// The jobs of the searcher `pair`'s last answer, if `request_id` is that answer's (a
    /// retry of it), that are still leased to the worker, their leases renewed to `deadline`;
    /// none for a new request, whose arrival forgets the old answer.
    fn answer_again(
        &mut self,
        pair: &(Arc<str>, u32),
        request_id: &str,
        deadline: Instant,
    ) -> Vec<u64> {
        let jobs = match self.answers.get(pair) {
            Some((id, jobs)) if !request_id.is_empty() && id == request_id => jobs.clone(),
            _ => {
                self.answers.remove(pair);
                return Vec::new();
            }
        };
        let live: Vec<u64> = jobs
            .into_iter()
            .filter(|j| self.leases.get(j).is_some_and(|l| l.worker == pair.0))
            .collect();
        for &j in &live {
            self.renew(j, deadline);
        }
        live
    }

    /// The message of the live lease `job`, as `Work.Lease` answers it (`deadline_ms`: the
    /// server's [`CoordinatorConfig::job_deadline`](super::CoordinatorConfig::job_deadline)).
    fn job(&self, job: u64, lease_ms: u32, deadline_ms: u32) -> v1::Job {
        let lease = &self.leases[&job];
        let ps = &self.problems[&lease.problem];
        let dag = ps.dag.as_ref().expect("a leased problem runs");
        let spec = ps.problem.spec.as_ref().expect("every problem has a spec");
        v1::Job {
            job_id: job.to_string(),
            problem_id: lease.problem.to_string(),
            position: pack_key(&dag.node(lease.node).key),
            disabled_techniques: spec.disabled_techniques.clone(),
            node_budget: lease.budget,
            lease_ms,
            pn_threshold: lease.thresholds.0,
            dn_threshold: lease.thresholds.1,
            deadline_ms,
        }
    }

    /// The next job id, reserving a new block of ids in the store when needed.
    fn next_job_id(&mut self, batch: &mut Batch) -> u64 {
        if self.next_job >= self.job_ceiling {
            self.job_ceiling = self.next_job + JOB_ID_BLOCK;
            // A ceiling lost in a crash of the machine would hand out used ids again.
            batch.make_durable();
            batch.put(
                ColumnFamily::Meta,
                keys::JOB_ID_CEILING_KEY,
                self.job_ceiling.to_be_bytes(),
            );
        }
        let id = self.next_job;
        self.next_job += 1;
        id
    }
}

/// Children of a leaf must have its width and more stones (every move adds one): this keeps
/// the DAG acyclic whatever a worker sends.
fn check_children(children: &[(Key, Number, Number)], leaf: &Key) -> Result<(), Error> {
    for (i, (k, _, _)) in children.iter().enumerate() {
        if k.cols != leaf.cols {
            return Err(invalid(
                format!("children[{i}].position"),
                format!("is {} wide; the leaf is {} wide", k.cols, leaf.cols),
            ));
        }
        if k.stones() <= leaf.stones() {
            return Err(invalid(
                format!("children[{i}].position"),
                "has no more stones than the leaf: not a successor",
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::coordinator::dag::Searcher;

    #[test]
    fn searchers_keep_their_numbers_and_a_gone_ones_number_is_reused_when_all_are_taken() {
        let mut st = State::default();
        let (a, b): (Arc<str>, Arc<str>) = (Arc::from("a"), Arc::from("b"));
        let t0 = Instant::now();
        let lease = Duration::from_secs(30);
        let number = |st: &mut State, pair: (Arc<str>, u32), t: Instant| {
            let n = st.searcher(&pair, t, lease);
            st.seen(n, t);
            n
        };
        assert_eq!(number(&mut st, (a.clone(), 0), t0), 1);
        assert_eq!(number(&mut st, (b.clone(), 0), t0), 2);
        assert_eq!(number(&mut st, (a.clone(), 7), t0), 3);
        assert_eq!(
            number(&mut st, (a.clone(), 0), t0),
            1,
            "a pair keeps its number"
        );
        let t1 = t0 + Duration::from_secs(10);
        for slot in 1..=u32::from(Searcher::MAX) - 3 {
            number(&mut st, (b.clone(), slot), t1);
        }
        assert_eq!(st.searchers.len(), usize::from(Searcher::MAX));
        // Everyone seen within a lease: no number left, nobody, and not kept.
        let t2 = t0 + Duration::from_secs(20);
        assert_eq!(number(&mut st, (b.clone(), u32::MAX), t2), 0);
        assert_eq!(st.searchers.len(), usize::from(Searcher::MAX), "not kept");
        assert_eq!(
            number(&mut st, (a.clone(), 7), t2),
            3,
            "known pairs keep theirs"
        );
        // Past a lease since t0: b's slot 0 (2), seen at t0 only, is gone; a's pairs were
        // seen again. The newcomer gets 2 and b's slot 0 is forgotten.
        let t3 = t0 + Duration::from_secs(35);
        number(&mut st, (a.clone(), 0), t3);
        assert_eq!(number(&mut st, (b.clone(), u32::MAX), t3), 2);
        assert_eq!(st.searchers.len(), usize::from(Searcher::MAX));
        assert!(!st.searchers.contains_key(&(b.clone(), 0)));
        // Nobody else is gone yet (the slots seen at t1 are not).
        assert_eq!(number(&mut st, (b.clone(), u32::MAX - 1), t3), 0);
    }
}
