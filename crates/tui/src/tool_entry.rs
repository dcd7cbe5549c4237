//! A tool call as the transcript holds it: its status, input, result, the
//! live tail of a running command and the progress of a sub-agent. The
//! model the transcript stores and `tool_view` draws (both below the
//! screens that change it).

use serde_json::Value;

/// Where a tool call is in its life.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ToolStatus {
    /// Announced by the model, not started (waiting for permission).
    Pending,
    Running,
    Done,
    Failed,
    /// Not run by the user's own decision (declined, or the turn stopped
    /// before it ran): said plainly, not marked as an error.
    Declined,
}

/// One tool call of the main conversation.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolEntry {
    pub id: String,
    pub name: String,
    pub input: Value,
    pub summary: String,
    pub status: ToolStatus,
    /// The user-facing result (`display`), once finished.
    pub result: Option<String>,
    /// Progress of the sub-agent an `Agent` call started.
    pub agent: Option<AgentProgress>,
    /// The latest output of a call that is still running (Bash).
    pub live: Option<LiveTail>,
}

/// What a running call printed last, as the engine's progress told it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LiveTail {
    pub lines: Vec<String>,
    pub total_lines: u64,
    pub elapsed_secs: u64,
}

/// Live progress of a sub-agent, shown under its `Agent` call.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct AgentProgress {
    pub agent_type: String,
    pub description: String,
    /// The summary of the tool it is running now.
    pub current: Option<String>,
    /// Model requests made so far.
    pub turns: u32,
    pub tool_uses: u32,
}

impl AgentProgress {
    pub fn from_input(input: &Value) -> Self {
        let field = |k: &str| {
            input
                .get(k)
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_string()
        };
        let agent_type = match field("subagent_type") {
            t if t.is_empty() => "agent".to_string(),
            t => t,
        };
        Self {
            agent_type,
            description: field("description"),
            ..Self::default()
        }
    }
}
