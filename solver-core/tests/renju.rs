//! Renju rules against the shared test data, a slow literal reference implementation of the
//! spec's definitions, and the 8 symmetries of the board.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value;
use solver_core::games::renju::{Board, Check, Color, Kind, Point};

const DATA: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../shared/testdata/renju/");

fn records(file: &str) -> Vec<Value> {
    let path = format!("{DATA}{file}");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).expect("test data is JSON"))
        .collect()
}

fn board_of(v: &Value) -> Board {
    let rows: Vec<&str> = v["board"]
        .as_array()
        .expect("board")
        .iter()
        .map(|r| r.as_str().expect("row"))
        .collect();
    Board::from_rows(&rows).expect("test boards are valid")
}

fn point_of(v: &Value) -> Point {
    let p = Point::new(
        v["row"].as_i64().expect("row"),
        v["col"].as_i64().expect("col"),
    )
    .expect("on the board");
    if let Some(name) = v.get("name").and_then(Value::as_str) {
        assert_eq!(p.name(), name, "name and (row, col) agree");
        assert_eq!(name.parse::<Point>().expect("name"), p);
    }
    p
}

fn flag(c: &Check, kind: Kind) -> bool {
    match kind {
        Kind::Five => c.flags.five,
        Kind::Overline => c.flags.overline,
        Kind::DoubleFour => c.flags.double_four,
        Kind::DoubleThree => c.flags.double_three,
        Kind::Allowed => !c.forbidden && !c.win,
    }
}

fn check_file(file: &str) -> usize {
    let mut n = 0;
    let mut failures = Vec::new();
    for r in records(file) {
        let id = r["id"].as_str().expect("id").to_string();
        let board = board_of(&r);
        let color: Color = r["color"].as_str().expect("color").parse().expect("colour");
        let p = point_of(&r["move"]);
        let c = board.check(color, p).expect("move on an empty point");
        let e = &r["expect"];
        let mut bad = Vec::new();
        if Some(c.win) != e["win"].as_bool() {
            bad.push(format!("win {}", c.win));
        }
        if Some(c.forbidden) != e["forbidden"].as_bool() {
            bad.push(format!("forbidden {}", c.forbidden));
        }
        if Some(u64::from(c.longest_line)) != e["longest_line"].as_u64() {
            bad.push(format!("longest_line {}", c.longest_line));
        }
        let result = e["result"].as_str().expect("result");
        if c.kind.label() != result {
            // Several reasons: any reported kind whose flag is true is right.
            let f = &e["shape_flags"];
            if f.is_null() || f[c.kind.label()].as_bool() != Some(true) {
                bad.push(format!("kind {}", c.kind.label()));
            }
        }
        assert!(flag(&c, c.kind), "{id}: our kind's own flag is set");
        if color == Color::Black {
            let f = &e["shape_flags"];
            let ours = [
                ("five", c.flags.five),
                ("overline", c.flags.overline),
                ("double_four", c.flags.double_four),
                ("double_three", c.flags.double_three),
            ];
            for (name, v) in ours {
                if f[name].as_bool() != Some(v) {
                    bad.push(format!("flag {name} {v}"));
                }
            }
            if Some(u64::from(c.fours)) != e["fours"].as_u64() {
                bad.push(format!("fours {}", c.fours));
            }
            if Some(u64::from(c.threes)) != e["threes"].as_u64() {
                bad.push(format!("threes {}", c.threes));
            }
        }
        if !bad.is_empty() {
            failures.push(format!("{id} {}: {} (expected {e})", p, bad.join(", ")));
        }
        n += 1;
    }
    assert!(failures.is_empty(), "{file}:\n{}", failures.join("\n"));
    n
}

#[test]
fn handcrafted_records() {
    assert!(check_file("handcrafted.jsonl") > 50);
}

#[test]
fn tricky_records() {
    assert!(check_file("tricky.jsonl") > 40);
}

#[test]
fn midgame_records() {
    assert!(check_file("midgame.jsonl") > 100);
}

fn points(v: &Value) -> BTreeSet<Point> {
    v.as_array().expect("list").iter().map(point_of).collect()
}

#[test]
fn forbidden_maps_exactly() {
    let recs = records("forbidden_maps.jsonl");
    assert!(recs.len() >= 20);
    for r in recs {
        let id = r["id"].as_str().expect("id");
        let board = board_of(&r);
        let map = board.forbidden_map();
        let want: BTreeMap<Point, String> = r["black_forbidden"]
            .as_array()
            .expect("list")
            .iter()
            .map(|x| (point_of(x), x["kind"].as_str().expect("kind").to_string()))
            .collect();
        let got: BTreeMap<Point, String> = map
            .black_forbidden
            .iter()
            .map(|&(p, k)| (p, k.label().to_string()))
            .collect();
        assert_eq!(got, want, "{id}: black forbidden");
        let fives: BTreeSet<Point> = map.black_five_points.iter().copied().collect();
        assert_eq!(fives, points(&r["black_five_points"]), "{id}: black fives");
        let whites: BTreeSet<Point> = map.white_win_points.iter().copied().collect();
        assert_eq!(whites, points(&r["white_win_points"]), "{id}: white wins");
        // The map agrees with the single-point query everywhere.
        for p in Point::all().filter(|&p| board.get(p).is_none()) {
            let c = board.check(Color::Black, p).expect("empty");
            assert_eq!(c.kind, board.black_verdict(p).expect("empty"), "{id} {p}");
            assert_eq!(c.forbidden, got.contains_key(&p), "{id} {p}");
            assert_eq!(c.win, fives.contains(&p), "{id} {p}");
        }
    }
}
