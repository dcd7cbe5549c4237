//! Approving part of a plan in the plan approval dialog: `s` turns the plan
//! pane into the plan's numbered steps with a check box each; Space (or
//! Enter) toggles the step under the cursor, Esc (or `s`) leaves the list.
//! The steps left unchecked are skipped when the plan is approved
//! (`skip_steps` of the user's decision), and the dialog says which.
//!
//! `m` edits the model that will implement the plan (the field is filled
//! with the one shown); Enter keeps the new name, Esc drops the edit.

use catui_core::plan::approval::progress::{is_skipped, plan_steps};
use crossterm::event::{KeyCode, KeyEvent};
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};

use super::edit_field;
use crate::input::InputBox;
use crate::wrap::wrap_line;

pub const MODEL_LABEL: &str = "  Implementation model: ";

/// Which steps the user leaves out, and the implementing model.
#[derive(Debug, Clone, Default)]
pub struct Steps {
    /// The plan's numbered steps (as `plan_steps` finds them).
    pub steps: Vec<String>,
    /// `skipped[i]`: step `i + 1` is left out.
    pub skipped: Vec<bool>,
    /// The step under the cursor while the list is open.
    pub cursor: Option<usize>,
    /// The model that implements (`None`: none was shown).
    pub model: Option<String>,
    /// The model shown with the plan: a different `model` is a change.
    pub shown_model: Option<String>,
    /// The model name being edited.
    pub editing_model: Option<InputBox>,
}

impl Steps {
    pub fn new(plan: &str, model: Option<String>) -> Self {
        let steps = plan_steps(plan);
        let skipped = vec![false; steps.len()];
        Steps {
            steps,
            skipped,
            cursor: None,
            shown_model: model.clone(),
            model,
            editing_model: None,
        }
    }

    /// Takes a new text of the plan (edited in the editor): the choices
    /// start over.
    pub fn replan(&mut self, plan: &str) {
        *self = Steps {
            model: self.model.take(),
            shown_model: self.shown_model.take(),
            ..Steps::new(plan, None)
        };
    }

    /// Whether the step list or the model field has the keys.
    pub fn active(&self) -> bool {
        self.cursor.is_some() || self.editing_model.is_some()
    }

    /// Opens the step list (nothing to open for a plan without steps).
    pub fn start(&mut self) {
        if !self.steps.is_empty() {
            self.cursor = Some(0);
        }
    }

    /// Opens the model field.
    pub fn edit_model(&mut self) {
        let mut field = InputBox::new();
        if let Some(model) = &self.model {
            field.insert_str(model);
        }
        self.editing_model = Some(field);
    }

    pub fn handle_key(&mut self, key: KeyEvent) {
        if let Some(field) = self.editing_model.as_mut() {
            match key.code {
                KeyCode::Enter => {
                    let name = field.text().trim().to_string();
                    if !name.is_empty() {
                        self.model = Some(name);
                    }
                    self.editing_model = None;
                }
                KeyCode::Esc => self.editing_model = None,
                _ => {
                    edit_field(field, key);
                }
            }
            return;
        }
        let Some(cursor) = self.cursor else {
            return;
        };
        let last = self.steps.len().saturating_sub(1);
        match key.code {
            KeyCode::Esc | KeyCode::Char('s') => self.cursor = None,
            KeyCode::Up | KeyCode::Char('k') => self.cursor = Some(cursor.saturating_sub(1)),
            KeyCode::Down | KeyCode::Char('j') => self.cursor = Some((cursor + 1).min(last)),
            KeyCode::Char(' ') | KeyCode::Enter => {
                // A step skipped in an earlier approval stays skipped.
                if let Some(skip) = self.skipped.get_mut(cursor)
                    && !self.steps.get(cursor).is_some_and(|s| is_skipped(s))
                {
                    *skip = !*skip;
                }
            }
            _ => {}
        }
    }

    /// The 1-based numbers of the steps left out.
    pub fn skip_steps(&self) -> Vec<usize> {
        self.skipped
            .iter()
            .enumerate()
            .filter(|(_, s)| **s)
            .map(|(i, _)| i + 1)
            .collect()
    }

    /// The model the user picked, when it differs from the one shown.
    pub fn chosen_model(&self) -> Option<String> {
        self.model
            .clone()
            .filter(|m| Some(m) != self.shown_model.as_ref())
    }

    /// The plan pane while the list is open: one row per step, checked
    /// when it is carried out.
    pub fn pane_rows(&self, width: usize) -> Vec<Line<'static>> {
        let dim = Style::default().fg(Color::DarkGray);
        let mut rows = vec![Line::styled(
            "Steps to carry out (Space toggles a step):",
            dim,
        )];
        for (i, step) in self.steps.iter().enumerate() {
            let here = self.cursor == Some(i);
            let skipped = self.skipped.get(i).copied().unwrap_or(false) || is_skipped(step);
            let marker = if here { "❯" } else { " " };
            let check = if skipped { "[ ]" } else { "[x]" };
            let style = match (here, skipped) {
                (true, _) => Style::default().add_modifier(Modifier::BOLD),
                (false, true) => dim,
                (false, false) => Style::default(),
            };
            let line = Line::from(vec![
                Span::styled(format!("{marker} {check} {}. ", i + 1), dim),
                Span::styled(step.clone(), style),
            ]);
            rows.extend(wrap_line(&line, width, 8));
        }
        rows
    }

    /// The dialog's rows about these choices: the model that implements
    /// (or its field) and the steps left out.
    pub fn rows(&self) -> Vec<Line<'static>> {
        let dim = Style::default().fg(Color::DarkGray);
        let mut rows = Vec::new();
        if let Some(field) = &self.editing_model {
            rows.push(super::field_row(MODEL_LABEL, field));
        } else if let Some(model) = &self.model {
            rows.push(Line::from(vec![
                Span::styled("Implements: ".to_string(), dim),
                Span::raw(model.clone()),
                Span::styled("  (m to change)".to_string(), dim),
            ]));
        }
        let skipped = self.skip_steps();
        if !skipped.is_empty() {
            let list: Vec<String> = skipped.iter().map(usize::to_string).collect();
            rows.push(Line::styled(
                format!(
                    "Skipping step{} {} when approved",
                    if skipped.len() == 1 { "" } else { "s" },
                    list.join(", ")
                ),
                Style::default().fg(Color::Yellow),
            ));
        }
        rows
    }

    /// The hint while the list or the field has the keys.
    pub fn hint(&self) -> Option<&'static str> {
        if self.editing_model.is_some() {
            Some("Enter keeps this model · Esc drops the change")
        } else if self.cursor.is_some() {
            Some("↑/↓ pick a step · Space skip or keep it · Esc done")
        } else {
            None
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
    fn steps_toggle_and_the_model_can_change() {
        let mut s = Steps::new("# P\n1. a\n2. b\n3. c\n", Some("big".into()));
        s.start();
        s.handle_key(key(KeyCode::Down));
        s.handle_key(key(KeyCode::Char(' ')));
        s.handle_key(key(KeyCode::Down));
        s.handle_key(key(KeyCode::Char(' ')));
        s.handle_key(key(KeyCode::Char(' ')));
        assert_eq!(s.skip_steps(), [2]);
        s.handle_key(key(KeyCode::Esc));
        assert!(!s.active());
        assert_eq!(s.chosen_model(), None, "unchanged model is no choice");
        s.edit_model();
        for _ in 0..3 {
            s.handle_key(key(KeyCode::Backspace));
        }
        for c in "small".chars() {
            s.handle_key(key(KeyCode::Char(c)));
        }
        s.handle_key(key(KeyCode::Enter));
        assert_eq!(s.chosen_model().as_deref(), Some("small"));
        // A plan without steps has no list to open.
        let mut none = Steps::new("# P\nno steps", None);
        none.start();
        assert!(!none.active());
    }
}
