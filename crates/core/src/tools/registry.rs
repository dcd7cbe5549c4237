//! The set of tools offered in a session.

use std::sync::Arc;

use catui_protocol::ToolSpec;

use super::Tool;

/// Tools by name, in the order they are offered to the model.
#[derive(Clone, Default)]
pub struct ToolRegistry {
    tools: Vec<Arc<dyn Tool>>,
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
        r.add(super::Adapter(Arc::new(super::write::WriteTool)));
        r.add(super::Adapter(Arc::new(super::edit::EditTool)));
        r.add(super::Adapter(Arc::new(
            super::notebook_edit::NotebookEditTool,
        )));
        r.add(super::Adapter(Arc::new(super::todo_write::TodoWriteTool)));
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

    pub fn get(&self, name: &str) -> Option<&Arc<dyn Tool>> {
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
