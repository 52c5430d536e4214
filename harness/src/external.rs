//! Validators behind a process boundary, in per-case mode: one process per case, the input
//! in a fresh temporary directory (or on stdin), the verdict from the exit code, and
//! diagnostics from `soulcheck check --json`-shaped stdout or from a mapping file. See
//! `harness/PROTOCOL.md` for the contract.

use soulcheck_vocabulary::{Location, Severity, Verdict};
use std::path::Path;
use std::process::Command;

use regex::Regex;
use serde::Deserialize;

use crate::bounded::{self, kept, Wire, MAX_DIAGNOSTICS};
use crate::crash::CrashPatterns;
use crate::process::{self, Exit, Limits};
use crate::sandbox::Sandbox;
use crate::scratch;
use crate::setup::{command_words, SetupError};
use crate::validator::{
    Answer, Captured, Diagnostic, Evidence, Implementation, Input, Observation, Outcome, Request,
    Validator,
};
use crate::LoadError;

/// A validator command run once per case.
#[derive(Debug)]
pub struct CommandValidator {
    template: Vec<String>,
    limits: Limits,
    mapping: Option<Mapping>,
    crash_patterns: CrashPatterns,
    implementation: Implementation,
    sandbox: Sandbox,
}

impl CommandValidator {
    /// Parses a command template such as `my-validator --json {path}`. Placeholders:
    /// `{path}` (the input's path in a fresh temporary directory; without it the input
    /// goes to stdin), `{name}` (its file name), `{format}`, `{operation}` and
    /// `{context}` (the case context as compact JSON). The program is resolved now (see
    /// [`crate::setup::command_words`]), so a typo fails the setup, not every case. The
    /// crash patterns are the built-in ones plus the mapping's (see [`crash_patterns`]).
    pub fn new(
        template: &str,
        limits: Limits,
        mapping: Option<Mapping>,
    ) -> Result<CommandValidator, SetupError> {
        let words = command_words(template)?;
        let program = shlex::split(template)
            .and_then(|words| words.into_iter().next())
            .unwrap_or_default();
        let name = Path::new(&program).file_name().map_or_else(
            || program.clone(),
            |name| name.to_string_lossy().into_owned(),
        );
        let crash_patterns = crash_patterns(mapping.as_ref(), true, &[])?;
        Ok(CommandValidator {
            implementation: Implementation {
                name,
                ..Implementation::default()
            },
            template: words,
            limits,
            mapping,
            crash_patterns,
            sandbox: Sandbox::new(),
        })
    }

    /// Replaces the sandbox (the default: writes confined to the case's directories,
    /// nothing hidden).
    pub fn with_sandbox(mut self, sandbox: Sandbox) -> CommandValidator {
        self.sandbox = sandbox;
        self
    }

    /// Replaces the crash patterns.
    pub fn with_crash_patterns(mut self, patterns: CrashPatterns) -> CommandValidator {
        self.crash_patterns = patterns;
        self
    }

    fn argv(&self, request: &Request<'_>, path: &Path, name: &str) -> Vec<String> {
        let context = serde_json::Value::Object(request.context.clone()).to_string();
        self.template
            .iter()
            .map(|word| {
                word.replace("{path}", &path.to_string_lossy())
                    .replace("{name}", name)
                    .replace("{format}", request.format.name())
                    .replace("{operation}", request.operation)
                    .replace("{context}", &context)
            })
            .collect()
    }

    /// Whether the command names `{path}`; without it a document goes to stdin and a
    /// directory input cannot be handed over at all.
    pub fn uses_path(&self) -> bool {
        self.template.iter().any(|word| word.contains("{path}"))
    }
}

/// The crash patterns of a run: the built-in set unless `defaults` is false or the
/// mapping turns it off, then the mapping's patterns, then `extra` (`--crash-pattern`).
pub fn crash_patterns(
    mapping: Option<&Mapping>,
    defaults: bool,
    extra: &[String],
) -> Result<CrashPatterns, SetupError> {
    let mapping_defaults = mapping.is_none_or(|mapping| mapping.crash.defaults);
    let mut patterns = if defaults && mapping_defaults {
        CrashPatterns::defaults()
    } else {
        CrashPatterns::none()
    };
    let from_mapping = mapping.map_or(&[][..], |mapping| &mapping.crash.patterns[..]);
    for pattern in from_mapping.iter().chain(extra) {
        patterns.add(pattern).map_err(|error| SetupError::Invalid {
            message: format!("crash pattern {pattern:?}: {error}"),
        })?;
    }
    Ok(patterns)
}

impl Validator for CommandValidator {
    fn implementation(&self) -> Implementation {
        self.implementation.clone()
    }

    fn run(&self, request: &Request<'_>) -> Outcome {
        self.answer(request).outcome
    }

    fn answer(&self, request: &Request<'_>) -> Answer {
        // Every case gets a fresh private directory: a validator that deletes or rewrites
        // its input harms only this copy.
        let scratch = match scratch::case_dir("case-") {
            Ok(scratch) => scratch,
            Err(error) => {
                return crashed(format!("cannot create a temporary directory: {error}")).into()
            }
        };
        let (path, name, stdin) = match request.input {
            Input::Document { file_name, bytes } => {
                // Confined to the case's scratch directory, whatever name a corpus gave.
                let path = match crate::files::confine(scratch.path(), Path::new(file_name)) {
                    Ok(path) => path,
                    Err(error) => {
                        return crashed(format!("cannot write the input copy: {error}")).into()
                    }
                };
                if let Err(error) = std::fs::write(&path, bytes) {
                    return crashed(format!("cannot write the input copy: {error}")).into();
                }
                let stdin = (!self.uses_path()).then(|| bytes.clone());
                (path, file_name.clone(), stdin)
            }
            Input::Tree { root } => {
                if !self.uses_path() {
                    return Outcome::Skipped {
                        reason: "tree inputs need `{path}` in the validator command".to_owned(),
                    }
                    .into();
                }
                // The runner materialised this tree for this request alone, with any
                // decoys beside it, so it is handed over as it is.
                let name = root
                    .file_name()
                    .map_or("tree".into(), |name| name.to_string_lossy().into_owned());
                (root.clone(), name, None)
            }
        };
        let argv = self.argv(request, &path, &name);
        let mut command = Command::new(&argv[0]);
        command.args(&argv[1..]).current_dir(scratch.path());
        // It may write in its working directory and in the directory of its tree (the
        // tree and the decoys beside it), nowhere else.
        let mut writable = vec![scratch.path()];
        if let Input::Tree { root } = request.input {
            writable.extend(root.parent());
        }
        // The case's time runs from here: the validator's, and then the time its output
        // takes to read (crash patterns, the mapping), count against `--timeout` together.
        let started = std::time::Instant::now();
        let finished = match process::run(command, stdin, self.limits, &self.sandbox, &writable) {
            Ok(finished) => finished,
            Err(error) => return crashed(format!("cannot start {:?}: {error}", argv[0])).into(),
        };
        let exit = match finished.exit {
            Exit::TimedOut => "timed out".to_owned(),
            Exit::Signal(signal) => format!("killed by signal {signal}"),
            Exit::Code(code) => format!("exit code {code}"),
        };
        let mut evidence = Evidence::new(
            exit,
            Captured::keep(&finished.stdout, finished.stdout_truncated),
            Captured::keep(&finished.stderr, finished.stderr_truncated),
        );
        let mut dropped = 0;
        let outcome = match finished.exit {
            Exit::TimedOut => Outcome::TimedOut,
            Exit::Signal(signal) => crashed(format!(
                "killed by signal {signal}{}",
                excerpt(&finished.stderr)
            )),
            Exit::Code(code) => match self.verdict_of(code) {
                // Exit 3 with `{"skipped": "reason"}` on stdout: the validator declines the
                // case (an input past a limit of its own, say), as `skipped` does in the
                // persistent protocol. Any other unmapped code is a crash.
                None if code == SKIP_EXIT_CODE => match skipped_reason(&finished.stdout) {
                    Some(reason) => Outcome::Skipped { reason },
                    None => crashed(format!(
                        "exit code {code} without `{{\"skipped\": \"reason\"}}` on stdout{}",
                        excerpt(&finished.stderr)
                    )),
                },
                None => crashed(format!("exit code {code}{}", excerpt(&finished.stderr))),
                Some(verdict) => {
                    let stderr = String::from_utf8_lossy(&finished.stderr);
                    match self.crash_patterns.find(&stderr) {
                        // An uncaught error exits 1 in most runtimes: that is no rejection.
                        Some(found) if verdict == Verdict::Reject => {
                            let last = last_line(&stderr)
                                .filter(|line| *line != found.line)
                                .map(|line| format!(" ... {line}"))
                                .unwrap_or_default();
                            let message = format!(
                                "exit code {code} with an uncaught error on stderr ({}, line {}): {}{last}",
                                found.pattern, found.line_number, found.line
                            );
                            evidence.crash_match = Some(found);
                            crashed(message)
                        }
                        _ => {
                            let (outcome, count) = interpret(
                                verdict,
                                &finished.stdout,
                                &finished.stderr,
                                self.mapping.as_ref(),
                                request,
                            );
                            dropped = count;
                            outcome
                        }
                    }
                }
            },
        };
        evidence.diagnostics_dropped = dropped;
        // Reading the output (a mapping's patterns over a large output, say) may not take
        // the case past its timeout either: the case is then a timeout, as if the
        // validator had taken that long.
        let outcome =
            if !matches!(outcome, Outcome::TimedOut) && started.elapsed() > self.limits.timeout {
                evidence.exit = format!(
                    "{}; reading its output took the case past the {} timeout",
                    evidence.exit,
                    humantime::format_duration(self.limits.timeout)
                );
                Outcome::TimedOut
            } else {
                outcome
            };
        Answer {
            outcome,
            evidence: Some(evidence),
        }
    }
}

/// The line that names the error (at most 200 characters): most runtimes print it last,
/// below the stack, but a tool may add a line of its own after it, so the last line that
/// looks like `SomeError: ...` wins over the last line.
fn last_line(text: &str) -> Option<String> {
    let error = |line: &&str| {
        let name = line.trim().split(':').next().unwrap_or_default();
        !name.contains(' ') && (name.ends_with("Error") || name.ends_with("Exception"))
    };
    let lines = || text.lines().rev().filter(|line| !line.trim().is_empty());
    lines()
        .find(error)
        .or_else(|| lines().next())
        .map(|line| line.trim().chars().take(200).collect())
}

impl CommandValidator {
    fn verdict_of(&self, code: i32) -> Option<Verdict> {
        match &self.mapping {
            Some(mapping) if mapping.exit.accept.contains(&code) => Some(Verdict::Accept),
            Some(mapping) if mapping.exit.reject.contains(&code) => Some(Verdict::Reject),
            Some(_) => None,
            None => match code {
                0 => Some(Verdict::Accept),
                1 => Some(Verdict::Reject),
                _ => None,
            },
        }
    }
}

/// The exit code with which a per-case validator declines a case, saying why on stdout.
pub const SKIP_EXIT_CODE: i32 = 3;

/// The reason of a `{"skipped": "reason"}` object on stdout (at most 1000 characters).
fn skipped_reason(stdout: &[u8]) -> Option<String> {
    let text = std::str::from_utf8(stdout).ok()?;
    let value: serde_json::Value = serde_json::from_str(text.trim()).ok()?;
    let reason = value.get("skipped")?.as_str()?;
    Some(reason.chars().take(1000).collect())
}

fn crashed(message: String) -> Outcome {
    Outcome::Crashed { message }
}

/// The first line of stderr, for crash messages.
pub(crate) fn excerpt(stderr: &[u8]) -> String {
    let text = String::from_utf8_lossy(stderr);
    match text.lines().find(|line| !line.trim().is_empty()) {
        Some(line) => format!(": {}", line.chars().take(200).collect::<String>()),
        None => String::new(),
    }
}

/// Reads a validator's diagnostics: `check --json`-shaped stdout first, then the mapping.
/// Returns the outcome and how many diagnostics were dropped past [`MAX_DIAGNOSTICS`].
fn interpret(
    verdict: Verdict,
    stdout: &[u8],
    stderr: &[u8],
    mapping: Option<&Mapping>,
    request: &Request<'_>,
) -> (Outcome, usize) {
    let text = String::from_utf8_lossy(stdout);
    let trimmed = text.trim();
    if trimmed.starts_with('{') {
        if let Some(wire) = Wire::parse(trimmed).filter(Wire::has_verdict) {
            return match wire.result() {
                Ok(read) if read.observation.verdict != verdict => (
                    Outcome::ProtocolError {
                        message: format!(
                            "stdout says {} but the exit code says {verdict}",
                            read.observation.verdict
                        ),
                    },
                    read.dropped,
                ),
                Ok(read) => (Outcome::Observed(read.observation), read.dropped),
                Err(message) => (Outcome::ProtocolError { message }, 0),
            };
        }
    }
    let mut dropped = 0;
    let diagnostics = mapping.map(|mapping| {
        // The patterns read a fixed window of each stream, not the whole output: what they
        // cost is then their number times the window, whatever the validator printed.
        let window = |stream: &[u8]| {
            String::from_utf8_lossy(&stream[..stream.len().min(MAPPING_WINDOW)]).into_owned()
        };
        let mut all = window(stdout);
        all.push('\n');
        all.push_str(&window(stderr));
        let (found, count) = mapping.diagnostics(&all, request.format.name());
        dropped = count;
        found
    });
    (
        Outcome::Observed(Observation {
            verdict,
            diagnostics,
            value: None,
        }),
        dropped,
    )
}

/// Bytes of each of stdout and stderr a mapping's diagnostic patterns read: room for far
/// more than [`MAX_DIAGNOSTICS`] lines of diagnostics, and a bound on what thousands of
/// patterns cost over an output of any size.
pub const MAPPING_WINDOW: usize = 256 * 1024;

/// Most diagnostic patterns a mapping may have.
pub const MAX_MAPPING_PATTERNS: usize = 4096;

/// Teaches the harness to read an unmodified tool: which exit codes mean accept and
/// reject, and regular expressions over its output that map to catalogued rules.
#[derive(Debug)]
pub struct Mapping {
    exit: ExitCodes,
    patterns: Vec<Pattern>,
    crash: CrashTable,
}

/// The `[crash]` table: patterns over stderr that turn a "reject" exit code into a crash.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct CrashTable {
    /// Whether the built-in patterns apply too.
    #[serde(default = "yes")]
    defaults: bool,
    /// More patterns.
    #[serde(default)]
    patterns: Vec<String>,
}

impl Default for CrashTable {
    fn default() -> CrashTable {
        CrashTable {
            defaults: true,
            patterns: Vec::new(),
        }
    }
}

fn yes() -> bool {
    true
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ExitCodes {
    #[serde(default = "accept_codes")]
    accept: Vec<i32>,
    #[serde(default = "reject_codes")]
    reject: Vec<i32>,
}

fn accept_codes() -> Vec<i32> {
    vec![0]
}

fn reject_codes() -> Vec<i32> {
    vec![1]
}

#[derive(Debug)]
struct Pattern {
    regex: Regex,
    rule: String,
    severity: Severity,
    formats: Vec<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct MappingFile {
    #[serde(default)]
    exit: Option<ExitCodes>,
    #[serde(default, rename = "diagnostic")]
    diagnostics: Vec<PatternEntry>,
    #[serde(default)]
    crash: Option<CrashTable>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PatternEntry {
    pattern: String,
    rule: String,
    #[serde(default = "error_severity")]
    severity: Severity,
    #[serde(default)]
    formats: Vec<String>,
}

fn error_severity() -> Severity {
    Severity::Error
}

impl Mapping {
    /// Loads a mapping file (TOML; see `harness/PROTOCOL.md`).
    pub fn load(path: &Path) -> Result<Mapping, LoadError> {
        let text = crate::files::read_string(path, crate::files::MAX_CONFIG_FILE)?;
        let file: MappingFile =
            toml::from_str(&text).map_err(|error| LoadError::invalid(path, error.to_string()))?;
        let mut patterns = Vec::new();
        let crash_count = file.crash.as_ref().map_or(0, |crash| crash.patterns.len());
        if file.diagnostics.len() + crash_count > MAX_MAPPING_PATTERNS {
            return Err(LoadError::invalid(
                path,
                format!(
                    "{} patterns; a mapping has at most {MAX_MAPPING_PATTERNS}",
                    file.diagnostics.len() + crash_count
                ),
            ));
        }
        if let Some(crash) = &file.crash {
            for pattern in &crash.patterns {
                crate::crash::compile(pattern).map_err(|error| {
                    LoadError::invalid(path, format!("crash pattern {pattern:?}: {error}"))
                })?;
            }
        }
        for entry in file.diagnostics {
            let regex = crate::crash::compile(&entry.pattern).map_err(|error| {
                LoadError::invalid(path, format!("pattern {:?}: {error}", entry.pattern))
            })?;
            patterns.push(Pattern {
                regex,
                rule: entry.rule,
                severity: entry.severity,
                formats: entry.formats,
            });
        }
        Ok(Mapping {
            exit: file.exit.unwrap_or(ExitCodes {
                accept: accept_codes(),
                reject: reject_codes(),
            }),
            patterns,
            crash: file.crash.unwrap_or_default(),
        })
    }

    /// The diagnostics the patterns find in a tool's output. Named groups `pointer`,
    /// `line` and `column` give a location; without them the diagnostic matches its rule
    /// anywhere. At most [`MAX_DIAGNOSTICS`] are kept; the count of the rest comes second.
    fn diagnostics(&self, output: &str, format: &str) -> (Vec<Diagnostic>, usize) {
        let mut found = Vec::new();
        let mut dropped = 0;
        for pattern in &self.patterns {
            if !pattern.formats.is_empty() && !pattern.formats.iter().any(|f| f == format) {
                continue;
            }
            if found.len() >= MAX_DIAGNOSTICS {
                // Only counted: finding matches needs no capture groups, which cost more.
                dropped += pattern.regex.find_iter(output).count();
                continue;
            }
            for captures in pattern.regex.captures_iter(output) {
                if found.len() >= MAX_DIAGNOSTICS {
                    dropped += 1;
                    continue;
                }
                // Only the kept prefix of a group is copied: a match may span the whole
                // output, and copying it whole for each of thousands of patterns is
                // what made a mapping's memory grow with patterns times output.
                let group = |name: &str| captures.name(name).map(|m| kept(m.as_str()));
                let number = |name: &str| group(name).and_then(|text| text.parse().ok());
                let location = Location {
                    pointer: group("pointer"),
                    line: number("line"),
                    column: number("column"),
                };
                let located = location != Location::default();
                found.push(bounded::shorten(Diagnostic {
                    rule: pattern.rule.clone(),
                    severity: pattern.severity,
                    location: located.then_some(location),
                    message: captures
                        .get(0)
                        .map_or_else(String::new, |m| kept(m.as_str())),
                }));
            }
        }
        (found, dropped)
    }
}
