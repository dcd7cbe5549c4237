//! `EnterPlanMode`: the model asks to plan first. It enters plan mode
//! through the one transition function and answers briefly; the workflow
//! itself arrives through the plan-mode attachment.

use async_trait::async_trait;
use schemars::JsonSchema;
use serde::Deserialize;

use super::contract::ENTER_PLAN_MODE_IN_AGENT_ERROR;
use super::prompts::{enter_plan_mode_description, enter_plan_mode_result};
use crate::permissions::Access;
use crate::tools::{ToolContext, ToolError, ToolOutput, TypedTool};
use catui_protocol::PermissionMode;

pub struct EnterPlanModeTool;

/// No input: entering plan mode needs nothing.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct EnterPlanModeInput {}

#[async_trait]
impl TypedTool for EnterPlanModeTool {
    type Input = EnterPlanModeInput;

    fn name(&self) -> &'static str {
        "EnterPlanMode"
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

    fn access(&self, _: &EnterPlanModeInput, _: &ToolContext) -> Access {
        Access::Session
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
        session
            .0
            .set_permission_mode(PermissionMode::Plan)
            .map_err(|e| ToolError::failed(e.to_string()))?;
        let interview = super::PlanSession::of(ctx).is_some_and(|p| p.config.interview_phase);
        Ok(ToolOutput::text(enter_plan_mode_result(interview)))
    }
}
