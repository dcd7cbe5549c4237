//! A free-text goal (`--goal`, `/goal`) keeps the session working until the
//! small model judges it met, through the real binary against the testkit
//! mock model: the judge is one forced `goal_status` call per check; not
//! met, catui continues by itself with what is missing; a loop that
//! changes nothing stops by itself; `/goal` shows and clears the goal, and
//! it comes back with `--resume`.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use catui_testkit::{MockServer, RecordedRequest, Script, Turn};
use common::Sandbox;
use serde_json::{Value, json};

const SMALL: &str = "small-model";

fn judge(met: bool, missing: &str) -> Turn {
    Turn::tool_use("g", "goal_status", json!({"met": met, "missing": missing})).when_model(SMALL)
}

fn is_judge(r: &RecordedRequest) -> bool {
    r.model() == SMALL
}

/// One input over stream-json (someone is there: no unattended gate),
/// with `args`; every line seen until the session ended.
fn run(sb: &Sandbox, server: &MockServer, args: &[&str], input: &str) -> Vec<Value> {
    let mut all = vec!["--small-model", SMALL];
    all.extend_from_slice(args);
    let mut s = sb.stream(server, &all);
    s.send_user(input);
    s.wait_type("result");
    let (code, seen) = s.finish();
    assert_eq!(code, 0);
    seen
}

#[test]
fn a_free_text_goal_is_judged_by_the_small_model_and_keeps_the_work_going() {
    let sb = Sandbox::new();
    let hello = sb.project().join("hello.txt").display().to_string();
    let hello2 = hello.clone();
    let main = |r: &RecordedRequest| !is_judge(r);
    let server = common::mock(
        Script::new()
            .turn(common::write("w", &hello, "hello\n").when(main))
            .turn(Turn::text("Wrote hello.txt.").when(main))
            .turn(judge(false, "hello.txt must say hi, not hello"))
            .turn(common::write("w2", &hello2, "hi\n").when(main))
            .turn(Turn::text("Now it says hi.").when(main))
            .turn(judge(true, "")),
    );
    let seen = run(
        &sb,
        &server,
        &[
            "--permission-mode",
            "acceptEdits",
            "--goal",
            "hello.txt says hi",
        ],
        "write hello.txt",
    );
    let checks: Vec<(Value, Value, Value)> = seen
        .iter()
        .filter(|v| v["subtype"] == "goal_check")
        .map(|c| {
            (
                c["met"].clone(),
                c["missing"].clone(),
                c["continuation"].clone(),
            )
        })
        .collect();
    assert_eq!(
        checks,
        [
            (
                json!(false),
                json!("hello.txt must say hi, not hello"),
                json!(1)
            ),
            (json!(true), Value::Null, json!(0)),
        ]
    );
    let result = seen.iter().rev().find(|v| v["type"] == "result").unwrap();
    assert_eq!(result["result"], "Now it says hi.");
    assert_eq!(result["goal"]["met"], true, "{result}");
    assert_eq!(result["goal"]["continuations"], 1);
    assert!(
        result.get("plan_report").is_none(),
        "no plan, no plan report"
    );

    let reqs = server.requests();
    let judges: Vec<&RecordedRequest> = reqs.iter().filter(|r| is_judge(r)).collect();
    assert_eq!(judges.len(), 2);
    for j in &judges {
        // A forced tool call, shown the goal, the turn and the files.
        assert_eq!(
            j.body["tool_choice"],
            json!({"type": "tool", "name": "goal_status"}),
            "{}",
            j.body
        );
        let asked = j.last_user_text().unwrap();
        common::assert_contains(&asked, "<goal>\nhello.txt says hi\n</goal>");
        common::assert_contains(&asked, "hello.txt");
    }
    assert!(
        judges[0]
            .last_user_text()
            .unwrap()
            .contains("Wrote hello.txt.")
    );
    // The model was told what is missing.
    let continued = reqs
        .iter()
        .find(|r| !is_judge(r) && r.contains_text("Still missing: hello.txt must say hi"))
        .unwrap();
    assert!(continued.contains_text("Goal: hello.txt says hi"));
    assert_eq!(
        std::fs::read_to_string(sb.project().join("hello.txt")).unwrap(),
        "hi\n"
    );
}

#[test]
fn a_loop_that_changes_nothing_stops_by_itself() {
    let sb = Sandbox::new();
    let main = |r: &RecordedRequest| !is_judge(r);
    let mut script = Script::new();
    for i in 0..6 {
        script = script
            .turn(Turn::text(format!("I think it is fine ({i}).")).when(main))
            .turn(judge(false, "the tests were never run"));
    }
    let server = common::mock(script);
    let seen = run(&sb, &server, &["--goal", "the tests pass"], "is it done?");
    let checks: Vec<Value> = seen
        .iter()
        .filter(|v| v["subtype"] == "goal_check")
        .map(|c| c["continuation"].clone())
        .collect();
    // One continuation is allowed to change nothing; the second that
    // changes nothing ends the loop (its check leads to no continuation).
    assert_eq!(checks, [json!(1), json!(2), json!(0)]);
    let result = seen.iter().rev().find(|v| v["type"] == "result").unwrap();
    assert_eq!(result["subtype"], "success");
    assert_eq!(result["result"], "I think it is fine (2).");
    assert_eq!(result["goal"]["met"], false, "{result}");
    assert_eq!(result["goal"]["continuations"], 2);
    assert!(
        result["goal"]["reason"]
            .as_str()
            .unwrap()
            .contains("changed nothing"),
        "{result}"
    );
    assert_eq!(result["goal"]["missing"], "the tests were never run");
    assert_eq!(server.requests().iter().filter(|r| main(r)).count(), 3);
}

#[test]
fn the_goal_is_shown_cleared_and_kept_across_a_resume() {
    let (sb, server) = common::with_mock(Script::new());
    let mut s = sb.stream(&server, &["--small-model", SMALL]);
    s.send_user("/goal the docs build without warnings");
    let set = s.wait_type("result");
    assert!(
        set["result"]
            .as_str()
            .unwrap()
            .starts_with("Goal set: the docs build without warnings"),
        "{set}"
    );
    let (_, seen) = s.finish();
    let session = seen[0]["session_id"].as_str().unwrap().to_string();

    let mut s = sb.stream(&server, &["--resume", &session]);
    s.send_user("/goal");
    let shown = s.wait_type("result");
    assert!(
        shown["result"]
            .as_str()
            .unwrap()
            .contains("Goal: the docs build without warnings"),
        "{shown}"
    );
    s.send_user("/goal clear");
    assert_eq!(s.wait_type("result")["result"], "Goal cleared.");
    s.send_user("/goal");
    assert!(
        s.wait_type("result")["result"]
            .as_str()
            .unwrap()
            .starts_with("No goal is set"),
    );
    s.finish();
    assert!(server.requests().is_empty(), "no model was asked");
}
