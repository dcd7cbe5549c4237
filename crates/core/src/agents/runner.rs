//! Running a sub-agent: a new [`Engine`] with its own messages, turn count,
//! tools and model, sharing the parent's event stream (messages tagged with
//! the Agent tool_use id), approver and permission state. A semaphore caps
//! how many run at once; the rest queue.

use std::sync::Arc;
use std::time::Instant;

use async_trait::async_trait;
use catui_providers::ModelClient;
use tokio::sync::Semaphore;
use tokio::sync::mpsc::UnboundedSender;

use super::{AgentDefinition, AgentReport, AgentRequest, AgentRunner, ModelChoice};
use crate::engine::{Approver, Engine, EngineConfig, EngineEvent, EngineParts, Recorder};
use crate::permissions::auto::AutoClassifier;
use crate::tools::{ToolContext, ToolError, ToolRegistry};

/// Builds a sub-agent's system prompt from its definition.
pub type PromptBuilder = Arc<dyn Fn(&AgentDefinition) -> String + Send + Sync>;
/// Gives each sub-agent (by id) somewhere to record its conversation.
pub type RecorderFactory = Arc<dyn Fn(&str) -> Arc<dyn Recorder> + Send + Sync>;

/// What sub-agents are built from (the parent session's pieces).
pub struct SubAgentSetup {
    pub client: Arc<dyn ModelClient>,
    /// The parent's tools; each agent gets the subset its definition allows.
    pub tools: ToolRegistry,
    pub definitions: Vec<AgentDefinition>,
    pub approver: Arc<dyn Approver>,
    pub events: UnboundedSender<EngineEvent>,
    pub session_id: String,
    pub model: String,
    pub small_model: String,
    pub max_tokens: u32,
    /// Model requests a sub-agent may make.
    pub max_turns: u32,
    /// Sub-agents running at once (setting `maxParallelAgents`).
    pub max_parallel: usize,
    pub prompt: PromptBuilder,
    pub recorder: RecorderFactory,
    /// The session's auto-mode classifier (`None` when auto mode is not
    /// enabled). Sub-agents inherit the parent's permission mode, so in
    /// auto mode their calls are judged too; each run gets its own
    /// classifier from this one (see [`AutoClassifier::for_another_agent`])
    /// so that its denials in a row are counted apart from the parent's.
    pub auto_classifier: Option<Arc<AutoClassifier>>,
}

pub struct SubAgentRunner {
    setup: SubAgentSetup,
    slots: Semaphore,
}

impl SubAgentRunner {
    pub fn new(setup: SubAgentSetup) -> Self {
        let slots = Semaphore::new(setup.max_parallel.max(1));
        Self { setup, slots }
    }
}

fn new_agent_id() -> String {
    let id = uuid::Uuid::new_v4().simple().to_string();
    id[..8].to_string()
}

#[async_trait]
impl AgentRunner for SubAgentRunner {
    async fn run(
        &self,
        request: AgentRequest,
        ctx: &ToolContext,
    ) -> Result<AgentReport, ToolError> {
        let Some(def) = self
            .setup
            .definitions
            .iter()
            .find(|d| d.name == request.subagent_type)
        else {
            return Err(ToolError::invalid(format!(
                "Unknown agent type '{}'.",
                request.subagent_type
            )));
        };
        let cancel = ctx.cancel.child_token();
        let _permit = tokio::select! {
            p = self.slots.acquire() => p.map_err(|_| ToolError::failed("the agent queue is closed"))?,
            _ = cancel.cancelled() => return Err(ToolError::Cancelled),
        };
        let started = Instant::now();
        let agent_id = new_agent_id();
        let model = match (&request.model, &def.model) {
            (Some(m), _) => m.clone(),
            (None, ModelChoice::Inherit) => self.setup.model.clone(),
            (None, ModelChoice::Small) => self.setup.small_model.clone(),
            (None, ModelChoice::Named(m)) => m.clone(),
        };
        let mut tools = self.setup.tools.clone();
        tools.retain(|name| def.allows_tool(name));

        let permissions = match &ctx.session {
            Some(s) => s.0.permission_context(),
            None => Default::default(),
        };
        let mut agent_ctx = ToolContext::new(ctx.project_root.clone());
        agent_ctx.set_cwd(ctx.cwd());
        agent_ctx.env = ctx.env.clone();
        agent_ctx.agent_id = Some(agent_id.clone());
        agent_ctx.cancel = cancel.clone();

        let mut engine = Engine::new(
            EngineConfig {
                session_id: self.setup.session_id.clone(),
                model,
                small_model: self.setup.small_model.clone(),
                system_prompt: (self.setup.prompt)(def),
                max_turns: Some(self.setup.max_turns),
                max_tokens: self.setup.max_tokens,
                agent_id: Some(agent_id.clone()),
                parent_tool_use_id: Some(request.parent_tool_use_id.clone()),
                end_at_plan_ready: false,
            },
            EngineParts {
                client: self.setup.client.clone(),
                tools,
                permissions,
                tool_ctx: agent_ctx,
                approver: self.setup.approver.clone(),
                recorder: (self.setup.recorder)(&agent_id),
                events: self.setup.events.clone(),
                plan: ctx.plan.clone(),
            },
        );
        if let Some(classifier) = &self.setup.auto_classifier {
            engine = engine.with_auto_classifier(Arc::new(classifier.for_another_agent()));
        }
        let outcome = engine.run_prompt(request.prompt, cancel.clone()).await;
        if cancel.is_cancelled() {
            return Err(ToolError::Cancelled);
        }
        if outcome.is_error {
            return Err(ToolError::failed(format!(
                "The {} agent did not finish: {}",
                request.subagent_type, outcome.result
            )));
        }
        Ok(AgentReport {
            agent_id,
            text: outcome.result,
            usage: outcome.usage,
            turns: outcome.num_turns,
            duration_ms: started.elapsed().as_millis() as u64,
        })
    }
}
