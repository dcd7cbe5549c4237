//! The interface's state and how it changes: engine events are folded in
//! by [`AppState::apply`], key presses by [`AppState::handle_key`], which
//! returns [`Action`]s for the runtime to carry out (send input, interrupt,
//! change mode, open the editor, answer a prompt). Nothing here does IO, so
//! every screen can be built in a test.

use std::collections::VecDeque;
use std::time::{Duration, Instant};

use catui_core::engine::{EngineEvent, PermissionAnswer, PermissionRequest, TurnOutcome};
use catui_core::teams::manager::PlanReviewRequest;
use catui_core::teams::{PlanDecision, TeammateStatus};
use catui_protocol::{ContentBlock, Message, ModelEvent, PermissionMode, Usage};
use serde_json::Value;

use crate::dialogs::Dialog;
use crate::input::InputBox;
use crate::palette;
use crate::tool_view::{AgentProgress, fallback_summary};

mod keys;
use crate::transcript::{EntryKind, ToolEntry, ToolStatus, Transcript};

/// How long a first Ctrl+C waits for the second.
pub const CTRL_C_WINDOW: Duration = Duration::from_millis(1500);

/// Something the runtime must do after a key press.
#[derive(Debug, Clone, PartialEq)]
pub enum Action {
    /// Send this input to the engine.
    Submit(String),
    Interrupt,
    SetMode(PermissionMode),
    Quit,
    /// Edit the input box text in the external editor.
    EditInput,
    /// Ctrl+G while planning: open this plan file in the external editor
    /// when it exists, else edit the input box (as [`Action::EditInput`]).
    EditPlanFile(String),
    /// Edit the plan of the open plan dialog in the external editor.
    EditPlan,
    /// Open this plan file in the external editor (`/plan open`).
    OpenPlanFile(String),
    /// Answer the pending prompt of this tool call.
    Answer {
        tool_use_id: String,
        answer: PermissionAnswer,
    },
    /// Answer a teammate's plan approval request (`None`: the lead model
    /// reviews it).
    Review {
        request_id: String,
        decision: Option<PlanDecision>,
    },
}

/// One running teammate, as the team panel shows it.
#[derive(Debug, Clone, PartialEq)]
pub struct TeammateRow {
    /// `name@team`.
    pub agent_id: String,
    pub status: TeammateStatus,
    /// What it is doing right now (its running tool call).
    pub activity: Option<String>,
}

/// One item of the todo list (TodoWrite input).
#[derive(Debug, Clone, PartialEq)]
pub struct Todo {
    pub content: String,
    pub status: String,
    pub active_form: String,
}

/// Fixed facts shown in the interface.
#[derive(Debug, Clone, Default)]
pub struct SessionInfo {
    pub model: String,
    pub cwd: String,
    pub session_id: String,
    pub auto_mode_enabled: bool,
}

/// Everything the screen shows.
#[derive(Debug)]
pub struct AppState {
    pub info: SessionInfo,
    pub mode: PermissionMode,
    pub usage: Usage,
    pub plan_file: Option<String>,
    pub transcript: Transcript,
    /// The main agent's answer while it streams.
    pub live_text: String,
    pub thinking: bool,
    /// The tool whose input is streaming (shown by the spinner).
    pub streaming_tool: Option<String>,
    pub input: InputBox,
    pub palette_selected: usize,
    pub palette_dismissed: bool,
    /// The prompt being answered, and those waiting behind it.
    pub dialog: Option<Dialog>,
    pub queued: VecDeque<Dialog>,
    /// The lead session's running teammates.
    pub teammates: Vec<TeammateRow>,
    pub todos: Vec<Todo>,
    /// Inputs sent and not yet answered by a result.
    pub pending_inputs: VecDeque<String>,
    /// Rows scrolled up from the bottom of the transcript.
    pub scroll: usize,
    pub ctrl_c_at: Option<Instant>,
    /// Frame counter for the spinner.
    pub tick: usize,
    /// Transcript viewport of the last frame (for paging).
    pub viewport: (u16, u16),
}

impl AppState {
    pub fn new(info: SessionInfo, mode: PermissionMode) -> Self {
        let mut transcript = Transcript::default();
        transcript.push(EntryKind::System {
            text: format!(
                "✻ catui · {}\n{}\n/help for commands · Shift+Tab cycles permission modes · Ctrl+C twice to quit",
                info.model, info.cwd
            ),
            is_error: false,
        });
        Self {
            info,
            mode,
            usage: Usage::default(),
            plan_file: None,
            transcript,
            live_text: String::new(),
            thinking: false,
            streaming_tool: None,
            input: InputBox::new(),
            palette_selected: 0,
            palette_dismissed: false,
            dialog: None,
            queued: VecDeque::new(),
            teammates: Vec::new(),
            todos: Vec::new(),
            pending_inputs: VecDeque::new(),
            scroll: 0,
            ctrl_c_at: None,
            tick: 0,
            viewport: (80, 24),
        }
    }

    pub fn busy(&self) -> bool {
        !self.pending_inputs.is_empty()
    }

    /// Commands matching the input, when the palette is showing.
    pub fn palette(&self) -> Vec<(&'static str, &'static str)> {
        if self.palette_dismissed || self.dialog.is_some() {
            return Vec::new();
        }
        palette::matches(&self.input.text())
    }

    pub fn system(&mut self, text: impl Into<String>, is_error: bool) {
        self.transcript.push(EntryKind::System {
            text: text.into(),
            is_error,
        });
    }

    /// Queues a permission prompt; the first one opens at once.
    pub fn push_request(&mut self, request: PermissionRequest) {
        self.push_dialog(Dialog::for_request(request));
    }

    /// Queues the review of a teammate's plan, like a permission prompt.
    pub fn push_review(&mut self, review: &PlanReviewRequest) {
        self.push_dialog(Dialog::for_review(review));
    }

    fn push_dialog(&mut self, dialog: Dialog) {
        if self.dialog.is_none() {
            self.dialog = Some(dialog);
        } else {
            self.queued.push_back(dialog);
        }
    }

    fn close_dialog(&mut self) {
        self.dialog = self.queued.pop_front();
    }

    /// Forgets a prompt the engine stopped waiting for (e.g. interrupted).
    pub fn drop_request(&mut self, tool_use_id: &str) {
        self.queued.retain(|d| d.id() != tool_use_id);
        if self.dialog.as_ref().is_some_and(|d| d.id() == tool_use_id) {
            self.close_dialog();
        }
    }

    /// A teammate's message for the lead model: it takes its place in the
    /// input queue like a typed message, so the turn's result is matched
    /// to it.
    pub fn push_team_turn(&mut self) {
        self.pending_inputs.push_back(String::new());
    }

    /// The team panel's rows; returns whether anything changed.
    pub fn set_teammates(&mut self, rows: Vec<TeammateRow>) -> bool {
        if rows == self.teammates {
            return false;
        }
        self.teammates = rows;
        true
    }

    /// Shows what the user decided about a teammate's plan.
    pub fn note_review(&mut self, agent_id: &str, decision: Option<&PlanDecision>) {
        let text = match decision {
            None => format!("Handed {agent_id}'s plan to the lead agent for review."),
            Some(d) if d.approved => {
                format!("Approved {agent_id}'s plan: it leaves plan mode and starts.")
            }
            Some(d) => match d.feedback.as_deref() {
                Some(f) => format!("Rejected {agent_id}'s plan: {f}"),
                None => format!("Rejected {agent_id}'s plan; it keeps planning."),
            },
        };
        self.system(text, false);
    }

    /// Clears the Ctrl+C hint once its window has passed.
    pub fn expire_hints(&mut self, now: Instant) -> bool {
        match self.ctrl_c_at {
            Some(at) if now.duration_since(at) > CTRL_C_WINDOW => {
                self.ctrl_c_at = None;
                true
            }
            _ => false,
        }
    }

    // ----- engine events -------------------------------------------------

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
            } => self.apply_assistant(&message),
            EngineEvent::Assistant {
                message,
                parent_tool_use_id: Some(parent),
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
                    if let Some(tool) = self.transcript.tool_mut(&id) {
                        tool.status = ToolStatus::Running;
                        // The engine's summary wins unless it is the bare name.
                        if summary != name || !tool.summary.contains('(') {
                            tool.summary = summary;
                        }
                    } else {
                        self.transcript.push(EntryKind::Tool(ToolEntry {
                            id,
                            name,
                            input: Value::Null,
                            summary,
                            status: ToolStatus::Running,
                            result: None,
                            agent: None,
                        }));
                    }
                }
            },
            EngineEvent::ToolEnd {
                id,
                display,
                is_error,
                parent_tool_use_id,
                ..
            } => match parent_tool_use_id {
                Some(parent) => {
                    if let Some(agent) = self.agent_mut(&parent) {
                        agent.current = None;
                    }
                }
                None => {
                    if let Some(tool) = self.transcript.tool_mut(&id) {
                        tool.status = if is_error {
                            ToolStatus::Failed
                        } else {
                            ToolStatus::Done
                        };
                        tool.result = Some(display);
                    }
                }
            },
            EngineEvent::PermissionMode { mode, .. } => self.mode = mode,
            EngineEvent::Attachment(_) => {}
            EngineEvent::Notification { key, text } if key == "teammate-message" => {
                let (from, body) = text.split_once(": ").unwrap_or(("teammate", &text));
                self.transcript.push(EntryKind::Teammate {
                    from: from.to_string(),
                    text: body.to_string(),
                });
            }
            // A settings file that was not applied is a problem to fix.
            EngineEvent::Notification { key, text } if key == "settings" => self.system(text, true),
            EngineEvent::Notification { text, .. } => self.system(text, false),
            // Teammates' conversations stay out of the lead's transcript;
            // the team panel shows what they do.
            EngineEvent::Teammate { .. } => {}
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
                self.live_text.push_str(&text);
            }
            ModelEvent::ThinkingDelta { .. } => self.thinking = true,
            ModelEvent::ToolUseStart { name, .. } => self.streaming_tool = Some(name),
            ModelEvent::ToolInputDelta { .. } => {}
            ModelEvent::Retrying {
                attempt,
                delay_ms,
                reason,
            } => {
                self.live_text.clear();
                self.thinking = false;
                self.streaming_tool = None;
                self.system(
                    format!(
                        "Retrying (attempt {attempt}) in {:.1}s: {reason}",
                        delay_ms as f64 / 1000.0
                    ),
                    false,
                );
            }
        }
    }

    fn apply_assistant(&mut self, message: &Message) {
        self.live_text.clear();
        self.thinking = false;
        self.streaming_tool = None;
        for block in &message.content {
            match block {
                ContentBlock::Text { text } if !text.trim().is_empty() => {
                    self.transcript.push(EntryKind::Assistant(text.clone()));
                }
                ContentBlock::ToolUse { id, name, input } => {
                    if name == "TodoWrite" {
                        self.todos = parse_todos(input);
                    }
                    let agent = matches!(name.as_str(), "Agent" | "Task")
                        .then(|| AgentProgress::from_input(input));
                    self.transcript.push(EntryKind::Tool(ToolEntry {
                        id: id.clone(),
                        name: name.clone(),
                        input: input.clone(),
                        summary: fallback_summary(name, input),
                        status: ToolStatus::Pending,
                        result: None,
                        agent,
                    }));
                }
                _ => {}
            }
        }
    }

    /// Results of calls that never ran (denied, invalid) arrive only here.
    fn apply_tool_results(&mut self, message: &Message) {
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
                    tool.status = if *is_error {
                        ToolStatus::Failed
                    } else {
                        ToolStatus::Done
                    };
                    tool.result = Some(content.as_text());
                }
            }
        }
    }

    fn apply_result(&mut self, outcome: TurnOutcome) {
        let sent = self.pending_inputs.pop_front().unwrap_or_default();
        self.usage.add(&outcome.usage);
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
                tool.status = ToolStatus::Failed;
                tool.result = Some("Not run.".into());
            }
        }
        if outcome.num_turns == 0 {
            if sent.trim() == "/clear" && !outcome.is_error {
                self.transcript.clear();
                self.todos.clear();
            }
            self.push_command_output(&outcome.result, outcome.is_error);
        } else if outcome.is_error {
            self.system(outcome.result, true);
        }
    }

    /// A local command's output; `/plan` output becomes a plan display.
    fn push_command_output(&mut self, text: &str, is_error: bool) {
        if let Some(rest) = text.strip_prefix("Current Plan\n") {
            let (path, body) = rest.split_once('\n').unwrap_or((rest, ""));
            let body = body.trim_start_matches('\n');
            // The trailing `"/plan open" to edit...` hint is shown dimmed.
            let (content, hint) = match body.rsplit_once("\n\n") {
                Some((c, h)) if h.contains("/plan open") => (c.to_string(), Some(h.to_string())),
                _ => (body.to_string(), None),
            };
            self.transcript.push(EntryKind::PlanDisplay {
                path: path.to_string(),
                content,
                hint,
            });
        } else if !text.trim().is_empty() {
            self.system(text.trim_end(), is_error);
        }
    }
}

fn parse_todos(input: &Value) -> Vec<Todo> {
    let field = |t: &Value, k: &str| t.get(k).and_then(Value::as_str).unwrap_or("").to_string();
    input
        .get("todos")
        .and_then(Value::as_array)
        .map(|list| {
            list.iter()
                .map(|t| Todo {
                    content: field(t, "content"),
                    status: field(t, "status"),
                    active_form: field(t, "activeForm"),
                })
                .collect()
        })
        .unwrap_or_default()
}
