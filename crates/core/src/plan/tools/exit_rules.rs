//! ExitPlanMode's decisions as pure functions: input validation,
//! the mode to restore and its auto-mode side effects, the tool-result
//! texts, and the plan diff shown when a revised plan is submitted again.

use std::path::Path;

use catui_protocol::PermissionMode;

use crate::plan::contract::{
    AGENT_PLAN_APPROVED, APPROVED_PLAN_EDITED_HEADING, APPROVED_PLAN_HEADING, EMPTY_PLAN_APPROVED,
    NOT_IN_PLAN_MODE, NOT_IN_PLAN_MODE_ERROR_CODE, PLAN_APPROVED, exited_plan_mode_unreviewed,
};

/// A failed validation: the message for the model and its error code.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExitValidationError {
    pub message: &'static str,
    pub error_code: u32,
}

/// Teammates may always call ExitPlanMode; anyone else must be in
/// plan mode.
pub fn validate_exit(mode: PermissionMode, is_teammate: bool) -> Result<(), ExitValidationError> {
    if is_teammate || mode == PermissionMode::Plan {
        Ok(())
    } else {
        Err(ExitValidationError {
            message: NOT_IN_PLAN_MODE,
            error_code: NOT_IN_PLAN_MODE_ERROR_CODE,
        })
    }
}

/// The mode to restore when plan mode ends.
///
/// `chosen` is the user's pick in the approval dialog (`acceptEdits` for
/// "approve and auto-accept edits"); otherwise `prePlanMode`, else
/// `default`. `plan` is never restored. When the result would be `auto`
/// but the auto-mode gate is closed, `default` is used instead and the
/// second value is true: show the fallback notification
/// ([`crate::plan::contract::AUTO_GATE_PLAN_EXIT_FALLBACK_KEY`]).
pub fn restore_mode(
    pre_plan_mode: Option<PermissionMode>,
    chosen: Option<PermissionMode>,
    auto_gate_enabled: bool,
) -> (PermissionMode, bool) {
    let mode = chosen
        .filter(|m| *m != PermissionMode::Plan)
        .or(pre_plan_mode.filter(|m| *m != PermissionMode::Plan))
        .unwrap_or(PermissionMode::Default);
    if mode == PermissionMode::Auto && !auto_gate_enabled {
        (PermissionMode::Default, true)
    } else {
        (mode, false)
    }
}

/// What the permission layer must do when plan mode ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PlanExitEffects {
    pub mode: PermissionMode,
    /// Show the auto-gate fallback notification.
    pub fallback_notification: bool,
    /// The new auto-classifier state (active only when restoring `auto`).
    pub auto_active: bool,
    /// Strip the dangerous allow rules (restoring `auto`).
    pub strip_dangerous: bool,
    /// Put back rules stripped during plan mode (not restoring `auto`).
    pub restore_dangerous: bool,
    /// Auto mode ran during planning and stops now: tell the model.
    pub needs_auto_mode_exit_attachment: bool,
}

/// [`restore_mode`] plus the auto-mode side effects of leaving plan mode.
/// `auto_was_active` is whether the classifier ran during plan mode;
/// `has_stripped_rules` whether dangerous rules are currently stripped.
pub fn plan_exit_effects(
    pre_plan_mode: Option<PermissionMode>,
    chosen: Option<PermissionMode>,
    auto_gate_enabled: bool,
    auto_was_active: bool,
    has_stripped_rules: bool,
) -> PlanExitEffects {
    let (mode, fallback_notification) = restore_mode(pre_plan_mode, chosen, auto_gate_enabled);
    let to_auto = mode == PermissionMode::Auto;
    PlanExitEffects {
        mode,
        fallback_notification,
        auto_active: to_auto,
        strip_dangerous: to_auto,
        restore_dangerous: !to_auto && has_stripped_rules,
        needs_auto_mode_exit_attachment: auto_was_active && !to_auto,
    }
}

/// What ExitPlanMode's tool result is built from.
#[derive(Debug, Clone, Copy)]
pub struct ExitResultInput<'a> {
    /// Called by a sub-agent.
    pub is_agent: bool,
    /// Called by a teammate that entered plan mode of its own accord:
    /// nobody reviewed the plan.
    pub unreviewed: bool,
    /// The plan text (from the file, or the user's edited version).
    pub plan: Option<&'a str>,
    /// The user edited the plan in the approval dialog.
    pub plan_was_edited: bool,
    pub plan_file_path: &'a Path,
    /// A tool for starting teammates is available: suggest parallel work.
    pub team_tool_available: bool,
}

/// The tool result after approval: sub-agent, empty plan, or the
/// approved plan (marked when the user edited it).
pub fn exit_tool_result(input: &ExitResultInput<'_>) -> String {
    if input.is_agent {
        return AGENT_PLAN_APPROVED.to_string();
    }
    if input.unreviewed {
        return exited_plan_mode_unreviewed(&input.plan_file_path.display().to_string());
    }
    let Some(plan) = input.plan.filter(|p| !p.trim().is_empty()) else {
        return EMPTY_PLAN_APPROVED.to_string();
    };
    let heading = if input.plan_was_edited {
        APPROVED_PLAN_EDITED_HEADING
    } else {
        APPROVED_PLAN_HEADING
    };
    let team_hint = if input.team_tool_available {
        "\n\nIf the plan splits into independent pieces of work, consider starting teammates to carry them out in parallel."
    } else {
        ""
    };
    format!(
        "{PLAN_APPROVED} Start with updating your todo list if applicable

Your plan has been saved to: {path}
You can refer back to it if needed during implementation.{team_hint}

{heading}
{plan}",
        path = input.plan_file_path.display(),
    )
}

/// The tool result of a plan-required teammate whose plan went to the team
/// lead.
pub fn awaiting_leader_approval_result(plan_file_path: &Path, request_id: &str) -> String {
    format!(
        "Your plan has been submitted to the team lead for approval.

Plan file: {path}

What happens next:
1. Wait for the team lead to review your plan
2. You will receive a message in your inbox with approval/rejection
3. If approved, you can proceed with implementation
4. If rejected, refine your plan based on the feedback

Important: Do NOT proceed until you receive approval.

Request ID: {request_id}",
        path = plan_file_path.display()
    )
}

const PLAN_REJECTED: &str = "The user rejected the plan and wants to keep planning. You are still in plan mode: nothing was approved and no change may be made yet.";
const FEEDBACK_HEAD: &str = "\n\nThe user's feedback:\n";
const FEEDBACK_TAIL: &str = "\n\nRevise the plan file accordingly, then call ExitPlanMode again.";

/// The tool result when the user keeps plan mode ("No, keep planning").
/// The feedback is the user's own text and reaches the model verbatim.
pub fn plan_rejected_result(feedback: Option<&str>) -> String {
    let base = PLAN_REJECTED;
    match feedback.map(str::trim).filter(|f| !f.is_empty()) {
        Some(feedback) => format!("{base}{FEEDBACK_HEAD}{feedback}{FEEDBACK_TAIL}"),
        None => format!(
            "{base}\n\nAsk the user what to change (AskUserQuestion) or revise the plan file, then call ExitPlanMode again."
        ),
    }
}

/// What the user sees under an ExitPlanMode call they sent back, read from
/// [`plan_rejected_result`]'s text (live and on resume alike).
pub fn plan_rejection_view(model_text: &str) -> Option<String> {
    let rest = model_text.strip_prefix(PLAN_REJECTED)?;
    let feedback = rest
        .strip_prefix(FEEDBACK_HEAD)
        .and_then(|r| r.rfind(FEEDBACK_TAIL).map(|end| r[..end].trim()))
        .filter(|f| !f.is_empty());
    Some(plan_rejection_summary(feedback.unwrap_or("")))
}

/// The row under an ExitPlanMode call the user sent back with `feedback`.
pub fn plan_rejection_summary(feedback: &str) -> String {
    if feedback.is_empty() {
        "Plan not approved · still planning".to_string()
    } else {
        format!("Plan not approved · {feedback}")
    }
}

/// A unified diff between two versions of a plan (for the approval dialog
/// of a resubmitted plan). Empty when they are equal.
pub fn plan_diff(previous: &str, current: &str) -> String {
    if previous == current {
        return String::new();
    }
    similar::TextDiff::from_lines(previous, current)
        .unified_diff()
        .context_radius(3)
        .header("previous plan", "current plan")
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::contract::no_plan_file_found;
    use PermissionMode::*;

    #[test]
    fn validation_outside_plan_mode() {
        let err = validate_exit(Default, false).unwrap_err();
        assert_eq!(err.message, NOT_IN_PLAN_MODE);
        assert_eq!(err.error_code, 1);
        assert!(validate_exit(Plan, false).is_ok());
        assert!(
            validate_exit(Default, true).is_ok(),
            "teammates skip the check"
        );
        assert!(validate_exit(AcceptEdits, false).is_err());
    }

    #[test]
    fn restore_picks_choice_then_pre_plan_mode_then_default() {
        assert_eq!(
            restore_mode(Some(AcceptEdits), None, true),
            (AcceptEdits, false)
        );
        assert_eq!(restore_mode(None, None, true), (Default, false));
        assert_eq!(
            restore_mode(Some(Default), Some(AcceptEdits), true),
            (AcceptEdits, false)
        );
        assert_eq!(
            restore_mode(Some(BypassPermissions), None, false),
            (BypassPermissions, false)
        );
        assert_eq!(restore_mode(Some(Plan), Some(Plan), true), (Default, false));
    }

    #[test]
    fn auto_with_closed_gate_falls_back_to_default_with_notification() {
        assert_eq!(restore_mode(Some(Auto), None, false), (Default, true));
        assert_eq!(restore_mode(Some(Auto), None, true), (Auto, false));
        assert_eq!(
            restore_mode(Some(Default), Some(Auto), false),
            (Default, true)
        );
    }

    #[test]
    fn exit_effects_for_auto_and_non_auto() {
        let e = plan_exit_effects(Some(Auto), None, true, true, true);
        assert_eq!(e.mode, Auto);
        assert!(e.auto_active && e.strip_dangerous && !e.restore_dangerous);
        assert!(!e.needs_auto_mode_exit_attachment);

        let e = plan_exit_effects(Some(Default), None, true, true, true);
        assert_eq!(e.mode, Default);
        assert!(!e.auto_active && !e.strip_dangerous && e.restore_dangerous);
        assert!(
            e.needs_auto_mode_exit_attachment,
            "auto ran during plan and stops"
        );

        let e = plan_exit_effects(Some(Auto), None, false, true, true);
        assert_eq!(e.mode, Default);
        assert!(e.fallback_notification && e.needs_auto_mode_exit_attachment);

        let e = plan_exit_effects(Some(AcceptEdits), None, true, false, false);
        assert!(!e.restore_dangerous && !e.needs_auto_mode_exit_attachment);
    }

    fn input<'a>(plan: Option<&'a str>, edited: bool, agent: bool) -> ExitResultInput<'a> {
        ExitResultInput {
            is_agent: agent,
            unreviewed: false,
            plan,
            plan_was_edited: edited,
            plan_file_path: Path::new("/p/a-b-c.md"),
            team_tool_available: false,
        }
    }

    #[test]
    fn tool_result_branches() {
        assert_eq!(
            exit_tool_result(&input(Some("# P"), false, true)),
            AGENT_PLAN_APPROVED
        );
        assert_eq!(
            exit_tool_result(&input(None, false, false)),
            EMPTY_PLAN_APPROVED
        );
        assert_eq!(
            exit_tool_result(&input(Some("  \n"), false, false)),
            EMPTY_PLAN_APPROVED
        );

        let approved = exit_tool_result(&input(Some("# Plan\n1. do it"), false, false));
        assert!(approved.starts_with(PLAN_APPROVED));
        assert!(approved.contains("Your plan has been saved to: /p/a-b-c.md"));
        assert!(approved.ends_with("## Approved Plan:\n# Plan\n1. do it"));
        assert!(!approved.contains("edited by user"));

        let edited = exit_tool_result(&input(Some("# Mine"), true, false));
        assert!(edited.ends_with("## Approved Plan (edited by user):\n# Mine"));

        let mut with_team = input(Some("# P"), false, false);
        with_team.team_tool_available = true;
        assert!(exit_tool_result(&with_team).contains("teammates"));

        // A teammate that planned of its own accord: nobody approved.
        let mut own = input(Some("# P"), false, false);
        own.unreviewed = true;
        let own = exit_tool_result(&own);
        assert!(own.starts_with("You have exited plan mode."), "{own}");
        assert!(!own.contains("approved your plan"), "{own}");
    }

    #[test]
    fn a_sent_back_plan_reads_back_as_the_live_row() {
        let view = |fb| plan_rejection_view(&plan_rejected_result(fb));
        assert_eq!(
            view(Some("lexer first\nthen the parser")).as_deref(),
            Some("Plan not approved · lexer first\nthen the parser")
        );
        assert_eq!(view(Some(" ")), Some(plan_rejection_summary("")));
        assert_eq!(
            view(None).as_deref(),
            Some("Plan not approved · still planning")
        );
        let mut noted = plan_rejected_result(Some("smaller steps"));
        noted.push_str("\n\nThe plan is unchanged since you last presented it.");
        assert_eq!(
            plan_rejection_view(&noted),
            Some(plan_rejection_summary("smaller steps"))
        );
        assert_eq!(plan_rejection_view("The user declined to run Edit."), None);
    }

    #[test]
    fn teammate_texts() {
        let t = awaiting_leader_approval_result(Path::new("/p/x.md"), "plan_approval-1");
        assert!(t.starts_with("Your plan has been submitted to the team lead for approval."));
        assert!(t.contains("Plan file: /p/x.md"));
        assert!(t.contains("Important: Do NOT proceed until you receive approval."));
        assert!(t.ends_with("Request ID: plan_approval-1"));
        assert_eq!(
            no_plan_file_found("/p/x.md"),
            "No plan file found at /p/x.md. Please write your plan to this file before calling ExitPlanMode."
        );
    }

    #[test]
    fn rejection_carries_the_feedback() {
        let r = plan_rejected_result(Some("use the existing cache instead"));
        assert!(r.contains("use the existing cache instead"));
        assert!(r.contains("still in plan mode"));
        assert!(!plan_rejected_result(Some("  ")).contains("feedback:"));
    }

    #[test]
    fn diff_shows_changed_lines() {
        assert_eq!(plan_diff("a\nb\n", "a\nb\n"), "");
        let d = plan_diff(
            "# Plan\n1. old step\n2. keep\n",
            "# Plan\n1. new step\n2. keep\n",
        );
        assert!(d.contains("--- previous plan"));
        assert!(d.contains("+++ current plan"));
        assert!(d.contains("-1. old step"));
        assert!(d.contains("+1. new step"));
        assert!(d.contains(" 2. keep"));
    }
}
