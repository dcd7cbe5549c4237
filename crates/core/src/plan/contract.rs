//! The short protocol strings of plan mode. SPEC.md makes these part of the
//! contract (clients, tests and models rely on them), so they are kept
//! verbatim here and used by reference everywhere else.

/// `/plan` when not yet in plan mode.
pub const ENABLED_PLAN_MODE: &str = "Enabled plan mode";

/// `/plan` in plan mode before a plan was written.
pub const ALREADY_IN_PLAN_MODE_NO_PLAN: &str = "Already in plan mode. No plan written yet.";

/// Title of the `/plan` display of the current plan.
pub const CURRENT_PLAN_TITLE: &str = "Current Plan";

/// `/plan open` results.
pub fn opened_plan_in_editor(path: &str) -> String {
    format!("Opened plan in editor: {path}")
}

pub fn failed_to_open_plan_in_editor(error: &str) -> String {
    format!("Failed to open plan in editor: {error}")
}

/// The first line of EnterPlanMode's tool result.
pub const ENTERED_PLAN_MODE: &str = "Entered plan mode. You should now focus on exploring the codebase and designing an implementation approach.";

/// EnterPlanMode declined by the user (or left unanswered).
pub const ENTER_PLAN_MODE_DECLINED: &str = "The user declined to enter plan mode. Nothing changed: stay in the current mode and continue with the task as asked (you may still ask the user questions).";

/// EnterPlanMode called by a sub-agent.
pub const ENTER_PLAN_MODE_IN_AGENT_ERROR: &str =
    "EnterPlanMode tool cannot be used in agent contexts";

/// ExitPlanMode's permission question.
pub const EXIT_PLAN_MODE_QUESTION: &str = "Exit plan mode?";

/// ExitPlanMode called outside plan mode; comes with error code 1.
pub const NOT_IN_PLAN_MODE: &str = "You are not in plan mode. This tool is only for exiting plan mode after writing a plan. If your plan was already approved, continue with implementation.";

/// ExitPlanMode called by a teammate outside plan mode: allowed, and
/// changes nothing.
pub const NOT_IN_PLAN_MODE_NOTHING_CHANGED: &str = "You are not in plan mode, so there is nothing to exit and nothing was changed. Continue with your task.";

/// The error code of [`NOT_IN_PLAN_MODE`].
pub const NOT_IN_PLAN_MODE_ERROR_CODE: u32 = 1;

/// ExitPlanMode approved: the opening of the tool result.
pub const PLAN_APPROVED: &str = "User has approved your plan. You can now start coding.";

/// Heading of the approved plan in the tool result.
pub const APPROVED_PLAN_HEADING: &str = "## Approved Plan:";

/// Heading when the user edited the plan before approving.
pub const APPROVED_PLAN_EDITED_HEADING: &str = "## Approved Plan (edited by user):";

/// ExitPlanMode approved for a sub-agent.
pub const AGENT_PLAN_APPROVED: &str = "User has approved the plan. There is nothing else needed from you now. Please respond with \"ok\"";

/// ExitPlanMode approved with no (or an empty) plan.
pub const EMPTY_PLAN_APPROVED: &str = "User has approved exiting plan mode. You can now proceed.";

/// A plan-required teammate called ExitPlanMode without a plan.
pub fn no_plan_file_found(path: &str) -> String {
    format!(
        "No plan file found at {path}. Please write your plan to this file before calling ExitPlanMode."
    )
}

/// Notification key when auto mode cannot be restored after plan mode.
pub const AUTO_GATE_PLAN_EXIT_FALLBACK_KEY: &str = "auto-mode-gate-plan-exit-fallback";

/// Notification text for [`AUTO_GATE_PLAN_EXIT_FALLBACK_KEY`]; `reason` says
/// why auto mode is unavailable.
pub fn auto_gate_plan_exit_fallback_text(reason: &str) -> String {
    format!("plan exit -> default · {reason}")
}

/// The `file_snapshot` key of plan snapshots (`CATUI_REMOTE`,
/// `snapshotPlans`): the plan file's text after each change.
pub const PLAN_SNAPSHOT_KEY: &str = "plan";

/// The `file_snapshot` key of the revision the user approved (its SHA-256
/// is that of its content).
pub const PLAN_APPROVED_KEY: &str = "plan_approved";

/// The approval answered a revision the plan file no longer holds.
/// Why the user is asked again: the plan changed while they read it.
pub const PLAN_CHANGED_WHILE_SHOWN: &str = "The plan file changed while you were reviewing it; review the new text (its changes are shown).";

pub fn plan_changed_since_shown(path: &str) -> String {
    format!(
        "The plan file {path} changed after it was shown for approval, so the answer was not applied: nothing was approved and you are still in plan mode. Call ExitPlanMode again to present the current text; the user will see what changed."
    )
}

/// The `file_snapshot` key of a plan presented for approval: catui's
/// ExitPlanMode carries the plan in the approval request rather than in the
/// model's input, and keeps each presented revision under this key.
pub const PLAN_REVISION_KEY: &str = "plan_revision";
