//! Nothing a validator starts outlives its case or the run.
//!
//! A process group is not enough: a grandchild that calls `setsid` leaves it. So:
//!
//! - every validator process is started by one long-lived spawner thread (a parent-death
//!   signal fires when the *thread* that forked the child ends, so forking from a worker
//!   thread would kill pooled persistent validators when that worker finishes), and is
//!   recorded as started until it is reaped;
//! - the harness is a child subreaper and each validator is one too ([`crate::preexec`]):
//!   while a validator lives, its whole tree stays below it (its orphans are adopted by
//!   it); when it ends, what is left of its tree is adopted by the harness;
//! - when a validator's case (or persistent session) ends, [`end`] kills its process
//!   group, every live descendant (found by walking `/proc`), and every process the
//!   harness adopted, with their descendants, again until none is left. A process the
//!   harness adopted and did not start can only come from a validator that has ended, so
//!   killing it is always right (a validator that clears its own subreaper attribute
//!   loses its orphans early: that is its doing);
//! - on `SIGINT` or `SIGTERM` ([`crate::interrupt`]), [`end_all`] does the same for every
//!   validator still running, and no new one starts;
//! - what no live harness can do after a `SIGKILL` of it, the kernel does: on Linux each
//!   validator runs in a PID namespace of its own ([`crate::preexec`]), emptied when the
//!   harness's death ends the namespace's init. The pid a started process is recorded
//!   under is its keeper's, an ancestor of the validator, so the walks above find the
//!   validator and everything below it as before.
//!
//! The harness kills every process it adopts: a program that embeds this crate and
//! starts children of its own outside it should not rely on them surviving orphanhood.

use std::collections::{BTreeMap, BTreeSet};
use std::io;
use std::process::{Child, Command};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Mutex, MutexGuard, OnceLock};
use std::time::Duration;

use rustix::process::{
    getpid, kill_process, kill_process_group, set_child_subreaper, waitpid, Pid, Signal,
    WaitOptions,
};

/// Pids of the processes the spawner started that are not reaped yet.
static STARTED: Mutex<BTreeSet<i32>> = Mutex::new(BTreeSet::new());

/// Set once the run is being interrupted: no new validator starts.
static CLOSED: AtomicBool = AtomicBool::new(false);

/// How many times [`end`] looks again for processes to kill: each round kills what it
/// finds, and what a killed process had started is adopted by the harness and found in
/// the next. Generous, so only a fork bomb outruns it.
const ROUNDS: usize = 64;

struct Job {
    command: Command,
    reply: mpsc::SyncSender<io::Result<Child>>,
}

fn started() -> MutexGuard<'static, BTreeSet<i32>> {
    STARTED
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// The spawner thread's queue; `None` if the thread could not be started.
fn spawner() -> Option<&'static Mutex<mpsc::Sender<Job>>> {
    static SPAWNER: OnceLock<Option<Mutex<mpsc::Sender<Job>>>> = OnceLock::new();
    SPAWNER
        .get_or_init(|| {
            // Adopt the orphans of ended validators so they can be found and killed.
            let _ = set_child_subreaper(Some(getpid()));
            let (sender, receiver) = mpsc::channel::<Job>();
            std::thread::Builder::new()
                .name("soulcheck-spawner".to_owned())
                .spawn(move || {
                    for mut job in receiver {
                        let _ = job.reply.send(spawn_now(&mut job.command));
                    }
                })
                .ok()
                .map(|_| Mutex::new(sender))
        })
        .as_ref()
}

fn spawn_now(command: &mut Command) -> io::Result<Child> {
    // Held across the fork, so a concurrent [`end`] never takes the new child for an orphan.
    let mut started = started();
    if CLOSED.load(Ordering::SeqCst) {
        return Err(io::Error::new(
            io::ErrorKind::Interrupted,
            "the run is being interrupted",
        ));
    }
    let child = command.spawn()?;
    started.insert(child.id() as i32);
    Ok(child)
}

/// Starts `command` from the spawner thread (see the module docs). The caller must end
/// the child with [`end`] and reap it with [`reaped`].
pub(crate) fn spawn(command: Command) -> io::Result<Child> {
    let Some(queue) = spawner() else {
        return Err(io::Error::other("cannot start the spawner thread"));
    };
    let (reply, answer) = mpsc::sync_channel(1);
    queue
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
        .send(Job { command, reply })
        .map_err(|_| io::Error::other("the spawner thread is gone"))?;
    answer
        .recv()
        .map_err(|_| io::Error::other("the spawner thread is gone"))?
}

/// The pid of the harness process itself, the parent of every validator.
pub(crate) fn harness_pid() -> Pid {
    getpid()
}

/// Records that `child` was reaped (its `wait` returned).
pub(crate) fn reaped(child: &Child) {
    started().remove(&(child.id() as i32));
}

/// Kills the validator `root` and everything it started: its process group, its live
/// descendants, and every process the harness adopted (with their descendants), until
/// none is left. The caller reaps `root` itself afterwards.
pub(crate) fn end(root: Pid) {
    kill_everything(Some(root));
}

/// Kills every validator still running and everything they started, and lets no new one
/// start. For an interrupted run.
pub(crate) fn end_all() {
    CLOSED.store(true, Ordering::SeqCst);
    let roots: Vec<i32> = started().iter().copied().collect();
    for root in roots.iter().copied().filter_map(Pid::from_raw) {
        let _ = kill_process_group(root, Signal::KILL);
        let _ = kill_process(root, Signal::KILL);
    }
    for root in roots.into_iter().filter_map(Pid::from_raw) {
        kill_everything(Some(root));
    }
    kill_everything(None);
}

/// Kills whatever [`end`] and [`end_all`] would; `None`: only what the harness adopted.
pub(crate) fn sweep() {
    kill_everything(None);
}

fn kill_everything(root: Option<Pid>) {
    let me = getpid();
    for _ in 0..ROUNDS {
        if let Some(root) = root {
            // The group first: one system call for every process that stayed in it.
            let _ = kill_process_group(root, Signal::KILL);
        }
        // The table is read and acted on under the lock of started processes, so a child
        // the spawner forks meanwhile is never taken for an orphan.
        let started = started();
        let table = Table::read();
        let mut targets = BTreeSet::new();
        if let Some(root) = root {
            if table.is_live(root.as_raw_pid()) {
                // It may have left its own group (`setsid`).
                targets.insert(root.as_raw_pid());
            }
            targets.extend(table.live_descendants(root.as_raw_pid()));
        }
        let adopted: Vec<i32> = table
            .children(me.as_raw_pid())
            .filter(|pid| !started.contains(pid))
            .collect();
        for &orphan in &adopted {
            if table.is_live(orphan) {
                targets.insert(orphan);
            }
            targets.extend(table.live_descendants(orphan));
        }
        drop(started);
        for pid in targets.iter().copied().filter_map(Pid::from_raw) {
            let _ = kill_process(pid, Signal::KILL);
        }
        // Reap the adopted: a killed process is a zombie until its parent waits for it.
        for pid in adopted.iter().copied().filter_map(Pid::from_raw) {
            let _ = waitpid(Some(pid), WaitOptions::NOHANG);
        }
        if targets.is_empty() && adopted.is_empty() {
            return;
        }
        // Killed processes take a moment to become zombies and hand their children on.
        std::thread::sleep(Duration::from_millis(1));
    }
}

/// One look at `/proc`: each process's parent and whether it is still running.
struct Table {
    parents: BTreeMap<i32, i32>,
    children: BTreeMap<i32, Vec<i32>>,
    zombies: BTreeSet<i32>,
}

impl Table {
    fn read() -> Table {
        let mut parents = BTreeMap::new();
        let mut zombies = BTreeSet::new();
        let mut children: BTreeMap<i32, Vec<i32>> = BTreeMap::new();
        let Ok(entries) = std::fs::read_dir("/proc") else {
            return Table {
                parents,
                children,
                zombies,
            };
        };
        for entry in entries.flatten() {
            let Some(pid) = entry
                .file_name()
                .to_str()
                .and_then(|name| name.parse::<i32>().ok())
            else {
                continue;
            };
            // A process that ended since the directory was listed has no stat file.
            let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
                continue;
            };
            // The command name, in parentheses, may itself hold spaces and parentheses.
            let Some((_, rest)) = stat.rsplit_once(')') else {
                continue;
            };
            let mut fields = rest.split_whitespace();
            let state = fields.next().unwrap_or_default();
            let Some(parent) = fields.next().and_then(|field| field.parse().ok()) else {
                continue;
            };
            parents.insert(pid, parent);
            children.entry(parent).or_default().push(pid);
            if state == "Z" || state == "X" {
                zombies.insert(pid);
            }
        }
        Table {
            parents,
            children,
            zombies,
        }
    }

    fn is_live(&self, pid: i32) -> bool {
        self.parents.contains_key(&pid) && !self.zombies.contains(&pid)
    }

    fn children(&self, parent: i32) -> impl Iterator<Item = i32> + '_ {
        self.children.get(&parent).into_iter().flatten().copied()
    }

    /// Every live process below `root`, at any depth.
    fn live_descendants(&self, root: i32) -> Vec<i32> {
        let mut found = Vec::new();
        let mut frontier = vec![root];
        let mut seen = BTreeSet::from([root]);
        while let Some(parent) = frontier.pop() {
            for child in self.children(parent) {
                if seen.insert(child) {
                    frontier.push(child);
                    if self.is_live(child) {
                        found.push(child);
                    }
                }
            }
        }
        found
    }
}
