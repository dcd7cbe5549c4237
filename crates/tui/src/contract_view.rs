//! How the plan-as-contract entries look in the transcript: a run of the
//! approved plan's verification commands (one line; each command and its
//! output's last lines with Ctrl+O) and the end report of the work on an
//! approved plan.

use catui_protocol::contract::{PlanReport, PlanVerification};
use catui_protocol::terminal::sanitize;
use ratatui::style::Style;
use ratatui::text::{Line, Span};

use crate::theme;
use crate::wrap::{plain_rows, with_gutter};

fn dim() -> Style {
    Style::default().fg(theme::current().dim)
}

/// The one line of a verification run, and its details when `expanded`.
pub fn verification_lines(
    run: &PlanVerification,
    width: usize,
    expanded: bool,
) -> Vec<Line<'static>> {
    let t = theme::current();
    let failed = run.commands.iter().filter(|c| c.exit_code != 0).count();
    let (mark, style, summary) = if run.passed {
        (
            "✓ ",
            Style::default().fg(t.ok),
            format!(
                "Verification of plan {} passed: {} command(s)",
                run.slug,
                run.commands.len()
            ),
        )
    } else {
        (
            "✗ ",
            Style::default().fg(t.error),
            format!(
                "Verification of plan {} failed: {failed} of {} command(s)",
                run.slug,
                run.commands.len()
            ),
        )
    };
    let mut rows = plain_rows(&summary, width, style);
    if expanded {
        for c in &run.commands {
            // The plan's command and its output came from outside.
            rows.extend(plain_rows(
                &sanitize(&format!("$ {}  (exit {})", c.command, c.exit_code)),
                width,
                Style::default(),
            ));
            if !c.output_tail.trim().is_empty() {
                rows.extend(plain_rows(
                    sanitize(&c.output_tail).trim_end(),
                    width,
                    dim(),
                ));
            }
        }
    } else {
        rows.extend(plain_rows(
            "ctrl+o for the commands and their output",
            width,
            dim(),
        ));
    }
    with_gutter(rows, Span::styled(mark, style))
}

/// The end report: its summary line, and its lists when `expanded`.
pub fn report_lines(report: &PlanReport, width: usize, expanded: bool) -> Vec<Line<'static>> {
    let t = theme::current();
    let style = if report.goal_met {
        Style::default().fg(t.ok)
    } else {
        Style::default().fg(t.warn)
    };
    let mut rows = plain_rows(&report.summary(), width, style);
    if expanded {
        let list = |title: &str, items: &[String]| {
            if items.is_empty() {
                format!("{title}: none")
            } else {
                format!("{title}: {}", items.join("; "))
            }
        };
        for line in [
            list("Done", &report.steps_done),
            list("Not done", &report.steps_undone),
            list("Skipped", &report.steps_skipped),
            list("Changed, not in the plan", &report.unplanned_files),
        ] {
            rows.extend(plain_rows(&line, width, dim()));
        }
    }
    with_gutter(rows, Span::styled("◆ ", style))
}
