//! The coordinator over real gRPC on `127.0.0.1`: problems solved by an in-test worker loop
//! (the worker's own job function, `solver_worker::job::run_job`), several problems at once,
//! expired, duplicated, stale and abandoned leases, validation and idempotency; and a store
//! whose writes fail.

mod common;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use common::{TestServer, channel, lease, start_with};
use solver_proto::v1::{self, solver_client::SolverClient, work_client::WorkClient};
use solver_server::coordinator::{Coordinator, CoordinatorConfig};
use solver_server::error::Error;
use solver_server::server::MAX_CLIENT_MESSAGE_BYTES;
use solver_server::store::{Batch, ColumnFamily, KeyValue, MemStore, Store, StoreError, keys};
use solver_worker::job::{JobContext, run_job};
use tokio_stream::StreamExt;
use tonic::Code;
use tonic::transport::Channel;

fn spec(rows: &[&str], maker_to_move: bool, budget: u64) -> v1::ProblemSpec {
    v1::ProblemSpec {
        position: Some(v1::SevenPosition {
            cols: 0,
            rows: rows.iter().map(|r| r.to_string()).collect(),
            to_move: if maker_to_move {
                v1::Side::Maker as i32
            } else {
                v1::Side::Breaker as i32
            },
        }),
        disabled_techniques: vec![],
        job_node_budget: budget,
    }
}

fn empty(n: usize) -> Vec<String> {
    vec![".".repeat(n); 4]
}

fn empty_spec(n: usize, maker_to_move: bool, budget: u64) -> v1::ProblemSpec {
    let rows = empty(n);
    let rows: Vec<&str> = rows.iter().map(String::as_str).collect();
    spec(&rows, maker_to_move, budget)
}

async fn clients(server: &TestServer) -> (SolverClient<Channel>, WorkClient<Channel>) {
    let ch = channel(server.addr).await;
    (SolverClient::new(ch.clone()), WorkClient::new(ch))
}

async fn submit(s: &mut SolverClient<Channel>, spec: v1::ProblemSpec) -> String {
    s.submit(v1::SubmitRequest {
        request_id: String::new(),
        spec: Some(spec),
    })
    .await
    .expect("submit")
    .into_inner()
    .problem_id
}

async fn get(s: &mut SolverClient<Channel>, id: &str) -> v1::Problem {
    s.get_problem(v1::GetProblemRequest {
        problem_id: id.into(),
    })
    .await
    .expect("get")
    .into_inner()
}

fn running(p: &v1::Problem) -> bool {
    p.status == v1::ProblemStatus::Running as i32
}

/// Leases and runs jobs as `worker` until every problem in `ids` is finished (or 120 s pass).
async fn work_until_done(
    w: &mut WorkClient<Channel>,
    s: &mut SolverClient<Channel>,
    worker: &str,
    ids: &[String],
) {
    let ctx = JobContext::new(64, 1);
    let deadline = Instant::now() + Duration::from_secs(120);
    loop {
        let mut all_done = true;
        for id in ids {
            all_done &= !running(&get(s, id).await);
        }
        if all_done {
            return;
        }
        assert!(Instant::now() < deadline, "not solved in time");
        let jobs = lease(w, worker, 4).await;
        if jobs.is_empty() {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        for job in jobs {
            report(w, worker, &job, &ctx).await;
        }
    }
}

async fn report(
    w: &mut WorkClient<Channel>,
    worker: &str,
    job: &v1::Job,
    ctx: &JobContext,
) -> bool {
    let mut r = run_job(job, ctx, Arc::default()).expect("the job runs");
    r.worker = worker.into();
    w.report(r).await.expect("report").into_inner().applied
}

/// The job ids a heartbeat of `worker` for `job` is told to stop.
async fn cancelled(w: &mut WorkClient<Channel>, worker: &str, job: &v1::Job) -> Vec<String> {
    w.heartbeat(v1::HeartbeatRequest {
        worker: worker.into(),
        job_ids: vec![job.job_id.clone()],
    })
    .await
    .expect("heartbeat")
    .into_inner()
    .cancelled_job_ids
}

async fn lease_one(w: &mut WorkClient<Channel>, worker: &str) -> v1::Job {
    let mut jobs = lease(w, worker, 1).await;
    assert_eq!(jobs.len(), 1, "a job is available");
    jobs.remove(0)
}

fn winner(p: &v1::Problem) -> v1::Winner {
    let r = p.result.as_ref().expect("a solved problem has a result");
    v1::Winner::try_from(r.winner).expect("known winner")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn n8_is_solved_through_many_jobs_and_watch_ends_with_the_verdict() {
    let server = start_with(|_| {}).await;
    let (mut s, mut w) = clients(&server).await;
    let id = submit(&mut s, empty_spec(8, true, 2_000)).await;
    let mut watch = s
        .watch_problem(v1::GetProblemRequest {
            problem_id: id.clone(),
        })
        .await
        .expect("watch")
        .into_inner();
    let first = watch.next().await.expect("a first message").expect("ok");
    assert!(running(&first));
    work_until_done(&mut w, &mut s, "w1", std::slice::from_ref(&id)).await;

    let p = get(&mut s, &id).await;
    assert_eq!(p.status, v1::ProblemStatus::Solved as i32);
    assert_eq!(winner(&p), v1::Winner::Maker, "(4, 8, 7^tr): Maker wins");
    let result = p.result.as_ref().expect("result");
    assert!(
        !result.winning_moves.is_empty(),
        "Maker's first move is named"
    );
    let progress = result.progress.as_ref().expect("progress");
    assert!(progress.jobs_done > 1, "several jobs: {progress:?}");
    assert!(progress.dag_nodes > 1 && progress.root_pn == 0);
    assert_eq!(progress.workers_seen, 1);
    assert!(progress.worker_nodes > 0);

    // The stream ends with the final state.
    let mut last = first;
    while let Some(m) = watch.next().await {
        last = m.expect("ok");
    }
    assert_eq!(last.status, v1::ProblemStatus::Solved as i32);

    // The solved values in `tt` answer the same problem at once.
    let again = submit(&mut s, empty_spec(8, true, 2_000)).await;
    let p = get(&mut s, &again).await;
    assert_eq!(
        p.status,
        v1::ProblemStatus::Solved as i32,
        "answered from tt"
    );
    assert_eq!(winner(&p), v1::Winner::Maker);
    let r = s
        .get_result(v1::GetProblemRequest { problem_id: again })
        .await
        .expect("result")
        .into_inner();
    assert!(!r.winning_moves.is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_problems_at_once_share_the_workers() {
    let server = start_with(|_| {}).await;
    let (mut s, mut w) = clients(&server).await;
    let a = submit(&mut s, empty_spec(8, true, 1_000)).await;
    let b = submit(&mut s, empty_spec(7, false, 1_000)).await;
    let c = submit(&mut s, empty_spec(4, false, 1_000)).await;
    // One lease call serves several problems (round-robin).
    let jobs = lease(&mut w, "w", 8).await;
    let mut problems: Vec<&str> = jobs.iter().map(|j| j.problem_id.as_str()).collect();
    problems.sort();
    problems.dedup();
    assert!(
        problems.len() >= 2,
        "jobs of several problems: {problems:?}"
    );
    let ctx = JobContext::new(64, 1);
    for job in &jobs {
        report(&mut w, "w", job, &ctx).await;
    }
    work_until_done(&mut w, &mut s, "w", &[a.clone(), b.clone(), c.clone()]).await;
    assert_eq!(winner(&get(&mut s, &a).await), v1::Winner::Maker);
    assert_eq!(
        winner(&get(&mut s, &b).await),
        v1::Winner::Maker,
        "n=7 Breaker first"
    );
    assert_eq!(
        winner(&get(&mut s, &c).await),
        v1::Winner::Breaker,
        "n=4 Breaker first"
    );
    let list = s
        .list_problems(v1::ListProblemsRequest::default())
        .await
        .expect("list")
        .into_inner();
    let ids: Vec<&str> = list
        .problems
        .iter()
        .map(|p| p.problem_id.as_str())
        .collect();
    assert_eq!(
        ids,
        vec![c.as_str(), b.as_str(), a.as_str()],
        "newest first"
    );
    assert_eq!(list.next_page_token, "", "one page");
    // Two pages of at most two.
    let mut pages = Vec::new();
    let mut page_token = String::new();
    loop {
        let page = s
            .list_problems(v1::ListProblemsRequest {
                page_size: 2,
                page_token,
            })
            .await
            .expect("a page")
            .into_inner();
        pages.push(
            page.problems
                .iter()
                .map(|p| p.problem_id.clone())
                .collect::<Vec<_>>(),
        );
        page_token = page.next_page_token;
        if page_token.is_empty() {
            break;
        }
    }
    assert_eq!(pages, vec![vec![c.clone(), b.clone()], vec![a.clone()]]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_vanished_workers_lease_expires_and_its_late_report_is_stale() {
    // Jobs smaller than a problem may ask for (the server's default, set here without the
    // flag's check), so that the first job leaves the problem open.
    let server = start_with(|c| {
        c.lease_ms = 300;
        c.job_node_budget = 300;
    })
    .await;
    let (mut s, mut w) = clients(&server).await;
    let id = submit(&mut s, empty_spec(7, true, 0)).await;
    let lost = lease_one(&mut w, "vanished").await;
    // Nobody heartbeats the lease: it expires (after 300 ms and the next sweep) and another
    // worker gets the leaf.
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    let progress = loop {
        tokio::time::sleep(Duration::from_millis(50)).await;
        let progress = get(&mut s, &id).await.progress.expect("progress");
        if progress.jobs_expired > 0 || std::time::Instant::now() > deadline {
            break progress;
        }
    };
    assert_eq!(progress.jobs_expired, 1);
    assert_eq!(progress.jobs_in_flight, 0);
    let again = lease_one(&mut w, "w2").await;
    assert_eq!(
        again.position, lost.position,
        "the same leaf is leased again"
    );
    assert_ne!(again.job_id, lost.job_id);
    // The vanished worker's heartbeat now says stop; its late report is stale.
    assert_eq!(
        cancelled(&mut w, "vanished", &lost).await,
        vec![lost.job_id.clone()]
    );
    let ctx = JobContext::new(64, 1);
    assert!(
        !report(&mut w, "vanished", &lost, &ctx).await,
        "stale: estimates dropped"
    );
    assert!(report(&mut w, "w2", &again, &ctx).await, "live: applied");
    work_until_done(&mut w, &mut s, "w2", std::slice::from_ref(&id)).await;
    let p = get(&mut s, &id).await;
    assert_eq!(winner(&p), v1::Winner::Maker);
    let workers = p
        .result
        .and_then(|r| r.progress)
        .expect("progress")
        .workers_seen;
    assert_eq!(workers, 2);
}

/// A cancelled problem's progress stays as it was: a job leased before the cancel and reported
/// after it (its solved values are still used) counts neither a job nor its nodes.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_late_report_leaves_a_finished_problems_progress_alone() {
    let server = start_with(|_| {}).await;
    let (mut s, mut w) = clients(&server).await;
    let id = submit(&mut s, empty_spec(9, true, 2_000)).await;
    let job = lease_one(&mut w, "w").await;
    s.cancel_problem(v1::GetProblemRequest {
        problem_id: id.clone(),
    })
    .await
    .expect("cancel");
    let before = get(&mut s, &id).await;
    assert!(!report(&mut w, "w", &job, &JobContext::new(64, 1)).await);
    let after = get(&mut s, &id).await;
    assert_eq!(after.progress, before.progress);
    assert_eq!(after.status, v1::ProblemStatus::Cancelled as i32);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn duplicate_reports_abandon_and_foreign_leases() {
    let server = start_with(|_| {}).await;
    let (mut s, mut w) = clients(&server).await;
    let id = submit(&mut s, empty_spec(9, true, 1_000)).await;
    let ctx = JobContext::new(64, 1);

    // A report counts once.
    let job = lease_one(&mut w, "a").await;
    let mut r = run_job(&job, &ctx, Arc::default()).expect("runs");
    r.worker = "a".into();
    assert!(
        w.report(r.clone())
            .await
            .expect("first")
            .into_inner()
            .applied
    );
    assert!(!w.report(r).await.expect("duplicate").into_inner().applied);
    let done = get(&mut s, &id).await.progress.expect("progress").jobs_done;
    assert_eq!(done, 1);

    // Another worker's lease cannot be reported, renewed or abandoned.
    let job = lease_one(&mut w, "a").await;
    let mut r = run_job(&job, &ctx, Arc::default()).expect("runs");
    r.worker = "b".into();
    let err = w.report(r.clone()).await.expect_err("foreign report");
    assert_eq!(err.code(), Code::FailedPrecondition);
    let err = w
        .heartbeat(v1::HeartbeatRequest {
            worker: "b".into(),
            job_ids: vec![job.job_id.clone()],
        })
        .await
        .expect_err("foreign heartbeat");
    assert_eq!(err.code(), Code::FailedPrecondition);

    // Abandon frees the leaf at once.
    w.abandon(v1::AbandonRequest {
        worker: "a".into(),
        job_ids: vec![job.job_id.clone()],
    })
    .await
    .expect("abandon");
    let again = lease_one(&mut w, "b").await;
    assert_eq!(again.position, job.position);
    let p = get(&mut s, &id).await.progress.expect("progress");
    assert_eq!((p.jobs_in_flight, p.jobs_expired), (1, 0));
    // A report that comes after all is still taken, as one of an expired lease is: it counts,
    // and its value lands, so the new lease of the leaf is cancelled (the value is made up
    // here: Breaker wins, which leaves Maker's root open).
    let nodes = p.worker_nodes;
    r.worker = "a".into();
    r.children.clear();
    r.maker_wins = Some(false);
    assert!(
        !w.report(r.clone())
            .await
            .expect("late report")
            .into_inner()
            .applied
    );
    let p = get(&mut s, &id).await.progress.expect("progress");
    assert_eq!(p.jobs_done, 2);
    assert_eq!(p.worker_nodes, nodes + r.nodes);
    assert_eq!(
        cancelled(&mut w, "b", &again).await,
        std::slice::from_ref(&again.job_id)
    );

    // A job id never handed out is unknown (ids start at 1).
    for unknown in ["999999999", "0"] {
        let err = w
            .report(v1::ReportRequest {
                worker: "a".into(),
                job_id: unknown.into(),
                maker_wins: Some(true),
                ..Default::default()
            })
            .await
            .expect_err("unknown job");
        assert_eq!(err.code(), Code::NotFound, "job {unknown}");
    }

    // Cancel stops the problem; its leases are cancelled.
    let p = s
        .cancel_problem(v1::GetProblemRequest {
            problem_id: id.clone(),
        })
        .await
        .expect("cancel")
        .into_inner();
    assert_eq!(p.status, v1::ProblemStatus::Cancelled as i32);
    assert_eq!(
        cancelled(&mut w, "b", &again).await,
        vec![again.job_id.clone()]
    );
    let err = s
        .get_result(v1::GetProblemRequest { problem_id: id })
        .await
        .expect_err("no result after cancel");
    assert_eq!(err.code(), Code::FailedPrecondition);
    assert!(lease(&mut w, "a", 1).await.is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_lease_waiting_for_work_gets_a_job_submitted_meanwhile() {
    let server = start_with(|_| {}).await;
    let (mut s, mut w) = clients(&server).await;
    let start = std::time::Instant::now();
    let waiting = tokio::spawn(async move { lease(&mut w, "a", 1).await });
    tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    submit(&mut s, empty_spec(8, true, 1_000)).await;
    let leased = waiting.await.expect("join");
    assert_eq!(leased.len(), 1, "woken by the submit, not answered empty");
    assert!(start.elapsed() >= std::time::Duration::from_millis(100));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_requests_name_the_field_and_submit_is_idempotent() {
    let server = start_with(|_| {}).await;
    let (mut s, mut w) = clients(&server).await;
    let bad = |spec: v1::ProblemSpec| v1::SubmitRequest {
        request_id: String::new(),
        spec: Some(spec),
    };
    let cases = [
        (
            bad(spec(&["...", "...", "...", "..."], true, 0)),
            "spec.position.rows",
        ),
        (
            bad(spec(&["....", "..X.", "....", "...."], true, 0)),
            "spec.position.rows",
        ),
        // A finished game: Maker owns a row's first 7 cells, an edge.
        (
            bad(spec(
                &["MMMMMMMB", "BBBBBB..", "........", "........"],
                true,
                0,
            )),
            "spec.position.rows",
        ),
        (
            bad(v1::ProblemSpec {
                disabled_techniques: vec!["no-such".into()],
                ..empty_spec(8, true, 0)
            }),
            "spec.disabled_techniques[0]",
        ),
        (
            bad(empty_spec(8, true, 200_000_000)),
            "spec.job_node_budget",
        ),
        (bad(empty_spec(8, true, 999)), "spec.job_node_budget"),
        (
            v1::SubmitRequest {
                request_id: "\u{7}".into(),
                spec: Some(empty_spec(8, true, 0)),
            },
            "request_id",
        ),
        (
            v1::SubmitRequest {
                request_id: String::new(),
                spec: None,
            },
            "spec",
        ),
    ];
    for (req, field) in cases {
        let err = s.submit(req).await.expect_err("invalid");
        assert_eq!(err.code(), Code::InvalidArgument, "{field}: {err:?}");
        assert!(
            err.message().starts_with(field),
            "{field}: {}",
            err.message()
        );
    }
    for (req, field) in [
        (
            v1::ListProblemsRequest {
                page_size: 1_001,
                ..Default::default()
            },
            "page_size",
        ),
        (
            v1::ListProblemsRequest {
                page_token: "next".into(),
                ..Default::default()
            },
            "page_token",
        ),
    ] {
        let err = s.list_problems(req).await.expect_err("invalid");
        assert_eq!(err.code(), Code::InvalidArgument, "{field}: {err:?}");
        assert!(err.message().starts_with(field), "{}", err.message());
    }
    for bad in ["x1", "+1", "", " 1"] {
        let err = s
            .get_problem(v1::GetProblemRequest {
                problem_id: bad.into(),
            })
            .await
            .expect_err("bad id");
        assert_eq!(err.code(), Code::InvalidArgument, "{bad:?}");
        assert!(err.message().starts_with("problem_id"), "{}", err.message());
    }
    // A message quoting a huge value is cut short (a client refuses a long status message).
    let err = s
        .get_problem(v1::GetProblemRequest {
            problem_id: "x".repeat(1 << 19),
        })
        .await
        .expect_err("bad id");
    assert_eq!(err.code(), Code::InvalidArgument);
    assert!(err.message().starts_with("problem_id"), "{}", err.message());
    assert!(err.message().len() <= 1024, "{} bytes", err.message().len());
    assert!(
        err.message().ends_with(" bytes in all)"),
        "{}",
        err.message()
    );
    // A client's request over 1 MiB is refused before it is decoded.
    let err = s
        .get_problem(v1::GetProblemRequest {
            problem_id: "x".repeat(MAX_CLIENT_MESSAGE_BYTES),
        })
        .await
        .expect_err("too large");
    assert_eq!(err.code(), Code::OutOfRange, "{}", err.message());
    let err = s
        .get_problem(v1::GetProblemRequest {
            problem_id: "42".into(),
        })
        .await
        .expect_err("unknown id");
    assert_eq!(err.code(), Code::NotFound);
    let err = w
        .report(v1::ReportRequest {
            worker: "w".into(),
            job_id: "1".into(),
            error: "x".repeat(4097),
            ..Default::default()
        })
        .await
        .expect_err("a long error");
    assert_eq!(err.code(), Code::InvalidArgument);
    assert!(err.message().starts_with("error"), "{}", err.message());
    let err = w
        .report(v1::ReportRequest {
            worker: "w".into(),
            job_id: "1".into(),
            maker_wins: Some(true),
            nodes: u64::MAX,
            ..Default::default()
        })
        .await
        .expect_err("more nodes than a job counts");
    assert_eq!(err.code(), Code::InvalidArgument);
    assert!(err.message().starts_with("nodes"), "{}", err.message());
    for too_many in [
        w.heartbeat(v1::HeartbeatRequest {
            worker: "w".into(),
            job_ids: vec!["1".into(); 4097],
        })
        .await
        .map(|_| ()),
        w.abandon(v1::AbandonRequest {
            worker: "w".into(),
            job_ids: vec!["1".into(); 4097],
        })
        .await
        .map(|_| ()),
    ] {
        let err = too_many.expect_err("4,097 job ids");
        assert_eq!(err.code(), Code::InvalidArgument);
        assert!(err.message().starts_with("job_ids"), "{}", err.message());
    }
    let err = w
        .report(v1::ReportRequest {
            worker: "w".into(),
            job_id: "1".into(),
            maker_wins: Some(true),
            error: "the search panicked".into(),
            ..Default::default()
        })
        .await
        .expect_err("a failure with a verdict");
    assert_eq!(err.code(), Code::InvalidArgument);
    assert!(err.message().starts_with("maker_wins"), "{}", err.message());
    let err = w
        .lease(v1::LeaseRequest {
            worker: "w".into(),
            max_jobs: 0,
            ..Default::default()
        })
        .await
        .expect_err("max_jobs 0");
    assert!(err.message().starts_with("max_jobs"));

    // Idempotent submit.
    let req = v1::SubmitRequest {
        request_id: "req-1".into(),
        spec: Some(empty_spec(9, true, 0)),
    };
    let first = s.submit(req.clone()).await.expect("submit").into_inner();
    let second = s.submit(req.clone()).await.expect("again").into_inner();
    assert!(first.created && !second.created);
    assert_eq!(first.problem_id, second.problem_id);
    let err = s
        .submit(v1::SubmitRequest {
            spec: Some(empty_spec(10, true, 0)),
            ..req
        })
        .await
        .expect_err("other spec");
    assert_eq!(err.code(), Code::AlreadyExists);

    // A report whose children are not successors of the leaf is refused, nothing changes.
    let job = lease_one(&mut w, "w").await;
    let plus = w
        .heartbeat(v1::HeartbeatRequest {
            worker: "w".into(),
            job_ids: vec![format!("+{}", job.job_id)],
        })
        .await
        .expect_err("a + sign");
    assert!(
        plus.message().starts_with("job_ids[0]"),
        "{}",
        plus.message()
    );
    // So is an unsolved child with an infinite number.
    for ((pn, dn), field) in [
        ((1, 1), "children[0].position"),
        ((u64::MAX, 5), "children[0]: pn "),
    ] {
        let err = w
            .report(v1::ReportRequest {
                worker: "w".into(),
                job_id: job.job_id.clone(),
                children: vec![v1::ChildEstimate {
                    position: job.position.clone(),
                    pn,
                    dn,
                }],
                ..Default::default()
            })
            .await
            .expect_err(field);
        assert_eq!(err.code(), Code::InvalidArgument);
        assert!(err.message().starts_with(field), "{}", err.message());
    }
    let err = w
        .report(v1::ReportRequest {
            worker: "w".into(),
            job_id: job.job_id.clone(),
            solved: vec![v1::SolvedPosition {
                position: vec![1, 2, 3],
                maker_wins: true,
            }],
            maker_wins: Some(true),
            ..Default::default()
        })
        .await
        .expect_err("bad bytes");
    assert!(
        err.message().starts_with("solved[0].position"),
        "{}",
        err.message()
    );
    let p = get(&mut s, &first.problem_id).await;
    assert!(running(&p));
    assert_eq!(
        p.progress.expect("progress").jobs_in_flight,
        1,
        "lease kept"
    );
}

/// A [`MemStore`] whose reads or writes fail once told to, as on a failing disk, and which
/// records whether each batch written was durable.
#[derive(Debug, Default)]
struct FailingStore {
    inner: Arc<MemStore>,
    fail_reads: AtomicBool,
    fail_writes: AtomicBool,
    durable: std::sync::Mutex<Vec<bool>>,
}

impl FailingStore {
    fn check(&self, fail: &AtomicBool, op: &'static str) -> Result<(), StoreError> {
        if fail.load(Ordering::Relaxed) {
            return Err(StoreError::Backend {
                op,
                source: "input/output error".into(),
            });
        }
        Ok(())
    }
}

impl Store for FailingStore {
    fn get(&self, cf: ColumnFamily, key: &[u8]) -> Result<Option<Vec<u8>>, StoreError> {
        self.check(&self.fail_reads, "get")?;
        self.inner.get(cf, key)
    }
    fn put(&self, cf: ColumnFamily, key: &[u8], value: &[u8]) -> Result<(), StoreError> {
        self.check(&self.fail_writes, "put")?;
        self.inner.put(cf, key, value)
    }
    fn write(&self, batch: Batch) -> Result<(), StoreError> {
        self.check(&self.fail_writes, "write")?;
        self.durable
            .lock()
            .expect("not poisoned")
            .push(batch.is_durable());
        self.inner.write(batch)
    }
    fn scan_prefix(&self, cf: ColumnFamily, prefix: &[u8]) -> Result<Vec<KeyValue>, StoreError> {
        self.check(&self.fail_reads, "scan")?;
        self.inner.scan_prefix(cf, prefix)
    }
    fn flush(&self) -> Result<(), StoreError> {
        self.inner.flush()
    }
}

/// Submits the empty board `cols` wide (Maker to move) with `budget`-node jobs straight to
/// `c`; returns its id.
fn submit_to(c: &Coordinator, cols: usize, budget: u64) -> String {
    submit_spec(c, empty_spec(cols, true, budget))
}

/// `Solver.Submit` of `spec` straight to `c`; returns the problem's id.
fn submit_spec(c: &Coordinator, spec: v1::ProblemSpec) -> String {
    c.submit(v1::SubmitRequest {
        request_id: String::new(),
        spec: Some(spec),
    })
    .expect("submit")
    .problem_id
}

/// `Work.Lease` of up to `max_jobs` jobs straight from `c`, with `request_id`.
fn lease_from(c: &Coordinator, worker: &str, max_jobs: u32, request_id: &str) -> Vec<v1::Job> {
    c.lease(v1::LeaseRequest {
        worker: worker.into(),
        max_jobs,
        slot: 0,
        request_id: request_id.into(),
    })
    .expect("lease")
    .jobs
}

/// A job that outlives its lease length is kept by its heartbeats: it never expires while they
/// come, and expires once they stop.
#[test]
fn heartbeats_keep_a_long_job_leased() {
    let config = CoordinatorConfig {
        lease: Duration::from_millis(1_000),
        ..CoordinatorConfig::default()
    };
    let c = Coordinator::open(Arc::new(MemStore::new()), config).expect("open");
    let id = submit_to(&c, 9, 0);
    let job = lease_from(&c, "w", 1, "").remove(0);
    let start = tokio::time::Instant::now();
    // Heartbeats 100 ms apart for two and a half leases (a stall of the test's thread of up
    // to 900 ms is still on time).
    while start.elapsed() < Duration::from_millis(2_500) {
        std::thread::sleep(Duration::from_millis(100));
        let hb = c
            .heartbeat(v1::HeartbeatRequest {
                worker: "w".into(),
                job_ids: vec![job.job_id.clone()],
            })
            .expect("heartbeat");
        assert!(hb.cancelled_job_ids.is_empty());
        assert_eq!(c.expire(tokio::time::Instant::now()).expect("expire"), 0);
    }
    let progress = c.problem(&id).expect("problem").progress.expect("progress");
    assert_eq!((progress.jobs_in_flight, progress.jobs_expired), (1, 0));
    // No heartbeat for longer than a lease: it expires.
    let later = tokio::time::Instant::now() + Duration::from_millis(1_100);
    assert_eq!(c.expire(later).expect("expire"), 1);
}

/// A leaf whose leases keep failing gets smaller jobs: its node budget is divided by 4 after
/// every third expiry (or failed report), and never falls below 1,000 nodes.
#[test]
fn a_leaf_whose_leases_keep_failing_gets_smaller_budgets() {
    let c =
        Coordinator::open(Arc::new(MemStore::new()), CoordinatorConfig::default()).expect("open");
    submit_to(&c, 9, 0);
    let mut later = tokio::time::Instant::now();
    let mut budgets = Vec::new();
    for _ in 0..18 {
        // The root, the only leaf, each time.
        let job = lease_from(&c, "w", 1, "").remove(0);
        budgets.push(job.node_budget);
        later += Duration::from_secs(3_600);
        assert_eq!(c.expire(later).expect("expire"), 1);
    }
    let expected: Vec<u64> = [1_000_000, 250_000, 62_500, 15_625, 3_906, 1_000]
        .into_iter()
        .flat_map(|b| [b; 3])
        .collect();
    assert_eq!(budgets, expected);
}

/// A job carries the server's deadline (`--job-deadline-ms`), 0 for none.
#[test]
fn a_job_carries_the_servers_deadline() {
    for (deadline, ms) in [
        (Duration::from_millis(1_234), 1_234),
        (Duration::ZERO, 0),
        (
            CoordinatorConfig::default().job_deadline,
            solver_server::coordinator::DEFAULT_JOB_DEADLINE_MS,
        ),
    ] {
        let config = CoordinatorConfig {
            job_deadline: deadline,
            ..CoordinatorConfig::default()
        };
        let c = Coordinator::open(Arc::new(MemStore::new()), config).expect("open");
        submit_to(&c, 9, 0);
        let jobs = lease_from(&c, "w", 1, "");
        assert_eq!(jobs.len(), 1);
        assert_eq!(u64::from(jobs[0].deadline_ms), ms);
    }
}

/// What a crash of the machine must not lose is synced: an accepted problem, the job-id
/// ceiling (ids handed out again would take another job's report), a result or a cancel. A
/// report that only expands the DAG is not.
#[tokio::test]
async fn submits_job_id_blocks_and_ends_are_durable_writes() {
    let store = Arc::new(FailingStore::default());
    let c = Coordinator::open(store.clone(), CoordinatorConfig::default()).expect("open");
    // Whether each write since the last call was durable.
    let seen = std::sync::Mutex::new(0);
    let writes = || {
        let all = store.durable.lock().expect("not poisoned").clone();
        let mut seen = seen.lock().expect("not poisoned");
        let new = all[*seen..].to_vec();
        *seen = all.len();
        new
    };
    let id = submit_to(&c, 9, 1_000);
    assert_eq!(writes(), [true], "submit");
    let job = lease_from(&c, "w", 1, "").remove(0);
    assert_eq!(
        writes(),
        [true],
        "the first lease reserves a block of job ids"
    );
    let mut r = run_job(&job, &JobContext::new(64, 1), Arc::default()).expect("runs");
    r.worker = "w".into();
    assert!(r.maker_wins.is_none(), "200 nodes do not solve n = 9");
    c.report(r).expect("report");
    assert_eq!(writes(), [false], "a report that expands the DAG");
    assert_eq!(lease_from(&c, "w", 1, "").len(), 1);
    assert_eq!(
        writes(),
        [false; 0],
        "a lease within the block writes nothing"
    );
    c.cancel(&id).expect("cancel");
    assert_eq!(writes(), [true], "cancel");
}

/// A lease retried with the same request id (its answer lost in flight) gets the same jobs
/// while they are leased to the worker; a new request id gets new ones.
#[tokio::test]
async fn a_lease_retried_with_its_request_id_gets_the_same_jobs() {
    let c =
        Coordinator::open(Arc::new(MemStore::new()), CoordinatorConfig::default()).expect("open");
    let id = submit_to(&c, 9, 1_000);
    let lease = |worker: &str, request_id: &str| lease_from(&c, worker, 4, request_id);
    let in_flight = || {
        c.problem(&id)
            .expect("problem")
            .progress
            .expect("progress")
            .jobs_in_flight
    };
    let first = lease("w", "1");
    assert_eq!(first.len(), 1, "the root alone");
    assert_eq!(lease("w", "1"), first, "a retry: the same job");
    assert_eq!(in_flight(), 1);
    assert!(lease("w", "2").is_empty(), "a new request: nothing free");

    // The root's report frees its children; the worker's next request gets some of them.
    let mut r = run_job(&first[0], &JobContext::new(64, 1), Arc::default()).expect("runs");
    r.worker = "w".into();
    c.report(r).expect("report");
    let second = lease("w", "3");
    assert!(!second.is_empty());
    assert_eq!(lease("w", "3"), second);
    let other = lease("v", "3");
    assert!(!other.is_empty(), "leaves are free");
    assert!(
        other.iter().all(|j| !second.contains(j)),
        "another worker's request 3 is its own"
    );
    assert_eq!(lease("w", "3"), second, "and w's answer stays w's");
    // A job of the answer that is no longer leased is not answered again.
    c.abandon(v1::AbandonRequest {
        worker: "w".into(),
        job_ids: vec![second[0].job_id.clone()],
    })
    .expect("abandon");
    assert_eq!(lease("w", "3"), second[1..], "the jobs still leased");
    assert_eq!(in_flight(), (second.len() + other.len()) as u64 - 1);
    // Once a new request came, the old one is forgotten: its id leases anew.
    let third = lease("w", "4");
    let again = lease("w", "3");
    assert!(
        again
            .iter()
            .all(|j| !third.contains(j) && !second.contains(j))
    );
    // Without a request id, every call leases anew.
    let fourth = lease("w", "");
    assert!(lease("w", "").iter().all(|j| !fourth.contains(j)));

    let err = c
        .lease(v1::LeaseRequest {
            worker: "w".into(),
            max_jobs: 1,
            slot: 0,
            request_id: "x".repeat(129),
        })
        .expect_err("a long request id");
    assert!(
        matches!(&err, Error::InvalidArgument(e) if e.to_string().contains("request_id")),
        "{err:?}"
    );
}

#[tokio::test]
async fn a_failed_read_stops_the_coordinator_too() {
    let store = Arc::new(FailingStore::default());
    let c = Coordinator::open(store.clone(), CoordinatorConfig::default()).expect("open");
    store.fail_reads.store(true, Ordering::Relaxed);
    // A submit looks its root up in the table of solved positions first.
    let submitted = c.submit(v1::SubmitRequest {
        request_id: String::new(),
        spec: Some(empty_spec(8, true, 2_000)),
    });
    assert!(
        matches!(submitted, Err(Error::Internal(_))),
        "{submitted:?}"
    );
    assert!(c.failure().is_cancelled());
    store.fail_reads.store(false, Ordering::Relaxed);
    let listed = c.list(&v1::ListProblemsRequest::default());
    assert!(matches!(listed, Err(Error::Unavailable(_))), "{listed:?}");
    let c = Coordinator::open(
        Arc::clone(&store.inner) as Arc<dyn Store>,
        CoordinatorConfig::default(),
    )
    .expect("reopen");
    assert!(
        c.list(&v1::ListProblemsRequest::default())
            .expect("list")
            .problems
            .is_empty(),
        "nothing was stored"
    );
}

#[tokio::test]
async fn after_a_store_failure_every_request_is_refused_and_a_restart_reloads_the_store() {
    let store = Arc::new(FailingStore::default());
    let c = Coordinator::open(store.clone(), CoordinatorConfig::default()).expect("open");
    let id = submit_to(&c, 8, 2_000);
    let lease = |c: &Coordinator| {
        c.lease(v1::LeaseRequest {
            worker: "w1".into(),
            max_jobs: 1,
            ..Default::default()
        })
    };
    let job = lease(&c).expect("lease").jobs.remove(0);
    let mut r = run_job(&job, &JobContext::new(64, 1), Arc::default()).expect("the job runs");
    r.worker = "w1".into();

    store.fail_writes.store(true, Ordering::Relaxed);
    assert!(matches!(c.report(r.clone()), Err(Error::Internal(_))));
    assert!(c.failure().is_cancelled());
    store.fail_writes.store(false, Ordering::Relaxed);
    // The report's lease is dropped in memory but not in the store: nothing may read that.
    let refused = [
        c.report(r).map(drop),
        c.problem(&id).map(drop),
        c.list(&v1::ListProblemsRequest::default()).map(drop),
        lease(&c).map(drop),
        c.heartbeat(v1::HeartbeatRequest {
            worker: "w1".into(),
            job_ids: vec![job.job_id.clone()],
        })
        .map(drop),
        c.expire(tokio::time::Instant::now()).map(drop),
    ];
    for r in refused {
        assert!(matches!(r, Err(Error::Unavailable(_))), "{r:?}");
    }
    // A restart on the same data: the problem runs on from what was stored, and the leaf whose
    // report was not stored is free to lease again.
    let c = Coordinator::open(
        Arc::clone(&store.inner) as Arc<dyn Store>,
        CoordinatorConfig::default(),
    )
    .expect("reopen");
    let p = c.problem(&id).expect("the problem is stored");
    assert!(running(&p));
    assert_eq!(p.progress.expect("progress").jobs_done, 0);
    let again = lease(&c).expect("lease").jobs;
    assert_eq!(again.len(), 1);
    assert_eq!(again[0].position, job.position, "the same leaf");
}

/// A server on `store` (127.0.0.1, port 0; its data directory is not used): its address, the
/// sender that stops it, and its task.
async fn serve_on(
    store: Arc<dyn Store>,
) -> (
    std::net::SocketAddr,
    tokio::sync::oneshot::Sender<()>,
    tokio::task::JoinHandle<Result<(), solver_server::server::RunError>>,
) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let addr = listener.local_addr().expect("address");
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let server = tokio::spawn(solver_server::server::serve(
        solver_server::config::Config::new(addr, std::path::PathBuf::from("unused")),
        listener,
        async move {
            let _ = stopped.await;
        },
        store,
    ));
    (addr, stop, server)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_store_failure_stops_the_server_with_an_error() {
    let store = Arc::new(FailingStore::default());
    let (addr, _stop, server) = serve_on(Arc::clone(&store) as Arc<dyn Store>).await;
    let ch = channel(addr).await;
    let (mut s, mut w) = (SolverClient::new(ch.clone()), WorkClient::new(ch));
    submit(&mut s, empty_spec(8, true, 2_000)).await;
    let job = lease_one(&mut w, "w1").await;
    let mut r = run_job(&job, &JobContext::new(64, 1), Arc::default()).expect("the job runs");
    r.worker = "w1".into();
    store.fail_writes.store(true, Ordering::Relaxed);
    let refused = w.report(r).await.expect_err("the write fails");
    assert_eq!(refused.code(), Code::Internal, "{refused:?}");
    let ended = tokio::time::timeout(Duration::from_secs(30), server)
        .await
        .expect("the server stops on its own")
        .expect("the server task");
    assert!(
        matches!(
            ended,
            Err(solver_server::server::RunError::CoordinatorFailed)
        ),
        "{ended:?}"
    );
}

/// A store whose table of solved positions says the empty 8-wide board with Maker to move is
/// a Maker win (solved here, all winning moves named), and nothing about its children:
/// as if a problem had solved it inside one job. Returns the store and the winning moves.
fn store_knowing_the_root_alone() -> (Arc<MemStore>, Vec<String>) {
    let store = Arc::new(MemStore::new());
    know_the_empty_board(&store, 8);
    (store, n8_winning_moves())
}

/// Writes to `store`'s table of solved positions that the empty board of width `cols`, Maker
/// to move, is a Maker win (true for 8..=13), and nothing about its children.
fn know_the_empty_board(store: &MemStore, cols: u32) {
    use solver_core::games::seven::{Cols, Position, Rules, SevenGame, Side};
    use solver_core::pns::Game;
    let cols = Cols::try_from(cols).expect("width");
    let position = Position::empty(cols, Side::Maker);
    let mut root = SevenGame::new(position, Rules::new(cols, &[])).expect("game");
    assert_eq!(root.simplify(), None, "the reductions do not decide it");
    let packed = solver_proto::convert::seven::pack_key(&root.key());
    store
        .put(ColumnFamily::Tt, &keys::seven_tt(&packed), &[1])
        .expect("put");
}

/// Cancelling a problem whose winning moves are being searched stops that search.
#[tokio::test]
async fn cancelling_a_problem_stops_the_search_of_its_moves() {
    ending_a_problem_stops_the_search_of_its_moves(|c, long, _| {
        let p = c.cancel(long).expect("cancel");
        assert_eq!(p.status, v1::ProblemStatus::Cancelled as i32);
    })
    .await;
}

/// A value naming a winning move ends a problem whose moves are being searched at that moment,
/// with the named move, and stops the search. (The value is a report's claim, which the
/// coordinator trusts as it trusts every worker.)
#[tokio::test]
async fn a_value_naming_a_move_stops_the_search_under_way() {
    ending_a_problem_stops_the_search_of_its_moves(|c, long, job| {
        let want = report_maker_wins_after(c, job, 13, "a1");
        let mut named = c.result(long).expect("solved").winning_moves;
        named.sort();
        assert_eq!(named, want);
    })
    .await;
}

/// `end` (given the coordinator, the problem and a job of another problem to report with)
/// ends a problem whose winning moves are being searched: that search (of the empty 13-wide
/// board: about 3 M nodes, 8 s or more, otherwise) stops, and the next problem waiting for its
/// moves is searched.
async fn ending_a_problem_stops_the_search_of_its_moves(
    end: impl FnOnce(&Coordinator, &str, &v1::Job),
) {
    let store = Arc::new(MemStore::new());
    know_the_empty_board(&store, 13);
    know_the_empty_board(&store, 8);
    let c = Arc::new(Coordinator::open(store, CoordinatorConfig::default()).expect("open"));
    let long = submit_to(&c, 13, 1_000_000);
    let short = submit_to(&c, 8, 2_000);
    let other = submit_to(&c, 9, 2_000);
    let job = lease_from(&c, "w", 1, "").remove(0);
    assert_eq!(job.problem_id, other);
    let searcher = {
        let c = Arc::clone(&c);
        std::thread::spawn(move || c.name_winning_moves())
    };
    tokio::time::sleep(Duration::from_millis(500)).await;
    end(&c, &long, &job);
    // Stopped, the search ends within milliseconds; the next one, of the 8-wide board, takes
    // well under a second.
    let start = Instant::now();
    while !searcher.is_finished() {
        assert!(
            start.elapsed() < Duration::from_secs(4),
            "the search of the ended problem's moves goes on"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(searcher.join().expect("no panic").expect("searched"), 1);
    assert_maker_wins_with(&c, &short, &n8_winning_moves());
}

/// The table of solved positions answers a problem whichever form it keys its positions in
/// (mirror-canonical, or exact with `--disable mirror-tt`): the same board, solved once in each
/// form, gets the same winning moves either way and in either order (a table keyed by the
/// reporting problem's form missed a winning move's mirror image: `a2 h2` and then `a2`).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn both_key_forms_share_the_table_of_solved_positions() {
    let exact = |spec: &v1::ProblemSpec| v1::ProblemSpec {
        disabled_techniques: vec!["mirror-tt".into()],
        ..spec.clone()
    };
    for exact_first in [false, true] {
        let server = start_with(|_| {}).await;
        let (mut s, mut w) = clients(&server).await;
        let canonical = empty_spec(8, true, 0);
        let (first, second) = if exact_first {
            (exact(&canonical), canonical)
        } else {
            (canonical.clone(), exact(&canonical))
        };
        let mut moves = Vec::new();
        for spec in [first, second] {
            let id = submit(&mut s, spec).await;
            work_until_done(&mut w, &mut s, "w", std::slice::from_ref(&id)).await;
            let mut named = get(&mut s, &id).await.result.expect("solved").winning_moves;
            named.sort();
            moves.push(named);
        }
        assert_eq!(moves[0], moves[1], "exact form first: {exact_first}");
        assert!(moves[0].iter().all(|m| n8_winning_moves().contains(m)));
        // A winning move's mirror image wins too, and is named with it (also where the exact
        // form keys the two positions apart).
        let mirror = |m: &String| {
            let (col, row) = m.split_at(1);
            let col = char::from(b'a' + 7 - (col.as_bytes()[0] - b'a'));
            format!("{col}{row}")
        };
        assert!(
            moves[0].iter().all(|m| moves[0].contains(&mirror(m))),
            "{:?}",
            moves[0]
        );
    }
}

/// A value an earlier version stored under a position's exact key that is not the
/// mirror-canonical one (from a problem with `--disable mirror-tt`) still answers a problem in
/// either form at submit.
#[test]
fn a_value_stored_under_an_exact_key_still_answers() {
    use solver_core::games::seven::{Cols, Position, Rules, SevenGame, Side, Technique};
    use solver_core::pns::Game;
    let cols = Cols::try_from(10u32).expect("width");
    // The empty 10-wide board after Maker's a2 or j2 (mirror images; Breaker to move, a Maker
    // win), the one whose exact key is not canonical.
    let exact = |cell: &str| {
        let position = Position::empty(cols, Side::Maker)
            .play(solver_core::games::seven::Cell::parse(cell, cols).expect("cell"))
            .expect("empty");
        let mut g =
            SevenGame::new(position, Rules::new(cols, &[Technique::MirrorTt])).expect("game");
        assert_eq!(g.simplify(), None);
        (position, g.key())
    };
    let (position, key) = [exact("a2"), exact("j2")]
        .into_iter()
        .find(|(_, k)| k.canonical() != *k)
        .expect("one of two mirror images is not canonical");
    for disabled in [vec![], vec!["mirror-tt".to_string()]] {
        let store = Arc::new(MemStore::new());
        let packed = solver_proto::convert::seven::pack_key(&key);
        store
            .put(ColumnFamily::Tt, &keys::seven_tt(&packed), &[1])
            .expect("put");
        let c = Coordinator::open(store, CoordinatorConfig::default()).expect("open");
        let rows: Vec<String> = position.rows();
        let rows: Vec<&str> = rows.iter().map(String::as_str).collect();
        let id = submit_spec(
            &c,
            v1::ProblemSpec {
                disabled_techniques: disabled.clone(),
                ..spec(&rows, false, 0)
            },
        );
        let p = c.problem(&id).expect("problem");
        assert_eq!(
            p.progress.expect("progress").root_pn,
            0,
            "answered at submit, disabled {disabled:?}"
        );
    }
}

/// The exact key (`--disable mirror-tt`) of the empty 10-wide board's child by Maker's `cell`,
/// simplified as a worker's search makes it.
fn exact_child_key_of_the_empty_10_wide_board(cell: &str) -> solver_core::games::seven::Key {
    use solver_core::games::seven::{Cols, Position, Rules, SevenGame, Side, Technique};
    use solver_core::pns::Game;
    let cols = Cols::try_from(10u32).expect("width");
    let rules = Rules::new(cols, &[Technique::MirrorTt]);
    let mut root = SevenGame::new(Position::empty(cols, Side::Maker), rules).expect("game");
    assert_eq!(root.simplify(), None);
    let (_, mut child) = root
        .children()
        .into_iter()
        .find(|(mv, _)| mv.name() == cell)
        .expect("a move");
    assert_eq!(child.simplify(), None);
    child.key()
}

/// A problem keying its positions exactly (`--disable mirror-tt`) whose report proves one
/// winning first move names its mirror image too: the two child positions have one value.
#[test]
fn a_winning_move_is_named_with_its_mirror_image() {
    let a2 = exact_child_key_of_the_empty_10_wide_board("a2");
    let c =
        Coordinator::open(Arc::new(MemStore::new()), CoordinatorConfig::default()).expect("open");
    let id = submit_spec(
        &c,
        v1::ProblemSpec {
            disabled_techniques: vec!["mirror-tt".into()],
            ..empty_spec(10, true, 1_000)
        },
    );
    let job = lease_from(&c, "w", 1, "").remove(0);
    // Maker wins the empty 10-wide board by a2 and by its mirror image j2 (`solver seven solve
    // --cols 10` names both): the report says so, naming a2's position alone.
    let solved = |position: Vec<u8>| v1::SolvedPosition {
        position,
        maker_wins: true,
    };
    c.report(v1::ReportRequest {
        worker: "w".into(),
        job_id: job.job_id.clone(),
        maker_wins: Some(true),
        solved: vec![
            solved(job.position.clone()),
            solved(solver_proto::convert::seven::pack_key(&a2)),
        ],
        ..Default::default()
    })
    .expect("report");
    let mut moves = c.result(&id).expect("solved").winning_moves;
    moves.sort();
    assert_eq!(moves, ["a2", "j2"]);
}

/// A solved position that a problem keying its positions exactly (`--disable mirror-tt`)
/// reports reaches the DAG of a running problem that keys them mirror-canonically, where it is
/// the node of its mirror image: with a report of many facts (each DAG node looked up among
/// them) and of few (each fact looked up in the DAG).
#[test]
fn a_fact_reaches_a_dag_that_keys_its_mirror_image() {
    // The children after Maker's winning moves a2 and j2 (mirror images): one of them is not
    // mirror-canonical.
    let mirrored = ["a2", "j2"]
        .map(exact_child_key_of_the_empty_10_wide_board)
        .into_iter()
        .find(|k| k.canonical() != *k)
        .expect("one of two mirror images is not canonical");
    let exact_spec = v1::ProblemSpec {
        disabled_techniques: vec!["mirror-tt".into()],
        ..empty_spec(10, true, 1_000)
    };
    for many_facts in [false, true] {
        let c = Coordinator::open(Arc::new(MemStore::new()), CoordinatorConfig::default())
            .expect("open");
        let ctx = JobContext::new(64, 1);
        let reporter = submit_spec(&c, exact_spec.clone());
        let reporters_job = lease_from(&c, "w", 1, "").remove(0);
        assert_eq!(reporters_job.problem_id, reporter);
        // The canonical problem's root expanded by one job (1,000 nodes do not solve it).
        let watched = submit_to(&c, 10, 1_000);
        let job = lease_from(&c, "w", 1, "").remove(0);
        assert_eq!(job.problem_id, watched);
        let mut r = run_job(&job, &ctx, Arc::default()).expect("runs");
        assert_eq!(r.maker_wins, None);
        r.worker = "w".into();
        c.report(r).expect("report");
        let solved_before = c
            .problem(&watched)
            .expect("get")
            .progress
            .expect("progress");
        assert!(solved_before.root_pn > 0 && solved_before.dag_nodes > 2);
        // The exact problem's report: a search of its job's leaf that solves many positions
        // (but not the leaf), or none, with the fact appended.
        let fact = v1::SolvedPosition {
            position: solver_proto::convert::seven::pack_key(&mirrored),
            maker_wins: true,
        };
        let searched = v1::Job {
            node_budget: if many_facts { 6_000 } else { 1_000 },
            ..reporters_job.clone()
        };
        let mut report = run_job(&searched, &ctx, Arc::default()).expect("runs");
        assert_eq!(report.maker_wins, None);
        let dag_nodes = solved_before.dag_nodes;
        assert_eq!(
            report.solved.len() as u64 > dag_nodes,
            many_facts,
            "{} facts, {dag_nodes} nodes",
            report.solved.len()
        );
        report.solved.push(fact);
        c.report(v1::ReportRequest {
            worker: "w".into(),
            ..report
        })
        .expect("report");
        // The watched root (OR) has a proven child now: Maker wins.
        let after = c
            .problem(&watched)
            .expect("get")
            .progress
            .expect("progress");
        assert_eq!(after.root_pn, 0, "many facts: {many_facts}");
    }
}

/// Every winning first move of the empty 8-wide board, Maker to move (a Maker win), by an
/// independent search in this process.
fn n8_winning_moves() -> Vec<String> {
    use solver_core::games::seven::{self, Cols, Position, Side};
    use solver_core::pns::{Limits, Outcome, Value};
    let position = Position::empty(Cols::try_from(8u32).expect("width"), Side::Maker);
    let report = seven::solve(position, &[], &Limits::default(), true);
    assert_eq!(report.outcome, Outcome::Solved(Value::Proven));
    let moves: Vec<String> = report.winning_moves.iter().map(|c| c.name()).collect();
    assert!(!moves.is_empty());
    moves
}

/// Checks that `id` is a Maker win whose winning moves are some of `moves`.
fn assert_maker_wins_with(c: &Coordinator, id: &str, moves: &[String]) {
    let r = c.result(id).expect("solved");
    assert_eq!(r.winner, v1::Winner::Maker as i32);
    assert!(!r.winning_moves.is_empty());
    assert!(
        r.winning_moves.iter().all(|m| moves.contains(m)),
        "{:?} against {moves:?}",
        r.winning_moves
    );
}

/// A problem solved with no known value naming a winning move waits, running, for a search
/// of its moves outside the lock; a stopped search leaves it waiting, also across a restart.
#[tokio::test]
async fn winning_moves_no_known_value_names_are_searched_outside_the_lock() {
    let (store, moves) = store_knowing_the_root_alone();
    let c = Coordinator::open(store.clone(), CoordinatorConfig::default()).expect("open");
    let id = submit_to(&c, 8, 2_000);
    let p = c.problem(&id).expect("problem");
    assert!(running(&p), "it waits for its moves");
    assert!(c.result(&id).is_err());
    assert!(lease_from(&c, "w", 1, "").is_empty(), "nothing to lease");
    // Stopped: the problem waits on, and a new server run searches again.
    c.stop_moves_search();
    assert_eq!(c.name_winning_moves().expect("stopped"), 0);
    assert!(running(&c.problem(&id).expect("problem")));
    drop(c);
    let c = Coordinator::open(store, CoordinatorConfig::default()).expect("reopen");
    tokio::time::timeout(Duration::from_secs(5), c.moves_wanted())
        .await
        .expect("the reloaded problem wants its moves");
    assert_eq!(c.name_winning_moves().expect("search"), 1);
    assert_maker_wins_with(&c, &id, &moves);
    assert_eq!(c.name_winning_moves().expect("none"), 0);
}

/// A report that solves a root with no winning move known (here problem b's root job, whose
/// value also solves problem a, on the same position) leaves both waiting for the search of
/// their moves: a's other lease ends (its heartbeat cancels the job), and what they wait
/// with is stored, so a restart searches again.
#[tokio::test]
async fn a_report_that_solves_a_root_with_no_move_known_ends_its_leases_and_is_stored() {
    let store = Arc::new(MemStore::new());
    let c = Coordinator::open(store.clone(), CoordinatorConfig::default()).expect("open");
    let a = submit_to(&c, 8, 2_000);
    let root = lease_from(&c, "w", 1, "").remove(0);
    let mut r = run_job(&root, &JobContext::new(64, 1), Arc::default()).expect("runs");
    r.worker = "w".into();
    assert!(r.maker_wins.is_none(), "2,000 nodes do not solve n = 8");
    c.report(r).expect("report");
    let child = lease_from(&c, "w", 1, "").remove(0);
    assert_eq!(child.problem_id, a);
    let b = solve_a_twin_inside_one_job(&c, 8);
    for id in [&a, &b] {
        let p = c.problem(id).expect("problem");
        assert!(running(&p), "{id} waits for its moves");
        let progress = p.progress.expect("progress");
        assert_eq!((progress.root_pn, progress.jobs_in_flight), (0, 0), "{id}");
    }
    let hb = c
        .heartbeat(v1::HeartbeatRequest {
            worker: "w".into(),
            job_ids: vec![child.job_id.clone()],
        })
        .expect("heartbeat");
    assert_eq!(hb.cancelled_job_ids, std::slice::from_ref(&child.job_id));
    assert!(lease_from(&c, "w", 4, "").is_empty(), "nothing to lease");
    // The cancelled job reports late (a failure, so that it names no winning move): it
    // counts, and is stored.
    let jobs_done = |c: &Coordinator| {
        let p = c.problem(&a).expect("problem");
        p.progress.expect("progress").jobs_done
    };
    let before = jobs_done(&c);
    c.report(v1::ReportRequest {
        worker: "w".into(),
        job_id: child.job_id.clone(),
        error: "stopped".into(),
        ..Default::default()
    })
    .expect("a late report");
    assert_eq!(jobs_done(&c), before + 1);

    drop(c);
    let c = Coordinator::open(store, CoordinatorConfig::default()).expect("reopen");
    for id in [&a, &b] {
        let p = c.problem(id).expect("problem");
        assert!(running(&p), "{id} still waits");
        assert_eq!(
            p.progress.expect("progress").root_pn,
            0,
            "{id}: stored solved"
        );
    }
    assert_eq!(
        jobs_done(&c),
        before + 1,
        "the late report's progress is stored"
    );
    assert_eq!(c.name_winning_moves().expect("search"), 2);
    let moves = n8_winning_moves();
    assert_maker_wins_with(&c, &a, &moves);
    assert_maker_wins_with(&c, &b, &moves);
}

/// A problem waiting for the search of its winning moves ends as soon as a report's value names
/// one, also a value of a position outside its DAG (here from another problem's job): as a
/// restart would end it, finding the value in the table of solved positions.
#[tokio::test]
async fn a_report_naming_a_winning_move_ends_a_problem_waiting_for_its_moves() {
    let (store, moves) = store_knowing_the_root_alone();
    let c = Coordinator::open(store, CoordinatorConfig::default()).expect("open");
    let waiting = submit_to(&c, 8, 2_000);
    assert!(running(&c.problem(&waiting).expect("problem")), "it waits");
    let other = submit_to(&c, 9, 2_000);
    let job = lease_from(&c, "w", 1, "").remove(0);
    assert_eq!(job.problem_id, other);
    let want = report_maker_wins_after(&c, &job, 8, &moves[0]);
    assert_maker_wins_with(&c, &waiting, &moves);
    let mut named = c.result(&waiting).expect("solved").winning_moves;
    named.sort();
    assert_eq!(named, want);
    assert_eq!(c.name_winning_moves().expect("none waits"), 0);
}

/// Reports, as worker `w`'s failed `job`, that Maker wins after Maker's first move `cell` on
/// the empty board `cols` wide (the position keyed as a worker's search keys it), and returns
/// the winning moves that names, sorted: the move and its mirror image (the table keys a
/// position and its mirror image alike).
fn report_maker_wins_after(c: &Coordinator, job: &v1::Job, cols: u8, cell: &str) -> Vec<String> {
    use solver_core::games::seven::{Cols, Position, Rules, SevenGame, Side};
    use solver_core::pns::Game;
    let width = Cols::try_from(u32::from(cols)).expect("width");
    let mut root =
        SevenGame::new(Position::empty(width, Side::Maker), Rules::new(width, &[])).expect("game");
    assert_eq!(root.simplify(), None);
    let (_, mut child) = root
        .children()
        .into_iter()
        .find(|(c, _)| c.name() == cell)
        .expect("a move of the root");
    assert_eq!(child.simplify(), None);
    c.report(v1::ReportRequest {
        worker: "w".into(),
        job_id: job.job_id.clone(),
        error: "stopped".into(),
        solved: vec![v1::SolvedPosition {
            position: solver_proto::convert::seven::pack_key(&child.key()),
            maker_wins: true,
        }],
        ..Default::default()
    })
    .expect("report");
    let column = cell.as_bytes()[0] - b'a';
    let mirror = format!("{}{}", char::from(b'a' + cols - 1 - column), &cell[1..]);
    let mut moves = vec![cell.to_string(), mirror];
    moves.sort();
    moves.dedup();
    moves
}

/// Every position of the test data's positions.jsonl (139 of n = 4 to 12, each checked by two
/// or three solvers, its `checked_by`), submitted at once twice, with every technique and without
/// threat-space, dominated-squares and mirror-tt (bigger searches, exact keys), with jobs of
/// 1,000 nodes (ten of the problems grow a DAG over several jobs, one over about 350, and the
/// problems of one width share their solved values), and solved by the worker's job function,
/// gets the data's winner, with winning moves named where the side to move wins, and those
/// among the data's value-preserving moves where the data lists them.
#[test]
fn the_test_data_positions_solved_through_jobs_get_their_winners() {
    // `shared/` beside the repository root, found at run time (as solver-core's tests do).
    let package = std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR");
    let path = format!("{package}/../../shared/testdata/seven-in-a-row/positions.jsonl");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let records: Vec<serde_json::Value> = text
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).expect("a JSON record"))
        .collect();
    assert_eq!(records.len(), 139);
    let c =
        Coordinator::open(Arc::new(MemStore::new()), CoordinatorConfig::default()).expect("open");
    let disabled: [&[&str]; 2] = [&[], &["threat-space", "dominated-squares", "mirror-tt"]];
    let mut problems = Vec::new();
    for off in disabled {
        for rec in &records {
            let rows: Vec<&str> = rec["board"]
                .as_array()
                .expect("board")
                .iter()
                .map(|r| r.as_str().expect("row"))
                .collect();
            let mut spec = spec(&rows, rec["to_move"] == "maker", 1_000);
            spec.disabled_techniques = off.iter().map(|t| t.to_string()).collect();
            problems.push((rec, off, submit_spec(&c, spec)));
        }
    }
    let ctx = JobContext::new(64, 1);
    let deadline = Instant::now() + Duration::from_secs(600);
    while problems
        .iter()
        .any(|(_, _, id)| running(&c.problem(id).expect("problem")))
    {
        assert!(Instant::now() < deadline, "not solved in time");
        let leased = lease_from(&c, "w", 4, "");
        if leased.is_empty() {
            // Roots solved inside one job, their winning moves unnamed.
            assert!(c.name_winning_moves().expect("search") > 0, "nothing to do");
        }
        for job in leased {
            let mut r = run_job(&job, &ctx, Arc::default()).expect("the job runs");
            r.worker = "w".into();
            c.report(r).expect("report");
        }
    }
    let mut grown = 0;
    for (rec, off, id) in &problems {
        let r = c.result(id).expect("solved");
        grown += usize::from(r.progress.as_ref().is_some_and(|p| p.jobs_done > 1));
        let want = if rec["winner"] == "maker" {
            v1::Winner::Maker
        } else {
            v1::Winner::Breaker
        };
        assert_eq!(r.winner, want as i32, "{} without {off:?}", rec["id"]);
        assert_eq!(
            !r.winning_moves.is_empty(),
            rec["winner"] == rec["to_move"],
            "{} without {off:?}: the side to move's winning moves are named",
            rec["id"]
        );
        if let Some(moves) = rec["value_preserving_moves"].as_array() {
            let moves: Vec<&str> = moves.iter().map(|m| m.as_str().expect("a cell")).collect();
            assert!(
                r.winning_moves.iter().all(|m| moves.contains(&m.as_str())),
                "{} without {off:?}: {:?} against {moves:?}",
                rec["id"],
                r.winning_moves
            );
        }
    }
    assert!(grown >= 10, "{grown} problems grew a DAG over several jobs");
}

/// A waiting problem whose own DAG comes to prove one of its moves ends with that move: here
/// problem a's root (the empty 10-wide board) and one of its moves are expanded by jobs,
/// problem b (the same position) solves the root inside one job (a Maker win), and a report's
/// values (claims, trusted as every worker's are) then solve every position below that move;
/// a restart would name it from the DAG too. So do values another problem leaves in `tt` when
/// it ends: problem c waits for its moves until a problem of the position after one of them
/// is solved.
#[tokio::test]
async fn a_move_its_dag_proves_or_another_problem_solves_ends_a_waiting_problem() {
    let store = Arc::new(MemStore::new());
    let c = Coordinator::open(store.clone(), CoordinatorConfig::default()).expect("open");
    let ctx = JobContext::new(64, 1);
    let run = |job: &v1::Job| {
        let mut r = run_job(job, &ctx, Arc::default()).expect("runs");
        r.worker = "w".into();
        r
    };
    let a = submit_to(&c, 10, 2_000);
    let root = lease_from(&c, "w", 1, "").remove(0);
    let r = run(&root);
    assert!(r.maker_wins.is_none(), "2,000 nodes do not solve n = 10");
    c.report(r).expect("report");
    let mv = lease_from(&c, "w", 1, "").remove(0);
    let r = run(&mv);
    assert!(r.maker_wins.is_none(), "nor the move's position");
    let below: Vec<v1::SolvedPosition> = r
        .children
        .iter()
        .map(|child| v1::SolvedPosition {
            position: child.position.clone(),
            maker_wins: true,
        })
        .collect();
    c.report(r).expect("report");
    solve_a_twin_inside_one_job(&c, 10);
    let p = c.problem(&a).expect("problem");
    assert!(running(&p), "a waits");
    assert_eq!(p.progress.expect("progress").root_pn, 0);
    c.report(v1::ReportRequest {
        worker: "w".into(),
        job_id: mv.job_id.clone(),
        error: "stopped".into(),
        solved: below,
        ..Default::default()
    })
    .expect("a late report");
    let named = c.result(&a).expect("a ends").winning_moves;
    assert!(!named.is_empty());

    // c: the empty 8-wide board, whose value alone the table holds; then a problem of the
    // position after one of its winning moves (Breaker to move), solved by jobs.
    drop(c);
    know_the_empty_board(&store, 8);
    let c = Coordinator::open(store, CoordinatorConfig::default()).expect("reopen");
    let waiting = submit_to(&c, 8, 2_000);
    assert!(running(&c.problem(&waiting).expect("problem")), "c waits");
    let moves = n8_winning_moves();
    let column = usize::from(moves[0].as_bytes()[0] - b'a');
    let row = usize::from(moves[0].as_bytes()[1] - b'1');
    let mut rows = empty(8);
    rows[row].replace_range(column..=column, "M");
    let rows: Vec<&str> = rows.iter().map(String::as_str).collect();
    let after = submit_spec(&c, spec(&rows, false, 2_000));
    while running(&c.problem(&after).expect("problem")) {
        for job in lease_from(&c, "w", 4, "") {
            c.report(run(&job)).expect("report");
        }
    }
    assert_eq!(
        c.result(&after).expect("solved").winner,
        v1::Winner::Maker as i32
    );
    assert_maker_wins_with(&c, &waiting, &moves);
    assert!(
        c.result(&waiting)
            .expect("c ends")
            .winning_moves
            .contains(&moves[0])
    );
}

/// Submits the empty board `cols` wide (Maker to move; a Maker win for 8..=13) with
/// 2,000-node jobs, and reports its root solved (a Maker win) by the root's job, as a worker
/// would that solved it inside one job; returns its id. Its value solves every problem of
/// that root.
fn solve_a_twin_inside_one_job(c: &Coordinator, cols: usize) -> String {
    let twin = submit_to(c, cols, 2_000);
    let root = lease_from(c, "w", 4, "")
        .into_iter()
        .find(|j| j.problem_id == twin)
        .expect("the twin's root");
    c.report(v1::ReportRequest {
        worker: "w".into(),
        job_id: root.job_id.clone(),
        maker_wins: Some(true),
        ..Default::default()
    })
    .expect("report");
    twin
}

/// Submits the empty board 8 wide, Breaker to move (an AND root, which one solved child does
/// not decide when Maker wins it), with 2,000-node jobs, straight to `c`; returns its id.
fn submit_breaker_first(c: &Coordinator) -> String {
    submit_spec(c, empty_spec(8, false, 2_000))
}

/// Whether Maker wins the position of `job`, by a search to its end.
fn maker_wins(job: &v1::Job, ctx: &JobContext) -> bool {
    let own = v1::Job {
        node_budget: 10_000_000,
        pn_threshold: 0,
        dn_threshold: 0,
        deadline_ms: 0,
        ..job.clone()
    };
    let r = run_job(&own, ctx, Arc::default()).expect("runs");
    r.maker_wins
        .unwrap_or_else(|| panic!("not solved: {} nodes, {:?}", r.nodes, r.error))
}

/// A heartbeat that cancels a job because its leaf was solved through another job's facts
/// ends the job's lease: it does not expire later as a failure, and its report still counts.
#[tokio::test]
async fn a_heartbeat_ends_the_lease_of_a_leaf_solved_elsewhere() {
    let c =
        Coordinator::open(Arc::new(MemStore::new()), CoordinatorConfig::default()).expect("open");
    let a = submit_breaker_first(&c);
    let ctx = JobContext::new(64, 1);
    let report = |job: &v1::Job, node_budget: u64| {
        let job = v1::Job {
            node_budget,
            ..job.clone()
        };
        let mut r = run_job(&job, &ctx, Arc::default()).expect("runs");
        r.worker = "w".into();
        r
    };
    // The root, then its most-proving leaf, expanded: the next leaves are two moves deep,
    // positions a search solves in a few seconds.
    for budget in [2_000, 100] {
        let job = lease_from(&c, "w", 1, "").remove(0);
        c.report(report(&job, budget)).expect("report");
    }
    // Watchers are told of leases too.
    let mut watch = c.subscribe(&a).expect("subscribe");
    watch.mark_unchanged();
    let jobs = lease_from(&c, "w", 2, "");
    assert!(watch.has_changed().expect("open"));
    let [first, second] = jobs.as_slice() else {
        panic!("two leaves: {jobs:?}");
    };
    // The first job's report says (truly) who wins the second's leaf.
    let mut r = report(first, 100);
    assert!(r.maker_wins.is_none(), "100 nodes do not solve it");
    r.solved.push(v1::SolvedPosition {
        position: second.position.clone(),
        maker_wins: maker_wins(second, &ctx),
    });
    c.report(r).expect("report");
    assert!(
        running(&c.problem(&a).expect("problem")),
        "the root is open"
    );
    // Watchers are told of the lease the heartbeat ends (its job no longer in flight).
    let mut watch = c.subscribe(&a).expect("subscribe");
    watch.mark_unchanged();
    let hb = c
        .heartbeat(v1::HeartbeatRequest {
            worker: "w".into(),
            job_ids: vec![second.job_id.clone()],
        })
        .expect("heartbeat");
    assert_eq!(hb.cancelled_job_ids, std::slice::from_ref(&second.job_id));
    assert!(watch.has_changed().expect("open"));
    let progress = |c: &Coordinator| {
        let p = c.problem(&a).expect("problem");
        p.progress.expect("progress")
    };
    assert_eq!(progress(&c).jobs_in_flight, 0);
    let later = tokio::time::Instant::now() + Duration::from_secs(3_600);
    assert_eq!(
        c.expire(later).expect("expire"),
        0,
        "nothing left to expire"
    );
    assert_eq!(progress(&c).jobs_expired, 0);
    let done = progress(&c).jobs_done;
    c.report(v1::ReportRequest {
        worker: "w".into(),
        job_id: second.job_id.clone(),
        error: "stopped".into(),
        ..Default::default()
    })
    .expect("a late report");
    assert_eq!(progress(&c).jobs_done, done + 1);
}

/// Cancelling a problem keeps what its DAG proved in the transposition table, also the values
/// back-propagation gave (no report names them): here a leaf that its report's solved children
/// decide.
#[tokio::test]
async fn a_cancelled_problems_proved_values_stay_in_the_table() {
    let store = Arc::new(MemStore::new());
    let c = Coordinator::open(store.clone(), CoordinatorConfig::default()).expect("open");
    let a = submit_breaker_first(&c);
    let ctx = JobContext::new(64, 1);
    // The next job, run with a budget too small to solve its leaf.
    let run = |node_budget: u64| {
        let job = v1::Job {
            node_budget,
            ..lease_from(&c, "w", 1, "").remove(0)
        };
        let mut r = run_job(&job, &ctx, Arc::default()).expect("runs");
        assert!(
            r.maker_wins.is_none(),
            "{node_budget} nodes do not solve it"
        );
        r.worker = "w".into();
        (job, r)
    };
    let (_, r) = run(2_000);
    c.report(r).expect("report");
    // The next leaf's report without its solved positions, its children solved (each by a
    // search of its own) up to the first its mover wins.
    let (leaf, mut r) = run(100);
    r.solved.clear();
    let position = solver_proto::convert::seven::unpack(&leaf.position, "position").expect("ok");
    let maker_moves = position.to_move() == solver_core::games::seven::Side::Maker;
    for child in &mut r.children {
        let own = v1::Job {
            position: child.position.clone(),
            ..leaf.clone()
        };
        let maker_wins = maker_wins(&own, &ctx);
        (child.pn, child.dn) = if maker_wins {
            (0, u64::MAX)
        } else {
            (u64::MAX, 0)
        };
        if maker_wins == maker_moves {
            break;
        }
    }
    c.report(r).expect("report");
    assert!(
        running(&c.problem(&a).expect("problem")),
        "the root is open"
    );
    let key = keys::seven_tt(&leaf.position);
    assert_eq!(store.get(ColumnFamily::Tt, &key).expect("get"), None);
    c.cancel(&a).expect("cancel");
    assert!(
        store.get(ColumnFamily::Tt, &key).expect("get").is_some(),
        "kept"
    );
}

/// A report's solved positions are facts for every running problem of their width: here the
/// root of problem b (a one-node DAG, fewer nodes than the report has facts, so the DAG is
/// scanned against the facts) is among the facts of a job of problem a, and b ends with the
/// value an independent search gives. The first fact of a position counts, and the same
/// stones on another width are another position.
#[tokio::test]
async fn a_reports_facts_solve_another_problem_of_the_width() {
    use solver_core::games::seven::{self, Cols, Position, Rules, SevenGame, Side};
    use solver_core::pns::{Game, Limits, Outcome, Value};
    let c =
        Coordinator::open(Arc::new(MemStore::new()), CoordinatorConfig::default()).expect("open");
    let a = submit_to(&c, 8, 2_000);
    let rows = ["...M....", "........", "........", "........"];
    let b = c
        .submit(v1::SubmitRequest {
            request_id: String::new(),
            spec: Some(spec(&rows, false, 2_000)),
        })
        .expect("submit")
        .problem_id;
    assert!(
        running(&c.problem(&b).expect("b")),
        "the reductions leave b open"
    );
    let cols = Cols::try_from(8u32).expect("width");
    let position = Position::from_rows(&rows, Some(cols), Side::Breaker).expect("rows");
    let Outcome::Solved(value) = seven::solve(position, &[], &Limits::default(), false).outcome
    else {
        panic!("n = 8 is solved");
    };
    let mut game = SevenGame::new(position, Rules::new(cols, &[])).expect("game");
    assert_eq!(game.simplify(), None);
    let a_root = lease_from(&c, "w", 2, "")
        .into_iter()
        .find(|j| j.problem_id == a)
        .expect("a's root");
    let mut r = run_job(&a_root, &JobContext::new(64, 1), Arc::default()).expect("runs");
    r.worker = "w".into();
    let wider = ["...M.....", ".........", ".........", "........."];
    let wider = Position::from_rows(&wider, None, Side::Breaker).expect("rows");
    let wider = SevenGame::new(wider, Rules::new(wider.cols(), &[])).expect("game");
    let fact = |game: &SevenGame, maker_wins| v1::SolvedPosition {
        position: solver_proto::convert::seven::pack_key(&game.key()),
        maker_wins,
    };
    let maker_wins = value == Value::Proven;
    r.solved.splice(
        0..0,
        [
            fact(&wider, !maker_wins),
            fact(&game, maker_wins),
            fact(&game, !maker_wins),
        ],
    );
    let progress = c.problem(&b).expect("b").progress.expect("progress");
    assert_eq!(progress.dag_nodes, 1, "b's DAG is the root alone");
    assert!(r.solved.len() > 1, "more facts than b's DAG has nodes");
    c.report(r).expect("report");
    let progress = c.problem(&b).expect("b").progress.expect("progress");
    let solved = if value == Value::Proven {
        progress.root_pn
    } else {
        progress.root_dn
    };
    assert_eq!(solved, 0, "b's root has the value {value:?}: {progress:?}");
}

/// The server searches those moves by itself and the result follows.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_server_names_winning_moves_in_the_background() {
    let (store, moves) = store_knowing_the_root_alone();
    let (addr, stop, server) = serve_on(store as Arc<dyn Store>).await;
    let mut s = SolverClient::new(channel(addr).await);
    let id = submit(&mut s, empty_spec(8, true, 2_000)).await;
    let deadline = Instant::now() + Duration::from_secs(60);
    let p = loop {
        let p = get(&mut s, &id).await;
        if !running(&p) || Instant::now() > deadline {
            break p;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    assert_eq!(winner(&p), v1::Winner::Maker);
    let named = &p.result.expect("result").winning_moves;
    assert!(!named.is_empty() && named.iter().all(|m| moves.contains(m)));
    let _ = stop.send(());
    server.await.expect("server task").expect("server");
}

/// The number of stones on a job's leaf.
fn stones(job: &v1::Job) -> usize {
    let pos = solver_proto::convert::seven::unpack(&job.position, "position").expect("a position");
    pos.rows().concat().chars().filter(|&c| c != '.').count()
}

/// A searcher is leased its own leaves before the leaves another searcher's reports created
/// only while that other is there: once it has not been seen for a lease's length (a worker
/// killed), its leaves are anyone's again, the most-proving one first.
#[tokio::test(start_paused = true)]
async fn a_gone_searchers_leaves_are_anyones() {
    // Jobs smaller than a problem may ask for (the library's default, which no flag checks),
    // so that b's own leaves soon look harder than a's.
    let config = CoordinatorConfig {
        lease: Duration::from_secs(2),
        default_job_budget: 200,
        ..Default::default()
    };
    let c = Coordinator::open(Arc::new(MemStore::new()), config).expect("open");
    submit_to(&c, 9, 0);
    let (ctx_a, ctx_b) = (JobContext::new(64, 1), JobContext::new(64, 1));
    let run = |worker: &str, ctx: &JobContext| {
        let job = lease_from(&c, worker, 1, "").remove(0);
        let mut r = run_job(&job, ctx, Arc::default()).expect("runs");
        r.worker = worker.into();
        c.report(r).expect("report");
        stones(&job)
    };
    // a's report of the root creates the root's children (one stone) and more.
    assert_eq!(run("a", &ctx_a), 0, "the root");
    // While a is there (time stands still), b is leased a's best leaf once, having none of
    // its own, then its own leaves below it, never a's children of the root.
    let there: Vec<usize> = (0..7).map(|_| run("b", &ctx_b)).collect();
    assert!(!there.contains(&1), "{there:?}");
    // a gone: the most-proving leaf is leased whoever created it, a's children of the root
    // among them.
    tokio::time::advance(Duration::from_secs(3)).await;
    let gone: Vec<usize> = (0..6).map(|_| run("b", &ctx_b)).collect();
    assert!(gone.contains(&1), "{there:?} then {gone:?}");
}

/// A report that reaches a restarted coordinator, which no longer knows the job's lease,
/// still settles the leaf it solved: the worker lists a solved leaf among its solved
/// positions, which any report's are used for.
#[tokio::test]
async fn a_report_after_a_restart_still_settles_the_leaf_it_solved() {
    let store: Arc<dyn Store> = Arc::new(MemStore::new());
    let c = Coordinator::open(Arc::clone(&store), CoordinatorConfig::default()).expect("open");
    // The root's job has the whole default budget: n = 7 is solved in it.
    let id = submit_to(&c, 7, 0);
    let job = lease_from(&c, "w", 1, "").remove(0);
    let mut r = run_job(&job, &JobContext::new(64, 1), Arc::default()).expect("runs");
    assert_eq!(r.maker_wins, Some(true), "(4, 7, 7^tr), Maker first");
    r.worker = "w".into();
    drop(c);
    let c = Coordinator::open(store, CoordinatorConfig::default()).expect("reopen");
    assert_eq!(
        c.problem(&id).expect("problem").status,
        v1::ProblemStatus::Running as i32
    );
    let applied = c.report(r).expect("report").applied;
    assert!(!applied, "the lease was lost in the restart");
    let p = c.problem(&id).expect("problem");
    assert_eq!(winner(&p), v1::Winner::Maker);
}
