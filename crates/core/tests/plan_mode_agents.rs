//! Which agents plan mode lets start, as the model learns it: the refusal
//! names the session's read-only agent types, taken from the agents'
//! definitions (built-in and the user's own), not from a list kept apart —
//! the session built by the production builder against the mock model.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use catui_protocol::{ContentBlock, PermissionMode};
use catui_testkit::{MockServer, Script, Turn};
use common::TestSession;
use serde_json::json;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_refused_agent_is_told_the_read_only_types_its_definitions_give() {
    let server = MockServer::start(
        Script::new()
            .turn(Turn::tool_use(
                "a",
                "Agent",
                json!({"description": "d", "prompt": "change things", "subagent_type": "writer"}),
            ))
            .turn(Turn::text("planned")),
    )
    .await
    .unwrap();
    let mut started = TestSession::new(&server)
        .mode(PermissionMode::Plan)
        .user_agent(
            "reviewer",
            "---\nname: reviewer\ndescription: Reviews code\ntools: Read, Grep\n---\nYou review code.\n",
        )
        .user_agent(
            "writer",
            "---\nname: writer\ndescription: Writes code\ntools: Read, Write\n---\nYou write code.\n",
        )
        .start();
    let outcome = started
        .engine
        .handle_input(vec![ContentBlock::text("plan it")])
        .await;
    assert_eq!(outcome.result, "planned");
    let reqs = server.requests();
    let refusal = reqs
        .iter()
        .find_map(|r| r.tool_result("a"))
        .expect("the Agent call is answered");
    assert!(refusal.is_error, "{}", refusal.content);
    let text = &refusal.content;
    assert!(text.contains("Plan mode is active"), "{text}");
    assert!(text.contains("not `writer`"), "{text}");
    let named = text
        .split_once("read-only agents (")
        .and_then(|(_, rest)| rest.split_once(')'))
        .map(|(list, _)| list)
        .expect("the refusal names the read-only agent types");
    let mut named: Vec<&str> = named.split(", ").collect();
    named.sort_unstable();
    assert_eq!(named, ["Explore", "Plan", "reviewer"], "{text}");
}
