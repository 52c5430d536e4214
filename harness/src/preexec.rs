//! The one place this crate uses `unsafe`: the hook that runs in a validator's process
//! between `fork` and `exec` ([`std::os::unix::process::CommandExt::pre_exec`]). Some
//! settings can only be made there, by the new process about itself, before the
//! validator's code runs:
//!
//! - its parent-death signal (`PR_SET_PDEATHSIG`): the validator is killed when the
//!   harness dies, even by `SIGKILL`, when no cleanup of ours can run;
//! - the child-subreaper attribute (`PR_SET_CHILD_SUBREAPER`, kept across `exec`): an
//!   orphan inside the validator's tree is adopted by the validator, not by the harness,
//!   so while a validator lives its whole tree stays below it, and a process the harness
//!   adopts can only come from a validator that has already ended (see [`crate::reaper`]);
//! - its Landlock sandbox ([`crate::sandbox`]), prepared in the parent and only enforced
//!   here.
//!
//! No crate wraps these three in a safe spawning API (the `landlock` crate's
//! `restrict_self` is meant to be called in `pre_exec`, as here), so this module allows
//! `unsafe_code` for the single `pre_exec` call; the crate denies it everywhere else.
#![allow(unsafe_code)]

use std::io;
use std::os::unix::process::CommandExt as _;
use std::process::Command;

use rustix::process::{getpid, getppid, set_child_subreaper, set_parent_process_death_signal};
use rustix::process::{Pid, Signal};

/// A prepared Landlock ruleset, enforced in the child.
#[cfg(target_os = "linux")]
pub(crate) type Ruleset = landlock::RulesetCreated;

/// No Landlock outside Linux.
#[cfg(not(target_os = "linux"))]
pub(crate) type Ruleset = std::convert::Infallible;

/// Arranges for the process `command` starts to die with `parent` (the harness), to adopt
/// its own orphans, and to enter `ruleset` if one is given. A failure to set any of these
/// fails the spawn: a validator never runs with less containment than asked for.
pub(crate) fn contain(command: &mut Command, parent: Pid, ruleset: Option<Ruleset>) {
    let mut ruleset = ruleset;
    let hook = move || -> io::Result<()> {
        // Only raw system calls from here on: between fork and exec in a threaded program
        // nothing may allocate or take a lock another thread might hold.
        set_parent_process_death_signal(Some(Signal::KILL))?;
        // The harness may have died before the line above took effect; then no signal
        // will come, so go no further.
        if getppid() != Some(parent) {
            return Err(io::Error::from_raw_os_error(
                rustix::io::Errno::SRCH.raw_os_error(),
            ));
        }
        set_child_subreaper(Some(getpid()))?;
        if let Some(ruleset) = ruleset.take() {
            restrict(ruleset)?;
        }
        Ok(())
    };
    // SAFETY: the hook runs in the forked child before exec. It only makes system calls
    // (prctl, getppid, getpid, landlock_restrict_self and close, through rustix and the
    // landlock crate, which build no heap values on these paths) and touches no state
    // shared with other threads: the ruleset was moved into the closure, and `take`
    // moves it out of the child's own copy of the closure.
    unsafe {
        command.pre_exec(hook);
    }
}

#[cfg(target_os = "linux")]
fn restrict(ruleset: Ruleset) -> io::Result<()> {
    match ruleset.restrict_self() {
        Ok(_) => Ok(()),
        Err(_) => Err(io::Error::from_raw_os_error(
            rustix::io::Errno::PERM.raw_os_error(),
        )),
    }
}

#[cfg(not(target_os = "linux"))]
fn restrict(ruleset: Ruleset) -> io::Result<()> {
    match ruleset {}
}
