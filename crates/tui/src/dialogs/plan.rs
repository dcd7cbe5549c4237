//! The plan approval dialog for `ExitPlanMode` ("Exit plan mode?"): the
//! plan rendered as Markdown in a scrollable pane with its path, the diff
//! against the last rejected revision (toggled with `d`), and the choices
//! of SPEC §7: approve with auto-accepted edits, approve with manual edits,
//! or keep planning with feedback. Ctrl+G edits the plan in the external
//! editor; an edited plan is what a later "Yes" approves.

use catui_core::engine::{PermissionAnswer, PermissionRequest};
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Color, Style};
use ratatui::text::Line;
use ratatui::widgets::{Block, Borders, Paragraph, Widget};
use serde_json::{Value, json};

use super::{
    DialogOutcome, draw_rows, edit_field, field_cursor, field_row, frame_block, option_rows,
    wrapped_height,
};
use crate::diff::diff_lines;
use crate::input::InputBox;
use crate::markdown::markdown_lines;

pub const TITLE: &str = "Exit plan mode?";
const FEEDBACK_LABEL: &str = "  What should change? ";
const OPTIONS: [&str; 3] = [
    "Yes, and auto-accept edits",
    "Yes, and manually approve edits",
    "No, keep planning",
];

/// State of one plan approval.
#[derive(Debug, Clone)]
pub struct PlanDialog {
    pub request: PermissionRequest,
    pub plan: String,
    pub path: String,
    pub diff: Option<String>,
    pub show_diff: bool,
    /// Set once the user edited the plan in the external editor.
    pub edited: bool,
    pub selected: usize,
    /// First visible row of the plan pane.
    pub scroll: usize,
    pub feedback: Option<InputBox>,
    /// A problem to show (e.g. the editor failed).
    pub error: Option<String>,
}

impl PlanDialog {
    pub fn new(request: PermissionRequest) -> Self {
        let field = |k: &str| {
            request
                .input
                .get(k)
                .and_then(Value::as_str)
                .map(str::to_string)
        };
        let plan = field("plan").unwrap_or_default();
        let path = field("planFilePath").unwrap_or_default();
        let diff = field("planDiff").filter(|d| !d.trim().is_empty());
        Self {
            request,
            plan,
            path,
            diff,
            show_diff: false,
            edited: false,
            selected: 0,
            scroll: 0,
            feedback: None,
            error: None,
        }
    }

    /// Takes the text the user saved in the external editor.
    pub fn set_edited_plan(&mut self, text: String) {
        if text.trim().is_empty() {
            self.error = Some("The edited plan is empty; the previous text is kept.".into());
            return;
        }
        if text != self.plan {
            self.plan = text;
            self.edited = true;
            self.show_diff = false;
            self.scroll = 0;
        }
        self.error = None;
    }

    /// `mode`: the mode to restore after approval; `null` means the mode
    /// that was active before plan mode (prePlanMode).
    fn approve(&self, mode: Value) -> DialogOutcome {
        let mut input = match &self.request.input {
            Value::Object(map) => Value::Object(map.clone()),
            _ => json!({}),
        };
        input["mode"] = mode;
        if self.edited {
            input["plan"] = json!(self.plan);
        }
        DialogOutcome::Answer(PermissionAnswer::Allow {
            updated_input: Some(input),
            updated_permissions: None,
        })
    }

    fn reject(&self) -> DialogOutcome {
        DialogOutcome::Answer(PermissionAnswer::Deny {
            message: self
                .feedback
                .as_ref()
                .map(|f| f.text().trim().to_string())
                .unwrap_or_default(),
        })
    }

    fn choose(&mut self, choice: usize) -> DialogOutcome {
        match choice {
            0 => self.approve(json!("acceptEdits")),
            1 => self.approve(Value::Null),
            _ => {
                self.selected = 2;
                if self.feedback.is_none() {
                    self.feedback = Some(InputBox::new());
                }
                DialogOutcome::Pending
            }
        }
    }

    pub fn handle_key(&mut self, key: KeyEvent) -> DialogOutcome {
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        match key.code {
            KeyCode::Esc => return self.reject(),
            KeyCode::Char('g') if ctrl => return DialogOutcome::EditPlan,
            KeyCode::PageDown => self.scroll += 10,
            KeyCode::PageUp => self.scroll = self.scroll.saturating_sub(10),
            _ => {}
        }
        if let Some(field) = self.feedback.as_mut() {
            match key.code {
                KeyCode::Enter => return self.reject(),
                KeyCode::Up => {
                    self.feedback = None;
                    self.selected = 1;
                }
                _ => {
                    edit_field(field, key);
                }
            }
            return DialogOutcome::Pending;
        }
        match key.code {
            KeyCode::Char(c @ '1'..='3') => return self.choose(c as usize - '1' as usize),
            KeyCode::Char('d') if self.diff.is_some() => self.show_diff = !self.show_diff,
            KeyCode::Char('j') => self.scroll += 1,
            KeyCode::Char('k') => self.scroll = self.scroll.saturating_sub(1),
            KeyCode::Up => self.selected = self.selected.saturating_sub(1),
            KeyCode::Down | KeyCode::Tab => self.selected = (self.selected + 1).min(2),
            KeyCode::Enter => return self.choose(self.selected),
            _ => {}
        }
        DialogOutcome::Pending
    }

    fn pane_rows(&self, width: usize) -> Vec<Line<'static>> {
        match (&self.diff, self.show_diff) {
            (Some(diff), true) => diff_lines(diff, width, usize::MAX),
            _ => markdown_lines(&self.plan, width),
        }
    }

    fn bottom_rows(&self) -> (Vec<Line<'static>>, Option<usize>) {
        let dim = Style::default().fg(Color::DarkGray);
        let mut rows = vec![Line::raw("Would you like to proceed?")];
        let options: Vec<String> = OPTIONS.iter().map(|s| s.to_string()).collect();
        rows.extend(option_rows(&options, self.selected));
        let mut field_at = None;
        if let Some(f) = &self.feedback {
            field_at = Some(rows.len());
            rows.push(field_row(FEEDBACK_LABEL, f));
        }
        if let Some(e) = &self.error {
            rows.push(Line::styled(e.clone(), Style::default().fg(Color::Red)));
        }
        let mut hint = String::from("ctrl-g edit plan");
        if self.diff.is_some() {
            hint.push_str(if self.show_diff {
                " · d show plan"
            } else {
                " · d show changes"
            });
        }
        hint.push_str(" · PgUp/PgDn scroll · esc keep planning");
        rows.push(Line::styled(hint, dim));
        (rows, field_at)
    }

    /// Splits the inner area into header row, plan pane and bottom rows.
    fn areas(&self, area: Rect) -> (Rect, Rect, Rect, Rect) {
        let inner = frame_block(TITLE, Color::Cyan).inner(area);
        let bottom_h = wrapped_height(&self.bottom_rows().0, inner.width).min(inner.height);
        let header = Rect {
            height: 1.min(inner.height),
            ..inner
        };
        let pane_h = inner.height.saturating_sub(bottom_h + header.height);
        let pane = Rect {
            y: inner.y + header.height,
            height: pane_h,
            ..inner
        };
        let bottom = Rect {
            y: pane.y + pane_h,
            height: bottom_h,
            ..inner
        };
        (inner, header, pane, bottom)
    }

    pub fn render(&self, area: Rect, buf: &mut Buffer) {
        let block = frame_block(TITLE, Color::Cyan);
        let (_, header, pane, bottom) = self.areas(area);
        block.render(area, buf);
        let dim = Style::default().fg(Color::DarkGray);
        let label = match (self.show_diff, self.edited) {
            (true, _) => "Changes since the last revision: ",
            (false, true) => "Here is the plan (edited): ",
            (false, false) => "Here is the plan: ",
        };
        Paragraph::new(Line::from(vec![
            ratatui::text::Span::raw(label),
            ratatui::text::Span::styled(self.path.clone(), dim),
        ]))
        .render(header, buf);

        let pane_block = Block::default()
            .borders(Borders::TOP | Borders::BOTTOM)
            .border_style(dim);
        let text_area = pane_block.inner(pane);
        pane_block.render(pane, buf);
        let rows = self.pane_rows(text_area.width.saturating_sub(1) as usize);
        let visible = text_area.height as usize;
        let max_scroll = rows.len().saturating_sub(visible);
        let scroll = self.scroll.min(max_scroll);
        let shown: Vec<Line<'static>> = rows.into_iter().skip(scroll).take(visible).collect();
        Paragraph::new(shown).render(text_area, buf);
        if max_scroll > 0 {
            let note = format!(
                " {}/{} ",
                (scroll + visible).min(max_scroll + visible),
                max_scroll + visible
            );
            let x = pane.x + pane.width.saturating_sub(note.len() as u16 + 1);
            buf.set_string(x, pane.y + pane.height.saturating_sub(1), note, dim);
        }
        draw_rows(&self.bottom_rows().0, bottom, buf);
    }

    pub fn cursor(&self, area: Rect) -> Option<(u16, u16)> {
        let (_, _, _, bottom) = self.areas(area);
        let (rows, at) = self.bottom_rows();
        let at = at?;
        let y = wrapped_height(&rows[..at], bottom.width);
        field_cursor(bottom, y, FEEDBACK_LABEL, self.feedback.as_ref()?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dialog() -> PlanDialog {
        PlanDialog::new(PermissionRequest {
            tool_use_id: "t1".into(),
            tool_name: "ExitPlanMode".into(),
            input: json!({"plan": "# Plan\n1. do it", "planFilePath": "/p/plan.md", "planDiff": "-old\n+new"}),
            reason: String::new(),
            agent_id: None,
        })
    }

    fn key(code: KeyCode) -> KeyEvent {
        KeyEvent::new(code, KeyModifiers::NONE)
    }

    fn allowed_input(outcome: DialogOutcome) -> Value {
        match outcome {
            DialogOutcome::Answer(PermissionAnswer::Allow {
                updated_input: Some(v),
                ..
            }) => v,
            other => panic!("expected allow, got {other:?}"),
        }
    }

    #[test]
    fn approval_options_set_the_mode_to_restore() {
        let v = allowed_input(dialog().handle_key(key(KeyCode::Char('1'))));
        assert_eq!(v["mode"], "acceptEdits");
        assert_eq!(v["plan"], "# Plan\n1. do it");
        assert_eq!(v["planFilePath"], "/p/plan.md");
        let mut d = dialog();
        d.handle_key(key(KeyCode::Down));
        let v = allowed_input(d.handle_key(key(KeyCode::Enter)));
        assert_eq!(v["mode"], Value::Null);
    }

    #[test]
    fn keep_planning_sends_feedback() {
        let mut d = dialog();
        assert_eq!(
            d.handle_key(key(KeyCode::Char('3'))),
            DialogOutcome::Pending
        );
        for c in "add tests".chars() {
            d.handle_key(key(KeyCode::Char(c)));
        }
        assert_eq!(
            d.handle_key(key(KeyCode::Enter)),
            DialogOutcome::Answer(PermissionAnswer::Deny {
                message: "add tests".into()
            })
        );
    }

    #[test]
    fn edited_plan_is_what_gets_approved_and_d_toggles_the_diff() {
        let mut d = dialog();
        d.handle_key(key(KeyCode::Char('d')));
        assert!(d.show_diff);
        assert_eq!(
            d.handle_key(KeyEvent::new(KeyCode::Char('g'), KeyModifiers::CONTROL)),
            DialogOutcome::EditPlan
        );
        d.set_edited_plan("# Plan\n1. do it better".into());
        assert!(d.edited && !d.show_diff);
        let v = allowed_input(d.handle_key(key(KeyCode::Char('2'))));
        assert_eq!(v["plan"], "# Plan\n1. do it better");
        d.set_edited_plan("  ".into());
        assert!(d.error.is_some());
    }
}
