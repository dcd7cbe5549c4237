//! Key presses and pasted text: what each key does to the input box, the
//! palette or the open dialog, and the [`Action`]s it asks the runtime for.

use std::time::Instant;

use catui_core::engine::PermissionAnswer;
use catui_core::teams::PlanDecision;
use catui_protocol::PermissionMode;
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use super::{Action, AppState, CTRL_C_WINDOW};
use crate::dialogs::{Dialog, DialogOutcome};
use crate::transcript::EntryKind;

impl AppState {
    /// Text the user sends: shown in the transcript and queued for a result.
    fn submit(&mut self, text: String) -> Vec<Action> {
        let trimmed = text.trim();
        if matches!(trimmed, "/exit" | "/quit") {
            return vec![Action::Quit];
        }
        self.transcript.push(EntryKind::User(text.clone()));
        self.scroll = 0;
        if trimmed == "/plan open"
            && let Some(path) = self.plan_file.clone()
        {
            return vec![Action::OpenPlanFile(path)];
        }
        self.pending_inputs.push_back(text.clone());
        vec![Action::Submit(text)]
    }

    /// Sends the first prompt given on the command line.
    pub fn submit_text(&mut self, text: String) -> Vec<Action> {
        self.submit(text)
    }

    fn dialog_key(&mut self, key: KeyEvent) -> Vec<Action> {
        let Some(dialog) = self.dialog.as_mut() else {
            return Vec::new();
        };
        let id = dialog.id().to_string();
        match dialog.handle_key(key) {
            DialogOutcome::Pending => Vec::new(),
            DialogOutcome::EditPlan => vec![Action::EditPlan],
            DialogOutcome::Review(decision) => {
                self.close_dialog();
                vec![Action::Review {
                    request_id: id,
                    decision,
                }]
            }
            DialogOutcome::Answer(answer) => {
                self.close_dialog();
                vec![Action::Answer {
                    tool_use_id: id,
                    answer,
                }]
            }
        }
    }

    /// Handles one key press.
    pub fn handle_key(&mut self, key: KeyEvent, now: Instant) -> Vec<Action> {
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        if ctrl && key.code == KeyCode::Char('c') {
            if self
                .ctrl_c_at
                .is_some_and(|at| now.duration_since(at) <= CTRL_C_WINDOW)
            {
                return vec![Action::Quit];
            }
            self.ctrl_c_at = Some(now);
            let mut actions = Vec::new();
            if let Some(d) = self.dialog.as_ref() {
                actions.push(dismissal(d));
                self.close_dialog();
            }
            if self.busy() {
                actions.push(Action::Interrupt);
            }
            self.input.clear();
            return actions;
        }
        match key.code {
            KeyCode::PageUp => {
                let (w, h) = self.viewport;
                let max = self
                    .transcript
                    .height(w as usize)
                    .saturating_sub(h as usize);
                self.scroll = (self.scroll + (h as usize / 2).max(1)).min(max);
                return Vec::new();
            }
            KeyCode::PageDown if self.dialog.is_none() => {
                let step = (self.viewport.1 as usize / 2).max(1);
                self.scroll = self.scroll.saturating_sub(step);
                return Vec::new();
            }
            _ => {}
        }
        if self.dialog.is_some() {
            return self.dialog_key(key);
        }
        self.input_key(key)
    }

    fn input_key(&mut self, key: KeyEvent) -> Vec<Action> {
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        let palette = self.palette();
        let palette_open = !palette.is_empty();
        match key.code {
            KeyCode::Esc if palette_open => self.palette_dismissed = true,
            KeyCode::Esc if self.busy() => return vec![Action::Interrupt],
            KeyCode::BackTab => {
                return vec![Action::SetMode(
                    self.mode.next_in_cycle(self.info.auto_mode_enabled),
                )];
            }
            KeyCode::Tab if palette_open => {
                let i = self.palette_selected.min(palette.len() - 1);
                self.input.set_text(&format!("/{}", palette[i].0));
            }
            KeyCode::Enter
                if key
                    .modifiers
                    .intersects(KeyModifiers::SHIFT | KeyModifiers::ALT) =>
            {
                self.input.newline()
            }
            KeyCode::Char('j') if ctrl => self.input.newline(),
            KeyCode::Enter => {
                if palette_open {
                    let i = self.palette_selected.min(palette.len() - 1);
                    self.input.set_text(&format!("/{}", palette[i].0));
                }
                self.palette_selected = 0;
                self.palette_dismissed = false;
                if let Some(text) = self.input.submit() {
                    return self.submit(text);
                }
            }
            KeyCode::Up if palette_open => {
                self.palette_selected = self.palette_selected.saturating_sub(1)
            }
            KeyCode::Down if palette_open => {
                self.palette_selected = (self.palette_selected + 1).min(palette.len() - 1)
            }
            KeyCode::Char('g') if ctrl => return vec![self.ctrl_g()],
            KeyCode::Char('a') if ctrl => self.input.home(),
            KeyCode::Char('e') if ctrl => self.input.end(),
            KeyCode::Char('u') if ctrl => self.input.kill_to_line_start(),
            KeyCode::Char('k') if ctrl => self.input.kill_to_line_end(),
            KeyCode::Char('w') if ctrl => self.input.delete_word_back(),
            KeyCode::Char(c) if !ctrl => {
                self.input.insert_char(c);
                self.after_edit();
            }
            KeyCode::Backspace => {
                self.input.backspace();
                self.after_edit();
            }
            KeyCode::Delete => self.input.delete(),
            KeyCode::Left => self.input.left(),
            KeyCode::Right => self.input.right(),
            KeyCode::Home => self.input.home(),
            KeyCode::End => self.input.end(),
            KeyCode::Up => self.input.up(),
            KeyCode::Down => self.input.down(),
            _ => {}
        }
        Vec::new()
    }

    /// Ctrl+G outside a dialog: the plan while planning (once the session
    /// has a plan file), otherwise the input box.
    fn ctrl_g(&self) -> Action {
        match &self.plan_file {
            Some(path) if self.mode == PermissionMode::Plan => Action::EditPlanFile(path.clone()),
            _ => Action::EditInput,
        }
    }

    fn after_edit(&mut self) {
        self.palette_selected = 0;
        if self.input.is_empty() {
            self.palette_dismissed = false;
        }
    }

    /// Pasted text goes to the focused field.
    pub fn paste(&mut self, text: &str) {
        match self.dialog.as_mut() {
            Some(d) => d.paste(text),
            None => self.input.paste(text),
        }
    }
}

/// Ctrl+C on a dialog: the tool call is denied, the teammate's plan
/// rejected (it keeps planning).
fn dismissal(dialog: &Dialog) -> Action {
    let id = dialog.id().to_string();
    if dialog.is_review() {
        return Action::Review {
            request_id: id,
            decision: Some(PlanDecision {
                approved: false,
                feedback: None,
            }),
        };
    }
    Action::Answer {
        tool_use_id: id,
        answer: PermissionAnswer::Deny {
            message: String::new(),
        },
    }
}
