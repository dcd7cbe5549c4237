//! Who approves a teammate's plan, and what the approval shows, through the
//! real binary and a stream-json client (issue 51 items 5 and 6):
//! `teammatePlanApprover: "user"` puts a teammate's plan to the person as a
//! `can_use_tool` request for ExitPlanMode marked with the teammate's name
//! (what the SDK hands to its `can_use_tool` callback), and tells the lead
//! model the outcome; a plan naming files of another teammate's approved
//! plan carries `conflicts` in the request and in the lead's mailbox.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use catui_testkit::{RecordedRequest, Script, Turn};
use common::team_plan::amy_implements;
use common::{Sandbox, is_teammate, last_user};
use serde_json::{Value, json};

/// Waits (at most 30 s) for `done`; the assertions after it say what was
/// missing.
fn wait_until(done: impl Fn() -> bool) {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    while !done() && std::time::Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
}

/// A request of the lead's conversation (teammates' system prompts name
/// them).
fn is_lead(r: &RecordedRequest) -> bool {
    !r.system_text().contains("You are '")
}

#[test]
fn with_user_as_approver_a_teammates_plan_reaches_can_use_tool_and_the_lead_hears_the_outcome() {
    let sb = Sandbox::new();
    sb.user_settings(r#"{"teammatePlanApprover": "user", "planGoal": false, "planDrift": "note"}"#);
    let plans_dir = common::plans_dir(&sb);
    let feature = sb.project().join("feature.txt");
    let feature_path = feature.to_str().unwrap().to_string();
    let approved = |r: &RecordedRequest| last_user(r).contains("approved your plan");
    let lead_told = |r: &RecordedRequest| last_user(r).contains("the user reviewed it");
    let server = common::mock(amy_implements(
        Script::new()
            .turn(
                common::team_create("tc", json!([{"name": "amy", "prompt": "Please add feature.txt", "mode": "acceptEdits", "planModeRequired": true}]))
                .when(|r| !is_teammate(r, "amy") && last_user(r).contains("start a team")),
            )
            .turn(
                Turn::text("Team started.")
                    .when(move |r| !is_teammate(r, "amy") && r.has_tool_result("tc") && !lead_told(r)),
            )
            .turn(Turn::text("Noted: amy is implementing.").when(move |r| !is_teammate(r, "amy") && lead_told(r)))
            .turn(
                common::teammate_writes_plan("amy", "w1", &plans_dir, "# Plan\n\n1. Write feature.txt\n"),
            )
            .turn(
                common::teammate_presents("amy", "w1", "x1"),
            )
            .turn(
                Turn::text("Waiting for approval.")
                    .when(move |r| is_teammate(r, "amy") && r.has_tool_result("x1") && !approved(r)),
            )
,
        &feature_path,
    ));
    let mut s = sb.stream(&server, &["--permission-mode", "acceptEdits"]);
    s.send_user("start a team for the feature");

    let is_plan_prompt = |v: &Value| {
        v["type"] == "control_request"
            && v["request"]["subtype"] == "can_use_tool"
            && v["request"]["tool_name"] == "ExitPlanMode"
    };
    let ask = s.wait_for("the teammate's plan as can_use_tool", is_plan_prompt);
    assert_eq!(ask["request"]["agent_id"], "amy@core");
    assert_eq!(ask["request"]["input"]["teammate"], "amy");
    assert_eq!(ask["request"]["input"]["team"], "core");
    assert_eq!(
        ask["request"]["input"]["plan"],
        "# Plan\n\n1. Write feature.txt\n"
    );
    assert!(
        ask["request"]["input"]["planFilePath"]
            .as_str()
            .unwrap()
            .starts_with(&plans_dir)
    );
    assert!(!feature.exists(), "nothing may change before approval");
    s.send(json!({"type": "control_response", "response": {
        "subtype": "success", "request_id": ask["request_id"],
        "response": {"behavior": "allow", "updatedInput": ask["request"]["input"]}}}));

    wait_until(|| feature.exists());
    assert_eq!(std::fs::read_to_string(&feature).unwrap(), "feature\n");
    // The lead model is told what the person decided.
    wait_until(|| {
        server
            .requests()
            .iter()
            .any(|r| !is_teammate(r, "amy") && lead_told(r))
    });
    let (code, seen) = s.finish();
    assert_eq!(code, 0);
    // The person was asked, not the catui-specific plan_approval request.
    assert!(
        !seen
            .iter()
            .any(|v| v["type"] == "control_request" && v["request"]["subtype"] == "plan_approval"),
        "a plan_approval request was sent although the user approves"
    );
    let told = server
        .requests()
        .iter()
        .find(|r| !is_teammate(r, "amy") && lead_told(r))
        .map(last_user)
        .expect("the lead model was never told the outcome");
    assert!(
        told.contains("amy@core") && told.contains("approved it"),
        "{told}"
    );
    // Amy hears that the person decided, not the lead.
    let amy_told = server
        .requests()
        .iter()
        .find(|r| is_teammate(r, "amy") && approved(r))
        .map(last_user)
        .expect("amy was never told her plan was approved");
    assert!(
        amy_told.contains("The user approved your plan") && !amy_told.contains("team lead"),
        "{amy_told}"
    );
}

#[test]
fn a_plan_touching_files_of_another_teammates_approved_plan_lists_the_conflict() {
    let sb = Sandbox::new();
    sb.user_settings(r#"{"planGoal": false, "planDrift": "note"}"#);
    let plans_dir = common::plans_dir(&sb);
    let approved = |r: &RecordedRequest| last_user(r).contains("approved your plan");
    let rejected = |r: &RecordedRequest| last_user(r).contains("rejected your plan");
    let server = common::mock(
        Script::new()
            // The lead starts amy; later, asked again, bob in the same team.
            .turn(
                common::team_create("tc1", json!([{"name": "amy", "prompt": "Add a --json flag", "planModeRequired": true}]))
                .when(|r| is_lead(r) && last_user(r).contains("start amy")),
            )
            .turn(Turn::text("amy started.").when(|r| {
                is_lead(r) && r.has_tool_result("tc1") && !r.has_tool_result("tc2") && !last_user(r).contains("start bob")
            }))
            .turn(
                common::team_create("tc2", json!([{"name": "bob", "prompt": "Add a --yaml flag", "planModeRequired": true}]))
                .when(|r| is_lead(r) && last_user(r).contains("start bob")),
            )
            .turn(Turn::text("bob started.").when(|r| is_lead(r) && r.has_tool_result("tc2")))
            // Amy's plan names src/cli.rs and README.md.
            .turn(
                common::teammate_writes_plan("amy", "aw", &plans_dir, "# Add --json\n\n1. Parse --json in `src/cli.rs`\n2. Document it in README.md\n"),
            )
            .turn(
                common::teammate_presents("amy", "aw", "ax"),
            )
            .turn(Turn::text("Waiting.").when(move |r| is_teammate(r, "amy") && r.has_tool_result("ax") && !approved(r)))
            .turn(Turn::text("Implementing.").when(move |r| is_teammate(r, "amy") && approved(r)))
            // Bob's plan names src/cli.rs too, and docs/yaml.md.
            .turn(
                common::teammate_writes_plan("bob", "bw", &plans_dir, "# Add --yaml\n\n1. Parse --yaml in src/cli.rs\n2. Write docs/yaml.md\n"),
            )
            .turn(
                common::teammate_presents("bob", "bw", "bx"),
            )
            .turn(Turn::text("Waiting.").when(move |r| is_teammate(r, "bob") && r.has_tool_result("bx") && !rejected(r)))
            .turn(Turn::text("Revising.").when(move |r| is_teammate(r, "bob") && rejected(r))),
    );
    let mut s = sb.stream(&server, &[]);
    let is_plan_request =
        |v: &Value| v["type"] == "control_request" && v["request"]["subtype"] == "plan_approval";
    s.send_user("start amy");
    let amy = s.wait_for("amy's plan", is_plan_request);
    assert_eq!(amy["request"]["from"], "amy");
    // Nobody else has a plan yet: no conflicts.
    assert!(amy["request"].get("conflicts").is_none(), "{amy}");
    let amy_slug = std::path::Path::new(amy["request"]["plan_file_path"].as_str().unwrap())
        .file_stem()
        .unwrap()
        .to_string_lossy()
        .into_owned();
    s.send(json!({"type": "control_response", "response": {
        "subtype": "success", "request_id": amy["request_id"],
        "response": {"behavior": "allow"}}}));
    // Amy's plan counts as approved once she hears so.
    wait_until(|| {
        server
            .requests()
            .iter()
            .any(|r| is_teammate(r, "amy") && approved(r))
    });

    s.send_user("start bob");
    let bob = s.wait_for("bob's plan", |v| {
        is_plan_request(v) && v["request"]["from"] == "bob"
    });
    assert_eq!(
        bob["request"]["conflicts"],
        json!([{"file": "src/cli.rs", "plan": amy_slug, "teammate": "amy"}])
    );
    s.send(json!({"type": "control_response", "response": {
        "subtype": "success", "request_id": bob["request_id"],
        "response": {"behavior": "deny", "message": "Wait for amy."}}}));
    wait_until(|| {
        server
            .requests()
            .iter()
            .any(|r| is_teammate(r, "bob") && rejected(r))
    });
    let (code, _) = s.finish();
    assert_eq!(code, 0);
    // Without `teammatePlanApprover: "user"` the answer is the lead's.
    let heard = |who: &str, verdict: fn(&RecordedRequest) -> bool| {
        server
            .requests()
            .iter()
            .find(|r| is_teammate(r, who) && verdict(r))
            .map(last_user)
            .unwrap_or_else(|| panic!("{who} was never told the verdict"))
    };
    let amy_told = heard("amy", |r| last_user(r).contains("approved your plan"));
    assert!(
        amy_told.contains("The team lead approved your plan"),
        "{amy_told}"
    );
    let bob_told = heard("bob", |r| last_user(r).contains("rejected your plan"));
    assert!(
        bob_told.contains("The team lead rejected your plan")
            && bob_told.contains("The lead's feedback:\nWait for amy."),
        "{bob_told}"
    );

    // The lead's mailbox message carries the same list.
    let inbox = sb.config().join("teams/core/inboxes/team-lead.json");
    let mail: Value = serde_json::from_str(&std::fs::read_to_string(&inbox).unwrap()).unwrap();
    let bobs: Value = mail
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["from"] == "bob")
        .map(|m| serde_json::from_str::<Value>(m["text"].as_str().unwrap()).unwrap())
        .find(|t| t["type"] == "plan_approval_request")
        .expect("bob's request in the lead's inbox");
    assert_eq!(
        bobs["conflicts"],
        json!([{"file": "src/cli.rs", "plan": amy_slug, "teammate": "amy"}])
    );
}
