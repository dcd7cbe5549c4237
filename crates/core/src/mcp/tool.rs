//! MCP servers' tools as catui tools, named by
//! [`catui_protocol::mcp_name`] (`mcp__{server}__{tool}`), with the
//! server's own schema, and two read-only tools for resources
//! (`ListMcpResourcesTool`, `ReadMcpResourceTool`).
//!
//! A call goes through the permission layer like any other: it reaches
//! outside the project ([`Access::External`]), so it asks unless a rule
//! allows it, and plan mode refuses it unless the tool only reads — by the
//! server's `readOnlyHint`, or by the user's `readOnly` override in the
//! server's configuration.

use catui_protocol::tool_names;
use std::sync::Arc;

use async_trait::async_trait;
use catui_protocol::mcp_name::tool_name;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Map, Value};

use super::McpManager;
use super::client::RemoteTool;
use crate::permissions::Access;
use crate::tools::{ParsedCall, PreparedCall, Tool, ToolContext, ToolError, ToolOutput, TypedTool};

/// What the model receives of one result at most; the rest is cut with a
/// notice.
pub const MAX_RESULT_CHARS: usize = 100_000;

/// Longest tool description passed on to the model.
const MAX_DESCRIPTION_CHARS: usize = 2_000;

/// One tool of one connected server.
pub struct McpTool {
    pub(super) name: String,
    pub(super) server: String,
    pub(super) remote: RemoteTool,
    pub(super) read_only: bool,
    pub(super) manager: McpManager,
}

impl McpTool {
    pub(super) fn new(
        server: &str,
        remote: RemoteTool,
        read_only: bool,
        manager: McpManager,
    ) -> Self {
        McpTool {
            name: tool_name(server, &remote.name),
            server: server.to_string(),
            remote,
            read_only,
            manager,
        }
    }
}

#[async_trait]
impl Tool for McpTool {
    fn name(&self) -> &str {
        &self.name
    }

    fn description(&self) -> String {
        let text = self.remote.description.trim();
        let text: String = text.chars().take(MAX_DESCRIPTION_CHARS).collect();
        if text.is_empty() {
            format!(
                "The `{}` tool of the MCP server `{}`.",
                self.remote.name, self.server
            )
        } else {
            text
        }
    }

    fn input_schema(&self) -> Value {
        self.remote.input_schema.clone()
    }

    fn parse(&self, input: &Value) -> Result<ParsedCall, ToolError> {
        let Value::Object(arguments) = input else {
            return Err(ToolError::invalid(format!(
                "The input for {} must be a JSON object.",
                self.name
            )));
        };
        Ok(Box::new(McpCall {
            name: self.name.clone(),
            server: self.server.clone(),
            tool: self.remote.name.clone(),
            arguments: arguments.clone(),
            read_only: self.read_only,
            manager: self.manager.clone(),
        }))
    }
}

struct McpCall {
    name: String,
    server: String,
    tool: String,
    arguments: Map<String, Value>,
    read_only: bool,
    manager: McpManager,
}

#[async_trait]
impl PreparedCall for McpCall {
    fn is_read_only(&self) -> bool {
        self.read_only
    }
    fn is_concurrency_safe(&self) -> bool {
        self.read_only
    }
    fn access(&self, _ctx: &ToolContext) -> Access {
        Access::External {
            domain: None,
            read_only: self.read_only,
        }
    }
    fn summary(&self) -> String {
        let args = Value::Object(self.arguments.clone()).to_string();
        let args: String = args.chars().take(80).collect();
        format!("{}({args})", self.name)
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
    async fn call(self: Box<Self>, ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let result = self
            .manager
            .call_tool(&self.server, &self.tool, self.arguments, &ctx.cancel)
            .await?;
        Ok(render_result(&result))
    }
}

/// A `tools/call` result as the model's text: text blocks as they are,
/// other blocks described, structured content when there is nothing
/// else; cut at [`MAX_RESULT_CHARS`] with a notice.
pub fn render_result(result: &Value) -> ToolOutput {
    let mut parts: Vec<String> = Vec::new();
    if let Some(blocks) = result.get("content").and_then(Value::as_array) {
        parts.extend(blocks.iter().map(render_block));
    }
    if parts.is_empty()
        && let Some(structured) = result.get("structuredContent")
    {
        parts.push(structured.to_string());
    }
    let text = parts.join("\n");
    let mut output = ToolOutput::text(truncate(&text));
    output.is_error = result.get("isError").and_then(Value::as_bool) == Some(true);
    output
}

fn render_block(block: &Value) -> String {
    let text = |key: &str| block.get(key).and_then(Value::as_str).unwrap_or_default();
    match text("type") {
        "text" => text("text").to_string(),
        "image" | "audio" => format!(
            "[{} content: {}, {} bytes of base64]",
            text("type"),
            text("mimeType"),
            text("data").len()
        ),
        "resource" => {
            let resource = block.get("resource").cloned().unwrap_or_default();
            let uri = resource
                .get("uri")
                .and_then(Value::as_str)
                .unwrap_or_default();
            match resource.get("text").and_then(Value::as_str) {
                Some(body) => format!("[resource {uri}]\n{body}"),
                None => format!("[resource {uri}: binary content not shown]"),
            }
        }
        "resource_link" => format!("[resource link: {} ({})]", text("uri"), text("name")),
        _ => block.to_string(),
    }
}

/// Cuts `text` to [`MAX_RESULT_CHARS`] characters with a notice.
pub fn truncate(text: &str) -> String {
    let total = text.chars().count();
    if total <= MAX_RESULT_CHARS {
        return text.to_string();
    }
    let kept: String = text.chars().take(MAX_RESULT_CHARS).collect();
    format!(
        "{kept}\n\n[Output truncated: {MAX_RESULT_CHARS} of {total} characters shown. Ask the tool for less (a narrower query, a page) if you need the rest.]"
    )
}

/// The resources of the connected servers.
pub struct ListResourcesTool(pub(super) McpManager);

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ListResourcesInput {
    /// Only this server's resources (default: every server's).
    #[serde(default)]
    pub server: Option<String>,
}

#[async_trait]
impl TypedTool for ListResourcesTool {
    type Input = ListResourcesInput;
    fn name(&self) -> &'static str {
        tool_names::LIST_MCP_RESOURCES
    }
    fn description(&self) -> String {
        "Lists the resources (files, records, documents) that the connected MCP servers offer, with their URIs. Read one with ReadMcpResourceTool.".into()
    }
    fn is_read_only(&self, _input: &Self::Input) -> bool {
        true
    }
    fn is_concurrency_safe(&self, _input: &Self::Input) -> bool {
        true
    }
    fn access(&self, _input: &Self::Input, _ctx: &ToolContext) -> Access {
        // Resources are read-only by the protocol, from servers the user
        // started: no prompt, in every mode (deny rules still apply).
        Access::Session
    }
    async fn call(&self, input: Self::Input, ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let listed = self
            .0
            .list_resources(input.server.as_deref(), &ctx.cancel)
            .await?;
        if listed.is_empty() {
            return Ok(ToolOutput::text("No resources are offered."));
        }
        let mut out = String::new();
        for (server, resource) in listed {
            let field = |k: &str| resource.get(k).and_then(Value::as_str).unwrap_or_default();
            out.push_str(&format!("{server}: {} — {}", field("uri"), field("name")));
            let mime = field("mimeType");
            if !mime.is_empty() {
                out.push_str(&format!(" ({mime})"));
            }
            out.push('\n');
        }
        Ok(ToolOutput::text(truncate(&out)))
    }
}

/// Reads one resource of one server.
pub struct ReadResourceTool(pub(super) McpManager);

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ReadResourceInput {
    /// The server that offers the resource.
    pub server: String,
    /// The resource's URI, as ListMcpResourcesTool shows it.
    pub uri: String,
}

#[async_trait]
impl TypedTool for ReadResourceTool {
    type Input = ReadResourceInput;
    fn name(&self) -> &'static str {
        tool_names::READ_MCP_RESOURCE
    }
    fn description(&self) -> String {
        "Reads one resource of a connected MCP server by its URI.".into()
    }
    fn is_read_only(&self, _input: &Self::Input) -> bool {
        true
    }
    fn is_concurrency_safe(&self, _input: &Self::Input) -> bool {
        true
    }
    fn access(&self, _input: &Self::Input, _ctx: &ToolContext) -> Access {
        // Resources are read-only by the protocol, from servers the user
        // started: no prompt, in every mode (deny rules still apply).
        Access::Session
    }
    fn summary(&self, input: &Self::Input) -> String {
        format!("ReadMcpResourceTool({}: {})", input.server, input.uri)
    }
    async fn call(&self, input: Self::Input, ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let result = self
            .0
            .read_resource(&input.server, &input.uri, &ctx.cancel)
            .await?;
        let mut parts = Vec::new();
        for item in result
            .get("contents")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            let uri = item
                .get("uri")
                .and_then(Value::as_str)
                .unwrap_or(&input.uri);
            match item.get("text").and_then(Value::as_str) {
                Some(text) => parts.push(format!("[{uri}]\n{text}")),
                None => parts.push(format!(
                    "[{uri}: binary content ({}) not shown]",
                    item.get("mimeType")
                        .and_then(Value::as_str)
                        .unwrap_or("unknown type")
                )),
            }
        }
        if parts.is_empty() {
            parts.push("The resource is empty.".into());
        }
        Ok(ToolOutput::text(truncate(&parts.join("\n\n"))))
    }
}

/// The resource tools, as the registry holds tools.
pub(super) fn resource_tools(manager: &McpManager) -> Vec<Arc<dyn Tool>> {
    vec![
        Arc::new(crate::tools::Adapter(Arc::new(ListResourcesTool(
            manager.clone(),
        )))),
        Arc::new(crate::tools::Adapter(Arc::new(ReadResourceTool(
            manager.clone(),
        )))),
    ]
}
