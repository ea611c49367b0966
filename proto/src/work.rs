//! Limits of the `Work` protocol. The worker holds what a coordinator sends it to them, so that
//! a misbehaving one cannot make it search, wait or retry without end; the coordinator refuses
//! a `Heartbeat` or `Abandon` past [`MAX_JOB_IDS`], and a problem (`Solver.Submit`) whose job
//! budget fails [`check_job_node_budget`] (`INVALID_ARGUMENT` naming the field). A coordinator
//! may lease for longer than [`MAX_LEASE`] (its `--lease-ms` has no upper bound): the worker
//! then heartbeats as told, and gives up a report after a stop sooner. Worker names and request
//! ids follow [`check_name`], which the coordinator and a worker's `--name` check both apply.

use std::time::Duration;

/// The largest node budget of a job (`Job.node_budget`; a problem's `job_node_budget` may not
/// ask for more). A worker searches at most this many nodes whatever a job says.
pub const MAX_JOB_NODE_BUDGET: u64 = 100_000_000;

/// The smallest node budget of a job: a problem's `job_node_budget` (unless 0, the server's
/// default) and the server's `--job-node-budget` may not ask for less, and a leaf whose leases
/// keep failing gets no less than this or its budget. Smaller jobs would cost the coordinator
/// about as much as the search they hold (a lease and a report against a fraction of a
/// millisecond of search).
pub const MIN_JOB_NODE_BUDGET: u64 = 1_000;

/// Checks a problem's `job_node_budget` (`Solver.Submit`, and the client's `--job-budget`
/// before it sends one): 0 (the server's default) or [`MIN_JOB_NODE_BUDGET`] to
/// [`MAX_JOB_NODE_BUDGET`] nodes.
///
/// # Errors
/// Any other budget, with a message that says what is allowed.
pub fn check_job_node_budget(budget: u64) -> Result<u64, String> {
    if budget == 0 || (MIN_JOB_NODE_BUDGET..=MAX_JOB_NODE_BUDGET).contains(&budget) {
        Ok(budget)
    } else {
        Err(format!(
            "is {budget}; 0 (the server's default) or {MIN_JOB_NODE_BUDGET} to {MAX_JOB_NODE_BUDGET}"
        ))
    }
}

/// The shortest deadline of a job (`Job.deadline_ms`, unless 0: none), in ms: the server's
/// `--job-deadline-ms` may not ask for less, and a worker searches at least this long whatever
/// a job says. A job costs a round trip and a report, and its first part, of
/// `MIN_THRESHOLD_NODES` nodes (solver-worker), must not be cut short.
pub const MIN_JOB_DEADLINE_MS: u32 = 1_000;

/// Most job ids one `Heartbeat` or `Abandon` call may name.
pub const MAX_JOB_IDS: usize = 4096;

/// The most nodes a report may count (`ReportRequest.nodes`): a job stops within a few
/// iterations of its budget, which is at most [`MAX_JOB_NODE_BUDGET`]; so ten times that is
/// no job's count, and a larger one (a worker's bug) would spoil its problem's node count and
/// speed for good.
pub const MAX_REPORT_NODES: u64 = 10 * MAX_JOB_NODE_BUDGET;

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

/// The longest worker name or request id (the `worker` and `request_id` of the `Work` and
/// `Solver` requests), in bytes.
pub const MAX_NAME_LEN: usize = 128;

/// Whether `c` may be in a worker name or a request id: printable ASCII, space included.
pub fn is_name_char(c: char) -> bool {
    matches!(c, ' '..='~')
}

/// Checks a worker name or a request id: at most [`MAX_NAME_LEN`] characters, each
/// [`is_name_char`], and at least one unless `allow_empty` (a request id may be empty). The
/// error is the rule, to follow the field's name.
///
/// # Errors
/// The rule the value breaks, e.g. `must be 1..=128 printable ASCII characters`.
pub fn check_name(value: &str, allow_empty: bool) -> Result<(), String> {
    let ok = (allow_empty || !value.is_empty())
        && value.len() <= MAX_NAME_LEN
        && value.chars().all(is_name_char);
    if ok {
        Ok(())
    } else {
        let least = usize::from(!allow_empty);
        Err(format!(
            "must be {least}..={MAX_NAME_LEN} printable ASCII characters"
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_printable_ascii_within_the_limit() {
        assert!(check_name("worker-1 on host", false).is_ok());
        assert!(check_name(&"w".repeat(MAX_NAME_LEN), false).is_ok());
        assert!(check_name("", true).is_ok());
        let one = "must be 1..=128 printable ASCII characters";
        assert_eq!(check_name("", false).err().as_deref(), Some(one));
        assert_eq!(
            check_name(&"w".repeat(MAX_NAME_LEN + 1), false)
                .err()
                .as_deref(),
            Some(one)
        );
        assert_eq!(check_name("tab\there", false).err().as_deref(), Some(one));
        assert_eq!(check_name("é", false).err().as_deref(), Some(one));
        assert_eq!(
            check_name("\n", true).err().as_deref(),
            Some("must be 0..=128 printable ASCII characters")
        );
    }
}
