//! The `/plans` picker: the project's plan library (what `catui plans list
//! --json` gives: slug, state, steps, title, age), by keyboard only. ↑/↓
//! choose a plan; Enter reads it (↑/↓ PgUp/PgDn scroll, Esc back); `u`
//! continues it in this session (`/plan use SLUG`), `b` reviews it in the
//! browser, `e` exports it into the project, `a` marks it abandoned; Esc
//! closes. The runtime reads the library and carries the choices out; this
//! module holds the picker's state, turns keys into an outcome and draws
//! itself.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, BorderType, Borders, Padding, Paragraph, Widget};
use serde_json::Value;

use crate::theme;
use crate::wrap::truncate;

/// Plans listed at once; the list scrolls with the selection.
const VISIBLE_ROWS: usize = 10;
/// Lines of a plan shown at once when reading it.
const TEXT_ROWS: usize = 16;

/// One plan as listed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlanRow {
    pub slug: String,
    pub path: String,
    /// `draft`, `parked`, `approved`, `in_progress`, `done`, `abandoned`.
    pub state: String,
    pub title: String,
    /// `(done, total)`.
    pub steps: Option<(u64, u64)>,
    pub age_seconds: u64,
}

impl PlanRow {
    /// A row of `catui plans list --json`; `None` when it is not one.
    pub fn from_json(v: &Value) -> Option<Self> {
        Some(PlanRow {
            slug: v["slug"].as_str()?.to_string(),
            path: v["path"].as_str()?.to_string(),
            state: v["state"].as_str().unwrap_or("draft").to_string(),
            title: v["title"].as_str().unwrap_or_default().to_string(),
            steps: v["steps"]["done"]
                .as_u64()
                .zip(v["steps"]["total"].as_u64()),
            age_seconds: v["age_seconds"].as_u64().unwrap_or(0),
        })
    }
}

/// What a key asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PlansOutcome {
    Pending,
    Close,
    /// Continue this plan in this session (`/plan use SLUG`).
    Use(String),
    /// Review the plan file at this path in the browser.
    Review(String),
    /// Export this plan into the project.
    Export(String),
    /// Mark this plan abandoned.
    Abandon(String),
}

/// The plan being read.
#[derive(Debug, Clone, Default)]
struct Reading {
    lines: Vec<String>,
    scroll: usize,
}

/// The picker's state.
#[derive(Debug, Clone, Default)]
pub struct PlansPanel {
    rows: Vec<PlanRow>,
    selected: usize,
    reading: Option<Reading>,
}

impl PlansPanel {
    pub fn new(rows: Vec<PlanRow>) -> Self {
        Self {
            rows,
            ..Self::default()
        }
    }

    /// The library read again (after abandoning one), the same plan kept
    /// selected when it is still there.
    pub fn set_rows(&mut self, rows: Vec<PlanRow>) {
        let slug = self.selected_row().map(|r| r.slug.clone());
        self.rows = rows;
        self.selected = slug
            .and_then(|s| self.rows.iter().position(|r| r.slug == s))
            .unwrap_or(0);
    }

    fn selected_row(&self) -> Option<&PlanRow> {
        self.rows.get(self.selected)
    }

    pub fn handle_key(&mut self, key: KeyEvent) -> PlansOutcome {
        if key.modifiers.contains(KeyModifiers::CONTROL) {
            return PlansOutcome::Pending;
        }
        if let Some(reading) = self.reading.as_mut() {
            let top = reading.lines.len().saturating_sub(TEXT_ROWS);
            match key.code {
                KeyCode::Esc | KeyCode::Left => {
                    self.reading = None;
                    return PlansOutcome::Pending;
                }
                KeyCode::Up => reading.scroll = reading.scroll.saturating_sub(1),
                KeyCode::Down => reading.scroll = (reading.scroll + 1).min(top),
                KeyCode::PageUp => reading.scroll = reading.scroll.saturating_sub(TEXT_ROWS),
                KeyCode::PageDown => reading.scroll = (reading.scroll + TEXT_ROWS).min(top),
                _ => return self.act(key.code),
            }
            return PlansOutcome::Pending;
        }
        match key.code {
            KeyCode::Esc => return PlansOutcome::Close,
            KeyCode::Up => self.selected = self.selected.saturating_sub(1),
            KeyCode::Down => {
                self.selected = (self.selected + 1).min(self.rows.len().saturating_sub(1))
            }
            KeyCode::Enter | KeyCode::Right => {
                if let Some(row) = self.selected_row() {
                    let text = std::fs::read_to_string(&row.path)
                        .unwrap_or_else(|e| format!("(could not read {}: {e})", row.path));
                    self.reading = Some(Reading {
                        lines: text.lines().map(|l| l.replace('\t', "    ")).collect(),
                        scroll: 0,
                    });
                }
            }
            code => return self.act(code),
        }
        PlansOutcome::Pending
    }

    /// The keys that do something with the selected plan.
    fn act(&self, code: KeyCode) -> PlansOutcome {
        let Some(row) = self.selected_row() else {
            return PlansOutcome::Pending;
        };
        match code {
            KeyCode::Char('u') => PlansOutcome::Use(row.slug.clone()),
            KeyCode::Char('b') => PlansOutcome::Review(row.path.clone()),
            KeyCode::Char('e') => PlansOutcome::Export(row.slug.clone()),
            KeyCode::Char('a') => PlansOutcome::Abandon(row.slug.clone()),
            _ => PlansOutcome::Pending,
        }
    }

    /// Rows the picker would like at this screen height.
    pub fn desired_height(&self, screen_h: u16) -> u16 {
        let inner = match &self.reading {
            Some(r) => r.lines.len().clamp(1, TEXT_ROWS) + 1,
            None => self.rows.len().clamp(1, VISIBLE_ROWS) + 1,
        };
        (inner as u16 + 2).min(screen_h.saturating_sub(1))
    }

    pub fn render(&self, area: Rect, buf: &mut Buffer) {
        let t = theme::current();
        let width = area.width.saturating_sub(4) as usize;
        let inner_h = area.height.saturating_sub(2) as usize;
        let dim = Style::default().fg(t.dim);
        let keys = "u continue here · b browser · e export · a abandon";
        let (title, mut lines) = match (&self.reading, self.selected_row()) {
            (Some(reading), Some(row)) => {
                let rows = inner_h.saturating_sub(1).max(1);
                let lines: Vec<Line> = reading
                    .lines
                    .iter()
                    .skip(reading.scroll)
                    .take(rows)
                    .map(|l| Line::raw(truncate(l, width)))
                    .collect();
                (format!(" Plan {} · {} ", row.slug, row.state), lines)
            }
            _ => {
                let rows = inner_h.saturating_sub(1).max(1);
                let first = self.selected.saturating_sub(rows.saturating_sub(1));
                let lines: Vec<Line> = if self.rows.is_empty() {
                    vec![Line::styled("No plans in this project yet.", dim)]
                } else {
                    self.rows
                        .iter()
                        .enumerate()
                        .skip(first)
                        .take(rows)
                        .map(|(i, row)| self.row_line(i, row, width))
                        .collect()
                };
                (" Plans ".to_string(), lines)
            }
        };
        let hint = if self.reading.is_some() {
            format!("↑/↓ scroll · {keys} · Esc back")
        } else {
            format!("↑/↓ choose · Enter read · {keys} · Esc close")
        };
        lines.push(Line::styled(truncate(&hint, width), dim));
        Paragraph::new(lines)
            .block(
                Block::default()
                    .title(title)
                    .borders(Borders::ALL)
                    .border_type(BorderType::Rounded)
                    .border_style(Style::default().fg(t.accent))
                    .padding(Padding::horizontal(1)),
            )
            .render(area, buf);
    }

    fn row_line(&self, i: usize, row: &PlanRow, width: usize) -> Line<'static> {
        let state = match row.steps {
            Some((done, total)) if row.state == "in_progress" => {
                format!("{} {done}/{total}", row.state)
            }
            _ => row.state.clone(),
        };
        let text = format!(
            "{} {:<28} {:<14} {:>4}  {}",
            if i == self.selected { "❯" } else { " " },
            row.slug,
            state,
            age(row.age_seconds),
            row.title.trim_start_matches('#').trim()
        );
        let style = if i == self.selected {
            Style::default().add_modifier(Modifier::BOLD)
        } else {
            Style::default()
        };
        Line::from(Span::styled(truncate(&text, width), style))
    }
}

/// An age in its largest unit (`5m`, `3h`, `2d`).
fn age(seconds: u64) -> String {
    match seconds {
        s if s < 60 => format!("{s}s"),
        s if s < 3600 => format!("{}m", s / 60),
        s if s < 86_400 => format!("{}h", s / 3600),
        s => format!("{}d", s / 86_400),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crossterm::event::KeyEventKind;

    fn key(code: KeyCode) -> KeyEvent {
        KeyEvent {
            code,
            modifiers: KeyModifiers::NONE,
            kind: KeyEventKind::Press,
            state: crossterm::event::KeyEventState::NONE,
        }
    }

    fn rows() -> Vec<PlanRow> {
        ["one", "two"]
            .iter()
            .map(|s| PlanRow {
                slug: s.to_string(),
                path: format!("/nowhere/{s}.md"),
                state: "approved".into(),
                title: format!("# {s}"),
                steps: None,
                age_seconds: 90,
            })
            .collect()
    }

    #[test]
    fn keys_choose_a_plan_and_what_to_do_with_it() {
        let mut p = PlansPanel::new(rows());
        assert_eq!(p.handle_key(key(KeyCode::Down)), PlansOutcome::Pending);
        assert_eq!(
            p.handle_key(key(KeyCode::Char('u'))),
            PlansOutcome::Use("two".into())
        );
        assert_eq!(
            p.handle_key(key(KeyCode::Char('b'))),
            PlansOutcome::Review("/nowhere/two.md".into())
        );
        assert_eq!(
            p.handle_key(key(KeyCode::Char('e'))),
            PlansOutcome::Export("two".into())
        );
        assert_eq!(
            p.handle_key(key(KeyCode::Char('a'))),
            PlansOutcome::Abandon("two".into())
        );
        // Reading it: Esc goes back to the list, then closes.
        p.handle_key(key(KeyCode::Enter));
        assert!(p.reading.is_some());
        assert_eq!(p.handle_key(key(KeyCode::Esc)), PlansOutcome::Pending);
        assert_eq!(p.handle_key(key(KeyCode::Esc)), PlansOutcome::Close);
        assert_eq!(age(90), "1m");
    }
}
