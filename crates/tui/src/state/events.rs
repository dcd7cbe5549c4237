//! Engine events folded into the screen state: streamed text, committed
//! messages, tool calls and their user-facing results, retries, and the
//! end of a turn.

use catui_core::engine::{CommandView, EngineEvent, TurnOutcome};
use catui_core::plan::tools::exit_rules::plan_rejection_view;
use catui_protocol::tool_names;
use catui_protocol::{ContentBlock, Message, ModelEvent};
use serde_json::Value;

use super::{AppState, RetryNote, parse_todos};
use crate::tool_entry::AgentProgress;
use crate::tool_view::{fallback_summary, relative_paths};
use crate::transcript::{EntryKind, LiveTail, ToolEntry, ToolStatus};

/// The engine's text for a turn the user interrupted.
const INTERRUPTED: &str = "Interrupted by the user.";

impl AppState {
    /// Folds one engine event into the state.
    pub fn apply(&mut self, event: EngineEvent) {
        match event {
            EngineEvent::Delta {
                agent_id: None,
                event,
            } => self.apply_delta(event),
            // Sub-agents' streams are summarised by their progress line.
            EngineEvent::Delta { .. } => {}
            EngineEvent::Assistant {
                message,
                parent_tool_use_id: None,
                ..
            } => self.apply_assistant(&message),
            EngineEvent::Assistant {
                message,
                parent_tool_use_id: Some(parent),
                ..
            } => {
                let uses = message.tool_uses().count() as u32;
                if let Some(agent) = self.agent_mut(&parent) {
                    agent.turns += 1;
                    agent.tool_uses += uses;
                }
            }
            EngineEvent::User {
                message,
                parent_tool_use_id: None,
                ..
            } => self.apply_tool_results(&message),
            EngineEvent::User { .. } => {}
            EngineEvent::ToolStart {
                id,
                name,
                summary,
                parent_tool_use_id,
            } => match parent_tool_use_id {
                Some(parent) => {
                    if let Some(agent) = self.agent_mut(&parent) {
                        agent.current = Some(summary);
                    }
                }
                None => {
                    let summary = relative_paths(&summary, &self.info.cwd);
                    self.awaiting_reply = false;
                    if let Some(tool) = self.transcript.tool_mut(&id) {
                        tool.status = ToolStatus::Running;
                        // The engine's summary wins unless it is the bare name.
                        if summary != name || !tool.summary.contains('(') {
                            tool.summary = summary;
                        }
                    } else {
                        self.transcript.push(EntryKind::Tool(Box::new(ToolEntry {
                            id,
                            name,
                            input: Value::Null,
                            summary,
                            status: ToolStatus::Running,
                            result: None,
                            agent: None,
                            live: None,
                        })));
                    }
                }
            },
            EngineEvent::ToolEnd {
                id,
                display,
                is_error,
                failed,
                parent_tool_use_id,
                ..
            } => match parent_tool_use_id {
                Some(parent) => {
                    if let Some(agent) = self.agent_mut(&parent) {
                        agent.current = None;
                    }
                }
                None => {
                    let display = relative_paths(&display, &self.info.cwd);
                    if let Some(tool) = self.transcript.tool_mut(&id) {
                        tool.status = if failed {
                            ToolStatus::Failed
                        } else if is_error {
                            ToolStatus::Declined
                        } else {
                            ToolStatus::Done
                        };
                        tool.result = Some(display);
                        tool.live = None;
                        quiet_plan_write(tool, self.plan_file.as_deref());
                    }
                }
            },
            EngineEvent::ToolProgress {
                id,
                parent_tool_use_id: None,
                elapsed,
                lines,
                total_lines,
                ..
            } => {
                if let Some(tool) = self.transcript.tool_mut(&id)
                    && tool.status == ToolStatus::Running
                {
                    tool.live = Some(LiveTail {
                        lines,
                        total_lines,
                        elapsed_secs: elapsed.as_secs(),
                    });
                }
            }
            EngineEvent::ToolProgress { .. } => {}
            EngineEvent::PermissionMode { mode, .. } => self.mode = mode,
            EngineEvent::Attachment(_) => {}
            // The approved plan's steps became the todo list.
            EngineEvent::Todos { todos } => {
                let list = serde_json::json!({ "todos": todos });
                self.todos = parse_todos(&list);
            }
            EngineEvent::TeammateMessage { from, text } => {
                self.transcript.push(EntryKind::Teammate { from, text });
            }
            // A settings file not applied, entries not saved: problems to fix.
            EngineEvent::Notification { key, text } if catui_core::engine::is_problem(&key) => {
                self.system(text, true)
            }
            EngineEvent::Notification { text, .. } | EngineEvent::Advice { text, .. } => {
                self.system(text, false);
            }
            // Teammates' conversations stay out of the lead's transcript;
            // the team panel shows what they do.
            EngineEvent::Teammate { .. } => {}
            // The transcript already shows the prompt as it was typed.
            EngineEvent::UserMessage { .. } => {}
            // One line, when it has something to say; Ctrl+O shows the
            // details.
            EngineEvent::PlanCompliance(report) => {
                if report.has_news() {
                    self.transcript.push(EntryKind::Compliance(report))
                }
            }
            EngineEvent::PlanVerification(run) => {
                self.transcript.push(EntryKind::Verification(run))
            }
            EngineEvent::PlanReport(report) => self.transcript.push(EntryKind::PlanReport(report)),
            EngineEvent::GoalCheck(check) => {
                let text = match (&check.missing, check.continuation) {
                    (_, 0) if check.met => format!("◎ Goal met ({})", check.goal),
                    (Some(missing), 0) => format!("◎ Goal not met ({}): {missing}", check.goal),
                    (missing, n) => format!(
                        "◎ Goal not met ({}): {} — continuing by itself ({n})",
                        check.goal,
                        missing.as_deref().unwrap_or("")
                    ),
                };
                self.system(text, false)
            }
            EngineEvent::WorkStep(step) => self.work_step = step,
            // The Agent call already says it runs in the background.
            EngineEvent::TaskStarted(_) | EngineEvent::TaskProgress(_) => {}
            EngineEvent::TaskEnded(task) => {
                // A report written for the user (a dispatched plan's end:
                // steps, verification, branch, diff stat, how to review and
                // merge) is shown in full as it comes: the user may be idle
                // and not ask the model. Its first line is the summary.
                let text = match &task.report {
                    Some(report) => format!(
                        "Background task {} ended; the model gets its report with the next request.\n{}",
                        task.task_id,
                        report.trim_end()
                    ),
                    None => format!(
                        "Background {} ({}); the model gets its report with the next request.",
                        task.summary, task.task_id
                    ),
                };
                // Both come from another process (the agent's events file).
                self.system(catui_protocol::terminal::sanitize(&text), false)
            }
            EngineEvent::AwaitingTools { pending } => self.awaiting_tools = pending,
            EngineEvent::Result(outcome) => self.apply_result(outcome),
        }
    }

    fn agent_mut(&mut self, parent: &str) -> Option<&mut AgentProgress> {
        self.transcript.tool_mut(parent)?.agent.as_mut()
    }

    fn apply_delta(&mut self, event: ModelEvent) {
        match event {
            ModelEvent::TextDelta { text } => {
                self.thinking = false;
                self.retry = None;
                self.awaiting_reply = false;
                self.streamed_chars += text.len();
                self.live_text.push_str(&text);
            }
            ModelEvent::ThinkingDelta { thinking } => {
                self.retry = None;
                self.streamed_chars += thinking.len();
                self.thinking = true;
            }
            ModelEvent::ToolUseStart { name, .. } => {
                self.retry = None;
                self.awaiting_reply = false;
                self.streaming_tool = Some(name);
            }
            ModelEvent::ToolInputDelta { partial_json, .. } => {
                self.streamed_chars += partial_json.len();
            }
            ModelEvent::FellBack {
                model, fallback, ..
            } => {
                self.live_text.clear();
                self.thinking = false;
                self.streaming_tool = None;
                self.retry = None;
                self.system(
                    format!("{model} is overloaded; continuing with the fallback model {fallback}"),
                    false,
                );
            }
            // One updating line, not a permanent entry per attempt.
            ModelEvent::Retrying {
                attempt,
                delay_ms,
                reason,
            } => {
                self.live_text.clear();
                self.thinking = false;
                self.streaming_tool = None;
                self.retry = Some(RetryNote {
                    attempt,
                    reason: reason.lines().next().unwrap_or("").to_string(),
                    at: self.clock + std::time::Duration::from_millis(delay_ms),
                });
            }
        }
    }

    pub(super) fn apply_assistant(&mut self, message: &Message) {
        self.awaiting_reply = false;
        self.retry = None;
        self.live_text.clear();
        self.thinking = false;
        self.streaming_tool = None;
        for block in &message.content {
            match block {
                ContentBlock::Text { text } if !text.trim().is_empty() => {
                    self.transcript.push(EntryKind::Assistant(text.clone()));
                }
                ContentBlock::Thinking { thinking: text, .. }
                | ContentBlock::Reasoning { summary: text, .. }
                    if !text.trim().is_empty() =>
                {
                    self.transcript.push(EntryKind::Thinking(text.clone()));
                }
                ContentBlock::ToolUse { id, name, input } => {
                    if name == tool_names::TODO_WRITE {
                        self.todos = parse_todos(input);
                    }
                    let agent = matches!(name.as_str(), tool_names::AGENT | tool_names::TASK)
                        .then(|| AgentProgress::from_input(input));
                    self.transcript.push(EntryKind::Tool(Box::new(ToolEntry {
                        id: id.clone(),
                        name: name.clone(),
                        input: input.clone(),
                        summary: relative_paths(&fallback_summary(name, input), &self.info.cwd),
                        status: ToolStatus::Pending,
                        result: None,
                        agent,
                        live: None,
                    })));
                }
                _ => {}
            }
        }
    }

    /// Results of calls that never ran (denied, invalid) arrive only here.
    pub(super) fn apply_tool_results(&mut self, message: &Message) {
        for block in &message.content {
            if let ContentBlock::ToolResult {
                tool_use_id,
                content,
                is_error,
            } = block
            {
                self.drop_request(tool_use_id);
                if let Some(tool) = self.transcript.tool_mut(tool_use_id)
                    && matches!(tool.status, ToolStatus::Pending | ToolStatus::Running)
                {
                    // A command's exit is in its result: the replay marks
                    // it as the live run did.
                    let failed = tool.name == catui_protocol::tool_names::BASH
                        && catui_core::tools::bash::result_failed(&content.as_text());
                    let text = content.as_text();
                    tool.status = if *is_error && catui_core::engine::declined_by_user(&text) {
                        ToolStatus::Declined
                    } else if *is_error || failed {
                        ToolStatus::Failed
                    } else {
                        ToolStatus::Done
                    };
                    // A declined call shows the words the live run showed,
                    // read back from the model's text by the functions that
                    // word the live row.
                    let shown = (tool.status == ToolStatus::Declined)
                        .then(|| {
                            catui_core::engine::declined_view(&tool.name, &text)
                                .or_else(|| plan_rejection_view(&text))
                        })
                        .flatten()
                        .unwrap_or(text);
                    tool.result = Some(relative_paths(&shown, &self.info.cwd));
                    quiet_plan_write(tool, self.plan_file.as_deref());
                }
            }
        }
    }

    fn apply_result(&mut self, outcome: TurnOutcome) {
        let sent = self.pending_inputs.pop_front().unwrap_or_default();
        self.turn_started = None;
        self.retry = None;
        self.awaiting_tools.clear();
        self.awaiting_reply = false;
        self.streamed_chars = 0;
        let withdrawn = std::mem::take(&mut self.withdrawn);
        self.usage.add(&outcome.usage);
        self.cost_usd = outcome.cost.total_cost_usd;
        self.mode = outcome.permission_mode;
        self.plan_file = outcome.plan_file.clone();
        // A partial answer that was interrupted stays visible.
        let partial = std::mem::take(&mut self.live_text);
        if !partial.trim().is_empty() {
            self.transcript.push(EntryKind::Assistant(partial));
        }
        self.thinking = false;
        self.streaming_tool = None;
        for id in self.transcript.open_tool_ids() {
            if let Some(tool) = self.transcript.tool_mut(&id) {
                // The turn ended before it ran (stopped): not a failure.
                tool.status = ToolStatus::Declined;
                tool.result = Some("Not run".into());
            }
        }
        if outcome.num_turns == 0 {
            // The status line names the model `/model NAME` switched to.
            if let Some(name) = sent.trim().strip_prefix("/model ")
                && !outcome.is_error
            {
                self.info.model = name.trim().to_string();
            }
            if sent.trim() == "/clear" && !outcome.is_error {
                self.transcript.clear();
                self.flushed = 0;
                self.elided = None;
                self.todos.clear();
            }
            match outcome.view {
                Some(CommandView::Document {
                    title,
                    path,
                    content,
                    hint,
                }) => self.transcript.push(EntryKind::Document {
                    title,
                    path,
                    content,
                    hint,
                }),
                None if !outcome.result.trim().is_empty() => {
                    self.system(outcome.result.trim_end(), outcome.is_error);
                }
                None => {}
            }
        } else if outcome.result == INTERRUPTED {
            if !withdrawn {
                self.system("Interrupted · tell catui what to do instead", false);
            }
        } else if outcome.is_error {
            self.system(outcome.result, true);
        }
    }
}

/// A write of the session's plan file says so in a few words: the file's
/// name (its full path is in the approval dialog that follows), the line
/// count, and no preview of a text the dialog shows whole; a change to an
/// existing plan keeps its diff.
fn quiet_plan_write(tool: &mut ToolEntry, plan_file: Option<&str>) {
    let Some(plan_file) = plan_file else {
        return;
    };
    let path = tool.input.get("file_path").and_then(Value::as_str);
    if !matches!(tool.name.as_str(), tool_names::WRITE | tool_names::EDIT)
        || path != Some(plan_file)
    {
        return;
    }
    let name = std::path::Path::new(plan_file).file_name().map_or_else(
        || plan_file.to_string(),
        |n| n.to_string_lossy().into_owned(),
    );
    tool.summary = format!("{}(plan {name})", tool.name);
    if tool.status != ToolStatus::Done {
        return;
    }
    let Some(result) = &tool.result else {
        return;
    };
    // "Created PATH (N lines)" and its preview (live), or the model's
    // "Created PATH (N lines)." (replay): only the count is kept.
    if result.starts_with("Created ") {
        let first = result.lines().next().unwrap_or_default();
        let count = first
            .rfind(" (")
            .map(|at| first[at + 1..].trim_end_matches('.').to_string())
            .unwrap_or_default();
        tool.result = Some(format!("Plan written {count}").trim_end().to_string());
    }
}
