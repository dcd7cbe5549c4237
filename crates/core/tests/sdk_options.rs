//! The options SDK applications rely on, through the production session
//! builder against the mock model: structured output (`--json-schema`), a
//! caller's system prompt, agent types defined by the caller (also after
//! the start, as `initialize` does), the fallback model, and the first
//! request waiting for MCP servers that are still starting.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::time::{Duration, Instant};

use catui_core::engine::EngineEvent;
use catui_core::mcp::config::{Source, parse_servers};
use catui_protocol::stream_json::ResultSubtype;
use catui_protocol::{ContentBlock, ModelEvent, PermissionMode};
use catui_testkit::{MockServer, Script, Turn};
use common::TestSession;
use serde_json::{Value, json};

fn schema() -> Value {
    json!({"type": "object", "properties": {"answer": {"type": "integer"}},
           "required": ["answer"]})
}

fn drain(events: &mut tokio::sync::mpsc::UnboundedReceiver<EngineEvent>) -> Vec<EngineEvent> {
    let mut out = Vec::new();
    while let Ok(e) = events.try_recv() {
        out.push(e);
    }
    out
}

#[tokio::test]
async fn structured_output_is_validated_retried_and_returned() {
    let server = MockServer::start(
        Script::new()
            .turn(Turn::tool_use(
                "s1",
                "StructuredOutput",
                json!({"answer": "forty-two"}),
            ))
            .turn(Turn::tool_use(
                "s2",
                "StructuredOutput",
                json!({"answer": 42}),
            )),
    )
    .await
    .unwrap();
    let mut s = TestSession::new(&server)
        .configure(|c| c.output_schema = Some(schema()))
        .start();
    let outcome = s
        .engine
        .handle_input(vec![ContentBlock::text("answer")])
        .await;
    assert_eq!(
        outcome.subtype,
        ResultSubtype::Success,
        "{}",
        outcome.result
    );
    assert_eq!(outcome.structured_output, Some(json!({"answer": 42})));
    assert_eq!(outcome.result, r#"{"answer":42}"#);
    let requests = server.requests();
    assert_eq!(requests.len(), 2, "the run ends with the valid call");
    // The model sees the caller's schema as the tool's input schema.
    let tool = requests[0].body["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "StructuredOutput")
        .cloned()
        .unwrap();
    assert_eq!(tool["input_schema"], schema());
    // The first, wrong attempt came back with what was wrong.
    let (text, is_error) = {
        let r = requests[1].tool_result("s1").unwrap();
        (r.content, r.is_error)
    };
    assert!(is_error && text.contains("/answer"), "{text}");
}

#[tokio::test]
async fn structured_output_gives_up_after_its_attempts() {
    let mut script = Script::new();
    for i in 0..6 {
        script = script.turn(Turn::tool_use(
            format!("s{i}"),
            "StructuredOutput",
            json!({"answer": "no"}),
        ));
    }
    let server = MockServer::start(script).await.unwrap();
    let mut s = TestSession::new(&server)
        .configure(|c| c.output_schema = Some(schema()))
        .start();
    let outcome = s
        .engine
        .handle_input(vec![ContentBlock::text("answer")])
        .await;
    assert_eq!(
        outcome.subtype,
        ResultSubtype::ErrorMaxStructuredOutputRetries
    );
    assert!(outcome.is_error);
    assert!(outcome.result.contains("5 attempts"), "{}", outcome.result);
    assert_eq!(outcome.structured_output, None);
    assert_eq!(server.requests().len(), 5);
}

#[tokio::test]
async fn a_model_that_forgets_the_tool_is_reminded_once() {
    let server = MockServer::start(
        Script::new()
            .turn(Turn::text("The answer is 42."))
            .turn(Turn::text("Still prose."))
            .turn(Turn::text("after the run")),
    )
    .await
    .unwrap();
    let mut s = TestSession::new(&server)
        .configure(|c| c.output_schema = Some(schema()))
        .start();
    let outcome = s
        .engine
        .handle_input(vec![ContentBlock::text("answer")])
        .await;
    assert_eq!(outcome.subtype, ResultSubtype::Success);
    assert_eq!(outcome.result, "Still prose.");
    assert_eq!(outcome.structured_output, None);
    let requests = server.requests();
    assert_eq!(requests.len(), 2);
    assert!(
        requests[1]
            .last_user_text()
            .is_some_and(|t| t.contains("StructuredOutput")),
        "{:?}",
        requests[1].last_user_text()
    );
}

#[tokio::test]
async fn without_a_schema_there_is_no_tool_and_late_schemas_apply_next_request() {
    let server = MockServer::start(Script::new().turn(Turn::text("plain")).turn(Turn::tool_use(
        "s",
        "StructuredOutput",
        json!({"answer": 1}),
    )))
    .await
    .unwrap();
    let mut s = TestSession::new(&server).start();
    let first = s.engine.handle_input(vec![ContentBlock::text("one")]).await;
    assert_eq!(first.result, "plain");
    s.late.set_output_schema(schema()).unwrap();
    let second = s.engine.handle_input(vec![ContentBlock::text("two")]).await;
    assert_eq!(second.structured_output, Some(json!({"answer": 1})));
    let requests = server.requests();
    assert!(
        !requests[0]
            .tool_names()
            .contains(&"StructuredOutput".into())
    );
    assert!(
        requests[1]
            .tool_names()
            .contains(&"StructuredOutput".into())
    );
    assert!(s.late.set_output_schema(json!({"type": "string"})).is_err());
}

#[tokio::test]
async fn a_callers_system_prompt_replaces_the_base_and_keeps_the_house_rules() {
    let server = MockServer::start(Script::new().turn(Turn::text("a")).turn(Turn::text("b")))
        .await
        .unwrap();
    let mut s = TestSession::new(&server)
        .configure(|c| c.system_prompt = Some("You are a terse SQL reviewer.".into()))
        .mode(PermissionMode::Plan)
        .start();
    s.engine.handle_input(vec![ContentBlock::text("hi")]).await;
    // Set late (the TypeScript SDK's initialize), with an appended part.
    s.late.set_system_prompt(
        Some("You review Go.".into()),
        Some("Answer in French.".into()),
    );
    s.engine
        .handle_input(vec![ContentBlock::text("again")])
        .await;
    let requests = server.requests();
    let first = requests[0].system_text();
    assert!(
        first.starts_with("You are a terse SQL reviewer."),
        "{first}"
    );
    assert!(!first.contains("You are catui"), "{first}");
    assert!(first.contains("<system-reminder>"), "{first}");
    assert!(first.contains(&s.root.display().to_string()), "{first}");
    // Plan mode still arrives as a reminder, and the tools are unchanged.
    assert!(requests[0].contains_text("Plan mode is active."));
    assert!(requests[0].tool_names().contains(&"ExitPlanMode".into()));
    let second = requests[1].system_text();
    assert!(second.starts_with("You review Go."), "{second}");
    assert!(second.trim_end().ends_with("Answer in French."), "{second}");
}

#[tokio::test]
async fn caller_agents_are_agent_types_and_read_only_ones_run_in_plan_mode() {
    let server = MockServer::start(
        Script::new()
            .turn(Turn::tool_use(
                "a1",
                "Agent",
                json!({"description": "review", "prompt": "Review main.rs",
                       "subagent_type": "reviewer"}),
            ))
            .turn(Turn::text("reviewed: fine").when_contains("You review code carefully."))
            .turn(Turn::text("done")),
    )
    .await
    .unwrap();
    let mut s = TestSession::new(&server).mode(PermissionMode::Plan).start();
    // Defined after the start, as `initialize.agents` does.
    let (agents, problems) = catui_core::agents::sdk::parse_sdk_agents(
        &json!({"reviewer": {"description": "Reviews code for bugs",
                              "prompt": "You review code carefully.",
                              "tools": ["Read", "Grep", "Glob"], "model": "inherit"}}),
        "initialize.agents",
    );
    assert!(problems.is_empty());
    s.late.add_agents(agents);
    let outcome = s
        .engine
        .handle_input(vec![ContentBlock::text("review")])
        .await;
    assert_eq!(outcome.result, "done", "{}", outcome.result);
    let requests = server.requests();
    let agent_tool = requests[0].body["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "Agent")
        .cloned()
        .unwrap();
    assert!(
        agent_tool["description"]
            .as_str()
            .unwrap()
            .contains("- reviewer: Reviews code for bugs (tools: Read, Glob, Grep)"),
        "{agent_tool}"
    );
    let sub = &requests[1];
    assert!(sub.system_text().starts_with("You review code carefully."));
    let mut names = sub.tool_names();
    names.sort();
    assert_eq!(names, ["Glob", "Grep", "Read"]);
    // It ran in plan mode without asking: its tools only read.
    let (text, is_error) = {
        let r = requests[2].tool_result("a1").unwrap();
        (r.content, r.is_error)
    };
    assert!(!is_error && text.contains("reviewed: fine"), "{text}");
}

#[tokio::test]
async fn an_overloaded_main_model_falls_back_and_stays_there() {
    let mut script = Script::new();
    for _ in 0..8 {
        script = script.turn(Turn::error_status(529, "Overloaded").when_model("m"));
    }
    let server = MockServer::start(
        script
            .turn(Turn::text("from the fallback").when_model("fb"))
            .turn(Turn::text("still the fallback").when_model("fb")),
    )
    .await
    .unwrap();
    let mut s = TestSession::new(&server)
        .configure(|c| c.fallback_model = Some("fb".into()))
        .start();
    let first = s.engine.handle_input(vec![ContentBlock::text("hi")]).await;
    assert_eq!(first.result, "from the fallback");
    let second = s
        .engine
        .handle_input(vec![ContentBlock::text("again")])
        .await;
    assert_eq!(second.result, "still the fallback");
    let models: Vec<String> = server
        .requests()
        .iter()
        .map(|r| r.model().to_string())
        .collect();
    assert_eq!(models.iter().filter(|m| *m == "m").count(), 8, "{models:?}");
    assert_eq!(models.last().map(String::as_str), Some("fb"));
    assert_eq!(
        models[models.len() - 2],
        "fb",
        "no new tries of the main model"
    );
    let announced = drain(&mut s.events).into_iter().any(|e| {
        matches!(e, EngineEvent::Delta { event: ModelEvent::FellBack { model, fallback, .. }, .. }
            if model == "m" && fallback == "fb")
    });
    assert!(announced);
}

fn stuck_server(timeout_ms: u64) -> Vec<catui_core::mcp::config::ServerSpec> {
    let (specs, errors) = parse_servers(
        &json!({"stuck": {"command": "sleep", "args": ["30"], "startupTimeoutMs": timeout_ms}}),
        &Source::Flag,
        "test",
    );
    assert!(errors.is_empty());
    specs
}

#[tokio::test]
async fn the_first_request_waits_for_a_starting_server_at_most_its_timeout() {
    let server = MockServer::start(Script::new().turn(Turn::text("answered")))
        .await
        .unwrap();
    let mut s = TestSession::new(&server)
        .configure(|c| c.mcp_servers = stuck_server(400))
        .start();
    let outcome = s.engine.handle_input(vec![ContentBlock::text("hi")]).await;
    assert_eq!(outcome.result, "answered");
    let events = drain(&mut s.events);
    let position = |pred: &dyn Fn(&EngineEvent) -> bool| events.iter().position(pred);
    let waiting = position(&|e| {
        matches!(e, EngineEvent::AwaitingTools { pending } if pending == &["MCP server `stuck`".to_string()])
    })
    .expect("the wait is announced");
    let failed = position(&|e| {
        matches!(e, EngineEvent::Advice { text, .. } if text.contains("`stuck`") && text.contains("400 ms"))
    })
    .expect("the failure is reported");
    let done =
        position(&|e| matches!(e, EngineEvent::AwaitingTools { pending } if pending.is_empty()))
            .expect("the end of the wait is announced");
    let answer = position(&|e| matches!(e, EngineEvent::Assistant { .. })).unwrap();
    assert!(
        waiting < failed && failed < done && done < answer,
        "{events:#?}"
    );
}

#[tokio::test]
async fn the_user_can_go_on_without_a_starting_server() {
    let server = MockServer::start(Script::new().turn(Turn::text("answered")))
        .await
        .unwrap();
    let mut s = TestSession::new(&server)
        .configure(|c| c.mcp_servers = stuck_server(60_000))
        .start();
    let control = s.engine.control();
    let started = Instant::now();
    let turn = tokio::spawn(async move {
        let outcome = s.engine.handle_input(vec![ContentBlock::text("hi")]).await;
        (outcome, s)
    });
    // Once the wait is announced, Esc (the front end's stop) ends it.
    loop {
        tokio::time::sleep(Duration::from_millis(20)).await;
        if !server.requests().is_empty() {
            panic!("the request did not wait for the starting server");
        }
        if started.elapsed() > Duration::from_millis(300) {
            control.stop_waiting_for_tools();
            break;
        }
    }
    let (outcome, _s) = tokio::time::timeout(Duration::from_secs(20), turn)
        .await
        .expect("the turn went on without the server")
        .unwrap();
    assert_eq!(outcome.result, "answered");
}

#[tokio::test]
async fn without_servers_nothing_is_waited_for() {
    let server = MockServer::start(Script::new().turn(Turn::text("answered")))
        .await
        .unwrap();
    let mut s = TestSession::new(&server).start();
    s.engine.handle_input(vec![ContentBlock::text("hi")]).await;
    assert!(
        !drain(&mut s.events)
            .iter()
            .any(|e| matches!(e, EngineEvent::AwaitingTools { .. }))
    );
}
