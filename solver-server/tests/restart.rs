//! Crash safety: the `solver-server` binary is killed with SIGKILL in the middle of a solve,
//! restarted on the same data directory, and finishes with the same verdict; its progress
//! shows that the DAG was kept (the node count is not reset).

mod common;

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};

use common::{Proc, channel, lease};
use solver_proto::v1::{self, solver_client::SolverClient, work_client::WorkClient};
use solver_worker::job::{JobContext, run_job};
use tonic::transport::Channel;

async fn connect(addr: SocketAddr) -> (SolverClient<Channel>, WorkClient<Channel>) {
    let ch = channel(addr).await;
    (SolverClient::new(ch.clone()), WorkClient::new(ch))
}

async fn problem(s: &mut SolverClient<Channel>, id: &str) -> v1::Problem {
    s.get_problem(v1::GetProblemRequest {
        problem_id: id.into(),
    })
    .await
    .expect("get")
    .into_inner()
}

/// Runs up to `jobs` jobs (or until the problem is finished); returns whether it finished. Each
/// job runs in a fresh worker context (no search kept from the previous job), so that the
/// solve takes many jobs.
async fn work(
    s: &mut SolverClient<Channel>,
    w: &mut WorkClient<Channel>,
    id: &str,
    jobs: usize,
) -> bool {
    let mut done = 0;
    let deadline = Instant::now() + Duration::from_secs(120);
    while done < jobs {
        if problem(s, id).await.status != v1::ProblemStatus::Running as i32 {
            return true;
        }
        assert!(Instant::now() < deadline, "not solved in time");
        let leased = lease(w, "w", 2).await;
        if leased.is_empty() {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        for job in leased {
            let mut r = run_job(&job, &JobContext::new(64, 1), Arc::default()).expect("runs");
            r.worker = "w".into();
            w.report(r).await.expect("report");
            done += 1;
        }
    }
    problem(s, id).await.status != v1::ProblemStatus::Running as i32
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigkill_mid_solve_then_restart_finishes_with_the_same_verdict() {
    let dir = tempfile::tempdir().expect("tempdir");
    let data = dir.path().join("data");
    let args = ["--addr", "127.0.0.1:0", "--lease-ms", "2000"];
    let mut server = Proc::server(&args, &data);
    let (mut s, mut w) = connect(server.listening_addr()).await;
    let id = s
        .submit(v1::SubmitRequest {
            request_id: "restart".into(),
            spec: Some(v1::ProblemSpec {
                position: Some(v1::SevenPosition {
                    cols: 10,
                    rows: vec!["..........".into(); 4],
                    to_move: v1::Side::Maker as i32,
                }),
                disabled_techniques: vec![],
                job_node_budget: 1_000,
            }),
        })
        .await
        .expect("submit")
        .into_inner()
        .problem_id;
    let ctx = JobContext::new(64, 1);
    assert!(
        !work(&mut s, &mut w, &id, 6).await,
        "still running after 6 jobs"
    );
    // One more lease, never reported: the crash loses it, the restart re-leases its leaf.
    let lost = lease(&mut w, "w", 1).await;
    assert_eq!(lost.len(), 1);
    let before = problem(&mut s, &id).await.progress.expect("progress");
    assert!(before.dag_nodes > 1);
    server.signal("KILL");
    server.wait_exit(Duration::from_secs(10));
    drop(server);

    let mut server = Proc::server(&args, &data);
    let (mut s, mut w) = connect(server.listening_addr()).await;
    let after = problem(&mut s, &id).await;
    assert_eq!(after.status, v1::ProblemStatus::Running as i32);
    let progress = after.progress.expect("progress");
    assert_eq!(progress.dag_nodes, before.dag_nodes, "the DAG was kept");
    assert_eq!(progress.jobs_done, before.jobs_done);
    assert_eq!(
        (progress.root_pn, progress.root_dn),
        (before.root_pn, before.root_dn)
    );
    assert_eq!(
        progress.jobs_in_flight, 0,
        "leases do not survive a restart"
    );
    // The same request id still names the problem.
    let again = s
        .submit(v1::SubmitRequest {
            request_id: "restart".into(),
            spec: after.spec.clone(),
        })
        .await
        .expect("resubmit")
        .into_inner();
    assert_eq!(
        (again.problem_id.as_str(), again.created),
        (id.as_str(), false)
    );
    // Job ids are not reused after the restart.
    let next = lease(&mut w, "w", 1).await;
    let (old, new): (u64, u64) = (
        lost[0].job_id.parse().expect("id"),
        next[0].job_id.parse().expect("id"),
    );
    assert!(new > old, "job ids go on: {new} after {old}");
    // The lost lease's late report is stale but its facts count; then finish.
    let mut r = run_job(&lost[0], &ctx, Arc::default()).expect("runs");
    r.worker = "w".into();
    assert!(
        !w.report(r)
            .await
            .expect("stale report")
            .into_inner()
            .applied
    );
    let mut r = run_job(&next[0], &ctx, Arc::default()).expect("runs");
    r.worker = "w".into();
    w.report(r).await.expect("report");
    assert!(work(&mut s, &mut w, &id, usize::MAX).await);
    let p = problem(&mut s, &id).await;
    let result = p.result.expect("result");
    assert_eq!(result.winner, v1::Winner::Maker as i32);
    assert!(result.progress.expect("progress").dag_nodes >= before.dag_nodes);
    server.signal("TERM");
    assert!(server.wait_exit(Duration::from_secs(20)).success());
}
