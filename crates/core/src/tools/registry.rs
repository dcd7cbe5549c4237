//! The set of tools offered in a session.

use std::sync::Arc;

use catui_protocol::ToolSpec;

use super::Tool;

/// Tools by name, in the order they are offered to the model.
#[derive(Clone, Default)]
pub struct ToolRegistry {
    tools: Vec<Arc<dyn Tool>>,
    /// Older names still accepted from models (`Task` for `Agent`).
    aliases: Vec<(&'static str, &'static str)>,
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
        r.add(super::Adapter(Arc::new(super::bash::BashTool)));
        r.add(super::Adapter(Arc::new(super::write::WriteTool)));
        r.add(super::Adapter(Arc::new(super::edit::EditTool)));
        r.add(super::Adapter(Arc::new(
            super::notebook_edit::NotebookEditTool,
        )));
        r.add(super::Adapter(Arc::new(super::todo_write::TodoWriteTool)));
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

    /// Keeps only the tools for which `keep` is true.
    pub fn retain(&mut self, mut keep: impl FnMut(&str) -> bool) {
        self.tools.retain(|t| keep(t.name()));
    }

    /// Accepts `alias` as another name of the tool `name`.
    pub fn add_alias(&mut self, alias: &'static str, name: &'static str) {
        self.aliases.push((alias, name));
    }

    /// The tool called `name` (or known by that alias).
    pub fn get(&self, name: &str) -> Option<&Arc<dyn Tool>> {
        let name = self
            .aliases
            .iter()
            .find(|(a, _)| *a == name)
            .map(|(_, n)| *n)
            .unwrap_or(name);
        self.tools.iter().find(|t| t.name() == name)
    }

    pub fn names(&self) -> Vec<String> {
        self.tools.iter().map(|t| t.name().to_string()).collect()
    }

    pub fn specs(&self) -> Vec<ToolSpec> {
        self.tools
            .iter()
            .map(|t| ToolSpec {
                name: t.name().to_string(),
                description: t.description(),
                input_schema: t.input_schema(),
            })
            .collect()
    }
}
