//! The set of tools offered in a session.
//!
//! Most tools are fixed when the session starts. Tools that arrive later
//! (an MCP server that finishes connecting in the background, one that is
//! reconnected or switched off) come from a [`ToolSource`] the registry
//! asks each time it is consulted, so every conversation sees them as soon
//! as they exist without being rebuilt. A source also says what is still
//! on its way ([`ToolSource::arriving`]), so that a conversation can wait
//! for it before a request (bounded by each arrival's own deadline).

use std::sync::Arc;
use std::time::Instant;

use catui_protocol::ToolSpec;
use futures::future::BoxFuture;

use super::Tool;

/// Something whose tools are on their way.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Arriving {
    /// What it is, for the user (`MCP server `fs``).
    pub what: String,
    /// When it gives up at the latest.
    pub until: Instant,
}

/// Tools that may come and go while a session runs.
pub trait ToolSource: Send + Sync {
    /// The tools available now, in the order they are offered.
    fn tools(&self) -> Vec<Arc<dyn Tool>>;

    /// What is starting now and will offer tools soon (or fail by its
    /// deadline).
    fn arriving(&self) -> Vec<Arriving> {
        Vec::new()
    }

    /// Resolves once what [`ToolSource::arriving`] or
    /// [`ToolSource::tools`] say may have changed since this was called.
    fn changed(&self) -> BoxFuture<'static, ()> {
        Box::pin(std::future::pending())
    }
}

/// A filter kept for tools that arrive later (see [`ToolRegistry::retain`]).
type Keep = Arc<dyn Fn(&str) -> bool + Send + Sync>;

/// Tools by name, in the order they are offered to the model.
#[derive(Clone, Default)]
pub struct ToolRegistry {
    tools: Vec<Arc<dyn Tool>>,
    /// Older names still accepted from models (`Task` for `Agent`).
    aliases: Vec<(&'static str, &'static str)>,
    /// Where later tools come from, and the filters they must pass.
    dynamic: Vec<Arc<dyn ToolSource>>,
    keep: Vec<Keep>,
}

impl ToolRegistry {
    pub fn new() -> Self {
        Self::default()
    }

    /// The file tools every session has (reading, searching, writing, the
    /// todo list).
    pub fn builtin() -> Self {
        let mut r = Self::new();
        r.add(super::Adapter(Arc::new(super::read::ReadTool)));
        r.add(super::Adapter(Arc::new(super::glob::GlobTool)));
        r.add(super::Adapter(Arc::new(super::grep::GrepTool)));
        r.add(super::Adapter(Arc::new(super::bash::BashTool::default())));
        r.add(super::Adapter(Arc::new(super::shells::BashOutputTool)));
        r.add(super::Adapter(Arc::new(super::shells::BashInputTool)));
        r.add(super::Adapter(Arc::new(super::shells::KillShellTool)));
        r.add(super::Adapter(Arc::new(super::write::WriteTool)));
        r.add(super::Adapter(Arc::new(super::edit::EditTool)));
        r.add(super::Adapter(Arc::new(
            super::notebook_edit::NotebookEditTool,
        )));
        r.add(super::Adapter(Arc::new(super::todo_write::TodoWriteTool)));
        r.add(super::Adapter(Arc::new(super::web_fetch::WebFetchTool)));
        r.add(super::Adapter(Arc::new(
            super::ask_user_question::AskUserQuestionTool,
        )));
        r
    }

    pub fn add(&mut self, tool: impl Tool + 'static) {
        let tool: Arc<dyn Tool> = Arc::new(tool);
        self.tools.retain(|t| t.name() != tool.name());
        self.tools.push(tool);
    }

    /// Puts `tool` in the place of the fixed tool of the same name, when
    /// there is one (a read-only agent's own Bash).
    pub fn replace(&mut self, tool: impl Tool + 'static) {
        let tool: Arc<dyn Tool> = Arc::new(tool);
        if let Some(slot) = self.tools.iter_mut().find(|t| t.name() == tool.name()) {
            *slot = tool;
        }
    }

    /// Offers the tools of `source` after the fixed ones, as they are at
    /// each moment. A fixed tool wins over a later one of the same name.
    pub fn add_source(&mut self, source: Arc<dyn ToolSource>) {
        self.dynamic.push(source);
    }

    /// Keeps only the tools for which `keep` is true, now and among the
    /// tools that arrive later.
    pub fn retain(&mut self, keep: impl Fn(&str) -> bool + Send + Sync + 'static) {
        self.tools.retain(|t| keep(t.name()));
        self.keep.push(Arc::new(keep));
    }

    /// Accepts `alias` as another name of the tool `name`.
    pub fn add_alias(&mut self, alias: &'static str, name: &'static str) {
        self.aliases.push((alias, name));
    }

    /// The later tools that pass every filter and are not shadowed by a
    /// fixed tool.
    fn later(&self) -> Vec<Arc<dyn Tool>> {
        if self.dynamic.is_empty() {
            return Vec::new();
        }
        let mut out: Vec<Arc<dyn Tool>> = Vec::new();
        for tool in self.dynamic.iter().flat_map(|s| s.tools()) {
            let name = tool.name();
            let shadowed =
                self.tools.iter().any(|t| t.name() == name) || out.iter().any(|t| t.name() == name);
            if !shadowed && self.keep.iter().all(|k| k(name)) {
                out.push(tool);
            }
        }
        out
    }

    /// What the later tools' sources are still starting.
    pub fn arriving(&self) -> Vec<Arriving> {
        self.dynamic.iter().flat_map(|s| s.arriving()).collect()
    }

    /// Resolves once any source's tools or arrivals may have changed since
    /// this was called (never, without sources).
    pub fn changed(&self) -> BoxFuture<'static, ()> {
        if self.dynamic.is_empty() {
            return Box::pin(std::future::pending());
        }
        let changes: Vec<_> = self.dynamic.iter().map(|s| s.changed()).collect();
        Box::pin(async move {
            futures::future::select_all(changes).await;
        })
    }

    /// The tool called `name` (or known by that alias).
    pub fn get(&self, name: &str) -> Option<Arc<dyn Tool>> {
        let name = self
            .aliases
            .iter()
            .find(|(a, _)| *a == name)
            .map(|(_, n)| *n)
            .unwrap_or(name);
        self.tools
            .iter()
            .find(|t| t.name() == name)
            .cloned()
            .or_else(|| self.later().into_iter().find(|t| t.name() == name))
    }

    pub fn names(&self) -> Vec<String> {
        self.tools
            .iter()
            .chain(self.later().iter())
            .map(|t| t.name().to_string())
            .collect()
    }

    pub fn specs(&self) -> Vec<ToolSpec> {
        self.tools
            .iter()
            .chain(self.later().iter())
            .map(|t| ToolSpec {
                name: t.name().to_string(),
                description: t.description(),
                input_schema: t.input_schema(),
            })
            .collect()
    }
}
