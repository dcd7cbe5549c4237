//! Drawing, as pure functions of the state. The screen is the terminal's
//! own scrollback (final transcript entries, printed once by the runtime)
//! above a small live area, which is, top to bottom: entries still
//! changing (a running tool, a prompt without a reply), the streaming
//! answer, the spinner or retry line, the todo list, the team panel, the
//! queued inputs, the palette or the key sheet, the input box or the open
//! dialog, and the status line. [`render`] draws the whole screen as the
//! user sees it (history tail plus live area), for tests and benchmarks;
//! the runtime draws [`render_live`] and [`render_pager`].

use catui_core::teams::TeammateStatus;
use ratatui::Frame;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph, Widget};

use crate::help;
use crate::keymap;
use crate::markdown::inline_spans;
use crate::markdown::markdown_lines;
use crate::palette;
use crate::state::AppState;
use crate::theme;
use crate::theme::mode_badge;
use crate::transcript::{EntryKind, tail_of};
use crate::wrap::with_gutter;
use crate::wrap::{str_width, truncate, wrap_line};

const MAX_INPUT_ROWS: usize = 8;
/// Teammates listed in the panel before "and N more".
const MAX_TEAM_ROWS: usize = 4;
/// Palette rows shown at once; the list scrolls with the selection.
pub const PALETTE_ROWS: usize = 5;
const SPINNER: [&str; 6] = ["·", "✢", "✳", "✶", "✻", "✽"];

fn dim() -> Style {
    Style::default().fg(theme::current().dim)
}

pub fn format_tokens(n: u64) -> String {
    if n >= 1_000_000 {
        format!("{:.1}M", n as f64 / 1_000_000.0)
    } else if n >= 1_000 {
        format!("{:.1}k", n as f64 / 1_000.0)
    } else {
        n.to_string()
    }
}

/// The status line: mode (or a passing hint) on the left; model, tokens
/// and working directory on the right, cut to fit.
pub fn render_status(state: &AppState, area: Rect, buf: &mut Buffer) {
    if let Some(line) = &state.custom_status {
        return crate::status_command::render_custom_status(state, line, area, buf);
    }
    let width = area.width as usize;
    let t = theme::current();
    // Nothing counted yet says nothing (not `0 tokens` while the spinner
    // already counts the first answer's).
    let mut counted = Vec::new();
    if state.usage.total() > 0 {
        counted.push(format!("{} tokens", format_tokens(state.usage.total())));
    }
    if state.cost_usd > 0.0 {
        counted.push(format!("${:.2}", state.cost_usd));
    }
    let tokens = counted.join(" · ");
    // The model, then what was counted (when anything was).
    let model_and_tokens = if tokens.is_empty() {
        state.info.model.clone()
    } else {
        format!("{} · {tokens}", state.info.model)
    };
    // What runs in the background, first of the facts (hidden when none).
    let mut background = match &state.work_step {
        Some(step) => format!("step {}/{} · ", step.step, step.total),
        None => String::new(),
    };
    if state.background_running > 0 {
        background.push_str(&format!("{} in background · ", state.background_running));
    }
    let facts_width = str_width(&model_and_tokens) + 3 + str_width(&background);
    let note = state
        .ctrl_c_note()
        .or_else(|| state.hint.as_ref().map(|(h, _)| h.clone()));
    let mut left: Vec<Span<'static>> = match &note {
        Some(n) => vec![Span::styled(n.clone(), Style::default().fg(t.warn))],
        None => {
            let (label, style) = mode_badge(state.mode);
            vec![Span::styled(label, style)]
        }
    };
    let left_w: usize = left.iter().map(|s| s.width()).sum();
    // The cycle hint is the first thing to go on a narrow screen.
    let hint = format!(
        " ({})",
        keymap::hint_of(keymap::MAIN, keymap::Main::CycleMode).to_lowercase()
    );
    let cwd_w = str_width(&state.info.cwd);
    if note.is_none() && left_w + hint.len() + facts_width + cwd_w.min(20) + 2 <= width {
        left.push(Span::styled(hint, dim()));
    }
    let left_w: usize = left.iter().map(|s| s.width()).sum();
    let room = width.saturating_sub(left_w + 2);
    let right = if room >= facts_width + 8 {
        let cwd = truncate_left(&state.info.cwd, room - facts_width);
        format!("{model_and_tokens} · {cwd}")
    } else if room >= facts_width.saturating_sub(3) {
        model_and_tokens
    } else if tokens.is_empty() {
        truncate(&state.info.model, room)
    } else {
        truncate(&tokens, room)
    };
    let background = if room >= facts_width.saturating_sub(3) {
        background
    } else {
        String::new()
    };
    let gap = width.saturating_sub(left_w + str_width(&background) + str_width(&right));
    let mut spans = left;
    spans.push(Span::raw(" ".repeat(gap)));
    spans.push(Span::styled(background, Style::default().fg(t.accent)));
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

fn seconds(d: std::time::Duration) -> String {
    let s = d.as_secs();
    if s >= 60 {
        format!("{}m {:02}s", s / 60, s % 60)
    } else {
        format!("{s}s")
    }
}

/// The spinner while a turn runs (what it does, elapsed time, tokens), or
/// the one updating line of a pending retry with its countdown.
fn spinner_line(state: &AppState, width: usize) -> Option<Line<'static>> {
    let t = theme::current();
    if let Some(retry) = &state.retry {
        let left = retry.at.saturating_duration_since(state.clock);
        let text = format!(
            "⟳ Retrying in {}s (attempt {}) · {}",
            left.as_secs_f64().ceil() as u64,
            retry.attempt,
            retry.reason
        );
        return Some(Line::styled(
            truncate(&text, width),
            Style::default().fg(t.warn),
        ));
    }
    if !state.busy() || state.dialog.is_some() {
        return None;
    }
    let frame = SPINNER[state.tick % SPINNER.len()];
    if !state.awaiting_tools.is_empty() {
        let head = format!(
            "{frame} Waiting for {} to start…",
            state.awaiting_tools.join(", ")
        );
        let tail = " (esc to go on without it)";
        let room = width.saturating_sub(str_width(&head));
        return Some(Line::from(vec![
            Span::styled(truncate(&head, width), Style::default().fg(t.warn)),
            Span::styled(truncate(tail, room), dim()),
        ]));
    }
    let what = match (&state.streaming_tool, state.thinking) {
        (Some(tool), _) => format!("Preparing {tool}…"),
        (None, true) => "Thinking…".to_string(),
        (None, false) => "Working…".to_string(),
    };
    let mut facts = Vec::new();
    if let Some(start) = state.turn_started {
        facts.push(seconds(state.clock.saturating_duration_since(start)));
    }
    if state.streamed_chars > 0 {
        let tokens = (state.streamed_chars as u64).div_ceil(4);
        facts.push(format!("↓ {} tokens", format_tokens(tokens)));
    }
    // The live lines speak in lower case (`esc to interrupt`).
    facts.push(keymap::hint_of(keymap::MAIN, keymap::Main::Escape).to_lowercase());
    let head = format!("{frame} {what}");
    let tail = format!(" ({})", facts.join(" · "));
    let room = width.saturating_sub(str_width(&head));
    Some(Line::from(vec![
        Span::styled(head, Style::default().fg(t.accent)),
        Span::styled(truncate(&tail, room), dim()),
    ]))
}

/// The todo list while any todo is open, between turns too (open steps
/// are what the user comes back to) unless Ctrl+T hid it, in at most a
/// quarter of the screen (3 to 8 rows): the steps from the one in progress on, one done step
/// before it for context, and a line counting the rest.
fn todo_rows(state: &AppState, width: usize) -> Vec<Line<'static>> {
    let todos = &state.todos;
    if state.todos_hidden || todos.iter().all(|t| t.status == "completed") {
        return Vec::new();
    }
    let max = usize::from(state.viewport.1 / 4).clamp(3, 8);
    let (start, shown) = if todos.len() <= max {
        (0, todos.len())
    } else {
        let current = todos
            .iter()
            .position(|t| t.status != "completed")
            .unwrap_or(0);
        let start = current.saturating_sub(1).min(todos.len() - (max - 1));
        (start, max - 1)
    };
    let mut rows: Vec<Line<'static>> = todos[start..start + shown]
        .iter()
        .map(|t| {
            let (mark, text, style) = match t.status.as_str() {
                "completed" => ("☒", &t.content, dim().add_modifier(Modifier::CROSSED_OUT)),
                "in_progress" => (
                    "◼",
                    if t.active_form.is_empty() {
                        &t.content
                    } else {
                        &t.active_form
                    },
                    Style::default().add_modifier(Modifier::BOLD),
                ),
                _ => ("☐", &t.content, Style::default()),
            };
            let room = width.saturating_sub(4);
            let mut spans = vec![Span::styled(format!("  {mark} "), style)];
            spans.extend(inline_spans(&truncate(text, room), style));
            Line::from(spans)
        })
        .collect();
    let hidden = todos.len() - shown;
    if hidden > 0 {
        let done = todos.iter().filter(|t| t.status == "completed").count();
        rows.push(Line::styled(
            format!("    … +{hidden} more ({done}/{} done)", todos.len()),
            dim(),
        ));
    }
    rows
}

/// One row per running teammate: who, what state, what it is doing.
fn team_rows(state: &AppState, width: usize) -> Vec<Line<'static>> {
    let t = theme::current();
    let shown = if state.teammates.len() > MAX_TEAM_ROWS {
        MAX_TEAM_ROWS - 1
    } else {
        MAX_TEAM_ROWS
    };
    let mut rows: Vec<Line<'static>> = state
        .teammates
        .iter()
        .take(shown)
        .map(|m| {
            let (mark, status_style) = match m.status {
                TeammateStatus::Working => ("◆", Style::default().fg(t.ok)),
                TeammateStatus::AwaitingApproval => ("◇", Style::default().fg(t.warn)),
                TeammateStatus::Idle | TeammateStatus::Stopped => ("◇", dim()),
                TeammateStatus::Failed => ("✗", Style::default().fg(t.warn)),
            };
            let head = format!("  {mark} {} ", m.agent_id);
            let status = m.status.to_string();
            let mut spans = vec![
                Span::styled(head.clone(), status_style.add_modifier(Modifier::BOLD)),
                Span::styled(status.clone(), status_style),
            ];
            if let Some(activity) = &m.activity {
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

/// Inputs waiting for the turn to end, oldest first.
fn queued_rows(state: &AppState, width: usize) -> Vec<Line<'static>> {
    if state.queued_inputs.is_empty() {
        return Vec::new();
    }
    let mut rows: Vec<Line<'static>> = state
        .queued_inputs
        .iter()
        .map(|q| {
            let first = q.lines().next().unwrap_or("");
            let more = if q.lines().count() > 1 { " …" } else { "" };
            Line::from(vec![
                Span::styled("  ⏵ queued  ", dim()),
                Span::raw(truncate(
                    &format!("{first}{more}"),
                    width.saturating_sub(12),
                )),
            ])
        })
        .collect();
    rows.push(Line::styled(
        "    sent when the turn ends · ↑ to edit the last one · esc puts them back",
        dim(),
    ));
    rows
}

/// The palette: a window of the matching commands that follows the
/// selection, with counts of the hidden ones.
fn palette_rows(state: &AppState, width: usize) -> Vec<Line<'static>> {
    let matches = state.palette();
    if matches.is_empty() {
        return Vec::new();
    }
    let t = theme::current();
    let selected = state.palette_selected.min(matches.len() - 1);
    let range = palette::window(matches.len(), selected, PALETTE_ROWS);
    let name_w = matches.iter().map(|(n, _)| n.len() + 1).max().unwrap_or(0) + 2;
    let mut rows = Vec::new();
    if range.start > 0 {
        rows.push(Line::styled(format!("  ↑ {} more", range.start), dim()));
    }
    for i in range.clone() {
        let (name, help) = &matches[i];
        let name_style = if i == selected {
            Style::default().fg(t.accent).add_modifier(Modifier::BOLD)
        } else {
            Style::default()
        };
        let text = format!("  {:<name_w$}", format!("/{name}"));
        let help = truncate(help, width.saturating_sub(str_width(&text) + 1));
        rows.push(Line::from(vec![
            Span::styled(text, name_style),
            Span::styled(help, dim()),
        ]));
    }
    if range.end < matches.len() {
        rows.push(Line::styled(
            format!("  ↓ {} more", matches.len() - range.end),
            dim(),
        ));
    }
    rows
}

/// The sheet's last row.
const HELP_FOOTER: &str = "  ↑/↓ PgUp/PgDn scroll · any other key closes this sheet";

/// The `?` sheet in `height` rows: a window from its top (scrolled by
/// `state.help_scroll`), the footer always shown.
fn help_window(state: &AppState, width: usize, height: usize) -> Vec<Line<'static>> {
    let sheet = help::rows(width);
    let visible = height.saturating_sub(1);
    let scroll = state.help_scroll.min(sheet.len().saturating_sub(visible));
    let mut rows: Vec<Line<'static>> = sheet.iter().skip(scroll).take(visible).cloned().collect();
    let footer = if sheet.len() > visible {
        format!(
            "{HELP_FOOTER} · {}-{} of {}",
            scroll + 1,
            (scroll + visible).min(sheet.len()),
            sheet.len()
        )
    } else {
        HELP_FOOTER.to_string()
    };
    rows.push(Line::styled(truncate(&footer, width), dim()));
    rows
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
        let placeholder = if state.busy() {
            "Type to queue a message for after this turn"
        } else {
            "Type a message · / for commands · ? for keys"
        };
        lines.push(Line::from(vec![
            Span::raw("> "),
            Span::styled(placeholder, dim()),
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

/// The rows above the input box or dialog: unsettled entries, the
/// streaming answer, and the panels.
fn upper_rows(state: &AppState, width: usize) -> Vec<Line<'static>> {
    let mut rows = Vec::new();
    let open_dialog = state.dialog.as_ref().map(|d| d.id().to_string());
    for e in state
        .transcript
        .entries()
        .get(state.settled()..)
        .unwrap_or_default()
    {
        // The open dialog shows its own call.
        if let (EntryKind::Tool(t), Some(id)) = (&e.kind, &open_dialog)
            && &t.id == id
        {
            continue;
        }
        rows.extend(e.rows(width).iter().cloned());
    }
    if !state.live_text.is_empty() {
        let inner = width.saturating_sub(2).max(1);
        rows.extend(with_gutter(
            markdown_lines(&state.live_text, inner),
            Span::styled("● ", Style::default().fg(theme::current().text)),
        ));
        rows.push(Line::default());
    }
    if let Some(s) = spinner_line(state, width) {
        rows.push(s);
    }
    if let Some((note, url)) = review_page(state) {
        // What happened, then room for the address: it is written on its
        // own line by the terminal itself (see [`review_address`]), so a
        // long one wraps as one line and copies whole.
        rows.extend(wrap_line(
            &Line::styled(note.to_string(), Style::default().fg(theme::current().warn)),
            width,
            0,
        ));
        rows.extend((0..url_rows(url, width)).map(|_| Line::default()));
    }
    if state.dialog.is_none() {
        rows.extend(todo_rows(state, width));
        rows.extend(team_rows(state, width));
        rows.extend(queued_rows(state, width));
        if state.help_open {
            rows.extend(help::rows(width));
            rows.push(Line::default());
        } else {
            rows.extend(palette_rows(state, width));
            rows.extend(state.files.rows(width));
        }
    }
    rows
}

/// The open plan dialog's review page: what happened and its address.
fn review_page(state: &AppState) -> Option<(&str, &str)> {
    match &state.dialog {
        Some(crate::dialogs::Dialog::Plan(d)) => d
            .review_url
            .as_ref()
            .map(|(note, url)| (note.as_str(), url.as_str())),
        _ => None,
    }
}

/// Rows of the review page's note and address at `width`.
fn review_rows(state: &AppState, width: usize) -> u16 {
    review_page(state).map_or(0, |(note, url)| {
        let note = wrap_line(&Line::raw(note.to_string()), width, 0).len();
        (note + url_rows(url, width)).min(u16::MAX as usize) as u16
    })
}

/// Rows the terminal takes for `url` at `width` when it wraps it.
fn url_rows(url: &str, width: usize) -> usize {
    str_width(url).div_ceil(width.max(1)).max(1)
}

/// Where the review page's address goes in the live area drawn in
/// `area`, and the address: the rows [`upper_rows`] left blank for it.
/// It is printed as one line by the terminal, never cut by a frame.
pub fn review_address(state: &AppState, area: Rect) -> Option<(u16, String)> {
    let (_, url) = review_page(state)?;
    let width = area.width;
    let bottom_h = bottom_height(state, width, area.height).min(area.height.saturating_sub(1));
    let upper_h = area.height.saturating_sub(bottom_h + 1) as usize;
    let upper = upper_rows(state, width as usize).len().min(upper_h);
    let rows = url_rows(url, width as usize);
    let first = upper.checked_sub(rows)?;
    Some((area.y + first as u16, url.to_string()))
}

/// Height of the input box, the dialog or the rewind picker.
fn bottom_height(state: &AppState, width: u16, screen_h: u16) -> u16 {
    if state.dialog.is_none()
        && state.rewind.is_none()
        && let Some(panel) = &state.plans
    {
        return panel.desired_height(screen_h);
    }
    if state.dialog.is_none()
        && state.rewind.is_none()
        && let Some(panel) = &state.bashes
    {
        return panel.desired_height(screen_h);
    }
    if state.dialog.is_none()
        && let Some(picker) = &state.rewind
    {
        return picker.desired_height(width).min(screen_h.saturating_sub(1));
    }
    match &state.dialog {
        // The review page's note and address keep their rows above it.
        Some(d) => d
            .desired_height(width, screen_h)
            .min(screen_h.saturating_sub(1 + review_rows(state, width as usize))),
        None => {
            let (rows, _) = state.input.layout((width as usize).saturating_sub(2));
            rows.len().clamp(1, MAX_INPUT_ROWS) as u16 + 2
        }
    }
}

/// Rows the live area needs at this screen size (at most the screen).
pub fn live_height(state: &AppState, width: u16, screen_h: u16) -> u16 {
    let upper = upper_rows(state, width as usize).len();
    let bottom = bottom_height(state, width, screen_h) as usize + 1;
    (upper + bottom).min(screen_h as usize) as u16
}

/// Draws the live area into `area`; returns the cursor cell.
pub fn render_live(state: &AppState, area: Rect, buf: &mut Buffer) -> Option<(u16, u16)> {
    let width = area.width;
    let bottom_h = bottom_height(state, width, area.height).min(area.height.saturating_sub(1));
    let upper_h = area.height.saturating_sub(bottom_h + 1) as usize;
    let mut upper = upper_rows(state, width as usize);
    if state.help_open && state.dialog.is_none() && upper.len() > upper_h {
        // The sheet is read from its top: it takes the room, scrolled.
        upper = help_window(state, width as usize, upper_h);
    } else if state.help_open && state.dialog.is_none() {
        upper.pop();
        upper.push(Line::styled(truncate(HELP_FOOTER, width as usize), dim()));
    }
    if upper.len() > upper_h {
        upper.drain(..upper.len() - upper_h);
    }
    let upper_a = Rect {
        height: upper.len() as u16,
        ..area
    };
    Paragraph::new(upper).render(upper_a, buf);
    if let Some((y, url)) = review_address(state, area) {
        // The same characters the terminal gets as one line (see
        // `inline.rs`), so a frame drawn anywhere shows the address too.
        let width = area.width.max(1) as usize;
        let chars: Vec<char> = url.chars().collect();
        for (i, row) in chars.chunks(width).enumerate() {
            let text: String = row.iter().collect();
            buf.set_string(area.x, y + i as u16, text, Style::default());
        }
    }
    let bottom_a = Rect {
        y: upper_a.y + upper_a.height,
        height: bottom_h,
        ..area
    };
    let status_a = Rect {
        y: bottom_a.y + bottom_h,
        height: 1,
        ..area
    };
    let cursor = match (&state.dialog, &state.rewind) {
        (Some(d), _) => {
            d.render(bottom_a, buf);
            d.cursor(bottom_a)
        }
        (None, Some(picker)) => {
            picker.render(bottom_a, buf);
            None
        }
        (None, None) => match (&state.plans, &state.bashes) {
            (Some(panel), _) => {
                panel.render(bottom_a, buf);
                None
            }
            (None, Some(panel)) => {
                panel.render(bottom_a, buf);
                None
            }
            (None, None) => render_input(state, bottom_a, buf),
        },
    };
    if status_a.y < area.y + area.height {
        render_status(state, status_a, buf);
    }
    cursor
}

/// The full transcript view (Ctrl+O): every entry with output unfolded,
/// scrolled from the bottom, with a title row.
pub fn render_pager(state: &AppState, area: Rect, buf: &mut Buffer) {
    let width = area.width as usize;
    let height = area.height.saturating_sub(1) as usize;
    let total = state.transcript.total_rows(width, true);
    let max_scroll = total.saturating_sub(height);
    let scroll = state.pager.map_or(0, |p| p.scroll).min(max_scroll);
    let start = max_scroll - scroll;
    let rows = state.transcript.window_at(width, true, start, height);
    Paragraph::new(rows).render(
        Rect {
            height: height as u16,
            ..area
        },
        buf,
    );
    let t = theme::current();
    let pos = if max_scroll == 0 {
        "all".to_string()
    } else {
        format!("{}%", (start + height).min(total) * 100 / total.max(1))
    };
    let title = format!(
        " Transcript · all output expanded · {pos} · PgUp/PgDn ↑/↓ Home/End scroll · Esc back "
    );
    buf.set_string(
        area.x,
        area.y + area.height.saturating_sub(1),
        truncate(&title, width),
        Style::default()
            .fg(t.accent)
            .add_modifier(Modifier::REVERSED),
    );
}

/// Renders the whole screen from `state`: the transcript's final entries
/// as the scrollback shows them, then the live area at the bottom (or the
/// transcript view when it is open).
pub fn render(frame: &mut Frame<'_>, state: &AppState) {
    let area = frame.area();
    let buf = frame.buffer_mut();
    if state.pager.is_some() {
        render_pager(state, area, buf);
        return;
    }
    let live_h = live_height(state, area.width, area.height);
    let history_h = area.height - live_h;
    let entries = state.transcript.entries();
    let settled = state.settled().min(entries.len());
    let history = tail_of(&entries[..settled], area.width as usize, history_h as usize);
    let history_a = Rect {
        height: history.len() as u16,
        ..area
    };
    Paragraph::new(history).render(history_a, buf);
    let live_a = Rect {
        y: area.y + history_a.height,
        height: live_h,
        ..area
    };
    if let Some((x, y)) = render_live(state, live_a, buf) {
        frame.set_cursor_position((x, y));
    }
}
