//! `ExitPlanMode`: presents the plan for approval; the user's decision
//! (approve, keep planning, park) is carried out by [`crate::plan::approval`].
//! Approval only ever comes from the user through the permission prompt:
//! the permission layer always asks for this tool, in every mode, and an
//! interrupted or failed prompt is a denial ("keep planning").

use async_trait::async_trait;
use catui_protocol::tool_names;
use serde_json::{Value, json};

use crate::permissions::Access;
use crate::plan::approval::decision::ApprovalDecision;
use crate::plan::approval::exit_input::ExitPlanModeInput;
use crate::plan::approval::route::PlanRoute;
use crate::plan::contract::{
    ANSWERED_ANOTHER_REVISION, NOT_IN_PLAN_MODE_NOTHING_CHANGED, ONE_EXIT_PER_MESSAGE,
    PLAN_CHANGED_WHILE_SHOWN, PLAN_REVISION_KEY, PLAN_UNCHANGED_NOTE, no_plan_file_found,
};
use crate::plan::prompts::exit_plan_mode_description;
use crate::plan::state::plan_session::{PlanSession, RevisionChange, Staleness, plan_hash};
use crate::plan::tools::exit_rules::{plan_rejected_result, validate_exit};
use crate::tools::{CallingMessageCalls, ToolContext, ToolError, ToolOutput, TypedTool};
use catui_protocol::PermissionMode;

pub struct ExitPlanModeTool;

#[async_trait]
impl TypedTool for ExitPlanModeTool {
    type Input = ExitPlanModeInput;

    fn name(&self) -> &'static str {
        tool_names::EXIT_PLAN_MODE
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
        // One approval at a time: only the first call of a message is put
        // to the user, so two answers can never contradict each other.
        if let (Some(calls), Some(id)) = (ctx.values.get::<CallingMessageCalls>(), &ctx.tool_use_id)
            && calls.first_of(self.name()).is_some_and(|first| first != id)
        {
            return Err(ToolError::invalid(ONE_EXIT_PER_MESSAGE));
        }
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
        if agent.is_none() {
            // `planNames: "date-topic"`: named by its topic before it is shown.
            crate::plan::pick_up::name_by_topic(plan);
        }
        let path = plan.files.path(agent);
        let text = plan.files.read(agent);
        let change = text.as_deref().map(|t| plan.present_revision(t));
        if let (Some(session), Some(text)) = (&ctx.session, &text) {
            // Every revision shown for approval is kept in the transcript.
            session
                .0
                .snapshot_file(PLAN_REVISION_KEY, &path.display().to_string(), text);
        }
        // `planDiff`: null the first time, the diff from the revision shown
        // before, or "" with `planUnchanged` when nothing changed since.
        let diff = match &change {
            Some(RevisionChange::Changed(diff)) => json!(diff),
            Some(RevisionChange::Unchanged) => json!(""),
            _ => Value::Null,
        };
        let mut shown = json!({
            "plan": text,
            "planFilePath": path.display().to_string(),
            "planDiff": diff,
            "planHash": text.as_deref().map(plan_hash),
        });
        if agent.is_none() {
            // Approving the plan approves running these exact commands.
            shown["verification"] = json!(
                text.as_deref()
                    .map(crate::plan::verification::verification_commands)
                    .unwrap_or_default()
            );
        }
        if change == Some(RevisionChange::Unchanged) {
            shown["planUnchanged"] = json!(true);
        }
        let dry_runs = ctx.dry_run.records();
        if agent.is_none() && !dry_runs.is_empty() {
            // What was checked during planning, shown under the plan.
            shown["dryRuns"] = Value::Array(
                dry_runs
                    .iter()
                    .map(|r| {
                        let mut run = json!({"command": r.command, "exit_code": r.exit_code});
                        if let Some(note) = &r.note {
                            run["summary"] = json!(note);
                        }
                        run
                    })
                    .collect(),
            );
        }
        if agent.is_none() {
            if plan.take_changed_while_shown() {
                shown["planChanged"] = json!(true);
            }
            // Which model will implement (the user may pick another).
            if let Some(model) = ctx
                .session
                .as_ref()
                .map(|s| s.0.model())
                .filter(|m| !m.is_empty())
            {
                shown["model"] = json!(model);
            }
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
        match plan.answer_is_stale(answer) {
            Staleness::Fresh => None,
            Staleness::AnotherRevision => Some(ANSWERED_ANOTHER_REVISION.to_string()),
            Staleness::FileChanged => Some(PLAN_CHANGED_WHILE_SHOWN.to_string()),
        }
    }

    fn denied_summary(&self, _: &ExitPlanModeInput, feedback: &str) -> Option<String> {
        Some(crate::plan::tools::exit_rules::plan_rejection_summary(
            feedback,
        ))
    }

    fn denied_result(
        &self,
        _: &ExitPlanModeInput,
        feedback: &str,
        ctx: &ToolContext,
    ) -> Option<String> {
        let mut result = plan_rejected_result(Some(feedback));
        if ctx.agent_id.is_none() && PlanSession::of(ctx).is_some_and(|p| p.presented_unchanged()) {
            result.push_str("\n\n");
            result.push_str(PLAN_UNCHANGED_NOTE);
        }
        Some(result)
    }

    fn unanswered_result(
        &self,
        _: &ExitPlanModeInput,
        reason: &str,
        _ctx: &ToolContext,
    ) -> Option<String> {
        Some(crate::plan::contract::plan_not_answered(reason))
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
        crate::plan::approval::carry_out(plan, ApprovalDecision::from_input(&input), ctx)
    }
}
