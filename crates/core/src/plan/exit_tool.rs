//! `ExitPlanMode`: presents the plan for approval and, once the user
//! approves, restores the mode from before plan mode (or the one the user
//! chose). Approval only ever comes from the user through the permission
//! prompt: the permission layer always asks for this tool, in every mode,
//! and an interrupted or failed prompt is a denial.

use async_trait::async_trait;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

use super::contract::{NOT_IN_PLAN_MODE_NOTHING_CHANGED, PLAN_REVISION_KEY, no_plan_file_found};
use super::contract::{AUTO_GATE_PLAN_EXIT_FALLBACK_KEY, auto_gate_plan_exit_fallback_text};
use super::exit::{
    ExitResultInput, exit_tool_result, plan_rejected_result, restore_mode, validate_exit,
};
use super::extension::PlanRoute;
use super::prompts::exit_plan_mode_description;
use super::session::{PlanSession, verification_section};
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
        validate_exit(ctx.permission_mode(), teammate).map_err(|e| ToolError::invalid(e.message))?;
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
        Some(json!({
            "plan": text,
            "planFilePath": path.display().to_string(),
            "planDiff": diff,
        }))
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
        let edited = input.plan.filter(|p| Some(p) != on_disk.as_ref());
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
            let (mode, fell_back) =
                restore_mode(session.0.pre_plan_mode(), chosen, plan.auto_gate_enabled);
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
        let result = exit_tool_result(&ExitResultInput {
            is_agent: agent.is_some() && !is_teammate,
            plan: text.as_deref(),
            plan_was_edited: was_edited,
            plan_file_path: &path,
            team_tool_available: agent.is_none() && !is_teammate && plan.team_tool_available(),
        });
        Ok(ToolOutput::text(result).with_display(format!("Plan approved: {}", path.display())))
    }
}
