//! The MCP client: the session's MCP servers, connected in parallel in the
//! background, their tools offered to every conversation as they arrive,
//! their resources through two read-only tools, their prompts as slash
//! commands (`/mcp__server__prompt`), and `/mcp` to see and manage them.
//!
//! Starting the session never waits for a server: [`McpManager::start`]
//! returns at once. A server that is still starting is reported as
//! *arriving* to the tool registry ([`ToolSource::arriving`]), so the
//! conversation's next request waits for it, at most until the server's
//! startup timeout ([`config::DEFAULT_STARTUP_TIMEOUT`], `startupTimeoutMs`,
//! `MCP_TIMEOUT`), after which it fails. A server's tools are listed again
//! when it says they changed (`notifications/tools/list_changed`) and when
//! it is reconnected; the registry asks the manager each time, so they
//! reach the next request. Failures are shown to the user (a notice, `/mcp`,
//! the stream-json `init` line) and the session goes on. A project's own
//! servers start only once the user has approved them for that project or
//! trusts it ([`crate::trust`]).

mod calls;
pub mod client;
pub mod config;
mod offer;
pub mod sdk_transport;
pub mod slash_commands;
mod status;
pub mod tool;

use catui_sandbox::child_env::EnvPolicy;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use catui_protocol::sync::lock;
use tokio::sync::mpsc::{UnboundedSender, WeakUnboundedSender};

use crate::engine::EngineEvent;
use crate::tools::Tool;
use client::{Connection, McpError, RemotePrompt, RemoteTool};
use config::{ServerSpec, Transport};
pub use sdk_transport::SdkChannel;
pub use status::{ManageError, ServerStatus, State};

struct Server {
    spec: ServerSpec,
    state: State,
    connection: Option<Arc<Connection>>,
    /// What the server offers now (listed again when it says they changed).
    remote_tools: Vec<RemoteTool>,
    prompts: Vec<RemotePrompt>,
    tools: Vec<Arc<dyn Tool>>,
    /// Bumped on each (re)connect, so a late answer of an older attempt is
    /// dropped.
    generation: u64,
    /// While it starts: when its startup timeout runs out.
    deadline: Option<Instant>,
    /// It said its lists changed before it had finished starting.
    lists_stale: bool,
}

impl Server {
    fn new(spec: ServerSpec, state: State) -> Self {
        Server {
            spec,
            state,
            connection: None,
            remote_tools: Vec::new(),
            prompts: Vec::new(),
            tools: Vec::new(),
            generation: 0,
            deadline: None,
            lists_stale: false,
        }
    }

    /// Forgets the connection and what it offered (closing it once calls in
    /// flight let go), so that a late answer of this attempt is dropped.
    fn disconnect(&mut self, state: State) {
        self.generation += 1;
        self.state = state;
        self.deadline = None;
        self.tools.clear();
        self.remote_tools.clear();
        self.prompts.clear();
        if let Some(old) = self.connection.take() {
            close_later(old);
        }
    }

    fn read_only(&self, tool: &RemoteTool) -> bool {
        self.spec
            .read_only
            .get(&tool.name)
            .copied()
            .unwrap_or(tool.read_only_hint)
    }
}

struct Inner {
    project_root: PathBuf,
    config_dir: PathBuf,
    /// Environment for `${VAR}` expansion: the settings' `env` over the
    /// process environment.
    env: HashMap<String, String>,
    /// What the settings add to a stdio server's environment, which is
    /// built from the allow-list (`catui_sandbox::child_env`).
    child_env: EnvPolicy,
    /// The startup timeout of servers that name none.
    startup_timeout: Duration,
    servers: Mutex<Vec<Server>>,
    events: Mutex<Option<WeakUnboundedSender<EngineEvent>>>,
    /// The SDK application's control channel, once the front end said
    /// whether there is one; in-process servers wait for it.
    sdk: Mutex<SdkLink>,
    sdk_known: tokio::sync::Notify,
    /// Bumped whenever a server's state or tools change.
    changes: tokio::sync::watch::Sender<u64>,
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
    /// `builder::mcp`). `env` also gives the default startup timeout
    /// ([`config::startup_timeout_from`]). Nothing starts until
    /// [`McpManager::start`].
    pub fn new(
        servers: Vec<ServerSpec>,
        project_root: &Path,
        config_dir: &Path,
        env: HashMap<String, String>,
        child_env: EnvPolicy,
        answer: &dyn Fn(&ServerSpec) -> Option<bool>,
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
                    match answer(&spec) {
                        Some(true) => State::Pending,
                        Some(false) => State::Rejected,
                        None => State::NeedsApproval,
                    }
                } else {
                    State::Pending
                };
                Server::new(spec, state)
            })
            .collect();
        let startup_timeout = config::startup_timeout_from(&|name| env.get(name).cloned());
        McpManager {
            inner: Arc::new(Inner {
                project_root: project_root.to_path_buf(),
                config_dir: config_dir.to_path_buf(),
                env,
                child_env,
                startup_timeout,
                servers: Mutex::new(servers),
                events: Mutex::new(None),
                sdk: Mutex::new(SdkLink::Unknown),
                sdk_known: tokio::sync::Notify::new(),
                changes: tokio::sync::watch::Sender::new(0),
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

    /// Tells the user: quietly for news, always for a server that failed
    /// (a headless run prints those on stderr even without `--verbose`).
    fn notify(&self, text: String, problem: bool) {
        let events = lock(&self.inner.events).as_ref().and_then(|e| e.upgrade());
        if let Some(events) = events {
            let key = "mcp".to_string();
            let _ = events.send(if problem {
                EngineEvent::Advice { key, text }
            } else {
                EngineEvent::Notification { key, text }
            });
        }
    }

    /// Wakes whoever waits for servers to finish starting.
    fn report_change(&self) {
        self.inner.changes.send_modify(|n| *n = n.wrapping_add(1));
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
        self.connect_all(names);
    }

    /// Adds servers that became known after the session started (an SDK
    /// application names its in-process servers, or the TypeScript SDK all
    /// its servers, in `initialize`) and starts them; a name already
    /// configured is left as it is.
    pub fn add(&self, specs: Vec<ServerSpec>) {
        let mut added = Vec::new();
        {
            let mut servers = lock(&self.inner.servers);
            for spec in specs {
                if servers.iter().any(|s| s.spec.name == spec.name) {
                    continue;
                }
                added.push(spec.name.clone());
                servers.push(Server::new(spec, State::Pending));
            }
        }
        self.connect_all(added);
    }

    fn connect_all(&self, names: Vec<String>) {
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

    /// Project servers waiting for the user's approval.
    pub fn awaiting_approval(&self) -> Vec<String> {
        lock(&self.inner.servers)
            .iter()
            .filter(|s| s.state == State::NeedsApproval)
            .map(|s| s.spec.name.clone())
            .collect()
    }

    /// Connects `name` in its own task, bounded by its startup timeout
    /// (when that runs out the attempt is dropped, which ends a stdio
    /// server's process).
    fn spawn_connect(&self, name: &str) {
        let (spec, generation, timeout, deadline) = {
            let mut servers = lock(&self.inner.servers);
            let Some(server) = servers.iter_mut().find(|s| s.spec.name == name) else {
                return;
            };
            server.disconnect(State::Pending);
            let timeout = server
                .spec
                .startup_timeout
                .unwrap_or(self.inner.startup_timeout);
            let deadline = Instant::now() + timeout;
            server.deadline = Some(deadline);
            (server.spec.clone(), server.generation, timeout, deadline)
        };
        self.report_change();
        let manager = self.clone();
        tokio::spawn(async move {
            let attempt = manager.connect(&spec, generation);
            let result = match tokio::time::timeout_at(deadline.into(), attempt).await {
                Ok(result) => result,
                Err(_) => Err(McpError::Connect(format!(
                    "it did not finish starting within {} (raise `startupTimeoutMs` for this server, or MCP_TIMEOUT, in milliseconds)",
                    describe_duration(timeout)
                ))),
            };
            manager.connected(&spec.name, generation, result);
        });
    }

    /// One connection attempt: the SDK channel for in-process servers, then
    /// the transport and the handshake.
    async fn connect(&self, spec: &ServerSpec, generation: u64) -> Result<Connection, McpError> {
        let env = self.inner.env.clone();
        let lookup = move |key: &str| env.get(key).cloned().or_else(|| std::env::var(key).ok());
        let sdk = match spec.transport {
            Transport::Sdk => match self.sdk_channel().await {
                Some(channel) => Some(channel),
                None => {
                    return Err(McpError::Connect(
                        "an in-process SDK server needs an SDK application driving catui over stream-json".into(),
                    ));
                }
            },
            _ => None,
        };
        let lists_changed = self.on_lists_changed(&spec.name, generation);
        let child = client::Child {
            project_root: &self.inner.project_root,
            env: &self.inner.child_env,
        };
        client::connect(spec, &child, &lookup, sdk, lists_changed).await
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
        server.deadline = None;
        match result {
            Ok(connection) => {
                let connection = Arc::new(connection);
                server.remote_tools = connection.tools.clone();
                server.prompts = connection.prompts.clone();
                server.tools = self.tool_objects(server);
                server.state = State::Connected;
                server.connection = Some(connection.clone());
                let stale = std::mem::take(&mut server.lists_stale);
                let text = format!(
                    "MCP server `{name}` connected ({} tools)",
                    server.tools.len()
                );
                drop(servers);
                // Said before waiters wake, so it comes before the request.
                self.notify(text, false);
                self.report_change();
                self.watch(name.to_string(), generation, Arc::downgrade(&connection));
                if stale {
                    let manager = self.clone();
                    let name = name.to_string();
                    tokio::spawn(async move { manager.relist(&name, generation).await });
                }
            }
            Err(error) => {
                let text = format!("MCP server `{name}` failed to connect: {error}");
                server.state = State::Failed(error.to_string());
                drop(servers);
                self.notify(text, true);
                self.report_change();
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
                server.disconnect(State::Failed(why.clone()));
                drop(servers);
                manager.report_change();
                manager.notify(
                    format!("MCP server `{name}`: {why}. Reconnect it with /mcp reconnect {name}."),
                    true,
                );
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
                prompts: s.prompts.len(),
                tool_list: s
                    .remote_tools
                    .iter()
                    .map(|t| (t.name.clone(), t.description.clone(), s.read_only(t)))
                    .collect(),
            })
            .collect()
    }

    /// The prompts of the connected servers: (server, prompt).
    pub fn prompts(&self) -> Vec<(String, RemotePrompt)> {
        lock(&self.inner.servers)
            .iter()
            .filter(|s| s.state == State::Connected)
            .flat_map(|s| s.prompts.iter().map(|p| (s.spec.name.clone(), p.clone())))
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
        self.disconnect(name, State::Disabled);
        Ok(())
    }

    /// Records the user's answer about a project server (for this project,
    /// from now on) and connects it when approved.
    pub fn approve(&self, name: &str, approved: bool) -> Result<(), ManageError> {
        let state = self.state_of(name)?;
        // The approval binds what the server runs now.
        let content = lock(&self.inner.servers)
            .iter()
            .find(|s| s.spec.name == name && s.spec.source.needs_approval())
            .map(|s| s.spec.approval_digest(&self.inner.project_root));
        if let Some(content) = content {
            crate::trust::update(&self.inner.config_dir, &self.inner.project_root, |t| {
                t.answer_server(name, approved, &content);
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
            self.disconnect(name, State::Rejected);
        }
        Ok(())
    }

    fn disconnect(&self, name: &str, state: State) {
        if let Some(server) = lock(&self.inner.servers)
            .iter_mut()
            .find(|s| s.spec.name == name)
        {
            server.disconnect(state);
        }
        self.report_change();
    }

    fn state_of(&self, name: &str) -> Result<State, ManageError> {
        lock(&self.inner.servers)
            .iter()
            .find(|s| s.spec.name == name)
            .map(|s| s.state.clone())
            .ok_or_else(|| ManageError::Unknown(name.to_string()))
    }

    /// Closes every connection (and ends stdio servers' processes).
    pub async fn shutdown(&self) {
        let connections: Vec<Arc<Connection>> = lock(&self.inner.servers)
            .iter_mut()
            .filter_map(|s| {
                s.generation += 1;
                s.deadline = None;
                s.tools.clear();
                s.connection.take()
            })
            .collect();
        self.report_change();
        for connection in connections {
            if let Ok(connection) = Arc::try_unwrap(connection) {
                connection.close().await;
            }
        }
    }
}

/// `2 s`, `1.5 s`, `250 ms`.
fn describe_duration(d: Duration) -> String {
    let ms = d.as_millis();
    if ms < 1000 {
        format!("{ms} ms")
    } else if ms.is_multiple_of(1000) {
        format!("{} s", ms / 1000)
    } else {
        format!("{:.1} s", d.as_secs_f64())
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

#[cfg(test)]
#[path = "mod_tests.rs"]
mod tests;
