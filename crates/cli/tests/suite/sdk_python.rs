//! The official Python Agent SDK (`claude-agent-sdk` from PyPI) drives the
//! real catui binary, `cli_path` pointing at it, against the testkit mock
//! model (issue 17, docs/SDK.md). Each test starts the mock with a script,
//! runs one scenario of `tests/sdk/scenarios.py`, and checks both what the
//! SDK user saw (asserted in Python) and what the model was sent.
//!
//! These need the SDK installed: `.ci/run` creates the venv (pinned
//! version) and runs them with `--run-ignored all`; locally run
//! `bash .ci/sdk-setup` once, then
//! `cargo nextest run -p catui --test all --run-ignored all suite::sdk_python::`.
//! The interpreter is `$CATUI_SDK_PYTHON`, else `target/sdk-venv/bin/python`.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

mod teams;

use std::path::PathBuf;
use std::process::Command;

use catui_testkit::{MockServer, Script, Turn};
use common::{Sandbox, result_of, sdk_cases};
use serde_json::{Value, json};

fn python() -> PathBuf {
    if let Ok(p) = std::env::var("CATUI_SDK_PYTHON") {
        return PathBuf::from(p);
    }
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../target/sdk-venv/bin/python")
}

/// Runs one scenario; returns the JSON facts it printed.
fn scenario(sb: &Sandbox, server: &MockServer, name: &str) -> Value {
    scenario_in(sb, server, "scenarios.py", name, &[])
}

/// Runs scenario `name` of `tests/sdk/FILE` with `env` added; returns the
/// JSON facts it printed.
fn scenario_in(
    sb: &Sandbox,
    server: &MockServer,
    file: &str,
    name: &str,
    env: &[(&str, &str)],
) -> Value {
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/sdk")
        .join(file);
    let python = python();
    assert!(
        python.exists(),
        "{} is missing: run `bash .ci/sdk-setup` (or set CATUI_SDK_PYTHON)",
        python.display()
    );
    let mut cmd = Command::new(&python);
    cmd.arg(script).arg(name).current_dir(sb.project());
    // team_scenarios.py imports scenarios.py: no bytecode in the tree.
    let mut extra = vec![("PYTHONDONTWRITEBYTECODE", "1".to_string())];
    extra.extend(env.iter().map(|(k, v)| (*k, v.to_string())));
    sdk_cases::run_client(cmd, sb, server, name, &extra)
}

#[test]
#[ignore = "needs the Python SDK venv; .ci/run runs it"]
fn query_one_shot_parses_every_message() {
    sdk_cases::one_shot(scenario);
}

#[test]
#[ignore = "needs the Python SDK venv; .ci/run runs it"]
fn client_keeps_the_conversation_across_queries() {
    let (sb, server) = common::with_mock(
        Script::new()
            .turn(Turn::text("one"))
            .turn(Turn::text("two")),
    );
    let facts = scenario(&sb, &server, "multi_turn");
    assert_eq!(facts["second"], "two");
    let requests = server.requests();
    assert_eq!(requests.len(), 2);
    let history = requests[1].body["messages"].to_string();
    assert!(history.contains("First question") && history.contains("one"));
}

#[test]
#[ignore = "needs the Python SDK venv; .ci/run runs it"]
fn can_use_tool_denies_edits_input_and_adds_rules() {
    sdk_cases::can_use_tool(scenario);
}

#[test]
#[ignore = "needs the Python SDK venv; .ci/run runs it"]
fn plan_approved_with_set_mode_restores_accept_edits() {
    sdk_cases::plan_approval(scenario, "plan_set_mode");
}

#[test]
#[ignore = "needs the Python SDK venv; .ci/run runs it"]
fn plan_approved_with_updated_input_mode() {
    sdk_cases::plan_approval(scenario, "plan_input_mode");
}

/// The SDK's answer path for a plan (issue 35): a stale `planHash` is
/// asked again, `park` parks without approving, and `skip_steps`, `model`
/// and `mode` approve part of the plan for another model.
#[test]
#[ignore = "needs the Python SDK venv; .ci/run runs it"]
fn plan_answers_through_the_sdk_are_checked_parked_and_partial() {
    let sb = Sandbox::new();
    // Not about the plan contract: no goal loop after approval.
    sb.user_settings(r#"{"planGoal": false, "planDrift": "note"}"#);
    let server = common::mock(
        common::writes_plan_then_exits(
            &common::plans_dir(&sb),
            "# Plan\n\n1. Parse the flag\n2. Print JSON\n",
        )
        .turn(common::exit_plan("x2"))
        .turn(Turn::text("Done without step 2.")),
    );
    let facts = scenario(&sb, &server, "plan_answers");
    assert_eq!(facts["approved"], "Done without step 2.");
    assert_eq!(facts["models"], json!(["builder-model", "test-model"]));
    let reqs = server.requests();
    assert_eq!(reqs.len(), 4, "the park ended the first input");
    let (parked, is_error) = result_of(&reqs[2], "x");
    assert!(
        !is_error && parked.contains("Nothing was approved"),
        "{parked}"
    );
    common::assert_contains(&parked, "after the release");
    let (approved, is_error) = result_of(&reqs[3], "x2");
    assert!(!is_error, "{approved}");
    common::assert_contains(&approved, "2. ~~Print JSON~~ (skipped by the user)");
    assert_eq!(reqs[3].model(), "builder-model");
}

/// After approval the plan is a contract (issue 48): the SDK's
/// `can_use_tool` sees the verification commands in the approval and
/// answers the AmendPlan request; catui then runs the verification itself
/// and the SDK gets `plan_verification`, `goal_check` and `plan_report`.
#[test]
#[ignore = "needs the Python SDK venv; .ci/run runs it"]
fn an_approved_plan_is_verified_and_reported_through_the_sdk() {
    let sb = Sandbox::new();
    let hello = sb.project().join("hello.txt").display().to_string();
    let notes = sb.project().join("notes.md").display().to_string();
    let server = common::mock(
        common::writes_plan_then_exits(
            &common::plans_dir(&sb),
            "# Plan\n\n1. Write hello.txt\n\n## Verification\n- `test -f hello.txt`\n",
        )
        .turn(Turn::tool_use(
            "a",
            "AmendPlan",
            json!({"reason": "release notes", "change": "2. Write notes.md"}),
        ))
        .turn(common::write("w1", &hello, "hello\n"))
        .turn(common::write("w2", &notes, "notes\n"))
        .turn(common::todo_write(
            "t",
            json!([
                {"content": "Write hello.txt", "status": "completed", "activeForm": "Writing"},
                {"content": "Write notes.md", "status": "completed", "activeForm": "Writing"}
            ]),
        ))
        .turn(Turn::text("All done.")),
    );
    let facts = scenario(&sb, &server, "plan_contract");
    assert_eq!(facts["result"], "All done.");
    assert_eq!(facts["steps"], json!(["Write hello.txt", "Write notes.md"]));
    assert_eq!(facts["verification"], "test -f hello.txt");
    assert_eq!(
        std::fs::read_to_string(sb.project().join("notes.md")).unwrap(),
        "notes\n"
    );
}

#[test]
#[ignore = "needs the Python SDK venv; .ci/run runs it"]
fn control_requests_are_answered() {
    let sb = Sandbox::new();
    let target = sb.project().join("after-switch.txt");
    let server = common::mock(
        Script::new()
            .turn(common::write(
                "w1",
                target.display().to_string(),
                "accepted",
            ))
            .turn(Turn::text("switched")),
    );
    let facts = scenario(&sb, &server, "controls");
    assert_eq!(server.requests()[0].body["model"], "other-model");
    assert_eq!(facts["model"], "other-model");
    // set_permission_mode("acceptEdits") took effect: the edit ran unasked.
    assert_eq!(std::fs::read_to_string(&target).unwrap(), "accepted");
    let (text, is_error) = result_of(&server.requests()[1], "w1");
    assert!(!is_error, "{text}");
}

#[test]
#[ignore = "needs the Python SDK venv; .ci/run runs it"]
fn rewind_files_restores_the_files_at_a_replayed_user_message() {
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
    assert_eq!(facts["restored"], "original\n");
    assert_eq!(std::fs::read_to_string(&notes).unwrap(), "original\n");
    assert!(!created.exists());
    // The id the SDK saw is the user message's own in the transcript.
    let transcript = std::fs::read_to_string(&sb.transcripts()[0]).unwrap();
    let id = facts["checkpoint"].as_str().unwrap();
    assert!(
        transcript.contains(&format!("\"uuid\":\"{id}\"")),
        "{id} is not a transcript entry"
    );
}

#[test]
#[ignore = "needs the Python SDK venv; .ci/run runs it"]
fn interrupt_stops_the_turn_and_the_session_goes_on() {
    sdk_cases::interrupt(scenario);
}

#[test]
#[ignore = "needs the Python SDK venv; .ci/run runs it"]
fn partial_messages_stream_events() {
    let (sb, server) = common::with_mock(Script::new().turn(Turn::text("streamed text")));
    let facts = scenario(&sb, &server, "partial_messages");
    assert!(facts["events"].as_array().unwrap().len() >= 5);
}

#[test]
#[ignore = "needs the Python SDK venv; .ci/run runs it"]
fn resume_continue_and_fork() {
    let (sb, server) = common::with_mock(
        Script::new()
            .turn(Turn::text("noted"))
            .turn(Turn::text("42"))
            .turn(Turn::text("still 42"))
            .turn(Turn::text("forked")),
    );
    scenario(&sb, &server, "resume");
    let requests = server.requests();
    assert_eq!(requests.len(), 4);
    // Every later request carries the first exchange.
    for r in &requests[1..] {
        assert!(r.body["messages"].to_string().contains("Remember 42"));
    }
}

#[test]
#[ignore = "needs the Python SDK venv; .ci/run runs it"]
fn max_turns_ends_with_a_typed_error_result() {
    let (sb, server) = common::with_mock(
        Script::new()
            .turn(Turn::tool_use("g", "Glob", json!({"pattern": "*"})))
            .turn(Turn::text("unreached")),
    );
    let facts = scenario(&sb, &server, "max_turns");
    assert_eq!(facts["subtype"], "error_max_turns");
}

#[test]
#[ignore = "needs the Python SDK venv; .ci/run runs it"]
fn every_option_is_accepted_and_unsupported_ones_are_reported() {
    let sb = Sandbox::new();
    // `output_format` asks for structured output: the model that answers
    // in prose is reminded once.
    let server = common::mock(
        Script::new()
            .turn(Turn::text("hi"))
            .turn(Turn::text("hi again")),
    );
    let facts = scenario(&sb, &server, "all_options");
    let notes = facts["notes"].to_string();
    // The appended system prompt reaches the model.
    assert!(
        server.requests()[0].body["system"]
            .to_string()
            .contains("Be brief."),
        "the appended system prompt is sent"
    );
    common::assert_lacks(&notes, "--append-system-prompt");
    // MCP servers are honoured now, so not reported.
    assert!(
        !notes.contains("--mcp-config") && !notes.contains("--strict-mcp-config"),
        "{notes}"
    );
    for flag in ["--plugin-dir", "--betas"] {
        assert!(notes.contains(flag), "{flag} not reported: {notes}");
    }
    // Honoured now, so not reported.
    for flag in ["--fallback-model", "--json-schema", "--system-prompt"] {
        assert!(!notes.contains(flag), "{flag} reported: {notes}");
    }
    let tools = facts["tools"].to_string();
    assert!(
        tools.contains("Read") && !tools.contains("\"Write\""),
        "{tools}"
    );
}

#[test]
#[ignore = "needs the Python SDK venv; .ci/run runs it"]
fn hooks_deny_before_and_see_results_after() {
    let sb = Sandbox::new();
    sb.write("build/keep.txt", "precious");
    let server = common::mock(
        Script::new()
            .turn(common::bash("rm", "rm -rf build"))
            .turn(common::bash("echo", "echo hi"))
            .turn(Turn::text("cleaned")),
    );
    let facts = scenario(&sb, &server, "hooks");
    // The deny won over bypassPermissions' allow: nothing was removed.
    assert!(sb.project().join("build/keep.txt").exists());
    let (text, is_error) = result_of(&server.requests()[1], "rm");
    assert!(
        is_error && text.contains("destructive command blocked by hook"),
        "{text}"
    );
    let post = &facts["post"][0];
    assert_eq!(post["id"], "echo");
    assert!(post["response"].as_str().unwrap().contains("hi"), "{post}");
}

#[test]
#[ignore = "needs the Python SDK venv; .ci/run runs it"]
fn prompt_and_stop_hooks_run_as_sdk_callbacks() {
    let (sb, server) = common::with_mock(
        Script::new()
            .turn(Turn::text("done"))
            .turn(Turn::text("docs checked too")),
    );
    let facts = scenario(&sb, &server, "more_hooks");
    assert_eq!(facts["result"], "docs checked too");
    let requests = server.requests();
    assert_eq!(requests.len(), 2);
    assert!(requests[0].contains_text("PY-PROMPT-CONTEXT"));
    assert!(requests[1].contains_text("Stop hook feedback: check the docs too"));
}

#[test]
#[ignore = "needs the Python SDK venv; .ci/run runs it"]
fn a_deny_with_interrupt_stops_the_turn() {
    let facts = sdk_cases::deny_interrupts(scenario);
    assert_eq!(facts["subtype"], "error_during_execution");
}

#[test]
#[ignore = "needs the Python SDK venv; .ci/run runs it"]
fn in_process_sdk_mcp_server_tools_run_in_the_application() {
    sdk_cases::sdk_mcp_server(scenario);
}

/// `setting_sources` as the SDK sends it: the user's settings deny Read,
/// the project's allow Write. Returns what was asked, whether the write
/// happened, and whether the read was refused.
fn with_setting_sources(name: &str) -> (Vec<String>, bool, bool) {
    let sb = Sandbox::new();
    sb.user_settings(r#"{"permissions": {"deny": ["Read"]}}"#);
    sb.write(
        ".catui/settings.json",
        r#"{"permissions": {"allow": ["Write"]}}"#,
    );
    let notes = sb.write("notes.txt", "notes-marker-77e1\n");
    let out = sb.project().join("out.txt");
    let server = common::mock(
        Script::new()
            .turn(common::write("w", out.display().to_string(), "x"))
            .turn(common::read("r", notes.display().to_string()))
            .turn(Turn::text("done")),
    );
    let facts = scenario(&sb, &server, name);
    let asked: Vec<String> = facts["asked"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a.as_str().unwrap().to_string())
        .collect();
    let (read, read_refused) = result_of(&server.requests()[2], "r");
    assert_eq!(
        read_refused,
        !read.contains("notes-marker-77e1"),
        "{name}: {read}"
    );
    (asked, out.exists(), read_refused)
}

#[test]
#[ignore = "needs the Python SDK venv and the npm MCP servers; .ci/run runs it"]
fn one_shot_query_offers_mcp_tools_in_its_first_request() {
    sdk_cases::mcp_one_shot(scenario);
}

/// A small stdio MCP server (the `mcp` package the SDK depends on).
const TINY_MCP: &str = r#"from mcp.server.mcpserver import MCPServer
app = MCPServer("tiny")

@app.tool()
def shout(text: str) -> str:
    """Returns the text in capitals."""
    return text.upper()

if __name__ == "__main__":
    app.run()
"#;

#[test]
#[ignore = "needs the Python SDK venv; .ci/run runs it"]
fn init_shows_a_configured_mcp_server_connected_with_its_tools() {
    let sb = Sandbox::new();
    sb.write("tiny_mcp.py", TINY_MCP);
    let server = common::mock(Script::new().turn(Turn::text("hello")));
    let facts = scenario(&sb, &server, "mcp_init");
    let servers = facts["mcp_servers"].as_array().unwrap();
    let tiny = servers
        .iter()
        .find(|s| s["name"] == "tiny")
        .unwrap_or_else(|| panic!("{facts}"));
    assert_eq!(tiny["status"], "connected", "{facts}");
    let tools: Vec<&str> = tiny["tools"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|t| t["name"].as_str())
        .collect();
    assert_eq!(tools, ["shout"], "{facts}");
    assert!(
        facts["tools"]
            .as_array()
            .unwrap()
            .contains(&json!("mcp__tiny__shout")),
        "{facts}"
    );
}

#[test]
#[ignore = "needs the Python SDK venv; .ci/run runs it"]
fn application_agents_become_agent_types() {
    sdk_cases::agents(scenario);
}

#[test]
#[ignore = "needs the Python SDK venv; .ci/run runs it"]
fn output_format_gives_structured_output() {
    sdk_cases::structured_output(scenario);
}

#[test]
#[ignore = "needs the Python SDK venv; .ci/run runs it"]
fn a_system_prompt_string_replaces_the_base_prompt() {
    sdk_cases::system_prompt_string(scenario);
}

#[test]
#[ignore = "needs the Python SDK venv; .ci/run runs it"]
fn fallback_model_takes_over_from_an_overloaded_model() {
    let sb = Sandbox::new();
    let mut script = Script::new();
    for _ in 0..8 {
        script = script.turn(Turn::error_status(529, "Overloaded").when_model("main-model"));
    }
    let server = common::mock(script.turn(Turn::text("from the spare").when_model("spare-model")));
    let facts = scenario(&sb, &server, "fallback_model");
    assert_eq!(facts["result"], "from the spare");
    let last = server.requests().last().unwrap().model().to_string();
    assert_eq!(last, "spare-model");
}

#[test]
#[ignore = "needs the Python SDK venv; .ci/run runs it"]
fn without_setting_sources_the_project_applies_only_as_far_as_it_is_trusted() {
    let (asked, written, read_refused) = with_setting_sources("sources_default");
    assert_eq!(asked, ["Write"], "the project's allow rule waits for trust");
    assert!(!written);
    assert!(read_refused, "the user's deny rule applies");
}

#[test]
#[ignore = "needs the Python SDK venv; .ci/run runs it"]
fn empty_setting_sources_read_no_settings_file_at_all() {
    let (asked, written, read_refused) = with_setting_sources("sources_none");
    assert_eq!(asked, ["Write"], "no project allow rule");
    assert!(!written);
    assert!(!read_refused, "no user deny rule");
}

#[test]
#[ignore = "needs the Python SDK venv; .ci/run runs it"]
fn user_setting_sources_read_only_the_users_settings() {
    let (asked, written, read_refused) = with_setting_sources("sources_user");
    assert_eq!(asked, ["Write"]);
    assert!(!written);
    assert!(read_refused);
}

#[test]
#[ignore = "needs the Python SDK venv; .ci/run runs it"]
fn listing_the_projects_sources_trusts_them_for_the_run() {
    let (asked, written, read_refused) = with_setting_sources("sources_project");
    assert!(
        asked.is_empty(),
        "the application chose the project's files: {asked:?}"
    );
    assert!(written);
    assert!(!read_refused, "the user's settings were not listed");
}

/// Whether `r` is the background agent's own request (its first message
/// is the task it was given).
fn is_gated_agent(r: &catui_testkit::RecordedRequest) -> bool {
    r.messages()
        .first()
        .is_some_and(|m| m.to_string().contains("GATED-TASK"))
}

#[test]
#[ignore = "needs the Python SDK venv; .ci/run runs it"]
fn stop_task_stops_a_background_agent_and_bad_ids_raise() {
    let sb = Sandbox::new();
    let gate = sb.project().join("never-created");
    let server = common::mock(
        Script::new()
            .turn(
                Turn::tool_use(
                    "bg1",
                    "Agent",
                    json!({"description": "gated work", "prompt": "GATED-TASK: wait, then report",
                           "subagent_type": "general-purpose", "run_in_background": true}),
                )
                .when(|r| !is_gated_agent(r)),
            )
            .turn(
                common::bash(
                    "gate1",
                    format!("while [ ! -f {} ]; do sleep 0.05; done", gate.display()),
                )
                .when(is_gated_agent),
            )
            .turn(
                Turn::text("Started it.")
                    .when(|r| !is_gated_agent(r) && !r.contains_text("was stopped")),
            )
            .turn(
                Turn::text("It was stopped.")
                    .when(|r| !is_gated_agent(r) && r.contains_text("was stopped")),
            ),
    );
    let facts = scenario(&sb, &server, "stop_task");
    let task_id = facts["task_id"].as_str().unwrap();
    assert_eq!(facts["first"], "Started it.");
    assert!(
        facts["ended"].as_str().unwrap().contains("already ended"),
        "{facts}"
    );
    assert!(
        facts["unknown"]
            .as_str()
            .unwrap()
            .contains("there is no background task no-such-task"),
        "{facts}"
    );
    assert_eq!(facts["after"], "It was stopped.");
    let last = server
        .requests()
        .into_iter()
        .rfind(|r| !is_gated_agent(r))
        .unwrap();
    let told = common::last_user(&last);
    assert!(
        told.contains(task_id) && told.contains("the user stopped it"),
        "{told}"
    );
    // The agent's command died with it.
    let needle = gate.display().to_string();
    let left = std::fs::read_dir("/proc").unwrap().flatten().any(|e| {
        std::fs::read(e.path().join("cmdline"))
            .is_ok_and(|c| String::from_utf8_lossy(&c).contains(&needle))
    });
    assert!(!left, "the agent's loop still runs");
}

#[test]
#[ignore = "needs the Python SDK venv; .ci/run runs it"]
fn resume_session_at_continues_from_the_given_message() {
    let (sb, server) = common::with_mock(
        Script::new()
            .turn(Turn::text("noted 42"))
            .turn(Turn::text("forgotten"))
            .turn(Turn::text("you said 42")),
    );
    let facts = scenario(&sb, &server, "resume_at");
    assert_eq!(facts["result"], "you said 42");
    let requests = server.requests();
    let resumed = requests.last().unwrap().body["messages"].to_string();
    assert!(
        resumed.contains("Remember 42") && resumed.contains("noted 42"),
        "{resumed}"
    );
    assert!(
        !resumed.contains("forget it") && !resumed.contains("forgotten"),
        "{resumed}"
    );
}
