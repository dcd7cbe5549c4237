//! TodoWrite: replaces the session's task checklist (kept in
//! [`ToolContext::todos`]) so the model can plan and track multi-step work
//! and the user can follow it.

use async_trait::async_trait;
use catui_protocol::tool_names;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{ToolContext, ToolError, ToolOutput, TypedTool};
use crate::permissions::Access;

/// Where a task stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum TodoStatus {
    Pending,
    InProgress,
    Completed,
}

/// One entry of the session's todo list.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TodoItem {
    /// What to do, in the imperative ("Run the tests").
    pub content: String,
    /// pending, in_progress or completed.
    pub status: TodoStatus,
    /// The same task as an ongoing action ("Running the tests"), shown while it is in progress.
    #[serde(rename = "activeForm")]
    pub active_form: String,
}

pub struct TodoWriteTool;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TodoWriteInput {
    /// The complete, updated todo list; it replaces the previous one.
    pub todos: Vec<TodoItem>,
}

#[async_trait]
impl TypedTool for TodoWriteTool {
    type Input = TodoWriteInput;
    fn name(&self) -> &'static str {
        tool_names::TODO_WRITE
    }
    fn description(&self) -> String {
        "Keeps a checklist of the tasks in the current piece of work, visible to the user.\n\
         \n\
         Use it for work with three or more distinct steps, when the user gives several tasks at \
         once, or when they ask for a todo list; skip it for a single small change or a question.\n\
         \n\
         - Each call sends the whole list; it replaces the previous one.\n\
         - Each task has `content` (imperative: \"Fix the parser\"), `activeForm` (ongoing: \
           \"Fixing the parser\") and `status`: pending, in_progress or completed.\n\
         - While you work, exactly one task is in_progress (never more; none once everything is \
           done). Mark it completed as soon as it is done, not in batches later, then start the \
           next.\n\
         - Only mark a task completed when it is fully done: not if tests fail, the work is \
           partial, or you hit an error you could not resolve. Add new tasks when you discover \
           them, and remove ones that no longer apply."
            .into()
    }
    fn is_read_only(&self, _: &TodoWriteInput) -> bool {
        // It changes only the session's own state, never the user's files.
        true
    }
    fn is_concurrency_safe(&self, _: &TodoWriteInput) -> bool {
        false
    }
    async fn validate_input(
        &self,
        input: &TodoWriteInput,
        _: &ToolContext,
    ) -> Result<(), ToolError> {
        validate(&input.todos)
    }
    fn access(&self, _: &TodoWriteInput, _: &ToolContext) -> Access {
        Access::Session
    }
    fn summary(&self, input: &TodoWriteInput) -> String {
        format!("TodoWrite({} items)", input.todos.len())
    }
    async fn call(
        &self,
        input: TodoWriteInput,
        ctx: &ToolContext,
    ) -> Result<ToolOutput, ToolError> {
        validate(&input.todos)?;
        let count = |s: TodoStatus| input.todos.iter().filter(|t| t.status == s).count();
        let summary = format!(
            "Todo list updated: {} pending, {} in progress, {} completed. Keep it current as you \
             work: one task in progress at a time, marked completed as soon as it is done.",
            count(TodoStatus::Pending),
            count(TodoStatus::InProgress),
            count(TodoStatus::Completed),
        );
        let display = checklist(&input.todos);
        if let Some(observer) = ctx.values.get::<super::TodoObserver>() {
            (observer.0)(&input.todos, ctx);
        }
        ctx.set_todos(input.todos);
        Ok(ToolOutput::text(summary).with_display(display))
    }
}

fn validate(todos: &[TodoItem]) -> Result<(), ToolError> {
    if let Some(i) = todos.iter().position(|t| t.content.trim().is_empty()) {
        return Err(ToolError::invalid(format!(
            "Todo item {} has empty content; every item needs a short description of the task.",
            i + 1
        )));
    }
    if let Some(i) = todos.iter().position(|t| t.active_form.trim().is_empty()) {
        return Err(ToolError::invalid(format!(
            "Todo item {} has an empty activeForm; give the task as an ongoing action (e.g. \
             \"Running the tests\").",
            i + 1
        )));
    }
    let in_progress = todos
        .iter()
        .filter(|t| t.status == TodoStatus::InProgress)
        .count();
    if in_progress > 1 {
        return Err(ToolError::invalid(format!(
            "{in_progress} items are in_progress; at most one task may be in progress at a time. \
             Mark the others pending or completed."
        )));
    }
    Ok(())
}

/// The list as the user sees it.
pub fn checklist(todos: &[TodoItem]) -> String {
    if todos.is_empty() {
        return "(todo list cleared)".to_string();
    }
    todos
        .iter()
        .map(|t| match t.status {
            TodoStatus::Pending => format!("[ ] {}", t.content),
            TodoStatus::InProgress => format!("[~] {}", t.active_form),
            TodoStatus::Completed => format!("[x] {}", t.content),
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::tools::test_support::{ctx, run, run_err};

    fn item(content: &str, status: &str) -> serde_json::Value {
        json!({"content": content, "status": status, "activeForm": format!("Doing {content}")})
    }

    #[tokio::test]
    async fn replaces_list_and_renders_checklist() {
        let c = ctx(std::path::Path::new("/tmp"));
        run(
            TodoWriteTool,
            &c,
            json!({"todos": [item("old", "pending")]}),
        )
        .await
        .unwrap();
        let out = run(
            TodoWriteTool,
            &c,
            json!({"todos": [item("a", "completed"), item("b", "in_progress"), item("c", "pending")]}),
        )
        .await
        .unwrap();
        assert_eq!(out.display.as_deref(), Some("[x] a\n[~] Doing b\n[ ] c"));
        assert!(
            out.content
                .contains("1 pending, 1 in progress, 1 completed")
        );
        let todos = c.todos();
        assert_eq!(todos.len(), 3);
        assert_eq!(todos[1].status, TodoStatus::InProgress);
        assert_eq!(todos[1].active_form, "Doing b");
    }

    #[tokio::test]
    async fn rejects_two_in_progress() {
        let c = ctx(std::path::Path::new("/tmp"));
        let err = run_err(
            TodoWriteTool,
            &c,
            json!({"todos": [item("a", "in_progress"), item("b", "in_progress")]}),
        )
        .await;
        assert!(err.contains("at most one task"), "{err}");
        assert!(c.todos().is_empty());
    }

    #[tokio::test]
    async fn rejects_empty_content_and_bad_status() {
        let c = ctx(std::path::Path::new("/tmp"));
        let err = run_err(TodoWriteTool, &c, json!({"todos": [item("  ", "pending")]})).await;
        assert!(err.contains("empty content"), "{err}");
        let err = run_err(TodoWriteTool, &c, json!({"todos": [item("a", "done")]})).await;
        assert!(err.contains("unknown variant"), "{err}");
    }

    #[test]
    fn is_session_access() {
        let c = ctx(std::path::Path::new("/tmp"));
        let input = TodoWriteInput { todos: vec![] };
        assert_eq!(TodoWriteTool.access(&input, &c), Access::Session);
    }
}
