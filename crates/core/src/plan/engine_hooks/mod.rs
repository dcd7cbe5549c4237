//! How plan mode plugs into the engine: [`PlanExtension`] implements the
//! engine's [`EngineExtension`] for one session's [`PlanSession`] — the
//! plan file as the one writable file, the plan-mode attachments, the
//! reaction to mode changes, `/plan`, the plan kept across compaction (the
//! approved text while it is carried out), the verification steps after an
//! approved plan, the planning model for requests in plan mode, and a
//! headless planning run that ends when the model presents its plan (or
//! wrote one and answers with words).
//!
//! [`PlanRoute`] is the other direction: how a conversation that has no
//! local user (a teammate) gets its plan approved; teams provide it.

pub mod attachment_provider;

/// Who approves a plan-required teammate's plan (`teammatePlanApprover`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TeammatePlanApprover {
    /// The team lead (the model leading the team) decides.
    #[default]
    Lead,
    /// The person: the same approval as the main conversation's plan,
    /// marked with the teammate's name; the lead is told the outcome.
    User,
}
pub mod attachments;

// The route lives with the approval that takes it.
pub use crate::plan::approval::route::{PlanApprovalRoute, PlanRoute};

use catui_protocol::tool_names;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use catui_protocol::stream_json::ResultSubtype;
use serde_json::Value;

use crate::engine::attachments::AttachmentProvider;
use crate::engine::slash_commands::{CommandOutput, SlashCommand};
use crate::engine::{
    AttachContext, EngineExtension, KeptDocument, Notice, RunEnd, ToolCallView, ToolGate,
};
use crate::permissions::ModeChange;
use crate::plan::slash_command::plan_command;
use crate::plan::state::plan_session::PlanSession;
use crate::tools::{SessionHooks, ToolContext};

use catui_protocol::tool_names::EXIT_PLAN_MODE;

/// Plan mode as an engine extension.
pub struct PlanExtension {
    plan: Arc<PlanSession>,
}

impl PlanExtension {
    pub fn new(plan: Arc<PlanSession>) -> Self {
        PlanExtension { plan }
    }
}

impl PlanSession {
    /// The plan session of the conversation running this tool call.
    pub fn of(ctx: &ToolContext) -> Option<&Arc<PlanSession>> {
        ctx.values.get::<Arc<PlanSession>>()
    }

    /// This session as an engine extension.
    pub fn extension(self: &Arc<Self>) -> Arc<dyn EngineExtension> {
        Arc::new(PlanExtension::new(self.clone()))
    }
}

impl EngineExtension for PlanExtension {
    fn attach(&self, conversation: &mut AttachContext<'_>) {
        // The one file writable in plan mode: this conversation's own plan
        // file (sub-agents have their own beside the session's).
        conversation.permissions.plan_file = Some(self.plan.files.path(conversation.agent_id));
        // A sub-agent that cannot write has no plan file and no
        // ExitPlanMode: it plans in its final answer, and is told so.
        let writes = conversation
            .tools
            .iter()
            .any(|t| t == tool_names::WRITE || t == tool_names::EDIT);
        conversation.permissions.plans_in_answer = conversation.agent_id.is_some() && !writes;
        if let Some(id) = conversation.agent_id {
            self.plan.provider.set_sub_agent_writes(id, writes);
        }
        conversation.tool_ctx.values.insert(self.plan.clone());
        if conversation.agent_id.is_none() {
            // The main conversation's todos follow the approved plan's steps.
            let plan = self.plan.clone();
            conversation
                .tool_ctx
                .values
                .insert(crate::tools::TodoObserver(Arc::new(move |todos, ctx| {
                    plan.todos_changed(todos, ctx)
                })));
        }
    }

    fn attachment_provider(&self) -> Option<Arc<dyn AttachmentProvider>> {
        Some(self.plan.provider.clone())
    }

    fn mode_changed(&self, change: &ModeChange) {
        if change.auto_mode_exited {
            self.plan.state.set_needs_auto_mode_exit_attachment(true);
        }
        if change.changed() {
            self.plan
                .state
                .handle_plan_mode_transition(change.from, change.to);
            if change.to == catui_protocol::PermissionMode::Plan {
                // Planning again: the old plan is no longer the work.
                self.plan.steps.unbind();
                self.plan.forget_approved();
            }
        }
    }

    fn before_tool(&self, call: &ToolCallView<'_>) -> ToolGate {
        if call.name != EXIT_PLAN_MODE || !self.plan.ends_run_at_plan() || call.agent_id.is_some() {
            return ToolGate::Continue;
        }
        // A headless planning run: nobody can approve here, so the run ends
        // with the plan and the session stays in plan mode. The plan is
        // presented as for an approval (and so kept in the transcript).
        let input = call.call.permission_input(call.ctx).unwrap_or(Value::Null);
        let plan = input["plan"].as_str().unwrap_or_default().to_string();
        let path = input["planFilePath"]
            .as_str()
            .unwrap_or_default()
            .to_string();
        ToolGate::Answer {
            content: format!(
                "The plan at {path} was saved for the user's review. This run ends here and the session \
                 stays in plan mode; the user will approve or revise it later. Do not continue."
            ),
            display: format!("Plan saved for review: {path}"),
            is_error: false,
            end_run: Some(RunEnd::new(ResultSubtype::PlanReady, plan)),
        }
    }

    fn command(&self, command: &SlashCommand, session: &dyn SessionHooks) -> Option<CommandOutput> {
        (command.name == "plan").then(|| plan_command(session, &self.plan, &command.args))
    }

    fn conversation_cleared(&self, recorder: &dyn crate::engine::Recorder) -> Option<PathBuf> {
        // A new conversation gets a new plan file (the plan slug is cleared);
        // the old plan stays on disk under its own slug.
        let files = &self.plan.files;
        files.slugs().clear(&files.session_id());
        self.plan.state.reset();
        self.plan.steps.unbind();
        self.plan.forget_approved();
        self.plan.clear_revisions();
        self.plan.set_verification(None);
        recorder.set_slug(Some(files.slug()));
        Some(files.path(None))
    }

    fn user_edited(&self, path: &Path, session: &dyn SessionHooks) {
        let plan_file = self.plan.files.path(None);
        let same = path == plan_file
            || matches!((path.canonicalize(), plan_file.canonicalize()), (Ok(a), Ok(b)) if a == b);
        if same {
            self.plan.snapshot(session);
        }
    }

    fn kept_document(&self, agent_id: Option<&str>) -> Option<KeptDocument> {
        let files = &self.plan.files;
        let path = files.path(agent_id);
        let current = files.read(agent_id);
        // While an approved plan is carried out, the approved text is what
        // the work follows, whatever the file says now (the progress
        // section catui writes back is not a change).
        if agent_id.is_none()
            && let Some(approved) = self.plan.approved_text()
        {
            let file_changed = current.as_deref().is_none_or(|now| {
                now != approved
                    && crate::plan::approval::progress::without_progress(now) != approved
            });
            return Some(KeptDocument {
                path,
                content: approved,
                approved: true,
                file_changed,
            });
        }
        current.map(|content| KeptDocument {
            path,
            content,
            approved: false,
            file_changed: false,
        })
    }

    fn request_model(
        &self,
        agent_id: Option<&str>,
        mode: catui_protocol::PermissionMode,
    ) -> Option<String> {
        // The main conversation plans with the planning model; sub-agents
        // pick theirs by type (the Plan agent's is the planning model).
        (agent_id.is_none() && mode == catui_protocol::PermissionMode::Plan)
            .then(|| self.plan.plan_model().map(str::to_string))
            .flatten()
    }

    fn input_started(&self, input: &crate::engine::InputView<'_>) {
        self.plan.input_started();
        if !self.plan.files.exists(None) {
            self.plan.library.note_request(input.text);
        }
    }

    fn final_answer(&self, agent_id: Option<&str>, session: &dyn SessionHooks) -> Option<RunEnd> {
        // A headless planning run whose model wrote a plan but ended with
        // words instead of ExitPlanMode ends like one that presented it:
        // with the plan, kept for the user's review. A plan from an earlier
        // input is not this input's answer (a question after `--resume`).
        if agent_id.is_some()
            || !self.plan.ends_run_at_plan()
            || session.permission_mode() != catui_protocol::PermissionMode::Plan
            || !self.plan.plan_written_this_input()
        {
            return None;
        }
        let plan = self
            .plan
            .files
            .read(None)
            .filter(|p| !p.trim().is_empty())?;
        let path = self.plan.files.path(None).display().to_string();
        session.snapshot_file(crate::plan::contract::PLAN_REVISION_KEY, &path, &plan);
        Some(RunEnd::new(ResultSubtype::PlanReady, plan))
    }

    fn input_preamble(&self) -> Option<String> {
        self.plan.take_preamble()
    }

    fn input_handled(&self) -> Vec<Notice> {
        // The approved plan's verification steps, listed for the user when
        // the run ends.
        self.plan
            .take_verification()
            .map(|steps| Notice {
                key: "plan-verification".into(),
                text: format!("Verify the change with the plan's verification steps:\n{steps}"),
                essential: true,
            })
            .into_iter()
            .collect()
    }
}
