//! `Rules.CheckHavannahWin`: answers through the trait and over loopback gRPC, and every
//! malformed input rejected as INVALID_ARGUMENT naming its field.

use solver_proto::v1::rules_client::RulesClient;
use solver_proto::v1::rules_server::{Rules, RulesServer};
use solver_proto::v1::{CheckHavannahWinRequest, CheckHavannahWinResponse, HavannahCell};
use solver_server::rules::RulesService;
use tonic::{Code, Request};

fn cell(row: u32, col: u32) -> HavannahCell {
    HavannahCell { row, col }
}

/// L = 3 (5 x 5 array): player 1's six stones around the centre (2,2), the last one being the
/// move (1,1) left empty in the array; player 2 in the centre, one blocked cell at (0,2).
fn ring_request() -> CheckHavannahWinRequest {
    #[rustfmt::skip]
    let board = vec![
        0, 0, 3, 0, 0,
        0, 0, 1, 1, 0,
        0, 1, 2, 1, 0,
        3, 0, 1, 0, 3,
        3, 3, 0, 3, 3,
    ];
    CheckHavannahWinRequest {
        layers: 3,
        board,
        r#move: Some(cell(1, 1)),
        player: 1,
    }
}

async fn call(req: CheckHavannahWinRequest) -> Result<CheckHavannahWinResponse, tonic::Status> {
    RulesService::default()
        .check_havannah_win(Request::new(req))
        .await
        .map(|r| r.into_inner())
}

#[tokio::test]
async fn ring_with_witness() {
    let a = call(ring_request()).await.expect("valid request");
    assert!(a.win);
    assert_eq!(a.kinds, vec!["ring"]);
    assert_eq!(a.kind, "ring");
    let ring = a.ring.expect("ring witness").cells;
    assert_eq!(ring.len(), 6);
    assert!(ring.contains(&cell(1, 1)));
    for c in [(1, 2), (1, 3), (2, 1), (2, 3), (3, 2)] {
        assert!(ring.contains(&cell(c.0, c.1)), "{c:?}");
    }
    assert!(a.bridge.is_none() && a.fork.is_none());
}

#[tokio::test]
async fn bridge_and_no_win() {
    let req = CheckHavannahWinRequest {
        layers: 2,
        board: vec![1, 1, 0, 0, 0, 0, 3, 0, 3],
        r#move: Some(cell(0, 1)),
        player: 1,
    };
    let a = call(req.clone()).await.expect("valid");
    assert_eq!(
        (a.win, a.kinds.clone(), a.kind.as_str()),
        (true, vec!["bridge".to_string()], "bridge")
    );
    let b = a.bridge.expect("bridge witness");
    assert_eq!(b.corners, vec![cell(0, 0), cell(0, 1)]);
    assert_eq!(b.chain, vec![cell(0, 0), cell(0, 1)]);
    let quiet = CheckHavannahWinRequest {
        r#move: Some(cell(1, 1)),
        board: vec![0, 0, 0, 0, 1, 0, 3, 0, 3],
        ..req
    };
    let a = call(quiet).await.expect("valid");
    assert!(!a.win && a.kinds.is_empty() && a.kind.is_empty());
}

#[tokio::test]
async fn malformed_inputs_name_their_field() {
    let base = ring_request();
    let with = |f: &dyn Fn(&mut CheckHavannahWinRequest)| {
        let mut r = base.clone();
        f(&mut r);
        r
    };
    let cases: Vec<(&str, CheckHavannahWinRequest)> = vec![
        ("layers", with(&|r| r.layers = 1)),
        ("layers", with(&|r| r.layers = 33)),
        ("layers", with(&|r| r.layers = u32::MAX)),
        (
            "board",
            with(&|r| {
                r.board.pop();
            }),
        ),
        ("board", with(&|r| r.board.push(3))),
        ("board", with(&|r| r.board.clear())),
        ("board", with(&|r| r.board[0] = 4)),
        ("board", with(&|r| r.board[12] = 7)),
        ("board", with(&|r| r.board[20] = 0)), // (4,0) is off the hexagon
        ("board", with(&|r| r.board[15] = 1)), // (3,0) is off the hexagon
        ("move", with(&|r| r.r#move = None)),
        ("move", with(&|r| r.r#move = Some(cell(4, 0)))),
        ("move", with(&|r| r.r#move = Some(cell(0, 5)))),
        ("move", with(&|r| r.r#move = Some(cell(u32::MAX, u32::MAX)))),
        ("move", with(&|r| r.r#move = Some(cell(0, 2)))), // blocked
        ("move", with(&|r| r.r#move = Some(cell(2, 2)))), // opponent's stone
        ("player", with(&|r| r.player = 0)),
        ("player", with(&|r| r.player = 3)),
    ];
    for (field, req) in cases {
        let err = call(req.clone()).await.expect_err(field);
        assert_eq!(err.code(), Code::InvalidArgument, "{field}: {err:?}");
        assert!(
            err.message().starts_with(&format!("{field}: ")),
            "expected field {field}, got {:?} for {req:?}",
            err.message()
        );
    }
}

#[tokio::test]
async fn over_loopback_grpc() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let addr = listener.local_addr().expect("addr");
    let server = tokio::spawn(
        tonic::transport::Server::builder()
            .add_service(RulesServer::new(RulesService::default()))
            .serve_with_incoming(solver_server::server::incoming(listener)),
    );
    let mut client = RulesClient::connect(format!("http://{addr}"))
        .await
        .expect("connect");
    let a = client
        .check_havannah_win(ring_request())
        .await
        .expect("answer")
        .into_inner();
    assert_eq!(a.kinds, vec!["ring"]);
    let mut bad = ring_request();
    bad.player = 7;
    let err = client
        .check_havannah_win(bad)
        .await
        .expect_err("bad player");
    assert_eq!(err.code(), Code::InvalidArgument);
    assert!(err.message().starts_with("player: "), "{}", err.message());
    server.abort();
}
