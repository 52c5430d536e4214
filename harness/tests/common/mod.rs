//! Small corpora built in temporary directories, shared by the harness tests.

use std::path::Path;

const RULES: &str = r#"
format = "soul-kit"
spec = "Soul Kit exchange format, version 1"

[[rule]]
id = "soul-kit.name.length"
level = "must"
severity = "error"
section = "Field table: name"
requirement = "name is 1 to 80 characters."
basis = "spec"

[[rule]]
id = "soul-kit.json.bom"
level = "may"
severity = "error"
section = "opening paragraph"
requirement = "No byte order mark."
basis = "suite"
decision = "Rejected by the reference."
"#;

pub fn write(root: &Path, path: &str, text: &str) {
    let path = root.join(path);
    std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
    std::fs::write(path, text).expect("write");
}

/// A small corpus that passes the self-check.
pub fn good_corpus(root: &Path) {
    write(root, "soul-kit/rules.toml", RULES);
    write(
        root,
        "soul-kit/name-ok/case.toml",
        "description = \"a good name\"\nrules = [\"soul-kit.name.length\"]\nverdict = \"accept\"\ninput = \"input.soulkit.json\"\n",
    );
    write(root, "soul-kit/name-ok/input.soulkit.json", "{}\n");
    write(
        root,
        "soul-kit/name-long/case.toml",
        "description = \"a long name\"\nrules = [\"soul-kit.name.length\"]\nverdict = \"reject\"\ninput = \"input.soulkit.json\"\n\n[[diagnostic]]\nrule = \"soul-kit.name.length\"\npointer = \"/name\"\n",
    );
    write(root, "soul-kit/name-long/input.soulkit.json", "{}\n");
    write(
        root,
        "soul-kit/bom/case.toml",
        "description = \"leading BOM\"\nrules = [\"soul-kit.json.bom\"]\nverdict = \"implementation-defined\"\nreference = \"reject\"\ninput = \"input.soulkit.json\"\n\n[[diagnostic]]\nrule = \"soul-kit.json.bom\"\nline = 1\ncolumn = 1\n",
    );
    write(root, "soul-kit/bom/input.soulkit.json", "\u{feff}{}\n");
}
