//! The main conversation: the checkpoints (which take the resumed
//! entries, so what else is read from them is read first), the engine
//! extensions plan mode, teams, MCP, settings, background work, skills,
//! commands, checkpoints, the completion gate and the contract plug in,
//! and the engine itself with the resumed conversation, its starting mode
//! recorded, a recorded plan decision carried out and `--plan` taken up.

use std::sync::Arc;

use tokio::sync::mpsc::UnboundedSender;

use super::base::Base;
use super::plan::PlanStage;
use super::tools::ToolsStage;
use super::{BuildError, contract, late, parts, resume};
use crate::checkpoints::Checkpoints;
use crate::engine::{Conversation, Engine, EngineEvent, EngineExtension, Record, Recorder};
use crate::permissions::PermissionContext;
use crate::session::{self, ResumedSession};
use crate::settings::reload::SettingsReload;
use crate::teams::{TeamCommand, TeamManager};
use crate::tools::ToolContext;

/// What the resumed session hands on, read before the checkpoints take
/// its entries.
pub(super) struct Continued {
    /// The session (its entries taken by the checkpoints).
    pub resumed: Option<ResumedSession>,
    /// The messages to continue with, and where `--resume-session-at`
    /// cut them.
    pub conversation: Option<(Vec<catui_protocol::Message>, Option<String>)>,
    /// A decision on the plan recorded after the session ended.
    pub recorded: Option<session::plan_review::RecordedAnswer>,
    /// The goal it had.
    pub goal: Option<String>,
}

/// Checkpoints: always there (with checkpoints off they still compare the
/// work after a plan approval with the plan); they take the resumed
/// session's entries, so the conversation, a recorded plan decision (not
/// for a fork: it belongs to the session forked from) and the goal are
/// read from them first.
pub(super) fn checkpoint_stage(
    b: &Base,
    plan: &mut PlanStage,
    recorders: &super::services::RecorderStage,
    events: &UnboundedSender<EngineEvent>,
) -> Result<(Arc<Checkpoints>, Continued), BuildError> {
    let checkpoints_on = b.config.checkpoints.unwrap_or_else(|| {
        crate::checkpoints::enabled(
            (b.env)(crate::checkpoints::SDK_CHECKPOINTING_ENV).as_deref(),
            b.settings.file_checkpointing_enabled,
            b.config.checkpoints_default,
        )
    });
    let mut resumed = plan.resumed.take();
    let recorded = resumed
        .as_ref()
        .filter(|_| !b.config.resume.fork)
        .and_then(|r| session::plan_review::pending_answer(&r.entries));
    let conversation = resumed
        .as_ref()
        .map(|r| late::resumed_messages(r, plan.resume_point))
        .transpose()
        .map_err(BuildError::Resume)?;
    let goal = resumed
        .as_ref()
        .and_then(|r| crate::contract::goal::restored(&r.entries));
    let checkpoints = parts::checkpoints(crate::checkpoints::CheckpointSetup {
        session_id: b.session_id.clone(),
        config_dir: b.config_dir().clone(),
        project: b.cwd().clone(),
        recorder: recorders.recorder.clone(),
        transcript: recorders.transcript_path.clone(),
        entries: resumed
            .as_mut()
            .map(|r| std::mem::take(&mut r.entries))
            .unwrap_or_default(),
        plan: plan.plan.clone(),
        events: events.clone(),
        limits: Default::default(),
        rewind: checkpoints_on,
    });
    let continued = Continued {
        resumed,
        conversation,
        recorded,
        goal,
    };
    Ok((checkpoints, continued))
}

/// Extensions, in the order the engine consults them, and the contract
/// (whose plan-amending tools only the main conversation gets).
fn extensions_stage(
    b: &Base,
    p: &ConversationParts<'_>,
    restored_goal: Option<String>,
) -> (Vec<Arc<dyn EngineExtension>>, contract::SessionContract) {
    let t = p.tools;
    let mut extensions: Vec<Arc<dyn EngineExtension>> = vec![
        p.plan.plan.extension(),
        Arc::new(TeamCommand(p.team.map(|t| t.lead_handle()))),
        Arc::new(crate::mcp::slash_commands::McpCommands(t.mcp.clone())),
        p.settings_reload.clone(),
        Arc::new(crate::engine::background::BackgroundCommands(
            p.background.clone(),
        )),
        Arc::new(crate::agents::BackgroundAgentsExtension(
            p.background_agents.clone(),
        )),
        t.output.extension(),
        Arc::new(crate::skills::command::SkillsCommand(
            t.extras.skills.clone(),
        )),
        Arc::new(crate::custom_commands::CustomCommands(
            t.extras.commands.clone(),
        )),
        Arc::new(crate::checkpoints::CheckpointExtension(
            p.checkpoints.clone(),
        )),
    ];
    extensions.push(Arc::new(parts::completion_gate(
        &b.settings,
        (b.env)(crate::completion::CHECK_ENV),
        b.config.plan_effort,
        b.nobody_here,
        &b.warn,
    )));
    let contract = contract::contract(contract::ContractInputs {
        plan: &p.plan.plan,
        checkpoints: Some(p.checkpoints.clone()),
        recorder: p.recorder.clone(),
        events: p.services.events.clone(),
        project: b.cwd().clone(),
        settings: &b.settings,
        nobody_here: b.nobody_here,
        goal: b.config.goal.clone(),
        restored_goal,
    });
    extensions.push(contract.extension.clone());
    (extensions, contract)
}

/// What the main conversation is made of.
pub(super) struct ConversationParts<'a> {
    pub services: Arc<crate::engine::SessionServices>,
    pub system_prompt: String,
    pub permissions: PermissionContext,
    pub tool_ctx: ToolContext,
    pub recorder: Arc<dyn Recorder>,
    pub tools: &'a ToolsStage,
    pub plan: &'a PlanStage,
    pub team: Option<&'a Arc<TeamManager>>,
    pub settings_reload: Arc<SettingsReload>,
    pub background: &'a Arc<crate::tools::bash::BackgroundShells>,
    pub background_agents: &'a Arc<crate::agents::BackgroundAgents>,
    pub checkpoints: &'a Arc<Checkpoints>,
    pub git_snapshot: Option<Arc<crate::prompt::GitSnapshot>>,
    pub machine: Arc<crate::prompt::MachineFacts>,
}

/// The main conversation: the engine with the structured-output and
/// plan-amending tools (the main conversation's only), the git and
/// machine attachments, the resumed conversation, its starting mode
/// recorded, a recorded plan decision carried out and `--plan` taken up.
pub(super) fn main_conversation(
    b: &Base,
    p: ConversationParts<'_>,
    continued: Continued,
) -> Result<Engine, BuildError> {
    let (extensions, contract) = extensions_stage(b, &p, continued.goal.clone());
    let plan = p.plan;
    let mut main_tools = p.services.tools.clone();
    main_tools.add_source(p.tools.output.tool_source());
    main_tools.add_source(contract.amend_tools.clone());
    let mut engine = p.services.conversation(Conversation {
        max_turns: b.config.max_turns,
        recorder: Some(p.recorder.clone()),
        tools: Some(main_tools),
        extensions,
        ..Conversation::new(p.system_prompt, p.permissions, p.tool_ctx)
    });
    p.checkpoints.set_engine(engine.control());
    if let Some(snapshot) = p.git_snapshot {
        engine
            .add_attachment_provider(Arc::new(crate::prompt::GitStatusAttachments::new(snapshot)));
    }
    engine.add_attachment_provider(Arc::new(crate::prompt::MachineAttachments::new(p.machine)));
    if let Some((r, (messages, at))) = continued.resumed.zip(continued.conversation) {
        engine.add_past_usage(&r.usage);
        engine.set_messages(messages);
        if let Some(at) = at {
            // Later resumes continue from the same point.
            engine.record(Record::System {
                subtype: session::rebuild::RESUMED_AT.into(),
                text: at,
            });
        }
    }
    // The starting mode goes into the transcript so a resume comes back in it.
    let pre_plan_mode = engine.session_hooks().pre_plan_mode();
    engine.record(Record::PermissionMode {
        mode: engine.permission_mode(),
        pre_plan_mode,
    });
    if let Some(recorded) = continued.recorded {
        resume::carry_out_recorded(&mut engine, &plan.plan, recorded);
    }
    if let Some(slug) = &b.config.pick_up_plan {
        let picked = crate::plan::pick_up::use_plan(engine.session_hooks(), &plan.plan, slug);
        if picked.is_error {
            return Err(BuildError::PickUpPlan(picked.text));
        }
        // The changed plan's request to present it waits for the first
        // input, read before it.
        if let Some(prompt) = picked.prompt {
            plan.plan.tell_model_next(prompt);
        }
        engine.session_hooks().notify("plan-library", &picked.text);
    }
    Ok(engine)
}
