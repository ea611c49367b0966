//! The (4, n, 7^tr) model against the public test data: edge sets, histograms, pot and phi.

mod common;

use proptest::prelude::*;
use serde_json::Value;
use solver_core::games::seven::{Cols, Hypergraph, Position, Side};

fn testdata(name: &str) -> Vec<Value> {
    common::testdata("seven-in-a-row", name)
}

fn side(v: &Value) -> Side {
    v.as_str()
        .expect("to_move")
        .parse()
        .expect("maker or breaker")
}

fn rows(v: &Value) -> Vec<String> {
    v.as_array()
        .expect("board rows")
        .iter()
        .map(|r| r.as_str().expect("row").to_string())
        .collect()
}

#[test]
fn edges_match_the_test_data() {
    for rec in testdata("edges.jsonl") {
        let n = rec["n"].as_u64().expect("n");
        let hg = Hypergraph::paper(Cols::try_from(n).expect("n in range"));
        let ours: Vec<Vec<String>> = hg
            .edges()
            .iter()
            .map(|&e| Hypergraph::edge_names(e))
            .collect();
        let theirs: Vec<Vec<String>> =
            serde_json::from_value(rec["edges"].clone()).expect("edge lists");
        assert_eq!(ours, theirs, "edge set of n = {n}");
        let pos = Position::empty(hg.cols(), Side::Maker);
        let p = pos.potential(&hg);
        assert_eq!(
            p.pot().to_string(),
            rec["pot_empty"].as_str().expect("pot"),
            "n = {n}"
        );
        assert_eq!(
            p.phi().to_string(),
            rec["phi_empty"].as_str().expect("phi"),
            "n = {n}"
        );
        for (size, count) in rec["edge_size_histogram"].as_object().expect("histogram") {
            let size: usize = size.parse().expect("size");
            assert_eq!(
                u64::from(hg.size_histogram()[size]),
                count.as_u64().expect("count")
            );
        }
    }
}

#[test]
fn positions_have_their_lines_and_potential() {
    for rec in testdata("positions.jsonl") {
        let pos = Position::from_rows(&rows(&rec["board"]), None, side(&rec["to_move"]))
            .expect("test positions are valid");
        let hg = Hypergraph::paper(pos.cols());
        let p = pos.potential(&hg);
        let id = rec["id"].as_str().expect("id");
        for l in 0..8 {
            let want = rec["lines"]
                .get(l.to_string())
                .map_or(0, |v| v.as_u64().expect("x_l"));
            assert_eq!(u64::from(p.lines[l]), want, "{id}: x_{l}");
        }
        assert_eq!(
            p.pot().to_string(),
            rec["pot"].as_str().expect("pot"),
            "{id}"
        );
        assert_eq!(
            p.phi().to_string(),
            rec["phi"].as_str().expect("phi"),
            "{id}"
        );
        assert_eq!(
            pos.maker_won(&hg),
            rec["maker_has_edge"].as_bool().expect("flag"),
            "{id}"
        );
    }
}

#[test]
fn seed_harness_numbers_come_out() {
    let hg = Hypergraph::seed_harness(Cols::try_from(8u32).expect("8 is in range"));
    let p = Position::empty(hg.cols(), Side::Maker).potential(&hg);
    assert_eq!(&p.lines[4..], &[22, 4, 4, 8]);
    assert_eq!(p.pot().to_string(), "13/4");
}

fn arb_position() -> impl Strategy<Value = Position> {
    (4u32..=32, any::<u128>(), any::<u128>(), any::<bool>()).prop_map(|(n, a, b, m)| {
        let cols = Cols::try_from(n).expect("in range");
        let maker = a & b & cols.full_mask();
        let breaker = a & !b & !maker & cols.full_mask() & (b.rotate_left(7) | !a.rotate_left(3));
        let side = if m { Side::Maker } else { Side::Breaker };
        Position::from_masks(cols, maker, breaker & !maker, side).expect("disjoint, on board")
    })
}

proptest! {
    #[test]
    fn mirror_shares_the_canonical_key(pos in arb_position()) {
        prop_assert_eq!(pos.canonical_key(), pos.mirror().canonical_key());
        prop_assert_eq!(pos.mirror().mirror(), pos);
        // A key mirrors as its position does.
        prop_assert_eq!(pos.key().mirror(), pos.mirror().key());
        prop_assert_eq!(pos.key().canonical(), pos.canonical_key());
        // A key counts the position's stones, as its mirror's does.
        prop_assert_eq!(pos.key().stones(), (pos.maker() | pos.breaker()).count_ones());
        prop_assert_eq!(pos.key().mirror().stones(), pos.key().stones());
    }

    #[test]
    fn text_form_round_trips(pos in arb_position()) {
        let back = Position::from_compact(&pos.to_string(), None, pos.to_move()).expect("own output parses");
        prop_assert_eq!(back, pos);
    }

    #[test]
    fn pot_is_the_sum_over_free_edges(pos in arb_position()) {
        let hg = Hypergraph::paper(pos.cols());
        let sum: f64 = hg
            .edges()
            .iter()
            .filter(|&&e| e & pos.breaker() == 0)
            .map(|&e| 2f64.powi(1 - (e & !pos.maker()).count_ones() as i32))
            .sum();
        prop_assert_eq!(pos.potential(&hg).pot().to_f64(), sum);
        prop_assert_eq!(pos.potential(&hg).pot(), pos.mirror().potential(&hg).pot());
    }
}

/// A row of the wrong length is named against the board's width: the width given, or else
/// the first row's length (so a short first row is named when the width is given).
#[test]
fn a_row_of_the_wrong_length_is_named_against_the_width() {
    let eight = Cols::try_from(8u32).expect("8 columns");
    let short_first = ["......."; 1]
        .into_iter()
        .chain(["........"; 3])
        .collect::<Vec<_>>();
    let err = Position::from_rows(&short_first, Some(eight), Side::Maker).expect_err("short");
    assert_eq!(
        err.to_string(),
        "row 1 has 7 cells but the board is 8 wide (one cell per column)"
    );
    // Without a width the first row sets it, and the others are named against it.
    let err = Position::from_rows(&short_first, None, Side::Maker).expect_err("long rows");
    assert_eq!(
        err.to_string(),
        "row 2 has 8 cells but the board is 7 wide (one cell per column)"
    );
    let err = Position::from_compact("..../..../..../....", Some(eight), Side::Maker)
        .expect_err("narrow");
    assert!(err.to_string().starts_with("row 1 has 4 cells"), "{err}");
    let pos = Position::from_compact(
        "M......./......../......../.......B",
        Some(eight),
        Side::Maker,
    )
    .expect("valid");
    assert_eq!(pos.cols(), eight);
}
