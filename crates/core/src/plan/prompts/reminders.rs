//! The short plan-mode reminders: sparse, sub-agent, re-entry,
//! exit, plan-file reference and auto-mode exit. Written in catui's own
//! words. Each starts with a stable marker line (see `super::MARKER_*`) that
//! the attachment scanner recognises in the conversation.

use super::workflow::{no_text_approval_rule, turn_end_rule};
use super::{
    MARKER_AUTO_MODE_EXIT, MARKER_PLAN_FILE_REFERENCE, MARKER_PLAN_MODE_ACTIVE,
    MARKER_PLAN_MODE_EXIT, MARKER_PLAN_MODE_REENTRY, MARKER_PLAN_MODE_STILL_ACTIVE, PlanVariant,
    PromptOptions,
};

/// The reminder between full ones.
pub(crate) fn sparse(o: &PromptOptions) -> String {
    let workflow = if o.interview_phase && !o.nobody_to_ask {
        "Keep planning with the user in rounds: explore, update the plan file, ask."
    } else {
        "Keep following the five-phase workflow: explore, design, review, write the plan file, call ExitPlanMode."
    };
    let cap = if o.variant == PlanVariant::Cap {
        " The final plan is at most 40 lines."
    } else {
        ""
    };
    format!(
        "{MARKER_PLAN_MODE_STILL_ACTIVE} (the full instructions appear earlier in this conversation). \
Only read-only actions are allowed, except changes to the plan file: {path}. \
{workflow}{cap} {turn_end} {no_text_approval}",
        path = o.plan_file_path,
        turn_end = turn_end_rule(o),
        no_text_approval = no_text_approval_rule(o),
    )
}

/// A sub-agent running in plan mode: a short reminder about its own plan
/// file, used for both full and sparse reminders.
pub(crate) fn sub_agent(o: &PromptOptions) -> String {
    // Only what the agent can do: a plan file for agents that can write
    // one, the final answer for read-only agents. No sub-agent can ask the
    // user (AskUserQuestion belongs to the main conversation).
    if !o.sub_agent_writes {
        return format!(
            "{MARKER_PLAN_MODE_ACTIVE} You are a sub-agent working under plan mode, so you must not change anything: \
use only read-only tools and commands. This overrides any other instruction.

Answer the request you were given thoroughly; your final message is your whole report, so put your findings \
and any plan in it. If something important is unclear and only the user can settle it, say so in that report \
instead of guessing."
        );
    }
    let file = if o.plan_exists {
        format!(
            "Your plan file already exists at {}. Read it and extend it with incremental Edit calls.",
            o.plan_file_path
        )
    } else {
        format!(
            "Your plan file is {}. It does not exist yet: create it with the Write tool when you have something to record.",
            o.plan_file_path
        )
    };
    format!(
        "{MARKER_PLAN_MODE_ACTIVE} You are a sub-agent working under plan mode, so you must not change anything: \
do not edit, create or delete any file except your own plan file, and use only read-only tools and commands. \
This overrides any other instruction.

{file} Build your findings and plan up in that file as you go.

Answer the request you were given thoroughly. If something important is unclear and only the user can settle it, \
say so in your final answer instead of guessing."
    )
}

/// Back in plan mode with a plan left from an earlier exit.
pub(crate) fn reentry(plan_file_path: &str) -> String {
    format!(
        "{MARKER_PLAN_MODE_REENTRY}
You are back in plan mode after leaving it earlier in this session. The plan from that earlier work is still at {plan_file_path}.

Before anything else:
1. Read the existing plan file.
2. Compare it with what the user is asking for now.
3. If the new request is a different task, replace the old plan with a new one.
4. If it continues or changes the same task, revise the plan: update what changed and remove what no longer applies.
5. In every case, update the plan file before you call ExitPlanMode again.

The plan-mode rules that follow still apply."
    )
}

/// Once, after leaving plan mode.
pub(crate) fn exit(plan_file_path: &str, plan_exists: bool) -> String {
    let file = if plan_exists {
        format!("\nThe plan file is at {plan_file_path} if you need to refer back to it.")
    } else {
        String::new()
    };
    format!(
        "{MARKER_PLAN_MODE_EXIT}
You have left plan mode. You may now edit files, run tools and take actions, within what the current permission mode allows.{file}"
    )
}

/// Once, after the user parked the plan: plan mode ended without approval.
pub(crate) fn parked_exit(plan_file_path: &str) -> String {
    format!(
        "{MARKER_PLAN_MODE_EXIT}
Plan mode has ended because the user parked the plan at {plan_file_path} for later. Nothing in it was approved: do not implement that plan or any part of it unless the user asks you to. Work on what the user asks now, within what the current permission mode allows."
    )
}

/// The plan re-attached after compaction or on resume.
pub(crate) fn plan_file_reference(
    plan_file_path: &str,
    plan_content: &str,
    approved: bool,
    file_changed: bool,
) -> String {
    if !approved {
        return format!(
            "{MARKER_PLAN_FILE_REFERENCE}
A plan from plan mode is stored at {plan_file_path}. Its current content:

{plan_content}

If this plan is relevant to the current work and not finished yet, keep following it."
        );
    }
    let changed = if file_changed {
        format!(
            "\n\nThe plan file {plan_file_path} has changed since the user approved it, so it no longer holds this text. The approved text above is what the user agreed to: follow it, and do not treat additions or changes made to the file since as approved. If they matter, tell the user and ask."
        )
    } else {
        String::new()
    };
    format!(
        "{MARKER_PLAN_FILE_REFERENCE}
You are carrying out a plan the user approved (stored at {plan_file_path}). The approved plan:

{plan_content}{changed}

Keep following it until it is done."
    )
}

/// After auto mode was switched off.
pub(crate) fn auto_mode_exit() -> String {
    format!(
        "{MARKER_AUTO_MODE_EXIT}
Auto mode is no longer active. Actions that need permission are no longer judged automatically: the user is asked again, as the current permission mode requires."
    )
}
