//! The PNS+ solver of (4, n, 7^tr) against the public test data and a brute-force reference.

mod common;

use std::collections::HashMap;

use serde_json::Value as Json;
use solver_core::games::seven::{Cell, Hypergraph, Position, Rules, SevenGame, Side, Technique};
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
    Position::from_rows(&rows, None, side).expect("valid")
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
        for rec in testdata("positions.jsonl").iter() {
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

/// Every empty board of the test data but n = 14 (n = 13 takes about 9 s in the test profile;
/// n = 14 several minutes and 4.6 GiB, left to `solver seven bench --cols 14`).
#[test]
fn empty_boards_up_to_thirteen() {
    for rec in testdata("empty_boards.jsonl")
        .iter()
        .filter(|r| r["n"].as_u64() <= Some(13))
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
fn empty_boards_up_to_eight_with_each_technique_off() {
    for t in Technique::ALL {
        for rec in testdata("empty_boards.jsonl")
            .iter()
            .filter(|r| r["n"].as_u64() <= Some(8))
        {
            let got = winner(solve(position(rec), &[t]));
            assert_eq!(
                got,
                rec["winner"].as_str().expect("winner"),
                "n={} {} without {t}",
                rec["n"],
                rec["to_move"]
            );
        }
    }
}

#[test]
fn two_edges_with_the_same_two_empty_cells_are_one_threat() {
    // Bottom row M..MMMMMB (n = 9): the end 4-edge a4..d4 and the 7-window b4..h4 both have
    // exactly b4 and c4 empty. Maker's move there makes one 1-line (twice), not two: Breaker
    // takes the other cell and every line is dead (the spec, Thm IV.1; the anchor code
    // reports a Maker win here).
    let rows = ["BBBBBBBBB", "BBBBBBBBB", "BBBBBBBBB", "M..MMMMMB"];
    let pos = Position::from_rows(&rows, None, Side::Maker).expect("valid");
    let hg = Hypergraph::paper(pos.cols());
    let lines = residual_lines(&pos);
    assert_eq!(lines.len(), 2, "two free edges");
    assert_eq!(lines[0], lines[1], "with the same two empty cells");
    assert!(!brute(&pos, &hg, &mut HashMap::new()));
    assert_eq!(solve(pos, &[]), Value::Disproven);
    for t in Technique::ALL {
        assert_eq!(solve(pos, &[t]), Value::Disproven, "without {t}");
    }
}

/// A random position of width `cols` with `to_move` to move: each cell is Maker's with
/// probability `share` / 10, Breaker's with the same, else empty.
fn random_position(
    rng: &mut impl rand::Rng,
    cols: solver_core::games::seven::Cols,
    to_move: Side,
    share: u32,
) -> Position {
    let mut pos = Position::empty(cols, to_move);
    for cell in cols.iter_cells() {
        let roll = rng.random_range(0..10);
        if roll < share {
            pos.assign(Side::Maker, cell.bit());
        } else if roll < 2 * share {
            pos.assign(Side::Breaker, cell.bit());
        }
    }
    pos
}

#[test]
fn agrees_with_brute_force_on_small_boards() {
    use rand::{Rng, SeedableRng, rngs::StdRng};
    let mut rng = StdRng::seed_from_u64(7);
    for n in 4..=6u32 {
        let cols = n.try_into().expect("in range");
        let hg = Hypergraph::paper(cols);
        let mut memo = HashMap::new();
        for _ in 0..[300, 80, 40][n as usize - 4] {
            let side = if rng.random() {
                Side::Maker
            } else {
                Side::Breaker
            };
            // More stones on n = 6 to keep brute force fast.
            let pos = random_position(&mut rng, cols, side, if n < 6 { 3 } else { 4 });
            if pos.maker_won(&hg) {
                continue;
            }
            let want = brute(&pos, &hg, &mut memo);
            let each_off = Technique::ALL.map(|t| vec![t]);
            let sets = [vec![], vec![Technique::ForcedMove, Technique::MakerWinStop]];
            for disabled in sets.iter().chain(&each_off) {
                let got = solve(pos, disabled) == Value::Proven;
                assert_eq!(got, want, "{pos} {} without {disabled:?}", pos.to_move());
            }
        }
    }
}

#[test]
fn threat_space_wins_are_maker_wins() {
    // Simplification with only the threat-space search on decides a Maker-to-move position
    // only through a forcing sequence (no other reduction runs): every such win must be one.
    use rand::{SeedableRng, rngs::StdRng};
    use solver_core::pns::Game;
    let mut rng = StdRng::seed_from_u64(11);
    let mut wins = 0;
    for n in 4..=7u32 {
        let cols = n.try_into().expect("in range");
        let hg = Hypergraph::paper(cols);
        let rules = Rules::with_enabled(cols, &[Technique::ThreatSpace]);
        let mut memo = HashMap::new();
        for _ in 0..[600, 600, 400, 200][n as usize - 4] {
            // Few stones, so that lines stay open.
            let pos = random_position(&mut rng, cols, Side::Maker, if n < 6 { 2 } else { 3 });
            let mut game = SevenGame::new(pos, rules).expect("same width");
            if pos.maker_won(&hg) || game.simplify() != Some(Value::Proven) {
                continue;
            }
            wins += 1;
            assert!(brute(&pos, &hg, &mut memo), "{pos}: no Maker win");
        }
    }
    assert!(wins > 50, "{wins} forcing-sequence wins seen");
}

/// Plain minimax on an explicit residual hypergraph: `lines` are the empty cells of the free
/// lines. True when Maker wins with `maker_to_move`.
fn brute_lines(
    lines: &[u128],
    maker_to_move: bool,
    memo: &mut HashMap<(Vec<u128>, bool), bool>,
) -> bool {
    if lines.contains(&0) {
        return true;
    }
    if lines.is_empty() {
        return false;
    }
    let mut key = lines.to_vec();
    key.sort_unstable();
    key.dedup();
    if let Some(&v) = memo.get(&(key.clone(), maker_to_move)) {
        return v;
    }
    let cells = key.iter().fold(0u128, |m, &l| m | l);
    let mut result = !maker_to_move;
    let mut rest = cells;
    while rest != 0 {
        let c = rest & rest.wrapping_neg();
        rest &= rest - 1;
        let next: Vec<u128> = if maker_to_move {
            key.iter().map(|&l| l & !c).collect()
        } else {
            key.iter().copied().filter(|&l| l & c == 0).collect()
        };
        let w = brute_lines(&next, !maker_to_move, memo);
        if w == maker_to_move {
            result = w;
            break;
        }
    }
    memo.insert((key, maker_to_move), result);
    result
}

/// The connected components (cell masks) of the lines `lines` over the cells `cells`.
fn parts(lines: &[u128], cells: u128) -> Vec<u128> {
    let mut out: Vec<u128> = Vec::new();
    let mut rest = cells;
    while rest != 0 {
        let mut part = rest & rest.wrapping_neg();
        loop {
            let grown = lines
                .iter()
                .filter(|&&l| l & part != 0)
                .fold(part, |m, &l| m | l);
            if grown == part {
                break;
            }
            part = grown;
        }
        out.push(part);
        rest &= !part;
    }
    out
}

/// Every split of the components `comps` into two non-empty sides, as the two sides' cells.
fn splits(comps: &[u128]) -> impl Iterator<Item = (u128, u128)> + '_ {
    let all = comps.iter().fold(0u128, |m, &c| m | c);
    (1..(1u32 << comps.len()) - 1).map(move |mask| {
        let one = comps
            .iter()
            .enumerate()
            .filter(|&(k, _)| mask >> k & 1 == 1)
            .fold(0u128, |m, (_, &c)| m | c);
        (one, all & !one)
    })
}

/// What the spec's cut-edge rule (Thm IV.3) says of Maker to move on `lines`, for every cut
/// edge and split: `(rule's answer, e, V1, V2)`.
fn cut_edge_claims(
    lines: &[u128],
    memo: &mut HashMap<(Vec<u128>, bool), bool>,
) -> Vec<(bool, u128, u128, u128)> {
    let cells = lines.iter().fold(0u128, |m, &l| m | l);
    let mut out = Vec::new();
    for (i, &e) in lines.iter().enumerate() {
        let others: Vec<u128> = lines
            .iter()
            .enumerate()
            .filter(|&(j, _)| j != i)
            .map(|(_, &l)| l)
            .collect();
        let comps = parts(&others, cells);
        if comps.len() > 8 {
            continue;
        }
        // Every split of the components into two sides that `e` crosses.
        for (v1, v2) in splits(&comps) {
            if e & v1 == 0 || e & v2 == 0 {
                continue;
            }
            let inside = |v: u128| -> Vec<u128> {
                others.iter().copied().filter(|&l| l & !v == 0).collect()
            };
            let (mut e1, mut e2) = (inside(v1), inside(v2));
            let rule = brute_lines(&e1, true, memo) || brute_lines(&e2, true, memo) || {
                e1.push(e & v1);
                e2.push(e & v2);
                brute_lines(&e1, true, memo) && brute_lines(&e2, true, memo)
            };
            out.push((rule, e, v1, v2));
        }
    }
    out
}

fn residual_lines(pos: &Position) -> Vec<u128> {
    Hypergraph::paper(pos.cols())
        .edges()
        .iter()
        .filter(|&&e| e & pos.breaker() == 0)
        .map(|&e| e & pos.empty_cells())
        .collect()
}

/// Thm IV.3 (cut edge) as the spec states it is wrong, so the solver does not implement it.
/// In `MBM./B..B/.MBM/BMM.` with Maker to move the residual hypergraph is one 2-line e = {a3,
/// b2}: Breaker wins (he answers Maker's cell with the other one). Cutting at e with V1 = {a3},
/// V2 = {b2}: E1' and E2' are empty, E1 = {{a3}}, E2 = {{b2}}, and Maker, moving first, wins
/// both (V1, E1) and (V2, E2), so the rule says Maker wins. In `M.B./B.BB/.M../.MBB` the same
/// happens with other edges present. (Winning `e ∩ V1` and `e ∩ V2` each moving first does not
/// win `e`: Breaker answers on the other side.) Found by enumerating every cut edge and split
/// of random positions for n = 4..6 against the brute force; the position the brief named,
/// `.BM./.MMB/B.B./...M`, is not a counterexample under this reading (every split agrees).
#[test]
fn cut_edge_rule_as_stated_is_wrong() {
    let mut memo = HashMap::new();
    for text in ["MBM./B..B/.MBM/BMM.", "M.B./B.BB/.M../.MBB"] {
        let pos = Position::from_compact(text, None, Side::Maker).expect("valid");
        let lines = residual_lines(&pos);
        assert!(
            !brute_lines(&lines, true, &mut memo),
            "{text}: Breaker wins"
        );
        assert_eq!(solve(pos, &[]), Value::Disproven, "{text}");
        assert!(
            cut_edge_claims(&lines, &mut memo)
                .iter()
                .any(|&(rule, ..)| rule),
            "{text}: the stated cut-edge rule says Maker wins for some cut edge"
        );
    }
    let pos = Position::from_compact("MBM./B..B/.MBM/BMM.", None, Side::Maker).expect("valid");
    assert_eq!(
        residual_lines(&pos),
        vec![Cell::new(2, 0).bit() | Cell::new(1, 1).bit()]
    );
}

/// What the spec's cut-vertex rule (Thm IV.2) says of Maker to move on `lines`, for every cut
/// vertex v and split of the rest into two sides: `(rule's answer, v, V1, V2)`. H1 holds the
/// lines inside V1 (v included), H2 those inside V2; "with v pre-coloured Maker" removes v from
/// every line.
fn cut_vertex_claims(
    lines: &[u128],
    memo: &mut HashMap<(Vec<u128>, bool), bool>,
) -> Vec<(bool, u128, u128, u128)> {
    let cells = lines.iter().fold(0u128, |m, &l| m | l);
    let mut out = Vec::new();
    let mut rest = cells;
    while rest != 0 {
        let v = rest & rest.wrapping_neg();
        rest &= rest - 1;
        let without: Vec<u128> = lines.iter().map(|&l| l & !v).filter(|&l| l != 0).collect();
        let comps = parts(&without, cells & !v);
        if comps.len() < 2 || comps.len() > 8 {
            continue;
        }
        for (v1, v2) in splits(&comps) {
            let (v1, v2) = (v1 | v, v2 | v);
            let inside =
                |s: u128| -> Vec<u128> { lines.iter().copied().filter(|&l| l & !s == 0).collect() };
            let with_v = |ls: &[u128]| -> Vec<u128> { ls.iter().map(|&l| l & !v).collect() };
            let (e1, e2) = (inside(v1), inside(v2));
            let rule = brute_lines(&e1, true, memo)
                || brute_lines(&e2, true, memo)
                || (brute_lines(&with_v(&e1), true, memo) && brute_lines(&with_v(&e2), true, memo));
            out.push((rule, v, v1, v2));
        }
    }
    out
}

/// Thm IV.2 (cut vertex), which the solver implements (`Technique::CutVertex`), holds: on every
/// cut vertex and split of the residual hypergraph of 9,000 random Maker-to-move positions
/// (n = 4..6), the rule's answer is the brute force's.
#[test]
fn cut_vertex_rule_agrees_with_brute_force() {
    use rand::{Rng, SeedableRng, rngs::StdRng};
    let mut rng = StdRng::seed_from_u64(11);
    let mut memo = HashMap::new();
    let mut checked = 0;
    for n in 4..=6u32 {
        let cols: solver_core::games::seven::Cols = n.try_into().expect("in range");
        for _ in 0..3000 {
            let mut pos = Position::empty(cols, Side::Maker);
            for cell in cols.iter_cells() {
                let roll = rng.random_range(0..10);
                if roll < 3 {
                    pos.assign(Side::Maker, cell.bit());
                } else if roll < 6 {
                    pos.assign(Side::Breaker, cell.bit());
                }
            }
            let lines = residual_lines(&pos);
            if lines.contains(&0) {
                continue; // Maker has won already.
            }
            let want = brute_lines(&lines, true, &mut memo);
            for (rule, v, v1, v2) in cut_vertex_claims(&lines, &mut memo) {
                checked += 1;
                assert_eq!(rule, want, "{pos}: v {v:#x}, V1 {v1:#x}, V2 {v2:#x}");
            }
        }
    }
    assert!(checked > 10_000, "{checked} splits checked");
}

#[test]
fn a_root_the_reductions_decide_names_its_winning_moves_without_search() {
    // Maker to move owns a1 b1 c1 of the edge a1 b1 c1 d1: the reductions decide the root,
    // so the search names no move; the moves the reductions decide too are named at once.
    let rows = ["MMM.....", "BBB.....", "........", "........"].map(String::from);
    let pos = Position::from_rows(&rows, None, Side::Maker).expect("valid");
    let limits = Limits::default();
    let quick = solver_core::games::seven::solve(pos, &[], &limits, false);
    assert_eq!(quick.outcome, Outcome::Solved(Value::Proven));
    assert_eq!(quick.stats.nodes_created, 1, "no search: {:?}", quick.stats);
    let d1 = Cell::parse("d1", pos.cols()).expect("a cell");
    assert!(
        quick.winning_moves.contains(&d1),
        "{:?}",
        quick.winning_moves
    );
    // Every one wins (a full search of each), and --all-moves names them too.
    for &cell in &quick.winning_moves {
        let child = pos.play(cell).expect("empty");
        assert_eq!(solve(child, &[]), Value::Proven, "{cell:?}");
    }
    let all = solver_core::games::seven::solve(pos, &[], &limits, true);
    assert!(
        quick
            .winning_moves
            .iter()
            .all(|c| all.winning_moves.contains(c)),
        "{:?} against {:?}",
        quick.winning_moves,
        all.winning_moves
    );
}

#[test]
fn all_moves_counts_every_search_and_reports_the_largest_table() {
    // On the empty n = 8 board the main search proves one first move; --all-moves then
    // searches each other open move on its own, in tables larger than the main one.
    let pos = Position::empty(8.try_into().expect("a width"), Side::Maker);
    let limits = Limits::default();
    let main = solver_core::games::seven::solve(pos, &[], &limits, false);
    let all = solver_core::games::seven::solve(pos, &[], &limits, true);
    assert_eq!(all.outcome, main.outcome);
    assert!(all.winning_moves.len() > main.winning_moves.len());
    assert!(all.stats.nodes_created > main.stats.nodes_created);
    assert!(
        all.tt_entries > main.tt_entries && all.stats.peak_bytes > main.stats.peak_bytes,
        "{} / {} entries, {} / {} bytes",
        all.tt_entries,
        main.tt_entries,
        all.stats.peak_bytes,
        main.stats.peak_bytes
    );
}
