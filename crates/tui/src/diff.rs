//! Coloured diffs for the transcript and the permission dialogs: computed
//! from an edit's old/new text (with `similar`), or parsed from a unified
//! diff a tool or the plan history already produced.

use ratatui::style::{Color, Style};
use ratatui::text::{Line, Span};
use similar::{ChangeTag, TextDiff};

use crate::wrap::wrap_line;

fn added() -> Style {
    Style::default().fg(Color::Green)
}

fn removed() -> Style {
    Style::default().fg(Color::Red)
}

fn context() -> Style {
    Style::default().fg(Color::DarkGray)
}

/// A line-level diff of `old` → `new` as `+`/`-`/` ` lines with up to
/// three lines of context around each change (hunks separated by `…`).
pub fn diff_text(old: &str, new: &str) -> String {
    let diff = TextDiff::from_lines(old, new);
    let mut out = String::new();
    for (i, group) in diff.grouped_ops(3).iter().enumerate() {
        if i > 0 {
            out.push_str("…\n");
        }
        for op in group {
            for change in diff.iter_changes(op) {
                let sign = match change.tag() {
                    ChangeTag::Delete => '-',
                    ChangeTag::Insert => '+',
                    ChangeTag::Equal => ' ',
                };
                out.push(sign);
                out.push_str(change.value().trim_end_matches(['\n', '\r']));
                out.push('\n');
            }
        }
    }
    out
}

/// Whether `text` looks like a diff (unified or the `+`/`-` form above),
/// so a tool's display can be coloured as one.
pub fn looks_like_diff(text: &str) -> bool {
    let mut changes = 0;
    for line in text.lines().take(200) {
        if line.starts_with("@@") || line.starts_with("+++ ") || line.starts_with("--- ") {
            return true;
        }
        if line.starts_with('+') || line.starts_with('-') {
            changes += 1;
        }
    }
    changes >= 2
        && text.lines().all(|l| {
            l.is_empty() || l.starts_with(['+', '-', ' ', '@', '\\', '…']) || l.starts_with("diff ")
        })
}

/// Colours one diff line.
pub fn diff_line(line: &str) -> Line<'static> {
    let style = if line.starts_with("+++") || line.starts_with("---") {
        Style::default().fg(Color::DarkGray)
    } else if line.starts_with('+') {
        added()
    } else if line.starts_with('-') {
        removed()
    } else if line.starts_with("@@") {
        Style::default().fg(Color::Cyan)
    } else {
        context()
    };
    Line::from(Span::styled(line.to_string(), style))
}

/// Colours and wraps a diff to `width`, at most `max` source lines (then a
/// `… +N lines` note).
pub fn diff_lines(text: &str, width: usize, max: usize) -> Vec<Line<'static>> {
    let all: Vec<&str> = text.lines().collect();
    let mut out = Vec::new();
    for line in all.iter().take(max) {
        out.extend(wrap_line(&diff_line(line), width, 1));
    }
    if all.len() > max {
        out.push(Line::styled(
            format!("… +{} lines", all.len() - max),
            context(),
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn diff_marks_changes_with_context() {
        let old = "a\nb\nc\n";
        let new = "a\nB\nc\nd\n";
        assert_eq!(diff_text(old, new), " a\n-b\n+B\n c\n+d\n");
    }

    #[test]
    fn recognises_diffs_and_colours_them() {
        assert!(looks_like_diff("@@ -1 +1 @@\n-a\n+b"));
        assert!(looks_like_diff(" a\n-b\n+B\n"));
        assert!(!looks_like_diff("total 3\n-rw-r--r-- file\nplain"));
        assert_eq!(diff_line("+x").spans[0].style, added());
        assert_eq!(diff_line("-x").spans[0].style, removed());
        let lines = diff_lines("+1\n+2\n+3", 20, 2);
        assert_eq!(lines.len(), 3);
        assert_eq!(lines[2].to_string(), "… +1 lines");
    }
}
