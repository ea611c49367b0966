//! The `Solver` (clients) and `Work` (workers) gRPC services: thin adapters from tonic to the
//! [`Coordinator`]. Each RPC locks the coordinator once and never across an `.await`.

use std::pin::Pin;
use std::sync::{Arc, Weak};
use std::time::Duration;

use solver_proto::v1::{self, solver_server::Solver, work_server::Work};
use tokio::sync::mpsc;
use tokio_stream::Stream;
use tokio_stream::wrappers::ReceiverStream;
use tokio_util::sync::CancellationToken;
use tonic::{Request, Response, Status};

use crate::coordinator::Coordinator;

/// Least time between two progress messages of one `WatchProblem` stream (the message with
/// the verdict, or another final status, comes at once).
pub const WATCH_INTERVAL: Duration = Duration::from_millis(250);

/// What a request gets from a server that drains (or has stopped): `UNAVAILABLE`.
const SHUTTING_DOWN: &str = "the server is shutting down; try again once it is back";

/// The coordinator as the services see it: a weak reference, so that connections outliving a
/// shutdown (the drain timed out) do not keep the data directory open.
#[derive(Debug, Clone)]
struct Handle(Weak<Coordinator>);

impl Handle {
    fn get(&self) -> Result<Arc<Coordinator>, Status> {
        self.0
            .upgrade()
            .ok_or_else(|| Status::unavailable(SHUTTING_DOWN))
    }
}

/// The `solver.v1.Solver` service.
#[derive(Debug, Clone)]
pub struct SolverService {
    coordinator: Handle,
    stopping: CancellationToken,
}

impl SolverService {
    /// The service over `coordinator` (held weakly: the caller keeps it alive). Once `stopping`
    /// fires (the server drains), every `WatchProblem` stream ends with `UNAVAILABLE` instead
    /// of holding the drain up until its timeout.
    pub fn new(coordinator: &Arc<Coordinator>, stopping: CancellationToken) -> Self {
        Self {
            coordinator: Handle(Arc::downgrade(coordinator)),
            stopping,
        }
    }
}

/// Waits until a watcher of a problem has news to be sent, given its `changes` (true once the
/// problem finished): the verdict as soon as it comes, progress (a change while it runs) no
/// earlier than `next`, so at most one progress message per [`WATCH_INTERVAL`]. False when
/// the problem's channel closed (the coordinator is gone).
async fn news(
    changes: &mut tokio::sync::watch::Receiver<bool>,
    next: tokio::time::Instant,
) -> bool {
    if changes.changed().await.is_err() {
        return false;
    }
    while !*changes.borrow_and_update() && tokio::time::Instant::now() < next {
        tokio::select! {
            () = tokio::time::sleep_until(next) => break,
            r = changes.changed() => if r.is_err() {
                return false;
            },
        }
    }
    true
}

fn finished(p: &v1::Problem) -> bool {
    p.status != v1::ProblemStatus::Running as i32
}

#[tonic::async_trait]
impl Solver for SolverService {
    async fn submit(
        &self,
        req: Request<v1::SubmitRequest>,
    ) -> Result<Response<v1::SubmitResponse>, Status> {
        Ok(Response::new(
            self.coordinator.get()?.submit(req.into_inner())?,
        ))
    }

    async fn get_problem(
        &self,
        req: Request<v1::GetProblemRequest>,
    ) -> Result<Response<v1::Problem>, Status> {
        Ok(Response::new(
            self.coordinator
                .get()?
                .problem(&req.into_inner().problem_id)?,
        ))
    }

    type WatchProblemStream = Pin<Box<dyn Stream<Item = Result<v1::Problem, Status>> + Send>>;

    async fn watch_problem(
        &self,
        req: Request<v1::GetProblemRequest>,
    ) -> Result<Response<Self::WatchProblemStream>, Status> {
        let id = req.into_inner().problem_id;
        let mut changes = self.coordinator.get()?.subscribe(&id)?;
        let first = self.coordinator.get()?.problem(&id)?;
        let (tx, rx) = mpsc::channel(4);
        let (coordinator, stopping) = (self.coordinator.clone(), self.stopping.clone());
        tokio::spawn(async move {
            // Sends are awaited, also while the server drains: a client that stopped reading
            // fills the channel only once its HTTP/2 window is used up, and then could not be
            // sent the rest anyway, so the drain's timeout bounds it either way, and a reading
            // client gets every message, the verdict and UNAVAILABLE included.
            let mut current = first;
            loop {
                let done = finished(&current);
                if tx.send(Ok(current)).await.is_err() || done {
                    return;
                }
                // A client that went away ends the task at once, not at the next change.
                let deadline = tokio::time::Instant::now() + WATCH_INTERVAL;
                // News first: a problem that ended as the server began to drain still sends
                // its final message.
                tokio::select! {
                    biased;
                    more = news(&mut changes, deadline) => if !more {
                        // The coordinator is gone: the server stops.
                        let _ = tx.send(Err(Status::unavailable(SHUTTING_DOWN))).await;
                        return;
                    },
                    () = stopping.cancelled() => {
                        let _ = tx.send(Err(Status::unavailable(SHUTTING_DOWN))).await;
                        return;
                    }
                    () = tx.closed() => return,
                }
                current = match coordinator.get().and_then(|c| Ok(c.problem(&id)?)) {
                    Ok(p) => p,
                    Err(e) => {
                        let _ = tx.send(Err(e)).await;
                        return;
                    }
                };
            }
        });
        Ok(Response::new(Box::pin(ReceiverStream::new(rx))))
    }

    async fn list_problems(
        &self,
        req: Request<v1::ListProblemsRequest>,
    ) -> Result<Response<v1::ListProblemsResponse>, Status> {
        Ok(Response::new(self.coordinator.get()?.list(req.get_ref())?))
    }

    async fn cancel_problem(
        &self,
        req: Request<v1::GetProblemRequest>,
    ) -> Result<Response<v1::Problem>, Status> {
        Ok(Response::new(
            self.coordinator
                .get()?
                .cancel(&req.into_inner().problem_id)?,
        ))
    }

    async fn get_result(
        &self,
        req: Request<v1::GetProblemRequest>,
    ) -> Result<Response<v1::ProblemResult>, Status> {
        Ok(Response::new(
            self.coordinator
                .get()?
                .result(&req.into_inner().problem_id)?,
        ))
    }
}

/// The `solver.v1.Work` service.
#[derive(Debug, Clone)]
pub struct WorkService {
    coordinator: Handle,
}

impl WorkService {
    /// The service over `coordinator` (held weakly: the caller keeps it alive).
    pub fn new(coordinator: &Arc<Coordinator>) -> Self {
        Self {
            coordinator: Handle(Arc::downgrade(coordinator)),
        }
    }
}

#[tonic::async_trait]
impl Work for WorkService {
    async fn lease(
        &self,
        req: Request<v1::LeaseRequest>,
    ) -> Result<Response<v1::LeaseResponse>, Status> {
        let coordinator = self.coordinator.get()?;
        Ok(Response::new(
            coordinator.lease_or_wait(req.into_inner()).await?,
        ))
    }

    async fn heartbeat(
        &self,
        req: Request<v1::HeartbeatRequest>,
    ) -> Result<Response<v1::HeartbeatResponse>, Status> {
        Ok(Response::new(
            self.coordinator.get()?.heartbeat(req.into_inner())?,
        ))
    }

    async fn report(
        &self,
        req: Request<v1::ReportRequest>,
    ) -> Result<Response<v1::ReportResponse>, Status> {
        Ok(Response::new(
            self.coordinator.get()?.report(req.into_inner())?,
        ))
    }

    async fn abandon(
        &self,
        req: Request<v1::AbandonRequest>,
    ) -> Result<Response<v1::AbandonResponse>, Status> {
        Ok(Response::new(
            self.coordinator.get()?.abandon(req.into_inner())?,
        ))
    }
}

/// A tonic interceptor that admits requests carrying `authorization: Bearer <token>`, or
/// every request when `token` is `None`. A missing or wrong token is `UNAUTHENTICATED`.
#[derive(Clone)]
pub struct BearerAuth {
    expected: Option<Arc<str>>,
}

impl std::fmt::Debug for BearerAuth {
    /// Whether a token is expected, not the token (a secret).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let expected = self.expected.as_ref().map(|_| "<redacted>");
        f.debug_struct("BearerAuth")
            .field("expected", &expected)
            .finish()
    }
}

impl BearerAuth {
    /// Checks for `token` (`--worker-token`, `--client-token`; none: admit all).
    pub fn new(token: Option<&solver_proto::auth::Token>) -> Self {
        Self {
            expected: token.map(|t| Arc::from(t.secret())),
        }
    }
}

impl tonic::service::Interceptor for BearerAuth {
    fn call(&mut self, req: Request<()>) -> Result<Request<()>, Status> {
        let Some(expected) = &self.expected else {
            return Ok(req);
        };
        let given = req
            .metadata()
            .get("authorization")
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.strip_prefix("Bearer "));
        // Compare without an early exit on the first differing byte.
        let ok = given.is_some_and(|g| {
            g.len() == expected.len()
                && g.bytes()
                    .zip(expected.bytes())
                    .fold(0u8, |acc, (a, b)| acc | (a ^ b))
                    == 0
        });
        if ok {
            Ok(req)
        } else {
            Err(Status::unauthenticated(
                "missing or wrong bearer token (authorization: Bearer <token>)",
            ))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::sync::watch;
    use tokio::time::Instant;

    /// What `news` returns and when (time since the start; the clock is paused, so only
    /// timers move it), for the given changes, each at its time since the start, after which
    /// the problem's channel closes if `close`, else stays open.
    async fn news_after(changes: &[(Duration, bool)], close: bool) -> (bool, Duration) {
        let (tx, mut rx) = watch::channel(false);
        let start = Instant::now();
        let changes = changes.to_vec();
        let sender = tokio::spawn(async move {
            for (at, finished) in changes {
                tokio::time::sleep_until(start + at).await;
                tx.send_replace(finished);
            }
            if !close {
                std::future::pending::<()>().await;
            }
        });
        let got = news(&mut rx, start + WATCH_INTERVAL).await;
        sender.abort();
        (got, start.elapsed())
    }

    const MS: Duration = Duration::from_millis(1);

    #[test]
    fn the_token_check_does_not_print_its_token() {
        let shown = format!("{:?}", BearerAuth::new(Some(&"s3cr3t-t0ken".into())));
        assert!(!shown.contains("s3cr3t"), "{shown}");
        assert!(shown.contains("<redacted>"), "{shown}");
    }

    #[tokio::test(start_paused = true)]
    async fn the_verdict_is_news_at_once() {
        assert_eq!(
            news_after(&[(Duration::ZERO, true)], false).await,
            (true, Duration::ZERO)
        );
        // After progress, the verdict does not wait for the interval to end.
        assert_eq!(
            news_after(&[(MS * 10, false), (MS * 40, true)], false).await,
            (true, MS * 40)
        );
    }

    #[tokio::test(start_paused = true)]
    async fn progress_waits_for_the_interval() {
        let half = WATCH_INTERVAL / 2;
        assert_eq!(
            news_after(&[(MS * 10, false)], false).await,
            (true, WATCH_INTERVAL)
        );
        assert_eq!(
            news_after(&[(Duration::ZERO, false), (half, false)], false).await,
            (true, WATCH_INTERVAL)
        );
        // Progress that comes after the interval is news at once.
        let late = WATCH_INTERVAL + half;
        assert_eq!(news_after(&[(late, false)], false).await, (true, late));
    }

    #[tokio::test(start_paused = true)]
    async fn a_closed_channel_ends_the_watch() {
        let (tx, mut rx) = watch::channel(false);
        drop(tx);
        assert!(!news(&mut rx, Instant::now() + WATCH_INTERVAL).await);
        // Also while progress waits for the interval.
        assert_eq!(
            news_after(&[(MS * 10, false)], true).await,
            (false, MS * 10)
        );
    }
}
