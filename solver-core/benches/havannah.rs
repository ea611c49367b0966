//! Havannah win detection speed: incremental move checks during random playouts (the
//! [`Tracker`]) and whole-board queries ([`check_win`]) on random mid-game positions, for
//! L = 4 and L = 10. Each bench asserts the answers it times.
#![allow(missing_docs)] // `criterion_group!` defines an undocumented function.

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use rand::SeedableRng;
use rand::seq::SliceRandom;
use solver_core::games::havannah::{
    Board, Cell, Geometry, KindSet, Layers, Player, Tracker, check_win, random_positions,
};
use std::hint::black_box;

/// `n` shuffled move orders of the empty board.
fn orders(layers: Layers, n: usize, seed: u64) -> Vec<Vec<Cell>> {
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    let cells: Vec<Cell> = Geometry::new(layers).cells().collect();
    (0..n)
        .map(|_| {
            let mut c = cells.clone();
            c.shuffle(&mut rng);
            c
        })
        .collect()
}

/// Plays each order to its first win; returns (moves played, games won).
fn run_playouts(empty: &Board, orders: &[Vec<Cell>]) -> (u64, u64) {
    let (mut moves, mut wins) = (0, 0);
    for order in orders {
        let mut t = Tracker::new(empty);
        let mut p = Player::One;
        for &c in order {
            moves += 1;
            if !t.play(c, p).expect("empty cell").is_empty() {
                wins += 1;
                break;
            }
            p = p.opponent();
        }
    }
    (moves, wins)
}

/// [`random_positions`] (seed 7, as `solver havannah bench` draws them), each with the kinds
/// its last move makes.
fn positions(layers: Layers, n: usize) -> Vec<(Board, Cell, Player, KindSet)> {
    let mut rng = rand::rngs::StdRng::seed_from_u64(7);
    random_positions(layers, n, |cells| cells.shuffle(&mut rng))
        .expect("a shuffle plays every game")
        .into_iter()
        .map(|(board, mv, mover)| {
            let kinds = check_win(&board, mv, mover).expect("own stone").kinds;
            (board, mv, mover, kinds)
        })
        .collect()
}

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("havannah");
    for l in [4, 10] {
        let layers = Layers::new(l).expect("in range");
        let empty = Board::empty(layers);
        let games = orders(layers, 200, l.into());
        let (moves, wins) = run_playouts(&empty, &games);
        assert_eq!(
            wins, 200,
            "every random Havannah game on an empty board has a winner"
        );
        group.throughput(Throughput::Elements(moves));
        group.bench_with_input(BenchmarkId::new("move_checks", l), &games, |b, games| {
            b.iter(|| assert_eq!(run_playouts(&empty, black_box(games)), (moves, wins)))
        });

        let pos = positions(layers, 300);
        group.throughput(Throughput::Elements(pos.len() as u64));
        group.bench_with_input(
            BenchmarkId::new("whole_board_queries", l),
            &pos,
            |b, pos| {
                b.iter(|| {
                    for (board, mv, p, kinds) in pos {
                        let a = check_win(black_box(board), *mv, *p).expect("own stone");
                        assert_eq!(a.kinds, *kinds);
                    }
                })
            },
        );
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
