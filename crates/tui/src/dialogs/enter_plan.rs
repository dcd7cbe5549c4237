//! The consent dialog of `EnterPlanMode`: the model asks to plan before
//! changing anything; the user says yes or no (with an optional note).
//! Esc, like every unanswered question, declines: the mode stays.

use catui_core::engine::{PermissionAnswer, PermissionRequest};
use crossterm::event::{KeyCode, KeyEvent};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::Line;
use ratatui::widgets::Widget;

use super::{
    DialogOutcome, draw_rows, edit_field, field_cursor, field_row, frame_block, option_rows,
    wrapped_height,
};
use crate::input::InputBox;
use crate::theme;

const TITLE: &str = "Enter plan mode?";
const NOTE_LABEL: &str = "  Tell the agent what to do instead: ";
const OPTIONS: [&str; 2] = ["Yes, enter plan mode", "No, start implementing now"];

/// State of one EnterPlanMode question.
#[derive(Debug, Clone)]
pub struct EnterPlanDialog {
    pub request: PermissionRequest,
    pub selected: usize,
    /// The "No" note, once the user chose to type one.
    pub feedback: Option<InputBox>,
}

impl EnterPlanDialog {
    pub fn new(request: PermissionRequest) -> Self {
        Self {
            request,
            selected: 0,
            feedback: None,
        }
    }

    /// The model's reason (the prose of its message), if it gave one.
    fn reason(&self) -> Option<&str> {
        self.request
            .input
            .get("reason")
            .and_then(|r| r.as_str())
            .map(str::trim)
            .filter(|r| !r.is_empty())
    }

    fn decline(&self) -> DialogOutcome {
        DialogOutcome::Answer(PermissionAnswer::Deny {
            message: self
                .feedback
                .as_ref()
                .map(|f| f.text().trim().to_string())
                .unwrap_or_default(),
        })
    }

    fn accept() -> DialogOutcome {
        DialogOutcome::Answer(PermissionAnswer::Allow {
            updated_input: None,
            updated_permissions: None,
        })
    }

    pub fn handle_key(&mut self, key: KeyEvent) -> DialogOutcome {
        if key.code == KeyCode::Esc {
            return DialogOutcome::Answer(PermissionAnswer::Deny {
                message: String::new(),
            });
        }
        if let Some(field) = self.feedback.as_mut() {
            match key.code {
                KeyCode::Enter => return self.decline(),
                KeyCode::Up => {
                    self.selected = 0;
                    self.feedback = None;
                }
                _ => {
                    edit_field(field, key);
                }
            }
            return DialogOutcome::Pending;
        }
        match key.code {
            KeyCode::Char('1' | 'y') => return Self::accept(),
            KeyCode::Char('2' | 'n') => {
                self.selected = 1;
                self.feedback = Some(InputBox::new());
            }
            KeyCode::Up => self.selected = 0,
            KeyCode::Down | KeyCode::Tab => self.selected = 1,
            KeyCode::Enter if self.selected == 0 => return Self::accept(),
            KeyCode::Enter => self.feedback = Some(InputBox::new()),
            _ => {}
        }
        DialogOutcome::Pending
    }

    fn rows(&self) -> (Vec<Line<'static>>, Option<usize>) {
        let dim = Style::default().fg(theme::current().dim);
        let mut rows = vec![Line::raw(
            "The agent wants to plan before changing anything: in plan mode it only reads and \
             writes a plan for you to approve.",
        )];
        if let Some(reason) = self.reason() {
            rows.push(Line::default());
            rows.extend(reason.lines().map(|l| Line::styled(format!("  {l}"), dim)));
        }
        rows.push(Line::default());
        let options: Vec<String> = OPTIONS.iter().map(|o| o.to_string()).collect();
        rows.extend(option_rows(&options, self.selected));
        let mut field_at = None;
        if let Some(f) = &self.feedback {
            field_at = Some(rows.len());
            rows.push(field_row(NOTE_LABEL, f));
            rows.push(Line::styled(
                "  Enter declines with the note · Esc declines without it",
                dim,
            ));
        } else {
            rows.push(Line::styled(
                "  Enter or 1-2 to choose · Esc stays in the current mode",
                dim,
            ));
        }
        (rows, field_at)
    }

    pub fn desired_height(&self, width: u16) -> u16 {
        wrapped_height(&self.rows().0, width.saturating_sub(4)) + 2
    }

    pub fn render(&self, area: Rect, buf: &mut Buffer) {
        let block = frame_block(TITLE, theme::current().accent);
        let inner = block.inner(area);
        block.render(area, buf);
        draw_rows(&self.rows().0, inner, buf);
    }

    pub fn cursor(&self, area: Rect) -> Option<(u16, u16)> {
        let inner = frame_block("", theme::current().accent).inner(area);
        let (rows, at) = self.rows();
        let at = at?;
        let y = wrapped_height(&rows[..at], inner.width);
        field_cursor(inner, y, NOTE_LABEL, self.feedback.as_ref()?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crossterm::event::KeyModifiers;
    use serde_json::json;

    fn dialog(reason: Option<&str>) -> EnterPlanDialog {
        EnterPlanDialog::new(PermissionRequest {
            tool_use_id: "t1".into(),
            tool_name: "EnterPlanMode".into(),
            input: json!({ "reason": reason }),
            reason: String::new(),
            agent_id: None,
            suggestion: None,
        })
    }

    fn key(code: KeyCode) -> KeyEvent {
        KeyEvent::new(code, KeyModifiers::NONE)
    }

    #[test]
    fn yes_allows_and_no_declines_with_a_note() {
        let mut d = dialog(Some("Big change"));
        assert_eq!(d.reason(), Some("Big change"));
        assert!(matches!(
            d.handle_key(key(KeyCode::Enter)),
            DialogOutcome::Answer(PermissionAnswer::Allow { .. })
        ));
        let mut d = dialog(None);
        assert_eq!(
            d.handle_key(key(KeyCode::Char('2'))),
            DialogOutcome::Pending
        );
        for c in "just do it".chars() {
            d.handle_key(key(KeyCode::Char(c)));
        }
        assert_eq!(
            d.handle_key(key(KeyCode::Enter)),
            DialogOutcome::Answer(PermissionAnswer::Deny {
                message: "just do it".into()
            })
        );
        let mut d = dialog(None);
        assert_eq!(
            d.handle_key(key(KeyCode::Esc)),
            DialogOutcome::Answer(PermissionAnswer::Deny {
                message: String::new()
            })
        );
    }
}
