//! Plan-mode attachments: which of `plan_mode`, `plan_mode_reentry`,
//! `plan_mode_exit` (and `auto_mode_exit`) to inject before a model request,
//! and their model-facing text.
//!
//! # How the cadence is tracked
//!
//! The full/sparse cadence and the human-turn throttle are computed from the
//! conversation itself, not from counters: the engine appends each rendered
//! attachment to the conversation as a `<system-reminder>` text block whose
//! body starts with a stable marker (see [`crate::plan::prompts`]'s `MARKER_*`
//! constants), and [`plan_mode_attachments`] scans the messages backwards for
//! those markers. This keeps the cadence across resume (the transcript holds
//! the same messages) and restarts it naturally after compaction (the
//! summary no longer carries the full instructions, so the next reminder is
//! full again).
//!
//! Rules:
//! - Outside plan mode no `plan_mode` attachment is produced.
//! - A `plan_mode` attachment is produced when none was injected in the
//!   current plan-mode episode, or when at least
//!   [`TURNS_BETWEEN_ATTACHMENTS`] human turns passed since the last one.
//!   Human turns are user messages that carry real input: not tool results,
//!   not meta messages, not messages made only of system reminders. Tool-loop
//!   requests inside a turn therefore never get one.
//! - The n-th `plan_mode` attachment since the last `plan_mode_exit` is full
//!   when `n % FULL_REMINDER_EVERY_N_ATTACHMENTS == 1` (1, 6, 11, ...), else
//!   sparse.
//! - catui addition: a `plan_mode_exit` marker also ends the scan for the
//!   previous plan-mode attachment, so re-entering plan mode right after an
//!   exit is announced at once instead of waiting out the throttle; and an
//!   entry into plan mode since the last request (`PlanState::take_entered`)
//!   does the same when no exit reminder was sent in between (a park or an
//!   approval followed at once by `/plan`): the episode starts with a full
//!   reminder.

use std::path::Path;

use catui_protocol::attachment::ReminderType;
use catui_protocol::{Attachment, ContentBlock, Message, PermissionMode, Role};

use crate::plan::prompts::{
    self, MARKER_AUTO_MODE_EXIT, MARKER_PLAN_FILE_REFERENCE, MARKER_PLAN_MODE_ACTIVE,
    MARKER_PLAN_MODE_EXIT, MARKER_PLAN_MODE_REENTRY, MARKER_PLAN_MODE_STILL_ACTIVE, PromptOptions,
};
use crate::plan::state::PlanState;

/// Human turns between two `plan_mode` attachments.
pub const TURNS_BETWEEN_ATTACHMENTS: usize = 5;
/// Every n-th `plan_mode` attachment is a full reminder.
pub const FULL_REMINDER_EVERY_N_ATTACHMENTS: usize = 5;

// The scanner accepts any text block that starts with `<system-reminder>`
// (after whitespace) and whose body starts with a marker.
use catui_protocol::attachment::{
    SYSTEM_REMINDER_CLOSE as REMINDER_CLOSE, SYSTEM_REMINDER_OPEN as REMINDER_OPEN,
};
pub use catui_protocol::attachment::{is_system_reminder, wrap_system_reminder};

/// What a rendered reminder found in the conversation is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReminderKind {
    /// A `plan_mode` attachment (full, sparse or sub-agent).
    PlanMode,
    PlanModeReentry,
    PlanModeExit,
    PlanFileReference,
    AutoModeExit,
}

/// Recognises a rendered plan reminder block by its marker. A body that is
/// the attachment serialised as JSON (the engine's generic rendering) is
/// recognised too, so the cadence holds whichever renderer produced it.
pub fn classify_reminder(text: &str) -> Option<ReminderKind> {
    let body = text.trim_start().strip_prefix(REMINDER_OPEN)?.trim_start();
    if body.starts_with('{') {
        return classify_json(body);
    }
    [
        (MARKER_PLAN_MODE_ACTIVE, ReminderKind::PlanMode),
        (MARKER_PLAN_MODE_STILL_ACTIVE, ReminderKind::PlanMode),
        (MARKER_PLAN_MODE_REENTRY, ReminderKind::PlanModeReentry),
        (MARKER_PLAN_MODE_EXIT, ReminderKind::PlanModeExit),
        (MARKER_PLAN_FILE_REFERENCE, ReminderKind::PlanFileReference),
        (MARKER_AUTO_MODE_EXIT, ReminderKind::AutoModeExit),
    ]
    .into_iter()
    .find(|(marker, _)| body.starts_with(marker))
    .map(|(_, kind)| kind)
}

fn classify_json(body: &str) -> Option<ReminderKind> {
    let json = body.trim_end().strip_suffix(REMINDER_CLOSE).unwrap_or(body);
    match serde_json::from_str::<Attachment>(json.trim()).ok()? {
        Attachment::PlanMode { .. } => Some(ReminderKind::PlanMode),
        Attachment::PlanModeReentry { .. } => Some(ReminderKind::PlanModeReentry),
        Attachment::PlanModeExit { .. } => Some(ReminderKind::PlanModeExit),
        Attachment::PlanFileReference { .. } => Some(ReminderKind::PlanFileReference),
        Attachment::AutoModeExit => Some(ReminderKind::AutoModeExit),
        Attachment::Reminder { .. } => None,
    }
}

/// The reminder kinds in a message, in block order.
fn reminder_kinds(message: &Message) -> impl DoubleEndedIterator<Item = ReminderKind> + '_ {
    message.content.iter().filter_map(|b| match b {
        ContentBlock::Text { text } => classify_reminder(text),
        _ => None,
    })
}

/// Whether a user message is real human input. `is_meta` comes
/// from the transcript record, since [`Message`] does not carry it.
pub fn is_human_turn(message: &Message, is_meta: bool) -> bool {
    if message.role != Role::User || is_meta {
        return false;
    }
    if message
        .content
        .iter()
        .any(|b| matches!(b, ContentBlock::ToolResult { .. }))
    {
        return false;
    }
    message.content.iter().any(|b| match b {
        ContentBlock::Text { text } => !is_system_reminder(text),
        ContentBlock::Image { .. } => true,
        _ => false,
    })
}

/// Everything the attachment decision needs, passed in explicitly.
#[derive(Debug, Clone, Copy)]
pub struct PlanAttachmentInput<'a> {
    /// The conversation so far, including the message about to be sent.
    pub messages: &'a [Message],
    /// Indices into `messages` of meta user messages (injected context or
    /// command output that is not human input). Usually empty.
    pub meta_message_indices: &'a [usize],
    pub mode: PermissionMode,
    pub is_sub_agent: bool,
    /// This conversation's plan file (the sub-agent's own for a sub-agent).
    pub plan_file_path: &'a Path,
    pub plan_exists: bool,
}

/// Human turns since the last `plan_mode`/`plan_mode_reentry` attachment of
/// the current plan-mode episode, and whether one was found.
pub fn turns_since_last_plan_mode_attachment(
    messages: &[Message],
    meta_message_indices: &[usize],
) -> (usize, bool) {
    let mut turns = 0;
    for (i, message) in messages.iter().enumerate().rev() {
        if message.role != Role::User {
            continue;
        }
        // A human message that also carries the reminder injected with it
        // is the zero point: check the reminders first.
        for kind in reminder_kinds(message).rev() {
            match kind {
                ReminderKind::PlanMode | ReminderKind::PlanModeReentry => return (turns, true),
                ReminderKind::PlanModeExit => return (turns, false),
                _ => {}
            }
        }
        if is_human_turn(message, meta_message_indices.contains(&i)) {
            turns += 1;
        }
    }
    (turns, false)
}

/// `plan_mode` attachments since the last `plan_mode_exit`.
pub fn plan_mode_attachments_since_last_exit(messages: &[Message]) -> usize {
    let mut count = 0;
    for message in messages.iter().rev().filter(|m| m.role == Role::User) {
        for kind in reminder_kinds(message).rev() {
            match kind {
                ReminderKind::PlanModeExit => return count,
                ReminderKind::PlanMode => count += 1,
                _ => {}
            }
        }
    }
    count
}

/// The `plan_mode_reentry` and `plan_mode` attachments due now.
/// Consumes the re-entry flag of `state` when the re-entry notice is sent.
pub fn plan_mode_attachments(
    input: &PlanAttachmentInput<'_>,
    state: &PlanState,
) -> Vec<Attachment> {
    if input.mode != PermissionMode::Plan {
        return Vec::new();
    }
    // Entering plan mode again starts a new episode at once, even when no
    // exit reminder reached the conversation in between (the mode changed
    // right after a park or an approval, before any request).
    let entered = !input.is_sub_agent && state.take_entered();
    let (turns, found) =
        turns_since_last_plan_mode_attachment(input.messages, input.meta_message_indices);
    if !entered && found && turns < TURNS_BETWEEN_ATTACHMENTS {
        return Vec::new();
    }
    let plan_file_path = input.plan_file_path.to_string_lossy().into_owned();
    let mut out = Vec::new();
    if input.plan_exists && !input.is_sub_agent && state.has_exited_plan_mode_in_session() {
        state.set_has_exited_plan_mode(false);
        out.push(Attachment::PlanModeReentry {
            plan_file_path: plan_file_path.clone(),
        });
    }
    let n = if entered {
        1
    } else {
        plan_mode_attachments_since_last_exit(input.messages) + 1
    };
    let full = n % FULL_REMINDER_EVERY_N_ATTACHMENTS == 1;
    state.count_reminder(full);
    out.push(Attachment::PlanMode {
        reminder_type: if full {
            ReminderType::Full
        } else {
            ReminderType::Sparse
        },
        is_sub_agent: input.is_sub_agent,
        plan_file_path,
        plan_exists: input.plan_exists,
    });
    out
}

/// The one-shot `plan_mode_exit` attachment. The flag is cleared
/// either way; in plan mode nothing is produced. Sub-agents never consume
/// the session's flag (it belongs to the main conversation).
pub fn plan_mode_exit_attachments(
    input: &PlanAttachmentInput<'_>,
    state: &PlanState,
) -> Vec<Attachment> {
    if input.is_sub_agent || !state.take_needs_plan_mode_exit_attachment() {
        return Vec::new();
    }
    if input.mode == PermissionMode::Plan {
        return Vec::new();
    }
    vec![Attachment::PlanModeExit {
        plan_file_path: input.plan_file_path.to_string_lossy().into_owned(),
        plan_exists: input.plan_exists,
        parked: state.take_exit_was_park(),
    }]
}

/// The one-shot `auto_mode_exit` attachment: produced when the flag is set
/// and auto mode is not active any more; the flag is cleared either way.
pub fn auto_mode_exit_attachments(state: &PlanState, auto_mode_active: bool) -> Vec<Attachment> {
    if !state.take_needs_auto_mode_exit_attachment() || auto_mode_active {
        return Vec::new();
    }
    vec![Attachment::AutoModeExit]
}

/// All plan-mode attachments due before this request, in injection order.
pub fn plan_attachments(input: &PlanAttachmentInput<'_>, state: &PlanState) -> Vec<Attachment> {
    let mut out = plan_mode_attachments(input, state);
    out.extend(plan_mode_exit_attachments(input, state));
    out
}

/// The model-facing body of an attachment; the caller wraps it in
/// `<system-reminder>` (see [`wrap_system_reminder`]). For `plan_mode` the
/// path, existence and sub-agent flag come from the attachment itself and
/// the rest (agent counts, variant, interview) from `options`.
pub fn render_attachment(attachment: &Attachment, options: &PromptOptions) -> String {
    match attachment {
        Attachment::PlanMode {
            reminder_type,
            is_sub_agent,
            plan_file_path,
            plan_exists,
        } => {
            let o = PromptOptions {
                plan_file_path: plan_file_path.clone(),
                plan_exists: *plan_exists,
                is_sub_agent: *is_sub_agent,
                ..options.clone()
            };
            match reminder_type {
                ReminderType::Full => prompts::full_reminder(&o),
                ReminderType::Sparse => prompts::sparse_reminder(&o),
            }
        }
        Attachment::PlanModeReentry { plan_file_path } => prompts::reentry_reminder(plan_file_path),
        Attachment::PlanModeExit {
            plan_file_path,
            plan_exists,
            parked: false,
        } => prompts::exit_reminder(plan_file_path, *plan_exists),
        Attachment::PlanModeExit {
            plan_file_path,
            parked: true,
            ..
        } => prompts::parked_exit_reminder(plan_file_path),
        Attachment::PlanFileReference {
            plan_file_path,
            plan_content,
            approved,
            file_changed,
        } => prompts::plan_file_reference(plan_file_path, plan_content, *approved, *file_changed),
        Attachment::AutoModeExit => prompts::auto_mode_exit_reminder(),
        Attachment::Reminder { text } => text.clone(),
    }
}

#[cfg(test)]
#[path = "attachments_tests.rs"]
mod tests;
