//! The rewind picker (Esc Esc on an empty prompt, or `/rewind`): the
//! points the session can go back to — the user's messages still in the
//! conversation, each with the files its turn changed, plan approvals and
//! earlier rewinds — then what to restore ("code and conversation",
//! "conversation only", "code only", back to the plan, undo) under a
//! preview of what restoring the code changes (per file `+N −M`), and a
//! confirmation when files changed outside catui would be overwritten.
//! The runtime fetches the points, answers the preview and carries out
//! the choice; this module only holds the picker's state and turns keys
//! into an outcome (drawing is in `view.rs`, the keys in `keys.rs`).

pub mod keys;
mod view;

use catui_core::checkpoints::{FileLines, PointKind, RewindPoint, RewindReport, RewindRequest};
use crossterm::event::KeyEvent;

pub use keys::{CHOICES, CONFIRM, ChoiceKey, ConfirmKey, POINTS, PointKey};

use crate::keymap;

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

/// What restoring a point's code would change, relative to the files as
/// they are now: per file the lines it adds and removes, which of them it
/// deletes (created since the point), and which changed outside catui.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Preview {
    pub files: Vec<FileLines>,
    pub deleted: Vec<String>,
    pub outside: Vec<String>,
}

impl Preview {
    /// The preview a dry run's report gives.
    pub fn of(report: &RewindReport) -> Preview {
        Preview {
            files: report.files.clone(),
            deleted: report.deleted.clone(),
            outside: report.outside.clone(),
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
enum Stage {
    Points,
    Choices {
        options: Vec<Choice>,
        selected: usize,
        /// The runtime's answer to [`RewindOutcome::Preview`]: what
        /// restoring the code changes, or why it cannot be told; `None`
        /// while unanswered or when the point has no code to restore.
        preview: Option<Result<Preview, String>>,
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
    /// Say what restoring the code of this point would change (a dry
    /// run): the answer comes back through [`RewindPicker::set_preview`].
    Preview(RewindRequest),
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

    /// The answer to [`RewindOutcome::Preview`] (an error says why the
    /// code cannot be previewed; the rewind itself would say the same).
    pub fn set_preview(&mut self, answer: Result<Preview, String>) {
        if let Stage::Choices { preview, .. } = &mut self.stage {
            *preview = Some(answer);
        }
    }

    /// Asks whether to overwrite `outside` (files changed outside catui).
    pub fn confirm(&mut self, request: RewindRequest, outside: Vec<String>) {
        self.stage = Stage::Confirm { request, outside };
    }

    pub fn handle_key(&mut self, key: KeyEvent) -> RewindOutcome {
        match &self.stage {
            Stage::Points => self.points_key(key),
            Stage::Choices { .. } => self.choices_key(key),
            Stage::Confirm { request, .. } => match keymap::command(CONFIRM, key) {
                Some(ConfirmKey::Yes) => {
                    let mut request = request.clone();
                    request.force = true;
                    RewindOutcome::Rewind(request)
                }
                Some(ConfirmKey::No) => RewindOutcome::Close,
                None => RewindOutcome::Pending,
            },
        }
    }

    fn points_key(&mut self, key: KeyEvent) -> RewindOutcome {
        match keymap::command(POINTS, key) {
            Some(PointKey::Cancel) => RewindOutcome::Close,
            Some(PointKey::Up) => {
                self.selected = self.selected.saturating_sub(1);
                RewindOutcome::Pending
            }
            Some(PointKey::Down) => {
                self.selected = (self.selected + 1).min(self.points.len().saturating_sub(1));
                RewindOutcome::Pending
            }
            Some(PointKey::Select) => {
                let Some(point) = self.points.get(self.selected) else {
                    return RewindOutcome::Pending;
                };
                let options = choices(point);
                if options.is_empty() {
                    return RewindOutcome::Pending;
                }
                // Before anything is restored: what the code's restore
                // would change (the conversation needs no preview).
                let preview = point.code.then(|| RewindRequest {
                    target: point.target.clone(),
                    code: true,
                    conversation: false,
                    force: false,
                    dry_run: true,
                });
                self.stage = Stage::Choices {
                    options,
                    selected: 0,
                    preview: None,
                };
                preview.map_or(RewindOutcome::Pending, RewindOutcome::Preview)
            }
            None => RewindOutcome::Pending,
        }
    }

    fn choices_key(&mut self, key: KeyEvent) -> RewindOutcome {
        let Stage::Choices {
            options, selected, ..
        } = &mut self.stage
        else {
            return RewindOutcome::Pending;
        };
        let pick = match keymap::command(CHOICES, key) {
            Some(ChoiceKey::Back) => {
                self.stage = Stage::Points;
                return RewindOutcome::Pending;
            }
            Some(ChoiceKey::Up) => {
                *selected = selected.saturating_sub(1);
                None
            }
            Some(ChoiceKey::Down) => {
                *selected = (*selected + 1).min(options.len().saturating_sub(1));
                None
            }
            Some(ChoiceKey::Restore) => options.get(*selected).copied(),
            Some(ChoiceKey::Number) => match key.code {
                crossterm::event::KeyCode::Char(c) => c
                    .to_digit(10)
                    .and_then(|d| options.get((d as usize).wrapping_sub(1)).copied()),
                _ => None,
            },
            None => None,
        };
        match (pick, self.points.get(self.selected)) {
            (Some(choice), Some(point)) => RewindOutcome::Check(choice.request(point)),
            _ => RewindOutcome::Pending,
        }
    }
}

#[cfg(test)]
mod tests;
