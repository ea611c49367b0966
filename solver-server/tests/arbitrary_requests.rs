//! Arbitrary requests, well-formed and not, sent straight to the services (no network):
//! every answer is a response or an error of the kinds the RPC documents (never `INTERNAL`
//! or `UNAVAILABLE`, which mean a bug here: the store in memory does not fail), an
//! `INVALID_ARGUMENT` names a field of its request, nothing panics, and the coordinator
//! reopened on its store after any sequence of calls holds the same problems.

use std::sync::Arc;
use std::time::Duration;

use proptest::prelude::*;
use proptest::sample::Index;
use solver_core::games::havannah::{Cell as HavCell, Geometry, Layers};
use solver_core::games::seven::{Cols, Position, Side};
use solver_proto::convert::seven::{pack, unpack};
use solver_proto::v1::rules_server::Rules;
use solver_proto::v1::{
    self, CheckHavannahWinRequest, CheckHexWinRequest, CheckRenjuRequest, HavannahCell, HexBoard,
    RenjuForbiddenMapRequest, RenjuPoint, SevenEdgesRequest, SevenPosition, SevenPotentialRequest,
    SolveHexRequest,
};
use solver_server::coordinator::{Coordinator, CoordinatorConfig};
use solver_server::error::Error;
use solver_server::rules::RulesService;
use solver_server::store::MemStore;
use tonic::{Code, Request, Status};

/// Characters the boards' parsers accept, the other games' and some they all refuse.
const CHARS: &[char] = &[
    '.', '.', '.', 'M', 'B', 'X', 'O', 'W', 'm', 'x', ' ', '1', 'é', '●', '\0', '\n',
];

/// A row of `len` characters of `alphabet`.
fn row(alphabet: &'static [char], len: usize) -> impl Strategy<Value = String> {
    prop::collection::vec(prop::sample::select(alphabet), len)
        .prop_map(|cs| cs.into_iter().collect())
}

/// Rows of a board: mostly `rows` rows of `len` characters of `alphabet`; now and then one row
/// of any characters of [`CHARS`] and length, or another count of rows or of characters.
fn rows(alphabet: &'static [char], rows: usize, len: usize) -> BoxedStrategy<Vec<String>> {
    let any_row = prop::collection::vec(prop::sample::select(CHARS), 0..len + 3)
        .prop_map(|cs| cs.into_iter().collect::<String>());
    prop_oneof![
        10 => prop::collection::vec(row(alphabet, len), rows),
        1 => (prop::collection::vec(row(alphabet, len), rows), any::<Index>(), any_row).prop_map(
            |(mut rows, i, bad)| {
                if !rows.is_empty() {
                    let i = i.index(rows.len());
                    rows[i] = bad;
                }
                rows
            }
        ),
        1 => (0..rows + 3, 0..len + 3).prop_flat_map(move |(r, l)| {
            prop::collection::vec(row(alphabet, l), r)
        }),
    ]
    .boxed()
}

/// A number that is mostly in `range`, now and then 0, the largest or any.
fn near(range: std::ops::RangeInclusive<u32>) -> impl Strategy<Value = u32> {
    prop_oneof![
        20 => range,
        1 => Just(0u32),
        1 => Just(u32::MAX),
        1 => any::<u32>(),
    ]
}

/// An enum field: mostly one of its values `1..=max`, now and then 0 (unspecified) or any.
fn enum_value(max: i32) -> impl Strategy<Value = i32> {
    prop_oneof![20 => 1..=max, 1 => Just(0), 1 => any::<i32>()]
}

/// A message field: mostly present.
fn present<T: std::fmt::Debug>(s: impl Strategy<Value = T>) -> impl Strategy<Value = Option<T>> {
    prop::option::weighted(0.97, s)
}

fn seven_position() -> impl Strategy<Value = Option<SevenPosition>> {
    // Mostly a few stones, on boards of up to 12 columns.
    const SEVEN: &[char] = &[
        '.', '.', '.', '.', '.', '.', '.', '.', '.', '.', '.', '.', '.', '.', 'M', 'B',
    ];
    present(
        (
            prop_oneof![4usize..=8, 9usize..=12, 9usize..=12],
            near(4..=12),
            any::<bool>(),
            enum_value(2),
        )
            .prop_flat_map(|(width, cols, infer, to_move)| {
                rows(SEVEN, 4, width).prop_map(move |rows| SevenPosition {
                    cols: if infer {
                        0
                    } else if cols <= 12 {
                        width as u32
                    } else {
                        cols
                    },
                    rows,
                    to_move,
                })
            }),
    )
}

fn hex_board() -> impl Strategy<Value = Option<HexBoard>> {
    const HEX: &[char] = &['.', '.', '.', '.', 'B', 'W'];
    present(
        (1usize..=11, near(1..=11), any::<bool>()).prop_flat_map(|(size, n, infer)| {
            rows(HEX, size, size).prop_map(move |rows| HexBoard {
                n: if infer {
                    0
                } else if n <= 11 {
                    size as u32
                } else {
                    n
                },
                rows,
            })
        }),
    )
}

fn renju_point() -> impl Strategy<Value = Option<RenjuPoint>> {
    let point = |(row, col, name)| RenjuPoint { row, col, name };
    present(prop_oneof![
        10 => (0u32..15, 0u32..15, Just(String::new())).prop_map(point),
        10 => ("[A-O]", 1u32..=15)
            .prop_map(move |(l, n)| point((0, 0, format!("{l}{n}")))),
        1 => (any::<u32>(), any::<u32>(), "[A-Q]{0,2}[0-9]{0,3}|.{0,5}").prop_map(point),
    ])
}

fn havannah_request() -> impl Strategy<Value = CheckHavannahWinRequest> {
    (near(2..=8), enum_value(2)).prop_flat_map(|(layers, player)| {
        // The (2L - 1)^2 array: 3 off the hexagon, a stone or an empty or blocked cell on it
        // (mostly empty); now and then any values, any count of them.
        let well_formed = Layers::new(layers).ok().map(|l| {
            let g = Geometry::new(l);
            let dim = l.dim();
            let on: Vec<bool> = (0..dim * dim)
                .map(|i| g.on_board(HavCell::new(i / dim, i % dim)))
                .collect();
            prop::collection::vec(
                prop_oneof![6 => Just(0u32), 2 => 1u32..=2, 1 => Just(3u32)],
                dim * dim,
            )
            .prop_map(move |cells| {
                cells
                    .into_iter()
                    .zip(&on)
                    .map(|(v, &on)| if on { v } else { 3 })
                    .collect::<Vec<u32>>()
            })
        });
        let any_values = prop::collection::vec(
            prop_oneof![6 => 0u32..=3, 1 => any::<u32>()],
            0..=(layers.min(9) as usize * 2).pow(2),
        );
        let board = match well_formed {
            Some(board) => prop_oneof![6 => board, 1 => any_values].boxed(),
            None => any_values.boxed(),
        };
        let dim = (2 * layers.min(9)).saturating_sub(1);
        let mv = present(
            (near(0..=dim), near(0..=dim)).prop_map(|(row, col)| HavannahCell { row, col }),
        );
        (board, mv).prop_map(move |(board, r#move)| CheckHavannahWinRequest {
            layers,
            board,
            r#move,
            player: player as u32,
        })
    })
}

/// One request of the `Rules` service.
#[derive(Debug, Clone)]
enum RulesCall {
    Edges(SevenEdgesRequest),
    Potential(SevenPotentialRequest),
    Havannah(CheckHavannahWinRequest),
    Renju(CheckRenjuRequest),
    ForbiddenMap(RenjuForbiddenMapRequest),
    HexCheck(CheckHexWinRequest),
    HexSolve(SolveHexRequest),
}

fn rules_call() -> impl Strategy<Value = RulesCall> {
    const RENJU: &[char] = &['.', '.', '.', '.', '.', '.', '.', '.', '.', '.', 'X', 'O'];
    let renju_board = || rows(RENJU, 15, 15);
    prop_oneof![
        near(3..=33).prop_map(|cols| RulesCall::Edges(SevenEdgesRequest { cols })),
        seven_position()
            .prop_map(|position| RulesCall::Potential(SevenPotentialRequest { position })),
        havannah_request().prop_map(RulesCall::Havannah),
        (renju_board(), enum_value(2), renju_point()).prop_map(|(board, color, r#move)| {
            RulesCall::Renju(CheckRenjuRequest {
                board,
                color,
                r#move,
            })
        }),
        renju_board().prop_map(|board| RulesCall::ForbiddenMap(RenjuForbiddenMapRequest { board })),
        hex_board().prop_map(|board| RulesCall::HexCheck(CheckHexWinRequest { board })),
        // A search within a small budget: the node limit, or a time limit in ms (also past
        // the most allowed).
        (
            hex_board(),
            enum_value(2),
            any::<bool>(),
            0u64..=3_000,
            prop_oneof![5 => 1u64..=50, 1 => 600_001u64..=u64::MAX],
        )
            .prop_map(|(board, to_move, all_moves, max_nodes, time_limit_ms)| {
                RulesCall::HexSolve(SolveHexRequest {
                    board,
                    to_move,
                    all_moves,
                    max_nodes,
                    time_limit_ms,
                })
            }),
    ]
}

/// The request's fields, for the check that an error names one of them.
fn rules_fields(call: &RulesCall) -> &'static [&'static str] {
    match call {
        RulesCall::Edges(_) => &["cols"],
        RulesCall::Potential(_) => &["position"],
        RulesCall::Havannah(_) => &["layers", "board", "move", "player"],
        RulesCall::Renju(_) => &["board", "color", "move"],
        RulesCall::ForbiddenMap(_) => &["board"],
        RulesCall::HexCheck(_) => &["board"],
        RulesCall::HexSolve(_) => &[
            "board",
            "to_move",
            "all_moves",
            "max_nodes",
            "time_limit_ms",
        ],
    }
}

/// The answer of one call: `Ok` or the error's status.
async fn answer(svc: &RulesService, call: RulesCall) -> Result<(), Status> {
    match call {
        RulesCall::Edges(r) => svc.seven_edges(Request::new(r)).await.map(drop),
        RulesCall::Potential(r) => svc.seven_potential(Request::new(r)).await.map(drop),
        RulesCall::Havannah(r) => svc.check_havannah_win(Request::new(r)).await.map(drop),
        RulesCall::Renju(r) => svc.check_renju(Request::new(r)).await.map(drop),
        RulesCall::ForbiddenMap(r) => svc.renju_forbidden_map(Request::new(r)).await.map(drop),
        RulesCall::HexCheck(r) => svc.check_hex_win(Request::new(r)).await.map(drop),
        RulesCall::HexSolve(r) => svc.solve_hex(Request::new(r)).await.map(drop),
    }
}

/// Whether `message` ("field: problem") names one of `fields`, or a path inside one
/// (`position.rows`, `board[3]`).
fn names_a_field(message: &str, fields: &[&str]) -> bool {
    let Some((path, _)) = message.split_once(": ") else {
        return false;
    };
    let top = path.split(['.', '[']).next().unwrap_or_default();
    fields.contains(&top)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    /// Every `Rules` call answers, or refuses with `INVALID_ARGUMENT` naming a field.
    #[test]
    fn rules_answer_or_name_the_bad_field(calls in prop::collection::vec(rules_call(), 1..4)) {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("runtime");
        let svc = RulesService::new(1);
        for call in calls {
            let fields = rules_fields(&call);
            if let Err(status) = rt.block_on(answer(&svc, call.clone())) {
                prop_assert_eq!(status.code(), Code::InvalidArgument, "{:?}: {:?}", call, status);
                prop_assert!(
                    names_a_field(status.message(), fields),
                    "{:?}: {:?}", call, status.message()
                );
            }
        }
    }
}

/// A string where the coordinator wants a name or an id: one it knows, or something else.
#[derive(Debug, Clone)]
enum Text {
    Known(Index),
    Other(String),
}

fn text() -> impl Strategy<Value = Text> {
    prop_oneof![
        12 => any::<Index>().prop_map(Text::Known),
        1 => prop_oneof![
            Just(String::new()),
            Just("0".to_string()),
            Just("18446744073709551616".to_string()),
            "[0-9]{1,4}",
            ".{0,12}",
            "[a-z]{200,300}",
        ]
        .prop_map(Text::Other),
    ]
}

/// A packed position in a report: derived from the job's leaf (stones added to it, which
/// makes a successor; or none, which does not), or any bytes.
#[derive(Debug, Clone)]
enum Packed {
    Leaf {
        maker: u128,
        breaker: u128,
        flip: bool,
    },
    Bytes(Vec<u8>),
}

fn packed() -> impl Strategy<Value = Packed> {
    prop_oneof![
        20 => (any::<u128>(), any::<u128>(), any::<bool>()).prop_map(|(m, b, flip)| {
            // Mostly a few stones.
            let few = |x: u128| x & x.rotate_left(17) & x.rotate_left(41);
            Packed::Leaf { maker: few(m), breaker: few(b), flip }
        }),
        1 => prop::collection::vec(any::<u8>(), 0..40).prop_map(Packed::Bytes),
    ]
}

/// A proof or disproof number: small, 0 (solved), or at the edges.
fn number() -> impl Strategy<Value = u64> {
    prop_oneof![20 => 1u64..=50, 3 => Just(0u64), 1 => Just(u64::MAX), 1 => any::<u64>()]
}

/// One call to the coordinator.
#[derive(Debug, Clone)]
enum Call {
    Submit {
        request_id: Text,
        position: Option<SevenPosition>,
        disabled: Vec<String>,
        budget: u64,
    },
    Get(Text),
    Cancel(Text),
    Result(Text),
    List {
        page_size: u32,
        token: Text,
    },
    Lease {
        worker: Text,
        max_jobs: u32,
        slot: u32,
        request_id: Text,
    },
    Heartbeat {
        worker: Text,
        jobs: Vec<Text>,
    },
    Report {
        worker: Text,
        job: Text,
        maker_wins: Option<bool>,
        children: Vec<(Packed, u64, u64)>,
        solved: Vec<(Packed, bool)>,
        nodes: u64,
        error: String,
    },
    Abandon {
        worker: Text,
        jobs: Vec<Text>,
    },
    /// Time passes, in ms; past a lease's length the leases expire.
    Expire(u64),
    /// The searches of the winning moves of the solved problems waiting for them.
    NameWinningMoves,
    /// The coordinator reopened on its store (a restart).
    Reopen,
}

fn call() -> impl Strategy<Value = Call> {
    let technique = prop_oneof![
        Just("forced-move".to_string()),
        Just("mirror-tt".to_string()),
        Just("heuristics".to_string()),
        ".{0,8}",
    ];
    prop_oneof![
        3 => (
            text(),
            seven_position(),
            prop_oneof![4 => Just(vec![]), 1 => prop::collection::vec(technique, 0..3)],
            prop_oneof![
                10 => Just(0u64),
                // Small: a search of winning moves takes four budgets per search.
                10 => 1_000u64..=4_000,
                1 => Just(999u64),
                1 => Just(100_000_001u64),
                1 => any::<u64>(),
            ],
        )
            .prop_map(|(request_id, position, disabled, budget)| Call::Submit {
                request_id,
                position,
                disabled,
                budget,
            }),
        1 => text().prop_map(Call::Get),
        1 => text().prop_map(Call::Cancel),
        1 => text().prop_map(Call::Result),
        1 => (near(0..=3), text()).prop_map(|(page_size, token)| Call::List { page_size, token }),
        5 => (text(), near(1..=4), near(0..=3), text()).prop_map(
            |(worker, max_jobs, slot, request_id)| Call::Lease {
                worker,
                max_jobs,
                slot,
                request_id,
            }
        ),
        1 => (text(), prop::collection::vec(text(), 0..3))
            .prop_map(|(worker, jobs)| Call::Heartbeat { worker, jobs }),
        5 => (
            text(),
            text(),
            prop::option::weighted(0.1, any::<bool>()),
            prop_oneof![
                10 => prop::collection::vec((packed(), number(), number()), 1..5),
                1 => Just(vec![]),
            ],
            prop::collection::vec((packed(), any::<bool>()), 0..3),
            prop_oneof![20 => 0u64..=1_000_000, 1 => any::<u64>()],
            prop_oneof![
                20 => Just(String::new()),
                1 => ".{0,20}",
                1 => Just("e".repeat(5_000)),
            ],
        )
            .prop_map(|(worker, job, maker_wins, children, solved, nodes, error)| {
                Call::Report {
                    worker,
                    job,
                    maker_wins,
                    children,
                    solved,
                    nodes,
                    error,
                }
            }),
        1 => (text(), prop::collection::vec(text(), 0..3))
            .prop_map(|(worker, jobs)| Call::Abandon { worker, jobs }),
        1 => prop_oneof![Just(0u64), 1u64..=120_000].prop_map(Call::Expire),
        1 => Just(Call::NameWinningMoves),
        1 => Just(Call::Reopen),
    ]
}

/// What the calls so far handed out, for [`Text::Known`] to pick from.
#[derive(Default)]
struct Known {
    problems: Vec<String>,
    workers: Vec<String>,
    request_ids: Vec<String>,
    page_tokens: Vec<String>,
    /// Jobs leased: id, leaf (packed), worker.
    jobs: Vec<(String, Vec<u8>, String)>,
}

impl Known {
    fn pick(list: &[String], t: &Text, fallback: &str) -> String {
        match t {
            Text::Known(i) if !list.is_empty() => list[i.index(list.len())].clone(),
            Text::Known(_) => fallback.to_string(),
            Text::Other(s) => s.clone(),
        }
    }

    fn problem(&self, t: &Text) -> String {
        Self::pick(&self.problems, t, "1")
    }

    fn worker(&self, t: &Text) -> String {
        Self::pick(&self.workers, t, "w")
    }

    fn job(&self, t: &Text) -> String {
        let ids: Vec<String> = self.jobs.iter().map(|(id, _, _)| id.clone()).collect();
        Self::pick(&ids, t, "1")
    }
}

/// The bytes of `p` for a report on the leaf `leaf` (packed): stones added on its empty cells
/// (Maker's first where both draw one; one of Maker's where neither draws any), the side to
/// move flipped or not.
fn packed_bytes(p: &Packed, leaf: &[u8]) -> Vec<u8> {
    match p {
        Packed::Bytes(b) => b.clone(),
        Packed::Leaf {
            maker,
            breaker,
            flip,
        } => {
            let Ok(pos) = unpack(leaf, "leaf") else {
                return leaf.to_vec();
            };
            let empty = pos.empty_cells();
            let mut maker = maker & empty;
            let breaker = breaker & empty & !maker;
            if maker | breaker == 0 {
                // At least one stone: a successor.
                maker = empty & empty.wrapping_neg();
            }
            let side = if *flip {
                pos.to_move().other()
            } else {
                pos.to_move()
            };
            let next = Position::from_masks(
                pos.cols(),
                pos.maker() | maker,
                pos.breaker() | breaker,
                side,
            )
            .expect("stones on empty cells of the board");
            pack(&next)
        }
    }
}

/// Whether `e` is an error `call`'s RPC documents (proto/README.md), an `INVALID_ARGUMENT`
/// naming one of the request's fields.
fn documented(call: &Call, e: &Error) -> bool {
    let (fields, others): (&[&str], fn(&Error) -> bool) = match call {
        Call::Submit { .. } => (&["request_id", "spec"], |e| {
            matches!(e, Error::AlreadyExists(_))
        }),
        Call::Get(_) | Call::Cancel(_) => (&["problem_id"], |e| matches!(e, Error::NotFound(_))),
        Call::Result(_) => (&["problem_id"], |e| {
            matches!(e, Error::NotFound(_) | Error::FailedPrecondition(_))
        }),
        Call::List { .. } => (&["page_size", "page_token"], |_| false),
        Call::Lease { .. } => (&["worker", "max_jobs", "slot", "request_id"], |_| false),
        Call::Heartbeat { .. } | Call::Abandon { .. } => (&["worker", "job_ids"], |e| {
            matches!(e, Error::FailedPrecondition(_))
        }),
        Call::Report { .. } => (
            &[
                "worker",
                "job_id",
                "maker_wins",
                "children",
                "solved",
                "nodes",
                "error",
            ],
            |e| matches!(e, Error::NotFound(_) | Error::FailedPrecondition(_)),
        ),
        Call::Expire(_) | Call::NameWinningMoves | Call::Reopen => (&[], |_| false),
    };
    match e {
        Error::InvalidArgument(_) => names_a_field(&e.to_string(), fields),
        e => others(e),
    }
}

/// Makes `call` to `c`, remembering what it handed out; the error, if any.
fn make(
    c: &Coordinator,
    known: &mut Known,
    now: &mut tokio::time::Instant,
    call: &Call,
) -> Option<Error> {
    match call {
        Call::Submit {
            request_id,
            position,
            disabled,
            budget,
        } => {
            let request_id = Known::pick(&known.request_ids, request_id, "");
            let req = v1::SubmitRequest {
                request_id: request_id.clone(),
                spec: Some(v1::ProblemSpec {
                    position: position.clone(),
                    disabled_techniques: disabled.clone(),
                    job_node_budget: *budget,
                }),
            };
            match c.submit(req) {
                Ok(r) => {
                    known.problems.push(r.problem_id);
                    known.request_ids.push(request_id);
                    None
                }
                Err(e) => Some(e),
            }
        }
        Call::Get(id) => c.problem(&known.problem(id)).err(),
        Call::Cancel(id) => c.cancel(&known.problem(id)).err(),
        Call::Result(id) => c.result(&known.problem(id)).err(),
        Call::List { page_size, token } => {
            let req = v1::ListProblemsRequest {
                page_size: *page_size,
                page_token: Known::pick(&known.page_tokens, token, ""),
            };
            match c.list(&req) {
                Ok(r) => {
                    known.page_tokens.push(r.next_page_token);
                    None
                }
                Err(e) => Some(e),
            }
        }
        Call::Lease {
            worker,
            max_jobs,
            slot,
            request_id,
        } => {
            let worker = known.worker(worker);
            let req = v1::LeaseRequest {
                worker: worker.clone(),
                max_jobs: *max_jobs,
                slot: *slot,
                request_id: Known::pick(&known.request_ids, request_id, ""),
            };
            match c.lease(req) {
                Ok(r) => {
                    known.workers.push(worker.clone());
                    for j in r.jobs {
                        known.jobs.push((j.job_id, j.position, worker.clone()));
                    }
                    None
                }
                Err(e) => Some(e),
            }
        }
        Call::Heartbeat { worker, jobs } => c
            .heartbeat(v1::HeartbeatRequest {
                worker: known.worker(worker),
                job_ids: jobs.iter().map(|j| known.job(j)).collect(),
            })
            .err(),
        Call::Abandon { worker, jobs } => c
            .abandon(v1::AbandonRequest {
                worker: known.worker(worker),
                job_ids: jobs.iter().map(|j| known.job(j)).collect(),
            })
            .err(),
        Call::Report {
            worker,
            job,
            maker_wins,
            children,
            solved,
            nodes,
            error,
        } => {
            // The job's own worker and leaf, where the job is one handed out.
            let (job_id, leaf, owner) = match job {
                Text::Known(i) if !known.jobs.is_empty() => {
                    known.jobs[i.index(known.jobs.len())].clone()
                }
                // No job yet: the leaf of a job that could come.
                _ => (
                    known.job(job),
                    pack(&Position::empty(
                        Cols::try_from(9).expect("a width"),
                        Side::Maker,
                    )),
                    known.worker(worker),
                ),
            };
            let worker = match worker {
                Text::Known(_) => owner,
                Text::Other(s) => s.clone(),
            };
            let req = v1::ReportRequest {
                worker,
                job_id,
                maker_wins: *maker_wins,
                children: children
                    .iter()
                    .map(|(p, pn, dn)| v1::ChildEstimate {
                        position: packed_bytes(p, &leaf),
                        pn: *pn,
                        dn: *dn,
                    })
                    .collect(),
                solved: solved
                    .iter()
                    .map(|(p, maker_wins)| v1::SolvedPosition {
                        position: packed_bytes(p, &leaf),
                        maker_wins: *maker_wins,
                    })
                    .collect(),
                nodes: *nodes,
                error: error.clone(),
                ..Default::default()
            };
            c.report(req).err()
        }
        Call::Expire(ms) => {
            *now += Duration::from_millis(*ms);
            c.expire(*now).err()
        }
        Call::NameWinningMoves => c.name_winning_moves().err(),
        Call::Reopen => unreachable!("the test reopens the coordinator itself"),
    }
}

/// What a restart must keep of a problem.
fn kept(p: &v1::Problem) -> impl PartialEq + std::fmt::Debug + use<> {
    let progress = p.progress.unwrap_or_default();
    (
        p.problem_id.clone(),
        p.spec.clone(),
        p.status,
        p.result
            .as_ref()
            .map(|r| (r.winner, r.winning_moves.clone())),
        (
            progress.root_pn,
            progress.root_dn,
            progress.dag_nodes,
            progress.dag_solved,
        ),
        (progress.jobs_done, progress.worker_nodes),
        p.submitted_unix_ms,
    )
}

fn all_problems(c: &Coordinator) -> Vec<v1::Problem> {
    c.list(&v1::ListProblemsRequest {
        page_size: 1_000,
        page_token: String::new(),
    })
    .expect("list")
    .problems
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    /// Any sequence of calls, well-formed or not, from workers that may lie, with restarts:
    /// every error is one its RPC documents, an `INVALID_ARGUMENT` names a field, and the
    /// coordinator reopened on its store holds the problems as they were.
    #[test]
    fn the_coordinator_survives_arbitrary_calls(calls in prop::collection::vec(call(), 1..60)) {
        let store = Arc::new(MemStore::new());
        let open = || {
            let config = CoordinatorConfig {
                lease: Duration::from_secs(60),
                default_job_budget: 1_000,
                moves_search_bytes: 64 << 20,
                ..CoordinatorConfig::default()
            };
            Coordinator::open(store.clone(), config).expect("open")
        };
        let mut c = open();
        let mut known = Known::default();
        let mut now = tokio::time::Instant::now();
        let reopened = |c: Coordinator| -> Result<Coordinator, TestCaseError> {
            let before: Vec<_> = all_problems(&c).iter().map(kept).collect();
            drop(c);
            let c = open();
            let after: Vec<_> = all_problems(&c).iter().map(kept).collect();
            prop_assert_eq!(before, after);
            Ok(c)
        };
        for call in &calls {
            if let Call::Reopen = call {
                c = reopened(c)?;
                continue;
            }
            if let Some(e) = make(&c, &mut known, &mut now, call) {
                prop_assert!(documented(call, &e), "{:?}: {}", call, e);
            }
        }
        reopened(c)?;
    }
}

/// [`packed_bytes`] makes successors of a leaf: more stones, the same width.
#[test]
fn packed_leaf_children_are_successors() {
    let leaf = Position::empty(Cols::try_from(9).expect("width"), Side::Maker);
    let bytes = packed_bytes(
        &Packed::Leaf {
            maker: 0b1,
            breaker: 0b110,
            flip: true,
        },
        &pack(&leaf),
    );
    let child = unpack(&bytes, "child").expect("a position");
    assert_eq!(child.cols(), leaf.cols());
    assert_eq!(child.key().stones(), 3);
    assert_eq!(child.to_move(), Side::Breaker);
}
