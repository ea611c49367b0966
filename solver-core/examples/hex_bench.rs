//! Prints time and node counts of the Hex solver on empty boards: the complete set of winning
//! openings for n = 1..=5 (or up to the first argument), then one winning move on the empty
//! board of the second argument's side, if given.
//!
//! `cargo run --release -p solver-core --example hex_bench -- 5 6`
//!
//! With `pns` among the arguments the same tasks run with the proof-number search
//! (`hex::pns`), capped at 6 GiB of DAG and `secs=N` seconds per task (default 1800):
//! `cargo run --release -p solver-core --example hex_bench -- pns 5 6 secs=600`

use std::time::{Duration, Instant};

use solver_core::games::hex::pns::{Estimate, PnsOutcome, solve_pns_with, winning_moves_pns};
use solver_core::pns::Limits;

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

fn limits(secs: u64) -> Limits {
    Limits {
        max_bytes: Some(6 << 30),
        deadline: Some(Instant::now() + Duration::from_secs(secs)),
        ..Limits::default()
    }
}

fn run_pns(n: usize, all_moves: bool, secs: u64, estimate: Estimate) {
    let board = Board::empty(n).expect("valid size");
    let start = Instant::now();
    if all_moves {
        let (moves, st) = winning_moves_pns(&board, Color::Black, &limits(secs), estimate);
        let secs = start.elapsed().as_secs_f64();
        match moves {
            Some(moves) => {
                let names: Vec<String> = moves.iter().map(|c| c.name()).collect();
                println!(
                    "pns {n}x{n} all winning moves ({estimate:?}): {} nodes {} expanded {} \
                     time {secs:.3} s all [{}]",
                    names.len(),
                    st.nodes_created,
                    st.nodes_expanded,
                    names.join(" ")
                );
            }
            None => println!("pns {n}x{n} all winning moves: unknown after {secs:.1} s {st:?}"),
        }
        return;
    }
    let outcome = solve_pns_with(&board, Color::Black, &limits(secs), estimate);
    let secs = start.elapsed().as_secs_f64();
    let st = outcome.stats();
    match outcome {
        PnsOutcome::Solved {
            winner,
            winning_move,
            ..
        } => println!(
            "pns {n}x{n} one winning move ({estimate:?}): winner {winner} move {} nodes {} \
             expanded {} peak {} MiB time {secs:.3} s ({:.0} nodes/s)",
            winning_move.map(|c| c.name()).unwrap_or_default(),
            st.nodes_created,
            st.nodes_expanded,
            st.peak_bytes >> 20,
            st.nodes_created as f64 / secs
        ),
        PnsOutcome::Unknown { pn, dn, .. } => println!(
            "pns {n}x{n} one winning move ({estimate:?}): unknown after {secs:.1} s, root pn {pn} \
             dn {dn}, {st:?}"
        ),
    }
}

fn main() {
    let raw: Vec<String> = std::env::args().skip(1).collect();
    let args: Vec<usize> = raw.iter().filter_map(|a| a.parse().ok()).collect();
    let up_to = args.first().copied().unwrap_or(5);
    if raw.iter().any(|a| a == "pns") {
        let secs = raw
            .iter()
            .find_map(|a| a.strip_prefix("secs=")?.parse().ok())
            .unwrap_or(1800);
        let estimate = if raw.iter().any(|a| a == "unit") {
            Estimate::Unit
        } else {
            Estimate::Mustplay
        };
        for n in 1..=up_to {
            run_pns(n, true, secs, estimate);
        }
        if let Some(&n) = args.get(1) {
            run_pns(n, false, secs, estimate);
        }
        return;
    }
    for n in 1..=up_to {
        run(n, true);
    }
    if let Some(&n) = args.get(1) {
        run(n, false);
    }
}
