//! Limits of the `Work` protocol. The worker holds what a coordinator sends it to them, so that
//! a misbehaving one cannot make it search, wait or retry without end; the coordinator refuses
//! a `Heartbeat` or `Abandon` past [`MAX_JOB_IDS`], and a problem (`Solver.Submit`) whose job
//! budget is past [`MAX_JOB_NODE_BUDGET`] (`INVALID_ARGUMENT` naming the field). A coordinator
//! may lease for longer than [`MAX_LEASE`] (its `--lease-ms` has no upper bound): the worker
//! then heartbeats as told, and gives up a report after a stop sooner.

use std::time::Duration;

/// The largest node budget of a job (`Job.node_budget`; a problem's `job_node_budget` may not
/// ask for more). A worker searches at most this many nodes whatever a job says.
pub const MAX_JOB_NODE_BUDGET: u64 = 100_000_000;

/// Most job ids one `Heartbeat` or `Abandon` call may name.
pub const MAX_JOB_IDS: usize = 4096;

/// The longest wait a worker takes from `LeaseResponse.retry_after_ms`.
pub const MAX_RETRY_AFTER: Duration = Duration::from_secs(60);

/// The shortest and longest heartbeat interval a worker takes from
/// `LeaseResponse.heartbeat_interval_ms` (the coordinator's is a third of its lease, and a
/// lease is at least 100 ms). A worker also heartbeats a job at least three times per its
/// `lease_ms`, within this range.
pub const HEARTBEAT_INTERVAL: std::ops::RangeInclusive<Duration> =
    Duration::from_millis(30)..=Duration::from_secs(600);

/// The longest lease a worker counts on (`Job.lease_ms`) when it decides, after a graceful
/// stop, how long to go on retrying a report (the coordinator's default lease is 30 s).
pub const MAX_LEASE: Duration = Duration::from_secs(600);
