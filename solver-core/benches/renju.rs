//! Cost per point of renju queries on game-like positions: the boards of the shared test data
//! (`forbidden_maps.jsonl` and the distinct boards of `midgame.jsonl`, 20 to 60 stones from
//! real-looking games). Reports points per second (`Throughput::Elements`); the spec's anchor
//! is about 2.7 µs per point for the recursive ForbiddenPointFinder (C++), our target ~1 µs.

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_main};
use serde_json::Value;
use solver_core::games::renju::{Board, Color, Point};

#[path = "../tests/common/mod.rs"]
mod common;

fn boards(file: &str) -> Vec<(Board, Value)> {
    let mut seen = std::collections::HashSet::new();
    common::testdata("renju", file)
        .into_iter()
        .filter(|v| seen.insert(v["board"].to_string()))
        .map(|v| {
            let rows: Vec<&str> = v["board"]
                .as_array()
                .expect("board")
                .iter()
                .map(|r| r.as_str().expect("row"))
                .collect();
            (Board::from_rows(&rows).expect("valid"), v)
        })
        .collect()
}

fn empties(b: &Board) -> u64 {
    Point::all().filter(|&p| b.get(p).is_none()).count() as u64
}

fn bench(c: &mut Criterion) {
    let maps = boards("forbidden_maps.jsonl");
    let mut all: Vec<Board> = maps.iter().map(|(b, _)| b.clone()).collect();
    all.extend(boards("midgame.jsonl").into_iter().map(|(b, _)| b));
    let points: u64 = all.iter().map(empties).sum();

    // The measured result is the right one: the test data's maps, exactly in count.
    let want: usize = maps
        .iter()
        .map(|(_, v)| v["black_forbidden"].as_array().expect("list").len())
        .sum();
    let got: usize = maps
        .iter()
        .map(|(b, _)| b.forbidden_map().black_forbidden.len())
        .sum();
    assert_eq!(got, want, "forbidden points over the test maps");
    assert!(want > 0);

    let mut g = c.benchmark_group("renju");
    g.throughput(Throughput::Elements(points));
    g.bench_function(format!("forbidden_map/{}_boards", all.len()), |b| {
        b.iter(|| {
            let mut n = 0;
            for board in &all {
                n += black_box(board).forbidden_map().black_forbidden.len();
            }
            n
        })
    });
    g.bench_function("check_black_every_point", |b| {
        b.iter(|| {
            let mut n = 0u32;
            for board in &all {
                for p in Point::all().filter(|&p| board.get(p).is_none()) {
                    let c = black_box(board).check(Color::Black, p).expect("empty");
                    n += u32::from(c.forbidden);
                }
            }
            n
        })
    });
    g.bench_function("black_verdict_every_point", |b| {
        b.iter(|| {
            let mut n = 0u32;
            for board in &all {
                for p in Point::all().filter(|&p| board.get(p).is_none()) {
                    n += u32::from(
                        black_box(board)
                            .black_verdict(p)
                            .expect("empty")
                            .is_forbidden(),
                    );
                }
            }
            n
        })
    });
    g.finish();
}

// The macro's generated function has no doc comment.
#[allow(missing_docs)]
mod group {
    criterion::criterion_group!(benches, super::bench);
}

criterion_main!(group::benches);
