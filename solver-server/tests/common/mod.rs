//! Helpers shared by the server's integration tests: an in-process server on `127.0.0.1:0`
//! ([`TestServer`]) and child processes of the workspace's binaries ([`Proc`]), both stopped
//! (and reaped) when dropped, also when a test fails.
#![allow(dead_code)]

use std::io::{BufRead, BufReader};
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use solver_server::config::Config;
use solver_server::server::{RunError, run};
use tokio::net::TcpListener;
use tokio::sync::oneshot;
use tokio::task::JoinHandle;
use tonic::transport::{Channel, Endpoint};

/// A server running in this process, stopped by dropping or firing `stop`.
pub struct TestServer {
    pub addr: SocketAddr,
    pub data_dir: std::path::PathBuf,
    pub stop: oneshot::Sender<()>,
    pub task: JoinHandle<Result<(), RunError>>,
    pub _dir: tempfile::TempDir,
}

pub async fn start() -> TestServer {
    start_with(|_| {}).await
}

/// Starts a server after `adjust` has changed its configuration.
pub async fn start_with(adjust: impl FnOnce(&mut Config)) -> TestServer {
    let dir = tempfile::tempdir().expect("tempdir");
    let data_dir = dir.path().join("data");
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let addr = listener.local_addr().expect("local addr");
    let (stop, stopped) = oneshot::channel::<()>();
    let mut config = Config::new(addr, &data_dir);
    adjust(&mut config);
    let task = tokio::spawn(run(config, listener, async move {
        let _ = stopped.await;
    }));
    TestServer {
        addr,
        data_dir,
        stop,
        task,
        _dir: dir,
    }
}

/// `Work.Lease` of up to `max_jobs` jobs for `worker` (slot 0); panics on an error status.
pub async fn lease(
    w: &mut solver_proto::v1::work_client::WorkClient<Channel>,
    worker: &str,
    max_jobs: u32,
) -> Vec<solver_proto::v1::Job> {
    w.lease(solver_proto::v1::LeaseRequest {
        worker: worker.into(),
        max_jobs,
        ..Default::default()
    })
    .await
    .expect("lease")
    .into_inner()
    .jobs
}

pub async fn channel(addr: SocketAddr) -> Channel {
    Endpoint::from_shared(format!("http://{addr}"))
        .expect("valid URI")
        .connect_timeout(Duration::from_secs(10))
        .connect()
        .await
        .expect("connect")
}

/// A child process of one of the workspace's binaries; killed and reaped on drop so a failing
/// test never leaks a process.
pub struct Proc {
    /// The process.
    pub child: Child,
    /// Lines of the child's stderr, read by a thread that drains the pipe until it closes.
    pub lines: mpsc::Receiver<String>,
    /// Every line seen so far, for failure messages.
    pub seen: Vec<String>,
}

impl Drop for Proc {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Proc {
    /// Starts `solver-server` with `args` on `data_dir`.
    pub fn server(args: &[&str], data_dir: &Path) -> Proc {
        let mut all: Vec<std::ffi::OsString> = args.iter().map(Into::into).collect();
        all.push("--data-dir".into());
        all.push(data_dir.into());
        Proc::start(Path::new(env!("CARGO_BIN_EXE_solver-server")), &all)
    }

    /// Starts `program` with `args`, logging at info level to a piped stderr.
    pub fn start(program: &Path, args: &[std::ffi::OsString]) -> Proc {
        let mut child = Command::new(program)
            .args(args)
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
        Proc {
            child,
            lines,
            seen: Vec::new(),
        }
    }

    /// Reads stderr until a line contains `needle`; returns that line.
    pub fn wait_for_line(&mut self, needle: &str, timeout: Duration) -> String {
        self.wait_for_any(&[needle], timeout)
    }

    /// Reads stderr until a line contains one of `needles`; returns that line.
    pub fn wait_for_any(&mut self, needles: &[&str], timeout: Duration) -> String {
        let deadline = Instant::now() + timeout;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(line) => {
                    self.seen.push(line.clone());
                    if needles.iter().any(|n| line.contains(n)) {
                        return line;
                    }
                }
                Err(e) => panic!(
                    "no line with any of {needles:?} ({e}); stderr so far: {:#?}",
                    self.seen
                ),
            }
        }
    }

    /// The address from the "listening on ADDR" line.
    pub fn listening_addr(&mut self) -> SocketAddr {
        let line = self.wait_for_line("listening on ", Duration::from_secs(60));
        address_in(&line)
    }

    /// Sends `signal` (`TERM`, `INT`) with the shell's `kill` builtin: no `unsafe`, and `sh`
    /// is on every machine that runs these tests.
    pub fn signal(&self, signal: &str) {
        let status = Command::new("sh")
            .arg("-c")
            .arg(format!("kill -{signal} {}", self.child.id()))
            .status()
            .expect("run sh");
        assert!(status.success(), "kill -{signal} failed: {status}");
    }

    pub fn wait_exit(&mut self, timeout: Duration) -> ExitStatus {
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

/// The address after "listening on " in a server's log line.
pub fn address_in(line: &str) -> SocketAddr {
    let rest =
        &line[line.find("listening on ").expect("a listening line") + "listening on ".len()..];
    let token = rest.split_whitespace().next().expect("an address follows");
    token
        .parse()
        .unwrap_or_else(|e| panic!("bad address in {line:?}: {e}"))
}

/// The path of a binary of this workspace (built by `cargo build --workspace --all-targets`),
/// found next to the test executable (`target/<profile>/deps/..`).
pub fn workspace_bin(name: &str) -> PathBuf {
    let exe = std::env::current_exe().expect("the test's path");
    let dir = exe
        .parent()
        .and_then(Path::parent)
        .expect("tests run from target/<profile>/deps");
    let path = dir.join(name);
    assert!(
        path.exists(),
        "{} is missing: build every target first (cargo build --workspace --all-targets; scripts/dev test does)",
        path.display()
    );
    path
}
