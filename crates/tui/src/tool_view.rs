//! How one tool call looks in the transcript: a one-line summary such as
//! `● Read(src/main.rs)` (paths relative to the working directory) and its
//! user-facing result folded to a few lines: numbered, coloured diffs for
//! edits, the head of command output, and for a failed call a red bullet
//! with its last lines and exit code always in view. The full transcript
//! view (Ctrl+O) shows every result unfolded. Also the live line of a
//! sub-agent started by an `Agent` call.

use catui_protocol::tool_names;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use serde_json::Value;

use crate::diff::{diff_lines, looks_like_diff, unified};
use crate::markdown::inline_spans;
use crate::theme;
use crate::tool_entry::{AgentProgress, ToolEntry, ToolStatus};
use crate::wrap::{more_lines, truncate, with_gutter, wrap_line};

/// A one-line summary from the input, for calls the engine has not yet
/// summarised (`Name(main argument)`).
pub fn fallback_summary(name: &str, input: &Value) -> String {
    const KEYS: [&str; 8] = [
        "file_path",
        "notebook_path",
        "path",
        "command",
        "pattern",
        "url",
        "description",
        "query",
    ];
    let arg = KEYS
        .iter()
        .find_map(|k| input.get(*k).and_then(Value::as_str))
        .map(|s| s.lines().next().unwrap_or("").to_string());
    match arg {
        Some(a) if !a.is_empty() => format!("{name}({a})"),
        _ => name.to_string(),
    }
}

fn dim() -> Style {
    Style::default().fg(theme::current().dim)
}

/// Writes paths under `cwd` relative to it (`/work/p/src/a.rs` →
/// `src/a.rs`): the working directory is on the status line already.
pub fn relative_paths(text: &str, cwd: &str) -> String {
    let cwd = cwd.trim_end_matches('/');
    if cwd.len() < 2 || !text.contains(cwd) {
        return text.to_string();
    }
    text.replace(&format!("{cwd}/"), "")
}

/// Styles `Name(args)` with the name in bold.
fn summary_line(summary: &str) -> Line<'static> {
    match summary.find('(') {
        Some(i) => Line::from(vec![
            Span::styled(
                summary[..i].to_string(),
                Style::default().add_modifier(Modifier::BOLD),
            ),
            Span::raw(summary[i..].to_string()),
        ]),
        None => Line::from(Span::styled(
            summary.to_string(),
            Style::default().add_modifier(Modifier::BOLD),
        )),
    }
}

/// How much of a result to show: the first `max` lines, or everything
/// when expanded or when folding would hide only a line or two.
fn folded(
    text: &str,
    width: usize,
    max: usize,
    style: Style,
    expanded: bool,
) -> Vec<Line<'static>> {
    let lines: Vec<&str> = text.trim_end().lines().collect();
    let shown = if expanded || lines.len() <= max + 2 {
        lines.len()
    } else {
        max
    };
    let mut out: Vec<Line<'static>> = lines
        .iter()
        .take(shown)
        .flat_map(|l| wrap_line(&Line::styled(l.to_string(), style), width, 0))
        .collect();
    if lines.len() > shown {
        out.push(Line::styled(more_lines(lines.len() - shown), dim()));
    }
    out
}

/// Whether a line is a command's closing status (exit code, signal,
/// timeout), which a failed call always shows.
fn is_status_line(line: &str) -> bool {
    line.starts_with("Exit code: ")
        || line.starts_with("Killed by signal")
        || line.starts_with("Command timed out")
        || line.starts_with("The command ended abnormally")
}

/// A failed call: its last lines (where errors and the exit code are),
/// with the status in bold red.
fn failure_rows(text: &str, width: usize, max: usize, expanded: bool) -> Vec<Line<'static>> {
    let t = theme::current();
    let lines: Vec<&str> = text.trim_end().lines().collect();
    let skip = if expanded || lines.len() <= max + 2 {
        0
    } else {
        lines.len() - max
    };
    let mut out = Vec::new();
    if skip > 0 {
        let noun = if skip == 1 { "line" } else { "lines" };
        out.push(Line::styled(
            format!("… {skip} {noun} above (ctrl+o to expand)"),
            dim(),
        ));
    }
    let single = lines.len() == 1;
    for line in &lines[skip..] {
        let style = if is_status_line(line) {
            Style::default().fg(t.error).add_modifier(Modifier::BOLD)
        } else if single || !lines.iter().any(|l| is_status_line(l)) {
            Style::default().fg(t.error)
        } else {
            Style::default()
        };
        out.extend(wrap_line(&Line::styled(line.to_string(), style), width, 0));
    }
    out
}

/// `+A −R` counts of a diff, for the line above it.
fn change_counts(diff: &str) -> (usize, usize) {
    diff.lines().fold((0, 0), |(a, r), l| {
        if l.starts_with("+++") || l.starts_with("---") {
            (a, r)
        } else if l.starts_with('+') {
            (a + 1, r)
        } else if l.starts_with('-') {
            (a, r + 1)
        } else {
            (a, r)
        }
    })
}

fn edit_rows(tool: &ToolEntry, result: &str, width: usize, expanded: bool) -> Vec<Line<'static>> {
    let max = if expanded { usize::MAX / 2 } else { 16 };
    if looks_like_diff(result) {
        let (added, removed) = change_counts(result);
        let mut rows = vec![Line::from(vec![
            Span::raw(if tool.name == tool_names::WRITE {
                "Overwrote the file · "
            } else {
                "Updated · "
            }),
            Span::styled(format!("+{added}"), theme::current().added()),
            Span::raw(" "),
            Span::styled(format!("−{removed}"), theme::current().removed()),
        ])];
        rows.extend(diff_lines(result, width, max));
        return rows;
    }
    // A created file: the summary line, then its first lines.
    let mut lines = result.lines();
    let mut rows: Vec<Line<'static>> = lines
        .next()
        .map(|l| Line::raw(l.to_string()))
        .into_iter()
        .collect();
    let rest: Vec<&str> = lines.collect();
    if !rest.is_empty() {
        rows.extend(folded(&rest.join("\n"), width, 4, dim(), expanded));
    } else if tool.name == tool_names::EDIT {
        let old = tool.input.get("old_string").and_then(Value::as_str);
        let new = tool.input.get("new_string").and_then(Value::as_str);
        if let (Some(old), Some(new)) = (old, new) {
            rows.extend(diff_lines(&unified(old, new), width, max));
        }
    }
    rows
}

/// A call the user declined (or stopped before it ran): what they said,
/// then for an edit the change it proposed, kept to be looked at again.
fn declined_rows(tool: &ToolEntry, width: usize, expanded: bool) -> Vec<Line<'static>> {
    let said = tool.result.as_deref().unwrap_or("Not run");
    let mut rows = folded(said, width, 4, Style::default(), expanded);
    let max = if expanded { usize::MAX / 2 } else { 16 };
    let field = |k: &str| tool.input.get(k).and_then(Value::as_str);
    let proposed = match tool.name.as_str() {
        tool_names::EDIT => field("old_string").zip(field("new_string")),
        tool_names::WRITE => field("content").map(|c| ("", c)),
        _ => None,
    };
    if let Some((old, new)) = proposed.filter(|(old, new)| old != new) {
        rows.extend(diff_lines(&unified(old, new), width, max));
    }
    rows
}

fn result_rows(tool: &ToolEntry, width: usize, expanded: bool) -> Vec<Line<'static>> {
    let result = tool.result.as_deref().unwrap_or("");
    if tool.status == ToolStatus::Failed {
        return failure_rows(result, width, 6, expanded);
    }
    if matches!(
        tool.name.as_str(),
        tool_names::EDIT | tool_names::WRITE | tool_names::NOTEBOOK_EDIT
    ) {
        return edit_rows(tool, result, width, expanded);
    }
    if looks_like_diff(result) {
        let max = if expanded { usize::MAX / 2 } else { 16 };
        return diff_lines(result, width, max);
    }
    let body = if result.trim().is_empty() {
        "(no output)"
    } else {
        result
    };
    if tool.name == tool_names::BASH {
        return tail_folded(body, width, 4, expanded);
    }
    if tool.name == tool_names::TODO_WRITE {
        // The checklist as the todo panel shows it: `code` and **bold**
        // drawn, not their markers.
        let max = if expanded { usize::MAX } else { 6 };
        let lines: Vec<&str> = body.lines().collect();
        let mut rows: Vec<Line<'static>> = lines
            .iter()
            .take(max)
            .map(|l| Line::from(inline_spans(&truncate(l, width), Style::default())))
            .collect();
        if lines.len() > max {
            rows.push(Line::styled(more_lines(lines.len() - max), dim()));
        }
        return rows;
    }
    folded(body, width, 2, Style::default(), expanded)
}

/// A command's output folded to its last `max` lines, where the final
/// word ("DONE", the summary of a test run) is; its first lines instead
/// when the last ones are blank.
fn tail_folded(text: &str, width: usize, max: usize, expanded: bool) -> Vec<Line<'static>> {
    let lines: Vec<&str> = text.trim_end().lines().collect();
    if expanded || lines.len() <= max + 2 {
        return folded(text, width, max, Style::default(), expanded);
    }
    let tail = &lines[lines.len() - max..];
    if tail.iter().all(|l| printable(l).trim().is_empty()) {
        return folded(text, width, max, Style::default(), expanded);
    }
    let mut out = vec![Line::styled(more_lines(lines.len() - max), dim())];
    out.extend(
        tail.iter()
            .flat_map(|l| wrap_line(&Line::raw(l.to_string()), width, 0)),
    );
    out
}

/// A line of raw command output as plain text: through the one terminal
/// sanitiser (escape sequences and control characters go), tabs as spaces.
fn printable(line: &str) -> String {
    catui_protocol::terminal::sanitize(line).replace('\t', "    ")
}

/// Lines of a running command's output shown under it.
const LIVE_LINES: usize = 5;

/// A running call: its latest lines of output (each cut to the width, so
/// the block does not jump as lines wrap), and how long it has run.
fn running_rows(tool: &ToolEntry, width: usize) -> Vec<Line<'static>> {
    let Some(live) = tool.live.as_ref().filter(|l| !l.lines.is_empty()) else {
        let mut text = "Running…".to_string();
        if let Some(live) = &tool.live {
            text.push_str(&format!(" ({}s)", live.elapsed_secs));
        }
        return vec![Line::styled(text, dim())];
    };
    let skip = live.lines.len().saturating_sub(LIVE_LINES);
    let shown = &live.lines[skip..];
    let hidden = live.total_lines.saturating_sub(shown.len() as u64);
    let mut out = Vec::new();
    if hidden > 0 {
        let noun = if hidden == 1 { "line" } else { "lines" };
        out.push(Line::styled(format!("… +{hidden} {noun}"), dim()));
    }
    out.extend(
        shown
            .iter()
            .map(|l| Line::raw(truncate(&printable(l), width))),
    );
    out.push(Line::styled(
        format!("Running… ({}s)", live.elapsed_secs),
        dim(),
    ));
    out
}

fn agent_rows(tool: &ToolEntry, agent: &AgentProgress, width: usize) -> Vec<Line<'static>> {
    let turns = |n: u32| {
        if n == 1 {
            "1 turn".to_string()
        } else {
            format!("{n} turns")
        }
    };
    match tool.status {
        ToolStatus::Pending | ToolStatus::Running => {
            let mut text = format!("{}: {}", agent.agent_type, agent.description);
            if let Some(current) = &agent.current {
                text.push_str(&format!(" · {current}"));
            }
            text.push_str(&format!(" · {}", turns(agent.turns)));
            vec![Line::styled(truncate(&text, width), dim())]
        }
        ToolStatus::Done | ToolStatus::Failed | ToolStatus::Declined => {
            let uses = if agent.tool_uses == 1 {
                "1 tool use".to_string()
            } else {
                format!("{} tool uses", agent.tool_uses)
            };
            let mut rows = vec![Line::styled(
                format!("Done ({} · {uses})", turns(agent.turns)),
                dim(),
            )];
            if tool.status == ToolStatus::Failed {
                rows.extend(failure_rows(
                    tool.result.as_deref().unwrap_or(""),
                    width,
                    2,
                    false,
                ));
            }
            rows
        }
    }
}

/// The rows of one tool call at `width`; `expanded` unfolds its output
/// (the full transcript view).
pub fn tool_lines(tool: &ToolEntry, width: usize, expanded: bool) -> Vec<Line<'static>> {
    let t = theme::current();
    // A failure is told by its shape as well as its colour, so it still
    // stands out under NO_COLOR and to colour-blind users.
    let (bullet, bullet_style) = match tool.status {
        ToolStatus::Pending => ("● ", dim()),
        ToolStatus::Running => ("● ", Style::default().fg(t.warn)),
        ToolStatus::Done => ("● ", Style::default().fg(t.ok)),
        ToolStatus::Failed => ("✗ ", Style::default().fg(t.error)),
        ToolStatus::Declined => ("● ", dim()),
    };
    let inner = width.saturating_sub(2).max(1);
    let mut rows = with_gutter(
        wrap_line(&summary_line(&tool.summary), inner, 2),
        Span::styled(bullet, bullet_style),
    );
    let body_width = width.saturating_sub(5).max(1);
    let body = if let Some(agent) = &tool.agent {
        agent_rows(tool, agent, body_width)
    } else {
        match tool.status {
            ToolStatus::Pending => Vec::new(),
            ToolStatus::Running => running_rows(tool, body_width),
            ToolStatus::Done | ToolStatus::Failed => result_rows(tool, body_width, expanded),
            ToolStatus::Declined => declined_rows(tool, body_width, expanded),
        }
    };
    if !body.is_empty() {
        rows.extend(with_gutter(body, Span::styled("  ⎿  ", dim())));
    }
    rows
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn entry(name: &str, input: Value, status: ToolStatus, result: &str) -> ToolEntry {
        ToolEntry {
            id: "t".into(),
            name: name.into(),
            summary: fallback_summary(name, &input),
            input,
            status,
            result: Some(result.into()),
            agent: None,
            live: None,
        }
    }

    fn texts(lines: &[Line<'_>]) -> Vec<String> {
        lines.iter().map(|l| l.to_string()).collect()
    }

    #[test]
    fn summaries_use_the_main_argument() {
        assert_eq!(
            fallback_summary("Read", &json!({"file_path": "src/a.rs"})),
            "Read(src/a.rs)"
        );
        assert_eq!(
            fallback_summary("Bash", &json!({"command": "ls\necho"})),
            "Bash(ls)"
        );
        assert_eq!(
            fallback_summary("TodoWrite", &json!({"todos": []})),
            "TodoWrite"
        );
    }

    #[test]
    fn long_results_are_folded() {
        let out: String = (1..=10).map(|i| format!("line {i}\n")).collect();
        let t = entry("Bash", json!({"command": "seq 10"}), ToolStatus::Done, &out);
        assert_eq!(
            texts(&tool_lines(&t, 40, false)),
            [
                "● Bash(seq 10)",
                "  ⎿  … +6 lines (ctrl+o to expand)",
                "     line 7",
                "     line 8",
                "     line 9",
                "     line 10",
            ]
        );
        assert_eq!(tool_lines(&t, 40, true).len(), 11);
        // Folding never hides just a line or two.
        let three = entry(
            "Bash",
            json!({"command": "seq 6"}),
            ToolStatus::Done,
            "1\n2\n3\n4\n5\n6",
        );
        assert_eq!(tool_lines(&three, 40, false).len(), 7);
    }

    #[test]
    fn a_running_command_shows_its_latest_lines_and_time() {
        let mut t = entry("Bash", json!({"command": "make"}), ToolStatus::Running, "");
        t.result = None;
        assert_eq!(texts(&tool_lines(&t, 40, false))[1], "  ⎿  Running…");
        t.live = Some(crate::tool_entry::LiveTail {
            lines: (1..=8)
                .map(|i| format!("\u{1b}[32mstep {i}\u{1b}[0m\t."))
                .collect(),
            total_lines: 30,
            elapsed_secs: 3,
        });
        assert_eq!(
            texts(&tool_lines(&t, 40, false)),
            [
                "● Bash(make)",
                "  ⎿  … +25 lines",
                "     step 4    .",
                "     step 5    .",
                "     step 6    .",
                "     step 7    .",
                "     step 8    .",
                "     Running… (3s)",
            ]
        );
    }

    #[test]
    fn a_finished_command_shows_its_head_when_its_tail_is_blank() {
        // The last lines only reset colours: nothing to see there.
        let out = format!("a\nb\nc\nd\ne\nf\ng\n{}", "\u{1b}[0m\n".repeat(6));
        let t = entry("Bash", json!({"command": "x"}), ToolStatus::Done, &out);
        let text = texts(&tool_lines(&t, 40, false));
        assert_eq!(text[1], "  ⎿  a");
    }

    #[test]
    fn a_failed_command_shows_its_last_lines_and_exit_code_in_red() {
        let out: String = (1..=20).map(|i| format!("out {i}\n")).collect();
        let out = format!("{out}error: boom\nExit code: 1");
        let t = entry("Bash", json!({"command": "make"}), ToolStatus::Failed, &out);
        let rows = tool_lines(&t, 60, false);
        let text = texts(&rows);
        assert_eq!(text[1], "  ⎿  … 16 lines above (ctrl+o to expand)");
        assert_eq!(text.last().unwrap(), "     Exit code: 1");
        assert!(text.contains(&"     error: boom".to_string()));
        assert_eq!(rows[0].spans[0].style.fg, Some(theme::current().error));
        assert_eq!(text[0], "✗ Bash(make)", "a failure has its own glyph");
        assert_eq!(
            rows.last().unwrap().spans[1].style.fg,
            Some(theme::current().error)
        );
    }

    #[test]
    fn paths_under_the_working_directory_are_relative() {
        assert_eq!(
            relative_paths("Read(/w/p/src/a.rs)", "/w/p"),
            "Read(src/a.rs)"
        );
        assert_eq!(
            relative_paths("Read(/w/px/a.rs)", "/w/p"),
            "Read(/w/px/a.rs)"
        );
        assert_eq!(relative_paths("Bash(ls /)", "/"), "Bash(ls /)");
    }

    #[test]
    fn edits_show_a_numbered_coloured_diff_without_file_headers() {
        let diff = "--- a.rs\n+++ a.rs\n@@ -9,3 +9,3 @@\n fn a() {\n-    let x = 1;\n+    let x = 2;\n }\n";
        let t = entry(
            "Edit",
            json!({"file_path": "a.rs", "old_string": "let x = 1;", "new_string": "let x = 2;"}),
            ToolStatus::Done,
            diff,
        );
        let rows = tool_lines(&t, 40, false);
        assert_eq!(
            texts(&rows),
            [
                "● Edit(a.rs)",
                "  ⎿  Updated · +1 −1",
                "      9   fn a() {",
                "     10 -     let x = 1;",
                "     10 +     let x = 2;",
                "     11   }"
            ]
        );
        assert_eq!(rows[4].spans[2].style.fg, Some(theme::current().added_fg));
    }
}
