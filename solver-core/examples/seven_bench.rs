//! Solves the empty (4, n, 7^tr) boards given on the command line (default 7 8 9 10) with every
//! default technique on and prints nodes, time and nodes per second per n.
//!
//! Run: `cargo run -p solver-core --release --example seven_bench -- 9 10 [-components ...]`
//! (`-NAME` switches technique NAME off).

use solver_core::games::seven::{Cols, Position, Side, Technique, solve};
use solver_core::pns::Limits;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let disabled: Vec<Technique> = args
        .iter()
        .filter_map(|a| a.strip_prefix('-'))
        .map(|t| t.parse().expect("a technique name"))
        .collect();
    let ns: Vec<u32> = args
        .iter()
        .filter(|a| !a.starts_with('-'))
        .map(|a| a.parse().expect("a board width"))
        .collect();
    let ns = if ns.is_empty() { vec![7, 8, 9, 10] } else { ns };
    for n in ns {
        let pos = Position::empty(Cols::try_from(n).expect("4..=32"), Side::Maker);
        let r = solve(pos, &disabled, &Limits::default(), false);
        let secs = r.stats.elapsed.as_secs_f64();
        println!(
            "n={n} {:?} nodes={} expanded={} time={secs:.3}s nodes/s={:.0} bytes={} peak_bytes={}",
            r.outcome,
            r.stats.nodes_created,
            r.stats.nodes_expanded,
            r.stats.nodes_created as f64 / secs,
            r.approx_bytes,
            r.stats.peak_bytes
        );
    }
}
