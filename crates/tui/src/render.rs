//! Drawing: `render(frame, &AppState)` is a pure function of the state.
//! The screen is, top to bottom: the transcript (only the visible window is
//! copied out of the per-entry row caches), the spinner, the todo list, the
//! team panel, the slash palette, the input box or the open dialog, and the
//! status line.

use catui_core::teams::TeammateStatus;
use catui_protocol::PermissionMode;
use ratatui::Frame;
use ratatui::buffer::Buffer;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph, Widget};

use crate::markdown::markdown_lines;
use crate::state::AppState;
use crate::transcript::with_gutter;
use crate::wrap::{str_width, truncate};

const MAX_INPUT_ROWS: usize = 8;
/// Teammates listed in the panel before "and N more".
const MAX_TEAM_ROWS: usize = 4;
const SPINNER: [&str; 6] = ["·", "✢", "✳", "✶", "✻", "✽"];

fn dim() -> Style {
    Style::default().fg(Color::DarkGray)
}

/// Label and colour of a permission mode in the status line.
pub fn mode_badge(mode: PermissionMode) -> (&'static str, Style) {
    match mode {
        PermissionMode::Plan => ("⏸ plan mode on", Style::default().fg(Color::Cyan)),
        PermissionMode::AcceptEdits => ("⏵⏵ accept edits on", Style::default().fg(Color::Magenta)),
        PermissionMode::BypassPermissions => {
            ("⏵⏵ bypass permissions on", Style::default().fg(Color::Red))
        }
        PermissionMode::Auto => ("⏵⏵ auto mode on", Style::default().fg(Color::Yellow)),
        PermissionMode::Default => ("default mode", dim()),
    }
}

fn format_tokens(n: u64) -> String {
    if n >= 1_000_000 {
        format!("{:.1}M", n as f64 / 1_000_000.0)
    } else if n >= 1_000 {
        format!("{:.1}k", n as f64 / 1_000.0)
    } else {
        n.to_string()
    }
}

/// The status line: mode (or the Ctrl+C hint) on the left; model, tokens
/// and working directory on the right, cut to fit.
pub fn render_status(state: &AppState, area: Rect, buf: &mut Buffer) {
    let width = area.width as usize;
    let mut tokens = format!("{} tokens", format_tokens(state.usage.total()));
    if state.cost_usd > 0.0 {
        tokens.push_str(&format!(" · ${:.2}", state.cost_usd));
    }
    let facts_width = str_width(&state.info.model) + str_width(&tokens) + 6;
    let mut left: Vec<Span<'static>> = if state.ctrl_c_at.is_some() {
        vec![Span::styled(
            "Press Ctrl+C again to exit",
            Style::default().fg(Color::Yellow),
        )]
    } else {
        let (label, style) = mode_badge(state.mode);
        vec![Span::styled(label, style)]
    };
    let left_w: usize = left.iter().map(|s| s.width()).sum();
    // The cycle hint is the first thing to go on a narrow screen.
    let hint = " (shift+tab to cycle)";
    let cwd_w = str_width(&state.info.cwd);
    if state.ctrl_c_at.is_none() && left_w + hint.len() + facts_width + cwd_w.min(20) + 2 <= width {
        left.push(Span::styled(hint, dim()));
    }
    let left_w: usize = left.iter().map(|s| s.width()).sum();
    let room = width.saturating_sub(left_w + 2);
    let right = if room >= facts_width + 8 {
        let cwd = truncate_left(&state.info.cwd, room - facts_width);
        format!("{} · {tokens} · {cwd}", state.info.model)
    } else if room >= facts_width - 3 {
        format!("{} · {tokens}", state.info.model)
    } else {
        truncate(&tokens, room)
    };
    let gap = width.saturating_sub(left_w + str_width(&right));
    let mut spans = left;
    spans.push(Span::raw(" ".repeat(gap)));
    spans.push(Span::styled(right, dim()));
    Paragraph::new(Line::from(spans)).render(area, buf);
}

/// Keeps the end of `s` (the interesting part of a path) within `width`.
fn truncate_left(s: &str, width: usize) -> String {
    if str_width(s) <= width {
        return s.to_string();
    }
    let reversed: String = s.chars().rev().collect();
    let cut = truncate(&reversed, width);
    let body: String = cut.trim_end_matches('…').chars().rev().collect();
    format!("…{body}")
}

fn live_rows(state: &AppState, width: usize) -> Vec<Line<'static>> {
    if state.live_text.is_empty() {
        return Vec::new();
    }
    let inner = width.saturating_sub(2).max(1);
    let mut rows = with_gutter(
        markdown_lines(&state.live_text, inner),
        Span::styled("● ", Style::default().fg(Color::White)),
    );
    rows.push(Line::default());
    rows
}

fn render_transcript(state: &AppState, area: Rect, buf: &mut Buffer) {
    let width = area.width as usize;
    let height = area.height as usize;
    let live = live_rows(state, width);
    let history = state.transcript.height(width);
    let total = history + live.len();
    let scroll = state.scroll.min(total.saturating_sub(height));
    let end = total - scroll;
    let start = end.saturating_sub(height);
    let mut rows = Vec::with_capacity(height);
    if start < history {
        rows.extend(
            state
                .transcript
                .window(width, start, end.min(history) - start),
        );
    }
    if end > history {
        let from = start.saturating_sub(history);
        rows.extend(live[from..end - history].iter().cloned());
    }
    Paragraph::new(rows).render(area, buf);
    if scroll > 0 {
        let note = format!(" ↓ {scroll} more rows (PgDn) ");
        let x = area.x + area.width.saturating_sub(str_width(&note) as u16);
        buf.set_string(
            x,
            area.y + area.height.saturating_sub(1),
            note,
            Style::default().fg(Color::Black).bg(Color::Yellow),
        );
    }
}

fn spinner_line(state: &AppState) -> Option<Line<'static>> {
    if !state.busy() || state.dialog.is_some() {
        return None;
    }
    let frame = SPINNER[state.tick % SPINNER.len()];
    let what = match (&state.streaming_tool, state.thinking) {
        (Some(tool), _) => format!("Preparing {tool}…"),
        (None, true) => "Thinking…".to_string(),
        (None, false) => "Working…".to_string(),
    };
    Some(Line::from(vec![
        Span::styled(
            format!("{frame} {what}"),
            Style::default().fg(Color::LightRed),
        ),
        Span::styled(" (esc to interrupt)", dim()),
    ]))
}

fn todo_rows(state: &AppState) -> Vec<Line<'static>> {
    if state.todos.iter().all(|t| t.status == "completed") {
        return Vec::new();
    }
    state
        .todos
        .iter()
        .map(|t| match t.status.as_str() {
            "completed" => Line::styled(
                format!("  ☒ {}", t.content),
                dim().add_modifier(Modifier::CROSSED_OUT),
            ),
            "in_progress" => Line::styled(
                format!(
                    "  ◼ {}",
                    if t.active_form.is_empty() {
                        &t.content
                    } else {
                        &t.active_form
                    }
                ),
                Style::default().add_modifier(Modifier::BOLD),
            ),
            _ => Line::raw(format!("  ☐ {}", t.content)),
        })
        .collect()
}

/// One row per running teammate: who, what state, what it is doing.
fn team_rows(state: &AppState, width: usize) -> Vec<Line<'static>> {
    let shown = if state.teammates.len() > MAX_TEAM_ROWS {
        MAX_TEAM_ROWS - 1
    } else {
        MAX_TEAM_ROWS
    };
    let mut rows: Vec<Line<'static>> = state
        .teammates
        .iter()
        .take(shown)
        .map(|t| {
            let (mark, status_style) = match t.status {
                TeammateStatus::Working => ("◆", Style::default().fg(Color::Green)),
                TeammateStatus::AwaitingApproval => ("◇", Style::default().fg(Color::Yellow)),
                TeammateStatus::Idle | TeammateStatus::Stopped => ("◇", dim()),
            };
            let head = format!("  {mark} {} ", t.agent_id);
            let status = t.status.to_string();
            let mut spans = vec![
                Span::styled(head.clone(), status_style.add_modifier(Modifier::BOLD)),
                Span::styled(status.clone(), status_style),
            ];
            if let Some(activity) = &t.activity {
                let room = width.saturating_sub(str_width(&head) + str_width(&status) + 3);
                spans.push(Span::styled(
                    format!(" · {}", truncate(activity, room)),
                    dim(),
                ));
            }
            Line::from(spans)
        })
        .collect();
    if shown < state.teammates.len() {
        rows.push(Line::styled(
            format!(
                "  … and {} more teammates (/team)",
                state.teammates.len() - shown
            ),
            dim(),
        ));
    }
    rows
}

fn palette_rows(state: &AppState, width: usize) -> Vec<Line<'static>> {
    let matches = state.palette();
    let selected = state.palette_selected.min(matches.len().saturating_sub(1));
    matches
        .iter()
        .enumerate()
        .take(10)
        .map(|(i, (name, help))| {
            let name_style = if i == selected {
                Style::default()
                    .fg(Color::Cyan)
                    .add_modifier(Modifier::BOLD)
            } else {
                Style::default()
            };
            let text = format!("  /{name:<12}");
            let help = truncate(help, width.saturating_sub(str_width(&text) + 1));
            Line::from(vec![
                Span::styled(text, name_style),
                Span::styled(help, dim()),
            ])
        })
        .collect()
}

/// Draws the input box; returns the cursor cell.
fn render_input(state: &AppState, area: Rect, buf: &mut Buffer) -> Option<(u16, u16)> {
    let block = Block::default()
        .borders(Borders::TOP | Borders::BOTTOM)
        .border_style(dim());
    let inner = block.inner(area);
    block.render(area, buf);
    let text_width = inner.width.saturating_sub(2) as usize;
    let (rows, (crow, ccol)) = state.input.layout(text_width);
    let visible = inner.height as usize;
    let first = (crow + 1).saturating_sub(visible);
    let mut lines: Vec<Line<'static>> = Vec::new();
    if state.input.is_empty() {
        lines.push(Line::from(vec![
            Span::raw("> "),
            Span::styled(
                "Type a message · / for commands · Ctrl+G opens your editor",
                dim(),
            ),
        ]));
    } else {
        for (i, row) in rows.iter().enumerate().skip(first).take(visible) {
            let prompt = if i == 0 { "> " } else { "  " };
            lines.push(Line::from(vec![
                Span::styled(prompt, dim()),
                Span::raw(row.clone()),
            ]));
        }
    }
    Paragraph::new(lines).render(inner, buf);
    let y = inner.y + (crow - first) as u16;
    let x = inner.x + 2 + ccol as u16;
    (y < inner.y + inner.height && x < inner.x + inner.width).then_some((x, y))
}

/// Renders the whole screen from `state`.
pub fn render(frame: &mut Frame<'_>, state: &AppState) {
    let area = frame.area();
    let buf = frame.buffer_mut();
    let width = area.width as usize;
    let spinner = spinner_line(state);
    let todos = if state.dialog.is_some() {
        Vec::new()
    } else {
        todo_rows(state)
    };
    let palette = palette_rows(state, width);
    // Like the todo list, the team panel gives way to an open dialog.
    let team = if state.dialog.is_some() {
        Vec::new()
    } else {
        team_rows(state, width)
    };

    let bottom_h: u16 = match &state.dialog {
        Some(d) => d
            .desired_height(area.width, area.height)
            .min(area.height.saturating_sub(4)),
        None => {
            let (rows, _) = state.input.layout(width.saturating_sub(2));
            rows.len().clamp(1, MAX_INPUT_ROWS) as u16 + 2
        }
    };
    let [
        transcript_a,
        spinner_a,
        todos_a,
        team_a,
        palette_a,
        bottom_a,
        status_a,
    ] = Layout::vertical([
        Constraint::Min(1),
        Constraint::Length(spinner.is_some() as u16),
        Constraint::Length(todos.len().min(8) as u16),
        Constraint::Length(team.len() as u16),
        Constraint::Length(palette.len() as u16),
        Constraint::Length(bottom_h),
        Constraint::Length(1),
    ])
    .areas(area);

    render_transcript(state, transcript_a, buf);
    if let Some(s) = spinner {
        Paragraph::new(s).render(spinner_a, buf);
    }
    Paragraph::new(todos).render(todos_a, buf);
    Paragraph::new(team).render(team_a, buf);
    Paragraph::new(palette).render(palette_a, buf);
    let cursor = match &state.dialog {
        Some(d) => {
            d.render(bottom_a, buf);
            d.cursor(bottom_a)
        }
        None => render_input(state, bottom_a, buf),
    };
    render_status(state, status_a, buf);
    if let Some((x, y)) = cursor {
        frame.set_cursor_position((x, y));
    }
}
