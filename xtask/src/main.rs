//! `cargo xtask generate` rewrites the generated cases and the README formats table;
//! `cargo xtask check` lists the generated files that are stale and exits 1.

use std::process::ExitCode;

const USAGE: &str = "usage: cargo xtask <generate|check>\n\
    \n  generate  rewrite the generated cases (xtask/families) and the README formats table\
    \n  check     list generated files that differ from what is committed; exit 1 if any";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
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
