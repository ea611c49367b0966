//! Tests of the real `solver-server` binary: it prints its bound address, answers a health
//! check over gRPC, and exits 0 on SIGTERM with its data directory intact.

use std::net::SocketAddr;
use std::time::Duration;

mod common;
use common::Proc;
use solver_server::store::{ColumnFamily, RocksStore, Store};
use tonic::transport::Endpoint;
use tonic_health::pb::HealthCheckRequest;
use tonic_health::pb::health_check_response::ServingStatus;
use tonic_health::pb::health_client::HealthClient;

/// Asks `addr` for the server's health over gRPC, on a runtime of its own that is gone (with
/// its connection) when this returns, so the server's drain does not wait for a client that
/// cannot answer.
fn health_check(addr: SocketAddr) -> i32 {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    rt.block_on(async {
        let channel = Endpoint::from_shared(format!("http://{addr}"))
            .expect("valid URI")
            .connect_timeout(Duration::from_secs(10))
            .connect()
            .await
            .expect("connect");
        HealthClient::new(channel)
            .check(HealthCheckRequest {
                service: String::new(),
            })
            .await
            .expect("health check")
            .into_inner()
            .status
    })
}

#[test]
fn binary_serves_health_and_stops_on_sigterm() {
    let dir = tempfile::tempdir().expect("tempdir");
    let data_dir = dir.path().join("data");
    let mut server = Proc::server(&["--addr", "127.0.0.1:0"], &data_dir);
    let addr = server.listening_addr();
    assert_ne!(addr.port(), 0);

    assert_eq!(health_check(addr), ServingStatus::Serving as i32);

    server.signal("TERM");
    let status = server.wait_exit(Duration::from_secs(30));
    assert!(status.success(), "{status}; stderr: {:#?}", server.seen);
    assert!(
        server.seen.iter().any(|l| l.contains("stopped")),
        "{:#?}",
        server.seen
    );

    let store = RocksStore::open(&data_dir).expect("data directory intact");
    assert!(
        store
            .get(ColumnFamily::Meta, b"schema_version")
            .expect("get")
            .is_some()
    );
}

/// A second SIGTERM while the server drains exits at once, with code 1: here an open health
/// watch stream would hold the drain for its whole timeout (60 s, longer than the wait below).
#[test]
fn binary_exits_at_once_on_a_second_signal() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut server = Proc::server(
        &["--addr", "127.0.0.1:0", "--drain-timeout-secs", "60"],
        &dir.path().join("data"),
    );
    let addr = server.listening_addr();
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let watch = rt.block_on(async {
        let mut watch = HealthClient::new(common::channel(addr).await)
            .watch(HealthCheckRequest::default())
            .await
            .expect("watch")
            .into_inner();
        watch.message().await.expect("a status").expect("open");
        watch
    });
    server.signal("TERM");
    server.wait_for_line("shutting down", Duration::from_secs(30));
    server.signal("TERM");
    let status = server.wait_exit(Duration::from_secs(30));
    assert_eq!(status.code(), Some(1), "{:#?}", server.seen);
    assert!(
        server.seen.iter().any(|l| l.contains("exiting at once")),
        "{:#?}",
        server.seen
    );
    drop(watch);
}

#[test]
fn binary_rejects_a_bad_address() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut server = Proc::server(&["--addr", "not-an-address"], dir.path());
    let status = server.wait_exit(Duration::from_secs(30));
    assert!(!status.success());
    assert!(
        server.seen.iter().any(|l| l.contains("--addr")),
        "{:#?}",
        server.seen
    );
}

/// `--metrics-addr` serves the Prometheus text format on `/metrics`: after a submit and a
/// lease, the problem and job series the README lists carry them.
#[test]
fn binary_serves_metrics() {
    let dir = tempfile::tempdir().expect("tempdir");
    // A port free a moment ago (the exporter does not say which port 0 gave it); if something
    // took it meanwhile, the start fails naming it, and the test tries another.
    let (mut server, addr, metrics_addr) = (0..5)
        .find_map(|_| {
            let metrics_addr = std::net::TcpListener::bind("127.0.0.1:0")
                .and_then(|l| l.local_addr())
                .expect("a free port");
            let mut server = Proc::server(
                &[
                    "--addr",
                    "127.0.0.1:0",
                    "--metrics-addr",
                    &metrics_addr.to_string(),
                ],
                &dir.path().join("data"),
            );
            let line = server.wait_for_any(
                &["listening on ", "cannot serve metrics"],
                Duration::from_secs(60),
            );
            if line.contains("cannot serve metrics") {
                server.wait_exit(Duration::from_secs(30));
                return None;
            }
            Some((server, common::address_in(&line), metrics_addr))
        })
        .expect("a free port for the metrics in five tries");
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    rt.block_on(async {
        use solver_proto::v1::{self, solver_client::SolverClient, work_client::WorkClient};
        let ch = common::channel(addr).await;
        SolverClient::new(ch.clone())
            .submit(v1::SubmitRequest {
                request_id: String::new(),
                spec: Some(v1::ProblemSpec {
                    position: Some(v1::SevenPosition {
                        cols: 12,
                        rows: vec![".".repeat(12); 4],
                        to_move: v1::Side::Maker as i32,
                    }),
                    ..Default::default()
                }),
            })
            .await
            .expect("submit");
        let jobs = common::lease(&mut WorkClient::new(ch), "w", 1).await;
        assert_eq!(jobs.len(), 1);
    });
    drop(rt);
    let text = scrape(metrics_addr);
    let value = |series: &str| -> f64 {
        text.lines()
            .find(|l| l.split_whitespace().next() == Some(series))
            .and_then(|l| l.split_whitespace().last())
            .and_then(|v| v.parse().ok())
            .unwrap_or_else(|| panic!("no {series} in {text}"))
    };
    assert_eq!(value("solver_problems_submitted_total"), 1.0, "{text}");
    assert_eq!(value("solver_jobs_leased_total"), 1.0, "{text}");
    assert_eq!(value("solver_jobs_in_flight"), 1.0, "{text}");
    server.signal("TERM");
    assert!(server.wait_exit(Duration::from_secs(30)).success());
}

/// The body of `GET /metrics` on `addr` (HTTP/1.0, so the exporter closes the connection
/// after it).
fn scrape(addr: SocketAddr) -> String {
    use std::io::{Read, Write};
    let mut stream = std::net::TcpStream::connect(addr).expect("connect to the metrics port");
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .expect("timeout");
    stream
        .write_all(b"GET /metrics HTTP/1.0\r\nHost: localhost\r\n\r\n")
        .expect("request");
    let mut response = String::new();
    stream.read_to_string(&mut response).expect("response");
    assert!(
        response.starts_with("HTTP/1.") && response.contains(" 200 "),
        "{response}"
    );
    response
        .split_once("\r\n\r\n")
        .map(|(_, body)| body.to_string())
        .unwrap_or_default()
}

/// A `--metrics-addr` that cannot listen (its port taken) stops the start with one line naming
/// the flag, instead of a server without the metrics it was asked for.
#[test]
fn binary_fails_on_a_metrics_port_in_use() {
    let dir = tempfile::tempdir().expect("tempdir");
    let taken = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let port = taken.local_addr().expect("addr").to_string();
    let mut server = Proc::server(
        &["--addr", "127.0.0.1:0", "--metrics-addr", &port],
        &dir.path().join("data"),
    );
    let status = server.wait_exit(Duration::from_secs(60));
    assert_eq!(status.code(), Some(1), "{:#?}", server.seen);
    let error = the_start_failure(&server.seen);
    assert!(
        error.contains(&format!("--metrics-addr {port}: cannot serve metrics")),
        "{:#?}",
        server.seen
    );
}

#[test]
fn binary_fails_on_a_data_directory_in_use() {
    let dir = tempfile::tempdir().expect("tempdir");
    let _held = RocksStore::open(dir.path()).expect("open");
    let mut server = Proc::server(&["--addr", "127.0.0.1:0"], dir.path());
    let status = server.wait_exit(Duration::from_secs(60));
    assert!(!status.success());
    let error = the_start_failure(&server.seen);
    assert!(
        error.starts_with("error: server failed: cannot open the data directory"),
        "{:#?}",
        server.seen
    );
}

/// The one `error: ` line of a server that failed to start (`seen`, its stderr), which never
/// said it was listening.
fn the_start_failure(seen: &[String]) -> &str {
    let errors: Vec<&String> = seen.iter().filter(|l| l.starts_with("error: ")).collect();
    assert!(
        errors.len() == 1 && !seen.iter().any(|l| l.contains("listening on")),
        "{seen:#?}"
    );
    errors[0]
}

/// `--check-config` (deploy/check's test of the deployment files): the flags and the
/// environment are parsed as a start parses them, and nothing starts.
#[test]
fn check_config_parses_flags_and_environment_without_starting() {
    let dir = tempfile::tempdir().expect("tempdir");
    let data_dir = dir.path().join("data");
    let check = |args: &[&str], env: &[(&str, &str)]| {
        std::process::Command::new(env!("CARGO_BIN_EXE_solver-server"))
            .arg("--check-config")
            .args(["--addr", "127.0.0.1:0", "--data-dir"])
            .arg(&data_dir)
            .args(args)
            .env_remove("SOLVER_LEASE_MS")
            .env_remove("SOLVER_JOB_DEADLINE_MS")
            .env_remove("SOLVER_WORKER_TOKEN")
            .env_remove("SOLVER_CLIENT_TOKEN")
            .env_remove("SOLVER_TLS_CERT")
            .env_remove("SOLVER_TLS_KEY")
            .envs(env.iter().copied())
            .output()
            .expect("run solver-server")
    };
    let out = check(&["--log-format", "json"], &[("SOLVER_LEASE_MS", "5000")]);
    assert!(out.status.success(), "{out:?}");
    assert_eq!(String::from_utf8_lossy(&out.stdout), "configuration ok\n");
    assert!(!data_dir.exists(), "the data directory is not opened");
    // A bad value from the environment, and an option without the one it needs.
    let out = check(&[], &[("SOLVER_LEASE_MS", "5")]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.code() == Some(2) && err.contains("--lease-ms"),
        "{err}"
    );
    for ms in ["86400001", "999", "1s"] {
        let out = check(&["--job-deadline-ms", ms], &[]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            out.status.code() == Some(2) && err.contains("--job-deadline-ms"),
            "{ms}: {err}"
        );
    }
    let out = check(&["--job-deadline-ms", "0"], &[]);
    assert!(out.status.success(), "{out:?}");
    let out = check(&["--tls-cert", "cert.pem"], &[]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.code() == Some(2) && err.contains("--tls-key"),
        "{err}"
    );
    // A token outside the rule (auth::check_token): named, and not printed (a secret).
    for (args, env, flag) in [
        (
            &["--worker-token", "s\u{e9}same"][..],
            &[][..],
            "--worker-token",
        ),
        (
            &[],
            &[("SOLVER_CLIENT_TOKEN", "open sesame")][..],
            "--client-token",
        ),
        (&["--client-token", "--s\u{e9}same"], &[], "--client-token"),
    ] {
        let out = check(args, env);
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            out.status.code() == Some(2) && err.contains(flag) && !err.contains("same"),
            "{err}"
        );
    }

    // The worker's: its --server URL against --tls-ca and its table size too, as a start
    // checks them (exit 2, naming the flag), without reading the CA file or connecting.
    let worker = |args: &[&str]| {
        std::process::Command::new(common::workspace_bin("solver-worker"))
            .arg("--check-config")
            .args(args)
            .env_remove("SOLVER_SERVER")
            .env_remove("SOLVER_TLS_CA")
            .env_remove("SOLVER_TABLE_MB")
            .env_remove("SOLVER_WORKER_TOKEN")
            .env_remove("SOLVER_JOBS")
            .env_remove("SOLVER_TLS_DOMAIN")
            .env_remove("SOLVER_WORKER_NAME")
            .output()
            .expect("run solver-worker")
    };
    let out = worker(&[
        "--server",
        "https://coordinator:50051",
        "--tls-ca",
        "absent.pem",
    ]);
    assert!(out.status.success(), "{out:?}");
    assert_eq!(String::from_utf8_lossy(&out.stdout), "configuration ok\n");
    for (args, names) in [
        (&["--server", "https://coordinator:50051"][..], "--tls-ca"),
        (
            &["--server", "http://c:1", "--tls-ca", "ca.pem"],
            "--tls-ca",
        ),
        (&["--server", "coordinator"], "--server"),
        (&["--table-mb", "0"], "--table-mb"),
        (&["--token", "s\u{e9}same"], "--token"),
        // The coordinator's rule for a worker name (work::check_name), checked before a start.
        (&["--name", ""], "--name"),
        (&["--name", "tab\there"], "--name"),
        // A domain to verify without TLS to verify it with.
        (&["--server", "http://c:1", "--tls-domain", "c"], "--tls-ca"),
    ] {
        let out = worker(args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            out.status.code() == Some(2) && err.contains(names) && !err.contains("same"),
            "{args:?}: {err}"
        );
    }
    // A token may start with '-' (base64url), and is taken as the flag's value.
    let out = worker(&["--server", "http://c:1", "--token", "-s3cr3t"]);
    assert!(out.status.success(), "{out:?}");
}
