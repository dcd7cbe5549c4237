//! The consent dialog of `EnterPlanMode`: the model asks to plan before
//! changing anything; the user says yes or no (with an optional note).
//! Esc, as on every dialog, stops: the mode stays and the turn ends.

use catui_core::engine::{PermissionAnswer, PermissionRequest};
use crossterm::event::KeyEvent;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::Line;
use ratatui::widgets::Widget;

use super::choice::{ChoiceDialog, Picked};
use super::{DialogOutcome, draw_rows, field_cursor, frame_block, wrapped_height};
use crate::keymap::{self, Binding, Choice};
use crate::theme;

const TITLE: &str = "Enter plan mode?";
const NOTE_LABEL: &str = "  Tell the agent what to do instead: ";
const OPTIONS: [&str; 2] = ["Yes, enter plan mode", "No, start implementing now"];

/// The dialog's own keys: y and n, as 1 and 2.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Own {
    Yes,
    No,
}

/// The keys of the EnterPlanMode dialog.
pub const KEYS: &[Binding<Choice<Own>>] = &{
    let [enter, number, up, down, stop] = keymap::choice_rows!(Own);
    [
        enter,
        number,
        up,
        down,
        Binding {
            keys: &[keymap::ch('y')],
            label: "y",
            help: "yes, enter plan mode",
            hint: "",
            command: Choice::Own(Own::Yes),
        },
        Binding {
            keys: &[keymap::ch('n')],
            label: "n",
            help: "no, with a note",
            hint: "",
            command: Choice::Own(Own::No),
        },
        stop,
    ]
};

/// State of one EnterPlanMode question.
#[derive(Debug, Clone)]
pub struct EnterPlanDialog {
    pub request: PermissionRequest,
    /// Yes / No, and the "No" note.
    pub choice: ChoiceDialog,
}

impl EnterPlanDialog {
    pub fn new(request: PermissionRequest) -> Self {
        Self {
            request,
            choice: ChoiceDialog::new(OPTIONS.map(String::from).to_vec(), Some(1), NOTE_LABEL),
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

    fn accept() -> DialogOutcome {
        DialogOutcome::Answer(PermissionAnswer::Allow {
            updated_input: None,
            updated_permissions: None,
        })
    }

    pub fn handle_key(&mut self, key: KeyEvent) -> DialogOutcome {
        match self.choice.handle_key(KEYS, key) {
            Picked::Option(_) | Picked::Own(Own::Yes) => Self::accept(),
            Picked::Note => DialogOutcome::Answer(PermissionAnswer::Deny {
                message: self.choice.note(),
            }),
            // Esc stops: the mode stays and the agent waits for the user.
            Picked::Stop => DialogOutcome::Stop(PermissionAnswer::Deny {
                message: String::new(),
            }),
            Picked::Own(Own::No) => {
                self.choice.open_note();
                DialogOutcome::Pending
            }
            Picked::Pending => DialogOutcome::Pending,
        }
    }

    fn rows(&self, width: usize) -> (Vec<Line<'static>>, Option<usize>) {
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
        let (options, at) = self.choice.rows();
        let field_at = at.map(|at| at + rows.len());
        rows.extend(options);
        rows.extend(self.choice.hint_rows(KEYS, |_| true, width));
        (rows, field_at)
    }

    pub fn desired_height(&self, width: u16) -> u16 {
        let inner = width.saturating_sub(4);
        wrapped_height(&self.rows(inner as usize).0, inner) + 2
    }

    pub fn render(&self, area: Rect, buf: &mut Buffer) {
        let block = frame_block(TITLE, theme::current().accent);
        let inner = block.inner(area);
        block.render(area, buf);
        draw_rows(&self.rows(inner.width as usize).0, inner, buf);
    }

    pub fn cursor(&self, area: Rect) -> Option<(u16, u16)> {
        let inner = frame_block("", theme::current().accent).inner(area);
        let (rows, at) = self.rows(inner.width as usize);
        let at = at?;
        let y = wrapped_height(&rows[..at], inner.width);
        field_cursor(inner, y, NOTE_LABEL, self.choice.feedback.as_ref()?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crossterm::event::{KeyCode, KeyModifiers};
    use serde_json::json;

    fn dialog(reason: Option<&str>) -> EnterPlanDialog {
        EnterPlanDialog::new(PermissionRequest {
            tool_use_id: "t1".into(),
            tool_name: "EnterPlanMode".into(),
            input: json!({ "reason": reason }),
            reason: String::new(),
            agent_id: None,
            suggestion: None,
            dry_run: false,
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
            DialogOutcome::Stop(PermissionAnswer::Deny {
                message: String::new()
            })
        );
    }
}
