//! The `StructuredOutput` tool as the model sees it: the caller's schema as
//! its input schema. Its calls are answered by the output extension
//! ([`super::OutputFormat`]) before they would run; the tool itself only
//! refuses calls outside the main conversation.

use std::sync::Arc;

use async_trait::async_trait;
use serde_json::Value;

use super::{OutputFormat, TOOL_NAME};
use crate::permissions::Access;
use crate::tools::registry::ToolSource;
use crate::tools::{ParsedCall, PreparedCall, Tool, ToolContext, ToolError, ToolOutput};

/// Offers the tool while a schema is set.
pub(super) struct OutputTools(pub(super) OutputFormat);

impl ToolSource for OutputTools {
    fn tools(&self) -> Vec<Arc<dyn Tool>> {
        self.0
            .schema()
            .map(|schema| Arc::new(StructuredOutputTool { schema }) as Arc<dyn Tool>)
            .into_iter()
            .collect()
    }
}

struct StructuredOutputTool {
    schema: Value,
}

#[async_trait]
impl Tool for StructuredOutputTool {
    fn name(&self) -> &str {
        TOOL_NAME
    }

    fn description(&self) -> String {
        "Give your final answer as structured data. This session needs its result in a fixed \
         format: when the work is done, call this tool exactly once with the answer as its \
         input, matching the input schema. The call ends the run; anything written after it \
         is not seen."
            .into()
    }

    fn input_schema(&self) -> Value {
        self.schema.clone()
    }

    fn parse(&self, input: &Value) -> Result<ParsedCall, ToolError> {
        if !input.is_object() {
            return Err(ToolError::invalid(format!(
                "The input for {TOOL_NAME} must be a JSON object."
            )));
        }
        Ok(Box::new(OutputCall))
    }
}

struct OutputCall;

#[async_trait]
impl PreparedCall for OutputCall {
    fn is_read_only(&self) -> bool {
        true
    }
    fn is_concurrency_safe(&self) -> bool {
        false
    }
    fn access(&self, _ctx: &ToolContext) -> Access {
        Access::Session
    }
    fn summary(&self) -> String {
        TOOL_NAME.into()
    }
    async fn validate(&self, _ctx: &ToolContext) -> Result<(), ToolError> {
        Ok(())
    }
    fn permission_input(&self, _ctx: &ToolContext) -> Option<Value> {
        None
    }
    fn denied_result(&self, _feedback: &str, _ctx: &ToolContext) -> Option<String> {
        None
    }
    fn takes_mode_in_input(&self) -> bool {
        false
    }
    async fn call(self: Box<Self>, _ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
        Err(ToolError::invalid(format!(
            "{TOOL_NAME} gives the main conversation's final answer; it cannot be used here."
        )))
    }
}
