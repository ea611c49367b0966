//! `Rules.CheckRenju` and `Rules.RenjuForbiddenMap` called through the service trait: answers
//! on known positions, and every malformed input answered with INVALID_ARGUMENT naming the
//! field; and both over gRPC on loopback.

mod common;

use solver_proto::v1::rules_client::RulesClient;
use solver_proto::v1::rules_server::Rules;
use solver_proto::v1::{
    CheckRenjuRequest, RenjuColor, RenjuForbiddenMapRequest, RenjuKind, RenjuPoint,
};
use solver_server::rules::RulesService;
use tonic::{Code, Request};

/// An empty board with the given rows (index, text) written in.
fn board(rows: &[(usize, &str)]) -> Vec<String> {
    let mut b = vec![".".repeat(15); 15];
    for &(i, r) in rows {
        b[i] = format!("{r:.<15}");
    }
    b
}

fn at(row: u32, col: u32) -> Option<RenjuPoint> {
    Some(RenjuPoint {
        row,
        col,
        name: String::new(),
    })
}

fn named(name: &str) -> Option<RenjuPoint> {
    Some(RenjuPoint {
        name: name.into(),
        ..RenjuPoint::default()
    })
}

fn req(board: Vec<String>, color: RenjuColor, mv: Option<RenjuPoint>) -> CheckRenjuRequest {
    CheckRenjuRequest {
        board,
        color: color.into(),
        r#move: mv,
    }
}

/// A double three for Black at H8 (row 7, col 7): ..XX. across and down.
fn double_three() -> Vec<String> {
    board(&[(5, ".......X"), (6, ".......X"), (7, ".....XX")])
}

#[tokio::test]
async fn check_answers_known_positions() {
    let s = RulesService::default();
    let r = s
        .check_renju(Request::new(req(
            double_three(),
            RenjuColor::Black,
            named("H8"),
        )))
        .await
        .expect("valid")
        .into_inner();
    assert!(r.forbidden && !r.win);
    assert_eq!(r.kind, RenjuKind::DoubleThree as i32);
    assert_eq!((r.fours, r.threes, r.longest_line), (0, 2, 3));
    let flags = r.shape_flags.expect("flags");
    assert!(flags.double_three && !flags.five && !flags.overline && !flags.double_four);
    let mv = r.r#move.expect("move echoed");
    assert_eq!((mv.row, mv.col, mv.name.as_str()), (7, 7, "H8"));

    // White on the same point: no restriction.
    let r = s
        .check_renju(Request::new(req(
            double_three(),
            RenjuColor::White,
            at(7, 7),
        )))
        .await
        .expect("valid")
        .into_inner();
    assert!(!r.forbidden && !r.win);
    assert_eq!(r.kind, RenjuKind::Allowed as i32);

    // White overline wins; the same shape is an overline for Black.
    let b = board(&[(0, "OOO.OO"), (1, "XXX.XX")]);
    let r = s
        .check_renju(Request::new(req(b.clone(), RenjuColor::White, at(0, 3))))
        .await
        .expect("valid")
        .into_inner();
    assert!(r.win && r.longest_line == 6);
    let r = s
        .check_renju(Request::new(req(b, RenjuColor::Black, at(1, 3))))
        .await
        .expect("valid")
        .into_inner();
    assert!(r.forbidden && !r.win);
    assert_eq!(r.kind, RenjuKind::Overline as i32);
}

#[tokio::test]
async fn forbidden_map_lists_every_kind() {
    let b = board(&[
        (0, "XXX.XX"),
        (5, ".......X"),
        (6, ".......X"),
        (7, ".....XX"),
        (14, "OOOO"),
    ]);
    let r = RulesService::default()
        .renju_forbidden_map(Request::new(RenjuForbiddenMapRequest { board: b }))
        .await
        .expect("valid")
        .into_inner();
    let forbidden: Vec<(String, i32)> = r
        .black_forbidden
        .iter()
        .map(|f| (f.point.as_ref().expect("point").name.clone(), f.kind))
        .collect();
    assert!(
        forbidden.contains(&("D15".into(), RenjuKind::Overline as i32)),
        "{forbidden:?}"
    );
    assert!(
        forbidden.contains(&("H8".into(), RenjuKind::DoubleThree as i32)),
        "{forbidden:?}"
    );
    let whites: Vec<&str> = r.white_win_points.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(whites, ["E1"]);
    let fives: Vec<&str> = r
        .black_five_points
        .iter()
        .map(|p| p.name.as_str())
        .collect();
    assert!(fives.is_empty() || !fives.contains(&"D15"), "{fives:?}");
}

async fn check_err(r: CheckRenjuRequest) -> tonic::Status {
    RulesService::default()
        .check_renju(Request::new(r))
        .await
        .expect_err("malformed input is rejected")
}

fn assert_invalid(status: &tonic::Status, field: &str) {
    assert_eq!(status.code(), Code::InvalidArgument, "{status:?}");
    assert!(
        status.message().starts_with(&format!("{field}: ")),
        "expected field {field}: {status:?}"
    );
}

#[tokio::test]
async fn malformed_inputs_are_invalid_argument_naming_the_field() {
    let ok = || board(&[(7, ".......X")]);
    // Not 15 x 15.
    let mut short = ok();
    short.pop();
    assert_invalid(
        &check_err(req(short, RenjuColor::Black, at(0, 0))).await,
        "board",
    );
    let mut wide = ok();
    wide[3].push('.');
    assert_invalid(
        &check_err(req(wide, RenjuColor::Black, at(0, 0))).await,
        "board[3]",
    );
    assert_invalid(
        &check_err(req(vec![], RenjuColor::Black, at(0, 0))).await,
        "board",
    );
    // Other characters.
    let mut bad = ok();
    bad[9] = "....x..........".into();
    assert_invalid(
        &check_err(req(bad, RenjuColor::Black, at(0, 0))).await,
        "board[9]",
    );
    // A board that already holds a five (either colour, or a black overline).
    for row in ["XXXXX", "OOOOO", "XXXXXX"] {
        let five = board(&[(2, row)]);
        assert_invalid(
            &check_err(req(five, RenjuColor::Black, at(0, 0))).await,
            "board",
        );
    }
    // Colour missing or unknown.
    assert_invalid(
        &check_err(req(ok(), RenjuColor::Unspecified, at(0, 0))).await,
        "color",
    );
    let mut unknown = req(ok(), RenjuColor::Black, at(0, 0));
    unknown.color = 7;
    assert_invalid(&check_err(unknown).await, "color");
    // Move missing, off the board, unreadable, contradictory, or on a stone.
    assert_invalid(&check_err(req(ok(), RenjuColor::Black, None)).await, "move");
    assert_invalid(
        &check_err(req(ok(), RenjuColor::Black, at(15, 0))).await,
        "move.row",
    );
    assert_invalid(
        &check_err(req(ok(), RenjuColor::Black, at(0, 99))).await,
        "move.col",
    );
    assert_invalid(
        &check_err(req(ok(), RenjuColor::Black, named("P8"))).await,
        "move.name",
    );
    assert_invalid(
        &check_err(req(ok(), RenjuColor::Black, named("H16"))).await,
        "move.name",
    );
    let clash = Some(RenjuPoint {
        row: 1,
        col: 1,
        name: "H8".into(),
    });
    assert_invalid(
        &check_err(req(ok(), RenjuColor::Black, clash)).await,
        "move",
    );
    assert_invalid(
        &check_err(req(ok(), RenjuColor::White, at(7, 7))).await,
        "move",
    );
    assert_invalid(
        &check_err(req(ok(), RenjuColor::Black, named("H8"))).await,
        "move",
    );

    // The map validates its board the same way.
    for b in [vec![".".repeat(15); 14], board(&[(0, "OOOOOO")]), {
        let mut b = ok();
        b[14] = "..............#".into();
        b
    }] {
        let s = RulesService::default()
            .renju_forbidden_map(Request::new(RenjuForbiddenMapRequest { board: b }))
            .await
            .expect_err("malformed board");
        assert_eq!(s.code(), Code::InvalidArgument);
        assert!(s.message().starts_with("board"), "{s:?}");
    }
}

/// Both RPCs of a whole server (its RocksDB in a temporary directory) over gRPC on 127.0.0.1:
/// an answer, and malformed requests answered `INVALID_ARGUMENT` naming the field, as through
/// the service trait.
#[tokio::test]
async fn over_loopback_grpc() {
    let server = common::start().await;
    let mut client = RulesClient::new(common::channel(server.addr).await);
    let r = client
        .check_renju(req(double_three(), RenjuColor::Black, named("H8")))
        .await
        .expect("answer")
        .into_inner();
    assert!(r.forbidden);
    assert_eq!(r.kind, RenjuKind::DoubleThree as i32);
    let mut short = double_three();
    short.pop();
    let malformed = [
        (req(short, RenjuColor::Black, at(0, 0)), "board"),
        (
            req(double_three(), RenjuColor::Black, at(15, 0)),
            "move.row",
        ),
        (
            req(double_three(), RenjuColor::Unspecified, at(0, 0)),
            "color",
        ),
    ];
    for (request, field) in malformed {
        let err = client.check_renju(request).await.expect_err(field);
        assert_invalid(&err, field);
    }
    let err = client
        .renju_forbidden_map(RenjuForbiddenMapRequest {
            board: board(&[(0, "OOOOOO")]),
        })
        .await
        .expect_err("a board with a five");
    assert_invalid(&err, "board");
    let map = client
        .renju_forbidden_map(RenjuForbiddenMapRequest {
            board: double_three(),
        })
        .await
        .expect("a map")
        .into_inner();
    assert!(
        map.black_forbidden
            .iter()
            .any(|f| f.point.as_ref().is_some_and(|p| p.name == "H8")
                && f.kind == RenjuKind::DoubleThree as i32),
        "{map:?}"
    );
}
