//! The `Agent` tool (also accepted as `Task`): starts a sub-agent of a
//! given type and returns its final report. Several Agent calls in one
//! message run concurrently.

use std::sync::Arc;

use async_trait::async_trait;
use schemars::JsonSchema;
use serde::Deserialize;

use super::{AgentDefinition, AgentRequest};
use crate::permissions::Access;
use crate::tools::{ToolContext, ToolError, ToolOutput, TypedTool};

pub struct AgentTool {
    definitions: Arc<Vec<AgentDefinition>>,
}

impl AgentTool {
    pub fn new(definitions: Vec<AgentDefinition>) -> Self {
        Self {
            definitions: Arc::new(definitions),
        }
    }

    fn find(&self, name: &str) -> Option<&AgentDefinition> {
        self.definitions.iter().find(|d| d.name == name)
    }
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AgentInput {
    /// A short (3-5 word) description of the task.
    pub description: String,
    /// The complete task for the agent. It sees nothing of this conversation, so include
    /// every detail it needs and say what to report back.
    pub prompt: String,
    /// Which agent type to use.
    pub subagent_type: String,
    /// Optional model override for this agent.
    #[serde(default)]
    pub model: Option<String>,
}

#[async_trait]
impl TypedTool for AgentTool {
    type Input = AgentInput;

    fn name(&self) -> &'static str {
        "Agent"
    }

    fn description(&self) -> String {
        let mut out = String::from(
            "Start a sub-agent: a separate conversation with its own context that works on one task and \
             returns a single report. Use it for broad searches and for independent pieces of work, to keep \
             this conversation's context small.\n\n\
             - Launch independent agents in ONE message with several Agent calls: they run in parallel.\n\
             - The agent cannot see this conversation: the prompt must be self-contained and say exactly what \
             to return.\n\
             - The report is for you, not the user: summarise what matters to the user yourself.\n\
             - Agents cannot start agents.\n\nAgent types:\n",
        );
        for d in self.definitions.iter() {
            let tools = match &d.tools {
                None if d.disallowed_tools.is_empty() => "all tools".to_string(),
                None => format!("all tools except {}", d.disallowed_tools.join(", ")),
                Some(list) => list.join(", "),
            };
            out.push_str(&format!(
                "- {}: {} (tools: {tools})\n",
                d.name, d.description
            ));
        }
        out
    }

    fn is_read_only(&self, input: &AgentInput) -> bool {
        self.find(&input.subagent_type).is_some_and(|d| d.read_only)
    }

    fn is_concurrency_safe(&self, _: &AgentInput) -> bool {
        true
    }

    async fn validate_input(&self, input: &AgentInput, ctx: &ToolContext) -> Result<(), ToolError> {
        if ctx.agent_id.is_some() {
            return Err(ToolError::invalid(
                "Sub-agents cannot start other agents. Do the work yourself.",
            ));
        }
        if input.prompt.trim().is_empty() {
            return Err(ToolError::invalid(
                "The prompt is empty: give the agent a complete task.",
            ));
        }
        if self.find(&input.subagent_type).is_none() {
            let names: Vec<&str> = self.definitions.iter().map(|d| d.name.as_str()).collect();
            return Err(ToolError::invalid(format!(
                "Unknown subagent_type '{}'. Available agent types: {}.",
                input.subagent_type,
                names.join(", ")
            )));
        }
        Ok(())
    }

    fn access(&self, input: &AgentInput, _: &ToolContext) -> Access {
        Access::Agent {
            subagent_type: input.subagent_type.clone(),
            read_only: self.find(&input.subagent_type).is_some_and(|d| d.read_only),
            // A sub-agent inherits the session's permission state as it is.
            mode: None,
        }
    }

    fn summary(&self, input: &AgentInput) -> String {
        format!("Agent({}: {})", input.subagent_type, input.description)
    }

    async fn call(&self, input: AgentInput, ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let Some(runner) = ctx.values.get::<super::AgentsHandle>() else {
            return Err(ToolError::failed(
                "Agents are not available in this context.",
            ));
        };
        let request = AgentRequest {
            subagent_type: input.subagent_type.clone(),
            description: input.description,
            prompt: input.prompt,
            model: input.model,
            parent_tool_use_id: ctx.tool_use_id.clone().unwrap_or_default(),
        };
        let report = runner.0.run(request, ctx).await?;
        let tokens = report.usage.input_tokens + report.usage.output_tokens;
        let text = if report.text.trim().is_empty() {
            "(the agent returned no text)"
        } else {
            report.text.as_str()
        };
        Ok(ToolOutput::text(format!(
            "{text}\n\n[{} agent {}: {} turns, {tokens} tokens, {:.1} s]",
            input.subagent_type,
            report.agent_id,
            report.turns,
            report.duration_ms as f64 / 1000.0
        )))
    }
}
