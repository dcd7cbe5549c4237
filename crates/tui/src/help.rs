//! The key and command sheet shown by `?` and `/help`, generated from the
//! key tables that also bind the keys ([`crate::keymap::MAIN`], the
//! question dialog's and the rewind picker's tables) and the palette's
//! command list, so it always
//! says what the interface really does.

use ratatui::style::{Modifier, Style};
use ratatui::text::Line;

use crate::dialogs::question;
use crate::keymap::{Binding, MAIN, PAGER};
use crate::palette;
use crate::rewind::keys as rewind;
use crate::theme;
use crate::wrap::wrap_line;

/// The rows of a key table the sheet shows: those with words of their own
/// (a key bound together with the row above shares its words).
fn described<C: Copy>(table: &'static [Binding<C>]) -> Vec<(&'static str, &'static str)> {
    table
        .iter()
        .filter(|b| !b.label.is_empty() && !b.help.is_empty())
        .map(|b| (b.label, b.help))
        .collect()
}

/// Every key of the main screen and what it does, in display order.
pub fn keys() -> Vec<(&'static str, &'static str)> {
    described(MAIN)
}

const QUESTION_HEADING: &str = "When the agent asks you questions";

/// Keys of the question dialog (AskUserQuestion): a question's tab, its
/// Other row, the Submit tab.
pub fn question_keys() -> Vec<(&'static str, &'static str)> {
    let mut keys = described(question::KEYS);
    keys.extend(described(question::OTHER_KEYS));
    keys.extend(described(question::SUBMIT_KEYS));
    keys
}

const REWIND_HEADING: &str = "In the rewind picker";

/// Keys of the rewind picker, stage by stage: the points, the choices at
/// a point, the confirmation to overwrite files changed outside catui.
pub fn rewind_keys() -> Vec<(&'static str, &'static str)> {
    let mut keys = described(rewind::POINTS);
    keys.extend(described(rewind::CHOICES));
    keys.extend(described(rewind::CONFIRM));
    keys
}

/// Keys of the transcript view.
pub fn pager_keys() -> Vec<(&'static str, &'static str)> {
    described(PAGER)
}

/// The sheet as plain text.
pub fn sheet() -> String {
    let lines: Vec<String> = sheet_lines().into_iter().map(|(line, _)| line).collect();
    lines.join("\n").trim_end().to_string()
}

/// The sheet's lines, each with the column its description starts at (a
/// narrow screen wraps a long description under itself, not under the key).
pub fn sheet_lines() -> Vec<(String, usize)> {
    let keys = keys();
    let asked = question_keys();
    let rewinding = rewind_keys();
    let key_w = keys
        .iter()
        .chain(&asked)
        .chain(&rewinding)
        .map(|(k, _)| k.chars().count())
        .max()
        .unwrap_or(0);
    let section = |out: &mut Vec<(String, usize)>, heading: &str, keys| {
        out.push((heading.to_string(), 0));
        for (key, what) in keys {
            let key: &str = key;
            let pad = " ".repeat(key_w - key.chars().count());
            out.push((format!("  {key}{pad}  {what}"), key_w + 4));
        }
    };
    let mut out = Vec::new();
    section(&mut out, "Keys", keys);
    out.push((String::new(), 0));
    out.push(("Commands".to_string(), 0));
    let commands = palette::commands();
    let name_w = commands.iter().map(|(n, _)| n.len() + 1).max().unwrap_or(0);
    for (name, what) in commands {
        let name = format!("/{name}");
        out.push((format!("  {name:<name_w$}  {what}"), name_w + 4));
    }
    // The dialogs' keys last: the main screen's come first.
    out.push((String::new(), 0));
    section(&mut out, QUESTION_HEADING, asked);
    out.push((String::new(), 0));
    section(&mut out, REWIND_HEADING, rewinding);
    out
}

/// The sheet in rows of `width` (the `?` sheet and `/help`'s answer in
/// the transcript): headings in the accent colour, a long description
/// wrapped under itself rather than under its key.
pub fn rows(width: usize) -> Vec<Line<'static>> {
    let heading = Style::default()
        .fg(theme::current().accent)
        .add_modifier(Modifier::BOLD);
    let mut rows = Vec::new();
    for (line, column) in sheet_lines() {
        if column == 0 {
            rows.push(Line::styled(line, heading));
        } else {
            rows.extend(wrap_line(&Line::raw(line), width, column));
        }
    }
    rows
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_sheet_lists_every_key_and_command() {
        let sheet = sheet();
        for (key, _) in keys() {
            assert!(sheet.contains(key), "{key} missing");
        }
        let (dialogs, rewinding) = sheet.split_once(REWIND_HEADING).unwrap_or_default();
        let asked = dialogs.split(QUESTION_HEADING).nth(1).unwrap_or_default();
        for (key, what) in question_keys() {
            assert!(asked.contains(&format!("{key}  ")), "{key} missing");
            assert!(asked.contains(what), "{what} missing");
        }
        assert!(asked.contains("Space"), "{asked}");
        // Every stage of the rewind picker, from its tables.
        for (key, what) in rewind_keys() {
            let row = |l: &str| l.trim_start().starts_with(key) && l.ends_with(what);
            assert!(rewinding.lines().any(row), "{key} {what} missing");
        }
        for what in [
            "choose a point",
            "restore that option",
            "rewind, overwriting those files",
        ] {
            assert!(rewinding.contains(what), "{what} missing:\n{rewinding}");
        }
        for (name, _) in palette::commands() {
            assert!(sheet.contains(&format!("/{name} ")), "/{name} missing");
        }
        assert!(sheet.contains("Ctrl+J"));
    }

    #[test]
    fn at_80_columns_a_description_wraps_under_itself() {
        let rows: Vec<String> = rows(76)
            .iter()
            .map(|l| l.spans.iter().map(|s| s.content.as_ref()).collect())
            .collect();
        let column = sheet_lines()[1].1;
        let mut wrapped = 0;
        for row in &rows {
            assert!(row.chars().count() <= 76, "{row:?}");
            // A continuation row starts blank up to the description column.
            if !row.trim().is_empty() && row.starts_with(&" ".repeat(column)) {
                wrapped += 1;
            }
        }
        assert!(wrapped > 0, "some description wraps:\n{}", rows.join("\n"));
    }

    #[test]
    fn descriptions_start_at_their_recorded_column() {
        for (line, column) in sheet_lines() {
            if column > 0 {
                // Columns count characters (the arrows are one each).
                let chars: Vec<char> = line.chars().collect();
                assert_eq!(chars[column - 2..column], [' ', ' '], "{line:?}");
                assert_ne!(chars[column], ' ', "{line:?}");
            }
        }
    }
}
