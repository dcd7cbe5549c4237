//! `catui sessions`: this project's sessions, newest first, as a table
//! (id, when, messages, mode, plan slug, first prompt).

use std::io::Write;

use catui_core::session::{SessionSummary, list_sessions};

use super::format::{one_line, pad, when};
use super::{CommandError, Project};

/// How much of the first prompt a row shows.
const PROMPT_CHARS: usize = 60;

pub fn run(project: &Project, out: &mut impl Write) -> Result<(), CommandError> {
    let sessions = list_sessions(&project.sessions_dir());
    if sessions.is_empty() {
        writeln!(
            out,
            "No sessions yet in {}. Start one with `catui`; resume it later with `catui --continue`.",
            project.cwd.display()
        )?;
        return Ok(());
    }
    write_table(&sessions, out)?;
    writeln!(
        out,
        "\n{} session(s). Resume one with `catui --resume ID` (an unambiguous prefix is enough).",
        sessions.len()
    )?;
    Ok(())
}

fn write_table(sessions: &[SessionSummary], out: &mut impl Write) -> std::io::Result<()> {
    let rows: Vec<[String; 6]> = sessions
        .iter()
        .map(|s| {
            [
                s.session_id.clone(),
                when(s.modified, s.last_activity.as_deref()),
                s.message_count.to_string(),
                s.permission_mode
                    .map(|m| m.to_string())
                    .unwrap_or_else(|| "-".into()),
                // Every session has a slug; only one that planned has a plan.
                s.plan_slug
                    .clone()
                    .filter(|_| s.planned)
                    .unwrap_or_else(|| "-".into()),
                s.first_prompt
                    .as_deref()
                    .map(|p| one_line(p, PROMPT_CHARS))
                    .unwrap_or_else(|| "(no prompt)".into()),
            ]
        })
        .collect();
    let header = ["ID", "WHEN", "MSGS", "MODE", "PLAN", "FIRST PROMPT"];
    let mut widths = header.map(|h| h.chars().count());
    for row in &rows {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let line = |cells: [&str; 6]| -> String {
        let mut s = String::new();
        for (i, cell) in cells.iter().enumerate() {
            if i + 1 == cells.len() {
                s.push_str(cell);
            } else {
                s.push_str(&pad(cell, widths[i]));
                s.push_str("  ");
            }
        }
        s
    };
    writeln!(out, "{}", line(header))?;
    for row in &rows {
        writeln!(out, "{}", line(row.each_ref().map(String::as_str)))?;
    }
    Ok(())
}
