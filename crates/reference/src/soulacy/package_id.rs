//! Namespaced package ids `<publisher>/<package>` (spec: "Namespaced package ids"), with
//! the shape, publisher and package rules kept apart so each format reports them under
//! its own rule IDs.

/// The namespace only official keys may sign (spec: "The soulacy/ namespace is reserved").
pub const RESERVED_PUBLISHER: &str = "soulacy";

/// What is wrong with a package id; the publisher and the package can both be wrong.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct PackageIdProblems {
    /// Not exactly one `/`.
    pub shape: bool,
    /// The publisher part is not 2-32 of `[a-z0-9-]`.
    pub publisher: bool,
    /// The package part is not 1-63 of `[a-z0-9-]` starting with `[a-z0-9]`.
    pub package: bool,
}

impl PackageIdProblems {
    /// Whether the id is valid.
    pub fn is_empty(&self) -> bool {
        !self.shape && !self.publisher && !self.package
    }
}

fn is_id_char(c: char) -> bool {
    c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-'
}

/// Checks a package id; nothing is trimmed. On success, also returns the publisher part.
pub fn check(id: &str) -> Result<&str, PackageIdProblems> {
    let Some((publisher, package)) = id.split_once('/') else {
        return Err(PackageIdProblems {
            shape: true,
            ..PackageIdProblems::default()
        });
    };
    if package.contains('/') {
        return Err(PackageIdProblems {
            shape: true,
            ..PackageIdProblems::default()
        });
    }
    let publisher_length = publisher.chars().count();
    let package_length = package.chars().count();
    let problems = PackageIdProblems {
        shape: false,
        publisher: !(2..=32).contains(&publisher_length) || !publisher.chars().all(is_id_char),
        package: !(1..=63).contains(&package_length)
            || !package.chars().all(is_id_char)
            || !package
                .chars()
                .next()
                .is_some_and(|c| c.is_ascii_lowercase() || c.is_ascii_digit()),
    };
    if problems.is_empty() {
        Ok(publisher)
    } else {
        Err(problems)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_spec_and_field_note_examples() {
        for good in [
            "soulacy/hackernews-digest",
            "vasu/my-agent",
            "acme-corp/production-2",
            "soulacy/1foo-bar",
            "-a-/x",
            "a--b/c-",
        ] {
            assert!(check(good).is_ok(), "{good}");
        }
        let shape = |id| check(id).err().map(|p| p.shape);
        assert_eq!(shape("soulacy"), Some(true));
        assert_eq!(shape("soulacy/foo/bar"), Some(true));
        let publisher = |id| check(id).err().map(|p| p.publisher);
        assert_eq!(publisher("a/b"), Some(true));
        assert_eq!(publisher("/foo"), Some(true));
        assert_eq!(publisher("Soulacy/foo"), Some(true));
        let package = |id| check(id).err().map(|p| p.package);
        assert_eq!(package("soulacy/"), Some(true));
        assert_eq!(package("soulacy/UPPER"), Some(true));
        assert_eq!(package("soulacy/-leading-hyphen"), Some(true));
    }
}
