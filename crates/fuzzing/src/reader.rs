//! Invariants of the strict JSON reader (`soulcheck_reference::json`) on its own: its tree is
//! well formed, it agrees with serde_json, and it refuses oversized input before parsing.
//!
//! Agreement is the differential check: on every input without duplicate keys the reader
//! and serde_json must both accept or both reject, and when they accept, hold the same
//! value. Three differences are by design and are not disagreements: the reader's size and
//! depth limits (a limit is not a grammar rule), duplicate keys (serde_json keeps the last,
//! the reader reports them), and numbers serde_json cannot represent (it refuses `1e400`
//! as out of range, while the reader keeps every number's text as written).

use soulcheck_reference::json::{self, Document, Limits, Node, ReadError, Value};

use crate::invariants::Violation;

/// The limits the reader target reads with: the largest size and depth of any format.
pub const LIMITS: Limits = Limits {
    max_bytes: 8 * 1024 * 1024,
    max_depth: 64,
};

/// Every span is inside the input, children lie inside their parent, keys come before
/// their values, string and key spans are quoted, and a number's span is its text.
pub fn well_formed(source: &[u8], document: &Document<'_>) -> Result<(), Violation> {
    node(source, &document.root, 0, source.len())?;
    for duplicate in &document.duplicates {
        for span in [duplicate.span, duplicate.first] {
            let quoted = source.get(span.start) == Some(&b'"')
                && span.end > span.start + 1
                && source.get(span.end - 1) == Some(&b'"');
            if !quoted {
                return Err(Violation::new(
                    "reader-tree",
                    format!(
                        "duplicate key span {}..{} is not a quoted key",
                        span.start, span.end
                    ),
                ));
            }
        }
        if duplicate.first.start >= duplicate.span.start {
            return Err(Violation::new(
                "reader-tree",
                format!(
                    "duplicate {:?} precedes its first occurrence",
                    duplicate.key
                ),
            ));
        }
        let pointer = document.pointer(duplicate);
        if crate::invariants::pointer_spans(&document.root, &pointer).is_none() {
            return Err(Violation::new(
                "reader-tree",
                format!("duplicate pointer {pointer:?} does not resolve"),
            ));
        }
    }
    Ok(())
}

fn node(source: &[u8], node_: &Node<'_>, from: usize, to: usize) -> Result<(), Violation> {
    let span = node_.span;
    let fail = |detail: String| Err(Violation::new("reader-tree", detail));
    if span.start < from || span.end > to || span.start >= span.end {
        return fail(format!(
            "{} span {}..{} outside its parent {from}..{to}",
            node_.value.kind(),
            span.start,
            span.end
        ));
    }
    let text = &source[span.start..span.end];
    match &node_.value {
        Value::Number(raw) if raw.as_bytes() != text => {
            return fail(format!("number {raw:?} spans {:?}", lossy(text)))
        }
        Value::String(_) if !(text.len() >= 2 && text[0] == b'"' && text.ends_with(b"\"")) => {
            return fail(format!("string span {:?} is not quoted", lossy(text)))
        }
        Value::Array(items) => {
            let mut after = span.start + 1;
            for item in items {
                node(source, item, after, span.end - 1)?;
                after = item.span.end;
            }
        }
        Value::Object(members) => {
            let mut after = span.start + 1;
            for member in members {
                let key = member.key_span;
                let quoted = key.start >= after
                    && key.end <= member.value.span.start
                    && source.get(key.start) == Some(&b'"')
                    && key.end > key.start + 1
                    && source.get(key.end - 1) == Some(&b'"');
                if !quoted {
                    return fail(format!(
                        "key {:?} span {}..{} is not a quoted key before its value",
                        member.key, key.start, key.end
                    ));
                }
                node(source, &member.value, key.end, span.end - 1)?;
                after = member.value.span.end;
            }
        }
        _ => {}
    }
    Ok(())
}

fn lossy(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// The reader's value as serde_json's, or `None` when a number is one serde_json cannot
/// represent.
pub fn to_serde(node: &Node<'_>) -> Option<serde_json::Value> {
    Some(match &node.value {
        Value::Null => serde_json::Value::Null,
        Value::Bool(value) => serde_json::Value::Bool(*value),
        Value::Number(raw) => serde_json::Value::Number(serde_json::from_str(raw).ok()?),
        Value::String(text) => serde_json::Value::String(text.to_string()),
        Value::Array(items) => {
            serde_json::Value::Array(items.iter().map(to_serde).collect::<Option<_>>()?)
        }
        Value::Object(members) => {
            let mut map = serde_json::Map::new();
            for member in members {
                map.insert(member.key.to_string(), to_serde(&member.value)?);
            }
            serde_json::Value::Object(map)
        }
    })
}

/// The reader and serde_json agree on `source` (see the module documentation for what is
/// exempt).
pub fn agrees_with_serde(
    source: &[u8],
    read: &Result<Document<'_>, ReadError>,
) -> Result<(), Violation> {
    let theirs = serde_json::from_slice::<serde_json::Value>(source);
    match (read, theirs) {
        (Ok(document), _) if !document.duplicates.is_empty() => Ok(()),
        (Ok(document), Ok(value)) => match to_serde(&document.root) {
            Some(ours) if ours == value => Ok(()),
            Some(ours) => Err(Violation::new(
                "serde-agreement",
                format!("values differ: reader {ours}, serde_json {value}"),
            )),
            None => Ok(()),
        },
        (Ok(document), Err(error)) => {
            // A number out of serde_json's range is the one accepted difference.
            if to_serde(&document.root).is_none() {
                return Ok(());
            }
            Err(Violation::new(
                "serde-agreement",
                format!("the reader accepts; serde_json rejects: {error}"),
            ))
        }
        (Err(ReadError::TooLarge { .. } | ReadError::TooDeep { .. }), _) => Ok(()),
        (Err(error), Ok(value)) => Err(Violation::new(
            "serde-agreement",
            format!("the reader rejects ({error}); serde_json accepts {value}"),
        )),
        (Err(_), Err(_)) => Ok(()),
    }
}

/// An input one byte over the size limit is refused as too large, whatever it holds,
/// before any parsing: the error is `TooLarge` and reading allocated nothing.
pub fn refuses_oversized(source: &[u8], meter: Option<&crate::Meter>) -> Result<(), Violation> {
    let Some(limit) = source.len().checked_sub(1) else {
        return Ok(());
    };
    let limits = Limits {
        max_bytes: limit,
        max_depth: LIMITS.max_depth,
    };
    let before = meter.map(crate::Meter::allocated);
    let result = json::read(source, limits);
    let allocated = meter
        .zip(before)
        .map(|(meter, before)| meter.allocated() - before);
    match result {
        Err(ReadError::TooLarge { size, limit: seen })
            if size == source.len() && seen == limit && allocated.unwrap_or(0) == 0 =>
        {
            Ok(())
        }
        Err(ReadError::TooLarge { .. }) => Err(Violation::new(
            "size-limit",
            format!(
                "refusing an oversized input allocated {} bytes",
                allocated.unwrap_or(0)
            ),
        )),
        other => Err(Violation::new(
            "size-limit",
            format!(
                "an input one byte over the limit was not refused as too large: {:?}",
                other.map(|_| "accepted")
            ),
        )),
    }
}
