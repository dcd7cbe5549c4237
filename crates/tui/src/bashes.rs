//! The `/bashes` panel: the session's background commands (Bash
//! `run_in_background`, or a running command sent there with Ctrl+B), each
//! with its status, how long it has run and its command; the output of one
//! (scrollable, the tail by default); and stopping a running one — all by
//! keyboard, Esc to go back or close. The runtime refreshes the panel from
//! the session's [`BackgroundShells`] while it is open and carries out a
//! kill; this module holds the panel's state, turns keys into an outcome
//! and draws itself.

use std::time::Duration;

use catui_core::tools::bash::{BackgroundShells, ShellStatus};
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, BorderType, Borders, Padding, Paragraph, Widget};

use crate::theme;
use crate::wrap::truncate;

/// Commands listed at once; the list scrolls with the selection.
const VISIBLE_ROWS: usize = 10;
/// Output lines shown at once in the output view (fewer on a small screen).
const OUTPUT_ROWS: usize = 16;
/// Bytes of a command's output the view reads (its end).
const OUTPUT_BYTES: u64 = 256 * 1024;

/// One background command as listed.
#[derive(Debug, Clone, PartialEq)]
pub struct BashRow {
    pub id: String,
    pub command: String,
    pub status: ShellStatus,
    pub elapsed: Duration,
}

/// The output of the command being looked at.
#[derive(Debug, Clone, Default)]
struct OutputView {
    id: String,
    lines: Vec<String>,
    /// Output bytes when `lines` was read (re-read only when it grows).
    bytes: Option<u64>,
    /// Lines scrolled up from the tail (0: the tail).
    scroll: usize,
}

/// The panel's state.
#[derive(Debug, Clone, Default)]
pub struct BashesPanel {
    rows: Vec<BashRow>,
    selected: usize,
    viewing: Option<OutputView>,
    /// Screen rows the output view had when last drawn (a page).
    output_rows: std::cell::Cell<usize>,
}

/// What a key asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BashesOutcome {
    Pending,
    Close,
    /// Stop this background command.
    Kill(String),
}

impl BashesPanel {
    pub fn new() -> Self {
        Self {
            output_rows: std::cell::Cell::new(OUTPUT_ROWS),
            ..Self::default()
        }
    }

    /// Reads the session's list again (and the viewed command's output
    /// when it grew); true when something shown changed.
    pub fn refresh(&mut self, shells: &BackgroundShells) -> bool {
        let list = shells.list();
        let rows: Vec<BashRow> = list
            .iter()
            .map(|s| BashRow {
                id: s.id.clone(),
                command: s.command.clone(),
                status: s.status(),
                // Whole seconds: the panel redraws once a second, not each frame.
                elapsed: Duration::from_secs(s.elapsed().as_secs()),
            })
            .collect();
        let mut changed = rows != self.rows;
        self.rows = rows;
        self.selected = self.selected.min(self.rows.len().saturating_sub(1));
        if let Some(view) = self.viewing.as_mut()
            && let Some(shell) = list.iter().find(|s| s.id == view.id)
        {
            let bytes = shell.bytes_written();
            if view.bytes != Some(bytes) {
                view.bytes = Some(bytes);
                view.lines = shell
                    .output_tail(OUTPUT_BYTES)
                    .trim_end_matches(['\n', '\r'])
                    .lines()
                    .map(|l| l.replace('\t', "    "))
                    .collect();
                changed = true;
            }
        }
        changed
    }

    /// The id of the command whose output is shown.
    pub fn viewing(&self) -> Option<&str> {
        self.viewing.as_ref().map(|v| v.id.as_str())
    }

    fn selected_row(&self) -> Option<&BashRow> {
        self.rows.get(self.selected)
    }

    pub fn handle_key(&mut self, key: KeyEvent) -> BashesOutcome {
        if key.modifiers.contains(KeyModifiers::CONTROL) {
            return BashesOutcome::Pending;
        }
        let page = self.output_rows.get().max(1);
        if let Some(view) = self.viewing.as_mut() {
            let top = view.lines.len().saturating_sub(page);
            match key.code {
                KeyCode::Esc | KeyCode::Left => self.viewing = None,
                KeyCode::Up => view.scroll = (view.scroll + 1).min(top),
                KeyCode::Down => view.scroll = view.scroll.saturating_sub(1),
                KeyCode::PageUp => view.scroll = (view.scroll + page).min(top),
                KeyCode::PageDown => view.scroll = view.scroll.saturating_sub(page),
                KeyCode::Home => view.scroll = top,
                KeyCode::End => view.scroll = 0,
                KeyCode::Char('k') => return BashesOutcome::Kill(view.id.clone()),
                _ => {}
            }
            return BashesOutcome::Pending;
        }
        match key.code {
            KeyCode::Esc => return BashesOutcome::Close,
            KeyCode::Up => self.selected = self.selected.saturating_sub(1),
            KeyCode::Down => {
                self.selected = (self.selected + 1).min(self.rows.len().saturating_sub(1))
            }
            KeyCode::Enter | KeyCode::Right => {
                if let Some(row) = self.selected_row() {
                    self.viewing = Some(OutputView {
                        id: row.id.clone(),
                        ..OutputView::default()
                    });
                }
            }
            KeyCode::Char('k') => {
                if let Some(row) = self.selected_row() {
                    return BashesOutcome::Kill(row.id.clone());
                }
            }
            _ => {}
        }
        BashesOutcome::Pending
    }

    /// Rows the panel would like at this screen height.
    pub fn desired_height(&self, screen_h: u16) -> u16 {
        let inner = match &self.viewing {
            Some(v) => v.lines.len().clamp(1, OUTPUT_ROWS) + 2,
            None => self.rows.len().clamp(1, VISIBLE_ROWS) + 1,
        };
        (inner as u16 + 2).min(screen_h.saturating_sub(1))
    }

    /// Draws the panel (the output view notes how many rows it had, for
    /// paging).
    pub fn render(&self, area: Rect, buf: &mut Buffer) {
        let t = theme::current();
        let width = area.width.saturating_sub(4) as usize;
        let inner_h = area.height.saturating_sub(2) as usize;
        let dim = Style::default().fg(t.dim);
        let (title, lines) = match &self.viewing {
            Some(view) => {
                let rows = inner_h.saturating_sub(2).max(1);
                self.output_rows.set(rows);
                let row = self.rows.iter().find(|r| r.id == view.id);
                let title = match row {
                    Some(r) => format!(
                        " {} · {} · {} ",
                        r.id,
                        r.status.describe(),
                        duration(r.elapsed)
                    ),
                    None => format!(" {} ", view.id),
                };
                let mut lines = Vec::new();
                if let Some(r) = row {
                    lines.push(Line::styled(
                        truncate(&format!("$ {}", r.command), width),
                        dim,
                    ));
                }
                let end = view.lines.len().saturating_sub(view.scroll);
                let start = end.saturating_sub(rows);
                if view.lines.is_empty() {
                    lines.push(Line::styled("(no output yet)", dim));
                }
                for line in &view.lines[start..end] {
                    lines.push(Line::raw(truncate(line, width)));
                }
                let place = if view.scroll == 0 {
                    "tail".to_string()
                } else {
                    format!("{} lines up", view.scroll)
                };
                lines.push(Line::styled(
                    truncate(
                        &format!("{place} · ↑/↓ PgUp/PgDn Home/End scroll · k stop · Esc back"),
                        width,
                    ),
                    dim,
                ));
                (title, lines)
            }
            None => {
                let mut lines = Vec::new();
                if self.rows.is_empty() {
                    lines.push(Line::styled(
                        "No background commands (Bash run_in_background, or Ctrl+B while a \
                         command runs).",
                        dim,
                    ));
                }
                let window = crate::palette::window(self.rows.len(), self.selected, VISIBLE_ROWS);
                let id_w = self.rows.iter().map(|r| r.id.len()).max().unwrap_or(0);
                for (i, row) in self.rows.iter().enumerate().skip(window.start) {
                    if i >= window.end {
                        break;
                    }
                    let chosen = i == self.selected;
                    let status_style = match row.status {
                        ShellStatus::Running => Style::default().fg(t.accent),
                        ShellStatus::Exited(0) => Style::default().fg(t.ok),
                        _ => Style::default().fg(t.warn),
                    };
                    let head = format!("{} {:id_w$}  ", if chosen { "›" } else { " " }, row.id);
                    let status = format!("{:<14}", row.status.describe());
                    let time = format!("{:>7}  ", duration(row.elapsed));
                    let room = width.saturating_sub(head.len() + status.len() + time.len());
                    let style = if chosen {
                        Style::default().add_modifier(Modifier::BOLD)
                    } else {
                        Style::default()
                    };
                    lines.push(Line::from(vec![
                        Span::styled(head, style),
                        Span::styled(status, status_style),
                        Span::styled(time, dim),
                        Span::styled(truncate(&one_line(&row.command), room), style),
                    ]));
                }
                lines.push(Line::styled(
                    truncate("↑/↓ select · Enter output · k stop · Esc close", width),
                    dim,
                ));
                (" Background commands ".to_string(), lines)
            }
        };
        let block = Block::default()
            .borders(Borders::ALL)
            .border_type(BorderType::Rounded)
            .border_style(Style::default().fg(t.accent))
            .title(title)
            .padding(Padding::horizontal(1));
        Paragraph::new(lines).block(block).render(area, buf);
    }
}

/// Follows which background commands run, so that the transcript can say
/// when one ended: the line that started it ("Started in the background")
/// is already in the scrollback and stays as it was.
#[derive(Debug, Default)]
pub struct EndWatch {
    running: std::collections::HashSet<String>,
}

impl EndWatch {
    /// The commands that were seen running and have ended since the last
    /// look, as `(id, how it ended)`.
    pub fn ended(&mut self, shells: &BackgroundShells) -> Vec<(String, String)> {
        let mut ended = Vec::new();
        for shell in shells.list() {
            let status = shell.status();
            if status.is_running() {
                self.running.insert(shell.id.clone());
            } else if self.running.remove(&shell.id) {
                ended.push((shell.id.clone(), status.describe()));
            }
        }
        ended
    }
}

/// A command's first line, with `…` when it has more.
fn one_line(command: &str) -> String {
    let mut lines = command.lines();
    let first = lines.next().unwrap_or_default().to_string();
    if lines.next().is_some() {
        format!("{first} …")
    } else {
        first
    }
}

/// `42s`, `3m 05s`, `1h 02m`.
fn duration(d: Duration) -> String {
    let s = d.as_secs();
    match s {
        0..60 => format!("{s}s"),
        60..3600 => format!("{}m {:02}s", s / 60, s % 60),
        _ => format!("{}h {:02}m", s / 3600, s / 60 % 60),
    }
}

#[cfg(test)]
#[path = "bashes_tests.rs"]
mod bashes_tests;
