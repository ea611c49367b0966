//! Hex solver benchmarks: the complete set of winning openings on the empty 4x4 and 5x5
//! boards, each asserting the set it finds (spec `hex.md`, "Known results"). Node counts are
//! printed once per board (a regression signature). The empty 6x6 board is measured by the
//! `hex_bench` example instead (`cargo run --release -p solver-core --example hex_bench -- 5 6`).

use std::time::Duration;

use criterion::{Criterion, Throughput, criterion_main};
use solver_core::games::hex::solver::{Outcome, SolveOptions, solve};
use solver_core::games::hex::{Board, Color};

fn winning_openings(n: usize) -> (Vec<String>, u64) {
    let board = Board::empty(n).expect("valid size");
    let opts = SolveOptions {
        all_moves: true,
        ..SolveOptions::default()
    };
    match solve(&board, Color::Black, &opts) {
        Outcome::Solved(s) => {
            let moves = s
                .winning_moves
                .expect("asked for all moves")
                .iter()
                .map(|c| c.name())
                .collect();
            (moves, s.nodes)
        }
        Outcome::Unknown { .. } => panic!("no budget was set"),
    }
}

fn empty_boards(c: &mut Criterion) {
    let cases: [(usize, &[&str]); 2] = [
        (4, &["d1", "c2", "b3", "a4"]),
        (
            5,
            &[
                "e1", "b2", "c2", "d2", "e2", "b3", "c3", "d3", "a4", "b4", "c4", "d4", "a5",
            ],
        ),
    ];
    let mut group = c.benchmark_group("hex_empty_all_winning_moves");
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(20));
    for (n, want) in cases {
        let (moves, nodes) = winning_openings(n);
        assert_eq!(moves, want, "{n}x{n}");
        println!("hex {n}x{n}: {nodes} nodes for the complete set of winning openings");
        group.throughput(Throughput::Elements(nodes));
        group.bench_function(format!("{n}x{n}"), |b| {
            b.iter(|| {
                let (moves, _) = winning_openings(n);
                assert_eq!(moves, want);
            })
        });
    }
    group.finish();
}

// The macro's generated function has no doc comment.
#[allow(missing_docs)]
mod group {
    criterion::criterion_group!(benches, super::empty_boards);
}

criterion_main!(group::benches);
