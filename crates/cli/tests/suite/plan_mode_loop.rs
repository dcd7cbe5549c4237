//! Plan mode, third pass (issue 35, items 11–13): the loop after approval
//! — parking a plan, approving part of it, the planning model — the real
//! binary over stream-json against the testkit mock model.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use catui_testkit::{RecordedRequest, Script, Turn};
use common::{Sandbox, allow, deny, last_user, plans_dir, result_of, writes_plan_then_exits};
use serde_json::json;

/// Item 11: parking a plan leaves plan mode for the mode from before it
/// without approving anything, keeps the plan, tells the model not to
/// implement, ends the input, lists the plan as parked, and `/plan`
/// picks it up again.
#[test]
fn a_parked_plan_is_kept_unapproved_and_picked_up_later() {
    let sb = Sandbox::new();
    let server = common::mock(
        writes_plan_then_exits(&plans_dir(&sb), "# Plan\n1. Rewrite the parser\n")
            .turn(
                Turn::text("Something else, then.")
                    .when(|r| last_user(r).contains("something else")),
            )
            .turn(
                Turn::text("Picking the plan up.").when(|r| last_user(r).contains("where were we")),
            ),
    );
    let mut s = sb.stream(&server, &["--permission-mode", "acceptEdits"]);
    s.send_user("/plan");
    assert_eq!(s.wait_type("result")["result"], "Enabled plan mode");
    s.send_user("plan the parser rewrite");
    let ask = s.wait_type("control_request");
    let plan_file = ask["request"]["input"]["planFilePath"]
        .as_str()
        .unwrap()
        .to_string();
    s.send(deny(
        &ask,
        json!({"message": "after the release", "park": true}),
    ));
    let parked = s.wait_type("result");
    assert_eq!(parked["subtype"], "success");
    assert_eq!(
        parked["permission_mode"], "acceptEdits",
        "the mode from before"
    );
    assert_eq!(
        parked["result"],
        format!("Plan parked, not approved: {plan_file}. Pick it up later with /plan.")
    );
    assert_eq!(server.requests().len(), 2, "the input ended at the park");
    s.send_user("something else");
    assert_eq!(s.wait_type("result")["result"], "Something else, then.");

    // Listed as parked, shown as parked, not exported.
    let slug = std::path::Path::new(&plan_file)
        .file_stem()
        .unwrap()
        .to_string_lossy()
        .to_string();
    let list = sb.bare().args(["plans", "list"]).output().unwrap();
    let list = common::stdout(&list);
    let row = list.lines().find(|l| l.contains(&slug)).unwrap();
    assert!(row.contains("[parked]"), "{list}");
    let show = sb.bare().args(["plans", "show", &slug]).output().unwrap();
    let show = common::stdout(&show);
    assert!(
        show.starts_with("# Plan\n1. Rewrite the parser\n"),
        "{show}"
    );
    common::assert_contains(&show, "Parked at ");
    common::assert_contains(&show, "not approved");

    s.send_user("/plan");
    assert_eq!(s.wait_type("result")["result"], "Enabled plan mode");
    s.send_user("where were we");
    assert_eq!(s.wait_type("result")["result"], "Picking the plan up.");
    s.finish();

    let reqs = server.requests();
    let (text, is_error) = result_of(&reqs[2], "x");
    assert!(!is_error, "{text}");
    common::assert_contains(&text, "parked the plan");
    common::assert_contains(&text, "Nothing was approved");
    common::assert_contains(&text, "do not implement");
    common::assert_contains(&text, "after the release");
    common::assert_lacks(&text, "User has approved");
    assert_eq!(
        std::fs::read_to_string(&plan_file).unwrap(),
        "# Plan\n1. Rewrite the parser\n",
        "the plan is kept"
    );
    // The next input is told that nothing was approved, not "you may edit".
    let next = last_user(&reqs[2]);
    common::assert_contains(&next, "parked the plan");
    common::assert_lacks(&next, "You may now edit files");
    // Back in plan mode, the parked plan is brought back.
    let resumed = last_user(&reqs[3]);
    common::assert_contains(&resumed, "Re-entering Plan Mode");
    common::assert_contains(&resumed, &plan_file);
}

/// Item 12: approving part of a plan: the skipped steps are marked in the
/// approved text, left out of the todos and named in the result; a step
/// that does not exist is refused and nothing is approved.
#[test]
fn approving_part_of_a_plan_skips_the_steps_named() {
    let sb = Sandbox::new();
    // Not about the plan contract: no goal loop after approval.
    sb.user_settings(r#"{"planGoal": false, "planDrift": "note"}"#);
    let server = common::mock(
        writes_plan_then_exits(
            &plans_dir(&sb),
            "# Plan\n\n1. Parse the flag\n2. Print JSON\n3. Add tests\n",
        )
        .turn(common::exit_plan("x2"))
        .turn(Turn::text("Doing steps 1 and 3.")),
    );
    let mut s = sb.stream(&server, &["--permission-mode", "plan"]);
    s.send_user("plan it");
    let ask = s.wait_type("control_request");
    let plan_file = ask["request"]["input"]["planFilePath"]
        .as_str()
        .unwrap()
        .to_string();
    s.send(allow(&ask, json!({"skip_steps": [7]})));
    let ask = s.wait_type("control_request");
    assert_eq!(ask["request"]["tool_use_id"], "x2");
    let mut answer = ask["request"]["input"].clone();
    answer["skip_steps"] = json!([2]);
    answer["mode"] = json!("acceptEdits");
    s.send(allow(&ask, answer));
    let r = s.wait_type("result");
    assert_eq!(r["result"], "Doing steps 1 and 3.");
    assert_eq!(r["permission_mode"], "acceptEdits");
    let (_, seen) = s.finish();
    let reqs = server.requests();
    let (refused, is_error) = result_of(&reqs[2], "x");
    assert!(is_error, "{refused}");
    common::assert_contains(&refused, "there is no step 7");
    common::assert_contains(&refused, "Nothing was approved");
    let (approved, is_error) = result_of(reqs.last().unwrap(), "x2");
    assert!(!is_error, "{approved}");
    common::assert_contains(&approved, "2. ~~Print JSON~~ (skipped by the user)");
    common::assert_contains(&approved, "do not carry it out");
    common::assert_contains(&approved, "\n- Print JSON");
    let todos = seen.iter().find(|v| v["subtype"] == "todos").unwrap();
    let contents: Vec<&str> = todos["todos"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["content"].as_str().unwrap())
        .collect();
    assert_eq!(contents, ["Parse the flag", "Add tests"]);
    assert_eq!(
        std::fs::read_to_string(&plan_file).unwrap(),
        "# Plan\n\n1. Parse the flag\n2. ~~Print JSON~~ (skipped by the user)\n3. Add tests\n"
    );
}

/// Item 13: the planning model plans (plan mode and the Plan agent), the
/// session's model — or the one picked at approval — implements, and the
/// cost is reported per model.
#[test]
fn the_planning_model_plans_and_the_chosen_model_implements() {
    let sb = Sandbox::new();
    // Not about the plan contract: no goal loop after approval.
    sb.user_settings(r#"{"planGoal": false, "planDrift": "note"}"#);
    let sub = |r: &RecordedRequest| {
        r.messages()
            .first()
            .is_some_and(|m| m.to_string().contains("SUBTASK"))
    };
    let dir = plans_dir(&sb);
    let server = common::mock(
        Script::new()
            .turn(
                common::agent("a", "d", "SUBTASK design", "Plan")
                    .when(move |r| !sub(r) && !r.has_tool_result("a")),
            )
            .turn(
                Turn::text("Design: one step.")
                    .when(move |r| sub(r))
                    .usage(10, 5),
            )
            .turn(
                Turn::respond(move |r| {
                    common::write(
                        "p",
                        common::teammate_plan_path(r, &dir),
                        "# Plan\n1. Do it\n",
                    )
                })
                .when(move |r| !sub(r) && !r.has_tool_result("p")),
            )
            .turn(common::exit_plan("x").when(move |r| !sub(r) && !r.has_tool_result("x")))
            .turn(
                Turn::text("Implemented.")
                    .when(move |r| !sub(r))
                    .usage(7, 3),
            ),
    );
    let mut s = sb.stream(
        &server,
        &["--permission-mode", "plan", "--plan-model", "planner-model"],
    );
    s.send_user("plan it");
    let ask = s.wait_type("control_request");
    assert_eq!(
        ask["request"]["input"]["model"], "test-model",
        "who implements"
    );
    let mut answer = ask["request"]["input"].clone();
    answer["model"] = json!("builder-model");
    s.send(allow(&ask, answer));
    let r = s.wait_type("result");
    assert_eq!(r["result"], "Implemented.");
    assert_eq!(r["permission_mode"], "default");
    let usage = r["modelUsage"].as_object().unwrap();
    assert!(usage.contains_key("planner-model"), "{usage:?}");
    assert!(usage.contains_key("builder-model"), "{usage:?}");
    assert!(!usage.contains_key("test-model"), "{usage:?}");
    s.finish();
    let reqs = server.requests();
    let models: Vec<(&str, bool)> = reqs.iter().map(|r| (r.model(), sub(r))).collect();
    assert_eq!(
        models,
        [
            ("planner-model", false),
            ("planner-model", true),
            ("planner-model", false),
            ("planner-model", false),
            ("builder-model", false),
        ]
    );

    // From settings, without a pick at approval: the session's model
    // implements again.
    std::fs::write(
        sb.config().join("settings.json"),
        r#"{"planModel": "settings-planner", "planGoal": false, "planDrift": "note"}"#,
    )
    .unwrap();
    let server = common::mock(
        writes_plan_then_exits(&plans_dir(&sb), "# Plan\n1. Do it\n").turn(Turn::text("Done.")),
    );
    let mut s = sb.stream(&server, &["--permission-mode", "plan"]);
    s.send_user("plan it");
    let ask = s.wait_type("control_request");
    s.send(allow(&ask, ask["request"]["input"].clone()));
    assert_eq!(s.wait_type("result")["result"], "Done.");
    s.finish();
    let models: Vec<String> = server
        .requests()
        .iter()
        .map(|r| r.model().to_string())
        .collect();
    assert_eq!(
        models,
        ["settings-planner", "settings-planner", "test-model"]
    );
}
