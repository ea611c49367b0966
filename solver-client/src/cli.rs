//! The command-line grammar shared by every subcommand, the usage-error type behind exit code 2,
//! the JSON-lines driver used by every `--jsonl` command, and `out!` / `outln!`, the
//! commands' `print!` / `println!`.

use std::io::{BufRead, Write};
use std::path::Path;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// `print!` for the commands' output: see [`write_stdout`].
macro_rules! out {
    ($($arg:tt)*) => {
        $crate::cli::write_stdout(format_args!($($arg)*))
    };
}

/// `println!` for the commands' output: see [`write_stdout`].
macro_rules! outln {
    () => {
        $crate::cli::write_stdout(format_args!("\n"))
    };
    ($($arg:tt)*) => {
        $crate::cli::write_stdout(format_args!("{}\n", format_args!($($arg)*)))
    };
}

/// Writes to stdout. A reader that has gone (`solver list | head`) ends the process quietly,
/// with status 0, where `print!` would panic; any other failure to write ends it with a
/// message and status 1. SIGPIPE stays ignored (as Rust sets it), so that a gRPC connection
/// the peer reset is an error, not a silent death.
pub fn write_stdout(args: std::fmt::Arguments) {
    if let Err(e) = std::io::stdout().lock().write_fmt(args) {
        if e.kind() == std::io::ErrorKind::BrokenPipe {
            std::process::exit(0);
        }
        eprintln!("error: writing to stdout: {e}");
        std::process::exit(1);
    }
}

/// `solver`: a distributed proof-number-search service and its game rules.
#[derive(Debug, Parser)]
#[command(name = "solver", version, about)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// The top-level commands, one per game.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// The Maker-Breaker game (4, n, 7^tr): edges, potential, random games.
    #[command(subcommand)]
    Seven(crate::seven::Command),
    /// Havannah: ring / bridge / fork win queries and random playouts.
    #[command(subcommand)]
    Havannah(crate::havannah::Command),
    /// Hex: connectivity with the winning chain, and solving (winner, winning moves, carrier).
    #[command(subcommand)]
    Hex(crate::hex::Command),
    /// Renju: five and Black's forbidden moves (check a move, map a board).
    #[command(subcommand)]
    Renju(crate::renju::Command),
    /// Show a problem on a coordinator: status, progress, result.
    Status(crate::problems::IdArgs),
    /// Follow a problem's progress live until it is solved or cancelled.
    Watch(crate::problems::IdArgs),
    /// List every problem on a coordinator, newest first.
    List(crate::problems::ListArgs),
    /// Cancel a running problem.
    Cancel(crate::problems::IdArgs),
    /// Print a solved problem's verdict: winner, first moves, statistics.
    Result(crate::problems::IdArgs),
    /// Ask a server whether it serves (gRPC health): exit 0 when it does, 1 otherwise.
    Health(crate::problems::HealthArgs),
    /// Benchmark the coordinator alone: leases+reports per second from synthetic workers on
    /// loopback, against the gRPC health-check rate measured first in the same run.
    BenchCoordinator(crate::bench::CoordinatorBenchArgs),
}

/// Bad input from the user (a malformed board, a value out of range): exit code 2.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct UsageError(pub String);

/// Wraps any displayable input error as a [`UsageError`].
pub fn usage(e: impl std::fmt::Display) -> anyhow::Error {
    UsageError(e.to_string()).into()
}

/// Exit code for an error: 2 for usage errors, 1 for everything else.
pub fn exit_code(err: &anyhow::Error) -> ExitCode {
    if err.chain().any(|e| e.is::<UsageError>()) {
        ExitCode::from(2)
    } else {
        ExitCode::from(1)
    }
}

/// Reads `path` as JSON lines and prints one JSON answer per non-empty input line, in order.
/// A line that is not valid JSON, or that `answer` rejects, stops with a usage error naming the
/// line number. The input's `id` field, if present, is copied into the answer.
pub fn for_each_jsonl(
    path: &Path,
    mut answer: impl FnMut(&serde_json::Value) -> anyhow::Result<serde_json::Value>,
) -> anyhow::Result<()> {
    let file = std::fs::File::open(path)
        .map_err(|e| usage(format!("cannot open {}: {e}", path.display())))?;
    for (i, line) in std::io::BufReader::new(file).lines().enumerate() {
        let where_ = || format!("{}:{}", path.display(), i + 1);
        let line = line.map_err(|e| match e.kind() {
            // Bytes that are not UTF-8: the input's fault.
            std::io::ErrorKind::InvalidData => usage(format!("{}: {e}", where_())),
            _ => anyhow::Error::new(e).context(where_()),
        })?;
        if line.trim().is_empty() {
            continue;
        }
        let input: serde_json::Value = serde_json::from_str(&line)
            .map_err(|e| usage(format!("{}: not JSON: {e}", where_())))?;
        let mut result = answer(&input).map_err(|e| e.context(where_()))?;
        if let (Some(id), Some(obj)) = (input.get("id"), result.as_object_mut()) {
            obj.insert("id".into(), id.clone());
        }
        outln!("{result}");
    }
    Ok(())
}

/// Runs an async call from synchronous code on a multi-thread runtime (the calls of a
/// [`for_each_jsonl`] driver).
pub fn block_on<T>(fut: impl std::future::Future<Output = T>) -> T {
    tokio::task::block_in_place(|| tokio::runtime::Handle::current().block_on(fut))
}

/// The URL this process connects to its server by (set by [`crate::problems::channel`]; a
/// command talks to one server), for the TLS hint of [`server_error`].
static SERVER_URL: std::sync::OnceLock<String> = std::sync::OnceLock::new();

/// Notes the URL this process connects to (see [`SERVER_URL`]; the first one stays).
pub fn note_server_url(url: &str) {
    let _ = SERVER_URL.set(url.to_owned());
}

/// One readable line for a server error (`server: Code: message`); `INVALID_ARGUMENT` is the
/// user's input (exit code 2), anything else a failure (exit code 1).
pub fn server_error(status: tonic::Status) -> anyhow::Error {
    let mut line = format!("server: {:?}: {}", status.code(), status.message());
    let url = SERVER_URL.get().map_or("", String::as_str);
    if let Some(hint) = solver_proto::auth::tls_hint(&status, url) {
        line.push_str(&format!(" ({hint})"));
    }
    if status.code() == tonic::Code::InvalidArgument {
        usage(line)
    } else {
        anyhow::anyhow!(line)
    }
}

#[cfg(test)]
mod tests {
    use clap::{CommandFactory, Parser};

    /// clap's own checks of the grammar (duplicate names, requirements naming no argument),
    /// which otherwise run only when a command is parsed in a debug build.
    #[test]
    fn the_command_line_is_consistent() {
        super::Cli::command().debug_assert();
    }

    /// A command without its input is an error of the grammar: clap's message, then the
    /// usage line and the pointer to `--help` (README, exit code 2); with one, it parses.
    #[test]
    fn a_command_without_its_input_is_a_grammar_error() {
        let commands: [&[&str]; 7] = [
            &["hex", "check"],
            &["hex", "solve", "--to-move", "W"],
            &["renju", "check"],
            &["renju", "check", "--board", "...", "--color", "white"],
            &["renju", "map", "--json"],
            &["havannah", "check"],
            &[
                "havannah",
                "check",
                "--board-file",
                "b.txt",
                "--player",
                "1",
            ],
        ];
        for args in commands {
            let argv = std::iter::once(&"solver").chain(args);
            let e = super::Cli::try_parse_from(argv).expect_err("no input");
            assert_eq!(
                e.kind(),
                clap::error::ErrorKind::MissingRequiredArgument,
                "{args:?}"
            );
            let text = e.to_string();
            assert!(
                text.contains("Usage: solver ") && text.contains("--help"),
                "{text}"
            );
        }
        // Each input alone parses (files are read later).
        let commands: [&[&str]; 12] = [
            &["hex", "check", ".B.", "B..", "B.."],
            &["hex", "check", "--empty", "3", "--json"],
            &["hex", "check", "--jsonl", "f", "--server", "http://h:1"],
            &[
                "hex",
                "solve",
                "--empty",
                "4",
                "--to-move",
                "W",
                "--all-moves",
            ],
            &["hex", "solve", "--jsonl", "f"],
            &["renju", "check", "--jsonl", "f"],
            &["renju", "check", "--board", "...", "--move", "H8"],
            &[
                "renju",
                "check",
                "--board-file",
                "f",
                "--move",
                "7,7",
                "--json",
            ],
            &["renju", "map", "--board-file", "f"],
            &["renju", "map", "--jsonl", "f", "--server", "http://h:1"],
            &["havannah", "check", "--jsonl", "f"],
            &[
                "havannah",
                "check",
                "--board-file",
                "f",
                "--move",
                "1,1",
                "--player",
                "1",
            ],
        ];
        for args in commands {
            let argv = std::iter::once(&"solver").chain(args);
            if let Err(e) = super::Cli::try_parse_from(argv) {
                panic!("{args:?}: {e}");
            }
        }
    }
}
