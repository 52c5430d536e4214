//! Setting up a validator process before any case runs: splitting its command, finding
//! its program, and the typed error that says what is wrong with a setup and how to fix
//! it. A setup error ends a run with exit code 2 instead of failing every case as a
//! crash, which would look like a validator problem when it is a typing problem.

use soulcheck_vocabulary::display::visible;
use std::fmt;
use std::os::unix::fs::PermissionsExt as _;
use std::path::{Path, PathBuf};

/// Why a validator could not be set up.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum SetupError {
    /// The command has no words.
    EmptyCommand,
    /// The command cannot be split into words (an unclosed quote).
    Unsplittable {
        /// The command as given.
        command: String,
    },
    /// The program does not exist.
    ProgramNotFound {
        /// The program as the command names it.
        program: String,
        /// Where it was looked for: the resolved path, or `$PATH` for a bare name.
        looked_in: String,
    },
    /// The program exists but is not an executable file.
    NotExecutable {
        /// The resolved path.
        path: PathBuf,
    },
    /// A mapping file or crash pattern is unusable.
    Invalid {
        /// What is wrong.
        message: String,
    },
    /// A persistent validator started but did not complete the handshake.
    DidNotStart {
        /// What happened, with the first line of its stderr.
        message: String,
    },
}

impl fmt::Display for SetupError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SetupError::EmptyCommand => f.write_str("the validator command is empty"),
            SetupError::Unsplittable { command } => write!(
                f,
                "cannot split the validator command {command:?} into words (an unclosed quote?)"
            ),
            SetupError::ProgramNotFound { program, looked_in } => write!(
                f,
                "the validator program {program:?} does not exist (looked in {looked_in})\n\
                 hint: a relative path is resolved against the directory you run soulcheck from; \
                 check the spelling, or give an absolute path"
            ),
            SetupError::NotExecutable { path } => write!(
                f,
                "the validator program {} is not an executable file\n\
                 hint: `chmod +x {}`, or name its interpreter first (`python3 {}`)",
                path.display(),
                path.display(),
                path.display()
            ),
            SetupError::Invalid { message } => f.write_str(&visible(message)),
            // The message quotes what the validator printed: shown escaped.
            SetupError::DidNotStart { message } => write!(
                f,
                "the persistent validator did not start: {}",
                visible(message)
            ),
        }
    }
}

impl std::error::Error for SetupError {}

/// Splits a command template into words the way a POSIX shell would (no shell runs it)
/// and resolves its program: a path with a slash against the caller's working directory
/// (a validator runs in a fresh temporary directory, where a relative path means
/// nothing), a bare name on `$PATH`. The program must exist and be executable.
pub fn command_words(command: &str) -> Result<Vec<String>, SetupError> {
    let mut words = shlex::split(command).ok_or_else(|| SetupError::Unsplittable {
        command: command.to_owned(),
    })?;
    let Some(program) = words.first_mut() else {
        return Err(SetupError::EmptyCommand);
    };
    *program = resolve_program(program)?.to_string_lossy().into_owned();
    Ok(words)
}

/// The program's absolute path, or why there is none.
pub fn resolve_program(program: &str) -> Result<PathBuf, SetupError> {
    if program.contains('/') {
        // `./v.sh` is `v.sh`: the `.` would only clutter messages.
        let path: PathBuf = Path::new(program)
            .components()
            .filter(|component| !matches!(component, std::path::Component::CurDir))
            .collect();
        let absolute = if path.is_absolute() {
            path.to_owned()
        } else {
            std::env::current_dir()
                .map(|dir| dir.join(&path))
                .unwrap_or_else(|_| path.clone())
        };
        return check_executable(program, &absolute, absolute.display().to_string());
    }
    let search = std::env::var_os("PATH").unwrap_or_default();
    for dir in std::env::split_paths(&search) {
        let candidate = dir.join(program);
        if candidate.is_file() {
            return check_executable(program, &candidate, "$PATH".to_owned());
        }
    }
    Err(SetupError::ProgramNotFound {
        program: program.to_owned(),
        looked_in: "$PATH".to_owned(),
    })
}

fn check_executable(program: &str, path: &Path, looked_in: String) -> Result<PathBuf, SetupError> {
    let metadata = std::fs::metadata(path).map_err(|_| SetupError::ProgramNotFound {
        program: program.to_owned(),
        looked_in,
    })?;
    if !metadata.is_file() || metadata.permissions().mode() & 0o111 == 0 {
        return Err(SetupError::NotExecutable {
            path: path.to_owned(),
        });
    }
    Ok(path.to_owned())
}
