//! What the lead's front end sees of a teammate. A teammate's engine
//! reports to its own event stream; this relay passes on its complete
//! messages (as [`EngineEvent::Teammate`]) and its notices, and keeps its
//! live activity on [`TeammateState`] for `/team`. Streaming deltas, mode
//! changes and everything its sub-agents do stay with the teammate: the
//! lead's user follows the teammate, not each keystroke of it.

use std::sync::Arc;

use tokio::sync::mpsc::{UnboundedReceiver, UnboundedSender};

use catui_protocol::ContentBlock;

use super::teammate::TeammateState;
use crate::engine::EngineEvent;

/// Relays `events` until the teammate's engine and loop are gone.
pub(super) async fn forward(
    mut events: UnboundedReceiver<EngineEvent>,
    state: Arc<TeammateState>,
    lead: UnboundedSender<EngineEvent>,
) {
    let agent_id = state.agent_id();
    while let Some(event) = events.recv().await {
        if let Some(out) = relay(&agent_id, &state, event) {
            // The lead's front end may be gone already; the teammate's
            // bookkeeping above still matters to `/team`.
            let _ = lead.send(out);
        }
    }
}

/// Updates `state` for one teammate event and returns what the lead's
/// front end gets of it.
fn relay(agent_id: &str, state: &TeammateState, event: EngineEvent) -> Option<EngineEvent> {
    match event {
        EngineEvent::Assistant {
            message,
            parent_tool_use_id: None,
            ..
        } => {
            for block in &message.content {
                if let ContentBlock::Text { text } = block
                    && !text.trim().is_empty()
                {
                    state.remember(excerpt(text));
                }
            }
            Some(EngineEvent::Teammate {
                agent_id: agent_id.to_string(),
                message,
            })
        }
        EngineEvent::User {
            message,
            parent_tool_use_id: None,
            ..
        } => Some(EngineEvent::Teammate {
            agent_id: agent_id.to_string(),
            message,
        }),
        EngineEvent::ToolStart {
            id,
            summary,
            parent_tool_use_id: None,
            ..
        } => {
            state.tool_started(id, summary);
            None
        }
        EngineEvent::ToolEnd {
            id,
            display,
            failed,
            parent_tool_use_id: None,
            ..
        } => {
            if failed {
                state.remember(format!("  ⎿ {}", excerpt(&display)));
            }
            state.tool_ended(&id);
            None
        }
        // Sent by the teammate's loop after each turn (see `spawn`); the
        // lead's own result stays the only one its front end sees.
        EngineEvent::Result(_) => {
            state.turn_ended();
            None
        }
        EngineEvent::Notification { key, text } | EngineEvent::Advice { key, text } => {
            Some(EngineEvent::Notification {
                key: format!("teammate-{key}"),
                text: format!("[{agent_id}] {text}"),
            })
        }
        EngineEvent::Assistant { .. }
        | EngineEvent::User { .. }
        | EngineEvent::ToolStart { .. }
        | EngineEvent::ToolEnd { .. }
        | EngineEvent::ToolProgress { .. }
        | EngineEvent::Delta { .. }
        | EngineEvent::PermissionMode { .. }
        | EngineEvent::Attachment(_)
        | EngineEvent::Todos { .. }
        | EngineEvent::TeammateMessage { .. }
        | EngineEvent::Teammate { .. }
        | EngineEvent::UserMessage { .. }
        | EngineEvent::PlanCompliance(_)
        | EngineEvent::PlanVerification(_)
        | EngineEvent::GoalCheck(_)
        | EngineEvent::PlanReport(_)
        | EngineEvent::WorkStep(_)
        | EngineEvent::TaskStarted(_)
        | EngineEvent::TaskProgress(_)
        | EngineEvent::TaskEnded(_)
        | EngineEvent::AwaitingTools { .. } => None,
    }
}

/// The start of a text for `/team show`: at most [`EXCERPT_LINES`] lines
/// of at most [`EXCERPT_CHARS`] characters in all.
fn excerpt(text: &str) -> String {
    let lines: Vec<&str> = text.trim().lines().collect();
    let mut out = lines
        .iter()
        .take(EXCERPT_LINES)
        .copied()
        .collect::<Vec<_>>()
        .join("\n");
    let mut cut = lines.len() > EXCERPT_LINES;
    if out.chars().count() > EXCERPT_CHARS {
        out = out.chars().take(EXCERPT_CHARS).collect();
        cut = true;
    }
    if cut {
        out.push('…');
    }
    out
}

const EXCERPT_LINES: usize = 4;
const EXCERPT_CHARS: usize = 400;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::teams::TeammateSpec;
    use catui_protocol::{ContentBlock, Message, PermissionMode};
    use serde_json::json;
    use tokio_util::sync::CancellationToken;

    fn amy() -> TeammateState {
        TeammateState::new(
            TeammateSpec {
                name: "amy".into(),
                team: "core".into(),
                prompt: "work".into(),
                model: None,
                permission_mode: PermissionMode::Default,
                plan_mode_required: false,
                host: None,
            },
            "m1".into(),
            CancellationToken::new(),
        )
    }

    fn start(id: &str, summary: &str, parent: Option<&str>) -> EngineEvent {
        EngineEvent::ToolStart {
            id: id.into(),
            name: "Edit".into(),
            summary: summary.into(),
            parent_tool_use_id: parent.map(str::to_string),
        }
    }

    fn end(id: &str, parent: Option<&str>) -> EngineEvent {
        EngineEvent::ToolEnd {
            id: id.into(),
            name: "Edit".into(),
            display: "ok".into(),
            is_error: false,
            failed: false,
            parent_tool_use_id: parent.map(str::to_string),
        }
    }

    #[test]
    fn own_messages_go_to_the_lead_tagged_with_the_teammate() {
        let state = amy();
        let call = Message {
            role: catui_protocol::Role::Assistant,
            content: vec![ContentBlock::ToolUse {
                id: "t1".into(),
                name: "Edit".into(),
                input: json!({"file_path": "src/lib.rs"}),
            }],
        };
        let out = relay(
            "amy@core",
            &state,
            EngineEvent::Assistant {
                uuid: "u".into(),
                message: call.clone(),
                parent_tool_use_id: None,
                response: Default::default(),
            },
        );
        assert_eq!(
            out,
            Some(EngineEvent::Teammate {
                agent_id: "amy@core".into(),
                message: call,
            })
        );
        let results = Message {
            role: catui_protocol::Role::User,
            content: vec![ContentBlock::tool_result("t1", "edited", false)],
        };
        let out = relay(
            "amy@core",
            &state,
            EngineEvent::User {
                uuid: "u".into(),
                message: results.clone(),
                parent_tool_use_id: None,
            },
        );
        assert_eq!(
            out,
            Some(EngineEvent::Teammate {
                agent_id: "amy@core".into(),
                message: results,
            })
        );
    }

    #[test]
    fn sub_agents_and_streams_stay_with_the_teammate() {
        let state = amy();
        let dropped = [
            EngineEvent::Assistant {
                uuid: "u".into(),
                message: Message::assistant_text("sub-agent talk"),
                parent_tool_use_id: Some("agent-1".into()),
                response: Default::default(),
            },
            EngineEvent::User {
                uuid: "u".into(),
                message: Message::user_text("sub-agent results"),
                parent_tool_use_id: Some("agent-1".into()),
            },
            start("s1", "Read(x)", Some("agent-1")),
            EngineEvent::Delta {
                agent_id: Some("amy@core".into()),
                event: catui_protocol::ModelEvent::TextDelta { text: "h".into() },
            },
        ];
        for event in dropped {
            assert_eq!(relay("amy@core", &state, event.clone()), None, "{event:?}");
        }
        // A sub-agent's tool call is not the teammate's activity.
        assert_eq!(state.activity(), None);
        assert_eq!(state.tool_uses(), 0);
    }

    #[test]
    fn activity_follows_the_calls_still_running() {
        let state = amy();
        relay("amy@core", &state, start("a", "Read(a.rs)", None));
        relay("amy@core", &state, start("b", "Read(b.rs)", None));
        assert_eq!(state.activity().as_deref(), Some("Read(b.rs)"));
        // The later call ends first: the earlier one is still running.
        relay("amy@core", &state, end("b", None));
        assert_eq!(state.activity().as_deref(), Some("Read(a.rs)"));
        // A sub-agent's call ending does not touch the teammate's own.
        relay("amy@core", &state, end("a", Some("agent-1")));
        assert_eq!(state.activity().as_deref(), Some("Read(a.rs)"));
        relay("amy@core", &state, end("a", None));
        assert_eq!(state.activity(), None);
        relay("amy@core", &state, start("c", "Edit(src/lib.rs)", None));
        assert_eq!(state.tool_uses(), 3);
    }

    #[test]
    fn the_end_of_a_turn_clears_the_activity_and_is_not_relayed() {
        let state = amy();
        relay("amy@core", &state, start("a", "Bash(make)", None));
        let outcome = crate::engine::TurnOutcome {
            subtype: catui_protocol::stream_json::ResultSubtype::Success,
            is_error: false,
            result: "done".into(),
            num_turns: 1,
            duration_ms: 0,
            usage: Default::default(),
            cost: Default::default(),
            permission_mode: PermissionMode::Default,
            plan_file: None,
            view: None,
            structured_output: None,
            left_running: Vec::new(),
            goal: None,
            plan_report: None,
        };
        assert_eq!(
            relay("amy@core", &state, EngineEvent::Result(outcome)),
            None
        );
        assert_eq!(state.activity(), None);
        assert_eq!(state.tool_uses(), 1);
    }

    #[test]
    fn notices_are_prefixed_with_the_teammate() {
        let out = relay(
            "amy@core",
            &amy(),
            EngineEvent::Notification {
                key: "retrying".into(),
                text: "overloaded".into(),
            },
        );
        assert_eq!(
            out,
            Some(EngineEvent::Notification {
                key: "teammate-retrying".into(),
                text: "[amy@core] overloaded".into(),
            })
        );
    }

    #[test]
    fn recent_history_keeps_answers_calls_and_failures() {
        let state = amy();
        let answer = Message {
            role: catui_protocol::Role::Assistant,
            content: vec![ContentBlock::text(
                "Looking at the parser.\nline 2\nline 3\nline 4\nline 5",
            )],
        };
        relay(
            "amy@core",
            &state,
            EngineEvent::Assistant {
                uuid: "u".into(),
                message: answer,
                parent_tool_use_id: None,
                response: Default::default(),
            },
        );
        relay("amy@core", &state, start("t1", "Bash(cargo test)", None));
        relay(
            "amy@core",
            &state,
            EngineEvent::ToolEnd {
                id: "t1".into(),
                name: "Bash".into(),
                display: "exit 101\n2 tests failed".into(),
                is_error: true,
                failed: true,
                parent_tool_use_id: None,
            },
        );
        // A sub-agent's call is not the teammate's own history.
        relay("amy@core", &state, start("s1", "Read(x)", Some("t9")));
        assert_eq!(
            state.recent(),
            [
                "Looking at the parser.\nline 2\nline 3\nline 4…",
                "⏺ Bash(cargo test)",
                "  ⎿ exit 101\n2 tests failed",
            ]
        );
        for i in 0..40 {
            relay(
                "amy@core",
                &state,
                start(&format!("x{i}"), &format!("Read({i})"), None),
            );
        }
        let recent = state.recent();
        assert_eq!(recent.len(), crate::teams::teammate::RECENT_LINES);
        assert_eq!(recent.last().map(String::as_str), Some("⏺ Read(39)"));
        assert_eq!(excerpt(&"x".repeat(500)).chars().count(), EXCERPT_CHARS + 1);
    }
}
