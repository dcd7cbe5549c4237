//! The rewind picker (Esc Esc on an empty prompt, or `/rewind`): the
//! points the session can go back to — the user's messages, each with the
//! files its turn changed, plan approvals and earlier rewinds — then what
//! to restore ("code and conversation", "conversation only", "code only",
//! back to the plan, undo), and a confirmation when files changed outside
//! catui would be overwritten. The runtime fetches the points and carries
//! out the choice; this module only holds the picker's state, turns keys
//! into an outcome and draws itself.

use catui_core::checkpoints::{PointKind, RewindPoint, RewindRequest};
use crossterm::event::{KeyCode, KeyEvent};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, BorderType, Borders, Padding, Paragraph, Widget};

use crate::theme;
use crate::wrap::truncate;

/// Points shown at once; the list scrolls with the selection.
const VISIBLE_POINTS: usize = 8;

/// What can be restored at a point.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Choice {
    Both,
    ConversationOnly,
    CodeOnly,
    BackToPlan,
    Undo,
}

impl Choice {
    pub fn label(self) -> &'static str {
        match self {
            Choice::Both => "Restore code and conversation",
            Choice::ConversationOnly => "Restore conversation only",
            Choice::CodeOnly => "Restore code only",
            Choice::BackToPlan => "Back to the plan: the code as approved, plan mode again",
            Choice::Undo => "Restore the code as it was before that rewind",
        }
    }

    fn request(self, point: &RewindPoint) -> RewindRequest {
        let (code, conversation) = match self {
            Choice::Both => (true, true),
            Choice::ConversationOnly => (false, true),
            Choice::CodeOnly | Choice::BackToPlan | Choice::Undo => (true, false),
        };
        RewindRequest {
            target: point.target.clone(),
            code,
            conversation,
            force: false,
            dry_run: false,
        }
    }
}

/// The choices a point offers.
pub fn choices(point: &RewindPoint) -> Vec<Choice> {
    match point.kind {
        PointKind::PlanApproval => vec![Choice::BackToPlan],
        PointKind::BeforeRewind => vec![Choice::Undo],
        PointKind::Message => {
            let mut out = Vec::new();
            if point.code && point.conversation {
                out.push(Choice::Both);
            }
            if point.conversation {
                out.push(Choice::ConversationOnly);
            }
            if point.code {
                out.push(Choice::CodeOnly);
            }
            out
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
enum Stage {
    Points,
    Choices {
        options: Vec<Choice>,
        selected: usize,
    },
    Confirm {
        request: RewindRequest,
        outside: Vec<String>,
    },
}

/// What a key press in the picker asked for.
#[derive(Debug, Clone, PartialEq)]
pub enum RewindOutcome {
    Pending,
    Close,
    /// Check this rewind first (files changed outside catui ask for a
    /// confirmation), then carry it out.
    Check(RewindRequest),
    /// Carry this rewind out (confirmed).
    Rewind(RewindRequest),
}

/// See the module documentation.
#[derive(Debug, Clone, PartialEq)]
pub struct RewindPicker {
    points: Vec<RewindPoint>,
    selected: usize,
    stage: Stage,
}

impl RewindPicker {
    /// Opens on the newest point.
    pub fn new(points: Vec<RewindPoint>) -> Self {
        let selected = points.len().saturating_sub(1);
        RewindPicker {
            points,
            selected,
            stage: Stage::Points,
        }
    }

    /// Asks whether to overwrite `outside` (files changed outside catui).
    pub fn confirm(&mut self, request: RewindRequest, outside: Vec<String>) {
        self.stage = Stage::Confirm { request, outside };
    }

    pub fn handle_key(&mut self, key: KeyEvent) -> RewindOutcome {
        match &mut self.stage {
            Stage::Points => match key.code {
                KeyCode::Esc => RewindOutcome::Close,
                KeyCode::Up | KeyCode::Char('k') => {
                    self.selected = self.selected.saturating_sub(1);
                    RewindOutcome::Pending
                }
                KeyCode::Down | KeyCode::Char('j') => {
                    self.selected = (self.selected + 1).min(self.points.len().saturating_sub(1));
                    RewindOutcome::Pending
                }
                KeyCode::Enter => {
                    let options = self
                        .points
                        .get(self.selected)
                        .map(choices)
                        .unwrap_or_default();
                    if !options.is_empty() {
                        self.stage = Stage::Choices {
                            options,
                            selected: 0,
                        };
                    }
                    RewindOutcome::Pending
                }
                _ => RewindOutcome::Pending,
            },
            Stage::Choices { options, selected } => {
                let pick = match key.code {
                    KeyCode::Esc => {
                        self.stage = Stage::Points;
                        return RewindOutcome::Pending;
                    }
                    KeyCode::Up | KeyCode::Char('k') => {
                        *selected = selected.saturating_sub(1);
                        None
                    }
                    KeyCode::Down | KeyCode::Char('j') => {
                        *selected = (*selected + 1).min(options.len().saturating_sub(1));
                        None
                    }
                    KeyCode::Enter => options.get(*selected).copied(),
                    KeyCode::Char(c) => c
                        .to_digit(10)
                        .and_then(|d| options.get((d as usize).wrapping_sub(1)).copied()),
                    _ => None,
                };
                match (pick, self.points.get(self.selected)) {
                    (Some(choice), Some(point)) => RewindOutcome::Check(choice.request(point)),
                    _ => RewindOutcome::Pending,
                }
            }
            Stage::Confirm { request, .. } => match key.code {
                KeyCode::Char('y') | KeyCode::Enter => {
                    let mut request = request.clone();
                    request.force = true;
                    RewindOutcome::Rewind(request)
                }
                KeyCode::Char('n') | KeyCode::Esc => RewindOutcome::Close,
                _ => RewindOutcome::Pending,
            },
        }
    }

    fn lines(&self, width: usize) -> Vec<Line<'static>> {
        let t = theme::current();
        let dim = Style::default().fg(t.dim);
        let bold = Style::default().add_modifier(Modifier::BOLD);
        let inner = width.saturating_sub(6).max(10);
        let mut lines = Vec::new();
        match &self.stage {
            Stage::Points => {
                lines.push(Line::styled(
                    "Go back to before which message? (files it changed shown)",
                    bold,
                ));
                let start = self
                    .selected
                    .saturating_sub(VISIBLE_POINTS - 1)
                    .min(self.points.len().saturating_sub(VISIBLE_POINTS));
                for (i, p) in self
                    .points
                    .iter()
                    .enumerate()
                    .skip(start)
                    .take(VISIBLE_POINTS)
                {
                    let marker = if i == self.selected { "❯ " } else { "  " };
                    let tag = match p.kind {
                        PointKind::Message => "",
                        PointKind::PlanApproval => "◆ ",
                        PointKind::BeforeRewind => "↶ ",
                    };
                    let style = if i == self.selected {
                        Style::default().fg(t.accent)
                    } else {
                        Style::default()
                    };
                    let time = p.timestamp.get(11..16).unwrap_or_default();
                    lines.push(Line::from(vec![
                        Span::styled(marker.to_string(), style),
                        Span::styled(truncate(&format!("{tag}{}", p.label), inner), style),
                        Span::styled(format!("  {time}"), dim),
                    ]));
                    if !p.files.is_empty() {
                        let files = format!("changed {}", p.files.join(", "));
                        lines.push(Line::styled(
                            format!("    {}", truncate(&files, inner)),
                            dim,
                        ));
                    }
                }
                lines.push(Line::styled("↑/↓ choose · enter select · esc cancel", dim));
            }
            Stage::Choices { options, selected } => {
                let label = self
                    .points
                    .get(self.selected)
                    .map(|p| p.label.clone())
                    .unwrap_or_default();
                lines.push(Line::styled(truncate(&label, inner), bold));
                for (i, c) in options.iter().enumerate() {
                    let marker = if i == *selected { "❯ " } else { "  " };
                    let style = if i == *selected {
                        Style::default().fg(t.accent)
                    } else {
                        Style::default()
                    };
                    lines.push(Line::styled(
                        format!("{marker}{}. {}", i + 1, c.label()),
                        style,
                    ));
                }
                lines.push(Line::styled("enter restore · esc back", dim));
            }
            Stage::Confirm { outside, .. } => {
                lines.push(Line::styled(
                    "These files changed outside catui since then; rewinding overwrites them:",
                    Style::default().fg(t.warn).add_modifier(Modifier::BOLD),
                ));
                for f in outside.iter().take(VISIBLE_POINTS) {
                    lines.push(Line::raw(format!("  {}", truncate(f, inner))));
                }
                if outside.len() > VISIBLE_POINTS {
                    lines.push(Line::styled(
                        format!("  and {} more", outside.len() - VISIBLE_POINTS),
                        dim,
                    ));
                }
                lines.push(Line::styled("y rewind anyway · n cancel", dim));
            }
        }
        lines
    }

    /// Rows the picker would like at `width`.
    pub fn desired_height(&self, width: u16) -> u16 {
        self.lines(width as usize).len() as u16 + 4
    }

    pub fn render(&self, area: Rect, buf: &mut Buffer) {
        let t = theme::current();
        let block = Block::default()
            .borders(Borders::ALL)
            .border_type(BorderType::Rounded)
            .border_style(Style::default().fg(t.accent))
            .title(" Rewind ")
            .padding(Padding::horizontal(1));
        Paragraph::new(self.lines(area.width as usize))
            .block(block)
            .render(area, buf);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use catui_core::checkpoints::RewindTarget;
    use crossterm::event::KeyModifiers;

    fn key(code: KeyCode) -> KeyEvent {
        KeyEvent::new(code, KeyModifiers::NONE)
    }

    fn point(id: &str, kind: PointKind) -> RewindPoint {
        RewindPoint {
            target: RewindTarget::parse(id),
            kind,
            label: format!("point {id}"),
            timestamp: "2026-01-01T10:20:30.000Z".into(),
            files: vec!["a.rs".into()],
            code: true,
            conversation: kind == PointKind::Message,
        }
    }

    #[test]
    fn a_message_offers_three_restores_and_outside_changes_ask_first() {
        let mut p = RewindPicker::new(vec![
            point("m1", PointKind::Message),
            point("plan:a-b-c", PointKind::PlanApproval),
        ]);
        assert_eq!(p.handle_key(key(KeyCode::Up)), RewindOutcome::Pending);
        p.handle_key(key(KeyCode::Enter));
        let text: Vec<String> = p.lines(80).iter().map(|l| l.to_string()).collect();
        assert!(
            text.iter()
                .any(|l| l.contains("1. Restore code and conversation"))
        );
        assert!(text.iter().any(|l| l.contains("3. Restore code only")));
        let RewindOutcome::Check(req) = p.handle_key(key(KeyCode::Char('2'))) else {
            panic!()
        };
        assert!(!req.code && req.conversation);
        p.confirm(req, vec!["mine.txt".into()]);
        assert!(
            p.lines(80)
                .iter()
                .any(|l| l.to_string().contains("mine.txt"))
        );
        let RewindOutcome::Rewind(forced) = p.handle_key(key(KeyCode::Char('y'))) else {
            panic!()
        };
        assert!(forced.force);
    }

    #[test]
    fn a_plan_point_goes_back_to_the_plan() {
        let mut p = RewindPicker::new(vec![point("plan:a-b-c", PointKind::PlanApproval)]);
        p.handle_key(key(KeyCode::Enter));
        let RewindOutcome::Check(req) = p.handle_key(key(KeyCode::Enter)) else {
            panic!()
        };
        assert_eq!(req.target, RewindTarget::parse("plan:a-b-c"));
        assert_eq!(p.handle_key(key(KeyCode::Esc)), RewindOutcome::Pending);
        assert_eq!(p.handle_key(key(KeyCode::Esc)), RewindOutcome::Close);
    }
}
