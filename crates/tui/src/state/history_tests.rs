use catui_protocol::PermissionMode;
use serde_json::json;

use super::*;
use crate::state::SessionInfo;
use crate::transcript::ToolStatus;

fn state() -> AppState {
    AppState::new(
        SessionInfo {
            model: "m".into(),
            cwd: "/w/p".into(),
            session_id: "s".into(),
            auto_mode_enabled: false,
            commands: Vec::new(),
        },
        PermissionMode::Default,
    )
}

fn text_of(rows: &[ratatui::text::Line<'static>]) -> String {
    rows.iter()
        .map(|r| r.to_string())
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn a_resumed_conversation_becomes_entries_with_tool_results() {
    let mut s = state();
    let messages = vec![
        Message::user_text("fix the greeting"),
        Message {
            role: Role::Assistant,
            content: vec![
                ContentBlock::text("Reading it first."),
                ContentBlock::ToolUse {
                    id: "r1".into(),
                    name: "Read".into(),
                    input: json!({"file_path": "/w/p/src/main.rs"}),
                },
                ContentBlock::ToolUse {
                    id: "a1".into(),
                    name: "Agent".into(),
                    input: json!({"description": "look around", "prompt": "x"}),
                },
            ],
        },
        Message {
            role: Role::User,
            content: vec![
                ContentBlock::tool_result("r1", "     1\tfn main() {}", false),
                ContentBlock::tool_result("a1", "nothing found", true),
                ContentBlock::text(
                    "<system-reminder>\nplan mode is on\n</system-reminder>".to_string(),
                ),
            ],
        },
        Message::assistant_text("Done: the greeting is fixed."),
    ];
    s.replay(&messages, 80);
    let rows = text_of(&s.take_settled_rows(80));
    assert!(rows.contains("> fix the greeting"), "{rows}");
    assert!(rows.contains("● Reading it first."), "{rows}");
    assert!(rows.contains("Read(src/main.rs)"), "{rows}");
    assert!(rows.contains("fn main() {}"), "{rows}");
    assert!(rows.contains("✗ Agent"), "{rows}");
    assert!(rows.contains("nothing found"), "{rows}");
    assert!(
        !rows.contains("0 turns"),
        "no made-up sub-agent progress: {rows}"
    );
    assert!(
        !rows.contains("plan mode is on"),
        "reminders stay hidden: {rows}"
    );
    assert!(rows.contains("Done: the greeting is fixed."), "{rows}");
    assert!(rows.contains("Resumed this session"), "{rows}");
    let read = s.transcript.tool("r1").unwrap();
    assert_eq!(read.status, ToolStatus::Done);
    assert!(!s.busy() && s.todos.is_empty());
}

#[test]
fn a_compacted_conversation_shows_its_summary() {
    let mut s = state();
    let summary = summary_message_text("We renamed the crate.");
    s.replay(&[Message::user_text(summary)], 80);
    let rows = text_of(&s.take_settled_rows(80));
    assert!(rows.contains("Earlier conversation (compacted):"), "{rows}");
    assert!(rows.contains("We renamed the crate."), "{rows}");
    assert!(!rows.contains("> This session continues"), "{rows}");
}

#[test]
fn a_long_resumed_session_prints_only_its_recent_part() {
    let mut s = state();
    let mut messages = Vec::new();
    for i in 0..1_500 {
        messages.push(Message::user_text(format!("question {i}")));
        messages.push(Message::assistant_text(format!("answer {i}")));
    }
    s.replay(&messages, 80);
    let rows = s.take_settled_rows(80);
    assert!(rows.len() <= REPLAY_ROWS + 10, "{}", rows.len());
    let text = text_of(&rows);
    assert!(text.contains("answer 1499"));
    assert!(!text.contains("question 0\n"));
    assert!(text.contains("earlier entries of this session (Ctrl+O shows them)"));
    // The transcript view still has everything.
    assert!(s.transcript.entries().len() > 3_000);
    assert!(s.transcript.total_rows(80, true) > rows.len());
}

#[test]
fn nothing_is_replayed_for_a_new_session() {
    let mut s = state();
    s.replay(&[], 80);
    let rows = text_of(&s.take_settled_rows(80));
    assert!(!rows.contains("Resumed"), "{rows}");
}
