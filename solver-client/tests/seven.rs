//! The `solver seven` commands, run as a user runs them.

mod common;

use std::collections::BTreeSet;

use common::{records, solver, stdout, testdata};
use serde_json::Value;

#[test]
fn seed_harness_potential_is_reproduced() {
    let o = solver(&[
        "seven",
        "potential",
        "--cols",
        "8",
        "--edges",
        "seed-harness",
    ]);
    assert!(o.status.success());
    let text = stdout(&o);
    for line in ["x_4 = 22", "x_5 = 4", "x_6 = 4", "x_7 = 8", "13/4 (3.25)"] {
        assert!(text.contains(line), "{line} missing from:\n{text}");
    }
}

/// The command's JSON object for `args`, which must succeed.
fn json(args: &[&str]) -> Value {
    let o = solver(args);
    assert!(
        o.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    serde_json::from_str(&stdout(&o)).expect("one JSON object")
}

/// `seven edges --json` and `seven potential --json` on every record of the test data's
/// edges.jsonl (n = 4..16): the same edges (as sets of cells), their count, the l-line
/// histogram of the empty board (an edge of k cells is a k-line there), pot and phi.
#[test]
fn edges_and_potential_commands_match_the_test_data() {
    let cells_of = |v: &Value| -> BTreeSet<BTreeSet<String>> {
        v.as_array()
            .expect("edges")
            .iter()
            .map(|e| {
                e.as_array()
                    .expect("cells")
                    .iter()
                    .map(|c| c.as_str().expect("cell").to_string())
                    .collect()
            })
            .collect()
    };
    let file = testdata("seven-in-a-row", "edges.jsonl");
    for rec in records(&file) {
        let n = rec["n"].to_string();
        let edges = json(&["seven", "edges", "--cols", &n, "--json"]);
        assert_eq!(edges["num_edges"], rec["num_edges"], "n = {n}");
        assert_eq!(
            cells_of(&edges["edges"]),
            cells_of(&rec["edges"]),
            "n = {n}"
        );
        let p = json(&["seven", "potential", "--cols", &n, "--json"]);
        assert_eq!(p["lines"], rec["edge_size_histogram"], "n = {n}");
        assert_eq!(p["pot"], rec["pot_empty"], "n = {n}");
        assert_eq!(p["phi"], rec["phi_empty"], "n = {n}");
    }
}

/// `seven potential --board ... --json` on every position of the test data's positions.jsonl:
/// its l-line histogram, pot and phi.
#[test]
fn potential_command_matches_every_position() {
    let file = testdata("seven-in-a-row", "positions.jsonl");
    for rec in records(&file) {
        let board: Vec<&str> = rec["board"]
            .as_array()
            .expect("rows")
            .iter()
            .map(|r| r.as_str().expect("row"))
            .collect();
        let p = json(&[
            "seven",
            "potential",
            "--cols",
            &rec["n"].to_string(),
            "--board",
            &board.join("/"),
            "--to-move",
            rec["to_move"].as_str().expect("to_move"),
            "--json",
        ]);
        assert_eq!(p["lines"], rec["lines"], "{}", rec["id"]);
        assert_eq!(p["pot"], rec["pot"], "{}", rec["id"]);
        assert_eq!(p["phi"], rec["phi"], "{}", rec["id"]);
    }
}

/// `seven simulate --json`: Maker and Breaker alternate from Maker on distinct cells, each
/// line's pot is what `seven potential` gives for the position after that move, the game
/// stops at Maker's win or at --max-moves, and the same seed plays the same game.
#[test]
fn simulate_plays_a_seeded_game_whose_pots_potential_confirms() {
    let cols = 9;
    for seed in ["1", "2", "3"] {
        let args = [
            "seven",
            "simulate",
            "--cols",
            "9",
            "--seed",
            seed,
            "--max-moves",
            "30",
            "--json",
        ];
        let out = solver(&args);
        assert!(out.status.success());
        let text = stdout(&out);
        assert_eq!(stdout(&solver(&args)), text, "same seed, same game");
        let moves: Vec<Value> = text
            .lines()
            .map(|l| serde_json::from_str(l).expect("a JSON line"))
            .collect();
        assert!(!moves.is_empty() && moves.len() <= 30, "{text}");
        let mut rows = vec![vec![b'.'; cols]; 4];
        for (i, m) in moves.iter().enumerate() {
            assert_eq!(m["move"], i + 1, "{text}");
            let maker = i % 2 == 0;
            assert_eq!(m["player"], if maker { "maker" } else { "breaker" });
            let cell = m["cell"].as_str().expect("cell").as_bytes();
            let (col, row) = (usize::from(cell[0] - b'a'), usize::from(cell[1] - b'1'));
            assert_eq!(rows[row][col], b'.', "cell {} played twice", m["cell"]);
            rows[row][col] = if maker { b'M' } else { b'B' };
            let board: Vec<&str> = rows
                .iter()
                .map(|r| std::str::from_utf8(r).expect("ascii"))
                .collect();
            let next = if maker { "breaker" } else { "maker" };
            let p = json(&[
                "seven",
                "potential",
                "--cols",
                "9",
                "--board",
                &board.join("/"),
                "--to-move",
                next,
                "--json",
            ]);
            assert_eq!(m["pot"], p["pot"], "after move {}", i + 1);
            assert_eq!(m["maker_won"], p["maker_won"], "after move {}", i + 1);
            assert_eq!(
                m["breaker_certificate"],
                p["breaker_certificate"],
                "after move {}",
                i + 1
            );
            if m["maker_won"] == true {
                assert_eq!(i + 1, moves.len(), "the game stops at Maker's win");
            }
        }
    }
}

#[test]
fn solve_prints_the_verdict() {
    let o = solver(&["seven", "solve", "--direct", "--cols", "6", "--json"]);
    assert!(o.status.success());
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).expect("JSON");
    assert_eq!(v["winner"], "maker");
    assert!(!v["winning_moves"].as_array().expect("list").is_empty());
    let o = solver(&[
        "seven",
        "solve",
        "--direct",
        "--cols",
        "4",
        "--to-move",
        "breaker",
    ]);
    assert!(
        stdout(&o).contains("winner:         breaker"),
        "{}",
        stdout(&o)
    );
}

#[test]
fn solve_jsonl_answers_every_line_in_order() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("in.jsonl");
    std::fs::write(
        &path,
        "{\"id\": \"a\", \"n\": 4, \"to_move\": \"breaker\", \"board\": [\"....\", \"....\", \"....\", \"....\"]}\n\
         {\"id\": \"b\", \"n\": 5, \"to_move\": \"maker\", \"board\": \"...../...../...../.....\"}\n",
    )
    .expect("write");
    let o = solver(&["seven", "solve", "--jsonl", path.to_str().expect("utf-8")]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let lines: Vec<serde_json::Value> = stdout(&o)
        .lines()
        .map(|l| serde_json::from_str(l).expect("JSON"))
        .collect();
    assert_eq!(lines.len(), 2);
    assert_eq!(
        (&lines[0]["id"], &lines[0]["winner"]),
        (&"a".into(), &"breaker".into())
    );
    assert_eq!(
        (&lines[1]["id"], &lines[1]["winner"]),
        (&"b".into(), &"maker".into())
    );
}

/// A record's `n`, when given, is the width every row must have; one that is not a width is
/// an error, not ignored.
#[test]
fn solve_jsonl_checks_the_rows_against_n() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("in.jsonl");
    for (n, says) in [
        (
            "5",
            "in.jsonl:1: board: row 1 has 4 cells but the board is 5 wide",
        ),
        (
            "\"4\"",
            "in.jsonl:1: n: \"4\" is not a board width (4..=32)",
        ),
        ("40", "in.jsonl:1: n: "),
    ] {
        let line =
            format!("{{\"n\": {n}, \"to_move\": \"maker\", \"board\": \"..../..../..../....\"}}\n");
        std::fs::write(&path, line).expect("write");
        let o = solver(&["seven", "solve", "--jsonl", path.to_str().expect("utf-8")]);
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(
            o.status.code() == Some(2) && err.contains(says),
            "{n}: {err}"
        );
    }
}

#[test]
fn bad_input_exits_2_with_a_message() {
    for args in [
        &["seven", "potential", "--cols", "3"][..],
        &[
            "seven",
            "potential",
            "--cols",
            "5",
            "--board",
            "...../...../...../...X.",
        ],
        &[
            "seven",
            "potential",
            "--cols",
            "5",
            "--board",
            "...../...../.....",
        ],
        &[
            "seven",
            "solve",
            "--cols",
            "4",
            "--board",
            "MMMM/..../..../BBB.",
        ],
        &["seven", "solve", "--cols", "5", "--disable", "magic"],
    ] {
        let o = solver(args);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(
            err.starts_with("error: ") && err.lines().count() == 1,
            "{args:?}: {err}"
        );
    }
    // A flag's value out of its range, named by the flag.
    let o = solver(&["seven", "bench", "--max-table-mb", "0"]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("--max-table-mb"), "{err}");
}

/// Asserts that the bench's rows of K apart, threads or workers in `text` (those that name
/// their K before the winner, Maker) ran as two rounds of `round` ("2 apart", "1 thread", ...).
fn assert_rounds(text: &str, round: &[&str]) {
    let order: Vec<String> = text
        .lines()
        .map(|l| l.split_whitespace().collect::<Vec<_>>())
        .filter(|w| w.len() > 3 && w[3] == "maker")
        .map(|w| format!("{} {}", w[1], w[2]))
        .collect();
    assert_eq!(order, [round, round].concat(), "rounds:\n{text}");
}

/// The bench with two and three threads also runs two and three direct searches apart (the
/// machine's own figure for that many cores) and every shared-search run, each with the
/// direct run's verdict; with `--repeat 2` it runs them in two rounds, each 2 and 3 apart,
/// then 1, 2 and 3 threads, and compares each run of two or three threads with its round's
/// one-thread run and its nodes per second with its round's run apart.
#[test]
fn bench_with_threads_measures_searches_apart() {
    let o = solver(&[
        "seven",
        "bench",
        "--cols",
        "8",
        "--threads",
        "1",
        "2",
        "3",
        "--repeat",
        "2",
    ]);
    assert!(o.status.success());
    let text = stdout(&o);
    // The rows of a run: the words after n, as "direct maker 2124 ...".
    let rows = |run: &str| -> Vec<Vec<&str>> {
        text.lines()
            .map(|l| l.split_whitespace().skip(1).collect::<Vec<_>>())
            .filter(|w| w.join(" ").starts_with(run))
            .collect()
    };
    assert_eq!(rows("direct maker").len(), 1, "one direct row in:\n{text}");
    for run in [
        "2 apart maker",
        "3 apart maker",
        "1 thread maker",
        "2 threads maker",
        "3 threads maker",
    ] {
        assert_eq!(rows(run).len(), 2, "two {run:?} rows in:\n{text}");
    }
    assert_rounds(
        &text,
        &["2 apart", "3 apart", "1 thread", "2 threads", "3 threads"],
    );
    let nodes = |run: &str, at: usize| -> u64 { rows(run)[0][at].parse().expect("nodes") };
    assert_eq!(
        nodes("2 apart", 3),
        2 * nodes("direct", 2),
        "two whole searches:\n{text}"
    );
    for k in [2, 3] {
        let apart = format!("  8  {k} apart vs direct: ");
        let lines: Vec<&str> = text.lines().filter(|l| l.starts_with(&apart)).collect();
        assert_eq!(lines.len(), 1, "one {apart:?} line in:\n{text}");
        let figures = lines[0].split_whitespace().filter(|w| w.ends_with('x'));
        assert_eq!(figures.count(), 2, "one figure per round:\n{text}");
        let prefix = format!("  8  {k} threads vs 1 (each against its round's): ");
        let speedups = text
            .lines()
            .find_map(|l| l.strip_prefix(prefix.as_str()))
            .unwrap_or_else(|| panic!("a {k}-thread speed-up line in:\n{text}"));
        let (list, rest) = speedups.split_once("; median ").expect("a median");
        assert_eq!(
            list.split(' ').count(),
            2,
            "one speed-up per round:\n{text}"
        );
        assert!(
            rest.contains("; nodes/s ") && rest.contains("; nodes "),
            "{text}"
        );
        // Each run's nodes per second against its round's K apart (the rows' nodes/s, the
        // apart row's summed over its searches), and their median.
        let (_, shares) = rest
            .split_once(&format!("; nodes/s vs {k} apart's "))
            .expect("a share of K apart's speed");
        let (list, median) = shares.split_once(", median ").expect("a median");
        // Last, the cores' round trip just before and after each K-thread run.
        let (median, trips) = median
            .split_once("; cores' round trip before/after, ns: ")
            .expect("the cores' round trips");
        assert_round_trips(trips, 2, &text);
        let ratio = |x: &str| -> f64 {
            x.strip_suffix('x')
                .expect("a ratio")
                .parse()
                .expect("a number")
        };
        let list: Vec<f64> = list.split(' ').map(ratio).collect();
        assert_eq!(list.len(), 2, "one share per round:\n{text}");
        let rate =
            |run: &str, round: usize| -> f64 { rows(run)[round][6].parse().expect("nodes/s") };
        for (round, &share) in list.iter().enumerate() {
            let expected = rate(&format!("{k} threads maker"), round)
                / rate(&format!("{k} apart maker"), round);
            assert!(
                (share - expected).abs() < 0.006,
                "round {round}: {share} against {expected}:\n{text}"
            );
        }
        let (lo, hi) = (list[0].min(list[1]), list[0].max(list[1]));
        assert!(
            (ratio(median) - (lo + hi) / 2.0).abs() < 0.006,
            "the median of two:\n{text}"
        );
    }
}

/// The interleaved rows: one per seed, each with the direct run's verdict; the same seeds give
/// the same nodes in a second invocation; one leaf at a time is the direct search, run once.
#[test]
fn bench_interleaved_runs_are_reproducible() {
    let args = [
        "seven",
        "bench",
        "--cols",
        "9",
        "--interleaved",
        "1",
        "3",
        "--repeat",
        "3",
    ];
    let rows = |text: &str, run: &str| -> Vec<String> {
        text.lines()
            .map(|l| l.split_whitespace().skip(1).take(4).collect::<Vec<_>>())
            .filter(|w| w.len() == 4 && w[..2].join(" ") == run)
            .map(|w| w.join(" "))
            .collect()
    };
    let first = stdout(&solver(&args));
    let second = stdout(&solver(&args));
    let direct = rows(&first, "direct maker");
    assert_eq!(direct.len(), 1, "{first}");
    let direct_nodes = direct[0].split(' ').nth(2).expect("nodes");
    let one = rows(&first, "1 interl.");
    assert_eq!(one.len(), 1, "{first}");
    assert!(
        one.iter()
            .all(|r| r == &format!("1 interl. maker {direct_nodes}"))
    );
    let three = rows(&first, "3 interl.");
    assert_eq!(three.len(), 3, "{first}");
    assert!(
        three.iter().all(|r| r.starts_with("3 interl. maker ")),
        "{first}"
    );
    assert_eq!(three, rows(&second, "3 interl."), "same seeds, same runs");
    assert!(
        first.contains("  9  3 interleaved, nodes vs direct: ") && first.contains(" of 3 at 1.5x"),
        "{first}"
    );
}

/// The distributed bench: one embedded coordinator and worker per run, each with the direct
/// run's verdict, in rounds of 2 apart, 1 and 2 slots. At n = 5 the coordinator decides the
/// empty board at submit, so no worker searches a node: the ratios of nothing to nothing print
/// as `-`, not as `NaNx`, and nothing against the runs apart as `0.00x`.
#[test]
fn bench_with_workers_prints_no_ratio_of_nothing() {
    let o = solver(&[
        "seven",
        "bench",
        "--cols",
        "5",
        "--workers",
        "1",
        "2",
        "--repeat",
        "2",
    ]);
    assert!(o.status.success());
    let text = stdout(&o);
    assert_rounds(&text, &["2 apart", "1 worker", "2 workers"]);
    for run in ["1 worker", "2 workers"] {
        let rows: Vec<Vec<&str>> = text
            .lines()
            .map(|l| l.split_whitespace().skip(1).collect::<Vec<_>>())
            .filter(|w| w.join(" ").starts_with(&format!("{run} maker ")))
            .collect();
        assert_eq!(rows.len(), 2, "two {run:?} rows in:\n{text}");
        assert!(
            rows.iter().all(|w| w[3] == "0"),
            "no node searched:\n{text}"
        );
    }
    let prefix = "  5  2 workers vs 1 (each against its round's): ";
    let line = text
        .lines()
        .find_map(|l| l.strip_prefix(prefix))
        .unwrap_or_else(|| panic!("a speed-up line in:\n{text}"));
    let (_, rest) = line.split_once("; median ").expect("a median");
    let (rest, trips) = rest
        .split_once("; cores' round trip before/after, ns: ")
        .expect("the cores' round trips");
    assert!(
        rest.ends_with("; nodes/s - -; nodes - -; nodes/s vs 2 apart's 0.00x 0.00x, median 0.00x"),
        "{text}"
    );
    assert_round_trips(trips, 2, &text);
}

/// The cores' round trips of a speed-up line (`before/after` in ns per round, `-` each on one
/// core): `rounds` pairs of positive, finite times.
fn assert_round_trips(list: &str, rounds: usize, text: &str) {
    let pairs: Vec<&str> = list.split(' ').collect();
    assert_eq!(pairs.len(), rounds, "one pair per round:\n{text}");
    let cores = std::thread::available_parallelism().map_or(1, usize::from);
    for pair in pairs {
        if cores < 2 {
            assert_eq!(pair, "-", "not measured on one core:\n{text}");
            continue;
        }
        let (before, after) = pair.split_once('/').expect("before/after");
        for ns in [before, after] {
            let ns: f64 = ns.parse().expect("a time in ns");
            assert!(ns.is_finite() && ns > 0.0, "{text}");
        }
    }
}

/// `seven bench --ablation` (n = 7) prints a row per technique whose nodes are those of
/// `seven solve --direct` with every other technique but the mirror-canonical table switched
/// off (the baseline: all of them; the last row: none), each won by Maker.
#[test]
fn ablation_rows_are_each_technique_alone() {
    let text = stdout(&solver(&["seven", "bench", "--ablation"]));
    const TECHNIQUES: [&str; 9] = [
        "forced-move",
        "maker-win-stop",
        "breaker-win-stop",
        "dead-squares",
        "dominated-squares",
        "heuristics",
        "components",
        "cut-vertex",
        "threat-space",
    ];
    let nodes_of_row = |name: &str| -> u64 {
        let row: Vec<&str> = text
            .lines()
            .find(|l| l.starts_with(&format!("{name} ")))
            .unwrap_or_else(|| panic!("no {name} row in {text}"))
            .split_whitespace()
            .collect();
        let at = row.iter().position(|w| *w == "maker").expect("Maker wins");
        row[at + 1].parse().expect("nodes")
    };
    let nodes_of_solve = |on: Option<&str>| -> u64 {
        let mut args = vec!["seven", "solve", "--direct", "--cols", "7", "--json"];
        for t in TECHNIQUES {
            if on != Some(t) {
                args.extend(["--disable", t]);
            }
        }
        let v = json(&args);
        assert_eq!(v["winner"], "maker");
        v["nodes"].as_u64().expect("nodes")
    };
    assert_eq!(
        nodes_of_row("none (baseline)"),
        nodes_of_solve(None),
        "{text}"
    );
    for t in TECHNIQUES {
        assert_eq!(nodes_of_row(t), nodes_of_solve(Some(t)), "{t}: {text}");
    }
    let all = json(&["seven", "solve", "--direct", "--cols", "7", "--json"]);
    assert_eq!(Some(nodes_of_row("all")), all["nodes"].as_u64(), "{text}");
}
