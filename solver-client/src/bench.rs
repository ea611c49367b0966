//! Benchmarks that print figures (never timed tests): `solver seven bench` (the engine per
//! board width, the paper's ablation table, and the distributed solve against the engine),
//! `solver bench-coordinator` (the coordinator alone) and `solver havannah bench` (win queries
//! in-process and over gRPC). Every ratio is against a baseline measured in the same run.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use anyhow::Context;
use clap::Args;
use solver_core::games::seven::{
    Cols, Position, Rules, SevenGame, Side, SolveReport, Technique, solve,
};
use solver_core::pns::{Limits, Outcome, Search, Shared, Value};
use solver_proto::convert::seven::{pack, unpack};
use solver_proto::v1::{self, solver_client::SolverClient, work_client::WorkClient};
use tonic_health::pb::HealthCheckRequest;
use tonic_health::pb::health_client::HealthClient;

use crate::cli::usage;
use crate::problems::{Connection, Embedded, solve_on};

/// Arguments of `solver seven bench`.
#[derive(Debug, Args)]
pub struct SevenBenchArgs {
    /// Board widths to solve (empty board, Maker first). Default: 9 10 11, or 7 with
    /// --ablation (the paper's Table II is for n = 7).
    #[arg(long, num_args = 1..)]
    pub cols: Vec<u32>,
    /// Print the paper's ablation table instead: nodes and time with each technique alone on
    /// top of plain PNS with the mirror-canonical transposition table (Table II).
    #[arg(long, conflicts_with_all = ["workers", "threads", "interleaved"])]
    pub ablation: bool,
    /// Also solve each n on an embedded coordinator with this many local worker slots (a list:
    /// `--workers 1 2`), each in a fresh temporary data directory, and compare the wall time
    /// from submit to verdict (timed once the coordinator serves) with the direct engine's in
    /// this run.
    #[arg(long, num_args = 1.., value_parser = clap::value_parser!(u32).range(1..=256))]
    pub workers: Vec<u32>,
    /// Also solve each n in this process with the engine's shared search worked on by this
    /// many threads at once (a list: `--threads 1 2`): one runs it, the others help, as a
    /// worker's slots do. Compare the wall time with the direct engine's.
    #[arg(long, num_args = 1.., value_parser = clap::value_parser!(u32).range(1..=256))]
    pub threads: Vec<u32>,
    /// Also run each n's search as K threads that each select and expand their own leaf would
    /// (the shared search before its runs kept several leaves), but in one thread and
    /// reproducibly (a list: `--interleaved 2`; see `Search::run_interleaved`): the order in
    /// which the K expansions under way end is drawn from exponential times, with seeds 1 to
    /// --repeat (one run for K = 1, the direct search). Each row is one draw of the order noise
    /// K threads meet, without the machine's timing; its nodes are compared with the direct
    /// run's. With the same build, the same seed gives the same run.
    #[arg(long, num_args = 1.., value_parser = clap::value_parser!(u32).range(1..=256))]
    pub interleaved: Vec<u32>,
    /// Run each --threads and --workers row this many times, and each --interleaved K > 1 with
    /// this many seeds: searches with several threads depend on their timing (or, interleaved,
    /// on the seed), so one run is one draw. The runs go in rounds, each running every K once
    /// (`--workers 1 2 --repeat 3`: 2 apart, 1, 2 in each round), and each K-thread run is
    /// compared with the one-thread run of its round, so that the machine's slow spells fall
    /// on both alike. Each round starts with a "K apart" row for each K > 1 of them: K direct
    /// searches at once, sharing nothing (K tables in memory), whose summed speed is the most
    /// nodes per second K threads reach on this machine now; each K-thread (K-slot) run's nodes
    /// per second is also compared with that summed speed of its round's K apart row. Just
    /// before and after each run of K > 1 threads (slots) the bench measures the round trip of
    /// a cache line between two threads' cores (nanoseconds, a mean of 100,000 trips or of as
    /// many as take 100 ms), printed with the speed-ups: the higher, the less a shared search
    /// gains from its threads (on a virtual machine it moves with where the host puts the
    /// cores, also within a run).
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=1000))]
    pub repeat: u32,
    /// Node budget of one worker job for --workers (0 = the coordinator's default, 1,000,000;
    /// else 1,000 to 100,000,000).
    #[arg(long, default_value_t = 0, value_parser = crate::seven::job_budget)]
    pub job_budget: u64,
    /// MiB of tables of the embedded worker for --workers (see `solver-worker --table-mb`).
    #[arg(long, default_value_t = 4096, value_parser = solver_worker::table_mb_parser())]
    pub table_mb: usize,
    /// Stop each direct search once its DAG holds this many nodes (the row then reads
    /// "unknown").
    #[arg(long)]
    pub max_nodes: Option<u64>,
    /// Cap each direct search's table at this many MiB: above it the search frees solved and
    /// unreachable subtrees and collapses the least recently used unsolved subtrees into leaves
    /// (searched again when needed) until the table is below half the cap. 64 to 2^24, as
    /// `solver-worker --table-mb`.
    #[arg(long, value_parser = solver_worker::table_mb_parser())]
    pub max_table_mb: Option<usize>,
    /// Switch a PNS+ technique off in every run (repeatable; the names of `solver seven solve
    /// --disable`), e.g. to measure what one technique brings on a large board. Not with
    /// --ablation, which switches techniques itself.
    #[arg(
        long = "disable",
        value_name = "TECHNIQUE",
        conflicts_with = "ablation"
    )]
    pub disable: Vec<String>,
}

/// Arguments of `solver bench-coordinator`.
#[derive(Debug, Args)]
pub struct CoordinatorBenchArgs {
    /// Seconds per phase (the health-check baseline, then leases and reports).
    #[arg(long, default_value_t = 5, value_parser = clap::value_parser!(u64).range(1..=3600))]
    pub secs: u64,
    /// Synthetic workers (concurrent gRPC callers) over two connections.
    #[arg(long, default_value_t = 8, value_parser = clap::value_parser!(u64).range(1..=4096))]
    pub workers: u64,
}

/// Arguments of `solver havannah bench`.
#[derive(Debug, Args)]
pub struct HavannahBenchArgs {
    /// Board sizes: cells per side, 2..=32 (a list).
    #[arg(long, num_args = 1.., default_values_t = [4, 10],
          value_parser = clap::value_parser!(u32).range(2..=32))]
    pub layers: Vec<u32>,
    /// Random positions per size: random games stopped at a random move, every third after
    /// its last move (the winning one, so that witnesses are built, unless the board filled
    /// first). At most 10,000 (a request holds the whole (2L - 1)^2 array: 16 KB at L = 32).
    #[arg(long, default_value_t = 300, value_parser = clap::value_parser!(u64).range(1..=10_000))]
    pub positions: u64,
    /// Seconds per phase (the health-check baseline, then per size in-process and over gRPC).
    #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u64).range(1..=3600))]
    pub secs: u64,
    /// Concurrent gRPC callers, over two connections (one for one caller).
    #[arg(long, default_value_t = 8, value_parser = clap::value_parser!(u64).range(1..=4096))]
    pub callers: u64,
    /// Seed of the random games (same seed, same positions).
    #[arg(long, default_value_t = 7)]
    pub seed: u64,
    /// Query this server's `Rules` (e.g. `http://127.0.0.1:50051`) over gRPC instead of one
    /// started in this process on loopback (the in-process figures are this process's either
    /// way).
    #[arg(long, value_name = "URL")]
    pub server: Option<String>,
    /// --server's token and TLS (unused without --server).
    #[command(flatten)]
    pub access: crate::problems::Access,
}

/// Peak resident set size of this process since the last [`reset_peak_rss`], in bytes (Linux
/// `VmHWM`); `None` where /proc is not available. It includes heap the allocator kept from
/// earlier runs in this process, so only the first run's figure is the run's alone; the
/// engine's own peak ("peak table", [`solver_core::pns::Stats::peak_bytes`]) is exact per run.
fn peak_rss() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

/// Resets the peak RSS to the current RSS (Linux `clear_refs` value 5); a no-op elsewhere.
fn reset_peak_rss() {
    let _ = std::fs::write("/proc/self/clear_refs", "5");
}

fn mib(bytes: Option<u64>) -> String {
    bytes.map_or_else(|| "n/a".into(), |b| format!("{} MiB", b / (1024 * 1024)))
}

fn verdict(outcome: Outcome) -> &'static str {
    match outcome {
        Outcome::Solved(Value::Proven) => "maker",
        Outcome::Solved(Value::Disproven) => "breaker",
        Outcome::Unknown { .. } => "unknown",
    }
}

fn empty_board(n: u32) -> anyhow::Result<Position> {
    let cols = Cols::try_from(n).map_err(|e| usage(format!("--cols: {e}")))?;
    Ok(Position::empty(cols, Side::Maker))
}

/// The limits of a direct or shared engine run (--max-nodes, --max-table-mb).
fn limits(args: &SevenBenchArgs) -> Limits {
    Limits {
        max_nodes: args.max_nodes,
        max_bytes: args.max_table_mb.map(|m| m.saturating_mul(1024 * 1024)),
        ..Limits::default()
    }
}

/// One direct engine run on its own blocking thread, with the peak RSS it reached.
async fn direct(
    pos: Position,
    disabled: Vec<Technique>,
    args: &SevenBenchArgs,
) -> anyhow::Result<(SolveReport, Option<u64>)> {
    reset_peak_rss();
    let limits = limits(args);
    let report = tokio::task::spawn_blocking(move || solve(pos, &disabled, &limits, false))
        .await
        .map_err(|e| anyhow::anyhow!("the search failed: {e}"))?;
    Ok((report, peak_rss()))
}

/// The game of `pos` with every technique but `disabled` on: the root of a shared or an
/// interleaved run.
fn root_game(pos: Position, disabled: &[Technique]) -> anyhow::Result<SevenGame> {
    SevenGame::new(pos, Rules::new(pos.cols(), disabled)).map_err(anyhow::Error::msg)
}

/// One solve of `pos` by the engine's shared search ([`Shared`]) with `threads` threads: one
/// runs it from the root until it is solved or a limit is reached, the others help it
/// ([`Shared::help`]), as a worker's slots do. The outcome, nodes created and wall time in
/// seconds.
fn shared_solve(
    pos: Position,
    disabled: &[Technique],
    threads: u32,
    limits: &Limits,
) -> anyhow::Result<(Outcome, u64, f64)> {
    let root = root_game(pos, disabled)?;
    let shared = Shared::new(Search::new(root.clone()), threads as usize);
    let start = Instant::now();
    let helpers = threads.saturating_sub(1) as usize;
    shared
        .run_helped(helpers, root, limits, &AtomicU64::new(0))
        .map_err(|_| anyhow::anyhow!("the search thread panicked"))??;
    let secs = start.elapsed().as_secs_f64();
    let search = shared.lock()?;
    Ok((search.outcome(), search.stats().nodes_created, secs))
}

/// One search of `pos` as `threads` threads would run it, in this thread
/// ([`Search::run_interleaved`]), the expansions' times drawn from `seed` (exponential, mean
/// 1): the outcome, nodes created and time in seconds.
fn interleaved_solve(
    pos: Position,
    disabled: &[Technique],
    threads: u32,
    seed: u64,
    limits: &Limits,
) -> anyhow::Result<(Outcome, u64, f64)> {
    use rand::{Rng, SeedableRng, rngs::StdRng};
    let root = root_game(pos, disabled)?;
    let mut search = Search::new(root);
    let mut rng = StdRng::seed_from_u64(seed);
    let outcome = search.run_interleaved(threads as usize, limits, || {
        -(1.0 - rng.random::<f64>()).ln()
    });
    let stats = search.stats();
    Ok((outcome, stats.nodes_created, stats.elapsed.as_secs_f64()))
}

/// `k` direct engine runs of `pos` at once, each on its own thread with its own search (the
/// work of `k` threads that share nothing but the machine): their reports and the wall time in
/// seconds until the last ended.
fn independent_solves(
    pos: Position,
    disabled: &[Technique],
    k: u32,
    limits: &Limits,
) -> anyhow::Result<(Vec<SolveReport>, f64)> {
    let start = Instant::now();
    let reports = std::thread::scope(|scope| {
        let runs: Vec<_> = (0..k)
            .map(|_| scope.spawn(|| solve(pos, disabled, limits, false)))
            .collect();
        runs.into_iter()
            .map(|run| {
                run.join()
                    .map_err(|_| anyhow::anyhow!("a search thread panicked"))
            })
            .collect::<anyhow::Result<Vec<_>>>()
    })?;
    Ok((reports, start.elapsed().as_secs_f64()))
}

/// Runs `solver seven bench`.
pub async fn seven(args: SevenBenchArgs) -> anyhow::Result<()> {
    if args.ablation {
        return ablation(&args).await;
    }
    let ns = if args.cols.is_empty() {
        vec![9, 10, 11]
    } else {
        args.cols.clone()
    };
    let positions = ns
        .iter()
        .map(|&n| empty_board(n))
        .collect::<anyhow::Result<Vec<_>>>()?;
    let disabled = crate::seven::parse_disabled(&args.disable)?;
    let except: Vec<&str> = disabled.iter().map(|t| t.name()).collect();
    let except = if except.is_empty() {
        String::new()
    } else {
        format!(" except {}", except.join(", "))
    };
    outln!(
        "empty board, Maker first, every technique on{except}; one search thread per direct run"
    );
    outln!(
        "{:>3}  {:<10}  {:<8}  {:>12}  {:>10}  {:>11}  {:>10}  {:>10}  {:>9}  {:>7}  {:>12}",
        "n",
        "run",
        "winner",
        "nodes",
        "time",
        "nodes/s",
        "peak table",
        "peak RSS",
        "vs direct",
        "jobs",
        "DAG nodes"
    );
    let limits = limits(&args);
    let mut signature: u64 = 0;
    for (&n, &pos) in ns.iter().zip(&positions) {
        let (r, rss) = direct(pos, disabled.clone(), &args).await?;
        let secs = r.stats.elapsed.as_secs_f64();
        signature += r.stats.nodes_created;
        outln!(
            "{n:>3}  {:<10}  {:<8}  {:>12}  {:>8.2} s  {:>11.0}  {:>10}  {:>10}",
            "direct",
            verdict(r.outcome),
            r.stats.nodes_created,
            secs,
            r.stats.nodes_created as f64 / secs,
            mib(Some(r.stats.peak_bytes)),
            mib(rss)
        );
        // Round r runs each K once, in the order given, so that the machine's drift through
        // the invocation meets every K alike (a round's runs are compared with each other):
        // first K apart for each K > 1, then each --threads K, then each --workers K.
        let mut parallel: Vec<u32> = args
            .threads
            .iter()
            .chain(&args.workers)
            .copied()
            .filter(|&k| k > 1)
            .collect();
        parallel.sort_unstable();
        parallel.dedup();
        let mut runs: Vec<Timed> = Vec::new();
        for round in 0..args.repeat {
            for &k in &parallel {
                let (d, l) = (disabled.clone(), limits.clone());
                let (reports, wall) =
                    tokio::task::spawn_blocking(move || independent_solves(pos, &d, k, &l))
                        .await??;
                let nodes: u64 = reports.iter().map(|r| r.stats.nodes_created).sum();
                let winner = if reports.iter().all(|x| x.outcome == r.outcome) {
                    verdict(r.outcome)
                } else {
                    "differs"
                };
                // Each search's speed from its own time, summed (its row's nodes/s).
                let rate: f64 = reports
                    .iter()
                    .map(|x| x.stats.nodes_created as f64 / x.stats.elapsed.as_secs_f64())
                    .sum();
                runs.push(Timed {
                    rate,
                    ..Timed::new("apart", round, k, wall, nodes)
                });
                outln!(
                    "{n:>3}  {:<10}  {winner:<8}  {nodes:>12}  {wall:>8.2} s  {rate:>11.0}  {:>10}  {:>10}  {:>9}",
                    format!("{k} apart"),
                    "-",
                    "-",
                    "-",
                );
            }
            for &k in &args.threads {
                reset_peak_rss();
                let (d, l) = (disabled.clone(), limits.clone());
                let before = round_trip_ns(k).await?;
                let (outcome, nodes, wall) =
                    tokio::task::spawn_blocking(move || shared_solve(pos, &d, k, &l)).await??;
                let run = Timed {
                    round_trip_ns: before.zip(round_trip_ns(k).await?),
                    ..Timed::new("thread", round, k, wall, nodes)
                };
                outln!(
                    "{n:>3}  {:<10}  {:<8}  {nodes:>12}  {wall:>8.2} s  {:>11.0}  {:>10}  {:>10}  {:>8.2}x",
                    counted(k, "thread"),
                    verdict(outcome),
                    run.rate,
                    "-",
                    mib(peak_rss()),
                    wall / secs,
                );
                runs.push(run);
            }
            for &k in &args.workers {
                let dir = tempfile::tempdir()?;
                reset_peak_rss();
                let embedded = Embedded::start(dir.path(), k, args.table_mb).await?;
                if let Err(e) = embedded.serving().await {
                    return Err(embedded.stop().await.err().unwrap_or(e));
                }
                let spec = crate::seven::problem_spec(&pos, &disabled, args.job_budget);
                let before = match round_trip_ns(k).await {
                    Ok(before) => before,
                    Err(e) => return Err(embedded.stop().await.err().unwrap_or(e)),
                };
                let start = Instant::now();
                let solved = solve_on(
                    &crate::problems::ServerArgs::local(&embedded.url),
                    spec,
                    false,
                )
                .await;
                let wall = start.elapsed().as_secs_f64();
                // Measured once the worker has stopped: until then its cache's thread may still
                // be adding the last job's positions (`JobContext::remember`), work that would
                // share the cores with the measurement.
                let stopped = embedded.stop().await;
                let after = round_trip_ns(k).await;
                stopped?;
                let (_, p) = solved?;
                let pr = p.progress.unwrap_or_default();
                let run = Timed {
                    round_trip_ns: before.zip(after?),
                    ..Timed::new("worker", round, k, wall, pr.worker_nodes)
                };
                let winner = crate::problems::winner_name(p.result.map_or(0, |r| r.winner));
                outln!(
                    "{n:>3}  {:<10}  {winner:<8}  {:>12}  {wall:>8.2} s  {:>11.0}  {:>10}  {:>10}  {:>8.2}x  {:>7}  {:>12}",
                    counted(k, "worker"),
                    pr.worker_nodes,
                    run.rate,
                    "-",
                    mib(peak_rss()),
                    wall / secs,
                    pr.jobs_done,
                    pr.dag_nodes
                );
                runs.push(run);
            }
        }
        for &k in &args.interleaved {
            let mut ratios = Vec::new();
            // One leaf at a time is the direct search whatever the seed: one run.
            let seeds = if k == 1 { 1 } else { u64::from(args.repeat) };
            for seed in 1..=seeds {
                let (d, l) = (disabled.clone(), limits.clone());
                let (outcome, nodes, wall) =
                    tokio::task::spawn_blocking(move || interleaved_solve(pos, &d, k, seed, &l))
                        .await??;
                ratios.push(nodes as f64 / r.stats.nodes_created as f64);
                // No time ratio: one thread's time says nothing of K threads'.
                outln!(
                    "{n:>3}  {:<10}  {:<8}  {nodes:>12}  {wall:>8.2} s  {:>11.0}  {:>10}  {:>10}  {:>9}",
                    format!("{k} interl."),
                    verdict(outcome),
                    nodes as f64 / wall,
                    "-",
                    "-",
                    "-",
                );
            }
            print_interleaved(n, k, &ratios);
        }
        print_speedups(n, r.stats.nodes_created as f64 / secs, &runs);
    }
    outln!("signature: {signature} (direct nodes created, summed over n)");
    Ok(())
}

/// The mean time, in nanoseconds, that a cache line takes to go from one thread's core to
/// another's and back: two threads pass a counter to each other 100,000 times, or for about
/// 100 ms where the trips are slower (a busy machine). The two threads are placed by the
/// operating system, not pinned: on a machine of more than two cores the pair measured is
/// whichever it picks, so the figure speaks mainly for two-core machines. A shared search moves
/// its leaves and children between cores, so its gain over one thread falls as this rises; on a
/// virtual machine it follows where the host puts the virtual cores, which no run controls (on
/// the project's 2-core machine it switched within seconds between about 45 to 60 ns and about
/// 350 to 370 ns, and two threads' speed-up at n = 12 between about 1.55x and about 1.25x;
/// README, "The targets, measured").
fn core_round_trip_ns() -> f64 {
    use std::sync::atomic::AtomicU32;
    /// The counter, alone on its cache lines.
    #[repr(align(128))]
    struct Line(AtomicU32);
    const TRIPS: u32 = 100_000;
    /// Odd, so that the other thread sees it, and above every trip's count.
    const STOP: u32 = u32::MAX;
    let line = Line(AtomicU32::new(0));
    // Waits until the counter is one that `ready` accepts, and returns it.
    let wait = |ready: &dyn Fn(u32) -> bool| -> u32 {
        let mut spins = 0u32;
        loop {
            let v = line.0.load(Ordering::Acquire);
            if ready(v) {
                return v;
            }
            spins = spins.wrapping_add(1);
            // A trip takes well under a microsecond between two idle cores; a longer wait
            // lets other threads run (the other one of the two among them).
            if spins.is_multiple_of(256) {
                std::thread::yield_now();
            } else {
                std::hint::spin_loop();
            }
        }
    };
    std::thread::scope(|scope| {
        // The other thread answers each odd count with the next one.
        scope.spawn(|| {
            loop {
                let v = wait(&|v| v % 2 == 1);
                if v == STOP {
                    break;
                }
                line.0.store(v + 1, Ordering::Release);
            }
        });
        let mut start = Instant::now();
        let mut trips = 0;
        // Trip 0 waits for the other thread to start, untimed.
        for i in 0..=TRIPS {
            if i == 1 {
                start = Instant::now();
            }
            line.0.store(2 * i + 1, Ordering::Release);
            wait(&|v| v == 2 * i + 2);
            trips = i;
            if i > 0 && i.is_multiple_of(64) && start.elapsed() > Duration::from_millis(100) {
                break;
            }
        }
        let elapsed = start.elapsed();
        line.0.store(STOP, Ordering::Release);
        elapsed.as_secs_f64() * 1e9 / f64::from(trips.max(1))
    })
}

/// [`core_round_trip_ns`], off the async runtime, for a run of `k` threads (slots); `None` for
/// one, which moves nothing between cores, and on a machine of one core, where it would time
/// the scheduler rather than a cache line.
async fn round_trip_ns(k: u32) -> anyhow::Result<Option<f64>> {
    let cores = std::thread::available_parallelism().map_or(1, usize::from);
    if k < 2 || cores < 2 {
        return Ok(None);
    }
    Ok(Some(tokio::task::spawn_blocking(core_round_trip_ns).await?))
}

/// One run of a kind (`"apart"`, `"thread"` or `"worker"`) with `k` searches, threads or slots
/// in round `round` (0-based, see `--repeat`): wall time in seconds, nodes created, and nodes
/// per second (K apart: the K searches' speeds, each from its own time, summed).
struct Timed {
    kind: &'static str,
    round: u32,
    k: u32,
    wall: f64,
    nodes: u64,
    rate: f64,
    /// For a run of more than one thread (slot) on more than one core: [`core_round_trip_ns`]
    /// just before and just after it (for slots, after their worker has stopped).
    round_trip_ns: Option<(f64, f64)>,
}

impl Timed {
    /// A run whose speed is its nodes over its wall time.
    fn new(kind: &'static str, round: u32, k: u32, wall: f64, nodes: u64) -> Self {
        Self {
            kind,
            round,
            k,
            wall,
            nodes,
            rate: nodes as f64 / wall,
            round_trip_ns: None,
        }
    }
}

/// Prints the nodes of the interleaved runs with `k` threads of this n against the direct
/// run's (`ratios`, in seed order), their median, and how many created 1.5 times as many or
/// more (tail runs).
fn print_interleaved(n: u32, k: u32, ratios: &[f64]) {
    if ratios.is_empty() {
        return;
    }
    let tails = ratios.iter().filter(|&&x| x >= 1.5).count();
    outln!(
        "{n:>3}  {k} interleaved, nodes vs direct: {}; median {}; {tails} of {} at 1.5x or more",
        times_list(ratios),
        times(median(ratios.to_vec())),
        ratios.len()
    );
}

/// A ratio as the bench prints it (`1.23x`), or `-` where it has no value (anything against
/// 0): the nodes of a position decided at submit, which no worker searches, are 0 against 0.
fn times(x: f64) -> String {
    if x.is_finite() {
        format!("{x:.2}x")
    } else {
        "-".to_owned()
    }
}

/// Ratios ([`times`]) separated by spaces.
fn times_list(xs: &[f64]) -> String {
    xs.iter().map(|&x| times(x)).collect::<Vec<_>>().join(" ")
}

/// `k` and `what`, plural past one: a row's name ("1 thread", "2 workers").
fn counted(k: u32, what: &str) -> String {
    format!("{k} {what}{}", if k == 1 { "" } else { "s" })
}

/// The median of `values`, NaN (printed `-`) for none.
fn median(mut values: Vec<f64>) -> f64 {
    if values.is_empty() {
        return f64::NAN;
    }
    values.sort_by(f64::total_cmp);
    let mid = values.len() / 2;
    if values.len() % 2 == 1 {
        values[mid]
    } else {
        (values[mid - 1] + values[mid]) / 2.0
    }
}

/// Prints, for each K of the "K apart" runs in `runs`, their speeds (nodes per second, summed
/// over the K searches) against the direct run's (`direct`, nodes per second): what K threads
/// sharing nothing gave in this run; then, for each kind of run (threads, workers) with
/// one-thread (one-slot) rows, how many times faster each K-thread (K-slot) run was than the
/// one-thread run of its round, and the median of those speed-ups, then how its nodes per
/// second and its node count compare with that run's (the speed-up is the first ratio divided
/// by the second), and its nodes per second against those of its round's K apart run, with
/// their median: the share of the machine's K threads the run turned into nodes.
fn print_speedups(n: u32, direct: f64, runs: &[Timed]) {
    let of = |kind: &'static str| runs.iter().filter(move |r| r.kind == kind);
    let ks = |kind: &'static str| {
        let mut ks: Vec<u32> = of(kind).map(|r| r.k).filter(|&k| k > 1).collect();
        ks.sort_unstable();
        ks.dedup();
        ks
    };
    let find =
        |kind: &'static str, k: u32, round: u32| of(kind).find(|r| r.k == k && r.round == round);
    for k in ks("apart") {
        let list: Vec<f64> = of("apart")
            .filter(|r| r.k == k)
            .map(|r| r.rate / direct)
            .collect();
        outln!(
            "{n:>3}  {k} apart vs direct: {} (nodes per second of {k} searches sharing nothing)",
            times_list(&list)
        );
    }
    for kind in ["thread", "worker"] {
        for k in ks(kind) {
            // Each K-thread run with the (first) one-thread run of its round: every round runs
            // each K of the list.
            let pairs: Vec<(&Timed, &Timed)> = of(kind)
                .filter(|r| r.k == k)
                .filter_map(|r| Some((r, find(kind, 1, r.round)?)))
                .collect();
            if pairs.is_empty() {
                continue;
            }
            let ratios = |f: &dyn Fn(&Timed, &Timed) -> f64| -> Vec<f64> {
                pairs.iter().map(|&(r, base)| f(r, base)).collect()
            };
            let speedups = ratios(&|r, base| base.wall / r.wall);
            let shares: Vec<f64> = pairs
                .iter()
                .filter_map(|&(r, _)| Some(r.rate / find("apart", k, r.round)?.rate))
                .collect();
            // `-` where it was not measured (one core).
            let trips: Vec<String> = pairs
                .iter()
                .map(|&(r, _)| {
                    r.round_trip_ns.map_or("-".to_owned(), |(before, after)| {
                        format!("{before:.0}/{after:.0}")
                    })
                })
                .collect();
            outln!(
                "{n:>3}  {k} {kind}s vs 1 (each against its round's): {}; median {}; nodes/s {}; nodes {}; nodes/s vs {k} apart's {}, median {}; cores' round trip before/after, ns: {}",
                times_list(&speedups),
                times(median(speedups.clone())),
                times_list(&ratios(&|r, base| r.rate / base.rate)),
                times_list(&ratios(&|r, base| r.nodes as f64 / base.nodes as f64)),
                times_list(&shares),
                times(median(shares.clone())),
                trips.join(" "),
            );
        }
    }
}

/// Nodes with each technique alone on top of plain PNS and the mirror TT at n = 7, from the
/// paper (Table II); `None` where the paper has no row.
fn paper_table_ii(t: Option<Technique>) -> Option<u64> {
    match t {
        None => Some(1_921_106),
        Some(Technique::ForcedMove) => Some(822),
        Some(Technique::DeadSquares) => Some(332_740),
        Some(Technique::DominatedSquares) => Some(116_991),
        Some(Technique::BreakerWinStop) => Some(660_763),
        Some(Technique::Heuristics) => Some(481_553),
        Some(Technique::Components) => Some(167_514),
        Some(_) => None,
    }
}

async fn ablation(args: &SevenBenchArgs) -> anyhow::Result<()> {
    let ns = if args.cols.is_empty() {
        vec![7]
    } else {
        args.cols.clone()
    };
    for n in ns {
        let pos = empty_board(n)?;
        outln!(
            "ablation, n = {n}, empty board, Maker first: each technique alone on top of PNS + mirror-tt"
        );
        outln!(
            "{:<20}  {:<8}  {:>12}  {:>10}  {:>10}  {:>16}",
            "technique",
            "winner",
            "nodes",
            "time",
            "peak table",
            "paper (n = 7)"
        );
        let alone = Technique::ALL
            .into_iter()
            .filter(|&t| t != Technique::MirrorTt)
            .map(Some);
        let mut baseline = None;
        for t in std::iter::once(None).chain(alone) {
            let disabled: Vec<Technique> = Technique::ALL
                .into_iter()
                .filter(|&d| d != Technique::MirrorTt && Some(d) != t)
                .collect();
            let (r, _) = direct(pos, disabled, args).await?;
            let nodes = r.stats.nodes_created;
            let base = *baseline.get_or_insert(nodes);
            let paper = match (n, paper_table_ii(t)) {
                (7, Some(p)) => p.to_string(),
                _ => "-".into(),
            };
            outln!(
                "{:<20}  {:<8}  {:>12}  {:>8.2} s  {:>10}  {:>16}   ({:.3}x the baseline's nodes)",
                t.map_or("none (baseline)", Technique::name),
                verdict(r.outcome),
                nodes,
                r.stats.elapsed.as_secs_f64(),
                mib(Some(r.stats.peak_bytes)),
                paper,
                nodes as f64 / base as f64
            );
        }
        let (r, _) = direct(pos, Vec::new(), args).await?;
        outln!(
            "{:<20}  {:<8}  {:>12}  {:>8.2} s  {:>10}  {:>16}",
            "all",
            verdict(r.outcome),
            r.stats.nodes_created,
            r.stats.elapsed.as_secs_f64(),
            mib(Some(r.stats.peak_bytes)),
            "-"
        );
    }
    Ok(())
}

/// Three children of a leaf: the first three empty cells played, numbers from the cells.
fn synthetic_report(worker: &str, job: &v1::Job) -> anyhow::Result<v1::ReportRequest> {
    let pos = unpack(&job.position, "position")?;
    let children = solver_core::games::seven::board::cells_of(pos.empty_cells())
        .take(3)
        .filter_map(|c| {
            let child = pos.play(c).ok()?;
            Some(v1::ChildEstimate {
                position: pack(&child),
                pn: 1 + u64::from(c.0 % 7),
                dn: 1 + u64::from(c.0 % 5),
            })
        })
        .collect();
    Ok(v1::ReportRequest {
        worker: worker.into(),
        job_id: job.job_id.clone(),
        children,
        nodes: 1,
        ..Default::default()
    })
}

/// Runs `op` on `workers` concurrent tasks over `channels` until `secs` have passed; returns
/// the calls counted per second.
async fn phase<F, Fut>(
    workers: u64,
    secs: u64,
    channels: &[Connection],
    op: F,
) -> anyhow::Result<f64>
where
    F: Fn(Connection, String, Arc<AtomicU64>, Instant) -> Fut + Clone + Send + 'static,
    Fut: Future<Output = anyhow::Result<()>> + Send + 'static,
{
    let count = Arc::new(AtomicU64::new(0));
    let start = Instant::now();
    let end = start + Duration::from_secs(secs);
    let mut tasks = tokio::task::JoinSet::new();
    for i in 0..workers {
        let ch = channels[i as usize % channels.len()].clone();
        tasks.spawn(op.clone()(
            ch,
            format!("bench-{i}"),
            Arc::clone(&count),
            end,
        ));
    }
    while let Some(r) = tasks.join_next().await {
        r??;
    }
    Ok(count.load(Ordering::Relaxed) as f64 / start.elapsed().as_secs_f64())
}

/// gRPC health checks per second from `callers` concurrent callers over `channels` for `secs`
/// seconds: the transport's own rate, the baseline of the benchmarks over gRPC.
async fn health_checks(callers: u64, secs: u64, channels: &[Connection]) -> anyhow::Result<f64> {
    phase(callers, secs, channels, |ch, _, count, end| async move {
        let mut h = HealthClient::new(ch);
        while Instant::now() < end {
            h.check(HealthCheckRequest::default()).await?;
            count.fetch_add(1, Ordering::Relaxed);
        }
        Ok(())
    })
    .await
}

/// Runs `solver bench-coordinator`: a real coordinator (RocksDB in a temporary directory) on
/// loopback, fed by synthetic workers whose jobs take no time: each leases a leaf of an
/// undecidable-in-the-run (4, 32, 7^tr) board and reports three children at once, over and
/// over. Prints leases+reports per second against the rate of gRPC health checks over the same
/// connections (the transport alone), measured first in the same run.
pub async fn coordinator(args: CoordinatorBenchArgs) -> anyhow::Result<()> {
    let (secs, workers) = (args.secs, args.workers);
    let server = LoopbackServer::start().await?;
    let mut channels = Vec::new();
    for _ in 0..2 {
        channels.push(crate::problems::channel(&server.url(), &Default::default()).await?);
    }
    let id = SolverClient::new(channels[0].clone())
        .submit(v1::SubmitRequest {
            request_id: String::new(),
            spec: Some(crate::seven::problem_spec(&empty_board(32)?, &[], 0)),
        })
        .await?
        .into_inner()
        .problem_id;

    let health = health_checks(workers, secs, &channels).await?;
    let jobs = phase(
        workers,
        secs,
        &channels,
        |ch, name, count, end| async move {
            let mut w = WorkClient::new(ch);
            while Instant::now() < end {
                let leased = w
                    .lease(v1::LeaseRequest {
                        worker: name.clone(),
                        max_jobs: 1,
                        ..Default::default()
                    })
                    .await?
                    .into_inner();
                count.fetch_add(1, Ordering::Relaxed);
                for job in leased.jobs {
                    w.report(synthetic_report(&name, &job)?).await?;
                    count.fetch_add(1, Ordering::Relaxed);
                }
            }
            Ok(())
        },
    )
    .await?;
    let p = SolverClient::new(channels[0].clone())
        .get_problem(v1::GetProblemRequest { problem_id: id })
        .await?
        .into_inner()
        .progress
        .unwrap_or_default();
    outln!("coordinator bench: {workers} synthetic workers, {secs} s per phase, RocksDB store");
    outln!("  baseline: health checks/s      {health:>10.0}");
    outln!(
        "  leases+reports/s               {jobs:>10.0}  ({:.2}x the baseline; target >= 5000)",
        jobs / health
    );
    outln!(
        "  DAG after the run: {} nodes, {} jobs reported",
        p.dag_nodes,
        p.jobs_done
    );
    server.stop().await
}

/// A `solver-server` in this process on 127.0.0.1 (a free port), with its RocksDB data in a
/// temporary directory that goes with it: for the benchmarks over gRPC.
struct LoopbackServer {
    addr: std::net::SocketAddr,
    stop: tokio::sync::oneshot::Sender<()>,
    task: tokio::task::JoinHandle<Result<(), solver_server::server::RunError>>,
    _dir: tempfile::TempDir,
}

impl LoopbackServer {
    async fn start() -> anyhow::Result<Self> {
        let dir = tempfile::tempdir()?;
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
        let addr = listener.local_addr()?;
        let config = solver_server::config::Config::new(addr, dir.path().join("data"));
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let task = tokio::spawn(solver_server::server::run(config, listener, async {
            let _ = stopped.await;
        }));
        Ok(Self {
            addr,
            stop,
            task,
            _dir: dir,
        })
    }

    fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// Stops the server and waits until it has.
    async fn stop(self) -> anyhow::Result<()> {
        let _ = self.stop.send(());
        self.task
            .await
            .map_err(|e| anyhow::anyhow!("the server task failed: {e}"))?
            .map_err(|e| anyhow::anyhow!("server: {e}"))
    }
}

/// Runs `solver havannah bench`: for each board size, `Rules.CheckHavannahWin` queries per
/// second answered in this process on one thread (the request decoded, the position analysed,
/// the answer encoded: the server's work without the transport) and over gRPC by a server on
/// loopback (started in this process, or `--server`) with `--callers` concurrent callers, each
/// against the rate of gRPC health checks over the same connections, measured first in the same
/// run. Every gRPC answer is checked against the in-process one.
pub async fn havannah(args: HavannahBenchArgs) -> anyhow::Result<()> {
    let (secs, callers) = (args.secs, args.callers);
    // The server's own connections use --server's token and TLS; one started here takes none.
    let (server, url, access) = match &args.server {
        Some(url) => (None, url.clone(), args.access.clone()),
        None => {
            let server = LoopbackServer::start().await?;
            let url = server.url();
            (Some(server), url, Default::default())
        }
    };
    // A caller per connection up to two (the callers take them in turn).
    let mut channels = Vec::new();
    for _ in 0..callers.min(2) {
        channels.push(crate::problems::channel(&url, &access).await?);
    }
    let where_ = if server.is_some() {
        "a server in this process"
    } else {
        "--server"
    };
    outln!(
        "havannah bench: {} random positions per size (seed {}), {secs} s per phase, \
         {callers} gRPC callers over {} connections to {where_} ({url})",
        args.positions,
        args.seed,
        channels.len()
    );
    let health = health_checks(callers, secs, &channels).await?;
    outln!("  baseline: gRPC health checks/s {health:>10.0}");
    outln!(
        "  L   positions   wins   in-process queries/s   gRPC queries/s   vs health   vs in-process"
    );
    for &l in &args.layers {
        let queries = crate::havannah::random_queries(l, args.positions, args.seed)?;
        let wins = queries.iter().filter(|(_, a)| a.win).count();
        let queries = Arc::new(queries);
        let local = {
            let queries = Arc::clone(&queries);
            tokio::task::spawn_blocking(move || -> anyhow::Result<f64> {
                let start = Instant::now();
                let end = start + Duration::from_secs(secs);
                let mut answered = 0u64;
                for (req, _) in queries.iter().cycle() {
                    if Instant::now() >= end {
                        break;
                    }
                    let answer = crate::havannah::answer(req).context("a generated position")?;
                    std::hint::black_box(answer);
                    answered += 1;
                }
                Ok(answered as f64 / start.elapsed().as_secs_f64())
            })
            .await??
        };
        // The callers take the positions in turn.
        let next = Arc::new(AtomicU64::new(0));
        let asked = Arc::clone(&queries);
        let remote = phase(callers, secs, &channels, move |ch, _, count, end| {
            let (queries, next) = (Arc::clone(&asked), Arc::clone(&next));
            async move {
                let mut rules = solver_proto::v1::rules_client::RulesClient::new(ch);
                while Instant::now() < end {
                    let i = (next.fetch_add(1, Ordering::Relaxed) % queries.len() as u64) as usize;
                    let (req, expected) = &queries[i];
                    let answer = rules
                        .check_havannah_win(req.clone())
                        .await
                        .map_err(crate::cli::server_error)?
                        .into_inner();
                    anyhow::ensure!(
                        answer == *expected,
                        "the server's answer to position {i} differs from this process's"
                    );
                    count.fetch_add(1, Ordering::Relaxed);
                }
                Ok(())
            }
        })
        .await?;
        outln!(
            "{l:>3}   {:>9}   {wins:>4}   {local:>20.0}   {remote:>14.0}   {:>8.2}x   {:>12.4}x",
            queries.len(),
            remote / health,
            remote / local
        );
    }
    match server {
        Some(server) => server.stop().await,
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    /// The round trip is measured (a positive, finite time, below a millisecond) and the
    /// measurement ends (at most 100,000 trips or about 100 ms of them): a measuring thread
    /// that hung would fail the test after 10 s rather than stall it.
    #[test]
    fn a_core_round_trip_is_measured() {
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || tx.send(super::core_round_trip_ns()));
        let trip = rx
            .recv_timeout(std::time::Duration::from_secs(10))
            .expect("the measurement ends");
        assert!(trip.is_finite() && trip > 0.0, "{trip} ns");
        assert!(trip < 1e6, "{trip} ns");
    }
}
