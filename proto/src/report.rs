//! How the binaries (`solver`, `solver-server`, `solver-worker`) print the error that stops
//! them: one line, each cause once.

/// The exit status of a binary whose `run` returned `result` (an `anyhow::Result`, say): 0, or
/// 1 after `error: ` and [`error_line`] on stderr.
pub fn exit_code<E>(result: Result<(), E>) -> std::process::ExitCode
where
    E: std::ops::Deref<Target = dyn std::error::Error + Send + Sync + 'static>,
{
    match result {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("error: {}", error_line(&*err));
            std::process::ExitCode::FAILURE
        }
    }
}

/// `err` and its causes on one line, joined by `": "`, leaving out a cause whose text the
/// line holds already (many errors print their source in their own message as well; a cause
/// whose whole text merely happens to appear in the line is left out too, a rare loss).
pub fn error_line(err: &(dyn std::error::Error + 'static)) -> String {
    let mut line = err.to_string();
    let mut cause = err.source();
    while let Some(e) = cause {
        let text = e.to_string();
        if !line.contains(&text) {
            line.push_str(": ");
            line.push_str(&text);
        }
        cause = e.source();
    }
    line
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, thiserror::Error)]
    #[error("cannot open {path}: {source}")]
    struct Open {
        path: &'static str,
        source: std::io::Error,
    }

    #[derive(Debug, thiserror::Error)]
    #[error("server failed")]
    struct Failed(#[source] Open);

    #[test]
    fn each_cause_is_printed_once() {
        let io = std::io::Error::new(std::io::ErrorKind::NotFound, "no such file");
        let err = Failed(Open {
            path: "/x",
            source: io,
        });
        assert_eq!(
            error_line(&err),
            "server failed: cannot open /x: no such file"
        );
    }
}
