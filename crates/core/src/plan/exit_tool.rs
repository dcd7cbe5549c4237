//! `ExitPlanMode`: presents the plan for approval and, once the user
//! approves, restores the mode from before plan mode (or the one the user
//! chose). Approval only ever comes from the user through the permission
//! prompt: the permission layer always asks for this tool, in every mode,
//! and an interrupted or failed prompt is a denial.

use async_trait::async_trait;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

use super::contract::{AUTO_GATE_PLAN_EXIT_FALLBACK_KEY, auto_gate_plan_exit_fallback_text};
use super::contract::{
    NOT_IN_PLAN_MODE_NOTHING_CHANGED, PLAN_APPROVED_KEY, PLAN_REVISION_KEY, no_plan_file_found,
    plan_changed_since_shown,
};
use super::exit::{
    ExitResultInput, exit_tool_result, plan_rejected_result, restore_mode, validate_exit,
};
use super::extension::PlanRoute;
use super::progress;
use super::prompts::exit_plan_mode_description;
use super::session::{PlanSession, plan_hash, verification_section};
use crate::permissions::Access;
use crate::tools::{ToolContext, ToolError, ToolOutput, TypedTool};
use catui_protocol::PermissionMode;

pub struct ExitPlanModeTool;

/// The model sends `{}`; the plan comes from the plan file. The other fields
/// are filled in by the approval step (the user's edited plan, the mode to
/// restore) and are not offered to the model.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ExitPlanModeInput {
    #[serde(default)]
    #[schemars(skip)]
    pub plan: Option<String>,
    #[serde(default, rename = "planFilePath")]
    #[schemars(skip)]
    pub plan_file_path: Option<String>,
    #[serde(default, rename = "planDiff")]
    #[schemars(skip)]
    pub plan_diff: Option<Value>,
    /// Approve and start clean: implementation continues in a fresh
    /// conversation holding only the approved plan.
    #[serde(default, rename = "clearContext")]
    #[schemars(skip)]
    pub clear_context: Option<bool>,
    /// The SHA-256 of the revision shown for approval (what is approved).
    #[serde(default, rename = "planHash")]
    #[schemars(skip)]
    pub plan_hash: Option<String>,
    /// Set on a re-presentation: the plan changed while the user was
    /// reviewing the previous text (`planDiff` shows how).
    #[serde(default, rename = "planChanged")]
    #[schemars(skip)]
    pub plan_changed: Option<bool>,
    /// `acceptEdits`, `default`, ... or null for "restore the mode from
    /// before plan mode".
    #[serde(default)]
    #[schemars(skip)]
    pub mode: Option<Value>,
}

#[async_trait]
impl TypedTool for ExitPlanModeTool {
    type Input = ExitPlanModeInput;

    fn name(&self) -> &'static str {
        "ExitPlanMode"
    }

    fn description(&self) -> String {
        exit_plan_mode_description().to_string()
    }

    fn takes_mode_in_input(&self) -> bool {
        true
    }

    fn is_read_only(&self, _: &ExitPlanModeInput) -> bool {
        false
    }

    fn is_concurrency_safe(&self, _: &ExitPlanModeInput) -> bool {
        true
    }

    async fn validate_input(
        &self,
        _: &ExitPlanModeInput,
        ctx: &ToolContext,
    ) -> Result<(), ToolError> {
        let teammate = PlanRoute::is_teammate(ctx);
        validate_exit(ctx.permission_mode(), teammate)
            .map_err(|e| ToolError::invalid(e.message))?;
        // There is no way out of plan mode without a plan: the model is sent
        // back to write one before anyone is asked.
        if ctx.permission_mode() == PermissionMode::Plan
            && let Some(plan) = PlanSession::of(ctx)
        {
            let agent = ctx.agent_id.as_deref();
            if plan.files.read(agent).is_none_or(|t| t.trim().is_empty()) {
                let path = plan.files.path(agent).display().to_string();
                return Err(ToolError::invalid(no_plan_file_found(&path)));
            }
        }
        Ok(())
    }

    fn access(&self, _: &ExitPlanModeInput, ctx: &ToolContext) -> Access {
        // Teammates have no local user to ask: allowed.
        if PlanRoute::is_teammate(ctx) {
            return Access::Session;
        }
        Access::Interaction
    }

    fn permission_input(&self, _: &ExitPlanModeInput, ctx: &ToolContext) -> Option<Value> {
        let plan = PlanSession::of(ctx)?;
        let agent = ctx.agent_id.as_deref();
        let path = plan.files.path(agent);
        let text = plan.files.read(agent);
        let diff = text.as_deref().and_then(|t| plan.present_revision(t));
        if let (Some(session), Some(text)) = (&ctx.session, &text) {
            // Every revision shown for approval is kept in the transcript.
            session
                .0
                .snapshot_file(PLAN_REVISION_KEY, &path.display().to_string(), text);
        }
        let mut shown = json!({
            "plan": text,
            "planFilePath": path.display().to_string(),
            "planDiff": diff,
            "planHash": text.as_deref().map(plan_hash),
        });
        if agent.is_none() && plan.take_changed_while_shown() {
            shown["planChanged"] = json!(true);
        }
        Some(shown)
    }

    fn stale_answer(
        &self,
        _: &ExitPlanModeInput,
        answer: &Value,
        ctx: &ToolContext,
    ) -> Option<String> {
        let plan = PlanSession::of(ctx)?;
        if ctx.agent_id.is_some() || ctx.permission_mode() != PermissionMode::Plan {
            return None;
        }
        plan.answer_is_stale(answer)
            .then(|| super::contract::PLAN_CHANGED_WHILE_SHOWN.to_string())
    }

    fn denied_summary(&self, _: &ExitPlanModeInput, feedback: &str) -> Option<String> {
        Some(if feedback.is_empty() {
            "Plan not approved · still planning".to_string()
        } else {
            format!("Plan not approved · {feedback}")
        })
    }
    fn denied_result(&self, _: &ExitPlanModeInput, feedback: &str) -> Option<String> {
        Some(plan_rejected_result(Some(feedback)))
    }

    async fn call(
        &self,
        input: ExitPlanModeInput,
        ctx: &ToolContext,
    ) -> Result<ToolOutput, ToolError> {
        let Some(plan) = PlanSession::of(ctx) else {
            return Err(ToolError::failed(
                "plan mode is not available in this context",
            ));
        };
        // Outside plan mode (a teammate planning of its own accord) there is
        // nothing to exit: no mode change, no exit flags.
        if ctx.permission_mode() != PermissionMode::Plan {
            return Ok(ToolOutput::text(NOT_IN_PLAN_MODE_NOTHING_CHANGED)
                .with_display("Not in plan mode: nothing to exit".to_string()));
        }
        let agent = ctx.agent_id.as_deref();
        let path = plan.files.path(agent);
        let on_disk = plan.files.read(agent);
        // What the user approved: the revision shown to them, by hash.
        let shown = input
            .plan_hash
            .clone()
            .or_else(|| agent.is_none().then(|| plan.presented_hash()).flatten());
        // The answer's plan is an edit only when it differs from what was
        // shown (a client may echo the shown plan back unchanged).
        let edited = input.plan.filter(|p| match &shown {
            Some(hash) => plan_hash(p) != *hash,
            None => Some(p) != on_disk.as_ref(),
        });
        if edited.is_none()
            && agent.is_none()
            && let Some(hash) = &shown
            && on_disk.as_deref().map(plan_hash).as_ref() != Some(hash)
        {
            // The file changed between presentation and answer: the
            // answer approved another text. Nothing is approved; the next
            // ExitPlanMode shows the new text with its diff.
            return Err(ToolError::failed(plan_changed_since_shown(
                &path.display().to_string(),
            )));
        }
        if let Some(text) = &edited {
            crate::tools::fs_atomic::write_atomic(&path, text.as_bytes()).map_err(|e| {
                ToolError::failed(format!(
                    "could not save the edited plan to {}: {e}",
                    path.display()
                ))
            })?;
        }
        let was_edited = edited.is_some();
        if agent.is_none()
            && let Some(session) = &ctx.session
        {
            // The approved text is what recovery must bring back.
            plan.snapshot(session.0.as_ref());
            // The approved revision itself (its hash is that of the text).
            if let Some(text) = plan.files.read(None) {
                session
                    .0
                    .snapshot_file(PLAN_APPROVED_KEY, &path.display().to_string(), &text);
            }
        }
        let text = edited.or(on_disk);

        // A plan-required teammate asks the lead and stays in plan mode.
        if let Some(route) = PlanRoute::of(ctx)
            && let Some(sent) = route.0.submit(&path, text.as_deref())
        {
            return Ok(ToolOutput::text(sent?)
                .with_display(format!("Plan sent to the team lead: {}", path.display())));
        }
        let is_teammate = PlanRoute::is_teammate(ctx);

        if let Some(session) = &ctx.session {
            let chosen = match &input.mode {
                Some(Value::String(m)) => m.parse::<PermissionMode>().ok(),
                _ => None,
            };
            let (mode, fell_back) = restore_mode(
                session.0.pre_plan_mode(),
                chosen,
                crate::permissions::auto_mode_gate_enabled(&session.0.permission_context()),
            );
            plan.state.record_plan_approved_exit();
            session
                .0
                .set_permission_mode(mode)
                .map_err(|e| ToolError::failed(e.to_string()))?;
            if fell_back {
                session.0.notify(
                    AUTO_GATE_PLAN_EXIT_FALLBACK_KEY,
                    &auto_gate_plan_exit_fallback_text(
                        "auto mode is not enabled (settings autoMode.enabled)",
                    ),
                );
            }
        }
        plan.clear_revisions();
        if agent.is_none() {
            plan.set_verification(text.as_deref().and_then(verification_section));
        }
        // The plan's numbered steps become the todo list; progress is
        // written back into the plan file as they are completed.
        let steps = if agent.is_none() && !is_teammate {
            text.as_deref()
                .map(progress::plan_steps)
                .unwrap_or_default()
        } else {
            Vec::new()
        };
        plan.steps.bind(steps.clone());
        if !steps.is_empty() {
            let todos = progress::todos_for(&steps);
            if let Some(session) = &ctx.session {
                session.0.todos_set(&todos);
            }
            ctx.set_todos(todos);
        }
        let start_clean = input.clear_context == Some(true) && agent.is_none() && !is_teammate;
        let mut result = exit_tool_result(&ExitResultInput {
            is_agent: agent.is_some() && !is_teammate,
            plan: text.as_deref(),
            plan_was_edited: was_edited,
            plan_file_path: &path,
            team_tool_available: agent.is_none() && !is_teammate && plan.team_tool_available(),
        });
        if !steps.is_empty() && text.as_deref().is_some_and(|t| !t.trim().is_empty()) {
            result.push_str(&format!(
                "\n\nThe plan's {} numbered steps are now your todo list (same text). Keep it current with TodoWrite, marking each step completed as you finish it: the plan file records the progress.",
                steps.len()
            ));
        }
        if start_clean && let Some(session) = &ctx.session {
            session
                .0
                .start_fresh(super::fresh::fresh_start_prompt(&result, &ctx.cwd()));
        }
        let hash = text.as_deref().map(plan_hash).unwrap_or_default();
        Ok(ToolOutput::text(result).with_display(format!(
            "Plan approved: {} (sha256 {})",
            path.display(),
            hash.get(..12).unwrap_or_default()
        )))
    }
}
