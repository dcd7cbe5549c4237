//! The full-screen session picker shown by `catui --resume` without an id:
//! the project's sessions newest first, a search field that filters them by
//! first prompt, and the keys to choose one. It runs before any session is
//! built, so it owns its own terminal setup and restore. State and keys are
//! plain data ([`PickerState`]); drawing is a pure function of that state
//! ([`render_picker`]) so it can be snapshot-tested.

use std::io;
use std::time::{Duration, SystemTime};

use catui_core::session::SessionSummary;
use catui_protocol::PermissionMode;
use crossterm::event::{self, Event, KeyCode, KeyEvent, KeyEventKind, KeyModifiers};
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout};
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use unicode_width::{UnicodeWidthChar, UnicodeWidthStr};

use crate::terminal::TerminalSession;

/// One session offered by the picker.
#[derive(Debug, Clone, PartialEq)]
pub struct PickerItem {
    pub session_id: String,
    /// When the transcript was last written.
    pub modified: SystemTime,
    pub first_prompt: Option<String>,
    pub message_count: usize,
    pub permission_mode: Option<PermissionMode>,
    /// The session's plan name; shown only when `planned`.
    pub plan_slug: Option<String>,
    /// Whether the session ever planned (every session has a slug).
    pub planned: bool,
}

impl From<SessionSummary> for PickerItem {
    fn from(s: SessionSummary) -> Self {
        PickerItem {
            session_id: s.session_id,
            modified: s.modified,
            first_prompt: s.first_prompt,
            message_count: s.message_count,
            permission_mode: s.permission_mode,
            plan_slug: s.plan_slug,
            planned: s.planned,
        }
    }
}

/// What a key press asked the picker to do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PickerOutcome {
    /// Keep showing the picker.
    Pending,
    /// Resume the session with this id.
    Picked(String),
    /// Leave without resuming anything.
    Cancelled,
}

/// The picker's state: the sessions (newest first), the search text and
/// the highlighted row among the sessions that match it.
#[derive(Debug, Clone)]
pub struct PickerState {
    items: Vec<PickerItem>,
    query: String,
    /// Index into [`PickerState::visible`].
    selected: usize,
    /// The moment ages are measured from; fixed so a frame is reproducible.
    now: SystemTime,
}

impl PickerState {
    /// Sorts `items` newest first (ties by id, so the order is stable).
    pub fn new(mut items: Vec<PickerItem>, now: SystemTime) -> Self {
        items.sort_by(|a, b| {
            b.modified
                .cmp(&a.modified)
                .then_with(|| a.session_id.cmp(&b.session_id))
        });
        PickerState {
            items,
            query: String::new(),
            selected: 0,
            now,
        }
    }

    pub fn query(&self) -> &str {
        &self.query
    }

    /// The sessions whose first prompt contains the search text, ignoring
    /// case; all of them when the search is empty.
    pub fn visible(&self) -> Vec<&PickerItem> {
        let needle = self.query.to_lowercase();
        self.items
            .iter()
            .filter(|item| {
                needle.is_empty()
                    || item
                        .first_prompt
                        .as_deref()
                        .is_some_and(|p| p.to_lowercase().contains(&needle))
            })
            .collect()
    }

    /// The highlighted session, if any matches the search.
    pub fn selected(&self) -> Option<&PickerItem> {
        self.visible().get(self.selected).copied()
    }

    pub fn selected_index(&self) -> usize {
        self.selected
    }

    /// Replaces the search text; the highlight goes back to the top because
    /// the old row may no longer be listed.
    pub fn set_query(&mut self, query: impl Into<String>) {
        self.query = query.into();
        self.selected = 0;
    }

    pub fn move_up(&mut self) {
        self.selected = self.selected.saturating_sub(1);
    }

    pub fn move_down(&mut self) {
        let last = self.visible().len().saturating_sub(1);
        self.selected = (self.selected + 1).min(last);
    }

    /// Applies one key press.
    pub fn on_key(&mut self, key: KeyEvent) -> PickerOutcome {
        if key.kind == KeyEventKind::Release {
            return PickerOutcome::Pending;
        }
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        match key.code {
            KeyCode::Esc => PickerOutcome::Cancelled,
            KeyCode::Char('c' | 'd') if ctrl => PickerOutcome::Cancelled,
            KeyCode::Char('u') if ctrl => {
                self.set_query("");
                PickerOutcome::Pending
            }
            KeyCode::Char('p') if ctrl => {
                self.move_up();
                PickerOutcome::Pending
            }
            KeyCode::Char('n') if ctrl => {
                self.move_down();
                PickerOutcome::Pending
            }
            KeyCode::Up => {
                self.move_up();
                PickerOutcome::Pending
            }
            KeyCode::Down => {
                self.move_down();
                PickerOutcome::Pending
            }
            KeyCode::Enter => match self.selected() {
                Some(item) => PickerOutcome::Picked(item.session_id.clone()),
                // Nothing matches: Enter does nothing rather than guess.
                None => PickerOutcome::Pending,
            },
            KeyCode::Backspace => {
                let mut q = self.query.clone();
                q.pop();
                self.set_query(q);
                PickerOutcome::Pending
            }
            KeyCode::Char(c) if !ctrl => {
                let q = format!("{}{c}", self.query);
                self.set_query(q);
                PickerOutcome::Pending
            }
            _ => PickerOutcome::Pending,
        }
    }

    /// Pasted text goes into the search field, on one line.
    pub fn on_paste(&mut self, text: &str) {
        let pasted: String = text
            .chars()
            .map(|c| if c.is_control() { ' ' } else { c })
            .collect();
        let q = format!("{}{pasted}", self.query);
        self.set_query(q);
    }
}

/// "just now", "5m ago", "3h ago", "2d ago": how long before `now` a
/// session was last written. A time in the future (clock skew) is "just now".
pub fn relative_age(now: SystemTime, then: SystemTime) -> String {
    let secs = now.duration_since(then).unwrap_or(Duration::ZERO).as_secs();
    match secs {
        0..60 => "just now".into(),
        60..3_600 => format!("{}m ago", secs / 60),
        3_600..86_400 => format!("{}h ago", secs / 3_600),
        _ => format!("{}d ago", secs / 86_400),
    }
}

/// One list row: age, message count, mode and (for a session that
/// planned) its plan's name, then the first prompt flattened to a single
/// line and cut at a word boundary with "…" to fit `width` columns.
fn row(item: &PickerItem, now: SystemTime, highlighted: bool, width: usize) -> Line<'static> {
    let marker = if highlighted { "› " } else { "  " };
    let age = format!("{:>9}", relative_age(now, item.modified));
    let count = format!("{:>5} msgs", item.message_count);
    let mut tags: Vec<String> = Vec::new();
    if let Some(mode) = item.permission_mode {
        tags.push(mode.as_str().to_string());
    }
    if let Some(slug) = item.plan_slug.as_ref().filter(|_| item.planned) {
        tags.push(format!("plan:{slug}"));
    }
    let tags = if tags.is_empty() {
        String::new()
    } else {
        format!("  [{}]", tags.join(" "))
    };
    let prompt = match item.first_prompt.as_deref() {
        Some(p) => p.split_whitespace().collect::<Vec<_>>().join(" "),
        None => "(no prompt)".to_string(),
    };
    let used = [marker, age.as_str(), count.as_str(), tags.as_str(), "  "]
        .iter()
        .map(|s| UnicodeWidthStr::width(*s))
        .sum::<usize>();
    let prompt = fit_at_word(&prompt, width.saturating_sub(used));
    let base = if highlighted {
        Style::default().add_modifier(Modifier::BOLD)
    } else {
        Style::default()
    };
    let dim = base.fg(Color::DarkGray);
    Line::from(vec![
        Span::styled(marker, base.fg(Color::Cyan)),
        Span::styled(age, dim),
        Span::styled(count, dim),
        Span::styled(tags, base.fg(Color::Magenta)),
        Span::styled("  ", base),
        Span::styled(prompt, base),
    ])
}

/// `text` as is when it fits in `width` columns; otherwise cut after the
/// last whole word that fits with "…" after it (a single word longer than
/// the room is cut inside it: there is no boundary to cut at).
pub(crate) fn fit_at_word(text: &str, width: usize) -> String {
    if UnicodeWidthStr::width(text) <= width {
        return text.to_string();
    }
    let room = width.saturating_sub(1);
    let mut end = 0;
    let mut used = 0;
    let mut last_word_end = None;
    for (i, c) in text.char_indices() {
        let w = UnicodeWidthChar::width(c).unwrap_or(0);
        if used + w > room {
            break;
        }
        if c.is_whitespace() && i > 0 {
            last_word_end = Some(i);
        }
        used += w;
        end = i + c.len_utf8();
    }
    // A boundary right after the room counts too: the word before it is whole.
    if text[end..].starts_with(char::is_whitespace) {
        last_word_end = Some(end);
    }
    let cut = match last_word_end {
        Some(at) => text[..at].trim_end(),
        None => &text[..end],
    };
    // The summary may already end in "…" (a long prompt cut when stored).
    format!("{}…", cut.trim_end_matches('…'))
}

/// Draws the picker: title, search field, the matching sessions (scrolled
/// so the highlighted one is on screen) and the key help.
pub fn render_picker(frame: &mut Frame, state: &PickerState) {
    let [title, search, list, help] = Layout::vertical([
        Constraint::Length(1),
        Constraint::Length(2),
        Constraint::Min(1),
        Constraint::Length(1),
    ])
    .areas(frame.area());

    let visible = state.visible();
    frame.render_widget(
        Paragraph::new(Line::from(vec![
            Span::styled(
                "Resume a session",
                Style::default().add_modifier(Modifier::BOLD),
            ),
            Span::styled(
                format!("  {} of {}", visible.len(), state.items.len()),
                Style::default().fg(Color::DarkGray),
            ),
        ])),
        title,
    );
    frame.render_widget(
        Paragraph::new(Line::from(vec![
            Span::styled("Search: ", Style::default().fg(Color::DarkGray)),
            Span::raw(state.query.clone()),
            Span::styled("▏", Style::default().fg(Color::Cyan)),
        ])),
        search,
    );

    let height = usize::from(list.height).max(1);
    let offset = state.selected.saturating_sub(height - 1);
    let lines: Vec<Line> = if visible.is_empty() {
        vec![Line::styled(
            "  no session's first prompt matches the search",
            Style::default().fg(Color::DarkGray),
        )]
    } else {
        visible
            .iter()
            .enumerate()
            .skip(offset)
            .take(height)
            .map(|(i, item)| {
                row(
                    item,
                    state.now,
                    i == state.selected,
                    usize::from(list.width),
                )
            })
            .collect()
    };
    frame.render_widget(Paragraph::new(lines), list);
    frame.render_widget(
        Paragraph::new(Line::styled(
            "↑/↓ move · type to search · Enter resume · Esc cancel",
            Style::default().fg(Color::DarkGray),
        )),
        help,
    );
}

/// Shows the picker full screen until a session is chosen (its id) or the
/// user cancels (`None`). The terminal is restored on every way out.
pub fn pick_session(sessions: Vec<PickerItem>) -> io::Result<Option<String>> {
    let mut state = PickerState::new(sessions, SystemTime::now());
    let mut session = TerminalSession::enter()?;
    loop {
        session.terminal.draw(|f| render_picker(f, &state))?;
        let outcome = match event::read()? {
            Event::Key(key) => state.on_key(key),
            Event::Paste(text) => {
                state.on_paste(&text);
                PickerOutcome::Pending
            }
            _ => PickerOutcome::Pending,
        };
        match outcome {
            PickerOutcome::Pending => {}
            PickerOutcome::Picked(id) => return Ok(Some(id)),
            PickerOutcome::Cancelled => return Ok(None),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn item(id: &str, age_secs: u64, prompt: Option<&str>) -> PickerItem {
        PickerItem {
            session_id: id.into(),
            modified: SystemTime::UNIX_EPOCH + Duration::from_secs(1_000_000 - age_secs),
            first_prompt: prompt.map(String::from),
            message_count: 3,
            permission_mode: None,
            plan_slug: Some(format!("{id}-slug")),
            planned: false,
        }
    }

    fn now() -> SystemTime {
        SystemTime::UNIX_EPOCH + Duration::from_secs(1_000_000)
    }

    fn key(code: KeyCode) -> KeyEvent {
        KeyEvent::new(code, KeyModifiers::NONE)
    }

    fn ids(state: &PickerState) -> Vec<&str> {
        state
            .visible()
            .iter()
            .map(|i| i.session_id.as_str())
            .collect()
    }

    fn sample() -> PickerState {
        PickerState::new(
            vec![
                item("old", 90_000, Some("Fix the Parser bug")),
                item("new", 30, Some("write docs")),
                item("mid", 7_200, None),
                item("mid2", 600, Some("parse flags")),
            ],
            now(),
        )
    }

    #[test]
    fn lists_newest_first() {
        assert_eq!(ids(&sample()), ["new", "mid2", "mid", "old"]);
    }

    #[test]
    fn filters_by_first_prompt_ignoring_case() {
        let mut s = sample();
        for c in "PARS".chars() {
            s.on_key(key(KeyCode::Char(c)));
        }
        assert_eq!(s.query(), "PARS");
        assert_eq!(ids(&s), ["mid2", "old"]);
        s.on_key(key(KeyCode::Char('e')));
        s.on_key(key(KeyCode::Char('r')));
        assert_eq!(ids(&s), ["old"]);
        s.on_key(key(KeyCode::Backspace));
        s.on_key(key(KeyCode::Backspace));
        assert_eq!(ids(&s), ["mid2", "old"]);
        s.on_key(KeyEvent::new(KeyCode::Char('u'), KeyModifiers::CONTROL));
        assert_eq!(ids(&s).len(), 4);
    }

    #[test]
    fn moves_within_bounds_and_picks_the_highlighted_session() {
        let mut s = sample();
        s.on_key(key(KeyCode::Up));
        assert_eq!(s.selected_index(), 0);
        for _ in 0..10 {
            s.on_key(key(KeyCode::Down));
        }
        assert_eq!(s.selected_index(), 3);
        s.on_key(key(KeyCode::Up));
        assert_eq!(
            s.on_key(key(KeyCode::Enter)),
            PickerOutcome::Picked("mid".into())
        );
    }

    #[test]
    fn typing_resets_the_highlight_to_the_first_match() {
        let mut s = sample();
        s.on_key(key(KeyCode::Down));
        s.on_key(key(KeyCode::Down));
        s.on_key(key(KeyCode::Char('p')));
        assert_eq!(s.selected_index(), 0);
        assert_eq!(
            s.on_key(key(KeyCode::Enter)),
            PickerOutcome::Picked("mid2".into())
        );
    }

    #[test]
    fn enter_with_no_match_keeps_the_picker_open() {
        let mut s = sample();
        s.on_paste("zzz\n");
        assert!(s.visible().is_empty());
        assert_eq!(s.on_key(key(KeyCode::Enter)), PickerOutcome::Pending);
    }

    #[test]
    fn escape_and_ctrl_c_cancel() {
        let mut s = sample();
        assert_eq!(s.on_key(key(KeyCode::Esc)), PickerOutcome::Cancelled);
        assert_eq!(
            s.on_key(KeyEvent::new(KeyCode::Char('c'), KeyModifiers::CONTROL)),
            PickerOutcome::Cancelled
        );
        assert_eq!(s.query(), "");
    }

    #[test]
    fn ages_read_naturally() {
        let n = now();
        let ago = |s| n - Duration::from_secs(s);
        assert_eq!(relative_age(n, ago(5)), "just now");
        assert_eq!(relative_age(n, n + Duration::from_secs(50)), "just now");
        assert_eq!(relative_age(n, ago(300)), "5m ago");
        assert_eq!(relative_age(n, ago(3 * 3_600 + 5)), "3h ago");
        assert_eq!(relative_age(n, ago(2 * 86_400)), "2d ago");
    }

    #[test]
    fn prompts_are_cut_after_a_whole_word_with_an_ellipsis() {
        assert_eq!(fit_at_word("fix the build", 20), "fix the build");
        assert_eq!(fit_at_word("fix the parser bug now", 12), "fix the…");
        assert_eq!(fit_at_word("fix the parser", 8), "fix the…");
        assert_eq!(fit_at_word("abcdefghij", 5), "abcd…");
        assert_eq!(fit_at_word("stored prompt cut…", 15), "stored prompt…");
    }

    #[test]
    fn only_sessions_that_planned_show_a_plan_name() {
        let mut planned = item("p", 30, Some("plan the work"));
        planned.planned = true;
        let chat = item("c", 60, Some("just chat"));
        let text = |l: Line| {
            l.spans
                .iter()
                .map(|s| s.content.to_string())
                .collect::<String>()
        };
        assert!(text(row(&planned, now(), false, 80)).contains("plan:p-slug"));
        assert!(!text(row(&chat, now(), false, 80)).contains("plan:"));
    }
}
