//! The plan dialog's evidence: the dry runs the planning session checked
//! its plan with (`dryRuns` of the ExitPlanMode request), one row each
//! under the plan — "checked during planning: `cargo test` exit 101, 2
//! failures"; and for a teammate's plan, the files it shares with other
//! teammates' pending or approved plans (`conflicts`).

use ratatui::style::{Color, Style};
use ratatui::text::Line;
use serde_json::Value;

/// The rows for the `dryRuns` of an ExitPlanMode request's input (none
/// when there were no dry runs).
pub fn rows(input: &Value) -> Vec<Line<'static>> {
    let runs = input
        .get("dryRuns")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    if runs.is_empty() {
        return Vec::new();
    }
    let mut rows = vec![Line::raw(
        "Checked during planning (dry runs in a throwaway copy):",
    )];
    for run in runs {
        rows.push(Line::styled(
            format!("  {}", describe(&run)),
            Style::default().fg(Color::Cyan),
        ));
    }
    rows
}

/// The rows for a teammate's plan `conflicts` (none without any): one per
/// file another teammate's live plan names too.
pub fn conflict_rows(input: &Value) -> Vec<Line<'static>> {
    let conflicts = input
        .get("conflicts")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    if conflicts.is_empty() {
        return Vec::new();
    }
    let mut rows = vec![Line::styled(
        "Conflicts: files other teammates' plans also change",
        Style::default().fg(Color::Yellow),
    )];
    let text = |c: &Value, key: &str| -> String {
        c.get(key)
            .and_then(Value::as_str)
            .unwrap_or_default()
            .chars()
            .filter(|c| !c.is_control())
            .take(120)
            .collect()
    };
    for c in conflicts {
        rows.push(Line::styled(
            format!(
                "  {} · {}'s plan {}",
                text(&c, "file"),
                text(&c, "teammate"),
                text(&c, "plan")
            ),
            Style::default().fg(Color::Yellow),
        ));
    }
    rows
}

/// "`cargo test` exit 101, 2 failures": the command's first line (control
/// characters left out: it is the model's text), how it ended.
fn describe(run: &Value) -> String {
    let command: String = run
        .get("command")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .lines()
        .next()
        .unwrap_or_default()
        .chars()
        .filter(|c| !c.is_control())
        .take(120)
        .collect();
    let ended = match run.get("exit_code").and_then(Value::as_i64) {
        Some(code) => format!("exit {code}"),
        None => "stopped".to_string(),
    };
    match run.get("summary").and_then(Value::as_str) {
        Some(summary) => format!("`{command}` {ended}, {summary}"),
        None => format!("`{command}` {ended}"),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    #[test]
    fn each_dry_run_is_one_row_with_its_exit_and_summary() {
        let input = json!({"dryRuns": [
            {"command": "cargo test", "exit_code": 101, "summary": "2 failures"},
            {"command": "make\u{1b}[2J\nsecond line", "exit_code": null},
        ]});
        let rows: Vec<String> = super::rows(&input)
            .iter()
            .map(|l| l.spans.iter().map(|s| s.content.to_string()).collect())
            .collect();
        assert_eq!(
            rows,
            vec![
                "Checked during planning (dry runs in a throwaway copy):".to_string(),
                "  `cargo test` exit 101, 2 failures".to_string(),
                "  `make[2J` stopped".to_string(),
            ]
        );
        assert!(super::rows(&json!({})).is_empty());
    }

    #[test]
    fn each_conflict_is_one_row_naming_file_teammate_and_plan() {
        let input = json!({"conflicts": [
            {"file": "src/cli.rs", "plan": "bob-plan", "teammate": "bob"},
        ]});
        let rows: Vec<String> = super::conflict_rows(&input)
            .iter()
            .map(|l| l.spans.iter().map(|s| s.content.to_string()).collect())
            .collect();
        assert_eq!(
            rows,
            vec![
                "Conflicts: files other teammates' plans also change".to_string(),
                "  src/cli.rs · bob's plan bob-plan".to_string(),
            ]
        );
        assert!(super::conflict_rows(&json!({})).is_empty());
    }
}
