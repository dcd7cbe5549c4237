//! The `Agent` tool (also accepted as `Task`): starts a sub-agent of a
//! given type and returns its final report. Several Agent calls in one
//! message run concurrently.

use catui_protocol::tool_names;
use std::sync::Arc;

use async_trait::async_trait;
use schemars::JsonSchema;
use serde::Deserialize;

use super::{AgentCatalog, AgentDefinition, AgentRequest};
use crate::permissions::Access;
use crate::tools::{ToolContext, ToolError, ToolOutput, TypedTool};

/// The Agent tool over the session's agent types (which may grow while
/// the session runs).
pub struct AgentTool {
    catalog: AgentCatalog,
    /// The session's tools, to say which of them each agent type gets.
    session_tools: Vec<String>,
}

impl AgentTool {
    pub fn new(catalog: AgentCatalog) -> Self {
        Self {
            catalog,
            session_tools: Vec::new(),
        }
    }

    /// Lists each agent type's tools among `names`, the session's tools.
    pub fn with_session_tools(mut self, names: Vec<String>) -> Self {
        self.session_tools = names;
        self
    }

    /// The tools `def` gets, as the listing of agent types shows them.
    fn tools_of(&self, def: &AgentDefinition) -> String {
        if self.session_tools.is_empty() {
            return match &def.tools {
                Some(list) => list.join(", "),
                None => "the session's tools".into(),
            };
        }
        let (kept, left_out): (Vec<&str>, Vec<&str>) = self
            .session_tools
            .iter()
            .map(String::as_str)
            .partition(|name| def.allows_tool(name));
        match (&def.tools, left_out.is_empty()) {
            (None, true) => "all".into(),
            (None, false) if left_out.len() < kept.len() => {
                format!("all except {}", left_out.join(", "))
            }
            _ => kept.join(", "),
        }
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
    /// Run the agent on this model instead of its type's default.
    #[serde(default)]
    #[schemars(schema_with = "model_alias_schema")]
    pub model: Option<String>,
    /// Set to true to start the agent and return at once with its id; its report comes to
    /// you in a later message when it finishes.
    #[serde(default)]
    pub run_in_background: Option<bool>,
}

/// `model` is one of the provider-independent aliases.
fn model_alias_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    let schema = serde_json::json!({
        "type": "string",
        "enum": catui_providers::catalog::MODEL_ALIASES,
    });
    schemars::Schema::try_from(schema).unwrap_or_default()
}

#[async_trait]
impl TypedTool for AgentTool {
    type Input = AgentInput;

    fn name(&self) -> &'static str {
        tool_names::AGENT
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
             - Not for what a few direct calls do (reading a file you know, one Grep): that is \
             faster done yourself.\n\
             - Agents cannot start agents.\n\
             - With `run_in_background: true` the call returns at once with the agent's id and \
             you can go on working; its report arrives by itself in a later message when it ends, \
             so never poll, sleep or wait for it. Use it for long work you need only later.\n\n\
             Agent types:\n",
        );
        for d in self.catalog.all() {
            out.push_str(&format!(
                "- {}: {} (tools: {})\n",
                d.name,
                d.description,
                self.tools_of(&d)
            ));
        }
        out
    }

    fn is_read_only(&self, input: &AgentInput) -> bool {
        self.catalog.is_read_only(&input.subagent_type)
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
        if let Some(model) = &input.model
            && !catui_providers::catalog::MODEL_ALIASES.contains(&model.as_str())
        {
            return Err(ToolError::invalid(format!(
                "Unknown model '{model}'. Leave model out to use the agent type's own, or give \
                 one of: {}.",
                catui_providers::catalog::MODEL_ALIASES.join(", ")
            )));
        }
        if self.catalog.find(&input.subagent_type).is_none() {
            let names = self.catalog.names();
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
            // Whether it may run in plan mode: it reads only, or its shell
            // is held to plan mode's read-only rule like the session's.
            read_only: self.catalog.may_run_while_planning(&input.subagent_type),
            // A sub-agent inherits the session's permission state as it is.
            mode: None,
            read_only_types: self.catalog.planning_names(),
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
        if input.run_in_background == Some(true) {
            let Some(background) = ctx.values.get::<Arc<super::BackgroundAgents>>() else {
                return Err(ToolError::failed(
                    "Background agents are not available here; run the agent without \
                     `run_in_background`.",
                ));
            };
            let task = background.start(runner.clone(), request, ctx);
            return Ok(ToolOutput::text(format!(
                "Started {} agent {} in the background. Go on with other work: its report \
                 will reach you in a later message when it ends (do not poll or wait for it).",
                input.subagent_type, task.id
            ))
            .with_display(format!("Running in the background as {}", task.id)));
        }
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
