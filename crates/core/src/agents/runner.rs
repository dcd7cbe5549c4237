//! Running a sub-agent: a new conversation of the session (see
//! [`SessionServices::conversation`]) with its own messages, turn count,
//! tools and model, sharing the parent's event stream (messages tagged with
//! the Agent tool_use id), approver and permission state. A semaphore caps
//! how many run at once; the rest queue.

use std::sync::Arc;
use std::time::Instant;

use async_trait::async_trait;
use tokio::sync::Semaphore;

use super::{AgentCatalog, AgentDefinition, AgentReport, AgentRequest, AgentRunner, ModelChoice};
use crate::engine::{Conversation, Extensions, SessionServices};
use crate::tools::bash::ReadOnlyBashTool;
use crate::tools::{Adapter, ToolContext, ToolError};

/// Builds a sub-agent's system prompt from its definition and the model it
/// runs on.
pub type PromptBuilder = Arc<dyn Fn(&AgentDefinition, &str) -> String + Send + Sync>;
pub use crate::engine::RecorderFactory;

/// Runs sub-agents as conversations of the parent's session: the same
/// client, tools (the subset each definition allows), approver, event
/// stream, transcripts and auto-mode classifier.
pub struct SubAgentRunner {
    services: Arc<SessionServices>,
    catalog: AgentCatalog,
    prompt: PromptBuilder,
    slots: Semaphore,
}

impl SubAgentRunner {
    pub fn new(
        services: Arc<SessionServices>,
        catalog: AgentCatalog,
        prompt: PromptBuilder,
    ) -> Self {
        let slots = Semaphore::new(services.limits.max_parallel_agents.max(1));
        Self {
            services,
            catalog,
            prompt,
            slots,
        }
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
        let Some(def) = self.catalog.find(&request.subagent_type) else {
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
            // The Agent tool accepts only aliases; each provider has its id.
            (Some(m), _) => catui_providers::catalog::alias_model(self.services.client.kind(), m)
                .map_or_else(|| m.clone(), str::to_string),
            (None, ModelChoice::Inherit) => self.services.models.main.clone(),
            (None, ModelChoice::Small) => self.services.models.small.clone(),
            (None, ModelChoice::Planning) => self
                .services
                .models
                .plan
                .clone()
                .unwrap_or_else(|| self.services.models.main.clone()),
            (None, ModelChoice::Named(m)) => m.clone(),
        };
        let def = &def;
        let mut tools = self.services.tools.clone();
        let allowed = def.clone();
        tools.retain(move |name| allowed.allows_tool(name));
        if def.read_only {
            tools.replace(Adapter(Arc::new(ReadOnlyBashTool)));
        }

        let permissions = match &ctx.session {
            Some(s) => s.0.permission_context(),
            None => Default::default(),
        };
        let mut agent_ctx = ToolContext::new(ctx.project_root.clone());
        agent_ctx.set_cwd(ctx.cwd());
        agent_ctx.env = ctx.env.clone();
        agent_ctx.agent_id = Some(agent_id.clone());
        agent_ctx.cancel = cancel.clone();
        // The session's sandbox and the confinement of approved commands
        // carry over; a read-only agent is not offered ways to widen them.
        agent_ctx.confiner = ctx.confiner.clone();
        agent_ctx.set_sandbox_policy(ctx.confiner.approved_policy());
        if def.read_only {
            agent_ctx.values.insert(crate::tools::ReadOnlyAgent);
        }

        let system_prompt = (self.prompt)(def, model.as_str());
        let mut engine = self.services.conversation(Conversation {
            agent_id: Some(agent_id.clone()),
            parent_tool_use_id: Some(request.parent_tool_use_id.clone()),
            model: Some(model),
            system_prompt,
            max_turns: Some(
                def.max_turns
                    .unwrap_or(self.services.limits.sub_agent_max_turns),
            ),
            tools: Some(tools),
            // The parent's plug-ins (plan mode) carry over.
            extensions: ctx
                .values
                .get::<Extensions>()
                .map(|e| e.0.clone())
                .unwrap_or_default(),
            ..Conversation::new(String::new(), permissions, agent_ctx)
        });
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
        let tool_uses = engine
            .messages()
            .iter()
            .flat_map(|m| &m.content)
            .filter(|b| matches!(b, catui_protocol::ContentBlock::ToolUse { .. }))
            .count() as u64;
        Ok(AgentReport {
            agent_id,
            text: outcome.result,
            usage: outcome.usage,
            turns: outcome.num_turns,
            tool_uses,
            duration_ms: started.elapsed().as_millis() as u64,
        })
    }
}
