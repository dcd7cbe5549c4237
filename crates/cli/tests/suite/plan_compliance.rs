//! Did the implementation follow the plan? (issue 35, item 14) Through the
//! real binary over stream-json: after an approval, each turn ends with a
//! `plan_compliance` report (files changed the plan never names, files it
//! names that are untouched, steps done), the model is told once before it
//! ends a turn that drifted, and the report is in the transcript and in
//! `catui plans show`. It runs whether or not checkpoints are on.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use catui_testkit::{Script, Turn};
use common::{Sandbox, plan_path_in};
use serde_json::{Value, json};

const PLAN: &str = "# Plan\n\n1. Change src/a.py\n2. Add tests/test_a.py\n";
const NOTE: &str = "Before you finish";

#[test]
fn each_turn_after_approval_reports_drift_and_the_model_hears_of_it_once() {
    let sb = Sandbox::new();
    // The plan contract (goal loop, drift questions) is not what this
    // test is about: today's note-only behaviour.
    sb.user_settings(r#"{"planGoal": false, "planDrift": "note"}"#);
    let root = sb.project();
    sb.write("src/a.py", "a = 1\n");
    let p = |rel: &str| root.join(rel).display().to_string();
    let plans = sb.config().join("plans").display().to_string();
    let server = common::mock(
        Script::new()
            .turn(Turn::respond(move |r| {
                let path = plan_path_in(r, &plans);
                common::write("p", &path, PLAN)
            }))
            .turn(common::exit_plan("x"))
            .turn(common::read("r", p("src/a.py")))
            .turn(common::write("w1", p("src/a.py"), "a = 2\n"))
            .turn(common::write("w2", p("setup.cfg"), "[x]\n"))
            .turn(Turn::text("done"))
            // After the drift note: the model explains and ends.
            .turn(Turn::text("setup.cfg was needed; tests come next"))
            // The next turn: the same drift is not said again.
            .turn(Turn::text("nothing else to do")),
    );
    // No checkpointing asked for: the comparison runs anyway.
    let mut s = sb.stream(&server, &["--permission-mode", "plan"]);
    let plan_file = s.wait_type("system")["plan_file"]
        .as_str()
        .unwrap()
        .to_string();
    let slug = std::path::Path::new(&plan_file)
        .file_stem()
        .unwrap()
        .to_string_lossy()
        .to_string();
    s.send_user("add a feature");
    let ask = s.wait_type("control_request");
    let mut approved = ask["request"]["input"].clone();
    approved["mode"] = json!("acceptEdits");
    s.send(
        json!({"type":"control_response","response":{"subtype":"success",
        "request_id": ask["request_id"],"response":{"behavior":"allow","updatedInput":approved}}}),
    );
    let report = s.wait_for("the compliance report", |v| {
        v["subtype"] == "plan_compliance"
    });
    assert_eq!(report["type"], "system");
    assert_eq!(report["slug"], slug.as_str());
    assert_eq!(report["unplanned_files"], json!(["setup.cfg"]));
    assert_eq!(report["untouched_files"], json!(["tests/test_a.py"]));
    assert_eq!(
        (report["steps_done"].clone(), report["steps_total"].clone()),
        (json!(0), json!(2))
    );
    let result = s.wait_type("result");
    assert_eq!(result["result"], "setup.cfg was needed; tests come next");

    let requests = server.requests();
    let note = requests[6].last_user_text().unwrap_or_default();
    assert!(note.contains(NOTE) && note.contains("setup.cfg"), "{note}");
    common::assert_contains(&note, "Add tests/test_a.py");
    assert!(
        !requests[5]
            .last_user_text()
            .unwrap_or_default()
            .contains(NOTE)
    );

    s.send_user("anything else?");
    let again = s.wait_for("the second report", |v| v["subtype"] == "plan_compliance");
    assert_eq!(again["unplanned_files"], json!(["setup.cfg"]));
    assert_eq!(s.wait_type("result")["result"], "nothing else to do");
    let last = server.requests().pop().unwrap();
    let all: String = last
        .messages()
        .iter()
        .map(Value::to_string)
        .collect::<Vec<_>>()
        .join("\n");
    assert_eq!(all.matches(NOTE).count(), 1, "said once: {all}");
    assert_eq!(s.finish().0, 0);

    // Kept in the transcript and shown by `catui plans show`.
    let transcript = std::fs::read_to_string(&sb.transcripts()[0]).unwrap();
    assert!(transcript.contains("\"type\":\"plan_compliance\""));
    let out = sb.bare().args(["plans", "show", &slug]).output().unwrap();
    let shown = common::stdout(&out);
    common::assert_contains(&shown, "Changed, not in the plan: setup.cfg");
    common::assert_contains(&shown, "0/2 steps done");
}

#[test]
fn a_new_plan_ends_the_comparison() {
    let sb = Sandbox::new();
    let root = sb.project();
    let plans = sb.config().join("plans").display().to_string();
    let target = root.join("x.txt").display().to_string();
    let server = common::mock(
        Script::new()
            .turn(Turn::respond(move |r| {
                let path = plan_path_in(r, &plans);
                common::write("p", &path, "# P\n\n1. Write x.txt\n")
            }))
            .turn(common::exit_plan("x"))
            .turn(common::write("w", &target, "x\n"))
            .turn(common::todo_write("t", json!([{"content": "Write x.txt", "status": "completed", "activeForm": "Writing x.txt"}])))
            .turn(Turn::text("done"))
            .turn(Turn::text("planning again")),
    );
    let mut s = sb.stream(&server, &["--permission-mode", "plan"]);
    s.send_user("do x");
    let ask = s.wait_type("control_request");
    let mut approved = ask["request"]["input"].clone();
    approved["mode"] = json!("acceptEdits");
    s.send(
        json!({"type":"control_response","response":{"subtype":"success",
        "request_id": ask["request_id"],"response":{"behavior":"allow","updatedInput":approved}}}),
    );
    let report = s.wait_for("a report", |v| v["subtype"] == "plan_compliance");
    assert_eq!(report["unplanned_files"], json!([]));
    assert_eq!(report["untouched_files"], json!([]));
    assert_eq!(report["steps_done"], 1, "{report}");
    assert_eq!(
        s.wait_type("result")["result"],
        "done",
        "no note: nothing drifted"
    );
    s.send_user("/plan think about y");
    s.wait_type("result");
    let (code, seen) = s.finish();
    assert_eq!(code, 0);
    let reports = seen
        .iter()
        .filter(|v| v["subtype"] == "plan_compliance")
        .count();
    assert_eq!(reports, 1, "no report once planning again");
}

/// With `plansDirectory` inside the project, the plan file that catui
/// writes its progress into is its record of the work, not a file the
/// implementation changed: neither the report nor the model's note names
/// it.
#[test]
fn a_plan_file_inside_the_project_is_not_unplanned_work() {
    let sb = Sandbox::new();
    sb.user_settings(r#"{"plansDirectory": "plans", "planGoal": false, "planDrift": "note"}"#);
    let root = sb.project();
    let target = root.join("x.txt").display().to_string();
    let plans = root.join("plans").display().to_string();
    let server = common::mock(
        Script::new()
            .turn(Turn::respond(move |r| {
                let path = plan_path_in(r, &plans);
                common::write("p", &path, "# P\n\n1. Write x.txt\n2. Check x.txt\n")
            }))
            .turn(common::exit_plan("x"))
            .turn(common::write("w", &target, "x\n"))
            .turn(common::todo_write("t", json!([
                    {"content": "Write x.txt", "status": "completed", "activeForm": "Writing x.txt"},
                    {"content": "Check x.txt", "status": "pending", "activeForm": "Checking x.txt"}
                ])))
            .turn(Turn::text("done for now"))
            .turn(Turn::text("still done")),
    );
    let mut s = sb.stream(&server, &["--permission-mode", "plan"]);
    let plan_file = s.wait_type("system")["plan_file"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        plan_file.starts_with(&root.display().to_string()),
        "{plan_file}"
    );
    s.send_user("do x");
    let ask = s.wait_type("control_request");
    let mut approved = ask["request"]["input"].clone();
    approved["mode"] = json!("acceptEdits");
    s.send(
        json!({"type":"control_response","response":{"subtype":"success",
        "request_id": ask["request_id"],"response":{"behavior":"allow","updatedInput":approved}}}),
    );
    let report = s.wait_for("a report", |v| v["subtype"] == "plan_compliance");
    assert_eq!(report["unplanned_files"], json!([]), "{report}");
    assert_eq!(report["steps_done"], 1, "{report}");
    let (code, _) = s.finish();
    assert_eq!(code, 0);
    // The progress was written into the plan file, and no drift note came
    // of it (the one step left undone is not drift of its own).
    assert!(
        std::fs::read_to_string(&plan_file)
            .unwrap()
            .contains("1/2 steps done")
    );
    let notes: Vec<String> = server
        .requests()
        .iter()
        .map(|r| r.last_user_text().unwrap_or_default())
        .filter(|t| t.contains(NOTE))
        .collect();
    assert!(
        notes
            .iter()
            .all(|n| !n.contains("Files changed that the plan does not mention")),
        "{notes:?}"
    );
}
