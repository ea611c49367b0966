//! The stateless `Rules` service: win queries for Havannah, Hex and renju and the (4, n, 7^tr)
//! helpers. One submodule per game does the conversion and the answer; this module only routes.

mod havannah;
mod hex;
mod renju;
mod seven;

use std::sync::Arc;

use solver_proto::v1::rules_server::Rules;
use solver_proto::v1::*;
use tokio::sync::Semaphore;
use tonic::{Request, Response, Status};

/// The `solver.v1.Rules` service. Every answer depends on the request alone; the service holds
/// only the turns of the Hex searches.
#[derive(Debug, Clone)]
pub struct RulesService {
    /// One permit per Hex search that may run at once ([`hex::solve`]; by default one per core).
    searches: Arc<Semaphore>,
}

impl RulesService {
    /// A service that runs at most `searches` Hex searches at once (at least 1).
    pub fn new(searches: usize) -> Self {
        Self {
            searches: Arc::new(Semaphore::new(searches.max(1))),
        }
    }
}

/// One Hex search per core.
impl Default for RulesService {
    fn default() -> Self {
        Self::new(std::thread::available_parallelism().map_or(1, |n| n.get()))
    }
}

#[tonic::async_trait]
impl Rules for RulesService {
    async fn seven_edges(
        &self,
        req: Request<SevenEdgesRequest>,
    ) -> Result<Response<SevenEdgesResponse>, Status> {
        Ok(Response::new(seven::edges(req.into_inner())?))
    }

    async fn seven_potential(
        &self,
        req: Request<SevenPotentialRequest>,
    ) -> Result<Response<SevenPotentialResponse>, Status> {
        Ok(Response::new(seven::potential(req.into_inner())?))
    }

    async fn check_havannah_win(
        &self,
        req: Request<CheckHavannahWinRequest>,
    ) -> Result<Response<CheckHavannahWinResponse>, Status> {
        Ok(Response::new(havannah::check_win(req.into_inner())?))
    }

    async fn check_renju(
        &self,
        req: Request<CheckRenjuRequest>,
    ) -> Result<Response<CheckRenjuResponse>, Status> {
        Ok(Response::new(renju::check(req.into_inner())?))
    }

    async fn renju_forbidden_map(
        &self,
        req: Request<RenjuForbiddenMapRequest>,
    ) -> Result<Response<RenjuForbiddenMapResponse>, Status> {
        Ok(Response::new(renju::forbidden_map(req.into_inner())?))
    }

    async fn check_hex_win(
        &self,
        req: Request<CheckHexWinRequest>,
    ) -> Result<Response<CheckHexWinResponse>, Status> {
        Ok(Response::new(hex::check_win(req.into_inner())?))
    }

    async fn solve_hex(
        &self,
        req: Request<SolveHexRequest>,
    ) -> Result<Response<SolveHexResponse>, Status> {
        Ok(Response::new(
            hex::solve(req.into_inner(), Arc::clone(&self.searches)).await?,
        ))
    }
}
