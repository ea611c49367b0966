//! `solver havannah`: win queries (ring, bridge, fork) one JSON line at a time or for one board
//! file, in-process or against a server's `Rules.CheckHavannahWin`, and random playouts that
//! count win types (to compare with Ewalds' table in `shared/specs/havannah.md`).

use std::path::{Path, PathBuf};

use anyhow::Context;
use rand::SeedableRng;
use rand::seq::SliceRandom;
use serde_json::{Value, json};
use solver_core::games::havannah::{
    Board, Geometry, Kind, Layers, Player, Point, play_game, random_positions,
};
use solver_proto::convert::WireError;
use solver_proto::convert::havannah::Query;
use solver_proto::v1::{CheckHavannahWinRequest, CheckHavannahWinResponse, HavannahCell};

use crate::cli::{block_on, for_each_jsonl, usage};
use crate::problems::Backend;

/// Havannah commands.
#[derive(Debug, clap::Subcommand)]
pub enum Command {
    /// Which structures (ring, bridge, fork) a move gives the mover. Either `--jsonl FILE` (one
    /// query per line: `layers`, `board` as rows, `move` [row, col], `player`; `id` echoed; one
    /// JSON answer per line) or `--board-file F --move R,C --player P` (prints the board with
    /// the witness marked).
    Check(CheckArgs),
    /// Plays uniformly random games from the empty board and prints how often each win type
    /// ends them (one label per game, priority fork > bridge > ring as Castro counts), and the
    /// games won by several kinds at once, by combination (to relabel with another priority).
    Playout(PlayoutArgs),
    /// Win queries per second on random positions: in this process, and over gRPC
    /// (`Rules.CheckHavannahWin`) on a server on loopback (started here, or `--server`),
    /// against gRPC health checks over the same connections.
    Bench(crate::bench::HavannahBenchArgs),
}

/// Arguments of `solver havannah check`.
#[derive(Debug, clap::Args)]
#[command(group(clap::ArgGroup::new("input").required(true).args(["jsonl", "board_file"])))]
pub struct CheckArgs {
    /// JSON-lines file of queries.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["board_file", "mv", "player"])]
    jsonl: Option<PathBuf>,
    /// A board file: the seed's dim x dim array, as JSON rows or one line of digits per row
    /// (separated by spaces or commas).
    #[arg(long, value_name = "FILE", requires_all = ["mv", "player"])]
    board_file: Option<PathBuf>,
    /// The move, `ROW,COL` of the array.
    #[arg(long = "move", value_name = "R,C")]
    mv: Option<String>,
    /// The mover, 1 or 2.
    #[arg(long)]
    player: Option<u32>,
    #[command(flatten)]
    remote: crate::problems::Remote,
}

/// Arguments of `solver havannah playout`.
#[derive(Debug, clap::Args)]
pub struct PlayoutArgs {
    /// Board size: cells per side, 2..=32.
    #[arg(long, value_parser = clap::value_parser!(u32).range(Layers::MIN as i64..=Layers::MAX as i64))]
    layers: u32,
    /// Number of games (at least 1).
    #[arg(long, default_value_t = 10_000, value_parser = clap::value_parser!(u64).range(1..))]
    games: u64,
    /// Seed of the random generator (same seed, same games).
    #[arg(long, default_value_t = 1)]
    seed: u64,
}

/// Runs a Havannah command.
pub async fn run(cmd: Command) -> anyhow::Result<()> {
    match cmd {
        Command::Check(args) => check(args).await,
        Command::Playout(args) => playout(&args),
        Command::Bench(args) => crate::bench::havannah(args).await,
    }
}

/// `req` answered in this process, as the server's `Rules.CheckHavannahWin` answers it: the
/// request validated (a [`WireError`] naming the field), the position analysed, the answer
/// encoded.
pub(crate) fn answer(req: &CheckHavannahWinRequest) -> Result<CheckHavannahWinResponse, WireError> {
    let analysis = Query::try_from(req)?.answer()?;
    Ok(CheckHavannahWinResponse::from(&analysis))
}

/// One win query, answered by `backend`.
async fn ask(
    backend: &mut Backend,
    req: CheckHavannahWinRequest,
) -> anyhow::Result<CheckHavannahWinResponse> {
    let local = |req: CheckHavannahWinRequest| answer(&req).map_err(usage);
    backend
        .answer(req, local, async |c, req| c.check_havannah_win(req).await)
        .await
}

async fn check(args: CheckArgs) -> anyhow::Result<()> {
    let mut backend = Backend::new(&args.remote).await?;
    if let Some(path) = &args.jsonl {
        return for_each_jsonl(path, |line| {
            let req = request_from_json(line)?;
            Ok(answer_json(&block_on(ask(&mut backend, req))?))
        });
    }
    let (Some(file), Some(mv), Some(player)) = (&args.board_file, &args.mv, args.player) else {
        return Err(usage(
            "give --jsonl FILE, or --board-file FILE --move R,C --player P",
        ));
    };
    let (rows, layers) = read_board_file(file)?;
    let (row, col) = parse_move(mv)?;
    let req = CheckHavannahWinRequest {
        layers,
        board: rows.concat(),
        r#move: Some(HavannahCell { row, col }),
        player,
    };
    let answer = ask(&mut backend, req.clone()).await?;
    out!("{}", render(&req, &answer)?);
    Ok(())
}

/// The request of one JSON line: `layers`, `board` (rows), `move` [row, col], `player`.
fn request_from_json(v: &Value) -> anyhow::Result<CheckHavannahWinRequest> {
    let uint = |field: &str, x: &Value| -> anyhow::Result<u32> {
        x.as_u64()
            .and_then(|n| u32::try_from(n).ok())
            .ok_or_else(|| usage(format!("{field}: expected a non-negative integer, got {x}")))
    };
    let layers = uint("layers", v.get("layers").unwrap_or(&Value::Null))?;
    let player = uint("player", v.get("player").unwrap_or(&Value::Null))?;
    let rows = v
        .get("board")
        .and_then(Value::as_array)
        .ok_or_else(|| usage("board: expected an array of rows"))?;
    let mut board = Vec::new();
    for (r, row) in rows.iter().enumerate() {
        let row = row
            .as_array()
            .ok_or_else(|| usage(format!("board: row {r} is not an array")))?;
        if row.len() != rows.len() {
            return Err(usage(format!(
                "board: row {r} has {} entries, the board has {} rows (it must be square)",
                row.len(),
                rows.len()
            )));
        }
        for x in row {
            board.push(uint(&format!("board row {r}"), x)?);
        }
    }
    let mv = v
        .get("move")
        .and_then(Value::as_array)
        .filter(|a| a.len() == 2)
        .ok_or_else(|| usage("move: expected [row, col]"))?;
    Ok(CheckHavannahWinRequest {
        layers,
        board,
        r#move: Some(HavannahCell {
            row: uint("move", &mv[0])?,
            col: uint("move", &mv[1])?,
        }),
        player,
    })
}

fn cells_json(cells: &[HavannahCell]) -> Value {
    cells.iter().map(|c| json!([c.row, c.col])).collect()
}

/// One answer line: `win`, `kinds`, `kind` (null without a win), `ring`, `bridge`, `fork`.
fn answer_json(a: &CheckHavannahWinResponse) -> Value {
    json!({
        "win": a.win,
        "kinds": a.kinds,
        "kind": (!a.kind.is_empty()).then_some(&a.kind),
        "ring": a.ring.as_ref().map(|r| cells_json(&r.cells)),
        "bridge": a.bridge.as_ref().map(|b| json!({
            "corners": cells_json(&b.corners),
            "chain": cells_json(&b.chain),
        })),
        "fork": a.fork.as_ref().map(|f| json!({
            "sides": f.sides,
            "cells": cells_json(&f.cells),
        })),
    })
}

/// The rows of a `--board-file` (JSON rows, or one text line per row) and its layers L: the
/// array is square with `dim = 2 L - 1` (odd) rows. Errors name the flag and the file.
fn read_board_file(path: &Path) -> anyhow::Result<(Vec<Vec<u32>>, u32)> {
    let at = format!("--board-file {}", path.display());
    let text = std::fs::read_to_string(path).map_err(|e| usage(format!("{at}: {e}")))?;
    let rows: Vec<Vec<u32>> = if text.trim_start().starts_with('[') {
        serde_json::from_str(&text)
            .map_err(|e| usage(format!("{at}: not a JSON array of rows: {e}")))?
    } else {
        text.lines()
            .filter(|l| !l.trim().is_empty())
            .map(|l| {
                l.split(|c: char| c == ',' || c.is_whitespace())
                    .filter(|t| !t.is_empty())
                    .map(|t| {
                        t.parse::<u32>()
                            .map_err(|_| usage(format!("{at}: bad entry {t:?}")))
                    })
                    .collect()
            })
            .collect::<anyhow::Result<_>>()?
    };
    for (r, row) in rows.iter().enumerate() {
        if row.len() != rows.len() {
            return Err(usage(format!(
                "{at}: row {r} has {} entries, the board has {} rows (it must be square)",
                row.len(),
                rows.len()
            )));
        }
    }
    let dim = rows.len();
    if dim.is_multiple_of(2) {
        return Err(usage(format!(
            "{at}: the board has {dim} rows: a Havannah array has 2L - 1 (odd) rows"
        )));
    }
    Ok((rows, dim.div_ceil(2) as u32))
}

fn parse_move(s: &str) -> anyhow::Result<(u32, u32)> {
    let bad = || usage(format!("--move {s:?}: expected ROW,COL"));
    let (r, c) = s.split_once(',').ok_or_else(bad)?;
    Ok((
        r.trim().parse().map_err(|_| bad())?,
        c.trim().parse().map_err(|_| bad())?,
    ))
}

/// The human answer: a summary line per structure, then the board with `x`/`o` stones, `.`
/// empty, `#` blocked, witness stones in capitals and the move in brackets.
fn render(req: &CheckHavannahWinRequest, a: &CheckHavannahWinResponse) -> anyhow::Result<String> {
    use std::fmt::Write;
    let layers = Layers::new(req.layers).map_err(usage)?;
    let board = Board::from_flat(layers, &req.board).map_err(usage)?;
    let g = Geometry::new(layers);
    let mv = req.r#move.unwrap_or_default();
    let mut out = String::new();
    let cell = |c: &HavannahCell| format!("{},{}", c.row, c.col);
    let list = |cs: &[HavannahCell]| cs.iter().map(cell).collect::<Vec<_>>().join(" ");
    if a.win {
        writeln!(
            out,
            "player {} at {}: {} ({})",
            req.player,
            cell(&mv),
            a.kinds.join(", "),
            a.kind
        )?;
    } else {
        writeln!(out, "player {} at {}: no win", req.player, cell(&mv))?;
    }
    let mut marked = Vec::new();
    if let Some(r) = &a.ring {
        writeln!(out, "ring: {}", list(&r.cells))?;
        marked.extend(r.cells.iter().copied());
    }
    if let Some(b) = &a.bridge {
        // A server's answer, checked: a bridge joins two corners.
        let [from, to] = b.corners.as_slice() else {
            anyhow::bail!("the answer's bridge has {} corners, not 2", b.corners.len());
        };
        writeln!(
            out,
            "bridge {} - {}: {}",
            cell(from),
            cell(to),
            list(&b.chain)
        )?;
        marked.extend(b.chain.iter().copied());
    }
    if let Some(f) = &a.fork {
        writeln!(out, "fork {}: {}", f.sides.join(", "), list(&f.cells))?;
        marked.extend(f.cells.iter().copied());
    }
    for row in 0..g.dim {
        let mut line = String::new();
        for col in 0..g.dim {
            let c = solver_core::games::havannah::Cell::new(row, col);
            let is_move = row == mv.row as usize && col == mv.col as usize;
            let witness = marked
                .iter()
                .any(|m| m.row as usize == row && m.col as usize == col);
            let mut ch = match board.get(c) {
                None => ' ',
                Some(Point::Empty) if is_move => {
                    if req.player == 1 {
                        'x'
                    } else {
                        'o'
                    }
                }
                Some(Point::Empty) => '.',
                Some(Point::Blocked) => '#',
                Some(Point::Stone(Player::One)) => 'x',
                Some(Point::Stone(Player::Two)) => 'o',
            };
            if witness {
                ch = ch.to_ascii_uppercase();
            }
            if is_move {
                write!(line, "[{ch}]")?;
            } else {
                write!(line, " {ch} ")?;
            }
        }
        writeln!(out, "{}", line.trim_end())?;
    }
    Ok(out)
}

/// Ewalds (MSc thesis, 2012), "Number of Wins of Each Type by Board Size", per 10,000 random
/// games: (layers, fork, bridge, ring), quoted in `shared/specs/havannah.md`.
const EWALDS: [(u32, u32, u32, u32); 4] = [
    (4, 4267, 5177, 543),
    (6, 4471, 1691, 3838),
    (8, 2266, 460, 7274),
    (10, 796, 126, 9078),
];

fn playout(args: &PlayoutArgs) -> anyhow::Result<()> {
    let layers = Layers::new(args.layers).map_err(usage)?;
    let board = Board::empty(layers);
    let mut cells: Vec<_> = Geometry::new(layers).cells().collect();
    let mut rng = rand::rngs::StdRng::seed_from_u64(args.seed);
    let (mut fork, mut bridge, mut ring, mut none, mut plies) = (0u64, 0, 0, 0, 0);
    // Games won by several kinds at once, by their names joined with '+' (sorted).
    let mut several: std::collections::BTreeMap<String, u64> = Default::default();
    for _ in 0..args.games {
        cells.shuffle(&mut rng);
        let result = play_game(&board, cells.iter().copied(), Player::One)
            .context("a shuffle of the empty board's cells is always playable")?;
        plies += result.ply as u64;
        if result.kinds.iter().count() > 1 {
            let names: Vec<&str> = result.kinds.iter().map(Kind::name).collect();
            *several.entry(names.join("+")).or_default() += 1;
        }
        match result.kinds.castro_kind() {
            Some(Kind::Fork) => fork += 1,
            Some(Kind::Bridge) => bridge += 1,
            Some(Kind::Ring) => ring += 1,
            None => none += 1,
        }
    }
    let n = args.games.max(1) as f64;
    let per10k = |x: u64| x as f64 * 10_000.0 / n;
    outln!(
        "layers {}, {} games, seed {} (one label per game: fork > bridge > ring)",
        args.layers,
        args.games,
        args.seed
    );
    let reference = EWALDS.iter().find(|r| r.0 == args.layers);
    let head = if reference.is_some() {
        "  Ewalds 2012 per 10k"
    } else {
        ""
    };
    outln!("kind    games   per 10k{head}");
    let rows = [("fork", fork, 1), ("bridge", bridge, 2), ("ring", ring, 3)];
    for (name, count, k) in rows {
        let r = reference
            .map(|r| format!("  {:>8}", [r.1, r.2, r.3][k - 1]))
            .unwrap_or_default();
        outln!("{name:<6} {count:>6} {:>9.1}{r}", per10k(count));
    }
    outln!("none   {none:>6} {:>9.1}", per10k(none));
    let multi: u64 = several.values().sum();
    let combinations: Vec<String> = several.iter().map(|(k, v)| format!("{k} {v}")).collect();
    let combinations = if combinations.is_empty() {
        String::new()
    } else {
        format!(" ({})", combinations.join(", "))
    };
    outln!(
        "several kinds at once: {multi} games{combinations}; mean game length {:.1} moves",
        plies as f64 / n
    );
    Ok(())
}

/// `n` queries on random positions of `layers` cells per side ([`random_positions`], `seed`),
/// each with its answer computed in this process.
pub(crate) fn random_queries(
    layers: u32,
    n: u64,
    seed: u64,
) -> anyhow::Result<Vec<(CheckHavannahWinRequest, CheckHavannahWinResponse)>> {
    let layers = Layers::new(layers).map_err(usage)?;
    let n = usize::try_from(n).context("--positions")?;
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    random_positions(layers, n, |cells| cells.shuffle(&mut rng))
        .context("a shuffle plays every game")?
        .into_iter()
        .map(|(board, mv, mover)| {
            let req = CheckHavannahWinRequest {
                layers: layers.get() as u32,
                board: board.to_rows().concat(),
                r#move: Some(solver_proto::convert::havannah::cell_to_wire(mv)),
                player: u32::from(mover.number()),
            };
            let answer = answer(&req).context("a generated position")?;
            Ok((req, answer))
        })
        .collect()
}
