//! Requests to connected servers on behalf of tools and commands: tool
//! calls, resources and prompts, each bounded by the server's call timeout
//! and ended early by the caller's cancellation.

use std::collections::BTreeMap;
use std::time::Duration;

use catui_protocol::sync::lock;
use serde_json::{Map, Value};
use tokio_util::sync::CancellationToken;

use super::client::{Caller, McpError};
use super::{McpManager, State};
use crate::tools::ToolError;

impl McpManager {
    /// The caller of a connected server, and its call timeout.
    fn caller(&self, name: &str) -> Result<(Caller, Duration), ToolError> {
        let servers = lock(&self.inner.servers);
        let server = servers
            .iter()
            .find(|s| s.spec.name == name)
            .ok_or_else(|| ToolError::failed(format!("There is no MCP server named `{name}`.")))?;
        match (&server.state, &server.connection) {
            (State::Connected, Some(c)) => Ok((c.caller(), server.spec.call_timeout)),
            (State::Failed(why), _) => Err(ToolError::failed(format!(
                "The MCP server `{name}` is not available: {why}"
            ))),
            (state, _) => Err(ToolError::failed(format!(
                "The MCP server `{name}` is not connected ({}).",
                state.label()
            ))),
        }
    }

    /// Runs `work` against server `name` within its timeout, ending early
    /// when `cancel` fires.
    async fn with_caller<T, F>(
        &self,
        name: &str,
        cancel: &CancellationToken,
        work: impl FnOnce(Caller) -> F,
    ) -> Result<T, ToolError>
    where
        F: std::future::Future<Output = Result<T, McpError>>,
    {
        let (caller, timeout) = self.caller(name)?;
        tokio::select! {
            _ = cancel.cancelled() => Err(ToolError::Cancelled),
            outcome = tokio::time::timeout(timeout, work(caller)) => match outcome {
                Ok(result) => result.map_err(|e| ToolError::failed(e.to_string())),
                Err(_) => Err(ToolError::failed(format!(
                    "The MCP server `{name}` did not answer within {} s.",
                    timeout.as_secs()
                ))),
            },
        }
    }

    pub(crate) async fn call_tool(
        &self,
        server: &str,
        tool: &str,
        arguments: Map<String, Value>,
        cancel: &CancellationToken,
    ) -> Result<Value, ToolError> {
        let tool = tool.to_string();
        self.with_caller(server, cancel, |c| async move {
            c.call_tool(&tool, arguments).await
        })
        .await
    }

    pub(crate) async fn list_resources(
        &self,
        only: Option<&str>,
        cancel: &CancellationToken,
    ) -> Result<Vec<(String, Value)>, ToolError> {
        let names: Vec<String> = lock(&self.inner.servers)
            .iter()
            .filter(|s| s.state == State::Connected)
            .filter(|s| s.connection.as_ref().is_some_and(|c| c.has_resources))
            .filter(|s| only.is_none_or(|o| o == s.spec.name))
            .map(|s| s.spec.name.clone())
            .collect();
        if let Some(only) = only
            && names.is_empty()
        {
            return Err(ToolError::failed(format!(
                "The MCP server `{only}` is not connected or offers no resources."
            )));
        }
        let mut out = Vec::new();
        for name in names {
            let listed = self
                .with_caller(&name, cancel, |c| async move { c.list_resources().await })
                .await?;
            out.extend(listed.into_iter().map(|r| (name.clone(), r)));
        }
        Ok(out)
    }

    pub(crate) async fn read_resource(
        &self,
        server: &str,
        uri: &str,
        cancel: &CancellationToken,
    ) -> Result<Value, ToolError> {
        let uri = uri.to_string();
        self.with_caller(
            server,
            cancel,
            |c| async move { c.read_resource(&uri).await },
        )
        .await
    }

    pub(crate) async fn get_prompt(
        &self,
        server: &str,
        prompt: &str,
        arguments: BTreeMap<String, String>,
    ) -> Result<Value, ToolError> {
        let prompt = prompt.to_string();
        self.with_caller(server, &CancellationToken::new(), |c| async move {
            c.get_prompt(&prompt, arguments).await
        })
        .await
    }
}
