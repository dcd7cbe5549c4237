//! Sub-agents: the Agent tool, the built-in agent types (Explore, Plan,
//! general-purpose), user-defined agents from `.catui/agents/*.md` and from
//! SDK applications, the session's catalog of them, and the runner that
//! executes a sub-agent as its own conversation on the same engine,
//! concurrently with its siblings (or in the background: [`background`]).

pub mod background;
pub mod catalog;
pub mod definitions;
pub mod dispatched;
pub mod loader;
pub mod runner;
pub mod sdk;
pub mod tool;

use async_trait::async_trait;
use catui_protocol::Usage;

pub use background::{AgentTask, BackgroundAgents, BackgroundAgentsExtension, StopError};
pub use catalog::AgentCatalog;
pub use definitions::{AgentDefinition, ModelChoice, builtin_agents};
pub use runner::SubAgentRunner;
pub use tool::AgentTool;

use crate::tools::{ToolContext, ToolError};

/// One request to run a sub-agent.
#[derive(Debug, Clone, PartialEq)]
pub struct AgentRequest {
    pub subagent_type: String,
    pub description: String,
    pub prompt: String,
    /// A model override from the caller.
    pub model: Option<String>,
    /// The Agent tool_use that asked for it.
    pub parent_tool_use_id: String,
}

/// What a finished sub-agent reports.
#[derive(Debug, Clone, PartialEq)]
pub struct AgentReport {
    pub agent_id: String,
    pub text: String,
    pub usage: Usage,
    pub turns: u32,
    /// Tool calls it made.
    pub tool_uses: u64,
    pub duration_ms: u64,
}

/// The sub-agent runner as the Agent tool finds it in its
/// [`ToolContext::values`]; absent inside sub-agents.
#[derive(Clone)]
pub struct AgentsHandle(pub std::sync::Arc<dyn AgentRunner>);

/// Runs sub-agents for the Agent tool.
#[async_trait]
pub trait AgentRunner: Send + Sync {
    async fn run(&self, request: AgentRequest, ctx: &ToolContext)
    -> Result<AgentReport, ToolError>;
}
