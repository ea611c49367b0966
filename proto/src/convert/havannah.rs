//! Havannah conversions: `CheckHavannahWinRequest` -> a validated [`Query`], core errors ->
//! [`WireError`] naming the request field, and an [`Analysis`] -> `CheckHavannahWinResponse`.

use solver_core::games::havannah::{
    Analysis, Board, Cell, HavannahError, Kind, Layers, Player, check_win,
};

use super::WireError;
use crate::v1;

/// A validated `CheckHavannahWinRequest`: the board as sent (the position after the move, or
/// before it with the move cell empty), the move and the mover.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Query {
    /// The validated board.
    pub board: Board,
    /// The move, on the hexagon.
    pub mv: Cell,
    /// The mover.
    pub player: Player,
}

impl Query {
    /// The answer: every structure of the mover after the move ([`check_win`]).
    ///
    /// # Errors
    /// `move` when the move cell is blocked or holds the opponent's stone.
    pub fn answer(&self) -> Result<Analysis, WireError> {
        check_win(&self.board, self.mv, self.player).map_err(error)
    }
}

/// The request field a core error is about, with the core's message.
pub fn error(e: HavannahError) -> WireError {
    let field = match e {
        HavannahError::Layers { .. } => "layers",
        HavannahError::Size { .. }
        | HavannahError::Value { .. }
        | HavannahError::OffBoard { .. } => "board",
        HavannahError::Player { .. } => "player",
        HavannahError::CellOffBoard { .. }
        | HavannahError::CellBlocked { .. }
        | HavannahError::CellTaken { .. } => "move",
    };
    WireError::new(field, e.to_string())
}

impl TryFrom<&v1::CheckHavannahWinRequest> for Query {
    type Error = WireError;

    /// Validates layers, player, board, then the move (off the board, blocked, opponent's
    /// stone), in that order.
    fn try_from(req: &v1::CheckHavannahWinRequest) -> Result<Self, WireError> {
        let layers = Layers::new(req.layers).map_err(error)?;
        let player = Player::new(req.player).map_err(error)?;
        let board = Board::from_flat(layers, &req.board).map_err(error)?;
        let wire = req
            .r#move
            .as_ref()
            .ok_or_else(|| WireError::new("move", "is required"))?;
        let mv = Cell::new(wire.row as usize, wire.col as usize);
        // Validate the move now, so that a `Query` always answers.
        board.clone().place(mv, player).map_err(error)?;
        Ok(Self { board, mv, player })
    }
}

/// A cell on the wire.
pub fn cell_to_wire(c: Cell) -> v1::HavannahCell {
    v1::HavannahCell {
        row: c.row as u32,
        col: c.col as u32,
    }
}

fn cells(cs: &[Cell]) -> Vec<v1::HavannahCell> {
    cs.iter().copied().map(cell_to_wire).collect()
}

impl From<&Analysis> for v1::CheckHavannahWinResponse {
    fn from(a: &Analysis) -> Self {
        Self {
            win: a.win(),
            kinds: a.kinds.iter().map(|k| k.name().to_string()).collect(),
            kind: a
                .kinds
                .seed_kind()
                .map(Kind::name)
                .unwrap_or("")
                .to_string(),
            ring: a
                .ring
                .as_ref()
                .map(|r| v1::HavannahRing { cells: cells(r) }),
            bridge: a.bridge.as_ref().map(|b| v1::HavannahBridge {
                corners: cells(&b.corners),
                chain: cells(&b.chain),
            }),
            fork: a.fork.as_ref().map(|f| v1::HavannahFork {
                sides: f.sides.iter().map(|s| s.name().to_string()).collect(),
                cells: cells(&f.cells),
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cell(row: u32, col: u32) -> v1::HavannahCell {
        v1::HavannahCell { row, col }
    }

    /// L = 3: player 1 around player 2's centre stone, the move (1,1) closing the ring; a
    /// blocked cell at (0,2).
    fn ring() -> v1::CheckHavannahWinRequest {
        #[rustfmt::skip]
        let board = vec![
            0, 0, 3, 0, 0,
            0, 0, 1, 1, 0,
            0, 1, 2, 1, 0,
            3, 0, 1, 0, 3,
            3, 3, 0, 3, 3,
        ];
        v1::CheckHavannahWinRequest {
            layers: 3,
            board,
            r#move: Some(cell(1, 1)),
            player: 1,
        }
    }

    #[test]
    fn a_valid_request_answers() {
        let q = Query::try_from(&ring()).expect("valid");
        let a = v1::CheckHavannahWinResponse::from(&q.answer().expect("valid"));
        assert!(a.win);
        assert_eq!(
            (a.kinds, a.kind),
            (vec!["ring".to_string()], "ring".to_string())
        );
        let cells = a.ring.expect("witness").cells;
        assert_eq!(cells.len(), 6);
        assert_eq!(cells[0], cell(1, 1));
    }

    #[test]
    fn every_malformed_field_is_named() {
        type Edit = fn(&mut v1::CheckHavannahWinRequest);
        let cases: [(&str, Edit); 17] = [
            ("layers", |r| r.layers = 1),
            ("layers", |r| r.layers = 33),
            ("board", |r| {
                r.board.pop();
            }),
            ("board", |r| r.board.push(3)),
            ("board", |r| r.board.clear()),
            ("board", |r| r.board[0] = 4),
            ("board", |r| r.board[12] = u32::MAX),
            ("board", |r| r.board[20] = 0),
            ("board", |r| r.board[15] = 2),
            ("move", |r| r.r#move = None),
            ("move", |r| r.r#move = Some(cell(4, 0))),
            ("move", |r| r.r#move = Some(cell(0, 5))),
            ("move", |r| r.r#move = Some(cell(u32::MAX, 1))),
            ("move", |r| r.r#move = Some(cell(0, 2))),
            ("move", |r| r.r#move = Some(cell(2, 2))),
            ("player", |r| r.player = 0),
            ("player", |r| r.player = 3),
        ];
        for (field, edit) in cases {
            let mut req = ring();
            edit(&mut req);
            let err = Query::try_from(&req).expect_err(field);
            assert_eq!(err.field, field, "{err} for {req:?}");
        }
    }
}
