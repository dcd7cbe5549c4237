//! Line-anchored review comments in the plan approval dialog: `c` turns
//! the plan pane into a numbered list of the plan's lines with a cursor;
//! Enter on a line opens a comment field for it (Enter saves, Esc drops
//! the edit); several lines may carry comments. Esc leaves review mode.
//! "No, keep planning" sends the comments to the model, each under the
//! line it is about ([`catui_core::plan::approval::review::review_feedback`]).
//! Not the review of a teammate's plan by the lead: that is the plan dialog
//! itself ([`super::plan`]), reached through `TuiPlanReviewer`.

use catui_core::plan::approval::review::LineComment;
use crossterm::event::{KeyCode, KeyEvent};
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};

use super::edit_field;
use crate::input::InputBox;
use crate::wrap::wrap_line;

pub const COMMENT_LABEL: &str = "  Comment: ";

/// The review state of one plan approval.
#[derive(Debug, Clone, Default)]
pub struct Review {
    /// The line under the cursor (0-based) while in review mode.
    pub cursor: Option<usize>,
    /// Saved comments, at most one per line.
    pub comments: Vec<LineComment>,
    /// The comment being written for the cursor's line.
    pub editing: Option<InputBox>,
}

impl Review {
    pub fn active(&self) -> bool {
        self.cursor.is_some()
    }

    pub fn start(&mut self) {
        self.cursor = Some(0);
    }

    /// Handles a key in review mode; `lines` is the plan's line count.
    pub fn handle_key(&mut self, key: KeyEvent, lines: usize) {
        let Some(cursor) = self.cursor else {
            return;
        };
        if let Some(field) = self.editing.as_mut() {
            match key.code {
                KeyCode::Enter => {
                    let text = field.text().trim().to_string();
                    let line = cursor + 1;
                    self.comments.retain(|c| c.line != line);
                    if !text.is_empty() {
                        self.comments.push(LineComment {
                            line,
                            text,
                            passage: None,
                        });
                        self.comments.sort_by_key(|c| c.line);
                    }
                    self.editing = None;
                }
                KeyCode::Esc => self.editing = None,
                _ => {
                    edit_field(field, key);
                }
            }
            return;
        }
        let last = lines.saturating_sub(1);
        match key.code {
            KeyCode::Esc | KeyCode::Char('c') => self.cursor = None,
            KeyCode::Up | KeyCode::Char('k') => self.cursor = Some(cursor.saturating_sub(1)),
            KeyCode::Down | KeyCode::Char('j') => self.cursor = Some((cursor + 1).min(last)),
            KeyCode::Enter => {
                let mut field = InputBox::new();
                if let Some(existing) = self.comment_on(cursor + 1) {
                    field.insert_str(existing);
                }
                self.editing = Some(field);
            }
            _ => {}
        }
    }

    fn comment_on(&self, line: usize) -> Option<&str> {
        self.comments
            .iter()
            .find(|c| c.line == line)
            .map(|c| c.text.as_str())
    }

    /// The plan pane in review mode: numbered lines, the cursor, and each
    /// comment under its line. Also returns the row of the cursor (to keep
    /// it in view).
    pub fn pane_rows(&self, plan: &str, width: usize) -> (Vec<Line<'static>>, usize) {
        let dim = Style::default().fg(Color::DarkGray);
        let note = Style::default().fg(Color::Yellow);
        let mut rows = Vec::new();
        let mut cursor_row = 0;
        for (i, text) in plan.lines().enumerate() {
            let here = self.cursor == Some(i);
            if here {
                cursor_row = rows.len();
            }
            let marker = if here { "❯" } else { " " };
            let style = if here {
                Style::default().add_modifier(Modifier::BOLD)
            } else {
                Style::default()
            };
            let line = Line::from(vec![
                Span::styled(format!("{marker}{:>3} ", i + 1), dim),
                Span::styled(text.to_string(), style),
            ]);
            rows.extend(wrap_line(&line, width, 5));
            if here && let Some(field) = &self.editing {
                rows.push(Line::from(vec![
                    Span::styled(COMMENT_LABEL.to_string(), note),
                    Span::raw(field.text().replace('\n', " ")),
                ]));
            } else if let Some(c) = self.comment_on(i + 1) {
                let line = Line::styled(format!("      ↳ {c}"), note);
                rows.extend(wrap_line(&line, width, 8));
            }
        }
        (rows, cursor_row)
    }

    /// The hint line of review mode, or the comment count outside it.
    pub fn hint(&self) -> Option<String> {
        if self.editing.is_some() {
            return Some("Enter saves the comment · Esc drops it".into());
        }
        if self.active() {
            return Some(
                "↑/↓ pick a line · Enter comment on it · Esc done (3 sends the comments)".into(),
            );
        }
        match self.comments.len() {
            0 => None,
            1 => Some("1 comment · sent with \"No, keep planning\"".into()),
            n => Some(format!("{n} comments · sent with \"No, keep planning\"")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crossterm::event::KeyModifiers;

    fn key(code: KeyCode) -> KeyEvent {
        KeyEvent::new(code, KeyModifiers::NONE)
    }

    #[test]
    fn comments_attach_to_the_cursor_line_and_can_be_replaced() {
        let mut r = Review::default();
        r.start();
        r.handle_key(key(KeyCode::Down), 3);
        r.handle_key(key(KeyCode::Enter), 3);
        for c in "why?".chars() {
            r.handle_key(key(KeyCode::Char(c)), 3);
        }
        r.handle_key(key(KeyCode::Enter), 3);
        assert_eq!(
            r.comments,
            [LineComment {
                line: 2,
                text: "why?".into(),
                passage: None,
            }]
        );
        // Down past the end stays on the last line; a second comment.
        for _ in 0..5 {
            r.handle_key(key(KeyCode::Down), 3);
        }
        r.handle_key(key(KeyCode::Enter), 3);
        r.handle_key(key(KeyCode::Char('x')), 3);
        r.handle_key(key(KeyCode::Enter), 3);
        assert_eq!(r.comments.len(), 2);
        assert_eq!(r.comments[1].line, 3);
        // Emptying a comment removes it; Esc leaves review mode.
        r.handle_key(key(KeyCode::Enter), 3);
        r.handle_key(key(KeyCode::Backspace), 3);
        r.handle_key(key(KeyCode::Enter), 3);
        assert_eq!(r.comments.len(), 1);
        r.handle_key(key(KeyCode::Esc), 3);
        assert!(!r.active());
        assert_eq!(
            r.hint().unwrap(),
            "1 comment · sent with \"No, keep planning\""
        );
    }
}
