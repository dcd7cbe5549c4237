//! Tests of resume: real transcripts written by [`TranscriptWriter`] in
//! temp dirs, read back through [`resume_session`].

use std::io::Write;
use std::time::{Duration, SystemTime};

use catui_protocol::{ContentBlock, Message, PermissionMode, Role};
use serde_json::json;

use super::*;
use crate::session::redact::Redactor;
use crate::session::transcript::TranscriptWriter;

pub(crate) fn writer(cfg: &Path, cwd: &Path, id: &str) -> TranscriptWriter {
    TranscriptWriter::for_session(cfg, cwd, id)
        .unwrap()
        .with_redactor(Redactor::default())
}

pub(crate) fn assistant(message: Message) -> EntryBody {
    EntryBody::Assistant {
        message,
        usage: None,
        model: None,
    }
}

pub(crate) fn tool_call(id: &str, name: &str, input: serde_json::Value) -> Message {
    Message {
        role: Role::Assistant,
        content: vec![ContentBlock::ToolUse {
            id: id.into(),
            name: name.into(),
            input,
        }],
    }
}

pub(crate) fn tool_result(id: &str, text: &str, is_error: bool) -> EntryBody {
    EntryBody::user(Message {
        role: Role::User,
        content: vec![ContentBlock::tool_result(id, text, is_error)],
    })
}

fn set_mtime(path: &Path, secs: u64) {
    let f = std::fs::File::options().write(true).open(path).unwrap();
    f.set_modified(SystemTime::UNIX_EPOCH + Duration::from_secs(secs))
        .unwrap();
}

#[test]
fn resume_restores_messages_mode_slug_todos_and_reads() {
    let cfg = tempfile::tempdir().unwrap();
    let cwd = Path::new("/repo/a");
    let mut w = writer(cfg.path(), cwd, "s-1");
    w.append(EntryBody::user(Message::user_text("plan the refactor")))
        .unwrap();
    w.set_slug(Some("calm-blue-river".into()));
    w.append_batch(vec![
        EntryBody::PermissionMode {
            mode: PermissionMode::Plan,
            pre_plan_mode: Some(PermissionMode::AcceptEdits),
        },
        EntryBody::User {
            message: Message::user_text("<system-reminder>plan mode</system-reminder>"),
            is_meta: true,
            plan_content: None,
        },
        assistant(Message {
            role: Role::Assistant,
            content: vec![
                ContentBlock::ToolUse {
                    id: "r1".into(),
                    name: "Read".into(),
                    input: json!({"file_path": "/repo/a/src/lib.rs"}),
                },
                ContentBlock::ToolUse {
                    id: "r2".into(),
                    name: "Read".into(),
                    input: json!({"file_path": "/repo/a/missing.rs"}),
                },
                ContentBlock::ToolUse {
                    id: "g1".into(),
                    name: "Grep".into(),
                    input: json!({"pattern": "x"}),
                },
            ],
        }),
        EntryBody::user(Message {
            role: Role::User,
            content: vec![
                ContentBlock::tool_result("r1", "1\tfn main() {}", false),
                ContentBlock::tool_result("r2", "no such file", true),
                ContentBlock::tool_result("g1", "src/lib.rs", false),
            ],
        }),
        EntryBody::Todos {
            todos: json!([{"content": "old", "status": "pending"}]),
        },
        EntryBody::Todos {
            todos: json!([{"content": "split module", "status": "in_progress"}]),
        },
        assistant(Message::assistant_text("Here is the plan.")),
    ])
    .unwrap();

    let resumed = resume_session(cfg.path(), cwd, Some("s-1")).unwrap();
    assert_eq!(resumed.session_id, "s-1");
    assert_eq!(resumed.path, session_path(cfg.path(), cwd, "s-1"));
    assert_eq!(resumed.permission_mode, Some(PermissionMode::Plan));
    assert_eq!(resumed.pre_plan_mode, Some(PermissionMode::AcceptEdits));
    assert_eq!(resumed.slug.as_deref(), Some("calm-blue-river"));
    assert_eq!(
        resumed.todos,
        Some(json!([{"content": "split module", "status": "in_progress"}]))
    );
    assert_eq!(
        resumed.read_files,
        vec![PathBuf::from("/repo/a/src/lib.rs")]
    );
    // Meta messages are not part of the conversation.
    assert_eq!(resumed.messages.len(), 4);
    assert_eq!(resumed.messages[0], Message::user_text("plan the refactor"));
    assert_eq!(
        resumed.messages[3],
        Message::assistant_text("Here is the plan.")
    );
    assert!(resumed.warnings.is_empty());
}

#[test]
fn continue_picks_the_most_recent_and_ids_can_be_prefixes() {
    let cfg = tempfile::tempdir().unwrap();
    let cwd = Path::new("/repo/b");
    for (id, secs) in [("aaa-old", 1_000), ("bbb-new", 3_000), ("abc-mid", 2_000)] {
        let mut w = writer(cfg.path(), cwd, id);
        w.append(EntryBody::user(Message::user_text(id))).unwrap();
        set_mtime(w.path(), secs);
    }
    let latest = resume_session(cfg.path(), cwd, None).unwrap();
    assert_eq!(latest.session_id, "bbb-new");
    assert_eq!(
        resume_session(cfg.path(), cwd, Some("  "))
            .unwrap()
            .session_id,
        "bbb-new"
    );
    assert_eq!(
        resume_session(cfg.path(), cwd, Some("bb"))
            .unwrap()
            .session_id,
        "bbb-new"
    );
    let err = resume_session(cfg.path(), cwd, Some("a")).unwrap_err();
    assert!(matches!(err, ResumeError::AmbiguousSession { .. }), "{err}");
}

#[test]
fn unknown_id_lists_the_five_most_recent() {
    let cfg = tempfile::tempdir().unwrap();
    let cwd = Path::new("/repo/c");
    for i in 0..7u64 {
        let mut w = writer(cfg.path(), cwd, &format!("s{i}"));
        w.append(EntryBody::user(Message::user_text("x"))).unwrap();
        set_mtime(w.path(), 1_000 + i);
    }
    let err = resume_session(cfg.path(), cwd, Some("nope")).unwrap_err();
    match &err {
        ResumeError::UnknownSession { id, recent } => {
            assert_eq!(id, "nope");
            assert_eq!(recent, &["s6", "s5", "s4", "s3", "s2"]);
        }
        other => panic!("unexpected {other:?}"),
    }
    let text = err.to_string();
    assert!(text.contains("s6, s5, s4, s3, s2"), "{text}");
    assert!(text.contains("catui sessions"), "{text}");
}

#[test]
fn resume_adds_up_the_tokens_of_every_answer() {
    let cfg = tempfile::tempdir().unwrap();
    let cwd = Path::new("/repo/u");
    let mut w = writer(cfg.path(), cwd, "u-1");
    w.append(EntryBody::user(Message::user_text("one")))
        .unwrap();
    for (input, output) in [(100, 20), (150, 30)] {
        w.append(EntryBody::Assistant {
            message: Message::assistant_text("ok"),
            usage: Some(catui_protocol::Usage {
                input_tokens: input,
                output_tokens: output,
                cache_read_input_tokens: 5,
                ..Default::default()
            }),
            model: None,
        })
        .unwrap();
    }
    // An answer recorded without usage counts nothing.
    w.append(assistant(Message::assistant_text("no usage")))
        .unwrap();
    let resumed = resume_session(cfg.path(), cwd, Some("u-1")).unwrap();
    assert_eq!(resumed.usage.input_tokens, 250);
    assert_eq!(resumed.usage.output_tokens, 50);
    assert_eq!(resumed.usage.cache_read_input_tokens, 10);
    assert_eq!(resumed.usage.total(), 310);
}

#[test]
fn no_sessions_is_a_clear_error() {
    let cfg = tempfile::tempdir().unwrap();
    let err = resume_session(cfg.path(), Path::new("/empty"), None).unwrap_err();
    assert!(matches!(err, ResumeError::NoSessions { .. }));
    assert!(err.to_string().contains("no sessions to resume"));
    let err = resume_session(cfg.path(), Path::new("/empty"), Some("x")).unwrap_err();
    assert!(matches!(err, ResumeError::NoSessions { .. }));
}

#[test]
fn torn_last_line_loads_with_a_warning() {
    let cfg = tempfile::tempdir().unwrap();
    let cwd = Path::new("/repo/d");
    let mut w = writer(cfg.path(), cwd, "torn");
    w.append(EntryBody::user(Message::user_text("first")))
        .unwrap();
    w.append(assistant(Message::assistant_text("answer")))
        .unwrap();
    let path = w.path().to_path_buf();
    drop(w);
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .open(&path)
        .unwrap();
    f.write_all(br#"{"uuid":"x","parentUuid":null,"type":"user","mess"#)
        .unwrap();
    drop(f);

    let resumed = resume_session(cfg.path(), cwd, Some("torn")).unwrap();
    assert_eq!(resumed.messages.len(), 2);
    assert_eq!(resumed.warnings.len(), 1);
    assert!(resumed.warnings[0].contains("last line"));
    // Appending after the torn line keeps the file loadable.
    let mut w = writer(cfg.path(), cwd, "torn");
    w.append(EntryBody::user(Message::user_text("again")))
        .unwrap();
    let resumed = resume_session(cfg.path(), cwd, Some("torn")).unwrap();
    assert_eq!(resumed.messages.len(), 3);
}

/// Resume of a 10,000-entry transcript (under 150 ms). Run in
/// release: `cargo test -p catui-core --release -- --ignored --nocapture bench_resume`.
#[test]
#[ignore]
fn bench_resume_10k_entries() {
    let cfg = tempfile::tempdir().unwrap();
    let cwd = Path::new("/repo/bench");
    let mut w = writer(cfg.path(), cwd, "big");
    w.set_slug(Some("calm-blue-river".into()));
    let mut bodies = Vec::new();
    for i in 0..2_500 {
        bodies.push(EntryBody::user(Message::user_text(format!(
            "turn {i}: please look at the parser and explain the error handling in detail"
        ))));
        bodies.push(assistant(tool_call(
            &format!("t{i}"),
            "Read",
            json!({"file_path": format!("/repo/bench/src/file{}.rs", i % 50)}),
        )));
        bodies.push(tool_result(
            &format!("t{i}"),
            &"     1\tfn x() {}\n".repeat(20),
            false,
        ));
        bodies.push(assistant(Message::assistant_text(
            "The parser returns a Result and maps each failure to a typed error. ".repeat(4),
        )));
    }
    w.append_batch(bodies).unwrap();
    let size = std::fs::metadata(w.path()).unwrap().len();
    drop(w);
    let mut times = Vec::new();
    for _ in 0..7 {
        let started = std::time::Instant::now();
        let resumed = resume_session(cfg.path(), cwd, Some("big")).unwrap();
        times.push(started.elapsed());
        assert_eq!(resumed.entries.len(), 10_000);
    }
    times.sort();
    println!(
        "resume of 10,000 entries ({:.1} MiB): median {:?}, min {:?}, max {:?}",
        size as f64 / (1024.0 * 1024.0),
        times[times.len() / 2],
        times[0],
        times[times.len() - 1]
    );
}
