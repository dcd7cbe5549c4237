//! Building a session from the command line: settings, provider, tools,
//! permissions, transcript and engine, then handing it to a front end.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use catui_core::agents::runner::RecorderFactory;
use catui_core::agents::{AgentTool, SubAgentRunner, SubAgentSetup};
use catui_core::engine::{
    Approver, Engine, EngineConfig, EngineEvent, EngineParts, MemoryRecorder, NobodyToAsk, Record,
    Recorder,
};
use catui_core::permissions::PermissionContext;
use catui_core::permissions::auto::{AutoClassifier, ClassifierConfig};
use catui_core::permissions::rules::RuleBehavior;
use catui_core::permissions::sandbox::SandboxPolicy;
use catui_core::plan::{
    EnterPlanModeTool, ExitPlanModeTool, PlanFiles, PlanModeConfig, PlanSession,
};
use catui_core::prompt::{self, PromptOptions};
use catui_core::session::{self, PlanSnapshotRecorder, TranscriptRecorder, TranscriptWriter};
use catui_core::settings::{Settings, SettingsWarning};
use catui_core::teams::{SendMessageTool, TeamCreateTool, TeamManager, TeamSetup, TeamStopTool};
use catui_core::tools::{Adapter, AgentsHandle, ToolContext, ToolRegistry};
use catui_protocol::{ContentBlock, PermissionMode};
use catui_providers::ProviderKind;
use tokio::sync::mpsc::{UnboundedReceiver, unbounded_channel};

use crate::args::{Args, InputFormat};
use crate::headless::{self, Pending, SessionInfo, StdioApprover, StdioPlanReviewer};
use crate::provider::{self, ProviderChoice};
use crate::resume;

/// A session ready to run.
pub struct Session {
    pub engine: Engine,
    pub events: UnboundedReceiver<EngineEvent>,
    pub info: SessionInfo,
    /// Set when a client on stdin answers permission prompts.
    pub pending: Option<Arc<Pending>>,
    pub controls_tx: tokio::sync::mpsc::UnboundedSender<catui_protocol::stream_json::OutputEvent>,
    pub controls_rx: UnboundedReceiver<catui_protocol::stream_json::OutputEvent>,
    /// Permission prompts for the terminal UI.
    pub approvals: Option<catui_tui::ApprovalReceiver>,
    /// The lead's teams (interactive sessions: the TUI and stream-json).
    pub team: Option<Arc<TeamManager>>,
}

/// Where a session runs and what it may read from its surroundings. A real
/// session uses the process's; the offline demo passes its own so that it
/// never reads the user's keys or writes into the user's catui home.
pub struct SessionEnv {
    pub cwd: PathBuf,
    pub config_dir: PathBuf,
    /// Environment variables; `None` reads the process environment.
    pub vars: Option<HashMap<String, String>>,
    /// Answers permission prompts instead of the front end (the session is
    /// then interactive).
    pub approver: Option<Arc<dyn Approver>>,
}

impl SessionEnv {
    /// The current directory, the configured catui home, the process env.
    pub fn from_process() -> Result<SessionEnv, String> {
        let cwd = std::env::current_dir()
            .map_err(|e| format!("cannot read the working directory: {e}"))?;
        let cwd = std::fs::canonicalize(&cwd).unwrap_or(cwd);
        Ok(SessionEnv {
            cwd,
            config_dir: catui_core::config_dir::config_dir(),
            vars: None,
            approver: None,
        })
    }
}

/// Builds the session; the error is one line for the user (exit 2).
pub fn build(args: &Args, tui: bool) -> Result<Session, String> {
    build_in(args, tui, SessionEnv::from_process()?)
}

/// [`build`] in the given surroundings.
pub fn build_in(args: &Args, tui: bool, senv: SessionEnv) -> Result<Session, String> {
    let SessionEnv {
        cwd,
        config_dir,
        vars,
        approver: approver_override,
    } = senv;
    // git status/log run in the background from here on; nothing waits for
    // them (the snapshot reaches the model as an attachment once ready).
    let git_snapshot = prompt::GitSnapshot::start(&cwd).map(Arc::new);
    let (settings, warnings) = Settings::load_from(&config_dir, &cwd, args.settings.as_deref());
    for w in &warnings {
        if let SettingsWarning::MissingFlagFile { path } = w {
            return Err(format!("--settings {}: no such file", path.display()));
        }
        eprintln!("catui: {w}");
    }
    let settings_env = settings.env.clone();
    let env = move |name: &str| {
        settings_env.get(name).cloned().or_else(|| match &vars {
            Some(vars) => vars.get(name).cloned(),
            None => std::env::var(name).ok(),
        })
    };

    let mode = match args.permission_mode.as_deref() {
        Some(m) => m.parse::<PermissionMode>().map_err(|e| e.to_string())?,
        None => settings.permissions.default_mode.unwrap_or_default(),
    };
    let choice = ProviderChoice {
        provider: args.provider.clone().or_else(|| settings.provider.clone()),
        model: args.model.clone().or_else(|| settings.model.clone()),
        small_model: args
            .small_model
            .clone()
            .or_else(|| settings.small_model.clone()),
        idle_timeout_secs: settings.idle_timeout_secs,
    };
    let resolved = provider::resolve(&choice, &env)?;

    let resumed = resume::requested(args, &config_dir, &cwd)?;
    let session_id = resume::session_id(args, resumed.as_ref())?;
    let max_tokens = env("CATUI_MAX_TOKENS")
        .and_then(|v| v.parse().ok())
        .unwrap_or(match resolved.config.kind {
            ProviderKind::Anthropic => 16_384,
            ProviderKind::OpenAi => 8_192,
        });

    let client = catui_providers::client_for(resolved.config.clone()).map_err(|e| e.to_string())?;
    let (agent_defs, agent_warnings) = catui_core::agents::loader::load_agents(&cwd, &config_dir);
    for w in agent_warnings {
        eprintln!("catui: {w}");
    }
    let mut tools = ToolRegistry::builtin();
    tools.add(Adapter(Arc::new(AgentTool::new(agent_defs.clone()))));
    tools.add_alias("Task", "Agent");
    tools.add(Adapter(Arc::new(ExitPlanModeTool)));
    let mut tool_ctx = ToolContext::new(cwd.clone());
    tool_ctx.env = Arc::new(settings.env.clone().into_iter().collect());

    let interactive =
        tui || args.input_format == InputFormat::StreamJson || approver_override.is_some();
    if interactive {
        // Entering plan mode needs someone to approve the way out (G§9.3).
        tools.add(Adapter(Arc::new(EnterPlanModeTool)));
    }
    // Teams need a lead that keeps listening: the TUI or a stream-json
    // session, not a one-shot `-p`.
    let with_teams = interactive;
    if with_teams {
        tools.add(Adapter(Arc::new(TeamCreateTool)));
        tools.add(Adapter(Arc::new(SendMessageTool)));
        tools.add(Adapter(Arc::new(TeamStopTool)));
    }
    let (controls_tx, controls_rx) = headless::control_channel();
    let pending =
        (!tui && args.input_format == InputFormat::StreamJson && approver_override.is_none())
            .then(|| Arc::new(Pending::default()));
    let mut approvals = None;
    let approver: Arc<dyn Approver> = if let Some(approver) = approver_override {
        approver
    } else if tui {
        let (approver, receiver) = catui_tui::approver();
        approvals = Some(receiver);
        Arc::new(approver)
    } else {
        match &pending {
            Some(p) => Arc::new(StdioApprover {
                out: controls_tx.clone(),
                pending: p.clone(),
            }),
            None => Arc::new(NobodyToAsk),
        }
    };
    let mut permissions = PermissionContext::new(cwd.clone());
    settings.apply_to(&mut permissions);
    for dir in &args.add_dir {
        let dir =
            std::fs::canonicalize(dir).map_err(|e| format!("--add-dir {}: {e}", dir.display()))?;
        if !permissions.working_dirs.contains(&dir) {
            permissions.working_dirs.push(dir);
        }
    }
    for (behavior, list) in [
        (RuleBehavior::Allow, &args.allowed_tools),
        (RuleBehavior::Deny, &args.disallowed_tools),
    ] {
        for item in list {
            if let Some(e) = permissions
                .rules
                .add_cli_list(behavior, item, &cwd)
                .into_iter()
                .next()
            {
                return Err(format!("invalid permission rule: {e}"));
            }
        }
    }
    permissions.interactive = interactive;
    // Enter the starting mode through the one transition function so that
    // prePlanMode is recorded however plan mode is entered. A resumed session
    // comes back in its own mode unless the command line says otherwise.
    let modes = match (&resumed, &args.permission_mode) {
        (Some(r), None) => resume::modes(r),
        _ => vec![mode],
    };
    for m in &modes {
        catui_core::permissions::transition_permission_mode(&mut permissions, *m)
            .map_err(|e| format!("cannot start in permission mode {m}: {e}"))?;
    }
    let mode = permissions.mode;

    let plan_files = PlanFiles::from_settings(
        &cwd,
        settings.plans_directory.as_deref(),
        &config_dir,
        session_id.clone(),
    );
    let resumed = match resumed {
        Some(r) => Some(resume::restore_plan(
            r,
            args.fork_session,
            &config_dir,
            &cwd,
            &plan_files,
            &session_id,
        )?),
        None => None,
    };
    if let Some(r) = &resumed {
        resume::restore_tool_state(r, &tool_ctx);
    }
    let plan_config = PlanModeConfig::resolve(
        &env,
        settings.plan_agents.map(u64::from),
        Some(settings.plan_variant.as_str()),
    );
    let editor = env("VISUAL").or_else(|| env("EDITOR"));
    let plan = Arc::new(PlanSession::new(
        plan_files,
        plan_config,
        editor,
        settings.auto_mode.enabled,
    ));
    if settings.sandbox == Some(true) {
        let mut writable = permissions.working_dirs.clone();
        writable.push(std::env::temp_dir());
        tool_ctx.set_sandbox_policy(SandboxPolicy::WorkingDirs { writable });
    }

    let info = SessionInfo {
        session_id: session_id.clone(),
        cwd: cwd.display().to_string(),
        model: resolved.model.clone(),
        tools: tools.names(),
        sandbox: catui_core::permissions::sandbox::sandbox_status().into(),
        auto_mode_enabled: settings.auto_mode.enabled,
    };
    let (events_tx, events) = unbounded_channel();
    let mut prompt_opts = PromptOptions::detect(cwd.clone(), tools.names(), resolved.model.clone());
    prompt_opts.config_dir = config_dir.clone();
    let memory = prompt::load_memory_files(&cwd, &config_dir);
    let system_prompt = prompt::render_system_prompt(&prompt_opts, &memory);
    let agent_prompt_opts = prompt_opts.clone();
    let agent_memory = memory.clone();
    let recorder = open_recorder(&config_dir, &cwd, &session_id);
    if let Some(r) = &recorder {
        r.set_slug(Some(plan.files.slug()));
    }
    let recorder_path = recorder.as_ref().map(|r| r.path().to_path_buf());
    // G§7.9: with CATUI_REMOTE=1 or `snapshotPlans`, plan writes are also
    // kept in the transcript.
    let snapshot_plans = session::snapshot_plans_enabled(settings.snapshot_plans, &env);
    let plan_for_snapshots = plan.files.clone();
    // Only with the opt-in: without it no conversation can be in auto mode,
    // and sub-agents and teammates ask exactly as before.
    let auto_classifier = settings.auto_mode.enabled.then(|| {
        let mut config = ClassifierConfig::new(resolved.small_model.clone());
        if let Some(timeout) = settings.auto_mode_classifier_timeout {
            config.timeout = timeout;
        }
        Arc::new(AutoClassifier::new(client.clone(), config))
    });
    let runner = SubAgentRunner::new(SubAgentSetup {
        client: client.clone(),
        tools: tools.clone(),
        definitions: agent_defs,
        approver: approver.clone(),
        events: events_tx.clone(),
        session_id: session_id.clone(),
        model: resolved.model.clone(),
        small_model: resolved.small_model.clone(),
        max_tokens,
        max_turns: 50,
        max_parallel: settings.max_parallel_agents.unwrap_or(8) as usize,
        prompt: Arc::new(move |def| {
            let memory = if def.omit_memory {
                Vec::new()
            } else {
                agent_memory.clone()
            };
            prompt::render_agent_prompt(&def.system_prompt, &agent_prompt_opts, &memory)
        }),
        recorder: sidechain_recorders(recorder_path.clone(), session_id.clone(), cwd.clone()),
        auto_classifier: auto_classifier.clone(),
    });
    tool_ctx.agents = Some(AgentsHandle(Arc::new(runner)));
    let team = with_teams.then(|| {
        TeamManager::new(TeamSetup {
            client: client.clone(),
            tools: tools.clone(),
            approver: approver.clone(),
            session_id: session_id.clone(),
            model: resolved.model.clone(),
            small_model: resolved.small_model.clone(),
            max_tokens,
            max_turns: args.max_turns,
            system_prompt: system_prompt.clone(),
            recorder: sidechain_recorders(recorder_path.clone(), session_id.clone(), cwd.clone()),
            config_dir: config_dir.clone(),
            plans_dir: plan.files.dir().to_path_buf(),
            plan_config,
            auto_gate_enabled: settings.auto_mode.enabled,
            events: events_tx.clone(),
            auto_classifier: auto_classifier.clone(),
            git_snapshot: git_snapshot.clone(),
        })
    });
    if let Some(team) = &team {
        tool_ctx.team = Some(team.lead_handle());
        // A stream-json client reviews teammates' plans itself (SPEC §9).
        if let Some(p) = &pending {
            team.set_reviewer(Arc::new(StdioPlanReviewer {
                out: controls_tx.clone(),
                pending: p.clone(),
            }));
        }
    }
    let config = EngineConfig {
        session_id,
        model: resolved.model,
        small_model: resolved.small_model.clone(),
        system_prompt,
        max_turns: args.max_turns,
        max_tokens,
        agent_id: None,
        parent_tool_use_id: None,
        // Plain -p in plan mode is a headless planning run (SPEC §2.1).
        end_at_plan_ready: !interactive && mode == PermissionMode::Plan,
    };
    let mut engine = Engine::new(
        config,
        EngineParts {
            client,
            tools,
            permissions,
            tool_ctx,
            approver,
            recorder: match recorder {
                Some(r) if snapshot_plans => {
                    Arc::new(PlanSnapshotRecorder::new(r, plan_for_snapshots.clone()))
                }
                Some(r) => r,
                None => Arc::new(MemoryRecorder::default()),
            },
            events: events_tx,
            plan: Some(plan),
        },
    );
    if let Some(classifier) = auto_classifier {
        engine = engine.with_auto_classifier(classifier);
    }
    if let Some(snapshot) = git_snapshot {
        engine.add_attachment_provider(Arc::new(prompt::GitStatusAttachments::new(snapshot)));
    }
    if let Some(r) = resumed {
        engine.set_messages(r.messages);
    }
    // The starting mode goes into the transcript so a resume comes back in it.
    let pre_plan_mode = engine.session_hooks().pre_plan_mode();
    engine.session_hooks().record(Record::PermissionMode {
        mode: engine.permission_mode(),
        pre_plan_mode,
    });
    Ok(Session {
        team,
        approvals,
        engine,
        events,
        info,
        pending,
        controls_tx,
        controls_rx,
    })
}

/// The session's transcript, or `None` (with a warning) when it cannot be
/// opened: a read-only home must not stop the user from working.
fn open_recorder(
    config_dir: &Path,
    cwd: &Path,
    session_id: &str,
) -> Option<Arc<TranscriptRecorder>> {
    match TranscriptWriter::for_session(config_dir, cwd, session_id) {
        Ok(w) => Some(Arc::new(TranscriptRecorder::new(w))),
        Err(e) => {
            eprintln!(
                "catui: the transcript cannot be written ({e}); this session will not be resumable"
            );
            None
        }
    }
}

/// Sub-agents record into sidechain files beside the session's transcript.
fn sidechain_recorders(
    session_path: Option<PathBuf>,
    session_id: String,
    cwd: PathBuf,
) -> RecorderFactory {
    Arc::new(move |agent_id: &str| -> Arc<dyn Recorder> {
        let Some(path) = &session_path else {
            return Arc::new(MemoryRecorder::default());
        };
        match TranscriptWriter::for_sidechain(path, &session_id, &cwd, agent_id) {
            Ok(w) => Arc::new(TranscriptRecorder::new(w)),
            Err(e) => {
                eprintln!("catui: the sub-agent transcript cannot be written: {e}");
                Arc::new(MemoryRecorder::default())
            }
        }
    })
}

/// Runs a headless session to its end and returns the exit code.
pub async fn run_headless(args: &Args, session: Session, first_input: Option<String>) -> u8 {
    let Session {
        engine,
        events,
        info,
        pending,
        controls_tx,
        controls_rx,
        team,
        ..
    } = session;
    if args.output_format == crate::args::OutputFormat::StreamJson {
        let _ = controls_tx.send(headless::init_event(
            &info,
            engine.permission_mode(),
            engine.plan_file(),
        ));
    }
    let printer = tokio::spawn(headless::print_events(
        args.output_format,
        args.verbose,
        info.session_id.clone(),
        events,
        controls_rx,
    ));
    let users = match pending {
        Some(pending) => {
            let (users_tx, users_rx) = unbounded_channel();
            if let Some(team) = &team {
                // Teammates' messages and plan requests reach the lead model
                // as user turns.
                team.set_lead_input(users_tx.downgrade());
            }
            tokio::spawn(headless::read_stdin(
                users_tx,
                engine.control(),
                pending,
                controls_tx.clone(),
            ));
            Some(users_rx)
        }
        None => None,
    };
    drop(controls_tx);
    let first = first_input.map(|t| vec![ContentBlock::text(t)]);
    let code = headless::run(engine, first, users).await;
    if let Some(team) = team {
        team.shutdown().await;
    }
    // The engine is gone, so the event channel closes and the printer drains.
    let _ = printer.await;
    code as u8
}

/// Runs the full-screen interface to its end and returns the exit code.
pub async fn run_tui(args: &Args, session: Session) -> u8 {
    let Session {
        engine,
        events,
        info,
        approvals,
        team,
        ..
    } = session;
    let Some(approvals) = approvals else {
        eprintln!("catui: internal error: the session was not built for the terminal UI");
        return 1;
    };
    let opts = catui_tui::TuiOptions {
        model: info.model.clone(),
        cwd: info.cwd.clone(),
        session_id: info.session_id.clone(),
        first_prompt: args.prompt.clone(),
        auto_mode_enabled: info.auto_mode_enabled,
    };
    let code = match catui_tui::run(engine, events, approvals, opts, team.clone()).await {
        Ok(code) => u8::try_from(code).unwrap_or(1),
        Err(e) => {
            catui_tui::restore_terminal();
            eprintln!("catui: the terminal interface failed: {e}");
            1
        }
    };
    // Leaving the lead session stops its teammates; their inboxes stay.
    if let Some(team) = team {
        team.shutdown().await;
    }
    code
}
