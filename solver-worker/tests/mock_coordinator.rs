//! The worker against a scripted coordinator (an in-process `Work` service on 127.0.0.1, port
//! 0): what it does with answers the real server never gives.

use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use solver_core::games::seven::{Cols, Position, Side};
use solver_proto::v1::{self, work_server::Work, work_server::WorkServer};
use tokio_util::sync::CancellationToken;
use tonic::transport::server::TcpIncoming;
use tonic::{Request, Response, Status};

/// Fails the first `failing_leases` lease requests (with `lease_error`, else `UNAVAILABLE`),
/// then leases `jobs` and nothing after, asking for heartbeats every `heartbeat_ms` (1 s when
/// 0); fails the first reports with `report_errors`, in turn; with `failing_reports`, fails
/// every report (transiently), the first after a hang of [`HANG`]; answers heartbeats with
/// `heartbeat_error` when set (else with every job it names cancelled, with
/// `heartbeat_cancels`), counting them; answers each lease after `lease_delay`, with one of
/// `jobs` at a time with `one_at_a_time`; records each lease's request id, and reports (a
/// failed one marked) and abandons in the order they come.
#[derive(Default)]
struct Scripted {
    failing_leases: Mutex<u32>,
    lease_error: Mutex<Option<tonic::Code>>,
    lease_delay: Mutex<Duration>,
    heartbeat_ms: Mutex<u32>,
    heartbeat_error: Mutex<Option<tonic::Code>>,
    heartbeat_cancels: std::sync::atomic::AtomicBool,
    one_at_a_time: std::sync::atomic::AtomicBool,
    heartbeats: Mutex<u32>,
    report_errors: Mutex<Vec<tonic::Code>>,
    failing_reports: std::sync::atomic::AtomicBool,
    jobs: Mutex<Vec<v1::Job>>,
    lease_ids: Mutex<Vec<String>>,
    events: Mutex<Vec<String>>,
}

/// How long the first failing report hangs: far longer than the test needs to send the
/// second signal meanwhile.
const HANG: Duration = Duration::from_secs(2);

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

#[tonic::async_trait]
impl Work for Scripted {
    async fn lease(
        &self,
        req: Request<v1::LeaseRequest>,
    ) -> Result<Response<v1::LeaseResponse>, Status> {
        lock(&self.lease_ids).push(req.into_inner().request_id);
        let delay = *lock(&self.lease_delay);
        tokio::time::sleep(delay).await;
        let mut failing = lock(&self.failing_leases);
        if *failing > 0 {
            *failing -= 1;
            let code = lock(&self.lease_error).unwrap_or(tonic::Code::Unavailable);
            return Err(Status::new(code, "the answer is lost"));
        }
        drop(failing);
        let jobs = {
            let mut jobs = lock(&self.jobs);
            if self
                .one_at_a_time
                .load(std::sync::atomic::Ordering::Relaxed)
                && !jobs.is_empty()
            {
                vec![jobs.remove(0)]
            } else {
                std::mem::take(&mut *jobs)
            }
        };
        Ok(Response::new(v1::LeaseResponse {
            jobs,
            retry_after_ms: 20,
            heartbeat_interval_ms: match *lock(&self.heartbeat_ms) {
                0 => 1_000,
                ms => ms,
            },
        }))
    }

    async fn heartbeat(
        &self,
        req: Request<v1::HeartbeatRequest>,
    ) -> Result<Response<v1::HeartbeatResponse>, Status> {
        *lock(&self.heartbeats) += 1;
        match *lock(&self.heartbeat_error) {
            Some(code) => Err(Status::new(code, "job 1 is leased to another worker")),
            None => Ok(Response::new(v1::HeartbeatResponse {
                cancelled_job_ids: if self
                    .heartbeat_cancels
                    .load(std::sync::atomic::Ordering::Relaxed)
                {
                    req.into_inner().job_ids
                } else {
                    Vec::new()
                },
            })),
        }
    }

    async fn report(
        &self,
        req: Request<v1::ReportRequest>,
    ) -> Result<Response<v1::ReportResponse>, Status> {
        let report = req.into_inner();
        let verdict = match (report.maker_wins, report.error.is_empty()) {
            (_, false) => " failed",
            (Some(_), true) => " with a verdict",
            (None, true) => "",
        };
        let first = {
            let mut events = lock(&self.events);
            events.push(format!("report {}{verdict}", report.job_id));
            events.iter().filter(|e| e.starts_with("report")).count() == 1
        };
        let scripted_error = {
            let mut errors = lock(&self.report_errors);
            (!errors.is_empty()).then(|| errors.remove(0))
        };
        if let Some(code) = scripted_error {
            return Err(Status::new(code, "the coordinator is away"));
        }
        if self
            .failing_reports
            .load(std::sync::atomic::Ordering::Relaxed)
        {
            if first {
                tokio::time::sleep(HANG).await;
            }
            return Err(Status::unavailable("the coordinator is away"));
        }
        Ok(Response::new(v1::ReportResponse { applied: true }))
    }

    async fn abandon(
        &self,
        req: Request<v1::AbandonRequest>,
    ) -> Result<Response<v1::AbandonResponse>, Status> {
        lock(&self.events).push(format!("abandon {}", req.into_inner().job_ids.join(" ")));
        Ok(Response::new(v1::AbandonResponse::default()))
    }
}

fn job(id: &str) -> v1::Job {
    let pos = Position::empty(Cols::try_from(6u32).expect("width"), Side::Maker);
    v1::Job {
        job_id: id.to_owned(),
        problem_id: "p".to_owned(),
        position: solver_proto::convert::seven::pack(&pos),
        node_budget: 10_000,
        lease_ms: 3_000,
        ..Default::default()
    }
}

/// A counter of the worker's summary.
fn count(c: &std::sync::atomic::AtomicU64) -> u64 {
    c.load(std::sync::atomic::Ordering::Relaxed)
}

/// How many reports the worker has sent.
fn reports(script: &Scripted) -> usize {
    lock(&script.events)
        .iter()
        .filter(|e| e.starts_with("report"))
        .count()
}

/// Whether the worker has sent a report.
fn reported(script: &Scripted) -> bool {
    reports(script) > 0
}

/// Runs a two-slot worker against `script` until `done` holds (30 s at most), then stops it
/// gracefully (with `abort_too`, at once a second time: the second signal). Returns the
/// worker's summary and the time it took to stop.
async fn run_until(
    script: &Arc<Scripted>,
    abort_too: bool,
    done: impl Fn(&Scripted) -> bool,
) -> (Arc<solver_worker::Summary>, Duration) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let addr = listener.local_addr().expect("address");
    let stop_server = CancellationToken::new();
    let server = tokio::spawn({
        let (script, stop) = (Arc::clone(script), stop_server.clone());
        tonic::transport::Server::builder()
            .add_service(WorkServer::from_arc(script))
            .serve_with_incoming_shutdown(
                TcpIncoming::from(listener).with_nodelay(Some(true)),
                stop.cancelled_owned(),
            )
    });
    let (graceful, abort) = (CancellationToken::new(), CancellationToken::new());
    let worker = tokio::spawn(solver_worker::run(
        solver_worker::Config::new(format!("http://{addr}"), 2),
        graceful.clone(),
        abort.clone(),
    ));
    let deadline = tokio::time::Instant::now() + Duration::from_secs(30);
    while !done(script) && tokio::time::Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let stopped = tokio::time::Instant::now();
    graceful.cancel();
    if abort_too {
        abort.cancel();
    }
    let summary = tokio::time::timeout(Duration::from_secs(30), worker)
        .await
        .expect("the worker stops")
        .expect("the worker task")
        .expect("the worker's run");
    let stopping = stopped.elapsed();
    stop_server.cancel();
    server.await.expect("server task").expect("server");
    (summary, stopping)
}

/// Jobs beyond the first go back in one request, each once; the first's id again is that job.
#[tokio::test]
async fn jobs_beyond_the_one_asked_for_are_handed_back_at_once() {
    let script = Arc::new(Scripted::default());
    *lock(&script.jobs) = vec![job("1"), job("3"), job("1"), job("2"), job("3")];
    let (summary, _) = run_until(&script, false, reported).await;
    assert_eq!(
        *lock(&script.events),
        ["abandon 2 3", "report 1 with a verdict"],
        "the others go back in one request before the first job is searched and reported"
    );
    assert_eq!(count(&summary.jobs_abandoned), 2);
}

/// A lease call that fails (its answer lost, say) is retried with the same request id, so
/// that a coordinator that leased jobs to it answers with those again; the next request has
/// another id.
#[tokio::test]
async fn a_failed_lease_is_retried_with_its_request_id() {
    let script = Arc::new(Scripted::default());
    *lock(&script.failing_leases) = 2;
    *lock(&script.jobs) = vec![job("1")];
    // The request after the answer comes at the free slot's next turn, which may be after
    // the job's report: wait for both.
    run_until(&script, false, |s| {
        reported(s) && lock(&s.lease_ids).len() >= 4
    })
    .await;
    let ids = lock(&script.lease_ids).clone();
    assert!(
        ids.len() >= 4,
        "two failures, the answer, the next request: {ids:?}"
    );
    assert!(!ids[0].is_empty());
    assert_eq!(ids[1], ids[0], "the first retry");
    assert_eq!(ids[2], ids[0], "the second retry, answered");
    assert_ne!(ids[3], ids[0], "a new request");
}

/// A lease refused with a code that is no answer to the request (a proxy's `UNIMPLEMENTED`
/// for an HTTP 404 while the coordinator restarts, say) is retried, not taken as the
/// coordinator refusing this worker.
#[tokio::test]
async fn a_lease_failing_with_a_proxys_code_is_retried() {
    let script = Arc::new(Scripted::default());
    *lock(&script.failing_leases) = 2;
    *lock(&script.lease_error) = Some(tonic::Code::Unimplemented);
    *lock(&script.jobs) = vec![job("1")];
    run_until(&script, false, reported).await;
    assert_eq!(*lock(&script.events), ["report 1 with a verdict"]);
}

/// A job on the empty board `cols` wide, with `node_budget` nodes.
fn wide_job(id: &str, cols: u32, node_budget: u64) -> v1::Job {
    let pos = Position::empty(Cols::try_from(cols).expect("width"), Side::Maker);
    v1::Job {
        position: solver_proto::convert::seven::pack(&pos),
        node_budget,
        lease_ms: 60_000,
        ..job(id)
    }
}

/// A job the coordinator stops in a heartbeat's answer stops its search, which would otherwise
/// run for minutes (100,000,000 nodes of the empty 14-wide board), and is still reported: a
/// heartbeat answered `FAILED_PRECONDITION` (the reference coordinator's answer for a job id
/// held under another worker name) or `NOT_FOUND` (another coordinator's), or one whose answer
/// cancels the job (its leaf solved through another job's facts, or its problem ended).
#[tokio::test]
async fn a_job_no_longer_this_workers_stops() {
    for code in [
        Some(tonic::Code::FailedPrecondition),
        Some(tonic::Code::NotFound),
        None,
    ] {
        let script = Arc::new(Scripted::default());
        match code {
            Some(code) => *lock(&script.heartbeat_error) = Some(code),
            None => script
                .heartbeat_cancels
                .store(true, std::sync::atomic::Ordering::Relaxed),
        }
        *lock(&script.jobs) = vec![wide_job("1", 14, 100_000_000)];
        let start = tokio::time::Instant::now();
        let (summary, _) = run_until(&script, false, reported).await;
        assert_eq!(
            *lock(&script.events),
            ["report 1"],
            "{code:?}: reported without a verdict"
        );
        assert_eq!(count(&summary.jobs_done), 1, "{code:?}");
        assert!(
            start.elapsed() < Duration::from_secs(20),
            "{code:?}: {:?}",
            start.elapsed()
        );
    }
}

/// A job that cannot run (its position's bytes are not a position) is reported as failed, and
/// the worker goes on with the next job.
#[tokio::test]
async fn a_failed_job_is_reported_and_the_worker_goes_on() {
    let script = Arc::new(Scripted::default());
    script
        .one_at_a_time
        .store(true, std::sync::atomic::Ordering::Relaxed);
    let mut bad = job("1");
    bad.position.truncate(3);
    *lock(&script.jobs) = vec![bad, job("2")];
    let (summary, _) = run_until(&script, false, |s| reports(s) >= 2).await;
    assert_eq!(
        *lock(&script.events),
        ["report 1 failed", "report 2 with a verdict"]
    );
    assert_eq!(count(&summary.jobs_failed), 1);
    assert_eq!(count(&summary.jobs_done), 1);
}

/// A heartbeat that fails for any other reason (the coordinator away for a moment) leaves the
/// job's search running: the job ends with its verdict.
#[tokio::test]
async fn a_heartbeat_that_fails_leaves_the_job_running() {
    let script = Arc::new(Scripted::default());
    *lock(&script.heartbeat_error) = Some(tonic::Code::Unavailable);
    *lock(&script.heartbeat_ms) = 30;
    // The empty 11-wide board: about 120,000 nodes, so several heartbeats 30 ms apart.
    *lock(&script.jobs) = vec![wide_job("1", 11, 10_000_000)];
    run_until(&script, false, reported).await;
    assert_eq!(*lock(&script.events), ["report 1 with a verdict"]);
    let heartbeats = *lock(&script.heartbeats);
    assert!(heartbeats >= 2, "{heartbeats} heartbeats");
}

/// A job is heartbeaten at least three times per lease even when the coordinator asks for
/// heartbeats far apart (here 10 min, against a 300 ms lease).
#[tokio::test]
async fn a_lease_gets_three_heartbeats_whatever_the_interval_asked() {
    let script = Arc::new(Scripted::default());
    *lock(&script.heartbeat_ms) = 600_000;
    let mut long = wide_job("1", 14, 100_000_000);
    long.lease_ms = 300;
    *lock(&script.jobs) = vec![long];
    // Two heartbeats 100 ms apart, then the stop's abort hands the job back.
    let (summary, _) = run_until(&script, true, |s| *lock(&s.heartbeats) >= 2).await;
    let heartbeats = *lock(&script.heartbeats);
    assert!(heartbeats >= 2, "{heartbeats} heartbeats");
    assert_eq!(*lock(&script.events), ["abandon 1"]);
    assert_eq!(count(&summary.jobs_abandoned), 1);
}

/// A report that fails with a code that is no answer to it (a proxy's `UNIMPLEMENTED`, the
/// coordinator restarting) is retried until it is taken; one the coordinator refuses
/// (`FAILED_PRECONDITION`: the lease ran out, say) is not.
#[tokio::test]
async fn a_report_is_retried_unless_the_coordinator_refuses_it() {
    let script = Arc::new(Scripted::default());
    *lock(&script.report_errors) = vec![tonic::Code::Unimplemented, tonic::Code::Unavailable];
    *lock(&script.jobs) = vec![job("1")];
    let (summary, _) = run_until(&script, false, |s| reports(s) >= 3).await;
    assert_eq!(*lock(&script.events), ["report 1 with a verdict"; 3]);
    assert_eq!(count(&summary.jobs_done), 1);

    let script = Arc::new(Scripted::default());
    *lock(&script.report_errors) = vec![tonic::Code::FailedPrecondition];
    *lock(&script.jobs) = vec![job("1")];
    // A retry, were there one, would come before the stop ends (it waits for the job's
    // report until the 3 s lease runs out).
    let (summary, _) = run_until(&script, false, reported).await;
    assert_eq!(*lock(&script.events), ["report 1 with a verdict"]);
    assert_eq!(count(&summary.jobs_refused), 1);
    assert_eq!(count(&summary.jobs_done), 0);
}

/// A stop ends the wait between failed leases at once: at most one attempt more (none if the
/// stop comes while an attempt is under way), then the worker stops, instead of waiting out a
/// backoff of up to 10 s first.
#[tokio::test]
async fn a_stop_cuts_the_wait_between_failed_leases_short() {
    let script = Arc::new(Scripted::default());
    *lock(&script.failing_leases) = u32::MAX;
    // After the seventh failure the wait is at least 5 s (100 ms doubling, 5 s at most, each
    // plus up to as much again at random).
    let (_, stopping) = run_until(&script, false, |s| lock(&s.lease_ids).len() >= 7).await;
    let ids = lock(&script.lease_ids).len();
    assert!(
        stopping < Duration::from_secs(3) && (7..=8).contains(&ids),
        "stopped in {stopping:?} after {ids} lease attempts"
    );
}

/// A verdict whose report is under way when the second signal comes gets one prompt attempt
/// more; when that fails too the job is handed back, so that the coordinator leases its leaf
/// again at once instead of waiting for the lease to expire.
#[tokio::test]
async fn a_verdict_unreported_at_the_second_signal_gets_one_attempt_then_goes_back() {
    let script = Arc::new(Scripted::default());
    script
        .failing_reports
        .store(true, std::sync::atomic::Ordering::Relaxed);
    *lock(&script.jobs) = vec![job("1")];
    let (summary, _) = run_until(&script, true, reported).await;
    assert_eq!(
        *lock(&script.events),
        [
            "report 1 with a verdict",
            "report 1 with a verdict",
            "abandon 1"
        ],
        "the hanging report given up at the second signal, one attempt more, then abandon"
    );
    assert_eq!(count(&summary.jobs_abandoned), 1);
    assert_eq!(count(&summary.jobs_done), 0);
}

/// A job granted while both signals come (the lease call under way) is not lost in flight:
/// the worker waits for the answer and hands the job back, so that the coordinator leases its
/// leaf again at once instead of waiting for the lease to expire.
#[tokio::test]
async fn a_lease_under_way_at_the_second_signal_is_handed_back() {
    let script = Arc::new(Scripted::default());
    // Far longer than the test needs to send both signals meanwhile.
    *lock(&script.lease_delay) = Duration::from_secs(2);
    *lock(&script.jobs) = vec![job("1")];
    let (summary, stopping) = run_until(&script, true, |s| !lock(&s.lease_ids).is_empty()).await;
    assert_eq!(*lock(&script.events), ["abandon 1"]);
    assert_eq!(count(&summary.jobs_abandoned), 1);
    assert!(stopping < Duration::from_secs(5), "stopped in {stopping:?}");
}
