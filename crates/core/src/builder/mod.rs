//! Assembling a session: the one path from a [`SessionConfig`] (what the
//! user asked for) and a [`FrontEnd`] (how to reach the user) to a running
//! [`Session`]. Every front end — the terminal UI, headless `-p` and
//! stream-json, the demo, and tests — starts sessions here.
//!
//! The builder loads settings, resolves the provider, opens the transcript
//! (or resumes one), sets up permissions, plan mode, sub-agents and teams,
//! and gathers the shared [`SessionServices`] from which the main
//! conversation, its sub-agents and its teammates are all made.
//!
//! ```no_run
//! # async fn demo() -> Result<(), catui_core::builder::BuildError> {
//! use catui_core::builder::{FrontEnd, SessionBuilder, SessionConfig};
//! let config = SessionConfig::new(std::env::current_dir().unwrap_or_default(), "/tmp/catui-home".into());
//! let mut session = SessionBuilder::new(config).front_end(FrontEnd::unattended()).build()?;
//! let outcome = session.engine.handle_input(vec![catui_protocol::ContentBlock::text("hi")]).await;
//! println!("{}", outcome.result);
//! # Ok(()) }
//! ```

mod contract;
mod extras;
mod front_end;
mod late;
mod mcp;
mod parts;
mod project;
pub mod provider;
pub(crate) mod resume;

use catui_protocol::tool_names;
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;

use catui_protocol::{PermissionMode, Reasoning};
use catui_providers::{ProviderKind, UsageLedger};
use tokio::sync::mpsc::{UnboundedReceiver, unbounded_channel};

use crate::agents::AgentsHandle;
use crate::engine::{
    Approver, Conversation, Engine, EngineEvent, Limits, Models, NobodyToAsk, Record, Recorder,
    SessionServices,
};
use crate::permissions::PermissionContext;
use crate::permissions::auto::{AutoClassifier, ClassifierConfig};
use crate::permissions::rules::RuleBehavior;
use crate::plan::{PlanFiles, PlanModeConfig, PlanSession};
use crate::prompt::{self, PromptOptions};
use crate::session::{self, PlanSnapshotRecorder};
use crate::settings::SettingsWarning;
use crate::teams::{TeamCommand, TeamManager, TeamSetup};
use crate::tools::bash::ToolOutputDir;
use crate::tools::{ToolContext, ToolRegistry};

pub use front_end::{FrontEnd, WarningSink};
pub use late::LateSetup;

/// Why a session could not be started. Each message is one line for the
/// user that says what to change.
#[derive(Debug, thiserror::Error)]
pub enum BuildError {
    #[error("--settings {}: no such file", .0.display())]
    MissingSettingsFile(PathBuf),
    /// No usable provider, model or key.
    #[error("{0}")]
    Provider(#[from] provider::ProviderSetupError),
    /// The model client could not be made.
    #[error("{0}")]
    Client(#[from] catui_providers::ProviderError),
    /// The transcript to resume or fork.
    #[error("{0}")]
    Resume(String),
    /// The session is open in another process, or its id is taken.
    #[error("{0}")]
    Session(String),
    #[error("--add-dir {}: {source}", path.display())]
    AddDir {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("invalid permission rule: {0}")]
    PermissionRule(String),
    #[error("cannot start in permission mode {mode}: {source}")]
    StartingMode {
        mode: PermissionMode,
        source: crate::permissions::ModeError,
    },
    #[error("--json-schema: {0}")]
    OutputSchema(#[from] crate::output::SchemaError),
    #[error("--fallback-model {0} is the main model; name a different model to fall back to")]
    FallbackIsMain(String),
    /// `--plan SLUG` named no plan that can be taken up.
    #[error("--plan: {0}")]
    PickUpPlan(String),
}

/// Which earlier session to continue.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Resume {
    /// `Some("")`: the most recent session; `Some(id)`: that one.
    pub resume: Option<String>,
    /// Continue the most recent session.
    pub continue_latest: bool,
    /// Continue under a new session id, with a copy of the plan.
    pub fork: bool,
    /// Continue from the message with this transcript uuid: what came
    /// after it is left out (`--resume-session-at`).
    pub at: Option<String>,
}

/// What the user asked for: everything the command line can say, in
/// plain values.
#[derive(Debug, Clone)]
pub struct SessionConfig {
    /// The project (working) directory.
    pub cwd: PathBuf,
    /// catui's home: settings, transcripts, plans.
    pub config_dir: PathBuf,
    /// Environment variables; `None` reads the process environment.
    pub vars: Option<HashMap<String, String>>,
    /// An extra settings file (`--settings`).
    pub settings_file: Option<PathBuf>,
    /// The starting mode; `None`: the settings' default (or the resumed
    /// session's own).
    pub permission_mode: Option<PermissionMode>,
    pub provider: Option<String>,
    pub model: Option<String>,
    pub small_model: Option<String>,
    /// The planning model (`--plan-model`); wins over `planModel`.
    pub plan_model: Option<String>,
    /// The effort in plan mode and for the completion gate's turn
    /// (`--plan-effort`); wins over `planEffort`.
    pub plan_effort: Option<catui_protocol::Effort>,
    /// Model requests per user input.
    pub max_turns: Option<u32>,
    /// Added to the end of the system prompt (`--append-system-prompt`).
    pub append_system_prompt: Option<String>,
    /// Replaces catui's base system prompt (`--system-prompt`); the house
    /// rules, the environment and the memory files stay (see
    /// [`prompt::SystemPromptChoice`]).
    pub system_prompt: Option<String>,
    /// Agent types the caller defines (`--agents`); they win over agent
    /// files of the same name.
    pub agents: Vec<crate::agents::AgentDefinition>,
    /// The run's final answer must match this JSON schema (`--json-schema`).
    pub output_schema: Option<serde_json::Value>,
    /// Where requests for the main model go once it stays overloaded
    /// (`--fallback-model`).
    pub fallback_model: Option<String>,
    /// Write the session's transcript (`false`: `--no-session-persistence`;
    /// the session cannot be resumed).
    pub persist_session: bool,
    /// Permission rules from the command line.
    pub allowed_tools: Vec<String>,
    pub disallowed_tools: Vec<String>,
    /// More directories the session may work in.
    pub add_dirs: Vec<PathBuf>,
    pub resume: Resume,
    /// A session id chosen by the caller (a UUID).
    pub session_id: Option<String>,
    /// Offer only these tools (`--tools`); `None`: all. The plan-mode
    /// tools are always kept, so that plan mode can always be left.
    pub tools: Option<Vec<String>>,
    /// Reasoning options of the main model (`--effort`, `--thinking`,
    /// ...); they override the settings' `models` entry for it.
    pub reasoning: Reasoning,
    /// Stop once the session has cost this many US dollars.
    pub max_budget_usd: Option<f64>,
    /// MCP servers from the command line (`--mcp-config`) or the client.
    pub mcp_servers: Vec<crate::mcp::config::ServerSpec>,
    /// Only `mcp_servers`: no `.mcp.json`, no settings' servers.
    pub strict_mcp_config: bool,
    /// Which settings layers to read (`--setting-sources`); `None`: all,
    /// the project's as far as the user trusts it.
    pub setting_sources: Option<crate::settings::SettingsSources>,
    /// Trust the project's own configuration for this run
    /// (`--trust-project`, `CATUI_TRUST_PROJECT=1`).
    pub trust_project: bool,
    /// catui's own binary, whose hidden mode is the sandbox's inner stage
    /// (Landlock and seccomp inside bubblewrap's namespaces). Without it
    /// commands are confined by Landlock and seccomp alone.
    pub sandbox_stage: Option<PathBuf>,
    /// Checkpoints on or off whatever the settings say (`--rewind-to`
    /// needs them); `None`: see [`crate::checkpoints::enabled`].
    pub checkpoints: Option<bool>,
    /// Whether checkpoints are on when neither the SDK's variable nor the
    /// setting says: yes for the terminal UI and editors, no for headless
    /// runs (the SDKs ask with `enable_file_checkpointing`).
    pub checkpoints_default: bool,
    /// A completion condition the goal loop keeps the session going
    /// towards (`--goal`).
    pub goal: Option<String>,
    /// A plan of the library to take up at the start (`--plan SLUG`).
    pub pick_up_plan: Option<String>,
}

impl SessionConfig {
    /// A new session in `cwd` with nothing else asked for.
    pub fn new(cwd: PathBuf, config_dir: PathBuf) -> Self {
        SessionConfig {
            cwd,
            config_dir,
            vars: None,
            settings_file: None,
            permission_mode: None,
            provider: None,
            model: None,
            small_model: None,
            plan_model: None,
            plan_effort: None,
            max_turns: None,
            append_system_prompt: None,
            system_prompt: None,
            agents: Vec::new(),
            output_schema: None,
            fallback_model: None,
            persist_session: true,
            allowed_tools: Vec::new(),
            disallowed_tools: Vec::new(),
            add_dirs: Vec::new(),
            resume: Resume::default(),
            session_id: None,
            tools: None,
            reasoning: Reasoning::default(),
            max_budget_usd: None,
            mcp_servers: Vec::new(),
            strict_mcp_config: false,
            setting_sources: None,
            trust_project: false,
            sandbox_stage: None,
            checkpoints: None,
            checkpoints_default: false,
            goal: None,
            pick_up_plan: None,
        }
    }
}

/// What a front end shows about the session (the stream-json `init`
/// event, the TUI's header).
#[derive(Debug, Clone, PartialEq)]
pub struct SessionInfo {
    pub session_id: String,
    pub cwd: String,
    pub model: String,
    pub tools: Vec<String>,
    /// The sandbox layers commands run under (`init.sandbox`):
    /// `bubblewrap`, `landlock`, `seccomp`; then `no dry runs: <reason>`
    /// when dry runs are on but overlays cannot be mounted here.
    pub sandbox: Vec<String>,
    /// Whether `auto` is offered (setting `autoMode.enabled`).
    pub auto_mode_enabled: bool,
    /// What is wrong with the settings files, one line each (also sent as
    /// `settings` notifications when the session starts).
    pub settings_warnings: Vec<String>,
    /// What of the project's own configuration was held back and how to
    /// trust it (also among `settings_warnings`).
    pub trust_notice: Option<String>,
    /// The skills the model can load (`init.skills`).
    pub skills: Vec<String>,
    /// Custom commands, `(name, description)` (the palette,
    /// `init.slash_commands`, ACP's available commands).
    pub commands: Vec<(String, String)>,
}

/// The settings a session built from `config` reads, its project's as far
/// as it is trusted (the binary needs the broker's before building).
pub fn settings_of(config: &SessionConfig) -> (crate::settings::Settings, Vec<SettingsWarning>) {
    project::settings(config, &project::scope(config))
}

/// A started session, ready for input.
pub struct Session {
    /// The main conversation.
    pub engine: Engine,
    /// Everything the session reports (its sub-agents' and teammates' too).
    pub events: UnboundedReceiver<EngineEvent>,
    pub info: SessionInfo,
    /// The lead's teams (interactive sessions only).
    pub team: Option<Arc<TeamManager>>,
    /// What the main conversation, sub-agents and teammates share.
    pub services: Arc<SessionServices>,
    /// The session's MCP servers (connecting in the background).
    pub mcp: crate::mcp::McpManager,
    /// The main conversation's plan mode (e.g. to follow approvals with
    /// [`PlanSession::on_approved`]).
    pub plan: Arc<PlanSession>,
    /// Checkpoints of the project's files and rewind (see
    /// [`crate::checkpoints::Checkpoints::rewind_enabled`]: setting
    /// `fileCheckpointingEnabled`, the SDK's variable), and the comparison
    /// of the work with an approved plan.
    pub checkpoints: Option<Arc<crate::checkpoints::Checkpoints>>,
    /// The session's background commands (the TUI's `/bashes`, Ctrl+B and
    /// status-line count).
    pub background: Arc<crate::tools::bash::BackgroundShells>,
    /// The sub-agents the Agent tool runs in the background.
    pub background_agents: Arc<crate::agents::BackgroundAgents>,
    /// What a client may still set after the start (the Agent SDKs'
    /// `initialize`): system prompt, agents, output schema, MCP servers.
    pub late: LateSetup,
}

/// Builds a [`Session`]. Production and tests use the same path; the
/// `with_*` knobs replace one piece for tests and embedders.
pub struct SessionBuilder {
    config: SessionConfig,
    front_end: FrontEnd,
    tools: Option<ToolRegistry>,
    recorder: Option<Arc<dyn Recorder>>,
    /// `Some`: replaces the classifier the settings would give.
    classifier: Option<Option<Arc<AutoClassifier>>>,
    /// Teams' mailboxes and workers (default: files, none).
    team_backend: crate::teams::TeamBackend,
}

impl SessionBuilder {
    pub fn new(config: SessionConfig) -> Self {
        SessionBuilder {
            config,
            front_end: FrontEnd::unattended(),
            tools: None,
            recorder: None,
            classifier: None,
            team_backend: crate::teams::TeamBackend::default(),
        }
    }

    /// Teams keep their mailboxes in `backend` and may start teammates on
    /// its workers (`teams.backend: "broker"`).
    pub fn with_team_backend(mut self, backend: crate::teams::TeamBackend) -> Self {
        self.team_backend = backend;
        self
    }

    pub fn front_end(mut self, front_end: FrontEnd) -> Self {
        self.front_end = front_end;
        self
    }

    /// Replaces the session's whole tool set. Without it the session has
    /// the built-in tools, Agent, the plan tools and (interactive) the team
    /// tools.
    pub fn with_tools(mut self, tools: ToolRegistry) -> Self {
        self.tools = Some(tools);
        self
    }

    /// Records the main conversation here instead of its transcript file.
    pub fn with_recorder(mut self, recorder: Arc<dyn Recorder>) -> Self {
        self.recorder = Some(recorder);
        self
    }

    /// Replaces the auto-mode classifier (`None`: auto mode asks the user
    /// instead of a model).
    pub fn with_auto_classifier(mut self, classifier: Option<Arc<AutoClassifier>>) -> Self {
        self.classifier = Some(classifier);
        self
    }

    /// Starts the session. Needs a tokio runtime (teams start tasks).
    pub fn build(self) -> Result<Session, BuildError> {
        // Bubblewrap's probe runs while the rest of the session is built
        // (and is skipped when an earlier start of this boot remembers it).
        catui_sandbox::Layers::prewarm(self.config.config_dir.join("sandbox-probe"));
        let SessionBuilder {
            config,
            front_end,
            tools: tools_override,
            recorder: recorder_override,
            classifier: classifier_override,
            team_backend,
        } = self;
        let warn = front_end.warnings.clone();
        let cwd = config.cwd.clone();
        let config_dir = config.config_dir.clone();
        // git status/log run in the background; start-up does not wait for
        // them (the first model request does, see prompt::git). With
        // someone at the other end they start now, while the first prompt
        // is typed; a one-shot run starts them with its first request.
        let git_snapshot = if front_end.is_interactive() {
            prompt::GitSnapshot::start(&cwd)
        } else {
            prompt::GitSnapshot::deferred(&cwd)
        }
        .map(Arc::new);
        // The machine's facts likewise (versions remembered per project).
        let machine = Arc::new(prompt::MachineFacts::new(
            &cwd,
            Some(session::project_dir(&config_dir, &cwd)),
            front_end.is_interactive(),
        ));
        let project::SettingsStage {
            scope,
            settings,
            warnings: mut settings_warnings,
        } = project::settings_stage(&config, &warn)?;
        let settings_env = settings.env.clone();
        let vars = config.vars.clone();
        let env = move |name: &str| {
            settings_env.get(name).cloned().or_else(|| match &vars {
                Some(vars) => vars.get(name).cloned(),
                None => std::env::var(name).ok(),
            })
        };

        let provider::ProviderStage { resolved, catalog } =
            provider::provider_stage(&config, &settings, &env, &warn)?;

        let resume::Started {
            resumed,
            session_id,
            session_lock,
            mut notes,
        } = resume::resume_stage(&config)?;
        let max_tokens = env("CATUI_MAX_TOKENS")
            .and_then(|v| v.parse().ok())
            .unwrap_or(match resolved.config.kind {
                ProviderKind::Anthropic => 16_384,
                ProviderKind::OpenAi => 8_192,
                // Reasoning tokens count against the output limit.
                ProviderKind::OpenAiResponses => 32_768,
            });
        // Every request of the session (sub-agents, teammates, the
        // classifier, compaction) goes through this one client, so the
        // ledger sees them all.
        let ledger = Arc::new(UsageLedger::new(catalog).with_budget(config.max_budget_usd));
        let client = provider::session_client(&resolved, config.fallback_model.as_deref(), ledger)?;

        let interactive = front_end.is_interactive();
        let nobody_here = front_end.nobody_here();
        // `~` of the secret stores: the home of the environment catui was
        // given, never one a settings `env` names.
        let home = config
            .vars
            .as_ref()
            .and_then(|v| v.get("HOME").map(PathBuf::from))
            .or_else(dirs::home_dir);
        // Each session's command output apart: the model may read its own
        // session's, never an earlier one's (catui's directory is a store).
        let output_dir = config_dir.join("tool-output").join(&session_id);
        let agents_gate = crate::file_gate::FileGate::for_session(
            std::slice::from_ref(&cwd),
            &config_dir,
            project::secret_stores(
                &config,
                home.as_deref(),
                &settings.secret_paths,
                std::slice::from_ref(&cwd),
                &output_dir,
            ),
        );
        let extras = extras::load(&cwd, &config_dir, home.as_deref(), &scope, &agents_gate);
        let crate::agents::loader::LoadedAgents {
            agents: agent_defs,
            warnings: agent_warnings,
            held: held_agents,
        } = project::agents(&cwd, &config_dir, &scope, agents_gate);
        for w in &agent_warnings {
            warn(w);
        }
        let agents = crate::agents::AgentCatalog::new(agent_defs);
        agents.add(config.agents.clone());
        let output = crate::output::OutputFormat::default();
        if let Some(schema) = &config.output_schema {
            output.set_schema(schema.clone())?;
        }
        let mut tools = match tools_override {
            Some(t) => t,
            None => parts::session_tools(&agents, interactive, config.tools.as_deref()),
        };
        // Tools and texts that assume someone answers say otherwise when
        // nobody is here (or nothing asks: bypassPermissions).
        parts::fit_tools_to_audience(
            &mut tools,
            nobody_here,
            config.permission_mode == Some(PermissionMode::BypassPermissions),
        );
        let mut mcp_env: HashMap<String, String> = match &config.vars {
            Some(vars) => vars.clone(),
            None => std::env::vars().collect(),
        };
        mcp_env.extend(settings.env.clone());
        let mcp::McpSetup {
            manager: mcp,
            problems: mcp_problems,
            waiting: waiting_servers,
        } = mcp::manager(
            &config.mcp_servers,
            config.strict_mcp_config,
            &settings,
            &scope,
            &cwd,
            &config_dir,
            mcp_env,
        );
        for text in mcp_problems {
            warn(&text);
            settings_warnings.push(text);
        }
        // Once per session, by name: what of the project's own
        // configuration waits, and how to trust it.
        let mut waiting = waiting_servers;
        waiting.extend(extras.held.iter().cloned());
        let trust_notice =
            project::held_back(&cwd, &settings, &held_agents, waiting, &scope).notice(&cwd);
        if let Some(text) = &trust_notice {
            warn(text);
            settings_warnings.push(text.clone());
        }
        // Skills are offered when there are any (and `--tools` does not
        // leave the tool out).
        if !extras.skills.is_empty()
            && config
                .tools
                .as_deref()
                .is_none_or(|only| only.iter().any(|n| n == catui_protocol::tool_names::SKILL))
        {
            tools.add(crate::tools::Adapter(Arc::new(
                crate::skills::tool::SkillTool(extras.skills.clone()),
            )));
        }
        tools.add_source(Arc::new(mcp.clone()));
        let mut tool_ctx = ToolContext::new(cwd.clone());
        tool_ctx.env = Arc::new(settings.child_env());
        tool_ctx.values.insert(ToolOutputDir(output_dir.clone()));
        // What Read may show the model besides text (images, PDFs).
        tool_ctx.values.insert(crate::tools::media::ModelInputs {
            images: !client.model_info(&resolved.model).text_only,
            documents: resolved.config.kind == ProviderKind::Anthropic,
        });
        let background = Arc::new(crate::tools::bash::BackgroundShells::new(
            output_dir.clone(),
        ));

        let mut permissions = PermissionContext::new(cwd.clone());
        settings.apply_to(&mut permissions);
        let mut kept_dirs = vec![cwd.clone()];
        for dir in &config.add_dirs {
            let dir = std::fs::canonicalize(dir).map_err(|source| BuildError::AddDir {
                path: dir.clone(),
                source,
            })?;
            kept_dirs.push(dir.clone());
            if !permissions.working_dirs.contains(&dir) {
                permissions.working_dirs.push(dir);
            }
        }
        // The user's secret stores (the list, the environment's, catui's
        // own directory, `secretPaths`).
        permissions.secrets = project::secret_stores(
            &config,
            home.as_deref(),
            &settings.secret_paths,
            &permissions.working_dirs,
            &output_dir,
        );
        // Settings files that change later take effect in this session.
        let settings_reload = Arc::new(crate::settings::reload::SettingsReload::new(
            &config_dir,
            &cwd,
            config.settings_file.as_deref(),
            scope,
            settings.clone(),
            kept_dirs,
        ));
        for (behavior, list) in [
            (RuleBehavior::Allow, &config.allowed_tools),
            (RuleBehavior::Deny, &config.disallowed_tools),
        ] {
            for item in list {
                if let Some(e) = permissions
                    .rules
                    .add_cli_list(behavior, item, &cwd)
                    .into_iter()
                    .next()
                {
                    return Err(BuildError::PermissionRule(e.to_string()));
                }
            }
        }
        permissions.interactive = interactive;
        // Enter the starting mode through the one transition function so that
        // prePlanMode is recorded however plan mode is entered. A resumed session
        // comes back in its own mode unless the configuration says otherwise.
        let modes = match (&resumed, config.permission_mode) {
            (Some(r), None) => resume::modes(r),
            (_, Some(m)) => vec![m],
            (None, None) => vec![settings.permissions.default_mode.unwrap_or_default()],
        };
        for m in &modes {
            crate::permissions::transition_permission_mode(&mut permissions, *m)
                .map_err(|source| BuildError::StartingMode { mode: *m, source })?;
        }

        let plan_files = PlanFiles::from_settings(
            &cwd,
            settings.plans_directory.as_deref(),
            &config_dir,
            session_id.clone(),
        );
        let resume_point = match (&resumed, config.resume.at.as_deref()) {
            (Some(r), Some(at)) => Some(late::resume_point(r, at).map_err(BuildError::Resume)?),
            (None, Some(_)) => {
                return Err(BuildError::Resume(
                    "--resume-session-at needs --resume or --continue".into(),
                ));
            }
            _ => None,
        };
        let resumed = match resumed {
            Some(r) => Some(
                resume::restore_plan(
                    r,
                    config.resume.fork,
                    &config_dir,
                    &cwd,
                    &plan_files,
                    &session_id,
                    &mut notes,
                )
                .map_err(BuildError::Resume)?,
            ),
            None => None,
        };
        for note in &notes {
            warn(note);
        }
        if let Some(r) = &resumed {
            resume::restore_tool_state(r, &tool_ctx);
        }
        let plan_config = PlanModeConfig::resolve(
            &env,
            settings.plan_agents.map(u64::from),
            Some(settings.plan_variant.as_str()),
        )
        .with_nobody_to_ask(nobody_here);
        let editor = env("VISUAL").or_else(|| env("EDITOR"));
        let plan_model = config
            .plan_model
            .clone()
            .or_else(|| settings.plan_model.clone())
            .filter(|m| !m.trim().is_empty());
        // Unattended, planning (from the start or after `/plan`) ends the run
        // with the plan for a later review: nobody is there to approve it.
        let team_tool = interactive && tools.names().iter().any(|n| n == tool_names::TEAM_CREATE);
        let plan = Arc::new(
            PlanSession::new(plan_files, plan_config, editor)
                .with_exporter(parts::plan_exporter(
                    session::project_dir(&config_dir, &cwd),
                    cwd.clone(),
                ))
                .ending_runs_at_plan(!interactive)
                .with_team_tool(team_tool)
                .with_plan_model(plan_model.clone())
                .with_snapshots(session::snapshot_plans_enabled(
                    settings.snapshot_plans,
                    &env,
                )),
        );
        if let Some(r) = &resumed {
            resume::restore_approved_plan(r, &plan);
        }
        plan.library.set_names(settings.plan_names);
        plan.library
            .set_dispatcher(parts::plan_dispatcher(cwd.clone()));
        // A plan dispatched to a worktree is looked up in the project it
        // was approved in (`catui plans dispatch`).
        let library_project = env(crate::plan::pick_up::PLAN_ORIGIN_VAR)
            .map(PathBuf::from)
            .unwrap_or_else(|| cwd.clone());
        plan.library.set_lookup(parts::plan_library_lookup(
            session::project_dir(&config_dir, &library_project),
            plan.files.dir().to_path_buf(),
        ));
        let confiner = parts::sandbox_stage(
            &config,
            &settings,
            home,
            &session_id,
            &mut permissions,
            &mut tool_ctx,
        );

        let hooks = crate::hooks::HookEngine::for_session(
            settings.hooks.clone(),
            &cwd,
            &session::session_path(&config_dir, &cwd, &session_id),
            &session_id,
        )
        .with_environment(settings.child_env());
        let info = SessionInfo {
            session_id: session_id.clone(),
            cwd: cwd.display().to_string(),
            model: resolved.model.clone(),
            tools: tools.names(),
            sandbox: confiner.report(settings.dry_run.enabled()),
            auto_mode_enabled: settings.auto_mode.enabled,
            settings_warnings: settings_warnings.clone(),
            trust_notice,
            skills: extras.skills.names(),
            commands: extras.commands.entries(),
        };
        let (events_tx, events) = unbounded_channel();
        // Every front end shows what is wrong with the settings (the TUI as
        // a line, stream-json as a notification), not only stderr.
        for text in settings_warnings {
            let _ = events_tx.send(EngineEvent::Notification {
                key: "settings".into(),
                text,
            });
        }
        let parts::PromptStage {
            options: prompt_opts,
            memory,
            choice: prompt_choice,
            system_prompt,
        } = parts::prompt_stage(
            &config,
            PromptOptions {
                config_dir: config_dir.clone(),
                nobody_here,
                ..PromptOptions::detect(cwd.clone(), tools.names(), resolved.model.clone())
            },
            &permissions,
            &extras,
            &events_tx,
            &warn,
        );

        let transcript = match recorder_override {
            Some(r) => parts::MainRecorder::Given(r),
            None if !config.persist_session => parts::MainRecorder::None,
            None => {
                let notify_tx = events_tx.clone();
                let notifier: session::Notifier = Arc::new(move |key: &str, text: &str| {
                    let _ = notify_tx.send(EngineEvent::Notification {
                        key: key.to_string(),
                        text: text.to_string(),
                    });
                });
                parts::open_transcript(
                    &config_dir,
                    &cwd,
                    &session_id,
                    session_lock,
                    notifier,
                    &warn,
                )
            }
        };
        if let parts::MainRecorder::File(r) = &transcript {
            r.set_slug(Some(plan.files.slug()));
            // `/plan use SLUG` switches the session to another plan file.
            let r = r.clone();
            plan.library.set_slug_changed(Arc::new(move |slug: &str| {
                r.set_slug(Some(slug.to_string()))
            }));
        }
        // With CATUI_REMOTE=1 or `snapshotPlans`, plan writes are also kept
        // in the transcript.
        let snapshot_plans = session::snapshot_plans_enabled(settings.snapshot_plans, &env);
        let recorders = parts::sidechain_recorders(
            transcript.path(),
            session_id.clone(),
            cwd.clone(),
            warn.clone(),
        );
        let transcript_path = transcript.path();
        let recorder: Arc<dyn Recorder> = match transcript {
            parts::MainRecorder::File(r) if snapshot_plans => {
                Arc::new(PlanSnapshotRecorder::new(r, plan.files.clone()))
            }
            parts::MainRecorder::File(r) => r,
            parts::MainRecorder::Given(r) => r,
            parts::MainRecorder::None => Arc::new(crate::engine::MemoryRecorder::default()),
        };
        // The classifier judges calls only while auto mode is active, which
        // needs the settings' opt-in (at start or after a settings change).
        let auto_classifier = classifier_override.unwrap_or_else(|| {
            let mut config = ClassifierConfig::new(resolved.small_model.clone());
            if let Some(timeout) = settings.auto_mode_classifier_timeout {
                config.timeout = timeout;
            }
            Some(Arc::new(AutoClassifier::new(client.clone(), config)))
        });
        let approver: Arc<dyn Approver> = match &front_end.approver {
            Some(a) => a.clone(),
            None => Arc::new(NobodyToAsk),
        };
        let services = Arc::new(SessionServices {
            session_id: session_id.clone(),
            client,
            tools,
            approver,
            events: events_tx,
            recorders,
            auto_classifier,
            compactor: Some(Arc::new(session::SummaryCompactor)),
            hooks: Arc::new(hooks),
            models: Models {
                main: resolved.model.clone(),
                small: resolved.small_model.clone(),
                plan: plan_model,
            },
            limits: Limits {
                max_tokens,
                max_turns: config.max_turns,
                sub_agent_max_turns: Limits::default().sub_agent_max_turns,
                max_parallel_agents: settings.max_parallel_agents.unwrap_or(8) as usize,
                auto_compact_threshold: crate::engine::context_window::auto_compact_threshold(
                    settings.auto_compact_threshold,
                ),
                max_continuations: settings
                    .goal_max_continuations
                    .unwrap_or(crate::engine::turn_end::DEFAULT_MAX_CONTINUATIONS),
            },
        });

        let agent_prompt_opts = prompt_opts.clone();
        let agent_memory = memory.clone();
        let agent_skills = extras.skills.clone();
        let runner = crate::agents::SubAgentRunner::new(
            services.clone(),
            agents.clone(),
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
        let team = interactive.then(|| {
            TeamManager::new(TeamSetup {
                services: services.clone(),
                system_prompt: system_prompt.clone(),
                config_dir: config_dir.clone(),
                plans_dir: plan.files.dir().to_path_buf(),
                plan_config,
                teammate_attachments: git_snapshot
                    .clone()
                    .map(prompt::GitStatusAttachments::factory),
                backend: team_backend.clone(),
            })
        });
        if let Some(team) = &team {
            tool_ctx.values.insert(team.lead_handle());
            if let Some(reviewer) = &front_end.plan_reviewer {
                team.set_reviewer(reviewer.clone());
            }
        }
        let checkpoints_on = config.checkpoints.unwrap_or_else(|| {
            crate::checkpoints::enabled(
                env(crate::checkpoints::SDK_CHECKPOINTING_ENV).as_deref(),
                settings.file_checkpointing_enabled,
                config.checkpoints_default,
            )
        });
        // A decision on the plan recorded after the session ended is carried
        // out first (a fork leaves it to the session it belongs to); read
        // before the checkpoints take the resumed entries.
        let recorded = resumed
            .as_ref()
            .filter(|_| !config.resume.fork)
            .and_then(|r| session::plan_review::pending_answer(&r.entries));
        let mut resumed = resumed;
        // The conversation to continue, read before the checkpoints take
        // the resumed entries (`--resume-session-at` needs them).
        let resumed_conversation = resumed
            .as_ref()
            .map(|r| late::resumed_messages(r, resume_point))
            .transpose()
            .map_err(BuildError::Resume)?;
        // The goal a resumed session had, read before the checkpoints take
        // the resumed entries.
        let restored_goal = resumed
            .as_ref()
            .and_then(|r| crate::contract::goal::restored(&r.entries));
        // Always there: with checkpoints off it still compares the work
        // after a plan approval with the plan (nothing is taken before).
        let checkpoints = Some(parts::checkpoints(crate::checkpoints::CheckpointSetup {
            session_id: session_id.clone(),
            config_dir: config_dir.clone(),
            project: cwd.clone(),
            recorder: recorder.clone(),
            transcript: transcript_path,
            entries: resumed
                .as_mut()
                .map(|r| std::mem::take(&mut r.entries))
                .unwrap_or_default(),
            plan: plan.clone(),
            events: services.events.clone(),
            limits: Default::default(),
            rewind: checkpoints_on,
        }));
        let background_agents = Arc::new(crate::agents::BackgroundAgents::new(
            output_dir,
            services.events.clone(),
        ));
        let mut extensions: Vec<Arc<dyn crate::engine::EngineExtension>> = vec![
            plan.extension(),
            Arc::new(TeamCommand(team.as_ref().map(|t| t.lead_handle()))),
            Arc::new(crate::mcp::slash_commands::McpCommands(mcp.clone())),
            settings_reload,
            Arc::new(crate::engine::background::BackgroundCommands(
                background.clone(),
            )),
            Arc::new(crate::agents::BackgroundAgentsExtension(
                background_agents.clone(),
            )),
            output.extension(),
            Arc::new(crate::skills::command::SkillsCommand(extras.skills.clone())),
            Arc::new(crate::custom_commands::CustomCommands(
                extras.commands.clone(),
            )),
        ];
        if let Some(c) = &checkpoints {
            extensions.push(Arc::new(crate::checkpoints::CheckpointExtension(c.clone())));
        }
        extensions.push(Arc::new(parts::completion_gate(
            &settings,
            env(crate::completion::CHECK_ENV),
            config.plan_effort,
            nobody_here,
            &warn,
        )));
        let contract = contract::contract(contract::ContractInputs {
            plan: &plan,
            checkpoints: checkpoints.clone(),
            recorder: recorder.clone(),
            events: services.events.clone(),
            project: cwd.clone(),
            settings: &settings,
            nobody_here,
            goal: config.goal.clone(),
            restored_goal,
        });
        extensions.push(contract.extension.clone());
        // Only the main conversation may give the run's structured output
        // and amend the approved plan.
        let mut main_tools = services.tools.clone();
        main_tools.add_source(output.tool_source());
        main_tools.add_source(contract.amend_tools.clone());
        let mut engine = services.conversation(Conversation {
            max_turns: config.max_turns,
            recorder: Some(recorder),
            tools: Some(main_tools),
            extensions,
            ..Conversation::new(system_prompt, permissions, tool_ctx)
        });
        if let Some(c) = &checkpoints {
            c.set_engine(engine.control());
        }
        if let Some(snapshot) = git_snapshot {
            engine.add_attachment_provider(Arc::new(prompt::GitStatusAttachments::new(snapshot)));
        }
        engine.add_attachment_provider(Arc::new(prompt::MachineAttachments::new(machine)));
        if let Some((r, (messages, at))) = resumed.zip(resumed_conversation) {
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
        if let Some(recorded) = recorded {
            resume::carry_out_recorded(&mut engine, &plan, recorded);
        }
        if let Some(slug) = &config.pick_up_plan {
            let picked = crate::plan::pick_up::use_plan(engine.session_hooks(), &plan, slug);
            if picked.is_error {
                return Err(BuildError::PickUpPlan(picked.text));
            }
            // The changed plan's request to present it waits for the first
            // input, read before it.
            if let Some(prompt) = picked.prompt {
                plan.tell_model_next(prompt);
            }
            engine.session_hooks().notify("plan-library", &picked.text);
        }
        mcp.set_events(&services.events);
        mcp.start();
        let late = LateSetup::new(late::Parts {
            prompt: prompt_choice,
            prompt_options: prompt_opts,
            memory,
            control: engine.control().downgrade(),
            agents,
            output,
            mcp: mcp.clone(),
        });
        Ok(Session {
            engine,
            events,
            info,
            team,
            services,
            mcp,
            plan,
            checkpoints,
            background,
            background_agents,
            late,
        })
    }
}
