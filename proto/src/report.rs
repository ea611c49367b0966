//! How the binaries (`solver`, `solver-server`, `solver-worker`) print the error that stops
//! them: one line, each cause once; and how long an error's text may be on the wire.

use std::borrow::Cow;

/// Most bytes of a failed job's message (`ReportRequest.error`); a longer one is
/// `INVALID_ARGUMENT`, so a worker sends its message [`shortened`] to this.
pub const MAX_JOB_ERROR_BYTES: usize = 4096;

/// `text` if it has at most `max` bytes, else its first characters followed by `... (N bytes
/// in all)`, within `max` bytes (for a `max` of at least 48, which that ending fits in): for
/// error texts that may quote what a user sent, which can be megabytes.
pub fn shortened(text: &str, max: usize) -> Cow<'_, str> {
    if text.len() <= max {
        return Cow::Borrowed(text);
    }
    let tail = format!("... ({} bytes in all)", text.len());
    let mut cut = max.saturating_sub(tail.len());
    while !text.is_char_boundary(cut) {
        cut -= 1;
    }
    Cow::Owned(format!("{}{tail}", &text[..cut]))
}

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

    #[test]
    fn a_long_text_is_shortened_at_a_character_boundary() {
        assert_eq!(shortened("short", 10), "short");
        let long = "é".repeat(1000);
        let s = shortened(&long, 100);
        assert!(s.len() <= 100, "{} bytes", s.len());
        assert!(s.ends_with("... (2000 bytes in all)"), "{s}");
        assert!(s.starts_with("éé"));
    }

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
