//! The trust dialog shown before an interactive session starts in a folder
//! whose own configuration waits for the user's trust, or in the home
//! directory (docs/SECURITY.md, "Trust"). It names what the project would
//! enable — settings, hooks, MCP servers, agents — and offers "Trust this
//! folder", "Continue without it" or quitting. Like the session picker it
//! runs before any session is built, full screen, with its own terminal
//! setup; state and keys are plain data ([`TrustDialogState`]) and drawing
//! is a pure function of them ([`render_trust_dialog`]).

use std::io;

use catui_core::settings::project::TrustQuestion;
use catui_core::trust::Verdict;
use crossterm::event::{self, Event, KeyCode, KeyEvent, KeyEventKind, KeyModifiers};
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout};
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Wrap};

use crate::terminal::TerminalSession;

/// What the user answered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TrustAnswer {
    /// Trust the folder's configuration as shown (remembered).
    Trust,
    /// Start without it (remembered: not asked again until it changes).
    Continue,
    /// Start nothing.
    Quit,
}

/// The dialog's text, made from what the project configures.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TrustPrompt {
    pub project: String,
    pub is_home: bool,
    /// The user trusted the folder before; these are changes since.
    pub about_changes: bool,
    /// One line per piece of configuration that would apply.
    pub items: Vec<String>,
}

impl TrustPrompt {
    pub fn from_question(question: &TrustQuestion) -> Self {
        let items = question
            .unanswered()
            .into_iter()
            .map(|item| {
                let tag = match question.trust.verdict(item) {
                    Verdict::ChangedSinceTrust if item.slot => "changed ",
                    Verdict::ChangedSinceTrust => "new ",
                    _ => "",
                };
                let what = if item.name == item.group {
                    item.shown.clone()
                } else if item.name == item.shown {
                    item.name.clone()
                } else {
                    format!("{}: {}", item.name, item.shown)
                };
                format!("{tag}{}  {what}  ({})", item.group, item.source)
            })
            .collect();
        TrustPrompt {
            project: question.project_root.display().to_string(),
            is_home: question.is_home,
            about_changes: question.is_about_changes(),
            items,
        }
    }
}

const CHOICES: [(&str, TrustAnswer); 3] = [
    ("Trust this folder", TrustAnswer::Trust),
    ("Continue without it", TrustAnswer::Continue),
    ("Quit", TrustAnswer::Quit),
];

/// The dialog's state: the prompt, the highlighted choice and how far the
/// list of items is scrolled.
#[derive(Debug, Clone)]
pub struct TrustDialogState {
    prompt: TrustPrompt,
    selected: usize,
    scroll: usize,
}

impl TrustDialogState {
    pub fn new(prompt: TrustPrompt) -> Self {
        TrustDialogState {
            prompt,
            selected: 0,
            scroll: 0,
        }
    }

    pub fn selected(&self) -> TrustAnswer {
        CHOICES[self.selected].1
    }

    /// Applies one key press; `Some` once the user answered.
    pub fn on_key(&mut self, key: KeyEvent) -> Option<TrustAnswer> {
        if key.kind == KeyEventKind::Release {
            return None;
        }
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        match key.code {
            KeyCode::Esc => Some(TrustAnswer::Quit),
            KeyCode::Char('c' | 'd') if ctrl => Some(TrustAnswer::Quit),
            KeyCode::Enter => Some(self.selected()),
            KeyCode::Char(c @ '1'..='3') => {
                let i = usize::from(c as u8 - b'1');
                self.selected = i;
                Some(self.selected())
            }
            KeyCode::Up | KeyCode::Char('k') => {
                self.selected = self.selected.saturating_sub(1);
                None
            }
            KeyCode::Down | KeyCode::Char('j') | KeyCode::Tab => {
                self.selected = (self.selected + 1).min(CHOICES.len() - 1);
                None
            }
            KeyCode::PageDown => {
                self.scroll = (self.scroll + 5).min(self.prompt.items.len().saturating_sub(1));
                None
            }
            KeyCode::PageUp => {
                self.scroll = self.scroll.saturating_sub(5);
                None
            }
            _ => None,
        }
    }
}

/// Draws the dialog: the question, what the folder would enable, the
/// choices and the key help.
pub fn render_trust_dialog(frame: &mut Frame, state: &TrustDialogState) {
    let prompt = &state.prompt;
    let bold = Style::default().add_modifier(Modifier::BOLD);
    let dim = Style::default().fg(Color::DarkGray);
    let mut head = vec![
        Line::styled(
            if prompt.about_changes {
                "This folder's configuration changed since you trusted it"
            } else {
                "Do you trust the files in this folder?"
            },
            bold,
        ),
        Line::styled(prompt.project.clone(), Style::default().fg(Color::Cyan)),
        Line::raw(""),
    ];
    if prompt.is_home {
        head.push(Line::raw(
            "This is your home directory: the agent would read and work among all of your files. Starting it in a project folder is safer.",
        ));
        head.push(Line::raw(""));
    }
    if prompt.items.is_empty() {
        head.push(Line::raw(
            "The folder configures nothing that widens permissions, runs code or redirects data.",
        ));
    } else {
        head.push(Line::raw(if prompt.about_changes {
            "If you trust it again, these new or changed settings of the project apply:"
        } else {
            "If you trust it, the project's own configuration applies, including:"
        }));
    }
    let [top, list, foot, choices, help] = Layout::vertical([
        // The home directory's note wraps on narrow terminals.
        Constraint::Length(
            u16::try_from(head.len() + 1 + usize::from(prompt.is_home)).unwrap_or(u16::MAX),
        ),
        Constraint::Min(1),
        Constraint::Length(2),
        Constraint::Length(4),
        Constraint::Length(1),
    ])
    .areas(frame.area());
    frame.render_widget(Paragraph::new(head).wrap(Wrap { trim: false }), top);
    let height = usize::from(list.height).max(1);
    let items: Vec<Line> = prompt
        .items
        .iter()
        .skip(state.scroll)
        .take(height)
        .map(|i| Line::raw(format!("  • {i}")))
        .collect();
    frame.render_widget(Paragraph::new(items), list);
    let more = prompt.items.len().saturating_sub(state.scroll + height);
    let mut foot_lines = Vec::new();
    if more > 0 {
        foot_lines.push(Line::styled(format!("  … {more} more (PgDn)"), dim));
    }
    foot_lines.push(Line::styled(
        "Until then only what narrows permissions (deny and ask rules, a stricter mode) applies.",
        dim,
    ));
    frame.render_widget(Paragraph::new(foot_lines).wrap(Wrap { trim: false }), foot);
    let lines: Vec<Line> = CHOICES
        .iter()
        .enumerate()
        .map(|(i, (label, _))| {
            let on = i == state.selected;
            let marker = if on { "› " } else { "  " };
            let style = if on {
                bold.fg(Color::Cyan)
            } else {
                Style::default()
            };
            Line::from(vec![
                Span::styled(marker, style),
                Span::styled(format!("{}. {label}", i + 1), style),
            ])
        })
        .collect();
    frame.render_widget(Paragraph::new(lines), choices);
    frame.render_widget(
        Paragraph::new(Line::styled(
            "↑/↓ choose · Enter confirm · 1-3 answer · Esc quit",
            dim,
        )),
        help,
    );
}

/// Shows the dialog full screen until the user answers. The terminal is
/// restored on every way out.
pub fn ask_trust(prompt: TrustPrompt) -> io::Result<TrustAnswer> {
    let mut state = TrustDialogState::new(prompt);
    let mut session = TerminalSession::enter()?;
    loop {
        session.terminal.draw(|f| render_trust_dialog(f, &state))?;
        if let Event::Key(key) = event::read()?
            && let Some(answer) = state.on_key(key)
        {
            return Ok(answer);
        }
    }
}

#[cfg(test)]
#[path = "trust_dialog_tests.rs"]
mod tests;
