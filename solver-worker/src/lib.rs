//! `solver-worker`: leases most-proving leaves from the coordinator, simplifies, decomposes and
//! searches them within a budget, and reports back.
//!
//! # Layout
//!
//! - [`job`]: one job off the async runtime (decode, simplify, bounded PNS, build the report),
//!   the search DAG all jobs share and the worker's bounded table of solved positions. No I/O.
//! - this file: [`Config`], the connection, and [`run`]: `--jobs` slots (search threads), each
//!   helping the worker's job under way if there is one (computing pieces of the expansions
//!   its run has under way), else leasing one job (one slot asks at a time, the others wait
//!   for its job to start; the slot that ran a job asks for the next right after its report),
//!   searching it on a blocking thread while heartbeats keep the lease alive, and reporting it.
//!
//! Resilience (the fishnet model): a lost connection or a refusing server is retried with
//! jittered exponential backoff, reset on success, each attempt given up after 10 s (HTTP/2
//! pings every 10 s notice a coordinator gone silent); a job that fails (bad bytes, a panic
//! inside the search) is reported as failed and the worker goes on. Shutdown has two
//! stages, driven by two tokens: `graceful` finishes the running jobs (helpers help them to
//! their end), leases nothing new and stops retrying a coordinator that is away (a report,
//! once the job's lease has had time to run out); `abort` stops the searches and hands
//! their jobs back (`Abandon`) so the coordinator re-leases them at once (a search that
//! solved its leaf before it noticed is reported instead, in one attempt).

pub mod job;

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;

use backon::{ExponentialBuilder, Retryable};
use clap::Parser;
use solver_proto::auth::{BearerToken, Token};
use solver_proto::report::{MAX_JOB_ERROR_BYTES, shortened};
use solver_proto::v1::{self, work_client::WorkClient};
use solver_proto::work::{HEARTBEAT_INTERVAL, MAX_JOB_IDS, MAX_LEASE, MAX_RETRY_AFTER};
use tokio_util::sync::CancellationToken;
use tonic::codegen::InterceptedService;
use tonic::transport::Channel;
use tonic::{Code, Status};
use tracing::{Instrument, field, info, info_span, warn};

use job::{Help, JobContext, run_job};

/// Default of [`Config::table_mb`], in MiB.
pub const DEFAULT_TABLE_MB: usize = 1024;

/// Least [`Config::table_mb`], in MiB: below it a job's search would spend its time collapsing
/// and re-expanding its DAG (a search takes about 200 MiB per million nodes).
pub const MIN_TABLE_MB: usize = 64;

/// The parser of a table size in MiB (`--table-mb`): at least [`MIN_TABLE_MB`], at most 2^24
/// (16 TiB).
pub fn table_mb_parser() -> clap::builder::RangedU64ValueParser<usize> {
    clap::builder::RangedU64ValueParser::new().range(MIN_TABLE_MB as u64..=1 << 24)
}

/// Configuration of a worker (flags of the `solver-worker` binary, with `SOLVER_*`
/// environment fallbacks).
#[derive(Debug, Clone, PartialEq, Eq, Parser)]
#[command(
    name = "solver-worker",
    version,
    about = "Searches leaves of the coordinator's PN DAGs."
)]
pub struct Config {
    /// The coordinator's URL (`http://host:port`, or `https://` with --tls-ca).
    #[arg(long, env = "SOLVER_SERVER", default_value = "http://127.0.0.1:50051")]
    pub server: String,

    /// Search threads (default: the number of cores). Each leases and runs jobs on its own
    /// thread; while one of the worker's jobs is under way the others help it rather than
    /// lease more (all search one DAG).
    #[arg(long, env = "SOLVER_JOBS", value_parser = clap::value_parser!(u32).range(1..=256))]
    pub jobs: Option<u32>,

    /// Memory for this worker's tables, in MiB: up to a quarter for the solved positions
    /// shared by all jobs, the rest for the search DAG that all slots run their jobs in at
    /// once, kept from job to job (a job below an earlier one goes on from its subtree) and
    /// trimmed when full.
    #[arg(long, env = "SOLVER_TABLE_MB", default_value_t = DEFAULT_TABLE_MB, value_parser = table_mb_parser())]
    pub table_mb: usize,

    /// This worker's name in leases and logs: 1 to 128 printable ASCII characters (default:
    /// host name and process id).
    #[arg(long, env = "SOLVER_WORKER_NAME")]
    pub name: Option<String>,

    /// Bearer token for the coordinator's Work service (its --worker-token): 1 or more
    /// printable ASCII characters without spaces. Prefer the environment variable.
    #[arg(
        long,
        env = "SOLVER_WORKER_TOKEN",
        hide_env_values = true,
        allow_hyphen_values = true
    )]
    pub token: Option<Token>,

    /// PEM CA certificate to verify the coordinator's TLS certificate with (an `https://`
    /// --server needs it; an `http://` one refuses it).
    #[arg(long, env = "SOLVER_TLS_CA")]
    pub tls_ca: Option<PathBuf>,

    /// Domain name expected in the coordinator's certificate (default: the URL's host; needs
    /// --tls-ca).
    #[arg(long, env = "SOLVER_TLS_DOMAIN", requires = "tls_ca")]
    pub tls_domain: Option<String>,

    /// Only check the flags and the environment as a start parses them (values, ranges, the
    /// --server URL against --tls-ca, the token, the name), print `configuration ok`
    /// and exit 0, without connecting or reading the TLS files. A bad one is exit 2 with a
    /// message, as for a start. Used by deploy/check.
    #[arg(long)]
    pub check_config: bool,
}

impl Config {
    /// A configuration for tests and embedding: `jobs` slots against `server`.
    pub fn new(server: impl Into<String>, jobs: u32) -> Self {
        Self {
            server: server.into(),
            jobs: Some(jobs),
            table_mb: DEFAULT_TABLE_MB,
            name: None,
            token: None,
            tls_ca: None,
            tls_domain: None,
            check_config: false,
        }
    }

    /// Checks what the flags' parsers cannot check alone, without reading a file: the
    /// --server URL (`http://` or `https://` with a host) against --tls-ca (given exactly for
    /// `https://`), --token ([`solver_proto::auth::check_token`]) and --name
    /// ([`solver_proto::work::check_name`]).
    ///
    /// # Errors
    /// A message naming the flag.
    pub fn check(&self) -> Result<(), String> {
        solver_proto::auth::check_server_url(&self.server, self.tls_ca.is_some())?;
        self.bearer_token()?;
        if let Some(name) = &self.name {
            solver_proto::work::check_name(name, false).map_err(|e| format!("--name: {e}"))?;
        }
        Ok(())
    }

    /// The `authorization` header of every call, from `--token`; an error names the flag.
    fn bearer_token(&self) -> Result<BearerToken, String> {
        BearerToken::new(self.token.as_ref()).map_err(|e| format!("--token: {e}"))
    }

    /// The number of job slots.
    pub fn job_slots(&self) -> u32 {
        self.jobs
            .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get() as u32))
    }

    /// The worker's name: `--name`, or the host name (its characters that a name may have, as
    /// many as leave room for `-` and a `u32` process id) and the process id, within the
    /// coordinator's rule ([`solver_proto::work::check_name`]).
    pub fn worker_name(&self) -> String {
        self.name.clone().unwrap_or_else(|| {
            let host: String = std::fs::read_to_string("/proc/sys/kernel/hostname")
                .unwrap_or_default()
                .trim()
                .chars()
                .filter(|&c| solver_proto::work::is_name_char(c))
                .take(solver_proto::work::MAX_NAME_LEN - "-4294967295".len())
                .collect();
            let host = if host.is_empty() { "worker" } else { &host };
            format!("{host}-{}", std::process::id())
        })
    }
}

/// Why [`run`] stopped with an error.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The server URL or TLS files are unusable.
    #[error("bad connection settings: {0}")]
    Connection(String),
    /// The coordinator refuses this worker for good (bad token, bad name).
    #[error("the coordinator refused this worker: {0}")]
    Refused(String),
}

/// What a worker did, returned by [`run`].
#[derive(Debug, Default)]
pub struct Summary {
    /// Jobs reported with a result.
    pub jobs_done: AtomicU64,
    /// Jobs reported as failed.
    pub jobs_failed: AtomicU64,
    /// Jobs handed back, or whose report was given up after a graceful stop.
    pub jobs_abandoned: AtomicU64,
    /// Jobs whose report the coordinator refused for good (the lease had run out and the leaf
    /// was leased again, the problem was cancelled, ...): their search is lost.
    pub jobs_refused: AtomicU64,
    /// Search nodes over all jobs.
    pub nodes: AtomicU64,
}

type Client = WorkClient<InterceptedService<Channel, BearerToken>>;

/// Interval of the HTTP/2 pings that check the connection to the coordinator, and how long an
/// answer may take.
const KEEP_ALIVE: Duration = Duration::from_secs(10);

/// The longest one attempt at a call to the coordinator may take ([`with_backoff`]). A call
/// waits while the channel reconnects, for as long as the coordinator is away; bounded, it
/// fails and is retried (or, after a stop, given up). A lease request is held open at most a
/// fraction of a second when the coordinator has no leaf to give.
const CALL_TIMEOUT: Duration = Duration::from_secs(10);

/// The least time a heartbeat is given to be answered, however short the interval.
const HEARTBEAT_LIMIT: Duration = Duration::from_secs(1);

/// The longest an `Abandon` may take; after it, the job's lease is left to expire.
const ABANDON_TIMEOUT: Duration = Duration::from_secs(5);

/// `call`, given up after `limit` with `DEADLINE_EXCEEDED`.
async fn within<T>(
    limit: Duration,
    call: impl Future<Output = Result<T, Status>>,
) -> Result<T, Status> {
    tokio::time::timeout(limit, call)
        .await
        .unwrap_or_else(|_| Err(Status::deadline_exceeded("no answer in time")))
}

/// Waits `wait`; false when `stop` fires first.
async fn pause(wait: Duration, stop: &CancellationToken) -> bool {
    tokio::select! {
        () = tokio::time::sleep(wait) => true,
        () = stop.cancelled() => false,
    }
}

fn connect(config: &Config) -> Result<Client, Error> {
    let endpoint = solver_proto::auth::endpoint(
        &config.server,
        config.tls_ca.as_deref(),
        config.tls_domain.as_deref(),
    )
    .map_err(Error::Connection)?
    .connect_timeout(Duration::from_secs(5))
    .tcp_nodelay(true)
    // A coordinator that vanished without closing the connection (its host down, a network
    // cut) fails the calls under way within KEEP_ALIVE * 2 instead of the operating
    // system's TCP timeout (a quarter of an hour or more): leases and reports are retried,
    // heartbeats skipped.
    .http2_keep_alive_interval(KEEP_ALIVE)
    .keep_alive_timeout(KEEP_ALIVE)
    .keep_alive_while_idle(true);
    let token = config.bearer_token().map_err(Error::Connection)?;
    Ok(WorkClient::with_interceptor(endpoint.connect_lazy(), token)
        // The coordinator's answers are small (a lease of one job is under 1 KiB); a larger
        // one is refused (OUT_OF_RANGE, retried) rather than decoded.
        .max_decoding_message_size(1024 * 1024))
}

/// How often to heartbeat a job: the coordinator's `heartbeat_interval_ms`, but at least three
/// times per the job's `lease_ms` (when set), so that one late heartbeat does not let the
/// lease run out; held to [`HEARTBEAT_INTERVAL`] either way.
fn heartbeat_interval(asked_ms: u32, lease_ms: u32) -> Duration {
    let asked = Duration::from_millis(u64::from(asked_ms));
    let asked = match lease_ms {
        0 => asked,
        ms => asked.min(Duration::from_millis(u64::from(ms)) / 3),
    };
    asked.clamp(*HEARTBEAT_INTERVAL.start(), *HEARTBEAT_INTERVAL.end())
}

/// Trouble worth retrying: every code but the coordinator's answers to the request itself
/// (which the same request would get again). Besides the coordinator restarting or a network
/// blip, this takes in what a proxy says while the coordinator is away (`UNIMPLEMENTED` for
/// an HTTP 404, say).
fn transient(s: &Status) -> bool {
    use tonic::Code::*;
    !matches!(
        s.code(),
        Ok | InvalidArgument
            | NotFound
            | AlreadyExists
            | PermissionDenied
            | FailedPrecondition
            | OutOfRange
            | Unauthenticated
    )
}

/// A lease refused for good: the token (`UNAUTHENTICATED`, `PERMISSION_DENIED`) or the
/// worker's name (`INVALID_ARGUMENT`). Any other error of a lease is retried, since a lease
/// request has no other answer that another try would not change.
fn refuses_worker(s: &Status) -> bool {
    use tonic::Code::*;
    matches!(
        s.code(),
        Unauthenticated | PermissionDenied | InvalidArgument
    )
}

/// Calls `f` until it succeeds or fails for good, each attempt within [`CALL_TIMEOUT`], backing
/// off on errors that `retry` takes (exponential waits from 100 ms to 5 s, each plus a random
/// part of up to its own length); once `give_up()` is true, every error is final (the attempt
/// under way is not cut short). A wait under way when `hurry` fires ends then (`give_up()`
/// should hold from then on, or the waits after it are skipped too). `None` when `stop` fires
/// first. Each retry is logged, with a hint where the error may be a TLS server at the
/// coordinator's URL `server` ([`solver_proto::auth::tls_hint`]).
async fn with_backoff<T, F, Fut>(
    what: &str,
    server: &str,
    stop: &CancellationToken,
    hurry: Option<&CancellationToken>,
    retry: fn(&Status) -> bool,
    give_up: impl Fn() -> bool,
    mut f: F,
) -> Option<Result<T, Status>>
where
    F: FnMut() -> Fut,
    Fut: Future<Output = Result<T, Status>>,
{
    let attempt = || within(CALL_TIMEOUT, f());
    let backoff = ExponentialBuilder::default()
        .with_jitter()
        .with_min_delay(Duration::from_millis(100))
        .with_max_delay(Duration::from_secs(5))
        .without_max_times();
    let hurry = hurry.cloned().unwrap_or_default();
    let call = attempt
        .retry(backoff)
        .sleep(move |wait| {
            let hurry = hurry.clone();
            async move {
                tokio::select! {
                    () = tokio::time::sleep(wait) => {}
                    () = hurry.cancelled() => {}
                }
            }
        })
        .when(|e| retry(e) && !give_up())
        .notify(|e: &Status, after: Duration| {
            let hint = solver_proto::auth::tls_hint(e, server);
            warn!(code = ?e.code(), error = e.message(), hint, retry_in_ms = after.as_millis() as u64, "{what} failed; retrying");
        });
    tokio::select! {
        r = call => Some(r),
        () = stop.cancelled() => None,
    }
}

/// Runs the worker until `graceful` (finish running jobs, lease nothing new) or `abort` (stop
/// and hand jobs back) fires and every slot has stopped, then waits for the solved-position
/// cache's thread to add the last jobs' positions ([`JobContext::flush`]).
///
/// # Errors
/// [`Error::Connection`] for an unusable URL or TLS file; [`Error::Refused`] when the
/// coordinator rejects the worker for good (wrong token, invalid name).
pub async fn run(
    config: Config,
    graceful: CancellationToken,
    abort: CancellationToken,
) -> Result<Arc<Summary>, Error> {
    let client = connect(&config)?;
    let name: Arc<str> = Arc::from(config.worker_name());
    let server: Arc<str> = Arc::from(config.server.as_str());
    let slots = config.job_slots();
    let ctx = Arc::new(JobContext::new(config.table_mb, slots as usize));
    let summary = Arc::new(Summary::default());
    info!(worker = %name, server = %config.server, slots, "worker started");
    let mut tasks = tokio::task::JoinSet::new();
    // Lease request ids count from a random start, so that two processes with one name
    // (which should not be) do not take each other's answers. This process's search table is
    // a random number too, sent as `slot`: a worker restarted under its name (a pod's, say)
    // starts with an empty table, so it is a new searcher to the coordinator, and the leaves
    // the old process's reports created become anyone's once it is gone.
    let random = || {
        use std::hash::{BuildHasher, Hasher};
        std::collections::hash_map::RandomState::new()
            .build_hasher()
            .finish()
    };
    let leasing = Arc::new(tokio::sync::Mutex::new(random()));
    let table = random() as u32;
    for _ in 0..slots {
        let slot = Slot {
            leasing: Arc::clone(&leasing),
            table,
            client: client.clone(),
            server: Arc::clone(&server),
            name: Arc::clone(&name),
            ctx: Arc::clone(&ctx),
            summary: Arc::clone(&summary),
            graceful: graceful.clone(),
            abort: abort.clone(),
        };
        tasks.spawn(slot.run());
    }
    let mut result = Ok(());
    while let Some(r) = tasks.join_next().await {
        match r {
            Ok(Err(e)) => {
                // One slot refused for good: stop the others too.
                abort.cancel();
                result = Err(e);
            }
            Ok(Ok(())) => {}
            Err(e) => warn!(error = %e, "a job slot stopped unexpectedly"),
        }
    }
    // The last jobs' solved positions go into the cache before the worker says it stopped.
    let _ = tokio::task::spawn_blocking(move || ctx.flush()).await;
    info!(
        worker = %name,
        jobs = summary.jobs_done.load(Ordering::Relaxed),
        failed = summary.jobs_failed.load(Ordering::Relaxed),
        abandoned = summary.jobs_abandoned.load(Ordering::Relaxed),
        refused = summary.jobs_refused.load(Ordering::Relaxed),
        "worker stopped"
    );
    result.map(|()| summary)
}

/// How long a slot helps another slot's job at a time (between checks for the next job).
const HELP_SLICE: Duration = Duration::from_millis(500);

/// How long a slot waits before it asks again to help a job that wanted no help
/// ([`Help::Idle`]).
const IDLE_WAIT: Duration = Duration::from_millis(10);

/// One job slot: while a job of this worker is under way, help it (see [`job::help`]); else
/// lease a job, search it, report it; again.
struct Slot {
    /// Held by the slot whose turn it is to ask the coordinator for a job, from its lease
    /// through the job and its report to the next lease: one asks at a time, the others wait
    /// for its job to start and help it (see [`Slot::run`]). Counts the lease requests (from
    /// a random start), whose number is their `request_id`: a retry sends the same one.
    leasing: Arc<tokio::sync::Mutex<u64>>,
    /// This process's search table, the `slot` of its lease requests (see [`run`]).
    table: u32,
    client: Client,
    /// The coordinator's URL (`--server`), for the hint of [`with_backoff`].
    server: Arc<str>,
    name: Arc<str>,
    ctx: Arc<JobContext>,
    summary: Arc<Summary>,
    graceful: CancellationToken,
    abort: CancellationToken,
}

impl Slot {
    async fn run(self) -> Result<(), Error> {
        // Either token stops leasing.
        let stop = CancellationToken::new();
        {
            let (g, a, s) = (self.graceful.clone(), self.abort.clone(), stop.clone());
            tokio::spawn(async move {
                tokio::select! { () = g.cancelled() => {}, () = a.cancelled() => {} }
                s.cancel();
            });
        }
        // This slot's turn to ask the coordinator, kept from a job's lease to the next lease
        // after its report (see below).
        let mut turn: Option<tokio::sync::OwnedMutexGuard<u64>> = None;
        loop {
            // After a graceful stop, a slot without the turn helps the job under way to its
            // end (a graceful stop finishes the running jobs), then stops.
            if stop.is_cancelled()
                && (self.abort.is_cancelled() || turn.is_some() || !self.ctx.job_under_way())
            {
                break;
            }
            if turn.is_none() {
                // A job of this worker under way: search it too (one job searched by several
                // threads wastes less than several jobs at once).
                match self.help().await {
                    Help::Searched => continue,
                    Help::Idle => {
                        if pause(IDLE_WAIT, &self.abort).await {
                            continue;
                        }
                        break;
                    }
                    Help::NoJob if stop.is_cancelled() => break,
                    Help::NoJob => {}
                }
                // One slot asks the coordinator (which holds a lease request open while it has
                // no free leaf); the others wait until its job starts, to help it at once,
                // instead of holding a request open of their own meanwhile.
                let started = self.ctx.started.notified();
                tokio::pin!(started);
                started.as_mut().enable();
                if self.ctx.job_under_way() {
                    // A job started between the help above and `enable`.
                    continue;
                }
                match Arc::clone(&self.leasing).try_lock_owned() {
                    Ok(t) => turn = Some(t),
                    Err(_) => {
                        tokio::select! {
                            () = started => {}
                            () = tokio::time::sleep(HELP_SLICE) => {}
                            () = stop.cancelled() => break,
                        }
                        continue;
                    }
                }
            }
            let requests = turn.as_deref_mut().expect("this slot's turn");
            *requests = requests.wrapping_add(1);
            let req = v1::LeaseRequest {
                worker: self.name.to_string(),
                max_jobs: 1,
                // One searcher: every slot searches the worker's one DAG.
                slot: self.table,
                // Retries of this request (below) get the jobs of an answer lost in flight.
                request_id: requests.to_string(),
            };
            // Not raced against a stop, graceful or not: a lease the server granted must not be
            // lost in flight (it would sit leased until it expires, were it not for
            // `request_id`: so a retry of a call that timed out gets it). Jobs that arrive
            // after the stop are handed back below. A stop cuts a backoff wait short: one more
            // attempt then (at most `CALL_TIMEOUT`; the coordinator holds a lease for at most
            // 250 ms), and a failed one is not repeated.
            let leased = with_backoff(
                "lease",
                &self.server,
                &CancellationToken::new(),
                Some(&stop),
                |s| !refuses_worker(s),
                || stop.is_cancelled(),
                || {
                    let mut c = self.client.clone();
                    let req = req.clone();
                    async move { c.lease(req).await.map(tonic::Response::into_inner) }
                },
            )
            .await;
            let resp = match leased {
                None => break,
                Some(Ok(r)) => r,
                Some(Err(s)) if stop.is_cancelled() => {
                    info!(code = ?s.code(), error = s.message(), "lease failed while stopping");
                    break;
                }
                Some(Err(s)) => {
                    return Err(Error::Refused(format!("{:?}: {}", s.code(), s.message())));
                }
            };
            if resp.jobs.is_empty() {
                turn = None;
                // Nothing to lease: help a job of another slot for a while, or wait.
                let wait = match self.help().await {
                    Help::Searched => continue,
                    Help::Idle => IDLE_WAIT,
                    Help::NoJob => Duration::from_millis(u64::from(resp.retry_after_ms))
                        .clamp(Duration::from_millis(10), MAX_RETRY_AFTER),
                };
                // A stop meanwhile is handled at the top of the loop (a job under way is
                // still helped to its end after a graceful one).
                pause(wait, &stop).await;
                continue;
            }
            // The request asked for one job; any more (a misbehaving coordinator) would wait
            // without heartbeats while the first runs, and go back at once instead. The
            // first's id again is that job, not another.
            let mut jobs = resp.jobs.into_iter();
            let first = jobs.next();
            let mut extra: Vec<String> = jobs
                .map(|j| j.job_id)
                .filter(|id| first.as_ref().is_none_or(|f| f.job_id != *id))
                .collect();
            extra.sort_unstable();
            extra.dedup();
            if !extra.is_empty() {
                warn!(
                    jobs = extra.len(),
                    "more jobs than asked for; handing them back"
                );
                self.abandon(&extra).await;
            }
            if let Some(job) = first {
                if stop.is_cancelled() {
                    self.abandon(&[job.job_id]).await;
                } else {
                    let heartbeat = heartbeat_interval(resp.heartbeat_interval_ms, job.lease_ms);
                    self.job(job, heartbeat).await;
                }
            }
            // The turn stays with this slot: it asks for the next job right after its report,
            // and the others wait for that job and help it, rather than lease one before the
            // coordinator has this report (a leaf chosen on numbers about to change).
        }
        Ok(())
    }

    /// Helps another slot's job for up to [`HELP_SLICE`] (see [`job::help`]). A panic of the
    /// game's code in a piece it computes goes to the job's run, which reports the job as
    /// failed; the helper then finds the job ended ([`Help::Idle`]).
    async fn help(&self) -> Help {
        let ctx = Arc::clone(&self.ctx);
        let helped = tokio::task::spawn_blocking(move || job::help(&ctx, HELP_SLICE));
        helped.await.unwrap_or(Help::Idle)
    }

    /// Runs one job to its report (or hands it back on abort) in the worker's retained search.
    async fn job(&self, job: v1::Job, heartbeat: Duration) {
        let span = info_span!(
            "job",
            problem = %job.problem_id,
            job = %job.job_id,
            nodes = field::Empty,
            outcome = field::Empty
        );
        async {
            info!(
                budget = job::node_budget(&job),
                deadline_ms = job.deadline_ms,
                "job started"
            );
            let cancel = Arc::new(AtomicBool::new(false));
            let mut search = {
                let (job, ctx, cancel) = (job.clone(), Arc::clone(&self.ctx), Arc::clone(&cancel));
                tokio::task::spawn_blocking(move || run_job(&job, &ctx, cancel))
            };
            let mut ticks =
                tokio::time::interval_at(tokio::time::Instant::now() + heartbeat, heartbeat);
            ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            let mut aborted = false;
            let joined = loop {
                // The search's end and an abort before a heartbeat that is due: a slow
                // heartbeat leaves the next one due at once.
                tokio::select! {
                    biased;
                    r = &mut search => break r,
                    () = self.abort.cancelled(), if !aborted => {
                        aborted = true;
                        cancel.store(true, Ordering::Relaxed);
                    }
                    _ = ticks.tick() => {
                        self.heartbeat(&job, &cancel, heartbeat.clamp(HEARTBEAT_LIMIT, CALL_TIMEOUT)).await;
                    }
                }
            };
            if aborted {
                // A verdict the search reached anyway is worth one prompt attempt at a report;
                // anything else goes back to the coordinator.
                match joined {
                    Ok(Ok(mut r)) if r.maker_wins.is_some() => {
                        r.worker = self.name.to_string();
                        record(&r);
                        self.report_once(r).await;
                    }
                    joined => {
                        if let Ok(Ok(r)) = &joined {
                            tracing::Span::current().record("nodes", r.nodes);
                        }
                        tracing::Span::current().record("outcome", "handed back");
                        self.abandon(std::slice::from_ref(&job.job_id)).await;
                    }
                }
                return;
            }
            let mut report = match joined {
                Ok(Ok(r)) => r,
                Ok(Err(msg)) => failed(&job, msg),
                Err(e) if e.is_panic() => failed(&job, format!("the search panicked: {e}")),
                Err(e) => failed(&job, format!("the search task failed: {e}")),
            };
            report.worker = self.name.to_string();
            record(&report);
            let lease = match job.lease_ms {
                0 => heartbeat * 3,
                ms => Duration::from_millis(u64::from(ms)),
            }
            .min(MAX_LEASE);
            self.send(report, lease).await;
        }
        .instrument(span)
        .await;
    }

    /// Sends one heartbeat for `job`, giving up after `limit` (the heartbeat interval, at least
    /// [`HEARTBEAT_LIMIT`] and at most [`CALL_TIMEOUT`]), so that a slow coordinator holds up
    /// the job's end or an abort no longer than that. A coordinator that cancels the job (the
    /// reference one's answer to a lease that ended), or says it is not this worker's
    /// (`FAILED_PRECONDITION`: the reference coordinator's answer for a job id held under
    /// another worker name; `NOT_FOUND` from other coordinators), stops its search.
    async fn heartbeat(&self, job: &v1::Job, cancel: &AtomicBool, limit: Duration) {
        let req = v1::HeartbeatRequest {
            worker: self.name.to_string(),
            job_ids: vec![job.job_id.clone()],
        };
        let mut client = self.client.clone();
        match within(limit, client.heartbeat(req)).await {
            Ok(r) if r.get_ref().cancelled_job_ids.contains(&job.job_id) => {
                info!("the coordinator cancelled the job");
                cancel.store(true, Ordering::Relaxed);
            }
            Ok(_) => {}
            Err(s) if matches!(s.code(), Code::NotFound | Code::FailedPrecondition) => {
                info!(code = ?s.code(), error = s.message(), "the job is no longer this worker's");
                cancel.store(true, Ordering::Relaxed);
            }
            Err(s) => warn!(code = ?s.code(), error = s.message(), "heartbeat failed"),
        }
    }

    /// Hands jobs back in one request, so that the coordinator leases their leaves again at
    /// once: the first [`MAX_JOB_IDS`] (a request may name no more), the others (only a
    /// misbehaving coordinator leases so many) left to expire.
    async fn abandon(&self, job_ids: &[String]) {
        let ids = &job_ids[..job_ids.len().min(MAX_JOB_IDS)];
        if ids.len() < job_ids.len() {
            warn!(
                left = job_ids.len() - ids.len(),
                "too many jobs to hand back; the rest of the leases will expire"
            );
        }
        let req = v1::AbandonRequest {
            worker: self.name.to_string(),
            job_ids: ids.to_vec(),
        };
        let mut client = self.client.clone();
        match within(ABANDON_TIMEOUT, client.abandon(req)).await {
            Ok(_) => info!(jobs = ids.len(), "jobs handed back"),
            Err(s) => {
                warn!(code = ?s.code(), error = s.message(), "abandon failed; the leases will expire")
            }
        }
        self.summary
            .jobs_abandoned
            .fetch_add(job_ids.len() as u64, Ordering::Relaxed);
    }

    /// Reports a solved job after the second signal: one attempt within [`ABANDON_TIMEOUT`],
    /// and the job handed back if it fails.
    async fn report_once(&self, report: v1::ReportRequest) {
        let mut client = self.client.clone();
        let job_id = report.job_id.clone();
        let nodes = report.nodes;
        match within(ABANDON_TIMEOUT, client.report(report)).await {
            Ok(r) => {
                info!(applied = r.get_ref().applied, "job reported");
                self.count_reported(false, nodes);
            }
            Err(s) => {
                warn!(code = ?s.code(), error = s.message(), "report failed on abort");
                self.abandon(&[job_id]).await;
            }
        }
    }

    /// Sends a job's report, retrying transient failures. After a graceful stop the retries
    /// end once the job's `lease` has run out (at the latest `lease` after the report was
    /// first sent: heartbeats renewed it until then): the coordinator leases the leaf again,
    /// and a worker told to stop while its coordinator is away exits instead of waiting for it.
    async fn send(&self, report: v1::ReportRequest, lease: Duration) {
        let failed = !report.error.is_empty();
        let nodes = report.nodes;
        let expiry = tokio::time::Instant::now() + lease;
        let give_up = || self.graceful.is_cancelled() && tokio::time::Instant::now() >= expiry;
        let sent = with_backoff(
            "report",
            &self.server,
            &self.abort,
            None,
            transient,
            give_up,
            || {
                let mut c = self.client.clone();
                let r = report.clone();
                async move { c.report(r).await.map(tonic::Response::into_inner) }
            },
        )
        .await;
        match sent {
            Some(Ok(r)) => info!(applied = r.applied, "job reported"),
            Some(Err(s)) if give_up() && transient(&s) => {
                warn!(code = ?s.code(), error = s.message(), "report given up: the job's lease has run out since the stop");
                self.summary.jobs_abandoned.fetch_add(1, Ordering::Relaxed);
                return;
            }
            Some(Err(s)) => {
                warn!(code = ?s.code(), error = s.message(), "report refused");
                self.summary.jobs_refused.fetch_add(1, Ordering::Relaxed);
                return;
            }
            None if report.maker_wins.is_some() => {
                // The second signal came before or while the report was sent: a verdict gets
                // the one prompt attempt an aborted job's verdict gets.
                self.report_once(report).await;
                return;
            }
            None => {
                // The second signal came while the report was being retried: hand the job back
                // rather than leave its lease to expire.
                warn!("report dropped on abort");
                self.abandon(&[report.job_id]).await;
                return;
            }
        }
        self.count_reported(failed, nodes);
    }

    /// Counts a job the coordinator took the report of: done or failed, and its nodes.
    fn count_reported(&self, failed: bool, nodes: u64) {
        let counter = if failed {
            &self.summary.jobs_failed
        } else {
            &self.summary.jobs_done
        };
        counter.fetch_add(1, Ordering::Relaxed);
        self.summary.nodes.fetch_add(nodes, Ordering::Relaxed);
    }
}

/// Records a job's report in the job's span (the current one): its nodes, and its outcome (the
/// search's: a refused report is logged where it is sent).
fn record(report: &v1::ReportRequest) {
    let span = tracing::Span::current();
    span.record("nodes", report.nodes);
    let outcome = match (&report.maker_wins, report.error.is_empty()) {
        (_, false) => "failed",
        (Some(true), _) => "maker wins",
        (Some(false), _) => "breaker wins",
        (None, _) => "expanded",
    };
    span.record("outcome", outcome);
}

/// The report of a job that could not run.
fn failed(job: &v1::Job, error: String) -> v1::ReportRequest {
    warn!(error = %error, "job failed");
    v1::ReportRequest {
        job_id: job.job_id.clone(),
        error: shortened(&error, MAX_JOB_ERROR_BYTES).into_owned(),
        ..Default::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The default name (host name and process id) is one the coordinator accepts.
    #[test]
    fn the_default_name_follows_the_coordinators_rule() {
        let name = Config::new("http://127.0.0.1:1".to_owned(), 1).worker_name();
        assert!(!name.is_empty());
        assert_eq!(
            solver_proto::work::check_name(&name, false),
            Ok(()),
            "{name:?}"
        );
    }
}
