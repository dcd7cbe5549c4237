//! The conversation as shown: entries (user turns, answers, tool calls,
//! system lines, plan displays) and their rendering to rows. Each entry
//! caches its rows per width and version, so a frame only renders what
//! changed and only the visible window is copied out. The transcript keeps
//! an index of where each entry starts (per width and unfolding), so
//! finding a window in a huge session costs a binary search, not a walk.
//!
//! Rows are the bulk of a long session's memory (about 0.8 KiB per row,
//! styled spans included), and most entries are only ever printed once,
//! into the terminal's scrollback. So rows stay cached for the last
//! [`RECENT_ROWS`] entries and the last [`PAGER_ROWS`] entries the
//! transcript view read; the rest keep only their height, and are rendered
//! again when they are looked at.

use std::cell::{Cell, RefCell};
use std::collections::{HashMap, VecDeque};
use std::sync::Arc;

use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};

use crate::markdown::markdown_lines;
use crate::theme;
pub use crate::tool_entry::{LiveTail, ToolEntry, ToolStatus};
use crate::tool_view::tool_lines;
use crate::wrap::{plain_rows, with_gutter, wrap_line};

/// What an entry shows.
#[derive(Debug, Clone, PartialEq)]
pub enum EntryKind {
    User(String),
    /// Assistant text, Markdown.
    Assistant(String),
    /// The model's thinking (or reasoning summary), shown collapsed to one
    /// line.
    Thinking(String),
    Tool(Box<ToolEntry>),
    /// A line from the interface or a command's output.
    System {
        text: String,
        is_error: bool,
    },
    /// A teammate's message to the lead (`from` is `name@team`), Markdown.
    Teammate {
        from: String,
        text: String,
    },
    /// How the work after a plan approval compares with the plan: one
    /// line, the details unfolded (Ctrl+O).
    Compliance(catui_protocol::checkpoint::PlanCompliance),
    /// catui ran the approved plan's verification commands: one line, the
    /// commands and their output unfolded (Ctrl+O).
    Verification(catui_protocol::contract::PlanVerification),
    /// The end report of the work on an approved plan.
    PlanReport(catui_protocol::contract::PlanReport),
    /// `/help`'s answer: the key and command sheet, laid out for the
    /// width it is shown at (a description wraps under itself).
    Help,
    /// A document a command showed (`/plan`): title, path, Markdown body
    /// and a hint.
    Document {
        title: String,
        path: String,
        content: String,
        hint: Option<String>,
    },
}

type Rows = Arc<Vec<Line<'static>>>;

/// Final rows of one transcript entry, for the scrollback.
pub type EntryRows = (usize, Vec<Line<'static>>);

/// Entries at the end of the transcript whose rows stay cached (the live
/// area and the scrollback's last screen read them on every frame).
const RECENT_ROWS: usize = 64;
/// Entries the transcript view (Ctrl+O) read most recently whose rows stay
/// cached, so scrolling back and forth does not render them again.
const PAGER_ROWS: usize = 256;

/// An entry with its row cache.
#[derive(Debug)]
pub struct Entry {
    pub kind: EntryKind,
    version: u64,
    /// (width, version, expanded) → rows.
    cache: RefCell<Option<(usize, u64, bool, Rows)>>,
    /// (width, version, expanded) → height, kept when the rows are not.
    height: Cell<Option<(usize, u64, bool, usize)>>,
}

impl Entry {
    fn new(kind: EntryKind) -> Self {
        Self {
            kind,
            version: 0,
            cache: RefCell::new(None),
            height: Cell::new(None),
        }
    }

    fn cached(&self, width: usize, expanded: bool) -> Option<Rows> {
        match self.cache.borrow().as_ref() {
            Some((w, v, e, rows)) if *w == width && *v == self.version && *e == expanded => {
                Some(rows.clone())
            }
            _ => None,
        }
    }

    fn render(&self, width: usize, expanded: bool) -> Rows {
        let mut rows = render_entry(&self.kind, width, expanded);
        rows.push(Line::default());
        self.height
            .set(Some((width, self.version, expanded, rows.len())));
        Arc::new(rows)
    }

    /// Rows at `width` for printing once (into the scrollback): from the
    /// cache when valid, else rendered without being kept.
    pub fn rows_once(&self, width: usize) -> Rows {
        self.cached(width, false)
            .unwrap_or_else(|| self.render(width, false))
    }

    /// The number of rows at `width` (tool output unfolded when
    /// `expanded`), rendering them if needed without keeping them.
    fn height_at(&self, width: usize, expanded: bool) -> usize {
        if let Some((w, v, e, h)) = self.height.get()
            && w == width
            && v == self.version
            && e == expanded
        {
            return h;
        }
        self.cached(width, expanded)
            .unwrap_or_else(|| self.render(width, expanded))
            .len()
    }

    fn forget_rows(&self) {
        self.cache.borrow_mut().take();
    }

    /// Rows at `width`, from the cache when still valid. Includes the blank
    /// row that separates entries.
    pub fn rows(&self, width: usize) -> Rows {
        self.rows_at(width, false)
    }

    /// Rows at `width`, tool output unfolded when `expanded`.
    pub fn rows_at(&self, width: usize, expanded: bool) -> Rows {
        if let Some(rows) = self.cached(width, expanded) {
            return rows;
        }
        let rows = self.render(width, expanded);
        *self.cache.borrow_mut() = Some((width, self.version, expanded, rows.clone()));
        rows
    }

    pub fn height(&self, width: usize) -> usize {
        self.height_at(width, false)
    }
}

/// Where each entry starts, at one width and unfolding: `starts[i]` is the
/// first row of entry `i`, and the last element is the total height. Only
/// `starts[..=valid]` is trusted; entries from `valid` on changed since.
#[derive(Debug, Default)]
struct RowIndex {
    width: usize,
    expanded: bool,
    starts: Vec<usize>,
}

/// The entries of the session.
#[derive(Debug, Default)]
pub struct Transcript {
    entries: Vec<Entry>,
    tools: HashMap<String, usize>,
    index: RefCell<RowIndex>,
    /// The first entry changed since the index was last brought up to date.
    dirty_from: Cell<usize>,
    /// Entries the transcript view read, oldest first (see [`PAGER_ROWS`]).
    paged: RefCell<VecDeque<usize>>,
}

impl Transcript {
    pub fn push(&mut self, kind: EntryKind) {
        if let EntryKind::Tool(t) = &kind {
            self.tools.insert(t.id.clone(), self.entries.len());
        }
        self.touch(self.entries.len());
        self.entries.push(Entry::new(kind));
        // The entry that just left the recent ones keeps only its height
        // (unless the transcript view is holding it).
        if let Some(old) = self.entries.len().checked_sub(RECENT_ROWS + 1)
            && !self.paged.borrow().contains(&old)
        {
            self.entries[old].forget_rows();
        }
    }

    /// Remembers that the transcript view read entries `range`; the rows
    /// of entries read longest ago (and not recent) are let go.
    fn note_paged(&self, range: std::ops::Range<usize>) {
        let mut paged = self.paged.borrow_mut();
        for i in range {
            if let Some(at) = paged.iter().position(|&p| p == i) {
                paged.remove(at);
            }
            paged.push_back(i);
        }
        let recent_from = self.entries.len().saturating_sub(RECENT_ROWS);
        while paged.len() > PAGER_ROWS {
            if let Some(old) = paged.pop_front()
                && old < recent_from
                && let Some(entry) = self.entries.get(old)
            {
                entry.forget_rows();
            }
        }
    }

    /// Entries holding rendered rows (for tests of the cache's bound).
    #[cfg(test)]
    fn entries_with_rows(&self) -> usize {
        self.entries
            .iter()
            .filter(|e| e.cache.borrow().is_some())
            .count()
    }

    /// Marks entry `i` (and so every later start) as changed.
    fn touch(&self, i: usize) {
        self.dirty_from.set(self.dirty_from.get().min(i));
    }

    /// The start of every entry and the total height at `width`, brought up
    /// to date from the first changed entry only.
    fn with_index<T>(&self, width: usize, expanded: bool, f: impl FnOnce(&[usize]) -> T) -> T {
        let mut index = self.index.borrow_mut();
        let mut from = self.dirty_from.get();
        if index.width != width || index.expanded != expanded || index.starts.is_empty() {
            index.width = width;
            index.expanded = expanded;
            from = 0;
        }
        let from = from
            .min(self.entries.len())
            .min(index.starts.len().saturating_sub(1));
        index.starts.truncate(from + 1);
        if index.starts.is_empty() {
            index.starts.push(0);
        }
        let mut row = index.starts[from];
        for entry in &self.entries[from..] {
            row += entry.height_at(width, expanded);
            index.starts.push(row);
        }
        self.dirty_from.set(self.entries.len());
        f(&index.starts)
    }

    /// Total rows of the whole transcript at `width`, output unfolded when
    /// `expanded`.
    pub fn total_rows(&self, width: usize, expanded: bool) -> usize {
        self.with_index(width, expanded, |starts| {
            starts.last().copied().unwrap_or(0)
        })
    }

    /// Rows `[start, start + count)` of the whole transcript: a binary
    /// search finds the first entry, then only visible entries are read.
    pub fn window_at(
        &self,
        width: usize,
        expanded: bool,
        start: usize,
        count: usize,
    ) -> Vec<Line<'static>> {
        let (first, first_row) = self.with_index(width, expanded, |starts| {
            let first = starts.partition_point(|&s| s <= start).saturating_sub(1);
            (first, starts.get(first).copied().unwrap_or(0))
        });
        let from = self.entries.get(first..).unwrap_or(&[]);
        let (rows, read) = window_of(
            from,
            width,
            expanded,
            start.saturating_sub(first_row),
            count,
        );
        self.note_paged(first..first + read);
        rows
    }

    pub fn entries(&self) -> &[Entry] {
        &self.entries
    }

    /// Removes the last entry (a prompt taken back before any reply).
    pub fn pop(&mut self) -> Option<EntryKind> {
        let entry = self.entries.pop()?;
        self.touch(self.entries.len());
        if let EntryKind::Tool(t) = &entry.kind {
            self.tools.remove(&t.id);
        }
        Some(entry.kind)
    }

    pub fn clear(&mut self) {
        self.touch(0);
        self.entries.clear();
        self.tools.clear();
        self.paged.borrow_mut().clear();
    }

    pub fn tool(&self, id: &str) -> Option<&ToolEntry> {
        let i = *self.tools.get(id)?;
        match &self.entries.get(i)?.kind {
            EntryKind::Tool(t) => Some(t),
            _ => None,
        }
    }

    /// Mutable access to a tool entry; invalidates its cached rows.
    pub fn tool_mut(&mut self, id: &str) -> Option<&mut ToolEntry> {
        let i = *self.tools.get(id)?;
        self.touch(i);
        let entry = self.entries.get_mut(i)?;
        entry.version += 1;
        match &mut entry.kind {
            EntryKind::Tool(t) => Some(t),
            _ => None,
        }
    }

    /// Ids of tool entries still waiting or running.
    pub fn open_tool_ids(&self) -> Vec<String> {
        self.entries
            .iter()
            .filter_map(|e| match &e.kind {
                EntryKind::Tool(t)
                    if matches!(t.status, ToolStatus::Pending | ToolStatus::Running) =>
                {
                    Some(t.id.clone())
                }
                _ => None,
            })
            .collect()
    }

    /// Total rows at `width`.
    pub fn height(&self, width: usize) -> usize {
        self.total_rows(width, false)
    }

    /// Copies out rows `[start, start + count)` of the whole transcript at
    /// `width`, touching only the entries that overlap the window.
    pub fn window(&self, width: usize, start: usize, count: usize) -> Vec<Line<'static>> {
        self.window_at(width, false, start, count)
    }
}

/// Rows `[start, start + count)` of `entries` at `width`, and how many
/// entries were read.
fn window_of(
    entries: &[Entry],
    width: usize,
    expanded: bool,
    start: usize,
    count: usize,
) -> (Vec<Line<'static>>, usize) {
    let mut out = Vec::with_capacity(count);
    let mut offset = 0;
    let mut read = 0;
    for entry in entries {
        if out.len() >= count {
            break;
        }
        read += 1;
        let rows = entry.rows_at(width, expanded);
        let h = rows.len();
        if offset + h <= start {
            offset += h;
            continue;
        }
        let skip = start.saturating_sub(offset);
        for row in rows.iter().skip(skip) {
            if out.len() >= count {
                break;
            }
            out.push(row.clone());
        }
        offset += h;
    }
    (out, read)
}

fn dim() -> Style {
    Style::default().fg(theme::current().dim)
}

/// The last `count` rows of `entries` at `width` (walks back from the
/// end, so the cost follows the screen, not the transcript).
pub fn tail_of(entries: &[Entry], width: usize, count: usize) -> Vec<Line<'static>> {
    let mut chunks = Vec::new();
    let mut have = 0;
    for entry in entries.iter().rev() {
        if have >= count {
            break;
        }
        let rows = entry.rows(width);
        have += rows.len();
        chunks.push(rows);
    }
    let mut out: Vec<Line<'static>> = chunks
        .iter()
        .rev()
        .flat_map(|rows| rows.iter().cloned())
        .collect();
    if out.len() > count {
        out.drain(..out.len() - count);
    }
    out
}

fn render_entry(kind: &EntryKind, width: usize, expanded: bool) -> Vec<Line<'static>> {
    let t = theme::current();
    let inner = width.saturating_sub(2).max(1);
    match kind {
        EntryKind::User(text) => {
            let style = Style::default().add_modifier(Modifier::BOLD);
            let rows = plain_rows(text, inner, style);
            with_gutter(rows, Span::styled("> ", dim()))
        }
        EntryKind::Assistant(text) => with_gutter(
            markdown_lines(text, inner),
            Span::styled("● ", Style::default().fg(t.text)),
        ),
        EntryKind::Thinking(text) => {
            let style = dim().add_modifier(Modifier::ITALIC);
            let gutter = Span::styled("✻ ", dim());
            if expanded {
                let mut rows = vec![Line::styled("Thought:", style)];
                rows.extend(plain_rows(text, inner, style));
                return with_gutter(rows, gutter);
            }
            let words = text.split_whitespace().count();
            let first = text.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
            let line = Line::from(vec![
                Span::styled(format!("Thought ({words} words): "), style),
                Span::styled(first.trim().to_string(), style),
            ]);
            // Collapsed: the first row of the first line only.
            let rows = wrap_line(&line, inner, 0);
            with_gutter(rows.into_iter().take(1).collect(), gutter)
        }
        EntryKind::Tool(tool) => tool_lines(tool, width, expanded),
        EntryKind::System { text, is_error } => {
            let style = if *is_error {
                Style::default().fg(t.error)
            } else {
                dim()
            };
            with_gutter(plain_rows(text, inner, style), Span::styled("  ", style))
        }
        EntryKind::Help => with_gutter(crate::help::rows(inner), Span::raw("  ")),
        EntryKind::Teammate { from, text } => {
            let mut rows = vec![Line::from(vec![
                Span::styled(
                    format!("✉ {from}"),
                    Style::default().fg(t.accent).add_modifier(Modifier::BOLD),
                ),
                Span::styled(" to you", dim()),
            ])];
            rows.extend(with_gutter(
                markdown_lines(text, inner.saturating_sub(2).max(1)),
                Span::raw("  "),
            ));
            with_gutter(rows, Span::raw("  "))
        }
        EntryKind::Compliance(report) => {
            let style = if report.drifted() {
                Style::default().fg(t.warn)
            } else {
                dim()
            };
            let mut rows = plain_rows(&report.summary(), inner, style);
            if expanded {
                let list = |title: &str, items: &[String]| {
                    if items.is_empty() {
                        format!("{title}: none")
                    } else {
                        format!("{title}: {}", items.join(", "))
                    }
                };
                for line in [
                    list("Changed, not in the plan", &report.unplanned_files),
                    list("In the plan, unchanged", &report.untouched_files),
                    list("Steps not done", &report.undone_steps),
                ] {
                    rows.extend(plain_rows(&line, inner, dim()));
                }
            } else if report.drifted() {
                rows.extend(plain_rows("ctrl+o for details", inner, dim()));
            }
            with_gutter(rows, Span::styled("◇ ", style))
        }
        EntryKind::Verification(run) => {
            crate::contract_view::verification_lines(run, inner, expanded)
        }
        EntryKind::PlanReport(report) => {
            crate::contract_view::report_lines(report, inner, expanded)
        }
        EntryKind::Document {
            title,
            path,
            content,
            hint,
        } => {
            let mut rows = vec![
                Line::styled(title.clone(), Style::default().add_modifier(Modifier::BOLD)),
                Line::styled(path.clone(), dim()),
                Line::default(),
            ];
            rows.extend(markdown_lines(content, inner));
            if let Some(hint) = hint {
                rows.push(Line::default());
                rows.extend(plain_rows(hint, inner, dim()));
            }
            with_gutter(rows, Span::raw("  "))
        }
    }
}

#[cfg(test)]
#[path = "transcript_tests.rs"]
mod tests;
