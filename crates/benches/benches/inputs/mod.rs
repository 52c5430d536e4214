//! Deterministic benchmark inputs, generated in code so every run times the same bytes and
//! nothing large is committed. Each generator builds a realistic document of one format at
//! (or one byte past) a size that matters: a limit the spec sets, or a size an importer
//! meets in practice. The benches check once, outside the timed loop, that the reference
//! gives the verdict a generator intends, so a generator bug cannot silently turn a
//! happy-path benchmark into an early-rejection one.

use serde_json::json;
use sha2::{Digest, Sha256};

/// A small deterministic pseudo-random source (xorshift64*), so inputs vary without
/// depending on a random-number crate or on the run.
pub struct Rng(u64);

impl Rng {
    /// A source seeded with `seed` (any value; zero is replaced).
    pub fn new(seed: u64) -> Rng {
        Rng(seed.max(1))
    }

    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// A number in `0..bound` (`bound` > 0).
    pub fn below(&mut self, bound: usize) -> usize {
        (self.next() % bound as u64) as usize
    }

    /// One of `items`.
    pub fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.below(items.len())]
    }
}

/// English words for ASCII text.
const ASCII_WORDS: &[&str] = &[
    "answer",
    "the",
    "question",
    "plainly,",
    "then",
    "explain",
    "why",
    "with",
    "one",
    "concrete",
    "example;",
    "check",
    "assumptions",
    "before",
    "giving",
    "advice",
    "and",
    "keep",
    "sentences",
    "short.",
    "Prefer",
    "steps",
    "over",
    "theory",
    "when",
    "a",
    "user",
    "is",
    "stuck",
    "(say",
    "so)",
    "or",
    "asks",
    "for",
    "review:",
    "name",
    "risk",
    "early.",
];

/// Multi-byte words: two-byte (Cyrillic, Greek, Latin with diacritics), three-byte (CJK,
/// Hangul, symbols) and four-byte (emoji) UTF-8.
const MULTIBYTE_WORDS: &[&str] = &[
    "茶の湯",
    "静けさ",
    "ритуал",
    "церемония",
    "🍵",
    "✨",
    "こんにちは",
    "안녕하세요",
    "Ελληνικά",
    "naïve",
    "café",
    "東京",
    "北京の秋",
    "😀",
    "🧭",
    "→",
    "—",
    "говорить",
    "丁寧に",
    "説明する",
];

/// What the strings of a generated document are made of.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Text {
    /// ASCII words only, no escapes: the reader borrows every string.
    Ascii,
    /// Mostly multi-byte words (CJK, emoji, Cyrillic) written as raw UTF-8, some ASCII.
    Multibyte,
    /// Multi-byte and ASCII words with line breaks and quotes, every non-ASCII character
    /// written as a `\u` escape (surrogate pairs for emoji): every string is decoded.
    Escaped,
}

impl Text {
    /// A short name for benchmark IDs.
    pub fn name(self) -> &'static str {
        match self {
            Text::Ascii => "ascii",
            Text::Multibyte => "multibyte",
            Text::Escaped => "escaped",
        }
    }
}

/// Text of exactly `chars` Unicode scalar values in `style`, starting with a visible
/// character.
pub fn text(rng: &mut Rng, chars: usize, style: Text) -> String {
    let mut out = String::new();
    let mut count = 0;
    while count < chars {
        if count > 0 {
            let separator = match style {
                Text::Escaped if rng.below(12) == 0 => "\n",
                Text::Escaped if rng.below(16) == 0 => " \"",
                _ => " ",
            };
            out.push_str(separator);
            count += separator.chars().count();
        }
        let word = match style {
            Text::Ascii => rng.pick(ASCII_WORDS),
            Text::Multibyte if rng.below(5) > 0 => rng.pick(MULTIBYTE_WORDS),
            Text::Escaped if rng.below(2) == 0 => rng.pick(MULTIBYTE_WORDS),
            _ => rng.pick(ASCII_WORDS),
        };
        out.push_str(word);
        count += word.chars().count();
    }
    match out.char_indices().nth(chars) {
        Some((end, _)) => out[..end].to_owned(),
        None => out,
    }
}

/// `text` as a JSON string literal; with `escape_non_ascii` every non-ASCII character is
/// written as a `\u` escape.
pub fn json_string(text: &str, escape_non_ascii: bool) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c if escape_non_ascii && !c.is_ascii() => {
                let mut units = [0u16; 2];
                for unit in c.encode_utf16(&mut units) {
                    out.push_str(&format!("\\u{unit:04x}"));
                }
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// Pads `document` with spaces right after its first byte (the `{` of a JSON object) to
/// exactly `total` bytes.
fn pad_after_first_byte(document: String, total: usize) -> Vec<u8> {
    assert!(
        document.len() <= total,
        "the unpadded document is {} bytes, over the {total} asked for",
        document.len()
    );
    let mut bytes = Vec::with_capacity(total);
    bytes.extend_from_slice(&document.as_bytes()[..1]);
    bytes.resize(1 + total - document.len(), b' ');
    bytes.extend_from_slice(&document.as_bytes()[1..]);
    bytes
}

/// A valid Soul Kit of exactly `total` bytes: every array at its largest count, every
/// string at its largest length in `style`, and spaces before the first key for the rest
/// (as the corpus's size cases pad). With `total` one past the limit it is the same kit,
/// one space longer.
pub fn soul_kit(style: Text, total: usize) -> Vec<u8> {
    let mut rng = Rng::new(0x50u64 + style as u64);
    let escape = style == Text::Escaped;
    let mut string = |chars: usize| json_string(&text(&mut rng, chars, style), escape);
    let list = |strings: Vec<String>, indent: &str| {
        let inner = format!(",\n{indent}  ");
        format!("[\n{indent}  {}\n{indent}]", strings.join(&inner))
    };
    let traits: Vec<String> = (0..6).map(|_| string(240)).collect();
    let style_rules: Vec<String> = (0..12).map(|_| string(400)).collect();
    let avoid: Vec<String> = (0..8).map(|_| string(240)).collect();
    let behavior: Vec<String> = ["explain", "disagree", "uncertainty", "mistakes", "progress"]
        .iter()
        .map(|field| format!("\"{field}\": {}", string(600)))
        .collect();
    let adaptations: Vec<String> = ["everyday", "focused", "sensitive", "writing"]
        .iter()
        .map(|field| format!("\"{field}\": {}", string(600)))
        .collect();
    let examples: Vec<String> = (0..8)
        .map(|_| {
            format!(
                "{{\n      \"situation\": {},\n      \"user\": {},\n      \"assistant\": {},\n      \"note\": {}\n    }}",
                string(160),
                string(800),
                string(1800),
                string(400)
            )
        })
        .collect();
    let checks: Vec<String> = (0..8).map(|_| string(240)).collect();
    let document = format!(
        r#"{{
  "format": "soulware.soul-kit",
  "format_version": 1,
  "id": "benchmark-kit-at-the-size-limit",
  "name": {name},
  "version": "9999.9999.9999",
  "summary": {summary},
  "scope": "both",
  "voice": {{
    "core": {core},
    "traits": {traits},
    "style_rules": {style_rules},
    "avoid": {avoid}
  }},
  "behavior": {{
    {behavior}
  }},
  "adaptations": {{
    {adaptations}
  }},
  "examples": [
    {examples}
  ],
  "checks": {checks}
}}
"#,
        name = string(80),
        summary = string(400),
        core = string(800),
        traits = list(traits, "    "),
        style_rules = list(style_rules, "    "),
        avoid = list(avoid, "    "),
        behavior = behavior.join(",\n    "),
        adaptations = adaptations.join(",\n    "),
        examples = examples.join(",\n    "),
        checks = list(checks, "  "),
    );
    pad_after_first_byte(document, total)
}

/// A SOUL.md of exactly `total` bytes: a role title, the five required sections in the
/// spec's shape (labelled Personality bullets, six numbered responsibilities), then a
/// Domain Knowledge section of `###` topics mixing paragraphs with emphasis, links and
/// code, lists, quotes, fenced code and CJK text, and a last paragraph cut to size.
pub fn soul_md(total: usize) -> Vec<u8> {
    let mut rng = Rng::new(0x5017);
    let mut doc = String::from(
        "# Customer Support Specialist\n\n\
         ## Identity\n\n\
         You are **Mira**, the first-line support specialist of a small software company. \
         You answer questions about installation, billing and everyday use, in English or \
         in the customer's language (日本語・中文 are common).\n\n\
         ## Personality\n\n\
         - **Patient** — handle repeated questions gracefully and never rush a customer.\n\
         - **Precise** — quote exact menu names, versions and error messages.\n\
         - **Warm** — greet by name when you know it, and thank people for reports.\n\
         - **Honest**: say when you do not know, and find out.\n\
         - **溫暖** — 熱情招呼每一位客戶。\n\
         - **Calm** — stay even when the customer is upset.\n\n\
         ## Core Responsibilities\n\n\
         1. Answer product questions from the knowledge base below.\n\
         2. Walk customers through installation and upgrades step by step.\n\
         3. Explain invoices, refunds and plan changes.\n\
         4. Collect the details a bug report needs (version, steps, logs).\n\
         5. Route security and legal questions to the right team.\n\
         6. Keep the Evolution Notes current with recurring questions.\n\n\
         ## Response Style\n\n\
         Lead with the answer, then the steps. Use numbered steps for procedures and \
         `inline code` for anything the customer types. Keep replies under 200 words \
         unless the customer asks for more detail; link to [the manual](https://example.com/manual) \
         instead of pasting long passages.\n\n\
         ## Escalation Rules\n\n\
         - Escalate security reports to *security@* at once.\n\
         - Escalate refunds above the plan price to billing.\n\
         - Hand over when a customer asks for a human, without arguing.\n\n\
         ## Domain Knowledge\n\n",
    );
    let mut topic = 1;
    loop {
        let block = domain_topic(&mut rng, topic);
        if doc.len() + block.len() + 64 > total {
            break;
        }
        doc.push_str(&block);
        topic += 1;
    }
    // The last paragraph takes exactly the bytes that remain, less its final newline.
    let remaining = total
        .checked_sub(doc.len() + 1)
        .filter(|&remaining| remaining > 0)
        .expect("room for the last paragraph");
    let mut last = String::new();
    while last.len() < remaining {
        last.push_str(rng.pick(ASCII_WORDS));
        last.push(' ');
    }
    last.truncate(remaining);
    if last.ends_with(' ') {
        last.pop();
        last.push('.');
    }
    doc.push_str(&last);
    doc.push('\n');
    assert_eq!(doc.len(), total);
    doc.into_bytes()
}

/// One `###` topic of the Domain Knowledge section.
fn domain_topic(rng: &mut Rng, number: usize) -> String {
    let mut paragraph = |words: usize| {
        let mut out = String::new();
        for index in 0..words {
            if index > 0 {
                out.push(' ');
            }
            match rng.below(40) {
                0 => out.push_str("**important**"),
                1 => out.push_str("`config.toml`"),
                2 => out.push_str("[the guide](https://example.com/guide)"),
                3 => out.push_str("*usually*"),
                4 | 5 => out.push_str(rng.pick(MULTIBYTE_WORDS)),
                _ => out.push_str(rng.pick(ASCII_WORDS)),
            }
        }
        out
    };
    format!(
        "### Topic {number}: {title}\n\n{first}\n\n\
         - {item1}\n- {item2}\n  - {item3}\n\n\
         > {quote}\n\n\
         ```sh\nsupport-cli diagnose --topic {number} --verbose\n```\n\n\
         {second}\n\n\
         サポート窓口は平日の九時から十八時まで対応します。{cjk}\n\n",
        title = paragraph(4),
        first = paragraph(60),
        item1 = paragraph(12),
        item2 = paragraph(10),
        item3 = paragraph(8),
        quote = paragraph(20),
        second = paragraph(45),
        cjk = paragraph(6),
    )
}

/// Text of a supporting file of about `bytes` bytes, by kind: Markdown notes (some in
/// Japanese), a Python tool with quotes and backslashes, or YAML configuration.
fn file_text(rng: &mut Rng, kind: usize, bytes: usize) -> String {
    let mut out = String::new();
    let mut line = 0;
    while out.len() < bytes {
        line += 1;
        match kind {
            0 => {
                if line % 12 == 1 {
                    out.push_str(&format!("## Section {line}\n\n"));
                }
                out.push_str(&text(rng, 70, Text::Ascii));
                out.push_str("\n\n");
            }
            1 => {
                out.push_str(&format!("{}\n", text(rng, 40, Text::Multibyte)));
            }
            2 => out.push_str(&format!(
                "def step_{line}(payload):\n    \"\"\"Normalise one record.\"\"\"\n    return payload.get(\"name\", \"\").replace(\"\\\\\", \"/\")  # {}\n\n",
                text(rng, 30, Text::Ascii)
            )),
            _ => out.push_str(&format!(
                "setting_{line}:\n  enabled: true\n  note: \"{}\"\n",
                text(rng, 40, Text::Ascii)
            )),
        }
    }
    out
}

/// A Soulacy v2 package of realistic large size: a full manifest (every list filled, a
/// dozen secrets, publisher, a requires block), a SOUL.yaml of a few kilobytes and `files`
/// inline supporting files of 2 to 14 KB each (Markdown, Japanese notes, Python, YAML)
/// with their true SHA-256 digests.
pub fn soulacy_package(files: usize) -> Vec<u8> {
    let mut rng = Rng::new(0x50AC);
    let names = |rng: &mut Rng, prefix: &str, count: usize| -> Vec<String> {
        (0..count)
            .map(|index| format!("{prefix}-{index}-{}", rng.pick(&["alpha", "beta", "gamma"])))
            .collect()
    };
    let file_entries: Vec<serde_json::Value> = (0..files)
        .map(|index| {
            let kind = index % 4;
            let size = 2_000 + rng.below(12_000);
            let body = file_text(&mut rng, kind, size);
            let path = match kind {
                0 => format!("knowledge/notes-{index}.md"),
                1 => format!("knowledge/ja/ノート-{index}.md"),
                2 => format!("tools/step_{index}.py"),
                _ => format!("config/settings-{index}.yaml"),
            };
            json!({
                "path": path,
                "sha256": format!("{:x}", Sha256::digest(body.as_bytes())),
                "bytes": body.len(),
                "text": body,
            })
        })
        .collect();
    let files_required: Vec<String> = file_entries
        .iter()
        .filter_map(|entry| entry["path"].as_str().map(str::to_owned))
        .collect();
    let secrets: Vec<serde_json::Value> = (0..12)
        .map(|index| {
            json!({
                "kind": "provider_api_key",
                "name": format!("llm.providers.p{index}.api_key"),
                "description": text(&mut rng, 80, Text::Ascii),
            })
        })
        .collect();
    let soul_yaml = format!(
        "id: support-desk\nname: Support Desk\ntrigger: message\npersona: |\n  {}\n",
        text(&mut rng, 6_000, Text::Ascii).replace('\n', "\n  ")
    );
    let package = json!({
        "schema_version": "soulacy.agent.package/v2",
        "exported_at": "2026-07-14T15:23:00Z",
        "manifest": {
            "agent_id": "support-desk",
            "name": "Support Desk",
            "version": "2026.07.14.3",
            "description": text(&mut rng, 400, Text::Multibyte),
            "trigger": "message",
            "surfaces": names(&mut rng, "surface", 6),
            "providers": names(&mut rng, "provider", 8),
            "models": names(&mut rng, "model", 12),
            "channels": names(&mut rng, "channel", 8),
            "skills": names(&mut rng, "skill", 40),
            "knowledge": names(&mut rng, "knowledge", 30),
            "peer_agents": names(&mut rng, "peer", 10),
            "builtins": names(&mut rng, "builtin", 16),
            "mcp_servers": names(&mut rng, "mcp", 12),
            "mcp_tools": names(&mut rng, "tool", 80),
            "env": names(&mut rng, "ENV", 20),
            "capabilities": names(&mut rng, "capability", 24),
            "secrets": secrets,
            "files_required": files_required,
            "eval_suites": names(&mut rng, "eval", 10),
            "sample_prompts": (0..40).map(|_| text(&mut rng, 120, Text::Multibyte)).collect::<Vec<_>>(),
            "warnings": names(&mut rng, "warning", 4),
            "package_id": "acme/support-desk",
            "prior_version": "2026.07.01",
            "released_at": "2026-07-14T09:00:00Z",
            "changelog": text(&mut rng, 2_000, Text::Ascii),
            "publisher": {
                "id": "acme",
                "display_name": "Acme Corp",
                "signature_key": "ed25519:acme-2026",
                "trust_level": "community",
            },
            "requires": {
                "soulacy_version": ">=0.9",
                "providers": (0..8).map(|index| json!({"id": format!("provider-{index}"), "reason": text(&mut rng, 60, Text::Ascii)})).collect::<Vec<_>>(),
                "channels": (0..8).map(|index| json!({"id": format!("channel-{index}")})).collect::<Vec<_>>(),
                "mcp_servers": (0..12).map(|index| json!({"id": format!("mcp-{index}")})).collect::<Vec<_>>(),
                "peer_agents": (0..10).map(|index| json!({"id": format!("peer-{index}")})).collect::<Vec<_>>(),
                "secrets": (0..12).map(|index| json!({
                    "key": format!("llm.providers.p{index}.api_key"),
                    "label": format!("Provider {index} API key"),
                    "kind": "provider_api_key",
                })).collect::<Vec<_>>(),
            },
        },
        "soul_yaml": soul_yaml,
        "files": file_entries,
        "integrity": {
            "algorithm": "sha256",
            "sha256": format!("{:x}", Sha256::digest(b"manifest")),
        },
    });
    let mut bytes = serde_json::to_vec_pretty(&package).expect("a JSON value serialises");
    bytes.push(b'\n');
    bytes
}

/// The keys of [`wide_object`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Keys {
    /// Every key distinct.
    Distinct,
    /// One key, repeated.
    Same,
    /// Distinct keys, then each of them once more in the same order, so every repetition
    /// lies far from its first occurrence on the one line of the document.
    Twice,
}

/// A JSON object of exactly `total` bytes, on one line, holding as many members
/// `"k<n>": 0` as fit: the widest object a size limit admits, which is where per-member
/// costs that grow with the object's size would show.
pub fn wide_object(total: usize, keys: Keys) -> Vec<u8> {
    let member = |index: usize| match keys {
        Keys::Same => "\"k\":0".to_owned(),
        _ => format!("\"k{index}\":0"),
    };
    let mut members = Vec::new();
    let mut length = 2;
    let mut index = 0usize;
    loop {
        let next = member(index).len() + 1;
        // With every key twice, room is needed for the member and its repetition.
        let needed = if keys == Keys::Twice { 2 * next } else { next };
        if length + needed > total {
            break;
        }
        length += needed;
        members.push(member(index));
        index += 1;
    }
    if keys == Keys::Twice {
        members.extend_from_slice(&members.clone());
    }
    let document = format!("{{{}}}", members.join(","));
    pad_after_first_byte(document, total)
}

/// A JSON array of exactly `total` bytes holding as many `0` items as fit, under the
/// member `member` of an object: per-item costs show here.
pub fn long_array(member: &str, total: usize) -> Vec<u8> {
    let mut document = String::with_capacity(total);
    document.push_str(&format!("{{\"{member}\":[0"));
    while document.len() + 2 + 2 <= total {
        document.push_str(",0");
    }
    document.push_str("]}");
    pad_after_first_byte(document, total)
}

/// A Soulacy package of exactly `total` bytes whose `files` array holds as many small
/// entries with distinct paths as fit: per-file costs that grow with the count show here.
pub fn many_files_package(total: usize) -> Vec<u8> {
    let digest = format!("{:x}", Sha256::digest(b""));
    let head = "{\"schema_version\":\"soulacy.agent.package/v2\",\"manifest\":{\"agent_id\":\"a\",\"package_id\":\"acme/a\",\"version\":\"2026.01.01\"},\"soul_yaml\":\"id: a\\n\",\"files\":[";
    let mut document = String::with_capacity(total);
    document.push_str(head);
    let mut index = 0usize;
    loop {
        let entry = format!("{{\"path\":\"f/{index}\",\"sha256\":\"{digest}\",\"bytes\":0}}");
        if document.len() + entry.len() + 4 > total {
            break;
        }
        if index > 0 {
            document.push(',');
        }
        document.push_str(&entry);
        index += 1;
    }
    document.push_str("]}");
    pad_after_first_byte(document, total)
}

/// `document` followed by spaces up to `total` bytes (for oversize inputs).
pub fn padded_to(mut document: Vec<u8>, total: usize) -> Vec<u8> {
    document.resize(total, b' ');
    document
}

/// Text of exactly `bytes` UTF-8 bytes in lines of about 70 characters, in `style`
/// (ASCII, or mostly multi-byte), the last line padded with `z` to the exact size.
pub fn exact_text(rng: &mut Rng, bytes: usize, style: Text) -> String {
    let mut out = String::with_capacity(bytes + 80);
    while out.len() + 300 < bytes {
        out.push_str(&text(rng, 70, style).replace('\n', " "));
        out.push('\n');
    }
    while out.len() < bytes {
        out.push('z');
    }
    assert_eq!(out.len(), bytes);
    out
}

/// The head of a generated skill package: frontmatter with name and description, then a
/// Markdown body.
pub fn skill_head() -> String {
    "---\nname: equipment-review\ndescription: Review a supplied equipment prediction and its dated evidence.\n---\n\
     # Equipment review\n\nRecord the equipment identifier, evidence cutoff and evaluation window.\n\
     Distinguish a predicted probability from a confirmed observed failure.\n\
     List missing evidence and propose a next check without changing records.\n\
     See `references/` for the long-form guides.\n"
        .to_owned()
}

/// The files of a skill package: the head first, then `(path, content)` pairs.
pub type SkillFiles = Vec<(String, String)>;

/// A skill package whose one supporting file holds exactly `file_bytes` bytes of content
/// in `style`, beside the head.
pub fn skill_single_file(style: Text, file_bytes: usize) -> SkillFiles {
    let mut rng = Rng::new(0x5C11 + style as u64);
    vec![
        ("SKILL.md".to_owned(), skill_head()),
        (
            "references/guide.md".to_owned(),
            exact_text(&mut rng, file_bytes, style),
        ),
    ]
}

/// A skill package of the head and sixteen supporting files whose contents add up to
/// exactly `total` bytes (each well under the per-file limit), in `style`.
pub fn skill_many_files(style: Text, total: usize) -> SkillFiles {
    let mut rng = Rng::new(0x5C12 + style as u64);
    let head = skill_head();
    let mut remaining = total - head.len();
    let mut files = vec![("SKILL.md".to_owned(), head)];
    for index in 0..16 {
        let size = if index == 15 {
            remaining
        } else {
            remaining / (16 - index)
        };
        let kind = ["references", "scripts", "assets"][index % 3];
        files.push((
            format!("{kind}/part-{index:02}.md"),
            exact_text(&mut rng, size, style),
        ));
        remaining -= size;
    }
    files
}

/// The JSON envelope of a skill package (`version`, `kind`, `headPath`, `files`).
pub fn skill_envelope(files: &SkillFiles) -> Vec<u8> {
    let entries: Vec<serde_json::Value> = files
        .iter()
        .map(|(path, content)| {
            let content_type = if path.ends_with(".md") {
                "text/markdown"
            } else {
                "text/plain"
            };
            json!({"path": path, "content": content, "contentType": content_type})
        })
        .collect();
    let envelope = json!({
        "version": 1,
        "kind": "asset-package",
        "headPath": "SKILL.md",
        "files": entries,
    });
    let mut bytes = serde_json::to_vec_pretty(&envelope).expect("a JSON value serialises");
    bytes.push(b'\n');
    bytes
}

/// Writes the files of a skill package below `root`.
pub fn write_skill_tree(root: &std::path::Path, files: &SkillFiles) {
    for (path, content) in files {
        let path = root.join(path);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).expect("create a directory");
        }
        std::fs::write(path, content).expect("write a file");
    }
}

/// Writes an agent-compose bundle of realistic large size below `root` and returns its
/// manifest's bytes: eight sources, `skills` selected skills each with its identity tree,
/// four times as many excluded ones in the trace, and a content list of the role skill,
/// every selected skill and the assets they carry (`content` entries in all).
pub fn compose_bundle(root: &std::path::Path, skills: usize, content: usize) -> Vec<u8> {
    let mut rng = Rng::new(0xB0D1E);
    let digest = |text: &str| format!("sha256:{:x}", Sha256::digest(text.as_bytes()));
    let sources: Vec<String> = (0..8)
        .map(|index| {
            if index == 0 {
                "roster:core".to_owned()
            } else {
                format!("aos-public-{index}")
            }
        })
        .collect();
    let personalities = ["tenacious", "grounded", "curious"];
    let selected: Vec<(String, String)> = (0..skills)
        .map(|index| {
            let skill = if index == 0 {
                "role-eng-platform".to_owned()
            } else {
                format!(
                    "method-{index:03}-{}",
                    rng.pick(&["review", "deploy", "triage", "audit"])
                )
            };
            (sources[index % sources.len()].clone(), skill)
        })
        .collect();
    let mut decisions = vec![json!({
        "subject": "role:eng-platform", "kind": "profile", "outcome": "selected", "reason": "requested role"
    })];
    for personality in personalities {
        decisions.push(json!({
            "subject": format!("personality:{personality}"), "kind": "profile",
            "outcome": "selected", "reason": "declared by the role"
        }));
    }
    for (source, skill) in &selected {
        decisions.push(json!({
            "subject": format!("skill:{skill}"), "kind": "skill", "source": source,
            "outcome": "selected", "reason": text(&mut rng, 60, Text::Ascii)
        }));
    }
    for index in 0..skills * 4 {
        decisions.push(json!({
            "subject": format!("skill:excluded-{index:04}"), "kind": "skill",
            "source": sources[index % sources.len()], "outcome": "excluded",
            "reason": text(&mut rng, 40, Text::Ascii)
        }));
    }
    let trace = json!({"format": "agent-compose.trace", "decisions": decisions});
    let mut entries = Vec::with_capacity(content);
    for index in 0..content {
        let id = match index {
            0 => "roster:core:role:platform:identity".to_owned(),
            index if index < skills => format!("{}:{}", selected[index].0, selected[index].1),
            index => format!(
                "{}:asset-{index:04}:{}",
                sources[index % sources.len()],
                rng.pick(&["invariant", "evaluation", "copy-contract", "personality"])
            ),
        };
        entries.push(json!({"id": id, "digest": digest(&id)}));
    }
    let role_digest = digest("role-eng-platform");
    let manifest = json!({
        "format": "agent-compose.bundle",
        "role": "eng-platform",
        "role_skill": "role-eng-platform",
        "role_skill_source": "roster:core:role:platform",
        "role_skill_digest": role_digest,
        "model_tier": "frontier",
        "personalities": personalities,
        "color": "#90a66a",
        "identity": {"display_name": "Platform Engineer"},
        "sources": sources,
        "content": entries,
        "delivery": {
            "mode": "native-skills",
            "instructions": "content/instructions.md",
            "skills_root": "content/skills",
        },
    });
    let manifest_bytes = serde_json::to_vec_pretty(&manifest).expect("a JSON value serialises");
    let write = |path: &str, bytes: &[u8]| {
        let path = root.join(path);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).expect("create a directory");
        }
        std::fs::write(path, bytes).expect("write a file");
    };
    write("manifest.json", &manifest_bytes);
    write(
        "trace.json",
        &serde_json::to_vec_pretty(&trace).expect("a JSON value serialises"),
    );
    write(
        "content/instructions.md",
        b"# Platform Engineer\n\nWork from the skills below.\n",
    );
    for (source, skill) in &selected {
        let segment: String = source
            .bytes()
            .map(|byte| {
                if byte.is_ascii_alphanumeric() || matches!(byte, b'.' | b'_' | b'-') {
                    char::from(byte).to_string()
                } else {
                    format!("%{byte:02X}")
                }
            })
            .collect();
        write(
            &format!("content/skills/{segment}/{skill}/SKILL.md"),
            format!(
                "---\nname: {skill}\ndescription: {}\n---\n# {skill}\n\n{}\n",
                text(&mut rng, 80, Text::Ascii),
                text(&mut rng, 400, Text::Ascii)
            )
            .as_bytes(),
        );
    }
    manifest_bytes
}
