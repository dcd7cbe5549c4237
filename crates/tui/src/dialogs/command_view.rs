//! How an approval dialog shows the text it asks about (a command, a
//! reason): all of it, so that what the user approves is what they see. A
//! command padded with blank lines or spaces would push its payload below
//! the dialog or off to the side (`echo hello`, sixty newlines, `touch
//! PWNED`); control characters would vanish or act on the terminal. Here
//! a run of blank lines is one marked row (`⏎×60`), a long run of blanks
//! in a line one marked span (`␠×200`), and every control or invisible
//! character is shown as a picture (`catui_protocol::terminal::reveal`).
//! Whether the whole fits the dialog is the dialog's business
//! (`permission.rs`): it says so and offers to scroll it.

use catui_protocol::terminal::reveal;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};

use crate::theme;

/// Blanks in a row at least this long are collapsed within a line; less
/// is indentation and stays.
const BLANK_RUN: usize = 16;
/// A tab as the dialog shows it.
const TAB: &str = "    ";

/// The style of a marker standing for what is collapsed or hidden.
fn marker() -> Style {
    Style::default()
        .fg(theme::current().warn)
        .add_modifier(Modifier::BOLD)
}

/// The rows of `command`, each indented by two spaces: blank-line runs
/// collapsed to a `⏎×N` row (N the line breaks it stands for), long blank
/// runs inside a line to `␠×N`, control characters shown.
pub fn command_rows(command: &str) -> Vec<Line<'static>> {
    let revealed = reveal(command);
    let lines: Vec<&str> = revealed.split('\n').collect();
    let blank = |l: &str| l.trim().is_empty();
    let mut rows = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        if !blank(lines[i]) {
            rows.push(text_row(lines[i]));
            i += 1;
            continue;
        }
        let start = i;
        while i < lines.len() && blank(lines[i]) {
            i += 1;
        }
        let run = i - start;
        let inside = start > 0 && i < lines.len();
        // The line breaks the run stands for: the one before it, those
        // between its blank lines, the one after it.
        let breaks = usize::from(start > 0) + (run - 1) + usize::from(i < lines.len());
        if inside && run == 1 {
            // One blank line between two lines of text: as it is.
            rows.push(Line::raw(""));
        } else if breaks >= 2 {
            rows.push(Line::from(vec![
                Span::raw("  "),
                Span::styled(format!("⏎×{breaks}"), marker()),
            ]));
        }
    }
    rows
}

/// One line of text with long blank runs collapsed.
fn text_row(line: &str) -> Line<'static> {
    let mut spans = vec![Span::raw("  ")];
    let mut text = String::new();
    let chars: Vec<char> = line.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        if !chars[i].is_whitespace() {
            text.push(chars[i]);
            i += 1;
            continue;
        }
        let start = i;
        while i < chars.len() && chars[i].is_whitespace() {
            i += 1;
        }
        if i - start >= BLANK_RUN {
            spans.push(Span::raw(std::mem::take(&mut text)));
            spans.push(Span::styled(format!("␠×{}", i - start), marker()));
        } else {
            for &c in &chars[start..i] {
                // Other blanks (no-break, ideographic space) are shown as
                // what they are not: a plain space.
                match c {
                    '\t' => text.push_str(TAB),
                    ' ' => text.push(' '),
                    c => text.push_str(&format!("⟨U+{:04X}⟩", c as u32)),
                }
            }
        }
    }
    spans.push(Span::raw(text));
    Line::from(spans)
}

/// `text` on one row: control characters shown, each run of line breaks
/// as `⏎` (`⏎×N` for more than one). For a reason or a description.
pub fn inline(text: &str) -> String {
    let revealed = reveal(text);
    let mut out = String::with_capacity(revealed.len());
    let mut breaks = 0usize;
    for c in revealed.trim_end_matches('\n').chars() {
        if c == '\n' {
            breaks += 1;
            continue;
        }
        if breaks > 0 {
            out.push_str(&break_mark(breaks));
            breaks = 0;
        }
        if c == '\t' {
            out.push(' ');
        } else {
            out.push(c);
        }
    }
    out
}

fn break_mark(n: usize) -> String {
    if n == 1 {
        " ⏎ ".to_string()
    } else {
        format!(" ⏎×{n} ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(rows: &[Line<'_>]) -> Vec<String> {
        rows.iter().map(|l| l.to_string()).collect()
    }

    #[test]
    fn a_newline_padded_command_shows_its_payload_next_to_a_marked_run() {
        let command = format!("echo hello{}touch PWNED", "\n".repeat(60));
        assert_eq!(
            texts(&command_rows(&command)),
            ["  echo hello", "  ⏎×60", "  touch PWNED"]
        );
        // Blank lines of spaces and tabs are blank too; at the end they
        // are marked as well.
        let command = "a\n \n\t\n  \nb\n\n\n";
        assert_eq!(
            texts(&command_rows(command)),
            ["  a", "  ⏎×4", "  b", "  ⏎×3"]
        );
    }

    #[test]
    fn one_blank_line_and_short_indentation_stay_as_they_are() {
        let command = "if true; then\n\n    echo\tx\nfi";
        assert_eq!(
            texts(&command_rows(command)),
            ["  if true; then", "", "      echo    x", "  fi"]
        );
    }

    #[test]
    fn long_blank_runs_and_controls_are_shown() {
        let command = format!("echo hi{}; rm -rf ~\r\x1b[2Kok\u{a0}", " ".repeat(300));
        assert_eq!(
            texts(&command_rows(&command)),
            ["  echo hi␠×300; rm -rf ~␍␛[2Kok⟨U+00A0⟩"]
        );
    }

    #[test]
    fn inline_text_keeps_one_row() {
        assert_eq!(inline("run `a\n\n\nb`\x07\n"), "run `a ⏎×3 b`␇");
    }
}
