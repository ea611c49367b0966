//! `Rules.SevenEdges` and `Rules.SevenPotential`: the (4, n, 7^tr) helpers.

use solver_core::games::seven::{Hypergraph, Position};
use solver_proto::convert::{WireError, seven};
use solver_proto::v1::{
    SevenEdge, SevenEdgesRequest, SevenEdgesResponse, SevenPotentialRequest, SevenPotentialResponse,
};

use crate::error::Error;

/// Every edge of the paper's hypergraph for the requested width.
pub fn edges(req: SevenEdgesRequest) -> Result<SevenEdgesResponse, Error> {
    let hg = Hypergraph::paper(seven::cols(req.cols, "cols")?);
    let edges = hg
        .edges()
        .iter()
        .map(|&e| SevenEdge {
            cells: Hypergraph::edge_names(e),
        })
        .collect();
    Ok(SevenEdgesResponse { edges })
}

/// The l-line histogram, pot and phi of a position.
pub fn potential(req: SevenPotentialRequest) -> Result<SevenPotentialResponse, Error> {
    let wire = req
        .position
        .ok_or_else(|| WireError::new("position", "is required"))?;
    let pos = Position::try_from(&wire)?;
    let hg = Hypergraph::paper(pos.cols());
    let p = pos.potential(&hg);
    Ok(SevenPotentialResponse {
        lines: p.lines.to_vec(),
        pot: p.pot().to_string(),
        phi: p.phi().to_string(),
        pot_float: p.pot().to_f64(),
        maker_won: pos.maker_won(&hg),
        breaker_certificate: pos.breaker_certificate(&hg),
    })
}
