//! Soulacy agent packages (schema v1 and v2) and install sidecars: valid documents built
//! from the spec's shapes (namespaced ids at their length bounds, calendar versions,
//! RFC 3339 instants, inline files with their true digests) and targeted mutations with
//! the diagnostics each must draw.

use arbitrary::Unstructured;
use sha2::{Digest, Sha256};

use super::{Generated, NEAR_MISS_KEYS};
use crate::invariants::{Expected, Place};
use crate::json_text::{self, Json};

/// Largest valid package, in bytes.
pub const MAX_PACKAGE_BYTES: usize = soulcheck_reference::soulacy::MAX_PACKAGE_BYTES;

/// Largest valid sidecar, in bytes.
pub const MAX_SIDECAR_BYTES: usize = soulcheck_reference::soulacy::MAX_SIDECAR_BYTES;

const V1: &str = "soulacy.agent.package/v1";
const V2: &str = "soulacy.agent.package/v2";

/// A string of `[a-z0-9-]` of `length` characters, starting with a letter or digit.
fn slug(u: &mut Unstructured<'_>, length: usize) -> arbitrary::Result<String> {
    let mut text = String::new();
    while text.len() < length {
        let alphabet: &[u8] = if text.is_empty() {
            b"abcdefghijklmnopqrstuvwxyz0123456789"
        } else {
            b"abcdefghijklmnopqrstuvwxyz0123456789-"
        };
        text.push(char::from(*u.choose(alphabet)?));
    }
    Ok(text)
}

/// A valid `<publisher>/<package>` outside the reserved namespace.
fn package_id(u: &mut Unstructured<'_>) -> arbitrary::Result<String> {
    let publisher_length = super::length(u, 2, 32)?;
    let mut publisher = slug(u, publisher_length)?;
    if publisher == "soulacy" {
        publisher.push('s');
    }
    let package_length = super::length(u, 1, 63)?;
    Ok(format!("{publisher}/{}", slug(u, package_length)?))
}

/// A calendar version naming a real date, with an optional PATCH of any length.
fn calendar(u: &mut Unstructured<'_>) -> arbitrary::Result<String> {
    let year = u.int_in_range(0u16..=9999)?;
    let month = u.int_in_range(1u8..=12)?;
    let day = if u.ratio(1u8, 8)? && month == 2 && year % 400 == 0 {
        29
    } else {
        u.int_in_range(1u8..=28)?
    };
    let mut version = format!("{year:04}.{month:02}.{day:02}");
    if u.arbitrary()? {
        let digits = u.int_in_range(1usize..=25)?;
        version.push('.');
        for _ in 0..digits {
            version.push(char::from(u.int_in_range(b'0'..=b'9')?));
        }
    }
    Ok(version)
}

/// An RFC 3339 date-time.
fn instant(u: &mut Unstructured<'_>) -> arbitrary::Result<String> {
    let mut text = format!(
        "{:04}-{:02}-{:02}{}{:02}:{:02}:{:02}",
        u.int_in_range(1u16..=9999)?,
        u.int_in_range(1u8..=12)?,
        u.int_in_range(1u8..=28)?,
        u.choose(&["T", "t"])?,
        u.int_in_range(0u8..=23)?,
        u.int_in_range(0u8..=59)?,
        u.int_in_range(0u8..=59)?,
    );
    if u.arbitrary()? {
        text.push_str(u.choose(&[".5", ".123456789", ".000"])?);
    }
    text.push_str(u.choose(&["Z", "z", "+05:30", "-08:00", "+00:00"])?);
    Ok(text)
}

/// The embedded SOUL.yaml: mostly one Soulacy's importer takes (it refuses a SOUL.yaml
/// without an `id`, or with a trigger outside its list), so a campaign against the
/// importer reaches the checks behind that one; otherwise any visible text, which the
/// spec allows (it asks for non-blank text and leaves the YAML to Soulacy).
fn soul_yaml(u: &mut Unstructured<'_>) -> arbitrary::Result<String> {
    if u.ratio(1u8, 4u8)? {
        return super::text(u, 1, 200);
    }
    let id_length = super::length(u, 1, 40)?;
    let mut yaml = format!("id: {}\n", slug(u, id_length)?);
    // Plain scalars only: a letter first and no `:` or `#`, so any YAML reader takes them.
    let name_length = super::length(u, 1, 40)?;
    yaml.push_str(&format!("name: Agent {}\n", slug(u, name_length)?));
    // The triggers that need no schedule (cron and oneshot need one).
    if let Some(trigger) = u.choose(&[None, Some("channel"), Some("webhook"), Some("internal")])? {
        yaml.push_str(&format!("trigger: {trigger}\n"));
    }
    if u.arbitrary()? {
        yaml.push_str("description: |\n  Answers in plain words.\n");
    }
    Ok(yaml)
}

/// Free text: any visible string of up to 40 characters.
fn words(u: &mut Unstructured<'_>) -> arbitrary::Result<Json> {
    Ok(Json::String(super::text(u, 1, 40)?))
}

/// A list of `n` free-text strings.
fn list(u: &mut Unstructured<'_>, max: usize) -> arbitrary::Result<Json> {
    let n = u.int_in_range(0..=max)?;
    let mut items = Vec::new();
    for _ in 0..n {
        items.push(words(u)?);
    }
    Ok(Json::Array(items))
}

fn maybe(
    u: &mut Unstructured<'_>,
    members: &mut Vec<(String, Json)>,
    key: &str,
    make: impl FnOnce(&mut Unstructured<'_>) -> arbitrary::Result<Json>,
) -> arbitrary::Result<()> {
    if u.arbitrary()? {
        members.push((key.to_owned(), make(u)?));
    }
    Ok(())
}

/// A publisher block; its id is the publisher part of the package id (a mismatch is
/// `soulacy-package.publisher.namespace`).
fn publisher(u: &mut Unstructured<'_>, namespace: &str) -> arbitrary::Result<Json> {
    let mut members = vec![("id".to_owned(), Json::str(namespace))];
    for key in ["display_name", "signature_key", "trust_level"] {
        maybe(u, &mut members, key, words)?;
    }
    Ok(Json::Object(members))
}

fn requirement(u: &mut Unstructured<'_>) -> arbitrary::Result<Json> {
    let mut members = vec![("id".to_owned(), words(u)?)];
    maybe(u, &mut members, "reason", words)?;
    Ok(Json::Object(members))
}

fn requires(u: &mut Unstructured<'_>) -> arbitrary::Result<Json> {
    let mut members = Vec::new();
    maybe(u, &mut members, "soulacy_version", words)?;
    for key in ["providers", "channels", "mcp_servers", "peer_agents"] {
        if u.arbitrary()? {
            let n = u.int_in_range(0usize..=3)?;
            let mut items = Vec::new();
            for _ in 0..n {
                items.push(requirement(u)?);
            }
            members.push((key.to_owned(), Json::Array(items)));
        }
    }
    if u.arbitrary()? {
        let mut secret = vec![("key".to_owned(), words(u)?)];
        for key in ["label", "reason", "kind", "provider"] {
            maybe(u, &mut secret, key, words)?;
        }
        members.push((
            "secrets".to_owned(),
            Json::Array(vec![Json::Object(secret)]),
        ));
    }
    Ok(Json::Object(members))
}

/// Inline files with distinct relative paths and true digests.
fn files(u: &mut Unstructured<'_>) -> arbitrary::Result<Json> {
    let n = u.int_in_range(0usize..=4)?;
    let mut items = Vec::new();
    for index in 0..n {
        let dir = *u.choose(&["", "skills/", "docs/a b/", "é/", "./", "x..y/"])?;
        let path = format!("{dir}file-{index}.md");
        // An entry without text is an empty file (Soulacy's exporter omits an empty text).
        let text = if u.ratio(3u8, 4)? {
            Some(super::text(u, 1, 60)?)
        } else {
            None
        };
        let content = text.as_deref().unwrap_or_default();
        let mut members = vec![
            ("path".to_owned(), Json::String(path)),
            (
                "sha256".to_owned(),
                Json::String(format!("{:x}", Sha256::digest(content.as_bytes()))),
            ),
            ("bytes".to_owned(), Json::Number(content.len().to_string())),
        ];
        if let Some(text) = text {
            members.push(("text".to_owned(), Json::String(text)));
        }
        items.push(Json::Object(members));
    }
    Ok(Json::Array(items))
}

fn integrity(u: &mut Unstructured<'_>) -> arbitrary::Result<Json> {
    let mut members = Vec::new();
    maybe(u, &mut members, "algorithm", |_| Ok(Json::str("sha256")))?;
    // No sha256: a package digest is the importer's digest of the whole package
    // (soulacy-package.integrity.mismatch), which any later mutation would change, so a
    // generated package leaves it out (an absent digest is not compared).
    maybe(u, &mut members, "signature", words)?;
    maybe(u, &mut members, "public_key", words)?;
    maybe(u, &mut members, "verified", |u| {
        Ok(Json::Bool(u.arbitrary()?))
    })?;
    Ok(Json::Object(members))
}

/// A valid package of the given schema version.
pub fn package(u: &mut Unstructured<'_>, v2: bool) -> arbitrary::Result<Json> {
    let mut manifest = Vec::new();
    if v2 {
        manifest.push(("agent_id".to_owned(), words(u)?));
        let id = package_id(u)?;
        let namespace = id.split('/').next().unwrap_or_default().to_owned();
        manifest.push(("package_id".to_owned(), Json::String(id)));
        manifest.push(("version".to_owned(), Json::String(calendar(u)?)));
        maybe(u, &mut manifest, "prior_version", |u| {
            Ok(Json::String(calendar(u)?))
        })?;
        maybe(u, &mut manifest, "released_at", |u| {
            Ok(Json::String(instant(u)?))
        })?;
        maybe(u, &mut manifest, "changelog", words)?;
        maybe(u, &mut manifest, "publisher", |u| publisher(u, &namespace))?;
        maybe(u, &mut manifest, "requires", requires)?;
    } else {
        maybe(u, &mut manifest, "agent_id", words)?;
        // A v1 version is free text (calendar versions came with v2).
        maybe(u, &mut manifest, "version", words)?;
    }
    for key in ["name", "description", "trigger"] {
        maybe(u, &mut manifest, key, words)?;
    }
    for key in ["surfaces", "skills", "capabilities", "warnings", "env"] {
        maybe(u, &mut manifest, key, |u| list(u, 3))?;
    }
    maybe(u, &mut manifest, "secrets", |u| {
        let mut secret = vec![
            ("kind".to_owned(), words(u)?),
            ("name".to_owned(), words(u)?),
        ];
        maybe(u, &mut secret, "description", words)?;
        Ok(Json::Array(vec![Json::Object(secret)]))
    })?;
    let turn = u.int_in_range(0..=manifest.len().saturating_sub(1))?;
    manifest.rotate_left(turn);

    let mut root = vec![
        (
            "schema_version".to_owned(),
            Json::str(if v2 { V2 } else { V1 }),
        ),
        ("soul_yaml".to_owned(), Json::String(soul_yaml(u)?)),
        ("manifest".to_owned(), Json::Object(manifest)),
    ];
    maybe(u, &mut root, "exported_at", |u| {
        Ok(Json::String(instant(u)?))
    })?;
    maybe(u, &mut root, "files", files)?;
    maybe(u, &mut root, "integrity", integrity)?;
    let turn = u.int_in_range(0..=root.len().saturating_sub(1))?;
    root.rotate_left(turn);
    Ok(Json::Object(root))
}

/// A valid sidecar of the given schema version.
pub fn sidecar(u: &mut Unstructured<'_>, v2: bool) -> arbitrary::Result<Json> {
    let mut root = vec![
        (
            "schema_version".to_owned(),
            Json::str(if v2 { V2 } else { V1 }),
        ),
        ("installed_at".to_owned(), Json::String(instant(u)?)),
    ];
    // The publisher block names the package id's publisher (a mismatch is the strict
    // profile's soulacy-sidecar.publisher.namespace); a v1 sidecar has no package id.
    let mut namespace = None;
    if v2 {
        let id = package_id(u)?;
        namespace = id.split('/').next().map(str::to_owned);
        root.push(("package_id".to_owned(), Json::String(id)));
        root.push(("installed_version".to_owned(), Json::String(calendar(u)?)));
    }
    maybe(u, &mut root, "installed_from", words)?;
    maybe(u, &mut root, "trust_level_at_install", words)?;
    maybe(u, &mut root, "signature_verified", |u| {
        Ok(Json::Bool(u.arbitrary()?))
    })?;
    maybe(u, &mut root, "acknowledged_missing", |u| {
        Ok(Json::Bool(u.arbitrary()?))
    })?;
    maybe(u, &mut root, "publisher", |u| {
        let id = match &namespace {
            Some(namespace) => namespace.clone(),
            None => super::text(u, 1, 20)?,
        };
        publisher(u, &id)
    })?;
    let turn = u.int_in_range(0..=root.len().saturating_sub(1))?;
    root.rotate_left(turn);
    Ok(Json::Object(root))
}

/// The targeted mutations of the two Soulacy documents.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mutation {
    /// None: the valid document.
    None,
    /// Remove a required member.
    DropRequired,
    /// Add a member no object has (a warning).
    UnknownKey,
    /// Make one part of package_id one character too long.
    LengthPlusOne,
    /// Repeat a member.
    DuplicateKey,
    /// Give a string, array, object or boolean the wrong JSON type.
    WrongType,
    /// Break a value: schema version, calendar version, package id, instant, path, digest.
    BadValue,
    /// Pad to exactly the size limit (still valid) or one byte past it.
    Size,
    /// A raw control byte inside a string literal: not JSON any more.
    RawControl,
    /// Several untargeted edits; no prediction.
    Scramble,
}

impl Mutation {
    /// Every mutation.
    pub const ALL: &'static [Mutation] = &[
        Mutation::None,
        Mutation::DropRequired,
        Mutation::UnknownKey,
        Mutation::LengthPlusOne,
        Mutation::DuplicateKey,
        Mutation::WrongType,
        Mutation::BadValue,
        Mutation::Size,
        Mutation::RawControl,
        Mutation::Scramble,
    ];
}

/// Which document.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Document {
    /// A `*.soulacy-agent.json` package.
    Package,
    /// A `.soulacy-package.json` sidecar.
    Sidecar,
}

impl Document {
    fn format(self) -> &'static str {
        match self {
            Document::Package => "soulacy-package",
            Document::Sidecar => "soulacy-sidecar",
        }
    }

    fn max_bytes(self) -> usize {
        match self {
            Document::Package => MAX_PACKAGE_BYTES,
            Document::Sidecar => MAX_SIDECAR_BYTES,
        }
    }
}

/// A document with a fuzz-chosen schema version and mutation.
pub fn generate(u: &mut Unstructured<'_>, document: Document) -> arbitrary::Result<Generated> {
    let v2 = u.ratio(4u8, 5)?;
    let mutation = *u.choose(Mutation::ALL)?;
    generate_with(u, document, v2, mutation)
}

fn rule(document: Document, tail: &str) -> String {
    format!("{}.{tail}", document.format())
}

/// A document of the given schema version with the given mutation applied.
pub fn generate_with(
    u: &mut Unstructured<'_>,
    document: Document,
    v2: bool,
    mutation: Mutation,
) -> arbitrary::Result<Generated> {
    // The mutation's choices come from the front of the input, apart from the bytes the
    // document's content consumes, so they stay varied however long the document is.
    let decisions = u.bytes(u.len().min(64))?;
    let mut plan = Unstructured::new(decisions);
    let mut tree = match document {
        Document::Package => package(u, v2)?,
        Document::Sidecar => sidecar(u, v2)?,
    };
    let u = &mut plan;
    if mutation == Mutation::Scramble {
        return super::scrambled(u, &mut tree);
    }
    let mut prediction = Prediction::new(document, v2, mutation);
    edit_tree(u, document, v2, mutation, &mut tree, &mut prediction)?;
    spell(u, mutation, &tree, prediction)
}

/// What a mutation must draw, and how to describe it in a violation message.
struct Prediction {
    /// The document, whose format names the rules.
    document: Document,
    /// The diagnostics the document must get, exactly.
    expected: Vec<Expected>,
    /// What the strict profile adds ([`Generated::strict_only`]).
    strict_only: Vec<Expected>,
    /// The mutation's name, the schema version and what the mutation did.
    summary: String,
}

impl Prediction {
    /// What the unmutated document draws: nothing, but for a v1 package the deprecation.
    fn new(document: Document, v2: bool, mutation: Mutation) -> Prediction {
        let mut expected = Vec::new();
        if !v2 && document == Document::Package {
            // No clock is given, so a v1 package is deprecated but not refused.
            expected.push(Expected::pointer(
                "soulacy-package.v1.deprecated",
                "/schema_version",
            ));
        }
        Prediction {
            document,
            expected,
            strict_only: Vec::new(),
            summary: format!("{mutation:?} v{}", if v2 { 2 } else { 1 }),
        }
    }

    /// Expects the format's rule `tail` (`field.required`) at `pointer`.
    fn at(&mut self, tail: &str, pointer: &str) {
        self.expected
            .push(Expected::pointer(&rule(self.document, tail), pointer));
    }

    /// An edit of the schema version leaves no version to deprecate, so the deprecation
    /// expected so far is dropped.
    fn before_edit_at(&mut self, pointer: &str) {
        if pointer == "/schema_version" {
            self.expected.clear();
        }
    }
}

/// Applies the mutations made on the tree; the size and raw-control mutations act on the
/// spelled text instead ([`spell`]).
fn edit_tree(
    u: &mut Unstructured<'_>,
    document: Document,
    v2: bool,
    mutation: Mutation,
    tree: &mut Json,
    prediction: &mut Prediction,
) -> arbitrary::Result<()> {
    match mutation {
        Mutation::None | Mutation::Size | Mutation::RawControl | Mutation::Scramble => Ok(()),
        Mutation::DropRequired => drop_required(u, document, v2, tree, prediction),
        Mutation::UnknownKey => unknown_key(u, tree, prediction),
        Mutation::LengthPlusOne => length_plus_one(u, document, v2, tree, prediction),
        Mutation::DuplicateKey => duplicate_key(u, tree, prediction),
        Mutation::WrongType => wrong_type(u, tree, prediction),
        Mutation::BadValue => break_value(u, document, v2, tree, prediction),
    }
}

/// Removes a required member: a top-level one of the schema version, or one of a file
/// entry or of an object with an id.
fn drop_required(
    u: &mut Unstructured<'_>,
    document: Document,
    v2: bool,
    tree: &mut Json,
    prediction: &mut Prediction,
) -> arbitrary::Result<()> {
    let mut required: Vec<String> = match document {
        Document::Package => vec![
            "/schema_version".into(),
            "/soul_yaml".into(),
            "/manifest".into(),
        ],
        Document::Sidecar => vec!["/schema_version".into(), "/installed_at".into()],
    };
    if v2 {
        match document {
            Document::Package => required.extend(
                [
                    "/manifest/agent_id",
                    "/manifest/package_id",
                    "/manifest/version",
                ]
                .map(String::from),
            ),
            Document::Sidecar => {
                required.extend(["/package_id", "/installed_version"].map(String::from))
            }
        }
    }
    required.extend(
        tree.pointers(&|node| match node {
            Json::Object(members) => members.iter().any(|(key, _)| key == "path"),
            _ => false,
        })
        .into_iter()
        .flat_map(|file| ["path", "sha256", "bytes"].map(|key| json_text::join(&file, key))),
    );
    required.extend(
        tree.pointers(&|node| matches!(node, Json::Object(members) if members.first().is_some_and(|(key, _)| key == "id")))
            .into_iter()
            .map(|object| json_text::join(&object, "id")),
    );
    let pointer = u.choose(&required)?.clone();
    prediction.before_edit_at(&pointer);
    tree.remove(&pointer);
    prediction.at("field.required", &pointer);
    prediction.summary.push_str(&format!(" {pointer}"));
    Ok(())
}

/// Adds a near-miss key to some object.
fn unknown_key(
    u: &mut Unstructured<'_>,
    tree: &mut Json,
    prediction: &mut Prediction,
) -> arbitrary::Result<()> {
    let objects = tree.pointers(&|node| matches!(node, Json::Object(_)));
    let object = u.choose(&objects)?.clone();
    let key = *u.choose(NEAR_MISS_KEYS)?;
    tree.push_member(&object, key, Json::str("x"));
    let pointer = json_text::join(&object, key);
    prediction.at("object.unknown-key", &pointer);
    prediction.summary.push_str(&format!(" {pointer}"));
    Ok(())
}

/// Makes one part of a v2 package id one character too long.
fn length_plus_one(
    u: &mut Unstructured<'_>,
    document: Document,
    v2: bool,
    tree: &mut Json,
    prediction: &mut Prediction,
) -> arbitrary::Result<()> {
    let pointer = match document {
        Document::Package if v2 => "/manifest/package_id",
        Document::Sidecar if v2 => "/package_id",
        _ => return Err(arbitrary::Error::IncorrectFormat),
    };
    let publisher = u.arbitrary::<bool>()?;
    let id = if publisher {
        format!("{}/{}", slug(u, 33)?, slug(u, 5)?)
    } else {
        format!("{}/{}", slug(u, 5)?, slug(u, 64)?)
    };
    if let Some(node) = tree.at_mut(pointer) {
        *node = Json::String(id);
    }
    let tail = if publisher {
        "package-id.publisher"
    } else {
        "package-id.package"
    };
    prediction.at(tail, pointer);
    prediction.summary.push_str(&format!(" {tail}"));
    Ok(())
}

/// Repeats an object member.
fn duplicate_key(
    u: &mut Unstructured<'_>,
    tree: &mut Json,
    prediction: &mut Prediction,
) -> arbitrary::Result<()> {
    let members = tree.pointers(&|_| true);
    let members: Vec<String> = members
        .into_iter()
        .filter(|pointer| {
            json_text::split_last(pointer)
                .is_some_and(|(parent, _)| matches!(tree.at(&parent), Some(Json::Object(_))))
        })
        .collect();
    let pointer = u.choose(&members)?.clone();
    tree.duplicate(&pointer);
    // json.duplicate-key is a strict-profile rule for both documents: in the spec profile
    // the last occurrence stands, and it repeats the first.
    let duplicate = rule(prediction.document, "json.duplicate-key");
    prediction
        .strict_only
        .push(Expected::pointer(&duplicate, &pointer));
    prediction.summary.push_str(&format!(" {pointer}"));
    Ok(())
}

/// Gives a string, array, object or boolean the wrong JSON type.
fn wrong_type(
    u: &mut Unstructured<'_>,
    tree: &mut Json,
    prediction: &mut Prediction,
) -> arbitrary::Result<()> {
    let typed = tree.pointers(&|node| {
        matches!(
            node,
            Json::String(_) | Json::Array(_) | Json::Object(_) | Json::Bool(_)
        )
    });
    let typed: Vec<String> = typed
        .into_iter()
        // The root has its own rule, and in v1 the version is not checked.
        .filter(|pointer| !pointer.is_empty())
        .collect();
    let pointer = u.choose(&typed)?.clone();
    let Some(current) = tree.at(&pointer).cloned() else {
        return Err(arbitrary::Error::IncorrectFormat);
    };
    // Go's decoder reads null as absent: no wrong type (soulacy-package.field.type).
    let replacement = super::other_type_not_null(u, &current)?;
    if let Some(node) = tree.at_mut(&pointer) {
        *node = replacement;
    }
    prediction.before_edit_at(&pointer);
    prediction.at("field.type", &pointer);
    prediction.summary.push_str(&format!(" {pointer}"));
    Ok(())
}

/// Breaks one value rule ([`bad_value`]).
fn break_value(
    u: &mut Unstructured<'_>,
    document: Document,
    v2: bool,
    tree: &mut Json,
    prediction: &mut Prediction,
) -> arbitrary::Result<()> {
    let BadValue {
        pointer,
        value,
        tail,
    } = bad_value(u, tree, document, v2)?;
    prediction.before_edit_at(&pointer);
    if let Some(node) = tree.at_mut(&pointer) {
        *node = value;
    }
    prediction.at(tail, &pointer);
    // Moving the package into the soulacy/ namespace also parts it from its publisher
    // block.
    if tail == "namespace.reserved"
        && matches!(tree.at("/manifest/publisher/id"), Some(Json::String(id)) if id != "soulacy")
    {
        prediction.at("publisher.namespace", "/manifest/publisher/id");
    }
    prediction.summary.push_str(&format!(" {pointer} ({tail})"));
    Ok(())
}

/// Spells the tree, then applies the mutations made on the text: padding to the size
/// limit and a raw control byte. Only a document edited as a tree has a respelling.
fn spell(
    u: &mut Unstructured<'_>,
    mutation: Mutation,
    tree: &Json,
    prediction: Prediction,
) -> arbitrary::Result<Generated> {
    let (bytes, respelled) = super::spell(u, tree)?;
    let document = prediction.document;
    if bytes.len() > document.max_bytes() {
        return Ok(Generated {
            bytes,
            expected: Some(vec![Expected::document(&rule(document, "size.max"))]),
            strict_only: Vec::new(),
            respelled: None,
            summary: prediction.summary,
        });
    }
    match mutation {
        Mutation::Size => pad_to_limit(u, bytes, prediction),
        Mutation::RawControl => raw_control(u, bytes, prediction),
        _ => Ok(Generated {
            bytes,
            expected: Some(prediction.expected),
            strict_only: prediction.strict_only,
            respelled: Some(respelled),
            summary: prediction.summary,
        }),
    }
}

/// Pads the document to exactly the size limit (still as valid as before) or one byte
/// past it (then the size is all that is reported).
fn pad_to_limit(
    u: &mut Unstructured<'_>,
    mut bytes: Vec<u8>,
    prediction: Prediction,
) -> arbitrary::Result<Generated> {
    let document = prediction.document;
    let over = u.arbitrary::<bool>()?;
    super::pad_json(&mut bytes, document.max_bytes() + usize::from(over));
    let expected = if over {
        vec![Expected::document(&rule(document, "size.max"))]
    } else {
        prediction.expected
    };
    Ok(Generated {
        bytes,
        expected: Some(expected),
        strict_only: Vec::new(),
        respelled: None,
        summary: prediction.summary,
    })
}

/// Puts a raw control byte inside a string literal: not JSON any more, which is all that
/// is reported.
fn raw_control(
    u: &mut Unstructured<'_>,
    mut bytes: Vec<u8>,
    prediction: Prediction,
) -> arbitrary::Result<Generated> {
    let control = *u.choose(&[0u8, 1, 2, 7, 8, 0x0B, 0x0C, 0x1B, 0x1F])?;
    let from = u.int_in_range(0..=bytes.len())?;
    if !super::raw_control(&mut bytes, control, from) {
        return Err(arbitrary::Error::IncorrectFormat);
    }
    Ok(Generated {
        bytes,
        expected: Some(vec![Expected {
            rule: rule(prediction.document, "json.syntax"),
            place: Place::Text,
        }]),
        strict_only: Vec::new(),
        respelled: None,
        summary: prediction.summary,
    })
}

/// A value breaking one value rule, where it goes and the rule it breaks.
#[derive(Debug, Clone)]
struct BadValue {
    /// Where the value goes.
    pointer: String,
    /// The value.
    value: Json,
    /// The rule's tail (`schema-version.value`).
    tail: &'static str,
}

impl BadValue {
    fn new(pointer: impl Into<String>, value: Json, tail: &'static str) -> BadValue {
        BadValue {
            pointer: pointer.into(),
            value,
            tail,
        }
    }
}

/// A fuzz-chosen value breaking one value rule of the document.
fn bad_value(
    u: &mut Unstructured<'_>,
    tree: &Json,
    document: Document,
    v2: bool,
) -> arbitrary::Result<BadValue> {
    let schema = BadValue::new(
        "/schema_version",
        Json::str(*u.choose(&[
            "soulacy.agent.package/v3",
            "soulacy.agent.package/V2",
            "",
            "soulacy.agent.package/v2 ",
        ])?),
        "schema-version.value",
    );
    let mut choices = vec![schema];
    match document {
        Document::Sidecar => sidecar_bad_values(u, v2, &mut choices)?,
        Document::Package => {
            package_bad_values(u, tree, v2, &mut choices)?;
            file_bad_values(u, tree, &mut choices)?;
        }
    }
    let choice = u.choose(&choices)?.clone();
    Ok(choice)
}

/// Bad values of a sidecar's own members.
fn sidecar_bad_values(
    u: &mut Unstructured<'_>,
    v2: bool,
    choices: &mut Vec<BadValue>,
) -> arbitrary::Result<()> {
    choices.push(BadValue::new(
        "/installed_at",
        bad_instant(u)?,
        "installed-at.rfc3339",
    ));
    if v2 {
        let (value, tail) = bad_calendar(u)?;
        let tail = if tail == "date" {
            "installed-version.date"
        } else {
            "installed-version.calendar"
        };
        choices.push(BadValue::new("/installed_version", value, tail));
        let (value, tail) = bad_id(u)?;
        choices.push(BadValue::new("/package_id", value, tail));
    }
    Ok(())
}

/// Bad values of a package's members outside its files.
fn package_bad_values(
    u: &mut Unstructured<'_>,
    tree: &Json,
    v2: bool,
    choices: &mut Vec<BadValue>,
) -> arbitrary::Result<()> {
    choices.push(BadValue::new(
        "/soul_yaml",
        Json::str(*u.choose(&["", " ", "\n\t"])?),
        "soul-yaml.content",
    ));
    if tree.at("/exported_at").is_some() {
        choices.push(BadValue::new(
            "/exported_at",
            bad_instant(u)?,
            "timestamp.rfc3339",
        ));
    }
    if !v2 {
        return Ok(());
    }
    let (value, tail) = bad_calendar(u)?;
    let tail = if tail == "date" {
        "version.date"
    } else {
        "version.calendar"
    };
    choices.push(BadValue::new("/manifest/version", value, tail));
    let (value, tail) = bad_id(u)?;
    choices.push(BadValue::new("/manifest/package_id", value, tail));
    // The reserved namespace, the publisher block against the namespace, a blank agent_id
    // and blank requirement names are strict-profile rules (soulacy-package.namespace.
    // reserved, .publisher.namespace, .agent-id.content, .requires.blank-id): the checks
    // run in the spec profile, so they are not mutations here.
    Ok(())
}

/// Bad values of a package's file entries: paths, digests, duplicates.
fn file_bad_values(
    u: &mut Unstructured<'_>,
    tree: &Json,
    choices: &mut Vec<BadValue>,
) -> arbitrary::Result<()> {
    let files = tree.pointers(&|node| {
        matches!(node, Json::Object(members) if members.first().is_some_and(|(key, _)| key == "path"))
    });
    // The path rules (files.path-*) and the digest's form (digest.format) apply in the
    // strict profile only; the checks run in the spec profile, where a digest of another
    // form is simply one the text does not hash to (files.text-digest).
    for file in &files {
        choices.push(BadValue::new(
            json_text::join(file, "sha256"),
            Json::str(*u.choose(&[
                "ABCDEF0123456789ABCDEF0123456789ABCDEF0123456789ABCDEF0123456789",
                "sha256:00",
                "0",
            ])?),
            "files.text-digest",
        ));
        // An entry without text holds the empty text, so every entry's digest is compared.
        choices.push(BadValue::new(
            json_text::join(file, "sha256"),
            Json::String(format!("{:x}", Sha256::digest(b"something else"))),
            "files.text-digest",
        ));
    }
    Ok(())
}

/// A calendar version that is no date (`date`) or not of the pattern (`calendar`), with
/// which of the two it is.
fn bad_calendar(u: &mut Unstructured<'_>) -> arbitrary::Result<(Json, &'static str)> {
    Ok(if u.arbitrary()? {
        (
            Json::str(*u.choose(&[
                "2026.02.30",
                "2025.02.29",
                "2026.13.01",
                "2026.00.10",
                "2026.04.31",
            ])?),
            "date",
        )
    } else {
        (
            Json::str(*u.choose(&[
                "2026.7.14",
                "v2026.07.14",
                "2026.07.14-rc1",
                "2026.07.14.",
                " 2026.07.14",
                "2026.07.14 ",
                "\t2026.07.14",
                "2026.07.14\n",
                "２０２６.07.14",
                "26.07.14",
            ])?),
            "calendar",
        )
    })
}

/// A package id breaking its shape, its publisher part or its package part, with the
/// rule's tail.
fn bad_id(u: &mut Unstructured<'_>) -> arbitrary::Result<(Json, &'static str)> {
    Ok(match u.int_in_range(0u8..=3)? {
        0 => (
            Json::str(*u.choose(&["noslash", "a/b/c", ""])?),
            "package-id.shape",
        ),
        1 => (
            Json::str(*u.choose(&["A1/pkg", "a/pkg", "ab_c/pkg", "é1/pkg"])?),
            "package-id.publisher",
        ),
        _ => (
            Json::str(*u.choose(&["ab/-pkg", "ab/", "ab/Pkg", "ab/p.kg"])?),
            "package-id.package",
        ),
    })
}

/// An instant that is not RFC 3339.
fn bad_instant(u: &mut Unstructured<'_>) -> arbitrary::Result<Json> {
    Ok(Json::str(*u.choose(&[
        "2026-07-14 15:23:00Z",
        "2026-07-14T15:23Z",
        "2026-07-14",
        "2026-02-30T00:00:00Z",
        "2026-07-14T15:23:00",
        "2026-07-14T25:00:00Z",
    ])?))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Most valid packages carry a SOUL.yaml Soulacy's importer takes (an `id`), so a
    /// campaign against the importer gets past its first check.
    #[test]
    fn most_valid_packages_have_a_soul_yaml_the_importer_takes() {
        let mut random = crate::seeds::SplitMix::new(0x50a1);
        let (mut valid, mut with_id) = (0usize, 0usize);
        for _ in 0..400 {
            let data: Vec<u8> = (0..1 + random.below(4096))
                .map(|_| random.next_u64() as u8)
                .collect();
            let Ok(generated) = generate(&mut Unstructured::new(&data), Document::Package) else {
                continue;
            };
            if generated.expected.as_ref().is_none_or(|e| !e.is_empty()) {
                continue;
            }
            valid += 1;
            let package: serde_json::Value =
                serde_json::from_slice(&generated.bytes).expect("a valid package is JSON");
            let soul = package["soul_yaml"].as_str().unwrap_or_default();
            if soul.starts_with("id: ") {
                with_id += 1;
            }
        }
        assert!(valid >= 50, "only {valid} valid packages");
        assert!(
            with_id * 2 >= valid,
            "{with_id} of {valid} valid packages have a SOUL.yaml with an id"
        );
    }
}
