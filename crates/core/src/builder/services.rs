//! Recorder and services: where the main conversation is recorded (the
//! transcript, with plan snapshots when asked; sidechain files for
//! sub-agents and teammates), the one [`SessionServices`] everything the
//! session starts shares, and what it starts from them: the sub-agent
//! runner and, with someone at the other end, the lead's teams.

use std::path::PathBuf;
use std::sync::Arc;

use tokio::sync::mpsc::UnboundedSender;

use super::FrontEnd;
use super::base::Base;
use super::parts::{self, MainRecorder, PromptStage};
use super::plan::PlanStage;
use super::tools::ToolsStage;
use crate::agents::{AgentsHandle, BackgroundAgents};
use crate::engine::{
    Approver, EngineEvent, Limits, Models, NobodyToAsk, Recorder, RecorderFactory, SessionServices,
};
use crate::permissions::auto::{AutoClassifier, ClassifierConfig};
use crate::plan::PlanSession;
use crate::prompt;
use crate::session::{self, PlanSnapshotRecorder, SessionLock};
use crate::teams::{TeamManager, TeamSetup};
use crate::tools::{ToolContext, ToolRegistry};

/// The recorder stage's result.
pub(super) struct RecorderStage {
    /// The main conversation's.
    pub recorder: Arc<dyn Recorder>,
    /// Sub-agents' and teammates'.
    pub sidechains: RecorderFactory,
    /// The transcript file, when there is one.
    pub transcript_path: Option<PathBuf>,
}

/// Recorder: the `given` recorder, else the session's transcript (none
/// with `--no-session-persistence`), named after the plan's slug and
/// following `/plan use`.
pub(super) fn recorder_stage(
    b: &Base,
    given: Option<Arc<dyn Recorder>>,
    session_lock: Option<SessionLock>,
    plan: &PlanSession,
    events_tx: &UnboundedSender<EngineEvent>,
) -> RecorderStage {
    let transcript = match given {
        Some(r) => MainRecorder::Given(r),
        None if !b.config.persist_session => MainRecorder::None,
        None => {
            let notify_tx = events_tx.clone();
            let notifier: session::Notifier = Arc::new(move |key: &str, text: &str| {
                let _ = notify_tx.send(EngineEvent::Notification {
                    key: key.to_string(),
                    text: text.to_string(),
                });
            });
            parts::open_transcript(
                b.config_dir(),
                b.cwd(),
                &b.session_id,
                session_lock,
                notifier,
                &b.warn,
            )
        }
    };
    if let MainRecorder::File(r) = &transcript {
        r.set_slug(Some(plan.files.slug()));
        // `/plan use SLUG` switches the session to another plan file.
        let r = r.clone();
        plan.library.set_slug_changed(Arc::new(move |slug: &str| {
            r.set_slug(Some(slug.to_string()))
        }));
    }
    // With CATUI_REMOTE=1 or `snapshotPlans`, plan writes are also kept
    // in the transcript.
    let snapshot_plans = session::snapshot_plans_enabled(b.settings.snapshot_plans, &b.env);
    let sidechains = parts::sidechain_recorders(
        transcript.path(),
        b.session_id.clone(),
        b.cwd().clone(),
        b.warn.clone(),
    );
    let transcript_path = transcript.path();
    let recorder: Arc<dyn Recorder> = match transcript {
        MainRecorder::File(r) if snapshot_plans => {
            Arc::new(PlanSnapshotRecorder::new(r, plan.files.clone()))
        }
        MainRecorder::File(r) => r,
        MainRecorder::Given(r) => r,
        MainRecorder::None => Arc::new(crate::engine::MemoryRecorder::default()),
    };
    RecorderStage {
        recorder,
        sidechains,
        transcript_path,
    }
}

/// What [`services_stage`] gathers besides the [`Base`].
pub(super) struct ServiceParts {
    pub client: Arc<dyn catui_providers::ModelClient>,
    pub tools: ToolRegistry,
    pub approver: Option<Arc<dyn Approver>>,
    pub events: UnboundedSender<EngineEvent>,
    pub sidechains: RecorderFactory,
    /// `Some`: replaces the classifier the settings would give.
    pub classifier: Option<Option<Arc<AutoClassifier>>>,
    pub plan_model: Option<String>,
    pub max_tokens: u32,
}

/// Services: what the main conversation, its sub-agents and teammates
/// share — the client, tools, approver, events, hooks, classifier,
/// models and limits.
pub(super) fn services_stage(b: &Base, parts: ServiceParts) -> Arc<SessionServices> {
    let hooks = crate::hooks::HookEngine::for_session(
        b.settings.hooks.clone(),
        b.cwd(),
        &session::session_path(b.config_dir(), b.cwd(), &b.session_id),
        &b.session_id,
    )
    .with_environment(b.settings.child_env());
    // The classifier judges calls only while auto mode is active, which
    // needs the settings' opt-in (at start or after a settings change).
    let auto_classifier = parts.classifier.unwrap_or_else(|| {
        let mut config = ClassifierConfig::new(b.resolved.small_model.clone());
        if let Some(timeout) = b.settings.auto_mode_classifier_timeout {
            config.timeout = timeout;
        }
        Some(Arc::new(AutoClassifier::new(parts.client.clone(), config)))
    });
    let approver: Arc<dyn Approver> = match parts.approver {
        Some(a) => a,
        None => Arc::new(NobodyToAsk),
    };
    Arc::new(SessionServices {
        session_id: b.session_id.clone(),
        client: parts.client,
        tools: parts.tools,
        approver,
        events: parts.events,
        recorders: parts.sidechains,
        auto_classifier,
        compactor: Some(Arc::new(session::SummaryCompactor)),
        hooks: Arc::new(hooks),
        models: Models {
            main: b.resolved.model.clone(),
            small: b.resolved.small_model.clone(),
            plan: parts.plan_model,
        },
        limits: Limits {
            max_tokens: parts.max_tokens,
            max_turns: b.config.max_turns,
            sub_agent_max_turns: Limits::default().sub_agent_max_turns,
            max_parallel_agents: b.settings.max_parallel_agents.unwrap_or(8) as usize,
            auto_compact_threshold: crate::engine::context_window::auto_compact_threshold(
                b.settings.auto_compact_threshold,
            ),
            max_continuations: b
                .settings
                .goal_max_continuations
                .unwrap_or(crate::engine::turn_end::DEFAULT_MAX_CONTINUATIONS),
        },
    })
}

/// Agents and teams: the sub-agent runner (each agent's prompt made from
/// the session's), the editor's files and terminal, WebFetch's reader,
/// and with someone at the other end the lead's teams, all handed to the
/// tools through `tool_ctx`; and the sub-agents run in the background.
#[allow(clippy::too_many_arguments)]
pub(super) fn agents_and_teams(
    b: &Base,
    services: &Arc<SessionServices>,
    tools: &ToolsStage,
    prompt: &PromptStage,
    plan: &PlanStage,
    front_end: &FrontEnd,
    git_snapshot: Option<Arc<prompt::GitSnapshot>>,
    team_backend: crate::teams::TeamBackend,
    tool_ctx: &mut ToolContext,
) -> (Option<Arc<TeamManager>>, Arc<BackgroundAgents>) {
    let agent_prompt_opts = prompt.options.clone();
    let agent_memory = prompt.memory.clone();
    let agent_skills = tools.extras.skills.clone();
    let runner = crate::agents::SubAgentRunner::new(
        services.clone(),
        tools.agents.clone(),
        Arc::new(move |def: &crate::agents::AgentDefinition, model: &str| {
            let memory = if def.omit_memory {
                Vec::new()
            } else {
                agent_memory.clone()
            };
            let opts = prompt::PromptOptions {
                model: model.to_string(),
                // A sub-agent reports to the main conversation, which
                // is told about the run.
                nobody_here: false,
                ..agent_prompt_opts.clone()
            };
            let mut prompt = prompt::render_agent_prompt(&def.system_prompt, &opts, &memory);
            prompt.push_str(&crate::skills::preloaded(&agent_skills, &def.skills));
            prompt
        }),
    );
    tool_ctx.values.insert(AgentsHandle(Arc::new(runner)));
    if let Some(files) = &front_end.editor_files {
        tool_ctx
            .values
            .insert(crate::tools::editor_files::EditorFs(files.clone()));
    }
    if let Some(terminal) = &front_end.editor_terminal {
        tool_ctx
            .values
            .insert(crate::tools::editor_files::EditorShell(terminal.clone()));
    }
    // WebFetch's `prompt` is answered by the small model.
    tool_ctx.values.insert(crate::tools::web_fetch::PageReader {
        client: services.client.clone(),
        model: services.models.small.clone(),
    });
    // Teams need a lead that keeps listening: an interactive front end,
    // not a one-shot run.
    let team = b.interactive.then(|| {
        TeamManager::new(TeamSetup {
            services: services.clone(),
            system_prompt: prompt.system_prompt.clone(),
            config_dir: b.config_dir().clone(),
            plans_dir: plan.plan.files.dir().to_path_buf(),
            plan_config: plan.config,
            teammate_attachments: git_snapshot.map(prompt::GitStatusAttachments::factory),
            backend: team_backend,
            plan_approver: b.settings.teammate_plan_approver,
        })
    });
    if let Some(team) = &team {
        tool_ctx.values.insert(team.lead_handle());
        if let Some(reviewer) = team_reviewer(front_end, b.settings.teammate_plan_approver) {
            team.set_reviewer(reviewer);
        }
    }
    let background_agents = Arc::new(BackgroundAgents::new(
        b.output_dir.clone(),
        services.events.clone(),
    ));
    // A plan dispatched at approval runs as one of them.
    plan.plan
        .library
        .set_dispatcher(super::parts::plan_dispatcher(
            b.cwd().clone(),
            background_agents.clone(),
        ));
    (team, background_agents)
}

/// Who reviews teammates' plans. With `teammatePlanApprover: "user"` the
/// person is asked the way the front end asks permission (the SDK's
/// `can_use_tool`, ACP's permission request); the TUI sets its plan dialog
/// itself when it attaches. Otherwise the front end's own reviewer, if any
/// (without one the lead model decides).
fn team_reviewer(
    front_end: &FrontEnd,
    approver: crate::plan::engine_hooks::TeammatePlanApprover,
) -> Option<Arc<dyn crate::teams::PlanReviewer>> {
    match (&front_end.approver, approver) {
        (Some(asker), crate::plan::engine_hooks::TeammatePlanApprover::User) => {
            Some(Arc::new(crate::teams::user_review::ApproverPlanReviewer {
                approver: asker.clone(),
            }))
        }
        _ => front_end.plan_reviewer.clone(),
    }
}
