//! The demo script's answers to permission prompts when the demo is
//! narrated (`--print`, or no terminal): keep planning with feedback at the
//! first plan, then approve with auto-accept edits. At a terminal the user
//! answers in the real interface instead.

use catui_protocol::tool_names;
use std::sync::atomic::{AtomicU32, Ordering};

use async_trait::async_trait;
use catui_core::engine::{Approver, PermissionAnswer, PermissionRequest};
use catui_core::plan::approval::decision::ApprovalDecision;
use catui_protocol::PermissionMode;

use super::narrate::Notes;
use super::script::FEEDBACK;

/// Who answers the demo's prompts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Answers {
    /// The demo script, narrated.
    Scripted,
    /// The user, in the full-screen interface.
    InTheInterface,
}

pub struct DemoApprover {
    notes: Notes,
    presentations: AtomicU32,
}

impl DemoApprover {
    pub fn new(notes: Notes) -> DemoApprover {
        DemoApprover {
            notes,
            presentations: AtomicU32::new(0),
        }
    }

    async fn plan_choice(&self, request: &PermissionRequest) -> PermissionAnswer {
        let n = self.presentations.fetch_add(1, Ordering::Relaxed) + 1;
        let input = &request.input;
        let mut text = format!(
            "\n━━ The plan is ready for approval (presentation {n}) ━━\nPlan file: {}\n",
            input["planFilePath"].as_str().unwrap_or("?")
        );
        match input["planDiff"].as_str() {
            Some(diff) => {
                text.push_str("Changes since the rejected version:\n");
                for line in diff.lines() {
                    text.push_str(&format!("  │ {line}\n"));
                }
            }
            None => {
                for line in input["plan"].as_str().unwrap_or("").lines() {
                    text.push_str(&format!("  │ {line}\n"));
                }
            }
        }
        text.push_str(
            "Would you like to proceed?\n  1. Yes, and auto-accept edits\n  2. Yes, and manually approve edits\n  3. No, keep planning",
        );
        self.notes.say(text).await;
        let (pick, feedback) = if n == 1 {
            ("3", FEEDBACK.to_string())
        } else {
            ("1", String::new())
        };
        self.notes
            .say(format!("▸ demo script picks {pick}{}", quoted(&feedback)))
            .await;
        let decision = match pick {
            "3" => ApprovalDecision::keep_planning(feedback),
            "2" => ApprovalDecision::approve(Some(PermissionMode::Default)),
            _ => ApprovalDecision::approve(Some(PermissionMode::AcceptEdits)),
        };
        decision.into_answer(input)
    }
}

fn quoted(feedback: &str) -> String {
    if feedback.is_empty() {
        String::new()
    } else {
        format!(" with feedback: \"{feedback}\"")
    }
}

#[async_trait]
impl Approver for DemoApprover {
    async fn ask(&self, request: PermissionRequest) -> PermissionAnswer {
        if request.tool_name == tool_names::EXIT_PLAN_MODE {
            return self.plan_choice(&request).await;
        }
        let what = format!(
            "permission needed for {}: {}",
            request.tool_name, request.reason
        );
        self.notes
            .say(format!("▸ {what} — allowed by the demo script"))
            .await;
        PermissionAnswer::Allow {
            updated_input: None,
            updated_permissions: None,
        }
    }
}
