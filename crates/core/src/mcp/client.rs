//! One connection to one MCP server, through the official Rust SDK
//! (`rmcp`): starting it (a child process on stdio, or streamable HTTP),
//! the handshake, listing what it offers, and hearing when that changes
//! (`notifications/tools/list_changed`). Results are kept as JSON so the
//! rest of catui does not depend on the SDK's types.

use catui_sandbox::child_env::{EnvPolicy, Tier};
use std::collections::{BTreeMap, VecDeque};
use std::path::Path;
use std::process::Stdio;
use std::sync::{Arc, Mutex};

use rmcp::model::{
    CallToolRequestParams, ClientCapabilities, GetPromptRequestParams, Implementation,
    InitializeRequestParams, ReadResourceRequestParams,
};
use rmcp::service::{MaybeSendFuture, NotificationContext, RoleClient, RunningService, ServiceExt};
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::transport::{StreamableHttpClientTransport, TokioChildProcess};
use serde_json::{Map, Value};
use tokio::io::AsyncBufReadExt;

use super::config::{ServerSpec, Transport, expand};
use super::sdk_transport::{SdkChannel, SdkTransport};
use catui_protocol::sync::lock;

/// A tool as the server describes it.
#[derive(Debug, Clone, PartialEq)]
pub struct RemoteTool {
    pub name: String,
    pub description: String,
    pub input_schema: Value,
    /// The server's `readOnlyHint` (absent = false).
    pub read_only_hint: bool,
}

/// A prompt as the server describes it.
#[derive(Debug, Clone, PartialEq)]
pub struct RemotePrompt {
    pub name: String,
    pub description: String,
    /// Argument names, required ones first.
    pub arguments: Vec<(String, bool)>,
}

/// The last lines a stdio server wrote to stderr, for error messages.
#[derive(Debug, Default, Clone)]
pub struct StderrTail(Arc<Mutex<VecDeque<String>>>);

impl StderrTail {
    const LINES: usize = 8;

    fn push(&self, line: String) {
        let mut lines = lock(&self.0);
        if lines.len() == Self::LINES {
            lines.pop_front();
        }
        lines.push_back(line.chars().take(300).collect());
    }

    /// ` (stderr: ...)` when the server said something, else empty.
    pub fn describe(&self) -> String {
        let lines = lock(&self.0);
        if lines.is_empty() {
            String::new()
        } else {
            let joined: Vec<&str> = lines.iter().map(String::as_str).collect();
            format!(" (server stderr: {})", joined.join(" | "))
        }
    }
}

/// Called when the server says its tools or prompts changed.
pub type ListsChanged = Arc<dyn Fn() + Send + Sync>;

/// catui's side of a connection: who it is, and what it does when the
/// server's lists change.
#[derive(Clone)]
pub struct ClientSide {
    info: InitializeRequestParams,
    lists_changed: ListsChanged,
}

impl ClientSide {
    fn new(lists_changed: ListsChanged) -> Self {
        ClientSide {
            info: InitializeRequestParams::new(
                ClientCapabilities::default(),
                Implementation::new("catui", env!("CARGO_PKG_VERSION")),
            ),
            lists_changed,
        }
    }
}

impl rmcp::ClientHandler for ClientSide {
    fn get_info(&self) -> InitializeRequestParams {
        self.info.clone()
    }

    fn on_tool_list_changed(
        &self,
        _context: NotificationContext<RoleClient>,
    ) -> impl Future<Output = ()> + MaybeSendFuture + '_ {
        (self.lists_changed)();
        std::future::ready(())
    }

    fn on_prompt_list_changed(
        &self,
        _context: NotificationContext<RoleClient>,
    ) -> impl Future<Output = ()> + MaybeSendFuture + '_ {
        (self.lists_changed)();
        std::future::ready(())
    }
}

/// A live connection.
pub struct Connection {
    service: RunningService<RoleClient, ClientSide>,
    pub tools: Vec<RemoteTool>,
    pub prompts: Vec<RemotePrompt>,
    pub has_resources: bool,
    pub stderr: StderrTail,
}

/// Why a connection or a call failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum McpError {
    #[error("{0}")]
    Connect(String),
    #[error("{0}")]
    Call(String),
}

fn to_value<T: serde::Serialize>(value: &T) -> Value {
    serde_json::to_value(value).unwrap_or(Value::Null)
}

/// Where a stdio server runs and what its environment is built with.
pub struct Child<'a> {
    /// Its working directory.
    pub project_root: &'a Path,
    /// The settings' additions to the allow-list (a server is a child
    /// someone allowed: it gets that tier, then its own `env`).
    pub env: &'a EnvPolicy,
}

/// Starts the server of `spec` and completes the MCP handshake.
/// `lookup` reads environment variables for `${VAR}` expansion;
/// `lists_changed` is called whenever the server says its tools or prompts
/// changed.
pub async fn connect(
    spec: &ServerSpec,
    child: &Child<'_>,
    lookup: &(dyn Fn(&str) -> Option<String> + Send + Sync),
    sdk: Option<Arc<dyn SdkChannel>>,
    lists_changed: ListsChanged,
) -> Result<Connection, McpError> {
    let client = ClientSide::new(lists_changed);
    let stderr = StderrTail::default();
    let fail = |what: &str, e: &dyn std::fmt::Display, tail: &StderrTail| {
        McpError::Connect(format!("{what}: {e}{}", tail.describe()))
    };
    let service = match &spec.transport {
        Transport::Stdio { command, args, env } => {
            let command = expand(command, lookup).map_err(|e| McpError::Connect(e.to_string()))?;
            let mut cmd = tokio::process::Command::new(&command);
            // Nothing of catui's environment but the allow-list; the
            // server's own `env` on top.
            cmd.env_clear().envs(child.env.build(Tier::Approved));
            for arg in args {
                cmd.arg(expand(arg, lookup).map_err(|e| McpError::Connect(e.to_string()))?);
            }
            for (key, value) in env {
                cmd.env(
                    key,
                    expand(value, lookup).map_err(|e| McpError::Connect(e.to_string()))?,
                );
            }
            cmd.current_dir(child.project_root);
            // Its own process group: a Ctrl+C meant for catui does not
            // reach the server, and catui ends it when the session ends.
            cmd.process_group(0);
            cmd.kill_on_drop(true);
            let (transport, err) = TokioChildProcess::builder(cmd)
                .stderr(Stdio::piped())
                .spawn()
                .map_err(|e| fail(&format!("could not start `{command}`"), &e, &stderr))?;
            // It leads its own group: killed with catui's other groups
            // when catui exits, even while the handshake still waits.
            if let Some(pid) = transport.id().and_then(|p| i32::try_from(p).ok()) {
                crate::tools::bash::groups::track(pid);
            }
            if let Some(err) = err {
                let tail = stderr.clone();
                tokio::spawn(async move {
                    let mut lines = tokio::io::BufReader::new(err).lines();
                    while let Ok(Some(line)) = lines.next_line().await {
                        tail.push(line);
                    }
                });
            }
            client
                .serve(transport)
                .await
                .map_err(|e| fail("the MCP handshake failed", &e, &stderr))?
        }
        Transport::Http { url, headers } => {
            let url = expand(url, lookup).map_err(|e| McpError::Connect(e.to_string()))?;
            let mut custom = std::collections::HashMap::new();
            for (name, value) in headers {
                let value = expand(value, lookup).map_err(|e| McpError::Connect(e.to_string()))?;
                let name = http::HeaderName::from_bytes(name.as_bytes()).map_err(|_| {
                    McpError::Connect(format!("`{name}` is not a valid header name"))
                })?;
                // The value is never shown: it is usually a secret.
                let value = http::HeaderValue::from_str(&value).map_err(|_| {
                    McpError::Connect(format!("the value of header `{name}` is not valid"))
                })?;
                custom.insert(name, value);
            }
            let mut config = StreamableHttpClientTransportConfig::with_uri(url.clone());
            config.custom_headers = custom;
            use_ring_for_tls();
            let transport = StreamableHttpClientTransport::from_config(config);
            client
                .serve(transport)
                .await
                .map_err(|e| fail(&format!("could not connect to {url}"), &e, &stderr))?
        }
        Transport::Sdk => {
            let Some(channel) = sdk else {
                return Err(McpError::Connect(
                    "SDK servers are reached through the SDK's control channel".into(),
                ));
            };
            client
                .serve(SdkTransport::new(&spec.name, channel))
                .await
                .map_err(|e| {
                    fail(
                        "the MCP handshake with the SDK application failed",
                        &e,
                        &stderr,
                    )
                })?
        }
    };
    let capabilities = service
        .peer_info()
        .map(|info| to_value(&info.capabilities))
        .unwrap_or(Value::Null);
    let has = |what: &str| capabilities.get(what).is_some_and(|v| !v.is_null());
    let caller = Caller {
        peer: service.peer().clone(),
        stderr: stderr.clone(),
    };
    let tools = if has("tools") {
        caller
            .list_tools()
            .await
            .map_err(|e| McpError::Connect(e.to_string()))?
    } else {
        Vec::new()
    };
    let prompts = if has("prompts") {
        caller.list_prompts().await.unwrap_or_default()
    } else {
        Vec::new()
    };
    Ok(Connection {
        service,
        tools,
        prompts,
        has_resources: has("resources"),
        stderr,
    })
}

fn text_of(value: &Value, key: &str) -> String {
    value
        .get(key)
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string()
}

fn remote_tool(tool: &Value) -> RemoteTool {
    let mut schema = tool
        .get("inputSchema")
        .cloned()
        .filter(Value::is_object)
        .unwrap_or_else(|| serde_json::json!({"type": "object"}));
    if let Some(obj) = schema.as_object_mut() {
        obj.remove("$schema");
        obj.entry("type").or_insert_with(|| "object".into());
    }
    RemoteTool {
        name: text_of(tool, "name"),
        description: text_of(tool, "description"),
        input_schema: schema,
        read_only_hint: tool
            .pointer("/annotations/readOnlyHint")
            .and_then(Value::as_bool)
            .unwrap_or(false),
    }
}

fn remote_prompt(prompt: &Value) -> RemotePrompt {
    let mut arguments: Vec<(String, bool)> = prompt
        .get("arguments")
        .and_then(Value::as_array)
        .map(|args| {
            args.iter()
                .map(|a| {
                    (
                        text_of(a, "name"),
                        a.get("required").and_then(Value::as_bool).unwrap_or(false),
                    )
                })
                .collect()
        })
        .unwrap_or_default();
    arguments.sort_by_key(|(_, required)| !required);
    RemotePrompt {
        name: text_of(prompt, "name"),
        description: text_of(prompt, "description"),
        arguments,
    }
}

impl Connection {
    /// Whether the server went away (its process ended, the stream broke).
    pub fn is_closed(&self) -> bool {
        self.service.is_closed() || self.service.peer().is_transport_closed()
    }

    /// A handle for calls that outlives a lock on the connection.
    pub fn caller(&self) -> Caller {
        Caller {
            peer: self.service.peer().clone(),
            stderr: self.stderr.clone(),
        }
    }

    /// Ends the connection (and a stdio server's process).
    pub async fn close(mut self) {
        let _ = self.service.close().await;
    }
}

/// Makes requests to a connected server.
#[derive(Clone)]
pub struct Caller {
    peer: rmcp::service::Peer<RoleClient>,
    stderr: StderrTail,
}

impl Caller {
    fn failed(&self, what: &str, e: &dyn std::fmt::Display) -> McpError {
        McpError::Call(format!("{what}: {e}{}", self.stderr.describe()))
    }

    /// `tools/list`, every page.
    pub async fn list_tools(&self) -> Result<Vec<RemoteTool>, McpError> {
        let list = self
            .peer
            .list_all_tools()
            .await
            .map_err(|e| self.failed("listing its tools failed", &e))?;
        Ok(list.iter().map(|t| remote_tool(&to_value(t))).collect())
    }

    /// `prompts/list`, every page.
    pub async fn list_prompts(&self) -> Result<Vec<RemotePrompt>, McpError> {
        let list = self
            .peer
            .list_all_prompts()
            .await
            .map_err(|e| self.failed("listing its prompts failed", &e))?;
        Ok(list.iter().map(|p| remote_prompt(&to_value(p))).collect())
    }

    /// `tools/call`: the result as JSON (`content`, `isError`, ...).
    pub async fn call_tool(
        &self,
        name: &str,
        arguments: Map<String, Value>,
    ) -> Result<Value, McpError> {
        let params = CallToolRequestParams::new(name.to_string()).with_arguments(arguments);
        let result = self
            .peer
            .call_tool(params)
            .await
            .map_err(|e| self.failed("the call failed", &e))?;
        Ok(to_value(&result))
    }

    /// `resources/list`, every page.
    pub async fn list_resources(&self) -> Result<Vec<Value>, McpError> {
        let list = self
            .peer
            .list_all_resources()
            .await
            .map_err(|e| self.failed("listing resources failed", &e))?;
        Ok(list.iter().map(to_value).collect())
    }

    /// `resources/read`.
    pub async fn read_resource(&self, uri: &str) -> Result<Value, McpError> {
        let result = self
            .peer
            .read_resource(ReadResourceRequestParams::new(uri.to_string()))
            .await
            .map_err(|e| self.failed("reading the resource failed", &e))?;
        Ok(to_value(&result))
    }

    /// `prompts/get` with string arguments.
    pub async fn get_prompt(
        &self,
        name: &str,
        arguments: BTreeMap<String, String>,
    ) -> Result<Value, McpError> {
        let mut params = GetPromptRequestParams::new(name.to_string());
        if !arguments.is_empty() {
            params = params.with_arguments(
                arguments
                    .into_iter()
                    .map(|(k, v)| (k, Value::String(v)))
                    .collect(),
            );
        }
        let result = self
            .peer
            .get_prompt(params)
            .await
            .map_err(|e| self.failed("getting the prompt failed", &e))?;
        Ok(to_value(&result))
    }
}

/// rmcp's HTTP client takes the process's TLS crypto provider; catui's is
/// ring, the one its model clients use. rmcp's own default would link a
/// second crypto library (aws-lc) whose start-up code ran in every process
/// and whose pages made a one-shot run's memory several MiB larger. Called
/// before each HTTP connection; only the first call installs it.
fn use_ring_for_tls() {
    // Err: a provider is installed already, which is as good.
    let _ = rustls::crypto::ring::default_provider().install_default();
}
