//! How the binaries (`solver`, `solver-server`, `solver-worker`) print the error that stops
//! them: one line, each cause once.

/// `err` and its causes on one line, joined by `": "`, leaving out a cause whose text the
/// line holds already (many errors print their source in their own message as well).
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
