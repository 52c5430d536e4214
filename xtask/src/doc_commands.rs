//! Every command README.md, CONTRIBUTING.md and docs/ give in a shell code block still
//! runs. [`commands`] finds each one (a ```` ```sh ```` block's lines, continuations
//! joined, comments dropped) and [`probe`] says how to try it without doing its work:
//!
//! - `soulcheck ...` and `cargo run ... -- ...`: the command with `--help` appended, so
//!   every subcommand, option and value it names is parsed before the help is printed;
//!   `--version` runs as written;
//! - `cargo test ...`: with `-- --list` (the tests build and list themselves);
//! - `cargo bench --bench NAME ...`: with `-- --list` (criterion builds every input and
//!   checks what it claims before listing);
//! - `cargo install --path ...`: installed for real into `target/doc-commands/`, reusing
//!   the release build, then asked its `--version`;
//! - the project's scripts (`scripts/`, `fuzz/`, `.ci/`): `SCRIPT --help`.
//!
//! A command of a tool CI does not install (cargo-mutants, cargo-fuzz on nightly, pip, git)
//! or a line of shell plumbing (a variable, a `cd`, a call of a function the block defines,
//! whose body is probed) is skipped with its reason. Anything else has no probe and fails,
//! so a new command in the docs gets one before it lands. `cargo test` checks that every
//! documented command has a probe; `cargo xtask doc-commands` (in CI) runs them.

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};
use std::process::Command as Process;

/// The documents whose commands are checked, relative to the repository root (and every
/// Markdown file of `docs/`).
const DOCUMENTS: &[&str] = &["README.md", "CONTRIBUTING.md"];

/// One command as a document gives it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Command {
    /// The document, relative to the repository root.
    pub file: String,
    /// The line it starts on (1-based).
    pub line: usize,
    /// Its text, continuation lines joined and the comment dropped.
    pub text: String,
    /// The shell functions defined earlier in the same code block, with their bodies.
    pub functions: BTreeMap<String, String>,
}

impl fmt::Display for Command {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}: {}", self.file, self.line, self.text)
    }
}

/// How a command is tried.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Probe {
    /// Run this, from the repository root; it must exit 0.
    Run {
        /// Environment entries the command sets.
        env: Vec<(String, String)>,
        /// The program and its arguments.
        argv: Vec<String>,
    },
    /// Install the crate at this path into `target/doc-commands/`, then run the
    /// installed binary's `--version`.
    Install {
        /// The crate's path, as the command gives it.
        path: String,
    },
    /// Not run, for this reason.
    Skip(&'static str),
}

/// The Markdown files whose commands are checked.
fn documents(root: &Path) -> Result<Vec<PathBuf>, String> {
    let mut files: Vec<PathBuf> = DOCUMENTS.iter().map(|name| root.join(name)).collect();
    let docs = root.join("docs");
    let mut more: Vec<PathBuf> = std::fs::read_dir(&docs)
        .map_err(|error| format!("{}: {error}", docs.display()))?
        .filter_map(Result::ok)
        .map(|entry| entry.path())
        .filter(|path| path.extension().is_some_and(|extension| extension == "md"))
        .collect();
    more.sort();
    files.extend(more);
    Ok(files)
}

/// Every command of the shell code blocks of the checked documents.
pub fn commands(root: &Path) -> Result<Vec<Command>, String> {
    let mut found = Vec::new();
    for path in documents(root)? {
        let text = std::fs::read_to_string(&path)
            .map_err(|error| format!("{}: {error}", path.display()))?;
        let file = path
            .strip_prefix(root)
            .unwrap_or(&path)
            .display()
            .to_string();
        found.extend(commands_in(&file, &text));
    }
    Ok(found)
}

/// The commands of one document's shell code blocks.
pub fn commands_in(file: &str, text: &str) -> Vec<Command> {
    let mut found = Vec::new();
    let mut in_shell: Option<bool> = None;
    let mut functions = BTreeMap::new();
    let mut pending: Option<(usize, String)> = None;
    for (index, line) in text.lines().enumerate() {
        let trimmed = line.trim_start();
        if let Some(fence) = trimmed.strip_prefix("```") {
            in_shell = match in_shell {
                Some(_) => None,
                None => Some(matches!(fence.trim(), "sh" | "bash" | "shell" | "console")),
            };
            functions.clear();
            pending = None;
            continue;
        }
        if in_shell != Some(true) {
            continue;
        }
        let (start, mut joined) = pending.take().unwrap_or((index + 1, String::new()));
        let code = without_comment(line);
        match code.trim_end().strip_suffix('\\') {
            Some(continued) => {
                joined.push_str(continued.trim());
                joined.push(' ');
                pending = Some((start, joined));
            }
            None => {
                joined.push_str(code.trim());
                let text = joined.trim().to_owned();
                if text.is_empty() {
                    continue;
                }
                found.push(Command {
                    file: file.to_owned(),
                    line: start,
                    text: text.clone(),
                    functions: functions.clone(),
                });
                if let Some((name, body)) = function_definition(&text) {
                    functions.insert(name.to_owned(), body.to_owned());
                }
            }
        }
    }
    found
}

/// A line without its shell comment: from the first `#` outside quotes that starts a
/// word.
fn without_comment(line: &str) -> &str {
    let mut quote: Option<char> = None;
    let mut previous = ' ';
    for (at, character) in line.char_indices() {
        match (quote, character) {
            (Some(open), c) if c == open => quote = None,
            (None, '\'' | '"') => quote = Some(character),
            (None, '#') if previous.is_whitespace() => return &line[..at],
            _ => {}
        }
        previous = character;
    }
    line
}

/// `name() { body; }`: the function's name and its body.
fn function_definition(text: &str) -> Option<(&str, &str)> {
    let (name, rest) = text.split_once("()")?;
    let name = name.trim();
    if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
        return None;
    }
    let body = rest
        .trim()
        .strip_prefix('{')?
        .trim()
        .strip_suffix('}')?
        .trim();
    Some((name, body.strip_suffix(';').unwrap_or(body).trim()))
}

/// How to try `command`: one probe per `&&`-joined part. A function definition is not
/// run; each call of it is probed as its body with the call's arguments.
pub fn probe(command: &Command) -> Result<Vec<Probe>, String> {
    if function_definition(&command.text).is_some() {
        return Ok(vec![Probe::Skip(
            "defines a shell function; each call is probed as its body with the call's arguments",
        )]);
    }
    if let Some(body) = called(command) {
        return probe(&Command {
            text: body,
            functions: BTreeMap::new(),
            ..command.clone()
        });
    }
    command
        .text
        .split("&&")
        .map(|part| {
            let words = shlex::split(part.trim())
                .ok_or_else(|| format!("{command}: cannot split `{part}` into words"))?;
            probe_words(words).ok_or_else(|| format!("{command}: no probe for this command"))
        })
        .collect()
}

/// A call of a function the block defines: its body with `$1`, `"$1"`, ... replaced by
/// the call's arguments (quoted for the shell).
fn called(command: &Command) -> Option<String> {
    let words = shlex::split(&command.text)?;
    let (name, args) = words.split_first()?;
    let mut body = command.functions.get(name)?.clone();
    // From the highest number down, so `$1` does not eat the front of `$10`.
    for (index, arg) in args.iter().enumerate().rev() {
        let quoted = shlex::try_quote(arg).ok()?.into_owned();
        let number = index + 1;
        body = body
            .replace(&format!("\"${number}\""), &quoted)
            .replace(&format!("${number}"), &quoted);
    }
    Some(body)
}

/// The probe of one simple command, or `None` when there is none.
fn probe_words(words: Vec<String>) -> Option<Probe> {
    // `NAME=value` words before the program set its environment.
    let mut env = Vec::new();
    let mut words = words.into_iter().peekable();
    while let Some(word) = words.peek() {
        match word.split_once('=') {
            Some((name, value))
                if !name.is_empty()
                    && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') =>
            {
                env.push((name.to_owned(), value.to_owned()));
                words.next();
            }
            _ => break,
        }
    }
    // `[--json]` in a usage line: the option may be given; it is.
    let words: Vec<String> = words
        .map(|word| {
            word.trim_start_matches('[')
                .trim_end_matches(']')
                .to_owned()
        })
        .filter(|word| !word.is_empty())
        .collect();
    let Some(program) = words.first() else {
        return Some(Probe::Skip("sets shell variables"));
    };
    let run = |env, argv: Vec<String>| Some(Probe::Run { env, argv });
    let owned = |texts: &[&str]| {
        texts
            .iter()
            .map(|text| (*text).to_owned())
            .collect::<Vec<_>>()
    };
    match program.as_str() {
        "soulcheck" => {
            // The installed binary is the one `cargo run` builds.
            let mut argv = owned(&["cargo", "run", "--quiet", "--release", "--locked", "-p", "soulcheck", "--"]);
            argv.extend(help_appended(&words[1..]));
            run(env, argv)
        }
        "cargo" => cargo(&words, env),
        "cd" => Some(Probe::Skip("changes directory")),
        "git" => Some(Probe::Skip("git, not a command of this project")),
        "pip" | "pip3" => Some(Probe::Skip(
            "installs a third-party tool from PyPI; .ci/run installs check-jsonschema in a virtual environment of its own",
        )),
        script if is_project_script(script) => {
            run(env, vec![script.to_owned(), "--help".to_owned()])
        }
        _ => None,
    }
}

/// The arguments with `--help` appended, unless they ask for help or the version already.
fn help_appended(args: &[String]) -> Vec<String> {
    let mut args = args.to_vec();
    if !args
        .iter()
        .any(|arg| matches!(arg.as_str(), "--help" | "-h" | "--version" | "-V"))
    {
        args.push("--help".to_owned());
    }
    args
}

fn is_project_script(program: &str) -> bool {
    let program = program.strip_prefix("./").unwrap_or(program);
    ["scripts/", "fuzz/", ".ci/"]
        .iter()
        .any(|dir| program.starts_with(dir))
        && program.ends_with(".sh")
}

/// The probe of a `cargo` command.
fn cargo(words: &[String], env: Vec<(String, String)>) -> Option<Probe> {
    let subcommand = words.get(1)?.as_str();
    let (options, rest) = match words.iter().position(|word| word == "--") {
        Some(at) => (&words[..at], &words[at + 1..]),
        None => (words, &[][..]),
    };
    let mut argv = options.to_vec();
    match subcommand {
        _ if subcommand.starts_with('+') => Some(Probe::Skip(
            "needs a nightly toolchain and cargo-fuzz; .ci/run runs the fuzz targets through fuzz/smoke.sh",
        )),
        "run" => {
            argv.push("--".to_owned());
            argv.extend(help_appended(rest));
            Some(Probe::Run { env, argv })
        }
        "test" | "bench" => {
            argv.extend(["--".to_owned(), "--list".to_owned()]);
            // A test's filter still narrows the listing; a bench's options are timing
            // settings, which listing does not take.
            if subcommand == "test" {
                argv.extend(rest.iter().cloned());
            }
            Some(Probe::Run { env, argv })
        }
        "install" => match options.iter().position(|word| word == "--path") {
            Some(at) => Some(Probe::Install {
                path: options.get(at + 1)?.clone(),
            }),
            None => Some(Probe::Skip(
                "installs a third-party tool from crates.io (cargo-mutants: the corpus-power measurement needs it, CI does not)",
            )),
        },
        "mutants" => Some(Probe::Skip(
            "cargo-mutants is a third-party tool CI does not install",
        )),
        // Cheap and read-only: it runs as written (and must pass).
        "xtask" if words[2..] == ["corpus-power", "check"] => Some(Probe::Run { env, argv }),
        // Minutes against every installed tool: its options are parsed and its help
        // printed instead.
        "xtask" if words.get(2).is_some_and(|word| word == "fuzz-implementations") => {
            Some(Probe::Run {
                env,
                argv: help_appended(&argv),
            })
        }
        _ => None,
    }
}

/// What running one probe gave.
pub struct Outcome {
    /// The command.
    pub command: Command,
    /// `ok`, `skipped: why`, or what failed.
    pub result: Result<String, String>,
}

/// Runs every probe of every documented command, from the repository root.
pub fn run(root: &Path) -> Result<Vec<Outcome>, String> {
    let mut outcomes = Vec::new();
    for command in commands(root)? {
        let result = match probe(&command) {
            Err(problem) => Err(problem),
            Ok(probes) => probes
                .iter()
                .map(|probe| run_probe(root, probe))
                .collect::<Result<Vec<String>, String>>()
                .map(|results| results.join("; ")),
        };
        outcomes.push(Outcome { command, result });
    }
    Ok(outcomes)
}

fn run_probe(root: &Path, probe: &Probe) -> Result<String, String> {
    let (env, argv): (&[(String, String)], Vec<String>) = match probe {
        Probe::Skip(why) => return Ok(format!("skipped: {why}")),
        Probe::Run { env, argv } => (env, argv.clone()),
        Probe::Install { path } => {
            let into = root.join("target/doc-commands");
            let install = [
                "cargo",
                "install",
                "--quiet",
                "--locked",
                "--force",
                "--path",
                path,
                "--target-dir",
                "target",
                "--root",
            ]
            .iter()
            .map(|word| (*word).to_owned())
            .chain([into.display().to_string()])
            .collect();
            execute(root, &[], install)?;
            let binary = std::fs::read_dir(into.join("bin"))
                .map_err(|error| format!("the installed binaries: {error}"))?
                .filter_map(Result::ok)
                .map(|entry| entry.path())
                .next()
                .ok_or("nothing was installed")?;
            (
                &[],
                vec![binary.display().to_string(), "--version".to_owned()],
            )
        }
    };
    execute(root, env, argv)
}

fn execute(root: &Path, env: &[(String, String)], argv: Vec<String>) -> Result<String, String> {
    let shown = argv.join(" ");
    let (program, args) = argv.split_first().ok_or("an empty command")?;
    let output = Process::new(program)
        .args(args)
        .envs(env.iter().map(|(name, value)| (name, value)))
        .current_dir(root)
        .output()
        .map_err(|error| format!("`{shown}` does not start: {error}"))?;
    if output.status.success() {
        Ok(format!("ok: `{shown}`"))
    } else {
        let stderr = String::from_utf8_lossy(&output.stderr);
        let tail: Vec<&str> = stderr.lines().rev().take(5).collect();
        let tail: Vec<&str> = tail.into_iter().rev().collect();
        Err(format!(
            "`{shown}` failed ({}): {}",
            output.status,
            tail.join(" / ")
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_lines_and_comments() {
        let text = "intro\n```sh\nsoulcheck run --format soul-kit \\\n    --report out/   # keep it\n# a comment\n```\n```toml\nx = 1\n```\n```sh\nf() { soulcheck fuzz --seed \"$1\"; }\nf a\n```\n";
        let found = commands_in("README.md", text);
        let texts: Vec<&str> = found.iter().map(|c| c.text.as_str()).collect();
        assert_eq!(
            texts,
            [
                "soulcheck run --format soul-kit --report out/",
                "f() { soulcheck fuzz --seed \"$1\"; }",
                "f a"
            ]
        );
        assert_eq!(found[0].line, 3);
        assert_eq!(found[2].functions["f"], "soulcheck fuzz --seed \"$1\"");
        // The call is probed as the body with its argument; the definition is not run.
        assert!(matches!(
            probe(&found[1]).expect("a probe")[..],
            [Probe::Skip(_)]
        ));
        match &probe(&found[2]).expect("a probe")[..] {
            [Probe::Run { argv, .. }] => assert!(argv.ends_with(&[
                "fuzz".to_owned(),
                "--seed".to_owned(),
                "a".to_owned(),
                "--help".to_owned()
            ])),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn probes_try_without_doing_the_work() {
        let command = |text: &str| Command {
            file: "README.md".to_owned(),
            line: 1,
            text: text.to_owned(),
            functions: BTreeMap::new(),
        };
        let argv = |text: &str| match probe(&command(text)).expect("a probe").remove(0) {
            Probe::Run { argv, .. } => argv.join(" "),
            other => format!("{other:?}"),
        };
        assert!(argv("soulcheck rules [--json]").ends_with("-- rules --json --help"));
        assert!(argv("soulcheck --version").ends_with("-- --version"));
        assert_eq!(
            argv("cargo bench --bench limits -- --warm-up-time 1"),
            "cargo bench --bench limits -- --list"
        );
        assert_eq!(
            argv("INSTA_UPDATE=always cargo test -p soulcheck-suite -- soul-kit/x"),
            "cargo test -p soulcheck-suite -- --list soul-kit/x"
        );
        assert_eq!(argv("fuzz/smoke.sh 60"), "fuzz/smoke.sh --help");
        assert!(matches!(
            probe(&command("cargo install --locked --path crates/cli")).expect("a probe")[..],
            [Probe::Install { .. }]
        ));
        assert!(probe(&command("my-tool --flag")).is_err(), "no probe");
        assert!(matches!(
            probe(&command("cd fuzz && cargo +nightly fuzz list")).expect("probes")[..],
            [Probe::Skip(_), Probe::Skip(_)]
        ));
    }

    /// Every command the documents give has a probe (running them is CI's step).
    #[test]
    fn every_documented_command_has_a_probe() {
        let root = crate::repository_root();
        let commands = commands(&root).expect("the documents read");
        assert!(
            commands
                .iter()
                .any(|command| command.text.starts_with("cargo test")),
            "README's test command is found"
        );
        let missing: Vec<String> = commands
            .iter()
            .filter_map(|command| probe(command).err())
            .collect();
        assert!(missing.is_empty(), "{}", missing.join("\n"));
    }
}
