//! Planted misreadings of the Markdown block structure. The clean implementation hands the
//! text to markdown-rs untouched; a switch that stands for an ad hoc reader rewrites the
//! few lines that reader would take differently (escaping a fence or HTML opener it does
//! not know, making a line it wrongly takes for a closing fence into one, dedenting a
//! heading it wrongly sees), so that everything else is still read by CommonMark and the
//! switch changes only what its mistake changes.

use super::lines::{self, fence_marker, indent_columns, Line, Marker};

/// The ad hoc readings a switch can plant.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Misreading {
    /// `#` then a tab opens no heading.
    AtxTabUnrecognized,
    /// Indentation is trimmed before headings are recognised.
    IndentedHeadingCounts,
    /// A tab in the indentation counts as one column.
    TabIndentOneColumn,
    /// `<!--` opens no HTML block.
    HtmlCommentUnrecognized,
    /// Only `<!--` opens an HTML block.
    HtmlOnlyComments,
    /// `~~~` fences are unknown.
    FenceTildeUnrecognized,
    /// A fence with an info string opens nothing.
    FenceInfoOpenerUnrecognized,
    /// Any line starting with three backticks or tildes toggles code.
    FenceToggleOnPrefix,
    /// Only a line equal to the opening fence run closes it.
    FenceCloseExactMatch,
    /// A fence opens at column 1 only.
    FenceIndentedOpenerUnrecognized,
    /// A fence without a closing fence opens nothing.
    FenceUnclosedNotCode,
}

/// The text as the mistaken reader structures it, for markdown-rs to read.
pub(super) fn rewrite(text: &str, misreading: Misreading) -> String {
    match misreading {
        Misreading::FenceInfoOpenerUnrecognized
        | Misreading::FenceToggleOnPrefix
        | Misreading::FenceCloseExactMatch
        | Misreading::FenceIndentedOpenerUnrecognized
        | Misreading::FenceUnclosedNotCode => rewrite_fences(text, misreading),
        _ => rewrite_lines(text, |line| rewrite_line(line, misreading)),
    }
}

/// Applies a rewrite to each line's content, keeping line endings.
fn rewrite_lines(text: &str, rewrite: impl Fn(&str) -> Option<String>) -> String {
    let mut out = String::with_capacity(text.len() + 16);
    for line in lines::split(text) {
        let content = line.content(text);
        match rewrite(content) {
            Some(changed) => out.push_str(&changed),
            None => out.push_str(content),
        }
        out.push_str(line.ending(text));
    }
    out
}

/// Leading spaces (not tabs) of a line.
fn space_indent(line: &str) -> usize {
    line.bytes().take_while(|&byte| byte == b' ').count()
}

/// The line with a backslash before byte `at`, so CommonMark reads what follows as text.
fn escaped(line: &str, at: usize) -> String {
    let (before, after) = line.split_at(at.min(line.len()));
    format!("{before}\\{after}")
}

fn rewrite_line(line: &str, misreading: Misreading) -> Option<String> {
    let indent = space_indent(line);
    let rest = &line[indent..];
    match misreading {
        Misreading::AtxTabUnrecognized => {
            let hashes = rest.bytes().take_while(|&byte| byte == b'#').count();
            let opens = indent <= 3 && (1..=6).contains(&hashes);
            (opens && rest.as_bytes().get(hashes) == Some(&b'\t')).then(|| escaped(line, indent))
        }
        Misreading::IndentedHeadingCounts => {
            let trimmed = line.trim_start_matches([' ', '\t']);
            let columns = indent_columns(&line[..line.len() - trimmed.len()]);
            (columns >= 4 && opens_atx_heading(trimmed)).then(|| trimmed.to_owned())
        }
        Misreading::TabIndentOneColumn => {
            let trimmed = line.trim_start_matches([' ', '\t']);
            let leading = &line[..line.len() - trimmed.len()];
            (leading.contains('\t') && leading.len() <= 3 && !trimmed.is_empty())
                .then(|| format!("{}{trimmed}", " ".repeat(leading.len())))
        }
        Misreading::HtmlCommentUnrecognized => {
            (indent <= 3 && rest.starts_with("<!--")).then(|| escaped(line, indent))
        }
        Misreading::HtmlOnlyComments => {
            let opens_tag = rest.starts_with('<')
                && !rest.starts_with("<!--")
                && rest[1..].starts_with(|c: char| c.is_ascii_alphabetic() || "/?!".contains(c));
            (indent <= 3 && opens_tag).then(|| escaped(line, indent))
        }
        Misreading::FenceTildeUnrecognized => {
            let marker = fence_marker(line)?;
            (marker.ch == b'~').then(|| escaped(line, marker.indent))
        }
        _ => None,
    }
}

/// `#` to `######` followed by a space, a tab or the end of the line.
fn opens_atx_heading(line: &str) -> bool {
    let hashes = line.bytes().take_while(|&byte| byte == b'#').count();
    (1..=6).contains(&hashes) && matches!(line.as_bytes().get(hashes), None | Some(b' ' | b'\t'))
}

/// Tracks the document's top-level fences as CommonMark does and as the mistaken reader
/// does, rewriting each line on which they disagree.
fn rewrite_fences(text: &str, misreading: Misreading) -> String {
    let lines = lines::split(text);
    let mut out = String::with_capacity(text.len() + 16);
    let mut open: Option<Marker> = None;
    for (index, line) in lines.iter().enumerate() {
        let content = line.content(text);
        let marker = fence_marker(content);
        let written = match open {
            Some(current) => {
                let clean = marker.is_some_and(|marker| current.closed_by(&marker));
                let mistaken = match misreading {
                    Misreading::FenceToggleOnPrefix => marker.is_some(),
                    Misreading::FenceCloseExactMatch => {
                        content == String::from(current.ch as char).repeat(current.length)
                    }
                    _ => clean,
                };
                if mistaken {
                    open = None;
                }
                match (clean, mistaken) {
                    // Taken for a closer: write one CommonMark takes for a closer too.
                    (false, true) => String::from(current.ch as char).repeat(current.length),
                    // A closer missed: an info string makes it content to CommonMark.
                    (true, false) => format!("{content} x"),
                    _ => content.to_owned(),
                }
            }
            None => match marker.filter(Marker::opens) {
                Some(marker) => {
                    let mistaken = match misreading {
                        Misreading::FenceInfoOpenerUnrecognized => marker.bare,
                        Misreading::FenceIndentedOpenerUnrecognized => marker.indent == 0,
                        Misreading::FenceUnclosedNotCode => {
                            has_closer(text, &lines[index + 1..], &marker)
                        }
                        _ => true,
                    };
                    if mistaken {
                        open = Some(marker);
                        content.to_owned()
                    } else {
                        escaped(content, marker.indent)
                    }
                }
                None => content.to_owned(),
            },
        };
        out.push_str(&written);
        out.push_str(line.ending(text));
    }
    out
}

fn has_closer(text: &str, rest: &[Line], open: &Marker) -> bool {
    rest.iter()
        .any(|line| fence_marker(line.content(text)).is_some_and(|marker| open.closed_by(&marker)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn toggling_closes_on_a_shorter_fence() {
        let text = "````\n```\n# T\n````\n";
        assert_eq!(
            rewrite(text, Misreading::FenceToggleOnPrefix),
            "````\n````\n# T\n````\n"
        );
    }

    #[test]
    fn exact_match_misses_a_longer_closer() {
        let text = "```\nx\n````\n# T\n";
        assert_eq!(
            rewrite(text, Misreading::FenceCloseExactMatch),
            "```\nx\n```` x\n# T\n"
        );
    }

    #[test]
    fn unknown_openers_are_escaped() {
        assert_eq!(
            rewrite("~~~\n# T\n~~~\n", Misreading::FenceTildeUnrecognized),
            "\\~~~\n# T\n\\~~~\n"
        );
        assert_eq!(
            rewrite("```\n# T\n", Misreading::FenceUnclosedNotCode),
            "\\```\n# T\n"
        );
        assert_eq!(
            rewrite("#\tT\n", Misreading::AtxTabUnrecognized),
            "\\#\tT\n"
        );
        assert_eq!(rewrite("\t# T\n", Misreading::TabIndentOneColumn), " # T\n");
    }
}
