//! The multi-line input box: text editing with a cursor, history recall,
//! pasted-text placeholders, and layout of the text into rows for a given
//! width (wide characters take two cells). Pure state; rendering is in
//! `render`.

use crate::wrap::char_width;

/// Pastes longer than this many lines are shown as a placeholder.
const PASTE_PLACEHOLDER_LINES: usize = 8;

/// Editable text with history.
#[derive(Debug, Clone)]
pub struct InputBox {
    lines: Vec<String>,
    /// Cursor row (index into `lines`).
    row: usize,
    /// Cursor column in characters (not bytes, not cells).
    col: usize,
    history: Vec<String>,
    /// Position while browsing history; `None` = editing the draft.
    history_pos: Option<usize>,
    draft: String,
    /// Placeholders shown in the box and the pasted text they stand for.
    pastes: Vec<(String, String)>,
}

/// An empty box: one empty line (the cursor is always on a line).
impl Default for InputBox {
    fn default() -> Self {
        Self {
            lines: vec![String::new()],
            row: 0,
            col: 0,
            history: Vec::new(),
            history_pos: None,
            draft: String::new(),
            pastes: Vec::new(),
        }
    }
}

impl InputBox {
    pub fn new() -> Self {
        Self::default()
    }

    /// The text as shown (placeholders not expanded).
    pub fn text(&self) -> String {
        self.lines.join("\n")
    }

    pub fn is_empty(&self) -> bool {
        self.lines.len() == 1 && self.lines[0].is_empty()
    }

    pub fn lines(&self) -> &[String] {
        &self.lines
    }

    /// (row, column in characters).
    pub fn cursor(&self) -> (usize, usize) {
        (self.row, self.col)
    }

    /// Replaces the text and puts the cursor at its end.
    pub fn set_text(&mut self, text: &str) {
        self.lines = text.split('\n').map(str::to_string).collect();
        if self.lines.is_empty() {
            self.lines.push(String::new());
        }
        self.row = self.lines.len() - 1;
        self.col = self.lines[self.row].chars().count();
    }

    pub fn clear(&mut self) {
        self.set_text("");
        self.pastes.clear();
        self.history_pos = None;
    }

    fn byte_index(line: &str, col: usize) -> usize {
        line.char_indices()
            .nth(col)
            .map(|(i, _)| i)
            .unwrap_or(line.len())
    }

    fn line_len(&self, row: usize) -> usize {
        self.lines.get(row).map(|l| l.chars().count()).unwrap_or(0)
    }

    pub fn insert_char(&mut self, c: char) {
        if c == '\n' {
            self.newline();
            return;
        }
        let line = &mut self.lines[self.row];
        let at = Self::byte_index(line, self.col);
        line.insert(at, c);
        self.col += 1;
    }

    pub fn insert_str(&mut self, s: &str) {
        let s = s.replace("\r\n", "\n").replace('\r', "\n");
        for c in s.chars() {
            self.insert_char(c);
        }
    }

    /// Inserts pasted text; long pastes become a `[Pasted N lines]`
    /// placeholder that [`InputBox::submit`] expands.
    pub fn paste(&mut self, text: &str) {
        let text = text.replace("\r\n", "\n").replace('\r', "\n");
        let n = text.lines().count();
        if n > PASTE_PLACEHOLDER_LINES {
            let id = self.pastes.len() + 1;
            let label = if id == 1 {
                format!("[Pasted {n} lines]")
            } else {
                format!("[Pasted #{id}: {n} lines]")
            };
            self.insert_str(&label);
            self.pastes.push((label, text));
        } else {
            self.insert_str(&text);
        }
    }

    pub fn newline(&mut self) {
        let line = &mut self.lines[self.row];
        let at = Self::byte_index(line, self.col);
        let rest = line.split_off(at);
        self.lines.insert(self.row + 1, rest);
        self.row += 1;
        self.col = 0;
    }

    pub fn backspace(&mut self) {
        if self.col > 0 {
            let line = &mut self.lines[self.row];
            let at = Self::byte_index(line, self.col - 1);
            line.remove(at);
            self.col -= 1;
        } else if self.row > 0 {
            let line = self.lines.remove(self.row);
            self.row -= 1;
            self.col = self.line_len(self.row);
            self.lines[self.row].push_str(&line);
        }
    }

    pub fn delete(&mut self) {
        if self.col < self.line_len(self.row) {
            let line = &mut self.lines[self.row];
            let at = Self::byte_index(line, self.col);
            line.remove(at);
        } else if self.row + 1 < self.lines.len() {
            let next = self.lines.remove(self.row + 1);
            self.lines[self.row].push_str(&next);
        }
    }

    /// Deletes the word before the cursor (Ctrl+W).
    pub fn delete_word_back(&mut self) {
        let chars: Vec<char> = self.lines[self.row].chars().collect();
        let mut start = self.col;
        while start > 0 && chars[start - 1].is_whitespace() {
            start -= 1;
        }
        while start > 0 && !chars[start - 1].is_whitespace() {
            start -= 1;
        }
        if start == self.col {
            self.backspace();
            return;
        }
        let line = &mut self.lines[self.row];
        let from = Self::byte_index(line, start);
        let to = Self::byte_index(line, self.col);
        line.replace_range(from..to, "");
        self.col = start;
    }

    /// Deletes from the start of the line to the cursor (Ctrl+U).
    pub fn kill_to_line_start(&mut self) {
        let line = &mut self.lines[self.row];
        let to = Self::byte_index(line, self.col);
        line.replace_range(..to, "");
        self.col = 0;
    }

    /// Deletes from the cursor to the end of the line (Ctrl+K).
    pub fn kill_to_line_end(&mut self) {
        let line = &mut self.lines[self.row];
        let from = Self::byte_index(line, self.col);
        line.truncate(from);
    }

    pub fn left(&mut self) {
        if self.col > 0 {
            self.col -= 1;
        } else if self.row > 0 {
            self.row -= 1;
            self.col = self.line_len(self.row);
        }
    }

    pub fn right(&mut self) {
        if self.col < self.line_len(self.row) {
            self.col += 1;
        } else if self.row + 1 < self.lines.len() {
            self.row += 1;
            self.col = 0;
        }
    }

    pub fn home(&mut self) {
        self.col = 0;
    }

    pub fn end(&mut self) {
        self.col = self.line_len(self.row);
    }

    /// Moves up a line; on the first line, recalls the previous history
    /// entry instead.
    pub fn up(&mut self) {
        if self.row > 0 {
            self.row -= 1;
            self.col = self.col.min(self.line_len(self.row));
        } else {
            self.history_prev();
        }
    }

    /// Moves down a line; on the last line, recalls the next history entry.
    pub fn down(&mut self) {
        if self.row + 1 < self.lines.len() {
            self.row += 1;
            self.col = self.col.min(self.line_len(self.row));
        } else {
            self.history_next();
        }
    }

    fn history_prev(&mut self) {
        if self.history.is_empty() {
            return;
        }
        let pos = match self.history_pos {
            None => {
                self.draft = self.text();
                self.history.len() - 1
            }
            Some(0) => return,
            Some(p) => p - 1,
        };
        self.history_pos = Some(pos);
        let text = self.history[pos].clone();
        self.set_text(&text);
    }

    fn history_next(&mut self) {
        let Some(pos) = self.history_pos else {
            return;
        };
        if pos + 1 < self.history.len() {
            self.history_pos = Some(pos + 1);
            let text = self.history[pos + 1].clone();
            self.set_text(&text);
        } else {
            self.history_pos = None;
            let draft = std::mem::take(&mut self.draft);
            self.set_text(&draft);
        }
    }

    /// Takes the text for sending: placeholders expanded, the shown text
    /// added to history, the box cleared. `None` when there is nothing.
    pub fn submit(&mut self) -> Option<String> {
        let shown = self.text();
        if shown.trim().is_empty() {
            return None;
        }
        let mut full = shown;
        for (label, text) in &self.pastes {
            full = full.replacen(label.as_str(), text, 1);
        }
        if self.history.last() != Some(&full) {
            self.history.push(full.clone());
        }
        self.clear();
        Some(full)
    }

    /// Lays the text out in rows of at most `width` cells. Returns the rows
    /// and the cursor's (row, cell column) within them.
    pub fn layout(&self, width: usize) -> (Vec<String>, (usize, usize)) {
        let width = width.max(2);
        let mut rows = Vec::new();
        let mut cursor = (0, 0);
        for (li, line) in self.lines.iter().enumerate() {
            let mut row = String::new();
            let mut w = 0;
            let mut placed = false;
            for (ci, c) in line.chars().enumerate() {
                let cw = char_width(c);
                if w + cw > width {
                    rows.push(std::mem::take(&mut row));
                    w = 0;
                }
                if li == self.row && ci == self.col {
                    cursor = (rows.len(), w);
                    placed = true;
                }
                row.push(c);
                w += cw;
            }
            if li == self.row && !placed {
                // Cursor after the last character: wrap when the row is full.
                if w >= width {
                    rows.push(std::mem::take(&mut row));
                    w = 0;
                }
                cursor = (rows.len(), w);
            }
            rows.push(row);
        }
        (rows, cursor)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn typed(s: &str) -> InputBox {
        let mut b = InputBox::new();
        b.insert_str(s);
        b
    }

    #[test]
    fn edits_in_the_middle_of_a_line() {
        let mut b = typed("helo");
        b.left();
        b.insert_char('l');
        assert_eq!(b.text(), "hello");
        b.end();
        b.backspace();
        b.home();
        b.delete();
        assert_eq!(b.text(), "ell");
    }

    #[test]
    fn newline_splits_and_backspace_joins() {
        let mut b = typed("abcd");
        b.left();
        b.left();
        b.newline();
        assert_eq!(b.lines(), ["ab", "cd"]);
        assert_eq!(b.cursor(), (1, 0));
        b.backspace();
        assert_eq!(b.text(), "abcd");
        assert_eq!(b.cursor(), (0, 2));
    }

    #[test]
    fn word_and_line_kills() {
        let mut b = typed("git commit -m");
        b.delete_word_back();
        assert_eq!(b.text(), "git commit ");
        b.home();
        b.right();
        b.kill_to_line_end();
        assert_eq!(b.text(), "g");
        b.end();
        b.kill_to_line_start();
        assert!(b.is_empty());
    }

    #[test]
    fn history_recalls_on_first_and_last_line_only() {
        let mut b = InputBox::new();
        for s in ["first", "second"] {
            b.insert_str(s);
            assert_eq!(b.submit().as_deref(), Some(s));
        }
        b.insert_str("draft");
        b.up();
        assert_eq!(b.text(), "second");
        b.up();
        assert_eq!(b.text(), "first");
        b.up();
        assert_eq!(b.text(), "first");
        b.down();
        b.down();
        assert_eq!(b.text(), "draft");

        // Inside multi-line text Up moves the cursor instead.
        let mut m = typed("a\nb");
        m.history = vec!["old".into()];
        m.up();
        assert_eq!(m.text(), "a\nb");
        assert_eq!(m.cursor().0, 0);
        m.up();
        assert_eq!(m.text(), "old");
    }

    #[test]
    fn wide_characters_are_edited_and_laid_out_by_cells() {
        let mut b = typed("日本語");
        b.left();
        b.backspace();
        assert_eq!(b.text(), "日語");
        let (rows, cursor) = typed("日本語テキスト").layout(6);
        assert_eq!(rows, ["日本語", "テキス", "ト"]);
        assert_eq!(cursor, (2, 2));
    }

    #[test]
    fn long_pastes_become_placeholders_expanded_on_submit() {
        let mut b = typed("see: ");
        let pasted: String = (1..=20).map(|i| format!("line {i}\r\n")).collect();
        b.paste(&pasted);
        assert_eq!(b.text(), "see: [Pasted 20 lines]");
        let sent = b.submit().unwrap_or_default();
        assert!(sent.starts_with("see: line 1\nline 2\n"));
        assert!(sent.contains("line 20"));
        let mut s = InputBox::new();
        s.paste("one\ntwo");
        assert_eq!(s.lines(), ["one", "two"]);
    }

    #[test]
    fn empty_input_is_not_submitted() {
        let mut b = typed("   ");
        assert_eq!(b.submit(), None);
    }
}
