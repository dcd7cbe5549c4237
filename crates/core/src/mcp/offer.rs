//! What the servers offer the session's conversations: their tools as a
//! [`ToolSource`] (with the servers still starting as arrivals the next
//! request waits for), and the lists again when a server says they changed
//! (`notifications/tools/list_changed`, `prompts/list_changed`), and
//! waiting for the servers to settle ([`McpManager::settled`]).

use std::sync::Arc;

use catui_protocol::sync::lock;
use futures::future::BoxFuture;

use super::client::ListsChanged;
use super::{McpManager, Server, State, tool};
use crate::tools::Tool;
use crate::tools::registry::{Arriving, ToolSource};

/// How long past a server's startup deadline [`McpManager::settled`]
/// waits at most: the server's own timeout reports it failed within this.
const SETTLE_GRACE: std::time::Duration = std::time::Duration::from_millis(250);

impl McpManager {
    /// Waits until no server is still starting, each at most until its
    /// startup deadline: then [`McpManager::status`] is what the model
    /// will be offered (the SDK's `init` reports it). In-process SDK
    /// servers are not waited for: they start through the application's
    /// control channel, which the caller has not opened yet. Returns at
    /// once when nothing is starting (no servers: no cost).
    pub async fn settled(&self) {
        loop {
            // Subscribed before looking, so no change is missed between.
            let changed = ToolSource::changed(self);
            let now = std::time::Instant::now();
            let until = lock(&self.inner.servers)
                .iter()
                .filter(|s| {
                    s.state == State::Pending
                        && !matches!(s.spec.transport, super::config::Transport::Sdk)
                })
                .filter_map(|s| s.deadline)
                .map(|d| d + SETTLE_GRACE)
                .filter(|d| *d > now)
                .max();
            let Some(until) = until else {
                break;
            };
            tokio::select! {
                _ = changed => {}
                _ = tokio::time::sleep_until(until.into()) => {}
            }
        }
    }

    /// What runs when server `name` (this attempt) says its lists changed.
    pub(super) fn on_lists_changed(&self, name: &str, generation: u64) -> ListsChanged {
        let inner = Arc::downgrade(&self.inner);
        let name = name.to_string();
        Arc::new(move || {
            let Some(inner) = inner.upgrade() else {
                return;
            };
            let Ok(runtime) = tokio::runtime::Handle::try_current() else {
                return;
            };
            let manager = McpManager { inner };
            let name = name.clone();
            runtime.spawn(async move { manager.relist(&name, generation).await });
        })
    }

    /// The `Tool`s of server `name`'s remote tools.
    pub(super) fn tool_objects(&self, server: &Server) -> Vec<Arc<dyn Tool>> {
        server
            .remote_tools
            .iter()
            .map(|remote| {
                Arc::new(tool::McpTool::new(
                    &server.spec.name,
                    remote.clone(),
                    server.read_only(remote),
                    self.clone(),
                )) as Arc<dyn Tool>
            })
            .collect()
    }

    /// Lists server `name`'s tools and prompts again (it said they
    /// changed); what it offers now reaches the next model request.
    pub(super) async fn relist(&self, name: &str, generation: u64) {
        let caller = {
            let mut servers = lock(&self.inner.servers);
            let Some(server) = servers
                .iter_mut()
                .find(|s| s.spec.name == name && s.generation == generation)
            else {
                return;
            };
            match (&server.state, &server.connection) {
                (State::Connected, Some(c)) => c.caller(),
                (State::Pending, _) => {
                    // Listed once it has started.
                    server.lists_stale = true;
                    return;
                }
                _ => return,
            }
        };
        let tools = caller.list_tools().await;
        let prompts = caller.list_prompts().await;
        let mut servers = lock(&self.inner.servers);
        let Some(server) = servers.iter_mut().find(|s| {
            s.spec.name == name && s.generation == generation && s.state == State::Connected
        }) else {
            return;
        };
        let text = match tools {
            Ok(tools) => {
                server.remote_tools = tools;
                server.tools = self.tool_objects(server);
                format!(
                    "MCP server `{name}`: its tools changed ({} tools now)",
                    server.tools.len()
                )
            }
            Err(e) => {
                format!("MCP server `{name}` said its tools changed, but listing them failed: {e}")
            }
        };
        if let Ok(prompts) = prompts {
            server.prompts = prompts;
        }
        drop(servers);
        self.report_change();
        self.notify(text, false);
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

    /// The servers that are being started (not those held back for
    /// approval, switched off or failed), each until its startup timeout.
    fn arriving(&self) -> Vec<Arriving> {
        lock(&self.inner.servers)
            .iter()
            .filter(|s| s.state == State::Pending)
            .filter_map(|s| {
                s.deadline.map(|until| Arriving {
                    what: format!("MCP server `{}`", s.spec.name),
                    until,
                })
            })
            .collect()
    }

    fn changed(&self) -> BoxFuture<'static, ()> {
        let mut changes = self.inner.changes.subscribe();
        Box::pin(async move {
            if changes.changed().await.is_err() {
                // The manager is gone: nothing will change any more.
                std::future::pending::<()>().await;
            }
        })
    }
}
