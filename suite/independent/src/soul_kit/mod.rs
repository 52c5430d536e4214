//! Soul Kit exchange format, version 1, written from the spec text
//! (`skills/soulware/references/format.md`, "Soul Kit exchange format, version 1") and the
//! catalogue's restatement of it (`cases/soul-kit/rules.toml`), not from the reference.
//!
//! A kit is read in four stages, each its own submodule:
//! - [`read`]: the bytes (the size limit, UTF-8, a byte order mark) become JSON text and
//!   the text a tree, through serde_json (RFC 8259 syntax, trailing data, paired surrogate
//!   escapes, its recursion limit);
//! - [`tree`]: the tree keeps every member of every object in order, so a repeated key is
//!   still there to be seen (serde_json's own `Map` would keep only one);
//! - [`shape`]: the field table, the voice, behavior, adaptations and examples paragraphs,
//!   and "All objects are closed";
//! - [`strings`]: the strings paragraph (visible content, ASCII control characters, the
//!   marker text), applied to every string the shape accepts.
//!
//! [`raw`] looks at the text itself where the tree has already forgotten it: how the one
//! number of a kit (`format_version`) is spelt, and what a few mistaken readers would do.
//!
//! Every planted mistake is declared below and tested where the mistaken implementation
//! would have gone wrong, so that with no switch on the code reads as the spec does.

mod raw;
mod read;
mod report;
mod shape;
mod strings;
mod tree;

use crate::{Input, Outcome, Settings};

use report::Report;

crate::mistakes! {
    /// The planted mistakes of this format.
    pub enum Planted for SoulKit {
        Utf16WithBom = "utf16-with-bom":
            "transcodes a document that starts with a UTF-16 byte order mark (FF FE or FE FF) from UTF-16 before reading it",
        Utf16WithoutBom = "utf16-without-bom":
            "guesses UTF-16 from the NUL pattern of the first four bytes (RFC 4627, section 3) and transcodes the document",
        Utf32WithBom = "utf32-with-bom":
            "transcodes a document that starts with a UTF-32 byte order mark (FF FE 00 00 or 00 00 FE FF) from UTF-32",
        Utf32WithoutBom = "utf32-without-bom":
            "guesses UTF-32 from the NUL pattern of the first four bytes (RFC 4627, section 3) and transcodes the document",
        Utf8Lossy = "utf8-lossy":
            "decodes the bytes with replacement characters (String::from_utf8_lossy) instead of refusing ill-formed UTF-8",
        TrimsUnicodeWhitespace = "trims-unicode-whitespace":
            "trims Unicode white space (str::trim: no-break space, U+2028, form feed, U+3000...) off the text before parsing it",
        FormFeedAsWhitespace = "form-feed-as-whitespace":
            "skips form feeds between tokens as whitespace (u8::is_ascii_whitespace instead of JSON's four characters)",
        LoneCrNotWhitespace = "lone-cr-not-whitespace":
            "reads line ends as LF or CR LF only, so a carriage return not followed by a line feed between tokens is refused",
        TrailingDataIgnored = "trailing-data-ignored":
            "parses the first JSON value and ignores whatever follows it",
        SizeCountsCharacters = "size-counts-characters":
            "applies the 262144 limit to the number of characters instead of bytes",
        SizeAfterTrim = "size-after-trim":
            "measures the size after trimming the whitespace around the JSON value",
        SizeExcludesBom = "size-excludes-bom":
            "measures the size after removing a leading byte order mark",
        DuplicateKeysIgnored = "duplicate-keys-ignored":
            "reads objects into a map, so a repeated key is not seen and its last value is the one checked",
        DuplicateKeysRootOnly = "duplicate-keys-root-only":
            "looks for repeated keys in the root object only",
        DuplicateKeysComparedRaw = "duplicate-keys-compared-raw":
            "compares keys as written, before escape decoding, so `id` and `\\u0069d` are two keys",
        RootArrayUnwrapped = "root-array-unwrapped":
            "reads a top-level array holding one object as that object (a kit list export)",
        NestedObjectsOpen = "nested-objects-open":
            "closes the root object only: unknown members of voice, behavior, adaptations and examples pass",
        AvoidOptional = "avoid-optional":
            "takes a missing voice.avoid for an empty list, since zero entries are allowed",
        ExampleNoteOptional = "example-note-optional":
            "accepts an example without its note",
        ArrayItemsUntyped = "array-items-untyped":
            "does not type-check the entries of traits, style_rules, avoid and checks: an entry that is no string is skipped",
        StringAsArray = "string-as-array":
            "takes a string where an array of strings is due for the list of its characters (its length is the count)",
        ObjectAsArray = "object-as-array":
            "takes an object where an array is due for the list of its member values",
        FormatCaseInsensitive = "format-case-insensitive":
            "compares format with `soulware.soul-kit` ignoring ASCII letter case",
        ScopeCaseInsensitive = "scope-case-insensitive":
            "compares scope with its three values ignoring ASCII letter case",
        FormatVersionStringAccepted = "format-version-string-accepted":
            "accepts format_version written as a string holding 1 (loose equality)",
        IdPatternUnanchored = "id-pattern-unanchored":
            "searches the id for the pattern (Regex::is_match without ^ and $) instead of matching it whole",
        IdCaseInsensitive = "id-case-insensitive":
            "matches the id pattern ignoring letter case",
        VersionPatternUnanchored = "version-pattern-unanchored":
            "searches the version for X.Y.Z instead of matching it whole",
        VersionTrailingNewline = "version-trailing-newline":
            "anchors the version pattern with a `$` that also matches before a final newline (Python, PCRE)",
        VersionFiveDigits = "version-five-digits":
            "allows 1 to 5 digits per version component",
        LengthInBytes = "length-in-bytes":
            "measures every length limit in UTF-8 bytes instead of characters",
        LengthInUtf16Units = "length-in-utf16-units":
            "measures every length limit in UTF-16 code units (JavaScript's length) instead of code points",
        LengthAfterTrim = "length-after-trim":
            "measures every length limit after trimming white space off both ends of the string",
        CharLimitsExclusive = "char-limits-exclusive":
            "reads every \"at most N characters\" as fewer than N, so a string exactly at its limit is refused",
        CharLimitsPlusOne = "char-limits-plus-one":
            "lets every string one character past its limit pass (`<= N + 1`)",
        CountMaxPlusOne = "count-max-plus-one":
            "lets every list one entry past its upper count bound pass",
        CountMinMinusOne = "count-min-minus-one":
            "lets every list one entry short of its lower count bound pass",
        ControlAllowsCr = "control-allows-cr":
            "allows carriage return in strings along with newline and tab",
        ControlAllowsDel = "control-allows-del":
            "takes the ASCII control characters to be U+0000 to U+001F only, allowing U+007F DELETE",
        ControlsCheckedBeforeUnescape = "controls-checked-before-unescape":
            "looks for control characters in the string as written, before escapes are decoded, so `\\u0001` passes",
        RejectsAllC0Controls = "rejects-all-c0-controls":
            "refuses every C0 control character in strings, newline and tab included",
        VisibleAsciiWhitespaceOnly = "visible-ascii-whitespace-only":
            "takes only ASCII white space for blank, so a string of no-break or ideographic spaces has visible content",
        VisibleNonemptyOnly = "visible-nonempty-only":
            "reads \"visible content\" as nonempty, so a string of spaces passes",
        MarkerCaseSensitive = "marker-case-sensitive":
            "looks for the two markers only as the spec spells them, in their own letter case",
        MarkerDefaultOnly = "marker-default-only":
            "looks for `SOULWARE:DEFAULT` and forgets `soulware-kit:`",
        MarkerCheckedBeforeUnescape = "marker-checked-before-unescape":
            "looks for the markers in the JSON text as written, so a marker spelt with an escape passes",
    }
}

/// Validates one input: a kit is one document; a directory is none.
pub fn validate(input: Input<'_>, settings: &Settings<'_>) -> Outcome {
    let mut report = Report::new(settings);
    match input {
        Input::Document { bytes, .. } => check_document(bytes, &mut report),
        Input::Directory { .. } => report.error(
            "soul-kit.root.type",
            "",
            "a Soul Kit is one JSON document, not a directory",
        ),
    }
    report.finish()
}

/// Reads the document and, if it is JSON, checks its shape and every string in it.
fn check_document(bytes: &[u8], report: &mut Report<'_>) {
    let Some(document) = read::read(bytes, report) else {
        return;
    };
    read::check_depth(&document.root, report);
    tree::check_duplicate_keys(&document, report);
    if report.planted(Planted::MarkerCheckedBeforeUnescape) {
        strings::check_raw_markers(&document.text, report);
    }
    if report.planted(Planted::ControlsCheckedBeforeUnescape) {
        strings::check_raw_controls(&document.text, report);
    }
    shape::check_kit(&document, report);
}
