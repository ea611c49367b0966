//! `solver seven ...`: the (4, n, 7^tr) commands.

use clap::{Args, Subcommand, ValueEnum};
use rand::{Rng, SeedableRng, rngs::StdRng};
use serde_json::json;
use solver_core::games::seven::{
    Cols, EdgeSet, Hypergraph, Position, Side, SolveReport, Technique, board::cells_of,
};
use solver_core::pns::{Limits, Outcome, Value};

use crate::cli::usage;

/// The (4, n, 7^tr) commands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Print every hyperedge (cell names, canonical order) and the count.
    Edges {
        /// Board width n, 4..=32.
        #[arg(long)]
        cols: u32,
        /// Which edge set: the paper's (default) or the seed harness's.
        #[arg(long, value_enum, default_value_t = EdgesArg::Paper)]
        edges: EdgesArg,
        /// Print one JSON object instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Print the l-line histogram, pot and phi of the empty board or of a position.
    Potential {
        #[command(flatten)]
        board: BoardArgs,
        /// Which edge set: the paper's (default) or the seed harness's.
        #[arg(long, value_enum, default_value_t = EdgesArg::Paper)]
        edges: EdgesArg,
        /// Print one JSON object instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Solve a position and print the winner: by default on a coordinator with local workers
    /// started in this process (RocksDB in --data-dir, resumable), or on a remote --server, or
    /// with the engine alone (--direct).
    Solve(SolveArgs),
    /// Submit a problem to a coordinator and print its id.
    Submit(SubmitArgs),
    /// Benchmark the engine on empty boards: nodes, time, nodes/s, peak RSS and a node-count
    /// signature per n; with --ablation the paper's Table II; with --workers the distributed
    /// solve against the engine in the same run.
    Bench(crate::bench::SevenBenchArgs),
    /// Play a seeded uniformly random game and print it move by move.
    Simulate {
        /// Board width n, 4..=32.
        #[arg(long)]
        cols: u32,
        /// Random seed.
        #[arg(long, default_value_t = 42)]
        seed: u64,
        /// Stop after this many moves.
        #[arg(long, default_value_t = 128)]
        max_moves: u32,
        /// Print JSON lines instead of a table.
        #[arg(long)]
        json: bool,
    },
}

/// Arguments of `solver seven solve`. The options of the engine alone (group `engine`) and
/// those of a coordinator (`--server`, `--job-budget`, and the embedded one's `--data-dir`,
/// `--workers` and `--table-mb`) exclude each other, as do `--server` and the embedded
/// coordinator's.
#[derive(Debug, Args)]
#[command(group(clap::ArgGroup::new("engine").multiple(true).args(["direct", "max_nodes", "all_moves", "jsonl"])))]
pub struct SolveArgs {
    /// Board width n, 4..=32 (required unless --jsonl).
    #[arg(long, required_unless_present = "jsonl")]
    pub cols: Option<u32>,
    /// The 4 rows joined by '/', top row first: '.' empty, 'M' Maker, 'B' Breaker.
    /// Default: the empty board.
    #[arg(long)]
    pub board: Option<String>,
    /// The side to move.
    #[arg(long, default_value = "maker")]
    pub to_move: Side,
    /// Switch a PNS+ technique off (repeatable): forced-move, maker-win-stop, breaker-win-stop,
    /// dead-squares, dominated-squares, mirror-tt, heuristics, components, cut-vertex,
    /// threat-space.
    #[arg(long = "disable", value_name = "TECHNIQUE")]
    pub disable: Vec<String>,
    /// Run the PNS+ engine alone in this process: no coordinator, no data directory.
    #[arg(long)]
    pub direct: bool,
    /// Stop once the search's DAG holds this many nodes (the verdict is then "unknown").
    /// Implies --direct.
    #[arg(long)]
    pub max_nodes: Option<u64>,
    /// Prove or refute every move of the side to move, not just the ones the proof needs.
    /// Implies --direct.
    #[arg(long)]
    pub all_moves: bool,
    /// Solve one position per line of this file (fields board, to_move, and optionally n and
    /// id) and print one JSON result per line. Implies --direct.
    #[arg(long, conflicts_with_all = ["cols", "board", "to_move"])]
    pub jsonl: Option<std::path::PathBuf>,
    /// Solve on this coordinator (e.g. http://127.0.0.1:50051) instead of an embedded one.
    #[arg(long, conflicts_with_all = ["engine", "data_dir", "workers", "table_mb"])]
    pub server: Option<String>,
    #[command(flatten)]
    pub access: crate::problems::Access,
    /// The embedded coordinator's RocksDB data directory; a rerun on it resumes the solve.
    #[arg(long, default_value = "solver-data", conflicts_with = "engine")]
    pub data_dir: std::path::PathBuf,
    /// Search slots of the embedded coordinator's local worker (default: the number of cores).
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=256), conflicts_with = "engine")]
    pub workers: Option<u32>,
    /// MiB for the embedded worker's search DAG and its cache of solved positions, 64 to
    /// 2^24 (as `solver-worker --table-mb`). Past it the search collapses its least recently
    /// used subtrees.
    #[arg(long, default_value_t = solver_worker::DEFAULT_TABLE_MB, value_parser = solver_worker::table_mb_parser(), conflicts_with = "engine")]
    pub table_mb: usize,
    /// Node budget of one worker job (0 = the coordinator's default, 1,000,000; else 1,000 to
    /// 100,000,000).
    #[arg(long, default_value_t = 0, value_parser = job_budget, conflicts_with = "engine")]
    pub job_budget: u64,
    /// Print one JSON object instead of text.
    #[arg(long)]
    pub json: bool,
}

/// Arguments of `solver seven submit`.
#[derive(Debug, Args)]
pub struct SubmitArgs {
    #[command(flatten)]
    pub board: BoardArgs,
    /// Switch a PNS+ technique off (repeatable).
    #[arg(long = "disable", value_name = "TECHNIQUE")]
    pub disable: Vec<String>,
    /// Node budget of one worker job (0 = the coordinator's default; else 1,000 to
    /// 100,000,000).
    #[arg(long, default_value_t = 0, value_parser = job_budget)]
    pub job_budget: u64,
    /// Idempotency key: resubmitting with it returns the same problem.
    #[arg(long)]
    pub request_id: Option<String>,
    #[command(flatten)]
    pub server: crate::problems::ServerArgs,
    /// Print JSON instead of the bare id.
    #[arg(long)]
    pub json: bool,
}

/// The edge sets a user can pick.
#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum EdgesArg {
    /// The paper's (4, n, 7^tr) hypergraph.
    Paper,
    /// The seed harness's edge set (not the paper's game).
    SeedHarness,
}

impl From<EdgesArg> for EdgeSet {
    fn from(e: EdgesArg) -> Self {
        match e {
            EdgesArg::Paper => EdgeSet::Paper,
            EdgesArg::SeedHarness => EdgeSet::SeedHarness,
        }
    }
}

/// A board given on the command line: a width, and optionally the rows and side to move.
#[derive(Debug, Args)]
pub struct BoardArgs {
    /// Board width n, 4..=32.
    #[arg(long)]
    pub cols: u32,
    /// The 4 rows joined by '/', top row first: '.' empty, 'M' Maker, 'B' Breaker.
    /// Default: the empty board.
    #[arg(long)]
    pub board: Option<String>,
    /// The side to move.
    #[arg(long, default_value = "maker")]
    pub to_move: Side,
}

impl BoardArgs {
    /// The validated position of a problem to solve: a game still on ([`check_live`]).
    pub fn live_position(&self) -> anyhow::Result<Position> {
        let pos = self.position()?;
        check_live(&pos, "--board")?;
        Ok(pos)
    }

    /// The validated position.
    pub fn position(&self) -> anyhow::Result<Position> {
        let cols = cols(self.cols)?;
        let Some(text) = &self.board else {
            return Ok(Position::empty(cols, self.to_move));
        };
        Position::from_compact(text, Some(cols), self.to_move)
            .map_err(|e| usage(format!("--board: {e}")))
    }
}

fn cols(n: u32) -> anyhow::Result<Cols> {
    Cols::try_from(n).map_err(|e| usage(format!("--cols: {e}")))
}

/// Runs one `solver seven` command.
pub async fn run(cmd: Command) -> anyhow::Result<()> {
    match cmd {
        Command::Edges {
            cols: n,
            edges,
            json,
        } => print_edges(&Hypergraph::build(cols(n)?, edges.into()), json),
        Command::Potential { board, edges, json } => {
            let pos = board.position()?;
            print_potential(&pos, &Hypergraph::build(pos.cols(), edges.into()), json);
            Ok(())
        }
        Command::Solve(args) => solve(&args).await,
        Command::Submit(args) => {
            let pos = args.board.live_position()?;
            let disabled = parse_disabled(&args.disable)?;
            let spec = problem_spec(&pos, &disabled, args.job_budget);
            crate::problems::submit(&args.server, spec, args.request_id, args.json).await
        }
        Command::Bench(args) => crate::bench::seven(args).await,
        Command::Simulate {
            cols: n,
            seed,
            max_moves,
            json,
        } => simulate(cols(n)?, seed, max_moves, json),
    }
}

fn print_edges(hg: &Hypergraph, json: bool) -> anyhow::Result<()> {
    let names: Vec<Vec<String>> = hg
        .edges()
        .iter()
        .map(|&e| Hypergraph::edge_names(e))
        .collect();
    if json {
        let out = json!({"n": hg.cols().get(), "num_edges": names.len(), "edges": names});
        outln!("{out}");
    } else {
        for edge in &names {
            outln!("{}", edge.join(" "));
        }
        outln!("{} edges", names.len());
    }
    Ok(())
}

fn print_potential(pos: &Position, hg: &Hypergraph, json: bool) {
    let p = pos.potential(hg);
    if json {
        let lines: serde_json::Map<String, serde_json::Value> = (1..8)
            .filter(|&l| p.lines[l] > 0)
            .map(|l| (l.to_string(), json!(p.lines[l])))
            .collect();
        let out = json!({
            "n": pos.cols().get(),
            "board": pos.rows(),
            "to_move": pos.to_move().as_str(),
            "lines": lines,
            "pot": p.pot().to_string(),
            "pot_float": p.pot().to_f64(),
            "phi": p.phi().to_string(),
            "phi_float": p.phi().to_f64(),
            "maker_won": pos.maker_won(hg),
            "breaker_certificate": pos.breaker_certificate(hg),
        });
        outln!("{out}");
    } else {
        outln!("l-line histogram (x_l = edges with no Breaker cell and l empty cells):");
        for l in 1..8 {
            outln!("  x_{l} = {}", p.lines[l]);
        }
        outln!(
            "pot = sum x_l 2^-(l-1) = {} ({})",
            p.pot(),
            p.pot().to_f64()
        );
        outln!(
            "phi = pot / 2          = {} ({})",
            p.phi(),
            p.phi().to_f64()
        );
        outln!("Maker has won: {}", yes_no(pos.maker_won(hg)));
    }
}

fn yes_no(b: bool) -> &'static str {
    if b { "yes" } else { "no" }
}

fn simulate(cols: Cols, seed: u64, max_moves: u32, json: bool) -> anyhow::Result<()> {
    let hg = Hypergraph::paper(cols);
    let mut rng = StdRng::seed_from_u64(seed);
    let mut pos = Position::empty(cols, Side::Maker);
    if !json {
        outln!(
            "{:>4}  {:<7}  {:<4}  {:>10}  {:<9}  certificate",
            "move",
            "player",
            "cell",
            "pot",
            "maker won"
        );
    }
    for number in 1..=max_moves {
        let empty: Vec<_> = cells_of(pos.empty_cells()).collect();
        if empty.is_empty() {
            break;
        }
        let cell = empty[rng.random_range(0..empty.len())];
        let player = pos.to_move();
        pos = pos.play(cell).map_err(anyhow::Error::msg)?;
        let pot = pos.potential(&hg).pot();
        let (won, cert) = (pos.maker_won(&hg), pos.breaker_certificate(&hg));
        if json {
            outln!(
                "{}",
                json!({"move": number, "player": player.as_str(), "cell": cell.name(),
                "pot": pot.to_string(), "pot_float": pot.to_f64(), "maker_won": won, "breaker_certificate": cert})
            );
        } else {
            outln!(
                "{number:>4}  {:<7}  {:<4}  {:>10}  {:<9}  {}",
                player.as_str(),
                cell.name(),
                pot.to_string(),
                yes_no(won),
                yes_no(cert)
            );
        }
        if won || cert {
            break;
        }
    }
    Ok(())
}

/// The techniques named by `--disable`; a usage error (exit 2) names an unknown one.
pub fn parse_disabled(names: &[String]) -> anyhow::Result<Vec<Technique>> {
    names
        .iter()
        .map(|t| {
            t.parse::<Technique>()
                .map_err(|e| usage(format!("--disable: {e}")))
        })
        .collect()
}

/// Parses `--job-budget`: a budget the coordinator accepts
/// ([`solver_proto::work::check_job_node_budget`]).
pub fn job_budget(arg: &str) -> Result<u64, String> {
    let budget: u64 = arg.parse().map_err(|e| format!("not a node count: {e}"))?;
    solver_proto::work::check_job_node_budget(budget)
}

/// The wire spec of a problem.
pub fn problem_spec(
    pos: &Position,
    disabled: &[Technique],
    job_budget: u64,
) -> solver_proto::v1::ProblemSpec {
    solver_proto::v1::ProblemSpec {
        position: Some(pos.into()),
        disabled_techniques: disabled.iter().map(|t| t.name().to_owned()).collect(),
        job_node_budget: job_budget,
    }
}

async fn solve(args: &SolveArgs) -> anyhow::Result<()> {
    let direct = args.direct || args.jsonl.is_some() || args.max_nodes.is_some() || args.all_moves;
    let board = BoardArgs {
        cols: args.cols.unwrap_or_default(),
        board: args.board.clone(),
        to_move: args.to_move,
    };
    if !direct {
        let pos = board.live_position()?;
        let disabled = parse_disabled(&args.disable)?;
        let opts = crate::problems::SolveOptions {
            server: args
                .server
                .clone()
                .map(|server| crate::problems::ServerArgs {
                    server,
                    access: args.access.clone(),
                }),
            data_dir: args.data_dir.clone(),
            workers: args.workers.unwrap_or_else(|| {
                std::thread::available_parallelism().map_or(1, |n| n.get() as u32)
            }),
            table_mb: args.table_mb,
            json: args.json,
        };
        return crate::problems::solve(problem_spec(&pos, &disabled, args.job_budget), opts).await;
    }
    let disabled = parse_disabled(&args.disable)?;
    let limits = Limits {
        max_nodes: args.max_nodes,
        ..Limits::default()
    };
    let search = |pos| solver_core::games::seven::solve(pos, &disabled, &limits, args.all_moves);
    if let Some(path) = &args.jsonl {
        return crate::cli::for_each_jsonl(path, |rec| {
            let pos = position_of_record(rec)?;
            check_live(&pos, "board")?;
            Ok(solve_json(&pos, &search(pos)))
        });
    }
    let pos = board.live_position()?;
    let report = search(pos);
    if args.json {
        outln!("{}", solve_json(&pos, &report));
    } else {
        print_report(&pos, &report);
    }
    Ok(())
}

/// A usage error naming `field` unless `pos` is a game still on: a problem to solve is not
/// one where Maker owns an edge already (the coordinator's `Submit` refuses it too).
fn check_live(pos: &Position, field: &str) -> anyhow::Result<()> {
    if pos.maker_won(&Hypergraph::paper(pos.cols())) {
        return Err(usage(format!(
            "{field}: Maker already owns an edge; the game is over"
        )));
    }
    Ok(())
}

/// A position from a JSON record with fields `n`, `board` (4 row strings or the '/' form) and
/// `to_move`.
fn position_of_record(rec: &serde_json::Value) -> anyhow::Result<Position> {
    let to_move: Side = rec["to_move"]
        .as_str()
        .ok_or_else(|| usage("to_move: missing (maker or breaker)"))?
        .parse()
        .map_err(|e: String| usage(format!("to_move: {e}")))?;
    // `n`, when given, is the width every row must have.
    let width = match &rec["n"] {
        serde_json::Value::Null => None,
        n => {
            let n = n
                .as_u64()
                .ok_or_else(|| usage(format!("n: {n} is not a board width (4..=32)")))?;
            Some(Cols::try_from(n).map_err(|e| usage(format!("n: {e}")))?)
        }
    };
    match &rec["board"] {
        serde_json::Value::String(s) => Position::from_compact(s, width, to_move),
        serde_json::Value::Array(rows) => {
            let rows: Vec<&str> = rows.iter().map(|r| r.as_str().unwrap_or("?")).collect();
            Position::from_rows(&rows, width, to_move)
        }
        _ => return Err(usage("board: missing (4 row strings)")),
    }
    .map_err(|e| usage(format!("board: {e}")))
}

fn winner_of(outcome: Outcome) -> &'static str {
    match outcome {
        Outcome::Solved(Value::Proven) => "maker",
        Outcome::Solved(Value::Disproven) => "breaker",
        Outcome::Unknown { .. } => "unknown",
    }
}

fn solve_json(pos: &Position, r: &SolveReport) -> serde_json::Value {
    let mut out = json!({
        "n": pos.cols().get(),
        "board": pos.rows(),
        "to_move": pos.to_move().as_str(),
        "winner": winner_of(r.outcome),
        "winning_moves": r.winning_moves.iter().map(|c| c.name()).collect::<Vec<_>>(),
        "nodes": r.stats.nodes_created,
        "nodes_expanded": r.stats.nodes_expanded,
        "tt_entries": r.tt_entries,
        "time_ms": r.stats.elapsed.as_secs_f64() * 1000.0,
        "peak_memory_bytes": r.stats.peak_bytes,
    });
    if let Outcome::Unknown { pn, dn } = r.outcome {
        out["root_pn"] = json!(pn);
        out["root_dn"] = json!(dn);
    }
    out
}

fn print_report(pos: &Position, r: &SolveReport) {
    outln!(
        "position:       {pos} ({} to move, n = {})",
        pos.to_move(),
        pos.cols()
    );
    outln!("winner:         {}", winner_of(r.outcome));
    if !r.winning_moves.is_empty() {
        let names: Vec<String> = r.winning_moves.iter().map(|c| c.name()).collect();
        outln!("winning moves:  {}", names.join(" "));
    }
    if let Outcome::Unknown { pn, dn } = r.outcome {
        outln!("root pn / dn:   {pn} / {dn}");
    }
    outln!(
        "nodes:          {} created, {} expanded",
        r.stats.nodes_created,
        r.stats.nodes_expanded
    );
    outln!("tt entries:     {}", r.tt_entries);
    outln!("time:           {:.3} s", r.stats.elapsed.as_secs_f64());
    outln!(
        "peak memory:    {:.1} MiB (DAG and table, approximate)",
        r.stats.peak_bytes as f64 / (1024.0 * 1024.0)
    );
}
