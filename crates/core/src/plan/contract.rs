//! The short protocol strings of plan mode. Clients, tests and models rely
//! on them word for word (docs/PLAN_MODE.md quotes the ones users see, such
//! as `Enabled plan mode`), so they are kept verbatim here and used by
//! reference everywhere else.

/// `/plan` when not yet in plan mode.
pub const ENABLED_PLAN_MODE: &str = "Enabled plan mode";

/// `/plan` in plan mode before a plan was written.
pub const ALREADY_IN_PLAN_MODE_NO_PLAN: &str = "Already in plan mode. No plan written yet.";

/// `/plan <description>` in plan mode: the description is sent on.
pub const ALREADY_PLANNING_SENT: &str =
    "Already in plan mode: your description was sent to the model as the next planning request.";

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

/// ExitPlanMode's prompt got no decision (withdrawn, the client's input
/// closed, an answer that could not be read): nothing was approved, and
/// the user did not reject the plan either.
pub fn plan_not_answered(reason: &str) -> String {
    format!(
        "No decision was made on your plan: {reason}. The plan was neither approved nor rejected, and you are still in plan mode. Do not change anything: end your turn and wait for the user (do not call ExitPlanMode again in this turn)."
    )
}

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

/// EnterPlanMode called while already in plan mode.
pub const ALREADY_IN_PLAN_MODE: &str = "You are already in plan mode: nothing changed. Keep planning: explore the code, write your plan to the plan file and call ExitPlanMode when it is ready for the user's approval.";

/// A second ExitPlanMode call in the same assistant message.
pub const ONE_EXIT_PER_MESSAGE: &str = "This message already called ExitPlanMode: only its first call is put to the user, so this one was not run and nothing was asked or approved through it. The first call's result is the user's answer.";

/// The re-presentation's reason when an answer named another revision
/// (its `planHash`) than the one shown.
pub const ANSWERED_ANOTHER_REVISION: &str = "The answer named another revision of the plan (planHash) than the one shown; review this revision and answer again.";

/// An approval kept naming another revision than the one shown.
pub fn answered_another_revision(path: &str) -> String {
    format!(
        "The user's answer was for another revision of the plan than the one shown (its planHash does not match {path} as presented), so it was not applied: nothing was approved and you are still in plan mode. Call ExitPlanMode again to present the plan."
    )
}

/// Added to a rejection when the plan presented was the very text the
/// user had rejected before.
pub const PLAN_UNCHANGED_NOTE: &str = "Note: the plan you presented was unchanged, the same text the user had already rejected. Change the plan file to address the feedback before calling ExitPlanMode again.";

/// A teammate that entered plan mode of its own accord leaves it: nobody
/// reviewed the plan, so nothing was "approved".
pub fn exited_plan_mode_unreviewed(path: &str) -> String {
    format!(
        "You have exited plan mode. You can now make edits, run tools, and take actions. No one reviewed this plan: you entered plan mode on your own, so leaving it needed no approval. Your plan is in {path} if you need to refer back to it."
    )
}

/// The `file_snapshot` key of an approved amendment: the plan as amended
/// (also kept as the approved revision, [`PLAN_APPROVED_KEY`]).
pub const PLAN_AMENDED_KEY: &str = "plan_amended";

/// The heading under which approved amendments are appended to the plan.
pub const AMENDMENTS_HEADING: &str = "## Amendments";

/// AmendPlan approved: what the model reads.
pub fn amendment_approved(path: &str, n: usize) -> String {
    format!(
        "The user approved amendment {n}: it is now part of the approved plan ({path}, under \"{AMENDMENTS_HEADING}\"). The files and steps it names are in the plan; carry them out as part of it."
    )
}

/// AmendPlan refused.
pub const AMENDMENT_REFUSED: &str = "The user did not approve this amendment: the plan stays as approved. Stay within the plan, or ask the user what to do instead.";

/// The `file_snapshot` key of a plan the user parked ("not now"): the
/// text set aside, not approved.
pub const PLAN_PARKED_KEY: &str = "plan_parked";

/// The tool result of a parked plan.
pub fn plan_parked_result(path: &str, mode: &str, note: &str) -> String {
    let note = match note.trim() {
        "" => String::new(),
        note => format!("\n\nThe user's note:\n{note}"),
    };
    format!(
        "The user parked the plan for later. Nothing was approved: do not implement this plan or any part of it, and make no changes for it. Plan mode ended only because the user set the plan aside (the mode is back to {mode}); the plan stays in {path}, and the user will pick it up with /plan when they choose to. This turn ends here.{note}"
    )
}

/// The result of the input whose plan was parked.
pub fn plan_parked_summary(path: &str) -> String {
    format!("Plan parked, not approved: {path}. Pick it up later with /plan.")
}

/// What the model reads before the next input of a resumed session when
/// the user answered its plan after the previous run ended (`catui plans
/// review`): the answer as ExitPlanMode would have returned it.
pub fn answered_after_the_run(answer: &str) -> String {
    format!(
        "Your last run ended when you presented your plan for approval. The user has since reviewed it, and this is the answer to that ExitPlanMode call:\n\n{answer}"
    )
}
