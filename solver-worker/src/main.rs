//! The `solver-worker` binary: parses the configuration, sets up logging and the two-stage
//! shutdown, and hands over to [`solver_worker::run`].
//!
//! The first SIGINT or SIGTERM finishes the running jobs and leases nothing new; a second one
//! hands the running jobs back to the coordinator and exits (once the searches have noticed,
//! a lease call under way has been answered, at most 10 s, and its job handed back too, after
//! at most 5 s per call to hand jobs back, and once the cache's thread has added the last
//! jobs' solved positions, tens of milliseconds at n = 12); a third exits at once, with status
//! 1, leaving the running jobs' leases to expire.

use std::io::IsTerminal;
use std::process::ExitCode;

use anyhow::Context;
use clap::{CommandFactory, Parser};
use solver_worker::Config;
use tokio::signal::unix::{SignalKind, signal};
use tokio_util::sync::CancellationToken;
use tracing::{info, warn};
use tracing_subscriber::EnvFilter;

#[tokio::main]
async fn main() -> ExitCode {
    solver_proto::report::exit_code(run().await)
}

async fn run() -> anyhow::Result<()> {
    let config = Config::parse();
    if let Err(e) = config.check() {
        Config::command()
            .error(clap::error::ErrorKind::ValueValidation, e)
            .exit();
    }
    if config.check_config {
        println!("configuration ok");
        return Ok(());
    }
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("info"));
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(std::io::stderr().is_terminal())
        .init();

    let mut sigint = signal(SignalKind::interrupt()).context("installing the SIGINT handler")?;
    let mut sigterm = signal(SignalKind::terminate()).context("installing the SIGTERM handler")?;
    let (graceful, abort) = (CancellationToken::new(), CancellationToken::new());
    {
        let (graceful, abort) = (graceful.clone(), abort.clone());
        tokio::spawn(async move {
            // Each SIGINT or SIGTERM takes the next stage.
            for stage in 0.. {
                tokio::select! { _ = sigint.recv() => {}, _ = sigterm.recv() => {} }
                match stage {
                    0 => {
                        info!(
                            "finishing the running jobs; leasing nothing new (signal again to hand them back)"
                        );
                        graceful.cancel();
                    }
                    1 => {
                        info!("handing the running jobs back (signal again to exit at once)");
                        abort.cancel();
                    }
                    _ => {
                        warn!("exiting at once; the running jobs' leases will expire");
                        std::process::exit(1);
                    }
                }
            }
        });
    }
    solver_worker::run(config, graceful, abort)
        .await
        .context("worker failed")?;
    Ok(())
}
