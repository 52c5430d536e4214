//! Namespaced package ids (spec, "Namespaced package ids"): `<publisher>/<package>`, the
//! publisher "2-32 lowercase alphanumeric + hyphen characters", the package "1-63
//! lowercase alphanumeric + hyphen characters, starting with alnum". Lengths are counted in
//! characters; every allowed character is ASCII, so any other character already fails.

use super::Slip;

/// What is wrong with a would-be package id; each maps to one catalogue rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IdError {
    /// Not two parts around exactly one `/` (rule `package-id.shape`).
    Shape,
    /// The publisher part breaks its length or alphabet (rule `package-id.publisher`).
    Publisher,
    /// The package part breaks its length, alphabet or first character (rule
    /// `package-id.package`).
    Package,
}

/// The two parts of a valid id.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PackageId<'a> {
    /// The namespace.
    pub publisher: &'a str,
    /// The package inside it.
    pub package: &'a str,
}

/// Checks `text` as a package id; on success gives its parts.
pub fn check(text: &str, slip: Option<Slip>) -> Result<PackageId<'_>, Vec<IdError>> {
    let text = if slip == Some(Slip::IdTrimmed) {
        text.trim()
    } else {
        text
    };
    if slip == Some(Slip::IdUnanchored) {
        return find_anywhere(text, slip).ok_or_else(|| vec![IdError::Shape]);
    }
    let mut parts = text.split('/');
    let (Some(publisher), Some(package), None) = (parts.next(), parts.next(), parts.next()) else {
        return Err(vec![IdError::Shape]);
    };
    let mut errors = Vec::new();
    if !publisher_ok(publisher, slip) {
        errors.push(IdError::Publisher);
    }
    if !package_ok(package, slip) {
        errors.push(IdError::Package);
    }
    if errors.is_empty() {
        Ok(PackageId { publisher, package })
    } else {
        Err(errors)
    }
}

/// The unanchored mistake: some `publisher/package` found inside the text.
fn find_anywhere(text: &str, slip: Option<Slip>) -> Option<PackageId<'_>> {
    text.char_indices().find_map(|(slash, character)| {
        if character != '/' {
            return None;
        }
        let before = &text[..slash];
        let after = &text[slash + 1..];
        let publisher_start = before
            .char_indices()
            .rev()
            .take_while(|(_, c)| allowed(*c, slip))
            .last()
            .map_or(before.len(), |(index, _)| index);
        let package_end = after
            .char_indices()
            .find(|(_, c)| !allowed(*c, slip))
            .map_or(after.len(), |(index, _)| index);
        let publisher = &before[publisher_start..];
        let publisher = &publisher[publisher.len().saturating_sub(32)..];
        let package = &after[..package_end.min(63)];
        (publisher_ok(publisher, slip) && package_ok(package, slip))
            .then_some(PackageId { publisher, package })
    })
}

/// A character either part may hold: a lowercase ASCII letter, an ASCII digit, a hyphen.
fn allowed(character: char, slip: Option<Slip>) -> bool {
    match slip {
        Some(Slip::IdUppercase) if character.is_ascii_uppercase() => true,
        Some(Slip::IdUnicodeAlphanumeric) if character.is_alphanumeric() => {
            !character.is_uppercase()
        }
        _ => character.is_ascii_lowercase() || character.is_ascii_digit() || character == '-',
    }
}

/// Publisher: 2 to 32 allowed characters, hyphens anywhere.
fn publisher_ok(publisher: &str, slip: Option<Slip>) -> bool {
    let count = publisher.chars().count();
    let min = if slip == Some(Slip::PublisherMinOne) {
        1
    } else {
        2
    };
    let max = if slip == Some(Slip::PublisherMax33) {
        33
    } else {
        32
    };
    if count < min || count > max || !publisher.chars().all(|c| allowed(c, slip)) {
        return false;
    }
    // The planted mistake applies the package's "starting with alnum" to the publisher
    // too, and forbids a trailing hyphen for good measure.
    if slip == Some(Slip::PublisherHyphenEdges)
        && (publisher.starts_with('-') || publisher.ends_with('-'))
    {
        return false;
    }
    true
}

/// Package: 1 to 63 allowed characters, the first a letter or digit.
fn package_ok(package: &str, slip: Option<Slip>) -> bool {
    let count = package.chars().count();
    let max = if slip == Some(Slip::PackageMax64) {
        64
    } else {
        63
    };
    if count < 1 || count > max || !package.chars().all(|c| allowed(c, slip)) {
        return false;
    }
    slip == Some(Slip::PackageLeadingHyphen) || !package.starts_with('-')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn follows_the_spec_and_the_public_tests() {
        for good in [
            "soulacy/hackernews-digest",
            "vasu/my-agent",
            "acme-corp/production-2",
            "soulacy/1foo-bar",
            "-acme-/x",
            "a--b/x",
        ] {
            assert!(check(good, None).is_ok(), "{good}");
        }
        for bad in [
            "a/b",
            "soulacy",
            "soulacy/",
            "/foo",
            "Soulacy/foo",
            "soulacy/UPPER",
            "soulacy/foo/bar",
            "soulacy/-leading-hyphen",
            " acme/x",
        ] {
            assert!(check(bad, None).is_err(), "{bad}");
        }
    }
}
