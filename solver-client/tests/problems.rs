//! The distributed `solver` commands, run as a user runs them: the embedded solve (coordinator
//! and workers inside the `solver` process, RocksDB in a temporary data directory), and
//! submit / watch / status / result / list / cancel against a real `solver-server` with a real
//! `solver-worker`; and the win queries (`hex`, `renju`, `havannah`) answered by the server's
//! `Rules` with `--server` exactly as in-process.

mod common;

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use common::{json_lines, solver, stdout, testdata};

/// A binary of this workspace next to this test's directory (`target/<profile>/`).
fn workspace_bin(name: &str) -> PathBuf {
    let exe = std::env::current_exe().expect("the test's path");
    let path = exe
        .parent()
        .and_then(Path::parent)
        .expect("tests run from target/<profile>/deps")
        .join(name);
    assert!(
        path.exists(),
        "{} is missing: build every target first (cargo build --workspace --all-targets; scripts/dev test does)",
        path.display()
    );
    path
}

/// A child process killed and reaped on drop, also when a test fails.
struct Proc(Child);

impl Drop for Proc {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn signal(child: &Child, sig: &str) {
    let ok = Command::new("sh")
        .arg("-c")
        .arg(format!("kill -{sig} {}", child.id()))
        .status()
        .expect("sh")
        .success();
    assert!(ok, "kill -{sig}");
}

/// Starts `solver-server` on port 0 and returns it with its URL (read from its log).
fn server(data: &Path) -> (Proc, String) {
    let mut child = Command::new(workspace_bin("solver-server"))
        .args(["--addr", "127.0.0.1:0", "--data-dir"])
        .arg(data)
        .env("RUST_LOG", "info")
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn solver-server");
    let mut lines = BufReader::new(child.stderr.take().expect("stderr")).lines();
    let proc = Proc(child);
    let addr = loop {
        let line = lines.next().expect("a log line").expect("utf-8");
        if let Some(rest) = line.split("listening on ").nth(1) {
            break rest
                .split_whitespace()
                .next()
                .expect("an address")
                .to_owned();
        }
    };
    std::thread::spawn(move || for _ in lines {});
    (proc, format!("http://{addr}"))
}

fn worker(url: &str) -> Proc {
    Proc(
        Command::new(workspace_bin("solver-worker"))
            .args(["--server", url, "--jobs", "1", "--table-mb", "128"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn solver-worker"),
    )
}

#[test]
fn embedded_solve_of_n8_prints_the_verdict_and_json_parses() {
    let dir = tempfile::tempdir().expect("tempdir");
    let data = dir.path().join("data");
    let data = data.to_str().expect("utf-8");
    let o = solver(&[
        "seven",
        "solve",
        "--cols",
        "8",
        "--data-dir",
        data,
        "--workers",
        "2",
        "--table-mb",
        "64",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let out = stdout(&o);
    assert!(out.contains("winner:         maker"), "{out}");
    assert!(out.contains("winning moves:"), "{out}");
    assert!(String::from_utf8_lossy(&o.stderr).contains("data directory: "));
    // A rerun finds the same problem, solved, in the same data directory.
    let o = solver(&[
        "seven",
        "solve",
        "--cols",
        "8",
        "--data-dir",
        data,
        "--json",
    ]);
    assert!(o.status.success());
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).expect("JSON");
    assert_eq!(v["winner"], "maker");
    assert_eq!(v["problem_id"], "1", "the rerun is the same problem");
    assert_eq!(v["status"], "solved");
}

/// An embedded coordinator that cannot start says why, not that it cannot be reached.
#[test]
fn an_embedded_solve_whose_coordinator_cannot_start_names_the_cause() {
    let dir = tempfile::tempdir().expect("tempdir");
    let file = dir.path().join("a-file");
    std::fs::write(&file, "").expect("write");
    let o = Command::new(env!("CARGO_BIN_EXE_solver"))
        .args(["seven", "solve", "--cols", "8", "--data-dir"])
        .arg(&file)
        .output()
        .expect("run solver");
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(
        err.contains("error: coordinator: cannot open the data directory"),
        "{err}"
    );
}

#[test]
fn a_bad_board_exits_2_naming_the_problem() {
    // Three rows; then a short first row, named against --cols (the board's width).
    for (board, says) in [
        (
            "......../......../........",
            "a board has 4 rows, this one has 3",
        ),
        (
            "......./......../......../........",
            "row 1 has 7 cells but the board is 8 wide",
        ),
    ] {
        let o = solver(&["seven", "solve", "--cols", "8", "--board", board]);
        assert_eq!(o.status.code(), Some(2));
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(
            err.starts_with("error: --board: ") && err.contains(says) && err.lines().count() == 1,
            "{err}"
        );
    }
    // A finished game (Maker owns the edge a1..g1) is no problem to solve or submit.
    let over = "MMMMMMMB/BBBBBB../......../........";
    for args in [
        &["seven", "solve", "--cols", "8", "--board", over][..],
        &["seven", "solve", "--direct", "--cols", "8", "--board", over],
        &[
            "seven",
            "submit",
            "--cols",
            "8",
            "--board",
            over,
            "--server",
            "http://127.0.0.1:1",
        ],
    ] {
        let o = solver(args);
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(
            o.status.code() == Some(2)
                && err == "error: --board: Maker already owns an edge; the game is over\n",
            "{args:?}: {err}"
        );
    }
    // Nothing was started: no data directory.
    let o = solver(&["status", "x", "--server", "http://127.0.0.1:1"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("cannot connect"));
    // An address that is not a URL is the user's error, named once.
    let o = solver(&["status", "1", "--server", "nonsense"]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.starts_with("error: --server \"nonsense\": not a server URL")
            && err.lines().count() == 1,
        "{err}"
    );
    // Options of the engine alone do not go with a server (they would be ignored).
    for extra in [
        ["--max-nodes", "10"],
        ["--all-moves", "--direct"],
        ["--workers", "2"],
        ["--data-dir", "x"],
        ["--table-mb", "64"],
    ] {
        let mut args = vec![
            "seven",
            "solve",
            "--cols",
            "8",
            "--server",
            "http://127.0.0.1:1",
        ];
        args.extend(extra);
        let o = solver(&args);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        assert!(String::from_utf8_lossy(&o.stderr).contains("cannot be used with"));
    }
    // Nor do the engine's options and a coordinator's.
    let o = solver(&[
        "seven",
        "solve",
        "--cols",
        "8",
        "--direct",
        "--job-budget",
        "5000",
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("cannot be used with"));
    // A job budget the coordinator would refuse is refused before any connection.
    for budget in ["999", "100000001", "many"] {
        let o = solver(&[
            "seven",
            "submit",
            "--cols",
            "8",
            "--job-budget",
            budget,
            "--server",
            "http://127.0.0.1:1",
        ]);
        assert_eq!(o.status.code(), Some(2), "{budget}");
        assert!(
            String::from_utf8_lossy(&o.stderr).contains("--job-budget"),
            "{budget}"
        );
    }
    // So is a table the worker would refuse, before a data directory is made.
    let dir = tempfile::tempdir().expect("tempdir");
    let data = dir.path().join("data");
    for mb in ["63", "16777217", "lots"] {
        let o = solver(&[
            "seven",
            "solve",
            "--cols",
            "8",
            "--table-mb",
            mb,
            "--data-dir",
            data.to_str().expect("utf-8"),
        ]);
        assert_eq!(o.status.code(), Some(2), "{mb}");
        assert!(
            String::from_utf8_lossy(&o.stderr).contains("--table-mb"),
            "{mb}"
        );
        assert!(!data.exists(), "{mb}");
    }
}

#[test]
fn submit_watch_status_result_list_cancel_against_a_server() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (_server, url) = server(&dir.path().join("data"));
    let s = ["--server", url.as_str()];
    let submit = |cols: &str, extra: &[&str]| {
        let mut args = vec!["seven", "submit", "--cols", cols, "--job-budget", "2000"];
        args.extend_from_slice(&s);
        args.extend_from_slice(extra);
        solver(&args)
    };
    let o = submit("9", &[]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let id = stdout(&o).trim().to_owned();
    assert_eq!(id, "1");
    // Nothing works on it yet: it runs.
    let o = solver(&[&["status", &id, "--json"][..], &s].concat());
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).expect("JSON");
    assert_eq!(v["status"], "running");
    let o = solver(&[&["result", &id][..], &s].concat());
    assert_eq!(o.status.code(), Some(1));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.starts_with("error: server: FailedPrecondition: ") && err.lines().count() == 1,
        "{err}"
    );

    let _worker = worker(&url);
    let o = solver(&[&["watch", &id][..], &s].concat());
    assert!(o.status.success());
    assert!(
        stdout(&o).contains("winner:         maker"),
        "{}",
        stdout(&o)
    );
    // As JSON lines: one object per update, the final state once, last.
    let o = solver(&[&["watch", &id, "--json"][..], &s].concat());
    let out = stdout(&o);
    let lines: Vec<serde_json::Value> = out
        .lines()
        .map(|l| serde_json::from_str(l).expect("a JSON line"))
        .collect();
    assert_eq!(lines.last().expect("a line")["status"], "solved", "{out}");
    assert!(lines.windows(2).all(|w| w[0] != w[1]), "{out}");
    let o = solver(&[&["result", &id, "--json"][..], &s].concat());
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).expect("JSON");
    assert_eq!(v["winner"], "maker");
    assert!(v["progress"]["jobs_done"].as_u64().expect("jobs") >= 1);

    // A second problem, cancelled; list shows both, newest first.
    let o = submit("12", &["--json"]);
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).expect("JSON");
    let id2 = v["problem_id"].as_str().expect("id").to_owned();
    let o = solver(&[&["cancel", &id2][..], &s].concat());
    assert!(
        stdout(&o).contains("status:         cancelled"),
        "{}",
        stdout(&o)
    );
    let o = solver(&[&["list"][..], &s].concat());
    let table = stdout(&o);
    let rows: Vec<&str> = table.lines().collect();
    assert!(rows[0].trim_start().starts_with("ID"));
    assert!(
        rows[1].contains("cancelled") && rows[2].contains("solved"),
        "{table}"
    );
    let o = solver(&[&["list", "--json"][..], &s].concat());
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).expect("JSON");
    assert_eq!(v.as_array().expect("list").len(), 2);
    // The server's INVALID_ARGUMENT is the user's mistake: exit code 2, one line.
    let o = solver(&[&["status", "nope"][..], &s].concat());
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.starts_with("error: server: InvalidArgument: problem_id"),
        "{err}"
    );
    // A solve on the server names the problem it waits for on stderr.
    let o = solver(&[&["seven", "solve", "--cols", "8"][..], &s].concat());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        o.status.success() && err.starts_with(&format!("problem 3 on {url}: waiting")),
        "{err}"
    );
    assert!(
        stdout(&o).contains("winner:         maker"),
        "{}",
        stdout(&o)
    );
}

/// A solve whose problem is cancelled exits 1 after the final state; the same command again
/// submits the spec again (a new problem), and the command after that finds that one.
#[test]
fn a_cancelled_solve_exits_1_and_the_same_command_submits_it_again() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (_server, url) = server(&dir.path().join("data"));
    let solve = ["seven", "solve", "--cols", "8", "--server", url.as_str()];
    // No worker yet: the solve waits until its problem is cancelled.
    let mut waiting = Proc(
        Command::new(env!("CARGO_BIN_EXE_solver"))
            .args(solve)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn solver"),
    );
    let deadline = Instant::now() + Duration::from_secs(30);
    while !stdout(&solver(&["list", "--server", &url])).contains("running") {
        assert!(Instant::now() < deadline, "the solve submits nothing");
        std::thread::sleep(Duration::from_millis(50));
    }
    let o = solver(&["cancel", "1", "--server", &url]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let status = loop {
        if let Some(s) = waiting.0.try_wait().expect("wait") {
            break s;
        }
        assert!(
            Instant::now() < deadline,
            "the solve goes on after the cancel"
        );
        std::thread::sleep(Duration::from_millis(50));
    };
    let (mut out, mut err) = (String::new(), String::new());
    std::io::Read::read_to_string(&mut waiting.0.stdout.take().expect("stdout"), &mut out)
        .expect("read");
    std::io::Read::read_to_string(&mut waiting.0.stderr.take().expect("stderr"), &mut err)
        .expect("read");
    assert_eq!(status.code(), Some(1), "{err}");
    assert!(out.contains("status:         cancelled"), "{out}");
    assert!(err.contains("error: problem 1 was cancelled"), "{err}");

    let _worker = worker(&url);
    for run in 0..2 {
        let o = solver(&solve);
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(
            o.status.success() && err.starts_with(&format!("problem 2 on {url}: waiting")),
            "run {run}: {err}"
        );
        assert!(
            stdout(&o).contains("winner:         maker"),
            "{}",
            stdout(&o)
        );
    }
}

/// `solver health`, the containers' health check (deploy/): exit 0 and `SERVING` from a live
/// server, exit 1 for an unknown service and for no server.
#[test]
fn health_answers_serving_and_fails_without_a_server() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (server, url) = server(&dir.path().join("data"));
    for service in ["", "solver.v1.Solver", "solver.v1.Work", "solver.v1.Rules"] {
        let o = solver(&["health", "--server", &url, "--service", service]);
        assert!(o.status.success(), "{service}: {o:?}");
        assert_eq!(stdout(&o), "SERVING\n");
    }
    let o = solver(&["health", "--server", &url, "--service", "solver.v1.Nope"]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(err.starts_with("error: server: NotFound: "), "{err}");
    drop(server);
    let o = solver(&["health", "--server", &url, "--timeout-secs", "2"]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(
        err.starts_with(&format!("error: cannot connect to {url}")),
        "{err}"
    );
}

#[test]
fn ctrl_c_during_an_embedded_solve_then_a_rerun_finishes() {
    let dir = tempfile::tempdir().expect("tempdir");
    let data = dir.path().join("data");
    let args = |data: &Path| {
        let mut a: Vec<std::ffi::OsString> = [
            "seven",
            "solve",
            "--cols",
            "11",
            "--job-budget",
            "1000",
            "--workers",
            "1",
            "--json",
            "--data-dir",
        ]
        .iter()
        .map(Into::into)
        .collect();
        a.push(data.into());
        a
    };
    let child = Command::new(env!("CARGO_BIN_EXE_solver"))
        .args(args(&data))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn solver");
    let mut child = Proc(child);
    // Let it work a little, then Ctrl-C (SIGINT). The whole solve (about 260 jobs of 1,000
    // nodes) takes about 3 s on an idle 2-core machine, longer under load.
    std::thread::sleep(Duration::from_millis(1000));
    signal(&child.0, "INT");
    let deadline = Instant::now() + Duration::from_secs(30);
    let status = loop {
        if let Some(s) = child.0.try_wait().expect("wait") {
            break s;
        }
        assert!(Instant::now() < deadline, "no exit after Ctrl-C");
        std::thread::sleep(Duration::from_millis(50));
    };
    let mut err = String::new();
    std::io::Read::read_to_string(&mut child.0.stderr.take().expect("stderr"), &mut err)
        .expect("read");
    assert_eq!(status.code(), Some(1), "{err}");
    assert!(
        err.contains("interrupted; rerun the same command to resume"),
        "{err}"
    );
    let o = Command::new(env!("CARGO_BIN_EXE_solver"))
        .args(args(&data))
        .output()
        .expect("rerun");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).expect("JSON");
    assert_eq!(v["winner"], "maker");
    assert_eq!(v["problem_id"], "1", "the rerun resumed the same problem");
    assert!(v["progress"]["jobs_done"].as_u64().expect("jobs") > 1);
}

/// The JSON lines of a successful command, without the fields that measure time.
fn answers(o: &Output) -> Vec<serde_json::Value> {
    let mut lines = json_lines(o);
    for v in &mut lines {
        v.as_object_mut().expect("an object").remove("time_ms");
    }
    lines
}

#[test]
fn win_queries_through_a_server_answer_as_in_process() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (_server, url) = server(&dir.path().join("data"));
    let commands: [&[&str]; 5] = [
        &["hex", "check", "--jsonl", "hex/connectivity.jsonl"],
        &[
            "hex",
            "solve",
            "--all-moves",
            "--jsonl",
            "hex/positions.jsonl",
        ],
        &["renju", "check", "--jsonl", "renju/tricky.jsonl"],
        &["renju", "map", "--jsonl", "renju/forbidden_maps.jsonl"],
        &["havannah", "check", "--jsonl", "havannah/multi_kind.jsonl"],
    ];
    for args in commands {
        let (dir, name) = args[args.len() - 1].split_once('/').expect("dir/name");
        let file = testdata(dir, name);
        let args = [&args[..args.len() - 1], &[file.as_str()]].concat();
        let local = answers(&solver(&args));
        let remote = answers(&solver(&[&args[..], &["--server", &url]].concat()));
        assert!(!local.is_empty(), "{args:?}");
        assert_eq!(local, remote, "{args:?}");
    }
    // A bad board is the server's INVALID_ARGUMENT, exit code 2, naming the field.
    let o = solver(&["hex", "check", "B.", "...", "--server", &url]);
    assert_eq!(
        o.status.code(),
        Some(2),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(String::from_utf8_lossy(&o.stderr).contains("board"));
}

/// `solver bench-coordinator` runs synthetic workers against a coordinator on loopback and
/// prints the health-check baseline, leases+reports per second and the DAG the reports built.
#[test]
fn bench_coordinator_prints_its_rates() {
    let out = solver(&["bench-coordinator", "--secs", "1", "--workers", "2"]);
    let text = stdout(&out);
    assert!(
        out.status.success(),
        "{text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let number_after = |label: &str| -> f64 {
        text.lines()
            .find_map(|l| l.trim().strip_prefix(label))
            .and_then(|rest| rest.split_whitespace().next())
            .and_then(|x| x.parse().ok())
            .unwrap_or_else(|| panic!("no {label:?} in {text}"))
    };
    assert!(number_after("baseline: health checks/s") > 0.0, "{text}");
    assert!(number_after("leases+reports/s") > 0.0, "{text}");
    assert!(number_after("DAG after the run:") > 1.0, "{text}");
}
