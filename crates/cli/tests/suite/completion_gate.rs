//! The completion gate through the real binary: in a run nobody attends,
//! the first final answer is followed by one more request with a checklist
//! built from the task (its paths and names, open todos); the model's
//! confirmation ends the run. Once per input; not when someone is there
//! (unless `completionCheck: "always"`), never with `"off"`; the gate's
//! turn uses `planEffort`.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use catui_testkit::{RecordedRequest, Script, Turn};
use common::{Sandbox, StreamSession, output_within};
use serde_json::json;

const GATE: &str = "Before this run ends, check your work against the task";

/// `cmd` with the gate as a run would have it (the test helper turns it off).
fn auto(mut cmd: std::process::Command) -> std::process::Command {
    cmd.env_remove("CATUI_COMPLETION_CHECK");
    cmd
}

fn is_gate(r: &RecordedRequest) -> bool {
    r.messages()
        .last()
        .is_some_and(|m| m.to_string().contains(GATE))
}

#[test]
fn a_print_run_checks_its_work_once_and_ends_with_the_confirmation() {
    let (sb, server) = common::with_mock(
        Script::new()
            .turn(common::todo_write("t1", json!([
                    {"content": "write report.json", "status": "completed", "activeForm": "writing"},
                    {"content": "verify the totals", "status": "pending", "activeForm": "verifying"}
                ])))
            .turn(Turn::text("I wrote the report."))
            .turn(Turn::text("Checked: out/report.json holds the totals; verified with jq.")),
    );
    let mut cmd = sb.catui(&server);
    cmd.env_remove("CATUI_COMPLETION_CHECK");
    cmd.args([
        "-p",
        "Write the totals to out/report.json and keep `--quiet` working.",
        "--output-format",
        "json",
        "--plan-effort",
        "high",
    ]);
    let out = output_within(cmd, b"", 60);
    common::assert_ok(&out);
    let reqs = server.requests();
    assert_eq!(reqs.len(), 3, "one gate request after the first answer");
    assert!(!is_gate(&reqs[1]));
    assert!(is_gate(&reqs[2]));
    let gate = reqs[2].messages().last().unwrap().to_string();
    common::assert_contains(&gate, "out/report.json");
    common::assert_contains(&gate, "--quiet");
    common::assert_contains(&gate, "verify the totals");
    assert!(!gate.contains("write report.json\\\" ("), "{gate}");
    // The gate's turn reasons with the planning effort, the others do not.
    assert_eq!(
        reqs[2].body["output_config"]["effort"], "high",
        "{}",
        reqs[2].body
    );
    assert!(
        reqs[1]
            .body
            .get("output_config")
            .is_none_or(|c| c.get("effort").is_none()),
        "{}",
        reqs[1].body
    );
    let result: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        result["result"],
        "Checked: out/report.json holds the totals; verified with jq."
    );
    assert_eq!(result["num_turns"], 3);
}

#[test]
fn the_model_may_go_on_working_after_the_gate_and_is_not_asked_twice() {
    let (sb, server) = common::with_mock(
        Script::new()
            .turn(Turn::text("Done."))
            .turn(common::write("w1", "notes.md", "missing part"))
            .turn(Turn::text("Now it is complete.")),
    );
    let mut cmd = sb.catui(&server);
    cmd.env_remove("CATUI_COMPLETION_CHECK");
    cmd.args(["-p", "write notes.md", "--allowed-tools", "Write"]);
    let out = output_within(cmd, b"", 60);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(common::stdout(&out).trim(), "Now it is complete.");
    let reqs = server.requests();
    assert_eq!(reqs.len(), 3);
    assert_eq!(reqs.iter().filter(|r| is_gate(r)).count(), 1);
    assert_eq!(
        std::fs::read_to_string(sb.project().join("notes.md")).unwrap(),
        "missing part"
    );
}

#[test]
fn someone_there_is_not_asked_unless_always_and_off_never_asks() {
    // A stream-json client answers: no gate by default.
    let (sb, server) = common::with_mock(Script::new().turn(Turn::text("hi").forever()));
    let mut s = StreamSession::start(auto(sb.catui(&server)), &[]);
    s.send_user("say hi");
    s.wait_type("result");
    let (code, _) = s.finish();
    assert_eq!(code, 0);
    assert_eq!(server.requests().len(), 1);

    // `always`: asked there too.
    sb.user_settings(r#"{"completionCheck": "always"}"#);
    let server = common::mock(Script::new().turn(Turn::text("hi").forever()));
    let mut s = StreamSession::start(auto(sb.catui(&server)), &[]);
    s.send_user("say hi");
    s.wait_type("result");
    let (code, _) = s.finish();
    assert_eq!(code, 0);
    let reqs = server.requests();
    assert_eq!(reqs.len(), 2);
    assert!(is_gate(&reqs[1]));

    // `off`: a print run ends with its first answer.
    sb.user_settings(r#"{"completionCheck": "off"}"#);
    let server = common::mock(Script::new().turn(Turn::text("hi").forever()));
    let mut cmd = sb.catui(&server);
    cmd.env_remove("CATUI_COMPLETION_CHECK");
    cmd.args(["-p", "say hi"]);
    let out = output_within(cmd, b"", 60);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(server.requests().len(), 1);
}

#[test]
fn plan_mode_requests_use_the_plan_effort_and_others_the_sessions() {
    let run = |mode: &str| {
        let sb = Sandbox::new();
        sb.user_settings(r#"{"planEffort": "high", "completionCheck": "off"}"#);
        let server = common::mock(Script::new().turn(Turn::text("ok").forever()));
        let mut cmd = sb.catui(&server);
        cmd.env_remove("CATUI_COMPLETION_CHECK");
        cmd.args([
            "-p",
            "look around",
            "--effort",
            "low",
            "--permission-mode",
            mode,
        ]);
        let out = output_within(cmd, b"", 60);
        common::assert_ok(&out);
        server.requests()[0].body["output_config"]["effort"].clone()
    };
    assert_eq!(
        run("plan"),
        "high",
        "plan mode takes the setting's planEffort"
    );
    assert_eq!(run("default"), "low", "elsewhere the session's --effort");
}
