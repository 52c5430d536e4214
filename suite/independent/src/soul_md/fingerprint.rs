//! The SOUL guard's fingerprint (Evolution Engine Integration: "SHA-256 fingerprint: SOUL
//! Guard computes a hash after each write; drift triggers an alert"; Validation item 4:
//! "SHA-256 hash must match stored fingerprint"). Rules `soul-md.fingerprint.digest` (what
//! is hashed: the raw bytes, written as lowercase hex, as DuDuClaw's guard does) and
//! `soul-md.fingerprint.match` (the stored value must name that digest).

use sha2::{Digest, Sha256};

/// How a (mistaken) implementation computes and compares the fingerprint.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct Reading {
    /// The stored fingerprint is never compared.
    pub ignored: bool,
    /// A leading UTF-8 byte order mark is not hashed.
    pub bom_stripped: bool,
    /// CRLF is hashed as LF.
    pub crlf_folded: bool,
    /// A lone CR is hashed as LF.
    pub lone_cr_folded: bool,
    /// Surrounding ASCII whitespace of the file is not hashed.
    pub content_trimmed: bool,
    /// A stored value that begins the digest matches.
    pub prefix_match: bool,
    /// The digest is written in uppercase and compared exactly.
    pub uppercase_digest: bool,
    /// Hex digits compare case-sensitively.
    pub case_sensitive: bool,
}

/// The outcome of comparing the stored fingerprint.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Verdict {
    /// No fingerprint is stored (or it is not compared).
    NotApplicable,
    /// The stored fingerprint names this file's digest.
    Matches,
    /// Drift, or a stored value that names no digest: the digest actually computed.
    Drift { digest: String },
}

/// The fingerprint of a file: lowercase hex SHA-256 of exactly its bytes (rule
/// `soul-md.fingerprint.digest`: no BOM stripping, no newline folding).
pub(super) fn digest(bytes: &[u8]) -> String {
    hex(&Sha256::digest(bytes))
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|byte| format!("{byte:02x}")).collect()
}

/// Compares the stored value (the context's `fingerprint`; `None` when absent) with the
/// file's digest. Surrounding whitespace of the stored value is trimmed (a stored file's
/// final newline), hex digits compare case-insensitively (an uppercase digest names the
/// same 32 bytes), and a value that is not 64 hex digits matches nothing, an empty one
/// included (catalogue, `soul-md.fingerprint.match`, decision).
pub(super) fn compare(bytes: &[u8], stored: Option<&str>, reading: Reading) -> Verdict {
    let Some(stored) = stored else {
        return Verdict::NotApplicable;
    };
    if reading.ignored {
        return Verdict::NotApplicable;
    }
    let hashed = hashed_bytes(bytes, reading);
    let computed = digest(&hashed);
    let stored = stored.trim();
    let matches = if reading.prefix_match {
        !stored.is_empty() && computed.starts_with(&stored.to_ascii_lowercase())
    } else if reading.uppercase_digest {
        stored == computed.to_ascii_uppercase()
    } else if reading.case_sensitive {
        stored == computed
    } else {
        is_digest(stored) && stored.eq_ignore_ascii_case(&computed)
    };
    if matches {
        Verdict::Matches
    } else {
        Verdict::Drift { digest: computed }
    }
}

/// 64 ASCII hex digits.
fn is_digest(value: &str) -> bool {
    value.len() == 64 && value.bytes().all(|byte| byte.is_ascii_hexdigit())
}

/// The bytes a (mistaken) reading hashes; the clean reading hashes the file as it is.
fn hashed_bytes(bytes: &[u8], reading: Reading) -> Vec<u8> {
    let mut hashed = bytes.to_vec();
    if reading.bom_stripped {
        if let Some(rest) = hashed.strip_prefix(b"\xEF\xBB\xBF") {
            hashed = rest.to_vec();
        }
    }
    if reading.crlf_folded || reading.lone_cr_folded {
        hashed = fold_line_endings(&hashed, reading);
    }
    if reading.content_trimmed {
        hashed = hashed.trim_ascii().to_vec();
    }
    hashed
}

fn fold_line_endings(bytes: &[u8], reading: Reading) -> Vec<u8> {
    let mut folded = Vec::with_capacity(bytes.len());
    let mut index = 0;
    while index < bytes.len() {
        let byte = bytes[index];
        let crlf = byte == b'\r' && bytes.get(index + 1) == Some(&b'\n');
        if crlf && reading.crlf_folded {
            folded.push(b'\n');
            index += 2;
            continue;
        }
        if byte == b'\r' && !crlf && reading.lone_cr_folded {
            folded.push(b'\n');
        } else {
            folded.push(byte);
        }
        index += 1;
    }
    folded
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_file_digest() {
        assert_eq!(
            digest(b""),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
        );
    }

    #[test]
    fn stored_value_is_trimmed_and_case_folded() {
        let stored = format!("  {}\n", digest(b"x").to_ascii_uppercase());
        assert_eq!(
            compare(b"x", Some(&stored), Reading::default()),
            Verdict::Matches
        );
        assert!(matches!(
            compare(b"x", Some(""), Reading::default()),
            Verdict::Drift { .. }
        ));
        assert_eq!(
            compare(b"x", None, Reading::default()),
            Verdict::NotApplicable
        );
    }
}
