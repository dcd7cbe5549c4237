//! Glob: placeholder.
use async_trait::async_trait;
use schemars::JsonSchema;
use serde::Deserialize;

use super::{ToolContext, ToolError, ToolOutput, TypedTool};
use crate::permissions::Access;

pub struct GlobTool;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GlobInput {
    /// Absolute path of the file to read.
    pub file_path: String,
    /// Line number to start from (1-based).
    #[serde(default)]
    pub offset: Option<u64>,
    /// How many lines to read.
    #[serde(default)]
    pub limit: Option<u64>,
}

#[async_trait]
impl TypedTool for GlobTool {
    type Input = GlobInput;
    fn name(&self) -> &'static str {
        "Glob"
    }
    fn description(&self) -> String {
        "Finds files.".into()
    }
    fn is_read_only(&self, _: &GlobInput) -> bool {
        true
    }
    fn is_concurrency_safe(&self, _: &GlobInput) -> bool {
        true
    }
    fn access(&self, input: &GlobInput, ctx: &ToolContext) -> Access {
        Access::Read {
            paths: vec![ctx.resolve(&input.file_path)],
        }
    }
    async fn call(&self, input: GlobInput, ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let path = ctx.resolve(&input.file_path);
        let text = tokio::fs::read_to_string(&path)
            .await
            .map_err(|e| ToolError::failed(format!("{}: {e}", path.display())))?;
        ctx.record_read(&path);
        Ok(ToolOutput::text(text))
    }
}
