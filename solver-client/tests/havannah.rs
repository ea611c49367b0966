//! `solver havannah`: the in-process JSON-lines and human forms, playouts, and bad input
//! (exit code 2).

mod common;

use common::{json_lines, records, solver, stdout, testdata};
use serde_json::Value;

#[test]
fn check_jsonl_answers_every_line_in_order() {
    for file in ["tricky.jsonl", "multi_kind.jsonl"] {
        let path = testdata("havannah", file);
        let answers = json_lines(&solver(&["havannah", "check", "--jsonl", &path]));
        let inputs = records(&path);
        assert_eq!(answers.len(), inputs.len());
        for (q, a) in inputs.iter().zip(&answers) {
            assert_eq!(a["id"], q["id"]);
            assert_eq!(a["kinds"], q["kinds"], "{}", q["id"]);
            assert_eq!(a["kind"], q["seed_kind"], "{}", q["id"]);
            assert_eq!(
                a["win"],
                Value::Bool(!q["kinds"].as_array().expect("kinds").is_empty())
            );
            for kind in q["kinds"].as_array().expect("kinds") {
                let k = kind.as_str().expect("name");
                assert!(!a[k].is_null(), "{} has no {k} witness", q["id"]);
            }
        }
    }
}

#[test]
fn check_board_file_marks_the_witness() {
    let dir = tempfile::tempdir().expect("tempdir");
    let file = dir.path().join("board.txt");
    // L = 3: a ring of player 1 around player 2's stone at (2,2), closed by the move (1,1).
    std::fs::write(
        &file,
        "0 0 0 0 0\n0 0 1 1 0\n0 1 2 1 0\n3 0 1 0 3\n3 3 0 3 3\n",
    )
    .expect("write");
    let path = file.to_str().expect("utf-8 path");
    let out = solver(&[
        "havannah",
        "check",
        "--board-file",
        path,
        "--move",
        "1,1",
        "--player",
        "1",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = stdout(&out);
    assert!(text.starts_with("player 1 at 1,1: ring (ring)"), "{text}");
    assert!(text.contains("ring: 1,1 "), "{text}");
    // Row 1: the move in brackets and capitalised, the other witness stones capitalised.
    let row1 = text.lines().find(|l| l.contains("[X]")).expect("move row");
    assert_eq!(row1.trim(), ". [X] X  X  .");
    let row2 = text
        .lines()
        .find(|l| l.contains(" o "))
        .expect("centre row");
    assert_eq!(row2.trim(), ".  X  o  X  .");

    let out = solver(&[
        "havannah",
        "check",
        "--board-file",
        path,
        "--move",
        "4,2",
        "--player",
        "2",
    ]);
    assert!(out.status.success());
    assert!(stdout(&out).starts_with("player 2 at 4,2: no win"));
}

#[test]
fn bad_input_exits_2() {
    let dir = tempfile::tempdir().expect("tempdir");
    let bad_value = dir.path().join("bad.jsonl");
    std::fs::write(
        &bad_value,
        r#"{"id":"x","layers":2,"board":[[0,0,0],[0,9,0],[3,0,3]],"move":[0,0],"player":1}"#,
    )
    .expect("write");
    let bad_player = dir.path().join("player.jsonl");
    std::fs::write(
        &bad_player,
        r#"{"layers":2,"board":[[0,0,0],[0,0,0],[3,0,3]],"move":[0,0],"player":3}"#,
    )
    .expect("write");
    let off_board = dir.path().join("off.jsonl");
    std::fs::write(
        &off_board,
        r#"{"layers":2,"board":[[0,0,0],[0,0,0],[3,0,3]],"move":[2,0],"player":1}"#,
    )
    .expect("write");
    let even = dir.path().join("even.txt");
    std::fs::write(&even, "0 0\n0 0\n").expect("write");
    let not_square = dir.path().join("not_square.json");
    std::fs::write(&not_square, "[[0,0,0],[0,0],[3,0,3]]").expect("write");
    let good = dir.path().join("good.txt");
    std::fs::write(&good, "0 0 0\n0 0 0\n3 0 3\n").expect("write");
    let latin1 = dir.path().join("latin1.jsonl");
    std::fs::write(&latin1, b"\n{\"id\":\"caf\xe9\"}\n").expect("write");
    /// `havannah check --board-file FILE --move MV --player 1`.
    fn check_file<'a>(file: &'a std::path::Path, mv: &'a str) -> Vec<&'a str> {
        let file = file.to_str().expect("path");
        vec![
            "havannah",
            "check",
            "--board-file",
            file,
            "--move",
            mv,
            "--player",
            "1",
        ]
    }
    for (args, what) in [
        (
            vec![
                "havannah",
                "check",
                "--jsonl",
                bad_value.to_str().expect("path"),
            ],
            "board",
        ),
        (
            vec![
                "havannah",
                "check",
                "--jsonl",
                bad_player.to_str().expect("path"),
            ],
            "player",
        ),
        (
            vec![
                "havannah",
                "check",
                "--jsonl",
                off_board.to_str().expect("path"),
            ],
            "move",
        ),
        (check_file(&even, "0,0"), "--board-file"),
        (check_file(&not_square, "0,0"), "--board-file"),
        (check_file(&good, "zero"), "--move"),
        (
            vec!["havannah", "playout", "--layers", "1", "--games", "1"],
            "--layers",
        ),
        (
            vec!["havannah", "playout", "--layers", "4", "--games", "0"],
            "--games",
        ),
        (vec!["havannah", "bench", "--layers", "33"], "--layers"),
        (vec!["havannah", "bench", "--callers", "0"], "--callers"),
        (vec!["havannah", "bench", "--positions", "0"], "--positions"),
        (
            vec![
                "havannah",
                "check",
                "--jsonl",
                latin1.to_str().expect("path"),
            ],
            "latin1.jsonl:2: stream did not contain valid UTF-8",
        ),
        (
            vec!["havannah", "check", "--jsonl", "/nonexistent/file.jsonl"],
            "cannot open",
        ),
    ] {
        let out = solver(&args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(what), "{args:?}: {err}");
    }
}

#[test]
fn unreachable_server_is_a_readable_failure() {
    let path = testdata("havannah", "tricky.jsonl");
    for command in [
        vec!["havannah", "check", "--jsonl", &path],
        vec!["havannah", "bench", "--secs", "1"],
    ] {
        let out = solver(&[command.as_slice(), &["--server", "http://127.0.0.1:1"]].concat());
        assert_eq!(out.status.code(), Some(1), "{command:?}");
        assert!(
            String::from_utf8_lossy(&out.stderr).contains("cannot connect"),
            "{command:?}"
        );
    }
}

/// The bench starts a server on loopback, checks every answer it gets over gRPC against the
/// in-process one (a difference stops it with an error), and prints the baseline and a row per
/// board size: its positions, the wins among them (every third game is stopped after its
/// last move, which wins on these boards with this seed), and the rates. A `--server`'s TLS
/// and token settings in the environment do not reach the server it starts.
#[test]
fn bench_prints_a_row_per_size_from_a_server_on_loopback() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_solver"))
        .args([
            "havannah",
            "bench",
            "--layers",
            "3",
            "5",
            "--positions",
            "30",
            "--secs",
            "1",
            "--callers",
            "2",
        ])
        .env("SOLVER_TLS_CA", "/nonexistent/ca.pem")
        .env("SOLVER_CLIENT_TOKEN", "for-another-server")
        .output()
        .expect("the solver binary runs");
    let text = stdout(&out);
    assert!(
        out.status.success(),
        "{text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let health: f64 = text
        .lines()
        .find_map(|l| l.trim().strip_prefix("baseline: gRPC health checks/s"))
        .and_then(|x| x.trim().parse().ok())
        .unwrap_or_else(|| panic!("no baseline in {text}"));
    assert!(health > 0.0, "{text}");
    for layers in ["3", "5"] {
        let row: Vec<&str> = text
            .lines()
            .map(|l| l.split_whitespace().collect::<Vec<_>>())
            .find(|w| w.first() == Some(&layers))
            .unwrap_or_else(|| panic!("no row for L = {layers} in {text}"));
        assert_eq!(row.len(), 7, "{text}");
        assert_eq!(row[1], "30", "{text}");
        let number = |i: usize| -> f64 {
            row[i]
                .trim_end_matches('x')
                .parse()
                .unwrap_or_else(|_| panic!("column {i} of {row:?}"))
        };
        assert!(number(2) >= 10.0, "every third position wins: {text}");
        for i in 3..7 {
            assert!(number(i) > 0.0, "column {i}: {text}");
        }
    }
}

#[test]
fn playout_counts_every_game_once_and_is_seeded() {
    let args = [
        "havannah", "playout", "--layers", "4", "--games", "2000", "--seed", "5",
    ];
    let out = solver(&args);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = stdout(&out);
    let count = |kind: &str| -> u64 {
        text.lines()
            .find(|l| l.starts_with(kind))
            .and_then(|l| l.split_whitespace().nth(1))
            .and_then(|n| n.parse().ok())
            .unwrap_or_else(|| panic!("no {kind} line in {text}"))
    };
    let (fork, bridge, ring, none) = (count("fork"), count("bridge"), count("ring"), count("none"));
    assert_eq!(fork + bridge + ring + none, 2000);
    // Ewalds 2012 at L = 4, per 10,000: fork 4267, bridge 5177, ring 543. Allow 6 standard
    // deviations of a 2000-game sample.
    for (got, per10k) in [(fork, 4267.0), (bridge, 5177.0), (ring, 543.0)] {
        let p: f64 = per10k / 10_000.0;
        let sd = (2000.0 * p * (1.0 - p)).sqrt();
        assert!((got as f64 - 2000.0 * p).abs() < 6.0 * sd, "{text}");
    }
    // The games won by several kinds at once, by combination ("bridge+fork 887, ..."): each
    // names two kinds or more, and they add up to the total.
    let several = text
        .lines()
        .find_map(|l| l.strip_prefix("several kinds at once: "))
        .unwrap_or_else(|| panic!("no several-kinds line in {text}"));
    let (total, rest) = several
        .split_once(" games (")
        .expect("a list of combinations");
    let total: u64 = total.parse().expect("a count");
    let list = rest.split_once(')').expect("a closed list").0;
    let mut sum = 0;
    for item in list.split(", ") {
        let (kinds, n) = item.rsplit_once(' ').expect("kinds and a count");
        assert!(kinds.contains('+'), "{item}");
        sum += n.parse::<u64>().expect("a count");
    }
    assert_eq!(sum, total, "{text}");
    assert!(total > 0 && total < fork + bridge + ring, "{text}");
    assert_eq!(stdout(&solver(&args)), text, "same seed, same games");
}

#[test]
fn a_reader_that_stops_early_ends_the_command_quietly() {
    // Far more answers than a pipe holds (64 KiB), so writing meets the closed pipe.
    let dir = tempfile::tempdir().expect("tempdir");
    let many = dir.path().join("many.jsonl");
    let one = std::fs::read_to_string(testdata("havannah", "multi_kind.jsonl")).expect("data");
    std::fs::write(&many, one.repeat(300)).expect("write");
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_solver"))
        .args(["havannah", "check", "--jsonl"])
        .arg(&many)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("the solver binary runs");
    let mut first = String::new();
    std::io::BufRead::read_line(
        &mut std::io::BufReader::new(child.stdout.take().expect("stdout")),
        &mut first,
    )
    .expect("a line");
    // The reader (and the pipe's only read end) is gone now.
    let o = child.wait_with_output().expect("the solver binary ends");
    assert!(first.starts_with('{'), "{first}");
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        o.status.success() && err.is_empty(),
        "{:?}: {err}",
        o.status
    );
}
