//! `AmendPlan`: while an approved plan is carried out, the model proposes
//! a change to it (the steps or files to add, and why) instead of drifting
//! from it. The user is always asked, in every mode, with the change shown
//! as a diff of the plan; approving appends it to the plan as a new
//! approved revision ([`crate::plan::approval::amend`]).

use async_trait::async_trait;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

use crate::permissions::Access;
use crate::plan::contract::AMENDMENT_REFUSED;
use crate::plan::state::plan_session::{PlanSession, plan_hash};
use crate::tools::{ToolContext, ToolError, ToolOutput, TypedTool};
use catui_protocol::PermissionMode;

use catui_protocol::tool_names::AMEND_PLAN;

pub struct AmendPlanTool;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AmendPlanInput {
    /// Why the approved plan needs this change (one or two sentences).
    pub reason: String,
    /// The change, as Markdown: the steps to add (numbered) and the files
    /// they touch.
    pub change: String,
    // What the user is shown (filled in by the presentation, echoed back by
    // an answer; the engine refuses them from the model): ignored.
    #[serde(default)]
    #[schemars(skip)]
    pub plan: Option<Value>,
    #[serde(default, rename = "planFilePath")]
    #[schemars(skip)]
    pub plan_file_path: Option<Value>,
    #[serde(default, rename = "planDiff")]
    #[schemars(skip)]
    pub plan_diff: Option<Value>,
    /// The SHA-256 of the approved plan the amendment was shown against:
    /// when an answer carries one, it must be that plan's (an answer given
    /// to another revision, or a hash that is not a string, amends
    /// nothing).
    #[serde(default, rename = "planHash")]
    #[schemars(skip)]
    pub plan_hash: Option<Value>,
}

const DESCRIPTION: &str = "Propose a change to the plan the user approved, before you do \
anything the plan does not cover: a file it does not name, a step it does not have. The user \
sees your change as a diff of the plan and decides; when approved it becomes part of the plan \
(under \"## Amendments\") and you carry it out like the rest. `reason` says why the plan needs \
it; `change` is Markdown with the steps to add (numbered) and the files they touch. Only while \
an approved plan is being carried out. Keep to the plan otherwise.";

#[async_trait]
impl TypedTool for AmendPlanTool {
    type Input = AmendPlanInput;

    fn name(&self) -> &'static str {
        AMEND_PLAN
    }

    fn description(&self) -> String {
        DESCRIPTION.to_string()
    }

    fn is_read_only(&self, _: &AmendPlanInput) -> bool {
        false
    }

    fn is_concurrency_safe(&self, _: &AmendPlanInput) -> bool {
        false
    }

    async fn validate_input(
        &self,
        input: &AmendPlanInput,
        ctx: &ToolContext,
    ) -> Result<(), ToolError> {
        if ctx.agent_id.is_some() {
            return Err(ToolError::invalid(
                "Only the main conversation can amend the plan; say in your answer what the plan is missing.",
            ));
        }
        if ctx.permission_mode() == PermissionMode::Plan {
            return Err(ToolError::invalid(
                "You are in plan mode: change the plan file itself, then call ExitPlanMode.",
            ));
        }
        if PlanSession::of(ctx)
            .and_then(|p| p.approved_text())
            .is_none()
        {
            return Err(ToolError::invalid(
                "No approved plan is being carried out, so there is nothing to amend.",
            ));
        }
        if input.change.trim().is_empty() || input.reason.trim().is_empty() {
            return Err(ToolError::invalid(
                "Give both the reason and the change (the steps or files to add).",
            ));
        }
        Ok(())
    }

    fn access(&self, _: &AmendPlanInput, _: &ToolContext) -> Access {
        // The user decides, in every mode.
        Access::Interaction
    }

    fn summary(&self, input: &AmendPlanInput) -> String {
        format!("AmendPlan({})", input.reason.trim())
    }

    fn permission_input(&self, input: &AmendPlanInput, ctx: &ToolContext) -> Option<Value> {
        let plan = PlanSession::of(ctx)?;
        let approved = plan.approved_text()?;
        let amended = crate::plan::approval::amend::with_amendment(
            &approved,
            plan.amendments() + 1,
            &input.reason,
            &input.change,
            "when approved",
        );
        let base = crate::plan::approval::progress::without_progress(&approved);
        Some(json!({
            "reason": input.reason,
            "change": input.change,
            "plan": base,
            "planFilePath": plan.files.path(None).display().to_string(),
            "planDiff": crate::plan::tools::exit_rules::plan_diff(&base, &amended),
            "planHash": plan_hash(&approved),
        }))
    }

    fn denied_result(&self, _: &AmendPlanInput, feedback: &str, _: &ToolContext) -> Option<String> {
        Some(match feedback.trim() {
            "" => AMENDMENT_REFUSED.to_string(),
            said => format!("{AMENDMENT_REFUSED}\n\nThe user said: {said}"),
        })
    }

    fn denied_summary(&self, _: &AmendPlanInput, feedback: &str) -> Option<String> {
        Some(match feedback.trim() {
            "" => "Amendment not approved".to_string(),
            said => format!("Amendment not approved · {said}"),
        })
    }

    async fn call(
        &self,
        input: AmendPlanInput,
        ctx: &ToolContext,
    ) -> Result<ToolOutput, ToolError> {
        let Some(plan) = PlanSession::of(ctx) else {
            return Err(ToolError::failed(
                "plan mode is not available in this context",
            ));
        };
        if let Some(answered) = &input.plan_hash {
            let current = plan.approved_text().map(|t| plan_hash(&t));
            if answered.as_str().is_none() || answered.as_str() != current.as_deref() {
                return Err(ToolError::failed(
                    "The amendment was answered for another revision of the plan (planHash does not match the approved plan): nothing was amended. Propose it again if it is still needed.",
                ));
            }
        }
        crate::plan::approval::amend::approve(plan, &input.reason, &input.change, ctx)
    }
}
