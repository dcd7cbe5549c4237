//! The engine against the testkit mock over real HTTP: concurrency of safe
//! tool calls, ordering of results, permission prompts and interrupts.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use async_trait::async_trait;
mod common;

use catui_core::engine::{
    Approver, Engine, EngineEvent, MemoryRecorder, PermissionAnswer, PermissionRequest, Record,
};
use catui_core::permissions::Access;
use catui_core::tools::{Adapter, ToolContext, ToolError, ToolOutput, ToolRegistry, TypedTool};
use catui_protocol::stream_json::ResultSubtype;
use catui_protocol::{ContentBlock, Role};
use catui_testkit::{MockServer, Script, Turn};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;

/// A test tool that sleeps and records when it ran.
struct Nap {
    log: Arc<Mutex<Vec<(String, Instant, Instant)>>>,
    safe: bool,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct NapInput {
    label: String,
    ms: u64,
}

#[async_trait]
impl TypedTool for Nap {
    type Input = NapInput;
    fn name(&self) -> &'static str {
        if self.safe { "Nap" } else { "Chore" }
    }
    fn description(&self) -> String {
        "sleeps".into()
    }
    fn is_read_only(&self, _: &NapInput) -> bool {
        self.safe
    }
    fn is_concurrency_safe(&self, _: &NapInput) -> bool {
        self.safe
    }
    fn access(&self, _: &NapInput, _: &ToolContext) -> Access {
        if self.safe {
            Access::Read { paths: vec![] }
        } else {
            Access::Shell {
                command: "chore".into(),
                unconfined: false,
            }
        }
    }
    async fn call(&self, input: NapInput, ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let start = Instant::now();
        tokio::select! {
            _ = tokio::time::sleep(Duration::from_millis(input.ms)) => {}
            _ = ctx.cancel.cancelled() => return Err(ToolError::Cancelled),
        }
        self.log
            .lock()
            .unwrap()
            .push((input.label.clone(), start, Instant::now()));
        Ok(ToolOutput::text(format!("napped {}", input.label)))
    }
}

struct ScriptedApprover {
    answers: Mutex<Vec<PermissionAnswer>>,
    asked: Mutex<Vec<PermissionRequest>>,
}

#[async_trait]
impl Approver for ScriptedApprover {
    async fn ask(&self, request: PermissionRequest) -> PermissionAnswer {
        self.asked.lock().unwrap().push(request);
        self.answers.lock().unwrap().remove(0)
    }
}

struct Harness {
    engine: Engine,
    log: Arc<Mutex<Vec<(String, Instant, Instant)>>>,
    recorder: Arc<MemoryRecorder>,
    events: tokio::sync::mpsc::UnboundedReceiver<EngineEvent>,
    approver: Arc<ScriptedApprover>,
    _dirs: (tempfile::TempDir, tempfile::TempDir),
}

fn harness(server: &MockServer, answers: Vec<PermissionAnswer>) -> Harness {
    let log = Arc::new(Mutex::new(vec![]));
    let mut tools = ToolRegistry::new();
    tools.add(Adapter(Arc::new(Nap {
        log: log.clone(),
        safe: true,
    })));
    tools.add(Adapter(Arc::new(Nap {
        log: log.clone(),
        safe: false,
    })));
    let approver = Arc::new(ScriptedApprover {
        answers: Mutex::new(answers),
        asked: Mutex::new(vec![]),
    });
    let started = common::TestSession::new(server)
        .tools(tools)
        .approver(approver.clone())
        .start();
    Harness {
        engine: started.engine,
        log,
        recorder: started.recorder,
        events: started.events,
        approver,
        _dirs: (started.project, started.home),
    }
}

fn nap(id: &str, name: &str, label: &str, ms: u64) -> catui_testkit::Block {
    catui_testkit::Block::ToolUse {
        id: id.into(),
        name: name.into(),
        input: json!({"label": label, "ms": ms}),
    }
}

#[tokio::test]
async fn concurrency_safe_calls_overlap_and_results_keep_call_order() {
    let server = MockServer::start(
        Script::new()
            .turn(Turn::blocks(vec![
                nap("a", "Nap", "slow", 400),
                nap("b", "Nap", "mid", 250),
                nap("c", "Nap", "fast", 100),
            ]))
            .turn(Turn::text("done")),
    )
    .await
    .unwrap();
    let mut h = harness(&server, vec![]);
    let started = Instant::now();
    let outcome = h.engine.handle_input(vec![ContentBlock::text("nap")]).await;
    let elapsed = started.elapsed();
    assert_eq!(outcome.subtype, ResultSubtype::Success, "{outcome:?}");
    let log = h.log.lock().unwrap().clone();
    assert_eq!(log.len(), 3);
    // Every call started before any call ended: they overlapped.
    let last_start = log.iter().map(|(_, s, _)| *s).max().unwrap();
    let first_end = log.iter().map(|(_, _, e)| *e).min().unwrap();
    assert!(last_start < first_end, "calls did not overlap: {log:?}");
    assert!(
        elapsed < Duration::from_millis(700),
        "sequential-looking wall time {elapsed:?}"
    );
    // Results in call order, whatever the finishing order.
    let msgs = h.engine.messages();
    let ids: Vec<String> = msgs[2]
        .content
        .iter()
        .map(|b| match b {
            ContentBlock::ToolResult { tool_use_id, .. } => tool_use_id.clone(),
            other => panic!("{other:?}"),
        })
        .collect();
    assert_eq!(ids, ["a", "b", "c"]);
}

#[tokio::test]
async fn unsafe_calls_run_one_at_a_time_and_ask_first() {
    let server = MockServer::start(
        Script::new()
            .turn(Turn::blocks(vec![
                nap("a", "Chore", "one", 150),
                nap("b", "Chore", "two", 150),
            ]))
            .turn(Turn::text("done")),
    )
    .await
    .unwrap();
    let allow = PermissionAnswer::Allow {
        updated_input: None,
        updated_permissions: None,
    };
    let mut h = harness(
        &server,
        vec![
            allow.clone(),
            PermissionAnswer::Deny {
                message: "not that one".into(),
            },
        ],
    );
    let outcome = h
        .engine
        .handle_input(vec![ContentBlock::text("chores")])
        .await;
    assert_eq!(outcome.subtype, ResultSubtype::Success);
    assert_eq!(h.approver.asked.lock().unwrap().len(), 2);
    let log = h.log.lock().unwrap().clone();
    assert_eq!(log.len(), 1, "the denied chore must not run");
    let results = &h.engine.messages()[2].content;
    match &results[1] {
        ContentBlock::ToolResult {
            content, is_error, ..
        } => {
            assert!(*is_error);
            assert!(content.as_text().contains("not that one"));
        }
        other => panic!("{other:?}"),
    }
    // Recorded: user, assistant, tool results, assistant.
    let kinds: Vec<&str> = common::conversation_records(&h.recorder)
        .iter()
        .map(|r| match r {
            Record::User { .. } => "user",
            Record::Assistant { .. } => "assistant",
            _ => "other",
        })
        .collect();
    assert_eq!(kinds, ["user", "assistant", "user", "assistant"]);
    drop(h.events);
}

#[tokio::test]
async fn interrupt_gives_every_tool_use_a_result() {
    let server = MockServer::start(Script::new().turn(Turn::blocks(vec![
        nap("a", "Nap", "long", 5_000),
        nap("b", "Chore", "later", 10),
    ])))
    .await
    .unwrap();
    let mut h = harness(
        &server,
        vec![PermissionAnswer::Allow {
            updated_input: None,
            updated_permissions: None,
        }],
    );
    let control = h.engine.control();
    let mut events = h.events;
    let watcher = tokio::spawn(async move {
        while let Some(e) = events.recv().await {
            if matches!(e, EngineEvent::ToolStart { .. }) {
                control.interrupt();
                // The control keeps the event channel open: stop listening.
                break;
            }
        }
    });
    let started = Instant::now();
    let outcome = h.engine.handle_input(vec![ContentBlock::text("go")]).await;
    assert!(started.elapsed() < Duration::from_secs(3));
    assert_eq!(outcome.subtype, ResultSubtype::ErrorDuringExecution);
    assert!(outcome.result.contains("Interrupted"));
    let msgs = h.engine.messages();
    let last = msgs.last().unwrap();
    assert_eq!(last.role, Role::User);
    let ids: Vec<&str> = last
        .content
        .iter()
        .filter_map(|b| match b {
            ContentBlock::ToolResult {
                tool_use_id,
                is_error: true,
                ..
            } => Some(tool_use_id.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(ids, ["a", "b"]);
    drop(h.engine);
    watcher.await.unwrap();
}

/// The conversation is lent to each model request, not copied: an interrupt
/// in the middle of a streamed answer must hand it back whole.
#[tokio::test]
async fn interrupt_while_streaming_keeps_the_conversation() {
    let server = MockServer::start(
        Script::new()
            .turn(Turn::text("the first answer"))
            .turn(
                Turn::text("a long answer that is interrupted half way")
                    .chunk_delay(Duration::from_millis(400)),
            )
            .turn(Turn::text("the third answer")),
    )
    .await
    .unwrap();
    let mut h = harness(&server, vec![]);
    let first = h.engine.handle_input(vec![ContentBlock::text("one")]).await;
    assert_eq!(first.subtype, ResultSubtype::Success);

    let control = h.engine.control();
    let mut events = h.events;
    // Only the second answer's text may trigger the interrupt.
    while events.try_recv().is_ok() {}
    let watcher = tokio::spawn(async move {
        while let Some(e) = events.recv().await {
            if matches!(e, EngineEvent::Delta { .. }) {
                control.interrupt();
                break;
            }
        }
        events
    });
    let second = h.engine.handle_input(vec![ContentBlock::text("two")]).await;
    assert_eq!(second.subtype, ResultSubtype::ErrorDuringExecution);
    // The first request may carry the machine's facts as a reminder.
    let texts: Vec<String> = h
        .engine
        .messages()
        .iter()
        .map(|m| match m.text().split_once("<system-reminder>") {
            Some((typed, _)) => typed.to_string(),
            None => m.text(),
        })
        .collect();
    assert_eq!(texts[..3], ["one", "the first answer", "two"]);

    let _events = watcher.await.unwrap();
    let third = h
        .engine
        .handle_input(vec![ContentBlock::text("three")])
        .await;
    assert_eq!(third.subtype, ResultSubtype::Success);
    let requests = server.requests();
    assert_eq!(requests.len(), 3);
    let last = requests[2].body["messages"].to_string();
    for said in ["one", "the first answer", "two", "three"] {
        assert!(last.contains(said), "{said:?} missing from {last}");
    }
}
