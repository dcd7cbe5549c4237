//! Bash as a read-only sub-agent gets it: the same command runner, with no
//! `unconfined` field and nothing in its text about asking for write or
//! network access, since such an agent must never widen what it does.

use async_trait::async_trait;
use catui_protocol::tool_names;
use schemars::JsonSchema;
use serde::Deserialize;

use super::description::describe;
use super::{Asking, BashInput, BashTool};
use crate::permissions::Access;
use crate::tools::{ToolContext, ToolError, ToolOutput, TypedTool};

/// Bash for read-only agents (Explore, Plan, custom read-only ones).
pub struct ReadOnlyBashTool;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ReadOnlyBashInput {
    /// The shell command to run (bash syntax).
    pub command: String,
    /// Time limit in milliseconds, at most 600000. Defaults to 120000.
    #[serde(default)]
    pub timeout: Option<u64>,
    /// A short, plain description of what the command does, shown to the user.
    #[serde(default)]
    pub description: Option<String>,
}

impl From<ReadOnlyBashInput> for BashInput {
    fn from(input: ReadOnlyBashInput) -> Self {
        BashInput {
            command: input.command,
            timeout: input.timeout,
            description: input.description,
            unconfined: None,
            run_in_background: None,
            keep_running: None,
        }
    }
}

fn as_bash(input: &ReadOnlyBashInput) -> BashInput {
    BashInput {
        command: input.command.clone(),
        timeout: input.timeout,
        description: None,
        unconfined: None,
        run_in_background: None,
        keep_running: None,
    }
}

#[async_trait]
impl TypedTool for ReadOnlyBashTool {
    type Input = ReadOnlyBashInput;

    fn name(&self) -> &'static str {
        tool_names::BASH
    }

    fn description(&self) -> String {
        describe(Asking::Never)
    }

    fn is_read_only(&self, input: &ReadOnlyBashInput) -> bool {
        BashTool::default().is_read_only(&as_bash(input))
    }

    fn is_concurrency_safe(&self, input: &ReadOnlyBashInput) -> bool {
        BashTool::default().is_concurrency_safe(&as_bash(input))
    }

    async fn validate_input(
        &self,
        input: &ReadOnlyBashInput,
        ctx: &ToolContext,
    ) -> Result<(), ToolError> {
        BashTool::default()
            .validate_input(&as_bash(input), ctx)
            .await
    }

    fn access(&self, input: &ReadOnlyBashInput, ctx: &ToolContext) -> Access {
        BashTool::default().access(&as_bash(input), ctx)
    }

    fn summary(&self, input: &ReadOnlyBashInput) -> String {
        BashTool::default().summary(&as_bash(input))
    }

    async fn call(
        &self,
        input: ReadOnlyBashInput,
        ctx: &ToolContext,
    ) -> Result<ToolOutput, ToolError> {
        // Its notes leave out how to ask for more: the context marks the
        // agent read-only (`ReadOnlyAgent`).
        BashTool::default().call(input.into(), ctx).await
    }
}
