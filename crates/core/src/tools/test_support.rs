//! Helpers for the tool unit tests: a context rooted in a temp dir and a
//! runner that goes through the same parse → validate → call path as the
//! engine, so schema mistakes show up in tests too.

use std::path::Path;
use std::sync::Arc;

use serde_json::Value;

use super::{Adapter, Tool, ToolContext, ToolError, ToolOutput, TypedTool};

pub fn ctx(dir: &Path) -> ToolContext {
    ToolContext::new(dir.to_path_buf())
}

pub async fn run<T: TypedTool>(
    tool: T,
    ctx: &ToolContext,
    input: Value,
) -> Result<ToolOutput, ToolError> {
    let adapter = Adapter(Arc::new(tool));
    let call = adapter.parse(&input)?;
    call.validate(ctx).await?;
    call.call(ctx).await
}

/// The error text of a failed call (panics if it succeeded).
pub async fn run_err<T: TypedTool>(tool: T, ctx: &ToolContext, input: Value) -> String {
    match run(tool, ctx, input).await {
        Ok(out) => panic!("expected an error, got: {}", out.content),
        Err(e) => e.to_string(),
    }
}
