//! The MCP client: the session's MCP servers, connected in parallel in the
//! background, their tools offered to every conversation as they arrive,
//! their resources through two read-only tools, their prompts as slash
//! commands (`/mcp__server__prompt`), and `/mcp` to see and manage them.
//!
//! A slow or dead server never delays the session: [`McpManager::start`]
//! returns at once, and a server's tools appear when it is ready (the tool
//! registry asks the manager each time, see
//! [`ToolSource`](crate::tools::registry::ToolSource)). Failures are shown
//! to the user (a notification, `/mcp`, the stream-json `init` line) and the
//! session goes on. A project's own servers start only once the user has
//! approved them for that project or trusts it ([`crate::trust`]).

pub mod client;
pub mod config;
pub mod sdk_transport;
pub mod slash_commands;
pub mod tool;

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use catui_protocol::sync::lock;
use serde_json::{Map, Value, json};
use tokio::sync::mpsc::{UnboundedSender, WeakUnboundedSender};
use tokio_util::sync::CancellationToken;

use crate::engine::EngineEvent;
use crate::tools::registry::ToolSource;
use crate::tools::{Tool, ToolError};
use client::{Caller, Connection, McpError};
use config::{ServerSpec, Transport};
pub use sdk_transport::SdkChannel;

/// Why a server could not be reconnected, switched or approved.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ManageError {
    #[error("there is no MCP server named `{0}`")]
    Unknown(String),
    #[error(
        "MCP server `{0}` is a project server that is not approved; approve it with /mcp approve {0}"
    )]
    NotApproved(String),
    #[error("could not remember the answer: {0}")]
    Remember(String),
}

/// Where a server stands.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum State {
    /// Connecting.
    Pending,
    Connected,
    /// Could not connect, or went away; the message says why.
    Failed(String),
    /// Switched off by the user for this session.
    Disabled,
    /// A project's server the user has not approved yet.
    NeedsApproval,
    /// A project's server the user declined.
    Rejected,
}

impl State {
    /// The status as the SDKs' `McpServerStatus` names it (`connected`,
    /// `failed`, `pending`, `disabled`): a server waiting for the user's
    /// approval is pending, a rejected one disabled.
    pub fn sdk_label(&self) -> &'static str {
        match self {
            State::Pending | State::NeedsApproval => "pending",
            State::Connected => "connected",
            State::Failed(_) => "failed",
            State::Disabled | State::Rejected => "disabled",
        }
    }

    /// catui's own name for the state (`/mcp`, the `state` field).
    pub fn label(&self) -> &'static str {
        match self {
            State::Pending => "pending",
            State::Connected => "connected",
            State::Failed(_) => "failed",
            State::Disabled => "disabled",
            State::NeedsApproval => "needs-approval",
            State::Rejected => "rejected",
        }
    }
}

/// One server as status views show it.
#[derive(Debug, Clone, PartialEq)]
pub struct ServerStatus {
    pub name: String,
    pub state: State,
    pub source: &'static str,
    pub tools: usize,
    pub prompts: usize,
    /// The connected server's tools: name, description, read-only (the
    /// user's override over the server's hint).
    pub tool_list: Vec<(String, String, bool)>,
}

impl ServerStatus {
    /// The SDK's `McpServerStatus` shape (with catui's extra fields).
    pub fn to_json(&self) -> Value {
        let tools: Vec<Value> = self
            .tool_list
            .iter()
            .map(|(name, description, read_only)| {
                json!({"name": name, "description": description,
                    "annotations": {"readOnly": read_only}})
            })
            .collect();
        let mut out = json!({
            "name": self.name,
            "status": self.state.sdk_label(),
            "state": self.state.label(),
            "scope": self.source,
            "source": self.source,
            "tools": tools,
        });
        match &self.state {
            State::Failed(error) => out["error"] = error.clone().into(),
            State::NeedsApproval => {
                out["error"] = format!(
                    "waiting for your approval of this project's server: /mcp approve {} or `catui mcp approve {}`",
                    self.name, self.name
                )
                .into()
            }
            State::Rejected => out["error"] = "you rejected this project's server".into(),
            _ => {}
        }
        out
    }
}

struct Server {
    spec: ServerSpec,
    state: State,
    connection: Option<Arc<Connection>>,
    tools: Vec<Arc<dyn Tool>>,
    /// Bumped on each (re)connect, so a late answer of an older attempt is
    /// dropped.
    generation: u64,
}

struct Inner {
    project_root: PathBuf,
    config_dir: PathBuf,
    /// Environment for `${VAR}` expansion: the settings' `env` over the
    /// process environment.
    env: HashMap<String, String>,
    servers: Mutex<Vec<Server>>,
    events: Mutex<Option<WeakUnboundedSender<EngineEvent>>>,
    /// The SDK application's control channel, once the front end said
    /// whether there is one; in-process servers wait for it.
    sdk: Mutex<SdkLink>,
    sdk_known: tokio::sync::Notify,
}

/// Whether in-process SDK servers can be reached.
#[derive(Clone)]
enum SdkLink {
    /// The front end has not said yet.
    Unknown,
    /// No SDK application drives this session.
    Absent,
    Channel(Arc<dyn SdkChannel>),
}

/// The session's MCP servers. Cheap to clone.
#[derive(Clone)]
pub struct McpManager {
    inner: Arc<Inner>,
}

impl McpManager {
    /// A manager for `servers` (later entries of the same name replace
    /// earlier ones). A project's server starts when `answer` says so (the
    /// user's settings, approvals by name, the project's trust: see
    /// `builder::mcp`). Nothing starts until [`McpManager::start`].
    pub fn new(
        servers: Vec<ServerSpec>,
        project_root: &Path,
        config_dir: &Path,
        env: HashMap<String, String>,
        answer: &dyn Fn(&str) -> Option<bool>,
    ) -> Self {
        let mut by_name: Vec<ServerSpec> = Vec::new();
        for spec in servers {
            by_name.retain(|s| s.name != spec.name);
            by_name.push(spec);
        }
        let servers = by_name
            .into_iter()
            .map(|spec| {
                let state = if spec.source.needs_approval() {
                    match answer(&spec.name) {
                        Some(true) => State::Pending,
                        Some(false) => State::Rejected,
                        None => State::NeedsApproval,
                    }
                } else {
                    State::Pending
                };
                Server {
                    spec,
                    state,
                    connection: None,
                    tools: Vec::new(),
                    generation: 0,
                }
            })
            .collect();
        McpManager {
            inner: Arc::new(Inner {
                project_root: project_root.to_path_buf(),
                config_dir: config_dir.to_path_buf(),
                env,
                servers: Mutex::new(servers),
                events: Mutex::new(None),
                sdk: Mutex::new(SdkLink::Unknown),
                sdk_known: tokio::sync::Notify::new(),
            }),
        }
    }

    /// Whether any server is configured.
    pub fn is_empty(&self) -> bool {
        lock(&self.inner.servers).is_empty()
    }

    /// Where failures and arrivals are reported.
    /// Holds the sender weakly: the servers never keep a session's event
    /// channel open after the engine is gone.
    pub fn set_events(&self, events: &UnboundedSender<EngineEvent>) {
        *lock(&self.inner.events) = Some(events.downgrade());
    }

    fn notify(&self, text: String) {
        let events = lock(&self.inner.events).as_ref().and_then(|e| e.upgrade());
        if let Some(events) = events {
            let _ = events.send(EngineEvent::Notification {
                key: "mcp".into(),
                text,
            });
        }
    }

    /// The SDK application's control channel for its in-process servers
    /// (`"type": "sdk"`), or `None` when no SDK application drives the
    /// session (those servers then fail with the reason). Until a front end
    /// calls this, such servers stay pending.
    pub fn set_sdk_channel(&self, channel: Option<Arc<dyn SdkChannel>>) {
        *lock(&self.inner.sdk) = match channel {
            Some(c) => SdkLink::Channel(c),
            None => SdkLink::Absent,
        };
        self.inner.sdk_known.notify_waiters();
    }

    /// Waits until the front end said whether there is an SDK channel.
    async fn sdk_channel(&self) -> Option<Arc<dyn SdkChannel>> {
        loop {
            let known = self.inner.sdk_known.notified();
            match lock(&self.inner.sdk).clone() {
                SdkLink::Channel(c) => return Some(c),
                SdkLink::Absent => return None,
                SdkLink::Unknown => {}
            }
            known.await;
        }
    }

    /// Starts connecting every server that may start, each in its own task;
    /// returns at once. Needs a Tokio runtime.
    pub fn start(&self) {
        let names: Vec<String> = lock(&self.inner.servers)
            .iter()
            .filter(|s| s.state == State::Pending)
            .map(|s| s.spec.name.clone())
            .collect();
        if tokio::runtime::Handle::try_current().is_err() {
            let mut servers = lock(&self.inner.servers);
            for server in servers.iter_mut().filter(|s| names.contains(&s.spec.name)) {
                server.state = State::Failed("catui could not start it (no async runtime)".into());
            }
            return;
        }
        for name in names {
            self.spawn_connect(&name);
        }
    }

    /// Adds servers that became known after the session started (an SDK
    /// application names its in-process servers in `initialize`) and
    /// starts them; a name already configured is left as it is.
    pub fn add(&self, specs: Vec<ServerSpec>) {
        let mut added = Vec::new();
        {
            let mut servers = lock(&self.inner.servers);
            for spec in specs {
                if servers.iter().any(|s| s.spec.name == spec.name) {
                    continue;
                }
                added.push(spec.name.clone());
                servers.push(Server {
                    spec,
                    state: State::Pending,
                    connection: None,
                    tools: Vec::new(),
                    generation: 0,
                });
            }
        }
        if tokio::runtime::Handle::try_current().is_ok() {
            for name in added {
                self.spawn_connect(&name);
            }
        }
    }

    /// Project servers waiting for the user's approval.
    pub fn awaiting_approval(&self) -> Vec<String> {
        lock(&self.inner.servers)
            .iter()
            .filter(|s| s.state == State::NeedsApproval)
            .map(|s| s.spec.name.clone())
            .collect()
    }

    fn spawn_connect(&self, name: &str) {
        let (spec, generation) = {
            let mut servers = lock(&self.inner.servers);
            let Some(server) = servers.iter_mut().find(|s| s.spec.name == name) else {
                return;
            };
            server.generation += 1;
            server.state = State::Pending;
            server.tools.clear();
            if let Some(old) = server.connection.take() {
                close_later(old);
            }
            (server.spec.clone(), server.generation)
        };
        let manager = self.clone();
        tokio::spawn(async move {
            let env = manager.inner.env.clone();
            let lookup = move |key: &str| env.get(key).cloned().or_else(|| std::env::var(key).ok());
            let sdk = match spec.transport {
                Transport::Sdk => match manager.sdk_channel().await {
                    Some(channel) => Some(channel),
                    None => {
                        let why = "an in-process SDK server needs an SDK application driving catui over stream-json";
                        manager.connected(
                            &spec.name,
                            generation,
                            Err(McpError::Connect(why.into())),
                        );
                        return;
                    }
                },
                _ => None,
            };
            let result = client::connect(&spec, &manager.inner.project_root, &lookup, sdk).await;
            manager.connected(&spec.name, generation, result);
        });
    }

    fn connected(&self, name: &str, generation: u64, result: Result<Connection, McpError>) {
        let mut servers = lock(&self.inner.servers);
        let Some(server) = servers.iter_mut().find(|s| s.spec.name == name) else {
            return;
        };
        if server.generation != generation || server.state != State::Pending {
            if let Ok(connection) = result {
                close_later(Arc::new(connection));
            }
            return;
        }
        match result {
            Ok(connection) => {
                let connection = Arc::new(connection);
                server.tools = connection
                    .tools
                    .iter()
                    .map(|remote| {
                        let read_only = server
                            .spec
                            .read_only
                            .get(&remote.name)
                            .copied()
                            .unwrap_or(remote.read_only_hint);
                        Arc::new(tool::McpTool::new(
                            name,
                            remote.clone(),
                            read_only,
                            self.clone(),
                        )) as Arc<dyn Tool>
                    })
                    .collect();
                server.state = State::Connected;
                server.connection = Some(connection.clone());
                let text = format!(
                    "MCP server `{name}` connected ({} tools)",
                    server.tools.len()
                );
                drop(servers);
                self.notify(text);
                self.watch(name.to_string(), generation, Arc::downgrade(&connection));
            }
            Err(error) => {
                let text = format!("MCP server `{name}` failed to connect: {error}");
                server.state = State::Failed(error.to_string());
                drop(servers);
                self.notify(text);
            }
        }
    }

    /// Reports a server that goes away while the session runs.
    fn watch(&self, name: String, generation: u64, connection: std::sync::Weak<Connection>) {
        let manager = self.clone();
        tokio::spawn(async move {
            loop {
                tokio::time::sleep(Duration::from_millis(500)).await;
                let Some(connection) = connection.upgrade() else {
                    return;
                };
                if !connection.is_closed() {
                    continue;
                }
                let mut servers = lock(&manager.inner.servers);
                let Some(server) = servers.iter_mut().find(|s| s.spec.name == name) else {
                    return;
                };
                if server.generation != generation || server.state != State::Connected {
                    return;
                }
                let why = format!("the server stopped{}", connection.stderr.describe());
                server.state = State::Failed(why.clone());
                server.tools.clear();
                server.connection = None;
                drop(servers);
                manager.notify(format!(
                    "MCP server `{name}`: {why}. Reconnect it with /mcp reconnect {name}."
                ));
                return;
            }
        });
    }

    /// Every server's status, in configuration order.
    pub fn status(&self) -> Vec<ServerStatus> {
        lock(&self.inner.servers)
            .iter()
            .map(|s| ServerStatus {
                name: s.spec.name.clone(),
                state: s.state.clone(),
                source: s.spec.source.label(),
                tools: s.tools.len(),
                prompts: s.connection.as_ref().map_or(0, |c| c.prompts.len()),
                tool_list: s
                    .connection
                    .as_ref()
                    .map(|c| {
                        c.tools
                            .iter()
                            .map(|t| {
                                let read_only = s
                                    .spec
                                    .read_only
                                    .get(&t.name)
                                    .copied()
                                    .unwrap_or(t.read_only_hint);
                                (t.name.clone(), t.description.clone(), read_only)
                            })
                            .collect()
                    })
                    .unwrap_or_default(),
            })
            .collect()
    }

    /// The prompts of the connected servers: (server, prompt).
    pub fn prompts(&self) -> Vec<(String, client::RemotePrompt)> {
        lock(&self.inner.servers)
            .iter()
            .filter_map(|s| s.connection.as_ref().map(|c| (s, c)))
            .flat_map(|(s, c)| c.prompts.iter().map(|p| (s.spec.name.clone(), p.clone())))
            .collect()
    }

    /// Connects `name` again (after it died, or to pick up changes).
    pub fn reconnect(&self, name: &str) -> Result<(), ManageError> {
        let state = self.state_of(name)?;
        if matches!(state, State::NeedsApproval | State::Rejected) {
            return Err(ManageError::NotApproved(name.to_string()));
        }
        self.spawn_connect(name);
        Ok(())
    }

    /// Switches `name` off (closing it) or on (connecting it) for this
    /// session.
    pub fn set_enabled(&self, name: &str, enabled: bool) -> Result<(), ManageError> {
        let state = self.state_of(name)?;
        if enabled {
            if state == State::Disabled {
                self.spawn_connect(name);
            }
            return Ok(());
        }
        let mut servers = lock(&self.inner.servers);
        if let Some(server) = servers.iter_mut().find(|s| s.spec.name == name) {
            server.generation += 1;
            server.state = State::Disabled;
            server.tools.clear();
            if let Some(old) = server.connection.take() {
                close_later(old);
            }
        }
        Ok(())
    }

    /// Records the user's answer about a project server (for this project,
    /// from now on) and connects it when approved.
    pub fn approve(&self, name: &str, approved: bool) -> Result<(), ManageError> {
        let state = self.state_of(name)?;
        let is_project = lock(&self.inner.servers)
            .iter()
            .any(|s| s.spec.name == name && s.spec.source.needs_approval());
        if is_project {
            crate::trust::update(&self.inner.config_dir, &self.inner.project_root, |t| {
                t.mcp_servers.insert(name.to_string(), approved);
            })
            .map_err(|e| ManageError::Remember(e.to_string()))?;
        }
        if approved {
            if matches!(
                state,
                State::NeedsApproval | State::Rejected | State::Disabled
            ) {
                self.spawn_connect(name);
            }
        } else {
            let mut servers = lock(&self.inner.servers);
            if let Some(server) = servers.iter_mut().find(|s| s.spec.name == name) {
                server.generation += 1;
                server.state = State::Rejected;
                server.tools.clear();
                if let Some(old) = server.connection.take() {
                    close_later(old);
                }
            }
        }
        Ok(())
    }

    fn state_of(&self, name: &str) -> Result<State, ManageError> {
        lock(&self.inner.servers)
            .iter()
            .find(|s| s.spec.name == name)
            .map(|s| s.state.clone())
            .ok_or_else(|| ManageError::Unknown(name.to_string()))
    }

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

    /// Closes every connection (and ends stdio servers' processes).
    pub async fn shutdown(&self) {
        let connections: Vec<Arc<Connection>> = lock(&self.inner.servers)
            .iter_mut()
            .filter_map(|s| {
                s.generation += 1;
                s.tools.clear();
                s.connection.take()
            })
            .collect();
        for connection in connections {
            if let Ok(connection) = Arc::try_unwrap(connection) {
                connection.close().await;
            }
        }
    }
}

/// Closes a connection nobody uses any more, once calls in flight let go.
fn close_later(connection: Arc<Connection>) {
    if let Ok(handle) = tokio::runtime::Handle::try_current() {
        handle.spawn(async move {
            if let Ok(connection) = Arc::try_unwrap(connection) {
                connection.close().await;
            }
        });
    }
}

impl ToolSource for McpManager {
    fn tools(&self) -> Vec<Arc<dyn Tool>> {
        let servers = lock(&self.inner.servers);
        let mut tools: Vec<Arc<dyn Tool>> = servers
            .iter()
            .flat_map(|s| s.tools.iter().cloned())
            .collect();
        let resources = servers
            .iter()
            .any(|s| s.connection.as_ref().is_some_and(|c| c.has_resources));
        drop(servers);
        if resources {
            tools.extend(tool::resource_tools(self));
        }
        tools
    }
}
