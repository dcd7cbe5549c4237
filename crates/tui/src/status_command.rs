//! The status line from the user's command (setting `statusLine`, run by
//! core's `status_line`): when to run it and what to show. On each frame
//! the session's facts are put as JSON; when they differ from what the
//! command last saw, at least [`MIN_INTERVAL`] after its last start and
//! with no run still going, it runs again (bounded by core's time limit).
//! Its line replaces the built-in facts; the mode (or a passing hint)
//! stays on the left, so the permission mode is always in view. A failure
//! is said once in the transcript and the built-in line shows until a run
//! succeeds again.

use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use catui_core::session::git_branch::current_branch;
use catui_core::status_line::{StatusLineCommand, StatusLineError, TIMEOUT};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Widget};
use serde_json::json;
use tokio::sync::oneshot;

use crate::state::AppState;
use crate::theme::{self, mode_badge};
use crate::wrap::truncate;

/// Runs start at most this often while the session changes.
pub const MIN_INTERVAL: Duration = Duration::from_millis(300);

type RunResult = Result<Option<String>, StatusLineError>;

/// The command and the state of its runs.
pub struct StatusCommand {
    command: Arc<StatusLineCommand>,
    /// The run going now.
    running: Option<oneshot::Receiver<RunResult>>,
    /// The JSON the last run was given.
    last_input: Option<String>,
    last_start: Option<Instant>,
    /// A failure was already said.
    reported: bool,
}

impl StatusCommand {
    pub fn new(command: StatusLineCommand) -> StatusCommand {
        StatusCommand {
            command: Arc::new(command),
            running: None,
            last_input: None,
            last_start: None,
            reported: false,
        }
    }

    /// One frame: takes a finished run's line into `state`, starts another
    /// run when due. Returns whether what is shown changed. Must be called
    /// inside the tokio runtime (runs are tasks).
    pub fn poll(&mut self, state: &mut AppState, now: Instant) -> bool {
        let mut changed = false;
        if let Some(rx) = self.running.as_mut() {
            match rx.try_recv() {
                Ok(result) => {
                    self.running = None;
                    changed = self.take(result, state);
                }
                Err(oneshot::error::TryRecvError::Empty) => return false,
                Err(oneshot::error::TryRecvError::Closed) => self.running = None,
            }
        }
        if self
            .last_start
            .is_some_and(|at| now.duration_since(at) < MIN_INTERVAL)
        {
            return changed;
        }
        let branch = current_branch(Path::new(&state.info.cwd));
        let input = session_json(state, branch.as_deref());
        if self.last_input.as_deref() == Some(input.as_str()) {
            return changed;
        }
        let (tx, rx) = oneshot::channel();
        let command = self.command.clone();
        let stdin = input.clone();
        tokio::spawn(async move {
            let _ = tx.send(command.run(&stdin, TIMEOUT).await);
        });
        self.running = Some(rx);
        self.last_input = Some(input);
        self.last_start = Some(now);
        changed
    }

    fn take(&mut self, result: RunResult, state: &mut AppState) -> bool {
        let mut said = false;
        let line = match result {
            Ok(line) => line,
            Err(e) => {
                if !self.reported {
                    self.reported = true;
                    said = true;
                    state.system(
                        format!(
                            "The status line command failed ({e}); the built-in status line is shown."
                        ),
                        true,
                    );
                }
                None
            }
        };
        let changed = said || state.custom_status != line;
        state.custom_status = line;
        changed
    }
}

/// What the command reads on stdin: the session's facts now.
pub fn session_json(state: &AppState, git_branch: Option<&str>) -> String {
    let plan = state.plan_file.as_deref().map(|file| {
        let slug = Path::new(file)
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned());
        json!({
            "slug": slug,
            "file": file,
            "step": state.work_step.as_ref().map(|s| s.step),
            "total_steps": state.work_step.as_ref().map(|s| s.total),
        })
    });
    let u = &state.usage;
    json!({
        "session_id": state.info.session_id,
        "cwd": state.info.cwd,
        "workspace": {"current_dir": state.info.cwd},
        "model": {"id": state.info.model, "display_name": state.info.model},
        "permission_mode": state.mode.as_str(),
        "plan": plan,
        "cost": {"total_cost_usd": state.cost_usd},
        "tokens": {
            "input": u.input_tokens,
            "output": u.output_tokens,
            "cache_read": u.cache_read_input_tokens,
            "cache_creation": u.cache_creation_input_tokens,
            "total": u.total(),
        },
        "git_branch": git_branch,
    })
    .to_string()
}

/// The status line with the command's `line`: the mode (or a passing
/// note) on the left, the line after it, cut to fit.
pub fn render_custom_status(state: &AppState, line: &str, area: Rect, buf: &mut Buffer) {
    let width = area.width as usize;
    let note = state
        .ctrl_c_note()
        .or_else(|| state.hint.as_ref().map(|(h, _)| h.clone()));
    let left = match note {
        Some(n) => Span::styled(n, Style::default().fg(theme::current().warn)),
        None => {
            let (label, style) = mode_badge(state.mode);
            Span::styled(label, style)
        }
    };
    let room = width.saturating_sub(left.width() + 3);
    let spans = vec![left, Span::raw(" · "), Span::raw(truncate(line, room))];
    Paragraph::new(Line::from(spans)).render(area, buf);
}

#[cfg(test)]
#[path = "status_command_tests.rs"]
mod tests;
