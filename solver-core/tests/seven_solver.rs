//! The PNS+ solver of (4, n, 7^tr) against the public test data and a brute-force reference.

mod common;

use std::collections::HashMap;

use serde_json::Value as Json;
use solver_core::games::seven::{Hypergraph, Position, Rules, SevenGame, Side, Technique};
use solver_core::pns::{Limits, Outcome, Search, Value};

fn testdata(name: &str) -> Vec<Json> {
    common::testdata("seven-in-a-row", name)
}

fn position(rec: &Json) -> Position {
    let rows: Vec<String> = serde_json::from_value(rec["board"].clone()).expect("rows");
    let side: Side = rec["to_move"]
        .as_str()
        .expect("to_move")
        .parse()
        .expect("side");
    Position::from_rows(&rows, side).expect("valid")
}

fn solve(pos: Position, disabled: &[Technique]) -> Value {
    let rules = Rules::new(pos.cols(), disabled);
    let mut search = Search::new(SevenGame::new(pos, rules).expect("same width"));
    match search.run(&Limits::default()) {
        Outcome::Solved(v) => v,
        other => panic!("unsolved: {other:?}"),
    }
}

fn winner(v: Value) -> &'static str {
    match v {
        Value::Proven => "maker",
        Value::Disproven => "breaker",
    }
}

/// Plain minimax with a memo: no reductions, no symmetry. True when Maker wins.
fn brute(pos: &Position, hg: &Hypergraph, memo: &mut HashMap<(u128, u128, Side), bool>) -> bool {
    if pos.maker_won(hg) {
        return true;
    }
    let empty = pos.empty_cells();
    if empty == 0 || hg.edges().iter().all(|&e| e & pos.breaker() != 0) {
        return false;
    }
    let key = (pos.maker(), pos.breaker(), pos.to_move());
    if let Some(&v) = memo.get(&key) {
        return v;
    }
    let mut any = false;
    let mut all = true;
    for cell in pos.cols().iter_cells().filter(|c| empty & c.bit() != 0) {
        let w = brute(&pos.play(cell).expect("empty"), hg, memo);
        any |= w;
        all &= w;
        if (pos.to_move() == Side::Maker && w) || (pos.to_move() == Side::Breaker && !w) {
            break;
        }
    }
    let v = if pos.to_move() == Side::Maker {
        any
    } else {
        all
    };
    memo.insert(key, v);
    v
}

#[test]
fn positions_get_their_winner_with_every_technique_on() {
    for rec in testdata("positions.jsonl") {
        let got = winner(solve(position(&rec), &[]));
        assert_eq!(
            got,
            rec["winner"].as_str().expect("winner"),
            "{}",
            rec["id"]
        );
    }
}

#[test]
fn positions_get_their_winner_with_each_technique_off() {
    for t in Technique::ALL {
        for rec in testdata("positions.jsonl")
            .iter()
            .filter(|r| r["n"].as_u64() <= Some(9))
        {
            let got = winner(solve(position(rec), &[t]));
            assert_eq!(
                got,
                rec["winner"].as_str().expect("winner"),
                "{} without {t}",
                rec["id"]
            );
        }
    }
}

#[test]
fn empty_boards_up_to_nine() {
    for rec in testdata("empty_boards.jsonl")
        .iter()
        .filter(|r| r["n"].as_u64() <= Some(9))
    {
        let got = winner(solve(position(rec), &[]));
        assert_eq!(
            got,
            rec["winner"].as_str().expect("winner"),
            "n={} {}",
            rec["n"],
            rec["to_move"]
        );
    }
}

#[test]
fn agrees_with_brute_force_on_small_boards() {
    use rand::{Rng, SeedableRng, rngs::StdRng};
    let mut rng = StdRng::seed_from_u64(7);
    for n in 4..=5u32 {
        let cols = n.try_into().expect("in range");
        let hg = Hypergraph::paper(cols);
        let mut memo = HashMap::new();
        for _ in 0..(if n == 4 { 300 } else { 80 }) {
            let mut pos = Position::empty(
                cols,
                if rng.random() {
                    Side::Maker
                } else {
                    Side::Breaker
                },
            );
            for cell in cols.iter_cells() {
                match rng.random_range(0..10) {
                    0..=2 => pos.assign(Side::Maker, cell.bit()),
                    3..=5 => pos.assign(Side::Breaker, cell.bit()),
                    _ => {}
                }
            }
            if pos.maker_won(&hg) {
                continue;
            }
            let want = brute(&pos, &hg, &mut memo);
            for disabled in [
                &[][..],
                &[Technique::DominatedSquares],
                &[Technique::ForcedMove, Technique::MakerWinStop],
            ] {
                let got = solve(pos, disabled) == Value::Proven;
                assert_eq!(got, want, "{pos} {} without {disabled:?}", pos.to_move());
            }
        }
    }
}
