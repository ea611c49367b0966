//! Benchmark of the coordinator alone: synthetic workers on loopback whose jobs take no time
//! lease a leaf and report three children at once, over and over, against a real server
//! (RocksDB in a temporary directory) on an undecidable-in-the-run (4, 32, 7^tr) board.
//!
//! Prints leases+reports per second, and as the baseline measured in the same run the rate of
//! gRPC health checks over the same connections (the transport's cost alone). Target: at
//! least 5,000 leases+reports per second, so that one coordinator feeds a thousand workers whose
//! jobs take a second.
//!
//! `cargo bench -p solver-server --bench coordinator` (seconds per phase: `BENCH_SECS`,
//! default 5; synthetic workers: `BENCH_WORKERS`, default 8).

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use solver_core::games::seven::board::cells_of;
use solver_proto::convert::seven::{pack, unpack};
use solver_proto::v1::{self, solver_client::SolverClient, work_client::WorkClient};
use solver_server::config::Config;
use tonic::transport::{Channel, Endpoint};
use tonic_health::pb::HealthCheckRequest;
use tonic_health::pb::health_client::HealthClient;

fn env(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// Three children of a leaf: the first three empty cells played, numbers from the cells.
fn synthetic_report(worker: &str, job: &v1::Job) -> v1::ReportRequest {
    let pos = unpack(&job.position, "position").expect("the server sends valid positions");
    let children = cells_of(pos.empty_cells())
        .take(3)
        .map(|c| {
            let child = pos.play(c).expect("an empty cell");
            v1::ChildEstimate {
                position: pack(&child),
                pn: 1 + u64::from(c.0 % 7),
                dn: 1 + u64::from(c.0 % 5),
            }
        })
        .collect();
    v1::ReportRequest {
        worker: worker.into(),
        job_id: job.job_id.clone(),
        children,
        nodes: 1,
        ..Default::default()
    }
}

async fn run_phase<F, Fut>(workers: u64, secs: u64, channels: &[Channel], op: F) -> f64
where
    F: Fn(Channel, String, Arc<AtomicU64>, Instant) -> Fut + Clone + Send + 'static,
    Fut: std::future::Future<Output = ()> + Send + 'static,
{
    let count = Arc::new(AtomicU64::new(0));
    let end = Instant::now() + Duration::from_secs(secs);
    let start = Instant::now();
    let mut tasks = Vec::new();
    for i in 0..workers {
        let ch = channels[i as usize % channels.len()].clone();
        let (op, count) = (op.clone(), Arc::clone(&count));
        tasks.push(tokio::spawn(op(ch, format!("bench-{i}"), count, end)));
    }
    for t in tasks {
        t.await.expect("bench task");
    }
    count.load(Ordering::Relaxed) as f64 / start.elapsed().as_secs_f64()
}

#[tokio::main]
async fn main() {
    let (secs, workers) = (env("BENCH_SECS", 5), env("BENCH_WORKERS", 8));
    let dir = tempfile::tempdir().expect("tempdir");
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let addr = listener.local_addr().expect("addr");
    let config = Config::new(addr, dir.path().join("data"));
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let server = tokio::spawn(solver_server::server::run(config, listener, async {
        let _ = stopped.await;
    }));
    let mut channels = Vec::new();
    for _ in 0..2 {
        channels.push(
            Endpoint::from_shared(format!("http://{addr}"))
                .expect("uri")
                .connect()
                .await
                .expect("connect"),
        );
    }
    SolverClient::new(channels[0].clone())
        .submit(v1::SubmitRequest {
            request_id: String::new(),
            spec: Some(v1::ProblemSpec {
                position: Some(v1::SevenPosition {
                    cols: 32,
                    rows: vec![".".repeat(32); 4],
                    to_move: v1::Side::Maker as i32,
                }),
                disabled_techniques: vec![],
                job_node_budget: 0,
            }),
        })
        .await
        .expect("submit");

    let health = run_phase(workers, secs, &channels, |ch, _, count, end| async move {
        let mut h = HealthClient::new(ch);
        while Instant::now() < end {
            h.check(HealthCheckRequest::default())
                .await
                .expect("health");
            count.fetch_add(1, Ordering::Relaxed);
        }
    })
    .await;
    let jobs = run_phase(
        workers,
        secs,
        &channels,
        |ch, name, count, end| async move {
            let mut w = WorkClient::new(ch);
            while Instant::now() < end {
                let leased = w
                    .lease(v1::LeaseRequest {
                        worker: name.clone(),
                        max_jobs: 1,
                    })
                    .await
                    .expect("lease")
                    .into_inner();
                count.fetch_add(1, Ordering::Relaxed);
                for job in leased.jobs {
                    w.report(synthetic_report(&name, &job))
                        .await
                        .expect("report");
                    count.fetch_add(1, Ordering::Relaxed);
                }
            }
        },
    )
    .await;
    let p = SolverClient::new(channels[0].clone())
        .get_problem(v1::GetProblemRequest {
            problem_id: "1".into(),
        })
        .await
        .expect("get")
        .into_inner()
        .progress
        .expect("progress");
    println!("coordinator bench: {workers} synthetic workers, {secs} s per phase, RocksDB store");
    println!("  baseline: health checks/s      {health:>10.0}");
    println!(
        "  leases+reports/s               {jobs:>10.0}  ({:.2}x the baseline; target >= 5000)",
        jobs / health
    );
    println!(
        "  DAG after the run: {} nodes, {} jobs reported",
        p.dag_nodes, p.jobs_done
    );
    let _ = stop.send(());
    server.await.expect("join").expect("server stops");
}
