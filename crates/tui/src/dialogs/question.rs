//! The `AskUserQuestion` dialog: one tab per question plus a Submit tab,
//! single or multiple choice, and an "Other" row that takes free text. The
//! answers go back as `updated_input.answers = {question: answer}`
//! (multiple choices comma-joined). Each question's rows, its "Other"
//! field and its hint row are a [`ChoiceDialog`]; its keys are [`KEYS`]
//! (and [`SUBMIT_KEYS`] on the Submit tab), the tables the `?` sheet lists.

use catui_core::engine::{PermissionAnswer, PermissionRequest};
use crossterm::event::{KeyCode, KeyEvent};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::Widget;
use serde_json::{Map, Value, json};

use super::choice::{ChoiceDialog, Picked, hint_lines};
use super::{DialogOutcome, draw_rows, field_cursor, frame_block, wrapped_height};
use crate::keymap::{self, Binding, Choice, Note, key};
use crate::theme;

const OTHER_LABEL: &str = "Other: ";

/// The question dialog's own keys.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Own {
    /// Space: tick or untick the selected option (several choices).
    Toggle,
    /// The next tab (question or Submit).
    Next,
    Previous,
}

/// The keys of a question's tab: the options' keys (Tab is the next
/// question here, not the next option), then its own.
pub const KEYS: &[Binding<Choice<Own>>] = &{
    let [_, number, up, _, stop] = keymap::choice_rows!(Own);
    [
        Binding {
            keys: &[key(KeyCode::Enter)],
            label: "Enter",
            help: "choose the selected option (several choices: tick it and go to the next tab)",
            hint: "",
            command: Choice::Confirm,
        },
        number,
        up,
        Binding {
            keys: &[key(KeyCode::Down)],
            label: "↓",
            help: "next option",
            hint: "",
            command: Choice::Down,
        },
        Binding {
            keys: &[keymap::ch(' ')],
            label: "Space",
            help: "tick or untick the selected option (several choices)",
            hint: "toggle",
            command: Choice::Own(Own::Toggle),
        },
        Binding {
            keys: &[key(KeyCode::Tab), key(KeyCode::Right)],
            label: "Tab/→",
            help: "next question, then Submit",
            hint: "next",
            command: Choice::Own(Own::Next),
        },
        Binding {
            keys: &[key(KeyCode::BackTab), key(KeyCode::Left)],
            label: "Shift+Tab/←",
            help: "previous question",
            hint: "back",
            command: Choice::Own(Own::Previous),
        },
        Binding {
            help: "stop: nothing is answered and the turn ends",
            ..stop
        },
    ]
};

/// The keys while the "Other" row has focus.
pub const OTHER_KEYS: &[Binding<Note>] = &[
    Binding {
        keys: &[key(KeyCode::Enter)],
        label: "Enter",
        help: "on the Other row: answer with the text typed there",
        hint: "answers with this text",
        command: Note::Send,
    },
    Binding {
        keys: &[key(KeyCode::Up)],
        label: "↑",
        help: "on the Other row: back to the options (the text stays)",
        hint: "options",
        command: Note::Back,
    },
    Binding {
        keys: &[key(KeyCode::Esc)],
        label: "Esc",
        help: "",
        hint: "stop",
        command: Note::Stop,
    },
];

/// Keys of the Submit tab.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SubmitKey {
    Submit,
    Next,
    Previous,
    Stop,
}

pub const SUBMIT_KEYS: &[Binding<SubmitKey>] = &[
    Binding {
        keys: &[key(KeyCode::Enter)],
        label: "Enter",
        help: "on Submit: send the answers",
        hint: "submit",
        command: SubmitKey::Submit,
    },
    Binding {
        keys: &[key(KeyCode::Tab), key(KeyCode::Right)],
        label: "Tab/→",
        help: "",
        hint: "first question",
        command: SubmitKey::Next,
    },
    Binding {
        keys: &[key(KeyCode::BackTab), key(KeyCode::Left)],
        label: "Shift+Tab/←",
        help: "",
        hint: "back",
        command: SubmitKey::Previous,
    },
    Binding {
        keys: &[key(KeyCode::Esc)],
        label: "Esc",
        help: "",
        hint: "stop",
        command: SubmitKey::Stop,
    },
];

/// One question and the user's choices so far.
#[derive(Debug, Clone)]
pub struct Question {
    pub question: String,
    pub header: String,
    pub multi: bool,
    /// The options, then the Other row; the selection is the cursor.
    pub choice: ChoiceDialog,
    /// Chosen rows (options, then Other).
    pub chosen: Vec<bool>,
}

impl Question {
    fn other_row(&self) -> usize {
        self.chosen.len() - 1
    }

    /// The answer text, or `None` while unanswered.
    fn answer(&self) -> Option<String> {
        let mut parts: Vec<String> = self
            .choice
            .options
            .iter()
            .zip(&self.chosen)
            .take(self.other_row())
            .filter(|(_, c)| **c)
            .map(|(o, _)| o.clone())
            .collect();
        let other = self.choice.note();
        if self.chosen[self.other_row()] && !other.is_empty() {
            parts.push(other);
        }
        (!parts.is_empty()).then(|| parts.join(", "))
    }

    fn toggle(&mut self, row: usize) {
        if self.multi {
            self.chosen[row] = !self.chosen[row];
        } else {
            self.chosen.iter_mut().for_each(|c| *c = false);
            self.chosen[row] = true;
        }
    }

    /// The check box before row `row`.
    fn mark(&self, row: usize) -> &'static str {
        match (self.multi, self.chosen.get(row).copied().unwrap_or(false)) {
            (true, true) => "[✔] ",
            (true, false) => "[ ] ",
            (false, true) => "● ",
            (false, false) => "○ ",
        }
    }
}

/// State of one AskUserQuestion prompt.
#[derive(Debug, Clone)]
pub struct QuestionDialog {
    pub request: PermissionRequest,
    pub questions: Vec<Question>,
    /// Current tab; `questions.len()` is the Submit tab.
    pub tab: usize,
    pub error: Option<String>,
}

fn parse_questions(input: &Value) -> Option<Vec<Question>> {
    let list = input.get("questions")?.as_array()?;
    let mut out = Vec::new();
    for q in list {
        let text = |v: &Value, k: &str| v.get(k).and_then(Value::as_str).unwrap_or("").to_string();
        let options = q
            .get("options")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        let labels: Vec<String> = options.iter().map(|o| text(o, "label")).collect();
        let details: Vec<String> = options.iter().map(|o| text(o, "description")).collect();
        let n = labels.len();
        out.push(Question {
            question: text(q, "question"),
            header: text(q, "header"),
            multi: q
                .get("multiSelect")
                .and_then(Value::as_bool)
                .unwrap_or(false),
            choice: ChoiceDialog::with_inline_note(labels, details, OTHER_LABEL, OTHER_KEYS),
            chosen: vec![false; n + 1],
        });
    }
    (!out.is_empty()).then_some(out)
}

impl QuestionDialog {
    /// Builds the dialog; gives the request back when its input has no
    /// questions (it is then shown as a plain permission prompt).
    pub fn new(request: PermissionRequest) -> Result<Self, Box<PermissionRequest>> {
        match parse_questions(&request.input) {
            Some(questions) => Ok(Self {
                request,
                questions,
                tab: 0,
                error: None,
            }),
            None => Err(Box::new(request)),
        }
    }

    pub fn focused_text_field(&mut self) -> Option<&mut crate::input::InputBox> {
        self.questions.get_mut(self.tab)?.choice.feedback.as_mut()
    }

    fn submit(&mut self) -> DialogOutcome {
        let mut answers = Map::new();
        for q in &self.questions {
            match q.answer() {
                Some(a) => {
                    answers.insert(q.question.clone(), json!(a));
                }
                None => {
                    self.error = Some(format!("Answer \"{}\" first.", q.question));
                    return DialogOutcome::Pending;
                }
            }
        }
        let mut input = match &self.request.input {
            Value::Object(m) => Value::Object(m.clone()),
            _ => json!({}),
        };
        input["answers"] = Value::Object(answers);
        DialogOutcome::Answer(PermissionAnswer::Allow {
            updated_input: Some(input),
            updated_permissions: None,
        })
    }

    /// After a single choice: the next question, or submit when it was the
    /// only one.
    fn advance(&mut self) -> DialogOutcome {
        if self.questions.len() == 1 && !self.questions[0].multi {
            return self.submit();
        }
        self.tab = (self.tab + 1).min(self.questions.len());
        DialogOutcome::Pending
    }

    fn switch(&mut self, forward: bool) -> DialogOutcome {
        let n = self.questions.len() + 1;
        self.tab = if forward {
            (self.tab + 1) % n
        } else {
            (self.tab + n - 1) % n
        };
        DialogOutcome::Pending
    }

    /// Esc: nothing is answered and the turn stops; the questions stay
    /// open (core tells the model so), as an Esc'd plan stays presented.
    fn stop() -> DialogOutcome {
        DialogOutcome::Stop(PermissionAnswer::Deny {
            message: String::new(),
        })
    }

    pub fn handle_key(&mut self, key: KeyEvent) -> DialogOutcome {
        self.error = None;
        let Some(q) = self.questions.get_mut(self.tab) else {
            return match keymap::command(SUBMIT_KEYS, key) {
                Some(SubmitKey::Submit) => self.submit(),
                Some(SubmitKey::Next) => self.switch(true),
                Some(SubmitKey::Previous) => self.switch(false),
                Some(SubmitKey::Stop) => Self::stop(),
                None => DialogOutcome::Pending,
            };
        };
        let other = q.other_row();
        let outcome = match q.choice.handle_key(KEYS, key) {
            Picked::Pending => {
                // Typing an answer chooses Other.
                if !q.choice.note().is_empty() && !q.chosen[other] {
                    q.toggle(other);
                }
                return DialogOutcome::Pending;
            }
            Picked::Stop => return Self::stop(),
            Picked::Own(Own::Next) => return self.switch(true),
            Picked::Own(Own::Previous) => return self.switch(false),
            Picked::Own(Own::Toggle) => {
                let row = q.choice.selected;
                q.toggle(row);
                return DialogOutcome::Pending;
            }
            Picked::Option(row) => {
                q.choice.selected = row;
                // Enter ticks and moves on; a digit only ticks.
                let moves_on = keymap::command(KEYS, key) == Some(Choice::Confirm);
                q.toggle(row);
                (q.multi, moves_on)
            }
            Picked::Note => {
                if q.choice.note().is_empty() {
                    self.error = Some("Type an answer, or pick an option above.".into());
                    return DialogOutcome::Pending;
                }
                if !q.chosen[other] {
                    q.toggle(other);
                }
                (q.multi, true)
            }
        };
        match outcome {
            (false, _) => self.advance(),
            (true, true) => {
                self.tab += 1;
                DialogOutcome::Pending
            }
            (true, false) => DialogOutcome::Pending,
        }
    }

    /// The hint row of the tab shown: from the table its keys are bound in.
    pub fn hint(&self) -> String {
        match self.questions.get(self.tab) {
            Some(q) => q.choice.hint(KEYS, |o| o != Own::Toggle || q.multi),
            None => keymap::hint(SUBMIT_KEYS, |_| true),
        }
    }

    fn tab_row(&self) -> Line<'static> {
        let dim = Style::default().fg(theme::current().dim);
        let mut tabs = vec![Span::styled("← ", dim)];
        for (i, q) in self.questions.iter().enumerate() {
            let mark = if q.answer().is_some() { "☒" } else { "☐" };
            let label = if q.header.is_empty() {
                format!("Q{}", i + 1)
            } else {
                q.header.clone()
            };
            let style = if i == self.tab {
                Style::default().fg(Color::Black).bg(Color::Cyan)
            } else {
                Style::default()
            };
            tabs.push(Span::styled(format!(" {mark} {label} "), style));
            tabs.push(Span::raw(" "));
        }
        let submit_style = if self.tab == self.questions.len() {
            Style::default().fg(Color::Black).bg(Color::Green)
        } else {
            Style::default().fg(Color::Green)
        };
        tabs.push(Span::styled(" ✔ Submit ", submit_style));
        tabs.push(Span::styled(" →", dim));
        Line::from(tabs)
    }

    fn rows(&self, width: usize) -> (Vec<Line<'static>>, Option<usize>) {
        let bold = Style::default().add_modifier(Modifier::BOLD);
        let mut rows = vec![self.tab_row(), Line::default()];
        let mut field_at = None;
        match self.questions.get(self.tab) {
            Some(q) => {
                rows.push(Line::styled(q.question.clone(), bold));
                let (options, at) = q.choice.rows_marked(|i| q.mark(i));
                field_at = at.map(|at| at + rows.len());
                rows.extend(options);
            }
            None => {
                rows.push(Line::styled("Review your answers", bold));
                for q in &self.questions {
                    let answer = q.answer().unwrap_or_else(|| "(not answered)".into());
                    rows.push(Line::from(vec![
                        Span::raw(format!(" • {} ", q.question)),
                        Span::styled(format!("→ {answer}"), Style::default().fg(Color::Cyan)),
                    ]));
                }
            }
        }
        rows.push(Line::default());
        rows.extend(hint_lines(&self.hint(), width));
        if let Some(e) = &self.error {
            rows.push(Line::styled(e.clone(), Style::default().fg(Color::Red)));
        }
        (rows, field_at)
    }

    pub fn desired_height(&self, width: u16) -> u16 {
        let inner = width.saturating_sub(4);
        wrapped_height(&self.rows(inner as usize).0, inner) + 2
    }

    pub fn render(&self, area: Rect, buf: &mut Buffer) {
        let block = frame_block("Questions", Color::Cyan);
        let inner = block.inner(area);
        block.render(area, buf);
        draw_rows(&self.rows(inner.width as usize).0, inner, buf);
    }

    pub fn cursor(&self, area: Rect) -> Option<(u16, u16)> {
        let q = self.questions.get(self.tab)?;
        let field = q.choice.feedback.as_ref()?;
        let inner = frame_block("", Color::Cyan).inner(area);
        let (rows, at) = self.rows(inner.width as usize);
        let y = wrapped_height(&rows[..at?], inner.width);
        field_cursor(inner, y, &q.choice.field_prefix(|i| q.mark(i)), field)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crossterm::event::KeyModifiers;

    fn request(multi_second: bool) -> PermissionRequest {
        PermissionRequest {
            tool_use_id: "t1".into(),
            tool_name: "AskUserQuestion".into(),
            input: json!({"questions": [
                {"question": "Which database?", "header": "DB", "multiSelect": false,
                 "options": [{"label": "Postgres", "description": "relational"}, {"label": "SQLite", "description": "embedded"}]},
                {"question": "Which features?", "header": "Features", "multiSelect": multi_second,
                 "options": [{"label": "Auth", "description": ""}, {"label": "Search", "description": ""}]}
            ]}),
            reason: String::new(),
            agent_id: None,
            suggestion: None,
            dry_run: false,
        }
    }

    fn key(code: KeyCode) -> KeyEvent {
        KeyEvent::new(code, KeyModifiers::NONE)
    }

    #[test]
    fn answers_single_and_multi_with_other_text() {
        let Ok(mut d) = QuestionDialog::new(request(true)) else {
            panic!("questions")
        };
        assert_eq!(
            d.handle_key(key(KeyCode::Char('2'))),
            DialogOutcome::Pending
        );
        assert_eq!(d.tab, 1);
        d.handle_key(key(KeyCode::Char(' ')));
        d.handle_key(key(KeyCode::Down));
        d.handle_key(key(KeyCode::Down));
        for c in "Billing".chars() {
            d.handle_key(key(KeyCode::Char(c)));
        }
        d.handle_key(key(KeyCode::Enter));
        assert_eq!(d.tab, 2);
        let DialogOutcome::Answer(PermissionAnswer::Allow {
            updated_input: Some(v),
            ..
        }) = d.handle_key(key(KeyCode::Enter))
        else {
            panic!("expected allow");
        };
        assert_eq!(
            v["answers"],
            json!({"Which database?": "SQLite", "Which features?": "Auth, Billing"})
        );
        assert_eq!(v["questions"][0]["header"], "DB");
    }

    #[test]
    fn submit_requires_every_answer_and_esc_declines() {
        let Ok(mut d) = QuestionDialog::new(request(false)) else {
            panic!("questions")
        };
        d.handle_key(key(KeyCode::BackTab));
        assert_eq!(d.handle_key(key(KeyCode::Enter)), DialogOutcome::Pending);
        assert!(
            d.error
                .as_deref()
                .is_some_and(|e| e.contains("Which database?"))
        );
        // Esc stops with nothing said, as on the plan dialog.
        assert_eq!(
            d.handle_key(key(KeyCode::Esc)),
            DialogOutcome::Stop(PermissionAnswer::Deny {
                message: String::new()
            })
        );
    }

    #[test]
    fn hints_name_the_keys_of_the_tab_shown() {
        let Ok(mut d) = QuestionDialog::new(request(true)) else {
            panic!("questions")
        };
        assert_eq!(
            d.hint(),
            "1-3 choose · Tab/→ next · Shift+Tab/← back · Esc stop"
        );
        d.handle_key(key(KeyCode::Tab));
        assert_eq!(
            d.hint(),
            "1-3 choose · Space toggle · Tab/→ next · Shift+Tab/← back · Esc stop"
        );
        d.handle_key(key(KeyCode::Char('3')));
        assert_eq!(
            d.hint(),
            "Enter answers with this text · ↑ options · Esc stop"
        );
        d.handle_key(key(KeyCode::Right));
        assert_eq!(
            d.hint(),
            "Enter submit · Tab/→ first question · Shift+Tab/← back · Esc stop"
        );
    }

    #[test]
    fn other_keeps_its_text_and_arrows_switch_tabs_while_it_is_empty() {
        let Ok(mut d) = QuestionDialog::new(request(true)) else {
            panic!("questions")
        };
        d.handle_key(key(KeyCode::Down));
        d.handle_key(key(KeyCode::Down));
        assert!(d.focused_text_field().is_some(), "Other has the focus");
        // An empty field: → is the next tab.
        d.handle_key(key(KeyCode::Right));
        assert_eq!(d.tab, 1);
        d.handle_key(key(KeyCode::Left));
        assert_eq!(d.tab, 0);
        for c in "Mongo".chars() {
            d.handle_key(key(KeyCode::Char(c)));
        }
        // With text, ← moves in the text; ↑ leaves it and the text stays.
        d.handle_key(key(KeyCode::Left));
        assert_eq!(d.tab, 0);
        d.handle_key(key(KeyCode::Up));
        assert!(d.focused_text_field().is_none());
        assert_eq!(d.questions[0].answer().as_deref(), Some("Mongo"));
        let (rows, _) = d.rows(76);
        assert!(
            rows.iter()
                .any(|r| r.to_string().contains("3. ● Other: Mongo")),
            "{rows:?}"
        );
    }
}
