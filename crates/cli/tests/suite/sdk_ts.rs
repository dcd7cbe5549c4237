//! The official TypeScript Agent SDK (`@anthropic-ai/claude-agent-sdk`
//! from npm, pinned in `tests/sdk-ts/package.json` + lock file) drives the
//! real catui binary, `pathToClaudeCodeExecutable` pointing at it, against
//! the testkit mock model (issue 17, docs/SDK.md). Each test runs one
//! scenario of `tests/sdk-ts/scenarios.mjs` and checks both what the SDK
//! user saw (asserted in JavaScript) and what the model was sent.
//!
//! These need the SDK installed: `.ci/run` runs `.ci/sdk-setup` (`npm ci`
//! in tests/sdk-ts) and runs them with `--run-ignored only`; locally run
//! `bash .ci/sdk-setup` once, then
//! `cargo nextest run -p catui --test sdk_ts --run-ignored all`.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use std::path::PathBuf;
use std::process::Command;

use catui_testkit::{MockServer, Script, Turn};
use common::{Sandbox, result_of, sdk_cases};
use serde_json::{Value, json};

fn sdk_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/sdk-ts")
}

/// Runs one scenario; returns the JSON facts it printed.
fn scenario(sb: &Sandbox, server: &MockServer, name: &str) -> Value {
    let dir = sdk_dir();
    assert!(
        dir.join("node_modules/@anthropic-ai/claude-agent-sdk")
            .exists(),
        "the TypeScript SDK is not installed: run `bash .ci/sdk-setup`"
    );
    let mut cmd = Command::new("node");
    cmd.arg(dir.join("scenarios.mjs"))
        .arg(name)
        .current_dir(&dir);
    sdk_cases::run_client(cmd, sb, server, name, &[])
}

#[test]
#[ignore = "needs the TypeScript SDK (npm); .ci/run runs it"]
fn ts_query_one_shot() {
    sdk_cases::one_shot(scenario);
}

#[test]
#[ignore = "needs the TypeScript SDK (npm); .ci/run runs it"]
fn ts_can_use_tool_denies_edits_input_and_adds_rules() {
    sdk_cases::can_use_tool(scenario);
}

#[test]
#[ignore = "needs the TypeScript SDK (npm); .ci/run runs it"]
fn ts_plan_approved_with_set_mode() {
    sdk_cases::plan_approval(scenario, "plan_mode");
}

#[test]
#[ignore = "needs the TypeScript SDK (npm); .ci/run runs it"]
fn ts_hooks_deny_add_context_and_see_results() {
    let sb = Sandbox::new();
    sb.write("build/keep.txt", "precious");
    let server = common::mock(
        Script::new()
            .turn(common::bash("rm", "rm -rf build"))
            .turn(common::bash("echo", "echo hi"))
            .turn(Turn::text("cleaned")),
    );
    let facts = scenario(&sb, &server, "hooks");
    assert!(sb.project().join("build/keep.txt").exists());
    let requests = server.requests();
    assert!(requests[0].contains_text("TS-PROMPT-CONTEXT"));
    let (text, is_error) = result_of(&requests[1], "rm");
    assert!(
        is_error && text.contains("destructive command blocked by hook"),
        "{text}"
    );
    let post = &facts["post"][0];
    assert_eq!(post["id"], "echo");
    assert!(post["response"].as_str().unwrap().contains("hi"), "{post}");
}

#[test]
#[ignore = "needs the TypeScript SDK (npm); .ci/run runs it"]
fn ts_interrupt_stops_the_turn_and_the_session_goes_on() {
    sdk_cases::interrupt(scenario);
}

#[test]
#[ignore = "needs the TypeScript SDK (npm); .ci/run runs it"]
fn ts_a_deny_with_interrupt_stops_the_turn() {
    let facts = sdk_cases::deny_interrupts(scenario);
    assert!(
        facts["result"].as_str().unwrap().contains("Interrupted"),
        "{facts}"
    );
}

#[test]
#[ignore = "needs the TypeScript SDK (npm ci in tests/sdk-ts); .ci/run runs it"]
fn ts_in_process_sdk_mcp_server_tools_run_in_the_application() {
    sdk_cases::sdk_mcp_server(scenario);
}

#[test]
#[ignore = "needs the TypeScript SDK (npm ci in tests/sdk-ts); .ci/run runs it"]
fn ts_rewind_files_previews_then_restores_the_files_at_a_replayed_user_message() {
    let sb = Sandbox::new();
    let notes = sb.write("notes.txt", "original\n");
    let created = sb.project().join("created.txt");
    let server = common::mock(
        Script::new()
            .turn(common::read("r", &notes))
            .turn(common::edit("e", &notes, "original", "changed"))
            .turn(common::write("w", &created, "new\n"))
            .turn(Turn::text("changed your files")),
    );
    let facts = scenario(&sb, &server, "rewind");
    let both = json!(["created.txt", "notes.txt"]);
    assert_eq!(facts["preview"], both, "{facts}");
    assert_eq!(facts["files"], both, "{facts}");
    assert_eq!(std::fs::read_to_string(&notes).unwrap(), "original\n");
    assert!(!created.exists());
    let transcript = std::fs::read_to_string(&sb.transcripts()[0]).unwrap();
    let id = facts["checkpoint"].as_str().unwrap();
    assert!(
        transcript.contains(&format!("\"uuid\":\"{id}\"")),
        "{id} is not a transcript entry"
    );
}

#[test]
#[ignore = "needs the TypeScript SDK and the npm MCP servers; .ci/run runs it"]
fn ts_one_shot_query_offers_mcp_tools_in_its_first_request() {
    // The TypeScript SDK sends its servers in `initialize`.
    sdk_cases::mcp_one_shot(scenario);
}

#[test]
#[ignore = "needs the TypeScript SDK (npm); .ci/run runs it"]
fn ts_application_agents_become_agent_types() {
    sdk_cases::agents(scenario);
}

#[test]
#[ignore = "needs the TypeScript SDK (npm); .ci/run runs it"]
fn ts_output_format_gives_structured_output() {
    sdk_cases::structured_output(scenario);
}

#[test]
#[ignore = "needs the TypeScript SDK (npm); .ci/run runs it"]
fn ts_a_system_prompt_string_replaces_the_base_prompt() {
    // Sent in `initialize` as a list of strings.
    sdk_cases::system_prompt_string(scenario);
}

#[test]
#[ignore = "needs the TypeScript SDK (npm); .ci/run runs it"]
fn ts_persist_session_false_writes_no_transcript() {
    let (sb, server) = common::with_mock(Script::new().turn(Turn::text("ok")));
    let facts = scenario(&sb, &server, "no_persistence");
    assert_eq!(facts["result"], "ok");
    assert!(sb.transcripts().is_empty(), "{:?}", sb.transcripts());
}
