//! The validator under test, set up from the flags `run` and `fuzz` share: the command
//! template and its protocol (per-case or `--persistent`), the mapping file, the crash
//! patterns, the time and output limits, the sandbox, and the name reports give it. One
//! set of flags and one setup, so a validator that runs under `soulcheck run` runs the
//! same way under `soulcheck fuzz`.
//!
//! A command that cannot run (no such program, not executable, no `{path}` for
//! directory inputs) stops here with exit code 2, before any input is checked.

use std::path::PathBuf;
use std::time::Duration;

use anyhow::{bail, Result};
use clap::Args;
use soulcheck::Reference;
use soulcheck_harness::external::{crash_patterns, CommandValidator, Mapping};
use soulcheck_harness::persistent::PersistentValidator;
use soulcheck_harness::process::Limits;
use soulcheck_harness::sandbox::Sandbox;
use soulcheck_harness::store::Store;
use soulcheck_harness::{Implementation, Strictness, Validator};

#[derive(Args)]
pub struct ValidatorArgs {
    /// The validator under test, as a command template (`my-tool --json {path}`); `run`
    /// without it judges the in-process reference. See harness/PROTOCOL.md.
    #[arg(long = "validator", id = "validator", value_name = "COMMAND")]
    pub command: Option<String>,
    /// The validator speaks the persistent newline-delimited JSON protocol.
    #[arg(long, requires = "validator")]
    pub persistent: bool,
    /// Mapping file teaching the harness an unmodified tool's exit codes and messages.
    #[arg(long, value_name = "FILE", requires = "validator")]
    pub mapping: Option<PathBuf>,
    /// Seconds a validator may spend on one case before it is killed with everything it
    /// started.
    #[arg(long, default_value_t = 5.0)]
    pub timeout: f64,
    /// Seconds the first persistent validator process may take to greet (at least
    /// --timeout); a replacement started during a case greets within --timeout.
    #[arg(
        long,
        value_name = "SECONDS",
        default_value_t = 30.0,
        requires = "persistent"
    )]
    pub startup_timeout: f64,
    /// Run the validator without the sandbox that confines its writes to its temporary
    /// directory and hides the corpus from it (Linux Landlock).
    #[arg(long, requires = "validator")]
    pub no_sandbox: bool,
    /// A variable of this environment to pass on to the validator (repeatable). A
    /// validator gets PATH, LANG, LC_ALL, LC_CTYPE, LC_MESSAGES, TZ and SOULCHECK_*
    /// variables, with HOME and TMPDIR set to its temporary directory, and nothing else.
    #[arg(long = "env", value_name = "NAME", requires = "validator")]
    pub env: Vec<String>,
    /// Bytes of each output stream read per case (reports keep the first 8 KiB of each
    /// as evidence).
    #[arg(long, default_value_t = 4 * 1024 * 1024)]
    pub output_cap: usize,
    /// A regular expression over a validator's stderr that turns a "reject" exit code
    /// into a crash (repeatable; added to the built-in patterns for Python, Node, JVM, Go
    /// and Rust uncaught errors).
    #[arg(long = "crash-pattern", value_name = "REGEX", requires = "validator")]
    pub crash_patterns: Vec<String>,
    /// Turn off the built-in crash patterns: exit codes alone decide.
    #[arg(long, requires = "validator")]
    pub no_default_crash_patterns: bool,
    /// The implementation's name in every report (default: what a persistent validator
    /// says in its hello, else the program's file name).
    #[arg(long, value_name = "NAME")]
    pub name: Option<String>,
    /// The implementation's version in every report.
    #[arg(long = "impl-version", value_name = "VERSION")]
    pub impl_version: Option<String>,
}

/// The validator a command judges, and how it is reached.
pub struct Subject {
    pub validator: Box<dyn Validator>,
    pub strictness: Strictness,
    /// `in-process`, `per-case` or `persistent`, as report headers say.
    pub mode: &'static str,
}

impl ValidatorArgs {
    /// Whether the in-process reference is judged (no `--validator`).
    pub fn is_reference(&self) -> bool {
        self.command.is_none()
    }

    /// Whether the validator runs sandboxed: asked for, and supported by the kernel.
    pub fn sandboxed(&self) -> bool {
        !self.no_sandbox && !self.is_reference() && Sandbox::supported()
    }

    /// The validator under test with the limits a process gets, sandboxed with the corpus
    /// in `store` hidden; the in-process reference without `--validator`. A per-case
    /// command needs `{path}` to be handed directory inputs: when it will be,
    /// `without_path` is the error to stop with if it lacks one.
    pub fn subject(&self, store: &Store, without_path: Option<String>) -> Result<Subject> {
        let limits = Limits {
            timeout: Duration::from_secs_f64(self.timeout.max(0.001)),
            output_cap: self.output_cap,
            startup: Duration::from_secs_f64(self.startup_timeout.max(0.001)),
        };
        let sandbox = self.sandbox(store)?;
        Ok(match &self.command {
            None => Subject {
                validator: Box::new(Reference),
                strictness: Strictness::Reference,
                mode: "in-process",
            },
            Some(command) if self.persistent => Subject {
                validator: Box::new(PersistentValidator::start_sandboxed(
                    command, limits, sandbox,
                )?),
                strictness: Strictness::Conformance,
                mode: "persistent",
            },
            Some(command) => {
                let mapping = match &self.mapping {
                    Some(path) => Some(Mapping::load(path)?),
                    None => None,
                };
                let patterns = crash_patterns(
                    mapping.as_ref(),
                    !self.no_default_crash_patterns,
                    &self.crash_patterns,
                )?;
                let validator = CommandValidator::new(command, limits, mapping)?
                    .with_crash_patterns(patterns)
                    .with_sandbox(sandbox);
                if let Some(message) = without_path.filter(|_| !validator.uses_path()) {
                    bail!("{message}");
                }
                Subject {
                    validator: Box::new(validator),
                    strictness: Strictness::Conformance,
                    mode: "per-case",
                }
            }
        })
    }

    /// The sandbox validators run in: writes confined to their temporary directories, and
    /// the corpus hidden when it is on disk (the built-in corpus is not on disk at all).
    fn sandbox(&self, store: &Store) -> Result<Sandbox> {
        Ok(self.confinement(store)?.passing_env(&self.env))
    }

    /// [`ValidatorArgs::sandbox`] before the environment passed on.
    fn confinement(&self, store: &Store) -> Result<Sandbox> {
        if self.is_reference() {
            return Ok(Sandbox::off());
        }
        if !soulcheck_harness::process::pid_namespaces() {
            eprintln!("note: this kernel gives validators no PID namespace (unprivileged user namespaces are off): what a validator starts outlives a SIGKILL of soulcheck (SIGINT, SIGTERM, SIGHUP and timeouts still end it all)");
        }
        if self.no_sandbox {
            return Ok(Sandbox::off());
        }
        if !Sandbox::supported() {
            eprintln!("note: this kernel has no Landlock: validators run unsandboxed (they may write outside their temporary directory and read the corpus)");
            return Ok(Sandbox::off());
        }
        let sandbox = Sandbox::new();
        Ok(match store {
            Store::Disk(path) => sandbox.hiding(path)?,
            _ => sandbox,
        })
    }

    /// Who the validator is in reports: what it says, with `--name` and `--impl-version`
    /// on top.
    pub fn implementation(&self, validator: &dyn Validator) -> Implementation {
        let mut implementation = validator.implementation();
        if let Some(name) = &self.name {
            implementation.name = name.clone();
        }
        if let Some(version) = &self.impl_version {
            implementation.version = version.clone();
        }
        implementation
    }
}
