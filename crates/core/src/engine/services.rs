//! The services one session shares between all its conversations — the
//! main one, its sub-agents and its teammates — and the one place where an
//! [`Engine`] is made from them ([`SessionServices::conversation`]).
//!
//! A session is assembled once (see `crate::builder`); everything it starts
//! later asks these services for a new conversation instead of gathering
//! the pieces again, so a sub-agent and a teammate get the same client,
//! approver, event stream, classifier and limits as the main conversation.

use std::sync::Arc;

use catui_providers::ModelClient;
use tokio::sync::mpsc::UnboundedSender;

use super::{
    Approver, Compactor, Engine, EngineConfig, EngineEvent, EngineExtension, MemoryRecorder,
    Recorder,
};
use crate::permissions::PermissionContext;
use crate::permissions::auto::AutoClassifier;
use crate::tools::{ToolContext, ToolRegistry};

/// Gives each sub-agent or teammate (by agent id) somewhere to record its
/// conversation.
pub type RecorderFactory = Arc<dyn Fn(&str) -> Arc<dyn Recorder> + Send + Sync>;

/// The session's two models.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Models {
    /// The model the user talks to (and sub-agents that inherit it).
    pub main: String,
    /// The fast model (Explore agents, the auto-mode classifier).
    pub small: String,
    /// The planning model (`planModel`, `--plan-model`): requests in plan
    /// mode and the Plan agent's; `None`: the main model.
    pub plan: Option<String>,
}

/// How far conversations may go.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Limits {
    /// Output tokens per model request.
    pub max_tokens: u32,
    /// Model requests per user input (main conversation and teammates);
    /// `None` = unlimited.
    pub max_turns: Option<u32>,
    /// Model requests a sub-agent may make.
    pub sub_agent_max_turns: u32,
    /// Sub-agents running at once (setting `maxParallelAgents`).
    pub max_parallel_agents: usize,
    /// The share of the context window at which conversations are
    /// compacted before the next request (setting `autoCompactThreshold`).
    pub auto_compact_threshold: f64,
    /// Continuations the main conversation may make by itself per input
    /// (the continuation loop, setting `goalMaxContinuations`).
    pub max_continuations: u32,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_tokens: 16_384,
            max_turns: None,
            sub_agent_max_turns: 50,
            max_parallel_agents: 8,
            auto_compact_threshold: super::context_window::DEFAULT_AUTO_COMPACT_THRESHOLD,
            max_continuations: super::turn_end::DEFAULT_MAX_CONTINUATIONS,
        }
    }
}

/// What every conversation of one session shares.
pub struct SessionServices {
    pub session_id: String,
    pub client: Arc<dyn ModelClient>,
    /// Every tool of the session; a conversation may get a subset.
    pub tools: ToolRegistry,
    /// Answers permission prompts (the front end's).
    pub approver: Arc<dyn Approver>,
    /// The front end's event stream.
    pub events: UnboundedSender<EngineEvent>,
    /// Transcripts of sub-agents and teammates.
    pub recorders: RecorderFactory,
    /// Judges calls in auto mode; `None` when auto mode is not enabled.
    pub auto_classifier: Option<Arc<AutoClassifier>>,
    /// Summarises conversations (`/compact`); `None`: not available.
    pub compactor: Option<Arc<dyn Compactor>>,
    pub models: Models,
    pub limits: Limits,
    /// Settings command hooks, for every conversation of the session.
    pub hooks: Arc<crate::hooks::HookEngine>,
}

impl SessionServices {
    /// Services that record nowhere and ask nobody, over `client` and
    /// `tools`; the usual start for tests and tools-only uses.
    pub fn new(
        session_id: impl Into<String>,
        client: Arc<dyn ModelClient>,
        tools: ToolRegistry,
        models: Models,
        events: UnboundedSender<EngineEvent>,
    ) -> Self {
        SessionServices {
            session_id: session_id.into(),
            client,
            tools,
            approver: Arc::new(super::NobodyToAsk),
            events,
            recorders: Arc::new(|_: &str| -> Arc<dyn Recorder> {
                Arc::new(MemoryRecorder::default())
            }),
            auto_classifier: None,
            compactor: None,
            models,
            limits: Limits::default(),
            hooks: Arc::default(),
        }
    }

    /// Makes a conversation of this session. This is the only way an
    /// [`Engine`] is built.
    pub fn conversation(&self, c: Conversation) -> Engine {
        let agent_id = c.agent_id.clone();
        let recorder = match (c.recorder, &agent_id) {
            (Some(r), _) => r,
            (None, Some(id)) => (self.recorders)(id),
            (None, None) => Arc::new(MemoryRecorder::default()),
        };
        let config = EngineConfig {
            session_id: self.session_id.clone(),
            model: c.model.unwrap_or_else(|| self.models.main.clone()),
            small_model: self.models.small.clone(),
            system_prompt: c.system_prompt,
            max_turns: c.max_turns,
            max_tokens: self.limits.max_tokens,
            auto_compact_threshold: self.limits.auto_compact_threshold,
            max_continuations: self.limits.max_continuations,
            agent_id: agent_id.clone(),
            parent_tool_use_id: c.parent_tool_use_id,
        };
        let parts = super::EngineParts {
            client: self.client.clone(),
            tools: c.tools.unwrap_or_else(|| self.tools.clone()),
            permissions: c.permissions,
            tool_ctx: c.tool_ctx,
            approver: self.approver.clone(),
            recorder,
            events: c.events.unwrap_or_else(|| self.events.clone()),
            extensions: c.extensions,
            compactor: self.compactor.clone(),
            hooks: self.hooks.clone(),
        };
        let mut engine = Engine::new(config, parts);
        if let Some(classifier) = &self.auto_classifier {
            // Other agents count their denials in a row apart from the
            // main conversation's.
            let classifier = match agent_id {
                Some(_) => Arc::new(classifier.for_another_agent()),
                None => classifier.clone(),
            };
            engine = engine.with_auto_classifier(classifier);
        }
        engine
    }
}

/// What differs between the conversations of one session.
pub struct Conversation {
    /// `None` for the main conversation; sub-agents and teammates have one.
    pub agent_id: Option<String>,
    /// The Agent tool_use that started this conversation (sub-agents).
    pub parent_tool_use_id: Option<String>,
    /// `None`: the session's main model.
    pub model: Option<String>,
    pub system_prompt: String,
    /// Model requests per input; `None` = unlimited.
    pub max_turns: Option<u32>,
    /// `None`: every tool of the session.
    pub tools: Option<ToolRegistry>,
    pub permissions: PermissionContext,
    pub tool_ctx: ToolContext,
    /// `None`: the session's recorder for this agent id (memory for the
    /// main conversation).
    pub recorder: Option<Arc<dyn Recorder>>,
    /// `None`: the session's event stream.
    pub events: Option<UnboundedSender<EngineEvent>>,
    /// Plug-ins of this conversation (plan mode, commands); sub-agents get
    /// their parent's.
    pub extensions: Vec<Arc<dyn EngineExtension>>,
}

impl Conversation {
    /// A conversation in `tool_ctx`'s project with the given permissions
    /// and nothing else special.
    pub fn new(
        system_prompt: impl Into<String>,
        permissions: PermissionContext,
        tool_ctx: ToolContext,
    ) -> Self {
        Conversation {
            agent_id: None,
            parent_tool_use_id: None,
            model: None,
            system_prompt: system_prompt.into(),
            max_turns: None,
            tools: None,
            permissions,
            tool_ctx,
            recorder: None,
            events: None,
            extensions: Vec::new(),
        }
    }
}
