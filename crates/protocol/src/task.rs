//! Background tasks as the Agent SDKs see them: the `task_started` and
//! `task_notification` lines (docs/PROTOCOL.md) and what they carry. A
//! task is a sub-agent the `Agent` tool started with `run_in_background`;
//! the SDKs' `stop_task` control request names one by its `task_id`.

use serde::{Deserialize, Serialize};

/// The SDKs' `task_type` of a background sub-agent.
pub const LOCAL_AGENT: &str = "local_agent";

/// A background task started.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TaskStart {
    pub task_id: String,
    /// The tool call that started it.
    pub tool_use_id: Option<String>,
    pub description: String,
    /// [`LOCAL_AGENT`] for a sub-agent.
    pub task_type: String,
    /// The agent type (`general-purpose`, `Explore`, …).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub subagent_type: Option<String>,
    /// What the task was asked.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompt: Option<String>,
}

/// How a background task ended (the SDKs' `TaskNotificationStatus`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TaskStatus {
    Completed,
    Failed,
    /// `stop_task` (or the end of the session) stopped it.
    Stopped,
}

impl TaskStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            TaskStatus::Completed => "completed",
            TaskStatus::Failed => "failed",
            TaskStatus::Stopped => "stopped",
        }
    }
}

/// What a background task used (the SDKs' `TaskUsage`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TaskUsage {
    pub total_tokens: u64,
    pub tool_uses: u64,
    pub duration_ms: u64,
}

/// A background task ended.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TaskEnd {
    pub task_id: String,
    pub tool_use_id: Option<String>,
    pub status: TaskStatus,
    /// The file that holds its result.
    pub output_file: String,
    /// One line: what it was and how it ended.
    pub summary: String,
    pub usage: TaskUsage,
    /// The report itself when it is written for the user to read (a
    /// dispatched plan's end: steps, verification, branch, diff stat, the
    /// commands to review and merge), so that a front end can show it as
    /// the task ends. `None` for a sub-agent, whose report is for the
    /// model (it stays in `output_file`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub report: Option<String>,
}

/// A background task is at work: the SDKs' `task_progress`, one per tool
/// call the agent starts.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TaskProgress {
    pub task_id: String,
    pub tool_use_id: Option<String>,
    pub description: String,
    /// What it has used so far.
    pub usage: TaskUsage,
    /// The tool it just started.
    pub last_tool_name: Option<String>,
}

/// The `subagent_type` of a plan handed to a background agent in a git
/// worktree (`catui plans dispatch`; the approval's fifth choice); its
/// `task_type` is [`LOCAL_AGENT`], as for any agent on this machine.
pub const DISPATCHED_PLAN: &str = "dispatched-plan";

/// What `catui plans dispatch SLUG --json` prints when it has started the
/// background agent: where it works and where it reports.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DispatchStarted {
    pub slug: String,
    pub branch: String,
    pub worktree: String,
    /// The agent's words and the summary, for people.
    pub log: String,
    /// [`DispatchEvent`] lines, for the session that dispatched it.
    pub events: String,
    /// The same in a sentence.
    pub message: String,
}

/// One line of a dispatched plan's events file: the background half of
/// `catui plans dispatch` writes them as its agent works, and the session
/// that dispatched the plan follows them (its `task_progress` and
/// `task_notification` lines). The agent is another process: a file
/// outlives both, so either may end first.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum DispatchEvent {
    /// The background half runs; `pid` leads its process group (the agent
    /// is in it), which is what stopping the task ends.
    Started { pid: u32 },
    /// The agent started a tool call, or its todo list changed.
    Progress {
        usage: TaskUsage,
        last_tool_name: Option<String>,
        todos_done: usize,
        todos_total: usize,
    },
    /// The agent ended and its work is committed on the branch.
    Ended {
        status: TaskStatus,
        /// One line: how it went and the command to review it.
        headline: String,
        /// Steps, verification, branch, diff stat, review and merge
        /// commands.
        summary: String,
        usage: TaskUsage,
    },
}
