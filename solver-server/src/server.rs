//! The gRPC server: opens the store, serves every service on a listener and drains on the
//! shutdown future.
//!
//! [`run`] is the one entry point, used by the binary, the tests and the embedded mode of the
//! CLI. It serves `grpc.health.v1`, `grpc.reflection.v1`, `solver.v1.Rules`, `solver.v1.Solver`
//! and `solver.v1.Work`, runs the lease sweeper, and optionally a Prometheus endpoint. It takes an
//! already bound listener (so a caller can bind port 0 and learn the port) and a shutdown
//! future (so a caller decides what stops it: signals, a test, the CLI). It installs no
//! signal handlers and no tracing subscriber: those belong to `main`.

use std::future::Future;
use std::sync::Arc;

use solver_proto::v1::rules_server::RulesServer;
use solver_proto::v1::solver_server::SolverServer;
use solver_proto::v1::work_server::WorkServer;
use tokio::net::TcpListener;
use tokio::sync::oneshot;
use tokio_util::sync::CancellationToken;
use tonic::service::interceptor::InterceptedService;
use tonic::transport::server::TcpIncoming;
use tonic_health::ServingStatus;
use tracing::{error, info, info_span, warn};

use crate::config::Config;
use crate::coordinator::Coordinator;
use crate::rules::RulesService;
use crate::service::{BearerAuth, SolverService, WorkService};
use crate::store::{RocksStore, Store, StoreError};

/// Largest `Work` message the server decodes (a report with 100,000 solved positions fits).
pub const MAX_WORK_MESSAGE_BYTES: usize = 16 * 1024 * 1024;

/// Largest `Solver` or `Rules` message the server decodes: far above any valid request (a
/// 63-row Havannah board, a problem's spec), and small enough that the repeated fields of one
/// request, decoded before they are checked, stay a few MiB.
pub const MAX_CLIENT_MESSAGE_BYTES: usize = 1024 * 1024;

/// How often the sweeper looks for expired leases.
const SWEEP_INTERVAL: std::time::Duration = std::time::Duration::from_millis(100);

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
    /// The stored problems could not be loaded.
    #[error("cannot load the stored problems: {0}")]
    Load(#[from] crate::error::Error),
    /// The store failed while serving, or a request panicked while changing the coordinator's
    /// state; the server stopped so that a restart reloads the last complete state (see
    /// `Coordinator::failure`).
    #[error(
        "stopped after a failure of the store or a panic (logged above); restart to reload the data directory"
    )]
    CoordinatorFailed,
    /// The listener's address could not be read.
    #[error("cannot read the listening address: {0}")]
    Address(std::io::Error),
    /// A setting a flag's parser cannot check ([`Config::check`]), for a configuration built
    /// in code.
    #[error("{0}")]
    Config(String),
    /// The Prometheus endpoint (`--metrics-addr`) could not listen (for instance, the port is
    /// taken).
    #[error("--metrics-addr {addr}: cannot serve metrics: {message}")]
    Metrics {
        /// The address asked for.
        addr: std::net::SocketAddr,
        /// Why.
        message: String,
    },
    /// The TLS certificate or key could not be read.
    #[error("{flag} {}: cannot read it: {source}", .path.display())]
    Tls {
        /// The option that names the file (`--tls-cert`, `--tls-key`).
        flag: &'static str,
        /// The file.
        path: std::path::PathBuf,
        /// Why.
        source: std::io::Error,
    },
}

/// Serves the solver's gRPC services on `listener` until `shutdown` resolves, then drains.
///
/// Opens (creating if missing) the RocksDB data directory `config.data_dir` first. When
/// `shutdown` resolves, the health status of every service becomes `NOT_SERVING`, the listener
/// stops accepting, and in-flight RPCs get up to `config.drain_timeout()` to finish (after
/// that the remaining connections are dropped); then the store is flushed and closed before
/// this returns. `config.addr` is not used: `listener` is already bound.
///
/// A failure of the store while serving (a read or a write), or a panic while a request
/// changed the coordinator's state, stops the server the same way, and then `run` returns
/// [`RunError::CoordinatorFailed`].
///
/// Logs `listening on ADDR` once the store is open, the TLS files read, the metrics endpoint
/// listening (with `--metrics-addr`) and the services built: from then on it serves.
///
/// # Errors
/// [`RunError::Config`] for a bad token ([`Config::check`], before anything is opened);
/// [`RunError::Store`] if the data directory cannot be opened (for instance, another server
/// holds it) or flushed; [`RunError::Tls`] if the TLS certificate or key cannot be read;
/// [`RunError::Load`] if the stored problems cannot be loaded; [`RunError::Metrics`] if
/// `--metrics-addr` cannot listen; [`RunError::Address`],
/// [`RunError::Reflection`] (neither expected); [`RunError::Transport`] if serving fails;
/// [`RunError::CoordinatorFailed`] after a failure of the store (or a panic) while serving.
pub async fn run(
    config: Config,
    listener: TcpListener,
    shutdown: impl Future<Output = ()>,
) -> Result<(), RunError> {
    config.check().map_err(RunError::Config)?;
    let store: Arc<dyn Store> = Arc::new(RocksStore::open(&config.data_dir)?);
    info!(data_dir = %config.data_dir.display(), "store opened");
    serve(config, listener, shutdown, store).await
}

/// [`run`] on a store opened already (`config.data_dir` is not used): for tests with a store
/// other than RocksDB.
///
/// # Errors
/// As [`run`], but for opening the store.
pub async fn serve(
    config: Config,
    listener: TcpListener,
    shutdown: impl Future<Output = ()>,
    store: Arc<dyn Store>,
) -> Result<(), RunError> {
    // What may fail comes first, so that a failure leaves no task running (but for the
    // metrics exporter's own, process-wide: see `install_metrics`) and has written nothing.
    config.check().map_err(RunError::Config)?;
    let addr = listener.local_addr().map_err(RunError::Address)?;
    let mut builder = tonic::transport::Server::builder();
    if let (Some(cert), Some(key)) = (&config.tls_cert, &config.tls_key) {
        let read = |flag, path: &std::path::PathBuf| {
            std::fs::read(path).map_err(|source| RunError::Tls {
                flag,
                path: path.clone(),
                source,
            })
        };
        let identity = tonic::transport::Identity::from_pem(
            read("--tls-cert", cert)?,
            read("--tls-key", key)?,
        );
        builder =
            builder.tls_config(tonic::transport::ServerTlsConfig::new().identity(identity))?;
    }
    let reflection = tonic_reflection::server::Builder::configure()
        .register_encoded_file_descriptor_set(solver_proto::FILE_DESCRIPTOR_SET)
        .register_encoded_file_descriptor_set(tonic_health::pb::FILE_DESCRIPTOR_SET)
        .build_v1()?;
    // Before the stored problems are loaded, which counts the ones that end then.
    if let Some(addr) = config.metrics_addr {
        install_metrics(addr)?;
    }
    let coordinator = Arc::new(Coordinator::open(Arc::clone(&store), config.coordinator())?);
    let sweeper_stop = CancellationToken::new();
    let sweeper = tokio::spawn(sweep(Arc::clone(&coordinator), sweeper_stop.clone()));
    let namer = tokio::spawn(name_moves(Arc::clone(&coordinator), sweeper_stop.clone()));

    let (health, health_service) = tonic_health::server::health_reporter();
    health.set_serving::<RulesServer<RulesService>>().await;
    health.set_serving::<SolverServer<SolverService>>().await;
    health.set_serving::<WorkServer<WorkService>>().await;

    let (drain_started, drain_started_rx) = oneshot::channel::<()>();
    let failure = coordinator.failure();
    let stopping = CancellationToken::new();
    let draining = {
        let (health, failure, stopping) = (health.clone(), failure.clone(), stopping.clone());
        async move {
            tokio::select! {
                () = shutdown => info!("shutting down: draining in-flight requests"),
                () = failure.cancelled() => {
                    error!("the coordinator failed (its store, or a panic): draining in-flight requests, then stopping");
                }
            }
            set_all_not_serving(&health).await;
            stopping.cancel();
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

    let client_auth = BearerAuth::new(config.client_token.as_ref());
    let worker_auth = BearerAuth::new(config.worker_token.as_ref());
    let serve = builder
        .trace_fn(|req| info_span!("rpc", path = %req.uri().path()))
        .add_service(health_service)
        .add_service(reflection)
        .add_service(InterceptedService::new(
            RulesServer::new(RulesService::default())
                .max_decoding_message_size(MAX_CLIENT_MESSAGE_BYTES),
            client_auth.clone(),
        ))
        .add_service(InterceptedService::new(
            SolverServer::new(SolverService::new(&coordinator, stopping))
                .max_decoding_message_size(MAX_CLIENT_MESSAGE_BYTES),
            client_auth,
        ))
        .add_service(InterceptedService::new(
            WorkServer::new(WorkService::new(&coordinator))
                .max_decoding_message_size(MAX_WORK_MESSAGE_BYTES),
            worker_auth,
        ))
        .serve_with_incoming_shutdown(incoming(listener), draining);
    // Only now, with the store open and TLS read: a server that logged this serves.
    info!(%addr, "listening on {addr}");
    tokio::select! {
        result = serve => result?,
        () = drain_deadline => warn!(
            timeout_secs = drain_timeout.as_secs(),
            "drain timed out: closing the remaining connections"
        ),
    }

    sweeper_stop.cancel();
    let _ = sweeper.await;
    let _ = namer.await;
    drop(coordinator);
    if failure.is_cancelled() {
        // The store failed: flushing what it holds may fail too, and the failure is the news.
        if let Err(e) = store.flush() {
            warn!(error = %e, "flushing the store failed");
        }
        return Err(RunError::CoordinatorFailed);
    }
    store.flush()?;
    drop(store);
    info!("stopped");
    Ok(())
}

/// Expires overdue leases every [`SWEEP_INTERVAL`] until `stop`, or the coordinator's failure.
async fn sweep(coordinator: Arc<Coordinator>, stop: CancellationToken) {
    let mut tick = tokio::time::interval(SWEEP_INTERVAL);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let failure = coordinator.failure();
    loop {
        tokio::select! {
            () = stop.cancelled() => return,
            () = failure.cancelled() => return,
            _ = tick.tick() => {}
        }
        if let Err(e) = coordinator.expire(tokio::time::Instant::now()) {
            error!(error = %e, "expiring leases failed");
        }
    }
}

/// Searches the winning first moves of solved problems that wait for them
/// ([`Coordinator::name_winning_moves`]) on a blocking thread, until `stop` (which cancels a
/// search under way: its problem waits for the next run) or a failure.
async fn name_moves(coordinator: Arc<Coordinator>, stop: CancellationToken) {
    let failure = coordinator.failure();
    loop {
        tokio::select! {
            () = stop.cancelled() => return,
            () = failure.cancelled() => return,
            () = coordinator.moves_wanted() => {}
        }
        let c = Arc::clone(&coordinator);
        let mut search = tokio::task::spawn_blocking(move || c.name_winning_moves());
        let stopping = async {
            tokio::select! {
                () = stop.cancelled() => {}
                () = failure.cancelled() => {}
            }
        };
        let result = tokio::select! {
            r = &mut search => r,
            () = stopping => {
                coordinator.stop_moves_search();
                search.await
            }
        };
        match result {
            Ok(Ok(_)) => {}
            Ok(Err(e)) => error!(error = %e, "naming winning moves failed"),
            Err(e) => error!(error = %e, "naming winning moves stopped"),
        }
    }
}

/// Where this process serves its metrics, once a server has installed them: the recorder is
/// process-wide, and the exporter's endpoint lives as long as the runtime it was started on.
static METRICS: std::sync::Mutex<Option<std::net::SocketAddr>> = std::sync::Mutex::new(None);

/// Serves Prometheus metrics on `addr`. A later server in this process (an embedded
/// coordinator started again, tests) keeps the first one's endpoint, which it logs.
///
/// # Errors
/// [`RunError::Metrics`] when it cannot listen there (the port is taken, say): the operator
/// asked for metrics. (The exporter crate then leaves its upkeep task running.)
fn install_metrics(addr: std::net::SocketAddr) -> Result<(), RunError> {
    use metrics_exporter_prometheus::BuildError;
    let mut served = METRICS
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    if let Some(first) = *served {
        info!(%addr, %first, "metrics are served on this process's first address already");
        return Ok(());
    }
    match metrics_exporter_prometheus::PrometheusBuilder::new()
        .with_http_listener(addr)
        .install()
    {
        Ok(()) => {
            *served = Some(addr);
            info!(%addr, "serving Prometheus metrics on /metrics");
        }
        Err(BuildError::FailedToCreateHTTPListener(message)) => {
            return Err(RunError::Metrics { addr, message });
        }
        // Another recorder, installed by code other than a server's.
        Err(e) => warn!(%addr, error = %e, "cannot serve metrics"),
    }
    Ok(())
}

/// Marks the whole server ("") and every service `NOT_SERVING`, so load balancers and probes
/// stop sending work while in-flight requests finish.
async fn set_all_not_serving(health: &tonic_health::server::HealthReporter) {
    health
        .set_service_status("", ServingStatus::NotServing)
        .await;
    health.set_not_serving::<RulesServer<RulesService>>().await;
    health
        .set_not_serving::<SolverServer<SolverService>>()
        .await;
    health.set_not_serving::<WorkServer<WorkService>>().await;
}

/// The connections `listener` accepts, with `TCP_NODELAY` set on each (as tonic sets it on
/// the sockets it binds itself). Without it, Nagle's algorithm holds a small write (a lease,
/// a report's acknowledgement, a watch message) until the peer acknowledges the previous
/// one, which Linux delays by up to 40 ms: a problem solved in 5 ms took 45 ms to reach the
/// client that submitted it. [`serve`] accepts its connections so; a test server that serves
/// the services on a listener of its own can too.
pub fn incoming(listener: TcpListener) -> TcpIncoming {
    TcpIncoming::from(listener).with_nodelay(Some(true))
}

#[cfg(test)]
mod tests {
    use tokio_stream::StreamExt;

    use super::*;

    #[tokio::test]
    async fn accepted_connections_send_without_delay() {
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let addr = listener.local_addr().expect("address");
        let mut accepted = incoming(listener);
        let _client = tokio::net::TcpStream::connect(addr).await.expect("connect");
        let stream = accepted
            .next()
            .await
            .expect("a connection")
            .expect("accepted");
        assert!(
            stream.nodelay().expect("TCP_NODELAY readable"),
            "TCP_NODELAY on an accepted connection"
        );
    }
}
