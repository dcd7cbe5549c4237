//! Tests of compaction: the split, the summary request through real HTTP
//! against the testkit mock server, the plan re-attached, and resume after
//! compaction.

use catui_protocol::{ContentBlock, Message, Role};
use catui_providers::{ProviderConfig, ProviderKind, client_for};
use catui_testkit::{MockServer, Script, Turn};
use serde_json::json;

use super::*;
use crate::plan::prompts::MARKER_PLAN_FILE_REFERENCE;
use crate::session::rebuild::rebuild_messages;
use crate::session::redact::Redactor;
use crate::session::transcript::{TranscriptWriter, load};

fn call(id: &str) -> Message {
    Message {
        role: Role::Assistant,
        content: vec![ContentBlock::ToolUse {
            id: id.into(),
            name: "Grep".into(),
            input: json!({"pattern": format!("needle-{id}")}),
        }],
    }
}

fn result(id: &str) -> Message {
    Message {
        role: Role::User,
        content: vec![ContentBlock::tool_result(
            id,
            format!("hit for {id}"),
            false,
        )],
    }
}

/// Four human turns, each with a tool round trip.
fn conversation() -> Vec<Message> {
    let mut m = Vec::new();
    for i in 0..4 {
        m.push(Message::user_text(format!("request {i}")));
        m.push(call(&format!("t{i}")));
        m.push(result(&format!("t{i}")));
        m.push(Message::assistant_text(format!("answer {i}")));
    }
    m
}

#[test]
fn split_keeps_the_last_two_human_turns() {
    let m = conversation();
    assert_eq!(split_point(&m), Some(8));
    // Reminders and tool results are not turn starts.
    let mut m = conversation();
    m.insert(
        13,
        Message::user_text("<system-reminder>\nPlan mode is active.\n</system-reminder>"),
    );
    assert_eq!(split_point(&m), Some(8));
}

#[test]
fn split_never_starts_at_a_tool_result() {
    // One long turn: the fallback keeps the last few messages but moves
    // back past tool results.
    let mut m = vec![Message::user_text("do everything")];
    for i in 0..5 {
        m.push(call(&format!("t{i}")));
        m.push(result(&format!("t{i}")));
    }
    m.push(Message::assistant_text("done"));
    let split = split_point(&m).unwrap();
    assert!(split > 0 && split < m.len());
    assert!(!m[split].is_tool_results_only());
    assert_eq!(m[split].role, Role::Assistant);
    // len - 4 lands on a tool result; the split moves back to its call.
    assert!(m[m.len() - 4].is_tool_results_only());
    assert_eq!(split, m.len() - 5);

    let short = vec![Message::user_text("hi"), Message::assistant_text("hello")];
    assert_eq!(split_point(&short), None);
}

#[tokio::test]
async fn compaction_summarises_keeps_last_turns_and_reattaches_the_plan() {
    let server = MockServer::start(
        Script::new().turn(Turn::text("summary: the user asked for four searches").usage(1234, 56)),
    )
    .await
    .unwrap();
    let client = client_for(ProviderConfig::new(
        ProviderKind::Anthropic,
        server.url(),
        "k",
    ))
    .unwrap();
    let messages = conversation();
    let plan_path = std::path::Path::new("/plans/calm-blue-river.md");
    let compacted = compact(
        client.as_ref(),
        "claude-test",
        &messages,
        Some("focus on the searches"),
        Some(&crate::engine::KeptDocument {
            path: plan_path.to_path_buf(),
            content: "# The plan\n1. search".into(),
            approved: false,
            file_changed: false,
        }),
        &CancellationToken::new(),
    )
    .await
    .unwrap();

    // One request, no tools, older turns rendered, the instructions passed.
    let requests = server.requests();
    assert_eq!(requests.len(), 1);
    let req = &requests[0];
    assert!(req.tool_names().is_empty());
    assert_eq!(req.model(), "claude-test");
    let asked = req.last_user_text().unwrap();
    assert!(asked.contains("request 0") && asked.contains("request 1"));
    assert!(asked.contains("called Grep"));
    assert!(
        !asked.contains("request 2"),
        "kept turns are not summarised"
    );
    assert!(asked.contains("focus on the searches"));

    assert_eq!(
        compacted.summary,
        "summary: the user asked for four searches"
    );
    assert_eq!(compacted.summarized, 8);
    assert_eq!(compacted.kept, 8);
    assert_eq!(compacted.usage.input_tokens, 1234);
    assert_eq!(compacted.messages.len(), 9);
    assert_eq!(&compacted.messages[1..], &messages[8..]);
    let first = &compacted.messages[0];
    assert_eq!(first.role, Role::User);
    assert!(first.text().contains("summary: the user asked"));
    let reminder = match &first.content[1] {
        ContentBlock::Text { text } => text.clone(),
        other => panic!("expected text, got {other:?}"),
    };
    assert!(reminder.starts_with("<system-reminder>"));
    assert!(reminder.contains(MARKER_PLAN_FILE_REFERENCE));
    assert!(reminder.contains("/plans/calm-blue-river.md"));
    assert!(reminder.contains("# The plan\n1. search"));

    // Recorded after the old transcript, the entries resume to the same list.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.jsonl");
    let mut w = TranscriptWriter::open(&path)
        .unwrap()
        .with_redactor(Redactor::default());
    w.append_batch(
        messages
            .iter()
            .map(|m| match m.role {
                Role::User => EntryBody::user(m.clone()),
                Role::Assistant => EntryBody::Assistant {
                    message: m.clone(),
                    usage: None,
                    model: None,
                },
            })
            .collect(),
    )
    .unwrap();
    w.append_batch(compacted.entries.clone()).unwrap();
    let kinds: Vec<&str> = compacted.entries.iter().map(|e| e.kind()).collect();
    assert_eq!(&kinds[..2], ["summary", "attachment"]);
    let rebuilt = rebuild_messages(&load(&path).unwrap().entries);
    assert_eq!(rebuilt, compacted.messages);
}

#[tokio::test]
async fn compaction_without_plan_and_errors() {
    let server = MockServer::start(Script::new().turn(Turn::text("   ")))
        .await
        .unwrap();
    let client = client_for(ProviderConfig::new(
        ProviderKind::Anthropic,
        server.url(),
        "k",
    ))
    .unwrap();
    let cancel = CancellationToken::new();
    let err = compact(client.as_ref(), "m", &conversation(), None, None, &cancel)
        .await
        .unwrap_err();
    assert!(matches!(err, CompactError::EmptySummary), "{err}");

    let short = vec![Message::user_text("hi")];
    let err = compact(client.as_ref(), "m", &short, None, None, &cancel)
        .await
        .unwrap_err();
    assert!(matches!(
        err,
        CompactError::NothingToCompact { messages: 1 }
    ));
    assert_eq!(server.requests().len(), 1, "no request when nothing to do");

    server.push(Turn::text("short summary"));
    let c = compact(client.as_ref(), "m", &conversation(), None, None, &cancel)
        .await
        .unwrap();
    assert_eq!(c.messages[0].content.len(), 1, "no plan, no reference");
    assert_eq!(
        c.entries[0],
        EntryBody::Summary {
            summary: "short summary".into()
        }
    );
    assert_eq!(c.entries.len(), 1 + c.kept);
}

#[test]
fn context_windows_and_threshold() {
    assert_eq!(context_window("claude-sonnet-4-5"), 200_000);
    assert_eq!(context_window("anthropic/Claude-3-haiku"), 200_000);
    assert_eq!(context_window("gpt-4.1-mini"), 1_047_576);
    assert_eq!(context_window("gpt-5-codex"), 400_000);
    assert_eq!(context_window("gpt-4o-2024-08-06"), 128_000);
    assert_eq!(context_window("llama3.1:8b"), DEFAULT_CONTEXT_WINDOW);

    assert!(!should_auto_compact(169_999, 200_000, 0.85));
    assert!(should_auto_compact(170_000, 200_000, 0.85));
    assert!(should_auto_compact(100_000, 200_000, 0.5));
    // Nonsense thresholds fall back to the default.
    assert!(!should_auto_compact(160_000, 200_000, 7.0));
    assert!(should_auto_compact(170_000, 200_000, f64::NAN));
    assert!(!should_auto_compact(1, 0, 0.85));
    assert_eq!(auto_compact_threshold(None), 0.85);
    assert_eq!(auto_compact_threshold(Some(0.5)), 0.5);
    assert_eq!(auto_compact_threshold(Some(0.0)), 0.85);
    assert_eq!(
        prompt_tokens(&Usage {
            input_tokens: 1,
            output_tokens: 100,
            cache_read_input_tokens: 10,
            cache_creation_input_tokens: 100,
        }),
        111
    );
}
