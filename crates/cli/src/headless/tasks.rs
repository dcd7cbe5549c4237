//! `task_progress` lines for background agents: the printer follows each
//! running task (from its `task_started` to its `task_notification`) and,
//! whenever its agent starts a tool call, says what it has used so far and
//! which tool it started (the Agent SDKs' `SDKTaskProgressMessage`).

use std::collections::HashMap;
use std::time::Instant;

use catui_protocol::Usage;
use catui_protocol::task::{TaskEnd, TaskProgress, TaskStart, TaskUsage};

struct Running {
    task_id: String,
    description: String,
    started: Instant,
    tokens: u64,
    tool_uses: u64,
}

/// The background tasks running, by the Agent call that started each.
#[derive(Default)]
pub struct RunningTasks(HashMap<String, Running>);

impl RunningTasks {
    pub fn started(&mut self, task: &TaskStart) {
        if let Some(call) = &task.tool_use_id {
            self.0.insert(
                call.clone(),
                Running {
                    task_id: task.task_id.clone(),
                    description: task.description.clone(),
                    started: Instant::now(),
                    tokens: 0,
                    tool_uses: 0,
                },
            );
        }
    }

    pub fn ended(&mut self, task: &TaskEnd) {
        self.0.retain(|_, r| r.task_id != task.task_id);
    }

    /// A model response of the conversation under Agent call `parent`.
    pub fn answered(&mut self, parent: Option<&str>, usage: &Usage) {
        if let Some(running) = parent.and_then(|p| self.0.get_mut(p)) {
            running.tokens += usage.input_tokens + usage.output_tokens;
        }
    }

    /// A tool call of the conversation under Agent call `parent` started:
    /// the progress to report when `parent` is a running background task.
    pub fn tool_started(&mut self, parent: Option<&str>, tool: &str) -> Option<TaskProgress> {
        let call = parent?;
        let running = self.0.get_mut(call)?;
        running.tool_uses += 1;
        Some(TaskProgress {
            task_id: running.task_id.clone(),
            tool_use_id: Some(call.to_string()),
            description: running.description.clone(),
            usage: TaskUsage {
                total_tokens: running.tokens,
                tool_uses: running.tool_uses,
                duration_ms: running.started.elapsed().as_millis() as u64,
            },
            last_tool_name: Some(tool.to_string()),
        })
    }
}
