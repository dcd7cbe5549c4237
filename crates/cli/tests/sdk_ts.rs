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

mod common;

use std::path::PathBuf;
use std::process::Command;
use std::time::Duration;

use catui_testkit::{MockServer, Script, Turn};
use common::{Sandbox, result_of};
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
        .current_dir(&dir)
        .env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("HOME", sb.dir.path())
        .env("CATUI_BIN", assert_cmd::cargo::cargo_bin("catui"))
        .env("PROJECT", sb.project())
        .env("CATUI_CONFIG_DIR", sb.config())
        .env("CATUI_RETRY_BASE_MS", "1")
        .env("CATUI_MODEL", "test-model")
        .env("ANTHROPIC_API_KEY", "test-key-not-secret")
        .env("ANTHROPIC_BASE_URL", server.url());
    let out = common::output_within(cmd, b"", 120);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "scenario {name} failed\nstdout:\n{stdout}\nstderr:\n{stderr}"
    );
    let last = stdout.lines().rev().find(|l| l.starts_with('{'));
    serde_json::from_str(last.unwrap_or("{}")).unwrap()
}

#[test]
#[ignore = "needs the TypeScript SDK (npm); .ci/run runs it"]
fn ts_query_one_shot() {
    let sb = Sandbox::new();
    let server =
        MockServer::start_blocking(Script::new().turn(Turn::text("Hello there."))).unwrap();
    let facts = scenario(&sb, &server, "one_shot");
    assert_eq!(facts["result"], "Hello there.");
    assert_eq!(server.requests().len(), 1);
}

#[test]
#[ignore = "needs the TypeScript SDK (npm); .ci/run runs it"]
fn ts_can_use_tool_denies_edits_input_and_adds_rules() {
    let sb = Sandbox::new();
    let dir = sb.project();
    let path = |n: &str| dir.join(n).to_string_lossy().to_string();
    let server = MockServer::start_blocking(
        Script::new()
            .turn(Turn::tool_use(
                "w1",
                "Write",
                json!({"file_path": path("denied.txt"), "content": "x"}),
            ))
            .turn(Turn::tool_use(
                "w2",
                "Write",
                json!({"file_path": path("edited.txt"), "content": "from the model"}),
            ))
            .turn(Turn::tool_use(
                "w3",
                "Write",
                json!({"file_path": path("free.txt"), "content": "no prompt"}),
            ))
            .turn(Turn::text("done")),
    )
    .unwrap();
    let facts = scenario(&sb, &server, "can_use_tool");
    assert_eq!(facts["asked"], 2);
    assert!(!dir.join("denied.txt").exists());
    assert_eq!(
        std::fs::read_to_string(dir.join("edited.txt")).unwrap(),
        "edited by the client"
    );
    assert_eq!(
        std::fs::read_to_string(dir.join("free.txt")).unwrap(),
        "no prompt"
    );
    let (text, is_error) = result_of(&server.requests()[1], "w1");
    assert!(is_error && text.contains("not that file"), "{text}");
}

#[test]
#[ignore = "needs the TypeScript SDK (npm); .ci/run runs it"]
fn ts_plan_approved_with_set_mode() {
    let sb = Sandbox::new();
    let (script, target) = common::sdk_plan_script(&sb);
    let server = MockServer::start_blocking(script).unwrap();
    let facts = scenario(&sb, &server, "plan_mode");
    assert_eq!(
        facts["modes"].as_array().unwrap().last().unwrap(),
        "acceptEdits"
    );
    assert_eq!(std::fs::read_to_string(&target).unwrap(), "built");
    let (early, is_error) = result_of(&server.requests()[1], "early");
    assert!(
        is_error,
        "the edit before approval must be refused: {early}"
    );
}

#[test]
#[ignore = "needs the TypeScript SDK (npm); .ci/run runs it"]
fn ts_hooks_deny_add_context_and_see_results() {
    let sb = Sandbox::new();
    sb.write("build/keep.txt", "precious");
    let server = MockServer::start_blocking(
        Script::new()
            .turn(Turn::tool_use(
                "rm",
                "Bash",
                json!({"command": "rm -rf build"}),
            ))
            .turn(Turn::tool_use(
                "echo",
                "Bash",
                json!({"command": "echo hi"}),
            ))
            .turn(Turn::text("cleaned")),
    )
    .unwrap();
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
    let sb = Sandbox::new();
    let server = MockServer::start_blocking(
        Script::new()
            .turn(Turn::text("slow").delay(Duration::from_secs(30)))
            .turn(Turn::text("back")),
    )
    .unwrap();
    let facts = scenario(&sb, &server, "interrupt");
    assert_eq!(facts["second"], "back");
}

#[test]
#[ignore = "needs the TypeScript SDK (npm); .ci/run runs it"]
fn ts_a_deny_with_interrupt_stops_the_turn() {
    let sb = Sandbox::new();
    let target = sb.project().join("out.txt");
    let server = MockServer::start_blocking(
        Script::new()
            .turn(Turn::tool_use(
                "w",
                "Write",
                json!({"file_path": target.to_str().unwrap(), "content": "x"}),
            ))
            .turn(Turn::text("must not be asked for")),
    )
    .unwrap();
    let facts = scenario(&sb, &server, "deny_interrupts");
    assert!(
        facts["result"].as_str().unwrap().contains("Interrupted"),
        "{facts}"
    );
    assert!(!target.exists());
    assert_eq!(server.requests().len(), 1);
}
