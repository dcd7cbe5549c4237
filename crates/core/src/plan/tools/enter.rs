//! `EnterPlanMode`: the model asks to plan first. The user is asked
//! (with the model's reason) and may decline; a declined, interrupted or
//! unanswered question leaves the mode as it was. Once accepted it enters
//! plan mode through the one transition function and answers briefly; the
//! workflow itself arrives through the plan-mode attachment.

use async_trait::async_trait;
use catui_protocol::tool_names;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

use crate::permissions::Access;
use crate::plan::contract::{
    ALREADY_IN_PLAN_MODE, ENTER_PLAN_MODE_DECLINED, ENTER_PLAN_MODE_IN_AGENT_ERROR,
};
use crate::plan::prompts::{enter_plan_mode_description, enter_plan_mode_result};
use crate::tools::{CallingMessageText, ToolContext, ToolError, ToolOutput, TypedTool};
use catui_protocol::PermissionMode;

pub struct EnterPlanModeTool;

/// No input from the model: entering plan mode needs nothing. `reason` is
/// added to the question shown to the user (the prose of the model's
/// message) and may come back with the answer; it is not offered to the
/// model.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct EnterPlanModeInput {
    #[serde(default)]
    #[schemars(skip)]
    pub reason: Option<Value>,
}

#[async_trait]
impl TypedTool for EnterPlanModeTool {
    type Input = EnterPlanModeInput;

    fn name(&self) -> &'static str {
        tool_names::ENTER_PLAN_MODE
    }

    fn description(&self) -> String {
        enter_plan_mode_description().to_string()
    }

    fn is_read_only(&self, _: &EnterPlanModeInput) -> bool {
        true
    }

    fn is_concurrency_safe(&self, _: &EnterPlanModeInput) -> bool {
        true
    }

    async fn validate_input(
        &self,
        _: &EnterPlanModeInput,
        ctx: &ToolContext,
    ) -> Result<(), ToolError> {
        if ctx.agent_id.is_some() {
            return Err(ToolError::invalid(ENTER_PLAN_MODE_IN_AGENT_ERROR));
        }
        Ok(())
    }

    fn access(&self, _: &EnterPlanModeInput, ctx: &ToolContext) -> Access {
        // Already planning: nothing to consent to.
        if ctx.permission_mode() == PermissionMode::Plan {
            return Access::Session;
        }
        // The user decides whether to plan first, in every mode.
        Access::Interaction
    }

    fn permission_input(&self, _: &EnterPlanModeInput, ctx: &ToolContext) -> Option<Value> {
        let reason = ctx
            .values
            .get::<CallingMessageText>()
            .map(|t| t.0.trim().to_string())
            .filter(|t| !t.is_empty());
        Some(json!({ "reason": reason }))
    }

    fn denied_result(
        &self,
        _: &EnterPlanModeInput,
        feedback: &str,
        _: &ToolContext,
    ) -> Option<String> {
        Some(match feedback.trim() {
            "" => ENTER_PLAN_MODE_DECLINED.to_string(),
            f => format!("{ENTER_PLAN_MODE_DECLINED}\n\nThe user's feedback:\n{f}"),
        })
    }

    fn unanswered_result(
        &self,
        _: &EnterPlanModeInput,
        reason: &str,
        _: &ToolContext,
    ) -> Option<String> {
        // Not answering leaves the mode as it was, as declining does.
        Some(format!(
            "{ENTER_PLAN_MODE_DECLINED}\n\n(No answer came back: {reason}.)"
        ))
    }

    async fn call(
        &self,
        _: EnterPlanModeInput,
        ctx: &ToolContext,
    ) -> Result<ToolOutput, ToolError> {
        if ctx.agent_id.is_some() {
            return Err(ToolError::failed(ENTER_PLAN_MODE_IN_AGENT_ERROR));
        }
        let Some(session) = &ctx.session else {
            return Err(ToolError::failed(
                "plan mode is not available in this context",
            ));
        };
        if session.0.permission_mode() == PermissionMode::Plan {
            // Nothing to enter: saying "Entered plan mode" would be wrong.
            return Ok(ToolOutput::text(ALREADY_IN_PLAN_MODE)
                .with_display("Already in plan mode".to_string()));
        }
        session
            .0
            .set_permission_mode(PermissionMode::Plan)
            .map_err(|e| ToolError::failed(e.to_string()))?;
        let interview = crate::plan::PlanSession::of(ctx).is_some_and(|p| p.config.interview_phase);
        Ok(ToolOutput::text(enter_plan_mode_result(interview)))
    }
}
