//! The switches allowed to stay certified: `suite/independent/allowed/<format>.toml`, one
//! `[[allowed]]` entry per switch with the reason it changes only what the spec leaves
//! open (implementation-defined cases). The suite's test holds the list true (a listed
//! switch must stay certified, an unlisted one must be refused), and docs/corpus-power.md
//! renders it.

use std::collections::BTreeMap;
use std::path::Path;

use serde::Deserialize;

use crate::Format;

/// The directory of the lists, relative to the repository root.
pub const DIR: &str = "suite/independent/allowed";

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Entry {
    mistake: String,
    reason: String,
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct File {
    #[serde(default)]
    allowed: Vec<Entry>,
}

/// The allowed switches of `format`, by name, with their reasons, read from the list under
/// `root` (the repository root); no list means none. Refuses a list that names a switch
/// the format does not have, names one twice or gives no reason.
pub fn load(root: &Path, format: Format) -> Result<BTreeMap<String, String>, String> {
    let path = root.join(DIR).join(format!("{}.toml", format.name()));
    let text = match std::fs::read_to_string(&path) {
        Ok(text) => text,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(BTreeMap::new()),
        Err(error) => return Err(format!("{}: {error}", path.display())),
    };
    let file: File =
        toml::from_str(&text).map_err(|error| format!("{}: {error}", path.display()))?;
    let mut listed = BTreeMap::new();
    for entry in file.allowed {
        if format.mistake(&entry.mistake).is_none() {
            return Err(format!(
                "{}: `{}` is not a switch of {}",
                path.display(),
                entry.mistake,
                format.name()
            ));
        }
        if entry.reason.trim().is_empty() {
            return Err(format!(
                "{}: `{}` is allowed without a reason",
                path.display(),
                entry.mistake
            ));
        }
        if listed.insert(entry.mistake.clone(), entry.reason).is_some() {
            return Err(format!(
                "{}: `{}` is listed twice",
                path.display(),
                entry.mistake
            ));
        }
    }
    Ok(listed)
}
