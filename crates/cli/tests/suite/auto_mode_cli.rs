//! `--permission-mode auto` and the `autoMode.enabled` opt-in, through the
//! real binary: sub-agents and teammates in auto mode have their calls
//! judged by the classifier, and `autoMode.classifierTimeoutMs` bounds how
//! long it may take.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use std::time::Duration;

use catui_testkit::{Block, RecordedRequest, Script, Turn};
use common::{Sandbox, result_of};
use serde_json::{Value, json};

const ENABLED: &str = r#"{"autoMode": {"enabled": true}}"#;

/// A classifier request: the forced `decide` call.
fn is_classifier(r: &RecordedRequest) -> bool {
    r.body["tool_choice"]["name"] == "decide"
}

/// The classifier's answer, for requests about calls of `tool`.
fn verdict(tool: &str, decision: &str, reason: &str) -> Turn {
    Turn::tool_use(
        "d",
        "decide",
        json!({"decision": decision, "reason": reason}),
    )
    .when_model("small-model")
    .when(is_classifier)
    .when_contains(format!("Tool: {tool}"))
}

fn is_permission_prompt(v: &Value) -> bool {
    v["type"] == "control_request" && v["request"]["subtype"] == "can_use_tool"
}

#[test]
fn auto_without_the_opt_in_is_a_usage_error() {
    let (sb, server) = common::with_mock(Script::new().turn(Turn::text("unused")));
    let out = sb.run(&server, ["-p", "hi", "--permission-mode", "auto"]);
    assert_eq!(out.status.code(), Some(2));
    let err = common::stderr(&out);
    common::assert_contains(&err, "auto mode is not enabled");
    common::assert_contains(&err, "\"autoMode\": {\"enabled\": true}");
    assert!(server.requests().is_empty(), "no model request was made");
}

#[test]
fn auto_with_the_opt_in_starts() {
    let sb = Sandbox::new();
    sb.user_settings(r#"{"autoMode": {"enabled": true}}"#);
    let server = common::mock(Script::new().turn(Turn::text("running in auto")));
    let out = sb.run(&server, ["-p", "hi", "--permission-mode", "auto"]);
    common::assert_ok(&out);
    assert_eq!(common::stdout(&out).trim(), "running in auto");
}

/// Whether `r` belongs to the conversation that began with `marker`.
fn starts_with_text(r: &RecordedRequest, marker: &str) -> bool {
    !is_classifier(r)
        && r.messages()
            .first()
            .is_some_and(|m| m.to_string().contains(marker))
}

#[test]
fn a_sub_agent_in_auto_mode_is_judged_by_the_classifier() {
    let sb = Sandbox::new();
    sb.user_settings(ENABLED);
    let junk = sb.write("junk.txt", "keep me\n");
    let notes = sb.project().join("notes.txt");
    let sub = |r: &RecordedRequest| starts_with_text(r, "SUBTASK: tidy");
    let server = common::mock(
        Script::new()
            .turn(
                common::agent("a1", "tidy", "SUBTASK: tidy the project", "general-purpose")
                    .when(move |r| !sub(r) && !is_classifier(r) && !r.has_tool_result("a1")),
            )
            .turn(
                Turn::blocks(vec![
                    Block::ToolUse {
                        id: "w1".into(),
                        name: "Write".into(),
                        input: json!({"file_path": notes.to_str().unwrap(), "content": "tidied\n"}),
                    },
                    Block::ToolUse {
                        id: "b1".into(),
                        name: "Bash".into(),
                        input: json!({"command": "rm junk.txt"}),
                    },
                ])
                .when(move |r| sub(r) && !r.has_tool_result("w1")),
            )
            .turn(verdict("Write", "allow", "notes were asked for"))
            .turn(verdict("Bash", "deny", "Deleting files was not requested."))
            .turn(Turn::text("tidied up").when(move |r| sub(r) && r.has_tool_result("b1")))
            .turn(Turn::text("all done").when(move |r| !sub(r) && r.has_tool_result("a1"))),
    );
    let mut s = sb.stream(
        &server,
        &["--permission-mode", "auto", "--small-model", "small-model"],
    );
    s.send_user("please tidy up");
    let result = s.wait_for("the lead's result, or a permission prompt", |v| {
        v["type"] == "result" || is_permission_prompt(v)
    });
    if is_permission_prompt(&result) {
        // Nobody will answer it: stop the session before failing.
        let _ = s.child.kill();
        panic!("asked the user: {result:#}");
    }
    assert_eq!(result["result"], "all done");
    let (code, seen) = s.finish();
    assert_eq!(code, 0);
    assert!(!seen.iter().any(is_permission_prompt), "{seen:#?}");

    // The allowed write ran, the denied rm did not.
    assert_eq!(std::fs::read_to_string(&notes).unwrap(), "tidied\n");
    assert_eq!(std::fs::read_to_string(&junk).unwrap(), "keep me\n");

    // Both reviews judged the sub-agent's own conversation.
    let reqs = server.requests();
    let reviews: Vec<&RecordedRequest> = reqs.iter().filter(|r| is_classifier(r)).collect();
    assert_eq!(reviews.len(), 2);
    assert!(reviews.iter().all(|r| r.model() == "small-model"
        && r.contains_text("SUBTASK: tidy the project")
        && !r.contains_text("please tidy up")));

    // The sub-agent's model got the denial as its tool result.
    let last_sub = reqs.iter().rfind(|r| sub(r)).unwrap();
    assert!(!result_of(last_sub, "w1").1);
    let (denied, is_error) = result_of(last_sub, "b1");
    assert!(is_error, "{denied}");
    assert!(
        denied.starts_with("Auto mode denied this action: Deleting files was not requested."),
        "{denied}"
    );
}

#[test]
fn a_teammate_started_in_auto_is_judged_by_the_classifier() {
    let sb = Sandbox::new();
    sb.user_settings(ENABLED);
    let hello = sb.project().join("hello.txt");
    let amy = |r: &RecordedRequest| !is_classifier(r) && r.system_text().contains("You are 'amy'");
    let server = common::mock(
        Script::new()
            .turn(
                common::team_create(
                    "tc",
                    json!([{"name": "amy", "prompt": "Please write hello.txt", "mode": "auto"}]),
                )
                .when(move |r| !amy(r) && !is_classifier(r) && !r.has_tool_result("tc")),
            )
            .turn(Turn::text("Team started.").when(move |r| !amy(r) && r.has_tool_result("tc")))
            .turn(
                common::write("amy-w", hello.to_str().unwrap(), "hi\n")
                    .when(move |r| amy(r) && !r.has_tool_result("amy-w")),
            )
            .turn(verdict("Write", "allow", "the lead asked for hello.txt"))
            .turn(Turn::text("finished").when(move |r| amy(r) && r.has_tool_result("amy-w"))),
    );
    // The lead itself stays in default mode; only the teammate is in auto.
    let mut s = sb.stream(&server, &["--small-model", "small-model"]);
    s.send_user("start a team for the greeting");
    // A teammate in a wider mode than the lead's is the user's to grant:
    // the one prompt of the run.
    let ask = s.wait_for("the TeamCreate prompt", is_permission_prompt);
    assert_eq!(ask["request"]["tool_name"], "TeamCreate", "{ask:#}");
    s.send(json!({"type": "control_response", "response": {
        "subtype": "success", "request_id": ask["request_id"],
        "response": {"behavior": "allow", "updatedInput": ask["request"]["input"]}}}));
    let amy_write_result = |v: &Value| {
        v["subtype"] == "teammate_message" && v["message"]["content"][0]["tool_use_id"] == "amy-w"
    };
    let decided = s.wait_for("amy's Write result, or a permission prompt", |v| {
        amy_write_result(v) || is_permission_prompt(v)
    });
    if is_permission_prompt(&decided) {
        let _ = s.child.kill();
        panic!("asked the user: {decided:#}");
    }
    assert_eq!(decided["message"]["content"][0]["is_error"], json!(null));
    let (code, seen) = s.finish();
    assert_eq!(code, 0);
    assert_eq!(
        seen.iter().filter(|v| is_permission_prompt(v)).count(),
        1,
        "{seen:#?}"
    );
    assert_eq!(std::fs::read_to_string(&hello).unwrap(), "hi\n");
    let reviews: Vec<RecordedRequest> = server
        .requests()
        .into_iter()
        .filter(is_classifier)
        .collect();
    assert_eq!(reviews.len(), 1);
    assert!(reviews[0].contains_text("Please write hello.txt"));
}

#[test]
fn the_classifier_timeout_comes_from_settings() {
    let sb = Sandbox::new();
    sb.user_settings(r#"{"autoMode": {"enabled": true, "classifierTimeoutMs": 200}}"#);
    let notes = sb.project().join("notes.txt");
    let server = common::mock(
        Script::new()
            .turn(common::write("w1", notes.to_str().unwrap(), "x\n").when_model("test-model"))
            // Well within the 15 s default, well beyond the 200 ms set.
            .turn(verdict("Write", "allow", "too late").delay(Duration::from_secs(3)))
            .turn(Turn::text("ok").when_model("test-model")),
    );
    let out = sb.run(
        &server,
        [
            "-p",
            "write notes",
            "--permission-mode",
            "auto",
            "--small-model",
            "small-model",
        ],
    );
    common::assert_ok(&out);
    // Nobody can answer in `-p`, so the fallback to asking is a denial
    // that says why.
    assert!(!notes.exists(), "the late allow must be ignored");
    let last = server
        .requests()
        .into_iter()
        .rfind(|r| r.model() == "test-model")
        .unwrap();
    let (text, is_error) = result_of(&last, "w1");
    assert!(is_error, "{text}");
    common::assert_contains(&text, "did not answer within 0.2 s");
}

#[test]
fn a_bad_classifier_timeout_is_reported() {
    let sb = Sandbox::new();
    let settings = sb.write(
        ".catui/settings.json",
        r#"{"autoMode": {"enabled": true, "classifierTimeoutMs": -1}}"#,
    );
    let server = common::mock(Script::new().turn(Turn::text("hi")));
    let out = sb.run(&server, ["-p", "hi"]);
    assert_eq!(out.status.code(), Some(0));
    let err = common::stderr(&out);
    assert!(
        err.contains(&settings.display().to_string())
            && err.contains("`autoMode.classifierTimeoutMs`")
            && err.contains("positive whole number of milliseconds"),
        "{err}"
    );
}
