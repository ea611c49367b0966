//! In-process tests of [`solver_server::server::run`]: a real server on `127.0.0.1:0`, real
//! gRPC clients, and shutdown through the future.

use std::time::Duration;

mod common;
use common::{channel, start, start_with};
use solver_proto::v1::rules_client::RulesClient;
use solver_proto::v1::{SevenEdgesRequest, SevenPosition, SevenPotentialRequest, Side};
use solver_server::config::Config;
use solver_server::server::{RunError, run};
use solver_server::store::{RocksStore, SCHEMA_VERSION, schema_version};
use tokio::net::TcpListener;
use tokio_stream::StreamExt;
use tonic::Code;
use tonic::transport::{Channel, Endpoint};
use tonic_health::pb::HealthCheckRequest;
use tonic_health::pb::health_check_response::ServingStatus;
use tonic_health::pb::health_client::HealthClient;
use tonic_reflection::pb::v1::ServerReflectionRequest;
use tonic_reflection::pb::v1::server_reflection_client::ServerReflectionClient;
use tonic_reflection::pb::v1::server_reflection_request::MessageRequest;
use tonic_reflection::pb::v1::server_reflection_response::MessageResponse;

async fn health_status(channel: Channel, service: &str) -> ServingStatus {
    let resp = HealthClient::new(channel)
        .check(HealthCheckRequest {
            service: service.to_owned(),
        })
        .await
        .expect("health check");
    ServingStatus::try_from(resp.into_inner().status).expect("known status")
}

#[tokio::test]
async fn serves_health_rules_and_reflection_then_stops_cleanly() {
    let server = start().await;
    let ch = channel(server.addr).await;

    // Health: the server as a whole and the Rules service.
    assert_eq!(health_status(ch.clone(), "").await, ServingStatus::Serving);
    assert_eq!(
        health_status(ch.clone(), "solver.v1.Rules").await,
        ServingStatus::Serving
    );

    // Rules.SevenEdges: 32 edges on 4 x 8; width 3 is out of range.
    let mut rules = RulesClient::new(ch.clone());
    let edges = rules
        .seven_edges(SevenEdgesRequest { cols: 8 })
        .await
        .expect("SevenEdges cols=8")
        .into_inner()
        .edges;
    assert_eq!(edges.len(), 32);
    let err = rules
        .seven_edges(SevenEdgesRequest { cols: 3 })
        .await
        .expect_err("cols=3 is out of range");
    assert_eq!(err.code(), Code::InvalidArgument, "{err:?}");
    assert!(err.message().contains("cols"), "{err:?}");

    // Rules.SevenPotential: the empty 4 x 8 board has 2 2-lines, 4 3-lines and 26 4-lines
    // (edges.jsonl), pot 21/4; a missing position, an unknown cell character and a side left
    // unspecified name their fields.
    let position = |rows: [&str; 4], to_move: Side| SevenPotentialRequest {
        position: Some(SevenPosition {
            cols: 0,
            rows: rows.iter().map(|r| r.to_string()).collect(),
            to_move: to_move as i32,
        }),
    };
    let empty = ["........"; 4];
    let p = rules
        .seven_potential(position(empty, Side::Maker))
        .await
        .expect("SevenPotential of the empty 4 x 8 board")
        .into_inner();
    assert_eq!(p.lines, vec![0, 0, 2, 4, 26, 0, 0, 0]);
    assert_eq!((p.pot.as_str(), p.phi.as_str()), ("21/4", "21/8"));
    assert!(!p.maker_won && !p.breaker_certificate);
    for (request, field) in [
        (SevenPotentialRequest { position: None }, "position"),
        (
            position(
                ["X.......", "........", "........", "........"],
                Side::Maker,
            ),
            "position.rows",
        ),
        (position(empty, Side::Unspecified), "position.to_move"),
    ] {
        let err = rules.seven_potential(request).await.expect_err(field);
        assert_eq!(err.code(), Code::InvalidArgument, "{err:?}");
        assert!(err.message().starts_with(&format!("{field}: ")), "{err:?}");
    }

    // Reflection v1 lists every service.
    let names = list_services(ch.clone()).await;
    for want in [
        "solver.v1.Rules",
        "grpc.health.v1.Health",
        "grpc.reflection.v1.ServerReflection",
    ] {
        assert!(names.iter().any(|n| n == want), "{want} not in {names:?}");
    }

    // Shut down through the future; the store is closed, so the directory opens again.
    drop(rules);
    drop(ch);
    server.stop.send(()).expect("server still running");
    tokio::time::timeout(Duration::from_secs(30), server.task)
        .await
        .expect("shutdown within 30 s")
        .expect("server task did not panic")
        .expect("clean shutdown");
    let store = RocksStore::open(&server.data_dir).expect("data directory reopens");
    assert_eq!(schema_version(&store).expect("read"), Some(SCHEMA_VERSION));
}

#[tokio::test]
async fn health_turns_not_serving_while_draining() {
    let server = start().await;
    let ch = channel(server.addr).await;
    let mut watch = HealthClient::new(ch.clone())
        .watch(HealthCheckRequest {
            service: String::new(),
        })
        .await
        .expect("watch")
        .into_inner();
    let first = watch.next().await.expect("a status").expect("ok");
    assert_eq!(first.status, ServingStatus::Serving as i32);

    server.stop.send(()).expect("server still running");
    let next = tokio::time::timeout(Duration::from_secs(10), watch.next())
        .await
        .expect("a status change within 10 s")
        .expect("a status")
        .expect("ok");
    assert_eq!(next.status, ServingStatus::NotServing as i32);

    // A draining server takes no new call: not on a new connection (the listener is closed,
    // once the drain has begun: NOT_SERVING comes just before), nor then on the open one
    // (HTTP/2 GOAWAY: tonic's client fails the call, with CANCELLED "connection closed").
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    loop {
        let connect = Endpoint::from_shared(format!("http://{}", server.addr))
            .expect("valid URI")
            .connect_timeout(Duration::from_secs(10))
            .connect()
            .await;
        if connect.is_err() {
            break;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "new connections still accepted 10 s into the drain"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let call = RulesClient::new(ch.clone())
        .seven_edges(SevenEdgesRequest { cols: 8 })
        .await;
    assert!(call.is_err(), "a new call while draining: {call:?}");

    // The open watch stream holds the drain; closing it lets the server finish.
    drop(watch);
    drop(ch);
    tokio::time::timeout(Duration::from_secs(30), server.task)
        .await
        .expect("shutdown within 30 s")
        .expect("server task did not panic")
        .expect("clean shutdown");
}

#[tokio::test]
async fn drain_is_bounded_by_the_drain_timeout() {
    let server = start_with(|c| c.drain_timeout_secs = 1).await;
    let ch = channel(server.addr).await;
    let mut watch = HealthClient::new(ch.clone())
        .watch(HealthCheckRequest {
            service: String::new(),
        })
        .await
        .expect("watch")
        .into_inner();
    watch.next().await.expect("a status").expect("ok");

    // The watch stream stays open, so only the timeout can end the drain.
    server.stop.send(()).expect("server still running");
    tokio::time::timeout(Duration::from_secs(20), server.task)
        .await
        .expect("shutdown within 20 s despite the open stream")
        .expect("server task did not panic")
        .expect("clean shutdown");
    drop(watch);
    RocksStore::open(&server.data_dir).expect("data directory reopens");
}

/// A problem's watch stream open when the server drains ends at once with `UNAVAILABLE`
/// (a client told the problem still runs would take the end for a verdict), and does not hold
/// the drain up until its timeout (here 60 s).
#[tokio::test]
async fn a_problem_watch_ends_unavailable_when_the_server_drains() {
    use solver_proto::v1::{self, solver_client::SolverClient};
    let server = start_with(|c| c.drain_timeout_secs = 60).await;
    let mut client = SolverClient::new(channel(server.addr).await);
    let position = v1::SevenPosition {
        cols: 9,
        rows: vec![".".repeat(9); 4],
        to_move: v1::Side::Maker as i32,
    };
    let id = client
        .submit(v1::SubmitRequest {
            request_id: "watched".into(),
            spec: Some(v1::ProblemSpec {
                position: Some(position),
                ..Default::default()
            }),
        })
        .await
        .expect("submit")
        .into_inner()
        .problem_id;
    let mut watch = client
        .watch_problem(v1::GetProblemRequest { problem_id: id })
        .await
        .expect("watch")
        .into_inner();
    let first = watch.next().await.expect("a state").expect("ok");
    assert_eq!(first.status, v1::ProblemStatus::Running as i32, "no worker");

    server.stop.send(()).expect("server still running");
    let end = tokio::time::timeout(Duration::from_secs(10), watch.next())
        .await
        .expect("the watch ends within 10 s");
    let status = end
        .expect("an error, not the end of the stream")
        .expect_err("an error");
    assert_eq!(status.code(), Code::Unavailable, "{status:?}");
    assert!(status.message().contains("shutting down"), "{status:?}");
    drop(watch);
    drop(client);
    tokio::time::timeout(Duration::from_secs(20), server.task)
        .await
        .expect("shutdown within 20 s, well before the drain timeout")
        .expect("server task did not panic")
        .expect("clean shutdown");
}

#[tokio::test]
async fn a_data_directory_in_use_is_an_error() {
    let dir = tempfile::tempdir().expect("tempdir");
    let _held = RocksStore::open(dir.path()).expect("open");
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let config = Config::new(listener.local_addr().expect("addr"), dir.path());
    let result = run(config, listener, std::future::pending()).await;
    assert!(matches!(result, Err(RunError::Store(_))), "{result:?}");
}

#[tokio::test]
async fn an_unreadable_tls_file_names_its_flag() {
    let dir = tempfile::tempdir().expect("tempdir");
    let pem = dir.path().join("present.pem");
    std::fs::write(&pem, "not read far").expect("write");
    for (cert, key, flag) in [
        ("absent.pem", "present.pem", "--tls-cert"),
        ("present.pem", "absent.pem", "--tls-key"),
    ] {
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let mut config = Config::new(
            listener.local_addr().expect("addr"),
            dir.path().join("data"),
        );
        config.tls_cert = Some(dir.path().join(cert));
        config.tls_key = Some(dir.path().join(key));
        // A server that starts after all stops at once, so a regression fails and never hangs.
        let result = run(config, listener, async {}).await;
        let message = match result {
            Err(e @ RunError::Tls { .. }) => e.to_string(),
            other => panic!("{flag}: {other:?}"),
        };
        assert!(
            message.starts_with(flag) && message.contains("absent.pem"),
            "{message}"
        );
    }
}

async fn list_services(ch: Channel) -> Vec<String> {
    let req = ServerReflectionRequest {
        host: String::new(),
        message_request: Some(MessageRequest::ListServices(String::new())),
    };
    let mut stream = ServerReflectionClient::new(ch)
        .server_reflection_info(tokio_stream::iter([req]))
        .await
        .expect("reflection")
        .into_inner();
    let resp = stream.next().await.expect("one response").expect("ok");
    match resp.message_response {
        Some(MessageResponse::ListServicesResponse(list)) => {
            list.service.into_iter().map(|s| s.name).collect()
        }
        other => panic!("unexpected reflection answer {other:?}"),
    }
}
