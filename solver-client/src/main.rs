//! The `solver` command line. Thin: parses arguments and calls the per-game modules.
//!
//! Exit codes: 0 done, 1 failure, 2 bad usage (bad arguments or bad input such as a malformed
//! board).

#[macro_use]
mod cli;
mod bench;
mod havannah;
mod hex;
mod problems;
mod renju;
mod seven;

use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    let args = cli::Cli::parse();
    let result = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(anyhow::Error::from)
        .and_then(|rt| rt.block_on(run(args)));
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("error: {}", solver_proto::report::error_line(&*err));
            cli::exit_code(&err)
        }
    }
}

async fn run(args: cli::Cli) -> anyhow::Result<()> {
    match args.command {
        cli::Command::Seven(cmd) => seven::run(cmd).await,
        cli::Command::Havannah(cmd) => havannah::run(cmd).await,
        cli::Command::Hex(cmd) => hex::run(cmd).await,
        cli::Command::Renju(cmd) => renju::run(cmd).await,
        cli::Command::Status(a) => problems::manage(problems::Manage::Status, a).await,
        cli::Command::Watch(a) => problems::manage(problems::Manage::Watch, a).await,
        cli::Command::List(a) => problems::list(a).await,
        cli::Command::Cancel(a) => problems::manage(problems::Manage::Cancel, a).await,
        cli::Command::Result(a) => problems::manage(problems::Manage::Result, a).await,
        cli::Command::Health(a) => problems::health(a).await,
        cli::Command::BenchCoordinator(a) => bench::coordinator(a).await,
    }
}
