//! The conversation engine: one loop per conversation that sends
//! the messages and tools to the model, streams the answer, runs the tool
//! calls through the permission layer, appends the results and repeats until
//! the model ends its turn or the turn limit is reached.
//!
//! Front ends drive it with [`Engine::handle_input`] and observe it through
//! [`EngineEvent`]s; controls that arrive while a turn runs (interrupt, mode
//! changes) go through the cloneable [`EngineControl`].

pub mod approver;
mod arrivals;
pub mod attachments;
pub mod background;
mod clear;
mod compaction;
pub mod context_window;
mod declined;
pub mod events;
pub mod extension;
pub mod fit;
mod hook_points;
mod input;
mod loop_guard;
mod media_input;
mod mentions;
mod outcome;
mod progress;
mod record;
mod request;
mod request_loop;
pub mod services;
mod shared;
pub mod slash_commands;
mod tool_runner;
pub mod turn_end;
mod user_shell;

use request::new_message_uuid;

use crate::sync::lock;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use catui_protocol::{ContentBlock, Message, PermissionMode, Role, Usage};
use catui_providers::ModelClient;
use tokio::sync::mpsc::UnboundedSender;
use tokio_util::sync::CancellationToken;

pub use approver::{Approver, NobodyToAsk, PermissionAnswer, PermissionRequest};
pub use attachments::{AttachmentContext, AttachmentFactory, AttachmentProvider};
pub use declined::{declined_by_user, declined_view};
pub use events::{
    CommandView, EngineEvent, PROBLEM_KEYS, ResponseInfo, SessionCost, TurnOutcome, is_problem,
};
pub use extension::{
    AttachContext, Compaction, Compactor, EngineExtension, Extensions, InputView, KeptDocument,
    Notice, Refresh, RunEnd, ToolCallView, ToolGate, ToolRunView, TurnEnd,
};
pub use input::UserInput;
pub use record::{CONVERSATION_CLEARED, MemoryRecorder, Record, Recorder};
pub use services::{Conversation, Limits, Models, RecorderFactory, SessionServices};
pub use shared::{ContextUsage, EngineControl, WeakEngineControl};
use shared::{Shared, set_mode};
pub use turn_end::{CheckResult, CheckVerdict, GoalEnd, LoopEndReason, TurnEndCheck, TurnEndView};

use crate::permissions::PermissionContext;
use crate::permissions::sandbox::{SandboxNetwork, SandboxPolicy};
use crate::tools::{ToolContext, ToolRegistry};

/// Fixed settings of one conversation.
#[derive(Debug, Clone)]
pub struct EngineConfig {
    pub session_id: String,
    pub model: String,
    /// The fast model (Explore agents, the auto-mode classifier).
    pub small_model: String,
    pub system_prompt: String,
    /// Model requests allowed per user input; `None` = unlimited.
    pub max_turns: Option<u32>,
    pub max_tokens: u32,
    /// The share of the context window at which the conversation is
    /// compacted before the next request (setting `autoCompactThreshold`).
    pub auto_compact_threshold: f64,
    /// Continuations per input the continuation loop may make
    /// (`goalMaxContinuations`).
    pub max_continuations: u32,
    /// Set for sub-agents.
    pub agent_id: Option<String>,
    /// The Agent tool_use that started this conversation (sub-agents).
    pub parent_tool_use_id: Option<String>,
}

/// The collaborators an engine is built from (gathered by
/// [`SessionServices::conversation`]).
struct EngineParts {
    client: Arc<dyn ModelClient>,
    tools: ToolRegistry,
    permissions: PermissionContext,
    tool_ctx: ToolContext,
    approver: Arc<dyn Approver>,
    recorder: Arc<dyn Recorder>,
    events: UnboundedSender<EngineEvent>,
    extensions: Vec<Arc<dyn EngineExtension>>,
    compactor: Option<Arc<dyn Compactor>>,
    hooks: Arc<crate::hooks::HookEngine>,
}

/// One conversation.
pub struct Engine {
    config: EngineConfig,
    client: Arc<dyn ModelClient>,
    tools: ToolRegistry,
    messages: Vec<Message>,
    shared: Arc<Shared>,
    tool_ctx: ToolContext,
    approver: Arc<dyn Approver>,
    attachment_providers: Vec<Arc<dyn AttachmentProvider>>,
    total_usage: Usage,
    /// Prompt size of the last request, for automatic compaction.
    last_prompt_tokens: u64,
    /// How many messages that prompt had (the rest are estimated).
    messages_at_last_prompt: usize,
    /// The ledger's model time when the current input started.
    api_time_at_input: Duration,
    /// Judges calls in auto mode; `None`: auto mode falls back to asking.
    auto_classifier: Option<Arc<crate::permissions::auto::AutoClassifier>>,
    /// `/compact` and automatic compaction; `None`: not available.
    compactor: Option<Arc<dyn Compactor>>,
    /// Settings command hooks (the client's run through `approver`).
    hooks: Arc<crate::hooks::HookEngine>,
    /// `SessionStart` hooks ran.
    session_started: bool,
    /// The id of the input being handled: its user message is recorded
    /// under it.
    input_uuid: Option<String>,
    /// Notices the same call or error repeating (loop reflection).
    loop_guard: loop_guard::LoopGuard,
    /// The participants of the continuation loop (see [`turn_end`]).
    turn_end_checks: Vec<Arc<dyn TurnEndCheck>>,
    /// The step of the work last reported ([`EngineEvent::WorkStep`]).
    step_shown: Option<catui_protocol::contract::WorkStep>,
    /// What the user's own `!` commands printed since the last input: it
    /// opens the next input's message (see [`user_shell`]).
    pending_user_context: Vec<ContentBlock>,
}

impl Engine {
    /// Only [`SessionServices::conversation`] builds engines.
    fn new(config: EngineConfig, parts: EngineParts) -> Self {
        let EngineParts {
            client,
            tools,
            mut permissions,
            mut tool_ctx,
            approver,
            recorder,
            events,
            extensions,
            compactor,
            hooks,
        } = parts;
        let agent_id = config.agent_id.clone();
        let mut attachment_providers: Vec<Arc<dyn AttachmentProvider>> = Vec::new();
        let turn_end_checks = match &config.agent_id {
            // Sub-agents have no continuation loop.
            Some(_) => Vec::new(),
            None => extensions
                .iter()
                .flat_map(|e| e.turn_end_checks())
                .collect(),
        };
        let tool_names = tools.names();
        for extension in &extensions {
            extension.attach(&mut AttachContext {
                agent_id: agent_id.as_deref(),
                permissions: &mut permissions,
                tool_ctx: &mut tool_ctx,
                tools: &tool_names,
            });
            attachment_providers.extend(extension.attachment_provider());
        }
        // Sub-agents started from this conversation inherit its extensions.
        tool_ctx.values.insert(Extensions(extensions.clone()));
        // Where commands confined to reading may write (plan mode, and
        // every command allowed only because it was judged read-only).
        // Each conversation's own directory in the session's, both created
        // private (0700) when first used and removed when catui exits.
        let temp_root = std::env::temp_dir().join(format!("catui-{}", config.session_id));
        crate::tools::bash::groups::remove_at_end(temp_root.clone());
        let temp_name = match &agent_id {
            Some(a) => format!("readonly-{a}"),
            None => "readonly".to_string(),
        };
        let plan_sandbox = SandboxPolicy::ReadOnlyExceptTemp {
            temp_dir: temp_root.join(temp_name),
        };
        tool_ctx.read_only_sandbox = plan_sandbox.clone();
        let default_sandbox = tool_ctx.sandbox_policy();
        if agent_id.is_none() {
            // Said once per session, by the main conversation.
            let wants_proxy = matches!(
                tool_ctx.confiner.approved_policy(),
                SandboxPolicy::WorkingDirs {
                    network: SandboxNetwork::AllowedDomains(ref domains),
                    ..
                } if !domains.is_empty()
            );
            if let Some(text) = tool_ctx.confiner.layers().notice(wants_proxy) {
                let _ = events.send(EngineEvent::Notification {
                    key: "read-only-confinement".into(),
                    text,
                });
            }
        }
        if permissions.mode == PermissionMode::Plan {
            tool_ctx.set_sandbox_policy(plan_sandbox.clone());
        }
        let shared = Arc::new(Shared {
            permissions: Mutex::new(permissions),
            events,
            recorder,
            cancel: Mutex::new(CancellationToken::new()),
            extensions,
            sandbox: tool_ctx.sandbox.clone(),
            default_sandbox,
            plan_sandbox,
            dry_run: agent_id.is_none().then(|| tool_ctx.dry_run.clone()),
            run_end: Mutex::new(None),
            fresh_start: Mutex::new(None),
            requested_model: Mutex::new(None),
            model: Mutex::new(config.model.clone()),
            replaced_conversation: Mutex::new(None),
            requested_system_prompt: Mutex::new(None),
            usage_view: Mutex::new(shared::ContextUsage {
                model: config.model.clone(),
                tokens: 0,
                window: context_window::context_window(&config.model),
            }),
            skip_wait: tokio::sync::Notify::new(),
            work: Mutex::new(turn_end::WorkSeen::default()),
        });
        tool_ctx.session = Some(crate::tools::SessionHandle(shared.clone()));
        Self {
            config,
            client,
            tools,
            messages: Vec::new(),
            shared,
            tool_ctx,
            approver,
            attachment_providers,
            total_usage: Usage::default(),
            last_prompt_tokens: 0,
            messages_at_last_prompt: 0,
            api_time_at_input: Duration::ZERO,
            auto_classifier: None,
            compactor,
            hooks,
            session_started: false,
            input_uuid: None,
            loop_guard: loop_guard::LoopGuard::default(),
            turn_end_checks,
            step_shown: None,
            pending_user_context: Vec::new(),
        }
    }

    /// Gives the engine the auto-mode classifier.
    fn with_auto_classifier(
        mut self,
        classifier: Arc<crate::permissions::auto::AutoClassifier>,
    ) -> Self {
        self.auto_classifier = Some(classifier);
        self
    }

    pub fn control(&self) -> EngineControl {
        EngineControl {
            shared: self.shared.clone(),
        }
    }

    pub fn add_attachment_provider(&mut self, provider: Arc<dyn AttachmentProvider>) {
        self.attachment_providers.push(provider);
    }

    pub fn messages(&self) -> &[Message] {
        &self.messages
    }

    /// Replaces the conversation (resume).
    pub fn set_messages(&mut self, messages: Vec<Message>) {
        self.messages = messages;
    }

    pub fn config(&self) -> &EngineConfig {
        &self.config
    }

    pub fn tools(&self) -> &ToolRegistry {
        &self.tools
    }

    /// Tokens used by this conversation's model requests, counting those
    /// of the session it resumed.
    pub fn total_usage(&self) -> Usage {
        self.total_usage
    }

    /// Counts the tokens a resumed session had already used.
    pub fn add_past_usage(&mut self, usage: &Usage) {
        self.total_usage.add(usage);
    }

    pub fn permission_mode(&self) -> PermissionMode {
        self.shared.permissions().mode
    }

    /// The model of the next request: the conversation's own, unless an
    /// extension picks another for the current mode (plan mode's planning
    /// model).
    pub fn request_model(&self) -> String {
        let mode = self.permission_mode();
        let agent = self.config.agent_id.as_deref();
        self.shared
            .extensions
            .iter()
            .find_map(|e| e.request_model(agent, mode))
            .unwrap_or_else(|| self.config.model.clone())
    }

    pub fn plan_file(&self) -> Option<String> {
        self.shared
            .permissions()
            .plan_file
            .as_ref()
            .map(|p| p.display().to_string())
    }

    /// Changes the permission mode through the one transition function;
    /// refused (and nothing changes) when the mode's gate is closed.
    pub fn set_permission_mode(
        &self,
        mode: PermissionMode,
    ) -> Result<(), crate::permissions::ModeError> {
        set_mode(&self.shared, mode)
    }

    /// Brings the main conversation's permission state up to date (see
    /// [`EngineExtension::refresh`]); sub-agents and teammates keep theirs.
    fn refresh(&self) {
        if self.config.agent_id.is_none() {
            shared::refresh(&self.shared);
        }
    }

    /// Ends the session: runs `SessionEnd` hooks (`reason`: `clear`,
    /// `logout`, `prompt_input_exit`, `other`).
    pub async fn end_session(&self, reason: &str) {
        hook_points::session_end(self, reason).await;
    }

    /// The engine's session hooks (what tools and commands may ask of it).
    pub fn session_hooks(&self) -> &dyn crate::tools::SessionHooks {
        self.shared.as_ref()
    }

    /// Keeps `record` in the conversation's transcript.
    pub fn record(&self, record: Record) {
        self.shared.recorder.record(record);
    }

    /// Runs one prompt as a sub-agent conversation: no slash commands, no
    /// `Result` event (the parent's Agent tool reports), cancelled with the
    /// parent's turn through `cancel`.
    pub async fn run_prompt(&mut self, prompt: String, cancel: CancellationToken) -> TurnOutcome {
        self.api_time_at_input = self.api_time();
        self.install_turn_token(cancel.clone());
        self.run_turn(vec![ContentBlock::text(prompt)], Instant::now())
            .await
    }

    fn install_turn_token(&self, token: CancellationToken) {
        *lock(&self.shared.cancel) = token;
    }

    fn new_turn_token(&self) -> CancellationToken {
        let token = CancellationToken::new();
        *lock(&self.shared.cancel) = token.clone();
        token
    }

    /// The conversation's tool context (what a worker's hosted teammates
    /// inherit: directories, environment, rules, sandbox).
    pub fn tool_context(&self) -> &ToolContext {
        &self.tool_ctx
    }

    /// Lets `act` change the conversation as a tool call would (through its
    /// tool context: mode, todos, transcript) while no turn runs — a
    /// decision the user made while no conversation was asking, carried
    /// out as the session resumes. With no run going on, a request to end
    /// one is dropped; a fresh start it asks for starts now. Returns
    /// whether it did (the conversation was replaced).
    pub(crate) fn act_between_turns(&mut self, act: impl FnOnce(&ToolContext)) -> bool {
        act(&self.tool_ctx);
        let _ = self.shared.take_run_end();
        self.start_fresh_if_asked()
    }

    /// The model loop for one human input.
    async fn run_turn(&mut self, content: Vec<ContentBlock>, started: Instant) -> TurnOutcome {
        let cancel = lock(&self.shared.cancel).clone();
        let mut content = content;
        // The user's `!` commands since the last input come first, in the
        // order they ran.
        content.splice(0..0, std::mem::take(&mut self.pending_user_context));
        if self.config.agent_id.is_none() {
            let preambles: Vec<ContentBlock> = self
                .shared
                .extensions
                .iter()
                .filter_map(|e| e.input_preamble())
                .map(ContentBlock::text)
                .collect();
            content.splice(0..0, preambles);
        }
        let user = Message {
            role: Role::User,
            content,
        };
        let record = Record::User {
            message: user.clone(),
            is_meta: false,
        };
        match self.input_uuid.take() {
            Some(uuid) => self.shared.recorder.record_with_uuid(&uuid, record),
            None => {
                self.shared.recorder.record(record);
            }
        }
        self.messages.push(user);

        let mut looping = turn_end::ContinuationLoop::default();
        self.start_work();
        let outcome = self.run_requests(&mut looping, &cancel, started).await;
        self.finish_loop(&mut looping, outcome)
    }
}
