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

mod base;
mod contract;
mod conversation;
mod extras;
mod front_end;
mod late;
mod mcp;
mod parts;
mod permissions;
mod plan;
mod project;
pub mod provider;
pub(crate) mod resume;
mod services;
mod tools;

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;

use catui_protocol::{PermissionMode, Reasoning};
use tokio::sync::mpsc::{UnboundedReceiver, unbounded_channel};

use crate::engine::{Engine, EngineEvent, Recorder, SessionServices};
use crate::permissions::auto::AutoClassifier;
use crate::plan::PlanSession;
use crate::settings::SettingsWarning;
use crate::teams::TeamManager;
use crate::tools::ToolRegistry;

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
    /// `--session-id` is not a UUID, or is given with a resume.
    #[error("{0}")]
    SessionId(#[from] resume::SessionIdError),
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
    /// The status line command (setting `statusLine`), with the session's
    /// working directory and child environment.
    pub status_line: Option<crate::status_line::StatusLineCommand>,
}

impl SessionInfo {
    fn new(
        b: &base::Base,
        tools: &tools::ToolsStage,
        confiner: &crate::permissions::sandbox::SessionSandbox,
        settings_warnings: Vec<String>,
    ) -> Self {
        SessionInfo {
            session_id: b.session_id.clone(),
            cwd: b.cwd().display().to_string(),
            model: b.resolved.model.clone(),
            tools: tools.tools.names(),
            sandbox: confiner.report(b.settings.dry_run.enabled()),
            auto_mode_enabled: b.settings.auto_mode.enabled,
            settings_warnings,
            trust_notice: tools.trust_notice.clone(),
            skills: tools.extras.skills.names(),
            commands: tools.extras.commands.entries(),
            status_line: b.settings.status_line.as_ref().map(|command| {
                crate::status_line::StatusLineCommand::new(command, b.cwd(), b.settings.child_env())
            }),
        }
    }
}

/// Every front end shows what is wrong with the settings (the TUI as a
/// line, stream-json as a notification), not only stderr.
fn announce_settings_warnings(
    events: &tokio::sync::mpsc::UnboundedSender<EngineEvent>,
    warnings: Vec<String>,
) {
    for text in warnings {
        let _ = events.send(EngineEvent::Notification {
            key: "settings".into(),
            text,
        });
    }
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
    ///
    /// Each stage is a function of its own that returns what later stages
    /// need; their order is the order things happen in (warnings are said
    /// in this order, and the resumed session's entries are read before
    /// the checkpoints take them).
    pub fn build(self) -> Result<Session, BuildError> {
        // Bubblewrap's probe runs while the rest of the session is built
        // (and is skipped when an earlier start of this boot remembers it).
        catui_sandbox::Layers::prewarm(self.config.config_dir.join("sandbox-probe"));
        let SessionBuilder {
            config,
            front_end,
            tools,
            recorder,
            classifier,
            team_backend,
        } = self;
        let facts = project::background_facts(&config, front_end.is_interactive());
        let project::SettingsStage {
            scope,
            settings,
            mut warnings,
        } = project::settings_stage(&config, &front_end.warnings)?;
        let env = base::session_env(&config, &settings);
        let provider::ProviderStage { resolved, catalog } =
            provider::provider_stage(&config, &settings, &env, &front_end.warnings)?;
        let started = resume::resume_stage(&config)?;
        let (client, max_tokens) = provider::client_stage(&config, &resolved, catalog, &env)?;
        let b = base::Base::new(
            config,
            &front_end,
            settings,
            env,
            resolved,
            started.session_id,
        );
        let tools = tools::tools_stage(&b, &scope, tools, &mut warnings)?;
        let (mut tool_ctx, background) = tools::tool_context(&b, &client);
        let (mut permissions, settings_reload) =
            permissions::permissions_stage(&b, scope, started.resumed.as_ref())?;
        let mut plan =
            plan::plan_stage(&b, started.resumed, started.notes, &tool_ctx, &tools.tools)?;
        let confiner = parts::sandbox_stage(&b, &mut permissions, &mut tool_ctx);
        let info = SessionInfo::new(&b, &tools, &confiner, warnings.clone());
        let (events_tx, events) = unbounded_channel();
        announce_settings_warnings(&events_tx, warnings);
        let prompt = parts::prompt_stage(&b, &tools, &permissions, &events_tx);
        let recorders =
            services::recorder_stage(&b, recorder, started.session_lock, &plan.plan, &events_tx);
        let services = services::services_stage(
            &b,
            services::ServiceParts {
                client,
                tools: tools.tools.clone(),
                approver: front_end.approver.clone(),
                events: events_tx,
                sidechains: recorders.sidechains.clone(),
                classifier,
                plan_model: plan.model.clone(),
                max_tokens,
            },
        );
        let (team, background_agents) = services::agents_and_teams(
            &b,
            &services,
            &tools,
            &prompt,
            &plan,
            &front_end,
            facts.git.clone(),
            team_backend,
            &mut tool_ctx,
        );
        let (checkpoints, continued) =
            conversation::checkpoint_stage(&b, &mut plan, &recorders, &services.events)?;
        let engine = conversation::main_conversation(
            &b,
            conversation::ConversationParts {
                services: services.clone(),
                system_prompt: prompt.system_prompt.clone(),
                permissions,
                tool_ctx,
                recorder: recorders.recorder,
                tools: &tools,
                plan: &plan,
                team: team.as_ref(),
                settings_reload,
                background: &background,
                background_agents: &background_agents,
                checkpoints: &checkpoints,
                git_snapshot: facts.git,
                machine: facts.machine,
            },
            continued,
        )?;
        tools.mcp.set_events(&services.events);
        tools.mcp.start();
        let late = LateSetup::new(late::Parts {
            prompt: prompt.choice,
            prompt_options: prompt.options,
            memory: prompt.memory,
            control: engine.control().downgrade(),
            agents: tools.agents,
            output: tools.output,
            mcp: tools.mcp.clone(),
        });
        Ok(Session {
            engine,
            events,
            info,
            team,
            services,
            mcp: tools.mcp,
            plan: plan.plan,
            checkpoints: Some(checkpoints),
            background,
            background_agents,
            late,
        })
    }
}
