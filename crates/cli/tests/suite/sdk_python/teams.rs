//! `teammatePlanApprover: "user"` through the official Python Agent SDK
//! (issue 51 item 5): the lead starts a plan-required teammate, the
//! teammate writes its plan and calls ExitPlanMode, and the approval
//! reaches the SDK's own `can_use_tool` callback marked with the teammate's
//! name. What the callback answers decides what the teammate does (it
//! implements, or revises its plan with the person's message), and the lead
//! model is told each outcome. Scenarios in `tests/sdk/team_scenarios.py`;
//! run like the rest of `sdk_python` (ignored, needs the SDK venv).

use catui_testkit::MockServer;
use serde_json::{Value, json};

use super::scenario_in;
use crate::common;
use crate::common::team_plan::{FEEDBACK, PLAN, REVISED, lead_told, rejected, team_script};
use crate::common::{Sandbox, is_teammate, last_user};

/// Starts the team under `teammatePlanApprover: "user"` and runs `name`.
fn run(name: &str) -> (Sandbox, MockServer, Value, String) {
    let sb = Sandbox::new();
    sb.user_settings(r#"{"teammatePlanApprover": "user", "planGoal": false, "planDrift": "note"}"#);
    let plans_dir = common::plans_dir(&sb);
    let feature = sb.project().join("feature.txt");
    let feature = feature.to_str().unwrap().to_string();
    let server = common::mock(team_script(&plans_dir, &feature));
    let facts = scenario_in(
        &sb,
        &server,
        "team_scenarios.py",
        name,
        &[("FEATURE", &feature)],
    );
    (sb, server, facts, plans_dir)
}

/// One `can_use_tool` call as the callback recorded it: the teammate's
/// plan, marked with its name, asked before anything was written.
fn assert_asked_for(asked: &Value, plan: &str, plans_dir: &str) {
    assert_eq!(asked["tool"], "ExitPlanMode", "{asked}");
    assert_eq!(asked["agent_id"], "amy@core", "{asked}");
    assert_eq!(asked["input"]["teammate"], "amy", "{asked}");
    assert_eq!(asked["input"]["team"], "core", "{asked}");
    assert_eq!(asked["input"]["plan"], plan, "{asked}");
    let path = asked["input"]["planFilePath"].as_str().unwrap();
    assert!(path.starts_with(plans_dir), "{asked}");
    assert_eq!(
        asked["feature_before"], false,
        "nothing may change before approval"
    );
}

/// What the lead model was told, in order.
fn told_to_lead(server: &MockServer) -> Vec<String> {
    server
        .requests()
        .iter()
        .filter(|r| lead_told(r))
        .map(last_user)
        .collect()
}

#[test]
#[ignore = "needs the Python SDK venv; .ci/run runs it"]
fn a_teammates_plan_reaches_can_use_tool_and_its_allow_lets_the_teammate_implement() {
    let (_sb, server, facts, plans_dir) = run("teammate_plan_allowed");
    let asked = facts["asked"].as_array().unwrap();
    assert_eq!(asked.len(), 1, "{facts}");
    assert_asked_for(&asked[0], PLAN, &plans_dir);
    // The teammate carried the plan out.
    assert_eq!(facts["feature"], "feature\n", "{facts}");
    // The lead heard the outcome, in a turn the SDK saw end.
    assert_eq!(facts["first"], "Team started.", "{facts}");
    assert!(
        facts["lead"]
            .as_array()
            .unwrap()
            .contains(&json!("Noted: first outcome.")),
        "{facts}"
    );
    let told = told_to_lead(&server);
    assert_eq!(told.len(), 1, "{told:?}");
    assert!(
        told[0].contains("amy@core") && told[0].contains("approved it"),
        "{told:?}"
    );
    // The teammate was never rejected.
    assert!(
        !server
            .requests()
            .iter()
            .any(|r| is_teammate(r, "amy") && rejected(r)),
        "the teammate was told of a rejection"
    );
}

#[test]
#[ignore = "needs the Python SDK venv; .ci/run runs it"]
fn a_teammates_plan_denied_in_can_use_tool_is_revised_with_the_message_then_allowed() {
    let (_sb, server, facts, plans_dir) = run("teammate_plan_denied_then_allowed");
    let asked = facts["asked"].as_array().unwrap();
    assert_eq!(asked.len(), 2, "{facts}");
    assert_asked_for(&asked[0], PLAN, &plans_dir);
    // The deny sent the teammate back to planning with the person's words.
    let rejection = server
        .requests()
        .iter()
        .find(|r| is_teammate(r, "amy") && rejected(r))
        .map(last_user)
        .expect("the teammate never heard of the rejection");
    common::assert_contains(&rejection, FEEDBACK);
    // Its revised plan was the one asked about next, and then carried out.
    assert_asked_for(&asked[1], REVISED, &plans_dir);
    assert_eq!(facts["feature"], "feature\n", "{facts}");
    // The lead heard both outcomes, the feedback with the first.
    let told = told_to_lead(&server);
    assert_eq!(told.len(), 2, "{told:?}");
    assert!(
        told[0].contains("amy@core")
            && told[0].contains("rejected it")
            && told[0].contains(FEEDBACK),
        "{told:?}"
    );
    assert!(told[1].contains("approved it"), "{told:?}");
}
