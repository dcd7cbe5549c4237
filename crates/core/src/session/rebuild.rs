//! Rebuilding the model conversation from transcript entries (resume).
//!
//! The conversation is the user and assistant messages in file order, with
//! meta messages, attachments, mode changes and other bookkeeping left out
//! (the engine recomputes attachments for the resumed session). A
//! compaction summary replaces everything before it. A conversation cut
//! off between a tool call and its result (crash, kill) is repaired so it
//! can be sent to a model again: every tool_use gets a tool_result.
//!
//! A `plan_file_reference` attachment recorded right after a summary (what
//! compaction writes) is part of the summary message, exactly as
//! compaction built it. A `rewind` entry of the conversation takes it back
//! to what it was before the message it names.

use std::collections::HashSet;

use catui_protocol::{Attachment, ContentBlock, Message, Role};

use super::entry::{EntryBody, TranscriptEntry};

/// The text of the result given to tool calls that never got one.
pub const INTERRUPTED_TOOL_RESULT: &str =
    "The tool call did not finish: the session ended before its result was recorded.";

/// The text of the user message that stands for a compacted conversation.
pub fn summary_message_text(summary: &str) -> String {
    format!("This session continues an earlier conversation. Summary of it:\n\n{summary}")
}

/// The `<system-reminder>` block that re-attaches the plan after a summary
/// (`attachment` is a `plan_file_reference`).
pub fn plan_reference_text(attachment: &Attachment) -> String {
    match attachment {
        Attachment::PlanFileReference {
            plan_file_path,
            plan_content,
            approved,
            file_changed,
        } => crate::plan::engine_hooks::attachments::wrap_system_reminder(
            &crate::plan::prompts::plan_file_reference(
                plan_file_path,
                plan_content,
                *approved,
                *file_changed,
            ),
        ),
        _ => String::new(),
    }
}

/// The `system` entry subtype recording that the session was resumed up to
/// the message whose uuid is its text (`--resume-session-at`): what came
/// after that message is left out of the conversation from there on.
pub const RESUMED_AT: &str = "resumed_at";

/// The messages to send to the model when resuming from `entries`.
pub fn rebuild_messages(entries: &[TranscriptEntry]) -> Vec<Message> {
    let (messages, _) = collect_messages(entries);
    answer_dangling_tool_calls(messages)
}

/// The messages of `entries` up to and including the one whose transcript
/// entry is `uuid`; `None` when no message of the conversation has it.
pub fn rebuild_messages_up_to(entries: &[TranscriptEntry], uuid: &str) -> Option<Vec<Message>> {
    let (mut messages, uuids) = collect_messages(entries);
    let at = uuids.iter().position(|u| u == uuid)?;
    messages.truncate(at + 1);
    Some(answer_dangling_tool_calls(messages))
}

/// The conversation `entries` hold, without repairs, with the uuid of the
/// entry each message came from. A rewind of the conversation to message X
/// makes it what it was just before X (the entries before X, rebuilt the
/// same way), and the entries after the rewind continue from there.
fn collect_messages(entries: &[TranscriptEntry]) -> (Vec<Message>, Vec<String>) {
    let mut messages: Vec<Message> = Vec::new();
    let mut uuids: Vec<String> = Vec::new();
    let mut just_summarized = false;
    for (at, entry) in entries.iter().enumerate() {
        let after_summary = std::mem::take(&mut just_summarized);
        match &entry.body {
            EntryBody::Rewind {
                target,
                conversation: true,
                ..
            } => {
                if let Some(to) = entries[..at].iter().rposition(|e| &e.uuid == target) {
                    (messages, uuids) = collect_messages(&entries[..to]);
                }
            }
            EntryBody::User {
                message,
                is_meta: false,
                ..
            }
            | EntryBody::Assistant { message, .. } => {
                messages.push(message.clone());
                uuids.push(entry.uuid.clone());
            }
            EntryBody::System { subtype, .. } if subtype == crate::engine::CONVERSATION_CLEARED => {
                messages.clear();
                uuids.clear();
            }
            EntryBody::System { subtype, text } if subtype == RESUMED_AT => {
                if let Some(at) = uuids.iter().position(|u| u == text) {
                    messages.truncate(at + 1);
                    uuids.truncate(at + 1);
                }
            }
            EntryBody::Summary { summary } => {
                messages.clear();
                uuids.clear();
                messages.push(Message::user_text(summary_message_text(summary)));
                uuids.push(entry.uuid.clone());
                just_summarized = true;
            }
            EntryBody::Attachment {
                attachment: attachment @ Attachment::PlanFileReference { .. },
            } if after_summary => {
                if let Some(summary) = messages.last_mut() {
                    summary
                        .content
                        .push(ContentBlock::text(plan_reference_text(attachment)));
                }
            }
            _ => {}
        }
    }
    (messages, uuids)
}

/// Inserts error tool_results for tool calls whose results are missing,
/// right after the assistant message that made them.
fn answer_dangling_tool_calls(messages: Vec<Message>) -> Vec<Message> {
    let mut out = Vec::with_capacity(messages.len());
    let mut iter = messages.into_iter().peekable();
    while let Some(message) = iter.next() {
        let calls: Vec<String> = if message.role == Role::Assistant {
            message
                .tool_uses()
                .map(|(id, _, _)| id.to_string())
                .collect()
        } else {
            Vec::new()
        };
        out.push(message);
        if calls.is_empty() {
            continue;
        }
        let answered: HashSet<String> = match iter.peek() {
            Some(next) if next.role == Role::User => next
                .content
                .iter()
                .filter_map(|b| match b {
                    ContentBlock::ToolResult { tool_use_id, .. } => Some(tool_use_id.clone()),
                    _ => None,
                })
                .collect(),
            _ => HashSet::new(),
        };
        let missing: Vec<ContentBlock> = calls
            .iter()
            .filter(|id| !answered.contains(*id))
            .map(|id| ContentBlock::tool_result(id.clone(), INTERRUPTED_TOOL_RESULT, true))
            .collect();
        if missing.is_empty() {
            continue;
        }
        match iter.peek_mut() {
            // Results go first in the next user message, where the API
            // expects them.
            Some(next) if next.role == Role::User => {
                let rest = std::mem::take(&mut next.content);
                next.content = missing.into_iter().chain(rest).collect();
            }
            _ => out.push(Message {
                role: Role::User,
                content: missing,
            }),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use catui_protocol::{Attachment, PermissionMode};
    use serde_json::json;

    use super::*;

    fn entry(body: EntryBody) -> TranscriptEntry {
        TranscriptEntry {
            uuid: uuid::Uuid::new_v4().to_string(),
            parent_uuid: None,
            timestamp: "2025-01-01T00:00:00.000Z".into(),
            session_id: "s".into(),
            cwd: "/".into(),
            slug: None,
            agent_id: None,
            git_branch: None,
            body,
        }
    }

    fn assistant(message: Message) -> EntryBody {
        EntryBody::Assistant {
            message,
            usage: None,
            model: None,
        }
    }

    fn tool_call(id: &str) -> Message {
        Message {
            role: Role::Assistant,
            content: vec![
                ContentBlock::text("looking"),
                ContentBlock::ToolUse {
                    id: id.into(),
                    name: "Read".into(),
                    input: json!({"file_path": "/a"}),
                },
            ],
        }
    }

    #[test]
    fn keeps_user_and_assistant_messages_in_order() {
        let entries = vec![
            entry(EntryBody::PermissionMode {
                mode: PermissionMode::Plan,
                pre_plan_mode: None,
            }),
            entry(EntryBody::user(Message::user_text("hi"))),
            entry(EntryBody::Attachment {
                attachment: Attachment::AutoModeExit,
            }),
            entry(EntryBody::User {
                message: Message::user_text("meta"),
                is_meta: true,
                plan_content: None,
            }),
            entry(assistant(tool_call("t1"))),
            entry(EntryBody::user(Message {
                role: Role::User,
                content: vec![ContentBlock::tool_result("t1", "file", false)],
            })),
            entry(EntryBody::Unknown),
            entry(assistant(Message::assistant_text("done"))),
        ];
        let messages = rebuild_messages(&entries);
        assert_eq!(messages.len(), 4);
        assert_eq!(messages[0], Message::user_text("hi"));
        assert_eq!(messages[1], tool_call("t1"));
        assert!(messages[2].is_tool_results_only());
        assert_eq!(messages[3], Message::assistant_text("done"));
    }

    #[test]
    fn summary_replaces_what_came_before() {
        let entries = vec![
            entry(EntryBody::user(Message::user_text("old"))),
            entry(assistant(Message::assistant_text("old answer"))),
            entry(EntryBody::Summary {
                summary: "we fixed X".into(),
            }),
            entry(EntryBody::user(Message::user_text("next"))),
        ];
        let messages = rebuild_messages(&entries);
        assert_eq!(messages.len(), 2);
        assert!(messages[0].text().contains("we fixed X"));
        assert_eq!(messages[1], Message::user_text("next"));
    }

    #[test]
    fn a_conversation_rewind_goes_back_to_before_its_message() {
        let mut entries = vec![
            entry(EntryBody::user(Message::user_text("one"))),
            entry(assistant(Message::assistant_text("first"))),
            entry(EntryBody::user(Message::user_text("two"))),
            entry(assistant(Message::assistant_text("second"))),
        ];
        let target = entries[2].uuid.clone();
        entries.push(entry(EntryBody::Rewind {
            target,
            code: false,
            conversation: true,
        }));
        entries.push(entry(EntryBody::user(Message::user_text("two, again"))));
        let messages = rebuild_messages(&entries);
        let texts: Vec<String> = messages.iter().map(|m| m.text()).collect();
        assert_eq!(texts, ["one", "first", "two, again"]);
        // A code-only rewind leaves the conversation alone.
        let target = entries[0].uuid.clone();
        entries.push(entry(EntryBody::Rewind {
            target,
            code: true,
            conversation: false,
        }));
        assert_eq!(rebuild_messages(&entries).len(), 3);
    }

    #[test]
    fn dangling_tool_call_at_the_end_gets_an_error_result() {
        let entries = vec![
            entry(EntryBody::user(Message::user_text("go"))),
            entry(assistant(tool_call("t9"))),
        ];
        let messages = rebuild_messages(&entries);
        assert_eq!(messages.len(), 3);
        assert_eq!(
            messages[2].content,
            vec![ContentBlock::tool_result(
                "t9",
                INTERRUPTED_TOOL_RESULT,
                true
            )]
        );
    }

    #[test]
    fn partly_answered_calls_are_completed_in_the_next_user_message() {
        let mut two_calls = tool_call("a");
        two_calls.content.push(ContentBlock::ToolUse {
            id: "b".into(),
            name: "Grep".into(),
            input: json!({}),
        });
        let entries = vec![
            entry(assistant(two_calls)),
            entry(EntryBody::user(Message {
                role: Role::User,
                content: vec![ContentBlock::tool_result("a", "ok", false)],
            })),
        ];
        let messages = rebuild_messages(&entries);
        assert_eq!(messages.len(), 2);
        assert_eq!(
            messages[1].content,
            vec![
                ContentBlock::tool_result("b", INTERRUPTED_TOOL_RESULT, true),
                ContentBlock::tool_result("a", "ok", false),
            ]
        );
    }
}
