//! agent-compose bundles as directory trees: the corpus's complete native-skills bundle
//! (case `compose-bundle/valid-native-skills`, a permanent ID) as the valid baseline, and
//! edits of its manifest, its trace and the tree itself (entries removed, added under
//! non-portable names, replaced by directories or by symlinks pointing anywhere). The
//! edited trees are not predicted: the general invariants judge them (no panic,
//! determinism, rules of the format, bounded allocation, manifest locations), and the
//! untouched baseline must be accepted.

use arbitrary::Unstructured;

use super::{Generated, NEAR_MISS_KEYS};
use crate::json_text::Json;

macro_rules! baseline_file {
    ($path:literal) => {
        (
            $path,
            include_bytes!(concat!(
                "../../../../cases/compose-bundle/valid-native-skills/bundle/",
                $path
            ))
            .as_slice(),
        )
    };
}

/// The baseline bundle's files.
const BASELINE: &[(&str, &[u8])] = &[
    baseline_file!("manifest.json"),
    baseline_file!("trace.json"),
    baseline_file!("content/instructions.md"),
    baseline_file!("content/skills/roster%3Acore/role-eng-platform/SKILL.md"),
    baseline_file!("content/skills/aos-public/review-checklist/SKILL.md"),
];

/// One entry of a generated tree, by its path relative to the bundle root.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Entry {
    /// A regular file.
    File {
        /// Relative path, `/`-separated.
        path: String,
        /// Its bytes.
        bytes: Vec<u8>,
    },
    /// An empty directory.
    Directory {
        /// Relative path.
        path: String,
    },
    /// A symbolic link (never followed by the generator).
    Symlink {
        /// Relative path of the link.
        path: String,
        /// What it points at, verbatim.
        target: String,
    },
}

impl Entry {
    /// The entry's path.
    pub fn path(&self) -> &str {
        match self {
            Entry::File { path, .. } | Entry::Directory { path } | Entry::Symlink { path, .. } => {
                path
            }
        }
    }
}

/// The baseline tree with `manifest` as its manifest's bytes.
pub fn with_manifest(manifest: &[u8]) -> Vec<Entry> {
    BASELINE
        .iter()
        .map(|(path, bytes)| Entry::File {
            path: (*path).to_owned(),
            bytes: if *path == "manifest.json" {
                manifest.to_vec()
            } else {
                bytes.to_vec()
            },
        })
        .collect()
}

/// The baseline manifest's bytes.
pub fn baseline_manifest() -> &'static [u8] {
    BASELINE[0].1
}

/// Reads JSON text into a [`Json`] tree (the baseline files are valid JSON).
fn to_tree(bytes: &[u8]) -> Option<Json> {
    fn convert(value: serde_json::Value) -> Json {
        match value {
            serde_json::Value::Null => Json::Null,
            serde_json::Value::Bool(value) => Json::Bool(value),
            serde_json::Value::Number(number) => Json::Number(number.to_string()),
            serde_json::Value::String(text) => Json::String(text),
            serde_json::Value::Array(items) => {
                Json::Array(items.into_iter().map(convert).collect())
            }
            serde_json::Value::Object(members) => Json::Object(
                members
                    .into_iter()
                    .map(|(key, value)| (key, convert(value)))
                    .collect(),
            ),
        }
    }
    serde_json::from_slice(bytes).ok().map(convert)
}

/// Names a portable tree must not hold, and other odd ones.
const ODD_NAMES: &[&str] = &[
    "CON",
    "nul.txt",
    "a:b",
    "trailing ",
    "trailing.",
    "e\u{301}",
    "\u{E9}",
    "back\\slash",
    "star*",
    ".hidden",
    "q?",
    "tab\tname",
];

/// Where symlinks point.
const LINK_TARGETS: &[&str] = &[
    "/etc/passwd",
    "../../outside",
    "manifest.json",
    ".",
    "content",
    "missing",
];

/// A bundle tree: the baseline, possibly edited.
pub fn generate(u: &mut Unstructured<'_>) -> arbitrary::Result<(Generated, Vec<Entry>)> {
    let mut entries = with_manifest(baseline_manifest());
    // A third of the trees are left as the valid baseline, so a campaign's documents reach
    // every check behind the first ones an edit breaks (measured in the fuzz tool's
    // `generators/compose-bundle/accepted-share` trial).
    let edits = if u.ratio(1u8, 3u8)? {
        0
    } else {
        u.int_in_range(1u8..=4)?
    };
    let mut done = Vec::new();
    for _ in 0..edits {
        if let Some(what) = edit(u, &mut entries)? {
            done.push(what);
        }
    }
    Ok((described(&entries, &done), entries))
}

/// One fuzz-chosen edit of the tree, and what it did; `None` when the chosen edit does not
/// apply to the chosen entry.
fn edit(u: &mut Unstructured<'_>, entries: &mut Vec<Entry>) -> arbitrary::Result<Option<String>> {
    let pick = u.int_in_range(0..=entries.len().saturating_sub(1))?;
    match u.int_in_range(0u8..=7)? {
        0 | 1 => edit_json_file(u, entries),
        2 => {
            let removed = entries.remove(pick.min(entries.len().saturating_sub(1)));
            Ok(Some(format!("remove {}", removed.path())))
        }
        3 => add_odd_file(u, entries).map(Some),
        4 => {
            let Some(entry) = entries.get(pick) else {
                return Ok(None);
            };
            let path = entry.path().to_owned();
            let what = format!("{path} becomes a directory");
            entries[pick] = Entry::Directory { path };
            Ok(Some(what))
        }
        5 => {
            let Some(entry) = entries.get(pick) else {
                return Ok(None);
            };
            let path = entry.path().to_owned();
            let target = (*u.choose(LINK_TARGETS)?).to_owned();
            let what = format!("{path} becomes a link to {target}");
            entries[pick] = Entry::Symlink { path, target };
            Ok(Some(what))
        }
        6 => {
            let target = (*u.choose(LINK_TARGETS)?).to_owned();
            let path = format!("content/link-{}", entries.len());
            let what = format!("add link {path} to {target}");
            entries.push(Entry::Symlink { path, target });
            Ok(Some(what))
        }
        _ => change_bytes(u, entries, pick),
    }
}

/// Edits manifest.json or trace.json as JSON: scrambled, or given a near-miss member.
fn edit_json_file(
    u: &mut Unstructured<'_>,
    entries: &mut [Entry],
) -> arbitrary::Result<Option<String>> {
    let file = if u.arbitrary()? {
        "manifest.json"
    } else {
        "trace.json"
    };
    let Some(Entry::File { bytes, .. }) = entries.iter_mut().find(|entry| entry.path() == file)
    else {
        return Ok(None);
    };
    let Some(mut tree) = to_tree(bytes) else {
        return Ok(None);
    };
    let what = if u.arbitrary()? {
        super::scramble(u, &mut tree)?
    } else {
        let key = *u.choose(NEAR_MISS_KEYS)?;
        tree.push_member("", key, Json::str("x"));
        format!("add {key:?}")
    };
    let (text, _) = super::spell(u, &tree)?;
    *bytes = text;
    Ok(Some(format!("{file}: {what}")))
}

/// Adds a file under a name a portable tree must not hold (or another odd one).
fn add_odd_file(u: &mut Unstructured<'_>, entries: &mut Vec<Entry>) -> arbitrary::Result<String> {
    let dir = *u.choose(&[
        "",
        "content/",
        "content/skills/",
        "content/skills/aos-public/",
    ])?;
    let name = *u.choose(ODD_NAMES)?;
    let path = format!("{dir}{name}");
    let what = format!("add file {path:?}");
    entries.push(Entry::File {
        path,
        bytes: b"odd\n".to_vec(),
    });
    Ok(what)
}

/// Changes a file's bytes: truncates it, or inserts raw bytes.
fn change_bytes(
    u: &mut Unstructured<'_>,
    entries: &mut [Entry],
    pick: usize,
) -> arbitrary::Result<Option<String>> {
    let Some(Entry::File { bytes, path }) = entries.get_mut(pick) else {
        return Ok(None);
    };
    let at = u.int_in_range(0..=bytes.len())?;
    if u.arbitrary()? {
        bytes.truncate(at);
        Ok(Some(format!("truncate {path} at {at}")))
    } else {
        let extra: Vec<u8> = u.arbitrary()?;
        bytes.splice(at..at, extra);
        Ok(Some(format!("insert bytes into {path} at {at}")))
    }
}

/// The generated document of a tree (its manifest's bytes) with what was done to the
/// tree; only the untouched baseline is predicted, to be accepted.
fn described(entries: &[Entry], done: &[String]) -> Generated {
    let manifest = entries
        .iter()
        .find_map(|entry| match entry {
            Entry::File { path, bytes } if path == "manifest.json" => Some(bytes.clone()),
            _ => None,
        })
        .unwrap_or_default();
    let expected = done.is_empty().then(Vec::new);
    let summary = if done.is_empty() {
        "baseline bundle".to_owned()
    } else {
        done.join(", ")
    };
    Generated {
        bytes: manifest,
        expected,
        strict_only: Vec::new(),
        respelled: None,
        summary,
    }
}

/// Writes entries under `root`. An entry that cannot be created (a file below a path that
/// is already a file, say) is skipped, which is deterministic for a given list.
pub fn write(root: &std::path::Path, entries: &[Entry]) {
    for entry in entries {
        let relative = entry.path();
        // The generator only makes relative paths without `..`; refuse anything else so
        // nothing is ever written outside the temporary directory.
        if relative.starts_with('/') || relative.split('/').any(|part| part == "..") {
            continue;
        }
        let path = root.join(relative);
        if let Some(parent) = path.parent() {
            if std::fs::create_dir_all(parent).is_err() {
                continue;
            }
        }
        let _ = match entry {
            Entry::File { bytes, .. } => std::fs::write(&path, bytes),
            Entry::Directory { .. } => std::fs::create_dir_all(&path),
            Entry::Symlink { target, .. } => std::os::unix::fs::symlink(target, &path),
        };
    }
}
