//! `solver seven ...`: the (4, n, 7^tr) commands.

use clap::{Args, Subcommand, ValueEnum};
use rand::{Rng, SeedableRng, rngs::StdRng};
use serde_json::json;
use solver_core::games::seven::{Cols, EdgeSet, Hypergraph, Position, Side, board::cells_of};

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
    /// The validated position.
    pub fn position(&self) -> anyhow::Result<Position> {
        let cols = cols(self.cols)?;
        let pos = match &self.board {
            None => Position::empty(cols, self.to_move),
            Some(text) => Position::from_compact(text, self.to_move)
                .map_err(|e| usage(format!("--board: {e}")))?,
        };
        if pos.cols() != cols {
            return Err(usage(format!(
                "--board: rows are {} wide but --cols is {cols}",
                pos.cols()
            )));
        }
        Ok(pos)
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
        println!("{out}");
    } else {
        for edge in &names {
            println!("{}", edge.join(" "));
        }
        println!("{} edges", names.len());
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
        println!("{out}");
    } else {
        println!("l-line histogram (x_l = edges with no Breaker cell and l empty cells):");
        for l in 1..8 {
            println!("  x_{l} = {}", p.lines[l]);
        }
        println!(
            "pot = sum x_l 2^-(l-1) = {} ({})",
            p.pot(),
            p.pot().to_f64()
        );
        println!(
            "phi = pot / 2          = {} ({})",
            p.phi(),
            p.phi().to_f64()
        );
        println!("Maker has won: {}", yes_no(pos.maker_won(hg)));
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
        println!(
            "{:>4}  {:<7}  {:<4}  {:>10}  {:<9}  certificate",
            "move", "player", "cell", "pot", "maker won"
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
            println!(
                "{}",
                json!({"move": number, "player": player.as_str(), "cell": cell.name(),
                "pot": pot.to_string(), "pot_float": pot.to_f64(), "maker_won": won, "breaker_certificate": cert})
            );
        } else {
            println!(
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
