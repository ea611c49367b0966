//! The (4, n, 7^tr) PNS+ solver on empty boards: time per solve, nodes per second, and the
//! node-count signature (a change in the search shows up as a changed node count).
//!
//! Run: `cargo bench -p solver-core --bench seven`.

#![allow(missing_docs)] // criterion_group! generates undocumented items

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use solver_core::games::seven::{Cols, Position, Side, solve};
use solver_core::pns::{Limits, Outcome, Value};

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("seven_empty_board");
    group.sample_size(10);
    for n in [7u32, 8, 9] {
        let pos = Position::empty(Cols::try_from(n).expect("in range"), Side::Maker);
        let report = solve(pos, &[], &Limits::default(), false);
        assert_eq!(
            report.outcome,
            Outcome::Solved(Value::Proven),
            "Maker wins n = {n}"
        );
        println!(
            "n = {n}: {} nodes created, {} expanded (signature)",
            report.stats.nodes_created, report.stats.nodes_expanded
        );
        group.throughput(Throughput::Elements(report.stats.nodes_created));
        group.bench_function(format!("n{n}"), |b| {
            b.iter(|| {
                let r = solve(pos, &[], &Limits::default(), false);
                assert_eq!(r.outcome, Outcome::Solved(Value::Proven));
                r.stats.nodes_created
            })
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
