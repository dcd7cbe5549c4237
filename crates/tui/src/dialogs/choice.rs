//! The part every choice dialog shares: numbered options with the
//! selected one marked, the note field one option opens ("No, and tell the
//! agent…"), the keys that move between them (bound in the dialog's table
//! from [`crate::keymap`]) and the hint row made from that same table.
//! A dialog adds an option by adding a label; its own keys are rows of its
//! table that come back as [`Picked::Own`]. The note is either opened by
//! its option and closed again (the permission dialog's "No, and tell the
//! agent…") or a row of the list that keeps its text while the cursor is
//! elsewhere (the question dialog's "Other").

use crossterm::event::{KeyCode, KeyEvent};
use ratatui::style::Style;
use ratatui::text::{Line, Span};

use super::{edit_field, field_row, option_rows};
use crate::input::InputBox;
use crate::keymap::{self, Binding, Choice, NOTE, Note};
use crate::theme;

/// What a key did to the options.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Picked<O> {
    Pending,
    /// This option was chosen (never the one that opens the note).
    Option(usize),
    /// The note was sent (Enter in the field).
    Note,
    /// Esc: stop.
    Stop,
    /// A key of the dialog's own.
    Own(O),
}

/// Options, selection and note field of one dialog.
#[derive(Debug, Clone)]
pub struct ChoiceDialog {
    pub options: Vec<String>,
    /// Dim words after an option (empty: none).
    pub details: Vec<String>,
    pub selected: usize,
    /// The option that opens the note field instead of answering.
    pub note_option: Option<usize>,
    pub note_label: &'static str,
    /// The note field while it has focus.
    pub feedback: Option<InputBox>,
    /// The keys while the note has focus, and their hint.
    pub note_keys: &'static [Binding<Note>],
    /// The note is a row of the list: it shows its text while the cursor
    /// is elsewhere (kept in `kept`) and takes focus when selected.
    pub inline_note: bool,
    kept: Option<InputBox>,
}

impl ChoiceDialog {
    pub fn new(options: Vec<String>, note_option: Option<usize>, note_label: &'static str) -> Self {
        Self {
            options,
            details: Vec::new(),
            selected: 0,
            note_option,
            note_label,
            feedback: None,
            note_keys: NOTE,
            inline_note: false,
            kept: None,
        }
    }

    /// A list whose last row is a note of its own (an "Other" answer):
    /// `options` and their `details`, then the note row labelled
    /// `note_label`, bound by `note_keys`.
    pub fn with_inline_note(
        options: Vec<String>,
        details: Vec<String>,
        note_label: &'static str,
        note_keys: &'static [Binding<Note>],
    ) -> Self {
        let at = options.len();
        let mut options = options;
        options.push(String::new());
        Self {
            details,
            note_keys,
            inline_note: true,
            ..Self::new(options, Some(at), note_label)
        }
    }

    /// The note field, focused or kept.
    pub fn note_field(&self) -> Option<&InputBox> {
        self.feedback.as_ref().or(self.kept.as_ref())
    }

    /// The note typed so far, trimmed.
    pub fn note(&self) -> String {
        self.note_field()
            .map(|f| f.text().trim().to_string())
            .unwrap_or_default()
    }

    /// Opens the note field (selecting its option).
    pub fn open_note(&mut self) {
        if let Some(at) = self.note_option {
            self.selected = at;
        }
        if self.feedback.is_none() {
            self.feedback = Some(self.kept.take().unwrap_or_default());
        }
    }

    /// Gives the focus back to the options (an inline note keeps its text).
    fn leave_note(&mut self) {
        let field = self.feedback.take();
        if self.inline_note {
            self.kept = field;
        }
        self.selected = self.selected.saturating_sub(1);
    }

    /// Moves the selection to `i` (an inline note takes the focus there).
    fn select(&mut self, i: usize) {
        self.selected = i;
        if self.inline_note && Some(i) == self.note_option {
            self.open_note();
        }
    }

    /// Chooses option `i`: the note's option opens the field.
    pub fn choose<O>(&mut self, i: usize) -> Picked<O> {
        if Some(i) == self.note_option {
            self.open_note();
            return Picked::Pending;
        }
        Picked::Option(i)
    }

    /// One key, as `table` binds it (the note field's keys while it has
    /// focus).
    pub fn handle_key<O: Copy>(
        &mut self,
        table: &[Binding<Choice<O>>],
        key: KeyEvent,
    ) -> Picked<O> {
        if let Some(field) = self.feedback.as_mut() {
            // Keys that would not change an empty field (←/→) are the
            // dialog's own there (the question dialog's tabs).
            let idle = field.is_empty()
                && matches!(
                    key.code,
                    KeyCode::Left | KeyCode::Right | KeyCode::Home | KeyCode::End
                );
            match keymap::command(self.note_keys, key) {
                Some(Note::Send) => return Picked::Note,
                Some(Note::Stop) => return Picked::Stop,
                Some(Note::Back) => self.leave_note(),
                None => {
                    if idle && let Some(Choice::Own(o)) = keymap::command(table, key) {
                        return Picked::Own(o);
                    }
                    if !edit_field(field, key) {
                        // Keys of the dialog's own that are not typing
                        // (PgUp/PgDn, Ctrl+G) still work.
                        if let Some(Choice::Own(o)) = keymap::command(table, key) {
                            return Picked::Own(o);
                        }
                    }
                }
            }
            return Picked::Pending;
        }
        let last = self.options.len().saturating_sub(1);
        match keymap::command(table, key) {
            Some(Choice::Confirm) => self.choose(self.selected),
            Some(Choice::Number) => match key.code {
                KeyCode::Char(c) => match c.to_digit(10) {
                    Some(n) if n >= 1 && (n as usize - 1) <= last => self.choose(n as usize - 1),
                    _ => Picked::Pending,
                },
                _ => Picked::Pending,
            },
            Some(Choice::Up) => {
                self.select(self.selected.saturating_sub(1));
                Picked::Pending
            }
            Some(Choice::Down) => {
                self.select((self.selected + 1).min(last));
                Picked::Pending
            }
            Some(Choice::Stop) => Picked::Stop,
            Some(Choice::Own(o)) => Picked::Own(o),
            None => Picked::Pending,
        }
    }

    /// The option rows and, when open, the note field; the index of the
    /// field's row.
    pub fn rows(&self) -> (Vec<Line<'static>>, Option<usize>) {
        self.rows_marked(|_| "")
    }

    /// [`ChoiceDialog::rows`] with `mark(i)` before option `i`'s label (a
    /// check box); an inline note is the last option row, its field after
    /// the mark.
    pub fn rows_marked<'m>(
        &self,
        mark: impl Fn(usize) -> &'m str,
    ) -> (Vec<Line<'static>>, Option<usize>) {
        let labels: Vec<String> = self
            .options
            .iter()
            .enumerate()
            .map(|(i, o)| format!("{}{o}", mark(i)))
            .collect();
        let mut rows = option_rows(&labels, self.selected);
        for (row, detail) in rows.iter_mut().zip(&self.details) {
            if !detail.is_empty() {
                row.spans.push(Span::styled(
                    format!("  {detail}"),
                    Style::default().fg(theme::current().dim),
                ));
            }
        }
        if self.inline_note
            && let Some(at) = self.note_option
            && let Some(row) = rows.get_mut(at)
        {
            let empty = InputBox::new();
            let field = field_row(self.note_label, self.note_field().unwrap_or(&empty));
            row.spans.extend(field.spans);
            let focused = self.feedback.is_some().then_some(at);
            return (rows, focused);
        }
        let mut at = None;
        if let Some(f) = &self.feedback {
            at = Some(rows.len());
            rows.push(field_row(self.note_label, f));
        }
        (rows, at)
    }

    /// The text before the note field's first character on its row (for
    /// the terminal cursor), with `mark` as given to
    /// [`ChoiceDialog::rows_marked`].
    pub fn field_prefix<'m>(&self, mark: impl Fn(usize) -> &'m str) -> String {
        match self.note_option {
            Some(at) if self.inline_note => {
                let marker = if self.selected == at { "❯ " } else { "  " };
                format!("{marker}{}. {}{}", at + 1, mark(at), self.note_label)
            }
            _ => self.note_label.to_string(),
        }
    }

    /// The hint row from `table` (the note field's keys while it is open):
    /// the shared keys, then the dialog's own that `own` shows.
    pub fn hint<O: Copy>(&self, table: &[Binding<Choice<O>>], own: impl Fn(O) -> bool) -> String {
        if self.feedback.is_some() {
            return keymap::hint(self.note_keys, |_| true);
        }
        let n = self.options.len();
        keymap::hint_with(
            table,
            |c| match c {
                Choice::Own(o) => own(o),
                _ => true,
            },
            |b| match b.command {
                Choice::Number => keymap::number_label(n),
                _ => b.label.to_string(),
            },
        )
    }

    /// [`ChoiceDialog::hint`] as dim rows, split at ` · ` so that no hint
    /// is cut at `width` (each row starts with two spaces).
    pub fn hint_rows<O: Copy>(
        &self,
        table: &[Binding<Choice<O>>],
        own: impl Fn(O) -> bool,
        width: usize,
    ) -> Vec<Line<'static>> {
        hint_lines(&self.hint(table, own), width)
    }
}

/// A hint as dim rows of at most `width` columns, broken between its
/// ` · `-separated parts (a part never breaks unless it alone is wider).
pub fn hint_lines(hint: &str, width: usize) -> Vec<Line<'static>> {
    let dim = Style::default().fg(theme::current().dim);
    let mut rows: Vec<String> = Vec::new();
    let mut row = String::from(" ");
    for part in hint.split(" · ") {
        let sep = if row.trim().is_empty() { " " } else { " · " };
        let candidate = format!("{row}{sep}{part}");
        if crate::wrap::str_width(&candidate) > width && !row.trim().is_empty() {
            rows.push(std::mem::replace(&mut row, format!("  {part}")));
        } else {
            row = candidate;
        }
    }
    if !row.trim().is_empty() {
        rows.push(row);
    }
    rows.into_iter().map(|r| Line::styled(r, dim)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crossterm::event::KeyModifiers;

    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    enum Own {
        View,
    }

    const TABLE: &[Binding<Choice<Own>>] = &{
        let [a, b, c, d, e] = keymap::choice_rows!(Own);
        [
            a,
            b,
            c,
            d,
            Binding {
                keys: &[keymap::ch('v')],
                label: "v",
                help: "view",
                hint: "view",
                command: Choice::Own(Own::View),
            },
            e,
        ]
    };

    fn key(code: KeyCode) -> KeyEvent {
        KeyEvent::new(code, KeyModifiers::NONE)
    }

    #[test]
    fn numbers_enter_note_and_own_keys() {
        let mut d = ChoiceDialog::new(vec!["Yes".into(), "No".into()], Some(1), "  Why: ");
        assert_eq!(
            d.handle_key(TABLE, key(KeyCode::Char('1'))),
            Picked::Option(0)
        );
        assert_eq!(
            d.handle_key(TABLE, key(KeyCode::Char('3'))),
            Picked::Pending
        );
        assert_eq!(
            d.handle_key(TABLE, key(KeyCode::Char('v'))),
            Picked::Own(Own::View)
        );
        assert_eq!(
            d.handle_key(TABLE, key(KeyCode::Char('2'))),
            Picked::Pending
        );
        assert!(d.feedback.is_some());
        assert_eq!(
            d.hint(TABLE, |_| true),
            "Enter sends the note · ↑ options · Esc stops"
        );
        d.handle_key(TABLE, key(KeyCode::Char('v')));
        assert_eq!(d.note(), "v");
        assert_eq!(d.handle_key(TABLE, key(KeyCode::Enter)), Picked::Note);
        assert_eq!(d.handle_key(TABLE, key(KeyCode::Up)), Picked::Pending);
        assert!(d.feedback.is_none());
        assert_eq!(d.hint(TABLE, |_| true), "1-2 choose · v view · Esc stop");
        assert_eq!(d.handle_key(TABLE, key(KeyCode::Esc)), Picked::Stop);
    }

    #[test]
    fn hints_break_between_parts() {
        let rows = hint_lines("Enter choose · Esc stop · v view it whole", 22);
        let text: Vec<String> = rows.iter().map(|r| r.to_string()).collect();
        assert_eq!(text, ["  Enter choose", "  Esc stop", "  v view it whole"]);
    }
}
