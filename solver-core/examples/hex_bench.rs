//! Prints time and node counts of the Hex solver on empty boards: the complete set of winning
//! openings for n = 1..=5 (or up to the first argument), then one winning move on the empty
//! board of the second argument's side, if given.
//!
//! `cargo run --release -p solver-core --example hex_bench -- 5 6`

use std::time::Instant;

use solver_core::games::hex::solver::{Outcome, SolveOptions, solve};
use solver_core::games::hex::{Board, Color};

fn run(n: usize, all_moves: bool) {
    let board = Board::empty(n).expect("valid size");
    let opts = SolveOptions {
        all_moves,
        ..SolveOptions::default()
    };
    let start = Instant::now();
    let outcome = solve(&board, Color::Black, &opts);
    let secs = start.elapsed().as_secs_f64();
    match outcome {
        Outcome::Solved(s) => {
            let moves: Vec<String> = s
                .winning_moves
                .unwrap_or_default()
                .iter()
                .map(|c| c.name())
                .collect();
            println!(
                "{n}x{n} {}: winner {} move {} nodes {} time {secs:.3} s ({:.0} nodes/s) all [{}]",
                if all_moves {
                    "all winning moves"
                } else {
                    "one winning move"
                },
                s.winner,
                s.winning_move.map(|c| c.name()).unwrap_or_default(),
                s.nodes,
                s.nodes as f64 / secs,
                moves.join(" ")
            );
        }
        Outcome::Unknown { nodes } => println!("{n}x{n}: unknown after {nodes} nodes"),
    }
}

fn main() {
    let args: Vec<usize> = std::env::args()
        .skip(1)
        .filter_map(|a| a.parse().ok())
        .collect();
    let up_to = args.first().copied().unwrap_or(5);
    for n in 1..=up_to {
        run(n, true);
    }
    if let Some(&n) = args.get(1) {
        run(n, false);
    }
}
