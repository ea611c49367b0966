//! The gRPC server: opens the store, serves every service on a listener and drains on the
//! shutdown future.
//!
//! [`run`] is the one entry point, used by the binary, the tests and the embedded mode of the
//! CLI. It serves `grpc.health.v1`, `grpc.reflection.v1` and `solver.v1.Rules`. It takes an
//! already bound listener (so a caller can bind port 0 and learn the port) and a shutdown
//! future (so a caller decides what stops it: signals, a test, the CLI). It installs no
//! signal handlers and no tracing subscriber: those belong to `main`.

use std::future::Future;
use std::sync::Arc;

use solver_proto::v1::rules_server::RulesServer;
use tokio::net::TcpListener;
use tokio::sync::oneshot;
use tokio_stream::wrappers::TcpListenerStream;
use tonic_health::ServingStatus;
use tracing::{info, info_span, warn};

use crate::config::Config;
use crate::rules::RulesService;
use crate::store::{RocksStore, Store, StoreError};

/// Everything that can stop [`run`] with an error.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    /// The data directory could not be opened, checked or flushed.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// The reflection service rejected a descriptor set (a build problem).
    #[error("cannot build the reflection service: {0}")]
    Reflection(#[from] tonic_reflection::server::Error),
    /// The gRPC transport failed.
    #[error("gRPC transport: {0}")]
    Transport(#[from] tonic::transport::Error),
}

/// Serves the solver's gRPC services on `listener` until `shutdown` resolves, then drains.
///
/// Opens (creating if missing) the RocksDB data directory `config.data_dir` first. When
/// `shutdown` resolves, the health status of every service becomes `NOT_SERVING`, the listener
/// stops accepting, and in-flight RPCs get up to `config.drain_timeout()` to finish (after
/// that the remaining connections are dropped); then the store is flushed and closed before
/// this returns. `config.addr` is not used: `listener` is already bound.
///
/// # Errors
/// [`RunError::Store`] if the data directory cannot be opened (for instance, another server
/// holds it) or flushed; [`RunError::Transport`] if serving fails.
pub async fn run(
    config: Config,
    listener: TcpListener,
    shutdown: impl Future<Output = ()>,
) -> Result<(), RunError> {
    let store: Arc<dyn Store> = Arc::new(RocksStore::open(&config.data_dir)?);
    info!(data_dir = %config.data_dir.display(), "store opened");

    let (health, health_service) = tonic_health::server::health_reporter();
    health.set_serving::<RulesServer<RulesService>>().await;
    let reflection = tonic_reflection::server::Builder::configure()
        .register_encoded_file_descriptor_set(solver_proto::FILE_DESCRIPTOR_SET)
        .register_encoded_file_descriptor_set(tonic_health::pb::FILE_DESCRIPTOR_SET)
        .build_v1()?;

    let (drain_started, drain_started_rx) = oneshot::channel::<()>();
    let draining = {
        let health = health.clone();
        async move {
            shutdown.await;
            info!("shutting down: draining in-flight requests");
            set_all_not_serving(&health).await;
            let _ = drain_started.send(());
        }
    };
    let drain_timeout = config.drain_timeout();
    let drain_deadline = async move {
        // The sender is dropped unfired only when serving ended on its own.
        if drain_started_rx.await.is_ok() {
            tokio::time::sleep(drain_timeout).await;
        } else {
            std::future::pending::<()>().await;
        }
    };

    let serve = tonic::transport::Server::builder()
        .trace_fn(|req| info_span!("rpc", path = %req.uri().path()))
        .add_service(health_service)
        .add_service(reflection)
        .add_service(RulesServer::new(RulesService))
        .serve_with_incoming_shutdown(TcpListenerStream::new(listener), draining);
    tokio::select! {
        result = serve => result?,
        () = drain_deadline => warn!(
            timeout_secs = drain_timeout.as_secs(),
            "drain timed out: closing the remaining connections"
        ),
    }

    store.flush()?;
    drop(store);
    info!("stopped");
    Ok(())
}

/// Marks the whole server ("") and every service `NOT_SERVING`, so load balancers and probes
/// stop sending work while in-flight requests finish.
async fn set_all_not_serving(health: &tonic_health::server::HealthReporter) {
    health
        .set_service_status("", ServingStatus::NotServing)
        .await;
    health.set_not_serving::<RulesServer<RulesService>>().await;
}
