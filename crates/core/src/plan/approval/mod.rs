//! Carrying out the user's decision on a presented plan — the one consumer
//! of [`ApprovalDecision`] once it reached ExitPlanMode's call. Keeping
//! planning never gets here (it is the engine's denial, answered by
//! ExitPlanMode's `denied_result`).
//!
//! - Approve: the approved text (the user's edit, skipped steps marked) is
//!   written back and recorded, plan mode ends in the mode the user chose,
//!   the implementing model takes over, the remaining steps become the todo
//!   list, and the observers of approvals are told.
//! - Park: plan mode ends in the mode from before it, nothing is approved,
//!   the plan file is kept (and recorded as parked), and the input ends.
//!
//! An approval first checks that the answer is about the text it would
//! approve: the revision shown (`planHash`) and the plan file as it is now.
//!
//! A decision made while no conversation was asking (on the review page of
//! an ended session) is carried out the same way when the session resumes
//! ([`carry_out_recorded`]).
//!
//! ExitPlanMode's input ([`exit_input`]) lives here too: the approval reads
//! the decision from it, and the tool only depends on the approval.

pub mod amend;
pub mod decision;
pub mod exit_input;
pub mod fresh;
pub mod progress;
pub mod review;
pub mod route;

use std::path::Path;
use std::sync::Arc;

use catui_protocol::stream_json::ResultSubtype;

use crate::plan::approval::decision::{ApprovalDecision, ApprovalVerdict};
use crate::plan::approval::route::PlanRoute;
use crate::plan::contract::{
    AUTO_GATE_PLAN_EXIT_FALLBACK_KEY, PLAN_APPROVED_KEY, PLAN_PARKED_KEY,
    answered_another_revision, auto_gate_plan_exit_fallback_text, plan_changed_since_shown,
    plan_parked_result, plan_parked_summary,
};
use crate::plan::state::plan_session::{
    ApprovedPlan, PlanSession, plan_hash, verification_section,
};
use crate::plan::tools::exit_rules::{ExitResultInput, exit_tool_result, restore_mode};
use crate::tools::{SessionHooks, ToolContext, ToolError, ToolOutput};

/// Carries out a decision the user made after the session that presented
/// the plan ended (recorded by `catui plans review`), for the main
/// conversation of `ctx` as it resumes: approving and parking as
/// ExitPlanMode's call would ([`carry_out`]), keeping planning as its
/// denial would answer. `shown_plan` is the revision the user answered.
/// Returns what the model is to read before the user's next input: `Ok`
/// when the decision was carried out, `Err` when it could not be (the plan
/// changed since, a step that is not there); `None` when the session is no
/// longer in plan mode (nothing to decide any more).
pub fn carry_out_recorded(
    plan: &Arc<PlanSession>,
    decision: ApprovalDecision,
    shown_plan: &str,
    ctx: &ToolContext,
) -> Option<Result<String, String>> {
    if ctx.permission_mode() != catui_protocol::PermissionMode::Plan {
        return None;
    }
    let outcome = if decision.verdict == ApprovalVerdict::KeepPlanning {
        Ok(crate::plan::tools::exit_rules::plan_rejected_result(Some(
            &crate::plan::approval::review::review_feedback(
                shown_plan,
                &decision.feedback,
                &decision.comments,
            ),
        )))
    } else {
        carry_out(plan, decision, ctx)
            .map(|output| output.content)
            .map_err(|e| e.to_string())
    };
    let told = |text: String| crate::plan::contract::answered_after_the_run(&text);
    Some(outcome.map(told).map_err(told))
}

/// Carries out `decision` (approve or park) for the conversation of `ctx`,
/// which is in plan mode.
pub(in crate::plan) fn carry_out(
    plan: &Arc<PlanSession>,
    decision: ApprovalDecision,
    ctx: &ToolContext,
) -> Result<ToolOutput, ToolError> {
    let agent = ctx.agent_id.as_deref();
    let path = plan.files.path(agent);
    if decision.verdict == ApprovalVerdict::Park {
        // Parking approves no text, so which revision was shown does not
        // matter: the user wants out of plan mode for now.
        return park(plan, ctx, &path, &decision.feedback);
    }
    let shown_path = path.display().to_string();
    let on_disk = plan.files.read(agent);
    // The revision the user was shown: catui knows it in the main
    // conversation; a teammate (never asked) has none.
    let presented = agent.is_none().then(|| plan.presented_hash()).flatten();
    if let (Some(answered), Some(shown)) = (&decision.plan_hash, &presented)
        && answered != shown
    {
        return Err(ToolError::failed(answered_another_revision(&shown_path)));
    }
    let shown = presented.or_else(|| decision.plan_hash.clone());
    // The answer's plan is an edit only when it differs from what was
    // shown (a client may echo the shown plan back unchanged).
    let edited = decision.edited_plan.clone().filter(|p| match &shown {
        Some(hash) => plan_hash(p) != *hash,
        None => Some(p) != on_disk.as_ref(),
    });
    if edited.is_none()
        && agent.is_none()
        && let Some(hash) = &shown
        && on_disk.as_deref().map(plan_hash).as_ref() != Some(hash)
    {
        // The file changed between presentation and answer: the answer
        // was about another text. Nothing is approved; the next
        // ExitPlanMode shows the new text with its diff.
        return Err(ToolError::failed(plan_changed_since_shown(&shown_path)));
    }
    match decision.verdict {
        ApprovalVerdict::Approve => approve(plan, &decision, edited, on_disk, ctx),
        // Keeping planning is a denial and never runs the call.
        ApprovalVerdict::KeepPlanning | ApprovalVerdict::Park => Err(ToolError::failed(
            "The answer kept planning: nothing was approved and you are still in plan mode.",
        )),
    }
}

fn approve(
    plan: &Arc<PlanSession>,
    decision: &ApprovalDecision,
    edited: Option<String>,
    on_disk: Option<String>,
    ctx: &ToolContext,
) -> Result<ToolOutput, ToolError> {
    let agent = ctx.agent_id.as_deref();
    let path = plan.files.path(agent);
    let main = agent.is_none();
    let was_edited = edited.is_some();
    let mut text = edited.or(on_disk);
    let mut skipped = Vec::new();
    if !decision.skip_steps.is_empty() {
        let marked = progress::skip_steps(text.as_deref().unwrap_or_default(), &decision.skip_steps)
            .map_err(|e| {
                ToolError::failed(format!(
                    "The user's approval could not be applied: {e}. Nothing was approved and you are still in plan mode; call ExitPlanMode again to present the plan."
                ))
            })?;
        text = Some(marked.0);
        skipped = marked.1;
    }
    if (was_edited || !skipped.is_empty())
        && let Some(text) = &text
    {
        crate::tools::fs_atomic::write_atomic(&path, text.as_bytes()).map_err(|e| {
            ToolError::failed(format!(
                "could not save the approved plan to {}: {e}",
                path.display()
            ))
        })?;
    }
    if main && let Some(session) = &ctx.session {
        // The approved text is what recovery must bring back.
        plan.snapshot(session.0.as_ref());
        if let Some(text) = &text {
            session
                .0
                .snapshot_file(PLAN_APPROVED_KEY, &path.display().to_string(), text);
        }
    }

    // A plan-required teammate asks the lead and stays in plan mode.
    if let Some(route) = PlanRoute::of(ctx)
        && let Some(sent) = route.0.submit(&path, text.as_deref())
    {
        return Ok(ToolOutput::text(sent?)
            .with_display(format!("Plan sent to the team lead: {}", path.display())));
    }
    let is_teammate = PlanRoute::is_teammate(ctx);
    if main && decision.dispatch {
        return hand_off(plan, decision, ctx);
    }

    let mut mode = catui_protocol::PermissionMode::Default;
    if let Some(session) = &ctx.session {
        mode = leave_plan_mode(session.0.as_ref(), decision.mode)?;
        plan.state.record_plan_approved_exit();
        if main && let Some(model) = &decision.model {
            session.0.set_model(model);
        }
    }
    plan.clear_revisions();
    if main {
        plan.set_verification(text.as_deref().and_then(verification_section));
    }
    // The plan's remaining numbered steps become the todo list; progress
    // is written back into the plan file as they are completed.
    let steps = match (&text, main) {
        (Some(text), true) => progress::active_steps(text),
        _ => Vec::new(),
    };
    if main {
        plan.steps.bind(steps.clone());
    }
    if !steps.is_empty() {
        let todos = progress::todos_for(&steps);
        if let Some(session) = &ctx.session {
            session.0.todos_set(&todos);
        }
        ctx.set_todos(todos);
    }
    let mut result = exit_tool_result(&ExitResultInput {
        is_agent: agent.is_some() && !is_teammate,
        unreviewed: is_teammate,
        plan: text.as_deref(),
        plan_was_edited: was_edited,
        plan_file_path: &path,
        team_tool_available: main && plan.team_tool_available(),
    });
    if !skipped.is_empty() {
        result.push_str(&format!(
            "\n\nThe user approved the plan without {} (marked \"skipped by the user\" above): do not carry {} out.",
            if skipped.len() == 1 { "this step" } else { "these steps" },
            if skipped.len() == 1 { "it" } else { "them" },
        ));
        for step in &skipped {
            result.push_str(&format!("\n- {step}"));
        }
    }
    if !steps.is_empty() && text.as_deref().is_some_and(|t| !t.trim().is_empty()) {
        result.push_str(&format!(
            "\n\nThe plan's {} numbered steps{} are now your todo list (same text). Keep it current with TodoWrite, marking each step completed as you finish it: the plan file records the progress.",
            steps.len(),
            if skipped.is_empty() { "" } else { " you are to carry out" },
        ));
    }
    if main
        && decision.clear_context
        && let Some(session) = &ctx.session
    {
        session
            .0
            .start_fresh(crate::plan::approval::fresh::fresh_start_prompt(
                &result,
                &ctx.cwd(),
            ));
    }
    let hash = text.as_deref().map(plan_hash).unwrap_or_default();
    if main {
        plan.approved(&ApprovedPlan {
            path: path.clone(),
            text: text.unwrap_or_default(),
            hash,
            skipped_steps: skipped.clone(),
            mode,
            model: ctx
                .session
                .as_ref()
                .map(|s| s.0.model())
                .unwrap_or_default(),
        });
    }
    let display = if is_teammate {
        format!("Left plan mode: {}", path.display())
    } else if skipped.is_empty() {
        // The hash is for the record (the plan's history has it), not
        // for the user's screen.
        format!("Plan approved: {}", path.display())
    } else {
        format!(
            "Plan approved without {} of its steps: {}",
            skipped.len(),
            path.display()
        )
    };
    Ok(ToolOutput::text(result).with_display(display))
}

/// "Yes, implement in the background": the approved plan goes to a
/// background agent in a git worktree (`catui plans dispatch`); plan mode
/// ends here, and this conversation does not carry the plan out.
fn hand_off(
    plan: &Arc<PlanSession>,
    decision: &ApprovalDecision,
    ctx: &ToolContext,
) -> Result<ToolOutput, ToolError> {
    let slug = plan.files.slug();
    let request = crate::plan::state::library_hooks::DispatchRequest {
        slug: &slug,
        mode: decision.mode,
        tool_use_id: ctx.tool_use_id.as_deref(),
    };
    let started = plan.library.dispatch(request).map_err(|why| {
        ToolError::failed(format!(
            "The user approved the plan to be carried out in the background, but it could not be handed to a background agent: {why}. Nothing runs in the background and you are still in plan mode: tell the user why, and do not implement the plan."
        ))
    })?;
    if let Some(session) = &ctx.session {
        leave_plan_mode(session.0.as_ref(), decision.mode)?;
        plan.state.record_plan_approved_exit();
    }
    plan.clear_revisions();
    plan.steps.unbind();
    plan.forget_approved();
    Ok(ToolOutput::text(format!(
        "The user approved the plan and handed it to a background agent, which carries it out in its own git worktree.\n{started}\nDo not carry out this plan here and do not edit the files it names: the background agent works on them. Go on with whatever else the user asks."
    ))
    .with_display(format!("Plan handed to a background agent: {slug}")))
}

/// Ends plan mode in `chosen` (else the mode from before it) through the
/// one transition function; says so when auto mode cannot come back.
pub(in crate::plan) fn leave_plan_mode(
    session: &dyn SessionHooks,
    chosen: Option<catui_protocol::PermissionMode>,
) -> Result<catui_protocol::PermissionMode, ToolError> {
    let (mode, fell_back) = restore_mode(
        session.pre_plan_mode(),
        chosen,
        crate::permissions::auto_mode_gate_enabled(&session.permission_context()),
    );
    session
        .set_permission_mode(mode)
        .map_err(|e| ToolError::failed(e.to_string()))?;
    if fell_back {
        session.notify(
            AUTO_GATE_PLAN_EXIT_FALLBACK_KEY,
            &auto_gate_plan_exit_fallback_text(
                "auto mode is not enabled (settings autoMode.enabled)",
            ),
        );
    }
    Ok(mode)
}

/// "Not now": plan mode ends in the mode from before it, nothing is
/// approved, the plan stays (recorded as parked), and the input ends.
fn park(
    plan: &Arc<PlanSession>,
    ctx: &ToolContext,
    path: &Path,
    note: &str,
) -> Result<ToolOutput, ToolError> {
    let (Some(session), None) = (&ctx.session, &ctx.agent_id) else {
        return Err(ToolError::failed(
            "only the main conversation's plan can be parked",
        ));
    };
    let session = session.0.as_ref();
    let shown = path.display().to_string();
    let mode = leave_plan_mode(session, None)?;
    // The exit notice says nothing was approved; entering plan mode again
    // brings the parked plan back (the re-entry notice).
    plan.state.record_plan_parked();
    plan.steps.unbind();
    plan.forget_approved();
    plan.clear_revisions();
    if let Some(text) = plan.files.read(None) {
        session.snapshot_file(PLAN_PARKED_KEY, &shown, &text);
    }
    session.end_run(ResultSubtype::Success, plan_parked_summary(&shown));
    Ok(
        ToolOutput::text(plan_parked_result(&shown, &mode.to_string(), note))
            .with_display(format!("Plan parked, not approved: {shown}")),
    )
}
