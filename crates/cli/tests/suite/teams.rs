//! Teams through the real binary: the lead model starts a teammate, the
//! teammate works on its own conversation (which the stream-json client
//! follows) and reports back by mailbox.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use catui_testkit::{Script, Turn};
use common::team_plan::{amy_implements, amy_plans_then_revises, rejected};
use common::{Sandbox, is_teammate, last_user};
use serde_json::json;

#[test]
fn a_teammate_works_and_reports_to_the_lead() {
    let sb = Sandbox::new();
    let hello = sb.project().join("hello.txt");
    let hello_path = hello.to_str().unwrap().to_string();
    let server = common::mock(
        Script::new()
            .turn(
                common::team_create("tc", json!([{"name": "amy", "prompt": "Please write hello.txt", "mode": "acceptEdits"}]))
                .when(|r| last_user(r).contains("start a team")),
            )
            .turn(
                common::write("amy-w", &hello_path, "hi from amy\n")
                    .when(|r| last_user(r).contains("Please write hello.txt") && !r.has_tool_result("amy-w")),
            )
            .turn(
                common::send_message("amy-s", "team-lead", "done: hello.txt written")
                    .when(|r| r.has_tool_result("amy-w") && !r.has_tool_result("amy-s")),
            )
            .turn(Turn::text("finished").when(|r| r.has_tool_result("amy-s")))
            .turn(Turn::text("Team started.").when(|r| r.has_tool_result("tc") && !last_user(r).contains("done: hello")))
            .turn(Turn::text("Thanks, amy.").when(|r| last_user(r).contains("done: hello.txt written"))),
    );
    let mut s = sb.stream(&server, &["--permission-mode", "acceptEdits"]);
    s.send_user("start a team for the greeting");
    assert_eq!(s.wait_type("result")["result"], "Team started.");
    // The teammate's message arrives as the lead's next input.
    let r = s.wait_for("the lead's answer to amy", |v| {
        v["type"] == "result" && v["result"] == "Thanks, amy."
    });
    assert_eq!(r["subtype"], "success");
    // Amy's lines are relayed by a task of their own, so they need not come
    // before the lead's result: wait for the last of them if still missing.
    let amy_result = |v: &serde_json::Value| {
        v["subtype"] == "teammate_message" && v["message"]["content"][0]["tool_use_id"] == "amy-w"
    };
    if !s.seen.iter().any(amy_result) {
        s.wait_for("amy's Write result", amy_result);
    }
    let (code, seen) = s.finish();
    assert_eq!(code, 0);
    assert_eq!(std::fs::read_to_string(&hello).unwrap(), "hi from amy\n");
    // The client follows amy's own conversation: her Write call...
    let amy_lines: Vec<&serde_json::Value> = seen
        .iter()
        .filter(|v| v["type"] == "system" && v["subtype"] == "teammate_message")
        .collect();
    assert!(
        amy_lines.iter().all(|v| v["agent_id"] == "amy@core"
            && v["session_id"].is_string()
            && v.get("parent_tool_use_id").is_none()),
        "{amy_lines:#?}"
    );
    let write = amy_lines
        .iter()
        .find(|v| v["message"]["content"][0]["id"] == "amy-w")
        .unwrap_or_else(|| panic!("no teammate_message with amy's Write: {seen:#?}"));
    assert_eq!(write["message"]["role"], "assistant");
    assert_eq!(write["message"]["content"][0]["type"], "tool_use");
    assert_eq!(write["message"]["content"][0]["name"], "Write");
    assert_eq!(
        write["message"]["content"][0]["input"]["file_path"],
        hello_path.as_str()
    );
    // ...and its result,
    assert!(
        amy_lines.iter().any(|v| v["message"]["role"] == "user"
            && v["message"]["content"][0]["type"] == "tool_result"
            && v["message"]["content"][0]["tool_use_id"] == "amy-w"),
        "{amy_lines:#?}"
    );
    // none of which is taken for the lead's own messages.
    assert!(
        !seen
            .iter()
            .any(|v| v["type"] == "assistant" && v["message"]["content"][0]["id"] == "amy-w")
    );
    // What amy told the lead is shown to the user too, once.
    let told: Vec<&serde_json::Value> = seen
        .iter()
        .filter(|v| v["subtype"] == "notification" && v["key"] == "teammate-message")
        .collect();
    assert_eq!(told.len(), 1, "{seen:#?}");
    assert_eq!(told[0]["text"], "amy@core: done: hello.txt written");
    let inbox = sb.config().join("teams/core/inboxes/team-lead.json");
    let mail: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(inbox).unwrap()).unwrap();
    assert_eq!(mail[0]["from"], "amy");
    assert!(
        mail[0]["text"]
            .as_str()
            .unwrap()
            .contains("done: hello.txt written")
    );
}

#[test]
fn a_stream_json_client_reviews_a_teammates_plan() {
    let sb = Sandbox::new();
    let plans_dir = common::plans_dir(&sb);
    let feature = sb.project().join("feature.txt");
    let feature_path = feature.to_str().unwrap().to_string();
    let lead = Script::new()
            // The lead starts amy, who must have her plan approved.
            .turn(
                common::team_create("tc", json!([{"name": "amy", "prompt": "Please add feature.txt", "mode": "acceptEdits", "planModeRequired": true}]))
                .when(|r| !is_teammate(r, "amy") && last_user(r).contains("start a team")),
            )
            .turn(Turn::text("Team started.").when(move |r| !is_teammate(r, "amy") && r.has_tool_result("tc")));
    // Amy's first plan; rejected with feedback, she revises and submits again.
    let amy = amy_plans_then_revises(
        lead,
        &plans_dir,
        "# Plan\n\n1. Write feature.txt\n",
        "# Plan v2\n\n1. Write feature.txt\n2. Test it\n",
    );
    // Approved: amy implements.
    let server = common::mock(amy_implements(amy, &feature_path));
    let mut s = sb.stream(&server, &["--permission-mode", "acceptEdits"]);
    s.send_user("start a team for the feature");

    let is_plan_request = |v: &serde_json::Value| {
        v["type"] == "control_request" && v["request"]["subtype"] == "plan_approval"
    };
    let first = s.wait_for("the first plan_approval", is_plan_request);
    assert_eq!(first["request"]["from"], "amy");
    assert_eq!(first["request"]["team"], "core");
    assert_eq!(first["request"]["plan"], "# Plan\n\n1. Write feature.txt\n");
    let plan_path = first["request"]["plan_file_path"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(plan_path.starts_with(&plans_dir), "{plan_path}");
    assert!(!feature.exists(), "nothing may change before approval");
    s.send(json!({"type": "control_response", "response": {
        "subtype": "success", "request_id": first["request_id"],
        "response": {"behavior": "deny", "message": "Add a test step."}}}));

    let second = s.wait_for("the second plan_approval", is_plan_request);
    assert_ne!(second["request_id"], first["request_id"]);
    assert_ne!(
        second["request"]["plan_request_id"],
        first["request"]["plan_request_id"]
    );
    assert_eq!(
        second["request"]["plan"],
        "# Plan v2\n\n1. Write feature.txt\n2. Test it\n"
    );
    assert_eq!(second["request"]["plan_file_path"], plan_path.as_str());
    assert!(!feature.exists(), "nothing may change before approval");
    s.send(json!({"type": "control_response", "response": {
        "subtype": "success", "request_id": second["request_id"],
        "response": {"behavior": "allow"}}}));

    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    while !feature.exists() && std::time::Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    assert_eq!(std::fs::read_to_string(&feature).unwrap(), "feature\n");
    let (code, seen) = s.finish();
    assert_eq!(code, 0);
    assert_eq!(seen.iter().filter(|v| is_plan_request(v)).count(), 2);
    // The client's feedback reached amy with the rejection.
    let feedback_seen = server
        .requests()
        .iter()
        .any(|r| is_teammate(r, "amy") && rejected(r) && last_user(r).contains("Add a test step."));
    assert!(feedback_seen, "amy never saw the lead's feedback");
}
