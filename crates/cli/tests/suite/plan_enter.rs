//! Entering plan mode and who may plan: EnterPlanMode's consent (declined,
//! failing closed, a strict schema), sub-agents and custom agents in plan
//! mode judged by their tools, and a lead's teammates at approval. The real
//! binary against the testkit mock model, real plan files in temp dirs.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use catui_testkit::{Script, Turn};
use common::{Sandbox, is_teammate, last_user, result_of, writes_plan_then_exits};
use serde_json::{Value, json};

/// A lead that can start teammates is told it may split the work.
#[test]
fn approval_suggests_teammates_to_a_lead() {
    let sb = Sandbox::new();
    let plans_dir = common::plans_dir(&sb);
    let server = common::mock(
        writes_plan_then_exits(&plans_dir, "# Plan\n\n1. a\n2. b\n").turn(Turn::text("ok")),
    );
    let mut s = sb.stream(&server, &["--permission-mode", "plan"]);
    s.send_user("plan it");
    let ask = s.wait_type("control_request");
    s.send(common::allow_request(
        ask["request_id"].as_str().unwrap(),
        ask["request"]["input"].clone(),
    ));
    s.wait_type("result");
    s.finish();
    let reqs = server.requests();
    assert!(reqs[0].tool_names().iter().any(|t| t == "TeamCreate"));
    let (text, is_error) = result_of(&reqs[2], "x");
    assert!(!is_error, "{text}");
    common::assert_contains(&text, "starting teammates");
}

/// A teammate that is not in plan mode calling ExitPlanMode
/// changes nothing.
#[test]
fn exit_plan_mode_outside_plan_mode_changes_nothing_for_a_teammate() {
    let sb = Sandbox::new();
    let done = sb.project().join("done.txt");
    let done_path = done.to_str().unwrap().to_string();
    let server = common::mock(
        Script::new()
            .turn(
                common::team_create(
                    "tc",
                    json!([{"name": "amy", "prompt": "Please do it", "mode": "acceptEdits"}]),
                )
                .when(|r| !is_teammate(r, "amy") && last_user(r).contains("start a team")),
            )
            .turn(
                Turn::text("Team started.")
                    .when(|r| !is_teammate(r, "amy") && r.has_tool_result("tc")),
            )
            .turn(
                common::exit_plan("ax").when(|r| is_teammate(r, "amy") && !r.has_tool_result("ax")),
            )
            .turn(common::write("aw", &done_path, "done\n").when(|r| {
                is_teammate(r, "amy") && r.has_tool_result("ax") && !r.has_tool_result("aw")
            }))
            .turn(
                Turn::text("finished").when(|r| is_teammate(r, "amy") && r.has_tool_result("aw")),
            ),
    );
    let mut s = sb.stream(&server, &["--permission-mode", "acceptEdits"]);
    s.send_user("start a team");
    assert_eq!(s.wait_type("result")["result"], "Team started.");
    let wrote = |v: &Value| {
        v["subtype"] == "teammate_message" && v["message"]["content"][0]["tool_use_id"] == "aw"
    };
    s.wait_for("amy's Write result", wrote);
    let (_, seen) = s.finish();
    // Amy stayed in acceptEdits: her write ran without a prompt.
    assert!(
        !seen.iter().any(|v| v["type"] == "control_request"),
        "{seen:#?}"
    );
    assert_eq!(std::fs::read_to_string(&done).unwrap(), "done\n");
    let amy = server
        .requests()
        .into_iter()
        .find(|r| is_teammate(r, "amy") && r.has_tool_result("ax"))
        .unwrap();
    let (text, is_error) = result_of(&amy, "ax");
    assert!(!is_error, "{text}");
    common::assert_contains(&text, "nothing was changed");
    assert!(!seen.iter().any(
        |v| v["subtype"] == "teammate_message" && v["message"]["subtype"] == "permission_mode"
    ),);
}

/// EnterPlanMode asks the user; declining keeps the mode, and the
/// model is told so. Even bypassPermissions does not skip the question.
#[test]
fn entering_plan_mode_can_be_declined() {
    let (sb, server) = common::with_mock(
        Script::new()
            .turn(Turn::tool_use("e", "EnterPlanMode", json!({})))
            .turn(Turn::text("Implementing directly.")),
    );
    let mut s = sb.stream(&server, &["--permission-mode", "bypassPermissions"]);
    s.send_user("rename a variable");
    let ask = s.wait_type("control_request");
    assert_eq!(ask["request"]["tool_name"], "EnterPlanMode");
    assert!(ask["request"]["input"]["reason"].is_null());
    s.send(
        json!({"type":"control_response","response":{"subtype":"success",
        "request_id": ask["request_id"],
        "response":{"behavior":"deny","message":"too small to plan"}}}),
    );
    let r = s.wait_type("result");
    assert_eq!(r["result"], "Implementing directly.");
    assert_eq!(r["permission_mode"], "bypassPermissions");
    let (_, seen) = s.finish();
    assert!(!seen.iter().any(|v| v["subtype"] == "permission_mode"));
    let (text, is_error) = result_of(&server.requests()[1], "e");
    assert!(is_error);
    assert!(
        text.starts_with("The user declined to enter plan mode.")
            && text.contains("too small to plan"),
        "{text}"
    );
}

/// Failing closed: an error answer, or a client that goes away
/// without answering, leaves the mode as it was.
#[test]
fn entering_plan_mode_fails_closed() {
    let (sb, server) = common::with_mock(
        Script::new()
            .turn(Turn::tool_use("e1", "EnterPlanMode", json!({})))
            .turn(Turn::text("Not planning."))
            .turn(Turn::tool_use("e2", "EnterPlanMode", json!({})))
            .turn(Turn::text("Still not planning.")),
    );
    let mut s = sb.stream(&server, &[]);
    s.send_user("rework the storage");
    let ask = s.wait_type("control_request");
    assert_eq!(ask["request"]["tool_name"], "EnterPlanMode");
    s.send(
        json!({"type":"control_response","response":{"subtype":"error",
        "request_id": ask["request_id"], "error":"the client crashed"}}),
    );
    let r = s.wait_type("result");
    assert_eq!(r["permission_mode"], "default");
    s.send_user("try again");
    let ask = s.wait_type("control_request");
    assert_eq!(ask["request"]["tool_name"], "EnterPlanMode");
    // The client goes away with the question open.
    let (_, seen) = s.finish();
    assert!(
        !seen
            .iter()
            .any(|v| v["subtype"] == "permission_mode" && v["mode"] == "plan"),
        "{seen:#?}"
    );
    let reqs = server.requests();
    let (text, is_error) = result_of(&reqs[1], "e1");
    assert!(
        is_error && text.starts_with("The user declined to enter plan mode."),
        "{text}"
    );
    if let Some(last) = reqs.get(3) {
        let (text, is_error) = result_of(last, "e2");
        assert!(is_error, "{text}");
    }
    let transcript = std::fs::read_to_string(&sb.transcripts()[0]).unwrap();
    assert!(
        !transcript.contains("\"mode\":\"plan\""),
        "plan mode was recorded: {transcript}"
    );
}

/// EnterPlanMode's schema is strict (no fields for the model) and
/// a sub-agent gets the agent-context error.
#[test]
fn enter_plan_mode_schema_is_strict() {
    let (sb, server) = common::with_mock(
        Script::new()
            .turn(Turn::tool_use(
                "e",
                "EnterPlanMode",
                json!({"reason": "mine"}),
            ))
            .turn(Turn::text("ok")),
    );
    let mut s = sb.stream(&server, &[]);
    s.send_user("go");
    let r = s.wait_type("result");
    assert_eq!(r["permission_mode"], "default");
    let (_, seen) = s.finish();
    assert!(!seen.iter().any(|v| v["type"] == "control_request"));
    let reqs = server.requests();
    let tool = common::offered_tool(&reqs[0], "EnterPlanMode").clone();
    assert_eq!(tool["input_schema"]["properties"], json!({}), "{tool}");
    let (text, is_error) = result_of(&reqs[1], "e");
    assert!(
        is_error && text.contains("unknown field `reason`"),
        "{text}"
    );
}

/// In plan mode, whether an agent may start is decided from its
/// tools: a custom agent that only reads runs, one that can edit is
/// refused, and `tools: *` does not count as reading only.
#[test]
fn custom_agents_in_plan_mode_are_judged_by_their_tools() {
    let sb = Sandbox::new();
    // The user's own agents (a project's wait for its trust).
    let agents = sb.config().join("agents");
    std::fs::create_dir_all(&agents).unwrap();
    for (file, text) in [
        (
            "reviewer.md",
            "---\nname: reviewer\ndescription: Reviews code\ntools: Read, Grep, Glob\n---\nYou review code and report.\n",
        ),
        (
            "fixer.md",
            "---\nname: fixer\ndescription: Fixes code\ntools: Read, Edit\n---\nYou fix code.\n",
        ),
        (
            "anything.md",
            "---\nname: anything\ndescription: Does anything\ntools: \"*\"\n---\nYou do anything.\n",
        ),
    ] {
        std::fs::write(agents.join(file), text).unwrap();
    }
    let start = |id: &str, kind: &str| common::agent(id, "d", format!("TASK for {kind}"), kind);
    let is_sub = |r: &catui_testkit::RecordedRequest| r.system_text().contains("You review code");
    let server = common::mock(
        Script::new()
            .turn(start("a1", "reviewer").when(move |r| !is_sub(r) && !r.has_tool_result("a1")))
            .turn(Turn::text("REVIEW: all good").when(is_sub))
            .turn(start("a2", "fixer").when(move |r| !is_sub(r) && !r.has_tool_result("a2")))
            .turn(start("a3", "anything").when(move |r| !is_sub(r) && !r.has_tool_result("a3")))
            .turn(Turn::text("planned").when(move |r| !is_sub(r))),
    );
    let mut s = sb.stream(&server, &["--permission-mode", "plan"]);
    s.send_user("plan a review");
    assert_eq!(s.wait_type("result")["result"], "planned");
    s.finish();
    let reqs = server.requests();
    let last = reqs.iter().rfind(|r| !is_sub(r)).unwrap();
    let (review, err) = result_of(last, "a1");
    assert!(!err && review.contains("REVIEW: all good"), "{review}");
    for id in ["a2", "a3"] {
        let (refused, err) = result_of(last, id);
        assert!(
            err && refused.contains("Plan mode is active"),
            "{id}: {refused}"
        );
    }
    // The read-only agent was reminded of plan mode in terms of its tools.
    let sub = reqs.iter().find(|r| is_sub(r)).unwrap();
    let reminder = sub.last_user_text().unwrap();
    common::assert_contains(&reminder, "sub-agent working under plan mode");
    common::assert_lacks(&reminder, "AskUserQuestion");
}

/// A sub-agent cannot enter plan mode; it gets the agent-context
/// error and the session's mode does not change.
#[test]
fn enter_plan_mode_is_refused_inside_a_sub_agent() {
    let sb = Sandbox::new();
    let is_sub = |r: &catui_testkit::RecordedRequest| {
        r.messages()
            .first()
            .is_some_and(|m| m.to_string().contains("SUBTASK"))
    };
    let server = common::mock(
        Script::new()
            .turn(
                common::agent("a", "d", "SUBTASK: look", "general-purpose")
                    .when(move |r| !is_sub(r) && !r.has_tool_result("a")),
            )
            .turn(
                Turn::tool_use("e", "EnterPlanMode", json!({}))
                    .when(move |r| is_sub(r) && !r.has_tool_result("e")),
            )
            .turn(Turn::text("could not plan").when(move |r| is_sub(r)))
            .turn(Turn::text("done").when(move |r| !is_sub(r))),
    );
    let mut s = sb.stream(&server, &[]);
    s.send_user("go");
    assert_eq!(s.wait_type("result")["result"], "done");
    let (_, seen) = s.finish();
    let reqs = server.requests();
    let sub_last = reqs.iter().rfind(|r| is_sub(r)).unwrap();
    let (text, is_error) = result_of(sub_last, "e");
    assert!(is_error, "{text}");
    common::assert_contains(&text, "EnterPlanMode tool cannot be used in agent contexts");
    assert!(
        !seen.iter().any(|v| v["subtype"] == "permission_mode"),
        "the mode did not change"
    );
    assert!(
        !seen.iter().any(|v| v["type"] == "control_request"),
        "nobody was asked"
    );
}
