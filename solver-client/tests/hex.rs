//! `solver hex ...` run as a binary: the in-process path on the public test data, the drawn
//! forms, and bad input with exit code 2.

mod common;

use std::io::Write;

use common::{json_lines, records, solver, stdout, testdata};

#[test]
fn check_jsonl_matches_connectivity_data() {
    let path = testdata("hex", "connectivity.jsonl");
    let got = json_lines(&solver(&["hex", "check", "--jsonl", &path]));
    let want = records(&path);
    assert_eq!(got.len(), want.len());
    for (g, w) in got.iter().zip(&want) {
        assert_eq!(g["id"], w["id"]);
        assert_eq!(g["connected"], w["connected"], "{}", w["id"]);
    }
}

#[test]
fn solve_jsonl_gives_every_winning_move() {
    let path = testdata("hex", "positions.jsonl");
    let text = std::fs::read_to_string(&path).expect("data");
    // The 4x4 and 5x5 records (quick), through a temporary file.
    let mut file = tempfile::NamedTempFile::new().expect("temp file");
    let mut want = Vec::new();
    for line in text.lines() {
        let v: serde_json::Value = serde_json::from_str(line).expect("JSON");
        if matches!(v["n"].as_u64(), Some(4 | 5)) {
            writeln!(file, "{line}").expect("write");
            want.push(v);
        }
    }
    let p = file.path().to_str().expect("utf-8 path");
    let got = json_lines(&solver(&["hex", "solve", "--jsonl", p, "--all-moves"]));
    assert_eq!(got.len(), want.len());
    for (g, w) in got.iter().zip(&want) {
        assert_eq!(g["id"], w["id"]);
        assert_eq!(g["status"], "solved");
        assert_eq!(g["winner"], w["winner"], "{}", w["id"]);
        assert_eq!(g["winning_moves"], w["winning_moves"], "{}", w["id"]);
    }
}

#[test]
fn human_forms_draw_the_board() {
    let out = solver(&["hex", "solve", "--empty", "3", "--all-moves"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = stdout(&out);
    assert!(text.contains("a b c"), "{text}");
    assert!(text.contains("winner: B"), "{text}");
    assert!(text.contains("winning moves (*): c1 a2 b2 c2 a3"), "{text}");

    let out = solver(&["hex", "check", "B..", "B..", "B.."]);
    assert!(out.status.success());
    let text = stdout(&out);
    assert!(text.contains("B is connected: a1 a2 a3"), "{text}");
}

#[test]
fn bad_input_exits_with_code_2() {
    let out = solver(&["hex", "check", "B..", "B.", "B.."]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("board.rows"));
    let out = solver(&["hex", "solve", "...", "...", "...", "--to-move", "X"]);
    assert_eq!(out.status.code(), Some(2));
    for size in ["0", "12"] {
        let out = solver(&["hex", "check", "--empty", size]);
        assert_eq!(out.status.code(), Some(2));
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("--empty") && err.contains("1..=11"), "{err}");
    }
    let mut file = tempfile::NamedTempFile::new().expect("temp file");
    writeln!(
        file,
        r#"{{"id": "x", "n": 2, "board": ["BW", "BX"], "to_move": "B"}}"#
    )
    .expect("write");
    let out = solver(&[
        "hex",
        "solve",
        "--jsonl",
        file.path().to_str().expect("utf-8"),
    ]);
    assert_eq!(out.status.code(), Some(2));
    // A board given both ways: refused, not one of them ignored.
    let jsonl = file.path().to_str().expect("utf-8");
    for cmd in ["check", "solve"] {
        let out = solver(&["hex", cmd, "--jsonl", jsonl, "--empty", "5"]);
        assert_eq!(out.status.code(), Some(2), "{cmd}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("cannot be used with"), "{cmd}: {err}");
    }
}
