//! Prints time and node counts of the Hex solvers on empty boards: the complete set of winning
//! openings for n = 1..=5 (or up to the first argument), then one winning move (with its
//! carrier) on the empty board of the second argument's side, if given.
//!
//! `cargo run --release -p solver-core --example hex_bench -- 5 6` runs the alpha-beta winset
//! search (`hex::solver`). With `pns` among the arguments the same tasks run with `hex::pns::solve`
//! (proof-number search, then the carrier pass), capped at 6 GiB of DAG and `secs=N` seconds per
//! task (default 1800); `unit` gives every leaf (1, 1) instead of the mustplay estimate:
//! `cargo run --release -p solver-core --example hex_bench -- pns 5 6 secs=600`

use std::time::{Duration, Instant};

use solver_core::games::hex::pns::{self, Estimate};
use solver_core::games::hex::solver::{self, Outcome, SolveOptions};
use solver_core::games::hex::{Board, Color};

fn run(n: usize, all_moves: bool, secs: u64, estimate: Option<Estimate>) {
    let board = Board::empty(n).expect("valid size");
    let opts = SolveOptions {
        all_moves,
        deadline: Some(Instant::now() + Duration::from_secs(secs)),
        max_bytes: Some(6 << 30),
        ..SolveOptions::default()
    };
    let start = Instant::now();
    let (name, outcome) = match estimate {
        None => ("alpha-beta", solver::solve(&board, Color::Black, &opts)),
        Some(e) => ("pns", pns::solve_with(&board, Color::Black, &opts, e)),
    };
    let secs = start.elapsed().as_secs_f64();
    let task = if all_moves {
        "all winning moves"
    } else {
        "one winning move"
    };
    let estimate = estimate.map(|e| format!(" ({e:?})")).unwrap_or_default();
    match outcome {
        Outcome::Solved(s) => {
            let names = |cells: &[solver_core::games::hex::Cell]| {
                cells.iter().map(|c| c.name()).collect::<Vec<_>>().join(" ")
            };
            println!(
                "{name}{estimate} {n}x{n} {task}: winner {} move {} carrier [{}] nodes {} \
                 time {secs:.3} s ({:.0} nodes/s) all [{}]",
                s.winner,
                s.winning_move.map(|c| c.name()).unwrap_or_default(),
                names(&s.carrier),
                s.nodes,
                s.nodes as f64 / secs,
                names(s.winning_moves.as_deref().unwrap_or_default()),
            );
        }
        Outcome::Unknown { nodes } => {
            println!("{name}{estimate} {n}x{n} {task}: unknown after {nodes} nodes, {secs:.1} s")
        }
    }
}

fn main() {
    let raw: Vec<String> = std::env::args().skip(1).collect();
    let args: Vec<usize> = raw.iter().filter_map(|a| a.parse().ok()).collect();
    let up_to = args.first().copied().unwrap_or(5);
    let secs = raw
        .iter()
        .find_map(|a| a.strip_prefix("secs=")?.parse().ok())
        .unwrap_or(1800);
    let estimate = raw.iter().any(|a| a == "pns").then(|| {
        if raw.iter().any(|a| a == "unit") {
            Estimate::Unit
        } else {
            Estimate::Mustplay
        }
    });
    for n in 1..=up_to {
        run(n, true, secs, estimate);
    }
    if let Some(&n) = args.get(1) {
        run(n, false, secs, estimate);
    }
}
