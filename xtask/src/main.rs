//! `cargo xtask generate` rewrites the generated cases and the README formats table;
//! `cargo xtask check` lists the generated files that are stale and exits 1;
//! `cargo xtask corpus-power ...` keeps the corpus-power record (docs/corpus-power.md);
//! `cargo xtask doc-commands` tries every command the docs give (CI).

use std::process::ExitCode;

const USAGE: &str = "usage: cargo xtask <generate|check|corpus-power|doc-commands|implementations|fuzz-implementations>\n\
    \n  generate  rewrite the generated cases (xtask/families) and the README formats table\
    \n  check     list generated files that differ from what is committed; exit 1 if any\
    \n  corpus-power record VERDICTS-DIR [DIAGNOSTICS-DIR] DATE COMMIT [--whole FILE...]\
    \n            merge a cargo-mutants run (its -o directories) into docs/corpus-power/, then render;\
    \n            the old lines of each FILE the run measured whole (--file) are replaced\
    \n  corpus-power render   rewrite docs/corpus-power.md and docs/corpus-power.json\
    \n  corpus-power check    exit 1 if those two are stale, or a record is older than its file\
    \n  doc-commands  try every command README.md, CONTRIBUTING.md and docs/ give (--help,\
    \n            --list); exit 1 if one fails or has no probe\
    \n  implementations [--soulcheck BIN] [--reports DIR] [--bootstrap] [FOLDER...]\
    \n            install each implementation under implementations/ as pinned and certify it\
    \n            in both profiles (default: target/release/soulcheck, reports into\
    \n            target/ci-reports); --bootstrap also writes each run's failures as an\
    \n            expectations file under target/implementations/; exit 1 if a run fails";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("corpus-power") {
        return corpus_power(&args[1..]);
    }
    if args.first().map(String::as_str) == Some("doc-commands") {
        return doc_commands();
    }
    if args.first().map(String::as_str) == Some("implementations") {
        return implementations(&args[1..]);
    }
    if args.first().map(String::as_str) == Some("fuzz-implementations") {
        return fuzz_implementations(&args[1..]);
    }
    let command = match args.as_slice() {
        [command] if command == "generate" || command == "check" => command.as_str(),
        [flag] if flag == "-h" || flag == "--help" => {
            println!("{USAGE}");
            return ExitCode::SUCCESS;
        }
        _ => {
            eprintln!("{USAGE}");
            return ExitCode::from(2);
        }
    };
    let root = xtask::repository_root();
    let generation = match xtask::generate(&root) {
        Ok(generation) => generation,
        Err(error) => {
            eprintln!("error: {error}");
            return ExitCode::from(2);
        }
    };
    let outcome = if command == "generate" {
        generation.write(&root)
    } else {
        generation.problems(&root)
    };
    let problems = match outcome {
        Ok(problems) => problems,
        Err(error) => {
            eprintln!("error: {error}");
            return ExitCode::from(2);
        }
    };
    let files = generation.files().len();
    let cases = generation.cases.len();
    if command == "generate" {
        for problem in &problems {
            match problem {
                xtask::Problem::Missing(path) | xtask::Problem::Differs(path) => {
                    println!("wrote    {}", path.display())
                }
                xtask::Problem::Unexpected(path) => println!("removed  {}", path.display()),
                xtask::Problem::Unbuildable(..) => {}
            }
        }
        println!(
            "{cases} generated cases and the README table: {} of {files} files changed",
            problems.len()
        );
        return ExitCode::SUCCESS;
    }
    if problems.is_empty() {
        println!("{cases} generated cases and the README table are up to date ({files} files)");
        return ExitCode::SUCCESS;
    }
    for problem in &problems {
        println!("{problem}");
    }
    println!(
        "{} generated files are stale; run `cargo xtask generate`",
        problems.len()
    );
    ExitCode::FAILURE
}

/// `cargo xtask doc-commands`: each documented command, what its probe gave.
fn doc_commands() -> ExitCode {
    let root = xtask::repository_root();
    let outcomes = match xtask::doc_commands::run(&root) {
        Ok(outcomes) => outcomes,
        Err(error) => {
            eprintln!("error: {error}");
            return ExitCode::from(2);
        }
    };
    let mut failed = 0;
    for outcome in &outcomes {
        match &outcome.result {
            Ok(result) => println!("{}\n    {result}", outcome.command),
            Err(problem) => {
                failed += 1;
                println!("{}\n    FAILED: {problem}", outcome.command);
            }
        }
    }
    println!("{} documented commands, {failed} failed", outcomes.len());
    if failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

/// `cargo xtask implementations ...`.
fn implementations(args: &[String]) -> ExitCode {
    let root = xtask::repository_root();
    let mut options = xtask::implementations::Options {
        soulcheck: root.join("target/release/soulcheck"),
        reports: root.join("target/ci-reports"),
        only: Vec::new(),
        bootstrap: false,
    };
    let mut args = args.iter();
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--soulcheck" | "--reports" => {
                let Some(value) = args.next() else {
                    eprintln!("{arg} needs a value\n{USAGE}");
                    return ExitCode::from(2);
                };
                let path = absolute(value);
                if arg == "--soulcheck" {
                    options.soulcheck = path;
                } else {
                    options.reports = path;
                }
            }
            "--bootstrap" => options.bootstrap = true,
            flag if flag.starts_with('-') => {
                eprintln!("unknown option {flag}\n{USAGE}");
                return ExitCode::from(2);
            }
            folder => options.only.push(folder.to_owned()),
        }
    }
    if let Some(missing) = missing_binary(&options.soulcheck) {
        return missing;
    }
    match xtask::implementations::certify(&root, &options) {
        Ok(failed) if failed.is_empty() => ExitCode::SUCCESS,
        Ok(failed) => {
            for failure in &failed {
                println!(
                    "FAILED: {} (output: {})",
                    failure.what,
                    failure.output.display()
                );
            }
            ExitCode::FAILURE
        }
        Err(error) => {
            eprintln!("error: {error}");
            ExitCode::from(2)
        }
    }
}

/// A path option's value, made absolute (the commands run from the repository root).
fn absolute(value: &str) -> std::path::PathBuf {
    std::path::absolute(value).unwrap_or_else(|_| value.into())
}

/// The error exit, with a hint, when the `soulcheck` binary a command drives is not built.
fn missing_binary(soulcheck: &std::path::Path) -> Option<ExitCode> {
    if soulcheck.is_file() {
        return None;
    }
    eprintln!(
        "error: {} does not exist\nhint: build it first: cargo build --release --locked",
        soulcheck.display()
    );
    Some(ExitCode::from(2))
}

/// `cargo xtask fuzz-implementations ...`.
fn fuzz_implementations(args: &[String]) -> ExitCode {
    let root = xtask::repository_root();
    let mut options = xtask::fuzz_implementations::Options {
        soulcheck: root.join("target/release/soulcheck"),
        reports: root.join("target/fuzz-implementations"),
        seconds: 60,
        seed: 1,
        only: Vec::new(),
    };
    let mut args = args.iter();
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "-h" | "--help" => {
                println!("{USAGE}");
                return ExitCode::SUCCESS;
            }
            "--soulcheck" | "--reports" | "--seconds" | "--seed" => {
                let Some(value) = args.next() else {
                    eprintln!("{arg} needs a value\n{USAGE}");
                    return ExitCode::from(2);
                };
                let number = value.parse::<u64>().ok();
                match (arg.as_str(), number) {
                    ("--seconds", Some(seconds)) if seconds > 0 => options.seconds = seconds,
                    ("--seed", Some(seed)) => options.seed = seed,
                    ("--soulcheck", _) => options.soulcheck = absolute(value),
                    ("--reports", _) => options.reports = absolute(value),
                    _ => {
                        eprintln!("{arg} needs a positive whole number\n{USAGE}");
                        return ExitCode::from(2);
                    }
                }
            }
            flag if flag.starts_with('-') => {
                eprintln!("unknown option {flag}\n{USAGE}");
                return ExitCode::from(2);
            }
            folder => options.only.push(folder.to_owned()),
        }
    }
    if let Some(missing) = missing_binary(&options.soulcheck) {
        return missing;
    }
    match xtask::fuzz_implementations::run(&root, &options) {
        Ok(rows) => {
            println!("\n{}", xtask::fuzz_implementations::table(&rows));
            ExitCode::SUCCESS
        }
        Err(error) => {
            eprintln!("error: {error}");
            ExitCode::from(2)
        }
    }
}

/// `cargo xtask corpus-power ...`.
fn corpus_power(args: &[String]) -> ExitCode {
    use std::path::Path;
    use xtask::corpus_power;
    let root = xtask::repository_root();
    let result = match args {
        [command, rest @ ..] if command == "record" => {
            // VERDICTS [DIAGNOSTICS] DATE COMMIT [--whole FILE ...]
            let split = rest
                .iter()
                .position(|arg| arg == "--whole")
                .unwrap_or(rest.len());
            let (positional, whole) = rest.split_at(split);
            let whole: Vec<String> = whole.iter().skip(1).cloned().collect();
            if !(3..=4).contains(&positional.len()) {
                eprintln!("{USAGE}");
                return ExitCode::from(2);
            }
            let (dirs, stamp) = positional.split_at(positional.len() - 2);
            corpus_power::record(
                &root,
                Path::new(&dirs[0]),
                dirs.get(1).map(Path::new),
                &stamp[0],
                &stamp[1],
                &whole,
            )
            .and_then(|added| {
                println!("recorded {added} mutants in {}", corpus_power::MUTANTS);
                corpus_power::write(&root)
            })
        }
        [command] if command == "render" => corpus_power::write(&root),
        [command] if command == "check" => {
            match (corpus_power::stale(&root), corpus_power::outdated(&root)) {
                (Ok(stale), Ok(outdated)) if stale.is_empty() && outdated.is_empty() => Ok(()),
                (Ok(stale), Ok(outdated)) => {
                    for path in &stale {
                        println!("stale: {}", path.display());
                    }
                    if !stale.is_empty() {
                        println!("run `cargo xtask corpus-power render`");
                    }
                    for file in &outdated {
                        println!("outdated: {file}");
                    }
                    if !outdated.is_empty() {
                        println!("measure each again whole: scripts/corpus-power.sh --file FILE");
                    }
                    return ExitCode::FAILURE;
                }
                (Err(error), _) | (_, Err(error)) => Err(error),
            }
        }
        _ => {
            eprintln!("{USAGE}");
            return ExitCode::from(2);
        }
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("error: {error}");
            ExitCode::from(2)
        }
    }
}
