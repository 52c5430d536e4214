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
//!   here;
//! - its own PID namespace ([`pid_namespace`]), so nothing it starts outlives a `SIGKILL`
//!   of the harness.
//!
//! No crate wraps these in a safe spawning API (the `landlock` crate's `restrict_self` is
//! meant to be called in `pre_exec`, as here; the namespace needs a fork between fork and
//! exec), so this module allows `unsafe_code` for its `pre_exec` calls and the raw system
//! calls of the namespace; the crate denies it everywhere else.
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
    #[cfg(target_os = "linux")]
    let isolate = pid_namespace::available();
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
        #[cfg(target_os = "linux")]
        if isolate {
            // Returns only in the validator's own process, inside the new namespace.
            pid_namespace::enter()?;
        }
        set_child_subreaper(Some(getpid()))?;
        if let Some(ruleset) = ruleset.take() {
            restrict(ruleset)?;
        }
        #[cfg(target_os = "linux")]
        close_inherited();
        Ok(())
    };
    // SAFETY: the hook runs in the forked child before exec. It only makes system calls
    // (prctl, getppid, getpid, landlock_restrict_self and close, through rustix and the
    // landlock crate, which build no heap values on these paths; unshare, pipe2, fork,
    // waitpid, read, write and close_range for the PID namespace, through libc) and
    // touches no state shared with other threads: the ruleset was moved into the
    // closure, and `take` moves it out of the child's own copy of the closure. The
    // namespace's probe (`available`) runs before the hook is built, in the parent.
    unsafe {
        command.pre_exec(hook);
    }
}

/// Marks every descriptor past the standard three close-on-exec, so the validator
/// inherits none the harness was given (a socket, a terminal's control descriptor): its
/// stdin, stdout and stderr are 0 to 2 by now, and std's own exec-error pipe is closed at
/// exec anyway. `close_range` with `CLOSE_RANGE_CLOEXEC` needs Linux 5.11; on an older
/// kernel the call fails and descriptors the harness inherited without close-on-exec pass
/// on (PROTOCOL "Containment" says so).
#[cfg(target_os = "linux")]
fn close_inherited() {
    const CLOSE_RANGE_CLOEXEC: libc::c_uint = 1 << 2;
    // SAFETY: a raw system call with integer arguments; it allocates nothing.
    unsafe {
        libc::syscall(libc::SYS_close_range, 3u32, u32::MAX, CLOSE_RANGE_CLOEXEC);
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

/// Each validator in a PID namespace of its own, so that nothing it starts outlives a
/// `SIGKILL` of the harness: when a namespace's first process (its init) dies, the kernel
/// kills every process in it, a grandchild that called `setsid` and ignores `SIGTERM` and
/// `SIGHUP` included. A parent-death signal alone reaches only the direct child.
///
/// The validator must not be that init itself: an init ignores the signals it sends
/// itself (`kill -SEGV $$` would do nothing), and a validator's crash must look like one.
/// So the process the harness started (the *keeper*, in the harness's namespace) makes
/// the namespace and forks its init, which forks the validator:
///
/// ```text
/// harness ── keeper (harness's pid namespace; the pid the harness knows and waits for)
///              └── init (pid 1 of the new namespace; reaps orphans)
///                    └── validator (pid 2; exec'd) ── its children, setsid or not
/// ```
///
/// Each has the parent-death signal `SIGKILL`, so killing the harness kills the keeper,
/// that kills the init, and that the whole namespace. When the validator ends, the init
/// passes its raw wait status to the keeper through a pipe and exits (ending the rest of
/// the namespace), and the keeper ends the same way the validator did: the same exit code,
/// or the same signal. Neither keeper nor init holds the validator's pipes or anything
/// else: each closes every descriptor but its end of the status pipe.
///
/// Unprivileged, the namespace comes with a user namespace that maps the caller's own uid
/// and gid to themselves, so the validator runs as the same user. Where the kernel allows
/// neither (no user namespaces, or Ubuntu's AppArmor restriction), [`available`] is false,
/// the validator runs as before, and `soulcheck run` says so once ([`available`] is
/// probed a single time).
#[cfg(target_os = "linux")]
pub(crate) mod pid_namespace {
    use std::io;
    use std::os::unix::process::CommandExt as _;
    use std::process::Command;
    use std::sync::OnceLock;

    /// Whether validators get a PID namespace here: probed once, by a child that tries
    /// to make one and exits without running anything.
    pub(crate) fn available() -> bool {
        static AVAILABLE: OnceLock<bool> = OnceLock::new();
        *AVAILABLE.get_or_init(|| {
            let mut probe = Command::new("/");
            let hook = || -> io::Result<()> {
                // SAFETY: raw system calls only, in the forked child; `_exit` never returns,
                // so the path "/" is never executed.
                unsafe {
                    let code = if unshare_pid().is_ok() { 0 } else { 1 };
                    libc::_exit(code)
                }
            };
            // SAFETY: the hook makes system calls only (see above).
            unsafe {
                probe.pre_exec(hook);
            }
            probe
                .stdin(std::process::Stdio::null())
                .stdout(std::process::Stdio::null())
                .stderr(std::process::Stdio::null());
            match probe.spawn() {
                Ok(mut child) => child.wait().is_ok_and(|status| status.success()),
                Err(_) => false,
            }
        })
    }

    fn last_error() -> io::Error {
        io::Error::last_os_error()
    }

    /// Makes the caller's next child the init of a new PID namespace: directly when
    /// privileged, else inside a new user namespace mapping the caller's ids to
    /// themselves.
    ///
    /// # Safety
    /// Raw system calls; for the single-threaded child between fork and exec.
    unsafe fn unshare_pid() -> io::Result<()> {
        if libc::unshare(libc::CLONE_NEWPID) == 0 {
            return Ok(());
        }
        let uid = libc::getuid();
        let gid = libc::getgid();
        if libc::unshare(libc::CLONE_NEWUSER | libc::CLONE_NEWPID) != 0 {
            return Err(last_error());
        }
        // An unmapped user could create no file at all; map our ids to themselves.
        write_file(c"/proc/self/setgroups", b"deny")?;
        write_map(c"/proc/self/uid_map", uid)?;
        write_map(c"/proc/self/gid_map", gid)?;
        Ok(())
    }

    /// Writes `<id> <id> 1` to `path` without allocating.
    unsafe fn write_map(path: &std::ffi::CStr, id: u32) -> io::Result<()> {
        let mut digits = [0u8; 10];
        let mut len = 0;
        let mut rest = id;
        loop {
            digits[len] = b'0' + (rest % 10) as u8;
            len += 1;
            rest /= 10;
            if rest == 0 {
                break;
            }
        }
        let mut line = [0u8; 32];
        let mut at = 0;
        for _ in 0..2 {
            for index in (0..len).rev() {
                line[at] = digits[index];
                at += 1;
            }
            line[at] = b' ';
            at += 1;
        }
        line[at] = b'1';
        at += 1;
        write_file(path, &line[..at])
    }

    unsafe fn write_file(path: &std::ffi::CStr, bytes: &[u8]) -> io::Result<()> {
        let fd = libc::open(path.as_ptr(), libc::O_WRONLY | libc::O_CLOEXEC);
        if fd < 0 {
            return Err(last_error());
        }
        let written = libc::write(fd, bytes.as_ptr().cast(), bytes.len());
        libc::close(fd);
        if written != bytes.len() as isize {
            return Err(last_error());
        }
        Ok(())
    }

    /// Closes every descriptor but `keep`: the keeper and the init hold nothing of the
    /// validator's (its pipes, std's exec-error pipe), so its readers see the end of its
    /// output when it and its children are done, and `spawn` returns once it has exec'd.
    unsafe fn close_all_but(keep: libc::c_int) {
        let keep = keep as libc::c_uint;
        if keep > 0 {
            libc::syscall(libc::SYS_close_range, 0u32, keep - 1, 0u32);
        }
        libc::syscall(libc::SYS_close_range, keep + 1, u32::MAX, 0u32);
    }

    /// Enters a new PID namespace as described in the module docs. Returns in the
    /// validator's process (pid 2 of the namespace), ready to exec; the keeper and the
    /// init never return. Called only where [`available`] said the kernel allows one: a
    /// refusal now fails the spawn, as a validator never runs with less containment than
    /// the run announced (nor in a user namespace left without its id maps).
    pub(crate) fn enter() -> io::Result<()> {
        // SAFETY: the caller is the single-threaded child between fork and exec; only raw
        // system calls follow (no allocation, no lock), and the keeper and the init leave
        // through `_exit` alone.
        unsafe {
            unshare_pid()?;
            let mut status_pipe = [0 as libc::c_int; 2];
            if libc::pipe2(status_pipe.as_mut_ptr(), libc::O_CLOEXEC) != 0 {
                return Err(last_error());
            }
            let [read_end, write_end] = status_pipe;
            match libc::fork() {
                -1 => Err(last_error()),
                0 => {
                    // The init: dies with the keeper.
                    libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL as libc::c_ulong);
                    libc::close(read_end);
                    init(write_end)
                }
                init_pid => {
                    libc::close(write_end);
                    keep(read_end, init_pid)
                }
            }
        }
    }

    /// Pid 1 of the namespace: forks the validator (which returns to exec), then reaps
    /// until the validator ends, hands its status to the keeper and exits.
    unsafe fn init(write_end: libc::c_int) -> io::Result<()> {
        // The keeper may have died before the parent-death signal was set: then the
        // pipe has no reader left (its write end polls as an error), and nothing should
        // run.
        let mut poll = libc::pollfd {
            fd: write_end,
            events: 0,
            revents: 0,
        };
        if libc::poll(&mut poll, 1, 0) != 0 && poll.revents & libc::POLLERR != 0 {
            libc::_exit(1);
        }
        let validator = libc::fork();
        if validator == -1 {
            return Err(last_error());
        }
        if validator == 0 {
            // The validator: dies with the init (the namespace would kill it anyway).
            libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL as libc::c_ulong);
            libc::close(write_end);
            return Ok(());
        }
        close_all_but(write_end);
        loop {
            let mut status: libc::c_int = 0;
            let reaped = libc::waitpid(-1, &mut status, 0);
            if reaped == validator {
                let bytes = status.to_ne_bytes();
                libc::write(write_end, bytes.as_ptr().cast(), bytes.len());
                // Exiting kills whatever is left in the namespace.
                libc::_exit(0);
            }
            if reaped < 0 && *libc::__errno_location() != libc::EINTR {
                libc::_exit(1);
            }
        }
    }

    /// The process the harness started: waits for the init's report of the validator's
    /// status and ends the same way.
    unsafe fn keep(read_end: libc::c_int, init_pid: libc::pid_t) -> io::Result<()> {
        close_all_but(read_end);
        let mut bytes = [0u8; 4];
        let mut got = 0usize;
        while got < bytes.len() {
            let read = libc::read(
                read_end,
                bytes[got..].as_mut_ptr().cast(),
                bytes.len() - got,
            );
            if read > 0 {
                got += read as usize;
            } else if read == 0 || *libc::__errno_location() != libc::EINTR {
                break;
            }
        }
        let mut init_status: libc::c_int = 0;
        while libc::waitpid(init_pid, &mut init_status, 0) < 0
            && *libc::__errno_location() == libc::EINTR
        {}
        if got < bytes.len() {
            // The init died without a report (killed): so does the keeper.
            libc::kill(libc::getpid(), libc::SIGKILL);
            libc::_exit(137);
        }
        let status = libc::c_int::from_ne_bytes(bytes);
        if libc::WIFSIGNALED(status) {
            let signal = libc::WTERMSIG(status);
            // Die of the same signal, without a second core dump.
            let no_core = libc::rlimit {
                rlim_cur: 0,
                rlim_max: 0,
            };
            libc::setrlimit(libc::RLIMIT_CORE, &no_core);
            libc::signal(signal, libc::SIG_DFL);
            let mut set: libc::sigset_t = std::mem::zeroed();
            libc::sigemptyset(&mut set);
            libc::sigaddset(&mut set, signal);
            libc::sigprocmask(libc::SIG_UNBLOCK, &set, std::ptr::null_mut());
            libc::kill(libc::getpid(), signal);
            libc::_exit(128 + signal);
        }
        libc::_exit(libc::WEXITSTATUS(status))
    }
}
