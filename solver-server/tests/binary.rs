//! Tests of the real `solver-server` binary: it prints its bound address, answers a health
//! check over gRPC, and exits 0 on SIGTERM with its data directory intact.

use std::io::{BufRead, BufReader};
use std::net::SocketAddr;
use std::path::Path;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use solver_server::store::{ColumnFamily, RocksStore, Store};
use tonic::transport::Endpoint;
use tonic_health::pb::HealthCheckRequest;
use tonic_health::pb::health_check_response::ServingStatus;
use tonic_health::pb::health_client::HealthClient;

/// The child server; killed and reaped on drop so a failing test never leaks a process.
struct Server {
    child: Child,
    /// Lines of the child's stderr, read by a thread that drains the pipe until it closes.
    lines: mpsc::Receiver<String>,
    /// Every line seen so far, for failure messages.
    seen: Vec<String>,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Server {
    fn start(args: &[&str], data_dir: &Path) -> Server {
        let mut child = Command::new(env!("CARGO_BIN_EXE_solver-server"))
            .args(args)
            .arg("--data-dir")
            .arg(data_dir)
            .env("RUST_LOG", "info")
            .env_remove("SOLVER_ADDR")
            .env_remove("SOLVER_LOG_FORMAT")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn solver-server");
        let stderr = child.stderr.take().expect("piped stderr");
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        Server {
            child,
            lines,
            seen: Vec::new(),
        }
    }

    /// Reads stderr until a line contains `needle`; returns that line.
    fn wait_for_line(&mut self, needle: &str, timeout: Duration) -> String {
        let deadline = Instant::now() + timeout;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(line) => {
                    self.seen.push(line.clone());
                    if line.contains(needle) {
                        return line;
                    }
                }
                Err(e) => panic!(
                    "no line with {needle:?} ({e}); stderr so far: {:#?}",
                    self.seen
                ),
            }
        }
    }

    /// The address from the "listening on ADDR" line.
    fn listening_addr(&mut self) -> SocketAddr {
        let line = self.wait_for_line("listening on ", Duration::from_secs(60));
        let rest =
            &line[line.find("listening on ").expect("found above") + "listening on ".len()..];
        let token = rest.split_whitespace().next().expect("an address follows");
        token
            .parse()
            .unwrap_or_else(|e| panic!("bad address in {line:?}: {e}"))
    }

    /// Sends `signal` (`TERM`, `INT`) with the shell's `kill` builtin: no `unsafe`, and `sh`
    /// is on every machine that runs these tests.
    fn signal(&self, signal: &str) {
        let status = Command::new("sh")
            .arg("-c")
            .arg(format!("kill -{signal} {}", self.child.id()))
            .status()
            .expect("run sh");
        assert!(status.success(), "kill -{signal} failed: {status}");
    }

    fn wait_exit(&mut self, timeout: Duration) -> ExitStatus {
        let deadline = Instant::now() + timeout;
        loop {
            if let Some(status) = self.child.try_wait().expect("try_wait") {
                // Collect the rest of stderr for messages.
                while let Ok(line) = self.lines.recv_timeout(Duration::from_secs(1)) {
                    self.seen.push(line);
                }
                return status;
            }
            assert!(
                Instant::now() < deadline,
                "no exit; stderr: {:#?}",
                self.seen
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

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
    let mut server = Server::start(&["--addr", "127.0.0.1:0"], &data_dir);
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

#[test]
fn binary_rejects_a_bad_address() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut server = Server::start(&["--addr", "not-an-address"], dir.path());
    let status = server.wait_exit(Duration::from_secs(30));
    assert!(!status.success());
    assert!(
        server.seen.iter().any(|l| l.contains("--addr")),
        "{:#?}",
        server.seen
    );
}

#[test]
fn binary_fails_on_a_data_directory_in_use() {
    let dir = tempfile::tempdir().expect("tempdir");
    let _held = RocksStore::open(dir.path()).expect("open");
    let mut server = Server::start(&["--addr", "127.0.0.1:0"], dir.path());
    let status = server.wait_exit(Duration::from_secs(60));
    assert!(!status.success());
    assert!(
        server.seen.iter().any(|l| l.contains("data directory")),
        "{:#?}",
        server.seen
    );
}
