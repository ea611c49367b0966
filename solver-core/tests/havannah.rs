//! Havannah win detection against the shared test data (`shared/testdata/havannah/`), simple
//! flood-fill / breadth-first references, and the 12 symmetries of the hexagon.

mod common;

use std::collections::{BTreeMap, HashSet, VecDeque};

use proptest::prelude::*;
use serde_json::Value;
use solver_core::games::havannah::{
    Analysis, Board, Cell, Geometry, Kind, KindSet, Layers, Player, Point, Side, Tracker, analyze,
    check_win, play_game, random_positions,
};

fn records(file: &str) -> Vec<Value> {
    common::testdata("havannah", file)
}

fn layers_of(r: &Value) -> Layers {
    Layers::new(r["layers"].as_u64().expect("layers") as u32).expect("valid layers")
}

fn board_of(r: &Value) -> Board {
    let rows: Vec<Vec<u32>> = serde_json::from_value(r["board"].clone()).expect("board rows");
    Board::from_rows(layers_of(r), &rows).expect("valid board")
}

fn cell_of(v: &Value) -> Cell {
    Cell::new(
        v[0].as_u64().expect("row") as usize,
        v[1].as_u64().expect("col") as usize,
    )
}

fn player_of(v: &Value) -> Player {
    Player::new(v.as_u64().expect("player") as u32).expect("1 or 2")
}

fn kinds_of(v: &Value) -> Vec<Kind> {
    v.as_array()
        .expect("kinds array")
        .iter()
        .map(|k| Kind::from_name(k.as_str().expect("kind name")).expect("known kind"))
        .collect()
}

fn owns(board: &Board, c: Cell, p: Player) -> bool {
    board.get(c) == Some(Point::Stone(p))
}

fn adjacent(g: &Geometry, a: Cell, b: Cell) -> bool {
    g.neighbours(a).contains(&b)
}

// ---------------------------------------------------------------- references

/// The spec's obviously correct ring test: some on-board non-player cell cannot reach the
/// border through non-player cells, or some own stone has six own on-board neighbours.
fn reference_ring(board: &Board, p: Player) -> bool {
    let g = board.geometry();
    let free = |c: Cell| !owns(board, c, p);
    let mut seen: HashSet<Cell> = HashSet::new();
    let mut queue: VecDeque<Cell> = g
        .cells()
        .filter(|&c| free(c) && g.neighbours(c).len() < 6)
        .collect();
    seen.extend(queue.iter().copied());
    while let Some(c) = queue.pop_front() {
        for n in g.neighbours(c) {
            if free(n) && seen.insert(n) {
                queue.push_back(n);
            }
        }
    }
    g.cells().any(|c| free(c) && !seen.contains(&c))
        || g.cells().any(|c| {
            owns(board, c, p)
                && g.neighbours(c).len() == 6
                && g.neighbours(c).iter().all(|&n| owns(board, n, p))
        })
}

/// The groups of `p` by breadth-first search.
fn groups(board: &Board, p: Player) -> Vec<Vec<Cell>> {
    let g = board.geometry();
    let mut seen = HashSet::new();
    let mut out = Vec::new();
    for start in g.cells() {
        if !owns(board, start, p) || !seen.insert(start) {
            continue;
        }
        let mut group = vec![start];
        let mut k = 0;
        while k < group.len() {
            for n in g.neighbours(group[k]) {
                if owns(board, n, p) && seen.insert(n) {
                    group.push(n);
                }
            }
            k += 1;
        }
        out.push(group);
    }
    out
}

fn reference_kinds(board: &Board, p: Player) -> KindSet {
    let g = board.geometry();
    let mut out = KindSet::default();
    for group in groups(board, p) {
        let corners = group.iter().filter(|&&c| g.corner_of(c).is_some()).count();
        let sides: HashSet<Side> = group.iter().filter_map(|&c| g.side_of(c)).collect();
        if corners >= 2 {
            out.insert(Kind::Bridge);
        }
        if sides.len() >= 3 {
            out.insert(Kind::Fork);
        }
    }
    if reference_ring(board, p) {
        out.insert(Kind::Ring);
    }
    out
}

/// Every witness is a real structure of `p` on `board`, and one is given per kind.
fn assert_witnesses(board: &Board, p: Player, a: &Analysis, ctx: &str) {
    let g = board.geometry();
    assert_eq!(a.ring.is_some(), a.kinds.contains(Kind::Ring), "{ctx}");
    assert_eq!(a.bridge.is_some(), a.kinds.contains(Kind::Bridge), "{ctx}");
    assert_eq!(a.fork.is_some(), a.kinds.contains(Kind::Fork), "{ctx}");
    if let Some(ring) = &a.ring {
        let set: HashSet<Cell> = ring.iter().copied().collect();
        assert_eq!(set.len(), ring.len(), "{ctx}: ring repeats a cell {ring:?}");
        assert!(ring.len() >= 6, "{ctx}: ring too short {ring:?}");
        for (k, &c) in ring.iter().enumerate() {
            assert!(owns(board, c, p), "{ctx}: ring cell {c} not owned");
            let next = ring[(k + 1) % ring.len()];
            assert!(
                adjacent(&g, c, next),
                "{ctx}: ring {c} -> {next} not adjacent"
            );
        }
        // With only the ring's cells as walls, some cell is cut off from the border.
        let walls = board_with_only(board, &set, p);
        assert!(
            reference_ring(&walls, p),
            "{ctx}: ring encloses nothing {ring:?}"
        );
    }
    if let Some(b) = &a.bridge {
        assert_ne!(b.corners[0], b.corners[1], "{ctx}");
        assert_eq!(b.chain.first(), Some(&b.corners[0]), "{ctx}");
        assert_eq!(b.chain.last(), Some(&b.corners[1]), "{ctx}");
        for c in b.corners {
            assert!(g.corner_of(c).is_some(), "{ctx}: {c} is not a corner");
        }
        for w in b.chain.windows(2) {
            assert!(adjacent(&g, w[0], w[1]), "{ctx}: chain gap {w:?}");
        }
        assert!(b.chain.iter().all(|&c| owns(board, c, p)), "{ctx}");
    }
    if let Some(f) = &a.fork {
        let sides: HashSet<Side> = f.sides.iter().copied().collect();
        assert_eq!(sides.len(), 3, "{ctx}");
        for s in f.sides {
            assert!(
                f.cells.iter().any(|&c| g.side_of(c) == Some(s)),
                "{ctx}: {s}"
            );
        }
        assert!(f.cells.iter().all(|&c| owns(board, c, p)), "{ctx}");
        let set: HashSet<Cell> = f.cells.iter().copied().collect();
        let only = board_with_only(board, &set, p);
        assert_eq!(groups(&only, p).len(), 1, "{ctx}: fork cells not connected");
    }
}

/// `board` with `p`'s stones reduced to `keep` (the others emptied).
fn board_with_only(board: &Board, keep: &HashSet<Cell>, p: Player) -> Board {
    let g = board.geometry();
    let mut out = Board::empty(g.layers);
    for c in g.cells() {
        if keep.contains(&c) {
            out.place(c, p).expect("empty cell");
        }
    }
    out
}

// ---------------------------------------------------------------- test data

#[test]
fn games_replay() {
    for r in records("games.jsonl") {
        let id = r["id"].as_str().expect("id");
        let layers = layers_of(&r);
        let moves: Vec<Cell> = r["moves"]
            .as_array()
            .expect("moves")
            .iter()
            .map(cell_of)
            .collect();
        let mut player = player_of(&r["first_player"]);
        let mut board = Board::empty(layers);
        let mut tracker = Tracker::new(&board);
        let expected = kinds_of(&r["result"]["kinds"]);
        for (k, &mv) in moves.iter().enumerate() {
            let from_tracker = tracker.play(mv, player).expect("legal move");
            let answer = check_win(&board, mv, player).expect("legal move");
            board.place(mv, player).expect("legal move");
            assert_eq!(answer.kinds, from_tracker, "{id} ply {}", k + 1);
            assert_eq!(answer.kinds, reference_kinds(&board, player), "{id}");
            assert_witnesses(&board, player, &answer, id);
            if k + 1 < moves.len() {
                assert!(!answer.win(), "{id}: {:?} at ply {}", answer.kinds(), k + 1);
            } else {
                assert_eq!(answer.kinds(), expected, "{id}");
                let seed = r["result"]["seed_kind"].as_str();
                assert_eq!(answer.kinds.seed_kind().map(Kind::name), seed, "{id}");
                let winner = r["result"]["winner"].as_u64().expect("winner");
                assert_eq!(u64::from(player.number()), winner, "{id}");
            }
            player = player.opponent();
        }
    }
}

#[test]
fn win_in_one_every_cell() {
    let mut checked = 0;
    for r in records("win_in_one.jsonl") {
        let id = r["id"].as_str().expect("id");
        let board = board_of(&r);
        let player = player_of(&r["player_to_move"]);
        let winning: BTreeMap<String, Vec<Kind>> = r["winning_cells"]
            .as_object()
            .expect("winning_cells")
            .iter()
            .map(|(k, v)| (k.clone(), kinds_of(v)))
            .collect();
        let g = board.geometry();
        for cell in g.cells().filter(|&c| board.get(c) == Some(Point::Empty)) {
            let answer = check_win(&board, cell, player).expect("empty cell");
            let expected = winning.get(&cell.to_string()).cloned().unwrap_or_default();
            assert_eq!(answer.kinds(), expected, "{id} at {cell}");
            let mut tracker = Tracker::new(&board);
            assert_eq!(
                tracker.play(cell, player),
                Ok(answer.kinds),
                "{id} at {cell}"
            );
            let mut after = board.clone();
            after.place(cell, player).expect("empty");
            assert_witnesses(&after, player, &answer, id);
            checked += 1;
        }
    }
    assert!(checked > 100);
}

fn check_after_move_records(file: &str) {
    let recs = records(file);
    assert!(!recs.is_empty());
    for r in recs {
        let id = r["id"].as_str().expect("id");
        let board = board_of(&r);
        let mv = cell_of(&r["move"]);
        let player = player_of(&r["player"]);
        let answer = check_win(&board, mv, player).expect("the move is the player's stone");
        assert_eq!(answer.kinds(), kinds_of(&r["kinds"]), "{id}");
        assert_eq!(
            answer.kinds.seed_kind().map(Kind::name),
            r["seed_kind"].as_str(),
            "{id}"
        );
        assert_eq!(answer.kinds, reference_kinds(&board, player), "{id}");
        assert_witnesses(&board, player, &answer, id);
        if answer.kinds.contains(Kind::Ring) {
            assert!(
                answer.ring.as_ref().is_some_and(|r| r.contains(&mv)),
                "{id}"
            );
        }
        // The same position with the move cell still empty answers the same.
        let mut before = board.to_rows();
        before[mv.row][mv.col] = 0;
        let before = Board::from_rows(board.layers(), &before).expect("valid");
        assert_eq!(
            check_win(&before, mv, player).expect("empty"),
            answer,
            "{id}"
        );
    }
}

#[test]
fn tricky() {
    check_after_move_records("tricky.jsonl");
}

#[test]
fn multi_kind() {
    check_after_move_records("multi_kind.jsonl");
}

// ---------------------------------------------------------------- shapes

/// A board of `layers` with `p`'s stones at the centre plus the axial offsets `shape`.
fn shape(layers: u32, shape: &[(isize, isize)]) -> (Board, Vec<Cell>) {
    let layers = Layers::new(layers).expect("valid");
    let g = Geometry::new(layers);
    let mut board = Board::empty(layers);
    let m = g.m as isize;
    let cells: Vec<Cell> = shape
        .iter()
        .map(|&(dx, dy)| {
            g.from_axial((m + dx) as usize, (m + dy) as usize)
                .expect("shape fits")
        })
        .collect();
    for &c in &cells {
        board.place(c, Player::One).expect("empty");
    }
    (board, cells)
}

const HEX6: [(isize, isize); 6] = [(1, 0), (1, 1), (0, 1), (-1, 0), (-1, -1), (0, -1)];

fn filled_hexagon() -> Vec<(isize, isize)> {
    let mut v = HEX6.to_vec();
    v.push((0, 0));
    v
}

fn rhombus(n: isize) -> Vec<(isize, isize)> {
    (0..n)
        .flat_map(|x| (0..n).map(move |y| (x - 1, y - 1)))
        .collect()
}

fn triangle(n: isize) -> Vec<(isize, isize)> {
    (0..n)
        .flat_map(|x| (0..=x).map(move |y| (x - 1, y - 1)))
        .collect()
}

/// Places `cells` in several orders with the tracker: the ring (or its absence) is found
/// whatever the order, and agrees with the whole-board answer.
fn ring_in_every_order(board: &Board, cells: &[Cell], expect_ring: bool, what: &str) {
    let mut orders = vec![cells.to_vec(), cells.iter().rev().copied().collect()];
    let mut rot = cells.to_vec();
    for _ in 0..cells.len() {
        rot.rotate_left(1);
        orders.push(rot.clone());
    }
    let base = {
        let mut b = board.clone();
        for &c in cells {
            b = {
                let mut rows = b.to_rows();
                rows[c.row][c.col] = 0;
                Board::from_rows(b.layers(), &rows).expect("valid")
            };
        }
        b
    };
    for order in orders {
        let mut t = Tracker::new(&base);
        let mut ring = false;
        for &c in &order {
            ring |= t.play(c, Player::One).expect("empty").contains(Kind::Ring);
        }
        assert_eq!(ring, expect_ring, "{what} in order {order:?}");
    }
    let a = analyze(board, Player::One, None);
    assert_eq!(a.kinds.contains(Kind::Ring), expect_ring, "{what}");
    assert_eq!(reference_ring(board, Player::One), expect_ring, "{what}");
    assert_witnesses(board, Player::One, &a, what);
}

#[test]
fn rings_around_any_content_and_filled_shapes() {
    // Six stones around the centre, whatever it holds.
    for centre in [0u32, 2, 3, 1] {
        let (mut board, mut cells) = shape(5, &HEX6);
        let mut rows = board.to_rows();
        let m = board.geometry().m;
        rows[m][m] = centre;
        board = Board::from_rows(board.layers(), &rows).expect("valid");
        if centre == 1 {
            cells.push(Cell::new(m, m));
        }
        ring_in_every_order(&board, &cells, true, &format!("6-ring around {centre}"));
    }
    type Case = (&'static str, Vec<(isize, isize)>, bool);
    let cases: Vec<Case> = vec![
        ("filled 7-hexagon", filled_hexagon(), true),
        ("solid 3x3 rhombus", rhombus(3), true),
        (
            "solid 2x4 strip",
            (0..4).flat_map(|x| [(x - 1, 0), (x - 1, 1)]).collect(),
            false,
        ),
        ("solid 2x2 rhombus", rhombus(2), false),
        ("solid triangle side 4", triangle(4), true),
        ("solid triangle side 3", triangle(3), false),
        (
            "three mutually adjacent",
            vec![(0, 0), (1, 0), (1, 1)],
            false,
        ),
        ("horseshoe 5 of 6", HEX6[..5].to_vec(), false),
    ];
    for (what, offsets, ring) in cases {
        let (board, cells) = shape(6, &offsets);
        ring_in_every_order(&board, &cells, ring, what);
    }
}

#[test]
fn a_stone_filling_the_centre_joins_its_neighbours_group() {
    // L = 2: the six border cells are the six corners; the centre, played last, is enclosed
    // and joins the bridge group.
    let layers = Layers::new(2).expect("valid");
    let g = Geometry::new(layers);
    let mut t = Tracker::new(&Board::empty(layers));
    let centre = Cell::new(1, 1);
    for c in g.neighbours(centre) {
        t.play(c, Player::One).expect("empty");
    }
    let kinds = t.play(centre, Player::One).expect("empty");
    assert_eq!(
        kinds.iter().collect::<Vec<_>>(),
        vec![Kind::Bridge, Kind::Ring]
    );
}

#[test]
fn border_never_closes_a_ring() {
    let layers = Layers::new(5).expect("valid");
    let g = Geometry::new(layers);
    for target in g.cells().filter(|&c| g.neighbours(c).len() < 6) {
        let mut board = Board::empty(layers);
        let ns = g.neighbours(target);
        for &n in &ns {
            board.place(n, Player::One).expect("empty");
        }
        assert!(
            !analyze(&board, Player::One, None)
                .kinds
                .contains(Kind::Ring)
        );
        ring_in_every_order(&board, &ns, false, &format!("around border cell {target}"));
    }
}

#[test]
fn malformed_input_is_rejected() {
    let l2 = Layers::new(2).expect("valid");
    assert!(Board::from_rows(l2, &[[0, 0, 0], [0, 0, 0]]).is_err());
    assert!(Board::from_rows(l2, &[vec![0, 0, 0], vec![0, 0], vec![3, 0, 3]]).is_err());
    assert!(Board::from_rows(l2, &[[0, 0, 0], [0, 4, 0], [3, 0, 3]]).is_err());
    assert!(Board::from_rows(l2, &[[0, 0, 0], [0, 0, 0], [0, 0, 3]]).is_err());
    assert!(Board::from_flat(l2, &[0; 8]).is_err());
    let board = Board::from_rows(l2, &[[2, 0, 3], [0, 0, 0], [3, 0, 3]]).expect("valid");
    assert!(check_win(&board, Cell::new(2, 0), Player::One).is_err());
    assert!(check_win(&board, Cell::new(0, 3), Player::One).is_err());
    assert!(check_win(&board, Cell::new(0, 2), Player::One).is_err());
    assert!(check_win(&board, Cell::new(0, 0), Player::One).is_err());
    assert!(check_win(&board, Cell::new(0, 0), Player::Two).is_ok());
    assert!(Player::new(0).is_err() && Player::new(3).is_err());
}

// ---------------------------------------------------------------- properties

/// The 12 symmetries of the hexagon on centred axial coordinates: rotations by 60 degrees
/// `(x, y) -> (x - y, x)`, each optionally after the reflection `(x, y) -> (y, x)`.
fn symmetry(g: &Geometry, k: usize, c: Cell) -> Cell {
    let m = g.m as isize;
    let (x, y) = g.axial(c);
    let (mut x, mut y) = (x as isize - m, y as isize - m);
    if k >= 6 {
        (x, y) = (y, x);
    }
    for _ in 0..k % 6 {
        (x, y) = (x - y, x);
    }
    g.from_axial((x + m) as usize, (y + m) as usize)
        .expect("symmetries keep the hexagon")
}

fn transformed(board: &Board, k: usize) -> Board {
    let g = board.geometry();
    let mut rows = vec![vec![3u32; g.dim]; g.dim];
    let src = board.to_rows();
    for c in g.cells() {
        let t = symmetry(&g, k, c);
        rows[t.row][t.col] = src[c.row][c.col];
    }
    Board::from_rows(g.layers, &rows).expect("valid")
}

/// A random position: layers, and one value per cell (0..3, blocked rare).
fn position() -> impl Strategy<Value = Board> {
    (2u32..=9, any::<u64>(), 0u32..=100, 0u32..=8).prop_map(|(l, seed, fill, blocked)| {
        let layers = Layers::new(l).expect("in range");
        let g = Geometry::new(layers);
        let mut rows = vec![vec![3u32; g.dim]; g.dim];
        let mut s = seed | 1;
        for c in g.cells() {
            // xorshift64
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            let r = (s % 100) as u32;
            rows[c.row][c.col] = if r < blocked {
                3
            } else if r < fill {
                1 + ((s >> 20) & 1) as u32
            } else {
                0
            };
        }
        Board::from_rows(layers, &rows).expect("valid")
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn fast_answers_match_the_references(board in position()) {
        for p in [Player::One, Player::Two] {
            let a = analyze(&board, p, None);
            prop_assert_eq!(a.kinds.contains(Kind::Ring), reference_ring(&board, p));
            prop_assert_eq!(a.kinds, reference_kinds(&board, p));
            assert_witnesses(&board, p, &a, "random");
        }
    }

    #[test]
    fn answers_are_invariant_under_the_12_symmetries(board in position()) {
        let g = board.geometry();
        for k in 0..12 {
            let t = transformed(&board, k);
            for c in g.cells() {
                prop_assert_eq!(board.get(c), t.get(symmetry(&g, k, c)));
            }
            for p in [Player::One, Player::Two] {
                prop_assert_eq!(analyze(&board, p, None).kinds, analyze(&t, p, None).kinds);
            }
        }
    }

    #[test]
    fn tracker_agrees_with_whole_board_answers_during_a_game(board in position(), seed in any::<u64>()) {
        // Play the empty cells in a seeded order from this position; while nobody has won,
        // each move's incremental answer is the whole-board answer.
        let g = board.geometry();
        let mut empties: Vec<Cell> = g.cells().filter(|&c| board.get(c) == Some(Point::Empty)).collect();
        let mut s = seed | 1;
        for i in (1..empties.len()).rev() {
            s ^= s << 13; s ^= s >> 7; s ^= s << 17;
            empties.swap(i, (s % (i as u64 + 1)) as usize);
        }
        let mut t = Tracker::new(&board);
        let mut now = board.clone();
        let mut done = [!analyze(&now, Player::One, None).kinds.is_empty(),
                        !analyze(&now, Player::Two, None).kinds.is_empty()];
        let mut p = Player::One;
        for c in empties {
            let fast = t.play(c, p).expect("empty");
            now.place(c, p).expect("empty");
            let whole = analyze(&now, p, Some(c));
            let slot = usize::from(p.number() - 1);
            if !done[slot] {
                prop_assert_eq!(fast, whole.kinds);
            }
            prop_assert!(fast.iter().all(|k| whole.kinds.contains(k)));
            done[slot] |= whole.win();
            p = p.opponent();
        }
    }
}

/// `random_positions`: each position is its game's first moves, alternating from player one
/// on distinct cells (a reversed order as the shuffle, so the games are known), stopped where
/// the doc says, with no structure before its last move (the game goes on only without one);
/// every third stops at the end of its game, which wins unless the board filled.
#[test]
fn random_positions_are_games_stopped_where_their_doc_says() {
    let layers = Layers::new(4).expect("layers");
    let empty = Board::empty(layers);
    let mut shuffles = 0;
    let positions = random_positions(layers, 30, |cells| {
        cells.rotate_left(5);
        cells.reverse();
        shuffles += 1;
    })
    .expect("a permutation plays every game");
    assert_eq!((positions.len(), shuffles), (30, 30));
    let mut cells: Vec<Cell> = Geometry::new(layers).cells().collect();
    for (k, (board, mv, mover)) in positions.iter().enumerate() {
        cells.rotate_left(5);
        cells.reverse();
        let game = play_game(&empty, cells.iter().copied(), Player::One).expect("a game");
        let ply = if k % 3 == 0 {
            game.ply
        } else {
            1 + k * 7919 % game.ply
        };
        let mut replay = empty.clone();
        let mut p = Player::Two;
        for &c in &cells[..ply] {
            p = p.opponent();
            replay.place(c, p).expect("playable");
        }
        assert_eq!(
            (board, *mv, *mover),
            (&replay, cells[ply - 1], p),
            "game {k}"
        );
        let kinds = check_win(board, *mv, *mover).expect("own stone").kinds;
        if k % 3 == 0 && game.winner.is_some() {
            assert_eq!(kinds, game.kinds, "game {k}");
        } else if ply < game.ply {
            assert!(kinds.is_empty(), "game {k} stopped before its end");
        }
    }
}
