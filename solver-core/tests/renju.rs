//! Renju rules against the shared test data, a slow literal reference implementation of the
//! spec's definitions, and the 8 symmetries of the board.

mod common;

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

use proptest::prelude::*;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

use serde_json::Value;
use solver_core::games::renju::{Board, Check, Color, DIRECTIONS, Kind, Point, transform};

fn records(file: &str) -> Vec<Value> {
    common::testdata("renju", file)
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

// ---------------------------------------------------------------------------------------------
// A slow, literal reference: the spec's definitions walked out cell by cell on a plain array,
// with no bit masks, no windows shared between directions and no short-cuts.
// ---------------------------------------------------------------------------------------------

/// 0 empty, 1 black, 2 white.
type Cells = [[u8; 15]; 15];

struct Reference {
    cells: Cells,
    /// (position, point) -> forbidden; the position is the whole array.
    memo: HashMap<(Cells, (i64, i64)), bool>,
}

#[derive(Debug, PartialEq, Eq)]
struct RefAnswer {
    five: bool,
    overline: bool,
    fours: usize,
    threes: usize,
    longest: usize,
}

impl Reference {
    fn new(board: &Board) -> Reference {
        let mut cells = [[0u8; 15]; 15];
        for p in Point::all() {
            cells[p.row()][p.col()] = match board.get(p) {
                None => 0,
                Some(Color::Black) => 1,
                Some(Color::White) => 2,
            };
        }
        Reference {
            cells,
            memo: HashMap::new(),
        }
    }

    fn at(&self, r: i64, c: i64) -> Option<u8> {
        if (0..15).contains(&r) && (0..15).contains(&c) {
            Some(self.cells[r as usize][c as usize])
        } else {
            None
        }
    }

    fn black(&self, r: i64, c: i64) -> bool {
        self.at(r, c) == Some(1)
    }

    fn empty(&self, r: i64, c: i64) -> bool {
        self.at(r, c) == Some(0)
    }

    fn set(&mut self, (r, c): (i64, i64), v: u8) {
        self.cells[r as usize][c as usize] = v;
    }

    /// Length of the unbroken row of colour `v` through (r, c) along (dr, dc).
    fn row_len(&self, (r, c): (i64, i64), (dr, dc): (i64, i64), v: u8) -> usize {
        let mut n = 1;
        for sign in [1, -1] {
            let mut k = 1;
            while self.at(r + sign * k * dr, c + sign * k * dc) == Some(v) {
                n += 1;
                k += 1;
            }
        }
        n
    }

    fn five(&self, m: (i64, i64)) -> bool {
        DIRECTIONS.iter().any(|&d| self.row_len(m, d, 1) == 5)
    }

    fn overline(&self, m: (i64, i64)) -> bool {
        DIRECTIONS.iter().any(|&d| self.row_len(m, d, 1) >= 6)
    }

    /// Fours through m on d as distinct stone sets (m is on the board).
    fn fours(&self, (r, c): (i64, i64), (dr, dc): (i64, i64)) -> usize {
        let mut sets: HashSet<Vec<(i64, i64)>> = HashSet::new();
        for start in -4..=0 {
            let window: Vec<(i64, i64)> = (start..start + 5)
                .map(|k| (r + k * dr, c + k * dc))
                .collect();
            if window.iter().any(|&(a, b)| self.at(a, b).is_none()) {
                continue;
            }
            let stones: Vec<(i64, i64)> = window
                .iter()
                .copied()
                .filter(|&(a, b)| self.black(a, b))
                .collect();
            let empties = window.iter().filter(|&&(a, b)| self.empty(a, b)).count();
            let before = (r + (start - 1) * dr, c + (start - 1) * dc);
            let after = (r + (start + 5) * dr, c + (start + 5) * dc);
            if stones.len() == 4
                && empties == 1
                && !self.black(before.0, before.1)
                && !self.black(after.0, after.1)
            {
                sets.insert(stones);
            }
        }
        sets.len()
    }

    /// With m and e on the board: is there a straight four on d containing both?
    fn straight_four_with(&self, m: (i64, i64), e: (i64, i64), (dr, dc): (i64, i64)) -> bool {
        // Walk to the start of m's run, then read it forwards.
        let mut k = 0;
        while self.black(m.0 - (k + 1) * dr, m.1 - (k + 1) * dc) {
            k += 1;
        }
        let start = (m.0 - k * dr, m.1 - k * dc);
        let len = self.row_len(m, (dr, dc), 1);
        let run: Vec<(i64, i64)> = (0..len as i64)
            .map(|i| (start.0 + i * dr, start.1 + i * dc))
            .collect();
        let end_before = (start.0 - dr, start.1 - dc);
        let end_after = (start.0 + 4 * dr, start.1 + 4 * dc);
        len == 4
            && run.contains(&e)
            && self.empty(end_before.0, end_before.1)
            && self.empty(end_after.0, end_after.1)
            && !self.black(start.0 - 2 * dr, start.1 - 2 * dc)
            && !self.black(start.0 + 5 * dr, start.1 + 5 * dc)
    }

    /// With m on the board: a three through m on d (any empty e of the whole line).
    fn three(&mut self, m: (i64, i64), d: (i64, i64)) -> bool {
        for k in -14..=14i64 {
            let e = (m.0 + k * d.0, m.1 + k * d.1);
            if k == 0 || !self.empty(e.0, e.1) {
                continue;
            }
            self.set(e, 1);
            let key_point = self.straight_four_with(m, e, d) && !self.five(e);
            self.set(e, 0);
            if key_point && !self.forbidden(e) {
                return true;
            }
        }
        false
    }

    /// Black plays m (empty): the literal answer, with m placed while testing.
    fn answer(&mut self, m: (i64, i64)) -> RefAnswer {
        self.set(m, 1);
        let five = self.five(m);
        let overline = self.overline(m);
        let fours = DIRECTIONS.iter().map(|&d| self.fours(m, d)).sum();
        let threes = DIRECTIONS.iter().filter(|&&d| self.three(m, d)).count();
        let longest = DIRECTIONS
            .iter()
            .map(|&d| self.row_len(m, d, 1))
            .max()
            .unwrap_or(1);
        self.set(m, 0);
        RefAnswer {
            five,
            overline,
            fours,
            threes,
            longest,
        }
    }

    fn forbidden(&mut self, m: (i64, i64)) -> bool {
        let key = (self.cells, m);
        if let Some(&v) = self.memo.get(&key) {
            return v;
        }
        let a = self.answer(m);
        let v = !a.five && (a.overline || a.fours >= 2 || a.threes >= 2);
        self.memo.insert(key, v);
        v
    }

    fn white_wins(&mut self, m: (i64, i64)) -> bool {
        self.set(m, 2);
        let win = DIRECTIONS.iter().any(|&d| self.row_len(m, d, 2) >= 5);
        self.set(m, 0);
        win
    }
}

/// A random dense position with no five: stones thrown near the centre, more black than
/// white so that forbidden shapes are common.
fn random_board(rng: &mut StdRng) -> Board {
    let mut board = Board::empty();
    let density = rng.random_range(0.25..0.6);
    let black_share = rng.random_range(0.45..0.7);
    let radius: i64 = rng.random_range(4..=7);
    let target = ((2 * radius + 1).pow(2) as f64 * density) as usize;
    for _ in 0..target * 3 {
        if board.stones() >= target {
            break;
        }
        let p = Point::new(
            7 + rng.random_range(-radius..=radius),
            7 + rng.random_range(-radius..=radius),
        )
        .expect("inside");
        let color = if rng.random_bool(black_share) {
            Color::Black
        } else {
            Color::White
        };
        let _ = board.place(p, color); // occupied or five-making: skip
    }
    board
}

fn assert_agrees(board: &Board, reference: &mut Reference, p: Point) {
    let m = (p.row() as i64, p.col() as i64);
    let fast = board.check(Color::Black, p).expect("empty");
    let slow = reference.answer(m);
    let ctx = || format!("{p} on\n{board}");
    assert_eq!(fast.flags.five, slow.five, "five {}", ctx());
    assert_eq!(fast.flags.overline, slow.overline, "overline {}", ctx());
    assert_eq!(fast.fours as usize, slow.fours, "fours {}", ctx());
    assert_eq!(fast.threes as usize, slow.threes, "threes {}", ctx());
    assert_eq!(
        fast.longest_line as usize,
        slow.longest,
        "longest {}",
        ctx()
    );
    let forbidden = !slow.five && (slow.overline || slow.fours >= 2 || slow.threes >= 2);
    assert_eq!(fast.forbidden, forbidden, "forbidden {}", ctx());
    assert_eq!(fast.win, slow.five, "win {}", ctx());
    let white = board.check(Color::White, p).expect("empty");
    assert_eq!(white.win, reference.white_wins(m), "white {}", ctx());
}

#[test]
fn fast_agrees_with_literal_reference_on_random_dense_positions() {
    let mut rng = StdRng::seed_from_u64(0x5EED_4E70);
    let mut checked = 0;
    let mut forbidden = [0usize; 3];
    for _ in 0..3000 {
        let board = random_board(&mut rng);
        let mut reference = Reference::new(&board);
        let empties: Vec<Point> = Point::all().filter(|&p| board.get(p).is_none()).collect();
        for _ in 0..12 {
            let p = empties[rng.random_range(0..empties.len())];
            assert_agrees(&board, &mut reference, p);
            checked += 1;
        }
        for (p, kind) in board.forbidden_map().black_forbidden {
            assert!(
                reference.forbidden((p.row() as i64, p.col() as i64)),
                "{p} on\n{board}"
            );
            forbidden[match kind {
                Kind::Overline => 0,
                Kind::DoubleFour => 1,
                _ => 2,
            }] += 1;
        }
    }
    assert_eq!(checked, 36_000);
    // The positions really exercise every forbidden kind.
    assert!(forbidden.iter().all(|&n| n > 100), "{forbidden:?}");
}

#[test]
fn whole_maps_agree_with_literal_reference() {
    let mut rng = StdRng::seed_from_u64(7);
    for _ in 0..150 {
        let board = random_board(&mut rng);
        let mut reference = Reference::new(&board);
        for p in Point::all().filter(|&p| board.get(p).is_none()) {
            assert_agrees(&board, &mut reference, p);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// The answer is invariant under the 8 symmetries of the square.
    #[test]
    fn invariant_under_the_8_symmetries(seed in any::<u64>(), s in 0usize..8) {
        let board = random_board(&mut StdRng::seed_from_u64(seed));
        let image = board.transformed(s);
        for p in Point::all().filter(|&p| board.get(p).is_none()) {
            for color in [Color::Black, Color::White] {
                let a = board.check(color, p).expect("empty");
                let b = image.check(color, transform(p, s)).expect("empty");
                prop_assert_eq!(a, b, "{} under symmetry {}", p, s);
            }
        }
        let map = board.forbidden_map();
        let mapped = image.forbidden_map();
        let moved: BTreeSet<(Point, Kind)> =
            map.black_forbidden.iter().map(|&(p, k)| (transform(p, s), k)).collect();
        prop_assert_eq!(moved, mapped.black_forbidden.iter().copied().collect::<BTreeSet<_>>());
    }
}

#[test]
fn symmetries_form_the_dihedral_group() {
    let p = Point::new(2, 9).expect("on board");
    let images: BTreeSet<Point> = (0..8).map(|s| transform(p, s)).collect();
    assert_eq!(images.len(), 8);
    assert_eq!(transform(p, 0), p);
}
