//! The `solver-server` binary: parses the configuration, sets up logging and signal handling,
//! binds the address and hands over to [`solver_server::server::run`].
//!
//! Shutdown has two stages: the first SIGINT or SIGTERM drains (no new connections, in-flight
//! RPCs finish, the store is flushed and closed, exit 0); a second signal while draining exits
//! at once with status 1 (RocksDB's write-ahead log keeps every accepted write).

use std::io::IsTerminal;
use std::process::ExitCode;

use anyhow::Context;
use clap::{CommandFactory, Parser};
use solver_server::config::{Config, LogFormat};
use tokio::net::TcpListener;
use tokio::signal::unix::{Signal, SignalKind, signal};
use tracing::{info, warn};
use tracing_subscriber::EnvFilter;

#[tokio::main]
async fn main() -> ExitCode {
    let config = Config::parse();
    if let Err(e) = config.check() {
        Config::command()
            .error(clap::error::ErrorKind::ValueValidation, e)
            .exit();
    }
    if config.check_config {
        println!("configuration ok");
        return ExitCode::SUCCESS;
    }
    init_tracing(config.log_format);
    solver_proto::report::exit_code(run(config).await)
}

async fn run(config: Config) -> anyhow::Result<()> {
    // Install the handlers before binding, so a signal sent as soon as the address is printed
    // is never fatal.
    let mut sigint = signal(SignalKind::interrupt()).context("installing the SIGINT handler")?;
    let mut sigterm = signal(SignalKind::terminate()).context("installing the SIGTERM handler")?;

    let listener = TcpListener::bind(config.addr)
        .await
        .with_context(|| format!("binding {}", config.addr))?;

    let (first_tx, first_rx) = tokio::sync::oneshot::channel::<()>();
    let shutdown = async move {
        // An error means the sender was dropped, which only happens after a signal.
        let _ = first_rx.await;
    };
    let signals = async move {
        let name = next_signal(&mut sigint, &mut sigterm).await;
        info!(
            signal = name,
            "received {name}: shutting down (send again to exit at once)"
        );
        let _ = first_tx.send(());
        let name = next_signal(&mut sigint, &mut sigterm).await;
        warn!(
            signal = name,
            "received {name} while draining: exiting at once"
        );
    };

    tokio::select! {
        result = solver_server::server::run(config, listener, shutdown) => {
            result.context("server failed")?;
            Ok(())
        }
        () = signals => std::process::exit(1),
    }
}

/// Waits for the next SIGINT or SIGTERM and names it.
async fn next_signal(sigint: &mut Signal, sigterm: &mut Signal) -> &'static str {
    tokio::select! {
        _ = sigint.recv() => "SIGINT",
        _ = sigterm.recv() => "SIGTERM",
    }
}

/// Logs to stderr, at the level of `RUST_LOG` (default `info`), as text or JSON lines.
fn init_tracing(format: LogFormat) {
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("info"));
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr);
    match format {
        LogFormat::Text => builder.with_ansi(std::io::stderr().is_terminal()).init(),
        LogFormat::Json => builder.json().init(),
    }
}
