//! The `AskUserQuestion` dialog: one tab per question plus a Submit tab,
//! single or multiple choice, and an "Other" row that takes free text. The
//! answers go back as `updated_input.answers = {question: answer}`
//! (multiple choices comma-joined).

use catui_core::engine::{PermissionAnswer, PermissionRequest};
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::Widget;
use serde_json::{Map, Value, json};

use super::{DialogOutcome, draw_rows, edit_field, field_cursor, frame_block, wrapped_height};
use crate::input::InputBox;

const OTHER_LABEL: &str = "Other: ";

#[derive(Debug, Clone)]
pub struct QuestionOption {
    pub label: String,
    pub description: String,
}

/// One question and the user's choices so far.
#[derive(Debug, Clone)]
pub struct Question {
    pub question: String,
    pub header: String,
    pub options: Vec<QuestionOption>,
    pub multi: bool,
    /// Row under the cursor; `options.len()` is the Other row.
    pub cursor: usize,
    /// Chosen rows (options, then Other).
    pub chosen: Vec<bool>,
    pub other: InputBox,
}

impl Question {
    fn other_row(&self) -> usize {
        self.options.len()
    }

    /// The answer text, or `None` while unanswered.
    fn answer(&self) -> Option<String> {
        let mut parts: Vec<String> = self
            .options
            .iter()
            .zip(&self.chosen)
            .filter(|(_, c)| **c)
            .map(|(o, _)| o.label.clone())
            .collect();
        let other = self.other.text().trim().to_string();
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
        let text = |k: &str| q.get(k).and_then(Value::as_str).unwrap_or("").to_string();
        let options: Vec<QuestionOption> = q
            .get("options")
            .and_then(Value::as_array)
            .map(|opts| {
                opts.iter()
                    .map(|o| QuestionOption {
                        label: o
                            .get("label")
                            .and_then(Value::as_str)
                            .unwrap_or("")
                            .to_string(),
                        description: o
                            .get("description")
                            .and_then(Value::as_str)
                            .unwrap_or("")
                            .to_string(),
                    })
                    .collect()
            })
            .unwrap_or_default();
        let n = options.len();
        out.push(Question {
            question: text("question"),
            header: text("header"),
            options,
            multi: q
                .get("multiSelect")
                .and_then(Value::as_bool)
                .unwrap_or(false),
            cursor: 0,
            chosen: vec![false; n + 1],
            other: InputBox::new(),
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

    pub fn focused_text_field(&mut self) -> Option<&mut InputBox> {
        let q = self.questions.get_mut(self.tab)?;
        (q.cursor == q.other_row()).then_some(&mut q.other)
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

    pub fn handle_key(&mut self, key: KeyEvent) -> DialogOutcome {
        self.error = None;
        match key.code {
            KeyCode::Esc => {
                return DialogOutcome::Stop(PermissionAnswer::Deny {
                    message: "The user declined to answer the questions.".into(),
                });
            }
            KeyCode::Tab | KeyCode::Right if !self.editing_other() || key.code == KeyCode::Tab => {
                self.tab = (self.tab + 1) % (self.questions.len() + 1);
                return DialogOutcome::Pending;
            }
            KeyCode::BackTab | KeyCode::Left
                if !self.editing_other() || key.code == KeyCode::BackTab =>
            {
                let n = self.questions.len() + 1;
                self.tab = (self.tab + n - 1) % n;
                return DialogOutcome::Pending;
            }
            _ => {}
        }
        let Some(q) = self.questions.get_mut(self.tab) else {
            // The Submit tab.
            return match key.code {
                KeyCode::Enter => self.submit(),
                _ => DialogOutcome::Pending,
            };
        };
        let other = q.other_row();
        match key.code {
            KeyCode::Up => q.cursor = q.cursor.saturating_sub(1),
            KeyCode::Down => q.cursor = (q.cursor + 1).min(other),
            KeyCode::Enter if q.cursor == other => {
                if q.other.text().trim().is_empty() {
                    self.error = Some("Type an answer, or pick an option above.".into());
                    return DialogOutcome::Pending;
                }
                if !q.chosen[other] {
                    q.toggle(other);
                }
                if !q.multi {
                    return self.advance();
                }
                self.tab += 1;
            }
            KeyCode::Enter | KeyCode::Char(' ') if q.cursor != other => {
                let row = q.cursor;
                q.toggle(row);
                if !q.multi {
                    return self.advance();
                }
                if key.code == KeyCode::Enter {
                    self.tab += 1;
                }
            }
            KeyCode::Char(c)
                if q.cursor != other
                    && c.is_ascii_digit()
                    && !key.modifiers.contains(KeyModifiers::CONTROL) =>
            {
                let n = c as usize - '0' as usize;
                if (1..=other + 1).contains(&n) {
                    q.cursor = n - 1;
                    if n - 1 < other {
                        q.toggle(n - 1);
                        if !q.multi {
                            return self.advance();
                        }
                    }
                }
            }
            _ if q.cursor == other => {
                edit_field(&mut q.other, key);
                // Typing an answer chooses Other.
                if !q.other.text().is_empty() && !q.chosen[other] {
                    q.toggle(other);
                }
            }
            _ => {}
        }
        DialogOutcome::Pending
    }

    fn editing_other(&self) -> bool {
        self.questions
            .get(self.tab)
            .is_some_and(|q| q.cursor == q.other_row() && !q.other.is_empty())
    }

    fn rows(&self) -> (Vec<Line<'static>>, Option<usize>) {
        let dim = Style::default().fg(Color::DarkGray);
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
        let mut rows = vec![Line::from(tabs), Line::default()];
        let mut field_at = None;
        match self.questions.get(self.tab) {
            Some(q) => {
                rows.push(Line::styled(
                    q.question.clone(),
                    Style::default().add_modifier(Modifier::BOLD),
                ));
                for (i, o) in q.options.iter().enumerate() {
                    rows.push(option_line(q, i, &o.label, &o.description));
                }
                field_at = Some(rows.len());
                let mut other = option_line(q, q.other_row(), "", "");
                other.spans.push(Span::styled(OTHER_LABEL, dim));
                other
                    .spans
                    .push(Span::raw(q.other.text().replace('\n', " ")));
                rows.push(other);
                rows.push(Line::default());
                let how = if q.multi {
                    "Space/Enter toggle · Tab next · Esc cancel"
                } else {
                    "Enter select · Tab/←→ switch · Esc cancel"
                };
                rows.push(Line::styled(how, dim));
            }
            None => {
                rows.push(Line::styled(
                    "Review your answers",
                    Style::default().add_modifier(Modifier::BOLD),
                ));
                for q in &self.questions {
                    let answer = q.answer().unwrap_or_else(|| "(not answered)".into());
                    rows.push(Line::from(vec![
                        Span::raw(format!(" • {} ", q.question)),
                        Span::styled(format!("→ {answer}"), Style::default().fg(Color::Cyan)),
                    ]));
                }
                rows.push(Line::default());
                rows.push(Line::styled("Enter submit · Esc cancel", dim));
            }
        }
        if let Some(e) = &self.error {
            rows.push(Line::styled(e.clone(), Style::default().fg(Color::Red)));
        }
        (rows, field_at)
    }

    fn field_prefix(&self) -> String {
        let Some(q) = self.questions.get(self.tab) else {
            return String::new();
        };
        let head = option_line(q, q.other_row(), "", "").to_string();
        format!("{head}{OTHER_LABEL}")
    }

    pub fn desired_height(&self, width: u16) -> u16 {
        wrapped_height(&self.rows().0, width.saturating_sub(2)) + 2
    }

    pub fn render(&self, area: Rect, buf: &mut Buffer) {
        let block = frame_block("Questions", Color::Cyan);
        let inner = block.inner(area);
        block.render(area, buf);
        draw_rows(&self.rows().0, inner, buf);
    }

    pub fn cursor(&self, area: Rect) -> Option<(u16, u16)> {
        let q = self.questions.get(self.tab)?;
        if q.cursor != q.other_row() {
            return None;
        }
        let inner = frame_block("", Color::Cyan).inner(area);
        let (rows, at) = self.rows();
        let at = at?;
        let y = wrapped_height(&rows[..at], inner.width);
        field_cursor(inner, y, &self.field_prefix(), &q.other)
    }
}

fn option_line(q: &Question, row: usize, label: &str, description: &str) -> Line<'static> {
    let at = q.cursor == row;
    let check = match (q.multi, q.chosen[row]) {
        (true, true) => "[✔] ",
        (true, false) => "[ ] ",
        (false, true) => "● ",
        (false, false) => "○ ",
    };
    let style = if at {
        Style::default()
            .fg(Color::Cyan)
            .add_modifier(Modifier::BOLD)
    } else {
        Style::default()
    };
    let mut spans = vec![Span::styled(
        format!(
            "{}{}. {check}{label}",
            if at { "❯ " } else { "  " },
            row + 1
        ),
        style,
    )];
    if !description.is_empty() {
        spans.push(Span::styled(
            format!("  {description}"),
            Style::default().fg(Color::DarkGray),
        ));
    }
    Line::from(spans)
}

#[cfg(test)]
mod tests {
    use super::*;

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
        assert!(matches!(
            d.handle_key(key(KeyCode::Esc)),
            DialogOutcome::Stop(PermissionAnswer::Deny { .. })
        ));
    }
}
