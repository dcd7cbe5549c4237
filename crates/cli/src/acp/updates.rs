//! The session's events as `session/update` notifications: message and
//! thought chunks, tool calls and their progress, mode changes, plans.
//! One task per session reads the engine's events in order; a flush makes
//! sure everything the engine reported so far has been sent (before a
//! permission request, before the prompt's response).

use catui_protocol::tool_names;
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use agent_client_protocol::Client;
use agent_client_protocol::v1::ConnectionTo;
use agent_client_protocol::v1::schema::{
    ContentBlock as AcpBlock, ContentChunk, CurrentModeUpdate, Plan, SessionId,
    SessionNotification, SessionUpdate, TextContent, ToolCall, ToolCallStatus, ToolCallUpdate,
    ToolCallUpdateFields,
};
use catui_core::engine::EngineEvent;
use catui_core::sync::lock;
use catui_protocol::{ContentBlock, Message, ModelEvent, Role, ToolResultContent};
use serde_json::Value;
use tokio::sync::mpsc::{UnboundedReceiver, UnboundedSender, unbounded_channel};
use tokio::sync::oneshot;

use super::mapping;

/// What the session's front end remembers between events and prompts.
#[derive(Default)]
pub struct Shown {
    /// The plan text last put to the user for approval.
    pub plan: Option<String>,
    /// Tool calls announced to the client: id → (name, input).
    pub tools: HashMap<String, (String, Value)>,
}

/// Sends notifications for one session.
#[derive(Clone)]
pub struct Notifier {
    pub cx: ConnectionTo<Client>,
    pub session_id: SessionId,
    pub cwd: PathBuf,
    pub shown: Arc<Mutex<Shown>>,
}

impl Notifier {
    pub fn send(&self, update: SessionUpdate) {
        // A client that went away is noticed by the connection itself.
        let _ = self
            .cx
            .send_notification(SessionNotification::new(self.session_id.clone(), update));
    }

    fn text(&self, text: impl Into<String>) {
        self.send(SessionUpdate::AgentMessageChunk(ContentChunk::new(
            AcpBlock::Text(TextContent::new(text)),
        )));
    }

    /// A notice from catui itself (not the model) for the user, as a
    /// message of the agent.
    pub fn notice(&self, text: &str) {
        self.text(format!("[catui] {text}\n\n"));
    }

    fn thought(&self, text: impl Into<String>) {
        self.send(SessionUpdate::AgentThoughtChunk(ContentChunk::new(
            AcpBlock::Text(TextContent::new(text)),
        )));
    }

    fn user_text(&self, text: impl Into<String>) {
        self.send(SessionUpdate::UserMessageChunk(ContentChunk::new(
            AcpBlock::Text(TextContent::new(text)),
        )));
    }

    /// A tool call the model made, with its kind, locations and diff.
    pub fn tool_call(&self, id: &str, name: &str, input: &Value, status: ToolCallStatus) {
        let mut call = ToolCall::new(id.to_string(), mapping::tool_title(name, input, &self.cwd))
            .kind(mapping::tool_kind(name))
            .status(status)
            .locations(mapping::tool_locations(input, &self.cwd))
            .raw_input(input.clone());
        if let Some(diff) = mapping::tool_diff(name, input, &self.cwd) {
            call = call.content(vec![diff]);
        }
        lock(&self.shown)
            .tools
            .insert(id.to_string(), (name.to_string(), input.clone()));
        self.send(SessionUpdate::ToolCall(call));
    }

    fn tool_update(&self, id: &str, fields: ToolCallUpdateFields) {
        self.send(SessionUpdate::ToolCallUpdate(ToolCallUpdate::new(
            id.to_string(),
            fields,
        )));
    }

    fn plan(&self, entries: Vec<agent_client_protocol::v1::schema::PlanEntry>) {
        self.send(SessionUpdate::Plan(Plan::new(entries)));
    }

    /// The conversation so far, as a loaded session replays it.
    pub fn replay(&self, messages: &[Message]) {
        for message in messages {
            for block in &message.content {
                match (message.role, block) {
                    (Role::User, ContentBlock::Text { text }) => self.user_text(text.clone()),
                    (Role::Assistant, ContentBlock::Text { text }) => self.text(text.clone()),
                    (Role::Assistant, ContentBlock::Thinking { thinking, .. }) => {
                        self.thought(thinking.clone())
                    }
                    (Role::Assistant, ContentBlock::ToolUse { id, name, input }) => {
                        self.tool_call(id, name, input, ToolCallStatus::Completed)
                    }
                    (
                        Role::User,
                        ContentBlock::ToolResult {
                            tool_use_id,
                            content,
                            is_error,
                        },
                    ) => {
                        let text = match content {
                            ToolResultContent::Text(t) => t.clone(),
                            _ => String::new(),
                        };
                        let status = if *is_error {
                            ToolCallStatus::Failed
                        } else {
                            ToolCallStatus::Completed
                        };
                        self.tool_update(
                            tool_use_id,
                            ToolCallUpdateFields::new()
                                .status(status)
                                .content(vec![mapping::text_content(text)]),
                        );
                    }
                    _ => {}
                }
            }
        }
    }
}

enum Command {
    Flush(oneshot::Sender<()>),
}

/// The handle of a session's update task.
#[derive(Clone)]
pub struct Updates {
    commands: UnboundedSender<Command>,
}

impl Updates {
    /// Starts the task that turns `events` into notifications.
    pub fn start(notifier: Notifier, events: UnboundedReceiver<EngineEvent>) -> Self {
        let (commands, rx) = unbounded_channel();
        tokio::spawn(pump(notifier, events, rx));
        Updates { commands }
    }

    /// Returns once every event reported before the call has been sent.
    pub async fn flush(&self) {
        let (tx, rx) = oneshot::channel();
        if self.commands.send(Command::Flush(tx)).is_ok() {
            let _ = rx.await;
        }
    }
}

async fn pump(
    notifier: Notifier,
    mut events: UnboundedReceiver<EngineEvent>,
    mut commands: UnboundedReceiver<Command>,
) {
    let mut state = TurnState::default();
    loop {
        tokio::select! {
            biased;
            event = events.recv() => match event {
                Some(event) => translate(&notifier, &mut state, event),
                None => break,
            },
            command = commands.recv() => match command {
                Some(Command::Flush(done)) => {
                    while let Ok(event) = events.try_recv() {
                        translate(&notifier, &mut state, event);
                    }
                    let _ = done.send(());
                }
                None => break,
            },
        }
    }
    // The engine is gone: answer flushes that are still waiting.
    while let Some(Command::Flush(done)) = commands.recv().await {
        let _ = done.send(());
    }
}

/// What the current turn has shown so far.
#[derive(Default)]
struct TurnState {
    /// Text was streamed (so the result need not be sent again).
    streamed: bool,
}

fn translate(n: &Notifier, state: &mut TurnState, event: EngineEvent) {
    match event {
        // Sub-agents' streams stay inside their Agent call.
        EngineEvent::Delta {
            agent_id: None,
            event,
        } => match event {
            ModelEvent::TextDelta { text } => {
                state.streamed = true;
                n.text(text);
            }
            ModelEvent::ThinkingDelta { thinking } => n.thought(thinking),
            _ => {}
        },
        EngineEvent::Assistant {
            message,
            parent_tool_use_id: None,
            ..
        } => {
            for block in &message.content {
                if let ContentBlock::ToolUse { id, name, input } = block {
                    n.tool_call(id, name, input, ToolCallStatus::Pending);
                }
            }
        }
        EngineEvent::ToolStart {
            id,
            summary,
            parent_tool_use_id: None,
            ..
        } => n.tool_update(
            &id,
            ToolCallUpdateFields::new()
                .status(ToolCallStatus::InProgress)
                .title(summary),
        ),
        EngineEvent::ToolEnd {
            id,
            name,
            display,
            is_error,
            failed,
            parent_tool_use_id: None,
        } => {
            let status = if failed || is_error {
                ToolCallStatus::Failed
            } else {
                ToolCallStatus::Completed
            };
            let mut fields = ToolCallUpdateFields::new().status(status);
            if !display.trim().is_empty() {
                fields = fields.content(vec![mapping::text_content(display)]);
            }
            n.tool_update(&id, fields);
            if !is_error {
                tool_succeeded(n, &id, &name);
            }
        }
        EngineEvent::PermissionMode { mode, .. } => n.send(SessionUpdate::CurrentModeUpdate(
            CurrentModeUpdate::new(mode.to_string()),
        )),
        EngineEvent::Advice { text, .. } => {
            n.text(format!("\n\n{text}\n"));
        }
        EngineEvent::TeammateMessage { from, text } => {
            n.text(format!("\n\n[{from}] {text}\n"));
        }
        EngineEvent::Notification { key, text } => {
            tracing::info!("notification {key}: {text}");
        }
        // The comparison with the approved plan, in one line.
        EngineEvent::PlanCompliance(report) => {
            n.text(format!("\n\n{}\n", report.summary()));
        }
        EngineEvent::Result(outcome) => {
            // A slash command's output, or an error, was not streamed.
            if (!state.streamed || outcome.is_error) && !outcome.result.trim().is_empty() {
                n.text(outcome.result);
            }
            *state = TurnState::default();
        }
        _ => {}
    }
}

/// A finished TodoWrite or an approved plan updates the editor's plan view.
fn tool_succeeded(n: &Notifier, id: &str, name: &str) {
    let entries = {
        let shown = lock(&n.shown);
        match name {
            tool_names::TODO_WRITE => shown
                .tools
                .get(id)
                .and_then(|(_, input)| mapping::todo_entries(input)),
            tool_names::EXIT_PLAN_MODE => shown
                .plan
                .as_deref()
                .map(mapping::plan_steps)
                .filter(|s| !s.is_empty()),
            _ => None,
        }
    };
    if let Some(entries) = entries {
        n.plan(entries);
    }
}
