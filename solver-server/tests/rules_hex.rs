//! `Rules.CheckHexWin` and `Rules.SolveHex` called through the service trait: answers on known
//! boards, the budget's "unknown", and every malformed input answered with INVALID_ARGUMENT
//! naming the field.

use solver_proto::v1::rules_server::Rules;
use solver_proto::v1::{
    CheckHexWinRequest, HexBoard, HexColor, HexSolveStatus, SolveHexRequest, SolveHexResponse,
};
use solver_server::rules::RulesService;
use tonic::{Code, Request};

fn board(rows: &[&str]) -> Option<HexBoard> {
    Some(HexBoard {
        n: 0,
        rows: rows.iter().map(|r| r.to_string()).collect(),
    })
}

fn solve_req(rows: &[&str], to_move: HexColor, all_moves: bool) -> SolveHexRequest {
    SolveHexRequest {
        board: board(rows),
        to_move: to_move.into(),
        all_moves,
        max_nodes: 0,
        time_limit_ms: 0,
    }
}

#[tokio::test]
async fn check_reports_the_connected_side_and_its_chain() {
    let svc = RulesService::default();
    let req = CheckHexWinRequest {
        board: board(&["W..WW", "W.W..", "WW...", ".....", "....."]),
    };
    let a = svc
        .check_hex_win(Request::new(req))
        .await
        .expect("valid")
        .into_inner();
    assert_eq!(a.connected, i32::from(HexColor::White));
    let chain: Vec<&str> = a.chain.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(chain.first().map(|c| &c[..1]), Some("a"));
    assert_eq!(chain.last().map(|c| &c[..1]), Some("e"));

    let req = CheckHexWinRequest {
        board: board(&["...", "...", "..."]),
    };
    let a = svc
        .check_hex_win(Request::new(req))
        .await
        .expect("valid")
        .into_inner();
    assert_eq!(a.connected, i32::from(HexColor::Unspecified));
    assert!(a.chain.is_empty());
}

#[tokio::test]
async fn solve_gives_every_winning_opening_of_the_empty_4x4() {
    let req = solve_req(&["....", "....", "....", "...."], HexColor::Black, true);
    let a = solve(&RulesService::default(), req).await;
    assert_eq!(a.status, i32::from(HexSolveStatus::Solved));
    assert_eq!(a.winner, i32::from(HexColor::Black));
    assert!(a.all_moves);
    let moves: Vec<&str> = a.winning_moves.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(moves, ["d1", "c2", "b3", "a4"]);
    let m = a.winning_move.expect("Black wins").name;
    assert!(moves.contains(&m.as_str()));
    assert!(!a.carrier.is_empty());
    assert!(a.nodes > 0);
}

#[tokio::test]
async fn solve_reports_unknown_when_the_budget_runs_out() {
    let mut req = solve_req(
        &["......", "......", "......", "......", "......", "......"],
        HexColor::Black,
        false,
    );
    req.max_nodes = 5;
    let a = solve(&RulesService::default(), req).await;
    assert_eq!(a.status, i32::from(HexSolveStatus::Unknown));
    assert!(a.winning_move.is_none());
}

/// The answer of `svc` to a valid `req`.
async fn solve(svc: &RulesService, req: SolveHexRequest) -> SolveHexResponse {
    svc.solve_hex(Request::new(req))
        .await
        .expect("valid")
        .into_inner()
}

async fn solve_error(req: SolveHexRequest) -> String {
    let e = RulesService::default()
        .solve_hex(Request::new(req))
        .await
        .expect_err("malformed");
    assert_eq!(e.code(), Code::InvalidArgument, "{}", e.message());
    e.message().to_string()
}

async fn check_error(board: Option<HexBoard>) -> String {
    let e = RulesService::default()
        .check_hex_win(Request::new(CheckHexWinRequest { board }))
        .await
        .expect_err("malformed");
    assert_eq!(e.code(), Code::InvalidArgument, "{}", e.message());
    e.message().to_string()
}

#[tokio::test]
async fn malformed_boards_are_invalid_argument_naming_the_field() {
    assert!(check_error(None).await.starts_with("board:"));
    // Not square.
    assert!(
        check_error(board(&["...", "..", "..."]))
            .await
            .starts_with("board.rows:")
    );
    // Size out of range.
    assert!(check_error(board(&[])).await.starts_with("board.rows:"));
    let twelve = vec![".".repeat(12); 12];
    let rows: Vec<&str> = twelve.iter().map(String::as_str).collect();
    assert!(check_error(board(&rows)).await.starts_with("board.rows:"));
    let e = check_error(Some(HexBoard {
        n: 12,
        rows: vec![],
    }))
    .await;
    assert!(e.starts_with("board.n:"), "{e}");
    // n disagrees with the rows.
    let e = check_error(Some(HexBoard {
        n: 3,
        rows: vec!["..".into(), "..".into()],
    }))
    .await;
    assert!(e.starts_with("board.n:"), "{e}");
    // Other characters.
    assert!(
        check_error(board(&["..X", "...", "..."]))
            .await
            .starts_with("board.rows:")
    );
    // Both sides connected cannot happen on a real board (the Hex theorem: exactly one
    // side can connect), so the guard for it is not reachable from here.
    // The same validation in SolveHex.
    let e = solve_error(solve_req(&["B.", "B.."], HexColor::Black, false)).await;
    assert!(e.starts_with("board.rows:"), "{e}");
}

#[tokio::test]
async fn malformed_solve_options_are_invalid_argument_naming_the_field() {
    let e = solve_error(solve_req(&["..", ".."], HexColor::Unspecified, false)).await;
    assert!(e.starts_with("to_move:"), "{e}");
    let mut req = solve_req(&["..", ".."], HexColor::Black, false);
    req.to_move = 7;
    assert!(solve_error(req).await.starts_with("to_move:"));
    let mut req = solve_req(&["..", ".."], HexColor::Black, false);
    req.time_limit_ms = 10_000_000;
    assert!(solve_error(req).await.starts_with("time_limit_ms:"));
    let mut req = solve_req(&["..", ".."], HexColor::Black, false);
    req.board = None;
    assert!(solve_error(req).await.starts_with("board:"));
}

/// The server runs at most its number of Hex searches at once: with one turn, a request that
/// waits past its time limit behind a running search is answered "unknown" without a search;
/// and a search whose request is dropped (the client cancelled, or its deadline passed) stops
/// and frees its turn, so the next request is answered (the dropped search, of the empty 11x11
/// board with a minute allowed, would hold the turn for that minute otherwise).
#[tokio::test]
async fn solves_wait_for_a_turn_and_a_dropped_one_frees_it() {
    let svc = RulesService::new(1);
    let row = ".".repeat(11);
    let mut long = solve_req(&[row.as_str(); 11], HexColor::Black, true);
    long.time_limit_ms = 60_000;
    let task = {
        let svc = svc.clone();
        tokio::spawn(async move { svc.solve_hex(Request::new(long)).await })
    };
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    let mut small = solve_req(&["."], HexColor::White, false);
    small.time_limit_ms = 500;
    let waited = solve(&svc, small.clone()).await;
    assert_eq!(waited.status, i32::from(HexSolveStatus::Unknown));
    assert_eq!(waited.nodes, 0);
    assert!(waited.time_ms >= 500, "{} ms", waited.time_ms);

    task.abort();
    assert!(task.await.expect_err("aborted").is_cancelled());
    small.time_limit_ms = 20_000;
    let answer = solve(&svc, small).await;
    assert_eq!(answer.status, i32::from(HexSolveStatus::Solved));
    assert_eq!(answer.winner, i32::from(HexColor::White));
}
