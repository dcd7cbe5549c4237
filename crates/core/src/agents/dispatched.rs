//! A plan handed to a background agent in a git worktree (the approval's
//! fifth choice, `catui plans dispatch`), followed by the session that
//! handed it over as one of its background tasks.
//!
//! That agent is another catui process, detached so that it outlives this
//! session; it writes [`DispatchEvent`] lines to a file, and this session
//! reads them: `task_started` when the plan is handed over, `task_progress`
//! as the agent starts tool calls or ticks off steps, and at its end a
//! `task_notification` whose output file holds the summary (steps,
//! verification, branch, diff stat, the commands to review and merge),
//! which the model is given like any background agent's report.
//! `stop_task` ends the agent's process group; the end of this session
//! only stops following it (the agent goes on; `catui plans list` shows
//! it, its log keeps the summary).

use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use catui_protocol::task::{
    DISPATCHED_PLAN, DispatchEvent, DispatchStarted, LOCAL_AGENT, TaskProgress, TaskStatus,
    TaskUsage,
};

use super::AgentReport;
use super::background::{AgentTask, BackgroundAgents, TaskSpec};
use crate::engine::EngineEvent;
use crate::tools::ToolError;

/// How often the events file is looked at: it changes at the pace of model
/// turns, so a fifth of a second is prompt enough and costs nothing.
const POLL: Duration = Duration::from_millis(200);

impl BackgroundAgents {
    /// Follows the background agent `started` describes as a task of this
    /// session, started by tool call `tool_use_id`.
    pub fn follow_dispatch(
        self: &Arc<Self>,
        started: DispatchStarted,
        tool_use_id: Option<String>,
    ) -> Arc<AgentTask> {
        let task = self.register(TaskSpec {
            subagent_type: DISPATCHED_PLAN.to_string(),
            description: format!(
                "carry out plan {} on branch {}",
                started.slug, started.branch
            ),
            tool_use_id,
            task_type: LOCAL_AGENT,
            prompt: Some(started.message.clone()),
        });
        let follower = Follower {
            list: Arc::downgrade(self),
            task: task.clone(),
            events: PathBuf::from(&started.events),
            log: PathBuf::from(&started.log),
            read: 0,
            pending: String::new(),
            pid: None,
            usage: TaskUsage::default(),
        };
        self.spawn_job(task.clone(), follower.run());
        task
    }
}

/// Reads one dispatch's events file as it grows.
struct Follower {
    /// Weak: following does not keep the session's list alive.
    list: std::sync::Weak<BackgroundAgents>,
    task: Arc<AgentTask>,
    events: PathBuf,
    log: PathBuf,
    /// Bytes of the file already read.
    read: u64,
    /// The start of a line not yet complete.
    pending: String,
    /// The background half's process (group), once it said so.
    pid: Option<u32>,
    usage: TaskUsage,
}

impl Follower {
    async fn run(mut self) -> Result<AgentReport, ToolError> {
        let cancel = self.task.cancelled();
        loop {
            tokio::select! {
                _ = cancel.cancelled() => return Err(self.stopped()),
                _ = tokio::time::sleep(POLL) => {}
            }
            // Whether it was alive before the read: an end written just
            // before it exited is then still read.
            let alive = self.pid.is_none_or(process_alive);
            for event in self.new_events() {
                if let Some(end) = self.take(event) {
                    return end;
                }
            }
            if !alive {
                return Err(ToolError::failed(format!(
                    "the background agent ended without a summary; its output is in {}",
                    self.log.display()
                )));
            }
        }
    }

    /// Stopped on request: the agent's process group is ended. At the end
    /// of the session: the agent goes on without this session.
    fn stopped(&self) -> ToolError {
        if self.task.stop_was_requested()
            && let Some(pgid) = self.pid.and_then(|p| i32::try_from(p).ok())
        {
            end_group(pgid);
        }
        ToolError::Cancelled
    }

    /// What one event means: `Some` at the end.
    fn take(&mut self, event: DispatchEvent) -> Option<Result<AgentReport, ToolError>> {
        match event {
            DispatchEvent::Started { pid } => self.pid = Some(pid),
            DispatchEvent::Progress {
                usage,
                last_tool_name,
                todos_done,
                todos_total,
            } => {
                self.usage = usage;
                let description = if todos_total > 0 {
                    format!(
                        "{} ({todos_done}/{todos_total} steps done)",
                        self.task.description
                    )
                } else {
                    self.task.description.clone()
                };
                if let Some(list) = self.list.upgrade() {
                    list.emit(EngineEvent::TaskProgress(TaskProgress {
                        task_id: self.task.id.clone(),
                        tool_use_id: self.task.tool_use_id.clone(),
                        description,
                        usage,
                        last_tool_name,
                    }));
                }
            }
            DispatchEvent::Ended {
                status,
                headline,
                summary,
                usage,
            } => {
                self.task.set_headline(headline);
                return Some(match status {
                    TaskStatus::Completed => Ok(AgentReport {
                        agent_id: self.task.id.clone(),
                        text: summary,
                        usage: catui_protocol::Usage {
                            output_tokens: usage.total_tokens,
                            ..Default::default()
                        },
                        turns: 0,
                        tool_uses: usage.tool_uses,
                        duration_ms: usage.duration_ms,
                    }),
                    _ => Err(ToolError::failed(summary)),
                });
            }
        }
        None
    }

    /// The complete lines added to the file since the last look.
    fn new_events(&mut self) -> Vec<DispatchEvent> {
        let Some(text) = read_from(&self.events, self.read) else {
            return Vec::new();
        };
        self.read += text.len() as u64;
        self.pending.push_str(&text);
        let Some(last) = self.pending.rfind('\n') else {
            return Vec::new();
        };
        let complete: String = self.pending.drain(..=last).collect();
        complete
            .lines()
            .filter_map(|line| match serde_json::from_str(line) {
                Ok(event) => Some(event),
                Err(e) => {
                    tracing::warn!("{}: a line catui does not read: {e}", self.events.display());
                    None
                }
            })
            .collect()
    }
}

/// The file's text after its first `offset` bytes (`None`: nothing new,
/// or unreadable for now).
fn read_from(path: &Path, offset: u64) -> Option<String> {
    let mut file = std::fs::File::open(path).ok()?;
    file.seek(SeekFrom::Start(offset)).ok()?;
    let mut bytes = Vec::new();
    file.read_to_end(&mut bytes).ok()?;
    // Only whole characters: a write cut in the middle of one is taken
    // on the next look.
    let whole = match std::str::from_utf8(&bytes) {
        Ok(_) => bytes.len(),
        Err(e) => e.valid_up_to(),
    };
    bytes.truncate(whole);
    String::from_utf8(bytes).ok().filter(|t| !t.is_empty())
}

/// Ends the background half's process group (it leads one: `catui plans
/// dispatch` starts it so), and the agent in it.
#[allow(unsafe_code)]
fn end_group(pgid: i32) {
    if pgid <= 1 {
        return;
    }
    // SAFETY: killpg has no memory-safety preconditions; `pgid` is the
    // group the dispatch's background half leads (it said so in its
    // events file), checked above not to be 0 or 1 (our own group, init).
    let rc = unsafe { libc::killpg(pgid, libc::SIGTERM) };
    if rc != 0 {
        tracing::debug!(pgid, error = %std::io::Error::last_os_error(), "killpg failed");
    }
}

/// Whether process `pid` still runs (a zombie does not: nobody may reap it
/// where the reaper is not an init).
fn process_alive(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        // The state follows the command name's closing parenthesis.
        Ok(stat) => stat
            .rsplit_once(')')
            .and_then(|(_, rest)| rest.split_whitespace().next())
            .is_some_and(|state| state != "Z" && state != "X"),
        Err(_) => false,
    }
}

#[cfg(test)]
#[path = "dispatched_tests.rs"]
mod tests;
