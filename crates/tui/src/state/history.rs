//! A resumed conversation shown again (`--continue`, `--resume`, the
//! picker, a fork): the messages the session resumed with become
//! transcript entries — prompts, answers, thinking, tool calls with their
//! results — so the scrollback and the transcript view (Ctrl+O) show what
//! the model already knows. Tool results are shown from the model's copy
//! (the user-facing view of a past call is not recorded), folded as usual.
//!
//! A long session is printed into the scrollback from the end back to
//! about [`REPLAY_ROWS`] rows (what a terminal's scrollback keeps anyway);
//! one line says how many earlier messages are only in the transcript
//! view.

use catui_core::session::rebuild::summary_message_text;
use catui_protocol::attachment::is_system_reminder;
use catui_protocol::tool_names;
use catui_protocol::{ContentBlock, Message, Role};

use super::AppState;
use crate::transcript::EntryKind;

/// Rows of a resumed conversation printed into the scrollback at most.
pub const REPLAY_ROWS: usize = 2_000;

impl AppState {
    /// Shows `messages` (the conversation a resumed session starts with)
    /// as transcript entries; rows for the scrollback are laid out at
    /// `width`.
    pub fn replay(&mut self, messages: &[Message], width: usize) {
        if messages.is_empty() {
            return;
        }
        let first = self.transcript.entries().len();
        let summary_head = summary_message_text("");
        let summary_head = summary_head.trim_end();
        for message in messages {
            match message.role {
                Role::Assistant => {
                    self.apply_assistant(message);
                    // A past sub-agent's progress is not known: its result
                    // is shown as it came back.
                    for (id, name, _) in message.tool_uses() {
                        if matches!(name, tool_names::AGENT | tool_names::TASK)
                            && let Some(tool) = self.transcript.tool_mut(id)
                        {
                            tool.agent = None;
                        }
                    }
                }
                Role::User => {
                    self.apply_tool_results(message);
                    let text = typed_text(message);
                    if text.trim().is_empty() {
                        continue;
                    }
                    match text.strip_prefix(summary_head) {
                        Some(summary) => self.system(
                            format!("Earlier conversation (compacted):\n{}", summary.trim()),
                            false,
                        ),
                        None => self.transcript.push(EntryKind::User(text)),
                    }
                }
            }
        }
        // The panels belong to a running turn, not to the past.
        self.todos.clear();
        self.awaiting_reply = false;
        let replayed = self.transcript.entries().len() - first;
        self.elide_old_replay(first, width);
        self.system(
            format!(
                "↻ Resumed this session: {replayed} earlier entries above (Ctrl+O shows them all)"
            ),
            false,
        );
    }

    /// Leaves the oldest replayed entries out of the scrollback when the
    /// replay is longer than [`REPLAY_ROWS`] rows at `width`.
    fn elide_old_replay(&mut self, first: usize, width: usize) {
        let entries = self.transcript.entries();
        let mut rows = 0;
        let mut keep_from = entries.len();
        while keep_from > first {
            let height = entries[keep_from - 1].height(width);
            if rows + height > REPLAY_ROWS {
                break;
            }
            rows += height;
            keep_from -= 1;
        }
        if keep_from > first {
            self.elided = Some(first..keep_from);
        }
    }
}

/// What the user wrote in a user message: its text blocks, without the
/// reminders catui attached.
fn typed_text(message: &Message) -> String {
    message
        .content
        .iter()
        .filter_map(|b| match b {
            ContentBlock::Text { text } if !is_system_reminder(text) => Some(text.as_str()),
            _ => None,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[cfg(test)]
#[path = "history_tests.rs"]
mod tests;
