//! `solver renju ...`: five and Black's forbidden moves, in-process or over gRPC.
//!
//! Both paths share one shape: the input becomes a `solver.v1` request, the answer a
//! `solver.v1` response (computed with `solver_core` in-process, or by `Rules` on `--server`),
//! and one printer turns the response into JSON or text. So the two paths cannot drift.
//!
//! Notation: boards are 15 rows, top row first (`X` black, `O` white, `.` empty); a move is
//! `{"row": r, "col": c}` (0-based, row 0 = top) or a name like `"H8"` (column letter, then
//! `15 - row`). The Gomocup `x,y` (= col,row) order is not accepted anywhere here.

use std::path::{Path, PathBuf};

use clap::{ArgGroup, Subcommand};
use serde_json::{Value, json};
use solver_core::games::renju::{Kind, Point, SIZE};
use solver_proto::convert::renju as conv;
use solver_proto::v1::{
    CheckRenjuRequest, CheckRenjuResponse, RenjuColor, RenjuForbiddenMapRequest,
    RenjuForbiddenMapResponse, RenjuPoint,
};

use crate::cli::{block_on, for_each_jsonl, usage};
use crate::problems::Backend;

/// The renju commands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Is a move a win, and is it forbidden for Black? One JSON answer per `--jsonl` line
    /// (`win`, `forbidden`, `result`, `shape_flags`, `fours`, `threes`, `longest_line`,
    /// `move`, and the input's `id`), or a text verdict for one `--board` / `--move`.
    #[command(group(ArgGroup::new("input").required(true).args(["jsonl", "board", "board_file"])))]
    #[command(group(ArgGroup::new("one_board").args(["board", "board_file"]).requires("move_")))]
    Check {
        /// JSON lines with `board` (15 strings), `color` ("black"|"white") and `move`
        /// (`{"row", "col"}` 0-based from the top-left, or a name like "H8").
        #[arg(long, conflicts_with_all = ["board", "board_file", "color", "move_"])]
        jsonl: Option<PathBuf>,
        #[command(flatten)]
        board: BoardArgs,
        /// The mover: black or white (with --board / --board-file).
        #[arg(long, default_value = "black")]
        color: String,
        /// The move as a name like H8, or row,col (0-based, row 0 = top).
        #[arg(long = "move", id = "move_", value_name = "MOVE")]
        move_: Option<String>,
        #[command(flatten)]
        remote: crate::problems::Remote,
        /// Print JSON instead of text (single-move form; --jsonl always prints JSON).
        #[arg(long)]
        json: bool,
    },
    /// Every black forbidden point (with its kind), black five point and white winning point
    /// of a board: the board printed with the points marked, or JSON.
    #[command(group(ArgGroup::new("input").required(true).args(["jsonl", "board", "board_file"])))]
    Map {
        /// JSON lines with `board`; one JSON map per line (the input's `id` echoed).
        #[arg(long, conflicts_with_all = ["board", "board_file"])]
        jsonl: Option<PathBuf>,
        #[command(flatten)]
        board: BoardArgs,
        #[command(flatten)]
        remote: crate::problems::Remote,
        /// Print JSON instead of the marked board.
        #[arg(long)]
        json: bool,
    },
}

/// A board on the command line.
#[derive(Debug, clap::Args)]
pub struct BoardArgs {
    /// The 15 rows joined by '/', top row first ('X' black, 'O' white, '.' empty).
    #[arg(long)]
    pub board: Option<String>,
    /// A file holding the 15 rows, one per line, top row first.
    #[arg(long, conflicts_with = "board")]
    pub board_file: Option<PathBuf>,
}

impl BoardArgs {
    /// The rows as given (validated later, by the same code as the server's).
    fn rows(&self) -> anyhow::Result<Vec<String>> {
        if let Some(text) = &self.board {
            return Ok(text.split('/').map(|s| s.trim().to_string()).collect());
        }
        if let Some(path) = &self.board_file {
            let text = std::fs::read_to_string(path)
                .map_err(|e| usage(format!("--board-file {}: {e}", path.display())))?;
            return Ok(text
                .lines()
                .map(str::trim)
                .filter(|l| !l.is_empty())
                .map(String::from)
                .collect());
        }
        Err(usage(
            "give --board ROWS, --board-file FILE or --jsonl FILE",
        ))
    }
}

async fn check(
    backend: &mut Backend,
    req: CheckRenjuRequest,
) -> anyhow::Result<CheckRenjuResponse> {
    let local = |req: CheckRenjuRequest| {
        let (board, color, p) = conv::check_request(&req).map_err(usage)?;
        let c = board.check(color, p).map_err(usage)?;
        Ok(conv::check_response(&c, p))
    };
    backend
        .answer(req, local, async |c, req| c.check_renju(req).await)
        .await
}

async fn map(
    backend: &mut Backend,
    rows: Vec<String>,
) -> anyhow::Result<RenjuForbiddenMapResponse> {
    let local = |req: RenjuForbiddenMapRequest| {
        let board = conv::board(&req.board, "board").map_err(usage)?;
        Ok((&board.forbidden_map()).into())
    };
    let req = RenjuForbiddenMapRequest { board: rows };
    backend
        .answer(req, local, async |c, req| c.renju_forbidden_map(req).await)
        .await
}

/// Runs one `solver renju` command.
pub async fn run(cmd: Command) -> anyhow::Result<()> {
    match cmd {
        Command::Check {
            jsonl: Some(path),
            remote,
            ..
        } => {
            let mut backend = Backend::new(&remote).await?;
            check_jsonl(&path, &mut backend)
        }
        Command::Check {
            jsonl: None,
            board,
            color,
            move_,
            remote,
            json,
        } => {
            let mut backend = Backend::new(&remote).await?;
            let rows = board.rows()?;
            let mv = move_.ok_or_else(|| usage("--move is required with --board"))?;
            let req = CheckRenjuRequest {
                board: rows.clone(),
                color: parse_color(&Value::String(color), "--color")?.into(),
                r#move: Some(parse_move(&Value::String(mv), "--move")?),
            };
            let answer = check(&mut backend, req).await?;
            if json {
                outln!("{}", check_json(&answer));
            } else {
                print_check(&rows, &answer);
            }
            Ok(())
        }
        Command::Map {
            jsonl,
            board,
            remote,
            json,
        } => {
            let mut backend = Backend::new(&remote).await?;
            if let Some(path) = jsonl {
                return for_each_jsonl(&path, |v| {
                    let rows = parse_board(v)?;
                    Ok(map_json(&block_on(map(&mut backend, rows))?))
                });
            }
            let rows = board.rows()?;
            let map = map(&mut backend, rows.clone()).await?;
            if json {
                outln!("{}", map_json(&map));
            } else {
                print_map(&rows, &map);
            }
            Ok(())
        }
    }
}

fn check_jsonl(path: &Path, backend: &mut Backend) -> anyhow::Result<()> {
    for_each_jsonl(path, |v| {
        let req = CheckRenjuRequest {
            board: parse_board(v)?,
            color: parse_color(v.get("color").unwrap_or(&Value::Null), "color")?.into(),
            r#move: Some(parse_move(v.get("move").unwrap_or(&Value::Null), "move")?),
        };
        Ok(check_json(&block_on(check(backend, req))?))
    })
}

/// `board`: an array of strings (checked for shape by the shared validation).
fn parse_board(v: &Value) -> anyhow::Result<Vec<String>> {
    let rows = v
        .get("board")
        .and_then(Value::as_array)
        .ok_or_else(|| usage("board: must be an array of 15 strings"))?;
    rows.iter()
        .enumerate()
        .map(|(i, r)| {
            r.as_str()
                .map(String::from)
                .ok_or_else(|| usage(format!("board[{i}]: must be a string")))
        })
        .collect()
}

fn parse_color(v: &Value, field: &str) -> anyhow::Result<RenjuColor> {
    match v.as_str().map(|s| s.trim().to_ascii_lowercase()).as_deref() {
        Some("black" | "x" | "b") => Ok(RenjuColor::Black),
        Some("white" | "o" | "w") => Ok(RenjuColor::White),
        _ => Err(usage(format!(
            "{field}: must be \"black\" or \"white\", got {v}"
        ))),
    }
}

/// A move: a name ("H8"), "row,col", or an object with `row` and `col` and/or `name`.
fn parse_move(v: &Value, field: &str) -> anyhow::Result<RenjuPoint> {
    let coord = |x: Option<&Value>, axis: &str| -> anyhow::Result<u32> {
        match x {
            None | Some(Value::Null) => Ok(0),
            Some(n) => n
                .as_u64()
                .and_then(|n| u32::try_from(n).ok())
                .filter(|&n| (n as usize) < SIZE)
                .ok_or_else(|| usage(format!("{field}.{axis}: {n} is off the board (0..=14)"))),
        }
    };
    match v {
        Value::String(s) => {
            if let Some((r, c)) = s.split_once(',') {
                let num = |t: &str, axis: &str| {
                    t.trim()
                        .parse::<u64>()
                        .map_err(|_| usage(format!("{field}.{axis}: {t:?} is not a number")))
                        .and_then(|n| coord(Some(&json!(n)), axis))
                };
                Ok(RenjuPoint {
                    row: num(r, "row")?,
                    col: num(c, "col")?,
                    name: String::new(),
                })
            } else if s.trim().is_empty() {
                // An empty name would stand for row 0, col 0 (A15).
                Err(usage(format!(
                    "{field}: empty; a name (\"H8\") or \"row,col\""
                )))
            } else {
                Ok(RenjuPoint {
                    row: 0,
                    col: 0,
                    name: s.clone(),
                })
            }
        }
        Value::Object(o) => {
            let name = match o.get("name") {
                None | Some(Value::Null) => String::new(),
                Some(Value::String(s)) => s.clone(),
                Some(x) => return Err(usage(format!("{field}.name: must be a string, got {x}"))),
            };
            if name.is_empty() && (!o.contains_key("row") || !o.contains_key("col")) {
                return Err(usage(format!("{field}: needs row and col, or a name")));
            }
            Ok(RenjuPoint {
                row: coord(o.get("row"), "row")?,
                col: coord(o.get("col"), "col")?,
                name,
            })
        }
        _ => Err(usage(format!(
            "{field}: must be {{\"row\", \"col\"}} or a name like \"H8\", got {v}"
        ))),
    }
}

fn label(raw: i32) -> &'static str {
    conv::kind_from_wire(raw).map_or("unspecified", Kind::label)
}

fn point_json(p: &RenjuPoint) -> Value {
    json!({"row": p.row, "col": p.col, "name": p.name})
}

/// The JSON answer of one check (field names as in the shared test data's `expect`).
fn check_json(a: &CheckRenjuResponse) -> Value {
    let f = a.shape_flags.unwrap_or_default();
    json!({
        "win": a.win,
        "forbidden": a.forbidden,
        "result": label(a.kind),
        "shape_flags": {
            "five": f.five,
            "overline": f.overline,
            "double_four": f.double_four,
            "double_three": f.double_three,
        },
        "fours": a.fours,
        "threes": a.threes,
        "longest_line": a.longest_line,
        "move": a.r#move.as_ref().map(point_json),
    })
}

/// The JSON form of a map (field names as in the shared test data).
fn map_json(m: &RenjuForbiddenMapResponse) -> Value {
    let forbidden: Vec<Value> = m
        .black_forbidden
        .iter()
        .map(|f| {
            let mut v = f.point.as_ref().map(point_json).unwrap_or(Value::Null);
            if let Some(o) = v.as_object_mut() {
                o.insert("kind".into(), label(f.kind).into());
            }
            v
        })
        .collect();
    json!({
        "black_forbidden": forbidden,
        "black_five_points": m.black_five_points.iter().map(point_json).collect::<Vec<_>>(),
        "white_win_points": m.white_win_points.iter().map(point_json).collect::<Vec<_>>(),
    })
}

/// The board with column letters and line numbers; `mark` may replace a point's character.
fn render(rows: &[String], mark: impl Fn(Point) -> Option<char>) -> String {
    let letters: String = (0..SIZE)
        .map(|c| format!(" {}", char::from(b'A' + c as u8)))
        .collect();
    let mut out = format!("   {letters}\n");
    for (r, row) in rows.iter().enumerate() {
        out.push_str(&format!("{:>2} ", SIZE - r));
        for (c, ch) in row.chars().enumerate() {
            let p = Point::new(r as i64, c as i64).expect("validated board");
            out.push(' ');
            out.push(mark(p).unwrap_or(ch));
        }
        out.push('\n');
    }
    out
}

fn print_check(rows: &[String], a: &CheckRenjuResponse) {
    let mv = a.r#move.clone().unwrap_or_default();
    out!(
        "{}",
        render(rows, |p| (p.row() == mv.row as usize
            && p.col() == mv.col as usize)
            .then_some('*'))
    );
    let f = a.shape_flags.unwrap_or_default();
    let shapes: Vec<&str> = [
        (f.five, "five"),
        (f.overline, "overline"),
        (f.double_four, "double-four"),
        (f.double_three, "double-three"),
    ]
    .iter()
    .filter(|s| s.0)
    .map(|s| s.1)
    .collect();
    outln!(
        "{} (row {}, col {}): {}{}{}",
        mv.name,
        mv.row,
        mv.col,
        label(a.kind),
        if a.win { ", wins" } else { "" },
        if a.forbidden { ", FORBIDDEN" } else { "" },
    );
    outln!(
        "fours {}, threes {}, longest line {}, shapes: {}",
        a.fours,
        a.threes,
        a.longest_line,
        if shapes.is_empty() {
            "none".to_string()
        } else {
            shapes.join(" ")
        }
    );
}

fn print_map(rows: &[String], m: &RenjuForbiddenMapResponse) {
    let at = |p: &RenjuPoint, q: Point| p.row as usize == q.row() && p.col as usize == q.col();
    let text = render(rows, |q| {
        if let Some(f) = m
            .black_forbidden
            .iter()
            .find(|f| f.point.as_ref().is_some_and(|p| at(p, q)))
        {
            return Some(match conv::kind_from_wire(f.kind) {
                Some(Kind::Overline) => '6',
                Some(Kind::DoubleFour) => '4',
                _ => '3',
            });
        }
        if m.black_five_points.iter().any(|p| at(p, q)) {
            return Some('5');
        }
        m.white_win_points.iter().any(|p| at(p, q)).then_some('w')
    });
    out!("{text}");
    outln!("marks: 3 double-three, 4 double-four, 6 overline (forbidden for Black);");
    outln!("       5 Black makes five; w White makes five (where Black has no mark)");
    // "label (count): a b c", without a trailing space when there is none.
    let line = |label: &str, items: Vec<String>| {
        outln!(
            "{label} ({}):{}",
            items.len(),
            items.iter().map(|s| format!(" {s}")).collect::<String>()
        );
    };
    line(
        "black forbidden",
        m.black_forbidden
            .iter()
            .map(|f| {
                let p = f.point.clone().unwrap_or_default();
                format!("{}={}", p.name, label(f.kind))
            })
            .collect(),
    );
    line(
        "black fives",
        m.black_five_points.iter().map(|p| p.name.clone()).collect(),
    );
    line(
        "white wins",
        m.white_win_points.iter().map(|p| p.name.clone()).collect(),
    );
}
