//! `solver renju` end to end (in-process path): the shared test data through `check --jsonl`
//! and `map --jsonl`, the human forms, and bad input answered with exit code 2.

mod common;

use std::collections::BTreeSet;
use std::io::Write;
use std::process::Output;

use common::{json_lines, records, solver, testdata};
use serde_json::Value;

#[test]
fn check_jsonl_matches_every_test_record() {
    for file in ["handcrafted.jsonl", "tricky.jsonl", "midgame.jsonl"] {
        let path = testdata("renju", file);
        let inputs = records(&path);
        let answers = json_lines(&solver(&["renju", "check", "--jsonl", &path]));
        assert_eq!(answers.len(), inputs.len());
        for (i, a) in inputs.iter().zip(&answers) {
            let e = &i["expect"];
            assert_eq!(a["id"], i["id"], "id echoed");
            assert_eq!(a["win"], e["win"], "{}", i["id"]);
            assert_eq!(a["forbidden"], e["forbidden"], "{}", i["id"]);
            assert_eq!(a["longest_line"], e["longest_line"], "{}", i["id"]);
            assert_eq!(a["move"]["name"], i["move"]["name"], "{}", i["id"]);
            let result = a["result"].as_str().expect("result");
            assert!(
                result == e["result"] || a["shape_flags"][result] == Value::Bool(true),
                "{}: {result}",
                i["id"]
            );
            if i["color"] == "black" {
                assert_eq!(a["shape_flags"], e["shape_flags"], "{}", i["id"]);
                assert_eq!(a["fours"], e["fours"], "{}", i["id"]);
                assert_eq!(a["threes"], e["threes"], "{}", i["id"]);
            }
        }
    }
}

fn names(v: &Value) -> BTreeSet<String> {
    v.as_array()
        .expect("list")
        .iter()
        .map(|p| format!("{}:{}", p["name"], p.get("kind").unwrap_or(&Value::Null)))
        .collect()
}

#[test]
fn map_jsonl_matches_every_test_map() {
    let path = testdata("renju", "forbidden_maps.jsonl");
    let inputs = records(&path);
    let answers = json_lines(&solver(&["renju", "map", "--jsonl", &path]));
    assert_eq!(answers.len(), inputs.len());
    for (i, a) in inputs.iter().zip(&answers) {
        assert_eq!(a["id"], i["id"]);
        for field in ["black_forbidden", "black_five_points", "white_win_points"] {
            assert_eq!(names(&a[field]), names(&i[field]), "{} {field}", i["id"]);
        }
    }
}

/// A double three for Black at H8, as a '/'-joined board.
fn double_three() -> String {
    let mut rows = vec![".".repeat(15); 15];
    rows[5] = ".......X.......".into();
    rows[6] = ".......X.......".into();
    rows[7] = ".....XX........".into();
    rows.join("/")
}

#[test]
fn human_forms_mark_the_board() {
    let b = double_three();
    let out = solver(&["renju", "check", "--board", &b, "--move", "H8"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success());
    assert!(
        text.contains("H8 (row 7, col 7): double_three, FORBIDDEN"),
        "{text}"
    );
    assert!(text.contains("fours 0, threes 2"), "{text}");
    // row,col form and White.
    let out = solver(&[
        "renju", "check", "--board", &b, "--move", "7,7", "--color", "white", "--json",
    ]);
    let v: Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(v["result"], "allowed");
    assert_eq!(v["move"]["name"], "H8");

    let out = solver(&["renju", "map", "--board", &b]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success());
    assert!(text.contains(" 8  . . . . . X X 3"), "{text}");
    assert!(
        text.contains("black forbidden (1): H8=double_three"),
        "{text}"
    );

    let mut file = tempfile::NamedTempFile::new().expect("temp file");
    writeln!(file, "{}", b.replace('/', "\n")).expect("write");
    let out = solver(&[
        "renju",
        "map",
        "--json",
        "--board-file",
        file.path().to_str().expect("utf8"),
    ]);
    let v: Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(v["black_forbidden"][0]["kind"], "double_three");
}

fn assert_usage(out: &Output, needle: &str) {
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "stderr: {err}");
    assert!(err.contains(needle), "expected {needle:?} in {err}");
}

#[test]
fn bad_input_exits_2_naming_the_field() {
    let b = double_three();
    let short: String = b.split('/').take(14).collect::<Vec<_>>().join("/");
    assert_usage(
        &solver(&["renju", "check", "--board", &short, "--move", "H8"]),
        "board",
    );
    assert_usage(
        &solver(&["renju", "check", "--board", &b, "--move", "H9"]),
        "move",
    );
    assert_usage(
        &solver(&["renju", "check", "--board", &b, "--move", "Q3"]),
        "move.name",
    );
    assert_usage(
        &solver(&["renju", "check", "--board", &b, "--move", "3,15"]),
        "move.col",
    );
    assert_usage(
        &solver(&["renju", "check", "--board", &b, "--move", " "]),
        "--move: empty",
    );
    assert_usage(
        &solver(&[
            "renju", "check", "--board", &b, "--move", "H8", "--color", "red",
        ]),
        "--color",
    );
    assert_usage(
        &solver(&["renju", "map", "--board", &b.replacen('.', "?", 1)]),
        "board[0]",
    );

    let mut file = tempfile::NamedTempFile::new().expect("temp file");
    let rows: Vec<&str> = b.split('/').collect();
    writeln!(
        file,
        "{}",
        serde_json::json!({"id": 1, "board": rows, "color": "black", "move": "H8"})
    )
    .expect("write");
    writeln!(
        file,
        "{}",
        serde_json::json!({"id": 2, "board": rows, "color": "black", "move": {"row": -1, "col": 3}})
    )
    .expect("write");
    let out = solver(&[
        "renju",
        "check",
        "--jsonl",
        file.path().to_str().expect("utf8"),
    ]);
    assert_usage(&out, "move.row");
    let first: Value = serde_json::from_str(
        String::from_utf8_lossy(&out.stdout)
            .lines()
            .next()
            .expect("first answer"),
    )
    .expect("JSON");
    assert_eq!(
        (first["id"].as_i64(), first["forbidden"].as_bool()),
        (Some(1), Some(true))
    );
}
