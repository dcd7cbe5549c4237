//! What counts as the user's answer to a presented plan, through the real
//! binary over stream-json against the testkit mock model: an answer whose
//! `planHash` cannot be read approves nothing, and an answer that is no
//! decision at all (an unknown behavior, a mode or `skip_steps` that cannot
//! be read, the client's input closing) is never reported to the model as
//! the user rejecting the plan.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use catui_testkit::{MockServer, Turn};
use common::{Sandbox, StreamSession, allow, plans_dir, result_of, writes_plan_then_exits};
use serde_json::{Value, json};

const PLAN: &str = "# Plan\n\n1. Add the flag\n";
const REJECTED: &str = "The user rejected the plan";

/// The results of ExitPlanMode calls `ids`, from the last request that saw
/// each.
fn exit_results(server: &MockServer, ids: &[&str]) -> Vec<(String, bool)> {
    let reqs = server.requests();
    ids.iter()
        .map(|id| {
            let r = reqs
                .iter()
                .rev()
                .find(|r| r.has_tool_result(id))
                .unwrap_or_else(|| panic!("no result for {id}"));
            result_of(r, id)
        })
        .collect()
}

/// A hash that is not a string (a number, a boolean, an object, a list,
/// zero) names no revision: each such answer approves nothing and the
/// session stays in plan mode.
#[test]
fn an_unreadable_plan_hash_approves_nothing() {
    let sb = Sandbox::new();
    let bad = [json!(12345), json!(true), json!({}), json!([]), json!(0)];
    let ids = ["x2", "x3", "x4", "x5"];
    let mut script = writes_plan_then_exits(&plans_dir(&sb), PLAN);
    for id in ids {
        script = script.turn(common::exit_plan(id));
    }
    let server = common::mock(script.turn(Turn::text("Still planning, then.")));
    let mut s = sb.stream(&server, &["--permission-mode", "plan"]);
    s.send_user("plan the flag");
    for hash in &bad {
        let ask = s.wait_for("the approval request", |v| {
            v["type"] == "control_request" && v["request"]["subtype"] == "can_use_tool"
        });
        let mut answer = ask["request"]["input"].clone();
        answer["planHash"] = hash.clone();
        answer["mode"] = json!("acceptEdits");
        s.send(allow(&ask, answer));
    }
    let result = s.wait_type("result");
    assert_eq!(result["result"], "Still planning, then.");
    assert_eq!(result["permission_mode"], "plan", "{result}");
    let (_, seen) = s.finish();
    assert!(
        !seen
            .iter()
            .any(|v| v["subtype"] == "permission_mode" && v["mode"] != "plan"),
        "plan mode ended: {seen:#?}"
    );
    let mut all = vec!["x"];
    all.extend(ids);
    for (text, is_error) in exit_results(&server, &all) {
        assert!(is_error, "{text}");
        common::assert_lacks(&text, "User has approved your plan");
        common::assert_contains(&text, "planHash");
    }
}

/// Answers that carry no decision of the user's: the model is told that
/// nothing was decided (and why), never that the user rejected its plan.
#[test]
fn answers_that_are_no_decision_are_not_reported_as_a_rejection() {
    let sb = Sandbox::new();
    let ids = ["x2", "x3", "x4"];
    let mut script = writes_plan_then_exits(&plans_dir(&sb), PLAN);
    for id in ids {
        script = script.turn(common::exit_plan(id));
    }
    let server = common::mock(script.turn(Turn::text("Waiting for the user.")));
    let mut s = sb.stream(&server, &["--permission-mode", "plan"]);
    s.send_user("plan the flag");
    let respond = |ask: &Value, body: Value| {
        json!({"type":"control_response","response":{"subtype":"success",
            "request_id": ask["request_id"], "response": body}})
    };
    let next = |s: &mut StreamSession| {
        s.wait_for("the approval request", |v| {
            v["type"] == "control_request" && v["request"]["subtype"] == "can_use_tool"
        })
    };
    // An unknown behavior.
    let ask = next(&mut s);
    s.send(respond(
        &ask,
        json!({"behavior": "maybe", "message": "hmm"}),
    ));
    // A mode that is no mode.
    let ask = next(&mut s);
    let mut input = ask["request"]["input"].clone();
    input["mode"] = json!("yolo");
    s.send(allow(&ask, input));
    // skip_steps that is not a list of numbers.
    let ask = next(&mut s);
    let mut input = ask["request"]["input"].clone();
    input["skip_steps"] = json!("2");
    s.send(allow(&ask, input));
    // The client's input closes while the last presentation waits.
    next(&mut s);
    let (code, seen) = s.finish();
    assert_eq!(code, 0, "{seen:#?}");
    let results = exit_results(&server, &["x", "x2", "x3", "x4"]);
    let reasons = ["maybe", "mode", "skip_steps", "withdrawn"];
    for ((text, is_error), reason) in results.iter().zip(reasons) {
        assert!(is_error, "{text}");
        common::assert_lacks(text, REJECTED);
        common::assert_contains(text, "No decision was made on your plan");
        common::assert_contains(text, "still in plan mode");
        assert!(text.contains(reason), "{reason}: {text}");
    }
    // A real rejection still reads as one (the contrast).
    let sb = Sandbox::new();
    let server =
        common::mock(writes_plan_then_exits(&plans_dir(&sb), PLAN).turn(Turn::text("Revising.")));
    let mut s = sb.stream(&server, &["--permission-mode", "plan"]);
    s.send_user("plan the flag");
    let ask = next(&mut s);
    s.send(common::deny(&ask, json!({"message": "add tests"})));
    assert_eq!(s.wait_type("result")["result"], "Revising.");
    s.finish();
    let (text, _) = exit_results(&server, &["x"]).pop().unwrap();
    assert!(
        text.contains(REJECTED) && text.contains("add tests"),
        "{text}"
    );
}
