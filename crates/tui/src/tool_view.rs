//! How one tool call looks in the transcript: a one-line summary such as
//! `● Read(src/main.rs)` and its result folded to a few lines (coloured
//! diffs for edits, the head of command output for Bash), plus the live
//! line of a sub-agent started by an `Agent` call.

use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use serde_json::Value;

use crate::diff::{diff_lines, diff_text, looks_like_diff};
use crate::transcript::{ToolEntry, ToolStatus, with_gutter};
use crate::wrap::{truncate, wrap_line};

/// Live progress of a sub-agent, shown under its `Agent` call.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct AgentProgress {
    pub agent_type: String,
    pub description: String,
    /// The summary of the tool it is running now.
    pub current: Option<String>,
    /// Model requests made so far.
    pub turns: u32,
    pub tool_uses: u32,
}

impl AgentProgress {
    pub fn from_input(input: &Value) -> Self {
        let field = |k: &str| {
            input
                .get(k)
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_string()
        };
        let agent_type = match field("subagent_type") {
            t if t.is_empty() => "agent".to_string(),
            t => t,
        };
        Self {
            agent_type,
            description: field("description"),
            ..Self::default()
        }
    }
}

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
    Style::default().fg(Color::DarkGray)
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

/// Keeps the first `max` lines of `text`, noting how many were folded.
fn folded(text: &str, width: usize, max: usize, style: Style) -> Vec<Line<'static>> {
    let lines: Vec<&str> = text.trim_end().lines().collect();
    let mut out: Vec<Line<'static>> = lines
        .iter()
        .take(max)
        .flat_map(|l| wrap_line(&Line::styled(l.to_string(), style), width, 0))
        .collect();
    if lines.len() > max {
        out.push(Line::styled(
            format!("… +{} lines", lines.len() - max),
            dim(),
        ));
    }
    out
}

fn result_rows(tool: &ToolEntry, width: usize) -> Vec<Line<'static>> {
    let result = tool.result.as_deref().unwrap_or("");
    if tool.status == ToolStatus::Failed {
        return folded(result, width, 4, Style::default().fg(Color::Red));
    }
    let is_edit = matches!(
        tool.name.as_str(),
        "Edit" | "MultiEdit" | "Write" | "NotebookEdit"
    );
    if looks_like_diff(result) {
        return diff_lines(result, width, 16);
    }
    if is_edit {
        let mut rows = folded(result, width, 1, Style::default());
        let old = tool.input.get("old_string").and_then(Value::as_str);
        let new = tool
            .input
            .get("new_string")
            .or_else(|| tool.input.get("content"))
            .and_then(Value::as_str);
        if let Some(new) = new {
            rows.extend(diff_lines(&diff_text(old.unwrap_or(""), new), width, 16));
        }
        return rows;
    }
    let max = if tool.name == "Bash" { 4 } else { 2 };
    folded(result, width, max, Style::default())
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
        ToolStatus::Done | ToolStatus::Failed => {
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
                rows.extend(folded(
                    tool.result.as_deref().unwrap_or(""),
                    width,
                    2,
                    Style::default().fg(Color::Red),
                ));
            }
            rows
        }
    }
}

/// The rows of one tool call at `width`.
pub fn tool_lines(tool: &ToolEntry, width: usize) -> Vec<Line<'static>> {
    let bullet_style = match tool.status {
        ToolStatus::Pending => dim(),
        ToolStatus::Running => Style::default().fg(Color::Yellow),
        ToolStatus::Done => Style::default().fg(Color::Green),
        ToolStatus::Failed => Style::default().fg(Color::Red),
    };
    let inner = width.saturating_sub(2).max(1);
    let mut rows = with_gutter(
        wrap_line(&summary_line(&tool.summary), inner, 2),
        Span::styled("● ", bullet_style),
    );
    let body_width = width.saturating_sub(5).max(1);
    let body = if let Some(agent) = &tool.agent {
        agent_rows(tool, agent, body_width)
    } else {
        match tool.status {
            ToolStatus::Pending => Vec::new(),
            ToolStatus::Running => vec![Line::styled("Running…", dim())],
            ToolStatus::Done | ToolStatus::Failed => result_rows(tool, body_width),
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
            texts(&tool_lines(&t, 40)),
            [
                "● Bash(seq 10)",
                "  ⎿  line 1",
                "     line 2",
                "     line 3",
                "     line 4",
                "     … +6 lines"
            ]
        );
    }

    #[test]
    fn edits_show_a_coloured_diff_from_the_input() {
        let t = entry(
            "Edit",
            json!({"file_path": "a.rs", "old_string": "let x = 1;", "new_string": "let x = 2;"}),
            ToolStatus::Done,
            "Updated a.rs",
        );
        let rows = tool_lines(&t, 40);
        assert_eq!(
            texts(&rows),
            [
                "● Edit(a.rs)",
                "  ⎿  Updated a.rs",
                "     -let x = 1;",
                "     +let x = 2;"
            ]
        );
        assert_eq!(rows[3].spans[1].style.fg, Some(Color::Green));
    }
}
