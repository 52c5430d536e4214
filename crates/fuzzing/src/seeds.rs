//! Where inputs come from outside a fuzzer: the per-target dictionaries in `fuzz/dict/`,
//! worst-case shapes for the allocation bound, and a small deterministic mutator that the
//! stable test uses in place of libFuzzer. (Corpus inputs become seeds in
//! `soulcheck-fuzz-tool`, which may depend on the harness; this crate may not.)

use std::path::{Path, PathBuf};

use crate::Target;

/// The workspace root (where `cases/` and `fuzz/` are).
pub fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// One seed: a corpus input and where it came from.
#[derive(Debug, Clone)]
pub struct Seed {
    /// `<format>/<case-id>`.
    pub name: String,
    /// The exact input bytes.
    pub bytes: Vec<u8>,
}

/// Worst-case shapes for time and memory, about `size` bytes each: deep nesting, a long
/// key over a long array, many repeated keys over many lines, many distinct keys, many
/// lines, many headings and list items. They are the regression inputs of the
/// performance findings (a pointer copied per array item, a line index rebuilt per
/// duplicate key, a pointer built per duplicate under a long key, a line scanned per
/// diagnostic on it), judged by the allocation invariant; each is named for messages.
pub fn adversarial(size: usize) -> Vec<Seed> {
    let items = |unit: &str| unit.repeat(size / unit.len().max(1));
    let shape = |name: &str, text: String| Seed {
        name: format!("adversarial/{name}"),
        bytes: text.into_bytes(),
    };
    let quarter = size / 4;
    vec![
        shape(
            "deep-arrays",
            format!("{}{}", "[".repeat(size / 2), "]".repeat(size / 2)),
        ),
        shape(
            "long-key-long-array",
            format!(
                "{{\"{}\":[{}1]}}",
                "k".repeat(quarter * 2),
                "1,".repeat(quarter / 2)
            ),
        ),
        shape(
            "repeated-keys-on-lines",
            format!("{{{}\"k\":1}}", items("\"k\":1,\n")),
        ),
        // A pointer built per duplicate copied the long key once per duplicate.
        shape(
            "duplicates-under-a-long-key",
            format!(
                "{{\"{}\":{{{}\"a\":0}}}}",
                "k".repeat(quarter * 2),
                "\"a\":0,".repeat(quarter / 3)
            ),
        ),
        // The renderer scanned the whole line for a lone CR once per diagnostic.
        shape(
            "repeated-keys-on-one-line",
            format!("{{{}\"k\":1}}", items("\"k\":1,")),
        ),
        shape(
            "distinct-keys",
            format!(
                "{{{}\"end\":1}}",
                (0..size / 12)
                    .map(|index| format!("\"k{index}\":1,"))
                    .collect::<String>()
            ),
        ),
        shape("empty-objects", format!("[{}{{}}]", items("{},"))),
        // A Soulacy package whose digest the reference recomputes as the importer does
        // (soulacy-package.integrity.mismatch): many members, each looked up by name, and
        // text that Go's encoder escapes six bytes for one.
        shape(
            "package-digest-many-files",
            format!(
                "{{\"schema_version\":\"soulacy.agent.package/v2\",\"soul_yaml\":\"id: a\",\"manifest\":{{\"agent_id\":\"a\",\"package_id\":\"ab/c\",\"version\":\"2026.07.14\"}},\"files\":[{}{{}}],\"integrity\":{{\"sha256\":\"{}\"}}}}",
                "{\"path\":\"a\",\"sha256\":\"\",\"bytes\":0},".repeat(size / 40),
                "0".repeat(64)
            ),
        ),
        shape(
            "package-digest-escapes",
            format!(
                "{{\"schema_version\":\"soulacy.agent.package/v2\",\"soul_yaml\":\"{}\",\"manifest\":{{\"agent_id\":\"a\",\"package_id\":\"ab/c\",\"version\":\"2026.07.14\"}},\"integrity\":{{\"sha256\":\"{}\"}}}}",
                "<".repeat(size / 2),
                "0".repeat(64)
            ),
        ),
        shape("nested-long-keys", {
            let key = "x".repeat(size / 128);
            format!("{}1{}", format!("{{\"{key}\":").repeat(60), "}".repeat(60))
        }),
        shape("blank-lines", items("\n")),
        shape("headings", format!("# T\n{}", items("# a\n"))),
        shape("sections", items("## Identity\n")),
        shape(
            "list-items",
            format!("## Core Responsibilities\n{}", items("1. a\n")),
        ),
        shape("bullets", format!("## Personality\n{}", items("- x\n"))),
        shape("long-line", format!("# {}\n", "a".repeat(size))),
        shape("lone-cr", items("a\r")),
        shape("emphasis", items("**a")),
        // Its cost grows with the alias budget rather than the input, so it is larger.
        shape("yaml-alias-of-a-long-scalar", {
            let aliases = vec!["*x"; 3000].join(", ");
            format!(
                "---\nname: &x \"{}\"\ndescription: [{aliases}]\n---\n# T\nbody\n",
                "x".repeat(64 * 1024)
            )
        }),
    ]
}

/// The dictionary file of a target.
pub fn dictionary_path(root: &Path, target: Target) -> PathBuf {
    root.join("fuzz")
        .join("dict")
        .join(format!("{}.dict", target.name()))
}

/// Reads a libFuzzer dictionary: one `name="value"` (or `"value"`) per line, `#`
/// comments, `\\`, `\"` and `\xNN` escapes.
pub fn parse_dictionary(text: &str) -> Result<Vec<Vec<u8>>, String> {
    let mut tokens = Vec::new();
    for (number, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let quoted = line
            .find('"')
            .map(|at| &line[at..])
            .filter(|rest| rest.len() >= 2 && rest.ends_with('"'))
            .ok_or_else(|| format!("line {}: not a quoted token: {line}", number + 1))?;
        let inner = &quoted.as_bytes()[1..quoted.len() - 1];
        let mut token = Vec::new();
        let mut index = 0;
        while index < inner.len() {
            match inner[index] {
                b'\\' => match inner.get(index + 1) {
                    Some(b'\\') | Some(b'"') => {
                        token.push(inner[index + 1]);
                        index += 2;
                    }
                    Some(b'x') => {
                        let hex = inner
                            .get(index + 2..index + 4)
                            .and_then(|hex| std::str::from_utf8(hex).ok())
                            .and_then(|hex| u8::from_str_radix(hex, 16).ok())
                            .ok_or_else(|| format!("line {}: bad \\x escape", number + 1))?;
                        token.push(hex);
                        index += 4;
                    }
                    _ => return Err(format!("line {}: bad escape", number + 1)),
                },
                b'"' => return Err(format!("line {}: unescaped quote", number + 1)),
                byte => {
                    token.push(byte);
                    index += 1;
                }
            }
        }
        tokens.push(token);
    }
    Ok(tokens)
}

/// A tiny deterministic generator (SplitMix64), so a seeded run is the same on every
/// machine.
#[derive(Debug, Clone)]
pub struct SplitMix {
    state: u64,
}

impl SplitMix {
    /// A generator from a seed.
    pub fn new(seed: u64) -> SplitMix {
        SplitMix { state: seed }
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number below `bound` (0 when `bound` is 0).
    pub fn below(&mut self, bound: usize) -> usize {
        if bound == 0 {
            return 0;
        }
        usize::try_from(self.next_u64() % bound as u64).unwrap_or(0)
    }

    /// `length` random bytes.
    pub fn bytes(&mut self, length: usize) -> Vec<u8> {
        (0..length).map(|_| self.next_u64() as u8).collect()
    }
}

/// A mutant of `seed`: a few byte flips, insertions (of random bytes or dictionary
/// tokens), deletions, truncations and copies of a slice, as libFuzzer would make.
pub fn mutate(random: &mut SplitMix, seed: &[u8], dictionary: &[Vec<u8>]) -> Vec<u8> {
    let mut data = seed.to_vec();
    let rounds = 1 + random.below(4);
    for _ in 0..rounds {
        let at = random.below(data.len() + 1);
        match random.below(6) {
            0 if !data.is_empty() => {
                let index = at.min(data.len() - 1);
                data[index] ^= 1 << random.below(8);
            }
            1 => {
                let byte = random.next_u64() as u8;
                data.insert(at, byte);
            }
            2 if !dictionary.is_empty() => {
                let token = &dictionary[random.below(dictionary.len())];
                data.splice(at..at, token.iter().copied());
            }
            3 if at < data.len() => {
                let end = (at + 1 + random.below(16)).min(data.len());
                data.drain(at..end);
            }
            4 => data.truncate(at),
            _ if at < data.len() => {
                let end = (at + 1 + random.below(64)).min(data.len());
                let copy = data[at..end].to_vec();
                let to = random.below(data.len() + 1);
                data.splice(to..to, copy);
            }
            _ => data.push(b'"'),
        }
    }
    data
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dictionaries_parse() {
        let tokens = parse_dictionary("# c\nkw=\"a\\\"b\"\n\"\\x00\\\\\"\n").expect("valid");
        assert_eq!(tokens, vec![b"a\"b".to_vec(), vec![0, b'\\']]);
        assert!(parse_dictionary("kw=a").is_err());
    }

    #[test]
    fn the_generator_is_deterministic() {
        let mut a = SplitMix::new(7);
        let mut b = SplitMix::new(7);
        assert_eq!(a.bytes(32), b.bytes(32));
        let seed = b"{\"a\": 1}";
        assert_eq!(mutate(&mut a, seed, &[]), mutate(&mut b, seed, &[]));
    }
}
