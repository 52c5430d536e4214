//! `SIGINT`, `SIGTERM` and `SIGHUP` end a run cleanly: every validator still running is
//! killed with everything it started ([`crate::reaper::end_all`]; no new one starts),
//! the caller's hook runs (the command line marks its report interrupted), the scratch
//! directory with every case's temporary files is removed ([`crate::scratch::close`]),
//! and the process exits with 128 plus the signal's number (130 for `SIGINT`, 143 for
//! `SIGTERM`, 129 for `SIGHUP`), as a shell reports a death by that signal.
//!
//! `SIGKILL` cannot be caught: then each validator dies by its parent-death signal, and
//! everything it started with it, its PID namespace emptied by the kernel where the
//! kernel allows one ([`crate::preexec`]); the next run removes the scratch directory
//! ([`crate::scratch`]).

use std::io;
use std::sync::atomic::{AtomicBool, Ordering};

use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
use signal_hook::iterator::Signals;

/// Whether a signal has started ending the run.
static INTERRUPTED: AtomicBool = AtomicBool::new(false);

/// Whether the run is being interrupted (for workers that want to stop early).
pub fn interrupted() -> bool {
    INTERRUPTED.load(Ordering::SeqCst)
}

/// Blocks for good once a signal has started ending the run, so that the caller's own
/// ending (an error from a validator killed by the signal, say) cannot exit the process
/// before the signal's handler does, with the wrong code and a misleading message. Call
/// it where a run would return.
pub fn settle() {
    if interrupted() {
        loop {
            std::thread::park();
        }
    }
}

/// Catches `SIGINT`, `SIGTERM` and `SIGHUP` for the rest of the process's life; on the
/// first of them, ends the run as the module docs say, calling `hook` after the
/// validators are dead and before the temporary files go.
pub fn install(hook: impl Fn(i32) + Send + 'static) -> io::Result<()> {
    let mut signals = Signals::new([SIGINT, SIGTERM, SIGHUP])?;
    std::thread::Builder::new()
        .name("soulcheck-signals".to_owned())
        .spawn(move || {
            if let Some(signal) = signals.forever().next() {
                INTERRUPTED.store(true, Ordering::SeqCst);
                crate::reaper::end_all();
                hook(signal);
                crate::scratch::close();
                std::process::exit(128 + signal);
            }
        })?;
    Ok(())
}
