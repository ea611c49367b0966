//! Helpers shared by the client's integration tests: running the `solver` binary and reading
//! the public test data.
#![allow(dead_code)]

use std::process::{Command, Output};

use serde_json::Value;

/// Runs the `solver` binary with `args`. `SOLVER_SERVER`, the problem commands' default server,
/// is set to a port where nothing listens: the win queries answer in-process without
/// `--server`, whatever it is set to, and a command that asked it anyway would fail.
pub fn solver(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_solver"))
        .args(args)
        .env("SOLVER_SERVER", "http://127.0.0.1:9")
        .output()
        .expect("the solver binary runs")
}

/// The standard output of a command, as text.
pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// The JSON lines of a command that succeeded.
pub fn json_lines(o: &Output) -> Vec<Value> {
    assert!(
        o.status.success(),
        "stderr: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    stdout(o)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{l}: {e}")))
        .collect()
}

/// The path of `shared/testdata/<dir>/<name>`. The folder `shared/` sits beside the repository
/// root; it is found from the package's directory at run time (cargo sets `CARGO_MANIFEST_DIR`
/// when it runs a test), so that a test built in another checkout's target directory reads
/// this checkout's data.
pub fn testdata(dir: &str, name: &str) -> String {
    let package = std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR");
    format!("{package}/../../shared/testdata/{dir}/{name}")
}

/// The records of a JSON-lines file (blank lines skipped).
pub fn records(path: &str) -> Vec<Value> {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}"));
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{path}: {e}")))
        .collect()
}
