//! The sandbox a validator process runs in (Linux Landlock): it may write only beneath
//! the directories made for it (its case's temporary directories; in persistent mode the
//! run's scratch directory, where every case's tree is materialised) and a few devices
//! (`/dev/null`, `/dev/zero`, `/dev/full`), and it cannot read the hidden paths (the
//! corpus, when it is on disk). Everything else stays readable, so interpreters and their
//! libraries work as usual.
//!
//! Landlock can only *allow*, so hiding a path is spelled as reading allowed beneath
//! every sibling of the path and of each of its ancestors, computed when a validator
//! starts. A directory on the way to a hidden path can be passed through but not listed.
//! The rules are prepared here, in the harness; the validator's process enforces them
//! on itself just before `exec` ([`crate::preexec`]), and they bind everything it starts.
//!
//! Where the kernel has no Landlock, [`Sandbox::supported`] says so and validators run
//! unsandboxed (the command line says so once). [`Sandbox::off`] opts out.

use std::fmt;
use std::path::{Path, PathBuf};

use crate::preexec::Ruleset;

/// Devices a sandboxed validator may still write to.
const DEVICES: &[&str] = &["/dev/null", "/dev/zero", "/dev/full"];

/// How validator processes are confined.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sandbox {
    on: bool,
    hidden: Vec<PathBuf>,
    /// Variables of the harness's environment passed on to validators beside the fixed
    /// ones ([`PASSED_ENV`]); the rest of the environment is not.
    passed_env: Vec<String>,
}

/// The variables of the harness's environment every validator gets (when set): what finds
/// programs and reads text. Everything else (`$TMUX`, `$SSH_AUTH_SOCK`, `$DBUS_*`, tokens)
/// is left out, so a validator reaches no socket or secret through its environment;
/// `HOME` and `TMPDIR` are set to its own temporary directory, and `SOULCHECK_*` variables
/// pass too. `--env NAME` passes more.
pub const PASSED_ENV: &[&str] = &["PATH", "LANG", "LC_ALL", "LC_CTYPE", "LC_MESSAGES", "TZ"];

impl Default for Sandbox {
    fn default() -> Sandbox {
        Sandbox::new()
    }
}

/// Why a sandbox could not be prepared.
#[derive(Debug)]
#[non_exhaustive]
pub enum SandboxError {
    /// A path to hide or to allow could not be resolved.
    Path {
        /// The path.
        path: PathBuf,
        /// What went wrong.
        source: std::io::Error,
    },
    /// The kernel refused the ruleset.
    Landlock {
        /// What went wrong.
        message: String,
    },
}

impl fmt::Display for SandboxError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SandboxError::Path { path, source } => {
                write!(f, "sandbox: cannot resolve {}: {source}", path.display())
            }
            SandboxError::Landlock { message } => write!(f, "sandbox: {message}"),
        }
    }
}

impl std::error::Error for SandboxError {}

impl Sandbox {
    /// Sandboxed (where the kernel supports it), hiding nothing.
    pub fn new() -> Sandbox {
        Sandbox {
            on: true,
            hidden: Vec::new(),
            passed_env: Vec::new(),
        }
    }

    /// No sandbox: validators may write anywhere their user may.
    pub fn off() -> Sandbox {
        Sandbox {
            on: false,
            hidden: Vec::new(),
            passed_env: Vec::new(),
        }
    }

    /// Also hides `path` (and everything beneath it) from validators. The path must exist;
    /// it is resolved (symbolic links followed) now.
    pub fn hiding(mut self, path: &Path) -> Result<Sandbox, SandboxError> {
        let resolved = path.canonicalize().map_err(|source| SandboxError::Path {
            path: path.to_owned(),
            source,
        })?;
        self.hidden.push(resolved);
        Ok(self)
    }

    /// Also passes these variables of the harness's environment on to validators (the
    /// environment is cleared whether the sandbox is on or not).
    pub fn passing_env(mut self, names: &[String]) -> Sandbox {
        self.passed_env.extend(names.iter().cloned());
        self
    }

    /// The environment a validator starts with: the fixed variables, `SOULCHECK_*` and
    /// the passed ones, each as the harness has it; `HOME` and `TMPDIR` are `home`.
    pub fn environment(&self, home: &Path) -> Vec<(std::ffi::OsString, std::ffi::OsString)> {
        let mut environment: Vec<(std::ffi::OsString, std::ffi::OsString)> = std::env::vars_os()
            .filter(|(name, _)| {
                let name = name.to_string_lossy();
                PASSED_ENV.contains(&name.as_ref())
                    || name.starts_with("SOULCHECK_")
                    || self.passed_env.iter().any(|passed| *passed == name)
            })
            .filter(|(name, _)| name != "HOME" && name != "TMPDIR")
            .collect();
        environment.push(("HOME".into(), home.into()));
        environment.push(("TMPDIR".into(), home.into()));
        environment
    }

    /// Whether validators are sandboxed: asked for, and supported by the kernel.
    pub fn is_on(&self) -> bool {
        self.on && Sandbox::supported()
    }

    /// The hidden paths.
    pub fn hidden(&self) -> &[PathBuf] {
        &self.hidden
    }

    /// Whether this kernel supports Landlock (probed once).
    pub fn supported() -> bool {
        imp::supported()
    }

    /// The rules for one validator process that may write beneath `writable`; `None` when
    /// the sandbox is off or unsupported.
    pub(crate) fn ruleset(&self, writable: &[&Path]) -> Result<Option<Ruleset>, SandboxError> {
        if !self.is_on() {
            return Ok(None);
        }
        imp::ruleset(&self.hidden, writable).map(Some)
    }
}

#[cfg(target_os = "linux")]
mod imp {
    use std::collections::BTreeSet;
    use std::path::{Path, PathBuf};
    use std::sync::OnceLock;

    use landlock::{
        Access, AccessFs, BitFlags, CompatLevel, Compatible, PathBeneath, PathFd, Ruleset,
        RulesetAttr, RulesetCreated, RulesetCreatedAttr, ABI,
    };

    use super::{SandboxError, DEVICES};

    /// The rights handled: those of ABI 3 (Linux 6.2). Later ABIs add device ioctls and
    /// socket rights, which would break ordinary programs and protect no file.
    const ABI_USED: ABI = ABI::V3;

    pub(super) fn supported() -> bool {
        static SUPPORTED: OnceLock<bool> = OnceLock::new();
        *SUPPORTED.get_or_init(|| {
            Ruleset::default()
                .set_compatibility(CompatLevel::HardRequirement)
                .handle_access(AccessFs::from_all(ABI::V1))
                .and_then(|ruleset| ruleset.create())
                .is_ok()
        })
    }

    fn landlock(error: impl std::fmt::Display) -> SandboxError {
        SandboxError::Landlock {
            message: error.to_string(),
        }
    }

    pub(super) fn ruleset(
        hidden: &[PathBuf],
        writable: &[&Path],
    ) -> Result<RulesetCreated, SandboxError> {
        let all = AccessFs::from_all(ABI_USED);
        let read = AccessFs::from_read(ABI_USED);
        let file = AccessFs::from_file(ABI_USED);
        // Reads are handled (denied unless allowed) only when something is hidden.
        let handled = if hidden.is_empty() {
            AccessFs::from_write(ABI_USED)
        } else {
            all
        };
        let mut ruleset = Ruleset::default()
            .handle_access(handled)
            .map_err(landlock)?
            .create()
            .map_err(landlock)?;
        for dir in writable {
            let fd = PathFd::new(dir).map_err(landlock)?;
            ruleset = ruleset
                .add_rule(PathBeneath::new(fd, all & handled))
                .map_err(landlock)?;
        }
        for device in DEVICES {
            // A device this system lacks is simply not allowed.
            if let Ok(fd) = PathFd::new(device) {
                ruleset = ruleset
                    .add_rule(PathBeneath::new(fd, file & handled))
                    .map_err(landlock)?;
            }
        }
        for (path, is_dir) in readable_around(hidden) {
            let Ok(fd) = PathFd::new(&path) else { continue };
            let access: BitFlags<AccessFs> = if is_dir { read } else { read & file };
            ruleset = ruleset
                .add_rule(PathBeneath::new(fd, access))
                .map_err(landlock)?;
        }
        Ok(ruleset)
    }

    /// Every sibling of each hidden path and of each of its ancestors, with whether it
    /// is a directory (symbolic links followed): reading beneath all of these hides
    /// exactly the hidden paths.
    fn readable_around(hidden: &[PathBuf]) -> Vec<(PathBuf, bool)> {
        let mut on_the_way: BTreeSet<PathBuf> = BTreeSet::new();
        for path in hidden {
            on_the_way.extend(path.ancestors().map(Path::to_path_buf));
        }
        let hidden: BTreeSet<&PathBuf> = hidden.iter().collect();
        let mut found = Vec::new();
        for dir in &on_the_way {
            if hidden.contains(dir) {
                continue;
            }
            let Ok(entries) = std::fs::read_dir(dir) else {
                continue;
            };
            for entry in entries.flatten() {
                let path = entry.path();
                if on_the_way.contains(&path) {
                    continue;
                }
                // A symbolic link is allowed where it leads, so one that leads to a hidden
                // path, into one or above one would undo the hiding.
                let Ok(target) = path.canonicalize() else {
                    continue;
                };
                let reveals = hidden
                    .iter()
                    .any(|hidden| target.starts_with(hidden) || hidden.starts_with(&target));
                if reveals {
                    continue;
                }
                found.push((path, target.is_dir()));
            }
        }
        found
    }
}

#[cfg(not(target_os = "linux"))]
mod imp {
    use std::path::{Path, PathBuf};

    use super::SandboxError;
    use crate::preexec::Ruleset;

    pub(super) fn supported() -> bool {
        false
    }

    pub(super) fn ruleset(
        _hidden: &[PathBuf],
        _writable: &[&Path],
    ) -> Result<Ruleset, SandboxError> {
        Err(SandboxError::Landlock {
            message: "Landlock is a Linux feature".to_owned(),
        })
    }
}
