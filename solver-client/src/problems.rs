//! Problems on a coordinator: the distributed `solver seven solve` (embedded coordinator and
//! a worker in this process, or a remote `--server`), `solver seven submit`, and `solver status`,
//! `watch`, `list`, `cancel`, `result`.

use std::path::PathBuf;
use std::time::Duration;

use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};
use serde_json::json;
use solver_proto::auth::{BearerToken, Token};
use solver_proto::v1::{self, rules_client::RulesClient, solver_client::SolverClient};
use tokio_stream::StreamExt;
use tokio_util::sync::CancellationToken;
use tonic::codegen::InterceptedService;
use tonic::transport::Channel;

use crate::cli::{server_error, usage};

/// How to reach a server named by `--server`: its token and TLS (unused without a server, so
/// that the variables may stay set).
#[derive(Debug, Clone, Default, Args)]
pub struct Access {
    /// Bearer token for the server's Solver and Rules services (its --client-token): 1 or more
    /// printable ASCII characters without spaces. Prefer the environment variable.
    #[arg(
        long,
        env = "SOLVER_CLIENT_TOKEN",
        hide_env_values = true,
        allow_hyphen_values = true
    )]
    pub token: Option<Token>,
    /// PEM CA certificate to verify the server's TLS certificate with (an `https://` URL).
    #[arg(long, env = "SOLVER_TLS_CA")]
    pub tls_ca: Option<PathBuf>,
    /// Domain name expected in the server's certificate (default: the URL's host; unused
    /// without --tls-ca).
    #[arg(long, env = "SOLVER_TLS_DOMAIN")]
    pub tls_domain: Option<String>,
}

/// Where a win query (`solver havannah`, `hex`, `renju`) is answered: in this process, or by
/// the `Rules` service of `--server` (not `$SOLVER_SERVER`, the problem commands' default).
#[derive(Debug, Clone, Args)]
pub struct Remote {
    /// Ask this server (e.g. `http://127.0.0.1:50051`) instead of computing in-process.
    #[arg(long, value_name = "URL")]
    pub server: Option<String>,
    #[command(flatten)]
    pub access: Access,
}

impl Remote {
    /// The `Rules` service of `--server`, connected (see [`channel`]); `None` without
    /// `--server`.
    pub async fn rules(&self) -> anyhow::Result<Option<Rules>> {
        Ok(match &self.server {
            None => None,
            Some(url) => Some(RulesClient::new(channel(url, &self.access).await?)),
        })
    }
}

/// Where a win query is answered: `solver_core` in this process, or the `Rules` service of
/// `--server`.
pub enum Backend {
    /// `solver_core` in this process (no `--server`).
    Local,
    /// The `Rules` service of `--server`, connected.
    Remote(Box<Rules>),
}

impl Backend {
    /// The server of `remote`, connected, or this process without `--server`.
    pub async fn new(remote: &Remote) -> anyhow::Result<Self> {
        Ok(match remote.rules().await? {
            None => Backend::Local,
            Some(rules) => Backend::Remote(Box::new(rules)),
        })
    }

    /// Answers `req` with `local` in this process, or with the `Rules` call `remote` on the
    /// server, whose `INVALID_ARGUMENT` is a usage error ([`server_error`]).
    pub async fn answer<Req, Resp>(
        &mut self,
        req: Req,
        local: impl FnOnce(Req) -> anyhow::Result<Resp>,
        remote: impl AsyncFnOnce(&mut Rules, Req) -> Result<tonic::Response<Resp>, tonic::Status>,
    ) -> anyhow::Result<Resp> {
        match self {
            Backend::Local => local(req),
            Backend::Remote(client) => remote(client, req)
                .await
                .map(tonic::Response::into_inner)
                .map_err(server_error),
        }
    }
}

/// Where the coordinator is.
#[derive(Debug, Clone, Args)]
pub struct ServerArgs {
    /// The coordinator's URL.
    #[arg(long, env = "SOLVER_SERVER", default_value = "http://127.0.0.1:50051")]
    pub server: String,
    #[command(flatten)]
    pub access: Access,
}

impl ServerArgs {
    /// A coordinator at `url` without token or TLS (an embedded one).
    pub fn local(url: &str) -> Self {
        Self {
            server: url.to_owned(),
            access: Access::default(),
        }
    }
}

/// A problem id argument with the server options.
#[derive(Debug, Args)]
pub struct IdArgs {
    /// The problem id (from `submit` or `list`).
    pub id: String,
    #[command(flatten)]
    pub server: ServerArgs,
    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
}

/// `solver list`.
#[derive(Debug, Args)]
pub struct ListArgs {
    #[command(flatten)]
    pub server: ServerArgs,
    /// Print JSON instead of a table.
    #[arg(long)]
    pub json: bool,
}

type Client = SolverClient<Connection>;

/// A connection to a server that sends `--token` (if any) with every call ([`channel`]).
pub type Connection = InterceptedService<Channel, BearerToken>;

/// A channel to `url` with `access`'s TLS and token, connected at once (so a wrong address is
/// one clear error).
pub async fn channel(url: &str, access: &Access) -> anyhow::Result<Connection> {
    crate::cli::note_server_url(url);
    let endpoint =
        solver_proto::auth::endpoint(url, access.tls_ca.as_deref(), access.tls_domain.as_deref())
            .map_err(usage)?
            .connect_timeout(Duration::from_secs(10));
    let token =
        BearerToken::new(access.token.as_ref()).map_err(|e| usage(format!("--token: {e}")))?;
    let channel = endpoint
        .connect()
        .await
        .map_err(|e| anyhow::Error::new(e).context(format!("cannot connect to {url}")))?;
    Ok(InterceptedService::new(channel, token))
}

/// A client of a server's `Rules` service ([`Remote::rules`]).
pub type Rules = RulesClient<Connection>;

/// Connects to the coordinator (see [`channel`]).
pub async fn connect(server: &ServerArgs) -> anyhow::Result<Client> {
    Ok(SolverClient::new(
        channel(&server.server, &server.access).await?,
    ))
}

/// `solver health`.
#[derive(Debug, Args)]
pub struct HealthArgs {
    #[command(flatten)]
    pub server: ServerArgs,
    /// The service to ask about (`solver.v1.Solver`, `solver.v1.Work`, `solver.v1.Rules`);
    /// the default, empty, asks about the whole server.
    #[arg(long, default_value = "")]
    pub service: String,
    /// Seconds to wait for the answer, connecting included.
    #[arg(long, default_value_t = 5, value_parser = clap::value_parser!(u64).range(1..=3600))]
    pub timeout_secs: u64,
}

/// Runs `solver health`: asks the server's `grpc.health.v1.Health/Check` and prints the
/// status (`SERVING`, `NOT_SERVING`, ...; a draining server refuses the connection instead).
/// Anything but `SERVING` is an error (exit 1), as are no answer within `--timeout-secs` and
/// an unknown `--service` (`NotFound`), so that the command serves as a container's health
/// check.
pub async fn health(args: HealthArgs) -> anyhow::Result<()> {
    use tonic_health::pb::{HealthCheckRequest, health_client::HealthClient};
    let url = &args.server.server;
    let check = async {
        let mut client = HealthClient::new(channel(url, &args.server.access).await?);
        let request = HealthCheckRequest {
            service: args.service.clone(),
        };
        let answer = client.check(request).await.map_err(server_error)?;
        anyhow::Ok(answer.into_inner().status())
    };
    let status = tokio::time::timeout(Duration::from_secs(args.timeout_secs), check)
        .await
        .map_err(|_| anyhow::anyhow!("{url}: no answer within {} s", args.timeout_secs))??;
    let name = status.as_str_name();
    outln!("{name}");
    if name != "SERVING" {
        let what = match args.service.as_str() {
            "" => String::new(),
            service => format!(" ({service})"),
        };
        anyhow::bail!("{url}{what} is {name}");
    }
    Ok(())
}

/// Problem-management commands other than submit and solve.
#[derive(Debug, Clone, Copy)]
pub enum Manage {
    /// `solver status`.
    Status,
    /// `solver watch`.
    Watch,
    /// `solver cancel`.
    Cancel,
    /// `solver result`.
    Result,
}

/// Runs `solver status|watch|cancel|result ID`.
pub async fn manage(what: Manage, args: IdArgs) -> anyhow::Result<()> {
    let mut c = connect(&args.server).await?;
    let req = v1::GetProblemRequest {
        problem_id: args.id.clone(),
    };
    match what {
        Manage::Status => {
            let p = c.get_problem(req).await.map_err(server_error)?.into_inner();
            print_problem(&p, args.json);
        }
        Manage::Cancel => {
            let p = c
                .cancel_problem(req)
                .await
                .map_err(server_error)?
                .into_inner();
            print_problem(&p, args.json);
        }
        Manage::Watch => {
            let p = watch(&mut c, &args.id, args.json).await?;
            // As JSON lines, the final state was the last line printed.
            if !args.json {
                print_problem(&p, false);
            }
        }
        Manage::Result => {
            let r = c.get_result(req).await.map_err(server_error)?.into_inner();
            if args.json {
                outln!("{}", result_json(&args.id, &r));
            } else {
                print_result(&r);
            }
        }
    }
    Ok(())
}

/// Runs `solver list`.
pub async fn list(args: ListArgs) -> anyhow::Result<()> {
    let mut c = connect(&args.server).await?;
    // Page by page, as many as an answer may hold, until none is left.
    let mut problems = Vec::new();
    let mut page_token = String::new();
    loop {
        let page = c
            .list_problems(v1::ListProblemsRequest {
                page_size: solver_proto::MAX_LIST_PAGE_SIZE,
                page_token: page_token.clone(),
            })
            .await
            .map_err(server_error)?
            .into_inner();
        if page.next_page_token.is_empty() {
            problems.extend(page.problems);
            break;
        }
        // A page that leads nowhere new would be asked for again without end.
        if page.problems.is_empty() || page.next_page_token == page_token {
            anyhow::bail!(
                "server: ListProblems gave the page token {:?} again or with no problems",
                page.next_page_token
            );
        }
        problems.extend(page.problems);
        page_token = page.next_page_token;
    }
    if args.json {
        let all: Vec<_> = problems.iter().map(problem_json).collect();
        outln!("{}", serde_json::Value::Array(all));
        return Ok(());
    }
    outln!(
        "{:>6}  {:<9}  {:>3}  {:<7}  {:<7}  {:>8}  {:>12}  {:>10}",
        "ID",
        "STATUS",
        "N",
        "TO MOVE",
        "WINNER",
        "JOBS",
        "NODES",
        "ELAPSED"
    );
    for p in &problems {
        let pr = p.progress.unwrap_or_default();
        let pos = p.spec.as_ref().and_then(|s| s.position.as_ref());
        outln!(
            "{:>6}  {:<9}  {:>3}  {:<7}  {:<7}  {:>8}  {:>12}  {:>9.1}s",
            p.problem_id,
            status_name(p.status),
            pos.map_or(0, |p| p.cols),
            pos.map_or("?", |p| side_name(p.to_move)),
            p.result.as_ref().map_or("-", |r| winner_name(r.winner)),
            pr.jobs_done,
            pr.worker_nodes,
            pr.elapsed_ms as f64 / 1000.0
        );
    }
    Ok(())
}

/// Submits `spec` and prints the problem id (`solver seven submit`).
pub async fn submit(
    server: &ServerArgs,
    spec: v1::ProblemSpec,
    request_id: Option<String>,
    json: bool,
) -> anyhow::Result<()> {
    let mut c = connect(server).await?;
    let r = c
        .submit(v1::SubmitRequest {
            request_id: request_id.unwrap_or_default(),
            spec: Some(spec),
        })
        .await
        .map_err(server_error)?
        .into_inner();
    if json {
        outln!(
            "{}",
            json!({"problem_id": r.problem_id, "created": r.created})
        );
    } else {
        outln!("{}", r.problem_id);
    }
    Ok(())
}

/// Options of the distributed solve.
#[derive(Debug, Clone)]
pub struct SolveOptions {
    /// A remote coordinator; `None`: embedded.
    pub server: Option<ServerArgs>,
    /// The embedded coordinator's data directory.
    pub data_dir: PathBuf,
    /// Search slots of the embedded coordinator's local worker.
    pub workers: u32,
    /// MiB of the embedded worker's tables (`solver-worker --table-mb`).
    pub table_mb: usize,
    /// Print JSON.
    pub json: bool,
}

/// The embedded coordinator and its worker, stopped by [`Embedded::stop`].
pub struct Embedded {
    /// The coordinator's URL (127.0.0.1, a free port).
    pub url: String,
    stop_server: Option<tokio::sync::oneshot::Sender<()>>,
    server: tokio::task::JoinHandle<Result<(), solver_server::server::RunError>>,
    graceful: CancellationToken,
    abort: CancellationToken,
    workers: tokio::task::JoinHandle<
        Result<std::sync::Arc<solver_worker::Summary>, solver_worker::Error>,
    >,
}

impl Embedded {
    /// Starts a coordinator on `data_dir` and one worker with `workers` slots and `table_mb`
    /// MiB of tables, all in this process.
    pub async fn start(
        data_dir: &std::path::Path,
        workers: u32,
        table_mb: usize,
    ) -> anyhow::Result<Self> {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
        let addr = listener.local_addr()?;
        let mut config = solver_server::config::Config::new(addr, data_dir);
        config.drain_timeout_secs = 2;
        let (stop_tx, stop_rx) = tokio::sync::oneshot::channel::<()>();
        let server = tokio::spawn(solver_server::server::run(config, listener, async {
            let _ = stop_rx.await;
        }));
        let url = format!("http://{addr}");
        let (graceful, abort) = (CancellationToken::new(), CancellationToken::new());
        let mut wc = solver_worker::Config::new(url.clone(), workers);
        wc.name = Some(format!("local-{}", std::process::id()));
        wc.table_mb = table_mb;
        let workers = tokio::spawn(solver_worker::run(wc, graceful.clone(), abort.clone()));
        Ok(Self {
            url,
            stop_server: Some(stop_tx),
            server,
            graceful,
            abort,
            workers,
        })
    }

    /// Waits until the coordinator serves (its store open and its services up: a health check
    /// of `solver.v1.Solver` answers `SERVING`), so that a timed solve (`seven bench
    /// --workers`) counts the solve and not the coordinator's start. A coordinator that stopped
    /// instead is the error, whose cause [`Embedded::stop`] gives.
    pub async fn serving(&self) -> anyhow::Result<()> {
        use tonic_health::pb::health_check_response::ServingStatus;
        use tonic_health::pb::{HealthCheckRequest, health_client::HealthClient};
        loop {
            if self.server.is_finished() {
                anyhow::bail!("the embedded coordinator stopped before it served");
            }
            let check = async {
                let mut client = HealthClient::new(channel(&self.url, &Access::default()).await?);
                let request = HealthCheckRequest {
                    service: v1::solver_server::SERVICE_NAME.to_string(),
                };
                let answer = client.check(request).await?;
                anyhow::Ok(answer.into_inner().status())
            };
            // Bounded, so that a coordinator that stops while opening its store is seen.
            let answer = tokio::time::timeout(Duration::from_millis(100), check).await;
            if let Ok(Ok(ServingStatus::Serving)) = answer {
                return Ok(());
            }
            tokio::time::sleep(Duration::from_millis(1)).await;
        }
    }

    /// Hands the workers' jobs back, drains and closes the coordinator (the store is flushed).
    pub async fn stop(mut self) -> anyhow::Result<()> {
        self.graceful.cancel();
        self.abort.cancel();
        let _ = self.workers.await;
        if let Some(tx) = self.stop_server.take() {
            let _ = tx.send(());
        }
        self.server
            .await
            .map_err(|e| anyhow::anyhow!("the coordinator task failed: {e}"))?
            .map_err(|e| anyhow::anyhow!("coordinator: {e}"))
    }
}

/// Solves `spec` on a coordinator (embedded unless `opts.server`), showing progress, and prints
/// the verdict. Ctrl-C stops cleanly; a rerun with the same data directory resumes.
pub async fn solve(spec: v1::ProblemSpec, opts: SolveOptions) -> anyhow::Result<()> {
    let (embedded, server) = match &opts.server {
        Some(s) => (None, s.clone()),
        None => {
            eprintln!("data directory: {}", opts.data_dir.display());
            let e = Embedded::start(&opts.data_dir, opts.workers, opts.table_mb).await?;
            let server = ServerArgs::local(&e.url);
            (Some(e), server)
        }
    };
    let outcome = tokio::select! {
        r = solve_on(&server, spec, embedded.is_none()) => r,
        () = async { let _ = tokio::signal::ctrl_c().await; } => Err(anyhow::anyhow!(
            "interrupted; rerun the same command to resume{}",
            if embedded.is_some() { format!(" (data directory {})", opts.data_dir.display()) } else { String::new() }
        )),
    };
    let stopped = match embedded {
        Some(e) => {
            // Closing takes up to a few seconds (jobs handed back, the store flushed); a
            // second Ctrl-C exits at once, as a crash would (accepted work is kept).
            tokio::spawn(async {
                if tokio::signal::ctrl_c().await.is_ok() {
                    eprintln!("exiting at once; the running jobs' leases will expire");
                    std::process::exit(1);
                }
            });
            e.stop().await
        }
        None => Ok(()),
    };
    // The embedded coordinator's own failure (its data directory in use by another run, say)
    // is the cause of any failure to reach it: it is reported first.
    stopped?;
    let (id, problem) = outcome?;
    if opts.json {
        let mut out = problem_json(&problem);
        out["problem_id"] = json!(id);
        outln!("{out}");
    } else {
        print_problem(&problem, false);
    }
    if problem.status != v1::ProblemStatus::Solved as i32 {
        anyhow::bail!(
            "problem {id} was cancelled; run the same command again to submit it anew (the values it proved are kept)"
        );
    }
    Ok(())
}

/// Submits (idempotently: a rerun names the same problem) and watches to the end; with
/// `announce`, says on stderr which problem it waits for, and where (a remote coordinator's
/// problem waits for workers the user starts, with no progress shown off a terminal).
///
/// The request id is derived from the spec: `solve-` and 16 hex digits of its hash, then `-2`,
/// `-3`, ... past each problem of the spec that was cancelled, so that a rerun after a cancel
/// submits the spec again (and the rerun after that resumes the new problem).
pub async fn solve_on(
    server: &ServerArgs,
    spec: v1::ProblemSpec,
    announce: bool,
) -> anyhow::Result<(String, v1::Problem)> {
    let mut c = connect(server).await?;
    let base = format!("solve-{:016x}", fnv1a(&format!("{spec:?}")));
    let mut k = 1u32;
    let id = loop {
        let request_id = if k == 1 {
            base.clone()
        } else {
            format!("{base}-{k}")
        };
        let r = c
            .submit(v1::SubmitRequest {
                request_id,
                spec: Some(spec.clone()),
            })
            .await
            .map_err(server_error)?
            .into_inner();
        let cancelled = !r.created
            && c.get_problem(v1::GetProblemRequest {
                problem_id: r.problem_id.clone(),
            })
            .await
            .map_err(server_error)?
            .into_inner()
            .status
                == v1::ProblemStatus::Cancelled as i32;
        if !cancelled {
            break r.problem_id;
        }
        k += 1;
    };
    if announce {
        eprintln!(
            "problem {id} on {}: waiting for its workers to solve it",
            server.server
        );
    }
    let p = watch(&mut c, &id, false).await?;
    Ok((id, p))
}

/// FNV-1a, 64 bits: a stable name for a spec across runs and builds (not for security).
fn fnv1a(text: &str) -> u64 {
    text.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// Follows a problem until it finishes, with a spinner on a terminal (or JSON lines with
/// `json_lines`); returns its final state.
async fn watch(c: &mut Client, id: &str, json_lines: bool) -> anyhow::Result<v1::Problem> {
    let mut stream = c
        .watch_problem(v1::GetProblemRequest {
            problem_id: id.to_owned(),
        })
        .await
        .map_err(server_error)?
        .into_inner();
    let bar = ProgressBar::new_spinner();
    bar.set_style(
        ProgressStyle::with_template("{spinner} {elapsed_precise} {msg}")
            .expect("a valid template"),
    );
    bar.enable_steady_tick(Duration::from_millis(120));
    let mut last = None;
    while let Some(p) = stream.next().await {
        let p = match p {
            Ok(p) => p,
            Err(status) => {
                bar.finish_and_clear();
                return Err(server_error(status));
            }
        };
        if json_lines {
            bar.suspend(|| outln!("{}", problem_json(&p)));
        }
        bar.set_message(progress_line(&p));
        last = Some(p);
    }
    bar.finish_and_clear();
    match last {
        Some(p) if p.status != v1::ProblemStatus::Running as i32 => Ok(p),
        Some(_) => Err(anyhow::anyhow!(
            "the server ended the watch of problem {id} while it was still running"
        )),
        None => Err(anyhow::anyhow!(
            "the server closed the watch without an answer"
        )),
    }
}

fn num(x: u64) -> String {
    if x == u64::MAX {
        "inf".into()
    } else {
        x.to_string()
    }
}

fn progress_line(p: &v1::Problem) -> String {
    let pr = p.progress.unwrap_or_default();
    format!(
        "problem {}: root pn {} dn {} | DAG {} nodes ({} solved) | {:.0} nodes/s | {} jobs in flight, {} done",
        p.problem_id,
        num(pr.root_pn),
        num(pr.root_dn),
        pr.dag_nodes,
        pr.dag_solved,
        pr.nodes_per_second,
        pr.jobs_in_flight,
        pr.jobs_done
    )
}

fn status_name(s: i32) -> &'static str {
    match v1::ProblemStatus::try_from(s) {
        Ok(v1::ProblemStatus::Running) => "running",
        Ok(v1::ProblemStatus::Solved) => "solved",
        Ok(v1::ProblemStatus::Cancelled) => "cancelled",
        _ => "unknown",
    }
}

/// The winner's name (`maker`, `breaker`, or `unknown` for an unsolved problem).
pub fn winner_name(w: i32) -> &'static str {
    match v1::Winner::try_from(w) {
        Ok(v1::Winner::Maker) => "maker",
        Ok(v1::Winner::Breaker) => "breaker",
        _ => "unknown",
    }
}

fn side_name(s: i32) -> &'static str {
    match v1::Side::try_from(s) {
        Ok(v1::Side::Maker) => "maker",
        Ok(v1::Side::Breaker) => "breaker",
        _ => "?",
    }
}

fn progress_json(pr: &v1::Progress) -> serde_json::Value {
    json!({
        "root_pn": pr.root_pn, "root_dn": pr.root_dn,
        "dag_nodes": pr.dag_nodes, "dag_solved": pr.dag_solved,
        "jobs_done": pr.jobs_done, "jobs_in_flight": pr.jobs_in_flight,
        "jobs_expired": pr.jobs_expired, "workers_seen": pr.workers_seen,
        "worker_nodes": pr.worker_nodes, "nodes_per_second": pr.nodes_per_second,
        "elapsed_ms": pr.elapsed_ms,
    })
}

fn problem_json(p: &v1::Problem) -> serde_json::Value {
    let pos = p.spec.as_ref().and_then(|s| s.position.as_ref());
    json!({
        "problem_id": p.problem_id,
        "status": status_name(p.status),
        "n": pos.map(|p| p.cols),
        "board": pos.map(|p| p.rows.clone()),
        "to_move": pos.map(|p| side_name(p.to_move)),
        "disabled_techniques": p.spec.as_ref().map(|s| s.disabled_techniques.clone()),
        "winner": p.result.as_ref().map(|r| winner_name(r.winner)),
        "winning_moves": p.result.as_ref().map(|r| r.winning_moves.clone()),
        "progress": progress_json(&p.progress.unwrap_or_default()),
        "submitted_unix_ms": p.submitted_unix_ms,
    })
}

fn result_json(id: &str, r: &v1::ProblemResult) -> serde_json::Value {
    json!({
        "problem_id": id,
        "winner": winner_name(r.winner),
        "winning_moves": r.winning_moves,
        "progress": progress_json(&r.progress.unwrap_or_default()),
    })
}

fn print_problem(p: &v1::Problem, json: bool) {
    if json {
        outln!("{}", problem_json(p));
        return;
    }
    let pos = p.spec.as_ref().and_then(|s| s.position.as_ref());
    outln!("problem:        {}", p.problem_id);
    if let Some(pos) = pos {
        outln!(
            "position:       {} ({} to move, n = {})",
            pos.rows.join("/"),
            side_name(pos.to_move),
            pos.cols
        );
    }
    outln!("status:         {}", status_name(p.status));
    match &p.result {
        Some(r) => print_result(r),
        None => print_progress(&p.progress.unwrap_or_default()),
    }
}

fn print_result(r: &v1::ProblemResult) {
    outln!("winner:         {}", winner_name(r.winner));
    if !r.winning_moves.is_empty() {
        outln!("winning moves:  {}", r.winning_moves.join(" "));
    }
    print_progress(&r.progress.unwrap_or_default());
}

fn print_progress(pr: &v1::Progress) {
    outln!("root pn / dn:   {} / {}", num(pr.root_pn), num(pr.root_dn));
    outln!(
        "DAG:            {} nodes, {} solved",
        pr.dag_nodes,
        pr.dag_solved
    );
    outln!(
        "jobs:           {} done, {} in flight, {} expired; {} workers",
        pr.jobs_done,
        pr.jobs_in_flight,
        pr.jobs_expired,
        pr.workers_seen
    );
    outln!(
        "nodes:          {} searched by workers ({:.0} nodes/s)",
        pr.worker_nodes,
        pr.nodes_per_second
    );
    outln!("time:           {:.3} s", pr.elapsed_ms as f64 / 1000.0);
}

#[cfg(test)]
mod tests {
    use super::Embedded;

    /// `serving` returns once the coordinator answers SERVING, and stop closes it cleanly.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn an_embedded_coordinator_is_serving_once_started() {
        let dir = tempfile::tempdir().expect("tempdir");
        let embedded = Embedded::start(dir.path(), 1, 64).await.expect("start");
        tokio::time::timeout(std::time::Duration::from_secs(30), embedded.serving())
            .await
            .expect("serving returns")
            .expect("serving");
        // Serving means the store is open: RocksDB has written its CURRENT file, and the
        // Solver service answers.
        assert!(dir.path().join("CURRENT").exists(), "the store is open");
        let mut client = super::SolverClient::new(
            super::channel(&embedded.url, &super::Access::default())
                .await
                .expect("connect"),
        );
        let problems = client
            .list_problems(super::v1::ListProblemsRequest::default())
            .await
            .expect("ListProblems answers");
        assert!(problems.into_inner().problems.is_empty(), "a new store");
        embedded.stop().await.expect("a clean stop");
    }

    /// A coordinator that cannot open its data directory (a file) never serves: `serving`
    /// returns an error instead of waiting forever, and `stop` gives the cause.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn serving_ends_when_the_coordinator_cannot_start() {
        let dir = tempfile::tempdir().expect("tempdir");
        let file = dir.path().join("a-file");
        std::fs::write(&file, "").expect("write");
        let embedded = Embedded::start(&file, 1, 64).await.expect("start");
        let waited = tokio::time::timeout(std::time::Duration::from_secs(30), embedded.serving())
            .await
            .expect("serving returns");
        assert!(
            waited.is_err(),
            "a coordinator without a store never serves"
        );
        let cause = embedded.stop().await.expect_err("the coordinator's error");
        assert!(
            cause.to_string().contains("cannot open the data directory"),
            "{cause}"
        );
    }
}
