//! Crash patterns: Python, Node and the JVM exit 1 on an uncaught error, the very code
//! the protocol reads as "reject", so an exit code alone would count a crash as a correct
//! rejection. A crash pattern is a regular expression over a validator's stderr; when one
//! matches on an exit code that means "reject", the case is a crash instead, and the
//! record says which line matched.

use regex::{Regex, RegexBuilder};
use serde::{Deserialize, Serialize};

/// The built-in patterns: the uncaught errors of common runtimes, by name.
const DEFAULTS: &[(&str, &str)] = &[
    (
        "python traceback",
        r"(?m)^Traceback \(most recent call last\):",
    ),
    // Node prints the throwing line, the stack through its own internals and its version.
    (
        "node uncaught exception",
        r"(?m)\(node:internal/|^Node\.js v\d+\.\d+|^\[?UnhandledPromiseRejection",
    ),
    ("jvm uncaught exception", r#"(?m)^Exception in thread ""#),
    ("go panic", r"(?ms)^panic: .*^goroutine \d+ \["),
    ("rust panic", r"(?m)^thread '[^']*' panicked at"),
];

/// Bytes the compiled program of one pattern (crash or mapping) may take; a larger one is
/// refused when it is compiled (the regex crate's default is 10 MiB).
pub const PATTERN_PROGRAM: usize = 256 * 1024;

/// Bytes of lazy-DFA cache one pattern may grow to while it searches (the default is 2
/// MiB); past it the search falls back to slower engines, never to more memory.
pub const PATTERN_CACHE: usize = 256 * 1024;

/// Compiles a crash or mapping pattern within [`PATTERN_PROGRAM`] and [`PATTERN_CACHE`], so
/// what a pattern costs does not depend on what it is matched against.
pub fn compile(pattern: &str) -> Result<Regex, regex::Error> {
    RegexBuilder::new(pattern)
        .size_limit(PATTERN_PROGRAM)
        .dfa_size_limit(PATTERN_CACHE)
        .build()
}

/// One pattern, named for reports (a built-in by what it recognises, a user's by its text).
#[derive(Debug, Clone)]
pub struct CrashPattern {
    /// The name reports give.
    pub name: String,
    regex: Regex,
}

/// Where a crash pattern matched.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CrashMatch {
    /// The pattern's name.
    pub pattern: String,
    /// The line of stderr where the match starts (at most 200 characters).
    pub line: String,
    /// Its 1-based number.
    pub line_number: usize,
}

/// A set of crash patterns.
#[derive(Debug, Clone, Default)]
pub struct CrashPatterns {
    patterns: Vec<CrashPattern>,
}

impl CrashPatterns {
    /// The built-in set.
    pub fn defaults() -> CrashPatterns {
        CrashPatterns {
            patterns: DEFAULTS
                .iter()
                .filter_map(|(name, pattern)| {
                    compile(pattern).ok().map(|regex| CrashPattern {
                        name: (*name).to_owned(),
                        regex,
                    })
                })
                .collect(),
        }
    }

    /// No patterns: exit codes alone decide.
    pub fn none() -> CrashPatterns {
        CrashPatterns::default()
    }

    /// Adds a user's pattern.
    pub fn add(&mut self, pattern: &str) -> Result<(), regex::Error> {
        self.patterns.push(CrashPattern {
            name: pattern.to_owned(),
            regex: compile(pattern)?,
        });
        Ok(())
    }

    /// The names of the patterns, in order.
    pub fn names(&self) -> Vec<String> {
        self.patterns.iter().map(|p| p.name.clone()).collect()
    }

    /// The first pattern that matches `stderr`, with the line it matched on.
    pub fn find(&self, stderr: &str) -> Option<CrashMatch> {
        self.patterns.iter().find_map(|pattern| {
            let found = pattern.regex.find(stderr)?;
            let start = stderr[..found.start()].rfind('\n').map_or(0, |at| at + 1);
            let end = stderr[start..]
                .find('\n')
                .map_or(stderr.len(), |at| start + at);
            Some(CrashMatch {
                pattern: pattern.name.clone(),
                line: stderr[start..end].trim_end().chars().take(200).collect(),
                line_number: stderr[..start].matches('\n').count() + 1,
            })
        })
    }
}
