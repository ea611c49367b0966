//! `solver hex ...`: Hex connectivity and solving, in-process or over gRPC.
//!
//! Both paths share one shape: the input becomes a `solver.v1` request, the answer a
//! `solver.v1` response (computed with `solver_core` in-process through the same conversions
//! the server uses, or by `Rules` on `--server`), and one printer turns the response into JSON
//! or a drawing of the board.
//!
//! Boards: `n` rows, top row first, `.` empty, `B` black (top to bottom), `W` white (left to
//! right); cells are named column letter + 1-based row (`a1` = top-left).

use std::path::PathBuf;
use std::time::Instant;

use clap::{ArgGroup, Args, Subcommand};
use serde_json::{Value, json};
use solver_core::games::hex::{self, Board};
use solver_proto::convert::hex as conv;
use solver_proto::v1::{
    CheckHexWinRequest, CheckHexWinResponse, HexBoard, HexCell, HexColor, HexSolveStatus,
    SolveHexRequest, SolveHexResponse,
};

use crate::cli::{block_on, for_each_jsonl, usage};
use crate::problems::Backend;

/// The Hex commands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Which side has joined its two sides, with a winning chain. One JSON answer per
    /// `--jsonl` line (`connected`: "B" | "W" | null, `chain`, and the input's `id`), or the
    /// board drawn with the chain marked.
    #[command(group(ArgGroup::new("input").required(true).args(["jsonl", "rows", "empty"])))]
    Check {
        /// JSON lines with `board` (n strings) and optionally `n`.
        #[arg(long, conflicts_with_all = ["rows", "empty"])]
        jsonl: Option<PathBuf>,
        #[command(flatten)]
        board: BoardArgs,
        #[command(flatten)]
        remote: crate::problems::Remote,
        /// Print JSON instead of the drawing (single-board form; --jsonl always prints JSON).
        #[arg(long)]
        json: bool,
    },
    /// Solve a board for the side to move: winner, a winning move, the winner's carrier, and
    /// with `--all-moves` every winning move. One JSON answer per `--jsonl` line (`status`,
    /// `winner`, `winning_move`, `winning_moves`, `carrier`, `nodes`, `time_ms`, `id`), or the
    /// board drawn with the winning moves marked `*`.
    #[command(group(ArgGroup::new("input").required(true).args(["jsonl", "rows", "empty"])))]
    Solve {
        /// JSON lines with `board` (n strings), `to_move` ("B" | "W") and optionally `n`.
        #[arg(long, conflicts_with_all = ["rows", "empty", "to_move"])]
        jsonl: Option<PathBuf>,
        #[command(flatten)]
        board: BoardArgs,
        /// The side to move, B or W (single-board form).
        #[arg(long, default_value = "B")]
        to_move: String,
        /// Also list every winning move.
        #[arg(long)]
        all_moves: bool,
        /// Give up ("unknown") after this many nodes (proof-number DAG nodes plus the carrier
        /// search's nodes); 0 = no limit.
        #[arg(long, default_value_t = 0)]
        max_nodes: u64,
        /// Give up ("unknown") after this many milliseconds; 0 = 10 000.
        #[arg(long, default_value_t = 0)]
        time_limit_ms: u64,
        #[command(flatten)]
        remote: crate::problems::Remote,
        /// Print JSON instead of the drawing (single-board form).
        #[arg(long)]
        json: bool,
    },
}

/// A board given on the command line.
#[derive(Debug, Args)]
pub struct BoardArgs {
    /// The rows, top row first (e.g. `.B. ... W..`).
    rows: Vec<String>,
    /// The empty board of this side (1 to 11) instead of rows.
    #[arg(long, conflicts_with = "rows", value_parser = clap::value_parser!(u32)
          .range(hex::MIN_SIZE as i64..=hex::MAX_SIZE as i64))]
    empty: Option<u32>,
}

impl BoardArgs {
    fn board(&self) -> anyhow::Result<HexBoard> {
        match self.empty {
            Some(n) => Ok(HexBoard {
                n,
                rows: vec![".".repeat(n as usize); n as usize],
            }),
            None => Ok(HexBoard {
                n: 0,
                rows: self.rows.clone(),
            }),
        }
    }
}

async fn check(
    backend: &mut Backend,
    req: CheckHexWinRequest,
) -> anyhow::Result<CheckHexWinResponse> {
    let local = |req: CheckHexWinRequest| {
        let board = conv::board(req.board.as_ref(), "board").map_err(usage)?;
        Ok(conv::check_answer(&board))
    };
    backend
        .answer(req, local, async |c, req| c.check_hex_win(req).await)
        .await
}

async fn solve(backend: &mut Backend, req: SolveHexRequest) -> anyhow::Result<SolveHexResponse> {
    let local = |req: SolveHexRequest| {
        let start = Instant::now();
        let q = conv::SolveQuery::try_from(&req).map_err(usage)?;
        Ok(q.solve(start, None))
    };
    backend
        .answer(req, local, async |c, req| c.solve_hex(req).await)
        .await
}

/// Runs one `solver hex` command.
pub async fn run(cmd: Command) -> anyhow::Result<()> {
    match cmd {
        Command::Check {
            jsonl,
            board,
            remote,
            json,
        } => {
            let mut backend = Backend::new(&remote).await?;
            if let Some(path) = jsonl {
                return for_each_jsonl(&path, |v| {
                    let req = CheckHexWinRequest {
                        board: Some(parse_board(v)?),
                    };
                    Ok(check_json(&block_on(check(&mut backend, req))?))
                });
            }
            let board = board.board()?;
            let req = CheckHexWinRequest {
                board: Some(board.clone()),
            };
            let answer = check(&mut backend, req).await?;
            if json {
                outln!("{}", check_json(&answer));
            } else {
                print_check(&board, &answer)?;
            }
            Ok(())
        }
        Command::Solve {
            jsonl,
            board,
            to_move,
            all_moves,
            max_nodes,
            time_limit_ms,
            remote,
            json,
        } => {
            let mut backend = Backend::new(&remote).await?;
            let request = |board: HexBoard, to_move: HexColor| SolveHexRequest {
                board: Some(board),
                to_move: to_move.into(),
                all_moves,
                max_nodes,
                time_limit_ms,
            };
            if let Some(path) = jsonl {
                return for_each_jsonl(&path, |v| {
                    let req = request(parse_board(v)?, parse_color(v.get("to_move"), "to_move")?);
                    Ok(solve_json(&block_on(solve(&mut backend, req))?))
                });
            }
            let board = board.board()?;
            let color = parse_color(Some(&Value::String(to_move)), "--to-move")?;
            let answer = solve(&mut backend, request(board.clone(), color)).await?;
            if json {
                outln!("{}", solve_json(&answer));
            } else {
                print_solve(&board, &answer)?;
            }
            Ok(())
        }
    }
}

/// `board` (array of strings) and the optional `n` of a JSON line.
fn parse_board(v: &Value) -> anyhow::Result<HexBoard> {
    let rows = v
        .get("board")
        .and_then(Value::as_array)
        .ok_or_else(|| usage("board: expected an array of row strings"))?
        .iter()
        .map(|r| {
            r.as_str()
                .map(str::to_string)
                .ok_or_else(|| usage("board: every row must be a string"))
        })
        .collect::<anyhow::Result<Vec<String>>>()?;
    let n = match v.get("n") {
        None | Some(Value::Null) => 0,
        Some(n) => n
            .as_u64()
            .and_then(|n| u32::try_from(n).ok())
            .filter(|&n| n > 0)
            .ok_or_else(|| usage("n: expected a positive integer"))?,
    };
    Ok(HexBoard { n, rows })
}

/// `"B"` / `"W"` (also `black` / `white`).
fn parse_color(v: Option<&Value>, field: &str) -> anyhow::Result<HexColor> {
    let s = v
        .and_then(Value::as_str)
        .ok_or_else(|| usage(format!("{field}: expected \"B\" or \"W\"")))?;
    match hex::Color::parse(s).map_err(|e| usage(format!("{field}: {e}")))? {
        hex::Color::Black => Ok(HexColor::Black),
        hex::Color::White => Ok(HexColor::White),
    }
}

fn color_json(raw: i32) -> Value {
    match HexColor::try_from(raw) {
        Ok(HexColor::Black) => json!("B"),
        Ok(HexColor::White) => json!("W"),
        _ => Value::Null,
    }
}

fn names(cells: &[HexCell]) -> Vec<&str> {
    cells.iter().map(|c| c.name.as_str()).collect()
}

fn check_json(a: &CheckHexWinResponse) -> Value {
    json!({ "connected": color_json(a.connected), "chain": names(&a.chain) })
}

fn solve_json(a: &SolveHexResponse) -> Value {
    if a.status == i32::from(HexSolveStatus::Unknown) {
        return json!({ "status": "unknown", "nodes": a.nodes, "time_ms": a.time_ms });
    }
    let mut out = json!({
        "status": "solved",
        "winner": color_json(a.winner),
        "winning_move": a.winning_move.as_ref().map(|c| c.name.clone()),
        "carrier": names(&a.carrier),
        "nodes": a.nodes,
        "time_ms": a.time_ms,
    });
    if a.all_moves {
        out["winning_moves"] = json!(names(&a.winning_moves));
    }
    out
}

/// Draws the board with `marked` empty cells shown as `*`.
fn draw(board: &HexBoard, marked: &[HexCell]) -> anyhow::Result<String> {
    let parsed = conv::board(Some(board), "board").map_err(usage)?;
    let cells: Vec<_> = marked
        .iter()
        .map(|c| hex::Cell::new(c.row as u8, c.col as u8))
        .collect();
    Ok(Board::draw(&parsed, &cells))
}

fn print_check(board: &HexBoard, a: &CheckHexWinResponse) -> anyhow::Result<()> {
    out!("{}", draw(board, &[])?);
    match color_json(a.connected) {
        Value::Null => outln!("nobody is connected"),
        c => outln!(
            "{} is connected: {}",
            c.as_str().unwrap_or("?"),
            names(&a.chain).join(" ")
        ),
    }
    Ok(())
}

fn print_solve(board: &HexBoard, a: &SolveHexResponse) -> anyhow::Result<()> {
    if a.status == i32::from(HexSolveStatus::Unknown) {
        out!("{}", draw(board, &[])?);
        outln!(
            "unknown within the budget ({} nodes, {} ms)",
            a.nodes,
            a.time_ms
        );
        return Ok(());
    }
    let marked: Vec<HexCell> = if a.all_moves {
        a.winning_moves.clone()
    } else {
        a.winning_move.iter().cloned().collect()
    };
    out!("{}", draw(board, &marked)?);
    outln!("winner: {}", color_json(a.winner).as_str().unwrap_or("?"));
    if let Some(m) = &a.winning_move {
        outln!("winning move: {}", m.name);
    }
    if a.all_moves {
        outln!("winning moves (*): {}", names(&a.winning_moves).join(" "));
    }
    outln!("carrier: {}", names(&a.carrier).join(" "));
    outln!("{} nodes, {} ms", a.nodes, a.time_ms);
    Ok(())
}
