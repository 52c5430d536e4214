//! Deterministic benchmark inputs, generated in code so every run times the same bytes and
//! nothing large is committed. Each generator builds a realistic document of one format at
//! (or one byte past) a size that matters: a limit the spec sets, or a size an importer
//! meets in practice. The benches check once, outside the timed loop, that the reference
//! gives the verdict a generator intends, so a generator bug cannot silently turn a
//! happy-path benchmark into an early-rejection one.

use serde_json::json;
use sha2::{Digest, Sha256};

/// A small deterministic pseudo-random source (xorshift64*), so inputs vary without
/// depending on a random-number crate or on the run. A clone continues the same sequence.
#[derive(Clone)]
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

/// The character bounds of the Soul Kit's strings and the largest counts of its arrays,
/// from the spec's field table: the generators fill every one of them.
mod kit_bounds {
    pub const NAME: usize = 80;
    pub const SUMMARY: usize = 400;
    pub const CORE: usize = 800;
    pub const TRAIT: usize = 240;
    pub const TRAITS: usize = 6;
    pub const STYLE_RULE: usize = 400;
    pub const STYLE_RULES: usize = 12;
    pub const AVOID: usize = 240;
    pub const AVOIDS: usize = 8;
    /// Each behavior and each adaptation.
    pub const GUIDANCE: usize = 600;
    pub const SITUATION: usize = 160;
    pub const USER: usize = 800;
    pub const ASSISTANT: usize = 1800;
    pub const NOTE: usize = 400;
    pub const EXAMPLES: usize = 8;
    pub const CHECK: usize = 240;
    pub const CHECKS: usize = 8;
}

/// How far a generated Soul Kit goes: to every bound, or one past each.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum KitFill {
    /// Every string at its largest length, every array at its largest count: valid.
    AtBounds,
    /// Every string one character past its bound, every array one entry past its count,
    /// an id one character too long and a control character in every style rule and
    /// check: every field is wrong at once.
    PastBounds,
}

/// A Soul Kit's text, unpadded: `fill` decides whether it is the largest valid kit or one
/// wrong in every field; `extra` members (already JSON, `"key": value`) are added to each
/// example object in turn, for the unknown-key diagnostics of the invalid kit.
fn soul_kit_text(style: Text, fill: KitFill, extra: &[String]) -> String {
    use kit_bounds as bound;
    let mut rng = Rng::new(0x50u64 + style as u64);
    let escape = style == Text::Escaped;
    let past = usize::from(fill == KitFill::PastBounds);
    // A bell in the middle of a string: a control character that is not newline or tab.
    let mut string = |chars: usize, control: bool| {
        let mut value = text(&mut rng, chars + past, style);
        if control && fill == KitFill::PastBounds {
            // In place of the middle character, so the length stays one past the bound.
            let (at, middle) = value.char_indices().nth(chars / 2).expect("a long string");
            value.replace_range(at..at + middle.len_utf8(), "\u{7}");
        }
        json_string(&value, escape)
    };
    let list = |strings: Vec<String>, indent: &str| {
        let inner = format!(",\n{indent}  ");
        format!("[\n{indent}  {}\n{indent}]", strings.join(&inner))
    };
    let traits: Vec<String> = (0..bound::TRAITS + past)
        .map(|_| string(bound::TRAIT, false))
        .collect();
    let style_rules: Vec<String> = (0..bound::STYLE_RULES + past)
        .map(|_| string(bound::STYLE_RULE, true))
        .collect();
    let avoid: Vec<String> = (0..bound::AVOIDS + past)
        .map(|_| string(bound::AVOID, false))
        .collect();
    let behavior: Vec<String> = ["explain", "disagree", "uncertainty", "mistakes", "progress"]
        .iter()
        .map(|field| format!("\"{field}\": {}", string(bound::GUIDANCE, false)))
        .collect();
    let adaptations: Vec<String> = ["everyday", "focused", "sensitive", "writing"]
        .iter()
        .map(|field| format!("\"{field}\": {}", string(bound::GUIDANCE, false)))
        .collect();
    let examples_count = bound::EXAMPLES + past;
    let examples: Vec<String> = (0..examples_count)
        .map(|index| {
            let extra: Vec<&str> = extra
                .iter()
                .skip(index)
                .step_by(examples_count)
                .map(String::as_str)
                .collect();
            let extra = if extra.is_empty() {
                String::new()
            } else {
                format!(",\n      {}", extra.join(",\n      "))
            };
            format!(
                "{{\n      \"situation\": {},\n      \"user\": {},\n      \"assistant\": {},\n      \"note\": {}{extra}\n    }}",
                string(bound::SITUATION, false),
                string(bound::USER, false),
                string(bound::ASSISTANT, false),
                string(bound::NOTE, false)
            )
        })
        .collect();
    let checks: Vec<String> = (0..bound::CHECKS + past)
        .map(|_| string(bound::CHECK, true))
        .collect();
    // 48 characters, the id's bound (49 when every field is past its bound).
    let id = if past == 1 {
        "benchmark-kit-with-every-field-one-past-its-bound"
    } else {
        "benchmark-kit-with-every-field-at-its-bound-0001"
    };
    format!(
        r#"{{
  "format": "soulware.soul-kit",
  "format_version": 1,
  "id": "{id}",
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
        name = string(bound::NAME, false),
        summary = string(bound::SUMMARY, false),
        core = string(bound::CORE, false),
        traits = list(traits, "    "),
        style_rules = list(style_rules, "    "),
        avoid = list(avoid, "    "),
        behavior = behavior.join(",\n    "),
        adaptations = adaptations.join(",\n    "),
        examples = examples.join(",\n    "),
        checks = list(checks, "  "),
    )
}

/// The largest content a valid Soul Kit holds, in `style`: every array at its largest
/// count, every string at its largest length, and no padding. The field table bounds all
/// of it, so this is far under the byte limit (about 45 KB in ASCII).
pub fn soul_kit_content(style: Text) -> Vec<u8> {
    soul_kit_text(style, KitFill::AtBounds, &[]).into_bytes()
}

/// A valid Soul Kit of exactly `total` bytes: [`soul_kit_content`] with spaces before the
/// first key for the rest (as the corpus's size cases pad). With `total` one past the
/// limit it is the same kit, one space longer.
pub fn soul_kit(style: Text, total: usize) -> Vec<u8> {
    pad_after_first_byte(soul_kit_text(style, KitFill::AtBounds, &[]), total)
}

/// A Soul Kit of exactly `total` bytes wrong in every way a schema or the reference
/// reports field by field, so a validator that collects every error has hundreds to
/// collect: every string one character past its bound and every array one entry past
/// its count (see `KitFill::PastBounds`), a control character in each style rule and
/// check, and as many unknown members (each a string of 300 characters) spread over the
/// examples as fit, with spaces for the few bytes left.
pub fn soul_kit_invalid(total: usize) -> Vec<u8> {
    let base = soul_kit_text(Text::Ascii, KitFill::PastBounds, &[]);
    let mut rng = Rng::new(0x50BAD);
    let mut extra = Vec::new();
    // Each member adds its own bytes, the separator and the indentation before it.
    let mut length = base.len();
    loop {
        let member = format!(
            "\"unknown_member_{:04}\": {}",
            extra.len(),
            json_string(&text(&mut rng, 300, Text::Ascii), false)
        );
        let added = member.len() + ",\n      ".len();
        if length + added > total {
            break;
        }
        length += added;
        extra.push(member);
    }
    pad_after_first_byte(
        soul_kit_text(Text::Ascii, KitFill::PastBounds, &extra),
        total,
    )
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

/// One inline supporting file of a Soulacy package, 2 to 14 KB of one of four kinds
/// (Markdown, Japanese notes, Python, YAML), with its true SHA-256 digest.
fn soulacy_file(rng: &mut Rng, index: usize) -> serde_json::Value {
    let kind = index % 4;
    let size = 2_000 + rng.below(12_000);
    let body = file_text(rng, kind, size);
    let path = match kind {
        0 => format!("knowledge/notes-{index}.md"),
        1 => format!("knowledge/ja/ノート-{index}.md"),
        2 => format!("tools/step_{index}.py"),
        _ => format!("config/settings-{index}.yaml"),
    };
    soulacy_file_entry(&path, &body)
}

/// A `files[]` entry: path, digest, byte count and text.
fn soulacy_file_entry(path: &str, body: &str) -> serde_json::Value {
    json!({
        "path": path,
        "sha256": format!("{:x}", Sha256::digest(body.as_bytes())),
        "bytes": body.len(),
        "text": body,
    })
}

/// A Soulacy v2 package of realistic large size: a full manifest (every list filled, a
/// dozen secrets, publisher, a requires block), a SOUL.yaml of a few kilobytes and `files`
/// inline supporting files of 2 to 14 KB each (Markdown, Japanese notes, Python, YAML)
/// with their true SHA-256 digests.
pub fn soulacy_package(files: usize) -> Vec<u8> {
    let mut rng = Rng::new(0x50AC);
    let file_entries: Vec<serde_json::Value> = (0..files)
        .map(|index| soulacy_file(&mut rng, index))
        .collect();
    let mut bytes = serde_json::to_vec_pretty(&soulacy_document(&mut rng, file_entries))
        .expect("a JSON value serialises");
    bytes.push(b'\n');
    bytes
}

/// The largest content a valid Soulacy package holds: exactly `total` bytes (the package
/// limit) of the realistic package's manifest and inline files, a last file sized so the
/// document ends at the limit, and spaces only for the byte or two a file cannot take.
/// The format bounds no string or count, so nothing but the limit stops the content.
/// With `escaped` every non-ASCII character is written as a `\u` escape (as Python's
/// `json.dumps` writes by default), which leaves room for fewer files.
pub fn soulacy_package_filled(total: usize, escaped: bool) -> Vec<u8> {
    let mut rng = Rng::new(0x50AC);
    let serialise = |value: &serde_json::Value| {
        let mut bytes = serde_json::to_vec_pretty(value).expect("a JSON value serialises");
        bytes.push(b'\n');
        if escaped {
            escape_non_ascii(&bytes)
        } else {
            bytes
        }
    };
    // Files are added while an estimate of the document (each file's entry, its path again
    // in files_required, indentation) stays well under the limit; the last file then
    // takes up exactly what is left.
    let mut estimate = serialise(&soulacy_document(&mut rng.clone(), Vec::new())).len();
    let mut entries = Vec::new();
    loop {
        let entry = soulacy_file(&mut rng, entries.len());
        let path = entry["path"].as_str().unwrap_or_default().len();
        let size = serialise(&entry).len() + 3 * path + 64;
        if estimate + size + 32 * 1024 > total {
            break;
        }
        estimate += size;
        entries.push(entry);
    }
    let last = entries.len();
    fill_exactly(total, |bytes| {
        let mut files = entries.clone();
        let body = exact_text(&mut Rng::new(0x50AD), bytes, Text::Ascii);
        files.push(soulacy_file_entry(
            &format!("knowledge/notes-{last}.md"),
            &body,
        ));
        serialise(&soulacy_document(&mut rng.clone(), files))
    })
}

/// The JSON document `build` makes with a free text of `n` bytes (the size growing with
/// `n`), for the `n` that brings it closest to `total` bytes from below, padded with
/// spaces after its first byte to exactly `total`.
fn fill_exactly(total: usize, build: impl Fn(usize) -> Vec<u8>) -> Vec<u8> {
    let empty = build(0).len();
    assert!(
        empty <= total,
        "{empty} bytes before the free text, over {total}"
    );
    let mut free = total - empty;
    for _ in 0..64 {
        let document = build(free);
        if document.len() > total {
            free -= (document.len() - total).min(free);
        } else if total - document.len() <= 2 {
            let text = String::from_utf8(document).expect("the document is UTF-8");
            return pad_after_first_byte(text, total);
        } else {
            free += (total - document.len()) / 2 + 1;
        }
    }
    panic!("no free text brings the document to {total} bytes");
}

/// `json` with every non-ASCII character written as a `\u` escape (surrogate pairs above
/// the Basic Multilingual Plane). In JSON, non-ASCII text can only stand inside strings,
/// so the document means the same; only its encoding grows.
pub fn escape_non_ascii(json: &[u8]) -> Vec<u8> {
    let text = std::str::from_utf8(json).expect("JSON text is UTF-8");
    let mut out = String::with_capacity(json.len() * 2);
    for c in text.chars() {
        if c.is_ascii() {
            out.push(c);
        } else {
            let mut units = [0u16; 2];
            for unit in c.encode_utf16(&mut units) {
                out.push_str(&format!("\\u{unit:04x}"));
            }
        }
    }
    out.into_bytes()
}

/// Everything of the realistic Soulacy package but its files, with `file_entries` as its
/// `files` (and their paths as `files_required`).
fn soulacy_document(rng: &mut Rng, file_entries: Vec<serde_json::Value>) -> serde_json::Value {
    let names = |rng: &mut Rng, prefix: &str, count: usize| -> Vec<String> {
        (0..count)
            .map(|index| format!("{prefix}-{index}-{}", rng.pick(&["alpha", "beta", "gamma"])))
            .collect()
    };
    let files_required: Vec<String> = file_entries
        .iter()
        .filter_map(|entry| entry["path"].as_str().map(str::to_owned))
        .collect();
    let secrets: Vec<serde_json::Value> = (0..12)
        .map(|index| {
            json!({
                "kind": "provider_api_key",
                "name": format!("llm.providers.p{index}.api_key"),
                "description": text(rng, 80, Text::Ascii),
            })
        })
        .collect();
    let soul_yaml = format!(
        "id: support-desk\nname: Support Desk\ntrigger: message\npersona: |\n  {}\n",
        text(rng, 6_000, Text::Ascii).replace('\n', "\n  ")
    );
    json!({
        "schema_version": "soulacy.agent.package/v2",
        "exported_at": "2026-07-14T15:23:00Z",
        "manifest": {
            "agent_id": "support-desk",
            "name": "Support Desk",
            "version": "2026.07.14.3",
            "description": text(rng, 400, Text::Multibyte),
            "trigger": "message",
            "surfaces": names(rng, "surface", 6),
            "providers": names(rng, "provider", 8),
            "models": names(rng, "model", 12),
            "channels": names(rng, "channel", 8),
            "skills": names(rng, "skill", 40),
            "knowledge": names(rng, "knowledge", 30),
            "peer_agents": names(rng, "peer", 10),
            "builtins": names(rng, "builtin", 16),
            "mcp_servers": names(rng, "mcp", 12),
            "mcp_tools": names(rng, "tool", 80),
            "env": names(rng, "ENV", 20),
            "capabilities": names(rng, "capability", 24),
            "secrets": secrets,
            "files_required": files_required,
            "eval_suites": names(rng, "eval", 10),
            "sample_prompts": (0..40).map(|_| text(rng, 120, Text::Multibyte)).collect::<Vec<_>>(),
            "warnings": names(rng, "warning", 4),
            "package_id": "acme/support-desk",
            "prior_version": "2026.07.01",
            "released_at": "2026-07-14T09:00:00Z",
            "changelog": text(rng, 2_000, Text::Ascii),
            "publisher": {
                "id": "acme",
                "display_name": "Acme Corp",
                "signature_key": "ed25519:acme-2026",
                "trust_level": "community",
            },
            "requires": {
                "soulacy_version": ">=0.9",
                "providers": (0..8).map(|index| json!({"id": format!("provider-{index}"), "reason": text(rng, 60, Text::Ascii)})).collect::<Vec<_>>(),
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
        // No package digest: Soulacy's importer checks one against Go's re-serialisation
        // of the whole package, which these generators do not reproduce; a digest of
        // anything else would make every input an integrity mismatch.
        "integrity": {
            "algorithm": "sha256",
        },
    })
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

/// How long the content list of a generated compose bundle is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Content {
    /// This many entries.
    Entries(usize),
    /// As many entries as fit in a manifest of exactly this many bytes (the manifest
    /// limit): the format bounds no count, so the content list is what fills a manifest,
    /// with spaces only for the bytes an entry cannot take.
    FillTo(usize),
}

/// Writes an agent-compose bundle of realistic large size below `root` and returns its
/// manifest's bytes: eight sources, `skills` selected skills each with its identity tree,
/// four times as many excluded ones in the trace, and a content list of the role skill,
/// every selected skill and the assets they carry (as long as `content` says).
pub fn compose_bundle(root: &std::path::Path, skills: usize, content: Content) -> Vec<u8> {
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
    let mut entries = Vec::new();
    // Each entry of the pretty-printed list: its own lines, indented two levels deeper,
    // and the separator before it.
    let entry_bytes = |entry: &serde_json::Value| {
        let text = serde_json::to_string_pretty(entry).expect("a JSON value serialises");
        text.len() + 4 * text.lines().count() + ",\n".len()
    };
    let mut estimate = 0;
    for index in 0.. {
        if let Content::Entries(count) = content {
            if index == count {
                break;
            }
        }
        let id = match index {
            0 => "roster:core:role:platform:identity".to_owned(),
            index if index < skills => format!("{}:{}", selected[index].0, selected[index].1),
            index => format!(
                "{}:asset-{index:04}:{}",
                sources[index % sources.len()],
                rng.pick(&["invariant", "evaluation", "copy-contract", "personality"])
            ),
        };
        let entry = json!({"id": id, "digest": digest(&id)});
        if let Content::FillTo(total) = content {
            estimate += entry_bytes(&entry);
            if estimate > total {
                break;
            }
        }
        entries.push(entry);
    }
    let role_digest = digest("role-eng-platform");
    let manifest = |entries: &[serde_json::Value]| {
        json!({
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
        })
    };
    let mut manifest_bytes =
        serde_json::to_vec_pretty(&manifest(&entries)).expect("a JSON value serialises");
    if let Content::FillTo(total) = content {
        // The estimate left out the rest of the manifest: drop entries until it fits.
        while manifest_bytes.len() > total {
            let excess = manifest_bytes.len() - total;
            let mut dropped = 0;
            while dropped < excess {
                dropped += entries.pop().as_ref().map_or(1, entry_bytes);
            }
            manifest_bytes =
                serde_json::to_vec_pretty(&manifest(&entries)).expect("a JSON value serialises");
        }
        let text = String::from_utf8(manifest_bytes).expect("the manifest is UTF-8");
        manifest_bytes = pad_after_first_byte(text, total);
    }
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
