//! The server's configuration: command-line flags with `SOLVER_*` environment fallbacks.
//!
//! Every option is parsed into a type that is valid once built (a `SocketAddr`, a non-empty
//! path, a closed set of log formats), so the rest of the server never re-checks them. This
//! module knows nothing of tonic or RocksDB.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use clap::{Parser, ValueEnum};
use solver_proto::auth::Token;

/// The default listen address: loopback only, so a bare start exposes nothing to the network.
pub const DEFAULT_ADDR: &str = "127.0.0.1:50051";

/// The default data directory, relative to the working directory.
pub const DEFAULT_DATA_DIR: &str = "solver-data";

/// The default bound on draining at shutdown, in seconds.
pub const DEFAULT_DRAIN_TIMEOUT_SECS: u64 = 10;

/// Configuration of `solver-server`.
///
/// Each flag falls back to an environment variable (shown in `--help`), and then to its
/// default.
#[derive(Debug, Clone, PartialEq, Eq, Parser)]
#[command(
    name = "solver-server",
    version,
    about = "The proof-number-search coordinator."
)]
pub struct Config {
    /// Address to listen on for gRPC (clients, workers, health, reflection).
    #[arg(long, env = "SOLVER_ADDR", default_value = DEFAULT_ADDR)]
    pub addr: SocketAddr,

    /// RocksDB data directory; created with its column families if missing.
    #[arg(long, env = "SOLVER_DATA_DIR", default_value = DEFAULT_DATA_DIR, value_parser = parse_data_dir)]
    pub data_dir: PathBuf,

    /// Log line format on stderr. The level comes from `RUST_LOG` (default `info`).
    #[arg(long, env = "SOLVER_LOG_FORMAT", value_enum, default_value_t = LogFormat::Text)]
    pub log_format: LogFormat,

    /// Seconds to let in-flight RPCs and open streams finish after a shutdown signal; then the
    /// remaining connections are closed. Bounds shutdown even with stuck or streaming clients.
    #[arg(long, env = "SOLVER_DRAIN_TIMEOUT_SECS", default_value_t = DEFAULT_DRAIN_TIMEOUT_SECS)]
    pub drain_timeout_secs: u64,

    /// Serve Prometheus metrics over HTTP on this address (path `/metrics`); a start that
    /// cannot listen there fails. Off when unset.
    #[arg(long, env = "SOLVER_METRICS_ADDR")]
    pub metrics_addr: Option<SocketAddr>,

    /// Milliseconds a job lease lasts without a heartbeat; workers are told to send one every
    /// third of it. 100 to 86,400,000 (one day).
    #[arg(long, env = "SOLVER_LEASE_MS", default_value_t = DEFAULT_LEASE_MS, value_parser = clap::value_parser!(u64).range(100..=MAX_LEASE_MS))]
    pub lease_ms: u64,

    /// MiB the server's own search of a solved problem's winning first moves may hold (64 to
    /// 2^24; the process may peak at about 1.4 times it, besides the DAGs: keep that within
    /// the machine's or the container's memory). Past it the search collects garbage and
    /// collapses old subtrees; if that is not enough the search gives up and the problem ends
    /// with no winning moves (proto/README.md, "Life cycle").
    #[arg(long, env = "SOLVER_MOVES_SEARCH_MB", default_value_t = DEFAULT_MOVES_SEARCH_MB, value_parser = clap::value_parser!(u64).range(64..=1 << 24))]
    pub moves_search_mb: u64,

    /// Node budget of a job when a problem does not set its own (1000..=100000000). The
    /// server's own search of a solved problem's winning first moves may create four times the
    /// larger of this and the problem's budget (proto/README.md, "Life cycle").
    #[arg(long, env = "SOLVER_JOB_NODE_BUDGET", default_value_t = DEFAULT_JOB_BUDGET, value_parser = clap::value_parser!(u64).range(solver_proto::work::MIN_JOB_NODE_BUDGET..=solver_proto::work::MAX_JOB_NODE_BUDGET))]
    pub job_node_budget: u64,

    /// Milliseconds a worker may search one job, from when it starts it; then it reports what
    /// it has, as at the node budget. 0 = no deadline (the node budget alone), else 1,000 to
    /// 86,400,000 (one day).
    #[arg(long, env = "SOLVER_JOB_DEADLINE_MS", default_value_t = DEFAULT_JOB_DEADLINE_MS, value_parser = job_deadline_ms)]
    pub job_deadline_ms: u64,

    /// Bearer token workers must send (`authorization: Bearer <token>`) on the Work service:
    /// 1 or more printable ASCII characters without spaces. No check when unset. Prefer the
    /// environment variable: other users can read a flag's value in `ps`.
    #[arg(
        long,
        env = "SOLVER_WORKER_TOKEN",
        hide_env_values = true,
        allow_hyphen_values = true
    )]
    pub worker_token: Option<Token>,

    /// Bearer token clients must send on the Solver and Rules services (as --worker-token). No
    /// check when unset.
    #[arg(
        long,
        env = "SOLVER_CLIENT_TOKEN",
        hide_env_values = true,
        allow_hyphen_values = true
    )]
    pub client_token: Option<Token>,

    /// PEM certificate chain: serve TLS (needs --tls-key).
    #[arg(long, env = "SOLVER_TLS_CERT", requires = "tls_key")]
    pub tls_cert: Option<PathBuf>,

    /// PEM private key of --tls-cert.
    #[arg(long, env = "SOLVER_TLS_KEY", requires = "tls_cert")]
    pub tls_key: Option<PathBuf>,

    /// Only check the flags and the environment as a start parses them (values, ranges,
    /// options that need each other, the tokens), print `configuration ok` and exit 0,
    /// without binding, opening the data directory or reading the TLS files. A bad one is
    /// exit 2 with a message, as for a start. Used by deploy/check.
    #[arg(long)]
    pub check_config: bool,
}

/// Default of [`Config::moves_search_mb`], in MiB.
pub const DEFAULT_MOVES_SEARCH_MB: u64 = crate::coordinator::DEFAULT_MOVES_SEARCH_MB;

/// The default lease length, in ms.
pub const DEFAULT_LEASE_MS: u64 = 30_000;

/// The longest lease, in ms: one day (a deadline stays far from `Instant`'s range).
pub const MAX_LEASE_MS: u64 = 86_400_000;

/// The default job node budget.
pub const DEFAULT_JOB_BUDGET: u64 = crate::coordinator::DEFAULT_JOB_BUDGET;

/// The default job deadline, in ms.
pub const DEFAULT_JOB_DEADLINE_MS: u64 = crate::coordinator::DEFAULT_JOB_DEADLINE_MS;

/// Parses `--job-deadline-ms`: 0 (none) or
/// [`MIN_JOB_DEADLINE_MS`](solver_proto::work::MIN_JOB_DEADLINE_MS) to [`MAX_LEASE_MS`].
fn job_deadline_ms(s: &str) -> Result<u64, String> {
    let min = u64::from(solver_proto::work::MIN_JOB_DEADLINE_MS);
    let ms: u64 = s.parse().map_err(|e| format!("{e}"))?;
    if ms == 0 || (min..=MAX_LEASE_MS).contains(&ms) {
        Ok(ms)
    } else {
        Err(format!("0 (none) or {min} to {MAX_LEASE_MS}"))
    }
}

impl Config {
    /// Checks what the flags' parsers leave: --worker-token and --client-token
    /// ([`solver_proto::auth::check_token`]; a parser's error would print the secret). A start
    /// (`server::run`, `server::serve`) checks it too.
    ///
    /// # Errors
    /// A message naming the flag.
    pub fn check(&self) -> Result<(), String> {
        for (flag, token) in [
            ("--worker-token", &self.worker_token),
            ("--client-token", &self.client_token),
        ] {
            if let Some(t) = token {
                solver_proto::auth::check_token(t.secret()).map_err(|e| format!("{flag}: {e}"))?;
            }
        }
        Ok(())
    }

    /// A configuration for tests and embedding: listen on `addr`, store data in `data_dir`,
    /// text logs.
    pub fn new(addr: SocketAddr, data_dir: impl Into<PathBuf>) -> Self {
        Self {
            addr,
            data_dir: data_dir.into(),
            log_format: LogFormat::Text,
            drain_timeout_secs: DEFAULT_DRAIN_TIMEOUT_SECS,
            metrics_addr: None,
            lease_ms: DEFAULT_LEASE_MS,
            moves_search_mb: DEFAULT_MOVES_SEARCH_MB,
            job_node_budget: DEFAULT_JOB_BUDGET,
            job_deadline_ms: DEFAULT_JOB_DEADLINE_MS,
            worker_token: None,
            client_token: None,
            tls_cert: None,
            tls_key: None,
            check_config: false,
        }
    }

    /// The coordinator's tunables from these flags.
    pub fn coordinator(&self) -> crate::coordinator::CoordinatorConfig {
        crate::coordinator::CoordinatorConfig {
            lease: Duration::from_millis(self.lease_ms),
            default_job_budget: self.job_node_budget,
            job_deadline: Duration::from_millis(self.job_deadline_ms),
            moves_search_bytes: crate::coordinator::mib_bytes(self.moves_search_mb),
            ..Default::default()
        }
    }

    /// [`Config::drain_timeout_secs`] as a `Duration`.
    pub fn drain_timeout(&self) -> Duration {
        Duration::from_secs(self.drain_timeout_secs)
    }
}

/// How log lines are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, ValueEnum)]
pub enum LogFormat {
    /// Human-readable lines.
    #[default]
    Text,
    /// One JSON object per line, for log collectors.
    Json,
}

/// Accepts any non-empty path.
fn parse_data_dir(s: &str) -> Result<PathBuf, String> {
    if s.is_empty() {
        Err("the data directory must not be empty".to_owned())
    } else {
        Ok(PathBuf::from(s))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(args: &[&str]) -> Result<Config, clap::Error> {
        Config::try_parse_from(std::iter::once("solver-server").chain(args.iter().copied()))
    }

    #[test]
    fn defaults() {
        let c = parse(&[]).expect("defaults parse");
        // The environment may set SOLVER_*; only check when it does not.
        if std::env::var_os("SOLVER_ADDR").is_none() {
            assert_eq!(c.addr.to_string(), DEFAULT_ADDR);
        }
        if std::env::var_os("SOLVER_DATA_DIR").is_none() {
            assert_eq!(c.data_dir, PathBuf::from(DEFAULT_DATA_DIR));
        }
    }

    #[test]
    fn flags() {
        let c = parse(&[
            "--addr",
            "0.0.0.0:7000",
            "--data-dir",
            "/tmp/x",
            "--log-format",
            "json",
            "--drain-timeout-secs",
            "3",
            "--moves-search-mb",
            "64",
        ])
        .expect("flags parse");
        assert_eq!(c.coordinator().moves_search_bytes, 64 << 20);
        assert_eq!(c.addr, "0.0.0.0:7000".parse().expect("literal address"));
        assert_eq!(c.data_dir, PathBuf::from("/tmp/x"));
        assert_eq!(c.log_format, LogFormat::Json);
        assert_eq!(c.drain_timeout(), Duration::from_secs(3));
    }

    #[test]
    fn rejects_bad_values() {
        assert!(parse(&["--addr", "localhost"]).is_err());
        assert!(parse(&["--data-dir", ""]).is_err());
        assert!(parse(&["--log-format", "xml"]).is_err());
        assert!(parse(&["--drain-timeout-secs", "-1"]).is_err());
        assert!(parse(&["--lease-ms", "5"]).is_err());
        assert!(parse(&["--lease-ms", "86400001"]).is_err());
        assert!(parse(&["--lease-ms", "86400000"]).is_ok());
        assert!(parse(&["--job-node-budget", "0"]).is_err());
        assert!(parse(&["--moves-search-mb", "63"]).is_err());
        assert!(
            parse(&["--tls-cert", "/tmp/c.pem"]).is_err(),
            "cert without key"
        );
    }

    #[test]
    fn tokens_are_kept_but_never_printed() {
        let c = parse(&[
            "--worker-token",
            "w0rker-s3cret",
            "--client-token",
            "-cl1ent",
        ])
        .expect("tokens parse");
        assert_eq!(
            c.worker_token.as_ref().map(Token::secret),
            Some("w0rker-s3cret")
        );
        assert_eq!(c.client_token.as_ref().map(Token::secret), Some("-cl1ent"));
        let shown = format!("{c:?}");
        assert!(
            !shown.contains("s3cret") && !shown.contains("cl1ent"),
            "{shown}"
        );
    }

    #[test]
    fn clap_definition_is_consistent() {
        use clap::CommandFactory;
        Config::command().debug_assert();
    }
}
