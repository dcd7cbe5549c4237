//! Sub-agents in the background (`Agent` with `run_in_background`): the
//! session's list of them, their ends, and how the main conversation
//! learns about each end.
//!
//! A background agent is the same sub-agent a foreground call starts
//! (same runner, so the same permissions, mode, tools and confinement),
//! but the call returns at once with a task id and the agent runs on under
//! a cancellation token of its own: interrupting a turn does not stop it,
//! [`BackgroundAgents::stop`] (the SDKs' `stop_task`) and the end of the
//! session do. When it ends, its report goes to a file, the front end gets
//! [`EngineEvent::TaskEnded`], and the main conversation's next request
//! carries a reminder with the id, how it ended and the report
//! ([`BackgroundAgentsExtension`]). A front end whose conversation is idle
//! can start that request itself ([`BackgroundAgents::take_wake_up`]).

use std::path::PathBuf;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use catui_protocol::Attachment;
use catui_protocol::task::{LOCAL_AGENT, TaskEnd, TaskStart, TaskStatus, TaskUsage};
use tokio::sync::mpsc::{UnboundedSender, WeakUnboundedSender};
use tokio::sync::watch;
use tokio_util::sync::CancellationToken;

use super::{AgentReport, AgentRequest, AgentsHandle};
use crate::engine::attachments::{AttachmentContext, AttachmentProvider};
use crate::engine::extension::{AttachContext, EngineExtension};
use crate::engine::extension::{ToolCallView, ToolGate};
use crate::engine::{EngineEvent, Extensions};
use crate::permissions::Access;
use crate::sync::lock;
use crate::tools::{ToolContext, ToolError};

/// Characters of a report the reminder quotes; the rest is in the file.
const REPORT_CHARS: usize = 20_000;

/// The background agents of one session.
pub struct BackgroundAgents {
    dir: PathBuf,
    /// Weak: the session's event stream ends when its conversations are
    /// gone, not when this list is.
    events: WeakUnboundedSender<EngineEvent>,
    next: AtomicU32,
    tasks: Mutex<Vec<Arc<AgentTask>>>,
    /// Bumped whenever a task ends.
    ended: watch::Sender<u64>,
}

/// What a new background task is, for its `task_started` line.
pub(super) struct TaskSpec {
    pub subagent_type: String,
    pub description: String,
    pub tool_use_id: Option<String>,
    pub task_type: &'static str,
    pub prompt: Option<String>,
}

/// One background agent.
pub struct AgentTask {
    /// `agent_1`, `agent_2`, … in the order they started.
    pub id: String,
    pub subagent_type: String,
    pub description: String,
    /// The tool call that started it (the Agent call, or the
    /// ExitPlanMode call whose approval dispatched a plan).
    pub tool_use_id: Option<String>,
    /// Where its report is written when it ends.
    pub output_path: PathBuf,
    pub started: Instant,
    cancel: CancellationToken,
    state: Mutex<TaskState>,
}

#[derive(Default)]
struct TaskState {
    /// `None` while it runs.
    status: Option<TaskStatus>,
    /// The report, or why it failed.
    text: String,
    report: Option<AgentReport>,
    /// Stopped on request (not by the end of the session).
    stop_requested: bool,
    /// The main conversation has been told it ended.
    reported: bool,
    /// The one-line summary of its end when the job has its own. Such a
    /// job (a dispatched plan) writes its report for the user too: the
    /// end carries it ([`TaskEnd::report`]).
    headline: Option<String>,
    ended: Option<Instant>,
}

/// Why a task could not be stopped.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum StopError {
    #[error("there is no background task {id}{}", known_list(.known))]
    Unknown { id: String, known: Vec<String> },
    #[error("background task {id} is not running: it already ended ({status})")]
    Ended { id: String, status: &'static str },
}

fn known_list(known: &[String]) -> String {
    if known.is_empty() {
        " (none has been started)".into()
    } else {
        format!(" (the session's tasks: {})", known.join(", "))
    }
}

impl BackgroundAgents {
    /// A list whose reports go in `dir` and whose starts and ends are told
    /// on `events`.
    pub fn new(dir: PathBuf, events: UnboundedSender<EngineEvent>) -> Self {
        Self {
            dir,
            events: events.downgrade(),
            next: AtomicU32::new(1),
            tasks: Mutex::new(Vec::new()),
            ended: watch::channel(0).0,
        }
    }

    pub fn get(&self, id: &str) -> Option<Arc<AgentTask>> {
        lock(&self.tasks).iter().find(|t| t.id == id).cloned()
    }

    /// Every background agent of the session, oldest first.
    pub fn list(&self) -> Vec<Arc<AgentTask>> {
        lock(&self.tasks).clone()
    }

    /// How many still run.
    pub fn running(&self) -> usize {
        lock(&self.tasks).iter().filter(|t| t.is_running()).count()
    }

    /// Changes (a new value) whenever a task ends.
    pub fn watch_ends(&self) -> watch::Receiver<u64> {
        self.ended.subscribe()
    }

    /// Starts `request` on `runner` in the background and returns its task
    /// at once. The agent gets the calling conversation's context (and so
    /// its permissions and sandbox) but a cancellation of its own.
    pub fn start(
        self: &Arc<Self>,
        runner: AgentsHandle,
        request: AgentRequest,
        ctx: &ToolContext,
    ) -> Arc<AgentTask> {
        let task = self.register(TaskSpec {
            subagent_type: request.subagent_type.clone(),
            description: request.description.clone(),
            tool_use_id: Some(request.parent_tool_use_id.clone()),
            task_type: LOCAL_AGENT,
            prompt: Some(request.prompt.clone()),
        });
        let mut agent_ctx = ctx.clone();
        agent_ctx.cancel = task.cancel.clone();
        // It outlives the turn: if the main conversation enters plan mode
        // meanwhile, plan mode's rules hold it too.
        if let Some(main) = &ctx.session {
            let mut extensions = ctx.values.get::<Extensions>().cloned().unwrap_or_default();
            extensions.0.push(Arc::new(MainPlanMode(main.clone())));
            agent_ctx.values.insert(extensions);
        }
        self.spawn_job(task.clone(), async move {
            runner.0.run(request, &agent_ctx).await
        });
        task
    }

    /// A new task in the list, told to the front end (`task_started`).
    pub(super) fn register(&self, spec: TaskSpec) -> Arc<AgentTask> {
        let n = self.next.fetch_add(1, Ordering::SeqCst);
        let id = format!("agent_{n}");
        let output_path = self.dir.join(format!("bg-{}-{id}.md", std::process::id()));
        let task = Arc::new(AgentTask {
            id,
            subagent_type: spec.subagent_type,
            description: spec.description,
            tool_use_id: spec.tool_use_id,
            output_path,
            started: Instant::now(),
            cancel: CancellationToken::new(),
            state: Mutex::new(TaskState::default()),
        });
        lock(&self.tasks).push(task.clone());
        self.emit(EngineEvent::TaskStarted(TaskStart {
            task_id: task.id.clone(),
            tool_use_id: task.tool_use_id.clone(),
            description: task.description.clone(),
            task_type: spec.task_type.into(),
            subagent_type: Some(task.subagent_type.clone()),
            prompt: spec.prompt,
        }));
        task
    }

    /// Runs `job` for `task` on the runtime; its end is the task's end.
    pub(super) fn spawn_job(
        self: &Arc<Self>,
        task: Arc<AgentTask>,
        job: impl std::future::Future<Output = Result<AgentReport, ToolError>> + Send + 'static,
    ) {
        let list = self.clone();
        tokio::spawn(async move {
            let result = job.await;
            list.finish(&task, result);
        });
    }

    pub(super) fn emit(&self, event: EngineEvent) {
        if let Some(events) = self.events.upgrade() {
            let _ = events.send(event);
        }
    }

    /// Records how `task` ended, writes its report and tells the front end.
    fn finish(&self, task: &AgentTask, result: Result<AgentReport, ToolError>) {
        let (status, text, report) = match result {
            Ok(report) => (TaskStatus::Completed, report.text.clone(), Some(report)),
            Err(ToolError::Cancelled) => (TaskStatus::Stopped, String::new(), None),
            Err(e) => (TaskStatus::Failed, e.to_string(), None),
        };
        if let Err(e) = write_report(&task.output_path, &text) {
            tracing::warn!("could not write {}: {e}", task.output_path.display());
        }
        let headline = lock(&task.state).headline.take();
        let for_user = (headline.is_some() && !text.trim().is_empty()).then(|| text.clone());
        let usage = TaskUsage {
            total_tokens: report
                .as_ref()
                .map_or(0, |r| r.usage.input_tokens + r.usage.output_tokens),
            tool_uses: report.as_ref().map_or(0, |r| r.tool_uses),
            duration_ms: task.started.elapsed().as_millis() as u64,
        };
        {
            let mut state = lock(&task.state);
            state.status = Some(status);
            state.text = text;
            state.report = report;
            state.ended = Some(Instant::now());
        }
        self.emit(EngineEvent::TaskEnded(TaskEnd {
            task_id: task.id.clone(),
            tool_use_id: task.tool_use_id.clone(),
            status,
            output_file: task.output_path.display().to_string(),
            summary: headline.unwrap_or_else(|| {
                format!(
                    "{} agent \"{}\" {}",
                    task.subagent_type,
                    task.description,
                    match status {
                        TaskStatus::Completed => "completed",
                        TaskStatus::Failed => "failed",
                        TaskStatus::Stopped => "was stopped",
                    }
                )
            }),
            usage,
            report: for_user,
        }));
        self.ended.send_modify(|n| *n += 1);
    }

    /// Stops the running task `id` (the SDKs' `stop_task`).
    pub fn stop(&self, id: &str) -> Result<(), StopError> {
        let id = id.trim();
        let Some(task) = self.get(id) else {
            return Err(StopError::Unknown {
                id: id.to_string(),
                known: self.list().iter().map(|t| t.id.clone()).collect(),
            });
        };
        {
            let mut state = lock(&task.state);
            if let Some(status) = state.status {
                return Err(StopError::Ended {
                    id: task.id.clone(),
                    status: status.as_str(),
                });
            }
            state.stop_requested = true;
        }
        task.cancel.cancel();
        Ok(())
    }

    /// Stops every task still running and waits (at most `within`) for
    /// them to end: the session is ending.
    pub async fn stop_all(&self, within: Duration) {
        let mut ends = self.watch_ends();
        for task in self.list() {
            task.cancel.cancel();
        }
        let _ = tokio::time::timeout(within, async {
            while self.running() > 0 {
                if ends.changed().await.is_err() {
                    break;
                }
            }
        })
        .await;
    }

    /// The tasks that ended and that the main conversation has not been
    /// told about; they count as told from now on.
    fn take_finished(&self) -> Vec<Arc<AgentTask>> {
        lock(&self.tasks)
            .iter()
            .filter(|t| {
                let mut state = lock(&t.state);
                let take = state.status.is_some() && !state.reported;
                state.reported |= take;
                take
            })
            .cloned()
            .collect()
    }

    /// For a front end whose main conversation is idle: when an agent
    /// ended on its own (not stopped on request) and the model has not
    /// been told, the reminders of every untold end, to send as the input
    /// of a new turn. `None` otherwise (nothing is taken then).
    pub fn take_wake_up(&self) -> Option<String> {
        let wakes = lock(&self.tasks).iter().any(|t| {
            let state = lock(&t.state);
            state.status.is_some() && !state.reported && !state.stop_requested
        });
        if !wakes {
            return None;
        }
        let texts: Vec<String> = self.take_finished().iter().map(|t| t.reminder()).collect();
        Some(texts.join("\n\n"))
    }
}

impl AgentTask {
    /// The one-line summary its end is told with (instead of the usual
    /// "… completed").
    pub(super) fn set_headline(&self, headline: String) {
        lock(&self.state).headline = Some(headline);
    }

    /// Stopped on request (`stop_task`), not by the end of the session.
    pub(super) fn stop_was_requested(&self) -> bool {
        lock(&self.state).stop_requested
    }

    pub(super) fn cancelled(&self) -> CancellationToken {
        self.cancel.clone()
    }

    pub fn is_running(&self) -> bool {
        lock(&self.state).status.is_none()
    }

    /// `None` while it runs.
    pub fn status(&self) -> Option<TaskStatus> {
        lock(&self.state).status
    }

    /// How long it ran (so far, while running).
    pub fn elapsed(&self) -> Duration {
        let end = lock(&self.state).ended.unwrap_or_else(Instant::now);
        end.duration_since(self.started)
    }

    /// What the main conversation's model is told when it ended.
    pub fn reminder(&self) -> String {
        let state = lock(&self.state);
        let head = format!(
            "Background agent {} ({}: {})",
            self.id, self.subagent_type, self.description
        );
        match state.status {
            None => format!("{head} is still running."),
            Some(TaskStatus::Stopped) => format!(
                "{head} was stopped before it finished{}; it reported nothing.",
                if state.stop_requested {
                    " (the user stopped it)"
                } else {
                    ""
                }
            ),
            Some(TaskStatus::Failed) => format!("{head} failed: {}", state.text),
            Some(TaskStatus::Completed) => {
                let mut report = state.text.trim().to_string();
                if report.is_empty() {
                    report = "(the agent returned no text)".into();
                } else if report.chars().count() > REPORT_CHARS {
                    report = report.chars().take(REPORT_CHARS).collect();
                    report.push_str(&format!(
                        "\n[… the rest is in {}]",
                        self.output_path.display()
                    ));
                }
                let ran = state
                    .ended
                    .unwrap_or_else(Instant::now)
                    .duration_since(self.started);
                let stats = state.report.as_ref().map_or(String::new(), |r| {
                    format!(
                        "\n\n[{} turns, {} tokens, {:.1} s]",
                        r.turns,
                        r.usage.input_tokens + r.usage.output_tokens,
                        ran.as_secs_f64()
                    )
                });
                format!(
                    "{head} has finished. Its report (for you, not yet seen by the user):\n\n\
                     {report}{stats}"
                )
            }
        }
    }
}

fn write_report(path: &std::path::Path, text: &str) -> std::io::Result<()> {
    use std::io::Write as _;
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create(true).truncate(true);
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    let mut file = options.open(path)?;
    crate::tools::bash::groups::remove_at_end(path.to_path_buf());
    file.write_all(text.as_bytes())
}

/// The plug-in that gives the main conversation its background agents:
/// the Agent tool finds the list in its context, and each request carries
/// the reminders of the agents that ended since the last one.
pub struct BackgroundAgentsExtension(pub Arc<BackgroundAgents>);

impl EngineExtension for BackgroundAgentsExtension {
    fn attach(&self, conversation: &mut AttachContext<'_>) {
        conversation.tool_ctx.values.insert(self.0.clone());
    }

    fn attachment_provider(&self) -> Option<Arc<dyn AttachmentProvider>> {
        Some(Arc::new(EndedAgents(self.0.clone())))
    }
}

/// Tells the main conversation's model about its background agents that
/// ended (sub-agents start none).
struct EndedAgents(Arc<BackgroundAgents>);

impl AttachmentProvider for EndedAgents {
    fn attachments(&self, ctx: &AttachmentContext<'_>) -> Vec<Attachment> {
        if ctx.agent_id.is_some() {
            return Vec::new();
        }
        self.0
            .take_finished()
            .iter()
            .map(|task| Attachment::Reminder {
                text: task.reminder(),
            })
            .collect()
    }
}

/// Holds a background agent to plan mode's rules while the main
/// conversation is in plan mode (it may have started before): a call that
/// could change something is answered with an error instead of run.
struct MainPlanMode(crate::tools::SessionHandle);

impl EngineExtension for MainPlanMode {
    fn before_tool(&self, call: &ToolCallView<'_>) -> ToolGate {
        if self.0.0.permission_mode() != catui_protocol::PermissionMode::Plan
            || call.call.is_read_only()
            || matches!(call.call.access(call.ctx), Access::Session)
        {
            return ToolGate::Continue;
        }
        ToolGate::Answer {
            content: format!(
                "{} was not run: the main conversation is in plan mode now, and nothing may \
                 change until the user approves a plan. Only read and search; report what you \
                 would change instead.",
                call.name
            ),
            display: "Not run: the session is in plan mode".into(),
            is_error: true,
            end_run: None,
        }
    }
}

#[cfg(test)]
#[path = "background_tests.rs"]
mod tests;
