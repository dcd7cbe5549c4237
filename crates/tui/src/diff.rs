//! Coloured diffs with line numbers for the transcript and the permission
//! dialogs: computed from old/new text (with `similar`), or parsed from a
//! unified diff a tool or the plan history already produced. File headers
//! (`---`/`+++`) are dropped; hunks are separated by a `⋮` row.

use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use similar::TextDiff;

use crate::theme;
use crate::wrap::wrap_line;

/// A unified diff of `old` → `new` (hunk headers, three lines of context,
/// no file headers).
pub fn unified(old: &str, new: &str) -> String {
    let diff = TextDiff::from_lines(old, new);
    let mut out = String::new();
    for hunk in diff.unified_diff().context_radius(3).iter_hunks() {
        out.push_str(&hunk.to_string());
        if !out.ends_with('\n') {
            out.push('\n');
        }
    }
    out
}

/// Whether `text` looks like a diff (unified, or bare `+`/`-` lines), so a
/// tool's display can be coloured as one.
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

/// `@@ -a,b +c,d @@` → (a, c).
fn hunk_start(line: &str) -> Option<(usize, usize)> {
    let rest = line.strip_prefix("@@ -")?;
    let (old, rest) = rest.split_once(' ')?;
    let new = rest.strip_prefix('+')?.split([' ', ',']).next()?;
    let old = old.split(',').next()?;
    Some((old.parse().ok()?, new.parse().ok()?))
}

/// One row of a diff: kind, line number (when known) and text.
struct Row<'a> {
    sign: char,
    number: Option<usize>,
    text: &'a str,
}

fn parse(text: &str) -> Vec<Option<Row<'_>>> {
    let mut rows = Vec::new();
    let (mut old_no, mut new_no) = (0usize, 0usize);
    let mut numbered = false;
    let mut hunks = 0;
    for line in text.lines() {
        if line.starts_with("--- ")
            || line.starts_with("+++ ")
            || line.starts_with("diff ")
            || line.starts_with("index ")
            || line.starts_with('\\')
        {
            continue;
        }
        if let Some((o, n)) = hunk_start(line) {
            if hunks > 0 {
                rows.push(None);
            }
            hunks += 1;
            (old_no, new_no, numbered) = (o, n, true);
            continue;
        }
        if line == "…" {
            rows.push(None);
            continue;
        }
        let (sign, body) = match line.chars().next() {
            Some(c @ ('+' | '-' | ' ')) => (c, &line[1..]),
            _ => (' ', line),
        };
        let number = numbered.then(|| match sign {
            '-' => {
                old_no += 1;
                old_no - 1
            }
            '+' => {
                new_no += 1;
                new_no - 1
            }
            _ => {
                old_no += 1;
                new_no += 1;
                new_no - 1
            }
        });
        rows.push(Some(Row {
            sign,
            number,
            text: body,
        }));
    }
    rows
}

/// Colours, numbers and wraps a diff to `width`, at most `max` rows (then
/// a `… +N lines` note).
pub fn diff_lines(text: &str, width: usize, max: usize) -> Vec<Line<'static>> {
    let rows = parse(text);
    let num_w = rows
        .iter()
        .flatten()
        .filter_map(|r| r.number)
        .max()
        .map_or(0, |n| n.to_string().len());
    let t = theme::current();
    let mut out = Vec::new();
    let shown = if rows.len() > max.saturating_add(2) {
        max
    } else {
        rows.len()
    };
    for row in rows.iter().take(shown) {
        let Some(row) = row else {
            out.push(Line::styled(
                format!("{:>num_w$} ⋮", ""),
                Style::default().fg(t.dim),
            ));
            continue;
        };
        let (style, sign_style) = match row.sign {
            '+' => (t.added(), t.added().add_modifier(Modifier::BOLD)),
            '-' => (t.removed(), t.removed().add_modifier(Modifier::BOLD)),
            _ => (Style::default(), Style::default().fg(t.dim)),
        };
        let mut spans = Vec::new();
        if num_w > 0 {
            let n = row.number.map(|n| n.to_string()).unwrap_or_default();
            spans.push(Span::styled(
                format!("{n:>num_w$} "),
                Style::default().fg(t.dim),
            ));
        }
        spans.push(Span::styled(row.sign.to_string(), sign_style));
        spans.push(Span::styled(format!(" {}", row.text), style));
        let indent = if num_w > 0 { num_w + 3 } else { 2 };
        out.extend(wrap_line(&Line::from(spans), width, indent));
    }
    if rows.len() > shown {
        out.push(Line::styled(
            crate::wrap::more_lines(rows.len() - shown),
            Style::default().fg(t.dim),
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(lines: &[Line<'_>]) -> Vec<String> {
        lines.iter().map(|l| l.to_string()).collect()
    }

    #[test]
    fn unified_diffs_get_line_numbers_and_lose_their_headers() {
        let old = "a\nb\nc\n";
        let new = "a\nB\nc\nd\n";
        let diff = unified(old, new);
        assert!(diff.starts_with("@@ -1,3 +1,4 @@"), "{diff}");
        let with_headers = format!("--- a.txt\n+++ a.txt\n{diff}");
        assert_eq!(
            texts(&diff_lines(&with_headers, 40, 100)),
            ["1   a", "2 - b", "2 + B", "3   c", "4 + d"]
        );
    }

    #[test]
    fn hunks_are_separated_and_long_diffs_folded() {
        let old: String = (1..=30).map(|i| format!("{i}\n")).collect();
        let new = old
            .replace("2\n", "two\n")
            .replace("28\n", "twenty-eight\n");
        let rows = texts(&diff_lines(&unified(&old, &new), 40, 100));
        assert!(rows.iter().any(|r| r.trim() == "⋮"), "{rows:?}");
        assert!(rows.contains(&"28 + twenty-eight".to_string()), "{rows:?}");
        let folded = diff_lines(&unified(&old, &new), 40, 4);
        assert!(folded.last().unwrap().to_string().starts_with("… +"));
    }

    #[test]
    fn recognises_diffs_and_colours_them() {
        assert!(looks_like_diff("@@ -1 +1 @@\n-a\n+b"));
        assert!(looks_like_diff(" a\n-b\n+B\n"));
        assert!(!looks_like_diff("total 3\n-rw-r--r-- file\nplain"));
        let rows = diff_lines("@@ -1 +1 @@\n-a\n+b\n", 20, 10);
        assert_eq!(rows[1].spans[1].style.fg, theme::current().added().fg);
    }
}
