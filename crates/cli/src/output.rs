//! Writing to standard output without panicking: every command writes through these, so a
//! closed pipe surfaces as an error that `main` turns into a quiet exit 0 instead of the
//! `print!` macros' panic.

use std::io::Write as _;

/// Writes `text` to standard output and flushes it.
pub fn print(text: &str) -> std::io::Result<()> {
    let mut stdout = std::io::stdout().lock();
    stdout.write_all(text.as_bytes())?;
    stdout.flush()
}

/// Whether an error is a write to a pipe whose reader has gone.
pub fn is_closed_pipe(error: &anyhow::Error) -> bool {
    error.chain().any(|cause| {
        cause
            .downcast_ref::<std::io::Error>()
            .is_some_and(|error| error.kind() == std::io::ErrorKind::BrokenPipe)
    })
}
