//! Engine events as stream-json lines, in the shapes the Agent
//! SDKs parse: assistant messages with their id, model, stop reason and
//! usage, a `uuid` on every message, results with the SDK's fields, and
//! with `--include-partial-messages` the model's stream as `stream_event`
//! lines (Anthropic Messages streaming events, rebuilt from the engine's
//! deltas whatever the provider).

use catui_core::engine::{EngineEvent, ResponseInfo, TurnOutcome};
use catui_protocol::stream_json::{
    AssistantMessage, OutputEvent, ResultEvent, ResultSubtype, SystemEvent,
};
use catui_protocol::{ModelEvent, StopReason};
use serde_json::{Value, json};

/// A fresh id for a line or a message.
pub fn new_uuid() -> String {
    uuid::Uuid::new_v4().to_string()
}

/// The kind of content block the partial stream has open.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Block {
    Text,
    Thinking,
    ToolUse,
}

/// The main conversation's message being streamed.
struct Partial {
    id: String,
    /// Index and kind of the open content block.
    block: Option<(usize, Block)>,
    next_index: usize,
}

/// Translates engine events to stream-json lines; keeps what spans events
/// (the message being streamed, the last stop reason).
pub struct StreamJson {
    session_id: String,
    model: String,
    partial_messages: bool,
    /// `--replay-user-messages`: echo each user input with its id.
    replay_user_messages: bool,
    partial: Option<Partial>,
    last_stop_reason: Option<StopReason>,
    /// Background agents, for their `task_progress` lines.
    tasks: super::tasks::RunningTasks,
    /// The step of an approved plan the work is on: tool calls and their
    /// results carry it (`plan_step`).
    step: Option<u32>,
}

impl StreamJson {
    pub fn new(session_id: String, model: String, partial_messages: bool) -> Self {
        StreamJson {
            session_id,
            model,
            partial_messages,
            replay_user_messages: false,
            partial: None,
            last_stop_reason: None,
            tasks: Default::default(),
            step: None,
        }
    }

    /// Echoes each user input (`--replay-user-messages`).
    pub fn replaying_user_messages(mut self, yes: bool) -> Self {
        self.replay_user_messages = yes;
        self
    }

    /// The lines for one engine event (none, one, or with partial messages
    /// several).
    pub fn lines(&mut self, event: EngineEvent) -> Vec<OutputEvent> {
        let session_id = self.session_id.clone();
        let system = |e: SystemEvent| vec![OutputEvent::System(e)];
        match event {
            EngineEvent::Assistant {
                message,
                uuid,
                parent_tool_use_id,
                response,
            } => {
                self.tasks
                    .answered(parent_tool_use_id.as_deref(), &response.usage);
                let mut out = Vec::new();
                let mut id = None;
                if parent_tool_use_id.is_none() {
                    self.last_stop_reason = response.stop_reason.clone();
                    if let Some(partial) = self.partial.take() {
                        id = Some(partial.id.clone());
                        out.extend(self.finish_partial(partial, &response));
                    }
                }
                let ResponseInfo {
                    model,
                    stop_reason,
                    usage,
                } = response;
                let plan_step = self.step.filter(|_| message.tool_uses().next().is_some());
                out.push(OutputEvent::Assistant {
                    message: AssistantMessage {
                        message,
                        id: id.unwrap_or_else(|| format!("msg_{}", uuid::Uuid::new_v4().simple())),
                        kind: "message".into(),
                        model,
                        stop_reason,
                        stop_sequence: None,
                        usage,
                    },
                    session_id,
                    parent_tool_use_id,
                    uuid,
                    plan_step,
                });
                out
            }
            EngineEvent::User {
                message,
                uuid,
                parent_tool_use_id,
            } => {
                let plan_step = self.step.filter(|_| {
                    message
                        .content
                        .iter()
                        .any(|b| matches!(b, catui_protocol::ContentBlock::ToolResult { .. }))
                });
                vec![OutputEvent::User {
                    message,
                    session_id,
                    parent_tool_use_id,
                    uuid,
                    is_replay: None,
                    plan_step,
                }]
            }
            // The echo carries the message's own id: what `rewind_files`
            // names.
            EngineEvent::UserMessage { uuid, content } if self.replay_user_messages => {
                vec![OutputEvent::User {
                    message: catui_protocol::Message {
                        role: catui_protocol::Role::User,
                        content,
                    },
                    session_id,
                    parent_tool_use_id: None,
                    uuid,
                    is_replay: Some(true),
                    plan_step: None,
                }]
            }
            EngineEvent::UserMessage { .. } => Vec::new(),
            EngineEvent::PlanCompliance(report) => system(SystemEvent::PlanCompliance(report)),
            EngineEvent::PlanVerification(run) => system(SystemEvent::PlanVerification(run)),
            EngineEvent::GoalCheck(check) => system(SystemEvent::GoalCheck(check)),
            EngineEvent::PlanReport(report) => system(SystemEvent::PlanReport(report)),
            EngineEvent::WorkStep(step) => {
                self.step = step.map(|s| s.step);
                Vec::new()
            }
            EngineEvent::PermissionMode {
                mode,
                pre_plan_mode,
            } => system(SystemEvent::PermissionMode {
                mode,
                pre_plan_mode,
            }),
            EngineEvent::Attachment(attachment) => system(SystemEvent::Attachment { attachment }),
            EngineEvent::Notification { key, text } | EngineEvent::Advice { key, text } => {
                system(SystemEvent::Notification { key, text })
            }
            EngineEvent::Todos { todos } => system(SystemEvent::Todos {
                todos: todos
                    .iter()
                    .filter_map(|t| serde_json::to_value(t).ok())
                    .collect(),
            }),
            EngineEvent::TeammateMessage { from, text } => system(SystemEvent::Notification {
                key: "teammate-message".into(),
                text: format!("{from}: {text}"),
            }),
            EngineEvent::Teammate { agent_id, message } => system(SystemEvent::TeammateMessage {
                session_id,
                agent_id,
                message,
            }),
            EngineEvent::Delta {
                event:
                    ModelEvent::Retrying {
                        attempt,
                        delay_ms,
                        reason,
                    },
                agent_id,
            } => {
                if agent_id.is_none() {
                    // What streamed so far is discarded; the next attempt
                    // starts a new message.
                    self.partial = None;
                }
                system(SystemEvent::Notification {
                    key: "retrying".into(),
                    // `attempt` is the one about to start; the one before it failed.
                    text: format!(
                        "attempt {} failed ({reason}); attempt {attempt} starts in {delay_ms} ms",
                        attempt.saturating_sub(1)
                    ),
                })
            }
            EngineEvent::Delta {
                event:
                    ModelEvent::FellBack {
                        model,
                        fallback,
                        reason,
                    },
                agent_id,
            } => {
                if agent_id.is_none() {
                    self.partial = None;
                }
                system(SystemEvent::Notification {
                    key: "fallback_model".into(),
                    text: fallback_text(&model, &fallback, &reason),
                })
            }
            EngineEvent::Delta {
                event,
                agent_id: None,
            } if self.partial_messages => self.delta(event),
            EngineEvent::Result(outcome) => {
                let stop_reason = self.last_stop_reason.take();
                self.partial = None;
                vec![OutputEvent::Result(result_event(
                    &session_id,
                    outcome,
                    stop_reason,
                ))]
            }
            EngineEvent::ToolProgress {
                id,
                name,
                parent_tool_use_id,
                elapsed,
                ..
            } => vec![OutputEvent::ToolProgress {
                tool_use_id: id,
                tool_name: name,
                parent_tool_use_id,
                elapsed_time_seconds: elapsed.as_secs_f64(),
                uuid: new_uuid(),
                session_id,
            }],
            EngineEvent::TaskStarted(task) => {
                self.tasks.started(&task);
                system(SystemEvent::TaskStarted {
                    task,
                    session_id,
                    uuid: new_uuid(),
                })
            }
            EngineEvent::TaskProgress(task) => system(SystemEvent::TaskProgress {
                task,
                session_id,
                uuid: new_uuid(),
            }),
            EngineEvent::TaskEnded(task) => {
                self.tasks.ended(&task);
                system(SystemEvent::TaskNotification {
                    task,
                    session_id,
                    uuid: new_uuid(),
                })
            }
            EngineEvent::ToolStart {
                name,
                parent_tool_use_id,
                ..
            } => match self
                .tasks
                .tool_started(parent_tool_use_id.as_deref(), &name)
            {
                Some(task) => system(SystemEvent::TaskProgress {
                    task,
                    session_id,
                    uuid: new_uuid(),
                }),
                None => Vec::new(),
            },
            // A server that fails to start is reported by its own notice.
            EngineEvent::Delta { .. }
            | EngineEvent::ToolEnd { .. }
            | EngineEvent::AwaitingTools { .. } => Vec::new(),
        }
    }

    fn stream_event(&self, event: Value) -> OutputEvent {
        OutputEvent::StreamEvent {
            uuid: new_uuid(),
            session_id: self.session_id.clone(),
            event,
            parent_tool_use_id: None,
        }
    }

    fn delta(&mut self, event: ModelEvent) -> Vec<OutputEvent> {
        let mut raw = Vec::new();
        let partial = match &mut self.partial {
            Some(p) => p,
            None => {
                let id = format!("msg_{}", uuid::Uuid::new_v4().simple());
                raw.push(json!({"type": "message_start", "message": {
                    "id": id, "type": "message", "role": "assistant", "model": self.model,
                    "content": [], "stop_reason": null, "stop_sequence": null,
                    "usage": {"input_tokens": 0, "output_tokens": 0}}}));
                self.partial.insert(Partial {
                    id,
                    block: None,
                    next_index: 0,
                })
            }
        };
        let (kind, start, delta) = match event {
            ModelEvent::TextDelta { text } => (
                Block::Text,
                json!({"type": "text", "text": ""}),
                json!({"type": "text_delta", "text": text}),
            ),
            ModelEvent::ThinkingDelta { thinking } => (
                Block::Thinking,
                json!({"type": "thinking", "thinking": "", "signature": ""}),
                json!({"type": "thinking_delta", "thinking": thinking}),
            ),
            ModelEvent::ToolUseStart { id, name } => {
                // A new tool call always opens a new block.
                if let Some((index, _)) = partial.block.take() {
                    raw.push(json!({"type": "content_block_stop", "index": index}));
                }
                let index = partial.next_index;
                partial.next_index += 1;
                partial.block = Some((index, Block::ToolUse));
                raw.push(json!({"type": "content_block_start", "index": index,
                    "content_block": {"type": "tool_use", "id": id, "name": name, "input": {}}}));
                return raw.into_iter().map(|e| self.stream_event(e)).collect();
            }
            ModelEvent::ToolInputDelta { partial_json, .. } => (
                Block::ToolUse,
                Value::Null,
                json!({"type": "input_json_delta", "partial_json": partial_json}),
            ),
            ModelEvent::Retrying { .. } | ModelEvent::FellBack { .. } => return Vec::new(),
        };
        let index = match partial.block {
            Some((index, open)) if open == kind => index,
            open => {
                if let Some((index, _)) = open {
                    raw.push(json!({"type": "content_block_stop", "index": index}));
                }
                let index = partial.next_index;
                partial.next_index += 1;
                partial.block = Some((index, kind));
                raw.push(
                    json!({"type": "content_block_start", "index": index, "content_block": start}),
                );
                index
            }
        };
        raw.push(json!({"type": "content_block_delta", "index": index, "delta": delta}));
        raw.into_iter().map(|e| self.stream_event(e)).collect()
    }

    fn finish_partial(&self, partial: Partial, response: &ResponseInfo) -> Vec<OutputEvent> {
        let mut raw = Vec::new();
        if let Some((index, _)) = partial.block {
            raw.push(json!({"type": "content_block_stop", "index": index}));
        }
        raw.push(json!({"type": "message_delta",
            "delta": {"stop_reason": response.stop_reason, "stop_sequence": null},
            "usage": {"output_tokens": response.usage.output_tokens}}));
        raw.push(json!({"type": "message_stop"}));
        raw.into_iter().map(|e| self.stream_event(e)).collect()
    }
}

/// How a switch to the fallback model is announced.
pub fn fallback_text(model: &str, fallback: &str, reason: &str) -> String {
    format!(
        "{model} is overloaded or unavailable ({reason}); continuing with the fallback model {fallback}"
    )
}

/// The `result` line of one handled input.
pub fn result_event(
    session_id: &str,
    o: TurnOutcome,
    stop_reason: Option<StopReason>,
) -> ResultEvent {
    let errors = if o.is_error && o.subtype != ResultSubtype::Success {
        vec![o.result.clone()]
    } else {
        Vec::new()
    };
    ResultEvent {
        errors,
        subtype: o.subtype,
        is_error: o.is_error,
        result: o.result,
        session_id: session_id.to_string(),
        num_turns: o.num_turns,
        duration_ms: o.duration_ms,
        duration_api_ms: o.cost.api_duration_ms,
        total_cost_usd: o.cost.total_cost_usd,
        model_usage: o.cost.model_usage,
        stop_reason,
        usage: o.usage,
        permission_mode: o.permission_mode,
        plan_file: o.plan_file,
        uuid: new_uuid(),
        structured_output: o.structured_output,
        left_running: o.left_running,
        goal: o.goal.map(|g| catui_protocol::stream_json::GoalStatus {
            met: g.met,
            reason: g.reason.describe(),
            continuations: g.continuations,
            missing: g.missing,
        }),
        plan_report: o.plan_report,
    }
}

/// The text run's last lines: what catui leaves running as it exits.
pub fn left_running_text(left: &[catui_protocol::stream_json::LeftRunning]) -> Option<String> {
    if left.is_empty() {
        return None;
    }
    let mut text = String::from("Left running after catui exits (keep_running):");
    for process in left {
        text.push_str(&format!("\n- pid {}: {}", process.pid, process.command));
    }
    Some(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(lines: &[OutputEvent]) -> Vec<String> {
        lines
            .iter()
            .map(|l| match l {
                OutputEvent::StreamEvent { event, .. } => {
                    event["type"].as_str().unwrap_or("?").to_string()
                }
                OutputEvent::Assistant { .. } => "assistant".into(),
                _ => "other".into(),
            })
            .collect()
    }

    #[test]
    fn deltas_become_anthropic_stream_events() {
        let mut s = StreamJson::new("s".into(), "m".into(), true);
        let mut lines = Vec::new();
        for event in [
            ModelEvent::TextDelta { text: "Hel".into() },
            ModelEvent::TextDelta { text: "lo".into() },
            ModelEvent::ToolUseStart {
                id: "t1".into(),
                name: "Read".into(),
            },
            ModelEvent::ToolInputDelta {
                id: "t1".into(),
                partial_json: "{}".into(),
            },
        ] {
            lines.extend(s.lines(EngineEvent::Delta {
                agent_id: None,
                event,
            }));
        }
        lines.extend(s.lines(EngineEvent::Assistant {
            uuid: "u".into(),
            message: catui_protocol::Message::assistant_text("Hello"),
            parent_tool_use_id: None,
            response: ResponseInfo {
                model: "m".into(),
                stop_reason: Some(StopReason::ToolUse),
                usage: Default::default(),
            },
        }));
        assert_eq!(
            kinds(&lines),
            [
                "message_start",
                "content_block_start",
                "content_block_delta",
                "content_block_delta",
                "content_block_stop",
                "content_block_start",
                "content_block_delta",
                "content_block_stop",
                "message_delta",
                "message_stop",
                "assistant"
            ]
        );
        // The message id of the stream is the assistant message's id.
        let (OutputEvent::StreamEvent { event, .. }, OutputEvent::Assistant { message, .. }) =
            (&lines[0], &lines[10])
        else {
            panic!("unexpected lines")
        };
        assert_eq!(event["message"]["id"], message.id.as_str());
    }
}
