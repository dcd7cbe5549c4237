//! Attachments: context the engine injects before a model request as
//! `<system-reminder>` user content. Each injected
//! attachment is also emitted on the event stream and stored in the
//! transcript.

use serde::{Deserialize, Serialize};

/// The tags around attachment text in the conversation.
pub const SYSTEM_REMINDER_OPEN: &str = "<system-reminder>";
pub const SYSTEM_REMINDER_CLOSE: &str = "</system-reminder>";

/// Wraps an attachment body as `<system-reminder>` content.
pub fn wrap_system_reminder(body: &str) -> String {
    format!("{SYSTEM_REMINDER_OPEN}\n{body}\n{SYSTEM_REMINDER_CLOSE}")
}

/// Whether a text block is injected context rather than something the
/// user typed.
pub fn is_system_reminder(text: &str) -> bool {
    text.trim_start().starts_with(SYSTEM_REMINDER_OPEN)
}

/// Whether a plan-mode reminder carries the full workflow or a short nudge.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ReminderType {
    Full,
    Sparse,
}

/// One attachment. The `type` tag is the wire name used in stream-json
/// `system`/`attachment` events and in transcripts.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Attachment {
    PlanMode {
        #[serde(rename = "reminderType")]
        reminder_type: ReminderType,
        #[serde(rename = "isSubAgent")]
        is_sub_agent: bool,
        #[serde(rename = "planFilePath")]
        plan_file_path: String,
        #[serde(rename = "planExists")]
        plan_exists: bool,
    },
    PlanModeReentry {
        #[serde(rename = "planFilePath")]
        plan_file_path: String,
    },
    PlanModeExit {
        #[serde(rename = "planFilePath")]
        plan_file_path: String,
        #[serde(rename = "planExists")]
        plan_exists: bool,
        /// Plan mode ended because the user parked the plan: nothing was
        /// approved.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        parked: bool,
    },
    PlanFileReference {
        #[serde(rename = "planFilePath")]
        plan_file_path: String,
        #[serde(rename = "planContent")]
        plan_content: String,
        /// `planContent` is the revision the user approved (implementation
        /// is under way), which the file may no longer hold.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        approved: bool,
        /// The plan file's text differs from the approved revision.
        #[serde(
            default,
            rename = "fileChanged",
            skip_serializing_if = "std::ops::Not::not"
        )]
        file_changed: bool,
    },
    AutoModeExit,
    /// Free text from a component that has no dedicated type yet.
    Reminder {
        text: String,
    },
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wire_names_are_the_seed_names() {
        let a = Attachment::PlanMode {
            reminder_type: ReminderType::Full,
            is_sub_agent: false,
            plan_file_path: "/p.md".into(),
            plan_exists: false,
        };
        assert_eq!(
            serde_json::to_value(&a).unwrap(),
            serde_json::json!({"type":"plan_mode","reminderType":"full","isSubAgent":false,"planFilePath":"/p.md","planExists":false})
        );
    }
}
