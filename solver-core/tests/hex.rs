//! Hex: connectivity and solving against the public test data, the known empty-board
//! openings, and the fast solver against the seed's reference search.

mod common;

use proptest::prelude::*;
use serde_json::Value;
use solver_core::games::hex::pns::{self, Estimate};
use solver_core::games::hex::solver::{Outcome, Solution, SolveOptions, solve};
use solver_core::games::hex::{Board, Cell, Color, reference};

fn records(file: &str) -> Vec<Value> {
    common::testdata("hex", file)
}

fn board_of(rec: &Value) -> Board {
    let n = rec["n"].as_u64().expect("n") as usize;
    let rows: Vec<&str> = rec["board"]
        .as_array()
        .expect("board")
        .iter()
        .map(|r| r.as_str().expect("row"))
        .collect();
    Board::parse(n, &rows).expect("valid board")
}

fn solved(board: &Board, to_move: Color) -> Solution {
    let opts = SolveOptions {
        all_moves: true,
        ..SolveOptions::default()
    };
    match solve(board, to_move, &opts) {
        Outcome::Solved(s) => s,
        Outcome::Unknown { .. } => panic!("no budget was set"),
    }
}

fn names(cells: &[Cell]) -> Vec<String> {
    cells.iter().map(|c| c.name()).collect()
}

/// A chain must hold stones of `color` only, be adjacent step by step, and join the sides.
fn check_chain(board: &Board, color: Color, chain: &[Cell]) {
    let n = board.size() as u8;
    assert!(chain.iter().all(|&c| board.get(c) == Some(color)));
    for w in chain.windows(2) {
        let (dr, dc) = (
            w[1].row as i32 - w[0].row as i32,
            w[1].col as i32 - w[0].col as i32,
        );
        assert!(
            matches!(
                (dr, dc),
                (0, 1) | (0, -1) | (1, 0) | (-1, 0) | (-1, 1) | (1, -1)
            ),
            "{} and {} are not adjacent",
            w[0],
            w[1]
        );
    }
    let (first, last) = (chain[0], chain[chain.len() - 1]);
    match color {
        Color::Black => assert!(first.row == 0 && last.row == n - 1),
        Color::White => assert!(first.col == 0 && last.col == n - 1),
    }
}

#[test]
fn connectivity_records() {
    let recs = records("connectivity.jsonl");
    assert!(recs.len() >= 20);
    for rec in recs {
        let board = board_of(&rec);
        let want = rec["connected"]
            .as_str()
            .map(|s| Color::parse(s).expect("B or W"));
        assert_eq!(board.winner(), want, "{}", rec["id"]);
        for color in [Color::Black, Color::White] {
            match board.winning_chain(color) {
                Some(chain) => {
                    assert_eq!(Some(color), want, "{}", rec["id"]);
                    check_chain(&board, color, &chain);
                }
                None => assert_ne!(Some(color), want, "{}", rec["id"]),
            }
        }
    }
}

/// A record of `positions.jsonl`: the board, the side to move, and the answer.
struct Case {
    board: Board,
    to_move: Color,
    winner: Color,
    /// Every winning move of the side to move, row by row.
    winning_moves: Vec<String>,
}

fn position_cases() -> Vec<(Case, Value)> {
    let recs = records("positions.jsonl");
    assert!(recs.len() >= 600);
    recs.into_iter()
        .map(|rec| {
            let color =
                |field: &str| Color::parse(rec[field].as_str().expect(field)).expect("B or W");
            let case = Case {
                board: board_of(&rec),
                to_move: color("to_move"),
                winner: color("winner"),
                winning_moves: rec["winning_moves"]
                    .as_array()
                    .expect("winning_moves")
                    .iter()
                    .map(|m| m.as_str().expect("a cell name").to_string())
                    .collect(),
            };
            (case, rec["id"].clone())
        })
        .collect()
}

/// `s` (solved with every winning move asked) gives the record's winner and winning moves,
/// and its one winning move is among them.
fn check_case(case: &Case, s: &Solution, label: &str) {
    assert_eq!(s.winner, case.winner, "{label}");
    assert_eq!(
        names(s.winning_moves.as_deref().expect("asked")),
        case.winning_moves,
        "{label}"
    );
    match s.winning_move {
        Some(m) => assert!(case.winning_moves.contains(&m.name()), "{label}: {m}"),
        None => assert!(
            case.winner != case.to_move || case.board.winner().is_some(),
            "{label}"
        ),
    }
}

#[test]
fn position_records_winner_and_every_winning_move() {
    for (case, id) in position_cases() {
        let s = solved(&case.board, case.to_move);
        check_case(&case, &s, &id.to_string());
    }
}

#[test]
fn proof_number_search_agrees_on_every_record() {
    let opts = SolveOptions {
        all_moves: true,
        ..SolveOptions::default()
    };
    for (case, id) in position_cases() {
        for estimate in [Estimate::Mustplay, Estimate::Unit] {
            let Outcome::Solved(s) = pns::solve_with(&case.board, case.to_move, &opts, estimate)
            else {
                panic!("no budget was set");
            };
            check_case(&case, &s, &format!("{id} {estimate:?}"));
        }
    }
}

#[test]
fn reference_agrees_on_small_records() {
    for rec in records("positions.jsonl") {
        let board = board_of(&rec);
        let empties = board.empty_cells().count_ones();
        if board.size() > 4 && empties > 8 {
            continue;
        }
        let to_move = Color::parse(rec["to_move"].as_str().expect("to_move")).expect("B or W");
        let r = reference::win_move(&board, to_move);
        assert_eq!(
            r.winner.to_char().to_string(),
            rec["winner"],
            "{}",
            rec["id"]
        );
    }
}

#[test]
fn empty_boards_have_the_known_winning_openings() {
    let known: [&[&str]; 5] = [
        &["a1"],
        &["b1", "a2"],
        &["c1", "a2", "b2", "c2", "a3"],
        &["d1", "c2", "b3", "a4"],
        &[
            "e1", "b2", "c2", "d2", "e2", "b3", "c3", "d3", "a4", "b4", "c4", "d4", "a5",
        ],
    ];
    for (i, want) in known.iter().enumerate() {
        let n = i + 1;
        let board = Board::empty(n).expect("valid size");
        let s = solved(&board, Color::Black);
        assert_eq!(s.winner, Color::Black, "n={n}");
        assert_eq!(names(&s.winning_moves.expect("asked")), *want, "n={n}");
        // White's winning openings are the transposes.
        let s = solved(&board, Color::White);
        let mut transposed: Vec<Cell> = want
            .iter()
            .map(|m| {
                let c = Cell::parse(m, n).expect("name");
                Cell::new(c.col, c.row)
            })
            .collect();
        transposed.sort();
        assert_eq!(s.winning_moves.expect("asked"), transposed, "n={n} White");
    }
}

#[test]
fn budget_gives_unknown() {
    let board = Board::empty(8).expect("valid size");
    let opts = SolveOptions {
        max_nodes: Some(10),
        ..SolveOptions::default()
    };
    assert!(
        matches!(solve(&board, Color::Black, &opts), Outcome::Unknown { nodes } if nodes <= 11)
    );
}

/// The winner still wins when every empty cell outside its carrier goes to the loser.
fn carrier_holds(board: &Board, to_move: Color, s: &Solution) {
    let loser = s.winner.opponent();
    let mut b = *board;
    let carrier: Vec<Cell> = s.carrier.clone();
    for cell in solver_core::games::hex::cells_of(board.empty_cells(), board.size()) {
        if !carrier.contains(&cell) {
            b = b.play(cell, loser).expect("empty");
        }
    }
    if let Some(w) = b.winner() {
        assert_eq!(w, s.winner, "carrier lets the loser connect");
        return;
    }
    assert_eq!(
        reference::win_move(&b, to_move).winner,
        s.winner,
        "carrier does not hold"
    );
}

/// Random positions without a connected side: any filling on 2x2 and 3x3, and 4x4 boards with
/// 8 to 12 stones (the reference search is exponential in the empty cells).
fn arb_position() -> impl Strategy<Value = (Board, Color)> {
    (2usize..=4, any::<u64>(), any::<bool>()).prop_filter_map(
        "someone connected",
        |(n, seed, white)| {
            let mut x = seed | 1;
            let mut next = move || {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                x
            };
            let cells = n * n;
            let stones = if n == 4 {
                8 + (next() % 5) as usize
            } else {
                (next() % (cells as u64 + 1)) as usize
            };
            let (mut black, mut whites) = (0u128, 0u128);
            let mut placed = 0;
            while placed < stones {
                let bit = 1u128 << (next() % cells as u64);
                if (black | whites) & bit != 0 {
                    continue;
                }
                if next() & 1 == 0 {
                    black |= bit;
                } else {
                    whites |= bit;
                }
                placed += 1;
            }
            let board = Board::from_masks(n, black, whites).ok()?;
            if board.winner().is_some() {
                return None;
            }
            let to_move = if white { Color::White } else { Color::Black };
            Some((board, to_move))
        },
    )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]
    #[test]
    fn fast_solver_agrees_with_reference((board, to_move) in arb_position()) {
        let s = solved(&board, to_move);
        let r = reference::win_move(&board, to_move);
        prop_assert_eq!(s.winner, r.winner);
        prop_assert_eq!(s.winning_moves.clone().expect("asked"), reference::winning_moves(&board, to_move));
        carrier_holds(&board, to_move, &s);
    }

    #[test]
    fn proof_number_solver_agrees_with_reference((board, to_move) in arb_position()) {
        let opts = SolveOptions { all_moves: true, ..SolveOptions::default() };
        let Outcome::Solved(s) = pns::solve(&board, to_move, &opts) else {
            panic!("no budget was set");
        };
        let r = reference::win_move(&board, to_move);
        prop_assert_eq!(s.winner, r.winner);
        prop_assert_eq!(s.winning_moves.clone().expect("asked"), reference::winning_moves(&board, to_move));
        carrier_holds(&board, to_move, &s);
    }
}
