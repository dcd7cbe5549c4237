//! The key and command sheet shown by `?` and `/help`, generated from the
//! one table of keys below and the palette's command list, so it always
//! says what the interface really does.

use crate::palette;

/// Every key of the main screen and what it does, in display order.
pub const KEYS: &[(&str, &str)] = &[
    (
        "Enter",
        "send (while the agent works: queue it for after the turn)",
    ),
    ("Ctrl+J / Shift+Enter", "new line"),
    ("Up", "take the last queued message back to edit it"),
    (
        "Esc",
        "stop the agent; before any reply, your prompt returns to the input; on a prompt: decline and stop",
    ),
    (
        "Esc Esc",
        "on an empty prompt: rewind code and/or conversation (/rewind)",
    ),
    (
        "Ctrl+C",
        "stop (your prompt returns) · clear the input (Ctrl+Y brings it back) · again to quit",
    ),
    (
        "Ctrl+B",
        "send the running command to the background (in tmux: twice); /bashes lists them",
    ),
    ("Ctrl+O", "full transcript with all output expanded"),
    (
        "PgUp",
        "full transcript, one page up (also your terminal's scrollback)",
    ),
    ("Shift+Tab", "cycle permission modes"),
    (
        "Ctrl+G",
        "edit the input (or the plan, while planning) in $EDITOR",
    ),
    (
        "/plan review",
        "read and comment on the plan in your browser (b in the approval dialog)",
    ),
    ("/", "commands (Tab completes)"),
    ("?", "this sheet"),
];

/// Keys of the transcript view.
pub const PAGER_KEYS: &[(&str, &str)] = &[
    ("PgUp/PgDn, Up/Down, wheel", "scroll"),
    ("Home/End", "top, bottom"),
    ("Esc, q, Ctrl+O", "back"),
];

/// The sheet as plain text.
pub fn sheet() -> String {
    let lines: Vec<String> = sheet_lines().into_iter().map(|(line, _)| line).collect();
    lines.join("\n").trim_end().to_string()
}

/// The sheet's lines, each with the column its description starts at (a
/// narrow screen wraps a long description under itself, not under the key).
pub fn sheet_lines() -> Vec<(String, usize)> {
    let mut out = vec![("Keys".to_string(), 0)];
    let key_w = KEYS.iter().map(|(k, _)| k.len()).max().unwrap_or(0);
    for (key, what) in KEYS {
        out.push((format!("  {key:<key_w$}  {what}"), key_w + 4));
    }
    out.push((String::new(), 0));
    out.push(("Commands".to_string(), 0));
    let commands = palette::commands();
    let name_w = commands.iter().map(|(n, _)| n.len() + 1).max().unwrap_or(0);
    for (name, what) in commands {
        let name = format!("/{name}");
        out.push((format!("  {name:<name_w$}  {what}"), name_w + 4));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_sheet_lists_every_key_and_command() {
        let sheet = sheet();
        for (key, _) in KEYS {
            assert!(sheet.contains(key), "{key} missing");
        }
        for (name, _) in palette::commands() {
            assert!(sheet.contains(&format!("/{name} ")), "/{name} missing");
        }
        assert!(sheet.contains("Ctrl+J"));
    }

    #[test]
    fn descriptions_start_at_their_recorded_column() {
        for (line, column) in sheet_lines() {
            if column > 0 {
                assert_eq!(&line[column - 2..column], "  ", "{line:?}");
                assert_ne!(&line[column..column + 1], " ", "{line:?}");
            }
        }
    }
}
