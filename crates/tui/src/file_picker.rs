//! The `@` file picker in the input box: typing `@` at the start of a word
//! lists the project's files (crates/fuzzy: walked once in the background,
//! `.gitignore` respected) ranked against what follows the `@`. Up/Down
//! choose, Tab or Enter put `@path` in place of what was typed, Esc closes
//! the list and leaves the text. On send, core's `engine::mentions`
//! attaches what the `@path` names, so the picker only has to write it.
//!
//! The matches are worked out when the input or the list changes
//! ([`FilePicker::update`], after each key and on the frame tick while the
//! walk adds paths), so drawing stays a pure function of the state.

use catui_fuzzy::{FileIndex, IndexStatus, Matcher};
use catui_protocol::terminal::sanitize;
use crossterm::event::{KeyCode, KeyEvent};
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};

use crate::input::InputBox;
use crate::palette;
use crate::theme;
use crate::wrap::{str_width, truncate};

/// Matches shown at once; the list scrolls with the selection.
pub const PICKER_ROWS: usize = 5;
/// Matches ranked for each query (the rest are counted, not ranked).
const RANKED: usize = 50;

/// The `@` word being typed: where its `@` is and what follows it up to
/// the cursor.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mention {
    pub row: usize,
    /// Column (in characters) of the `@`.
    pub at: usize,
    pub query: String,
}

/// The word ending at the cursor, when it starts with `@`.
pub fn mention_at_cursor(input: &InputBox) -> Option<Mention> {
    let (row, col) = input.cursor();
    let line = input.lines().get(row)?;
    let before: Vec<char> = line.chars().take(col).collect();
    let start = before
        .iter()
        .rposition(|c| c.is_whitespace())
        .map_or(0, |i| i + 1);
    let word: String = before[start..].iter().collect();
    let query = word.strip_prefix('@')?;
    Some(Mention {
        row,
        at: start,
        query: query.to_string(),
    })
}

/// The picker's state: the index, the matches for the current `@` word,
/// the highlighted one.
#[derive(Debug)]
pub struct FilePicker {
    index: FileIndex,
    matcher: Matcher,
    /// The `@` word the matches are for (`None`: closed).
    mention: Option<Mention>,
    /// The list (generation, length) the matches came from.
    seen: (u64, usize),
    /// Paths, best first.
    matches: Vec<String>,
    /// How many paths matched in all.
    matched: usize,
    selected: usize,
    /// The `@` (row, column) Esc closed the picker on: it stays closed
    /// until the cursor leaves that word.
    dismissed: Option<(usize, usize)>,
}

impl FilePicker {
    /// A picker over the files under `root`; nothing is walked until the
    /// first `@`.
    pub fn new(root: &str) -> FilePicker {
        FilePicker {
            index: FileIndex::new(root),
            matcher: Matcher::default(),
            mention: None,
            seen: (0, 0),
            matches: Vec::new(),
            matched: 0,
            selected: 0,
            dismissed: None,
        }
    }

    /// Whether the list shows (an `@` word is being typed).
    pub fn is_open(&self) -> bool {
        self.mention.is_some()
    }

    /// Follows the input (and the walk): opens, re-ranks or closes the
    /// list. Returns whether what is shown changed.
    pub fn update(&mut self, input: &InputBox) -> bool {
        let mention = mention_at_cursor(input);
        if mention.as_ref().map(|m| (m.row, m.at)) != self.dismissed {
            self.dismissed = None;
        }
        let Some(mention) = mention.filter(|_| self.dismissed.is_none()) else {
            let was_open = self.mention.take().is_some();
            self.matches.clear();
            return was_open;
        };
        if self.mention.is_none() {
            self.index.open();
        }
        let same_query = self.mention.as_ref() == Some(&mention);
        if same_query && !self.index.changed_since(self.seen) {
            return false;
        }
        let (matcher, query) = (&mut self.matcher, mention.query.as_str());
        let (best, seen) = self.index.with_entries(|entries, generation| {
            let best = matcher.rank(entries, generation, query, RANKED);
            let paths: Vec<String> = best
                .iter()
                .map(|&i| entries[i].path().to_string())
                .collect();
            (paths, (generation, entries.len()))
        });
        if !same_query {
            self.selected = 0;
        }
        self.matched = self.matcher.matched();
        self.selected = self.selected.min(best.len().saturating_sub(1));
        self.matches = best;
        self.seen = seen;
        self.mention = Some(mention);
        true
    }

    /// The picker's keys while it shows: Up/Down, Tab and Enter (insert
    /// the highlighted path, when there is one), Esc (close). Returns
    /// whether the key was the picker's.
    pub fn key(&mut self, key: KeyEvent, input: &mut InputBox) -> bool {
        let Some(mention) = self.mention.clone() else {
            return false;
        };
        let plain = key.modifiers.is_empty();
        match key.code {
            KeyCode::Esc => {
                self.dismissed = Some((mention.row, mention.at));
                self.update(input);
            }
            KeyCode::Up if !self.matches.is_empty() => {
                self.selected = self.selected.saturating_sub(1);
            }
            KeyCode::Down if !self.matches.is_empty() => {
                self.selected = (self.selected + 1).min(self.matches.len() - 1);
            }
            KeyCode::Tab | KeyCode::Enter if plain && !self.matches.is_empty() => {
                let path = self.matches[self.selected].clone();
                insert(input, &mention, &path);
                self.update(input);
            }
            _ => return false,
        }
        true
    }

    /// The rows drawn above the input box while the picker shows.
    pub fn rows(&self, width: usize) -> Vec<Line<'static>> {
        if self.mention.is_none() {
            return Vec::new();
        }
        let t = theme::current();
        let dim = Style::default().fg(t.dim);
        let mut rows = Vec::new();
        let range = palette::window(self.matches.len(), self.selected, PICKER_ROWS);
        for i in range {
            let style = if i == self.selected {
                Style::default().fg(t.accent).add_modifier(Modifier::BOLD)
            } else {
                Style::default()
            };
            let shown = fit_path(&sanitize(&self.matches[i]), width.saturating_sub(3));
            rows.push(Line::from(Span::styled(format!("  @{shown}"), style)));
        }
        rows.push(Line::styled(truncate(&self.footer(), width), dim));
        rows
    }

    /// The last row: how many matched, or why there is nothing yet.
    fn footer(&self) -> String {
        let keys = "↑↓ choose · tab/enter insert · esc close";
        match self.index.status() {
            IndexStatus::NotStarted => String::new(),
            IndexStatus::Walking { found } if self.matches.is_empty() => {
                format!("  listing files… {found} so far")
            }
            _ if self.matches.is_empty() => "  no matching files · esc close".to_string(),
            IndexStatus::Ready {
                truncated: true, ..
            } => format!(
                "  {} of the first {} files · {keys}",
                self.matched,
                catui_fuzzy::MAX_ENTRIES
            ),
            _ if self.matched == 1 => format!("  1 file · {keys}"),
            _ => format!("  {} files · {keys}", self.matched),
        }
    }
}

/// Replaces the `@` word before the cursor with `@path`; a file is
/// followed by a space (the mention is done), a directory is not, so
/// typing on narrows to what is inside it.
fn insert(input: &mut InputBox, mention: &Mention, path: &str) {
    let typed = 1 + mention.query.chars().count();
    for _ in 0..typed {
        input.backspace();
    }
    input.insert_str(&format!("@{path}"));
    if !path.ends_with('/') {
        input.insert_char(' ');
    }
}

/// `path` in `width` cells, cut at the front (the file's name matters
/// more than its first directories).
fn fit_path(path: &str, width: usize) -> String {
    if str_width(path) <= width {
        return path.to_string();
    }
    let reversed: String = path.chars().rev().collect();
    let cut = truncate(&reversed, width);
    let body: String = cut.trim_end_matches('…').chars().rev().collect();
    format!("…{body}")
}

#[cfg(test)]
#[path = "file_picker_tests.rs"]
mod tests;
